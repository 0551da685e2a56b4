// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ethernet send queues (CREATE_SQ, MODIFY_SQ, DESTROY_SQ; mlx5_ifc.h's
 * sqc and wq): a cyclic WQ of 64-byte WQEBBs on the pages of its PAS, its
 * doorbell record, a UAR page, a CQ, a PD and at most one TIS
 * (tis_lst_sz, tis_num_0; a TIS needs the Ethernet port); states RST,
 * RDY and ERR.  mlx5_core's write-combining probe (wc.c, Linux 6.12 and
 * later) posts NOPs on an SQ without a TIS; mlx5e's ICOSQ posts NOPs, its
 * transmit SQs (with their TIS) SEND and LSO WQEs, which cx_eth_tx.c
 * parses.  A WQE spans the WQEBBs of its ds, all posted before it runs;
 * each WQE with CQ_UPDATE completes with a requester CQE; an opcode other
 * than these, a send on an SQ without a TIS or a WQE cx_eth_tx.c refuses
 * completes in error and moves the SQ to ERR.
 *
 * SQNs are numbered after the QPNs (CX_MAX_QP and up), so that a send
 * doorbell's ctrl segment names one or the other.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cx_eth.h"
#include "cx_ifc.h"

enum {
	/* mlx5_ifc.h bit offsets: create_sq_in, modify_sq_in, sqc, wq */
	SQ_IN_SQN = 0x48,	/* create_sq_out, modify/destroy_sq_in */
	SQ_IN_STATE = 0x40,	/* modify_sq_in.sq_state */
	SQ_CTX = 0x100,		/* create/modify_sq_in.ctx */
	SQC_STATE = 0x8,	/* sqc.state */
	SQC_CQN = 0x48,		/* sqc.cqn */
	SQC_TIS_LST_SZ = 0x100, /* sqc.tis_lst_sz */
	SQC_TIS_NUM_0 = 0x168,	/* sqc.tis_num_0 */
	WQ_PD = 0x48,		/* wq.pd */
	SQC_WQ = 0x180,		/* sqc.wq */
	WQ_TYPE = 0x0,		/* wq.wq_type */
	WQ_PAGE_OFFSET = 0x2b,	/* wq.page_offset */
	WQ_UAR_PAGE = 0x68,	/* wq.uar_page */
	WQ_DBR_ADDR = 0x80,	/* wq.dbr_addr, 64 bits */
	WQ_LOG_STRIDE = 0x10c,	/* wq.log_wq_stride */
	WQ_LOG_PG_SZ = 0x113,	/* wq.log_wq_pg_sz */
	WQ_LOG_SZ = 0x11b,	/* wq.log_wq_sz */
	WQ_PAS = 0x600,		/* wq.pas */
	WQ_CYCLIC = 1,		/* MLX5_WQ_TYPE_CYCLIC */
	SQ_RST = 0,		/* MLX5_SQC_STATE_* */
	SQ_RDY = 1,
	SQ_ERR = 3,
	OPCODE_NOP = 0x00,  /* MLX5_OPCODE_NOP */
	OPCODE_SEND = 0x0a, /* MLX5_OPCODE_SEND, _LSO */
	OPCODE_LSO = 0x0e,
	CTRL_DS = 7, /* mlx5_wqe_ctrl_seg.qpn_ds: ds in bits 5:0 */
	WQEBB = 64,
	MAX_WQEBBS = 16,       /* 63 ds of 16 bytes */
	CTRL_FM_CE_SE = 11,    /* mlx5_wqe_ctrl_seg.fm_ce_se */
	CTRL_CQ_UPDATE = 0x8,  /* MLX5_WQE_CTRL_CQ_UPDATE */
	CQE_SOP_DROP_QPN = 56, /* mlx5_cqe64 */
	CQE_WQE_COUNTER = 60,
	CQE_SYNDROME = 55, /* mlx5_err_cqe.syndrome */
	CQE_OP_OWN = 63,
	CQE_REQ = 0x0,		/* MLX5_CQE_REQ */
	CQE_REQ_ERR = 0xd,	/* MLX5_CQE_REQ_ERR */
	SYND_LOCAL_QP_OP = 0x2, /* MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR */
};

static struct cx_sq *sq_get(struct cx *cx, uint32_t sqn)
{
	uint32_t i = sqn - CX_MAX_QP;

	return sqn >= CX_MAX_QP && i < CX_MAX_SQ && cx->sq[i].valid ? &cx->sq[i]
								    : NULL;
}

void cx_sq_reset(struct cx *cx)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_SQ; i++)
		free(cx->sq[i].pas);
	memset(cx->sq, 0, sizeof(cx->sq));
}

