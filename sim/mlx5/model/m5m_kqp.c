// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fake kernel, QP commands: create (mlx5_ib's buffer-layout checks,
 * bfreg allocation by class, user index), modify (the IBTA state machine
 * with required and optional attributes per transition, as
 * ib_modify_qp_is_ok), query and destroy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "m5m_front.h"

/* --- Transitions: attributes required and allowed, [0] RC, [1] UD, [2] UC */

struct m5m_trans {
	enum ibv_qp_state from, to;
	int req[3];
	int opt[3];
};

#define UC_PATH_OPT                                                            \
	(IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |            \
	 IBV_QP_PATH_MIG_STATE)
#define RC_PATH_OPT    (UC_PATH_OPT | IBV_QP_MIN_RNR_TIMER)
#define QP_PORT_ACCESS (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define QP_PORT_QKEY   (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
#define QP_RTR_REQ                                                             \
	(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define QP_RTR_OPT (IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX)

static const struct m5m_trans m5m_trans[] = {
	{ IBV_QPS_RESET,
	  IBV_QPS_INIT,
	  { QP_PORT_ACCESS, QP_PORT_QKEY, QP_PORT_ACCESS },
	  { 0, 0, 0 } },
	{ IBV_QPS_INIT,
	  IBV_QPS_INIT,
	  { 0, 0, 0 },
	  { QP_PORT_ACCESS, QP_PORT_QKEY, QP_PORT_ACCESS } },
	{ IBV_QPS_INIT,
	  IBV_QPS_RTR,
	  { QP_RTR_REQ | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, 0,
	    QP_RTR_REQ },
	  { QP_RTR_OPT, IBV_QP_PKEY_INDEX | IBV_QP_QKEY, QP_RTR_OPT } },
	{ IBV_QPS_RTR,
	  IBV_QPS_RTS,
	  { IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	    IBV_QP_SQ_PSN, IBV_QP_SQ_PSN },
	  { RC_PATH_OPT, IBV_QP_CUR_STATE | IBV_QP_QKEY, UC_PATH_OPT } },
	{ IBV_QPS_RTS,
	  IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { RC_PATH_OPT, IBV_QP_CUR_STATE | IBV_QP_QKEY, UC_PATH_OPT } },
	{ IBV_QPS_RTS,
	  IBV_QPS_SQD,
	  { 0, 0, 0 },
	  { IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_EN_SQD_ASYNC_NOTIFY,
	    IBV_QP_EN_SQD_ASYNC_NOTIFY } },
	{ IBV_QPS_SQD,
	  IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { RC_PATH_OPT, IBV_QP_CUR_STATE | IBV_QP_QKEY, UC_PATH_OPT } },
	{ IBV_QPS_SQD,
	  IBV_QPS_SQD,
	  { 0, 0, 0 },
	  { IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		    IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER |
		    IBV_QP_PATH_MIG_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
		    IBV_QP_MAX_DEST_RD_ATOMIC,
	    IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
	    IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		    IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE } },
	/* Only UD and UC QPs enter SQE (an RC QP goes to ERR). */
	{ IBV_QPS_SQE,
	  IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS,
	    IBV_QP_CUR_STATE | IBV_QP_QKEY,
	    IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS } },
};

/* 0, or EINVAL if the transition or its attribute mask is wrong. */
static int m5m_trans_ok(enum ibv_qp_state cur, enum ibv_qp_state next,
			enum ibv_qp_type type, int mask)
{
	int t = type == IBV_QPT_UD ? 1 : type == IBV_QPT_UC ? 2 : 0;
	int extra = mask & ~IBV_QP_STATE;
	unsigned int i;

	/* Any state may go to RESET or ERR, with nothing else. */
	if ((mask & IBV_QP_STATE) &&
	    (next == IBV_QPS_RESET || next == IBV_QPS_ERR))
		return extra & ~IBV_QP_CUR_STATE ? EINVAL : 0;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_RESET)
		return extra ? EINVAL : 0;
	for (i = 0; i < sizeof(m5m_trans) / sizeof(m5m_trans[0]); i++) {
		const struct m5m_trans *tr = &m5m_trans[i];

		if (tr->from != cur || tr->to != next)
			continue;
		if ((extra & tr->req[t]) != tr->req[t] ||
		    (extra & ~(tr->req[t] | tr->opt[t] | IBV_QP_CUR_STATE)))
			return EINVAL;
		return 0;
	}
	return EINVAL;
}

