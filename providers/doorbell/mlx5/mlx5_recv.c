// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Posting receives on an RQ or an SRQ: scatter lists in the ring, then one
 * doorbell-record store.  Receives have no MMIO doorbell.
 */
#include <errno.h>

#include "mlx5/mlx5.h"

/*
 * The scatter list of a receive WQE: a data segment per non-empty SGE, then
 * a terminator when the list is shorter than the WQE has room for.  A data
 * segment of byte_count 0 is not "empty" to the device, hence the skipping.
 */
static inline void m5_set_scatter(struct m5_data_seg *d,
				  const struct ibv_recv_wr *wr, uint32_t max_gs)
{
	const struct ibv_sge *sg = wr->sg_list;
	uint32_t j = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (__builtin_expect(!sg[i].length, 0))
			continue;
		d[j].byte_count = htobe32(sg[i].length);
		d[j].lkey = htobe32(sg[i].lkey);
		d[j].addr = htobe64(sg[i].addr);
		j++;
	}
	if (j < max_gs) {
		d[j].byte_count = 0;
		d[j].lkey = htobe32(M5_INVALID_LKEY);
		d[j].addr = 0;
	}
}

/* byte_count has 31 bits: an SGE of 2 GiB or more cannot be described. */
static inline bool m5_recv_sge_ok(const struct ibv_recv_wr *wr, uint32_t max_gs)
{
	uint32_t all = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_gs)
		return false;
	for (i = 0; i < wr->num_sge; i++)
		all |= wr->sg_list[i].length;
	return !(all & M5_INLINE_SEG);
}

int m5_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr)
{
	struct m5_qp *qp = to_m5_qp(ibqp);
	struct m5_wq *rq = &qp->rq;
	uint32_t tail, nreq = 0;
	int err = 0;

	/* A QP with an SRQ has no RQ; a QP in RESET takes no receives. */
	if (__builtin_expect(qp->has_srq || ibqp->state == IBV_QPS_RESET ||
				     !rq->wqe_cnt,
			     0)) {
		*bad_wr = wr;
		return EINVAL;
	}
	db_lock(&rq->lock);
	/* Acquire: pairs with the poller's release of the WQEs it retired. */
	tail = atomic_load_explicit(&rq->tail, memory_order_acquire);
	for (; wr; wr = wr->next, nreq++) {
		uint32_t ind = (rq->head + nreq) & (rq->wqe_cnt - 1);

		if (__builtin_expect(!m5_recv_sge_ok(wr, rq->max_gs), 0)) {
			err = EINVAL;
			break;
		}
		if (__builtin_expect(rq->head - tail + nreq >= rq->max_post,
				     0)) {
			tail = atomic_load_explicit(&rq->tail,
						    memory_order_acquire);
			if (rq->head - tail + nreq >= rq->max_post) {
				err = ENOMEM;
				break;
			}
		}
		m5_set_scatter(
			(struct m5_data_seg *)((char *)rq->buf +
					       ((size_t)ind << rq->wqe_shift)),
			wr, rq->max_gs);
		rq->wrid[ind] = wr->wr_id;
	}
	if (__builtin_expect(nreq != 0, 1)) {
		rq->head += nreq;
		/* Orders: the WQE stores before the dbrec store. */
		udma_to_device_barrier();
		m5_dbrec_store(&qp->dbrec[M5_RCV_DBR],
			       htobe32(rq->head & 0xffff));
	}
	db_unlock(&rq->lock);
	if (__builtin_expect(err, 0))
		*bad_wr = wr;
	return err;
}

/*
 * The SRQ is a linked list of free WQEs from head to tail, threaded through
 * next_wqe_index; completions give WQEs back at the tail
 * (m5_srq_free_wqe).  The list is full when only the tail is left.
 */
int m5_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct m5_srq *srq = to_m5_srq(ibsrq);
	struct m5_wq *wq = &srq->wq;
	struct m5_srq_next_seg *next;
	uint32_t nreq = 0;
	int err = 0;

	db_lock(&wq->lock);
	for (; wr; wr = wr->next, nreq++) {
		if (__builtin_expect(!m5_recv_sge_ok(wr, wq->max_gs), 0)) {
			err = EINVAL;
			break;
		}
		/* The tail only moves under this lock: relaxed is enough. */
		if (__builtin_expect(wq->head == atomic_load_explicit(
							 &wq->tail,
							 memory_order_relaxed),
				     0)) {
			err = ENOMEM;
			break;
		}
		next = (struct m5_srq_next_seg *)((char *)wq->buf +
						  ((size_t)wq->head
						   << wq->wqe_shift));
		wq->wrid[wq->head] = wr->wr_id;
		srq->busy[wq->head] = 1;
		wq->head = be16toh(next->next_wqe_index);
		m5_set_scatter((struct m5_data_seg *)(next + 1), wr,
			       wq->max_gs);
	}
	if (__builtin_expect(nreq != 0, 1)) {
		srq->counter += nreq;
		/* Orders: the WQE stores before the dbrec store. */
		udma_to_device_barrier();
		m5_dbrec_store(&srq->dbrec[0], htobe32(srq->counter));
	}
	db_unlock(&wq->lock);
	if (__builtin_expect(err, 0))
		*bad_wr = wr;
	return err;
}
