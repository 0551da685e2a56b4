// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_wr_* send API of the mlx5 backend, on post_send's WQE builder
 * (m5_sq_build and m5_sq_ring in mlx5_send.c).
 *
 * wr_start takes the SQ lock; wr_complete or wr_abort releases it.  A
 * builder (wr_send, wr_rdma_write, ...) starts describing a WR as a
 * struct ibv_send_wr; the setters that follow fill in its data (copied at
 * once: SGEs and inline bytes may be reused as soon as a setter returns)
 * and its UD address.  The WR is checked whole, by post_send's own checks
 * (m5_sq_check), and written into the SQ by the builder of the next WR or
 * by wr_complete; so both APIs answer a WR alike.  Only
 * wr_complete moves the SND dbrec and rings the doorbell, once for the
 * whole batch; after the first error, or on wr_abort, cur_post goes back
 * to where wr_start found it and nothing is rung: the WQEs written past
 * the producer index are never read by the device and will be written
 * over.  wr_complete returns that first error (ibv_post_send's errno for
 * the same WR) and the batch is discarded whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"

/* send_ops_flags: IBV_QP_EX_WITH_<op> is bit IBV_WR_<op> for ours. */
#define M5_WITH_IS_OP(op)                                                      \
	_Static_assert(IBV_QP_EX_WITH_##op == 1u << IBV_WR_##op,               \
		       "IBV_QP_EX_WITH_" #op)
M5_WITH_IS_OP(RDMA_WRITE);
M5_WITH_IS_OP(RDMA_WRITE_WITH_IMM);
M5_WITH_IS_OP(SEND);
M5_WITH_IS_OP(SEND_WITH_IMM);
M5_WITH_IS_OP(RDMA_READ);
M5_WITH_IS_OP(ATOMIC_CMP_AND_SWP);
M5_WITH_IS_OP(ATOMIC_FETCH_AND_ADD);
M5_WITH_IS_OP(SEND_WITH_INV);

/* The batch between wr_start and wr_complete/wr_abort (under sq.lock). */
struct m5_wr {
	struct ibv_send_wr wr;	  /* the WR being described */
	bool pending;		  /* wr describes a WR not yet built */
	int err;		  /* the batch's first error */
	uint32_t inl;		  /* wr's inline length, if inline */
	uint32_t ops;		  /* 1 << IBV_WR_* of send_ops_flags */
	uint32_t start;		  /* sq.cur_post at wr_start */
	uint32_t tail;		  /* sq.tail as last loaded */
	unsigned int nreq;	  /* WRs built since wr_start */
	unsigned int ds;	  /* the last WQE built: its ds ... */
	struct m5_ctrl_seg *ctrl; /* ... and where it is */
	struct ibv_sge inl_sge;	  /* the inline payload, as one SGE */
	uint8_t *inl_buf;	  /* max_inline_data bytes */
	struct ibv_sge sge[];	  /* max_send_sge entries, at least 1 */
};

static inline struct m5_qp *qpx_to_m5_qp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct m5_qp, vqp.qp_ex);
}

static void m5_wr_fail(struct m5_wr *w, int err)
{
	if (!w->err)
		w->err = err;
	w->pending = false;
}

/*
 * post_send's checks on the whole WR, then its WQE at cur_post.  A full SQ
 * is found here, as post_send finds it.
 */
static void m5_wr_build(struct m5_qp *qp, struct m5_wr *w)
{
	const struct ibv_send_wr *wr = &w->wr;
	struct m5_wq *sq = &qp->sq;
	int err;

	if (!w->pending)
		return;
	w->pending = false;
	err = m5_sq_check(qp, wr, &w->inl);
	if (err) {
		m5_wr_fail(w, err);
		return;
	}
	if (m5_sq_full(sq, &w->tail, w->nreq)) {
		m5_wr_fail(w, ENOMEM);
		return;
	}
	w->ds = m5_sq_build(qp, wr, w->inl, w->nreq, &w->ctrl);
	w->nreq++;
}

/* Build the WR described so far and start describing one of opcode op. */
static struct ibv_send_wr *m5_wr_new(struct ibv_qp_ex *qpx,
				     enum ibv_wr_opcode op)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);
	struct m5_wr *w = qp->wr;

	m5_wr_build(qp, w);
	if (w->err)
		return NULL;
	if (!(w->ops & (1u << op))) {
		m5_wr_fail(w, EINVAL);
		return NULL;
	}
	memset(&w->wr, 0, sizeof(w->wr));
	w->wr.wr_id = qpx->wr_id;
	w->wr.opcode = op;
	/*
	 * IBV_SEND_INLINE is ignored: the data setter called decides.  Other
	 * bits are kept for m5_sq_check to judge.
	 */
	w->wr.send_flags = qpx->wr_flags & ~IBV_SEND_INLINE;
	w->wr.sg_list = w->sge;
	w->pending = true;
	return &w->wr;
}

