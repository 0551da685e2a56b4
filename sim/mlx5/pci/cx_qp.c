// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: CREATE_QP, DESTROY_QP, QUERY_QP and the state commands
 * that mlx5_ib's __mlx5_ib_modify_qp() picks from its (current, next)
 * table (drivers/infiniband/hw/mlx5/qp.c): RST2INIT, INIT2INIT, INIT2RTR,
 * RTR2RTS, RTS2RTS, SQERR2RTS, 2ERR and 2RST.  A state command on a QP
 * in another state than the one it leaves gets BAD_QP_STATE.  The service
 * types are those mlx5_ib creates for RC, UC and UD QPs, for XRC INI and
 * XRC TGT QPs, for ib_mad's QP0 and QP1 (IB_QPT_SMI and the GSI's hardware
 * QP) and for its UMR QP (MLX5_IB_QPT_REG_UMR, made at load by Linux 6.1).
 *
 * XRC (qp.c): both kinds have service type XRC and rq_type SRQ (naming the
 * driver's own SRQ, which never receives); an INI is a user QP with an SQ
 * in the XRCD the driver keeps for it, a TGT (create_xrc_tgt_qp) has
 * no_sq, the user's XRCD, the driver's PD and CQ, and neither a UAR page
 * nor a doorbell record (both 0): it has nothing to ring.  Their state
 * commands carry what an RC QP's do.
 *
 * The attributes a state command carries are taken as the PRM's
 * transition rules say: those the transition requires for the QP's type,
 * and the optional ones the opt_param_mask names (MLX5_QP_OPTPAR_*); the
 * rest of the command's context is the driver's zero fill.  Executing
 * WQEs is the data path's (step 2b): here a QP is its geometry, its
 * objects and its state.
 */
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_engine.h"
#include "cx_int.h"

enum {
	LOG_MAX_QP_SZ = 14,    /* cx_caps.c log_max_qp_sz */
	LOG_MAX_RQ_STRIDE = 5, /* 16 << 5: cx_caps.c max_wqe_sz_rq */
	SQ_BB = 64,	       /* MLX5_SEND_WQE_BB */
	RQ_REGULAR = 0x0,      /* MLX5_NON_ZERO_RQ */
	RQ_SRQ = 0x1,	       /* MLX5_SRQ_RQ */
	RQ_ZERO = 0x3,	       /* MLX5_ZERO_LEN_RQ */
	FIRST_QPN = 2,	       /* 0 and 1 are IB's special QP numbers */
};

/* MLX5_QP_OPTPAR_* */
enum {
	OPT_RRE = 1 << 1,
	OPT_RAE = 1 << 2,
	OPT_RWE = 1 << 3,
	OPT_PKEY_INDEX = 1 << 4,
	OPT_Q_KEY = 1 << 5,
	OPT_RNR_TIMEOUT = 1 << 6,
	OPT_PRIMARY_ADDR_PATH = 1 << 7,
	OPT_SRA_MAX = 1 << 8,
	OPT_RRA_MAX = 1 << 9,
	OPT_RETRY_COUNT = 1 << 12,
	OPT_RNR_RETRY = 1 << 13,
	OPT_ACK_TIMEOUT = 1 << 14,
	OPT_PRI_PORT = 1 << 16,
};

#define T(st) (1u << (st))
#define RC    (T(CX_ST_RC) | T(CX_ST_XRC))
#define RC_UC (RC | T(CX_ST_UC))
#define DGRAM (T(CX_ST_UD) | T(CX_ST_QP0) | T(CX_ST_QP1))
#define ALL   (RC_UC | DGRAM | T(CX_ST_REG_UMR))

/* The transitions that have required attributes: index in attr.req. */
enum { RST2INIT, INIT2RTR, RTR2RTS, NREQ };

/* An attribute: a field of the qpc, the optional-parameter bits that
 * carry it, and per transition the service types that require it. */
static const struct attr {
	uint16_t off, width;
	uint32_t opt;
	uint16_t req[NREQ];
} attrs[] = {
	{ B_QPC_PRIMARY_ADDRESS_PATH * 8,
	  0x2c * 8,
	  OPT_PRIMARY_ADDR_PATH | OPT_PKEY_INDEX | OPT_PRI_PORT,
	  { ALL, RC_UC, 0 } },
	{ F_QPC_Q_KEY, OPT_Q_KEY, { DGRAM, 0, 0 } },
	{ F_QPC_RRE, OPT_RRE, { RC_UC, 0, 0 } },
	{ F_QPC_RWE, OPT_RWE, { RC_UC, 0, 0 } },
	{ F_QPC_RAE, OPT_RAE, { RC_UC, 0, 0 } },
	{ F_QPC_ATOMIC_MODE, OPT_RAE, { RC_UC, 0, 0 } },
	{ F_QPC_MTU, 0, { 0, ALL, 0 } },
	{ F_QPC_LOG_MSG_MAX, 0, { 0, ALL, 0 } },
	{ F_QPC_REMOTE_QPN, 0, { 0, RC_UC, 0 } },
	{ F_QPC_NEXT_RCV_PSN, 0, { 0, RC_UC, 0 } },
	{ F_QPC_LOG_RRA_MAX, OPT_RRA_MAX, { 0, RC, 0 } },
	{ F_QPC_MIN_RNR_NAK, OPT_RNR_TIMEOUT, { 0, RC, 0 } },
	{ F_QPC_NEXT_SEND_PSN, 0, { 0, 0, ALL } },
	{ F_QPC_RETRY_COUNT, OPT_RETRY_COUNT, { 0, 0, RC } },
	{ F_QPC_RNR_RETRY, OPT_RNR_RETRY, { 0, 0, RC } },
	{ F_QPC_LOG_SRA_MAX, OPT_SRA_MAX, { 0, 0, RC } },
	{ F_QPC_ACK_TIMEOUT, OPT_ACK_TIMEOUT, { 0, 0, RC } },
};

/* The state commands: the state each leaves (-1: any) and enters. */
static const struct move {
	uint16_t op;
	int8_t from, to, req; /* req: index in attr.req, or -1 */
} moves[] = {
	{ CX_OP_RST2INIT_QP, CX_QP_RST, CX_QP_INIT, RST2INIT },
	{ CX_OP_INIT2INIT_QP, CX_QP_INIT, CX_QP_INIT, -1 },
	{ CX_OP_INIT2RTR_QP, CX_QP_INIT, CX_QP_RTR, INIT2RTR },
	{ CX_OP_RTR2RTS_QP, CX_QP_RTR, CX_QP_RTS, RTR2RTS },
	{ CX_OP_RTS2RTS_QP, CX_QP_RTS, CX_QP_RTS, -1 },
	{ CX_OP_SQERR2RTS_QP, CX_QP_SQER, CX_QP_RTS, -1 },
	{ CX_OP_2ERR_QP, -1, CX_QP_ERR, -1 },
	{ CX_OP_2RST_QP, -1, CX_QP_RST, -1 },
};

void cx_qp_reset(struct cx *cx)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_QP; i++)
		free(cx->qp[i].pas);
	memset(cx->qp, 0, sizeof(cx->qp));
}

