// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device's doorbell rules, driven on the rig of cx_rig.h: a doorbell
 * for no QP, on another UAR page, naming an earlier WQE or differing from
 * the WQE it names; WQEs no doorbell named; receive queues over-posted or
 * written after their doorbell record; BlueFlame copies assembled from a
 * half's writes and run from their payload (cx_bf.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cx_rig.h"

static void doorbell_for_no_qp_is_ignored_and_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t db[8] = { 0 };

	cx_set(db, 32, 32, 0x3ff << 8 | 1); /* a QPN never made */
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, db, 8),
		 0);
	cx_set(db, 32, 32, r->qpn[0] << 8 | 1);
	/* A BlueFlame copy's later bytes are no doorbell. */
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x840, db, 8),
		 0);
	CHECK_EQ(cx_eng_stats(r->cx)->stray_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/*
 * The engine's receive checks run at each send doorbell of the QP that
 * rang (the device sees no dbrec store): a provider that posts more
 * receives than the RQ holds is caught, and counted per rule.
 */
static void rq_over_posting_is_a_recv_violation(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	unsigned int i;

	for (i = 0; i <= 1u << RQ_LOG; i++)
		t_recv(r, 0, 64, t_iova[0] + 0x1000);
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(cx_eng_stats(r->cx)->recv_violations, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->send_violations, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 1);
	t_rig_free(r);
}

/* A receive WQE whose dbrec was stored before its data segment. */
static void recv_wqe_written_after_its_dbrec_is_a_recv_violation(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);

	t_recv(r, 0, 64, t_iova[0] + 0x1000);
	memset(at(r->rq_at[0]), 0, 64); /* the WQE is not there yet */
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK(cx_eng_stats(r->cx)->recv_violations >= 1);
	t_rig_free(r);
}

/* An SRQ whose dbrec counts every slot: the free list's tail was taken. */
static void srq_over_posting_is_a_recv_violation(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, false, true);
	unsigned int i, n = 1u << SRQ_LOG;
	uint8_t *w;

	for (i = 0; i < n; i++) {
		w = at(PG(P_SRQ) + 64 * i);
		memset(w, 0, 64);
		((struct m5_srq_next_seg *)w)->next_wqe_index =
			htobe16((i + 1) % n);
		t_data(w + 16, 64, r->key[1], t_iova[1]);
		t_data(w + 32, 0, M5_INVALID_LKEY, 0);
	}
	*(__be32 *)at(PG(P_DBR) + 0x100) = htobe32(n);
	t_recv(r, 0, 64, t_iova[0]);
	w = t_wqe(r, 1, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[1], t_iova[1] + 0x100);
	t_ring(r, 1, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->recv_violations, 1);
	t_rig_free(r);
}

/*
 * Two SENDs posted on A (the SND dbrec past both), the doorbell rung with
 * the first one's ctrl segment; the first WQE's ctrl segment.
 */
static const uint8_t *t_two_sends_first_rung(struct t_rig *r)
{
	const uint8_t *first;
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	t_recv(r, 1, 64, t_iova[1] + 0x100);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	first = w - sizeof(struct m5_ctrl_seg);
	r->sq_pi[0]++;
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	r->sq_pi[0]++;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, first,
			      8),
		 0);
	return first;
}

/*
 * Only the first runs (a ConnectX takes the producer index from the
 * doorbell); a dbrec ahead of the doorbell is not counted (MMIO writes are
 * posted: the second WQE's doorbell may still be on its way), and once
 * the second WQE's doorbell ran it, stopping the QP counts nothing.
 */
static void doorbell_naming_an_earlier_wqe_runs_only_up_to_it(void)
{
	uint8_t qpc[CX_QPC_BYTES] = { 0 };
	struct t_rig *r = t_rig(CX_ST_RC);
	const uint8_t *first = t_two_sends_first_rung(r);

	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 0);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800,
			      first + 64, 8),
		 0);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_move(r->cx, CX_OP_2ERR_QP, r->qpn[0], qpc);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * A WQE posted (the SND dbrec) that no doorbell named: counted when the QP
 * stops sending, by 2ERR or DESTROY_QP.
 */
