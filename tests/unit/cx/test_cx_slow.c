// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The slow device (cx_host.slow, sim/mlx5/engine/m5m_slow.c), driven on the
 * rig of cx_rig.h: WQEs run from the timer a few per tick, READ and atomic
 * data landing after later unfenced WQEs, fences, WQEs compared at their
 * completion, receives read when the message runs.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cx_rig.h"

/* --- The slow device (cx_host.slow, m5m_slow.c) ---------------------------- */

static struct t_rig *t_slow_rig(unsigned int per_tick, bool b_rtr)
{
	struct t_rig *r;

	dev_slow = per_tick;
	r = t_rig_on(CX_ST_RC, 0, b_rtr, false);
	dev_slow = 0;
	return r;
}

/* One tick: cx_timers() after the tick period (50 µs) has passed. */
static void t_tick(struct t_rig *r)
{
	struct timespec ts = { 0, 60000 };

	nanosleep(&ts, NULL);
	cx_timers(r->cx);
}

static unsigned int t_cqes(unsigned int i)
{
	unsigned int n = 0;

	while (n < 1u << CQ_LOG && t_cqe(i, n)->op_own >> 4 != CQE_INVALID)
		n++;
	return n;
}

static void device_runs_two_wqes_per_tick_and_completes_at_the_next(void)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x200;
	unsigned int k;

	t_fill(r, 0, src, 8 * 64, 3);
	for (k = 0; k < 8; k++)
		t_write(r, r->key[1], dst + 64 * k, 64, r->key[0],
			src + 64 * k);
	/* The doorbells only recorded the producer index. */
	CHECK_EQ(t_cqes(0), 0);
	CHECK(!t_same(r, 0, src, 1, dst, 64));
	t_tick(r);
	CHECK(t_same(r, 0, src, 1, dst, 2 * 64));
	CHECK(!t_same(r, 0, src + 2 * 64, 1, dst + 2 * 64, 64));
	CHECK_EQ(t_cqes(0), 0);
	for (k = 2; k <= 5; k++) {
		t_tick(r);
		CHECK_EQ(t_cqes(0), 2 * (k - 1));
	}
	CHECK(t_same(r, 0, src, 1, dst, 8 * 64));
	for (k = 0; k < 8; k++)
		CHECK_EQ(be16toh(t_cqe(0, k)->wqe_counter), k);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 0);
	t_rig_free(r);
}

/*
 * A READ into L, then a WRITE of L to the peer: without a fence the WRITE
 * gathers L before the READ's response lands; with one it waits for it.
 */
static void t_read_then_write(bool fence)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t l = t_iova[0] + 0x40, src = t_iova[1] + 0x400;
	uint64_t dst = t_iova[1] + 0x800;
	uint8_t *w;

	t_fill(r, 0, l, 256, 11);
	t_fill(r, 1, src, 256, 99);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 3);
	t_raddr(w, r->key[1], src);
	t_data(w + 16, 256, r->key[0], l);
	t_ring(r, 0, 1);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	if (fence)
		w[-16 + 11] |= M5_WQE_CTRL_FENCE; /* fm_ce_se */
	t_raddr(w, r->key[1], dst);
	t_data(w + 16, 256, r->key[0], l);
	t_ring(r, 0, 1);
	t_tick(r);
	t_tick(r);
	t_tick(r);
	CHECK(t_same(r, 0, l, 1, src, 256)); /* the READ landed */
	CHECK(t_same(r, 1, dst, 1, src, 256) == fence);
	/* Completions in SQ order all the same. */
	CHECK_EQ(t_cqes(0), 2);
	CHECK_EQ(be32toh(t_cqe(0, 0)->sop_drop_qpn) >> 24, M5_OPCODE_RDMA_READ);
	CHECK_EQ(be16toh(t_cqe(0, 1)->wqe_counter), 1);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 0);
	t_rig_free(r);
}

static void read_lands_after_a_later_unfenced_write_gathered(void)
{
	t_read_then_write(false);
}

static void fenced_write_waits_for_the_earlier_read(void)
{
	t_read_then_write(true);
}

/*
 * A FETCH_ADD into L, then a WRITE of L: the atomic's original value lands
 * at its completion, after the unfenced WRITE gathered L.
 */