static void copy_field(uint8_t *dst, const uint8_t *src, unsigned int off,
		       unsigned int width)
{
	if (width > 32) /* whole bytes: the address path */
		memcpy(dst + off / 8, src + off / 8, width / 8);
	else
		cx_set(dst, off, width, cx_get(src, off, width));
}

static bool supported_st(uint32_t st)
{
	return st < 16 && ALL & T(st);
}

/* An XRC TGT: no SQ, no UAR page, no doorbell record (qp.c). */
static bool xrc_tgt(const uint8_t *qpc)
{
	return cx_get(qpc, F_QPC_ST) == CX_ST_XRC && cx_get(qpc, F_QPC_NO_SQ);
}

/* The objects the context names; CX_OK or the status that refuses it. */
static int check_objects(struct cx *cx, const uint8_t *qpc)
{
	uint32_t uar = cx_get(qpc, F_QPC_UAR_PAGE);
	uint32_t snd = cx_get(qpc, F_QPC_CQN_SND);
	uint32_t rcv = cx_get(qpc, F_QPC_CQN_RCV);
	uint32_t rq_type = cx_get(qpc, F_QPC_RQ_TYPE);

	if (!xrc_tgt(qpc) && (uar >= CX_MAX_UAR || !cx->uar_used[uar]))
		return CX_BAD_PARAM;
	if (rq_type != RQ_REGULAR && rq_type != RQ_SRQ && rq_type != RQ_ZERO)
		return CX_BAD_PARAM;
	/* Linux 6.1's UMR QP names PD 0: its WQEs carry their own keys. */
	if (!cx_obj_used(cx, CX_OBJ_PD, cx_get(qpc, F_QPC_PD)) &&
	    !(cx_get(qpc, F_QPC_ST) == CX_ST_REG_UMR && !cx_get(qpc, F_QPC_PD)))
		return CX_BAD_RES;
	if (cx_get(qpc, F_QPC_ST) == CX_ST_XRC &&
	    !cx_obj_used(cx, CX_OBJ_XRCD, cx_get(qpc, F_QPC_XRCD)))
		return CX_BAD_RES;
	/* CQ numbers start at 1 (cx_cq.c): 0 is "none". */
	if ((snd && !cx_cq_get(cx, snd)) || (rcv && !cx_cq_get(cx, rcv)))
		return CX_BAD_RES;
	if (rq_type == RQ_SRQ &&
	    !cx_srq_valid(cx, cx_get(qpc, F_QPC_SRQN_RMPN_XRQN)))
		return CX_BAD_RES;
	return CX_OK;
}

