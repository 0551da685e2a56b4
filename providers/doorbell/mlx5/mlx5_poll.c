// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Polling a CQ of the mlx5 backend: CQE ownership, parsing a 64-byte CQE
 * (version 1: srqn_uidx is the QP's user index) into a work completion and
 * retiring the WR it names; ibv_poll_cq and the ibv_cq_ex polling API.
 *
 * Nothing the device wrote is trusted to index memory: an unknown user
 * index, a QP of another CQ or a WQE counter naming nothing outstanding is
 * reported as IBV_WC_GENERAL_ERR for that CQE, and the CQE is consumed.
 * What is outstanding is read from what the poster published: the QP's
 * doorbell record (the WQEs the device was told of), the SQ's control
 * segments and wqe_head[], the SRQ's busy[] marks (mlx5_srq.c's m5_srq_claim);
 * tests/fuzz/fuzz_mlx5_cqe.c plays a device that lies.
 *
 * The SQ and RQ tails are the only fields the poller writes that a poster
 * reads.  The poller reads wrid[] and wqe_head[] of the WQEs it retires and
 * then publishes the new tail with a release store; the poster loads the
 * tail with acquire before it reuses those slots.  Relaxed would make the
 * counters themselves race-free, but not the slots: without the pairing a
 * poster could overwrite wrid[i] while it is still being read (load-store
 * reordering on arm64; ThreadSanitizer reports it as a race).  On x86 both
 * are plain moves.
 */
#include <errno.h>

#include "mlx5/mlx5.h"

static inline const struct m5_cqe64 *m5_sw_cqe(const struct m5_cq *cq,
					       uint32_t ci, uint8_t *op_own)
{
	const struct m5_cqe64 *cqe =
		(const struct m5_cqe64 *)cq->buf + (ci & (cq->ncqe - 1));

	return m5_cqe_sw_owned(cqe, cq->ncqe, ci, op_own) ? cqe : NULL;
}

/*
 * The QP a CQE names by user index, through a one-entry cache; NULL unless
 * it is a QP of this CQ.  Only such a QP is cached: m5_cq_clean drops the
 * cache of the QP's CQs before the QP goes away, not of other CQs.
 */
static inline struct m5_qp *m5_cqe_qp(struct m5_cq *cq,
				      const struct m5_cqe64 *cqe)
{
	uint32_t uidx = be32toh(cqe->srqn_uidx) & 0xffffff;
	struct m5_rsc *rsc = cq->last_rsc;
	struct m5_qp *qp;

	if (__builtin_expect(!rsc || rsc->uidx != uidx, 0)) {
		rsc = m5_uidx_find(to_m5_ctx(cq->vcq.cq.context), uidx);
		if (!rsc || rsc->type != M5_RSC_QP)
			return NULL;
		qp = m5_rsc_qp(rsc);
		if (qp->vqp.qp.send_cq != &cq->vcq.cq &&
		    qp->vqp.qp.recv_cq != &cq->vcq.cq)
			return NULL;
		cq->last_rsc = rsc;
	}
	return m5_rsc_qp(rsc);
}

/* A requester CQE's QP, if it is one whose send CQ this is. */
static inline struct m5_qp *m5_req_qp(struct m5_cq *cq,
				      const struct m5_cqe64 *cqe)
{
	struct m5_qp *qp = m5_cqe_qp(cq, cqe);

	return qp && qp->vqp.qp.send_cq == &cq->vcq.cq ? qp : NULL;
}

/* A responder CQE's QP, if it is one whose receive CQ this is. */
static inline struct m5_qp *m5_resp_qp(struct m5_cq *cq,
				       const struct m5_cqe64 *cqe)
{
	struct m5_qp *qp = m5_cqe_qp(cq, cqe);

	return qp && qp->vqp.qp.recv_cq == &cq->vcq.cq ? qp : NULL;
}

/*
 * What the QP's doorbell record says the device was told of: WQEBBs posted
 * (SND) or receive WQEs posted (RCV), 16 bits.  A CQE can name nothing
 * beyond it.  Acquire: the WQEs, wrid[] and wqe_head[] entries it covers
 * were written before the record.
 */