static int m5m_attr_values(const struct m5m_qp *qp, const struct ibv_qp_attr *a,
			   int mask)
{
	const struct m5m_config *cfg = &qp->ctx->dev->cfg;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	if ((mask & IBV_QP_PORT) &&
	    (a->port_num < 1 || a->port_num > cfg->num_ports))
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
		return EINVAL;
	if ((mask & IBV_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~access))
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) &&
	    (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096))
		return EINVAL;
	if ((mask & IBV_QP_AV) &&
	    ((cfg->link_layer == IBV_LINK_LAYER_ETHERNET &&
	      !a->ah_attr.is_global) ||
	     (a->ah_attr.is_global &&
	      a->ah_attr.grh.sgid_index >= m5m_port_gids(qp->ctx->dev))))
		return EINVAL;
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
		return EINVAL;
	if (((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > 16) ||
	    ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > 16))
		return EINVAL;
	/* mlx5_ib takes timeout 32 (libmlx5 through Linux 7.2, sim/mlx5/pci). */
	if (((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31))
		return EINVAL;
	return 0;
}

static void m5m_attr_apply(struct m5m_qp *qp, const struct ibv_qp_attr *a,
			   int mask)
{
	if (mask & IBV_QP_PORT)
		qp->port = a->port_num;
	if (mask & IBV_QP_PKEY_INDEX)
		qp->pkey_index = a->pkey_index;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->access_asked = a->qp_access_flags;
	if (mask & IBV_QP_QKEY)
		qp->qkey = a->qkey;
	if (mask & IBV_QP_AV)
		qp->ah = a->ah_attr;
	if (mask & IBV_QP_PATH_MTU)
		qp->mtu = a->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)
		qp->rq_psn = a->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		qp->sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = a->rnr_retry;
	/*
	 * As mlx5_ib's set_qpc_atomic_flags(): a responder without read or
	 * atomic resources (max_dest_rd_atomic 0) gets remote write only.
	 */
	qp->access = qp->max_dest_rd_atomic
			     ? qp->access_asked
			     : qp->access_asked & IBV_ACCESS_REMOTE_WRITE;
}

static struct m5m_qp *m5m_qp_of(struct ibv_qp *qp)
{
	struct m5m_ctx *c = m5m_ctx_of(qp->context);
	struct m5m_qp *m = c ? m5m_qp_find(c->dev, qp->handle) : NULL;

	return m && m->ctx == c ? m : NULL;
}

static void m5m_qp_reset(struct m5m_qp *qp)
{
	qp->sq_hw = qp->rq_hw = qp->db_pi = qp->snd_seen = qp->rq_seen = 0;
	qp->parked = false;
	qp->rnr_used = 0;
	qp->retry_used = 0;
	qp->comm_est_sent = qp->last_wqe_sent = false;
}

int m5k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	enum ibv_qp_state cur, next;
	struct m5m_qp *m;
	int ret;

	m5m_lock();
	m = m5m_qp_of(qp);
	if (!m) {
		ret = EINVAL;
		goto out;
	}
	m5m_step_locked(m->ctx->dev);
	/* ibv_cmd_modify_qp takes the legacy attributes only. */
	if (mask & ~(IBV_QP_RATE_LIMIT - 1)) {
		ret = EOPNOTSUPP;
		goto out;
	}
	cur = m->state;
	next = mask & IBV_QP_STATE ? attr->qp_state : cur;
	ret = (mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur ? EINVAL
								     : 0;
	if (!ret)
		ret = m5m_trans_ok(cur, next, m->type, mask);
	if (!ret)
		ret = m5m_attr_values(m, attr, mask);
	if (ret)
		goto out;
	m5m_attr_apply(m, attr, mask);
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT)
		m5m_check(m->ctx->dev, !m->dbrec[0] && !m->dbrec[1],
			  "QP 0x%x leaves RESET with a non-zero dbrec "
			  "(0x%08x 0x%08x)",
			  m->qpn, be32toh(m->dbrec[0]), be32toh(m->dbrec[1]));
	switch (next) {
	case IBV_QPS_RESET:
		m->state = next;
		m5m_qp_reset(m);
		break;
	case IBV_QPS_ERR:
		m5m_qp_to_err(m);
		break;
	default:
		m->state = next;
		/* WQEs announced before RTS run now. */
		if (next == IBV_QPS_RTS)
			m5m_sq_run(m);
		break;
	}