/* The RQ and SQ geometry and their pages into Q; CX_OK or a status. */
static int take_queues(struct cx *cx, struct cx_cmd *c, struct cx_qp *q)
{
	const uint8_t *qpc = c->in + B_QPC;
	struct cx_queue_geo geo = { .write = true };
	uint64_t bytes = 0;

	q->rq_type = cx_get(qpc, F_QPC_RQ_TYPE);
	q->log_rq_size = cx_get(qpc, F_QPC_LOG_RQ_SIZE);
	q->log_rq_stride = cx_get(qpc, F_QPC_LOG_RQ_STRIDE) + 4;
	q->log_sq_size = cx_get(qpc, F_QPC_LOG_SQ_SIZE);
	q->no_sq = cx_get(qpc, F_QPC_NO_SQ);
	q->log_page_size = cx_get(qpc, F_QPC_LOG_PAGE_SIZE);
	q->page_offset = cx_get(qpc, F_QPC_PAGE_OFFSET);
	q->dbr = cx_get64(qpc, B_QPC_DBR_ADDR);
	if (q->log_rq_size > LOG_MAX_QP_SZ || q->log_sq_size > LOG_MAX_QP_SZ ||
	    q->log_rq_stride > LOG_MAX_RQ_STRIDE + 4 || q->log_page_size > 20)
		return CX_BAD_PARAM;
	if (!xrc_tgt(qpc) && (q->dbr % 8 || !cx_dma(cx, q->dbr, 8, true)))
		return CX_BAD_PARAM;
	if (q->rq_type == RQ_REGULAR)
		bytes += (uint64_t)1 << (q->log_rq_size + q->log_rq_stride);
	if (!q->no_sq)
		bytes += (uint64_t)SQ_BB << q->log_sq_size;
	geo.bytes = bytes;
	geo.lps = q->log_page_size;
	geo.page_offset = q->page_offset;
	return cx_take_pas(cx, c, B_CREATE_QP_IN_PAS, &geo, &q->pas, &q->npas);
}