static int create_sq(struct cx *cx, struct cx_cmd *c)
{
	const uint32_t wq = SQ_CTX + SQC_WQ;
	struct cx_queue_geo geo = { 0 };
	struct cx_sq *sq = NULL;
	unsigned int i;
	int st;

	st = cx_cmd_need(cx, c, (wq + WQ_PAS) / 8, 0x10, CX_HCA_INITIALIZED);
	if (st)
		return st;
	for (i = 0; i < CX_MAX_SQ && !sq; i++)
		if (!cx->sq[i].valid)
			sq = &cx->sq[i];
	if (!sq)
		return CX_NO_RES;
	if (cx_get(c->in, SQ_CTX + SQC_STATE, 4) != SQ_RST ||
	    cx_get(c->in, wq + WQ_TYPE, 4) != WQ_CYCLIC ||
	    cx_get(c->in, wq + WQ_LOG_STRIDE, 4) != 6 ||
	    cx_get(c->in, wq + WQ_LOG_SZ, 5) > 15 ||
	    !cx_cq_get(cx, cx_get(c->in, SQ_CTX + SQC_CQN, 24)))
		return CX_BAD_PARAM;
	sq->uar = cx_get(c->in, wq + WQ_UAR_PAGE, 24);
	if (sq->uar >= CX_MAX_UAR || !cx->uar_used[sq->uar])
		return CX_BAD_PARAM;
	/* One TIS at most, one that exists; none on an InfiniBand port. */
	sq->tisn = 0;
	switch (cx_get(c->in, SQ_CTX + SQC_TIS_LST_SZ, 16)) {
	case 0:
		break;
	case 1:
		sq->tisn = cx_get(c->in, SQ_CTX + SQC_TIS_NUM_0, 24);
		if (!cx->eth || !cx_eth_tis_valid(cx->eth, sq->tisn))
			return CX_BAD_PARAM;
		break;
	default:
		return CX_BAD_PARAM;
	}
	sq->pd = cx_get(c->in, wq + WQ_PD, 24);
	sq->cqn = cx_get(c->in, SQ_CTX + SQC_CQN, 24);
	sq->log_sz = cx_get(c->in, wq + WQ_LOG_SZ, 5);
	sq->dbr = cx_get64(c->in, (wq + WQ_DBR_ADDR) / 8);
	geo.bytes = (uint64_t)64 << sq->log_sz;
	geo.lps = cx_get(c->in, wq + WQ_LOG_PG_SZ, 5);
	geo.page_offset = cx_get(c->in, wq + WQ_PAGE_OFFSET, 5);
	st = cx_take_pas(cx, c, (wq + WQ_PAS) / 8, &geo, &sq->pas, &sq->npas);
	if (st)
		return st;
	sq->lps = geo.lps;
	sq->page_offset = geo.page_offset;
	sq->state = SQ_RST;
	sq->hw = 0;
	sq->valid = true;
	cx_set(c->out, SQ_IN_SQN, 24, CX_MAX_QP + (uint32_t)(sq - cx->sq));
	return CX_OK;
}

/* RST -> RDY -> ERR -> RST (and RDY -> RST), as mlx5e moves its SQs. */
static int modify_sq(struct cx *cx, struct cx_cmd *c, struct cx_sq *sq)
{
	uint32_t cur = cx_get(c->in, SQ_IN_STATE, 4);
	uint32_t next = cx_get(c->in, SQ_CTX + SQC_STATE, 4);
	int st =
		cx_cmd_need(cx, c, SQ_CTX / 8 + 0x10, 0x10, CX_HCA_INITIALIZED);

	if (st)
		return st;
	if (cur != sq->state)
		return CX_BAD_QP_STATE;
	if (!(cur == SQ_RST && next == SQ_RDY) &&
	    !(cur == SQ_RDY && (next == SQ_ERR || next == SQ_RST)) &&
	    !(cur == SQ_ERR && next == SQ_RST))
		return CX_BAD_PARAM;
	if (next == SQ_RST)
		sq->hw = 0;
	sq->state = (uint8_t)next;
	return CX_OK;
}

int cx_sq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	struct cx_sq *sq;
	int st;

	if (opcode == CX_OP_CREATE_SQ)
		return create_sq(cx, c);
	st = cx_cmd_need(cx, c, 0x10, 0x10, CX_HCA_INITIALIZED);
	if (st)
		return st;
	sq = sq_get(cx, cx_get(c->in, SQ_IN_SQN, 24));
	if (!sq)
		return CX_BAD_RES;
	if (opcode == CX_OP_MODIFY_SQ)
		return modify_sq(cx, c, sq);
	free(sq->pas);
	memset(sq, 0, sizeof(*sq));
	return CX_OK;
}

