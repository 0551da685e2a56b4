// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rxe send path on a ring in ordinary memory: WR checks, the WQE built in
 * the slot, and what post_send publishes when a list is partly bad.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rxe_fake.h"
#include "rxe/rxe_send_wqe.h"
#include "check.h"

static uint8_t buf[4096];

static struct ibv_send_wr send_wr(uint64_t id, struct ibv_sge *sge, int n)
{
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = sge,
		.num_sge = n,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	return wr;
}

static int check(struct fake_qp *f, struct ibv_send_wr *wr)
{
	uint32_t len;

	return rxe_check_send_wr(&f->qp, wr, &len);
}

static void unknown_and_kernel_only_opcodes_are_refused(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1);

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	wr.opcode = 0x20; /* the kernel's IB_WR_REG_MR */
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.opcode = 200;
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.opcode = IBV_WR_TSO;
	CHECK_EQ(check(&f, &wr), EINVAL);
	/* Only through ibv_wr_*, and only on Linux 6.2+: never here. */
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	CHECK_EQ(check(&f, &wr), EOPNOTSUPP);
	wr.opcode = (enum ibv_wr_opcode)RXE_WR_FLUSH;
	CHECK_EQ(check(&f, &wr), EOPNOTSUPP);
	wr.opcode = IBV_WR_SEND;
	CHECK_EQ(check(&f, &wr), 0);
	fake_qp_free(&f);
}

static void opcodes_follow_the_qp_type(void)
{
	struct fake_qp uc, ud;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1);

	fake_qp_init(&uc, IBV_QPT_UC, 2, 64);
	fake_qp_init(&ud, IBV_QPT_UD, 2, 64);
	wr.opcode = IBV_WR_RDMA_READ;
	CHECK_EQ(check(&uc, &wr), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	CHECK_EQ(check(&uc, &wr), EINVAL);
	wr.opcode = IBV_WR_RDMA_WRITE;
	CHECK_EQ(check(&uc, &wr), 0);
	CHECK_EQ(check(&ud, &wr), EINVAL);
	fake_qp_free(&uc);
	fake_qp_free(&ud);
}

static void sge_count_and_flags_are_bounded(void)
{
	struct fake_qp f;
	struct ibv_sge sge[3] = { { (uintptr_t)buf, 8, 1 },
				  { (uintptr_t)buf, 8, 1 },
				  { (uintptr_t)buf, 8, 1 } };
	struct ibv_send_wr wr = send_wr(1, sge, 3);

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.num_sge = -1;
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.num_sge = 2;
	CHECK_EQ(check(&f, &wr), 0);
	wr.send_flags |= IBV_SEND_IP_CSUM;
	CHECK_EQ(check(&f, &wr), EINVAL);
	fake_qp_free(&f);
}

static void inline_length_adds_every_sge_in_64_bits(void)
{
	struct fake_qp f;
	struct ibv_sge sge[2] = { { (uintptr_t)buf, 40, 0 },
				  { (uintptr_t)buf, 40, 0 } };
	struct ibv_send_wr wr = send_wr(1, sge, 2);

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	wr.send_flags |= IBV_SEND_INLINE;
	CHECK_EQ(check(&f, &wr), EINVAL); /* 80 > 64 */
	sge[0].length = 24;
	CHECK_EQ(check(&f, &wr), 0); /* 64 */
	/* Two lengths that wrap a 32-bit sum to a small number. */
	sge[0].length = 0xffffffff;
	sge[1].length = 2;
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.opcode = IBV_WR_RDMA_READ;
	sge[0].length = 8;
	CHECK_EQ(check(&f, &wr), EINVAL); /* inline has no meaning on a read */
	fake_qp_free(&f);
}

