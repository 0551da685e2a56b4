// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The engine's seam (m5m_eng.h): the model's own answers (MRs of its
 * table at host addresses, QP and SRQ buffers at host addresses, CQEs to
 * its CQ machinery, async events to its async EQ, QPs of its table) and
 * the engine's calls through whichever ops its device carries.
 */
#include "m5m_int.h"

static int m5m_model_xlate(void *arg, const struct m5m_pd *pd, uint32_t key,
			   uint64_t addr, uint64_t len, int access,
			   uint8_t **host, uint64_t *run)
{
	struct m5m_mr *mr = m5m_mr_find(pd->dev, key);

	(void)arg;
	if (!mr || mr->pd != pd || !m5m_mr_covers(mr, addr, len) ||
	    (mr->access & access) != access)
		return -1;
	*host = mr->host + (addr - mr->iova);
	*run = len;
	return 0;
}

static uint8_t *m5m_model_qp_buf(void *arg, const struct m5m_qp *qp, size_t off)
{
	(void)arg;
	return qp->buf + off;
}

static uint8_t *m5m_model_srq_buf(void *arg, const struct m5m_srq *srq,
				  size_t off)
{
	(void)arg;
	return srq->buf + off;
}

static void m5m_model_cqe(void *arg, struct m5m_cq *cq,
			  const struct m5_cqe64 *cqe, bool sol)
{
	(void)arg;
	m5m_cq_write(cq, cqe, sol);
}

static void m5m_model_event(void *arg, uint8_t type, uint32_t num,
			    uint8_t res_type)
{
	struct m5m_dev *dev = arg;

	m5m_eqe_write(&dev->eqs[0], type, num, 0, res_type);
}

static struct m5m_qp *m5m_model_qp_find(void *arg, uint32_t qpn)
{
	struct m5m_dev *dev = arg;

	return m5m_tab_get(&dev->qps, qpn);
}

static struct m5m_srq *m5m_model_srq_find(void *arg, uint32_t srqn)
{
	struct m5m_dev *dev = arg;

	return m5m_tab_get(&dev->srqs, srqn);
}

/*
 * The model's keys are ibv_reg_mr MRs, which mlx5_ib creates without
 * en_rinval (only type-2 memory windows get it, and the model has none):
 * no key of the model may be invalidated remotely.
 */
static int m5m_model_rinval(void *arg, const struct m5m_pd *pd, uint32_t key)
{
	(void)arg;
	(void)pd;
	(void)key;
	return -1;
}

static const struct m5m_eng_ops m5m_model_ops = {
	.xlate = m5m_model_xlate,
	.rinval = m5m_model_rinval,
	.qp_buf = m5m_model_qp_buf,
	.srq_buf = m5m_model_srq_buf,
	.cqe = m5m_model_cqe,
	.event = m5m_model_event,
	.qp_find = m5m_model_qp_find,
	.srq_find = m5m_model_srq_find,
};

void m5m_eng_set_ops(struct m5m_dev *dev, const struct m5m_eng_ops *ops,
		     void *arg)
{
	dev->ops = ops ? ops : &m5m_model_ops;
	dev->ops_arg = ops ? arg : dev;
}

/* --- The engine's side ---------------------------------------------------- */

int m5m_xlate(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
	      uint64_t len, int access, uint8_t **host, uint64_t *run)
{
	struct m5m_dev *dev = pd->dev;

	return dev->ops->xlate(dev->ops_arg, pd, key, addr, len, access, host,
			       run);
}

int m5m_umr(const struct m5m_qp *qp, const struct m5m_wqe *w)
{
	struct m5m_dev *dev = qp->dev;

	if (!dev->ops->umr)
		return M5_SYND_LOCAL_QP_OP_ERR;
	return dev->ops->umr(dev->ops_arg, qp, w);
}

int m5m_rinval(const struct m5m_pd *pd, uint32_t key)
{
	struct m5m_dev *dev = pd->dev;

	return dev->ops->rinval(dev->ops_arg, pd, key);
}

void *m5m_sq_slot(const struct m5m_qp *qp, uint16_t idx)
{
	size_t sq = (size_t)qp->rq_cnt << qp->rq_shift;
	uint16_t in_bf = (uint16_t)(idx - qp->bf_idx);

	if (qp->bf_wqe && in_bf < qp->bf_nbb) /* read, never written */
		return (void *)(qp->bf_wqe + (size_t)in_bf * M5_SEND_WQE_BB);
	return qp->dev->ops->qp_buf(qp->dev->ops_arg, qp,
				    sq + (size_t)(idx & (qp->sq_bbs - 1)) *
						    M5_SEND_WQE_BB);
}

void *m5m_rq_slot(const struct m5m_qp *qp, uint16_t idx)
{
	return qp->dev->ops->qp_buf(qp->dev->ops_arg, qp,
				    (size_t)(idx & (qp->rq_cnt - 1))
					    << qp->rq_shift);
}

void *m5m_srq_slot(const struct m5m_srq *srq, uint16_t idx)
{
	return srq->dev->ops->srq_buf(srq->dev->ops_arg, srq,
				      (size_t)idx << srq->shift);
}

void m5m_cqe_post(struct m5m_qp *qp, struct m5m_cq *cq,
		  const struct m5_cqe64 *cqe, bool sol)
{
	qp->dev->ops->cqe(qp->dev->ops_arg, cq, cqe, sol);
}

void m5m_async_qp(struct m5m_qp *qp, uint8_t type)
{
	qp->dev->ops->event(qp->dev->ops_arg, type, qp->qpn, 0);
}

void m5m_async_srq(struct m5m_srq *srq, uint8_t type)
{
	srq->dev->ops->event(srq->dev->ops_arg, type, srq->srqn, 1);
}

struct m5m_qp *m5m_qp_find(struct m5m_dev *dev, uint32_t qpn)
{
	return dev->ops->qp_find(dev->ops_arg, qpn);
}

struct m5m_srq *m5m_srq_find(struct m5m_dev *dev, uint32_t srqn)
{
	return dev->ops->srq_find(dev->ops_arg, srqn);
}