static void m5_wr_start(struct ibv_qp_ex *qpx)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);
	struct m5_wr *w = qp->wr;

	db_lock(&qp->sq.lock);
	w->start = qp->sq.cur_post;
	w->nreq = 0;
	w->pending = false;
	/*
	 * The same gate as m5_post_send (mlx5_send.c, m5_wq.open_gs): shut
	 * from RESET until the first RTS, then open through SQD, SQE and ERR,
	 * where the device flushes what is posted.  EINVAL as libmlx5 v44's
	 * wr_complete (qp.c, mlx5_send_wr_complete_error); its post_send
	 * says ENOMEM.
	 */
	w->err = qp->sq.open_gs ? 0 : EINVAL;
	/* Acquire: pairs with the poller's release of what it retired. */
	w->tail = atomic_load_explicit(&qp->sq.tail, memory_order_acquire);
}

static int m5_wr_complete(struct ibv_qp_ex *qpx)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);
	struct m5_wr *w = qp->wr;
	int err;

	m5_wr_build(qp, w);
	err = w->err;
	if (err)
		qp->sq.cur_post = w->start;
	else if (w->nreq)
		m5_sq_ring(qp, w->nreq, w->ctrl, w->ds);
	db_unlock(&qp->sq.lock);
	return err;
}

static void m5_wr_abort(struct ibv_qp_ex *qpx)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);

	qp->wr->pending = false;
	qp->sq.cur_post = qp->wr->start;
	db_unlock(&qp->sq.lock);
}

static void m5_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
		       uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct ibv_send_wr *wr = m5_wr_new(qpx, op);

	if (!wr)
		return;
	wr->wr.rdma.remote_addr = addr;
	wr->wr.rdma.rkey = rkey;
	wr->imm_data = imm;
}

static void m5_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t addr)
{
	m5_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void m5_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t addr, __be32 imm)
{
	m5_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void m5_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	m5_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void m5_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			 uint32_t rkey, uint64_t addr, uint64_t cmp_add,
			 uint64_t swap)
{
	struct ibv_send_wr *wr = m5_wr_new(qpx, op);

	if (!wr)
		return;
	wr->wr.atomic.remote_addr = addr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = cmp_add;
	wr->wr.atomic.swap = swap;
}

static void m5_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t addr, uint64_t compare, uint64_t swap)
{
	m5_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void m5_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t addr, uint64_t add)
{
	m5_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void m5_wr_send(struct ibv_qp_ex *qpx)
{
	m5_wr_new(qpx, IBV_WR_SEND);
}

static void m5_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct ibv_send_wr *wr = m5_wr_new(qpx, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm;
}

/* The rkey travels in the ctrl segment's imm (m5_ctrl_imm). */
static void m5_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = m5_wr_new(qpx, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

/*
 * ATOMIC WRITE and FLUSH (the ConnectX has neither), LOCAL_INV, BIND_MW
 * and TSO (this backend lacks them): create_qp_ex refuses
 * their send_ops_flags, so calling one fails the batch with EOPNOTSUPP,
 * as post_send answers their opcodes; the builders are there so that no
 * call through the table is a NULL one.
 */
static void m5_wr_lacked(struct ibv_qp_ex *qpx)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);

	m5_wr_build(qp, qp->wr);
	m5_wr_fail(qp->wr, EOPNOTSUPP);
}

static void m5_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t addr, const void *atomic_wr)
{
	m5_wr_lacked(qpx);
}

static void m5_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
			size_t len, uint8_t type, uint8_t level)
{
	m5_wr_lacked(qpx);
}

static void m5_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	m5_wr_lacked(qpx);
}

static void m5_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			  uint32_t rkey,
			  const struct ibv_mw_bind_info *bind_info)
{
	m5_wr_lacked(qpx);
}

static void m5_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz,
			   uint16_t mss)
{
	m5_wr_lacked(qpx);
}

/* The AH is checked with the WR (m5_sq_check). */
static void m5_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct m5_wr *w = qpx_to_m5_qp(qpx)->wr;

	if (!w->pending)
		return;
	w->wr.wr.ud.ah = ah;
	w->wr.wr.ud.remote_qpn = remote_qpn;
	w->wr.wr.ud.remote_qkey = remote_qkey;
}

/* The XRC SRQ the WR's message is for (an XRC initiator's). */
static void m5_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct m5_wr *w = qpx_to_m5_qp(qpx)->wr;

	if (w->pending)
		w->wr.qp_type.xrc.remote_srqn = remote_srqn;
}