static inline uint16_t m5_dbrec_posted(const struct m5_qp *qp, int word)
{
	return be32toh(__atomic_load_n(&qp->dbrec[word], __ATOMIC_ACQUIRE));
}

/*
 * Retire the send WQE whose first WQEBB has counter ctr, and every earlier
 * unsignaled one.  False if it names no outstanding WR: the WQE must start
 * in the last wqe_cnt WQEBBs posted, its control segment must carry ctr
 * (a slot never written does not), and wqe_head[] must put it 1 to
 * max_post WRs from the tail (a WQE retired before is behind it).
 */
static inline bool m5_sq_retire(struct m5_qp *qp, uint16_t ctr, uint64_t *wr_id)
{
	struct m5_wq *sq = &qp->sq;
	uint32_t idx = ctr & (sq->wqe_cnt - 1);
	/* Only this poller writes the tail, under the CQ lock. */
	uint32_t tail = atomic_load_explicit(&sq->tail, memory_order_relaxed);
	const struct m5_ctrl_seg *ctrl;
	uint16_t since, wqe_idx;
	uint32_t last;

	/*
	 * WQEBBs posted from the one ctr names on: 1 to wqe_cnt.  A QP
	 * without an SQ (wqe_cnt 0) fails here too.
	 */
	since = m5_dbrec_posted(qp, M5_SND_DBR) - ctr;
	if (__builtin_expect((uint16_t)(since - 1) >= sq->wqe_cnt, 0))
		return false;
	ctrl = (const struct m5_ctrl_seg *)((const char *)sq->buf +
					    ((size_t)idx << M5_SEND_WQE_SHIFT));
	wqe_idx = be32toh(ctrl->opmod_idx_opcode) >> 8;
	if (__builtin_expect(wqe_idx != ctr, 0))
		return false;
	last = sq->wqe_head[idx];
	if (__builtin_expect(last - tail >= sq->max_post, 0))
		return false;
	*wr_id = sq->wrid[idx];
	atomic_store_explicit(&sq->tail, last + 1, memory_order_release);
	return true;
}

/*
 * Consume the oldest RQ WQE (responder CQEs of a QP come in RQ order), if
 * one is outstanding: the RCV record counts the WQEs posted (an RQ holds
 * fewer than 2^16).
 */
static inline bool m5_rq_retire(struct m5_qp *qp, uint64_t *wr_id)
{
	struct m5_wq *rq = &qp->rq;
	uint32_t tail = atomic_load_explicit(&rq->tail, memory_order_relaxed);
	uint16_t outstanding;

	if (__builtin_expect(!rq->wqe_cnt, 0))
		return false;
	outstanding = m5_dbrec_posted(qp, M5_RCV_DBR) - tail;
	if (__builtin_expect(!outstanding, 0))
		return false;
	*wr_id = rq->wrid[tail & (rq->wqe_cnt - 1)];
	atomic_store_explicit(&rq->tail, tail + 1, memory_order_release);
	return true;
}

/* Consume the SRQ WQE a CQE names and give it back to the free list. */
static bool m5_srq_retire(struct m5_qp *qp, uint16_t ctr, uint64_t *wr_id)
{
	if (__builtin_expect(!qp->vqp.qp.srq, 0))
		return false;
	return m5_srq_take_back(to_m5_srq(qp->vqp.qp.srq), ctr, wr_id);
}

/* Consume the receive WQE of a responder CQE, on the RQ or the SRQ. */
static inline bool m5_recv_retire(struct m5_qp *qp, const struct m5_cqe64 *cqe,
				  uint64_t *wr_id)
{
	if (qp->has_srq)
		return m5_srq_retire(qp, be16toh(cqe->wqe_counter), wr_id);
	return m5_rq_retire(qp, wr_id);
}

/*
 * A receive of an XRC SRQ: the CQE's user index is the SRQ's, its QP the
 * XRC target (libmlx5 finds the SRQ the same way).  Consume the SRQ WQE
 * it names, if it names an XRC SRQ whose CQ this is.  Out of line: only
 * a CQE that names no QP of this CQ comes here.
 */