static void atomics_need_8_bytes_at_an_aligned_address(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1);

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0x1000;
	CHECK_EQ(check(&f, &wr), 0);
	wr.wr.atomic.remote_addr = 0x1004;
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.wr.atomic.remote_addr = 0x1000;
	sge.length = 4;
	CHECK_EQ(check(&f, &wr), EINVAL);
	fake_qp_free(&f);
}

static void ud_sends_need_an_ah_of_the_qp_pd_and_context(void)
{
	struct fake_qp f;
	struct ibv_pd other = { .handle = 2 };
	struct rxe_ah ah = { .ah_num = 7 };
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1);

	fake_qp_init(&f, IBV_QPT_UD, 2, 64);
	CHECK_EQ(check(&f, &wr), EINVAL);
	ah.ibv_ah.pd = &other;
	wr.wr.ud.ah = &ah.ibv_ah;
	CHECK_EQ(check(&f, &wr), EINVAL);
	ah.ibv_ah.pd = &f.pd;
	CHECK_EQ(check(&f, &wr), EINVAL); /* an AH of another context */
	ah.ibv_ah.context = &f.ctx;
	CHECK_EQ(check(&f, &wr), 0);
	fake_qp_free(&f);
}

static void binding_a_window_without_an_mr_is_refused(void)
{
	struct fake_qp f;
	struct ibv_mw mw = { .context = NULL, .rkey = 0x100 };
	struct ibv_send_wr wr = send_wr(1, NULL, 0);

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	mw.context = &f.ctx;
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = &mw;
	wr.bind_mw.bind_info.length = 4096;
	CHECK_EQ(check(&f, &wr), EINVAL);
	wr.bind_mw.bind_info.length = 0; /* an unbind needs no MR */
	CHECK_EQ(check(&f, &wr), 0);
	wr.bind_mw.mw = NULL;
	CHECK_EQ(check(&f, &wr), EINVAL);
	fake_qp_free(&f);
}

static void write_wqe_carries_remote_address_in_iova(void)
{
	struct fake_qp f;
	struct ibv_sge sge[2] = { { 0x1111, 100, 0x21 }, { 0x2222, 28, 0x22 } };
	struct ibv_send_wr wr = send_wr(0xfeed, sge, 2);
	struct rxe_send_wqe *w;
	uint32_t len = 0;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0x12345678);
	wr.wr.rdma.remote_addr = 0xabcdef000;
	wr.wr.rdma.rkey = 0x77;
	w = rxe_ring_slot(&f.qp.sq.ring, 0);
	CHECK_EQ(rxe_check_send_wr(&f.qp, &wr, &len), 0);
	rxe_build_send_wqe(&f.qp, &wr, len, w);
	CHECK_EQ(w->wr.wr_id, 0xfeed);
	CHECK_EQ(w->wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	CHECK_EQ(w->wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(w->wr.ex.imm_data, htobe32(0x12345678));
	CHECK_EQ(w->wr.wr.rdma.remote_addr, 0xabcdef000);
	CHECK_EQ(w->wr.wr.rdma.rkey, 0x77);
	CHECK_EQ(w->iova, 0xabcdef000);
	CHECK_EQ(w->dma.length, 128);
	CHECK_EQ(w->dma.resid, 128);
	CHECK_EQ(w->dma.num_sge, 2);
	CHECK_EQ(w->dma.cur_sge, 0);
	CHECK_EQ(w->dma.sge[1].addr, 0x2222);
	CHECK_EQ(w->dma.sge[1].lkey, 0x22);
	/* Kernel-owned fields never keep bytes from the slot's last use. */
	CHECK_EQ(w->status, 0);
	CHECK_EQ(w->state, 0);
	CHECK_EQ(w->has_rd_atomic, 0);
	CHECK_EQ(w->mask, 0);
	fake_qp_free(&f);
}

/*
 * The one-WR fast path: Linux's requester (and its retry, which rewinds
 * dma and iova from these fields) reads the WQE in place, so every field it
 * reads before writing is set, whatever the slot held before.
 */
static void fast_path_send_wqe_leaves_nothing_of_the_slot(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 257, 0x31 };
	struct ibv_send_wr wr = send_wr(0x504, &sge, 1), *bad = NULL;
	struct rxe_send_wqe *w;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0xb17be2f6);
	w = rxe_ring_slot(&f.qp.sq.ring, 0);
	CHECK_EQ(w->state, 0xa5a5a5a5); /* a used slot's leftovers */
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, &wr, &bad), 0);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 1);
	CHECK_EQ(w->wr.wr_id, 0x504);
	CHECK_EQ(w->wr.opcode, IBV_WR_SEND_WITH_IMM);
	CHECK_EQ(w->wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(w->wr.ex.imm_data, htobe32(0xb17be2f6));
	CHECK_EQ(w->wr.wr.rdma.remote_addr, 0);
	CHECK_EQ(w->iova, 0);
	CHECK_EQ(w->status, 0);
	CHECK_EQ(w->state, 0);
	CHECK_EQ(w->mask, 0);
	CHECK_EQ(w->has_rd_atomic, 0);
	CHECK_EQ(w->first_psn, 0);
	CHECK_EQ(w->last_psn, 0);
	CHECK_EQ(w->ssn, 0);
	CHECK_EQ(w->dma.length, 257);
	CHECK_EQ(w->dma.resid, 257);
	CHECK_EQ(w->dma.cur_sge, 0);
	CHECK_EQ(w->dma.sge_offset, 0);
	CHECK_EQ(w->dma.num_sge, 1);
	CHECK_EQ(w->dma.sge[0].addr, (uintptr_t)buf);
	CHECK_EQ(w->dma.sge[0].length, 257);
	CHECK_EQ(w->dma.sge[0].lkey, 0x31);
	fake_qp_free(&f);
}

