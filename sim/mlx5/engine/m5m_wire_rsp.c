// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder of an RC or UC QP on the wire (RoCE): request packets in
 * PSN order (IBA volume 1, 9.7.5 and 9.9).
 *
 * - The packet at the expected PSN (rq_psn) runs; one ahead of it gets a
 *   sequence NAK (once, until rq_psn moves); one behind it is a
 *   duplicate: a SEND or WRITE is acknowledged again, a READ answered
 *   again from memory, an atomic from the answers kept (never run
 *   twice).  UC takes a new message's first packet at any PSN and drops
 *   the rest of a message that lost a packet.
 * - A message's packets must follow FIRST, MIDDLE..., LAST, each but the
 *   last of the path MTU exactly: anything else is an invalid request.
 * - A SEND needs a receive WQE at its first packet (else RNR NAK, the
 *   requester tries again) and lands whole at its last (m5m_deliver);
 *   a WRITE's RETH is checked for the whole range at its first packet,
 *   its bytes land as they come.
 * - Answers: an ACK for every packet with AckReq but a READ or atomic
 *   request (its response acknowledges it), MSN the messages done; a
 *   remote access or invalid request NAK moves the QP to ERR.
 */
#include <stdlib.h>
#include <string.h>

#include "m5m_ibt.h"
#include "m5m_int.h"

/* struct m5m_rsp.in: the kind of message under way. */
enum { IN_NONE, IN_SEND, IN_WRITE };

/* An AETH: syndrome syn, the messages done (MSN). */
static struct ibt_aeth aeth_of(const struct m5m_qp *qp, uint8_t syn)
{
	struct ibt_aeth a = {
		.syn_msn = htobe32((uint32_t)syn << 24 |
				   (qp->rsp->msn & IBT_PSN_MASK)),
	};

	return a;
}

static void rsp_aeth(struct m5m_qp *qp, uint8_t syn, uint32_t psn)
{
	struct ibt_aeth a = aeth_of(qp, syn);

	m5m_wire_tx(qp, NULL, IBT_ACK, 0, psn, false, &a, sizeof(a), NULL, 0);
}

static void rsp_nak(struct m5m_qp *qp, uint8_t code, uint32_t psn)
{
	if (qp->type == IBV_QPT_UC)
		return;
	rsp_aeth(qp, IBT_AETH_NAK | code, psn);
}

/* A request the responder cannot run: NAK, and the QP goes to ERR. */
static void rsp_fail(struct m5m_qp *qp, uint8_t code, uint32_t psn)
{
	struct m5m_rsp *r = qp->rsp;

	r->in = 0;
	if (qp->type == IBV_QPT_UC) {
		qp->dev->st.uc_dropped++;
		return;
	}
	rsp_nak(qp, code, psn);
	m5m_async_qp(qp, code == IBT_NAK_REMOTE_ACCESS
				 ? M5M_EVENT_WQ_ACCESS
				 : M5M_EVENT_WQ_INVAL_REQ);
	m5m_qp_to_err(qp);
}

static void rsp_rnr(struct m5m_qp *qp, uint32_t psn)
{
	struct m5m_rsp *r = qp->rsp;

	r->in = 0;
	qp->rq_psn = psn; /* the message starts again at its first packet */
	if (qp->type == IBV_QPT_UC) {
		qp->dev->st.uc_dropped++;
		return;
	}
	qp->dev->st.rnr_naks++;
	rsp_aeth(qp, (uint8_t)(IBT_AETH_RNR | (qp->min_rnr_timer & 0x1f)), psn);
}

/* The READ's responses, PSNs from psn on (again, for a duplicate). */
static void rsp_read(struct m5m_qp *qp, uint32_t psn,
		     const struct ibt_reth *reth)
{
	uint64_t mtu = m5m_mtu_bytes(qp->mtu), va = be64toh(reth->va);
	uint32_t len = be32toh(reth->dma_len), rkey = be32toh(reth->rkey);
	uint32_t n = m5m_npkt(len, qp->mtu), k;
	struct ibt_aeth a = aeth_of(qp, IBT_AETH_NO_CREDIT);
	uint8_t *buf = malloc(len ? len : 1);
	uint32_t part;
	uint8_t op;

	if (!buf)
		return;
	if (len &&
	    m5m_dma_from(qp->pd, rkey, va, buf, len, IBV_ACCESS_REMOTE_READ)) {
		free(buf);
		return;
	}
	for (k = 0; k < n; k++) {
		bool first = k == 0, last = k + 1 == n;

		part = last ? len - k * (uint32_t)mtu : (uint32_t)mtu;
		op = first && last ? IBT_READ_RESP_ONLY
		     : first	   ? IBT_READ_RESP_FIRST
		     : last	   ? IBT_READ_RESP_LAST
				   : IBT_READ_RESP_MIDDLE;
		m5m_wire_tx(qp, NULL, op, 0, psn + k, false, &a,
			    op == IBT_READ_RESP_MIDDLE ? 0 : sizeof(a),
			    buf + (uint64_t)k * mtu, part);
	}
	free(buf);
}

