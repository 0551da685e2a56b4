// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The send fast path of the rxe backend: each WR is checked completely, then
 * built in place in its SQ slot; the producer index is published once for
 * the whole list and the doorbell is rung once.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "rxe/rxe.h"

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

static int rxe_check_opcode_args(const struct rxe_qp *qp,
				 const struct ibv_send_wr *wr, uint64_t len)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

	switch (wr->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (len < 8 || (wr->wr.atomic.remote_addr & 7))
			return EINVAL;
		return 0;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw || (!bi->mr && bi->length) ||
		    wr->bind_mw.mw->context != qp->vqp.qp.context)
			return EINVAL;
		return 0;
	default:
		break;
	}
	/* The kernel wants the AH's PD to be the QP's (a parent domain's
	 * kernel handle is its PD's). */
	if (qp->vqp.qp.qp_type == IBV_QPT_UD &&
	    (!wr->wr.ud.ah ||
	     wr->wr.ud.ah->pd->handle != qp->vqp.qp.pd->handle))
		return EINVAL;
	return 0;
}

/* Everything about a WR that can be wrong is found here, before any write. */
int rxe_check_send_wr(const struct rxe_qp *qp, const struct ibv_send_wr *wr,
		      uint32_t *length)
{
	uint64_t len = 0;
	int i;

	if (wr->opcode >= 32 || !(qp->opcode_mask & (1u << wr->opcode)))
		return EINVAL;
	if (wr->send_flags & ~RXE_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > RXE_MAX_MSG)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE) {
		if (!(RXE_OPS_PAYLOAD & (1u << wr->opcode)) ||
		    len > qp->sq.max_inline)
			return EINVAL;
	}
	*length = len;
	return rxe_check_opcode_args(qp, wr, len);
}

static void rxe_wqe_set_opcode_args(const struct rxe_qp *qp,
				    const struct ibv_send_wr *wr,
				    struct rxe_send_wqe *wqe)
{
	struct rxe_send_wr *k = &wqe->wr;
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		k->ex.imm_data = wr->imm_data;
		/* fallthrough */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		k->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		k->wr.rdma.rkey = wr->wr.rdma.rkey;
		/* The kernel takes the remote address from iova. */
		wqe->iova = wr->wr.rdma.remote_addr;
		break;
	case IBV_WR_SEND_WITH_IMM:
		k->ex.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		k->ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		k->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		k->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		k->wr.atomic.swap = wr->wr.atomic.swap;
		k->wr.atomic.rkey = wr->wr.atomic.rkey;
		wqe->iova = wr->wr.atomic.remote_addr;
		break;
	case IBV_WR_BIND_MW:
		k->wr.mw.addr = bi->addr;
		k->wr.mw.length = bi->length;
		k->wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
		k->wr.mw.mw_rkey = wr->bind_mw.mw->rkey;
		k->wr.mw.rkey = wr->bind_mw.rkey;
		k->wr.mw.access = bi->mw_access_flags;
		break;
	default:
		break;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		k->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		k->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		k->wr.ud.ah_num = to_rah(wr->wr.ud.ah)->ah_num;
	}
}

void rxe_build_send_wqe(const struct rxe_qp *qp, const struct ibv_send_wr *wr,
			uint32_t length, struct rxe_send_wqe *wqe)
{
	int i;

	/* Kernel-owned fields (status, state, psn, has_rd_atomic) start at 0. */
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	rxe_wqe_set_opcode_args(qp, wr, wqe);

	if (wr->send_flags & IBV_SEND_INLINE) {
		uint8_t *p = wqe->dma.inline_data;

		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else if (wr->num_sge) {
		memcpy(wqe->dma.sge, wr->sg_list,
		       wr->num_sge * sizeof(struct rxe_sge));
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
}

void rxe_ring_doorbell(struct rxe_qp *qp)
{
	ssize_t n;

	/*
	 * The kernel runs the requester in this call.  A failure leaves the
	 * WQEs in the ring, where the next doorbell picks them up.
	 */
	n = write(qp->vqp.qp.context->cmd_fd, &qp->db_cmd, sizeof(qp->db_cmd));
	(void)n;
}

int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_ring *r = &qp->sq.ring;
	uint32_t room, len;
	unsigned int posted = 0;
	int err = 0;

	/* RESET, INIT and RTR take no sends: the kernel would not run them. */
	if (__builtin_expect(ibqp->state < IBV_QPS_RTS, 0)) {
		*bad_wr = wr;
		return EINVAL;
	}
	db_lock(&qp->sq.lock);
	room = rxe_ring_room(r);
	for (; wr; wr = wr->next) {
		err = rxe_check_send_wr(qp, wr, &len);
		if (err)
			break;
		if (!room && !(room = rxe_ring_room(r))) {
			err = ENOMEM;
			break;
		}
		rxe_build_send_wqe(qp, wr, len, rxe_ring_slot(r, r->own));
		r->own = rxe_ring_next(r, r->own);
		room--;
		posted++;
	}
	if (posted)
		rxe_ring_publish_producer(r);
	db_unlock(&qp->sq.lock);
	if (posted)
		rxe_ring_doorbell(qp);
	if (err)
		*bad_wr = wr;
	return err;
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
