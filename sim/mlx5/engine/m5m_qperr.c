// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * QP errors as the device reports them: the move to ERR, flush CQEs
 * (syndrome WR_FLUSH_ERR) for every outstanding receive and send WQE, and
 * the affiliated async events (through the seam, m5m_eng.c).  A UD
 * QP's send error moves it to SQE instead: only its SQ is flushed.
 *
 * A QP in ERR (or SQE) executes no send WQE: every WQE the SND dbrec shows
 * it, posted before or after the error, gets one flush CQE, signalled or
 * not, in SQ order (m5m_sq_run); in ERR every receive WQE does too.
 */
#include "m5m_int.h"

void m5m_qp_flush(struct m5m_qp *qp)
{
	if (qp->srq) {
		/* The SRQ keeps its WQEs; the QP says it is done with it. */
		if (!qp->last_wqe_sent) {
			qp->last_wqe_sent = true;
			m5m_async_qp(qp, M5M_EVENT_SRQ_LAST_WQE);
		}
	} else {
		while (qp->rq_hw != m5m_rcv_dbrec(qp)) {
			m5m_cqe_resp_err(qp, qp->rq_hw, M5_SYND_WR_FLUSH_ERR);
			qp->rq_hw++;
		}
	}
	/* Inside the send engine's loop the loop itself flushes the SQ. */
	m5m_sq_run(qp);
}

void m5m_qp_to_err(struct m5m_qp *qp)
{
	if (qp->state == IBV_QPS_ERR)
		return;
	qp->state = IBV_QPS_ERR;
	qp->parked = false;
	m5m_qp_flush(qp);
}

void m5m_qp_to_sqe(struct m5m_qp *qp)
{
	if (qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_SQE)
		return;
	qp->state = IBV_QPS_SQE;
	qp->parked = false;
	/* Inside the send engine's loop the loop itself flushes the SQ. */
	m5m_sq_run(qp);
}
