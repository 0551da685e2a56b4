// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues of the mlx5 backend.  The WQEs form a linked list
 * through their next segments: posting takes the head, a completion gives
 * its WQE back at the tail, in whatever order completions arrive.  One
 * entry always stays on the list, so head == tail means full.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr.h"
#include "mlx5/mlx5.h"

/* The smallest WQE: a next segment and one data segment. */
#define M5_SRQ_MIN_WQE 32u

static struct m5_srq_next_seg *m5_srq_wqe(struct m5_srq *srq, uint32_t i)
{
	return (struct m5_srq_next_seg *)((char *)srq->wq.buf +
					  ((size_t)i << srq->wq.wqe_shift));
}

static int m5_check_srq_attr(struct m5_context *ctx,
			     const struct ibv_srq_init_attr_ex *attr)
{
	int ret;

	ret = db_srq_attr_check(&ctx->core.vctx.context, attr);
	if (ret)
		return ret;
	if (attr->attr.max_wr > ctx->max_srq_recv_wr ||
	    attr->attr.max_wr > UINT16_MAX ||
	    attr->attr.max_sge >
		    ctx->max_rq_desc_sz / sizeof(struct m5_data_seg))
		return EINVAL;
	return 0;
}

/* max_wr + 1 WQEs rounded to a power of two, linked 0 -> 1 -> ... */
static int m5_srq_alloc_ring(struct m5_context *ctx, struct m5_srq *srq,
			     const struct ibv_srq_attr *a, struct ibv_pd *pd)
{
	struct m5_wq *wq = &srq->wq;
	uint32_t size, i;

	size = sizeof(struct m5_srq_next_seg) +
	       a->max_sge * sizeof(struct m5_data_seg);
	if (size < M5_SRQ_MIN_WQE)
		size = M5_SRQ_MIN_WQE;
	size = db_roundup_pow2(size);
	wq->wqe_shift = 31 - __builtin_clz(size);
	wq->wqe_cnt = db_roundup_pow2(a->max_wr + 1);
	wq->max_gs = (size - sizeof(struct m5_srq_next_seg)) /
		     sizeof(struct m5_data_seg);
	wq->max_post = wq->wqe_cnt - 1;
	srq->buf_len = (size_t)wq->wqe_cnt << wq->wqe_shift;
	wq->buf = m5_qbuf_alloc(&srq->qbuf, pd, srq->buf_len, M5_RES_TYPE_SRQ);
	if (!wq->buf)
		return errno;
	wq->qend = (char *)wq->buf + srq->buf_len;
	wq->wrid = calloc(wq->wqe_cnt, sizeof(*wq->wrid));
	if (!wq->wrid)
		return ENOMEM;
	for (i = 0; i + 1 < wq->wqe_cnt; i++)
		m5_srq_wqe(srq, i)->next_wqe_index = htobe16(i + 1);
	wq->head = 0;
	atomic_init(&wq->tail, wq->wqe_cnt - 1);
	srq->dbrec = m5_dbrec_alloc(ctx);
	return srq->dbrec ? 0 : ENOMEM;
}

static void m5_srq_free_ring(struct m5_context *ctx, struct m5_srq *srq)
{
	free(srq->wq.wrid);
	m5_qbuf_free(&srq->qbuf, srq->wq.buf, srq->buf_len);
	m5_dbrec_free(ctx, srq->dbrec);
	if (srq->rsc.uidx != M5_UIDX_NONE)
		m5_uidx_free(ctx, srq->rsc.uidx);
}

static int m5_srq_kernel_create(struct m5_context *ctx, struct m5_srq *srq,
				const struct ibv_srq_init_attr_ex *attr)
{
	/* Only what a basic SRQ needs goes to the kernel. */
	struct ibv_srq_init_attr_ex kattr = {
		.srq_context = attr->srq_context,
		.attr = {
			.max_wr = srq->wq.max_post,
			.max_sge = srq->wq.max_gs,
			.srq_limit = attr->attr.srq_limit,
		},
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
		.pd = attr->pd,
	};
	struct mlx5_ib_create_srq req = {
		.buf_addr = (uintptr_t)srq->wq.buf,
		.db_addr = (uintptr_t)srq->dbrec,
		/*
		 * With CQE version 1 mlx5_ib wants a valid user index for
		 * every SRQ, though the CQEs of a basic SRQ's receives carry
		 * the QP's.
		 */
		.uidx = srq->rsc.uidx,
	};
	struct mlx5_ib_create_srq_resp resp = {};
	int ret;

	ret = m5k_create_srq(&ctx->core.vctx.context, &srq->vsrq, &kattr, &req,
			     &resp);
	if (!ret)
		srq->srqn = resp.srqn;
	return ret;
}

