// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5 backend objects in ordinary memory for device-free tests: what
 * m5_open, m5_create_cq, m5_create_qp_ex and m5_create_srq_ex would leave
 * behind, minus the kernel (see m5_fake.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "m5_fake.h"

void m5_fake_ctx_init(struct m5_context *ctx, void *uar)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cache_line_size = 64;
	ctx->cqe_version = 1;
	ctx->atomic_cap = true;
	ctx->uar[0] = uar;
	ctx->num_uar_pages = 1;
	m5_buf_ctx_init(ctx);
}

void m5_fake_ctx_fini(struct m5_context *ctx)
{
	m5_buf_ctx_fini(ctx);
}

void m5_fake_cq_init(struct m5_cq *cq, struct m5_context *ctx, void *buf,
		     uint32_t ncqe, __be32 *dbrec, uint32_t ci, bool locked)
{
	struct m5_cqe64 *cqe = buf;
	uint32_t i;

	memset(cq, 0, sizeof(*cq));
	cq->vcq.cq.context = &ctx->core.vctx.context;
	cq->vcq.cq.cqe = ncqe - 1;
	cq->buf = buf;
	cq->ncqe = ncqe;
	cq->buf_len = (size_t)ncqe * M5_CQE_SIZE;
	memset(buf, 0, cq->buf_len);
	for (i = 0; i < ncqe; i++)
		cqe[i].op_own = M5_CQE_OP_OWN_INIT;
	cq->dbrec = dbrec;
	cq->cons_index = ci;
	dbrec[M5_CQ_SET_CI] = htobe32(ci & M5_CQ_CI_MASK);
	dbrec[M5_CQ_ARM_DB] = 0;
	cq->cqn = 0x33;
	cq->arm_reg = (char *)ctx->uar[0] + M5_CQ_DOORBELL;
	db_lock_init(&cq->lock, locked);
}

void m5_fake_wq_init(struct m5_wq *wq, const struct m5_fake_wq *f, bool locked)
{
	*wq = (struct m5_wq){
		.buf = f->buf,
		.qend = (char *)f->buf + ((size_t)f->wqe_cnt << f->wqe_shift),
		.wrid = f->wrid,
		.wqe_head = f->wqe_head,
		.wqe_cnt = f->wqe_cnt,
		.wqe_shift = f->wqe_shift,
		.max_post = f->max_post,
		.max_gs = f->max_gs,
	};
	db_lock_init(&wq->lock, locked);
}

/* As m5_qp_opcode_mask: RDMA and atomics on RC only. */
static uint32_t m5_fake_opcode_mask(const struct m5_context *ctx,
				    enum ibv_qp_type type)
{
	uint32_t m = 1u << IBV_WR_SEND | 1u << IBV_WR_SEND_WITH_IMM;

	if (type == IBV_QPT_RC) {
		m |= 1u << IBV_WR_RDMA_WRITE |
		     1u << IBV_WR_RDMA_WRITE_WITH_IMM | 1u << IBV_WR_RDMA_READ;
		if (ctx->atomic_cap)
			m |= 1u << IBV_WR_ATOMIC_CMP_AND_SWP |
			     1u << IBV_WR_ATOMIC_FETCH_AND_ADD;
	}
	return m;
}

int m5_fake_qp_init(struct m5_qp *qp, struct m5_context *ctx,
		    enum ibv_qp_type type, uint32_t qpn, struct m5_cq *send_cq,
		    struct m5_cq *recv_cq, struct m5_srq *srq, __be32 *dbrec,
		    struct m5_bf *bf)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	ibqp->context = &ctx->core.vctx.context;
	ibqp->qp_type = type;
	ibqp->state = IBV_QPS_RTS;
	/* In RTS, as m5_modify_qp leaves it: the SQ takes sends. */
	qp->sq.open_gs = qp->sq.max_gs + 1;
	ibqp->qp_num = qpn;
	ibqp->send_cq = &send_cq->vcq.cq;
	ibqp->recv_cq = &recv_cq->vcq.cq;
	ibqp->srq = srq ? &srq->vsrq.srq : NULL;
	qp->has_srq = srq != NULL;
	qp->dbrec = dbrec;
	/* What the poster published for the queues as they stand (0, new). */
	dbrec[M5_RCV_DBR] = htobe32(qp->rq.head & 0xffff);
	dbrec[M5_SND_DBR] = htobe32(qp->sq.cur_post & 0xffff);
	qp->bf = bf;
	qp->opcode_mask = m5_fake_opcode_mask(ctx, type);
	qp->rsc.type = M5_RSC_QP;
	return m5_uidx_alloc(ctx, &qp->rsc);
}

int m5_fake_srq_init(struct m5_srq *srq, struct m5_context *ctx, __be32 *dbrec)
{
	struct m5_wq *wq = &srq->wq;
	struct m5_srq_next_seg *next;
	uint32_t i;

	srq->vsrq.srq.context = &ctx->core.vctx.context;
	/* No wait queue, as on a device with too small a max_srq_recv_wr. */
	srq->has_waitq = false;
	srq->busy = calloc(wq->wqe_cnt, 1);
	if (!srq->busy)
		return ENOMEM;
	for (i = 0; i + 1 < wq->wqe_cnt; i++) {
		next = (struct m5_srq_next_seg *)((char *)wq->buf +
						  ((size_t)i << wq->wqe_shift));
		next->next_wqe_index = htobe16(i + 1);
	}
	wq->head = 0;
	atomic_init(&wq->tail, wq->wqe_cnt - 1);
	srq->dbrec = dbrec;
	dbrec[0] = 0;
	srq->buf_len = (size_t)wq->wqe_cnt << wq->wqe_shift;
	srq->rsc.type = M5_RSC_SRQ;
	return m5_uidx_alloc(ctx, &srq->rsc);
}
