// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs of the mlx5 backend: sizing, the host buffers the device
 * reads (RQ first, then SQ), the user index, and the life cycle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr.h"
#include "mlx5/mlx5.h"

static uint32_t m5_ilog2(uint32_t v)
{
	return 31 - __builtin_clz(v);
}

static uint32_t m5_qp_opcode_mask(const struct m5_context *ctx,
				  enum ibv_qp_type type)
{
	uint32_t m = M5_OP(SEND) | M5_OP(SEND_WITH_IMM);

	/* UC: no READ and no atomics (they need a response). */
	if (type == IBV_QPT_UC)
		m |= M5_OP(RDMA_WRITE) | M5_OP(RDMA_WRITE_WITH_IMM) |
		     M5_OP(SEND_WITH_INV);
	/* An XRC initiator is an RC requester. */
	if (type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND) {
		m |= M5_OPS_RDMA | M5_OP(SEND_WITH_INV);
		if (ctx->atomic_cap)
			m |= M5_OPS_ATOMIC;
	}
	return m;
}

/* Bytes before the data of the largest WQE header the QP can post. */
static uint32_t m5_sq_overhead(enum ibv_qp_type type, uint32_t ops)
{
	uint32_t size = sizeof(struct m5_ctrl_seg);

	if (ops & M5_OPS_ATOMIC)
		size += sizeof(struct m5_raddr_seg) +
			sizeof(struct m5_atomic_seg);
	else if (ops & M5_OPS_RDMA)
		size += sizeof(struct m5_raddr_seg);
	if (type == IBV_QPT_UD)
		size += sizeof(struct m5_av);
	if (type == IBV_QPT_XRC_SEND)
		size += sizeof(struct m5_xrc_seg);
	return size;
}

/* No TSO or RSS; send_ops_flags only for the opcodes it posts. */
static int m5_check_qp_attr(struct ibv_context *ctx,
			    const struct ibv_qp_init_attr_ex *attr)
{
	int ret;

	/* send_ops_flags (ibv_wr_*) is checked below. */
	ret = db_qp_attr_check(ctx, attr);
	if (ret)
		return ret;
	/* ibv_wr_*: the opcodes post_send has on this QP, nothing more
	 * (IBV_QP_EX_WITH_x is 1 << IBV_WR_x: asserted in mlx5_wr.c). */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags &
	     ~(uint64_t)m5_qp_opcode_mask(to_m5_ctx(ctx), attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

/*
 * SQ: every WQE slot is sized for the largest header plus max_send_sge
 * data segments or max_inline_data bytes of inline data, in WQEBBs.  The
 * 6-bit ds field caps a WQE at 1008 bytes whatever the device says.
 */
static int m5_size_sq(const struct m5_context *ctx, struct m5_qp *qp,
		      const struct ibv_qp_init_attr_ex *attr)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	uint32_t limit = ctx->max_sq_desc_sz;
	uint32_t over, size, wqe_size, room;
	uint64_t wq_size;

	if (!cap->max_send_wr)
		return 0;
	if (limit > M5_MAX_DS * M5_DS_UNIT)
		limit = M5_MAX_DS * M5_DS_UNIT;
	limit &= ~(uint32_t)(M5_DS_UNIT - 1);
	over = m5_sq_overhead(attr->qp_type, qp->opcode_mask);
	if (limit < over ||
	    cap->max_send_sge > (limit - over) / sizeof(struct m5_data_seg) ||
	    cap->max_inline_data > limit)
		return EINVAL;
	size = over + cap->max_send_sge * sizeof(struct m5_data_seg);
	if (cap->max_inline_data) {
		uint32_t inl = over + ((sizeof(struct m5_inline_seg) +
					cap->max_inline_data + 15) &
				       ~15u);

		if (inl > size)
			size = inl;
	}
	if (size > limit)
		return EINVAL;
	wqe_size = (size + M5_SEND_WQE_BB - 1) & ~(M5_SEND_WQE_BB - 1);
	if (cap->max_send_wr > 0x7fffffffu / wqe_size)
		return EINVAL;
	wq_size = db_roundup_pow2(cap->max_send_wr * wqe_size);
	if (wq_size / M5_SEND_WQE_BB > ctx->max_send_wqebb)
		return EINVAL;
	qp->sq.wqe_cnt = wq_size / M5_SEND_WQE_BB;
	qp->sq.wqe_shift = M5_SEND_WQE_SHIFT;
	qp->sq.max_gs = cap->max_send_sge;
	qp->sq.max_post = wq_size / wqe_size;
	/*
	 * max_post counts WRs: no WQE may be larger than wqe_size.  A slot
	 * the header fills (UD without SGEs: 64 bytes) has no room for an
	 * inline segment, so no inline data; wqe_size - over - 4 would wrap.
	 */
	room = (wqe_size < limit ? wqe_size : limit) - over;
	qp->max_inline_data = room > sizeof(struct m5_inline_seg)
				      ? room - sizeof(struct m5_inline_seg)
				      : 0;
	return 0;
}

/* RQ: a power-of-two stride of data segments, at least one WQEBB in all. */
static int m5_size_rq(const struct m5_context *ctx, struct m5_qp *qp,
		      const struct ibv_qp_init_attr_ex *attr)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	uint32_t nsge, stride;
	uint64_t wq_size;

	/* An XRC initiator receives nothing. */
	if (attr->srq || !cap->max_recv_wr || attr->qp_type == IBV_QPT_XRC_SEND)
		return 0;
	if (cap->max_recv_wr > ctx->max_recv_wr || cap->max_recv_wr > 1u << 31)
		return EINVAL;
	nsge = cap->max_recv_sge ? cap->max_recv_sge : 1;
	if (nsge > ctx->max_rq_desc_sz / sizeof(struct m5_data_seg))
		return EINVAL;
	stride = db_roundup_pow2(nsge * sizeof(struct m5_data_seg));
	if (stride > ctx->max_rq_desc_sz)
		return EINVAL;
	wq_size = (uint64_t)db_roundup_pow2(cap->max_recv_wr) * stride;
	if (wq_size < M5_SEND_WQE_BB)
		wq_size = M5_SEND_WQE_BB;
	qp->rq.wqe_cnt = wq_size / stride;
	qp->rq.wqe_shift = m5_ilog2(stride);
	qp->rq.max_post = qp->rq.wqe_cnt;
	qp->rq.max_gs = stride / sizeof(struct m5_data_seg);
	return 0;
}