out:
	m5m_unlock();
	return ret;
}

int m5k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct m5m_qp *m;
	int ret = 0;

	m5m_lock();
	m = m5m_qp_of(qp);
	if (!m || (mask & ~(IBV_QP_RATE_LIMIT - 1))) {
		ret = m ? EOPNOTSUPP : EINVAL;
		goto out;
	}
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = m->state;
	attr->cur_qp_state = m->state;
	attr->path_mtu = m->mtu;
	attr->path_mig_state = IBV_MIG_MIGRATED;
	attr->qkey = m->qkey;
	attr->rq_psn = m->rq_psn;
	attr->sq_psn = m->sq_psn;
	attr->dest_qp_num = m->dest_qpn;
	attr->qp_access_flags = m->access;
	attr->ah_attr = m->ah;
	attr->pkey_index = m->pkey_index;
	attr->max_rd_atomic = m->max_rd_atomic;
	attr->max_dest_rd_atomic = m->max_dest_rd_atomic;
	attr->min_rnr_timer = m->min_rnr_timer;
	attr->port_num = m->port;
	attr->timeout = m->timeout;
	attr->retry_cnt = m->retry_cnt;
	attr->rnr_retry = m->rnr_retry;
	/* mlx5_ib reports receive caps only; send caps of a user QP are 0. */
	attr->cap.max_recv_wr = m->rq_cnt;
	attr->cap.max_recv_sge = m->rq_cnt ? (1u << m->rq_shift) / 16 : 0;
	memset(init, 0, sizeof(*init));
	init->qp_context = qp->qp_context;
	init->send_cq = qp->send_cq;
	init->recv_cq = qp->recv_cq;
	init->srq = qp->srq;
	init->qp_type = qp->qp_type;
	init->cap = attr->cap;
	init->sq_sig_all = m->sq_sig_all;
out:
	m5m_unlock();
	return ret;
}

/* --- Create and destroy --------------------------------------------------- */

/* alloc_bfreg: a free dedicated one, else the least used medium, else 0. */
static uint32_t m5m_bfreg_alloc(struct m5m_ctx *c)
{
	uint32_t first_hi = c->tot_bfregs - c->low_lat, i, min = 0;

	for (i = first_hi; i < c->tot_bfregs; i++)
		if (!c->bfreg_users[i])
			goto take;
	for (i = 1; i < first_hi; i++)
		if (!min || c->bfreg_users[i] < c->bfreg_users[min])
			min = i;
	i = min;
take:
	c->bfreg_users[i]++;
	return i;
}

static bool m5m_pow2_or_0(uint32_t v)
{
	return !(v & (v - 1));
}

