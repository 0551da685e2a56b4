// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_cq_ex polling API of the rxe backend.  start_poll takes the CQ
 * lock and shows the oldest CQE; next_poll consumes it and shows the next;
 * end_poll consumes the one shown, if any, and gives the slots back.  The
 * consumer index only moves over CQEs that were shown, so it can never pass
 * the producer.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/attr.h"
#include "rxe/rxe.h"

static inline struct rxe_cq *cqx_to_rcq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct rxe_cq, vcq.cq_ex);
}

static void rxe_cqx_show(struct rxe_cq *cq)
{
	const struct ib_uverbs_wc *cqe = rxe_ring_slot(&cq->ring, cq->ring.own);

	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = cqe->wr_id;
	cq->vcq.cq_ex.status = cqe->status;
}

static int rxe_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);

	if (attr->comp_mask)
		return EINVAL;
	db_lock(&cq->lock);
	if (__builtin_expect(
		    atomic_load_explicit(&cq->broken, memory_order_relaxed),
		    0) &&
	    rxe_cq_repair(cq)) {
		db_unlock(&cq->lock);
		return EIO;
	}
	cq->kprod = rxe_ring_kprod(&cq->ring);
	if (cq->ring.own == cq->kprod) {
		/* Nothing to show: the caller must not call end_poll. */
		db_unlock(&cq->lock);
		return ENOENT;
	}
	rxe_cqx_show(cq);
	return 0;
}

static int rxe_next_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);
	struct rxe_ring *r = &cq->ring;

	if (!cq->cur)
		return ENOENT;
	r->own = rxe_ring_next(r, r->own);
	if (r->own == cq->kprod)
		cq->kprod = rxe_ring_kprod(r);
	if (r->own == cq->kprod) {
		cq->cur = NULL;
		return ENOENT;
	}
	rxe_cqx_show(cq);
	return 0;
}

static void rxe_end_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);
	struct rxe_ring *r = &cq->ring;

	if (cq->cur)
		r->own = rxe_ring_next(r, r->own);
	cq->cur = NULL;
	rxe_ring_publish_consumer(r);
	db_unlock(&cq->lock);
}

static enum ibv_wc_opcode rxe_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->opcode;
}

static uint32_t rxe_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->vendor_err;
}

static uint32_t rxe_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->byte_len;
}

static __be32 rxe_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->ex.imm_data;
}

static uint32_t rxe_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->qp_num;
}

static uint32_t rxe_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->src_qp;
}

static unsigned int rxe_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return rxe_wc_flags(cqx_to_rcq(cqx)->cur->wc_flags);
}

static uint32_t rxe_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->slid;
}

static uint8_t rxe_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->sl;
}

static uint8_t rxe_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->dlid_path_bits;
}

void rxe_cq_set_ex_ops(struct rxe_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = rxe_start_poll;
	cqx->next_poll = rxe_next_poll;
	cqx->end_poll = rxe_end_poll;
	cqx->read_opcode = rxe_read_opcode;
	cqx->read_vendor_err = rxe_read_vendor_err;
	cqx->read_wc_flags = rxe_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = rxe_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = rxe_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = rxe_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = rxe_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = rxe_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = rxe_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = rxe_read_dlid_path_bits;
}

/*
 * The attributes are checked once for every backend (core/attr.c); single
 * threaded use and parent domains are userspace notions the kernel never
 * sees.
 */
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ibctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_init_attr_ex kattr = *attr;
	struct rxe_cq *cq;
	bool single;
	int ret;

	ret = db_cq_attr_check(ibctx, attr, &single);
	if (ret) {
		errno = ret;
		return NULL;
	}
	kattr.comp_mask = 0;
	kattr.flags = 0;
	kattr.parent_domain = NULL;
	cq = rxe_cq_new(ibctx, &kattr, single);
	if (!cq)
		return NULL;
	rxe_cq_set_ex_ops(cq, attr->wc_flags);
	return &cq->vcq.cq_ex;
}