static void m5_qp_free_bufs(struct m5_context *ctx, struct m5_qp *qp)
{
	free(qp->sq.wrid);
	free(qp->sq.wqe_head);
	free(qp->rq.wrid);
	m5_qbuf_free(&qp->qbuf, qp->buf, qp->buf_len);
	m5_dbrec_free(ctx, qp->dbrec);
	m5_uidx_free(ctx, qp->rsc.uidx);
	m5_qp_fini_wr(qp);
}

/* The RQ at offset 0 and the SQ after it, as the kernel checks. */
static int m5_qp_alloc_bufs(struct m5_context *ctx, struct m5_qp *qp,
			    struct ibv_pd *pd)
{
	size_t rq_len = (size_t)qp->rq.wqe_cnt << qp->rq.wqe_shift;
	size_t sq_len = (size_t)qp->sq.wqe_cnt << M5_SEND_WQE_SHIFT;
	char *buf = NULL;

	qp->buf_len = rq_len + sq_len;
	if (qp->buf_len) {
		buf = m5_qbuf_alloc(&qp->qbuf, pd, qp->buf_len, M5_RES_TYPE_QP);
		if (!buf)
			return errno;
	}
	qp->buf = buf;
	if (rq_len) {
		qp->rq.buf = buf;
		qp->rq.qend = buf + rq_len;
		qp->rq.wrid = calloc(qp->rq.wqe_cnt, sizeof(*qp->rq.wrid));
		if (!qp->rq.wrid)
			return ENOMEM;
	}
	if (sq_len) {
		qp->sq.buf = buf + rq_len;
		qp->sq.qend = buf + rq_len + sq_len;
		qp->sq.wrid = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wrid));
		qp->sq.wqe_head =
			calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wqe_head));
		if (!qp->sq.wrid || !qp->sq.wqe_head)
			return ENOMEM;
	}
	qp->dbrec = m5_dbrec_alloc(ctx);
	if (!qp->dbrec)
		return ENOMEM;
	return m5_uidx_alloc(ctx, &qp->rsc);
}

/* The bfreg the kernel gave the QP must be one we mapped. */
static struct m5_bf *m5_qp_bf(struct m5_context *ctx, uint32_t index)
{
	if (index >= ctx->num_bfs || !ctx->bfs[index].reg)
		return NULL;
	return &ctx->bfs[index];
}

static void m5_qp_set_caps(const struct m5_qp *qp, struct ibv_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.max_post;
	cap->max_send_sge = qp->sq.max_gs;
	cap->max_inline_data = qp->max_inline_data;
	cap->max_recv_wr = qp->rq.max_post;
	cap->max_recv_sge = qp->rq.max_gs;
}

