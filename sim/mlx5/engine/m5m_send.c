// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The send engine: a send doorbell (8 bytes or a BlueFlame copy) is checked
 * against the QP's bfreg, the SND dbrec and the WQE in host memory; then
 * the WQEs from the device's index up to the dbrec run, one by one, between
 * MRs of the model: SEND/SEND_IMM (RC and UD), RDMA WRITE(_IMM), READ and
 * the two atomics, with RNR parking and the requester's error CQEs.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/mlx5_user_ioctl_verbs.h>

#include "m5m_int.h"

#define M5M_UC_DROP 0x200 /* m5m_remote: a UC responder dropped it */

bool m5m_receiving(const struct m5m_qp *q)
{
	return q->state == IBV_QPS_RTR || q->state == IBV_QPS_RTS ||
	       q->state == IBV_QPS_SQD || q->state == IBV_QPS_SQE;
}

/* The connected peer: an RC or UC QP's own kind, an XRC INI's XRC TGT. */
static struct m5m_qp *m5m_rc_dst(struct m5m_qp *qp)
{
	struct m5m_qp *dst = m5m_qp_find(qp->dev, qp->dest_qpn);
	enum ibv_qp_type want =
		qp->type == IBV_QPT_XRC_SEND ? IBV_QPT_XRC_RECV : qp->type;

	if (!dst || dst->type != want || !m5m_receiving(dst))
		return NULL;
	return dst;
}

uint64_t m5m_wqe_bytes(const struct m5m_wqe *w)
{
	uint64_t total = w->inl_len;
	unsigned int i;

	for (i = 0; i < w->nsge; i++)
		total += be32toh(w->sge[i].byte_count);
	return total;
}

/* Collect the message the WQE names; 0 or a requester syndrome. */
int m5m_gather(struct m5m_qp *qp, const struct m5m_wqe *w, uint8_t **msg,
	       uint32_t *len)
{
	/* The inline bytes first, then the data segments' (m5m_wqe_data). */
	uint64_t total = m5m_wqe_bytes(w);
	unsigned int i;
	uint32_t bc;

	if (total > M5M_MAX_MSG)
		return M5_SYND_LOCAL_LENGTH_ERR;
	*len = (uint32_t)total;
	*msg = malloc(total + 1);
	if (!*msg)
		return M5_SYND_LOCAL_LENGTH_ERR;
	if (w->inl_len)
		memcpy(*msg, w->inl, w->inl_len);
	for (total = w->inl_len, i = 0; i < w->nsge; i++) {
		bc = be32toh(w->sge[i].byte_count);
		if (m5m_dma_from(qp->pd, be32toh(w->sge[i].lkey),
				 be64toh(w->sge[i].addr), *msg + total, bc,
				 0)) {
			free(*msg);
			*msg = NULL;
			return M5_SYND_LOCAL_PROT_ERR;
		}
		total += bc;
	}
	return 0;
}

/* The responder saw a bad request: it goes to ERR and says why. */
static int m5m_resp_fail(struct m5m_qp *dst, uint8_t event, int synd)
{
	m5m_async_qp(dst, event);
	m5m_qp_to_err(dst);
	return synd;
}

/*
 * UC has no acknowledgements: a message its responder cannot take (no
 * QP, no receive WQE, a bad RDMA WRITE) is dropped there, the responder's
 * QP stays as it is, and the requester completes as if it had landed.
 */
static int m5m_uc_drop(struct m5m_qp *qp)
{
	qp->dev->st.uc_dropped++;
	return 0;
}

/* The responder checks the rkey for the whole range. */
static int m5m_remote(struct m5m_qp *dst, const struct m5m_wqe *w, uint64_t len,
		      int access)
{
	int synd;

	if (m5m_fault_take(dst->dev, M5M_FAULT_REMOTE_ACCESS))
		synd = M5_SYND_REMOTE_ACCESS_ERR;
	else
		synd = m5m_dma_remote(dst, w->rkey, w->raddr, len, access);
	if (synd && dst->type == IBV_QPT_UC)
		return M5M_UC_DROP;
	return synd ? m5m_resp_fail(dst, M5M_EVENT_WQ_ACCESS, synd) : 0;
}

