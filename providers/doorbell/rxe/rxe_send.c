// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The send fast path of the rxe backend: each WR is checked completely, then
 * built in place in its SQ slot; the producer index is published once for
 * the whole list and the doorbell is rung once.
 */
#include <errno.h>
#include <string.h>

#include "core/attr.h"
#include "core/kdoorbell.h"
#include "rxe/rxe.h"
#include "rxe/rxe_send_wqe.h"

/*
 * What Linux 6.1 rxe executes for each QP type.  Anything else, including
 * the kernel-only opcodes it would honour from the ring, never gets in.
 */
uint32_t rxe_opcode_mask(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return RXE_OPS_PAYLOAD | RXE_OPS_ATOMIC | RXE_OP(RDMA_READ) |
		       RXE_OP(LOCAL_INV) | RXE_OP(BIND_MW);
	case IBV_QPT_UC:
		return RXE_OPS_PAYLOAD | RXE_OP(BIND_MW);
	case IBV_QPT_UD:
		return RXE_OP(SEND) | RXE_OP(SEND_WITH_IMM);
	default:
		return 0;
	}
}

/* Opcodes that need more than the common checks on this QP type. */
uint32_t rxe_slow_ops(enum ibv_qp_type type)
{
	if (type == IBV_QPT_UD)
		return rxe_opcode_mask(type); /* every UD WR names an AH */
	return RXE_OPS_ATOMIC | RXE_OP(BIND_MW);
}

int rxe_check_send_wr_slow(const struct rxe_qp *qp,
			   const struct ibv_send_wr *wr, uint64_t len)
{
	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    rxe_inline_refused(qp, wr->opcode, len))
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (rxe_atomic_refused(len, wr->wr.atomic.remote_addr))
			return EINVAL;
		return 0;
	case IBV_WR_BIND_MW:
		if (rxe_bind_refused(qp, wr->bind_mw.mw,
				     &wr->bind_mw.bind_info))
			return EINVAL;
		return 0;
	default:
		break;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD &&
	    !db_ud_ah_ok(&qp->vqp.qp, wr->wr.ud.ah))
		return EINVAL;
	return 0;
}

/* The parts of a WQE that only UD, MW binds and inline sends have. */
void rxe_build_send_wqe_slow(const struct rxe_qp *qp,
			     const struct ibv_send_wr *wr,
			     struct rxe_send_wqe *wqe)
{
	struct rxe_send_wr *k = &wqe->wr;
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;
	uint8_t *p = wqe->dma.inline_data;
	int i;

	if (wr->opcode == IBV_WR_BIND_MW) {
		k->wr.mw.addr = bi->addr;
		k->wr.mw.length = bi->length;
		k->wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
		k->wr.mw.mw_rkey = wr->bind_mw.mw->rkey;
		k->wr.mw.rkey = wr->bind_mw.rkey;
		k->wr.mw.access = bi->mw_access_flags;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		k->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		k->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		k->wr.ud.pkey_index = 0;
		k->wr.ud.reserved = 0;
		k->wr.ud.ah_num = to_rxe_ah(wr->wr.ud.ah)->ah_num;
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	}
}

/*
 * Ring the SQ doorbell: POST_SEND with no WRs makes the kernel run the
 * requester in this call.  A failure leaves the WQEs in the ring, where the
 * next doorbell picks them up.
 */
static inline void rxe_ring_doorbell_inline(struct rxe_qp *qp)
{
	db_kernel_doorbell(qp->doorbell_fd, &qp->doorbell_cmd,
			   sizeof(qp->doorbell_cmd));
}

void rxe_ring_doorbell(struct rxe_qp *qp)
{
	rxe_ring_doorbell_inline(qp);
}

/* Any list of WRs, any opcode: the general loop. */
static __attribute__((noinline)) int
rxe_post_send_list(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	struct rxe_ring *r = &qp->sq.ring;
	uint32_t first, len;
	bool posted;
	int err = 0;

	/* RESET, INIT and RTR take no sends: the kernel would not run them. */
	if (__builtin_expect(ibqp->state < IBV_QPS_RTS, 0)) {
		*bad_wr = wr;
		return EINVAL;
	}
	db_lock(&qp->sq.lock);
	first = r->own;
	for (; wr; wr = wr->next) {
		err = rxe_check_send_wr(qp, wr, &len);
		if (__builtin_expect(err, 0))
			break;
		if (__builtin_expect(!rxe_wq_claim(&qp->sq), 0)) {
			err = ENOMEM;
			break;
		}
		rxe_build_send_wqe(qp, wr, len, rxe_ring_slot(r, r->own));
		r->own = rxe_ring_next(r, r->own);
	}
	posted = r->own != first;
	if (posted)
		rxe_ring_publish_producer(r);
	db_unlock(&qp->sq.lock);
	if (posted)
		rxe_ring_doorbell_inline(qp);
	if (__builtin_expect(err, 0))
		*bad_wr = wr;
	return err;
}

/*
 * The common case, one WR with a plain opcode and no inline data, without a
 * single call before the doorbell: with no call in it the compiler needs no
 * callee-saved registers, which callgrind showed was a fifth of a post
 * (docs/performance.md).  Anything else goes to the general loop, which
 * checks the WR again from the start.
 */
int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	struct rxe_ring *r = &qp->sq.ring;
	uint32_t op = wr->opcode, len, own;
	struct rxe_send_wqe *wqe;

	if (__builtin_expect(wr->next || ibqp->state < IBV_QPS_RTS ||
				     op >= 32 || wr->num_sge != 1 ||
				     !(qp->fast_ops & (1u << op)) ||
				     (wr->send_flags & ~RXE_FAST_SEND_FLAGS) ||
				     wr->sg_list[0].length > RXE_MAX_MSG,
			     0))
		return rxe_post_send_list(ibqp, wr, bad_wr);
	len = wr->sg_list[0].length;
	db_lock(&qp->sq.lock);
	if (__builtin_expect(!rxe_wq_claim(&qp->sq), 0)) {
		db_unlock(&qp->sq.lock);
		*bad_wr = wr;
		return ENOMEM;
	}
	/* Locals: the WQE stores could alias the ring's fields. */
	own = r->own;
	wqe = rxe_ring_slot(r, own);
	r->own = rxe_ring_next(r, own);
	rxe_set_wqe_header(wr, len, wqe);
	memcpy(&wqe->dma.sge[0], wr->sg_list, sizeof(struct rxe_sge));
	rxe_ring_publish_producer(r);
	db_unlock(&qp->sq.lock);
	rxe_ring_doorbell_inline(qp);
	return 0;
}

/* Type 1 windows are bound through the SQ with the next key of the MW. */
int rxe_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {
		.wr_id = bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = bind->bind_info,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	ret = rxe_post_send(ibqp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
