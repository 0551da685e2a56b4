// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The slow device (dev->slow, cx-server --slow): a send doorbell only
 * records its producer index (m5m_sq_run runs nothing); the device's timer
 * calls m5m_sq_tick for each QP, which first completes, in SQ order, what
 * earlier ticks executed, then executes at most dev->slow WQEs.
 *
 * - A WQE executes at the responder when the tick runs it (its receive
 *   WQE is read then, not at the doorbell); its requester CQE waits for
 *   the next tick.
 * - A READ's data and an atomic's original value are read at the
 *   responder when the READ or atomic executes, and land in the
 *   requester's memory only when it completes: the WQEs after it in the
 *   same tick have executed by then, gathering what was there before.
 * - A WQE whose fence mode (fm_ce_se bits 7:5) is 2 (fence), 3 (strong
 *   ordering) or 4 (small and fence: libmlx5's and doorbell's
 *   IBV_SEND_FENCE) waits until every earlier READ and atomic has
 *   completed.  Mode 1 (initiator small fence) orders local operations
 *   only, which this device runs at once.
 * - At completion the WQE is read again from the SQ and compared with the
 *   bytes it executed from: the provider may not reuse a slot before its
 *   completion (counted in st.wqe_rewritten, a violation).
 */
#include <stdlib.h>
#include <string.h>

#include "m5m_int.h"

enum {
	FM_SHIFT = 5,
	FM_FENCE = 2, /* this and above wait for READs and atomics */
};

struct m5m_fly *m5m_fly_new(struct m5m_qp *qp)
{
	(void)qp;
	return calloc(1, sizeof(struct m5m_fly));
}

void m5m_fly_free(struct m5m_fly *f)
{
	if (f)
		free(f->resp);
	free(f);
}

void m5m_fly_add(struct m5m_qp *qp, struct m5m_fly *f, uint32_t byte_cnt)
{
	f->byte_cnt = byte_cnt;
	f->next = NULL;
	if (!qp->fly)
		qp->fly_tail = &qp->fly;
	*qp->fly_tail = f;
	qp->fly_tail = &f->next;
}

void m5m_fly_drop(struct m5m_qp *qp)
{
	struct m5m_fly *f;

	while ((f = qp->fly)) {
		qp->fly = f->next;
		m5m_fly_free(f);
	}
	qp->sq_exec = qp->sq_hw;
}

bool m5m_fly_fenced(const struct m5m_qp *qp, const struct m5m_wqe *w)
{
	const struct m5m_fly *f;

	if ((w->fm_ce_se >> FM_SHIFT) < FM_FENCE)
		return false;
	for (f = qp->fly; f; f = f->next)
		if (f->resp)
			return true;
	return false;
}

int m5m_fly_hold(struct m5m_qp *qp, const void *resp, uint32_t len)
{
	struct m5m_fly *f = qp->fly_cur;

	/* One byte at least: a held response marks a READ or atomic. */
	f->resp = malloc(len ? len : 1);
	if (!f->resp)
		return M5_SYND_LOCAL_LENGTH_ERR;
	memcpy(f->resp, resp, len);
	f->resp_len = len;
	return 0;
}

int m5m_sge_writable(struct m5m_qp *qp, const struct m5m_wqe *w)
{
	unsigned int i;
	int ret;

	for (i = 0; i < w->nsge; i++) {
		ret = m5m_dma_local(qp->pd, be32toh(w->sge[i].lkey),
				    be64toh(w->sge[i].addr),
				    be32toh(w->sge[i].byte_count),
				    IBV_ACCESS_LOCAL_WRITE);
		if (ret)
			return ret;
	}
	return 0;
}

int m5m_fly_read(struct m5m_qp *qp, const struct m5m_qp *dst,
		 const struct m5m_wqe *w, uint32_t len)
{
	uint8_t *buf;
	int ret;

	/* The local SGEs must take the response, as at the doorbell. */
	ret = m5m_sge_writable(qp, w);
	if (ret)
		return ret;
	buf = malloc(len ? len : 1);
	if (!buf)
		return M5_SYND_LOCAL_LENGTH_ERR;
	/* m5m_remote() checked the range; a zero-length READ names no key. */
	ret = len && m5m_dma_from(dst->pd, w->rkey, w->raddr, buf, len,
				  IBV_ACCESS_REMOTE_READ)
		      ? M5_SYND_REMOTE_ACCESS_ERR
		      : m5m_fly_hold(qp, buf, len);
	free(buf);
	return ret;
}

/* The held response into the local SGEs: 0 or a requester syndrome. */
static int m5m_fly_land(struct m5m_qp *qp, const struct m5m_fly *f)
{
	const struct m5m_wqe *w = &f->w;
	uint32_t done = 0, bc;
	unsigned int i;
	int ret;

	for (i = 0; i < w->nsge && done < f->resp_len; i++) {
		bc = be32toh(w->sge[i].byte_count);
		if (bc > f->resp_len - done)
			bc = f->resp_len - done;
		ret = m5m_dma_to(qp->pd, be32toh(w->sge[i].lkey),
				 be64toh(w->sge[i].addr), f->resp + done, bc,
				 IBV_ACCESS_LOCAL_WRITE);
		if (ret)
			return M5_SYND_LOCAL_PROT_ERR;
		done += bc;
	}
	return 0;
}

/* The WQE at sq_hw, read again, must be the bytes it executed from. */
static void m5m_fly_reread(struct m5m_qp *qp, const struct m5m_fly *f)
{
	struct m5m_dev *dev = qp->dev;
	unsigned int i;
	bool same = true;

	for (i = 0; i < f->w.nbb && same; i++)
		same = !memcmp(m5m_sq_slot(qp, (uint16_t)(qp->sq_hw + i)),
			       f->w.raw + i * M5_SEND_WQE_BB, M5_SEND_WQE_BB);
	if (!m5m_check(dev, same,
		       "QP 0x%x: WQE 0x%04x was rewritten before its "
		       "completion",
		       qp->qpn, qp->sq_hw))
		dev->st.wqe_rewritten++;
}

bool m5m_fly_complete_one(struct m5m_qp *qp)
{
	struct m5m_fly *f = qp->fly;
	int ret;

	qp->fly = f->next;
	qp->dev->st.slow_late++;
	if (f->resp)
		qp->dev->st.slow_held++;
	m5m_fly_reread(qp, f);
	ret = f->resp ? m5m_fly_land(qp, f) : 0;
	if (ret) {
		m5m_cqe_req_err(qp, f->w.idx, f->w.opcode, (uint8_t)ret);
		qp->sq_hw += f->w.nbb;
		m5m_fly_free(f);
		/* The rest are flushed (m5m_sq_go). */
		m5m_qp_to_err(qp);
		return false;
	}
	if (f->w.fm_ce_se & M5_WQE_CTRL_CQ_UPDATE)
		m5m_cqe_req(qp, &f->w, f->byte_cnt);
	qp->sq_hw += f->w.nbb;
	m5m_fly_free(f);
	return true;
}

void m5m_fly_complete(struct m5m_qp *qp)
{
	while (qp->fly && m5m_fly_complete_one(qp))
		;
}

void m5m_sq_tick(struct m5m_qp *qp)
{
	/* On the wire only acknowledgements complete. */
	if (!qp->wire)
		m5m_fly_complete(qp);
	m5m_sq_go(qp, qp->dev->slow);
}

bool m5m_sq_busy(const struct m5m_qp *qp)
{
	return qp->fly || (qp->state == IBV_QPS_RTS && !qp->parked &&
			   (qp->fly ? qp->sq_exec : qp->sq_hw) != qp->db_pi);
}
