// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The transmit rig of the cx_eth_tx tests (cx_tx_rig.h): mlx5e's transmit
 * SQ (en_main.c mlx5e_create_sq) and the WQEs en_tx.c mlx5e_sq_xmit_wqe
 * writes, on a function whose wire is captured.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_rig.h"
#include "cx_tx_rig.h"

enum {
	CTX = 0x100, /* create_sq_in.ctx (bits) */
	WQ = CTX + 0x180,
};

unsigned int tx_nframes;
unsigned int tx_len[TX_MAX_FRAMES];
uint8_t tx_frame[TX_MAX_FRAMES][TX_FRAME_MAX];

static void capture(void *ctx, const uint8_t *frame, unsigned int len)
{
	(void)ctx;
	CHECK(tx_nframes < TX_MAX_FRAMES);
	CHECK(len <= TX_FRAME_MAX);
	if (tx_nframes >= TX_MAX_FRAMES || len > TX_FRAME_MAX)
		return;
	memcpy(tx_frame[tx_nframes], frame, len);
	tx_len[tx_nframes++] = len;
}

static uint32_t obj(struct cx *cx, uint16_t op)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, op, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_OBJ_NUMBER);
}

int tx_create_sq(struct t_tx *t, uint32_t n, uint32_t tis)
{
	uint8_t in[0x118] = { 0 }, out[0x10] = { 0 };

	cx_set(in, 0, 16, CX_OP_CREATE_SQ);
	cx_set(in, CTX + 0x48, 24, (uint32_t)t->cqn);
	cx_set(in, CTX + 0x100, 16, n);	   /* tis_lst_sz */
	cx_set(in, CTX + 0x168, 24, tis);  /* tis_num_0 */
	cx_set(in, WQ, 4, 1);		   /* cyclic */
	cx_set(in, WQ + 0x48, 24, t->pd);  /* wq.pd */
	cx_set(in, WQ + 0x68, 24, t->uar); /* wq.uar_page */
	cx_set64(in, (WQ + 0x80) / 8, SQ_DBR);
	cx_set(in, WQ + 0x10c, 4, 6);
	cx_set(in, WQ + 0x11b, 5, 3);
	cx_set64(in, (WQ + 0x600) / 8, SQ_PAGE);
	return cmd_made(t->cx, in, sizeof(in), out, sizeof(out), 0x48, 24);
}

static void set_rdy(struct t_tx *t)
{
	uint8_t in[0x40] = { 0 }, out[0x10] = { 0 };

	cx_set(in, 0, 16, CX_OP_MODIFY_SQ);
	cx_set(in, 0x48, 24, t->sqn);
	cx_set(in, CTX + 0x8, 4, 1);
	CHECK_EQ(cmd(t->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
}

void tx_up(struct t_tx *t, bool with_tis)
{
	struct cq_args a = { .log = 3, .pages = CQ_PAGES, .dbr = CQ_DBR };
	uint64_t mtt[4] = { FRAME, FRAME + 4096, FRAME + 8192, FRAME + 12288 };
	uint8_t in[CREATE_TIS_IN_BYTES] = { 0 }, out[16];
	int eqn, sqn;

	memset(t, 0, sizeof(*t));
	t->cx = dev_up_eth();
	t->cx->host.eth_tx = capture;
	tx_nframes = 0;
	eqn = make_eq_for(t->cx, 3, 2, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.eqn = eqn;
	t->cqn = make_cq(t->cx, &a);
	CHECK(t->cqn > 0);
	t->pd = t_alloc_pd(t->cx);
	t->key = t_mkey(t->cx, t->pd, FRAME, 4 * 4096, mtt, 0);
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_TIS);
	cx_set(in + B_OBJ_IN_CTX, F_TISC_TRANSPORT_DOMAIN,
	       obj(t->cx, CX_OP_ALLOC_TRANSPORT_DOMAIN));
	t->tis = (uint32_t)cmd_made(t->cx, in, sizeof(in), out, sizeof(out),
				    F_OBJ_OUT_NUMBER);
	CHECK(t->tis > 0);
	t->uar = alloc_uar(t->cx);
	sqn = tx_create_sq(t, with_tis, with_tis ? t->tis : 0);
	CHECK(sqn >= CX_MAX_QP);
	t->sqn = (uint32_t)sqn;
	set_rdy(t);
}

unsigned int tx_post(struct t_tx *t, const struct tx_wqe *x)
{
	uint8_t w[8 * 64] = { 0 };
	unsigned int ds = 2, k, wqebbs;

	ds += x->ihs > 2 ? (x->ihs - 2 + 15) / 16 : 0;
	cx_set(w, 0, 32, (uint32_t)t->pc << 8 | x->op);
	w[11] = 0x8;	     /* MLX5_WQE_CTRL_CQ_UPDATE */
	w[20] = x->cs_flags; /* eseg.cs_flags */
	cx_set(w, 22 * 8, 16, x->mss);
	if (x->vlan && !x->ihs) {
		cx_set(w, 28 * 8, 16, 0x8000u | x->insert_type);
		cx_set(w, 30 * 8, 16, x->tci);
	} else {
		cx_set(w, 28 * 8, 16, x->ihs);
		if (x->hdr)
			memcpy(w + 30, x->hdr, x->ihs);
	}
	for (k = 0; k < x->n; k++, ds++) {
		cx_set(w, ds * 128, 32, x->len[k]);
		cx_set(w, ds * 128 + 32, 32, x->key ? x->key : t->key);
		cx_set64(w, ds * 16 + 8, FRAME + x->off[k]);
	}
	cx_set(w, 32, 32, t->sqn << 8 | ds);
	wqebbs = (ds + 3) / 4;
	for (k = 0; k < wqebbs; k++)
		memcpy(at(SQ_PAGE + ((t->pc + k) % 8) * 64), w + k * 64, 64);
	t->pc = (uint16_t)(t->pc + wqebbs);
	cx_set(at(SQ_DBR), 32, 32, t->pc);
	return ds;
}

void tx_ring(struct t_tx *t, uint16_t idx)
{
	CHECK_EQ(cx_bar_write(t->cx, t->uar * CX_PAGE + 0x800,
			      at(SQ_PAGE + (idx % 8) * 64), 8),
		 0);
}

unsigned int tx_go(struct t_tx *t, const struct tx_wqe *x)
{
	uint16_t idx = t->pc;
	unsigned int ds = tx_post(t, x);

	tx_ring(t, idx);
	return ds;
}

const uint8_t *tx_cqe(unsigned int n)
{
	return at(CQ_PAGES + n * 64);
}