struct ibv_srq *m5_create_srq_ex(struct ibv_context *ibctx,
				 struct ibv_srq_init_attr_ex *attr)
{
	struct m5_context *ctx = to_m5ctx(ibctx);
	struct m5_srq *srq;
	int ret;

	ret = m5_check_srq_attr(ctx, attr);
	if (ret)
		goto err;
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		ret = ENOMEM;
		goto err;
	}
	srq->rsc.type = M5_RSC_SRQ;
	srq->rsc.uidx = M5_UIDX_NONE;
	ret = m5_uidx_alloc(ctx, &srq->rsc);
	if (!ret)
		ret = m5_srq_alloc_ring(ctx, srq, &attr->attr, attr->pd);
	if (!ret)
		ret = m5_srq_kernel_create(ctx, srq, attr);
	if (ret)
		goto err_free;
	db_lock_init(&srq->wq.lock, db_need_lock(attr->pd));
	attr->attr.max_wr = srq->wq.max_post;
	attr->attr.max_sge = srq->wq.max_gs;
	return &srq->vsrq.srq;

err_free:
	m5_srq_free_ring(ctx, srq);
	free(srq);
err:
	errno = ret;
	return NULL;
}

/* Only the limit can change: an mlx5 SRQ is never resized. */
int m5_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	if (mask & ~IBV_SRQ_LIMIT)
		return EINVAL;
	return m5k_modify_srq(ibsrq, attr, mask);
}

int m5_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	return m5k_query_srq(ibsrq, attr);
}

int m5_destroy_srq(struct ibv_srq *ibsrq)
{
	struct m5_srq *srq = to_m5srq(ibsrq);
	int ret;

	ret = m5k_destroy_srq(ibsrq);
	if (ret)
		return ret;
	m5_srq_free_ring(to_m5ctx(ibsrq->context), srq);
	free(srq);
	return 0;
}

/* The tail moves only under the SRQ lock: relaxed accesses suffice. */
void m5_srq_free_wqe(struct m5_srq *srq, uint16_t idx)
{
	struct m5_wq *wq = &srq->wq;

	db_lock(&wq->lock);
	m5_srq_wqe(srq, atomic_load_explicit(&wq->tail, memory_order_relaxed))
		->next_wqe_index = htobe16(idx);
	atomic_store_explicit(&wq->tail, idx, memory_order_relaxed);
	db_unlock(&wq->lock);
}

/*
 * An ODP page fault on SRQ WQE idx: the device took it and wrote nothing.
 * As libmlx5 v44 does without its wait queue (srq.c,
 * mlx5_complete_odp_fault and srq_repost): idx goes back at the tail, its
 * scatter list is copied to the head WQE under the same wr_id, and that
 * one is posted.  idx is no longer posted, so its first data segment is
 * cleared for m5_srq_claim (mlx5_poll.c).  False if idx is not outstanding
 * (a device's lie): then nothing changes.
 */
bool m5_srq_repost(struct m5_srq *srq, uint16_t idx)
{
	struct m5_wq *wq = &srq->wq;
	struct m5_srq_next_seg *from, *to;
	struct m5_data_seg *d;
	uint32_t tail;
	bool posted;

	if (idx >= wq->wqe_cnt)
		return false;
	db_lock(&wq->lock);
	from = m5_srq_wqe(srq, idx);
	d = (struct m5_data_seg *)(from + 1);
	posted = d->byte_count || d->lkey;
	if (posted) {
		/* The tail moves only under this lock. */
		tail = atomic_load_explicit(&wq->tail, memory_order_relaxed);
		m5_srq_wqe(srq, tail)->next_wqe_index = htobe16(idx);
		atomic_store_explicit(&wq->tail, idx, memory_order_relaxed);
		/* head != idx: idx was outstanding, now it is past the tail. */
		to = m5_srq_wqe(srq, wq->head);
		memcpy(to + 1, d, wq->max_gs * sizeof(*d));
		wq->wrid[wq->head] = wq->wrid[idx];
		wq->head = be16toh(to->next_wqe_index);
		d->byte_count = 0;
		d->lkey = 0;
		srq->counter++;
		/* Orders: the WQE stores before the dbrec store. */
		udma_to_device_barrier();
		m5_dbrec_store(&srq->dbrec[0], htobe32(srq->counter));
	}
	db_unlock(&wq->lock);
	return posted;
}