static void rsp_atomic_ack(struct m5m_qp *qp, uint32_t psn, uint64_t orig)
{
	uint8_t ext[sizeof(struct ibt_aeth) + sizeof(struct ibt_atomic_ack)];
	struct ibt_aeth a = aeth_of(qp, IBT_AETH_NO_CREDIT);
	struct ibt_atomic_ack k = { .orig = htobe64(orig) };

	memcpy(ext, &a, sizeof(a));
	memcpy(ext + sizeof(a), &k, sizeof(k));
	m5m_wire_tx(qp, NULL, IBT_ATOMIC_ACK, 0, psn, false, ext, sizeof(ext),
		    NULL, 0);
}

/* A request behind rq_psn: answered again, never run again. */
static void rsp_duplicate(struct m5m_qp *qp, uint8_t op, uint32_t psn,
			  bool ackreq, const uint8_t *p, size_t n)
{
	struct m5m_rsp *r = qp->rsp;
	unsigned int i;

	if (op == IBT_READ_REQUEST && n >= sizeof(struct ibt_reth)) {
		rsp_read(qp, psn, (const struct ibt_reth *)p);
		return;
	}
	if (op == IBT_CMP_SWAP || op == IBT_FETCH_ADD) {
		for (i = 0; i < sizeof(r->atom) / sizeof(r->atom[0]); i++)
			if (r->atom[i].valid && r->atom[i].psn == psn)
				rsp_atomic_ack(qp, psn, r->atom[i].orig);
		return;
	}
	if (ackreq)
		rsp_aeth(qp, IBT_AETH_NO_CREDIT,
			 (qp->rq_psn - 1) & IBT_PSN_MASK);
}

/* The header bytes after the BTH an opcode carries. */
static size_t rsp_hdrs(uint8_t op)
{
	switch (op) {
	case IBT_WRITE_FIRST:
	case IBT_WRITE_ONLY:
	case IBT_READ_REQUEST:
		return sizeof(struct ibt_reth);
	case IBT_WRITE_ONLY_IMM:
		return sizeof(struct ibt_reth) + 4;
	case IBT_SEND_LAST_IMM:
	case IBT_SEND_ONLY_IMM:
	case IBT_WRITE_LAST_IMM:
	case IBT_SEND_LAST_INV:
	case IBT_SEND_ONLY_INV:
		return 4;
	case IBT_CMP_SWAP:
	case IBT_FETCH_ADD:
		return sizeof(struct ibt_atomic_eth);
	default:
		return 0;
	}
}

static bool op_first(uint8_t op)
{
	return op == IBT_SEND_FIRST || op == IBT_SEND_ONLY ||
	       op == IBT_SEND_ONLY_IMM || op == IBT_SEND_ONLY_INV ||
	       op == IBT_WRITE_FIRST || op == IBT_WRITE_ONLY ||
	       op == IBT_WRITE_ONLY_IMM;
}

static bool op_last(uint8_t op)
{
	return op != IBT_SEND_FIRST && op != IBT_SEND_MIDDLE &&
	       op != IBT_WRITE_FIRST && op != IBT_WRITE_MIDDLE;
}

static bool op_send(uint8_t op)
{
	return op <= IBT_SEND_ONLY_IMM || op == IBT_SEND_LAST_INV ||
	       op == IBT_SEND_ONLY_INV;
}

/* The message is whole: it lands (SEND) or completes (WRITE with imm). */
static int rsp_deliver(struct m5m_qp *qp, uint8_t op, uint8_t se,
		       const uint8_t *ext)
{
	struct m5m_rsp *r = qp->rsp;
	struct m5m_qp peer = { 0 };
	struct m5m_wqe w;
	enum m5m_rx rx;
	uint8_t synd = 0;

	memset(&w, 0, sizeof(w));
	peer.qpn = qp->dest_qpn;
	peer.dev = qp->dev;
	peer.port = qp->port;
	peer.ah.is_global = 1; /* RoCE: always a GRH */
	w.fm_ce_se = se ? M5_WQE_CTRL_SOLICITED : 0;
	if (op == IBT_SEND_LAST_IMM || op == IBT_SEND_ONLY_IMM)
		w.opcode = M5_OPCODE_SEND_IMM;
	else if (op == IBT_SEND_LAST_INV || op == IBT_SEND_ONLY_INV)
		w.opcode = M5_OPCODE_SEND_INVAL;
	else if (op_send(op))
		w.opcode = M5_OPCODE_SEND;
	else
		w.opcode = M5_OPCODE_RDMA_WRITE_IMM;
	if (ext)
		memcpy(&w.imm, ext, 4);
	rx = m5m_deliver(&peer, &w, qp, op_send(op) ? r->buf : NULL,
			 op_send(op) ? r->len : r->dma_len, &synd);
	if (rx == M5M_RX_RNR)
		return -1;
	return synd;
}

