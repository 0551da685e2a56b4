// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX's SRQs, made as mlx5_ib's dev_res stage makes them
 * (drivers/infiniband/hw/mlx5/srq_cmd.c with ISSI 1): an XRC SRQ with
 * CREATE_XRC_SRQ, a basic one with CREATE_RMP.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cx_ifc.h"
#include "cx_test.h"

enum {
	SRQ_PAGES = MEM_BASE + 0x90000,
	SRQ_DBR = MEM_BASE + 0xa0000,
	CQ_PAGES = MEM_BASE + 0xb0000,
	CQ_DBR = MEM_BASE + 0xa0100,
	COMP_EQ = MEM_BASE + 0xc0000,
};

struct srq_args {
	uint32_t pd, xrcd, cqn;
	unsigned int log, wqe_shift;
	uint64_t pages, dbr;
};

static uint32_t alloc(struct cx *cx, uint16_t op)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, op, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_OBJ_NUMBER);
}

/* PD, CQ, XRCD: what the SRQs of mlx5_ib's dev_res stage name. */
static struct cx *setup(struct srq_args *s)
{
	struct cx *cx = dev_up();
	struct cq_args a = { .log = 2, .pages = CQ_PAGES, .dbr = CQ_DBR };
	int eqn = make_eq_for(cx, 2, 1, &a.uar, COMP_EQ, 0xff);

	CHECK(eqn >= 0);
	a.eqn = eqn;
	*s = (struct srq_args){
		.log = 4, .wqe_shift = 1, .pages = SRQ_PAGES, .dbr = SRQ_DBR
	};
	s->pd = alloc(cx, CX_OP_ALLOC_PD);
	s->xrcd = alloc(cx, CX_OP_ALLOC_XRCD);
	s->cqn = make_cq(cx, &a);
	CHECK(s->cqn > 0);
	return cx;
}

static unsigned int npas(const struct srq_args *s)
{
	unsigned int n = ((16u << s->wqe_shift << s->log) + 4095) / 4096;

	return n > 4 ? 4 : n;
}

/* create_xrc_srq_cmd(): the srqn or minus the status. */
static int make_xrc_srq(struct cx *cx, const struct srq_args *s)
{
	uint8_t in[0x110 + 4 * 8] = { 0 }, out[16];
	uint8_t *sc = in + B_XRC_SRQ_CONTEXT;
	unsigned int i;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_XRC_SRQ);
	cx_set(sc, F_SRQC_LOG_PAGE_SIZE, 0);
	cx_set(sc, F_SRQC_LOG_RQ_STRIDE, s->wqe_shift);
	cx_set(sc, F_SRQC_LOG_SRQ_SIZE, s->log);
	cx_set(sc, F_SRQC_PD, s->pd);
	cx_set(sc, F_SRQC_XRCD, s->xrcd);
	cx_set(sc, F_SRQC_CQN, s->cqn);
	cx_set64(sc, B_SRQC_DBR_ADDR, s->dbr);
	for (i = 0; i < npas(s); i++)
		cx_set64(in, B_SRQ_PAS + i * 8, s->pages + i * 4096);
	return cmd_made(cx, in, 0x110 + npas(s) * 8, out, sizeof(out), F_SRQN);
}

/* create_rmp_cmd(): the rmpn or minus the status. */
static int make_rmp(struct cx *cx, const struct srq_args *s)
{
	uint8_t in[0x110 + 4 * 8] = { 0 }, out[16];
	uint8_t *wq = in + B_RMP_CONTEXT + B_RMPC_WQ;
	unsigned int i;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_RMP);
	cx_set(in + B_RMP_CONTEXT, F_RMPC_STATE, 1);
	cx_set(wq, F_WQ_LOG_WQ_STRIDE, s->wqe_shift + 4);
	cx_set(wq, F_WQ_LOG_WQ_SZ, s->log);
	cx_set(wq, F_WQ_PD, s->pd);
	cx_set64(wq, B_WQ_DBR_ADDR, s->dbr);
	for (i = 0; i < npas(s); i++)
		cx_set64(in, B_SRQ_PAS + i * 8, s->pages + i * 4096);
	return cmd_made(cx, in, 0x110 + npas(s) * 8, out, sizeof(out), F_SRQN);
}

