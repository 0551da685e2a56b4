// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The Ethernet port's receive objects as mlx5e makes them (en_common.c,
 * en_main.c mlx5e_open_drop_rq, en/rqt.c, en/tir.c): the TIS in its
 * transport domain, the drop RQ on its CQ and its Q counter, RST to RDY,
 * an RQT over it, the direct and indirect TIRs, a flow entry forwarding
 * to a TIR; and that nothing named by another object goes first.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_test.h"

enum {
	RQ_PAGES = MEM_BASE + 0x90000,
	RQ_DBR = MEM_BASE + 0xa0000,
	CQ_PAGES = MEM_BASE + 0xb0000,
	CQ_DBR = MEM_BASE + 0xa0100,
	COMP_EQ = MEM_BASE + 0xc0000,
};

static uint8_t in[0x400];

static uint32_t alloc(struct cx *cx, uint16_t op, unsigned int off,
		      unsigned int width)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, op, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, off, width);
}

/* An Ethernet function with mlx5e's PD, transport domain and a CQ. */
static struct cx *setup(uint32_t *pd, uint32_t *td, uint32_t *cqn)
{
	struct cx *cx;
	struct cq_args a = { .log = 2, .pages = CQ_PAGES, .dbr = CQ_DBR };
	int eqn;

	cx = dev_up_eth();
	eqn = make_eq_for(cx, 2, 1, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.eqn = eqn;
	*pd = alloc(cx, CX_OP_ALLOC_PD, F_OBJ_NUMBER);
	*td = alloc(cx, CX_OP_ALLOC_TRANSPORT_DOMAIN, F_OBJ_NUMBER);
	*cqn = make_cq(cx, &a);
	CHECK(*cqn > 0);
	return cx;
}

/* Command OP with in[] as set (opcode added) of INLEN bytes: the
 * number made or minus the status. */
static int run(struct cx *cx, uint16_t op, uint32_t inlen)
{
	uint8_t out[16];

	cx_set(in, F_IN_OPCODE, op);
	return cmd_made(cx, in, inlen, out, sizeof(out), F_OBJ_OUT_NUMBER);
}

/* QUERY_Q_COUNTER of set N: the status. */
static int query_q_counter(struct cx *cx, uint32_t n)
{
	static uint8_t out[QUERY_Q_COUNTER_OUT_BYTES];

	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_Q_COUNTER);
	cx_set(in, F_QUERY_Q_COUNTER_IN_SET_ID, n);
	if (cmd(cx, in, 32, out, sizeof(out)))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

static int on(struct cx *cx, uint16_t op, uint32_t n)
{
	memset(in, 0, sizeof(in));
	cx_set(in, F_OBJ_IN_NUMBER, n);
	return run(cx, op, 16);
}

static int make_tis(struct cx *cx, uint32_t td)
{
	memset(in, 0, sizeof(in));
	cx_set(in + B_OBJ_IN_CTX, F_TISC_TRANSPORT_DOMAIN, td);
	return run(cx, CX_OP_CREATE_TIS, CREATE_TIS_IN_BYTES);
}

/* mlx5e's drop RQ: one 16-byte WQE on a page, counting into COUNTER. */
static int make_rq(struct cx *cx, uint32_t cqn, uint32_t counter,
		   uint64_t pages)
{
	uint8_t *rqc = in + B_OBJ_IN_CTX, *wq = rqc + B_RQC_WQ;

	memset(in, 0, sizeof(in));
	cx_set(rqc, F_RQC_CQN, cqn);
	cx_set(rqc, F_RQC_COUNTER_SET_ID, counter);
	cx_set(wq, F_WQ_WQ_TYPE, 1);
	cx_set(wq, F_WQ_LOG_WQ_STRIDE, 4);
	cx_set64(wq, B_WQ_DBR_ADDR, RQ_DBR);
	cx_set64(in, B_CREATE_RQ_IN_PAS, pages);
	return run(cx, CX_OP_CREATE_RQ, B_CREATE_RQ_IN_PAS + 8);
}

static int modify_rq(struct cx *cx, uint32_t rqn, uint32_t cur, uint32_t next)
{
	memset(in, 0, sizeof(in));
	cx_set(in, F_OBJ_IN_NUMBER, rqn);
	cx_set(in, F_MODIFY_RQ_IN_RQ_STATE, cur);
	cx_set(in + B_OBJ_IN_CTX, F_RQC_STATE, next);
	return run(cx, CX_OP_MODIFY_RQ, OBJ_IN_BYTES);
}

static int make_rqt(struct cx *cx, uint32_t max, uint32_t rqn)
{
	uint8_t *ctx = in + B_OBJ_IN_CTX;

	memset(in, 0, sizeof(in));
	cx_set(ctx, F_RQTC_RQT_MAX_SIZE, max);
	cx_set(ctx, F_RQTC_RQT_ACTUAL_SIZE, 1);
	cx_set(ctx + B_RQTC_RQ_NUM, 8, 24, rqn);
	return run(cx, CX_OP_CREATE_RQT, B_OBJ_IN_CTX + B_RQTC_RQ_NUM + 4);
}

/* A TIR: direct to RQ TARGET, or indirect over RQT TARGET. */
static int make_tir(struct cx *cx, uint32_t td, bool indirect, uint32_t target)
{
	uint8_t *ctx = in + B_OBJ_IN_CTX;

	memset(in, 0, sizeof(in));
	cx_set(ctx, F_TIRC_TRANSPORT_DOMAIN, td);
	cx_set(ctx, F_TIRC_DISP_TYPE, indirect);
	if (indirect) {
		cx_set(ctx, F_TIRC_INDIRECT_TABLE, target);
		cx_set(ctx, F_TIRC_RX_HASH_FN, 2); /* Toeplitz */
	} else {
		cx_set(ctx, F_TIRC_INLINE_RQN, target);
	}
	return run(cx, CX_OP_CREATE_TIR, OBJ_IN_BYTES);
}

static void mlx5e_drop_rq_rqt_and_tirs_are_made_and_named_in_order(void)
{
	uint32_t pd, td, cqn, qc;
	struct cx *cx = setup(&pd, &td, &cqn);
	int rq, rqt, tir, itir;

	CHECK_EQ(make_tis(cx, td), 1);
	CHECK_EQ(make_tis(cx, td + 1), -CX_BAD_PARAM); /* no such domain */
	qc = alloc(cx, CX_OP_ALLOC_Q_COUNTER, F_Q_COUNTER_SET_ID);
	CHECK(qc > 0);
	CHECK_EQ(query_q_counter(cx, qc), CX_OK);
	CHECK_EQ(query_q_counter(cx, qc + 1), CX_BAD_PARAM); /* not made */
	CHECK_EQ(make_rq(cx, cqn + 1, qc, RQ_PAGES), -CX_BAD_PARAM); /* CQ */
	CHECK_EQ(make_rq(cx, cqn, qc + 1, RQ_PAGES), -CX_BAD_PARAM);
	CHECK_EQ(make_rq(cx, cqn, qc, 0x7000000), -CX_BAD_PARAM); /* memory */
	rq = make_rq(cx, cqn, qc, RQ_PAGES);
	CHECK_EQ(rq, 1);
	CHECK_EQ(modify_rq(cx, rq, 1, 1), -CX_BAD_PARAM); /* it is in RST */
	CHECK_EQ(modify_rq(cx, rq, 0, 3), -CX_BAD_PARAM); /* RST -> ERR */
	CHECK_EQ(modify_rq(cx, rq, 0, 1), 0);
	CHECK_EQ(cx->eth->rq[rq - 1].state, 1);
	CHECK_EQ(make_rqt(cx, 1u << (CX_ETH_LOG_MAX_RQT_SIZE + 1), rq),
		 -CX_BAD_PARAM);
	CHECK_EQ(make_rqt(cx, 8, rq + 1), -CX_BAD_PARAM); /* no such RQ */
	rqt = make_rqt(cx, 8, rq);
	CHECK_EQ(rqt, 1);
	CHECK_EQ(make_tir(cx, td, false, rq + 1), -CX_BAD_PARAM);
	CHECK_EQ(make_tir(cx, td, true, rqt + 1), -CX_BAD_PARAM);
	tir = make_tir(cx, td, false, rq);
	CHECK_EQ(tir, 1);
	itir = make_tir(cx, td, true, rqt);
	CHECK_EQ(itir, 2);
	/* what is named stays */
	CHECK_EQ(on(cx, CX_OP_DESTROY_RQ, rq), -CX_BAD_RES);
	CHECK_EQ(on(cx, CX_OP_DESTROY_RQT, rqt), -CX_BAD_RES);
	CHECK_EQ(on(cx, CX_OP_DEALLOC_Q_COUNTER, 0), -CX_BAD_PARAM);
	CHECK_EQ(on(cx, CX_OP_DESTROY_TIR, itir), 0);
	CHECK_EQ(on(cx, CX_OP_DESTROY_RQT, rqt), 0);
	CHECK_EQ(on(cx, CX_OP_DESTROY_RQ, rq), -CX_BAD_RES); /* the TIR's */
	CHECK_EQ(on(cx, CX_OP_DESTROY_TIR, tir), 0);
	CHECK_EQ(on(cx, CX_OP_DESTROY_TIR, tir), -CX_BAD_PARAM);
	CHECK_EQ(on(cx, CX_OP_DESTROY_RQ, rq), 0);
	CHECK_EQ(on(cx, CX_OP_DESTROY_TIS, 1), 0);
	cx_destroy(cx);
}

static void an_rqt_list_is_replaced_whole_or_not_at_all(void)
{
	uint32_t pd, td, cqn;
	struct cx *cx = setup(&pd, &td, &cqn);
	uint8_t *ctx = in + B_OBJ_IN_CTX;
	int rq1 = make_rq(cx, cqn, 0, RQ_PAGES);
	int rq2 = make_rq(cx, cqn, 0, RQ_PAGES + 0x1000);
	int rqt = make_rqt(cx, 2, rq1);

	CHECK(rq1 > 0 && rq2 > 0 && rqt > 0);
	memset(in, 0, sizeof(in));
	cx_set(in, F_OBJ_IN_NUMBER, rqt);
	cx_set(in, F_MODIFY_IN_BITMASK_LO, 1);
	cx_set(ctx, F_RQTC_RQT_ACTUAL_SIZE, 2);
	cx_set(ctx + B_RQTC_RQ_NUM, 8, 24, rq2);
	cx_set(ctx + B_RQTC_RQ_NUM + 4, 8, 24, rq2 + 5);
	CHECK_EQ(run(cx, CX_OP_MODIFY_RQT, 0x120), -CX_BAD_PARAM);
	CHECK_EQ(cx->eth->rqt[rqt - 1].rq[0], (uint32_t)rq1);
	cx_set(ctx + B_RQTC_RQ_NUM + 4, 8, 24, rq1);
	CHECK_EQ(run(cx, CX_OP_MODIFY_RQT, 0x120), 0);
	CHECK_EQ(cx->eth->rqt[rqt - 1].rq[0], (uint32_t)rq2);
	cx_set(ctx, F_RQTC_RQT_ACTUAL_SIZE, 3); /* above its max of 2 */
	CHECK_EQ(run(cx, CX_OP_MODIFY_RQT, 0x120), -CX_BAD_PARAM);
	cx_destroy(cx);
}

/* MODIFY_TIR of TIR N: bitmask BITS (the low word), self_lb_block LB. */
static int modify_tir(struct cx *cx, uint32_t n, uint32_t hi, uint32_t bits,
		      uint32_t lb)
{
	memset(in, 0, sizeof(in));
	cx_set(in, F_OBJ_IN_NUMBER, n);
	cx_set(in, F_MODIFY_IN_BITMASK_HI, hi);
	cx_set(in, F_MODIFY_IN_BITMASK_LO, bits);
	cx_set(in + B_OBJ_IN_CTX, F_TIRC_SELF_LB_BLOCK, lb);
	return run(cx, CX_OP_MODIFY_TIR, OBJ_IN_BYTES);
}

/* mlx5e_refresh_tirs at each open: self_lb_en alone, of a TIR made. */
static void modify_tir_changes_the_loopback_block_only(void)
{
	uint32_t pd, td, cqn;
	struct cx *cx = setup(&pd, &td, &cqn);
	int rq = make_rq(cx, cqn, 0, RQ_PAGES), tir;

	CHECK(rq > 0);
	tir = make_tir(cx, td, false, rq);
	CHECK(tir > 0);
	CHECK_EQ(modify_tir(cx, tir, 0, 1 << 4, 0), 0);
	CHECK_EQ(modify_tir(cx, tir, 0, 1 << 4, 3), 0); /* block uc, mc */
	CHECK_EQ(cx->eth->tir[tir - 1].self_lb_block, 3);
	CHECK_EQ(modify_tir(cx, tir + 1, 0, 1 << 4, 0), -CX_BAD_PARAM);
	/* the hash (bit 2), LRO (bit 0), or a bit of the high word */
	CHECK_EQ(modify_tir(cx, tir, 0, 1 << 4 | 1 << 2, 0), -CX_BAD_PARAM);
	CHECK_EQ(modify_tir(cx, tir, 0, 1 << 0, 0), -CX_BAD_PARAM);
	CHECK_EQ(modify_tir(cx, tir, 1, 1 << 4, 0), -CX_BAD_PARAM);
	CHECK_EQ(cx->eth->tir[tir - 1].self_lb_block, 3);
	cx_destroy(cx);
	/* InfiniBand port: no TIRs */
	cx = dev_up();
	CHECK_EQ(modify_tir(cx, 1, 0, 1 << 4, 0), -CX_BAD_OP);
	cx_destroy(cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(modify_tir_changes_the_loopback_block_only),
	CHECK_TEST(mlx5e_drop_rq_rqt_and_tirs_are_made_and_named_in_order),
	CHECK_TEST(an_rqt_list_is_replaced_whole_or_not_at_all),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_eth_tir_", tests);
}
