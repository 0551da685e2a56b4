// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ethernet receive queues as mlx5e makes them (en_main.c mlx5e_create_rq,
 * mlx5e_modify_rq_state): CREATE_RQ of a cyclic work queue (wq_type
 * MLX5_WQ_TYPE_CYCLIC; no striding RQ: the striding_rq cap is 0) in the
 * RST state, on a CQ, with its pages and doorbell record; MODIFY_RQ
 * between RST, RDY and ERR, from the state the driver names; DESTROY_RQ
 * of one no TIR or RQT names.  The first RQ mlx5e makes is its drop RQ
 * (one WQE, no PD: it never receives).  And the Q counters the RQs count
 * into (ALLOC/DEALLOC_Q_COUNTER, mlx5e_create_q_counters; QUERY_Q_COUNTER
 * for mlx5e's statistics: out_of_buffer, the rest zero).  cx_eth_rx.c
 * receives into them.
 */
#include <stdlib.h>

#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"

enum {
	RQ_RST = 0x0, /* MLX5_RQC_STATE_RST, _RDY, _ERR */
	RQ_RDY = 0x1,
	RQ_ERR = 0x3,
	WQ_CYCLIC = 0x1, /* MLX5_WQ_TYPE_CYCLIC */
	MAX_RQ = 1 << CX_ETH_LOG_MAX_RQ,
};

bool cx_eth_rq_valid(const struct cx_eth *e, uint32_t n)
{
	return n && n <= MAX_RQ && e->rq[n - 1].valid;
}

static bool counter_valid(const struct cx_eth *e, uint32_t n)
{
	return n < CX_ETH_MAX_Q_COUNTER && (!n || e->q_counter[n]);
}

void cx_eth_rq_reset(struct cx_eth *e)
{
	unsigned int i;

	for (i = 0; i < MAX_RQ; i++)
		free(e->rq[i].pas);
}

static int create_rq(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *rqc = c->in + B_OBJ_IN_CTX, *wq = rqc + B_RQC_WQ;
	struct cx_eth *e = cx->eth;
	struct cx_eth_rq r = { .valid = true, .state = RQ_RST };
	struct cx_queue_geo geo = { .write = true };
	unsigned int i;
	int st;

	r.vsd = cx_get(rqc, F_RQC_VSD);
	r.cqn = cx_get(rqc, F_RQC_CQN);
	r.pd = cx_get(wq, F_WQ_PD);
	r.counter = cx_get(rqc, F_RQC_COUNTER_SET_ID);
	r.log_sz = cx_get(wq, F_WQ_LOG_WQ_SZ);
	r.log_stride = cx_get(wq, F_WQ_LOG_WQ_STRIDE);
	r.log_pg_sz = cx_get(wq, F_WQ_LOG_WQ_PG_SZ);
	r.page_offset = cx_get(wq, F_WQ_PAGE_OFFSET);
	r.dbr = cx_get64(wq, B_WQ_DBR_ADDR);
	if (cx_get(rqc, F_RQC_STATE) != RQ_RST ||
	    cx_get(rqc, F_RQC_MEM_RQ_TYPE) || /* MEMORY_RQ_INLINE */
	    cx_get(wq, F_WQ_WQ_TYPE) != WQ_CYCLIC || !cx_cq_get(cx, r.cqn) ||
	    (r.pd && !cx_obj_used(cx, CX_OBJ_PD, r.pd)) ||
	    !counter_valid(e, r.counter) || r.log_sz > CX_ETH_LOG_MAX_WQ_SZ ||
	    r.log_stride < 4 || r.log_pg_sz > 20 || r.dbr % 4 ||
	    !cx_dma(cx, r.dbr, 4, true))
		return CX_BAD_PARAM;
	for (i = 0; i < MAX_RQ && e->rq[i].valid; i++)
		;
	if (i == MAX_RQ)
		return CX_NO_RES;
	geo.bytes = (uint64_t)1 << (r.log_sz + r.log_stride);
	geo.lps = r.log_pg_sz;
	geo.page_offset = r.page_offset;
	st = cx_take_pas(cx, c, B_CREATE_RQ_IN_PAS, &geo, &r.pas, &r.npas);
	if (st)
		return st;
	e->rq[i] = r;
	cx_set(c->out, F_OBJ_OUT_NUMBER, i + 1);
	return CX_OK;
}

/* RST -> RDY, RDY -> ERR, any -> RST: the driver's current state first. */
static int modify_rq(struct cx_eth_rq *r, const struct cx_cmd *c)
{
	uint32_t cur = cx_get(c->in, F_MODIFY_RQ_IN_RQ_STATE);
	uint32_t next = cx_get(c->in + B_OBJ_IN_CTX, F_RQC_STATE);

	if (cur != r->state || cx_get(c->in, F_MODIFY_IN_BITMASK_LO))
		return CX_BAD_PARAM; /* no VSD, scatter FCS, counter change */
	if (!(next == RQ_RST || (cur == RQ_RST && next == RQ_RDY) ||
	      (cur == RQ_RDY && next == RQ_ERR)))
		return CX_BAD_PARAM;
	r->state = next;
	if (next == RQ_RST)
		r->cc = 0; /* the work queue starts again at WQE 0 */
	return CX_OK;
}

static int q_counter(struct cx_eth *e, uint16_t opcode, struct cx_cmd *c)
{
	uint32_t n = cx_get(c->in, F_Q_COUNTER_SET_ID);

	if (opcode == CX_OP_DEALLOC_Q_COUNTER) {
		unsigned int i;

		if (!n || !counter_valid(e, n))
			return CX_BAD_PARAM;
		for (i = 0; i < MAX_RQ; i++)
			if (e->rq[i].valid && e->rq[i].counter == n)
				return CX_BAD_RES;
		e->q_counter[n] = false;
		return CX_OK;
	}
	for (n = 1; n < CX_ETH_MAX_Q_COUNTER; n++) {
		if (!e->q_counter[n]) {
			e->q_counter[n] = true;
			cx_set(c->out, F_Q_COUNTER_SET_ID, n);
			return CX_OK;
		}
	}
	return CX_NO_RES;
}

/* out_of_buffer: frames its RQs had no WQE for (the rest stay 0). */
static int query_q_counter(struct cx_eth *e, uint32_t n, struct cx_cmd *c)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < MAX_RQ; i++) {
		if (e->rq[i].valid && e->rq[i].counter == n) {
			sum += e->rq[i].no_wqe;
			if (cx_get(c->in, F_QUERY_Q_COUNTER_IN_CLEAR))
				e->rq[i].no_wqe = 0;
		}
	}
	cx_set(c->out, F_QUERY_Q_COUNTER_OUT_OUT_OF_BUFFER, (uint32_t)sum);
	return CX_OK;
}