static __attribute__((noinline)) bool
m5_xrc_retire(struct m5_cq *cq, const struct m5_cqe64 *cqe, uint64_t *wr_id)
{
	uint32_t uidx = be32toh(cqe->srqn_uidx) & 0xffffff;
	struct m5_rsc *rsc = m5_uidx_find(to_m5_ctx(cq->vcq.cq.context), uidx);
	struct m5_srq *srq;

	if (!rsc || rsc->type != M5_RSC_SRQ)
		return false;
	srq = m5_rsc_srq(rsc);
	if (srq->vsrq.srq_type != IBV_SRQT_XRC || srq->vsrq.cq != &cq->vcq.cq)
		return false;
	return m5_srq_take_back(srq, be16toh(cqe->wqe_counter), wr_id);
}

/* The work completion of a send WQE, from its mlx5 opcode. */
static inline enum ibv_wc_status m5_req_opcode(const struct m5_cqe64 *cqe,
					       struct ibv_wc *wc)
{
	uint32_t opc = be32toh(cqe->sop_drop_qpn) >> 24;

	/* The two most common first: a compare each, not a jump table. */
	if (opc == M5_OPCODE_RDMA_WRITE) {
		wc->opcode = IBV_WC_RDMA_WRITE;
		return IBV_WC_SUCCESS;
	}
	if (opc == M5_OPCODE_SEND) {
		wc->opcode = IBV_WC_SEND;
		return IBV_WC_SUCCESS;
	}
	switch (opc) {
	case M5_OPCODE_SEND_IMM:
		wc->wc_flags = IBV_WC_WITH_IMM;
		/* fall through */
	case M5_OPCODE_SEND:
	case M5_OPCODE_SEND_INVAL:
		wc->opcode = IBV_WC_SEND;
		return IBV_WC_SUCCESS;
	case M5_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags = IBV_WC_WITH_IMM;
		/* fall through */
	case M5_OPCODE_RDMA_WRITE:
		wc->opcode = IBV_WC_RDMA_WRITE;
		return IBV_WC_SUCCESS;
	case M5_OPCODE_RDMA_READ:
		wc->opcode = IBV_WC_RDMA_READ;
		wc->byte_len = be32toh(cqe->byte_cnt);
		return IBV_WC_SUCCESS;
	case M5_OPCODE_ATOMIC_CS:
		wc->opcode = IBV_WC_COMP_SWAP;
		wc->byte_len = 8;
		return IBV_WC_SUCCESS;
	case M5_OPCODE_ATOMIC_FA:
		wc->opcode = IBV_WC_FETCH_ADD;
		wc->byte_len = 8;
		return IBV_WC_SUCCESS;
	default:
		/* Nothing we post. */
		return IBV_WC_GENERAL_ERR;
	}
}

static inline void m5_cqe_req(struct m5_cq *cq, const struct m5_cqe64 *cqe,
			      struct ibv_wc *wc)
{
	struct m5_qp *qp = m5_req_qp(cq, cqe);

	if (__builtin_expect(!qp || !m5_sq_retire(qp, be16toh(cqe->wqe_counter),
						  &wc->wr_id),
			     0)) {
		wc->status = IBV_WC_GENERAL_ERR;
		return;
	}
	wc->status = m5_req_opcode(cqe, wc);
}

/* Receive CQE fields: source, SL, GRH, path bits, immediate data. */
static inline void m5_resp_fields(const struct m5_cqe64 *cqe, uint8_t opcode,
				  struct ibv_wc *wc)
{
	uint32_t rqpn = be32toh(cqe->flags_rqpn);

	wc->byte_len = be32toh(cqe->byte_cnt);
	wc->src_qp = rqpn & 0xffffff;
	wc->sl = (rqpn >> 24) & 0xf;
	wc->slid = be16toh(cqe->slid);
	wc->dlid_path_bits = cqe->ml_path & 0x7f;
	wc->wc_flags = (rqpn >> M5_CQE_GRH_SHIFT) & 3 ? IBV_WC_GRH : 0;
	wc->opcode = IBV_WC_RECV;
	switch (opcode) {
	case M5_CQE_RESP_WR_IMM:
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		/* fall through */
	case M5_CQE_RESP_SEND_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey; /* stays big-endian */
		break;
	case M5_CQE_RESP_SEND_INV:
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->imm_inval_pkey);
		break;
	default: /* RESP_SEND: the word holds the P_Key index */
		wc->pkey_index = be32toh(cqe->imm_inval_pkey) & 0xffff;
		break;
	}
}

