// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX's QPs, created and moved through their states as
 * mlx5_ib does (drivers/infiniband/hw/mlx5/qp.c): for ib_mad's QP0/QP1,
 * for the UMR QP, for RC and UD QPs.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cx_ifc.h"
#include "cx_test.h"

enum {
	QP_PAGES = MEM_BASE + 0x90000,
	QP_DBR = MEM_BASE + 0xa0000,
	CQ_PAGES = MEM_BASE + 0xb0000,
	CQ_DBR = MEM_BASE + 0xa0100,
	COMP_EQ = MEM_BASE + 0xc0000,
};

struct qp_args {
	uint32_t st, pd, uar, cqn, srqn, rq_type;
	unsigned int log_rq, log_sq;
	uint64_t pages, dbr;
};

/* PD, UAR, CQ: what a kernel QP of mlx5_ib names. */
static struct cx *setup(struct qp_args *q, uint32_t st)
{
	struct cx *cx = dev_up();
	struct cq_args a = { .log = 2, .pages = CQ_PAGES, .dbr = CQ_DBR };
	int eqn = make_eq_for(cx, 2, 1, &a.uar, COMP_EQ, 0xff);
	uint8_t out[16];

	CHECK(eqn >= 0);
	a.eqn = eqn;
	*q = (struct qp_args){ .st = st,
			       .uar = a.uar,
			       .log_rq = 3,
			       .log_sq = 3,
			       .pages = QP_PAGES,
			       .dbr = QP_DBR };
	CHECK_EQ(simple(cx, CX_OP_ALLOC_PD, 0, out, sizeof(out)), CX_OK);
	q->pd = cx_get(out, F_OBJ_NUMBER);
	q->cqn = make_cq(cx, &a);
	CHECK(q->cqn > 0);
	return cx;
}

/* CREATE_QP with 64-byte receive WQEs: the qpn or minus the status. */
static int make_qp(struct cx *cx, const struct qp_args *q)
{
	uint8_t in[0x110 + 4 * 8] = { 0 }, out[16];
	uint8_t *qpc = in + B_QPC;
	unsigned int i;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_QP);
	cx_set(qpc, F_QPC_ST, q->st);
	cx_set(qpc, F_QPC_PD, q->pd);
	cx_set(qpc, F_QPC_UAR_PAGE, q->uar);
	cx_set(qpc, F_QPC_LOG_RQ_SIZE, q->log_rq);
	cx_set(qpc, F_QPC_LOG_RQ_STRIDE, 2);
	cx_set(qpc, F_QPC_LOG_SQ_SIZE, q->log_sq);
	cx_set(qpc, F_QPC_RQ_TYPE, q->rq_type);
	cx_set(qpc, F_QPC_SRQN_RMPN_XRQN, q->srqn);
	cx_set(qpc, F_QPC_CQN_SND, q->cqn);
	cx_set(qpc, F_QPC_CQN_RCV, q->cqn);
	cx_set64(qpc, B_QPC_DBR_ADDR, q->dbr);
	/* 8 x 64 B of RQ and 8 x 64 B of SQ: one page */
	for (i = 0; i < 4; i++)
		cx_set64(in, B_CREATE_QP_IN_PAS + i * 8, q->pages + i * 4096);
	return cmd_made(cx, in, sizeof(in), out, sizeof(out), F_QPN);
}