static int create_qp(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *qpc = c->in + B_QPC;
	struct cx_qp *slot = NULL, q = { 0 };
	unsigned int i;
	int st;

	st = cx_cmd_need(cx, c, B_CREATE_QP_IN_PAS, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	/* No DEVX umem; a QP is created in RST. */
	if (cx_get(c->in, F_CREATE_QP_IN_WQ_UMEM_VALID) ||
	    cx_get(qpc, F_QPC_DBR_UMEM_VALID) ||
	    cx_get(qpc, F_QPC_STATE) != CX_QP_RST ||
	    !supported_st(cx_get(qpc, F_QPC_ST)))
		return CX_BAD_PARAM;
	st = check_objects(cx, qpc);
	if (st) {
		cx_trace(cx,
			 "create_qp st 0x%x pd %u uar %u cqn %u/%u rq_type %u "
			 "srqn %u: refused",
			 cx_get(qpc, F_QPC_ST), cx_get(qpc, F_QPC_PD),
			 cx_get(qpc, F_QPC_UAR_PAGE),
			 cx_get(qpc, F_QPC_CQN_SND), cx_get(qpc, F_QPC_CQN_RCV),
			 cx_get(qpc, F_QPC_RQ_TYPE),
			 cx_get(qpc, F_QPC_SRQN_RMPN_XRQN));
		return st;
	}
	for (i = FIRST_QPN; i < CX_MAX_QP && !slot; i++)
		if (!cx->qp[i].valid)
			slot = &cx->qp[i];
	if (!slot)
		return CX_NO_RES;
	st = take_queues(cx, c, &q);
	if (st)
		return st;
	memcpy(q.qpc, qpc, CX_QPC_BYTES);
	q.st = cx_get(qpc, F_QPC_ST);
	q.state = CX_QP_RST;
	q.pd = cx_get(qpc, F_QPC_PD);
	q.uar = cx_get(qpc, F_QPC_UAR_PAGE);
	q.cqn_snd = cx_get(qpc, F_QPC_CQN_SND);
	q.cqn_rcv = cx_get(qpc, F_QPC_CQN_RCV);
	q.srqn = cx_get(qpc, F_QPC_SRQN_RMPN_XRQN);
	q.user_index = cx_get(qpc, F_QPC_USER_INDEX);
	q.xrcd = cx_get(qpc, F_QPC_XRCD);
	q.valid = true;
	*slot = q;
	cx_set(c->out, F_QPN, slot - cx->qp);
	cx_eng_qp_made(cx, slot - cx->qp);
	return CX_OK;
}

static int move_qp(struct cx_cmd *c, const struct move *m, struct cx_qp *q)
{
	const uint8_t *qpc = c->in + B_QPC;
	uint32_t opt;
	unsigned int i;

	if (m->from >= 0 && q->state != m->from)
		return CX_BAD_QP_STATE;
	if (m->req >= 0 || m->op == CX_OP_INIT2INIT_QP ||
	    m->op == CX_OP_RTS2RTS_QP || m->op == CX_OP_SQERR2RTS_QP) {
		if (c->inlen < B_QPC + CX_QPC_BYTES)
			return CX_BAD_INP_LEN;
		opt = cx_get(c->in, F_QP_OPT_PARAM_MASK);
		for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
			if (attrs[i].opt & opt ||
			    (m->req >= 0 && attrs[i].req[m->req] & T(q->st)))
				copy_field(q->qpc, qpc, attrs[i].off,
					   attrs[i].width);
	}
	q->state = m->to;
	return CX_OK;
}

/* The QPC as last set, with the state and the PSNs as they are now. */
static int query_qp(struct cx *cx, struct cx_cmd *c, uint32_t qpn)
{
	const struct cx_qp *q = &cx->qp[qpn];
	uint8_t *qpc = c->out + B_QPC;

	if (c->outlen < B_QPC + CX_QPC_BYTES)
		return CX_BAD_OUTP_LEN;
	memcpy(qpc, q->qpc, CX_QPC_BYTES);
	cx_set(qpc, F_QPC_STATE, q->state);
	cx_eng_qp_psns(cx, qpn, qpc);
	return CX_OK;
}

int cx_qp_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	uint32_t qpn;
	struct cx_qp *q;
	unsigned int i;
	int st;

	if (opcode == CX_OP_CREATE_QP)
		return create_qp(cx, c);
	st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	qpn = cx_get(c->in, F_QPN);
	if (qpn < FIRST_QPN || qpn >= CX_MAX_QP || !cx->qp[qpn].valid)
		return CX_BAD_RES;
	q = &cx->qp[qpn];
	if (opcode == CX_OP_DESTROY_QP) {
		cx_eng_qp_gone(cx, qpn); /* reads the QPC's dbrec */
		free(q->pas);
		memset(q, 0, sizeof(*q));
		return CX_OK;
	}
	if (opcode == CX_OP_QUERY_QP)
		return query_qp(cx, c, qpn);
	for (i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		if (moves[i].op != opcode)
			continue;
		st = move_qp(c, &moves[i], q);
		if (st == CX_OK && q->state == CX_QP_RST)
			cx_eng_qp_made(cx, qpn);
		else if (st == CX_OK)
			cx_eng_qp_moved(cx, qpn);
		return st;
	}
	return CX_BAD_OP;
}