static int m5m_qp_req_check(struct m5m_ctx *c,
			    const struct ibv_qp_init_attr_ex *attr,
			    const struct mlx5_ib_create_qp *req)
{
	const uint32_t known =
		IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
		IBV_QP_INIT_ATTR_CREATE_FLAGS |
		IBV_QP_INIT_ATTR_MAX_TSO_HEADER | IBV_QP_INIT_ATTR_IND_TABLE |
		IBV_QP_INIT_ATTR_RX_HASH | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	/* An XRC initiator has no receive side (uverbs takes no CQ for it). */
	if ((attr->comp_mask & ~known) ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    !attr->send_cq ||
	    (!attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND))
		return EINVAL;
	if ((attr->comp_mask &
	     (IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
	      IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags))
		return EOPNOTSUPP;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD && attr->qp_type != IBV_QPT_XRC_SEND)
		return EOPNOTSUPP;
	if (attr->qp_type == IBV_QPT_XRC_SEND &&
	    (attr->srq || req->rq_wqe_count))
		return EINVAL;
	/*
	 * mlx5_ib's set_rq_size() holds max_recv_wr to the WQE limit, and
	 * nothing holds max_send_wr or the SGE counts of a user QP: the
	 * provider computed the queue from them (libmlx5 v65 through
	 * Linux 7.2's mlx5_ib on the software ConnectX, sim/mlx5/pci: created).
	 */
	if (attr->cap.max_recv_wr > M5M_MAX_WR)
		return EINVAL;
	if (req->flags & MLX5_QP_FLAG_BFREG_INDEX)
		return EOPNOTSUPP;
	if ((req->flags & ~MLX5_QP_FLAG_UAR_PAGE_INDEX) ||
	    (req->bfreg_index && !(req->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX)) ||
	    req->sq_buf_addr || req->ece_options || req->reserved)
		return EINVAL;
	if (!m5m_pow2_or_0(req->sq_wqe_count) ||
	    req->sq_wqe_count > M5M_MAX_WR ||
	    !m5m_pow2_or_0(req->rq_wqe_count) ||
	    req->rq_wqe_count > M5M_MAX_WR ||
	    (req->rq_wqe_count &&
	     (req->rq_wqe_shift < 4 || req->rq_wqe_shift > 9)))
		return EINVAL;
	/* mlx5_ib maps no buffer for a QP with no WQEs (_create_user_qp). */
	if ((!req->buf_addr && (req->sq_wqe_count || req->rq_wqe_count)) ||
	    !req->db_addr)
		return EFAULT;
	if (req->buf_addr % 64 || req->db_addr % 8)
		return EINVAL;
	/*
	 * Linux v6.1 drivers/infiniband/hw/mlx5/qp.c, _create_user_qp: with
	 * the flag the page index is the QP's UAR (the device refuses one
	 * that is not this context's: EINVAL); without it alloc_bfreg,
	 * which a dynamic-UAR context has none for.
	 */
	if (req->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX) {
		if (!m5m_uobj_by_page(c, req->bfreg_index))
			return EINVAL;
	} else if (!c->tot_bfregs) {
		return EINVAL;
	}
	return m5m_uidx_check(c, req->uidx);
}

/* What a provider must get right that the kernel would not catch. */
static void m5m_qp_sanity(struct m5m_dev *dev, const struct m5m_qp *qp,
			  const struct ibv_qp_init_attr_ex *attr,
			  const struct mlx5_ib_create_qp *req)
{
	uint32_t i;

	m5m_check(dev, !qp->dbrec[0] && !qp->dbrec[1],
		  "new QP: dbrec is not zero");
	m5m_check(dev, !attr->srq || !req->rq_wqe_count,
		  "QP with an SRQ asks for an RQ of %u WQEs (the kernel "
		  "ignores it and puts the SQ at offset 0)",
		  req->rq_wqe_count);
	m5m_check(dev,
		  attr->srq || attr->qp_type == IBV_QPT_XRC_SEND ||
			  req->rq_wqe_count >= attr->cap.max_recv_wr,
		  "RQ of %u WQEs for max_recv_wr %u", req->rq_wqe_count,
		  attr->cap.max_recv_wr);
	m5m_check(dev, req->sq_wqe_count >= attr->cap.max_send_wr,
		  "SQ of %u WQEBBs for max_send_wr %u", req->sq_wqe_count,
		  attr->cap.max_send_wr);
	for (i = 0; i < qp->ctx->dev->qps.cap; i++) {
		const struct m5m_qp *o = qp->ctx->dev->qps.slot[i];

		if (o && o != qp && o->ctx == qp->ctx && qp->ctx->cqe_version)
			m5m_check(dev, o->uidx != qp->uidx,
				  "QPs 0x%x and 0x%x share user index 0x%x",
				  o->qpn, qp->qpn, qp->uidx);
	}
}

static struct m5m_cq *m5m_ctx_cq(struct m5m_ctx *c, struct ibv_cq *cq)
{
	struct m5m_cq *m = cq ? m5m_cq_find(c->dev, cq->handle) : NULL;

	return m && m->ctx == c ? m : NULL;
}

static void m5m_qp_fill(struct verbs_qp *vqp, struct ibv_context *ctx,
			const struct ibv_qp_init_attr_ex *attr, uint32_t qpn)
{
	struct ibv_qp *qp = &vqp->qp;

	/* What ibv_cmd_create_qp_ex2 fills (set_qp). */
	qp->context = ctx;
	qp->qp_context = attr->qp_context;
	qp->pd = attr->pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->state = IBV_QPS_RESET;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	qp->handle = qpn;
	qp->qp_num = qpn;
	*db_vqp_comp_mask(vqp) = 0;
}