/* A state command on QPN with the context CTX (NULL: none) and OPT. */
static int move(struct cx *cx, uint16_t op, int qpn, const uint8_t *ctx,
		uint32_t opt)
{
	uint8_t in[0x110] = { 0 }, out[16];
	uint32_t inlen = ctx || op < CX_OP_2ERR_QP ? sizeof(in) : 16;

	cx_set(in, F_IN_OPCODE, op);
	cx_set(in, F_QPN, qpn);
	cx_set(in, F_QP_OPT_PARAM_MASK, opt);
	if (ctx)
		memcpy(in + B_QPC, ctx, CX_QPC_BYTES);
	if (cmd(cx, in, inlen, out, sizeof(out)))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

static void query(struct cx *cx, int qpn, uint8_t *qpc)
{
	uint8_t in[16] = { 0 }, out[0x110];

	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_QP);
	cx_set(in, F_QPN, qpn);
	CHECK_EQ(cmd(cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	memcpy(qpc, out + B_QPC, CX_QPC_BYTES);
}

static void rc_qp_goes_to_rts_keeping_each_transitions_attributes(void)
{
	struct qp_args a;
	struct cx *cx = setup(&a, CX_ST_RC);
	uint8_t ctx[CX_QPC_BYTES], got[CX_QPC_BYTES];
	int qpn = make_qp(cx, &a);

	CHECK(qpn >= 2);
	memset(ctx, 0, sizeof(ctx));
	cx_set(ctx, F_QPC_PKEY_INDEX, 0);
	cx_set(ctx, F_QPC_VHCA_PORT_NUM, 1);
	cx_set(ctx, F_QPC_RWE, 1);
	CHECK_EQ(move(cx, CX_OP_RST2INIT_QP, qpn, ctx, 0), CX_OK);
	memset(ctx, 0, sizeof(ctx));
	cx_set(ctx, F_QPC_VHCA_PORT_NUM, 1);
	cx_set(ctx, F_QPC_MTU, 5);
	cx_set(ctx, F_QPC_REMOTE_QPN, 0x77);
	cx_set(ctx, F_QPC_NEXT_RCV_PSN, 0x1234);
	cx_set(ctx, F_QPC_MIN_RNR_NAK, 12);
	CHECK_EQ(move(cx, CX_OP_INIT2RTR_QP, qpn, ctx, 0), CX_OK);
	/* RTR2RTS's context holds only its own attributes. */
	memset(ctx, 0, sizeof(ctx));
	cx_set(ctx, F_QPC_NEXT_SEND_PSN, 0x4321);
	cx_set(ctx, F_QPC_RETRY_COUNT, 7);
	CHECK_EQ(move(cx, CX_OP_RTR2RTS_QP, qpn, ctx, 0), CX_OK);
	query(cx, qpn, got);
	CHECK_EQ(cx_get(got, F_QPC_STATE), CX_QP_RTS);
	CHECK_EQ(cx_get(got, F_QPC_ST), CX_ST_RC);
	CHECK_EQ(cx_get(got, F_QPC_RWE), 1);
	CHECK_EQ(cx_get(got, F_QPC_VHCA_PORT_NUM), 1);
	CHECK_EQ(cx_get(got, F_QPC_MTU), 5);
	CHECK_EQ(cx_get(got, F_QPC_REMOTE_QPN), 0x77);
	CHECK_EQ(cx_get(got, F_QPC_NEXT_RCV_PSN), 0x1234);
	CHECK_EQ(cx_get(got, F_QPC_MIN_RNR_NAK), 12);
	CHECK_EQ(cx_get(got, F_QPC_NEXT_SEND_PSN), 0x4321);
	CHECK_EQ(cx_get(got, F_QPC_RETRY_COUNT), 7);
	CHECK_EQ(cx_get(got, F_QPC_CQN_SND), a.cqn);
	CHECK_EQ(cx_get64(got, B_QPC_DBR_ADDR), QP_DBR);
	/* RTS2RTS changes what its opt_param_mask names, nothing else. */
	memset(ctx, 0, sizeof(ctx));
	cx_set(ctx, F_QPC_MIN_RNR_NAK, 3);
	CHECK_EQ(move(cx, CX_OP_RTS2RTS_QP, qpn, ctx, 1 << 6), CX_OK);
	query(cx, qpn, got);
	CHECK_EQ(cx_get(got, F_QPC_MIN_RNR_NAK), 3);
	CHECK_EQ(cx_get(got, F_QPC_RETRY_COUNT), 7);
	cx_destroy(cx);
}

static void state_command_from_another_state_is_bad_qp_state(void)
{
	struct qp_args a;
	struct cx *cx = setup(&a, CX_ST_UD);
	uint8_t ctx[CX_QPC_BYTES] = { 0 }, got[CX_QPC_BYTES];
	int qpn = make_qp(cx, &a);

	CHECK_EQ(move(cx, CX_OP_RTR2RTS_QP, qpn, ctx, 0), CX_BAD_QP_STATE);
	CHECK_EQ(move(cx, CX_OP_INIT2RTR_QP, qpn, ctx, 0), CX_BAD_QP_STATE);
	CHECK_EQ(move(cx, CX_OP_RST2INIT_QP, qpn, ctx, 0), CX_OK);
	CHECK_EQ(move(cx, CX_OP_RST2INIT_QP, qpn, ctx, 0), CX_BAD_QP_STATE);
	CHECK_EQ(move(cx, CX_OP_INIT2INIT_QP, qpn, ctx, 0), CX_OK);
	CHECK_EQ(move(cx, CX_OP_SQERR2RTS_QP, qpn, ctx, 0), CX_BAD_QP_STATE);
	/* To ERR and to RST from any state. */
	CHECK_EQ(move(cx, CX_OP_2ERR_QP, qpn, NULL, 0), CX_OK);
	query(cx, qpn, got);
	CHECK_EQ(cx_get(got, F_QPC_STATE), CX_QP_ERR);
	CHECK_EQ(move(cx, CX_OP_RTS2RTS_QP, qpn, ctx, 0), CX_BAD_QP_STATE);
	CHECK_EQ(move(cx, CX_OP_2RST_QP, qpn, NULL, 0), CX_OK);
	CHECK_EQ(move(cx, CX_OP_RST2INIT_QP, qpn, ctx, 0), CX_OK);
	/* A QP that does not exist. */
	CHECK_EQ(move(cx, CX_OP_2ERR_QP, qpn + 1, NULL, 0), CX_BAD_RES);
	cx_destroy(cx);
}

/* ib_mad's QP0 and QP1 take the Q_Key at RST2INIT; the UMR QP has no RQ. */
static void ib_mad_and_umr_qps_are_made_with_their_types(void)
{
	struct qp_args a;
	struct cx *cx = setup(&a, CX_ST_QP0);
	uint8_t ctx[CX_QPC_BYTES] = { 0 }, got[CX_QPC_BYTES];
	int qp0 = make_qp(cx, &a), qp1, umr;

	a.st = CX_ST_QP1;
	qp1 = make_qp(cx, &a);
	a.st = CX_ST_REG_UMR;
	a.rq_type = 3; /* MLX5_ZERO_LEN_RQ */
	a.pd = 0;      /* as Linux 6.1's mlx5r_umr_resource_init() sends it */
	umr = make_qp(cx, &a);
	CHECK(qp0 >= 2 && qp1 > qp0 && umr > qp1);
	cx_set(ctx, F_QPC_Q_KEY, 0x80010000);
	CHECK_EQ(move(cx, CX_OP_RST2INIT_QP, qp1, ctx, 0), CX_OK);
	query(cx, qp1, got);
	CHECK_EQ(cx_get(got, F_QPC_ST), CX_ST_QP1);
	CHECK_EQ(cx_get(got, F_QPC_Q_KEY), 0x80010000);
	CHECK_EQ(move(cx, CX_OP_RST2INIT_QP, umr, ctx, 0), CX_OK);
	CHECK_EQ(move(cx, CX_OP_INIT2RTR_QP, umr, ctx, 0), CX_OK);
	CHECK_EQ(move(cx, CX_OP_RTR2RTS_QP, umr, ctx, 0), CX_OK);
	query(cx, umr, got);
	CHECK_EQ(cx_get(got, F_QPC_STATE), CX_QP_RTS);
	CHECK_EQ(cx_get(got, F_QPC_RQ_TYPE), 3);
	cx_destroy(cx);
}

static void create_qp_refuses_unknown_objects_and_outside_pages(void)
{
	struct qp_args a, b;
	struct cx *cx = setup(&a, CX_ST_RC);
	uint8_t in[16] = { 0 }, out[16];
	int qpn;

	b = a;
	b.pd = a.pd + 1;
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_RES);
	b = a;
	b.cqn = a.cqn + 1;
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_RES);
	b = a;
	b.rq_type = 1; /* MLX5_SRQ_RQ with no SRQ 5 */
	b.srqn = 5;
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_RES);
	b = a;
	b.uar = a.uar + 1;
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_PARAM);
	b = a;
	b.st = 0xf; /* no service type */
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_PARAM);
	b = a;
	b.st = CX_ST_XRC; /* in XRCD 0: none is allocated */
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_RES);
	b = a;
	b.pages = 0x7000000;
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_PARAM);
	b = a;
	b.dbr = QP_DBR + 4;
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_PARAM);
	b = a;
	b.log_sq = 15; /* above log_max_qp_sz */
	CHECK_EQ(make_qp(cx, &b), -CX_BAD_PARAM);
	qpn = make_qp(cx, &a);
	CHECK_EQ(qpn, 2); /* the refused ones took no number */
	cx_set(in, F_IN_OPCODE, CX_OP_DESTROY_QP);
	cx_set(in, F_QPN, qpn);
	cmd(cx, in, sizeof(in), out, sizeof(out));
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	cmd(cx, in, sizeof(in), out, sizeof(out));
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_RES);
	cx_destroy(cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(rc_qp_goes_to_rts_keeping_each_transitions_attributes),
	CHECK_TEST(state_command_from_another_state_is_bad_qp_state),
	CHECK_TEST(ib_mad_and_umr_qps_are_made_with_their_types),
	CHECK_TEST(create_qp_refuses_unknown_objects_and_outside_pages),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_qp_", tests);
}
