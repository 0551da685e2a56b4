// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Posting receives: ring writes only, the kernel has no receive doorbell. */
#include <errno.h>
#include <string.h>

#include "rxe/rxe.h"

static int rxe_check_recv_wr(const struct rxe_wq *wq,
			     const struct ibv_recv_wr *wr, uint32_t *length)
{
	uint64_t len = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > UINT32_MAX)
		return EINVAL;
	*length = len;
	return 0;
}

static void rxe_build_recv_wqe(const struct ibv_recv_wr *wr, uint32_t length,
			       struct rxe_recv_wqe *wqe)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
	if (wr->num_sge)
		memcpy(wqe->dma.sge, wr->sg_list,
		       wr->num_sge * sizeof(struct rxe_sge));
}

int rxe_post_recv_ring(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct rxe_ring *r = &wq->ring;
	uint32_t first, len;
	int err = 0;

	db_lock(&wq->lock);
	first = r->own;
	for (; wr; wr = wr->next) {
		err = rxe_check_recv_wr(wq, wr, &len);
		if (__builtin_expect(err, 0))
			break;
		if (__builtin_expect(!rxe_wq_claim(wq), 0)) {
			err = ENOMEM;
			break;
		}
		rxe_build_recv_wqe(wr, len, rxe_ring_slot(r, r->own));
		r->own = rxe_ring_next(r, r->own);
	}
	if (r->own != first)
		rxe_ring_publish_producer(r);
	db_unlock(&wq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

int rxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);

	/* A QP with an SRQ has no RQ; a QP in RESET takes no receives. */
	if (ibqp->srq || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	return rxe_post_recv_ring(&qp->rq, wr, bad_wr);
}

int rxe_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	return rxe_post_recv_ring(&to_rxe_srq(ibsrq)->rq, wr, bad_wr);
}