/*
 * An XRC target: a kernel object only, no PD, CQ, buffer or doorbell of
 * the process (uverbs takes its domain instead).  It delivers to the XRC
 * SRQs of its domain (the engine's m5m_exec_xrc), and posts nothing.
 */
static __be32 m5m_tgt_dbrec[2]; /* read as zero: nothing is ever posted */

static int m5m_xrc_tgt_check(struct m5m_ctx *c,
			     const struct ibv_qp_init_attr_ex *attr,
			     const struct mlx5_ib_create_qp *req)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD;

	if ((attr->comp_mask & ~known) ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)
		return EINVAL;
	if (req->sq_wqe_count || req->rq_wqe_count || req->buf_addr ||
	    req->flags || req->ece_options || req->reserved)
		return EINVAL;
	return m5m_uidx_check(c, req->uidx);
}

static int m5m_create_xrc_tgt(struct ibv_context *ctx, struct verbs_qp *qp,
			      struct ibv_qp_init_attr_ex *attr,
			      const struct mlx5_ib_create_qp *req,
			      struct mlx5_ib_create_qp_resp *resp)
{
	struct m5m_xrcd *x = NULL;
	struct m5m_qp *m = NULL;
	struct m5m_ctx *c;
	int ret;

	m5m_lock();
	c = m5m_ctx_of(ctx);
	ret = c ? m5m_xrc_tgt_check(c, attr, req) : ENODEV;
	if (!ret && !(x = m5m_xrcd_of(attr->xrcd)))
		ret = EINVAL;
	if (!ret && !(m = calloc(1, sizeof(*m))))
		ret = ENOMEM;
	if (ret)
		goto out;
	m->ctx = c;
	m->dev = c->dev;
	m->type = IBV_QPT_XRC_RECV;
	m->state = IBV_QPS_RESET;
	m->ibqp = &qp->qp;
	m->dbrec = m5m_tgt_dbrec;
	m->uidx = c->cqe_version ? req->uidx : 0xffffff;
	m->xrcd = x->xrcdn;
	m->port = 1;
	m->mtu = IBV_MTU_1024;
	m->qpn = m5m_tab_add(&c->dev->qps, m);
	if (!m->qpn) {
		ret = ENOMEM;
		goto out;
	}
	x->users++;
	m5m_qp_fill(qp, ctx, attr, m->qpn);
	qp->qp.pd = NULL;
	qp->qp.send_cq = NULL;
	qp->qp.recv_cq = NULL;
	qp->qp.srq = NULL;
	/* What ibv_cmd_create_qp_ex2 fills for a target (set_qp). */
	*db_vqp_comp_mask(qp) = VERBS_QP_XRCD;
	*db_vqp_xrcd(qp) = container_of(attr->xrcd, struct verbs_xrcd, xrcd);
	memset(resp, 0, sizeof(*resp));
	m = NULL;
out:
	free(m);
	m5m_unlock();
	return ret;
}