/* An in-sequence request packet; false if it was refused. */
static bool rsp_run(struct m5m_qp *qp, uint8_t op, uint8_t se, uint32_t psn,
		    const uint8_t *p, size_t n, unsigned int pad)
{
	struct m5m_rsp *r = qp->rsp;
	uint64_t mtu = m5m_mtu_bytes(qp->mtu);
	size_t h = rsp_hdrs(op);
	const uint8_t *pay = p + h, *ext = NULL;
	const struct ibt_reth *reth = (const void *)p;
	uint32_t plen;
	int ret;

	if (n < h + pad) {
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		return false;
	}
	plen = (uint32_t)(n - h - pad);
	if (h && (h == 4 || h == sizeof(*reth) + 4))
		ext = p + h - 4;
	/* FIRST and MIDDLE carry the MTU; no packet carries more. */
	if (plen > mtu || (!op_last(op) && plen != mtu) ||
	    (op_first(op) != (r->in == IN_NONE) && qp->type != IBV_QPT_UC)) {
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		return false;
	}
	if (op_first(op))
		r->in = 0;
	if (!op_first(op) && r->in != (op_send(op) ? IN_SEND : IN_WRITE)) {
		if (qp->type == IBV_QPT_UC) {
			qp->dev->st.uc_dropped++;
			return false; /* the rest of a broken message */
		}
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		return false;
	}
	if (op_first(op)) {
		r->first_psn = psn;
		r->len = 0;
		r->off = 0;
		r->in = op_send(op) ? IN_SEND : IN_WRITE;
	}
	if (op_send(op)) {
		if (op_first(op) && m5m_rx_check(qp) == M5M_RX_RNR) {
			rsp_rnr(qp, psn);
			return false;
		}
		if (r->len + plen > r->cap) {
			uint8_t *nb = realloc(r->buf, r->len + plen);

			if (!nb) {
				rsp_fail(qp, IBT_NAK_REMOTE_OP, psn);
				return false;
			}
			r->buf = nb;
			r->cap = r->len + plen;
		}
		memcpy(r->buf + r->len, pay, plen);
		r->len += plen;
	} else {
		if (op_first(op)) {
			r->va = be64toh(reth->va);
			r->rkey = be32toh(reth->rkey);
			r->dma_len = be32toh(reth->dma_len);
			if (m5m_dma_remote(qp, r->rkey, r->va, r->dma_len,
					   IBV_ACCESS_REMOTE_WRITE)) {
				rsp_fail(qp, IBT_NAK_REMOTE_ACCESS, psn);
				return false;
			}
		}
		if (r->off + (uint64_t)plen > r->dma_len ||
		    (op_last(op) && r->off + plen != r->dma_len)) {
			rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
			return false;
		}
		if (plen)
			m5m_dma_to(qp->pd, r->rkey, r->va + r->off, pay, plen,
				   IBV_ACCESS_REMOTE_WRITE);
		r->off += plen;
	}
	qp->rq_psn = (psn + 1) & IBT_PSN_MASK;
	if (!op_last(op))
		return true;
	r->in = 0;
	if (op_send(op) || op == IBT_WRITE_LAST_IMM ||
	    op == IBT_WRITE_ONLY_IMM) {
		ret = rsp_deliver(qp, op, se, ext);
		if (ret < 0) {
			rsp_rnr(qp, r->first_psn);
			return false;
		}
		if (ret) {
			/* m5m_deliver completed the receive in error (ERR). */
			rsp_nak(qp,
				ret == M5_SYND_REMOTE_INVAL_REQ_ERR
					? IBT_NAK_INVALID_REQ
					: IBT_NAK_REMOTE_OP,
				psn);
			return false;
		}
	}
	r->msn++;
	return true;
}

static bool rsp_read_req(struct m5m_qp *qp, uint32_t psn, const uint8_t *p,
			 size_t n)
{
	const struct ibt_reth *reth = (const void *)p;
	uint32_t len;

	if (n < sizeof(*reth) || qp->rsp->in) {
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		return false;
	}
	len = be32toh(reth->dma_len);
	if (len > M5M_MAX_MSG) {
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		return false;
	}
	if (m5m_dma_remote(qp, be32toh(reth->rkey), be64toh(reth->va), len,
			   IBV_ACCESS_REMOTE_READ)) {
		rsp_fail(qp, IBT_NAK_REMOTE_ACCESS, psn);
		return false;
	}
	qp->rsp->msn++;
	rsp_read(qp, psn, reth);
	qp->rq_psn = (psn + m5m_npkt(len, qp->mtu)) & IBT_PSN_MASK;
	return true;
}

