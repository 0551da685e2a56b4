// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ethernet SQs (cx_sq.c) driven as mlx5_core's write-combining probe
 * (wc.c mlx5_core_test_wc) drives them: CREATE_SQ in RST on a CQ, MODIFY_SQ
 * to RDY, NOPs posted without CQ_UPDATE and copied with it through
 * BlueFlame, the 8-byte doorbell, DESTROY_SQ.  Offsets are mlx5_ifc.h's.
 */
#include <endian.h>
#include <string.h>

#include "check.h"
#include "cx_ifc.h"
#include "cx_test.h"

enum {
	COMP_EQ = MEM_BASE + 0xb0000,
	CQ_PAGES = MEM_BASE + 0xc0000,
	CQ_DBR = MEM_BASE + 0xc1000,
	SQ_PAGE = MEM_BASE + 0xc2000,
	SQ_DBR = MEM_BASE + 0xc3000,
	VEC = 2,
	CTX = 0x100, /* create_sq_in.ctx, modify_sq_in.ctx (bits) */
	WQ = CTX + 0x180,
};

struct t_sq {
	struct cx *cx;
	uint32_t uar, sqn;
	int cqn;
};

static uint32_t t_status(const uint8_t *out)
{
	return cx_get(out, F_OUT_STATUS);
}

static int t_modify(struct t_sq *t, uint32_t cur, uint32_t next)
{
	uint8_t in[0x40] = { 0 }, out[0x10] = { 0 };

	cx_set(in, 0, 16, CX_OP_MODIFY_SQ);
	cx_set(in, 0x40, 4, cur);
	cx_set(in, 0x48, 24, t->sqn);
	cx_set(in, CTX + 0x8, 4, next);
	CHECK_EQ(cmd(t->cx, in, sizeof(in), out, sizeof(out)), 0);
	return (int)t_status(out);
}

/* A CQ of 8 CQEs and an SQ of 8 WQEBBs on it, moved to RDY. */
static void t_up(struct t_sq *t)
{
	struct cq_args a = { 0 };
	uint8_t in[0x118] = { 0 }, out[0x10] = { 0 };
	int eqn, sqn;

	t->cx = dev_up();
	eqn = make_eq_for(t->cx, 3, VEC, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.log = 3;
	a.eqn = eqn;
	a.pages = CQ_PAGES;
	a.dbr = CQ_DBR;
	t->cqn = make_cq(t->cx, &a);
	CHECK(t->cqn > 0);
	t->uar = alloc_uar(t->cx);
	cx_set(in, 0, 16, CX_OP_CREATE_SQ);
	cx_set(in, CTX + 0x48, 24, (uint32_t)t->cqn);
	cx_set(in, WQ, 4, 1); /* cyclic */
	cx_set(in, WQ + 0x68, 24, t->uar);
	cx_set64(in, (WQ + 0x80) / 8, SQ_DBR);
	cx_set(in, WQ + 0x10c, 4, 6);
	cx_set(in, WQ + 0x11b, 5, 3);
	cx_set64(in, (WQ + 0x600) / 8, SQ_PAGE);
	sqn = cmd_made(t->cx, in, sizeof(in), out, sizeof(out), 0x48, 24);
	CHECK(sqn >= CX_MAX_QP);
	t->sqn = (uint32_t)sqn;
	CHECK_EQ(t_modify(t, 0, 1), CX_OK);
}

/* NOP n in memory (CQ_UPDATE as CE says), the SND dbrec past it. */
static uint8_t *t_nop(struct t_sq *t, uint16_t n, bool ce)
{
	uint8_t *w = at(SQ_PAGE + (n % 8) * 64);

	memset(w, 0, 64);
	cx_set(w, 0, 32, (uint32_t)n << 8); /* opcode NOP */
	cx_set(w, 32, 32, t->sqn << 8 | 1);
	w[11] = ce ? 0x8 : 0;
	cx_set(at(SQ_DBR), 32, 32, (uint32_t)n + 1);
	return w;
}

static const uint8_t *t_cqe(unsigned int n)
{
	return at(CQ_PAGES + n * 64);
}

static void probe_nop_completes_from_its_blueflame_payload(void)
{
	struct t_sq t;
	uint8_t copy[64];
	unsigned int k;

	t_up(&t);
	memcpy(copy, t_nop(&t, 0, false), 64);
	copy[11] = 0x8; /* the copy asks for the CQE, memory does not */
	t.cx->host.bf_wait_ns =
		1000000000; /* as cx-server: held for the rest */
	for (k = 0; k < 64; k += 8)
		CHECK_EQ(cx_bar_write(t.cx, t.uar * CX_PAGE + 0x800 + k,
				      copy + k, 8),
			 0);
	CHECK_EQ(t_cqe(0)[63] >> 4, 0); /* MLX5_CQE_REQ */
	CHECK_EQ(cx_get(t_cqe(0), 60 * 8, 16), 0);
	CHECK_EQ(cx_get(t_cqe(0), 56 * 8, 32), t.sqn);
	/* An 8-byte doorbell (not held) runs memory's NOP: no CQE asked. */
	t.cx->host.bf_wait_ns = 0;
	CHECK_EQ(cx_bar_write(t.cx, t.uar * CX_PAGE + 0x900,
			      t_nop(&t, 1, false), 8),
		 0);
	CHECK_EQ(t_cqe(1)[63] >> 4, 0xf);
	CHECK_EQ(cx_bar_write(t.cx, t.uar * CX_PAGE + 0x800, t_nop(&t, 2, true),
			      8),
		 0);
	CHECK_EQ(cx_get(t_cqe(1), 60 * 8, 16), 2);
	cx_destroy(t.cx);
}

static void sq_states_and_destroy_follow_the_sqc(void)
{
	uint8_t in[0x10] = { 0 }, out[0x10] = { 0 };
	struct t_sq t;

	t_up(&t);
	CHECK_EQ(t_modify(&t, 0, 1), CX_BAD_QP_STATE); /* it is RDY */
	CHECK_EQ(t_modify(&t, 1, 3), CX_OK);	       /* RDY -> ERR */
	/* In ERR a doorbell runs nothing. */
	CHECK_EQ(cx_bar_write(t.cx, t.uar * CX_PAGE + 0x800, t_nop(&t, 0, true),
			      8),
		 0);
	CHECK_EQ(t_cqe(0)[63] >> 4, 0xf);
	cx_set(in, 0, 16, CX_OP_DESTROY_SQ);
	cx_set(in, 0x48, 24, t.sqn);
	CHECK_EQ(cmd(t.cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(t_status(out), CX_OK);
	CHECK_EQ(cmd(t.cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(t_status(out), CX_BAD_RES);
	cx_destroy(t.cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(probe_nop_completes_from_its_blueflame_payload),
	CHECK_TEST(sq_states_and_destroy_follow_the_sqc),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_sq_", tests);
}
