// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_wr_* send API of the rxe backend.  Between wr_start and
 * wr_complete the SQ lock is held; each builder claims the next slot and
 * fills its header, the setters fill in its data.  Nothing is published to
 * the kernel until wr_complete, and the first error makes wr_complete post
 * nothing at all: a list with a bad WR is refused whole.  Each part of a
 * WR is checked by post_send's rules (the rxe_*_refused functions of
 * rxe_send_wqe.h) as it is set, and what needs the whole WR (an atomic's
 * result buffer) when the WR is ended by the next builder or wr_complete.
 */
#include <errno.h>
#include <string.h>

#include "core/attr.h"
#include "rxe/rxe.h"
#include "rxe/rxe_send_wqe.h"

static inline struct rxe_qp *qpx_to_rxe_qp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct rxe_qp, vqp.qp_ex);
}

static void rxe_wr_fail(struct rxe_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_cur = NULL;
}

static void rxe_wr_set_length(struct rxe_send_wqe *wqe, uint32_t len,
			      uint32_t num_sge)
{
	wqe->dma.length = len;
	wqe->dma.resid = len;
	wqe->dma.num_sge = num_sge;
}

/*
 * The rules that need the whole WR, once its setters are done: an atomic's
 * (its SGE is set after the builder).
 */
static void rxe_wr_end(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe = qp->wr_cur;

	if (wqe && (RXE_OPS_ATOMIC & (1u << wqe->wr.opcode)) &&
	    rxe_atomic_refused(wqe->dma.length, wqe->iova))
		rxe_wr_fail(qp, EINVAL);
	qp->wr_cur = NULL;
}

/*
 * End the WR described so far and claim the next SQ slot for one of
 * opcode op: one of the QP's opcodes, or FLUSH and ATOMIC WRITE on a QP
 * created with their send_ops_flags (which rxe_check_qp_attr accepts only
 * where the kernel has them).  NULL once in error.
 */
static struct rxe_send_wqe *rxe_wr_new(struct ibv_qp_ex *qpx, uint32_t op)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_ring *r = &qp->sq.ring;
	uint32_t bit = 1u << op;
	struct rxe_send_wqe *wqe;

	rxe_wr_end(qp);
	if (qp->wr_err)
		return NULL;
	if (!((qp->opcode_mask | qp->wr_ext_ops) & bit)) {
		rxe_wr_fail(qp, rxe_op_refused(bit));
		return NULL;
	}
	if (rxe_flags_refused(qpx->wr_flags)) {
		rxe_wr_fail(qp, EINVAL);
		return NULL;
	}
	if (!rxe_wq_claim(&qp->sq)) {
		rxe_wr_fail(qp, ENOMEM);
		return NULL;
	}
	wqe = rxe_ring_slot(r, r->own);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = qpx->wr_id;
	wqe->wr.opcode = op;
	/* Inline or not is decided by the data setter that follows. */
	wqe->wr.send_flags = qpx->wr_flags & ~IBV_SEND_INLINE;
	r->own = rxe_ring_next(r, r->own);
	qp->wr_cur = wqe;
	return wqe;
}

static void rxe_wr_start(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);

	db_lock(&qp->sq.lock);
	qp->wr_first = qp->sq.ring.own;
	qp->wr_room = qp->sq.room;
	qp->wr_cur = NULL;
	qp->wr_err = qpx->qp_base.state < IBV_QPS_RTS ? EINVAL : 0;
}

static int rxe_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_ring *r = &qp->sq.ring;
	bool posted;
	int err;

	rxe_wr_end(qp);
	err = qp->wr_err;
	if (err) {
		r->own = qp->wr_first;
		qp->sq.room = qp->wr_room;
	}
	posted = r->own != qp->wr_first;
	if (posted)
		rxe_ring_publish_producer(r);
	qp->wr_cur = NULL;
	db_unlock(&qp->sq.lock);
	if (posted)
		rxe_ring_doorbell(qp);
	return err;
}

static void rxe_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);

	qp->sq.ring.own = qp->wr_first;
	qp->sq.room = qp->wr_room;
	qp->wr_cur = NULL;
	db_unlock(&qp->sq.lock);
}

static void rxe_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, op);

	if (!wqe)
		return;
	wqe->wr.wr.rdma.remote_addr = addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->wr.ex.imm_data = imm;
	/* The kernel takes the remote address from iova. */
	wqe->iova = addr;
}

static void rxe_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t addr)
{
	rxe_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void rxe_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t addr, __be32 imm)
{
	rxe_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void rxe_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t addr)
{
	rxe_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void rxe_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			  uint32_t rkey, uint64_t addr, uint64_t cmp_add,
			  uint64_t swap)
{
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, op);

	/* Its target and result buffer are checked at rxe_wr_end. */
	if (!wqe)
		return;
	wqe->wr.wr.atomic.remote_addr = addr;
	wqe->wr.wr.atomic.compare_add = cmp_add;
	wqe->wr.wr.atomic.swap = swap;
	wqe->wr.wr.atomic.rkey = rkey;
	wqe->iova = addr;
}

