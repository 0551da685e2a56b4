// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ethernet send queues (CREATE_SQ, MODIFY_SQ, DESTROY_SQ; mlx5_ifc.h's
 * sqc and wq), as far as mlx5_core's write-combining probe uses them
 * (Linux 6.12 and later, wc.c mlx5_core_test_wc): a cyclic WQ of 64-byte
 * WQEBBs on the pages of its PAS, its doorbell record, a UAR page, a CQ;
 * states RST, RDY and ERR.  Its WQEs are NOPs: each with CQ_UPDATE
 * completes with a requester CQE, any other opcode completes in error and
 * moves the SQ to ERR.  No packets: the port is InfiniBand.
 *
 * SQNs are numbered after the QPNs (CX_MAX_QP and up), so that a send
 * doorbell's ctrl segment names one or the other.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"

enum {
	/* mlx5_ifc.h bit offsets: create_sq_in, modify_sq_in, sqc, wq */
	SQ_IN_SQN = 0x48,      /* create_sq_out, modify/destroy_sq_in */
	SQ_IN_STATE = 0x40,    /* modify_sq_in.sq_state */
	SQ_CTX = 0x100,	       /* create/modify_sq_in.ctx */
	SQC_STATE = 0x8,       /* sqc.state */
	SQC_CQN = 0x48,	       /* sqc.cqn */
	SQC_WQ = 0x180,	       /* sqc.wq */
	WQ_TYPE = 0x0,	       /* wq.wq_type */
	WQ_PAGE_OFFSET = 0x2b, /* wq.page_offset */
	WQ_UAR_PAGE = 0x68,    /* wq.uar_page */
	WQ_DBR_ADDR = 0x80,    /* wq.dbr_addr, 64 bits */
	WQ_LOG_STRIDE = 0x10c, /* wq.log_wq_stride */
	WQ_LOG_PG_SZ = 0x113,  /* wq.log_wq_pg_sz */
	WQ_LOG_SZ = 0x11b,     /* wq.log_wq_sz */
	WQ_PAS = 0x600,	       /* wq.pas */
	WQ_CYCLIC = 1,	       /* MLX5_WQ_TYPE_CYCLIC */
	SQ_RST = 0,	       /* MLX5_SQC_STATE_* */
	SQ_RDY = 1,
	SQ_ERR = 3,
	OPCODE_NOP = 0x00,     /* MLX5_OPCODE_NOP */
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

/* WQE W (the payload's or memory's) runs: its CQE if it asks for one. */
static void sq_exec(struct cx *cx, struct cx_sq *sq, uint32_t sqn,
		    const uint8_t *w)
{
	uint8_t cqe[64] = { 0 };
	uint8_t op = w[3];

	cx_set(cqe, CQE_SOP_DROP_QPN * 8, 32, (uint32_t)op << 24 | sqn);
	cx_set(cqe, CQE_WQE_COUNTER * 8, 16, sq->hw);
	if (op != OPCODE_NOP) {
		cqe[CQE_SYNDROME] = SYND_LOCAL_QP_OP;
		cqe[CQE_OP_OWN] = CQE_REQ_ERR << 4;
		sq->state = SQ_ERR;
	} else if (w[CTRL_FM_CE_SE] & CTRL_CQ_UPDATE) {
		cqe[CQE_OP_OWN] = CQE_REQ << 4;
	} else {
		return;
	}
	cx_cq_push(cx, sq->cqn, cqe, false);
}

bool cx_sq_doorbell(struct cx *cx, uint32_t uar, const uint8_t *b, uint32_t len)
{
	uint32_t sqn = cx_get(b, 32, 24);
	struct cx_sq *sq = sq_get(cx, sqn);
	uint16_t idx = (uint16_t)cx_get(b, 8, 16), dbrec;
	const uint32_t *dbr; /* big-endian */

	if (sqn < CX_MAX_QP)
		return false; /* a QP's (cx_engine.c) */
	if (!sq || sq->uar != uar)
		return true; /* nothing to run */
	dbr = cx_dma(cx, sq->dbr, 8, false);
	if (!dbr)
		return true;
	/* MLX5_SND_DBR, the second dword.  Acquire: WQEs read after it. */
	dbrec = (uint16_t)be32toh(__atomic_load_n(&dbr[1], __ATOMIC_ACQUIRE));
	/* Each NOP is one WQEBB; the doorbell's WQE is the last one run. */
	while (sq->hw != dbrec && sq->hw != (uint16_t)(idx + 1) &&
	       sq->state == SQ_RDY) {
		const uint8_t *w = cx_queue_at(
			cx, sq->pas, sq->npas, sq->lps, sq->page_offset,
			(uint64_t)(sq->hw & ((1u << sq->log_sz) - 1)) * 64, 64,
			false);

		if (sq->hw == idx && len > 8)
			w = b; /* BlueFlame: the payload, not memory */
		if (!w)
			break;
		sq_exec(cx, sq, sqn, w);
		sq->hw++;
	}
	return true;
}
