// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues of the mlx5 backend.  The WQEs form a linked list
 * through their next segments: posting takes the head, a completion gives
 * its WQE back at the tail, in whatever order completions arrive.  One
 * entry always stays on the list, so head == tail means full.
 *
 * As libmlx5 v44 (srq.c, mlx5_alloc_srq_buf), the ring has room for
 * 2 * max_wr + 1 WQEs where the device allows it: the second half is a
 * wait queue where WQEs that took an ODP page fault cool down, untouched,
 * while mlx5_ib's page-fault handler may still read them
 * (mlx5_ib_read_user_wqe_srq); each fault moves the faulted WQE to the
 * wait queue's end and the wait queue's first WQE to the free list.
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

/* Link WQEs first -> first + 1 -> ... -> last. */
static void m5_srq_link(struct m5_srq *srq, uint32_t first, uint32_t last)
{
	uint32_t i;

	for (i = first; i < last; i++)
		m5_srq_wqe(srq, i)->next_wqe_index = htobe16(i + 1);
}

/*
 * The free list: max_wr + 1 WQEs rounded to a power of two, linked
 * 0 -> 1 -> ...; then, if the device takes twice as many, as many again
 * for the wait queue.
 */
static int m5_srq_alloc_ring(struct m5_context *ctx, struct m5_srq *srq,
			     const struct ibv_srq_attr *a, struct ibv_pd *pd)
{
	struct m5_wq *wq = &srq->wq;
	uint32_t size, nfree;

	size = sizeof(struct m5_srq_next_seg) +
	       a->max_sge * sizeof(struct m5_data_seg);
	if (size < M5_SRQ_MIN_WQE)
		size = M5_SRQ_MIN_WQE;
	size = db_roundup_pow2(size);
	wq->wqe_shift = 31 - __builtin_clz(size);
	nfree = db_roundup_pow2(a->max_wr + 1);
	/* max_wr 0: one WQE, which holds no WR, as libmlx5 sizes it. */
	srq->has_waitq = a->max_wr &&
			 2 * a->max_wr + 1 <= ctx->max_srq_recv_wr &&
			 2 * nfree <= UINT16_MAX + 1u;
	wq->wqe_cnt = srq->has_waitq ? 2 * nfree : nfree;
	wq->max_gs = (size - sizeof(struct m5_srq_next_seg)) /
		     sizeof(struct m5_data_seg);
	wq->max_post = nfree - 1;
	srq->buf_len = (size_t)wq->wqe_cnt << wq->wqe_shift;
	wq->buf = m5_qbuf_alloc(&srq->qbuf, pd, srq->buf_len, M5_RES_TYPE_SRQ);
	if (!wq->buf)
		return errno;
	wq->qend = (char *)wq->buf + srq->buf_len;
	wq->wrid = calloc(wq->wqe_cnt, sizeof(*wq->wrid));
	srq->busy = calloc(wq->wqe_cnt, 1);
	if (!wq->wrid || !srq->busy)
		return ENOMEM;
	m5_srq_link(srq, 0, nfree - 1);
	wq->head = 0;
	atomic_init(&wq->tail, nfree - 1);
	if (srq->has_waitq) {
		m5_srq_link(srq, nfree, wq->wqe_cnt - 1);
		srq->waitq_head = nfree;
		srq->waitq_tail = wq->wqe_cnt - 1;
	}
	srq->dbrec = m5_dbrec_alloc(ctx);
	return srq->dbrec ? 0 : ENOMEM;
}

static void m5_srq_free_ring(struct m5_context *ctx, struct m5_srq *srq)
{
	free(srq->wq.wrid);
	free(srq->busy);
	m5_qbuf_free(&srq->qbuf, srq->wq.buf, srq->buf_len);
	m5_dbrec_free(ctx, srq->dbrec);
	if (srq->rsc.uidx != M5_UIDX_NONE)
		m5_uidx_free(ctx, srq->rsc.uidx);
}

static int m5_srq_kernel_create(struct m5_context *ctx, struct m5_srq *srq,
				const struct ibv_srq_init_attr_ex *attr)
{
	/* Only what a basic or XRC SRQ needs goes to the kernel. */
	struct ibv_srq_init_attr_ex kattr = {
		.srq_context = attr->srq_context,
		.attr = {
			/* The wait queue included. */
			.max_wr = srq->wq.wqe_cnt - 1,
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

	/* An XRC SRQ: its domain, and the CQ its receives complete on. */
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type == IBV_SRQT_XRC) {
		kattr.comp_mask |=
			IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		kattr.srq_type = IBV_SRQT_XRC;
		kattr.xrcd = attr->xrcd;
		kattr.cq = attr->cq;
	}
	ret = m5k_create_srq(&ctx->core.vctx.context, &srq->vsrq, &kattr, &req,
			     &resp);
	if (!ret)
		srq->srqn = resp.srqn;
	return ret;
}

struct ibv_srq *m5_create_srq_ex(struct ibv_context *ibctx,
				 struct ibv_srq_init_attr_ex *attr)
{
	struct m5_context *ctx = to_m5_ctx(ibctx);
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

/* The SRQ number an XRC initiator's WQEs name (ibv_get_srq_num). */
int m5_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_m5_srq(ibsrq)->srqn;
	return 0;
}

int m5_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	return m5k_query_srq(ibsrq, attr);
}