static inline void m5_cqe_resp(struct m5_cq *cq, const struct m5_cqe64 *cqe,
			       uint8_t opcode, struct ibv_wc *wc)
{
	struct m5_qp *qp = m5_resp_qp(cq, cqe);

	if (__builtin_expect(!qp || !m5_recv_retire(qp, cqe, &wc->wr_id), 0) &&
	    (qp || !m5_xrc_retire(cq, cqe, &wc->wr_id))) {
		wc->status = IBV_WC_GENERAL_ERR;
		return;
	}
	m5_resp_fields(cqe, opcode, wc);
}

static enum ibv_wc_status m5_syndrome_status(uint8_t syndrome)
{
	switch (syndrome) {
	case M5_SYND_LOCAL_LENGTH_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case M5_SYND_LOCAL_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case M5_SYND_LOCAL_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case M5_SYND_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case M5_SYND_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case M5_SYND_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case M5_SYND_LOCAL_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case M5_SYND_REMOTE_INVAL_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case M5_SYND_REMOTE_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case M5_SYND_REMOTE_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case M5_SYND_TRANSPORT_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case M5_SYND_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case M5_SYND_REMOTE_ABORTED_ERR:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

/*
 * An ODP page fault on an SRQ receive (libmlx5 v44 cq.c, is_odp_pfault_err
 * and its caller in mlx5_parse_cqe): the device took the WQE and wrote
 * nothing; the sender retries.  The WQE is posted again and the CQE is no
 * completion.  True if that was done.
 */
static bool m5_odp_srq_fault(struct m5_qp *qp, const struct m5_err_cqe *ecqe)
{
	return qp->has_srq && qp->vqp.qp.srq &&
	       ecqe->syndrome == M5_SYND_REMOTE_ABORTED_ERR &&
	       ecqe->vendor_err_synd == M5_VENDOR_SYND_ODP_PFAULT &&
	       m5_srq_repost(to_m5_srq(qp->vqp.qp.srq),
			     be16toh(ecqe->wqe_counter));
}

/*
 * An error CQE (flushes included) retires its WR like a good one: the send
 * WQE it names (and earlier unsignaled ones), or the next RQ WQE, or the
 * SRQ WQE it names.  The opcode is filled in as far as it is known.
 * False if the CQE is no completion (m5_odp_srq_fault).
 */
static __attribute__((noinline)) bool m5_cqe_err(struct m5_cq *cq,
						 const struct m5_cqe64 *cqe,
						 uint8_t opcode,
						 struct ibv_wc *wc)
{
	const struct m5_err_cqe *ecqe = (const struct m5_err_cqe *)cqe;
	struct m5_qp *qp;
	bool ok;

	wc->vendor_err = ecqe->vendor_err_synd;
	if (opcode == M5_CQE_REQ_ERR) {
		qp = m5_req_qp(cq, cqe);
		ok = qp &&
		     m5_sq_retire(qp, be16toh(ecqe->wqe_counter), &wc->wr_id);
		if (ok)
			m5_req_opcode(cqe, wc);
		wc->byte_len = 0;
	} else {
		qp = m5_resp_qp(cq, cqe);
		if (qp && m5_odp_srq_fault(qp, ecqe))
			return false;
		ok = qp ? m5_recv_retire(qp, cqe, &wc->wr_id)
			: m5_xrc_retire(cq, cqe, &wc->wr_id);
		wc->opcode = IBV_WC_RECV;
	}
	wc->wc_flags = 0;
	wc->status =
		ok ? m5_syndrome_status(ecqe->syndrome) : IBV_WC_GENERAL_ERR;
	return true;
}

/*
 * A CQE other than a requester's success: responder, error or unknown.
 * False if it is no completion (an error CQE the backend handles itself).
 */
static inline bool m5_cqe_other(struct m5_cq *cq, const struct m5_cqe64 *cqe,
				uint8_t opcode, struct ibv_wc *wc)
{
	switch (opcode) {
	case M5_CQE_RESP_WR_IMM:
	case M5_CQE_RESP_SEND:
	case M5_CQE_RESP_SEND_IMM:
	case M5_CQE_RESP_SEND_INV:
		m5_cqe_resp(cq, cqe, opcode, wc);
		break;
	case M5_CQE_REQ_ERR:
	case M5_CQE_RESP_ERR:
		return m5_cqe_err(cq, cqe, opcode, wc);
	default:
		/* RESIZE_CQ, NO_PACKET, SIG_ERR...: nothing we asked for. */
		wc->status = IBV_WC_GENERAL_ERR;
		break;
	}
	return true;
}

/*
 * Parse one software-owned CQE into *wc, every field written.  A CQE in a
 * format we never enable (inline scatter, compressed) still retires its WR,
 * but its data is not where the WR said: it completes in error.  The
 * requester's CQE is tested first, with one compare: a switch's jump table
 * cost every send completion about 3 instructions more.  False if the CQE
 * is no completion (an error CQE the backend handles itself).
 */
static inline bool m5_parse_cqe(struct m5_cq *cq, const struct m5_cqe64 *cqe,
				uint8_t op_own, struct ibv_wc *wc)
{
	uint8_t opcode = op_own >> M5_CQE_OPCODE_SHIFT;

	*wc = (struct ibv_wc){
		.qp_num = be32toh(cqe->sop_drop_qpn) & 0xffffff,
	};
	if (__builtin_expect(opcode == M5_CQE_REQ, 1))
		m5_cqe_req(cq, cqe, wc);
	else if (!m5_cqe_other(cq, cqe, opcode, wc))
		return false;
	if (__builtin_expect(op_own & M5_CQE_FORMAT_MASK, 0))
		wc->status = IBV_WC_GENERAL_ERR;
	return true;
}

/* The consumer index in the dbrec: the device may reuse those CQEs. */
static inline void m5_update_ci(struct m5_cq *cq)
{
	m5_dbrec_store(&cq->dbrec[M5_CQ_SET_CI],
		       htobe32(cq->cons_index & M5_CQ_CI_MASK));
}

/*
 * Set the consumer index.  A relaxed store: m5_req_notify_cq reads
 * cons_index without the CQ lock (see there); only the poller writes it.
 */
static inline void m5_set_ci(struct m5_cq *cq, uint32_t ci)
{
	__atomic_store_n(&cq->cons_index, ci, __ATOMIC_RELAXED);
}

/* One CQE, if software owns it, parsed into *wc; false if the CQ is empty. */
static inline bool m5_poll_one(struct m5_cq *cq, struct ibv_wc *wc)
{
	const struct m5_cqe64 *cqe;
	uint8_t op_own;

	for (;;) {
		cqe = m5_sw_cqe(cq, cq->cons_index, &op_own);
		if (!cqe)
			return false;
		/* Orders: the owner byte read before the CQE body reads. */
		udma_from_device_barrier();
		if (__builtin_expect(m5_parse_cqe(cq, cqe, op_own, wc), 1)) {
			/* Still the device's CQE: ci is told at end_poll. */
			cq->ex_ts = be64toh(cqe->timestamp);
			break;
		}
		/* No completion: the call may return none, so tell now. */
		m5_set_ci(cq, cq->cons_index + 1);
		m5_update_ci(cq);
	}
	m5_set_ci(cq, cq->cons_index + 1);
	return true;
}

int m5_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc)
{
	struct m5_cq *cq = to_m5_cq(ibcq);
	const struct m5_cqe64 *ring, *cqe;
	struct ibv_wc *w = wc, *end;
	uint32_t ncqe, ci;
	uint8_t op_own;

	db_lock(&cq->lock);
	/*
	 * The ring and the consumer index, once per call: kept in registers,
	 * not reloaded around each parse (about 5 instructions a CQE).
	 */
	ring = cq->buf;
	ncqe = cq->ncqe;
	ci = cq->cons_index;
	/*
	 * A pointer to the next wc and its end, not an index: &wc[n] cost
	 * a multiply by 48 and a reload of wc for every CQE.
	 */
	end = wc + (nwc > 0 ? nwc : 0);
	for (; w < end; ci++) {
		cqe = ring + (ci & (ncqe - 1));
		if (!m5_cqe_sw_owned(cqe, ncqe, ci, &op_own))
			break;
		/* Orders: the owner byte read before the CQE body reads. */
		udma_from_device_barrier();
		/* A CQE that is no completion is consumed but fills no wc. */
		w += m5_parse_cqe(cq, cqe, op_own, w);
	}
	/* Once per call, and only when something was consumed. */
	if (ci != cq->cons_index) {
		m5_set_ci(cq, ci);
		m5_update_ci(cq);
	}
	db_unlock(&cq->lock);
	return w - wc;
}

/*
 * The ibv_cq_ex API.  start_poll takes the CQ lock and parses the oldest
 * CQE into cq->ex_wc; next_poll parses the next; each consumes its CQE at
 * once (as libmlx5 does), and end_poll publishes the consumer index and
 * drops the lock.  The read_* functions read the parsed completion.
 */
static inline struct m5_cq *cqx_to_m5_cq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct m5_cq, vcq.cq_ex);
}