static void inline_wqe_holds_the_gathered_bytes(void)
{
	struct fake_qp f;
	uint8_t a[5] = "abcde", b[3] = "xyz";
	struct ibv_sge sge[2] = { { (uintptr_t)a, 5, 0 },
				  { (uintptr_t)b, 3, 0 } };
	struct ibv_send_wr wr = send_wr(1, sge, 2);
	struct rxe_send_wqe *w;
	uint32_t len = 0;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	wr.send_flags |= IBV_SEND_INLINE;
	w = rxe_ring_slot(&f.qp.sq.ring, 0);
	CHECK_EQ(rxe_check_send_wr(&f.qp, &wr, &len), 0);
	rxe_build_send_wqe(&f.qp, &wr, len, w);
	CHECK(memcmp(w->dma.inline_data, "abcdexyz", 8) == 0);
	CHECK_EQ(w->dma.length, 8);
	CHECK_EQ(w->wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	fake_qp_free(&f);
}

static void ud_wqe_names_the_ah_by_number(void)
{
	struct fake_qp f;
	struct rxe_ah ah = { .ah_num = 9 };
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1);
	struct rxe_send_wqe *w;
	uint32_t len = 0;

	fake_qp_init(&f, IBV_QPT_UD, 2, 64);
	ah.ibv_ah.pd = &f.pd;
	ah.ibv_ah.context = &f.ctx;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = 42;
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x11;
	wr.wr.ud.remote_qkey = 0x22;
	w = rxe_ring_slot(&f.qp.sq.ring, 0);
	CHECK_EQ(rxe_check_send_wr(&f.qp, &wr, &len), 0);
	rxe_build_send_wqe(&f.qp, &wr, len, w);
	CHECK_EQ(w->wr.wr.ud.ah_num, 9);
	CHECK_EQ(w->wr.wr.ud.remote_qpn, 0x11);
	CHECK_EQ(w->wr.wr.ud.remote_qkey, 0x22);
	CHECK_EQ(w->wr.ex.imm_data, 42);
	fake_qp_free(&f);
}

