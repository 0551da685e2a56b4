// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues.  With ISSI 1 mlx5_ib makes an SRQ of type
 * IB_SRQT_BASIC with CREATE_RMP (a receive memory pool: struct
 * mlx5_ifc_rmpc_bits around a struct mlx5_ifc_wq_bits) and one of type
 * IB_SRQT_XRC with CREATE_XRC_SRQ (an srqc); its dev_res stage makes one
 * of each when it loads (drivers/infiniband/hw/mlx5/srq_cmd.c,
 * create_srq_split()).  The two share one number space: mlx5_ib keeps
 * both in one table.  ARM_XRC_SRQ and MODIFY_RMP (RDY to RDY, lwm) set
 * the limit watermark; the limit event is the data path's.  Tag-matching
 * XRQs and the ISSI 0 CREATE_SRQ family are left out.
 */
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_engine.h"
#include "cx_int.h"

enum {
	LOG_MAX_SRQ_SZ = 14,  /* cx_caps.c log_max_srq_sz */
	LOG_MAX_STRIDE = 9,   /* cx_caps.c max_wqe_sz_rq: 512 bytes */
	RMP_RDY = 0x1,	      /* MLX5_RMPC_STATE_RDY */
	XRC_SRQ_GOOD = 0x0,   /* MLX5_XRC_SRQC_STATE_GOOD */
	ARM_XRC_SRQ = 0x1,    /* MLX5_ARM_XRC_SRQ_IN_OP_MOD_XRC_SRQ */
	RMP_BITMASK_LWM = 1,  /* rmp_bitmask.lwm: the be64's bit 0 */
	WQ_LINKED_LIST = 0x0, /* MLX5_WQ_TYPE_LINKED_LIST */
};

void cx_srq_reset(struct cx *cx)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_SRQ; i++)
		free(cx->srq[i].pas);
	memset(cx->srq, 0, sizeof(cx->srq));
}

static struct cx_srq *srq_get(struct cx *cx, uint32_t n, bool xrc)
{
	if (!n || n >= CX_MAX_SRQ || !cx->srq[n].valid || cx->srq[n].xrc != xrc)
		return NULL;
	return &cx->srq[n];
}

bool cx_srq_valid(const struct cx *cx, uint32_t srqn)
{
	return srqn && srqn < CX_MAX_SRQ && cx->srq[srqn].valid;
}

/*
 * Take the geometry in S (filled by the caller) and its PAS from the
 * command: checks every field against the capabilities and every page
 * and the doorbell record against guest memory.  S is not yet valid.
 */
static int take_queue(struct cx *cx, struct cx_cmd *c, struct cx_srq *s)
{
	struct cx_queue_geo geo = { .write = false };

	if (s->log_size > LOG_MAX_SRQ_SZ || s->log_stride < 4 ||
	    s->log_stride > LOG_MAX_STRIDE || s->log_page_size > 20)
		return CX_BAD_PARAM;
	if (!cx_obj_used(cx, CX_OBJ_PD, s->pd))
		return CX_BAD_RES;
	if (s->dbr % 4 || !cx_dma(cx, s->dbr, 4, true))
		return CX_BAD_PARAM;
	geo.bytes = (uint64_t)1 << (s->log_size + s->log_stride);
	geo.lps = s->log_page_size;
	geo.page_offset = s->page_offset;
	return cx_take_pas(cx, c, B_SRQ_PAS, &geo, &s->pas, &s->npas);
}

static struct cx_srq *free_slot(struct cx *cx)
{
	unsigned int i;

	for (i = 1; i < CX_MAX_SRQ; i++)
		if (!cx->srq[i].valid)
			return &cx->srq[i];
	return NULL;
}