int m5k_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		  struct ibv_qp_init_attr_ex *attr,
		  const struct mlx5_ib_create_qp *req,
		  struct mlx5_ib_create_qp_resp *resp)
{
	struct m5m_qp *m = NULL;
	struct m5m_ctx *c;
	int ret;

	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return m5m_create_xrc_tgt(ctx, qp, attr, req, resp);
	m5m_lock();
	c = m5m_ctx_of(ctx);
	ret = c ? m5m_qp_req_check(c, attr, req) : ENODEV;
	if (!ret && !(m = calloc(1, sizeof(*m))))
		ret = ENOMEM;
	if (ret)
		goto out;
	m->ctx = c;
	m->dev = c->dev;
	m->pd = m5m_tab_get(&c->dev->pds, attr->pd->handle);
	m->scq = m5m_ctx_cq(c, attr->send_cq);
	/*
	 * An XRC initiator receives nothing: mlx5_ib names a CQ of its own
	 * there, the model the send CQ (never written through: no RQ).
	 */
	m->rcq = attr->qp_type == IBV_QPT_XRC_SEND
			 ? m->scq
			 : m5m_ctx_cq(c, attr->recv_cq);
	m->srq = attr->srq ? m5m_tab_get(&c->dev->srqs, attr->srq->handle)
			   : NULL;
	if (!m->pd || m->pd->ctx != c || !m->scq || !m->rcq ||
	    (attr->srq && (!m->srq || m->srq->ctx != c))) {
		ret = EINVAL;
		goto out;
	}
	m->type = attr->qp_type;
	m->state = IBV_QPS_RESET;
	m->ibqp = &qp->qp;
	m->buf = (uint8_t *)(uintptr_t)req->buf_addr;
	m->dbrec = (__be32 *)(uintptr_t)req->db_addr;
	m->rq_cnt = attr->srq ? 0 : req->rq_wqe_count;
	m->rq_shift = m->rq_cnt ? req->rq_wqe_shift : 0;
	m->rq = m->buf;
	m->sq = m->buf + ((size_t)m->rq_cnt << m->rq_shift);
	m->sq_bbs = req->sq_wqe_count;
	m->uidx = c->cqe_version ? req->uidx : 0xffffff;
	m->sq_sig_all = attr->sq_sig_all;
	m->cap = attr->cap;
	m->port = 1;
	m->mtu = IBV_MTU_1024;
	if (req->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX) {
		m->uobj = m5m_uobj_by_page(c, req->bfreg_index);
		m->uar_page = req->bfreg_index;
	} else {
		m->bfregn = m5m_bfreg_alloc(c);
		m->bfreg_index = m->bfregn / M5_NON_FP_BFREGS_PER_UAR *
					 M5_BFREGS_PER_UAR +
				 m->bfregn % M5_NON_FP_BFREGS_PER_UAR;
	}
	m->qpn = m5m_tab_add(&c->dev->qps, m);
	if (!m->qpn) {
		if (!m->uobj)
			c->bfreg_users[m->bfregn]--;
		ret = ENOMEM;
		goto out;
	}
	if (m->uobj)
		m->uobj->users++;
	m5m_qp_sanity(c->dev, m, attr, req);
	m5m_dbrec_register(m->dbrec, M5M_DBR_QP, m);
	m->pd->users++;
	m->scq->users++;
	m->rcq->users++;
	if (m->srq)
		m->srq->users++;
	m5m_qp_fill(qp, ctx, attr, m->qpn);
	memset(resp, 0, sizeof(*resp));
	/* With a page index there is no bfreg to report: the model says 0. */
	resp->bfreg_index = m->uobj ? 0 : m->bfreg_index;
	m = NULL;
out:
	free(m);
	m5m_unlock();
	return ret;
}

int m5k_destroy_qp(struct ibv_qp *qp)
{
	struct m5m_qp *m;
	struct m5m_ctx *c;

	m5m_lock();
	m = m5m_qp_of(qp);
	if (!m) {
		m5m_unlock();
		return EINVAL;
	}
	c = m->ctx;
	m5m_wait_acked(c->dev, &qp->mutex, &qp->cond, &qp->events_completed,
		       m->async_reported, NULL, 0, "QP", m->qpn);
	if (m->type == IBV_QPT_XRC_RECV) {
		struct m5m_xrcd *x = m5m_tab_get(&c->dev->xrcds, m->xrcd);

		x->users--;
		goto gone;
	}
	if (m->uobj)
		m->uobj->users--;
	else
		c->bfreg_users[m->bfregn]--;
	m5m_dbrec_unregister(m->dbrec);
	m->pd->users--;
	m->scq->users--;
	m->rcq->users--;
	if (m->srq)
		m->srq->users--;
gone:
	m5m_tab_del(&c->dev->qps, m->qpn);
	free(m);
	m5m_unlock();
	return 0;
}

/*
 * The model's targets have one handle, their creator's (m5m_qp keeps one
 * context and one ibv_qp for its events): another handle is refused.
 * ibv_open_qp is checked on the software ConnectX, under the real kernel.
 */
int m5k_open_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		struct ibv_qp_open_attr *attr)
{
	(void)ctx;
	(void)qp;
	(void)attr;
	return EOPNOTSUPP;
}

/* The model delivers no multicast: attaching a QP to a group is refused. */
int db_k_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

int db_k_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

int64_t m5m_qp_uar_page(struct m5m_dev *dev, uint32_t qpn)
{
	struct m5m_qp *m;
	int64_t pg = -1;

	m5m_lock();
	m = m5m_qp_find(dev, qpn);
	if (m && m->uobj)
		pg = m->uar_page;
	m5m_unlock();
	return pg;
}