static void wqe_no_doorbell_named_is_counted_when_the_qp_stops(void)
{
	uint8_t qpc[CX_QPC_BYTES] = { 0 }, in[0x10] = { 0 }, out[16];
	int i;

	for (i = 0; i < 2; i++) {
		struct t_rig *r = t_rig(CX_ST_RC);

		t_two_sends_first_rung(r);
		CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
		if (i == 0) {
			t_move(r->cx, CX_OP_2ERR_QP, r->qpn[0], qpc);
		} else {
			cx_set(in, F_IN_OPCODE, CX_OP_DESTROY_QP);
			cx_set(in, F_QPN, r->qpn[0]);
			CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)),
				 0);
		}
		CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 1);
		t_rig_free(r);
	}
}

/* A doorbell whose bytes are not the WQE it names (here: its ds). */
static void doorbell_differing_from_its_wqe_is_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t db[8];
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	memcpy(db, w - sizeof(struct m5_ctrl_seg), 8);
	db[7] = 3; /* ds 3, still one WQEBB */
	r->sq_pi[0]++;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, db, 8),
		 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * A send doorbell rung on a UAR page the driver owns but the QPC does not
 * name is dropped (the SQ does not run) and counted; rung again on the
 * QP's own page, the WQE runs.
 */
static void doorbell_on_another_uar_is_dropped_and_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t other = alloc_uar(r->cx);
	const uint8_t *db;
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	db = w - sizeof(struct m5_ctrl_seg);
	r->sq_pi[0]++;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)other * CX_PAGE + 0x800, db, 8),
		 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->db_wrong_uar, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 0);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x900, db, 8),
		 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(cx_eng_stats(r->cx)->db_wrong_uar, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * A BlueFlame copy as libmlx5's mlx5_bf_copy writes it: the SND dbrec,
 * then LEN bytes of P at UAR offset OFF in writes of PIECE bytes.  The
 * server holds a half's writes for the rest of the copy (bf_wait_ns).
 */
static void t_bf(struct t_rig *r, unsigned int nbb, uint32_t off,
		 const uint8_t *p, uint32_t len, uint32_t piece)
{
	uint32_t k;

	r->cx->host.bf_wait_ns = 1000000000;
	r->sq_pi[0] += nbb;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	for (k = 0; k < len; k += piece)
		CHECK_EQ(cx_bar_write(r->cx,
				      (uint64_t)r->uar * CX_PAGE + off + k,
				      p + k, piece),
			 0);
}

/*
 * The device runs a complete copy, not the WQE in memory: the SEND the
 * payload describes (other bytes, other length) is what lands, and the
 * difference is counted.
 */
static void bf_copy_runs_its_payload_not_the_wqe_in_memory(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[0] + 0x800;
	uint64_t dst = t_iova[1] + 0x40;
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	uint8_t copy[64];

	t_fill(r, 0, a, 300, 3);
	t_fill(r, 0, b, 200, 9);
	t_recv(r, 1, 1000, dst);
	t_data(w, 300, r->key[0], a);
	memcpy(copy, w - 16, 64);
	t_data(copy + 16, 200, r->key[0], b); /* the payload's own segment */
	t_bf(r, 1, 0xa00, copy, 64, 8);
	CHECK(t_same(r, 0, b, 1, dst, 200));
	t_check_req(r, 0, M5_OPCODE_SEND, 200);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 1);
	t_rig_free(r);
}

/*
 * The kernels' write-combining probe: a NOP without CQ_UPDATE in memory,
 * copied with it.  The payload's CQE comes, and it is not counted.
 */
static void bf_probe_nop_completes_from_its_payload_uncounted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_NOP, 1);
	uint8_t copy[64];

	((struct m5_ctrl_seg *)(w - 16))->fm_ce_se = 0;
	memcpy(copy, w - 16, 64);
	((struct m5_ctrl_seg *)copy)->fm_ce_se = M5_WQE_CTRL_CQ_UPDATE;
	t_bf(r, 1, 0xa00, copy, 64, 8);
	t_check_req(r, 0, M5_OPCODE_NOP, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 0);
	t_rig_free(r);
}