static void a_bad_wr_stops_the_list_after_the_good_ones(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr w[4], *bad = NULL;
	int i;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	for (i = 0; i < 4; i++) {
		w[i] = send_wr(i, &sge, 1);
		w[i].next = i < 3 ? &w[i + 1] : NULL;
	}
	w[2].opcode = 0x20;
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, w, &bad), EINVAL);
	CHECK(bad == &w[2]);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 2);
	CHECK(!fake_slot_untouched(&f.qp.sq.ring, 1));
	/* Nothing of the bad WR reached its slot. */
	CHECK(fake_slot_untouched(&f.qp.sq.ring, 2));
	fake_qp_free(&f);
}

static void a_full_queue_returns_ENOMEM_and_posts_what_fits(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr w[10], *bad = NULL;
	int i;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	for (i = 0; i < 10; i++) {
		w[i] = send_wr(i, &sge, 1);
		w[i].next = i < 9 ? &w[i + 1] : NULL;
	}
	/* 8 slots, one always empty: 7 fit. */
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, w, &bad), ENOMEM);
	CHECK(bad == &w[7]);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 7);
	CHECK(fake_slot_untouched(&f.qp.sq.ring, 7));
	/* The kernel consumes three: three more fit. */
	f.qp.sq.ring.buf->consumer_index = 3;
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, &w[7], &bad), 0);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 2);
	fake_qp_free(&f);
}

static void sends_before_rts_are_refused_and_write_nothing(void)
{
	static const enum ibv_qp_state states[] = { IBV_QPS_RESET, IBV_QPS_INIT,
						    IBV_QPS_RTR };
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1), *bad = NULL;
	unsigned int i;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	for (i = 0; i < 3; i++) {
		f.qp.vqp.qp.state = states[i];
		bad = NULL;
		CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, &wr, &bad), EINVAL);
		CHECK(bad == &wr);
	}
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 0);
	CHECK(fake_slot_untouched(&f.qp.sq.ring, 0));
	f.qp.vqp.qp.state = IBV_QPS_ERR; /* flushed, but accepted */
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, &wr, &bad), 0);
	fake_qp_free(&f);
}

static void a_kernel_index_out_of_range_is_masked(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr = send_wr(1, &sge, 1), *bad = NULL;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	f.qp.sq.ring.buf->consumer_index = 0xfffffff9; /* masks to 1 */
	CHECK_EQ(rxe_ring_room(&f.qp.sq.ring), 0);
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, &wr, &bad), ENOMEM);
	f.qp.sq.ring.buf->consumer_index = 0xfffffffa; /* masks to 2 */
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, &wr, &bad), 0);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 1);
	fake_qp_free(&f);
}

static const struct check_test tests[] = {
	CHECK_TEST(unknown_and_kernel_only_opcodes_are_refused),
	CHECK_TEST(opcodes_follow_the_qp_type),
	CHECK_TEST(sge_count_and_flags_are_bounded),
	CHECK_TEST(inline_length_adds_every_sge_in_64_bits),
	CHECK_TEST(atomics_need_8_bytes_at_an_aligned_address),
	CHECK_TEST(ud_sends_need_an_ah_of_the_qp_pd_and_context),
	CHECK_TEST(binding_a_window_without_an_mr_is_refused),
	CHECK_TEST(write_wqe_carries_remote_address_in_iova),
	CHECK_TEST(fast_path_send_wqe_leaves_nothing_of_the_slot),
	CHECK_TEST(inline_wqe_holds_the_gathered_bytes),
	CHECK_TEST(ud_wqe_names_the_ah_by_number),
	CHECK_TEST(a_bad_wr_stops_the_list_after_the_good_ones),
	CHECK_TEST(a_full_queue_returns_ENOMEM_and_posts_what_fits),
	CHECK_TEST(sends_before_rts_are_refused_and_write_nothing),
	CHECK_TEST(a_kernel_index_out_of_range_is_masked),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_send_", tests);
}