/* The error CQE's syndrome for WQE W (N bytes read), 0 if it runs. */
static int sq_run(struct cx *cx, struct cx_sq *sq, const uint8_t *w,
		  unsigned int n)
{
	switch (w[3]) {
	case OPCODE_NOP:
		return 0;
	case OPCODE_SEND:
	case OPCODE_LSO:
		if (!sq->tisn)
			return SYND_LOCAL_QP_OP;
		return cx_eth_tx(cx, sq->pd, w, n);
	}
	return SYND_LOCAL_QP_OP;
}

/* WQE W (the payload's or memory's) runs: its CQE if it asks for one. */
static void sq_exec(struct cx *cx, struct cx_sq *sq, uint32_t sqn,
		    const uint8_t *w, unsigned int n)
{
	uint8_t cqe[64] = { 0 };
	uint8_t op = w[3];
	int synd = sq_run(cx, sq, w, n);

	cx_set(cqe, CQE_SOP_DROP_QPN * 8, 32, (uint32_t)op << 24 | sqn);
	cx_set(cqe, CQE_WQE_COUNTER * 8, 16, sq->hw);
	if (synd) {
		cqe[CQE_SYNDROME] = (uint8_t)synd;
		cqe[CQE_OP_OWN] = CQE_REQ_ERR << 4;
		sq->state = SQ_ERR;
	} else if (w[CTRL_FM_CE_SE] & CTRL_CQ_UPDATE) {
		cqe[CQE_OP_OWN] = CQE_REQ << 4;
	} else {
		return;
	}
	cx_cq_push(cx, sq->cqn, cqe, false);
}

/* WQEBB K of the WQE at sq->hw into W, or false where memory is not. */
static bool sq_wqebb(struct cx *cx, struct cx_sq *sq, unsigned int k,
		     uint8_t *w)
{
	uint16_t i = (uint16_t)(sq->hw + k) & ((1u << sq->log_sz) - 1);
	const uint8_t *p =
		cx_queue_at(cx, sq->pas, sq->npas, sq->lps, sq->page_offset,
			    (uint64_t)i * WQEBB, WQEBB, false);

	if (!p)
		return false;
	memcpy(w + k * WQEBB, p, WQEBB);
	return true;
}

bool cx_sq_doorbell(struct cx *cx, uint32_t uar, const uint8_t *b, uint32_t len)
{
	uint32_t sqn = cx_get(b, 32, 24);
	struct cx_sq *sq = sq_get(cx, sqn);
	uint16_t idx = (uint16_t)cx_get(b, 8, 16), dbrec;
	const uint32_t *dbr; /* big-endian */
	uint8_t w[MAX_WQEBBS * WQEBB];

	if (sqn < CX_MAX_QP)
		return false; /* a QP's (cx_engine.c) */
	if (!sq || sq->uar != uar)
		return true; /* nothing to run */
	dbr = cx_dma(cx, sq->dbr, 8, false);
	if (!dbr)
		return true;
	/* MLX5_SND_DBR, the second dword.  Acquire: WQEs read after it. */
	dbrec = (uint16_t)be32toh(__atomic_load_n(&dbr[1], __ATOMIC_ACQUIRE));
	/* WQEs up to the doorbell record, the doorbell's WQE the last. */
	while (sq->hw != dbrec && sq->state == SQ_RDY) {
		bool bf = sq->hw == idx && len > 8, last = sq->hw == idx;
		unsigned int n, k;

		/* BlueFlame: the payload, not memory, as far as it goes */
		if (!sq_wqebb(cx, sq, 0, w))
			break;
		if (bf)
			memcpy(w, b, len < WQEBB ? len : WQEBB);
		n = ((w[CTRL_DS] & 0x3f) + 3) / 4;
		if (!n)
			n = 1;
		if (n > 1u << sq->log_sz || (uint16_t)(dbrec - sq->hw) < n)
			break; /* not all of it posted */
		for (k = 1; k < n; k++)
			if (!sq_wqebb(cx, sq, k, w))
				return true;
		if (bf && len > WQEBB)
			memcpy(w + WQEBB, b + WQEBB,
			       (len < n * WQEBB ? len : n * WQEBB) - WQEBB);
		sq_exec(cx, sq, sqn, w, n * WQEBB);
		sq->hw = (uint16_t)(sq->hw + n);
		if (last)
			break;
	}
	return true;
}
