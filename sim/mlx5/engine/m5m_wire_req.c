// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester of an RC or UC QP whose messages cross a wire (RoCE,
 * qp->wire): each WQE leaves as packets of the path MTU (IBA volume 1,
 * 9.4-9.7) and waits in the QP's fly list (m5m_slow.c) until it is
 * acknowledged; the WQEs behind it go out meanwhile.
 *
 * - A SEND or RDMA WRITE takes one PSN per packet, AckReq on its last;
 *   a READ request one packet, and one PSN per response packet it asks
 *   for; an atomic one.  The bytes are gathered from host memory at
 *   every (re)transmission, as hardware does.
 * - An ACK completes every WQE whose last PSN it covers; a READ or
 *   atomic completes when its responses are all here (their data lands
 *   in the local SGEs at completion, m5m_fly_land).
 * - A READ's responses are taken in PSN order.  One past a gap is an
 *   implied NAK (IBA 9.7.5.1.x, as rxe and hardware treat it): the READ
 *   is asked again at once for the rest, from the first missing
 *   response's PSN with the RETH moved on by the bytes already here
 *   (the responder answers it as a duplicate), once per gap; that counts
 *   as a retry, and new response data as progress.
 * - The response at the PSN a READ waits for lands whichever of its asks
 *   it answers: each asks for the same bytes at a PSN.  Were only a FIRST
 *   at the last ask's PSN taken, the answers to earlier asks still on a
 *   congested wire would bring nothing, and each ACK timeout would ask
 *   again behind them, until the retries ran out (seen in two-host runs).
 * - The retry count starts again whenever the responder shows progress:
 *   a WQE completes, a READ response brings data, or a sequence NAK
 *   names a new PSN.
 * - A sequence NAK resends from its PSN (go-back-N); an RNR NAK waits its
 *   timer, then resends, rnr_retry times (7: for ever); another NAK fails
 *   its WQE with the matching syndrome and the QP goes to ERR.
 * - No answer for the local ACK timeout (4.096 us << timeout; 0: none)
 *   resends from the oldest unacknowledged PSN, retry_cnt times, then the
 *   WQE fails with TRANSPORT_RETRY_EXC.
 * - At most max_rd_atomic READs and atomics wait for their responses
 *   (the QPC's log_sra_max); another one waits in the SQ until one of
 *   them is answered, and the WQEs behind it with it.
 * - UC sends the same packets, asks for no ACK and completes at once.
 * - A local error (a bad lkey) waits until what flies has completed, so
 *   that the completions stay in SQ order.
 */
#include <stdlib.h>
#include <string.h>

#include "m5m_ibt.h"
#include "m5m_int.h"

bool m5m_psn_le(uint32_t a, uint32_t b)
{
	return ((b - a) & IBT_PSN_MASK) < 0x800000;
}

void m5m_wire_tx(struct m5m_qp *qp, const struct m5_av *av, uint8_t op,
		 uint8_t se, uint32_t psn, bool ackreq, const void *ext,
		 size_t ext_len, const uint8_t *pay, uint32_t pay_len)
{
	uint8_t pkt[IBT_MAX_HDRS + 8 + 4096 + 4];
	struct ibt_bth *b = (struct ibt_bth *)pkt;
	unsigned int pad = (4 - pay_len % 4) % 4;
	size_t len = sizeof(*b) + ext_len;

	if (!qp->dev->ops->wire_tx || len + pay_len + pad > sizeof(pkt))
		return;
	b->opcode = op;
	b->flags = (uint8_t)(se | pad << IBT_PAD_SHIFT);
	b->pkey = htobe16(0xffff);
	/* UD: the AV's QP; a connected QP: its peer. */
	b->dqpn = htobe32((av ? be32toh(av->dqp_dct) : qp->dest_qpn) &
			  IBT_QPN_MASK);
	b->apsn = htobe32((ackreq ? IBT_ACKREQ : 0) | (psn & IBT_PSN_MASK));
	memcpy(pkt + sizeof(*b), ext, ext_len);
	if (pay_len)
		memcpy(pkt + len, pay, pay_len);
	memset(pkt + len + pay_len, 0, pad);
	qp->dev->st.wire_packets++;
	qp->dev->ops->wire_tx(qp->dev->ops_arg, qp, av, pkt,
			      len + pay_len + pad);
}

static uint8_t wire_transport(const struct m5m_qp *qp)
{
	return qp->type == IBV_QPT_UC ? 0x20 : IBT_RC;
}

/* The packets of a SEND or WRITE from PSN from on. */
static int wire_xmit_msg(struct m5m_qp *qp, const struct m5m_fly *f,
			 uint32_t from)
{
	const struct m5m_wqe *w = &f->w;
	uint64_t mtu = m5m_mtu_bytes(qp->mtu);
	bool write = w->opcode == M5_OPCODE_RDMA_WRITE ||
		     w->opcode == M5_OPCODE_RDMA_WRITE_IMM;
	bool imm = w->opcode == M5_OPCODE_RDMA_WRITE_IMM ||
		   w->opcode == M5_OPCODE_SEND_IMM;
	bool inv = w->opcode == M5_OPCODE_SEND_INVAL;
	uint8_t ext[sizeof(struct ibt_reth) + 4], *msg = NULL, op, se;
	uint32_t len, k, n, part;
	struct ibt_reth reth;
	size_t el;
	int ret;

	ret = m5m_gather(qp, w, &msg, &len);
	if (ret)
		return ret;
	se = w->fm_ce_se & M5_WQE_CTRL_SOLICITED ? IBT_SE : 0;
	for (k = (from - f->psn) & IBT_PSN_MASK; k < f->npsn; k++) {
		bool first = k == 0, last = k + 1 == f->npsn;

		part = last ? len - k * (uint32_t)mtu : (uint32_t)mtu;
		el = 0;
		if (write && first) {
			reth.va = htobe64(w->raddr);
			reth.rkey = htobe32(w->rkey);
			reth.dma_len = htobe32(len);
			memcpy(ext, &reth, sizeof(reth));
			el = sizeof(reth);
		}
		if (last && (imm || inv)) {
			memcpy(ext + el, &w->imm, 4);
			el += 4;
		}
		n = first && last ? 4 : first ? 0 : last ? 2 : 1;
		if (write)
			op = (uint8_t)(n == 4 ? IBT_WRITE_ONLY
					      : IBT_WRITE_FIRST + n);
		else
			op = (uint8_t)(n == 4 ? IBT_SEND_ONLY
					      : IBT_SEND_FIRST + n);
		if (imm && last)
			op++;
		if (inv && last)
			op = n == 4 ? IBT_SEND_ONLY_INV : IBT_SEND_LAST_INV;
		m5m_wire_tx(qp, NULL, (uint8_t)(wire_transport(qp) | op),
			    last ? se : 0, f->psn + k,
			    last && qp->type != IBV_QPT_UC, ext, el,
			    msg + (uint64_t)k * mtu, part);
	}
	free(msg);
	return 0;
}

/*
 * Send the WQE f holds from PSN from; a READ from its first response not
 * here yet, an atomic whole.
 */
static int wire_xmit(struct m5m_qp *qp, struct m5m_fly *f, uint32_t from)
{
	const struct m5m_wqe *w = &f->w;
	struct ibt_atomic_eth ae;
	struct ibt_reth reth;
	uint64_t done_bytes;

	f->gap = 0;
	switch (w->opcode) {
	case M5_OPCODE_RDMA_READ:
		done_bytes = (uint64_t)f->got * m5m_mtu_bytes(qp->mtu);
		reth.va = htobe64(w->raddr + done_bytes);
		reth.rkey = htobe32(w->rkey);
		reth.dma_len = htobe32(f->resp_len - (uint32_t)done_bytes);
		m5m_wire_tx(qp, NULL, IBT_READ_REQUEST, 0, f->psn + f->got,
			    true, &reth, sizeof(reth), NULL, 0);
		return 0;
	case M5_OPCODE_ATOMIC_CS:
	case M5_OPCODE_ATOMIC_FA:
		ae.va = htobe64(w->raddr);
		ae.rkey = htobe32(w->rkey);
		ae.swap_add = htobe64(w->swap_add);
		ae.compare = htobe64(w->compare);
		m5m_wire_tx(qp, NULL,
			    w->opcode == M5_OPCODE_ATOMIC_CS ? IBT_CMP_SWAP
							     : IBT_FETCH_ADD,
			    0, f->psn, true, &ae, sizeof(ae), NULL, 0);
		return 0;
	default:
		return wire_xmit_msg(qp, f, from);
	}
}

/*
 * A UD SEND: one packet, DETH (the AV's Q_Key, or the QP's own when its
 * high bit is set, and this QP) after the BTH; it completes once sent.
 */
static int wire_send_ud(struct m5m_qp *qp, const struct m5m_wqe *w,
			uint32_t *byte_cnt)
{
	uint8_t ext[sizeof(struct ibt_deth) + 4], *msg = NULL;
	bool imm = w->opcode == M5_OPCODE_SEND_IMM;
	struct ibt_deth d;
	uint32_t len, qkey;
	int ret;

	if (w->opcode != M5_OPCODE_SEND && !imm)
		return M5_SYND_LOCAL_QP_OP_ERR;
	ret = m5m_gather(qp, w, &msg, &len);
	if (ret)
		return ret;
	*byte_cnt = len;
	if (len > m5m_mtu_bytes(qp->dev->cfg.mtu)) {
		free(msg);
		return M5_SYND_LOCAL_LENGTH_ERR;
	}
	qkey = be32toh(w->av->key.qkey.qkey);
	if (qkey & 0x80000000u)
		qkey = qp->qkey;
	d.qkey = htobe32(qkey);
	d.sqpn = htobe32(qp->wire_qpn & IBT_QPN_MASK);
	memcpy(ext, &d, sizeof(d));
	if (imm)
		memcpy(ext + sizeof(d), &w->imm, 4);
	m5m_wire_tx(
		qp, w->av,
		(uint8_t)(IBT_UD | (imm ? IBT_SEND_ONLY_IMM : IBT_SEND_ONLY)),
		w->fm_ce_se & M5_WQE_CTRL_SOLICITED ? IBT_SE : 0, qp->sq_psn,
		false, ext, sizeof(d) + (imm ? 4 : 0), msg, len);
	qp->sq_psn = (qp->sq_psn + 1) & IBT_PSN_MASK;
	free(msg);
	return 0;
}

bool m5m_wire_reads_full(const struct m5m_qp *qp, const struct m5m_wqe *w)
{
	const struct m5m_fly *f;
	unsigned int n = 0;

	if (!qp->wire || (w->opcode != M5_OPCODE_RDMA_READ &&
			  w->opcode != M5_OPCODE_ATOMIC_CS &&
			  w->opcode != M5_OPCODE_ATOMIC_FA))
		return false;
	for (f = qp->fly; f; f = f->next)
		n += f->resp && !f->done;
	return n >= qp->max_rd_atomic;
}

int m5m_wire_send(struct m5m_qp *qp, const struct m5m_wqe *w,
		  uint32_t *byte_cnt)
{
	struct m5m_fly *f = qp->fly_cur;
	uint64_t len = m5m_wqe_bytes(w);
	bool uc = qp->type == IBV_QPT_UC;
	int ret = 0;

	if (qp->type == IBV_QPT_UD)
		return wire_send_ud(qp, w, byte_cnt);
	switch (w->opcode) {
	case M5_OPCODE_SEND:
	case M5_OPCODE_SEND_IMM:
	case M5_OPCODE_SEND_INVAL:
	case M5_OPCODE_RDMA_WRITE:
	case M5_OPCODE_RDMA_WRITE_IMM:
		if (len > M5M_MAX_MSG)
			ret = M5_SYND_LOCAL_LENGTH_ERR;
		f->npsn = m5m_npkt(len, qp->mtu);
		break;
	case M5_OPCODE_RDMA_READ:
	case M5_OPCODE_ATOMIC_CS:
	case M5_OPCODE_ATOMIC_FA:
		if (uc) {
			ret = M5_SYND_LOCAL_QP_OP_ERR;
			break;
		}
		if (w->opcode != M5_OPCODE_RDMA_READ)
			len = 8;
		if (len > M5M_MAX_MSG)
			ret = M5_SYND_LOCAL_LENGTH_ERR;
		else
			ret = m5m_sge_writable(qp, w);
		f->npsn = w->opcode == M5_OPCODE_RDMA_READ
				  ? m5m_npkt(len, qp->mtu)
				  : 1;
		if (!ret) {
			f->resp = calloc(1, len ? len : 1);
			f->resp_len = (uint32_t)len;
			if (!f->resp)
				ret = M5_SYND_LOCAL_LENGTH_ERR;
		}
		break;
	default:
		ret = M5_SYND_LOCAL_QP_OP_ERR;
	}
	f->psn = qp->sq_psn;
	/* A local key that fails sends nothing (wire_xmit gathers first). */
	if (!ret)
		ret = wire_xmit(qp, f, f->psn);
	if (ret && qp->fly)
		return M5M_PARKED; /* after what flies, in SQ order */
	if (ret)
		return ret;
	*byte_cnt = (uint32_t)len;
	qp->sq_psn = (qp->sq_psn + f->npsn) & IBT_PSN_MASK;
	if (uc) {
		f->npsn = 0; /* nothing to wait for */
		return 0;
	}
	if (!qp->wire_due)
		qp->wire_due = m5m_ack_deadline(qp);
	return 0;
}

/* Resend every packet from PSN from on. */
static void wire_resend(struct m5m_qp *qp, uint32_t from)
{
	struct m5m_fly *f;

	qp->dev->st.wire_resends++;
	for (f = qp->fly; f; f = f->next) {
		if (!f->npsn || m5m_psn_le(f->psn + f->npsn, from))
			continue;
		if (f->resp && f->done)
			continue;
		wire_xmit(qp, f, m5m_psn_le(from, f->psn) ? f->psn : from);
	}
	qp->wire_due = m5m_ack_deadline(qp);
}

/* The oldest WQE in flight fails with synd; the rest are flushed. */
static void wire_fail(struct m5m_qp *qp, uint8_t synd)
{
	struct m5m_fly *f = qp->fly;

	if (!f)
		return;
	qp->fly = f->next;
	m5m_cqe_req_err(qp, f->w.idx, f->w.opcode, synd);
	qp->sq_hw += f->w.nbb;
	m5m_fly_free(f);
	qp->wire_due = 0;
	m5m_qp_to_err(qp);
	m5m_sq_go(qp, 0);
}

/*
 * Complete the WQEs PSN acked covers (have: an ACK came; else only those
 * with no PSN of their own), and the READs and atomics whose responses
 * are all here, in SQ order.  An ACK past a READ or atomic still waiting
 * for its response means the response was lost: it is asked again.
 */
static void wire_reap(struct m5m_qp *qp, uint32_t acked, bool have)
{
	struct m5m_fly *f;
	bool moved = false;

	while ((f = qp->fly)) {
		/* A READ or atomic all answered needs no ACK of its own. */
		if (f->npsn && !(f->resp && f->done) &&
		    (!have || !m5m_psn_le(f->psn + f->npsn - 1, acked)))
			break;
		if (f->resp && !f->done) {
			/* Once, until an answer moves it on. */
			if (have && m5m_psn_le(f->psn, acked) &&
			    f->gap != f->got + 1) {
				wire_resend(qp, f->psn);
				f->gap = f->got + 1;
			}
			break;
		}
		moved = true;
		if (!m5m_fly_complete_one(qp))
			return;
	}
	if (moved) {
		qp->retry_used = 0;
		qp->rnr_used = 0;
		qp->wire_due = qp->fly ? m5m_ack_deadline(qp) : 0;
	}
}

static uint8_t nak_synd(uint8_t code)
{
	switch (code) {
	case IBT_NAK_INVALID_REQ:
		return M5_SYND_REMOTE_INVAL_REQ_ERR;
	case IBT_NAK_REMOTE_ACCESS:
		return M5_SYND_REMOTE_ACCESS_ERR;
	default:
		return M5_SYND_REMOTE_OP_ERR;
	}
}

static void wire_ack(struct m5m_qp *qp, uint32_t psn, uint8_t syn)
{
	uint8_t val = syn & IBT_AETH_VAL;

	switch (syn & IBT_AETH_KIND) {
	case IBT_AETH_ACK:
		wire_reap(qp, psn, true);
		return;
	case IBT_AETH_RNR:
		wire_reap(qp, psn - 1, true);
		if (!qp->fly)
			return;
		qp->dev->st.rnr_naks++;
		if (!m5m_rnr_retry(qp)) {
			wire_fail(qp, M5_SYND_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->wire_rnr = true;
		qp->wire_from = psn;
		qp->wire_due = qp->dev->now + m5m_rnr_timer_us(val);
		return;
	case IBT_AETH_NAK:
		wire_reap(qp, psn - 1, true);
		if (!qp->fly)
			return;
		if (val == IBT_NAK_PSN_SEQ) {
			/* The responder took packets up to psn: progress. */
			if (qp->wire_nak != psn + 1)
				qp->retry_used = 0;
			qp->wire_nak = psn + 1;
			wire_resend(qp, psn);
		} else
			wire_fail(qp, nak_synd(val));
		return;
	default:
		return; /* reserved: ignored */
	}
}

/* The WQE in flight whose PSNs hold psn, if it waits for a response. */
static struct m5m_fly *wire_waiting(struct m5m_qp *qp, uint32_t psn)
{
	struct m5m_fly *f;

	for (f = qp->fly; f; f = f->next)
		if (f->npsn && m5m_psn_le(f->psn, psn) &&
		    !m5m_psn_le(f->psn + f->npsn, psn))
			return f->resp && !f->done ? f : NULL;
	return NULL;
}

static void wire_read_resp(struct m5m_qp *qp, uint8_t op, uint32_t psn,
			   const uint8_t *pay, uint32_t n)
{
	struct m5m_fly *f = wire_waiting(qp, psn);
	uint64_t mtu = m5m_mtu_bytes(qp->mtu), off;
	bool last = op == IBT_READ_RESP_LAST || op == IBT_READ_RESP_ONLY;
	uint32_t k;

	if (!f || f->w.opcode != M5_OPCODE_RDMA_READ)
		return; /* not a READ's */
	k = (psn - f->psn) & IBT_PSN_MASK;
	if (k < f->got)
		return; /* here already */
	if (k > f->got) {
		/* A gap: ask for the rest, once per gap. */
		if (f->gap == f->got + 1 || f != qp->fly)
			return;
		if (!m5m_ack_retry(qp)) {
			wire_fail(qp, M5_SYND_TRANSPORT_RETRY_EXC_ERR);
			return;
		}
		qp->dev->st.wire_resends++;
		wire_xmit(qp, f, f->psn + f->got);
		f->gap = f->got + 1;
		qp->wire_due = m5m_ack_deadline(qp);
		return;
	}
	off = (uint64_t)f->got * mtu;
	if ((!last && n != mtu) || off + n > f->resp_len ||
	    (last && off + n != f->resp_len) || last != (f->got + 1 == f->npsn))
		return;
	memcpy(f->resp + off, pay, n);
	f->got++;
	qp->retry_used = 0; /* progress */
	if (last) {
		f->done = true;
		wire_reap(qp, f->psn + f->npsn - 1, true);
	}
}

/* A response (ACK, READ response, atomic ACK) to this requester. */
static void wire_req_in(struct m5m_qp *qp, uint8_t op, uint32_t psn,
			const uint8_t *p, size_t n, unsigned int pad)
{
	const struct ibt_aeth *a = (const void *)p;
	bool aeth = op != IBT_READ_RESP_MIDDLE;
	uint8_t syn = 0;
	struct m5m_fly *f;
	uint64_t orig;

	if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD &&
	    qp->state != IBV_QPS_SQE)
		return;
	if (aeth) {
		if (n < sizeof(*a) + pad)
			return;
		syn = (uint8_t)(be32toh(a->syn_msn) >> 24);
		p += sizeof(*a);
		n -= sizeof(*a);
	}
	if (n < pad)
		return;
	n -= pad;
	switch (op) {
	case IBT_ACK:
		wire_ack(qp, psn, syn);
		break;
	case IBT_ATOMIC_ACK:
		f = wire_waiting(qp, psn);
		if (!f || f->psn != psn || n < sizeof(orig) ||
		    f->w.opcode == M5_OPCODE_RDMA_READ)
			return;
		memcpy(&orig, p, sizeof(orig));
		orig = be64toh(orig); /* 8-byte host-endian atomics */
		memcpy(f->resp, &orig, sizeof(orig));
		f->done = true;
		wire_reap(qp, psn, true);
		break;
	default:
		if ((syn & IBT_AETH_KIND) != IBT_AETH_ACK)
			return;
		wire_read_resp(qp, op, psn, p, (uint32_t)n);
	}
	m5m_sq_go(qp, ~0u); /* what waited on the window or a fence */
}

/*
 * A UD SEND for this QP: the DETH's Q_Key and source QP, the GRH area
 * of the receive buffer from the packet's IP header (grh), then
 * m5m_deliver's checks (the QP's state and Q_Key) as for the IB port.
 */
static void wire_ud_in(struct m5m_qp *qp, const uint8_t *pkt, size_t len,
		       const uint8_t *grh)
{
	const struct ibt_bth *b = (const void *)pkt;
	unsigned int pad = (b->flags & IBT_PAD_MASK) >> IBT_PAD_SHIFT;
	size_t h = sizeof(*b) + sizeof(struct ibt_deth);
	uint8_t op = b->opcode, synd;
	struct m5m_qp peer = { 0 };
	struct ibt_deth d;
	struct m5_av av;
	struct m5m_wqe w;

	if (op == (IBT_UD | IBT_SEND_ONLY_IMM))
		h += 4;
	else if (op != (IBT_UD | IBT_SEND_ONLY))
		return;
	if (len < h + pad)
		return;
	memcpy(&d, pkt + sizeof(*b), sizeof(d));
	memset(&av, 0, sizeof(av));
	memset(&w, 0, sizeof(w));
	av.key.qkey.qkey = d.qkey;
	av.grh_gid_fl = htobe32(1u << 30); /* RoCE: a GRH always came */
	peer.qpn = be32toh(d.sqpn) & IBT_QPN_MASK;
	peer.dev = qp->dev;
	peer.qkey = be32toh(d.qkey);
	w.opcode = h > sizeof(*b) + sizeof(d) ? M5_OPCODE_SEND_IMM
					      : M5_OPCODE_SEND;
	if (w.opcode == M5_OPCODE_SEND_IMM)
		memcpy(&w.imm, pkt + h - 4, 4);
	w.fm_ce_se = b->flags & IBT_SE ? M5_WQE_CTRL_SOLICITED : 0;
	w.av = &av;
	w.grh = grh;
	w.pkey = be16toh(b->pkey);
	if (m5m_deliver(&peer, &w, qp, pkt + h, (uint32_t)(len - h - pad),
			&synd) == M5M_RX_DROP)
		qp->dev->st.ud_dropped++;
}

void m5m_wire_rx(struct m5m_qp *qp, const uint8_t *pkt, size_t len,
		 const uint8_t *grh)
{
	const struct ibt_bth *b = (const void *)pkt;
	uint8_t op;

	if (len < sizeof(*b))
		return;
	qp->dev->st.wire_received++;
	if (qp->type == IBV_QPT_UD) {
		wire_ud_in(qp, pkt, len, grh);
		return;
	}
	op = b->opcode & 0x1f;
	if ((b->opcode & 0xe0) != wire_transport(qp))
		return; /* another transport's packet: dropped */
	if (op >= IBT_READ_RESP_FIRST && op <= IBT_ATOMIC_ACK &&
	    qp->type == IBV_QPT_RC)
		wire_req_in(qp, op, be32toh(b->apsn) & IBT_PSN_MASK,
			    pkt + sizeof(*b), len - sizeof(*b),
			    (b->flags & IBT_PAD_MASK) >> IBT_PAD_SHIFT);
	else
		m5m_wire_rsp_in(qp, pkt, len);
}

void m5m_wire_timer(struct m5m_qp *qp)
{
	if (!qp->wire_due || qp->wire_due > qp->dev->now)
		return;
	qp->wire_due = 0;
	if (!qp->fly || qp->state == IBV_QPS_ERR)
		return;
	if (qp->wire_rnr) {
		qp->wire_rnr = false;
		wire_resend(qp, qp->wire_from);
		return;
	}
	qp->dev->st.ack_timeouts++;
	if (!m5m_ack_retry(qp)) {
		wire_fail(qp, M5_SYND_TRANSPORT_RETRY_EXC_ERR);
		return;
	}
	wire_resend(qp, qp->fly->psn);
}

void m5m_wire_free(struct m5m_qp *qp)
{
	if (qp->rsp)
		free(qp->rsp->buf);
	free(qp->rsp);
	qp->rsp = NULL;
}