static int m5_cqx_show(struct m5_cq *cq)
{
	if (!m5_poll_one(cq, &cq->ex_wc))
		return ENOENT;
	cq->vcq.cq_ex.wr_id = cq->ex_wc.wr_id;
	cq->vcq.cq_ex.status = cq->ex_wc.status;
	return 0;
}

static int m5_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct m5_cq *cq = cqx_to_m5_cq(cqx);

	if (attr->comp_mask)
		return EINVAL;
	db_lock(&cq->lock);
	if (m5_cqx_show(cq)) {
		/* Nothing to show: the caller does not call end_poll. */
		db_unlock(&cq->lock);
		return ENOENT;
	}
	return 0;
}

static int m5_next_poll(struct ibv_cq_ex *cqx)
{
	return m5_cqx_show(cqx_to_m5_cq(cqx));
}

static void m5_end_poll(struct ibv_cq_ex *cqx)
{
	struct m5_cq *cq = cqx_to_m5_cq(cqx);

	m5_update_ci(cq);
	db_unlock(&cq->lock);
}

static enum ibv_wc_opcode m5_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.opcode;
}

static uint32_t m5_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.vendor_err;
}

static uint32_t m5_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.byte_len;
}

static __be32 m5_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.imm_data;
}

static uint32_t m5_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.qp_num;
}