/* The SGEs are checked with the WR (m5_sq_check); sge[] has room for 1. */
static void m5_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
			  uint32_t length)
{
	struct m5_wr *w = qpx_to_m5_qp(qpx)->wr;

	if (!w->pending)
		return;
	w->sge[0] = (struct ibv_sge){ .addr = addr,
				      .length = length,
				      .lkey = lkey };
	w->wr.sg_list = w->sge;
	w->wr.num_sge = 1;
	w->wr.send_flags &= ~IBV_SEND_INLINE;
}

static void m5_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			       const struct ibv_sge *sg_list)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);
	struct m5_wr *w = qp->wr;

	if (!w->pending)
		return;
	/*
	 * More than sge[] holds are not copied: max_gs + 1 stands for them,
	 * a count m5_sq_check refuses without reading the list.
	 */
	if (num_sge > qp->sq.max_gs)
		num_sge = qp->sq.max_gs + 1;
	else if (num_sge)
		memcpy(w->sge, sg_list, num_sge * sizeof(*sg_list));
	w->wr.sg_list = w->sge;
	w->wr.num_sge = (int)num_sge;
	w->wr.send_flags &= ~IBV_SEND_INLINE;
}

/*
 * The bytes are copied now, into the staging buffer the builder reads, and
 * checked with the WR as one SGE (m5_sq_check).
 */
static void m5_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				       const struct ibv_data_buf *buf_list)
{
	struct m5_qp *qp = qpx_to_m5_qp(qpx);
	struct m5_wr *w = qp->wr;
	size_t i, len = 0;

	if (!w->pending)
		return;
	/*
	 * Bytes past the staging buffer are not copied: max_inline_data + 1
	 * stands for them, a length m5_sq_check refuses.
	 */
	for (i = 0; i < num_buf; i++) {
		/* Compare before adding, so no sum can wrap past the limit. */
		if (buf_list[i].length > qp->max_inline_data - len) {
			len = (size_t)qp->max_inline_data + 1;
			break;
		}
		memcpy(w->inl_buf + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	w->inl_sge = (struct ibv_sge){ .addr = (uintptr_t)w->inl_buf,
				       .length = (uint32_t)len };
	w->wr.sg_list = &w->inl_sge;
	w->wr.num_sge = len ? 1 : 0;
	w->wr.send_flags |= IBV_SEND_INLINE;
}

static void m5_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				  size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	m5_wr_set_inline_data_list(qpx, 1, &buf);
}

int m5_qp_init_wr(struct m5_qp *qp, uint64_t send_ops_flags)
{
	size_t sges =
		(qp->sq.max_gs ? qp->sq.max_gs : 1) * sizeof(struct ibv_sge);
	struct m5_wr *w;

	w = calloc(1, sizeof(*w) + sges + qp->max_inline_data);
	if (!w)
		return ENOMEM;
	w->inl_buf = (uint8_t *)w->sge + sges;
	w->ops = (uint32_t)send_ops_flags;
	qp->wr = w;
	return 0;
}

void m5_qp_fini_wr(struct m5_qp *qp)
{
	free(qp->wr);
	qp->wr = NULL;
}

/*
 * Every builder we have, whatever send_ops_flags named (the others are
 * refused at wr_complete), and the six it lacks, so that no call
 * through the table is a NULL one; wr_set_ud_addr on UD QPs only and
 * wr_set_xrc_srqn on XRC initiators only, as
 * libmlx5 does.
 */
void m5_qp_set_wr_ops(struct m5_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	db_qpx_set_ext_ops(qpx, m5_wr_atomic_write, m5_wr_flush);
	qpx->wr_start = m5_wr_start;
	qpx->wr_complete = m5_wr_complete;
	qpx->wr_abort = m5_wr_abort;
	qpx->wr_send = m5_wr_send;
	qpx->wr_send_imm = m5_wr_send_imm;
	qpx->wr_rdma_write = m5_wr_rdma_write;
	qpx->wr_rdma_write_imm = m5_wr_rdma_write_imm;
	qpx->wr_rdma_read = m5_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = m5_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = m5_wr_atomic_fetch_add;
	qpx->wr_local_inv = m5_wr_local_inv;
	qpx->wr_send_inv = m5_wr_send_inv;
	qpx->wr_bind_mw = m5_wr_bind_mw;
	qpx->wr_send_tso = m5_wr_send_tso;
	qpx->wr_set_sge = m5_wr_set_sge;
	qpx->wr_set_sge_list = m5_wr_set_sge_list;
	qpx->wr_set_inline_data = m5_wr_set_inline_data;
	qpx->wr_set_inline_data_list = m5_wr_set_inline_data_list;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		qpx->wr_set_ud_addr = m5_wr_set_ud_addr;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		qpx->wr_set_xrc_srqn = m5_wr_set_xrc_srqn;
}