int cx_eth_rq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	struct cx_eth *e = cx->eth;
	uint32_t n = cx_get(c->in, F_OBJ_IN_NUMBER);
	bool ctx = opcode == CX_OP_CREATE_RQ || opcode == CX_OP_MODIFY_RQ;
	int st;

	st = cx_cmd_need(cx, c,
			 ctx				   ? OBJ_IN_BYTES
			 : opcode == CX_OP_QUERY_Q_COUNTER ? 32
							   : 16,
			 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	switch (opcode) {
	case CX_OP_CREATE_RQ:
		return create_rq(cx, c);
	case CX_OP_MODIFY_RQ:
		if (!cx_eth_rq_valid(e, n))
			return CX_BAD_PARAM;
		return modify_rq(&e->rq[n - 1], c);
	case CX_OP_DESTROY_RQ:
		if (!cx_eth_rq_valid(e, n))
			return CX_BAD_PARAM;
		if (cx_eth_rq_named(e, n))
			return CX_BAD_RES;
		free(e->rq[n - 1].pas);
		e->rq[n - 1].pas = NULL;
		e->rq[n - 1].valid = false;
		return CX_OK;
	case CX_OP_ALLOC_Q_COUNTER:
	case CX_OP_DEALLOC_Q_COUNTER:
		return q_counter(e, opcode, c);
	case CX_OP_QUERY_Q_COUNTER:
		n = cx_get(c->in, F_QUERY_Q_COUNTER_IN_SET_ID);
		if (!n || !counter_valid(e, n))
			return CX_BAD_PARAM;
		if (c->outlen < QUERY_Q_COUNTER_OUT_BYTES)
			return CX_BAD_OUTP_LEN;
		return query_q_counter(e, n, c);
	}
	return CX_BAD_OP;
}