static uint32_t m5_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.src_qp;
}

static unsigned int m5_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.wc_flags;
}

static uint32_t m5_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.slid;
}

static uint8_t m5_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.sl;
}

static uint8_t m5_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_wc.dlid_path_bits;
}

/* The device's internal timer when it wrote the CQE (mlx5_clock.c). */
static uint64_t m5_read_completion_ts(struct ibv_cq_ex *cqx)
{
	return cqx_to_m5_cq(cqx)->ex_ts;
}

/* Every standard reader is installed, asked for or not: all are cheap. */
void m5_cq_set_ex_ops(struct m5_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = m5_start_poll;
	cqx->next_poll = m5_next_poll;
	cqx->end_poll = m5_end_poll;
	cqx->read_opcode = m5_read_opcode;
	cqx->read_vendor_err = m5_read_vendor_err;
	cqx->read_byte_len = m5_read_byte_len;
	cqx->read_imm_data = m5_read_imm_data;
	cqx->read_qp_num = m5_read_qp_num;
	cqx->read_src_qp = m5_read_src_qp;
	cqx->read_wc_flags = m5_read_wc_flags;
	cqx->read_slid = m5_read_slid;
	cqx->read_sl = m5_read_sl;
	cqx->read_dlid_path_bits = m5_read_dlid_path_bits;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cqx->read_completion_ts = m5_read_completion_ts;
}
