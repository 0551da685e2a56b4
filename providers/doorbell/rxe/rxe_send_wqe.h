/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Checking a send WR and building its WQE: the body of the post_send loop.
 * They are inline because callgrind shows the calls costing more than the
 * work (docs/performance.md); the rare cases live in rxe_send.c.
 *
 * The rules a WR's parts must follow are the rxe_*_refused functions
 * below, one for each part; ibv_post_send (rxe_check_send_wr) and the
 * ibv_wr_* builders and setters (rxe_wr.c) both call them, so the two
 * APIs give one answer for one WR.
 */
#ifndef DOORBELL_RXE_SEND_WQE_H
#define DOORBELL_RXE_SEND_WQE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "rxe/rxe.h"

/* An opcode the QP does not take (bit: 1 << opcode, 0 if out of range). */
static inline int rxe_op_refused(uint32_t bit)
{
	return (bit & RXE_OPS_WR_API_ONLY) ? EOPNOTSUPP : EINVAL;
}

/* send_flags: the four rxe has. */
static inline bool rxe_flags_refused(unsigned int flags)
{
	return flags & ~RXE_SEND_FLAGS;
}

/* The gather list: at most max_sge SGEs of at most RXE_MAX_MSG in all. */
static inline bool rxe_sges_refused(const struct rxe_qp *qp, uint64_t num_sge)
{
	return num_sge > qp->sq.max_sge;
}

static inline bool rxe_len_refused(uint64_t len)
{
	return len > RXE_MAX_MSG;
}

/* Inline data: only on opcodes that carry a payload, max_inline bytes. */
static inline bool rxe_inline_refused(const struct rxe_qp *qp, uint32_t op,
				      uint64_t len)
{
	return !(RXE_OPS_PAYLOAD & (1u << op)) || len > qp->sq.max_inline;
}

/* Atomics: an 8-byte result buffer and an 8-byte aligned target. */
static inline bool rxe_atomic_refused(uint64_t len, uint64_t remote_addr)
{
	return len < 8 || (remote_addr & 7);
}

/* A type 1 or 2 bind: a window of this context; an MR unless unbinding. */
static inline bool rxe_bind_refused(const struct rxe_qp *qp,
				    const struct ibv_mw *mw,
				    const struct ibv_mw_bind_info *bi)
{
	return !mw || !bi || (!bi->mr && bi->length) ||
	       mw->context != qp->vqp.qp.context;
}

int rxe_check_send_wr_slow(const struct rxe_qp *qp,
			   const struct ibv_send_wr *wr, uint64_t len);
void rxe_build_send_wqe_slow(const struct rxe_qp *qp,
			     const struct ibv_send_wr *wr,
			     struct rxe_send_wqe *wqe);

/* Everything about a WR that can be wrong is found here, before any write. */
static inline int rxe_check_send_wr(const struct rxe_qp *qp,
				    const struct ibv_send_wr *wr,
				    uint32_t *length)
{
	uint32_t bit, n;
	uint64_t len;
	int i;

	if (__builtin_expect((unsigned int)wr->opcode >= 32, 0))
		return EINVAL;
	bit = 1u << wr->opcode;
	/* A negative num_sge is a huge count. */
	n = (uint32_t)wr->num_sge;
	if (__builtin_expect(!(qp->opcode_mask & bit) ||
				     rxe_flags_refused(wr->send_flags) ||
				     rxe_sges_refused(qp, n),
			     0))
		return rxe_op_refused(bit);
	if (__builtin_expect(wr->num_sge == 1, 1)) {
		len = wr->sg_list[0].length;
	} else {
		for (len = 0, i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
	}
	if (__builtin_expect(rxe_len_refused(len), 0))
		return EINVAL;
	*length = len;
	if (__builtin_expect((qp->slow_ops & bit) ||
				     (wr->send_flags & IBV_SEND_INLINE),
			     0))
		return rxe_check_send_wr_slow(qp, wr, len);
	return 0;
}

/* RDMA and atomic arguments have one layout in ibv_send_wr and the WQE. */
_Static_assert(offsetof(struct ibv_send_wr, wr.atomic.compare_add) -
				       offsetof(struct ibv_send_wr, wr) ==
			       offsetof(struct rxe_send_wr,
					wr.atomic.compare_add) -
				       offsetof(struct rxe_send_wr, wr) &&
		       offsetof(struct ibv_send_wr, wr.atomic.swap) -
				       offsetof(struct ibv_send_wr, wr) ==
			       offsetof(struct rxe_send_wr, wr.atomic.swap) -
				       offsetof(struct rxe_send_wr, wr) &&
		       offsetof(struct ibv_send_wr, wr.atomic.rkey) -
				       offsetof(struct ibv_send_wr, wr) ==
			       offsetof(struct rxe_send_wr, wr.atomic.rkey) -
				       offsetof(struct rxe_send_wr, wr) &&
		       offsetof(struct ibv_send_wr, wr.rdma.rkey) -
				       offsetof(struct ibv_send_wr, wr) ==
			       offsetof(struct rxe_send_wr, wr.rdma.rkey) -
				       offsetof(struct rxe_send_wr, wr),
	       "rdma/atomic WR arguments are copied as one block");

#define RXE_WR_ARGS_BYTES 32
_Static_assert(sizeof(((struct ibv_send_wr *)0)->wr) >= RXE_WR_ARGS_BYTES &&
		       sizeof(((struct rxe_send_wr *)0)->wr) >=
			       RXE_WR_ARGS_BYTES,
	       "rdma/atomic WR arguments");

/*
 * The WQE fields every WR has.  Every field the kernel reads is written;
 * kernel-owned progress fields (status, state, psn, has_rd_atomic) are zeroed
 * so nothing of the slot's last use survives.
 */
static inline void rxe_set_wqe_header(const struct ibv_send_wr *wr,
				      uint32_t length, struct rxe_send_wqe *wqe)
{
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.reserved = 0;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	wqe->wr.ex.imm_data = wr->imm_data; /* or invalidate_rkey: a union */
	memcpy(&wqe->wr.wr, &wr->wr, RXE_WR_ARGS_BYTES);
	wqe->status = 0;
	wqe->state = 0;
	/* The kernel takes the remote address of reads, writes and atomics
	 * from iova (rdma and atomic remote_addr share an offset). */
	wqe->iova = wr->wr.rdma.remote_addr;
	wqe->mask = 0;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->ack_length = 0;
	wqe->ssn = 0;
	wqe->has_rd_atomic = 0;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.cur_sge = 0;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.sge_offset = 0;
	wqe->dma.reserved = 0;
}

/* Fill a WQE from a WR that rxe_check_send_wr accepted. */
static inline void rxe_build_send_wqe(const struct rxe_qp *qp,
				      const struct ibv_send_wr *wr,
				      uint32_t length, struct rxe_send_wqe *wqe)
{
	rxe_set_wqe_header(wr, length, wqe);
	if (__builtin_expect((qp->slow_ops & (1u << wr->opcode)) ||
				     (wr->send_flags & IBV_SEND_INLINE),
			     0)) {
		rxe_build_send_wqe_slow(qp, wr, wqe);
		if (wr->send_flags & IBV_SEND_INLINE)
			return;
	}
	if (wr->num_sge == 1)
		memcpy(&wqe->dma.sge[0], wr->sg_list, sizeof(struct rxe_sge));
	else if (wr->num_sge)
		memcpy(wqe->dma.sge, wr->sg_list,
		       wr->num_sge * sizeof(struct rxe_sge));
}

#endif /* DOORBELL_RXE_SEND_WQE_H */