static int m5_qp_kernel_create(struct m5_context *ctx, struct m5_qp *qp,
			       struct ibv_qp_init_attr_ex *attr)
{
	struct mlx5_ib_create_qp req = {
		.buf_addr = (uintptr_t)qp->buf,
		.db_addr = (uintptr_t)qp->dbrec,
		.sq_wqe_count = qp->sq.wqe_cnt,
		.rq_wqe_count = qp->rq.wqe_cnt,
		.rq_wqe_shift = qp->rq.wqe_shift,
		.uidx = qp->rsc.uidx,
		/* Static UARs: flags 0, bfreg_index 0, the kernel picks. */
	};
	struct mlx5_ib_create_qp_resp resp = {};
	struct m5_bf *dyn = NULL;
	int ret;

	if (ctx->dyn_uar) {
		dyn = m5_dyn_bf_get(ctx, attr->pd);
		if (!dyn)
			return errno;
		req.flags = MLX5_QP_FLAG_UAR_PAGE_INDEX;
		req.bfreg_index = dyn->page_id;
	}
	if (qp->sq.wqe_cnt)
		attr->cap.max_inline_data = qp->max_inline_data;
	ret = m5k_create_qp(&ctx->core.vctx.context, &qp->vqp, attr, &req,
			    &resp);
	if (ret) {
		if (dyn)
			m5_dyn_bf_put(ctx, dyn);
		return ret;
	}
	qp->bf = dyn ? dyn : m5_qp_bf(ctx, resp.bfreg_index);
	if (!qp->bf) {
		m5k_destroy_qp(&qp->vqp.qp);
		return EPROTO;
	}
	return 0;
}

/*
 * An XRC target: the kernel's object in a domain, no queue, buffer,
 * doorbell or bfreg of ours; only the user index mlx5_ib asks of every QP
 * (its receives complete with their XRC SRQ's).
 */
static int m5_create_xrc_tgt(struct m5_context *ctx, struct m5_qp *qp,
			     struct ibv_qp_init_attr_ex *attr)
{
	struct mlx5_ib_create_qp req = {};
	struct mlx5_ib_create_qp_resp resp = {};
	int ret;

	ret = m5_uidx_alloc(ctx, &qp->rsc);
	if (ret)
		return ret;
	req.uidx = qp->rsc.uidx;
	memset(&attr->cap, 0, sizeof(attr->cap));
	return m5k_create_qp(&ctx->core.vctx.context, &qp->vqp, attr, &req,
			     &resp);
}

struct ibv_qp *m5_create_qp_ex(struct ibv_context *ibctx,
			       struct ibv_qp_init_attr_ex *attr)
{
	struct m5_context *ctx = to_m5_ctx(ibctx);
	struct m5_qp *qp;
	bool need_lock;
	int ret;

	ret = m5_check_qp_attr(ibctx, attr);
	if (ret)
		goto err;
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		ret = ENOMEM;
		goto err;
	}
	qp->rsc.type = M5_RSC_QP;
	qp->rsc.uidx = M5_UIDX_NONE;
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		ret = m5_create_xrc_tgt(ctx, qp, attr);
		if (ret)
			goto err_free;
		return &qp->vqp.qp;
	}
	qp->has_srq = attr->srq != NULL;
	qp->opcode_mask = m5_qp_opcode_mask(ctx, attr->qp_type);
	ret = m5_size_sq(ctx, qp, attr);
	if (!ret)
		ret = m5_size_rq(ctx, qp, attr);
	if (!ret)
		ret = m5_qp_alloc_bufs(ctx, qp, attr->pd);
	if (!ret && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		ret = m5_qp_init_wr(qp, attr->send_ops_flags);
	if (!ret)
		ret = m5_qp_kernel_create(ctx, qp, attr);
	if (ret)
		goto err_free;
	if (qp->wr) {
		m5_qp_set_wr_ops(qp);
		/* After the create command, which cleared comp_mask. */
		db_vqp_set_ex(&qp->vqp);
	}
	need_lock = db_need_lock(attr->pd);
	db_lock_init(&qp->sq.lock, need_lock);
	db_lock_init(&qp->rq.lock, need_lock);
	qp->sq_signal_bits = attr->sq_sig_all ? M5_WQE_CTRL_CQ_UPDATE : 0;
	m5_qp_set_caps(qp, &attr->cap);
	return &qp->vqp.qp;

err_free:
	m5_qp_free_bufs(ctx, qp);
	free(qp);
err:
	errno = ret;
	return NULL;
}