/* Halves alternate: a copy on the half its bfreg rang last is counted. */
static void bf_copy_on_the_half_rung_last_is_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	unsigned int n;

	for (n = 0; n < 3; n++) {
		uint8_t *w = t_wqe(r, 0, M5_OPCODE_NOP, 1);

		/* the second and third on the same half */
		t_bf(r, 1, n ? 0xb00 : 0xa00, w - 16, 64, 16);
	}
	CHECK_EQ(t_cqe(0, 2)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 3);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_half_reused, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 0);
	t_rig_free(r);
}

/*
 * A copy torn by a write at its bfreg's other half (16 of the 48 bytes
 * its ds says) is counted and does not ring; the write that tore it (a
 * doorbell for no QP here) is held, then taken for a doorbell once its
 * wait is over.
 */
static void bf_copy_torn_by_the_other_half_is_counted_not_run(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 3);
	uint8_t db[8] = { 0 };

	t_fill(r, 0, t_iova[0], 64, 5);
	t_recv(r, 1, 1000, t_iova[1]);
	t_data(w, 64, r->key[0], t_iova[0]);
	t_bf(r, 1, 0xa00, w - 16, 16, 8);
	cx_set(db, 32, 32, 0x3ff << 8 | 1); /* a QPN never made */
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0xb00, db, 8),
		 0);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_partial, 1);
	CHECK(cx_timers(r->cx) > 0); /* the held doorbell's wait */
	CHECK_EQ(cx_eng_stats(r->cx)->stray_doorbells, 0);
	r->cx->host.bf_wait_ns = 0;
	cx_timers(r->cx); /* over: 8 bytes are a doorbell */
	CHECK_EQ(cx_eng_stats(r->cx)->stray_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/*
 * A copy of a WQE that wraps the SQ's end (its second WQEBB is slot 0):
 * the payload is compared with the WQE as the ring holds it, wrapped, and
 * runs; 60 inline bytes land.
 */
static void bf_copy_of_a_wqe_wrapping_the_sq_end_runs(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t copy[128], *w;
	struct m5_inline_seg *inl;
	unsigned int n;

	for (n = 0; n < 7; n++) {
		t_wqe(r, 0, M5_OPCODE_NOP, 1);
		t_ring(r, 0, 1);
	}
	t_recv(r, 1, 256, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5); /* 80 bytes from slot 7 */
	memcpy(copy, w - 16, 64);
	inl = (struct m5_inline_seg *)(copy + 16);
	inl->byte_count = htobe32(60 | M5_INLINE_SEG);
	for (n = 0; n < 60; n++)
		copy[20 + n] = (uint8_t)(n * 3 + 1);
	memcpy(w, copy + 16, 48);		/* slot 7's rest */
	memcpy(at(r->sq_at[0]), copy + 64, 64); /* slot 0: the wrap */
	t_bf(r, 2, 0xa00, copy, 128, 8);
	CHECK(!memcmp(t_va(r, 1, t_iova[1]), copy + 20, 60));
	CHECK_EQ(be32toh(t_cqe(1, 0)->byte_cnt), 60);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

static const struct check_test tests[] = {
	CHECK_TEST(bf_copy_runs_its_payload_not_the_wqe_in_memory),
	CHECK_TEST(bf_copy_of_a_wqe_wrapping_the_sq_end_runs),
	CHECK_TEST(bf_probe_nop_completes_from_its_payload_uncounted),
	CHECK_TEST(bf_copy_on_the_half_rung_last_is_counted),
	CHECK_TEST(bf_copy_torn_by_the_other_half_is_counted_not_run),
	CHECK_TEST(doorbell_for_no_qp_is_ignored_and_counted),
	CHECK_TEST(rq_over_posting_is_a_recv_violation),
	CHECK_TEST(doorbell_naming_an_earlier_wqe_runs_only_up_to_it),
	CHECK_TEST(wqe_no_doorbell_named_is_counted_when_the_qp_stops),
	CHECK_TEST(doorbell_differing_from_its_wqe_is_counted),
	CHECK_TEST(doorbell_on_another_uar_is_dropped_and_counted),
	CHECK_TEST(recv_wqe_written_after_its_dbrec_is_a_recv_violation),
	CHECK_TEST(srq_over_posting_is_a_recv_violation),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cx_doorbell_", tests);
}