static void rxe_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t addr, uint64_t compare,
				  uint64_t swap)
{
	rxe_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare,
		      swap);
}

static void rxe_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t addr, uint64_t add)
{
	rxe_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

/*
 * The 8 bytes go in the WQE, where the kernel sends them from; the target
 * must be 8-byte aligned, which the responder checks (a misaligned one
 * completes in error, as with the stock provider).
 */
static void rxe_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t addr, const void *atomic_wr)
{
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, RXE_WR_ATOMIC_WRITE);

	if (!wqe)
		return;
	if (!atomic_wr) {
		rxe_wr_fail(qpx_to_rxe_qp(qpx), EINVAL);
		return;
	}
	wqe->wr.wr.rdma.remote_addr = addr;
	wqe->wr.wr.rdma.rkey = rkey;
	memcpy(wqe->dma.atomic_wr, atomic_wr, RXE_ATOMIC_WRITE_LEN);
	rxe_wr_set_length(wqe, RXE_ATOMIC_WRITE_LEN, 0);
	wqe->iova = addr;
}

/*
 * type: RXE_FLUSH_GLOBAL and/or _PERSISTENT; level: RXE_FLUSH_RANGE (len
 * bytes at addr) or _MR (the whole MR).  Whether the target may be flushed
 * so is the responder's to say, from its MR's RXE_ACCESS_FLUSH_* flags: a
 * refusal completes with IBV_WC_REM_ACCESS_ERR.
 */
static void rxe_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
			 size_t len, uint8_t type, uint8_t level)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, RXE_WR_FLUSH);

	if (!wqe)
		return;
	if (!type || (type & ~(RXE_FLUSH_GLOBAL | RXE_FLUSH_PERSISTENT)) ||
	    level > RXE_FLUSH_MR || len > RXE_MAX_MSG) {
		rxe_wr_fail(qp, EINVAL);
		return;
	}
	wqe->wr.wr.flush.remote_addr = addr;
	wqe->wr.wr.flush.length = len;
	wqe->wr.wr.flush.rkey = rkey;
	wqe->wr.wr.flush.type = type;
	wqe->wr.wr.flush.level = level;
	/* The kernel takes the FLUSH length from the DMA state. */
	rxe_wr_set_length(wqe, len, 0);
	wqe->iova = addr;
}

static void rxe_wr_send(struct ibv_qp_ex *qpx)
{
	rxe_wr_new(qpx, IBV_WR_SEND);
}

static void rxe_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->wr.ex.imm_data = imm;
}

static void rxe_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = rkey;
}

static void rxe_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct rxe_send_wqe *wqe = rxe_wr_new(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = rkey;
}

static void rxe_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	struct rxe_send_wqe *wqe;

	/* An unbind has no MR; a bind without one is refused, not followed. */
	if (rxe_bind_refused(qpx_to_rxe_qp(qpx), mw, bi)) {
		rxe_wr_fail(qpx_to_rxe_qp(qpx), EINVAL);
		return;
	}
	wqe = rxe_wr_new(qpx, IBV_WR_BIND_MW);
	if (!wqe)
		return;
	wqe->wr.wr.mw.addr = bi->addr;
	wqe->wr.wr.mw.length = bi->length;
	wqe->wr.wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw->rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = bi->mw_access_flags;
}

static void rxe_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_send_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (!db_ud_ah_ok(&qpx->qp_base, ah)) {
		rxe_wr_fail(qp, EINVAL);
		return;
	}
	wqe->wr.wr.ud.remote_qpn = remote_qpn;
	wqe->wr.wr.ud.remote_qkey = remote_qkey;
	wqe->wr.wr.ud.ah_num = to_rxe_ah(ah)->ah_num;
}

static void rxe_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
			   uint32_t length)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_send_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (rxe_sges_refused(qp, 1) || rxe_len_refused(length)) {
		rxe_wr_fail(qp, EINVAL);
		return;
	}
	wqe->dma.sge[0].addr = addr;
	wqe->dma.sge[0].length = length;
	wqe->dma.sge[0].lkey = lkey;
	wqe->wr.send_flags &= ~IBV_SEND_INLINE;
	rxe_wr_set_length(wqe, length, 1);
}