bool m5m_rnr_retry(struct m5m_qp *qp)
{
	/* rnr_retry 7 retries for ever; otherwise that many times. */
	if (qp->rnr_retry != 7 && qp->rnr_used >= qp->rnr_retry) {
		qp->rnr_used = 0;
		return false;
	}
	if (qp->rnr_retry != 7)
		qp->rnr_used++;
	return true;
}

bool m5m_ack_retry(struct m5m_qp *qp)
{
	if (qp->retry_used >= qp->retry_cnt) {
		qp->retry_used = 0;
		return false;
	}
	qp->retry_used++;
	return true;
}

uint64_t m5m_ack_deadline(const struct m5m_qp *qp)
{
	return qp->timeout ? qp->dev->now + (4096ull << qp->timeout) / 1000
			   : UINT64_MAX;
}

static int m5m_rnr(struct m5m_qp *qp, struct m5m_qp *dst)
{
	struct m5m_dev *dev = qp->dev;

	dev->st.rnr_naks++;
	if (!m5m_rnr_retry(qp))
		return M5_SYND_RNR_RETRY_EXC_ERR;
	qp->parked = true;
	qp->no_ack = false;
	qp->park_dst = dst->qpn;
	qp->park_until = dev->now + m5m_rnr_timer_us(dst->min_rnr_timer);
	return M5M_PARKED;
}

/*
 * No responder acknowledged (no QP of that number and type, or one not yet
 * in RTR: a ConnectX drops such packets): the requester sends again after
 * its local ACK timeout, 4.096 us << timeout, retry_cnt times, then fails
 * the WQE.  Timeout 0 waits for ever (IBA: infinite).  The WQE waits
 * parked, as for an RNR NAK, but only its timer wakes it.
 */
static int m5m_no_ack(struct m5m_qp *qp)
{
	struct m5m_dev *dev = qp->dev;

	dev->st.ack_timeouts++;
	if (!m5m_ack_retry(qp))
		return M5_SYND_TRANSPORT_RETRY_EXC_ERR;
	qp->parked = true;
	qp->no_ack = true;
	qp->park_dst = qp->dest_qpn;
	qp->park_until = m5m_ack_deadline(qp);
	return M5M_PARKED;
}

/*
 * The m5m_exec_* functions run one WQE; dst is the responder m5m_exec found
 * (never NULL on RC and XRC, which wait for one; NULL on UD, and on UC
 * when none is ready).
 */
static int m5m_exec_send(struct m5m_qp *qp, struct m5m_qp *dst,
			 const struct m5m_wqe *w, uint32_t *byte_cnt)
{
	struct m5m_dev *dev = qp->dev;
	uint8_t *msg = NULL, synd = 0;
	enum m5m_rx rx;
	uint32_t len;
	int ret;

	ret = m5m_gather(qp, w, &msg, &len);
	if (ret)
		return ret;
	*byte_cnt = len;
	if (qp->type == IBV_QPT_UD) {
		if (len > (128u << dev->cfg.mtu)) {
			free(msg);
			return M5_SYND_LOCAL_LENGTH_ERR;
		}
		/* A source GID the port does not have: nothing leaves. */
		if (m5m_av_grh(dev, w->av) &&
		    m5m_av_sgid_index(w->av) >= m5m_port_gids(dev)) {
			free(msg);
			return M5_SYND_LOCAL_QP_OP_ERR;
		}
		dst = m5m_qp_find(dev, be32toh(w->av->dqp_dct) & 0xffffff);
	}
	if (!dst) {
		free(msg);
		if (qp->type == IBV_QPT_UD) {
			dev->st.ud_dropped++;
			return 0;
		}
		return m5m_uc_drop(qp);
	}
	rx = m5m_deliver(qp, w, dst, msg, len, &synd);
	free(msg);
	if (rx == M5M_RX_RNR)
		return qp->type == IBV_QPT_UC ? m5m_uc_drop(qp)
					      : m5m_rnr(qp, dst);
	if (rx == M5M_RX_DROP)
		dev->st.ud_dropped++;
	else if (!synd)
		qp->rnr_used = 0;
	return synd;
}