/*
 * A handle of this context on an XRC target of the domain @attr names,
 * as ibv_open_qp(3) says: no queue, buffer or user index of ours (the
 * target's CQEs are its creator's SRQs'), modified, queried and destroyed
 * through the kernel like the target's creator's handle, which it
 * outlives.  A domain of another context is EINVAL: its handle number
 * would name one of ours to the kernel.
 */
struct ibv_qp *m5_open_qp(struct ibv_context *ibctx,
			  struct ibv_qp_open_attr *attr)
{
	struct m5_qp *qp;
	int ret;

	if ((attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) && attr->xrcd &&
	    !db_same_context(ibctx, attr->xrcd->context)) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->rsc.type = M5_RSC_QP;
	qp->rsc.uidx = M5_UIDX_NONE;
	ret = m5k_open_qp(ibctx, &qp->vqp, attr);
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

/* Remove the QP's CQEs from its CQs (the SRQ takes back its WQEs). */
static void m5_qp_clean_cqs(struct m5_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct m5_srq *srq = NULL;

	if (qp->has_srq && ibqp->srq)
		srq = to_m5_srq(ibqp->srq);
	if (ibqp->recv_cq)
		m5_cq_clean(to_m5_cq(ibqp->recv_cq), qp->rsc.uidx, srq);
	if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
		m5_cq_clean(to_m5_cq(ibqp->send_cq), qp->rsc.uidx, NULL);
}

/* Back in RESET the queues start over from index 0, as the device does. */
static void m5_qp_reset(struct m5_qp *qp)
{
	m5_qp_clean_cqs(qp);
	db_lock(&qp->sq.lock);
	db_lock(&qp->rq.lock);
	qp->sq.head = 0;
	atomic_store_explicit(&qp->sq.tail, 0, memory_order_relaxed);
	qp->sq.cur_post = 0;
	/* Sends are refused again until the next RTS. */
	qp->sq.open_gs = 0;
	qp->rq.head = 0;
	atomic_store_explicit(&qp->rq.tail, 0, memory_order_relaxed);
	/* An XRC target has no doorbell record. */
	if (qp->dbrec) {
		m5_dbrec_store(&qp->dbrec[M5_RCV_DBR], 0);
		m5_dbrec_store(&qp->dbrec[M5_SND_DBR], 0);
	}
	db_unlock(&qp->rq.lock);
	db_unlock(&qp->sq.lock);
}

/*
 * The send gate of libmlx5 (v44 verbs.c, set_qp_operational_state): open
 * from the first RTS on, through SQD, SQE and ERR, closed again by RESET
 * only.  Written under the SQ lock, which the poster reads it under.
 */
static void m5_qp_open_sq(struct m5_qp *qp)
{
	db_lock(&qp->sq.lock);
	qp->sq.open_gs = qp->sq.max_gs + 1;
	db_unlock(&qp->sq.lock);
}

int m5_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	int ret;

	ret = db_qp_modify_check(attr, mask);
	if (!ret)
		ret = m5k_modify_qp(ibqp, attr, mask);
	if (ret || !(mask & IBV_QP_STATE))
		return ret;
	if (attr->qp_state == IBV_QPS_RESET)
		m5_qp_reset(to_m5_qp(ibqp));
	else if (attr->qp_state == IBV_QPS_RTS)
		m5_qp_open_sq(to_m5_qp(ibqp));
	return 0;
}

/* The kernel knows nothing of the SQ's sizes: they are ours. */
int m5_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		struct ibv_qp_init_attr *init_attr)
{
	int ret;

	ret = m5k_query_qp(ibqp, attr, mask, init_attr);
	if (ret)
		return ret;
	m5_qp_set_caps(to_m5_qp(ibqp), &init_attr->cap);
	attr->cap = init_attr->cap;
	return 0;
}

/*
 * The CQs are cleaned once the kernel has destroyed the QP: from then on
 * no CQE of it can arrive, so none survives to name a freed user index.
 */
int m5_destroy_qp(struct ibv_qp *ibqp)
{
	struct m5_context *ctx = to_m5_ctx(ibqp->context);
	struct m5_qp *qp = to_m5_qp(ibqp);
	int ret;

	ret = m5k_destroy_qp(ibqp);
	if (ret)
		return ret;
	m5_qp_clean_cqs(qp);
	if (ctx->dyn_uar && qp->bf)
		m5_dyn_bf_put(ctx, qp->bf);
	m5_qp_free_bufs(ctx, qp);
	free(qp);
	return 0;
}