static void t_fetch_add_then_write(bool fence)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t l = t_iova[0] + 0x80, ctr = t_iova[1] + 0x1000;
	uint64_t dst = t_iova[1] + 0x1100, v = 5, got;
	uint8_t *w;

	t_fill(r, 0, l, 8, 1);
	memcpy(t_va(r, 1, ctr), &v, 8);
	w = t_wqe(r, 0, M5_OPCODE_ATOMIC_FA, 4);
	t_raddr(w, r->key[1], ctr);
	((struct m5_atomic_seg *)(w + 16))->swap_add = htobe64(3);
	t_data(w + 32, 8, r->key[0], l);
	t_ring(r, 0, 1);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	if (fence)
		w[-16 + 11] |= M5_WQE_CTRL_FENCE; /* fm_ce_se */
	t_raddr(w, r->key[1], dst);
	t_data(w + 16, 8, r->key[0], l);
	t_ring(r, 0, 1);
	t_tick(r);
	t_tick(r);
	t_tick(r);
	memcpy(&got, t_va(r, 1, ctr), 8);
	CHECK_EQ(got, 8);
	memcpy(&got, t_va(r, 0, l), 8);
	CHECK_EQ(got, 5);
	memcpy(&got, t_va(r, 1, dst), 8);
	CHECK_EQ(got == 5, fence);
	CHECK_EQ(t_cqes(0), 2);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 0);
	t_rig_free(r);
}

static void atomic_result_lands_after_a_later_unfenced_write(void)
{
	t_fetch_add_then_write(false);
}

static void fenced_write_waits_for_the_earlier_atomic(void)
{
	t_fetch_add_then_write(true);
}

/* rdma-core's test_qp_ex_rc_rdma_read_zero_size: no data, no R_Key. */
static void zero_length_read_completes_without_a_key(void)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint8_t *w;

	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 2);
	t_raddr(w, 0, 0);
	t_ring(r, 0, 1);
	t_tick(r);
	t_tick(r);
	t_check_req(r, 0, M5_OPCODE_RDMA_READ, 0);
	t_rig_free(r);
}

static void wqe_rewritten_before_its_completion_is_counted(void)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t src = t_iova[0], dst = t_iova[1];
	uint8_t *w;

	t_write(r, r->key[1], dst, 64, r->key[0], src);
	t_tick(r); /* executed */
	t_tick(r); /* completed, as read */
	CHECK_EQ(cx_eng_stats(r->cx)->wqe_rewritten, 0);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	t_raddr(w, r->key[1], dst);
	t_data(w + 16, 64, r->key[0], src);
	t_ring(r, 0, 1);
	t_tick(r);
	/* The provider reuses the slot before the CQE: a wrong length. */
	((struct m5_data_seg *)(w + 16))->byte_count = htobe32(32);
	t_tick(r);
	CHECK_EQ(t_cqes(0), 2);
	CHECK_EQ(cx_eng_stats(r->cx)->wqe_rewritten, 1);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 1);
	t_rig_free(r);
}

static void receive_posted_after_the_send_doorbell_is_taken(void)
{
	struct t_rig *r = t_slow_rig(2, false);

	t_fill(r, 0, t_iova[0], 64, 5);
	t_send(r, 64, r->key[0], t_iova[0]);
	/* Read when the SEND executes, not at its doorbell: no RNR. */
	t_recv(r, 1, 64, t_iova[1]);
	t_tick(r);
	t_tick(r);
	t_check_req(r, 0, M5_OPCODE_SEND, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1], 64));
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

static const struct check_test tests[] = {
	CHECK_TEST(device_runs_two_wqes_per_tick_and_completes_at_the_next),
	CHECK_TEST(read_lands_after_a_later_unfenced_write_gathered),
	CHECK_TEST(fenced_write_waits_for_the_earlier_read),
	CHECK_TEST(atomic_result_lands_after_a_later_unfenced_write),
	CHECK_TEST(fenced_write_waits_for_the_earlier_atomic),
	CHECK_TEST(wqe_rewritten_before_its_completion_is_counted),
	CHECK_TEST(zero_length_read_completes_without_a_key),
	CHECK_TEST(receive_posted_after_the_send_doorbell_is_taken),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cx_slow_", tests);
}