static int m5m_exec_write(struct m5m_qp *qp, struct m5m_qp *dst,
			  const struct m5m_wqe *w, uint32_t *byte_cnt)
{
	bool uc = qp->type == IBV_QPT_UC;
	uint8_t *msg = NULL, synd = 0;
	uint32_t len;
	int ret;

	ret = m5m_gather(qp, w, &msg, &len);
	if (!ret && !dst)
		ret = M5M_UC_DROP;
	if (!ret)
		ret = m5m_remote(dst, w, len, IBV_ACCESS_REMOTE_WRITE);
	/* On UC the whole message goes with its immediate. */
	if (!ret && w->opcode == M5_OPCODE_RDMA_WRITE_IMM &&
	    m5m_rx_check(dst) == M5M_RX_RNR)
		ret = uc ? M5M_UC_DROP : m5m_rnr(qp, dst);
	if (ret == M5M_UC_DROP) {
		*byte_cnt = len;
		ret = m5m_uc_drop(qp);
	}
	if (ret) {
		free(msg);
		return ret;
	}
	/* Checked above: the copy cannot fail. */
	if (len)
		m5m_dma_to(dst->pd, w->rkey, w->raddr, msg, len,
			   IBV_ACCESS_REMOTE_WRITE);
	*byte_cnt = len;
	if (w->opcode == M5_OPCODE_RDMA_WRITE_IMM)
		m5m_deliver(qp, w, dst, NULL, len, &synd);
	free(msg);
	if (!synd)
		qp->rnr_used = 0;
	return synd;
}

static int m5m_exec_read(struct m5m_qp *qp, struct m5m_qp *dst,
			 const struct m5m_wqe *w, uint32_t *byte_cnt)
{
	uint64_t total = 0, done = 0;
	unsigned int i;
	uint32_t bc;
	int ret;

	for (i = 0; i < w->nsge; i++)
		total += be32toh(w->sge[i].byte_count);
	if (total > M5M_MAX_MSG)
		return M5_SYND_LOCAL_LENGTH_ERR;
	ret = m5m_remote(dst, w, total, IBV_ACCESS_REMOTE_READ);
	if (ret)
		return ret;
	*byte_cnt = (uint32_t)total;
	if (qp->fly_cur)
		return m5m_fly_read(qp, dst, w, (uint32_t)total);
	/* The response lands in the local SGEs, which must be writable. */
	for (i = 0; i < w->nsge; i++) {
		bc = be32toh(w->sge[i].byte_count);
		ret = m5m_dma_move(qp->pd, be32toh(w->sge[i].lkey),
				   be64toh(w->sge[i].addr),
				   IBV_ACCESS_LOCAL_WRITE, dst->pd, w->rkey,
				   w->raddr + done, IBV_ACCESS_REMOTE_READ, bc);
		if (ret)
			return ret;
		done += bc;
	}
	return 0;
}

