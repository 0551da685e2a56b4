// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The receive side and the loopback fabric: receive WQEs taken in RQ order
 * up to the RCV dbrec or from an SRQ's free list, scatter with lkey checks,
 * the UD GRH area, responder CQEs and errors, and the RNR machinery that
 * parks a message until the receiver posts or the RNR timer runs out.
 */
#include <string.h>

#include "m5m_int.h"

/* IBTA RNR NAK timer encodings, in µs (code 0 is the longest). */
uint32_t m5m_rnr_timer_us(uint8_t code)
{
	static const uint32_t us[32] = {
		655360, 10,    20,    30,     40,     60,     80,     120,
		160,	240,   320,   480,    640,    960,    1280,   1920,
		2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
		40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	return us[code & 31];
}

/* Parse the data segments of receive WQE idx until the terminator. */
static bool m5m_rwqe_parse(struct m5m_dev *dev, const uint8_t *p,
			   unsigned int nseg, struct m5m_rwqe *rw, uint32_t qn,
			   uint16_t idx)
{
	const struct m5_data_seg *ds = (const void *)p;
	unsigned int i;
	uint32_t bc;

	rw->nsge = 0;
	for (i = 0; i < nseg; i++) {
		bc = be32toh(ds[i].byte_count);
		if (be32toh(ds[i].lkey) == M5_INVALID_LKEY) {
			m5m_check(dev, !bc && !ds[i].addr,
				  "0x%x receive WQE 0x%04x: terminator is not "
				  "{0, 0x100, 0}",
				  qn, idx);
			break;
		}
		if (!m5m_check(dev, bc && !(bc & M5_INLINE_SEG),
			       "0x%x receive WQE 0x%04x: data segment %u has "
			       "byte_count 0x%x (not written before the "
			       "dbrec?)",
			       qn, idx, i, bc))
			return false;
		rw->sge[rw->nsge].len = bc;
		rw->sge[rw->nsge].lkey = be32toh(ds[i].lkey);
		rw->sge[rw->nsge].addr = be64toh(ds[i].addr);
		rw->nsge++;
	}
	return true;
}

static uint16_t m5m_srq_posted_count(const struct m5m_srq *srq)
{
	return (uint16_t)be32toh(__atomic_load_n(srq->dbrec, __ATOMIC_ACQUIRE));
}

/* The next receive WQE, without taking it; false if there is none. */
static bool m5m_rwqe_peek(struct m5m_qp *qp, struct m5m_rwqe *rw)
{
	struct m5m_dev *dev = qp->dev;
	struct m5m_srq *srq = qp->srq;
	const struct m5_srq_next_seg *next;
	const uint8_t *p;

	if (srq) {
		if (srq->consumed == m5m_srq_posted_count(srq))
			return false;
		if (!m5m_check(dev, srq->head < srq->nwqe,
			       "SRQ 0x%x: free list points at WQE %u of %u",
			       srq->srqn, srq->head, srq->nwqe))
			return false;
		p = m5m_srq_slot(srq, srq->head);
		next = (const void *)p;
		rw->counter = srq->head;
		return m5m_rwqe_parse(dev, p + sizeof(*next),
				      ((1u << srq->shift) - sizeof(*next)) /
					      M5_DS_UNIT,
				      rw, srq->srqn, srq->head);
	}
	if (qp->rq_hw == m5m_rcv_dbrec(qp))
		return false;
	p = m5m_rq_slot(qp, qp->rq_hw);
	rw->counter = qp->rq_hw;
	return m5m_rwqe_parse(dev, p, (1u << qp->rq_shift) / M5_DS_UNIT, rw,
			      qp->qpn, qp->rq_hw);
}

static void m5m_rwqe_take(struct m5m_qp *qp)
{
	struct m5m_srq *srq = qp->srq;
	const struct m5_srq_next_seg *next;
	uint16_t avail;

	if (!srq) {
		qp->rq_hw++;
		return;
	}
	next = m5m_srq_slot(srq, srq->head);
	srq->head = be16toh(next->next_wqe_index);
	srq->consumed++;
	avail = (uint16_t)(m5m_srq_posted_count(srq) - srq->consumed);
	if (srq->limit_armed && avail < srq->limit) {
		srq->limit_armed = false;
		m5m_async_srq(srq, M5M_EVENT_SRQ_LIMIT);
	}
}

enum m5m_rx m5m_rx_check(struct m5m_qp *dst)
{
	struct m5m_rwqe rw;

	if (dst->type == IBV_QPT_RC && m5m_fault_take(dst->dev, M5M_FAULT_RNR))
		return M5M_RX_RNR;
	return m5m_rwqe_peek(dst, &rw) ? M5M_RX_OK : M5M_RX_RNR;
}

/* A UD AV's GRH: RoCE packets always have one; on IB the AV says. */
bool m5m_av_grh(struct m5m_dev *dev, const struct m5_av *av)
{
	return dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET ||
	       (be32toh(av->grh_gid_fl) >> 30 & 1);
}

/* The index of its source GID in the port's table, with a GRH. */
unsigned int m5m_av_sgid_index(const struct m5_av *av)
{
	return be32toh(av->grh_gid_fl) >> 20 & 0xff;
}

/*
 * A fake IB GRH: IPv6-style header, the sender's GID at the AV's SGID
 * index (m5m_exec_send refused an index past the table), dgid of the AV.
 */
static void m5m_grh(struct m5m_qp *src, const struct m5_av *av, uint32_t len,
		    uint8_t *grh)
{
	uint32_t fl = be32toh(av->grh_gid_fl) & 0xfffff;
	union ibv_gid sgid;

	/* Version 6, traffic class, flow label: the AV's. */
	memset(grh, 0, M5M_GRH_BYTES);
	grh[0] = 0x60 | av->tclass >> 4;
	grh[1] = (uint8_t)(av->tclass << 4 | fl >> 16);
	grh[2] = (uint8_t)(fl >> 8);
	grh[3] = (uint8_t)fl;
	grh[4] = (uint8_t)(len >> 8);
	grh[5] = (uint8_t)len;
	grh[6] = 0x1b;
	grh[7] = av->hop_limit;
	m5m_port_gid_at(src->dev, src->port ? src->port : 1,
			m5m_av_sgid_index(av), &sgid);
	memcpy(grh + 8, sgid.raw, 16);
	memcpy(grh + 24, av->rgid, 16);
}

/* Scatter bytes at offset off of the receive buffer; 0 or a syndrome. */
static int m5m_scatter(struct m5m_qp *dst, const struct m5m_rwqe *rw,
		       uint64_t off, const uint8_t *data, uint32_t len)
{
	unsigned int i;
	uint64_t n;

	for (i = 0; i < rw->nsge && len; i++) {
		if (off >= rw->sge[i].len) {
			off -= rw->sge[i].len;
			continue;
		}
		n = rw->sge[i].len - off;
		if (n > len)
			n = len;
		if (m5m_dma_to(dst->pd, rw->sge[i].lkey, rw->sge[i].addr + off,
			       data, n, IBV_ACCESS_LOCAL_WRITE))
			return M5_SYND_LOCAL_PROT_ERR;
		data += n;
		len -= (uint32_t)n;
		off = 0;
	}
	return len ? M5_SYND_LOCAL_LENGTH_ERR : 0;
}

static bool m5m_ud_accepts(struct m5m_qp *src, const struct m5m_wqe *w,
			   struct m5m_qp *dst)
{
	struct m5m_dev *dev = dst->dev;
	uint32_t qkey = be32toh(w->av->key.qkey.qkey);

	/* SQD and SQE stop the SQ only: receives go on. */
	if (dst->type != IBV_QPT_UD ||
	    (dst->state != IBV_QPS_RTR && dst->state != IBV_QPS_RTS &&
	     dst->state != IBV_QPS_SQD && dst->state != IBV_QPS_SQE))
		return false;
	/* A Q_Key with the high bit set means "the sender's own". */
	if (qkey & 0x80000000u)
		qkey = src->qkey;
	if (qkey != dst->qkey)
		return false;
	/* From a wire: the device steered it here by its GID (RoCE). */
	if (w->grh)
		return true;
	if (dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET)
		return !memcmp(w->av->rmac, dev->mac, 6);
	return be16toh(w->av->rlid) == m5m_port_lid(dev, dst->port);
}

static void m5m_comm_est(struct m5m_qp *dst)
{
	if (dst->state == IBV_QPS_RTR && !dst->comm_est_sent) {
		dst->comm_est_sent = true;
		m5m_async_qp(dst, M5M_EVENT_COMM_EST);
	}
}

static uint8_t m5m_resp_opcode(uint8_t wqe_opcode)
{
	switch (wqe_opcode) {
	case M5_OPCODE_SEND_IMM:
		return M5_CQE_RESP_SEND_IMM;
	case M5_OPCODE_RDMA_WRITE_IMM:
		return M5_CQE_RESP_WR_IMM;
	case M5_OPCODE_SEND_INVAL:
		return M5_CQE_RESP_SEND_INV;
	default:
		return M5_CQE_RESP_SEND;
	}
}

/* The responder consumed rw and failed: CQE, ERR, the requester's answer. */
static enum m5m_rx m5m_rx_fail(struct m5m_qp *dst, uint16_t counter, int synd,
			       uint8_t *req_synd)
{
	m5m_rwqe_take(dst);
	m5m_cqe_resp_err(dst, counter, (uint8_t)synd);
	if (dst->type == IBV_QPT_RC || dst->type == IBV_QPT_XRC_RECV) {
		m5m_qp_to_err(dst);
		*req_synd = synd == M5_SYND_LOCAL_LENGTH_ERR ||
					    synd == M5_SYND_REMOTE_INVAL_REQ_ERR
				    ? M5_SYND_REMOTE_INVAL_REQ_ERR
				    : M5_SYND_REMOTE_OP_ERR;
	}
	return M5M_RX_OK;
}

enum m5m_rx m5m_deliver(struct m5m_qp *src, const struct m5m_wqe *w,
			struct m5m_qp *dst, const uint8_t *msg, uint32_t len,
			uint8_t *synd)
{
	bool eth = dst->dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET;
	bool ud = dst->type == IBV_QPT_UD;
	struct m5m_resp r = { 0 };
	uint8_t grh[M5M_GRH_BYTES];
	struct m5m_rwqe rw;
	uint64_t cap = 0;
	unsigned int i;
	int err = 0;

	*synd = 0;
	if (ud && !m5m_ud_accepts(src, w, dst))
		return M5M_RX_DROP;
	if (!ud && w->opcode != M5_OPCODE_RDMA_WRITE_IMM &&
	    m5m_fault_take(dst->dev, M5M_FAULT_RNR))
		return M5M_RX_RNR;
	if (!m5m_rwqe_peek(dst, &rw))
		return ud ? M5M_RX_DROP : M5M_RX_RNR;
	if (!ud && dst->srq && w->opcode != M5_OPCODE_RDMA_WRITE_IMM &&
	    m5m_fault_take(dst->dev, M5M_FAULT_ODP_PFAULT)) {
		struct m5m_dev *dev = dst->dev;

		/* mlx5_ib is told by a page-fault EQE; it reads the WQE later. */
		m5m_odp_work(dev);
		dev->pfault.pending = true;
		dev->pfault.qpn = dst->qpn;
		dev->pfault.srqn = dst->srq->srqn;
		dev->pfault.wqe = rw.counter;
		/* The page is faulted in meanwhile: the retry lands. */
		m5m_rwqe_take(dst);
		m5m_cqe_resp_err_vendor(dst, rw.counter,
					M5_SYND_REMOTE_ABORTED_ERR,
					M5_VENDOR_SYND_ODP_PFAULT);
		return M5M_RX_RNR;
	}
	m5m_comm_est(dst);
	r.opcode = m5m_resp_opcode(w->opcode);
	r.byte_cnt = len + (ud ? M5M_GRH_BYTES : 0);
	r.imm = w->imm;
	r.se = w->fm_ce_se & M5_WQE_CTRL_SOLICITED;
	r.src_qpn = src->qpn;
	r.slid = m5m_port_lid(src->dev, src->port ? src->port : 1);
	if (ud && w->grh) {
		/* RoCE v2: roce_netw_hdr_type in place of the SL, IPv4 (2)
		 * or IPv6 (1), which mlx5_ib reads to parse the GRH area. */
		r.sl = w->grh[20] >> 4 == 4 ? 2 : 1;
		r.grh = true;
		r.pkey = w->pkey;
	} else if (ud) {
		r.sl = eth ? (w->av->stat_rate_sl >> 1) & 7
			   : w->av->stat_rate_sl & 0xf;
		r.grh = m5m_av_grh(dst->dev, w->av);
	} else {
		r.sl = src->ah.sl;
		r.grh = src->ah.is_global;
	}
	if (w->opcode != M5_OPCODE_RDMA_WRITE_IMM) {
		for (i = 0; i < rw.nsge; i++)
			cap += rw.sge[i].len;
		if (cap < r.byte_cnt)
			return m5m_rx_fail(dst, rw.counter,
					   M5_SYND_LOCAL_LENGTH_ERR, synd);
		if (ud && r.grh) {
			if (w->grh)
				memcpy(grh, w->grh, M5M_GRH_BYTES);
			else
				m5m_grh(src, w->av, len, grh);
			err = m5m_scatter(dst, &rw, 0, grh, M5M_GRH_BYTES);
		}
		if (!err)
			err = m5m_scatter(dst, &rw, ud ? M5M_GRH_BYTES : 0, msg,
					  len);
		if (err)
			return m5m_rx_fail(dst, rw.counter, err, synd);
	}
	/*
	 * SEND with Invalidate: the named key of the responder's PD must
	 * allow remote invalidation (mkc en_rinval), else the receive
	 * completes in error and an RC requester is told invalid request
	 * (rxe's answer too, IBA class J).
	 */
	if (w->opcode == M5_OPCODE_SEND_INVAL &&
	    m5m_rinval(dst->pd, be32toh(w->imm)))
		return m5m_rx_fail(dst, rw.counter,
				   M5_SYND_REMOTE_INVAL_REQ_ERR, synd);
	m5m_rwqe_take(dst);
	m5m_cqe_resp(dst, rw.counter, &r);
	return M5M_RX_OK;
}

/* Requesters parked on a message for dst try again. */
static void m5m_rnr_wake(struct m5m_dev *dev, struct m5m_qp *dst,
			 struct m5m_srq *srq)
{
	struct m5m_qp *q, *target;
	uint32_t i;

	for (i = 0; i < dev->qps.cap; i++) {
		q = dev->qps.slot[i];
		/* A message no responder took waits for its timer alone. */
		if (!q || !q->parked || q->no_ack)
			continue;
		target = m5m_qp_find(dev, q->park_dst);
		/* An XRC TGT waits on whichever SRQ the WQE names. */
		if (!target || (dst && target != dst) ||
		    (srq && target->srq != srq &&
		     target->type != IBV_QPT_XRC_RECV))
			continue;
		q->parked = false;
		m5m_sq_run(q);
	}
}

void m5m_rnr_expire(struct m5m_qp *qp)
{
	qp->parked = false;
	m5m_sq_run(qp);
}

/* The WQEs a new RCV dbrec announces must be complete already. */
static void m5m_rq_new_wqes(struct m5m_qp *qp, uint16_t posted)
{
	struct m5m_rwqe rw;
	const uint8_t *p;
	uint16_t i;

	for (i = qp->rq_seen;
	     i != posted && (uint16_t)(posted - i) <= qp->rq_cnt; i++) {
		p = m5m_rq_slot(qp, i);
		if (!m5m_rwqe_parse(qp->dev, p,
				    (1u << qp->rq_shift) / M5_DS_UNIT, &rw,
				    qp->qpn, i))
			break;
	}
	qp->rq_seen = posted;
}

/* The same for an SRQ: every WQE on the list up to the new count. */
static void m5m_srq_new_wqes(struct m5m_srq *srq, uint16_t avail)
{
	struct m5m_dev *dev = srq->dev;
	const struct m5_srq_next_seg *next;
	struct m5m_rwqe rw;
	uint16_t idx = srq->head, k;

	for (k = 0; k < avail && k < srq->nwqe; k++) {
		next = m5m_srq_slot(srq, idx);
		if (!m5m_rwqe_parse(dev, (const uint8_t *)(next + 1),
				    ((1u << srq->shift) - sizeof(*next)) /
					    M5_DS_UNIT,
				    &rw, srq->srqn, idx))
			return;
		idx = be16toh(next->next_wqe_index);
		if (!m5m_check(dev, idx < srq->nwqe,
			       "SRQ 0x%x: the free list leads to WQE %u of %u",
			       srq->srqn, idx, srq->nwqe))
			return;
	}
}

void m5m_rq_posted(struct m5m_qp *qp)
{
	struct m5m_dev *dev = qp->dev;
	uint16_t posted = m5m_rcv_dbrec(qp);

	if (!m5m_check(dev, qp->srq == NULL,
		       "QP 0x%x has an SRQ but its RCV dbrec was written",
		       qp->qpn))
		return;
	m5m_check(dev, (uint16_t)(posted - qp->rq_hw) <= qp->rq_cnt,
		  "QP 0x%x: RCV dbrec 0x%04x is more than %u WQEs ahead of "
		  "the device (0x%04x): unconsumed WQEs were overwritten",
		  qp->qpn, posted, qp->rq_cnt, qp->rq_hw);
	m5m_rq_new_wqes(qp, posted);
	if (qp->state == IBV_QPS_ERR) {
		m5m_qp_flush(qp);
		return;
	}
	m5m_rnr_wake(dev, qp, NULL);
}

/*
 * mlx5_ib's work for an ODP page fault on an SRQ receive (odp.c,
 * mlx5_ib_mr_wqe_pfault_handler -> mlx5_ib_read_user_wqe_srq ->
 * mlx5_ib_mr_responder_pfault_handler_srq -> pagefault_data_segments):
 * a workqueue item that reads the faulted WQE from the user's SRQ buffer
 * and faults in the pages of each data segment, up to the terminator.
 * The model runs it at the first SRQ dbrec write or send doorbell after
 * the fault, when a busy poller has already consumed the fault's CQE and
 * reposted.  A segment no MR covers (byte_count 0 means 2 GiB; lkey 0 is
 * no mkey) fails the fault: the kernel resumes it with an error, and the
 * model moves the QP to ERR.
 */
void m5m_odp_work(struct m5m_dev *dev)
{
	const struct m5_data_seg *ds;
	struct m5m_srq *srq;
	struct m5m_qp *qp;
	struct m5m_mr *mr;
	uint32_t i, n, len, lkey;
	uint64_t addr;

	if (!dev->pfault.pending)
		return;
	dev->pfault.pending = false;
	qp = m5m_qp_find(dev, dev->pfault.qpn);
	srq = m5m_tab_get(&dev->srqs, dev->pfault.srqn);
	if (!qp || !srq || qp->srq != srq || dev->pfault.wqe >= srq->nwqe)
		return;
	dev->st.odp_pfaults_handled++;
	ds = (const void *)((const uint8_t *)m5m_srq_slot(srq,
							  dev->pfault.wqe) +
			    sizeof(struct m5_srq_next_seg));
	n = ((1u << srq->shift) - sizeof(struct m5_srq_next_seg)) / sizeof(*ds);
	for (i = 0; i < n; i++) {
		len = be32toh(ds[i].byte_count) & ~M5_INLINE_SEG;
		lkey = be32toh(ds[i].lkey);
		addr = be64toh(ds[i].addr);
		if (!len && lkey == M5_INVALID_LKEY && !addr)
			break;
		if (!len)
			len = 1u << 31;
		mr = m5m_mr_find(dev, lkey);
		if (!mr || m5m_dma_local(mr->pd, lkey, addr, len, 0)) {
			dev->st.odp_resume_errors++;
			m5m_qp_to_err(qp);
			return;
		}
	}
}

void m5m_srq_posted(struct m5m_srq *srq)
{
	struct m5m_dev *dev = srq->dev;
	uint16_t avail = (uint16_t)(m5m_srq_posted_count(srq) - srq->consumed);

	m5m_odp_work(dev);
	m5m_check(dev, avail < srq->nwqe,
		  "SRQ 0x%x: %u WQEs posted and not consumed, the ring has "
		  "%u (one stays as the free list's tail)",
		  srq->srqn, avail, srq->nwqe);
	m5m_srq_new_wqes(srq, avail);
	m5m_rnr_wake(dev, NULL, srq);
}