int m5_destroy_srq(struct ibv_srq *ibsrq)
{
	struct m5_srq *srq = to_m5_srq(ibsrq);
	int ret;

	ret = m5k_destroy_srq(ibsrq);
	if (ret)
		return ret;
	/* An XRC SRQ's CQEs name it: none may outlive its user index. */
	if (srq->vsrq.srq_type == IBV_SRQT_XRC)
		m5_cq_clean(to_m5_cq(srq->vsrq.cq), srq->rsc.uidx, srq);
	m5_srq_free_ring(to_m5_ctx(ibsrq->context), srq);
	free(srq);
	return 0;
}

/* idx at the free list's tail, under the SRQ lock. */
static void m5_srq_to_tail(struct m5_srq *srq, uint16_t idx)
{
	struct m5_wq *wq = &srq->wq;

	/* The tail moves only under the SRQ lock: relaxed accesses suffice. */
	m5_srq_wqe(srq, atomic_load_explicit(&wq->tail, memory_order_relaxed))
		->next_wqe_index = htobe16(idx);
	atomic_store_explicit(&wq->tail, idx, memory_order_relaxed);
}

static void m5_srq_free_wqe(struct m5_srq *srq, uint16_t idx)
{
	db_lock(&srq->wq.lock);
	m5_srq_to_tail(srq, idx);
	db_unlock(&srq->wq.lock);
}

/*
 * Claim SRQ WQE ctr back from the device, if it is outstanding: busy[],
 * which the poster sets.  Under the SRQ lock, which the poster holds while
 * it sets it, so two CQs told of one WQE cannot both claim it.  The WQE
 * itself is not written: mlx5_ib may still read it (m5_srq_repost).
 */
static bool m5_srq_claim(struct m5_srq *srq, uint16_t ctr)
{
	bool posted;

	db_lock(&srq->wq.lock);
	posted = srq->busy[ctr];
	srq->busy[ctr] = 0;
	db_unlock(&srq->wq.lock);
	return posted;
}

bool m5_srq_take_back(struct m5_srq *srq, uint16_t ctr, uint64_t *wr_id)
{
	if (__builtin_expect(ctr >= srq->wq.wqe_cnt || !m5_srq_claim(srq, ctr),
			     0))
		return false;
	/* Read before the WQE is free to be posted again. */
	if (wr_id)
		*wr_id = srq->wq.wrid[ctr];
	m5_srq_free_wqe(srq, ctr);
	return true;
}

/*
 * A faulted WQE is parked, intact, at the wait queue's end and the wait
 * queue's first WQE goes to the free list instead; without a wait queue
 * the faulted WQE goes back to the free list itself (libmlx5 v44 srq.c,
 * srq_cooldown_wqe and mlx5_complete_odp_fault).
 */
static void m5_srq_cool_down(struct m5_srq *srq, uint16_t idx)
{
	uint16_t first;

	if (!srq->has_waitq) {
		m5_srq_to_tail(srq, idx);
		return;
	}
	m5_srq_wqe(srq, srq->waitq_tail)->next_wqe_index = htobe16(idx);
	srq->waitq_tail = idx;
	first = srq->waitq_head;
	srq->waitq_head = be16toh(m5_srq_wqe(srq, first)->next_wqe_index);
	m5_srq_to_tail(srq, first);
}

/*
 * An ODP page fault on SRQ WQE idx: the device took it and wrote nothing.
 * As libmlx5 v44 does (srq.c, mlx5_complete_odp_fault and srq_repost):
 * idx cools down (m5_srq_cool_down), its scatter list is copied to the
 * head WQE under the same wr_id, and that one is posted.  Nothing in idx
 * is written: mlx5_ib's page-fault handler may read it after this.  False
 * if idx is not outstanding (a device's lie): then nothing changes.
 */
bool m5_srq_repost(struct m5_srq *srq, uint16_t idx)
{
	struct m5_wq *wq = &srq->wq;
	struct m5_srq_next_seg *from, *to;
	bool posted;

	if (idx >= wq->wqe_cnt)
		return false;
	db_lock(&wq->lock);
	posted = srq->busy[idx];
	if (posted) {
		srq->busy[idx] = 0;
		m5_srq_cool_down(srq, idx);
		/* The free list has two WQEs at least now: head is not idx. */
		from = m5_srq_wqe(srq, idx);
		to = m5_srq_wqe(srq, wq->head);
		memcpy(to + 1, from + 1,
		       wq->max_gs * sizeof(struct m5_data_seg));
		wq->wrid[wq->head] = wq->wrid[idx];
		srq->busy[wq->head] = 1;
		wq->head = be16toh(to->next_wqe_index);
		srq->counter++;
		/* Orders: the WQE stores before the dbrec store. */
		udma_to_device_barrier();
		m5_dbrec_store(&srq->dbrec[0], htobe32(srq->counter));
	}
	db_unlock(&wq->lock);
	return posted;
}