static bool rsp_atomic(struct m5m_qp *qp, uint8_t op, uint32_t psn,
		       const uint8_t *p, size_t n)
{
	const struct ibt_atomic_eth *ae = (const void *)p;
	struct m5m_rsp *r = qp->rsp;
	uint64_t va, run, orig, expect;
	uint8_t *target;
	uint32_t rkey;

	if (n < sizeof(*ae) || r->in || (be64toh(ae->va) & 7)) {
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		return false;
	}
	va = be64toh(ae->va);
	rkey = be32toh(ae->rkey);
	if (m5m_dma_remote(qp, rkey, va, 8, IBV_ACCESS_REMOTE_ATOMIC) ||
	    m5m_xlate(qp->pd, rkey, va, 8, IBV_ACCESS_REMOTE_ATOMIC, &target,
		      &run) ||
	    run < 8) {
		rsp_fail(qp, IBT_NAK_REMOTE_ACCESS, psn);
		return false;
	}
	/* 8-byte host-endian atomics (atomic_req_8B_endianness_mode). */
	if (op == IBT_CMP_SWAP) {
		expect = be64toh(ae->compare);
		__atomic_compare_exchange_n((uint64_t *)target, &expect,
					    be64toh(ae->swap_add), false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		orig = expect;
	} else {
		orig = __atomic_fetch_add((uint64_t *)target,
					  be64toh(ae->swap_add),
					  __ATOMIC_SEQ_CST);
	}
	r->atom[r->atom_next].valid = true;
	r->atom[r->atom_next].psn = psn;
	r->atom[r->atom_next].orig = orig;
	r->atom_next =
		(r->atom_next + 1) % (sizeof(r->atom) / sizeof(r->atom[0]));
	r->msn++;
	rsp_atomic_ack(qp, psn, orig);
	qp->rq_psn = (psn + 1) & IBT_PSN_MASK;
	return true;
}

void m5m_wire_rsp_in(struct m5m_qp *qp, const uint8_t *pkt, size_t len)
{
	const struct ibt_bth *b = (const void *)pkt;
	uint32_t apsn = be32toh(b->apsn), psn = apsn & IBT_PSN_MASK;
	unsigned int pad = (b->flags & IBT_PAD_MASK) >> IBT_PAD_SHIFT;
	bool ackreq = apsn & IBT_ACKREQ, uc = qp->type == IBV_QPT_UC, ok;
	uint8_t op = b->opcode & 0x1f;
	const uint8_t *p = pkt + sizeof(*b);
	size_t n = len - sizeof(*b);
	int32_t d;

	if (!m5m_receiving(qp))
		return;
	if (!qp->rsp) {
		qp->rsp = calloc(1, sizeof(*qp->rsp));
		if (!qp->rsp)
			return;
	}
	/* UC: a message's first packet starts over at its own PSN. */
	if (uc && op_first(op))
		qp->rq_psn = psn;
	d = (int32_t)(((psn - qp->rq_psn) & IBT_PSN_MASK) << 8) >> 8;
	if (d > 0) {
		if (uc) {
			qp->rsp->in = 0;
			qp->dev->st.uc_dropped++;
		} else if (!qp->rsp->nak_sent) {
			qp->rsp->nak_sent = true;
			rsp_nak(qp, IBT_NAK_PSN_SEQ, qp->rq_psn);
		}
		return;
	}
	if (d < 0) {
		if (!uc)
			rsp_duplicate(qp, op, psn, ackreq, p, n);
		return;
	}
	if (op == IBT_READ_REQUEST && !uc)
		ok = rsp_read_req(qp, psn, p, n);
	else if ((op == IBT_CMP_SWAP || op == IBT_FETCH_ADD) && !uc)
		ok = rsp_atomic(qp, op, psn, p, n);
	else if (op_send(op) ||
		 (op >= IBT_WRITE_FIRST && op <= IBT_WRITE_ONLY_IMM))
		ok = rsp_run(qp, op, b->flags & IBT_SE, psn, p, n, pad);
	else {
		rsp_fail(qp, IBT_NAK_INVALID_REQ, psn);
		ok = false;
	}
	if (!ok)
		return;
	qp->rsp->nak_sent = false;
	/* A READ's or atomic's response is its acknowledgement. */
	if (ackreq && !uc && op != IBT_READ_REQUEST && op != IBT_CMP_SWAP &&
	    op != IBT_FETCH_ADD)
		rsp_aeth(qp, IBT_AETH_NO_CREDIT, psn);
}