/* OP on number N with at most 0x110 bytes of output into OUT. */
static int on(struct cx *cx, uint16_t op, uint16_t op_mod, uint32_t n,
	      uint8_t *out)
{
	uint8_t in[16] = { 0 };

	cx_set(in, F_IN_OPCODE, op);
	cx_set(in, F_IN_OP_MOD, op_mod);
	cx_set(in, F_SRQN, n);
	if (cmd(cx, in, sizeof(in), out, 0x110))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

static void dev_res_makes_an_xrc_srq_and_an_rmp_with_distinct_numbers(void)
{
	struct srq_args s;
	struct cx *cx = setup(&s);
	uint8_t out[0x110];
	int x = make_xrc_srq(cx, &s), r = make_rmp(cx, &s);
	const uint8_t *sc = out + B_XRC_SRQ_CONTEXT;
	const uint8_t *wq = out + B_RMP_CONTEXT + B_RMPC_WQ;

	CHECK(x > 0 && r > 0 && x != r);
	CHECK_EQ(on(cx, CX_OP_QUERY_XRC_SRQ, 0, x, out), CX_OK);
	CHECK_EQ(cx_get(sc, F_SRQC_STATE), 0); /* GOOD */
	CHECK_EQ(cx_get(sc, F_SRQC_LOG_SRQ_SIZE), 4);
	CHECK_EQ(cx_get(sc, F_SRQC_LOG_RQ_STRIDE), 1);
	CHECK_EQ(cx_get(sc, F_SRQC_CQN), s.cqn);
	CHECK_EQ(cx_get(sc, F_SRQC_XRCD), s.xrcd);
	CHECK_EQ(cx_get64(sc, B_SRQC_DBR_ADDR), SRQ_DBR);
	CHECK_EQ(on(cx, CX_OP_QUERY_RMP, 0, r, out), CX_OK);
	CHECK_EQ(cx_get(out + B_RMP_CONTEXT, F_RMPC_STATE), 1); /* RDY */
	CHECK_EQ(cx_get(wq, F_WQ_LOG_WQ_SZ), 4);
	CHECK_EQ(cx_get(wq, F_WQ_LOG_WQ_STRIDE), 5);
	CHECK_EQ(cx_get(wq, F_WQ_PD), s.pd);
	/* Each family takes only its own numbers. */
	CHECK_EQ(on(cx, CX_OP_DESTROY_RMP, 0, x, out), CX_BAD_RES);
	CHECK_EQ(on(cx, CX_OP_DESTROY_XRC_SRQ, 0, r, out), CX_BAD_RES);
	CHECK_EQ(on(cx, CX_OP_DESTROY_XRC_SRQ, 0, x, out), CX_OK);
	CHECK_EQ(on(cx, CX_OP_DESTROY_RMP, 0, r, out), CX_OK);
	CHECK_EQ(on(cx, CX_OP_QUERY_RMP, 0, r, out), CX_BAD_RES);
	cx_destroy(cx);
}

static void srq_limits_are_set_by_arm_xrc_srq_and_modify_rmp(void)
{
	struct srq_args s;
	struct cx *cx = setup(&s);
	uint8_t in[0x110] = { 0 }, out[0x110];
	int x = make_xrc_srq(cx, &s), r = make_rmp(cx, &s);

	cx_set(in, F_IN_OPCODE, CX_OP_ARM_XRC_SRQ);
	cx_set(in, F_IN_OP_MOD, 1);
	cx_set(in, F_SRQN, x);
	cx_set(in, F_ARM_XRC_SRQ_IN_LWM, 7);
	CHECK_EQ(cmd(cx, in, 16, out, 16), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	on(cx, CX_OP_QUERY_XRC_SRQ, 0, x, out);
	CHECK_EQ(cx_get(out + B_XRC_SRQ_CONTEXT, F_SRQC_LWM), 7);
	/* arm_rmp_cmd(): RDY to RDY with the lwm bit */
	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_MODIFY_RMP);
	cx_set(in, F_MODIFY_RMP_IN_RMP_STATE, 1);
	cx_set(in, F_SRQN, r);
	cx_set64(in, B_MODIFY_RMP_IN_BITMASK, 1);
	cx_set(in + B_RMP_CONTEXT, F_RMPC_STATE, 1);
	cx_set(in + B_RMP_CONTEXT + B_RMPC_WQ, F_WQ_LWM, 9);
	CHECK_EQ(cmd(cx, in, sizeof(in), out, 16), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	on(cx, CX_OP_QUERY_RMP, 0, r, out);
	CHECK_EQ(cx_get(out + B_RMP_CONTEXT + B_RMPC_WQ, F_WQ_LWM), 9);
	/* To the error state: not offered. */
	cx_set(in + B_RMP_CONTEXT, F_RMPC_STATE, 3);
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_destroy(cx);
}

static void srqs_refuse_unknown_objects_and_pages_outside_memory(void)
{
	struct srq_args s, b;
	struct cx *cx = setup(&s);

	b = s;
	b.pd = s.pd + 1;
	CHECK_EQ(make_xrc_srq(cx, &b), -CX_BAD_RES);
	CHECK_EQ(make_rmp(cx, &b), -CX_BAD_RES);
	b = s;
	b.xrcd = s.xrcd + 1;
	CHECK_EQ(make_xrc_srq(cx, &b), -CX_BAD_RES);
	b = s;
	b.cqn = s.cqn + 1;
	CHECK_EQ(make_xrc_srq(cx, &b), -CX_BAD_RES);
	b = s;
	b.pages = 0x7000000;
	CHECK_EQ(make_xrc_srq(cx, &b), -CX_BAD_PARAM);
	CHECK_EQ(make_rmp(cx, &b), -CX_BAD_PARAM);
	b = s;
	b.dbr = 0x7000000;
	CHECK_EQ(make_rmp(cx, &b), -CX_BAD_PARAM);
	b = s;
	b.log = 15; /* above log_max_srq_sz */
	CHECK_EQ(make_rmp(cx, &b), -CX_BAD_PARAM);
	b = s;
	b.wqe_shift = 6; /* 1 KiB WQEs, above max_wqe_sz_rq */
	CHECK_EQ(make_xrc_srq(cx, &b), -CX_BAD_PARAM);
	/* Nothing was made by the refused commands. */
	CHECK_EQ(make_rmp(cx, &s), 1);
	cx_destroy(cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(dev_res_makes_an_xrc_srq_and_an_rmp_with_distinct_numbers),
	CHECK_TEST(srq_limits_are_set_by_arm_xrc_srq_and_modify_rmp),
	CHECK_TEST(srqs_refuse_unknown_objects_and_pages_outside_memory),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_srq_", tests);
}