/* Every element counts, and the sum is taken in 64 bits. */
static void rxe_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_send_wqe *wqe = qp->wr_cur;
	uint64_t len = 0;
	size_t i;

	if (!wqe)
		return;
	if (rxe_sges_refused(qp, num_sge)) {
		rxe_wr_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num_sge; i++)
		len += sg_list[i].length;
	if (rxe_len_refused(len)) {
		rxe_wr_fail(qp, EINVAL);
		return;
	}
	if (num_sge)
		memcpy(wqe->dma.sge, sg_list, num_sge * sizeof(*sg_list));
	wqe->wr.send_flags &= ~IBV_SEND_INLINE;
	rxe_wr_set_length(wqe, len, num_sge);
}

static void rxe_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct rxe_qp *qp = qpx_to_rxe_qp(qpx);
	struct rxe_send_wqe *wqe = qp->wr_cur;
	uint8_t *p;
	size_t i, len = 0;

	if (!wqe)
		return;
	/* Summed with a cap, so that no sum can wrap below the limit. */
	for (i = 0; i < num_buf && len <= qp->sq.max_inline; i++)
		len += buf_list[i].length > qp->sq.max_inline
			       ? (size_t)qp->sq.max_inline + 1
			       : buf_list[i].length;
	if (rxe_inline_refused(qp, wqe->wr.opcode, len)) {
		rxe_wr_fail(qp, EINVAL);
		return;
	}
	p = wqe->dma.inline_data;
	for (i = 0; i < num_buf; i++) {
		memcpy(p, buf_list[i].addr, buf_list[i].length);
		p += buf_list[i].length;
	}
	wqe->wr.send_flags |= IBV_SEND_INLINE;
	rxe_wr_set_length(wqe, len, 0);
}

static void rxe_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	rxe_wr_set_inline_data_list(qpx, 1, &buf);
}

uint64_t rxe_send_ops_flags_ok(enum ibv_qp_type type, uint64_t dev_caps)
{
	/* IBV_QP_EX_WITH_<op> is bit IBV_WR_<op> up to SEND_WITH_INV. */
	uint64_t ok = rxe_opcode_mask(type) & ((1u << IBV_WR_TSO) - 1);

	if (type != IBV_QPT_RC)
		return ok;
	if (dev_caps & RXE_DEV_ATOMIC_WRITE)
		ok |= RXE_QP_EX_WITH_ATOMIC_WRITE;
	if (dev_caps & (RXE_DEV_FLUSH_GLOBAL | RXE_DEV_FLUSH_PERSISTENT))
		ok |= RXE_QP_EX_WITH_FLUSH;
	return ok;
}

uint32_t rxe_wr_ext_ops(enum ibv_qp_type type, uint64_t dev_caps,
			uint64_t send_ops_flags)
{
	uint64_t ok = rxe_send_ops_flags_ok(type, dev_caps) & send_ops_flags;
	uint32_t ops = 0;

	if (ok & RXE_QP_EX_WITH_ATOMIC_WRITE)
		ops |= 1u << RXE_WR_ATOMIC_WRITE;
	if (ok & RXE_QP_EX_WITH_FLUSH)
		ops |= 1u << RXE_WR_FLUSH;
	return ops;
}

#if defined(__LP64__)
_Static_assert(offsetof(struct ibv_qp_ex, wr_atomic_write) ==
		       DB_QPX_WR_ATOMIC_WRITE_OFF,
	       "ibv_qp_ex.wr_atomic_write");
#endif

void rxe_qp_set_wr_ops(struct rxe_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	/*
	 * Set on every QP; they refuse (EOPNOTSUPP) on a QP created without
	 * their send_ops_flags.
	 */
	db_qpx_set_ext_ops(qpx, rxe_wr_atomic_write, rxe_wr_flush);
	qpx->wr_start = rxe_wr_start;
	qpx->wr_complete = rxe_wr_complete;
	qpx->wr_abort = rxe_wr_abort;
	qpx->wr_atomic_cmp_swp = rxe_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = rxe_wr_atomic_fetch_add;
	qpx->wr_bind_mw = rxe_wr_bind_mw;
	qpx->wr_local_inv = rxe_wr_local_inv;
	qpx->wr_rdma_read = rxe_wr_rdma_read;
	qpx->wr_rdma_write = rxe_wr_rdma_write;
	qpx->wr_rdma_write_imm = rxe_wr_rdma_write_imm;
	qpx->wr_send = rxe_wr_send;
	qpx->wr_send_imm = rxe_wr_send_imm;
	qpx->wr_send_inv = rxe_wr_send_inv;
	qpx->wr_set_ud_addr = rxe_wr_set_ud_addr;
	qpx->wr_set_inline_data = rxe_wr_set_inline_data;
	qpx->wr_set_inline_data_list = rxe_wr_set_inline_data_list;
	qpx->wr_set_sge = rxe_wr_set_sge;
	qpx->wr_set_sge_list = rxe_wr_set_sge_list;
}