static int create_xrc_srq(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *sc = c->in + B_XRC_SRQ_CONTEXT;
	struct cx_srq *slot = free_slot(cx), s = { 0 };
	int st;

	st = cx_cmd_need(cx, c, B_SRQ_PAS, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	if (cx_get(c->in, F_CREATE_XRC_SRQ_IN_UMEM_VALID) ||
	    cx_get(sc, F_SRQC_DBR_UMEM_VALID))
		return CX_BAD_PARAM; /* no DEVX umem */
	if (!slot)
		return CX_NO_RES;
	s.xrc = true;
	s.log_size = cx_get(sc, F_SRQC_LOG_SRQ_SIZE);
	s.log_stride = cx_get(sc, F_SRQC_LOG_RQ_STRIDE) + 4;
	s.log_page_size = cx_get(sc, F_SRQC_LOG_PAGE_SIZE);
	s.page_offset = cx_get(sc, F_SRQC_PAGE_OFFSET);
	s.wq_sig = cx_get(sc, F_SRQC_WQ_SIGNATURE);
	s.pd = cx_get(sc, F_SRQC_PD);
	s.xrcd = cx_get(sc, F_SRQC_XRCD);
	s.cqn = cx_get(sc, F_SRQC_CQN);
	s.user_index = cx_get(sc, F_XRC_SRQC_USER_INDEX);
	s.lwm = cx_get(sc, F_SRQC_LWM);
	s.dbr = cx_get64(sc, B_SRQC_DBR_ADDR);
	if (!cx_obj_used(cx, CX_OBJ_XRCD, s.xrcd) || !cx_cq_get(cx, s.cqn))
		return CX_BAD_RES;
	st = take_queue(cx, c, &s);
	if (st)
		return st;
	s.valid = true;
	*slot = s;
	cx_set(c->out, F_SRQN, slot - cx->srq);
	cx_eng_srq_made(cx, slot - cx->srq);
	return CX_OK;
}

static int create_rmp(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *rmpc = c->in + B_RMP_CONTEXT;
	const uint8_t *wq = rmpc + B_RMPC_WQ;
	struct cx_srq *slot = free_slot(cx), s = { 0 };
	int st;

	st = cx_cmd_need(cx, c, B_SRQ_PAS, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	if (cx_get(rmpc, F_RMPC_STATE) != RMP_RDY ||
	    cx_get(wq, F_WQ_WQ_TYPE) != WQ_LINKED_LIST ||
	    cx_get(wq, F_WQ_DBR_UMEM_VALID) || cx_get(wq, F_WQ_WQ_UMEM_VALID))
		return CX_BAD_PARAM;
	if (!slot)
		return CX_NO_RES;
	s.log_size = cx_get(wq, F_WQ_LOG_WQ_SZ);
	s.log_stride = cx_get(wq, F_WQ_LOG_WQ_STRIDE);
	s.log_page_size = cx_get(wq, F_WQ_LOG_WQ_PG_SZ);
	s.page_offset = cx_get(wq, F_WQ_PAGE_OFFSET);
	s.wq_sig = cx_get(wq, F_WQ_WQ_SIGNATURE);
	s.pd = cx_get(wq, F_WQ_PD);
	s.lwm = cx_get(wq, F_WQ_LWM);
	s.dbr = cx_get64(wq, B_WQ_DBR_ADDR);
	st = take_queue(cx, c, &s);
	if (st)
		return st;
	s.valid = true;
	*slot = s;
	cx_set(c->out, F_SRQN, slot - cx->srq);
	cx_eng_srq_made(cx, slot - cx->srq);
	return CX_OK;
}

static int query(struct cx_cmd *c, const struct cx_srq *s)
{
	uint8_t *sc = c->out + B_XRC_SRQ_CONTEXT;
	uint8_t *wq = c->out + B_RMP_CONTEXT + B_RMPC_WQ;

	if (c->outlen < (s->xrc ? B_XRC_SRQ_CONTEXT + 64 : B_SRQ_PAS))
		return CX_BAD_OUTP_LEN;
	if (s->xrc) {
		cx_set(sc, F_SRQC_STATE, XRC_SRQ_GOOD);
		cx_set(sc, F_SRQC_LOG_SRQ_SIZE, s->log_size);
		cx_set(sc, F_SRQC_LOG_RQ_STRIDE, s->log_stride - 4);
		cx_set(sc, F_SRQC_LOG_PAGE_SIZE, s->log_page_size);
		cx_set(sc, F_SRQC_PAGE_OFFSET, s->page_offset);
		cx_set(sc, F_SRQC_WQ_SIGNATURE, s->wq_sig);
		cx_set(sc, F_SRQC_PD, s->pd);
		cx_set(sc, F_SRQC_XRCD, s->xrcd);
		cx_set(sc, F_SRQC_CQN, s->cqn);
		cx_set(sc, F_XRC_SRQC_USER_INDEX, s->user_index);
		cx_set(sc, F_SRQC_LWM, s->lwm);
		cx_set64(sc, B_SRQC_DBR_ADDR, s->dbr);
		return CX_OK;
	}
	cx_set(c->out + B_RMP_CONTEXT, F_RMPC_STATE, RMP_RDY);
	cx_set(wq, F_WQ_LOG_WQ_SZ, s->log_size);
	cx_set(wq, F_WQ_LOG_WQ_STRIDE, s->log_stride);
	cx_set(wq, F_WQ_LOG_WQ_PG_SZ, s->log_page_size);
	cx_set(wq, F_WQ_PAGE_OFFSET, s->page_offset);
	cx_set(wq, F_WQ_WQ_SIGNATURE, s->wq_sig);
	cx_set(wq, F_WQ_PD, s->pd);
	cx_set(wq, F_WQ_LWM, s->lwm);
	cx_set64(wq, B_WQ_DBR_ADDR, s->dbr);
	return CX_OK;
}

/* MODIFY_RMP as mlx5_ib's arm_rmp_cmd() sends it: RDY to RDY, lwm. */
static int modify_rmp(struct cx_cmd *c, struct cx_srq *s)
{
	const uint8_t *rmpc = c->in + B_RMP_CONTEXT;
	uint64_t mask = cx_get64(c->in, B_MODIFY_RMP_IN_BITMASK);

	if (c->inlen < B_SRQ_PAS)
		return CX_BAD_INP_LEN;
	if (cx_get(c->in, F_MODIFY_RMP_IN_RMP_STATE) != RMP_RDY)
		return CX_BAD_SYS_STATE;
	if (cx_get(rmpc, F_RMPC_STATE) != RMP_RDY || mask & ~RMP_BITMASK_LWM)
		return CX_BAD_PARAM;
	if (mask & RMP_BITMASK_LWM)
		s->lwm = cx_get(rmpc + B_RMPC_WQ, F_WQ_LWM);
	return CX_OK;
}

int cx_srq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	bool xrc =
		opcode >= CX_OP_CREATE_XRC_SRQ && opcode <= CX_OP_ARM_XRC_SRQ;
	struct cx_srq *s;
	int st;

	if (opcode == CX_OP_CREATE_XRC_SRQ)
		return create_xrc_srq(cx, c);
	if (opcode == CX_OP_CREATE_RMP)
		return create_rmp(cx, c);
	st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	s = srq_get(cx, cx_get(c->in, F_SRQN), xrc);
	if (!s)
		return CX_BAD_RES;
	switch (opcode) {
	case CX_OP_DESTROY_XRC_SRQ:
	case CX_OP_DESTROY_RMP:
		free(s->pas);
		memset(s, 0, sizeof(*s));
		cx_eng_srq_gone(cx, s - cx->srq);
		return CX_OK;
	case CX_OP_QUERY_XRC_SRQ:
	case CX_OP_QUERY_RMP:
		return query(c, s);
	case CX_OP_ARM_XRC_SRQ:
		if (cx_get(c->in, F_IN_OP_MOD) != ARM_XRC_SRQ)
			return CX_BAD_PARAM;
		s->lwm = cx_get(c->in, F_ARM_XRC_SRQ_IN_LWM);
		cx_eng_srq_limit(cx, s - cx->srq);
		return CX_OK;
	case CX_OP_MODIFY_RMP:
		st = modify_rmp(c, s);
		if (st == CX_OK)
			cx_eng_srq_limit(cx, s - cx->srq);
		return st;
	}
	return CX_BAD_OP;
}