static int m5m_exec_atomic(struct m5m_qp *qp, struct m5m_qp *dst,
			   const struct m5m_wqe *w, uint32_t *byte_cnt)
{
	uint64_t orig, expect, run;
	uint8_t *target;
	int ret;

	if (w->raddr & 7)
		return m5m_resp_fail(dst, M5M_EVENT_WQ_INVAL_REQ,
				     M5_SYND_REMOTE_INVAL_REQ_ERR);
	ret = m5m_dma_local(qp->pd, be32toh(w->sge[0].lkey),
			    be64toh(w->sge[0].addr), 8, IBV_ACCESS_LOCAL_WRITE);
	if (ret)
		return ret;
	ret = m5m_remote(dst, w, 8, IBV_ACCESS_REMOTE_ATOMIC);
	if (ret)
		return ret;
	/* Aligned: the 8 bytes are contiguous wherever memory is. */
	if (m5m_xlate(dst->pd, w->rkey, w->raddr, 8, IBV_ACCESS_REMOTE_ATOMIC,
		      &target, &run) ||
	    run < 8)
		return M5_SYND_REMOTE_ACCESS_ERR;
	/* 8-byte host-endian atomics (atomic_req_8B_endianness_mode). */
	if (w->opcode == M5_OPCODE_ATOMIC_CS) {
		expect = w->compare;
		__atomic_compare_exchange_n((uint64_t *)target, &expect,
					    w->swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		orig = expect;
	} else {
		orig = __atomic_fetch_add((uint64_t *)target, w->swap_add,
					  __ATOMIC_SEQ_CST);
	}
	*byte_cnt = 8;
	if (qp->fly_cur)
		return m5m_fly_hold(qp, &orig, 8);
	m5m_dma_to(qp->pd, be32toh(w->sge[0].lkey), be64toh(w->sge[0].addr),
		   &orig, 8, IBV_ACCESS_LOCAL_WRITE);
	return 0;
}

static int m5m_exec_op(struct m5m_qp *qp, struct m5m_qp *dst,
		       const struct m5m_wqe *w, uint32_t *byte_cnt)
{
	switch (w->opcode) {
	case M5_OPCODE_NOP:
		return 0;
	case M5_OPCODE_SEND:
	case M5_OPCODE_SEND_IMM:
	case M5_OPCODE_SEND_INVAL:
		return m5m_exec_send(qp, dst, w, byte_cnt);
	case M5_OPCODE_RDMA_WRITE:
	case M5_OPCODE_RDMA_WRITE_IMM:
		return m5m_exec_write(qp, dst, w, byte_cnt);
	case M5_OPCODE_RDMA_READ:
		return m5m_exec_read(qp, dst, w, byte_cnt);
	case M5_OPCODE_ATOMIC_CS:
	case M5_OPCODE_ATOMIC_FA:
		return m5m_exec_atomic(qp, dst, w, byte_cnt);
	default:
		return M5_SYND_LOCAL_QP_OP_ERR;
	}
}

/*
 * An XRC INI WQE: the XRC TGT takes it for the XRC SRQ its XRC segment
 * names, which must be of the TGT's domain (else the TGT answers with an
 * invalid-request NAK).  A receive comes from that SRQ and completes on
 * its CQ with its user index; the SRQ's PD checks the rkeys.  For the
 * one WQE the TGT wears those (it has none of its own that apply).
 */
static int m5m_exec_xrc(struct m5m_qp *qp, struct m5m_qp *dst,
			const struct m5m_wqe *w, uint32_t *byte_cnt)
{
	struct m5m_srq *srq, *own_srq;
	struct m5m_cq *own_rcq;
	struct m5m_pd *own_pd;
	uint32_t own_uidx;
	int ret;

	srq = m5m_srq_find(qp->dev, w->xrc_srqn);
	if (!srq || !srq->cq || srq->xrcd != dst->xrcd)
		return m5m_resp_fail(dst, M5M_EVENT_WQ_INVAL_REQ,
				     M5_SYND_REMOTE_INVAL_REQ_ERR);
	own_srq = dst->srq;
	own_rcq = dst->rcq;
	own_uidx = dst->uidx;
	own_pd = dst->pd;
	dst->srq = srq;
	dst->rcq = srq->cq;
	dst->uidx = srq->uidx;
	dst->pd = srq->pd;
	ret = m5m_exec_op(qp, dst, w, byte_cnt);
	dst->srq = own_srq;
	dst->rcq = own_rcq;
	dst->uidx = own_uidx;
	dst->pd = own_pd;
	return ret;
}

/* Bytes a packet holds on a path of MTU mtu (IBV_MTU_256 is 1). */
uint64_t m5m_mtu_bytes(enum ibv_mtu mtu)
{
	return 128u << (mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096
				? mtu
				: IBV_MTU_4096);
}

uint32_t m5m_npkt(uint64_t len, enum ibv_mtu mtu)
{
	uint64_t n = m5m_mtu_bytes(mtu);

	return len > n ? (uint32_t)((len + n - 1) / n) : 1;
}

/*
 * The connection's attributes, as the wire would apply them to a message
 * of a connected QP (RC, UC, XRC INI):
 * - a packet longer than the responder's path MTU is dropped there;
 * - an RC responder takes a message only at the PSN it expects (an RC or
 *   XRC requester's sq_psn must equal its peer's rq_psn): out of sequence
 *   it NAKs or drops every retry, and the requester ends with
 *   TRANSPORT_RETRY_EXC; a UC responder starts over at any message's
 *   first packet.
 * 0, a requester syndrome, or M5M_UC_DROP; *npsn: the PSNs the message
 * takes (one per packet; a READ, one per response packet).
 */
static int m5m_on_the_wire(struct m5m_qp *qp, struct m5m_qp *dst,
			   const struct m5m_wqe *w, uint32_t *npsn)
{
	uint64_t len = w->has_atomic ? 8 : m5m_wqe_bytes(w);
	uint64_t mtu = m5m_mtu_bytes(qp->mtu);
	bool uc = qp->type == IBV_QPT_UC;

	*npsn = m5m_npkt(len, qp->mtu);
	if (len > m5m_mtu_bytes(dst->mtu) && mtu > m5m_mtu_bytes(dst->mtu))
		return uc ? M5M_UC_DROP : M5_SYND_TRANSPORT_RETRY_EXC_ERR;
	if (!uc && qp->sq_psn != dst->rq_psn)
		return M5_SYND_TRANSPORT_RETRY_EXC_ERR;
	return 0;
}

/* Run one WQE: 0, a requester syndrome, or M5M_PARKED. */
static int m5m_exec(struct m5m_qp *qp, const struct m5m_wqe *w,
		    uint32_t *byte_cnt)
{
	struct m5m_qp *dst = NULL;
	uint32_t npsn = 0;
	int ret;

	*byte_cnt = 0;
	/* NOP and UMR stay on the requester: no wire, no PSN. */
	if (w->opcode == M5M_OPCODE_UMR)
		return m5m_umr(qp, w);
	if (qp->wire && w->opcode != M5_OPCODE_NOP)
		return m5m_wire_send(qp, w, byte_cnt);
	if (qp->type != IBV_QPT_UD && w->opcode != M5_OPCODE_NOP) {
		dst = m5m_rc_dst(qp);
		if (!dst && qp->type != IBV_QPT_UC)
			return m5m_no_ack(qp);
		qp->retry_used = 0;
	}
	if (dst) {
		ret = m5m_on_the_wire(qp, dst, w, &npsn);
		if (ret == M5M_UC_DROP)
			return m5m_uc_drop(qp);
		if (ret)
			return ret;
	}
	if (qp->type == IBV_QPT_XRC_SEND && w->opcode != M5_OPCODE_NOP)
		ret = m5m_exec_xrc(qp, dst, w, byte_cnt);
	else
		ret = m5m_exec_op(qp, dst, w, byte_cnt);
	/* Taken (or, on UC, sent): both ends move past its PSNs. */
	if (dst && !ret) {
		qp->sq_psn = (qp->sq_psn + npsn) & 0xffffff;
		dst->rq_psn = qp->sq_psn;
	}
	return ret;
}

/* Flush the WQE at sq_hw with a flush-error CQE. */
static void m5m_sq_flush_one(struct m5m_qp *qp)
{
	const struct m5_ctrl_seg *c = m5m_sq_slot(qp, qp->sq_hw);
	uint32_t ds = be32toh(c->qpn_ds) & 0x3f;
	unsigned int nbb =
		(ds * M5_DS_UNIT + M5_SEND_WQE_BB - 1) / M5_SEND_WQE_BB;

	m5m_cqe_req_err(qp, qp->sq_hw, (uint8_t)be32toh(c->opmod_idx_opcode),
			M5_SYND_WR_FLUSH_ERR);
	qp->sq_hw += nbb ? nbb : 1;
}

/*
 * The WQE at sq_exec has run (0) or failed (a syndrome).  Synchronously
 * (f NULL) it completes now; on the slow device (m5m_slow.c) a success
 * waits in the QP's fly list, a failure first completes what flies.
 * f is taken.
 */
static void m5m_sq_done(struct m5m_qp *qp, const struct m5m_wqe *w,
			struct m5m_fly *f, int ret, uint32_t byte_cnt)
{
	/* On the wire a NOP with nothing ahead of it completes now. */
	if (f && !ret && !(qp->wire && !qp->fly && !f->npsn)) {
		m5m_fly_add(qp, f, byte_cnt);
		qp->sq_exec += w->nbb;
		return;
	}
	if (qp->fly)
		m5m_fly_complete(qp);
	if (qp->state == IBV_QPS_ERR) {
		m5m_fly_free(f); /* an earlier WQE failed: this one flushes */
		return;
	}
	if (ret) {
		m5m_cqe_req_err(qp, w->idx, w->opcode, (uint8_t)ret);
		qp->sq_hw = qp->sq_exec + w->nbb;
		m5m_fly_free(f);
		/* UD has no responder to fail: only the SQ stops. */
		if (qp->type == IBV_QPT_UD)
			m5m_qp_to_sqe(qp);
		else
			m5m_qp_to_err(qp);
		return;
	}
	if (w->fm_ce_se & M5_WQE_CTRL_CQ_UPDATE)
		m5m_cqe_req(qp, w, byte_cnt);
	qp->sq_hw += w->nbb;
	m5m_fly_free(f); /* a wire WQE that completed at once */
}

void m5m_sq_go(struct m5m_qp *qp, unsigned int budget)
{
	struct m5m_dev *dev = qp->dev;
	struct m5m_wqe *w, *x;
	struct m5m_fly *f;
	unsigned int n = 0;
	uint32_t byte_cnt;
	uint16_t limit;
	int ret;

	if (qp->in_sq_run)
		return;
	w = malloc(sizeof(*w));
	if (!w)
		return;
	qp->in_sq_run = true;
	for (;;) {
		if (qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_SQE) {
			/* Every WQE posted to a QP in error is flushed. */
			m5m_fly_drop(qp);
			if (qp->sq_hw == m5m_snd_dbrec(qp))
				break;
			m5m_sq_flush_one(qp);
			continue;
		}
		/* Nothing in flight: execution resumes where completion is. */
		if (!qp->fly)
			qp->sq_exec = qp->sq_hw;
		limit = qp->db_pi;
		if (qp->state != IBV_QPS_RTS || qp->parked ||
		    qp->sq_exec == limit || n == budget)
			break;
		/* The slow device keeps the WQE as read until it completes. */
		f = dev->slow || qp->wire ? m5m_fly_new(qp) : NULL;
		if ((dev->slow || qp->wire) && !f)
			break;
		x = f ? &f->w : w;
		if (!m5m_wqe_decode(qp, qp->sq_exec, x)) {
			/* On the wire it waits for what flies to complete. */
			if (qp->wire && qp->fly) {
				m5m_fly_free(f);
				break;
			}
			/* Lenient mode: the device rejects the WQE. */
			m5m_fly_complete(qp);
			if (qp->state != IBV_QPS_ERR) {
				m5m_cqe_req_err(qp, qp->sq_exec, x->opcode,
						M5_SYND_LOCAL_QP_OP_ERR);
				qp->sq_hw = qp->sq_exec + x->nbb;
				m5m_qp_to_err(qp);
			}
			m5m_fly_free(f);
			continue;
		}
		if (!m5m_check(dev, (uint16_t)(limit - qp->sq_exec) >= x->nbb,
			       "QP 0x%x: WQE 0x%04x of %u WQEBBs runs past "
			       "the SND dbrec 0x%04x",
			       qp->qpn, qp->sq_exec, x->nbb, limit) ||
		    (qp->fly &&
		     (m5m_fly_fenced(qp, x) || m5m_wire_reads_full(qp, x)))) {
			free(f);
			break;
		}
		qp->fly_cur = f;
		ret = m5m_exec(qp, x, &byte_cnt);
		qp->fly_cur = NULL;
		if (ret == M5M_PARKED) {
			m5m_fly_free(f);
			break;
		}
		dev->st.wqes++;
		n++;
		m5m_sq_done(qp, x, f, ret, byte_cnt);
	}
	qp->in_sq_run = false;
	free(w);
}

/* At the doorbell; the slow device only flushes here (m5m_sq_tick runs). */
void m5m_sq_run(struct m5m_qp *qp)
{
	m5m_sq_go(qp, qp->dev->slow ? 0 : ~0u);
}

/* --- Doorbells ------------------------------------------------------------ */

/*
 * Dynamic UARs: the doorbell must land on the UAR the QP was created on
 * (create_qp's page index); the halves alternate per register, whichever
 * QPs share it.
 */
static void m5m_db_checks_dyn(const struct m5m_db *db, unsigned int k,
			      unsigned int half)
{
	struct m5m_qp *qp = db->qp;
	struct m5m_dev *dev = db->c->dev;
	unsigned int r = db->sub * M5_NON_FP_BFREGS_PER_UAR + k;

	if (!m5m_check(dev, db->uobj == qp->uobj && db->uar == qp->uar_page,
		       "QP 0x%x rang UAR page 0x%x; it was created on page "
		       "0x%x",
		       qp->qpn, db->uar, qp->uar_page))
		return;
	if (!db->c->bf_reg_size || r >= M5M_UOBJ_REGS ||
	    db->uobj->type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF)
		return;
	m5m_check(dev, half == db->uobj->half[r],
		  "QP 0x%x: doorbell on half %u of register %u of UAR page "
		  "0x%x, the halves must alternate",
		  qp->qpn, half, k, db->uar);
	db->uobj->half[r] = (uint8_t)(half ^ 1);
}

static void m5m_db_checks(const struct m5m_db *db, uint16_t idx,
			  unsigned int ds)
{
	struct m5m_qp *qp = db->qp;
	struct m5m_ctx *c = db->c;
	struct m5m_dev *dev = c->dev;
	unsigned int nbb = (ds * M5_DS_UNIT + 63) / 64, half = 0, k = 0;
	uint8_t wqe[M5M_MAX_WQE_BYTES + 64];
	uint16_t snd = m5m_snd_dbrec(qp), i;

	if (c->bf_reg_size) {
		k = (db->reg - M5_BF_OFFSET) / c->bf_reg_size;
		half = (db->reg - M5_BF_OFFSET) % c->bf_reg_size /
		       (c->bf_reg_size / 2);
	}
	if (qp->uobj) {
		m5m_db_checks_dyn(db, k, half);
	} else {
		m5m_check(dev,
			  !db->uobj &&
				  db->uar ==
					  qp->bfreg_index / M5_BFREGS_PER_UAR &&
				  (!c->bf_reg_size ||
				   k == qp->bfreg_index % M5_BFREGS_PER_UAR),
			  "QP 0x%x rang UAR %u register %u; it was given "
			  "bfreg %u",
			  qp->qpn, db->uar, k, qp->bfreg_index);
	}
	/*
	 * Halves alternate on every bfreg that may carry BlueFlame.  bfreg 0
	 * never does; a doorbell may land on either half of it (libmlx5
	 * alternates there too, the backend keeps to half 0 because bfreg 0
	 * is shared without a lock).
	 */
	if (c->bf_reg_size && !qp->uobj && qp->bfregn) {
		m5m_check(dev, half == c->bf_half[qp->bfregn],
			  "QP 0x%x: doorbell on half %u of bfreg %u, the "
			  "halves must alternate",
			  qp->qpn, half, qp->bfreg_index);
		c->bf_half[qp->bfregn] = (uint8_t)(half ^ 1);
	}
	m5m_check(dev,
		  ds && (uint16_t)(idx + nbb - qp->sq_hw) <=
				  (uint16_t)(snd - qp->sq_hw),
		  "QP 0x%x: doorbell names WQE 0x%04x (%u WQEBBs) beyond "
		  "the SND dbrec 0x%04x",
		  qp->qpn, idx, nbb, snd);
	if (!nbb || nbb > qp->sq_bbs)
		return;
	for (i = 0; i < nbb; i++)
		memcpy(wqe + i * 64, m5m_sq_slot(qp, (uint16_t)(idx + i)), 64);
	m5m_check(dev, !memcmp(wqe, db->bytes, 8),
		  "QP 0x%x: doorbell bytes differ from the WQE's first 8",
		  qp->qpn);
	if (!db->bf)
		return;
	m5m_check(dev, qp->uobj || qp->bfregn != 0, "BlueFlame on bfreg 0");
	m5m_check(dev, db->len == nbb * 64 && db->len <= c->bf_reg_size / 2,
		  "BlueFlame copy of %u bytes for a WQE of ds %u (half %u)",
		  db->len, ds, c->bf_reg_size / 2);
	m5m_check(dev,
		  db->src == m5m_sq_slot(qp, idx) && db->sq_start == qp->sq &&
			  db->sq_end == qp->sq + (size_t)qp->sq_bbs * 64,
		  "QP 0x%x: BlueFlame source is not the SQ slot of WQE 0x%04x",
		  qp->qpn, idx);
	m5m_check(dev,
		  !memcmp(wqe, db->bytes,
			  db->len < nbb * 64 ? db->len : nbb * 64),
		  "QP 0x%x: BlueFlame payload differs from the WQE in host "
		  "memory",
		  qp->qpn);
}

void m5m_send_doorbell(const struct m5m_db *db)
{
	struct m5m_qp *qp = db->qp;
	struct m5m_dev *dev = db->c->dev;
	uint32_t v0 = be32toh(*(const __be32 *)db->bytes);
	uint32_t v1 = be32toh(*(const __be32 *)(db->bytes + 4));

	m5m_odp_work(dev);
	dev->st.doorbells++;
	if (db->bf)
		dev->st.bf_doorbells++;
	m5m_db_checks(db, (uint16_t)(v0 >> 8), v1 & 0x3f);
	if (m5m_fault_take(dev, M5M_FAULT_DROP_DOORBELL)) {
		dev->st.dropped_doorbells++;
		return;
	}
	qp->db_pi = m5m_snd_dbrec(qp);
	m5m_sq_run(qp);
}

/* --- Doorbell recovery (no doorbell seen) --------------------------------- */

unsigned int m5m_doorbell_recovery(struct m5m_dev *dev)
{
	struct m5m_srq *srq;
	struct m5m_qp *qp;
	uint64_t wqes;
	uint32_t i;

	m5m_lock();
	m5m_step_locked(dev);
	wqes = dev->st.wqes;
	/* Receives first: a send parked by RNR may be waiting for one. */
	for (i = 0; i < dev->srqs.cap; i++) {
		srq = dev->srqs.slot[i];
		if (srq)
			m5m_srq_posted(srq);
	}
	for (i = 0; i < dev->qps.cap; i++) {
		qp = dev->qps.slot[i];
		if (qp && !qp->srq && qp->rq_cnt &&
		    qp->state != IBV_QPS_RESET &&
		    m5m_rcv_dbrec(qp) != qp->rq_seen)
			m5m_rq_posted(qp);
	}
	for (i = 0; i < dev->qps.cap; i++) {
		qp = dev->qps.slot[i];
		if (!qp || !qp->sq_bbs || qp->state == IBV_QPS_RESET)
			continue;
		qp->db_pi = m5m_snd_dbrec(qp);
		qp->snd_seen = qp->db_pi;
		m5m_sq_run(qp);
	}
	wqes = dev->st.wqes - wqes;
	m5m_unlock();
	return (unsigned int)wqes;
}
