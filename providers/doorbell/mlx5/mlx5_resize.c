// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Resizing a CQ of the mlx5 backend (ibv_resize_cq), the protocol of
 * mlx5_ib and the ConnectX: userspace gives the kernel a new ring; the
 * kernel's MODIFY_CQ moves the CQ there, and the device ends the old ring
 * with a RESIZE CQE at its producer counter p, then writes CQE p + 1 on
 * into the new ring.  Under the CQ lock, the CQEs not polled yet (counters
 * ci to p - 1) move to the new ring one slot further on, each with the
 * owner bit of its new slot, and the RESIZE CQE's counter is consumed: the
 * poller goes on at ci + 1 and meets them all in order, then the device's.
 *
 * The poll path is untouched: it runs under the same lock (or, for a
 * single-threaded CQ, never beside a resize), so it never sees a RESIZE
 * CQE or a half-moved ring.
 */
#include <errno.h>
#include <string.h>

#include "core/attr.h"
#include "mlx5/mlx5.h"

/*
 * Move the unpolled CQEs of @cq's old ring into @ring (@ncqe slots), up to
 * the RESIZE CQE, and consume it.  Nothing the device wrote is trusted to
 * bound the walk: at most one old ring's worth of CQEs is read, and at
 * most ncqe - 1 are written (what the new ring holds beside the device's
 * next CQE).  EIO, with the CQEs found so far moved, if the RESIZE CQE is
 * not within those bounds: the device broke the protocol.
 */
static int m5_cq_move_cqes(struct m5_cq *cq, struct m5_cqe64 *ring,
			   uint32_t ncqe)
{
	const uint32_t ci = cq->cons_index;
	const struct m5_cqe64 *src;
	struct m5_cqe64 *dst;
	uint32_t k, n;
	uint8_t own;
	int ret = EIO;

	for (k = 0; k < cq->ncqe; k++) {
		n = ci + k;
		src = (const struct m5_cqe64 *)cq->buf + (n & (cq->ncqe - 1));
		if (!m5_cqe_sw_owned(src, cq->ncqe, n, &own))
			break;
		/* Orders: the owner byte read before the CQE body. */
		udma_from_device_barrier();
		if (own >> M5_CQE_OPCODE_SHIFT == M5_CQE_RESIZE_CQ) {
			ret = 0;
			break;
		}
		if (k + 1 >= ncqe)
			break;
		dst = ring + ((n + 1) & (ncqe - 1));
		memcpy(dst, src, sizeof(*dst));
		dst->op_own = (own & ~M5_CQE_OWNER_MASK) | !!((n + 1) & ncqe);
	}
	/* Relaxed: m5_req_notify_cq reads it without the lock. */
	__atomic_store_n(&cq->cons_index, ci + 1, __ATOMIC_RELAXED);
	/* Orders: the moved CQEs before the consumer index the device reads. */
	udma_to_device_barrier();
	m5_dbrec_store(&cq->dbrec[M5_CQ_SET_CI],
		       htobe32(cq->cons_index & M5_CQ_CI_MASK));
	return ret;
}

/*
 * ibv_resize_cq: at least cqe entries (a power of two minus one, as at
 * create).  EINVAL for cqe below 1 or above the device's max_cqe, the
 * kernel's answer (EINVAL) to a ring too small for the unpolled CQEs, and
 * ENOMEM: the CQ is then unchanged.  The same size is no resize (0, no
 * command), as in libmlx5.  EIO if the device moved the CQ without a
 * RESIZE CQE where it belongs: the CQ is then on its new ring, the CQEs
 * found before the gap are kept, later completions may be lost, and the
 * CQ should be destroyed.
 */
int m5_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct m5_cq *cq = to_m5_cq(ibcq);
	struct mlx5_ib_resize_cq req = { .cqe_size = M5_CQE_SIZE };
	struct m5_qbuf qb;
	uint32_t ncqe;
	void *ring;
	int ret;

	if (cqe < 1 || (uint32_t)cqe > m5_max_cqe(ibcq->context))
		return EINVAL;
	ncqe = db_roundup_pow2((uint32_t)cqe + 1);
	if (ncqe == cq->ncqe)
		return 0;
	/* From the parent domain's allocator that gave the old ring, if any. */
	ring = m5_cq_ring_alloc(&qb, cq->qbuf.pd, ncqe);
	if (!ring)
		return ENOMEM;
	req.buf_addr = (uintptr_t)ring;
	db_lock(&cq->lock);
	ret = m5k_resize_cq(ibcq, ncqe - 1, &req);
	if (ret) {
		db_unlock(&cq->lock);
		m5_qbuf_free(&qb, ring, (size_t)ncqe * M5_CQE_SIZE);
		return ret;
	}
	/* The device writes to the new ring now, whatever the copy finds. */
	ret = m5_cq_move_cqes(cq, ring, ncqe);
	m5_qbuf_free(&cq->qbuf, cq->buf, cq->buf_len);
	cq->buf = ring;
	cq->ncqe = ncqe;
	cq->buf_len = (size_t)ncqe * M5_CQE_SIZE;
	cq->qbuf = qb;
	ibcq->cqe = (int)ncqe - 1;
	db_unlock(&cq->lock);
	return ret;
}
