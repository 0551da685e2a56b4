// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fake kernel, CQ and SRQ commands: create (mlx5_ib's checks on the
 * driver data, the CQ's EQ by comp_vector, its completion channel),
 * MODIFY_CQ moderation, CQ resize, SRQ limit, query, and destroy, which waits for
 * the events it reported to be acknowledged as ibv_cmd_destroy_* does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "m5m_front.h"

#define M5M_MAX_CQE	  ((1u << 22) - 1)
#define M5M_MAX_CQ_PERIOD 4095
#define M5M_ACK_WAIT_S	  2

static uint32_t m5m_roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/*
 * libibverbs waits in ibv_cmd_destroy_* until every event the kernel
 * reported was acknowledged.  The model waits too (without its lock), but
 * gives up after a while: a test that never acks would otherwise hang.
 */
void m5m_wait_acked(struct m5m_dev *dev, pthread_mutex_t *mx,
		    pthread_cond_t *cv, const uint32_t *done1, uint64_t want1,
		    const uint32_t *done2, uint64_t want2, const char *what,
		    uint32_t num)
{
	struct timespec until;
	bool ok = true;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += M5M_ACK_WAIT_S;
	m5m_unlock();
	pthread_mutex_lock(mx);
	while ((*done1 != (uint32_t)want1 ||
		(done2 && *done2 != (uint32_t)want2)) &&
	       rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(cv, mx, &until);
	ok = *done1 == (uint32_t)want1 && (!done2 || *done2 == (uint32_t)want2);
	pthread_mutex_unlock(mx);
	m5m_lock();
	m5m_check(dev, ok,
		  "destroy of %s 0x%x: events reported were never all "
		  "acknowledged (ibv_destroy_* would block for ever)",
		  what, num);
}

static struct m5m_cq *m5m_cq_of(struct ibv_cq *cq)
{
	struct m5m_ctx *c = m5m_ctx_of(cq->context);
	struct m5m_cq *m = c ? m5m_cq_find(c->dev, cq->handle) : NULL;

	return m && m->ctx == c ? m : NULL;
}

/*
 * The UAR the CQ's arms go through.  Linux v6.1 drivers/infiniband/hw/
 * mlx5/cq.c, create_cq_user, takes the page index when the flag says so,
 * refuses a dynamic-UAR context without it, and uses the first static UAR
 * otherwise.  The page must be a live UAR object of this context (the
 * device refuses another's: EINVAL).
 */
static int m5m_cq_uar(struct m5m_ctx *c, const struct mlx5_ib_create_cq *req,
		      struct m5m_uobj **uobj)
{
	*uobj = NULL;
	if (!(req->flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return c->dyn_uar ? EINVAL : 0;
	*uobj = m5m_uobj_by_page(c, req->uar_page_index);
	return *uobj ? 0 : EINVAL;
}

static int m5m_cq_req_check(const struct ibv_cq_init_attr_ex *attr,
			    const struct mlx5_ib_create_cq *req,
			    unsigned int nvec)
{
	const uint32_t known =
		IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;

	if (attr->comp_mask & ~known)
		return EOPNOTSUPP;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		return EOPNOTSUPP; /* a free-running timer, not the time */
	if (attr->cqe < 1 || attr->cqe > M5M_MAX_CQE ||
	    attr->comp_vector >= nvec)
		return EINVAL;
	if (req->reserved0 || req->reserved1)
		return EINVAL;
	if (req->cqe_size != 64 && req->cqe_size != 128)
		return EINVAL;
	/* 128-byte CQEs, compression and the CQ flags are mlx5_ib
	 * features the model does not implement. */
	if (req->cqe_size != 64 || req->cqe_comp_en ||
	    req->cqe_comp_res_format ||
	    (req->flags & ~MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return EOPNOTSUPP;
	if (req->uar_page_index &&
	    !(req->flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return EINVAL;
	if (!req->buf_addr || !req->db_addr)
		return EFAULT;
	if (req->buf_addr % 64 || req->db_addr % 8)
		return EINVAL;
	return 0;
}

/* What the backend owes a new ring: every op_own 0xF0. */
static void m5m_ring_fresh(struct m5m_dev *dev, const uint8_t *buf,
			   uint32_t ncqe, const char *what)
{
	uint32_t i;

	for (i = 0; i < ncqe; i++)
		if (!m5m_check(dev,
			       buf[(size_t)i * 64 + 63] == M5_CQE_OP_OWN_INIT,
			       "%s: CQE %u op_own 0x%02x, not 0xf0", what, i,
			       buf[(size_t)i * 64 + 63]))
			break;
}

/* And a new CQ: a fresh ring and a zero dbrec. */
static void m5m_cq_fresh(struct m5m_dev *dev, const uint8_t *buf, uint32_t ncqe,
			 const __be32 *db)
{
	m5m_ring_fresh(dev, buf, ncqe, "new CQ");
	m5m_check(dev, !db[0] && !db[1], "new CQ: dbrec is not zero");
}

int m5k_create_cq(struct ibv_context *ctx,
		  const struct ibv_cq_init_attr_ex *attr, struct verbs_cq *cq,
		  const struct mlx5_ib_create_cq *req,
		  struct mlx5_ib_create_cq_resp *resp)
{
	struct m5m_chan *mc = NULL;
	struct m5m_uobj *uobj = NULL;
	struct m5m_cq *m = NULL;
	struct m5m_ctx *c;
	uint32_t ncqe;
	int ret;

	m5m_lock();
	c = m5m_ctx_of(ctx);
	ret = c ? m5m_cq_req_check(attr, req, c->dev->cfg.num_comp_vectors)
		: ENODEV;
	if (!ret)
		ret = m5m_cq_uar(c, req, &uobj);
	if (!ret && attr->channel) {
		mc = m5m_chan_find(c->dev, attr->channel);
		if (!mc)
			ret = EINVAL; /* not from m5m_create_comp_channel */
	}
	if (ret)
		goto out;
	ncqe = m5m_roundup_pow2(attr->cqe + 1);
	m5m_cq_fresh(c->dev, (const uint8_t *)(uintptr_t)req->buf_addr, ncqe,
		     (const __be32 *)(uintptr_t)req->db_addr);
	m = m5m_cq_new(c->dev, (uint8_t *)(uintptr_t)req->buf_addr, ncqe,
		       (__be32 *)(uintptr_t)req->db_addr, attr->comp_vector);
	if (!m) {
		ret = ENOMEM;
		goto out;
	}
	/* The provider's stores to the dbrec reach the model (m5m_uar.c). */
	m5m_dbrec_register(m->dbrec, M5M_DBR_CQ, m);
	m->ctx = c;
	m->ibcq = &cq->cq;
	m->uobj = uobj;
	m->uar_page = req->uar_page_index;
	if (uobj)
		uobj->users++;
	m->user_handle = (uintptr_t)&cq->cq;
	m->oi = (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
		(attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN);
	if (mc) {
		mc->users++;
		m->chan = mc;
		m->chan_wfd = mc->wfd;
		m->chan_rfd = mc->ch->fd;
	}
	cq->cq.context = ctx;
	cq->cq.handle = m->cqn;
	cq->cq.cqe = (int)ncqe - 1;
	memset(resp, 0, sizeof(*resp));
	resp->cqn = m->cqn;
out:
	m5m_unlock();
	return ret;
}

int m5k_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	struct m5m_cq *m;
	int ret = 0;

	m5m_lock();
	m = m5m_cq_of(cq);
	if (!m || !attr->attr_mask || attr->attr_mask >= IBV_CQ_ATTR_RESERVED)
		ret = EINVAL;
	else if (!m->dev->cfg.cq_moderation)
		ret = EOPNOTSUPP;
	else if (attr->moderate.cq_period > M5M_MAX_CQ_PERIOD)
		ret = EINVAL;
	if (!ret) {
		m->arm.mod_count = attr->moderate.cq_count;
		m->arm.mod_period = attr->moderate.cq_period;
		m5m_cq_try_fire(m);
	}
	m5m_unlock();
	return ret;
}

/*
 * mlx5_ib_resize_cq (Linux v6.1 drivers/infiniband/hw/mlx5/cq.c) for a
 * user CQ, with resize_user's checks on the driver data: EINVAL for
 * entries below 1 or above the device's limit, nothing done (0) for the
 * size the CQ has, EINVAL for reserved fields, EFAULT for no buffer; then
 * MODIFY_CQ, whose BAD_PARAM is EINVAL.  On success the kernel tells
 * libibverbs the new cqe (ibv_cmd_resize_cq writes cq->cqe).  128-byte
 * CQEs are EOPNOTSUPP here: the model has none.
 */
int m5k_resize_cq(struct ibv_cq *cq, int cqe,
		  const struct mlx5_ib_resize_cq *req)
{
	struct m5m_cq *m;
	uint32_t ncqe;
	uint8_t *buf;
	int ret = 0;

	m5m_lock();
	m = m5m_cq_of(cq);
	if (!m || cqe < 1 || (uint32_t)cqe > M5M_MAX_CQE) {
		ret = EINVAL;
		goto out;
	}
	ncqe = m5m_roundup_pow2((uint32_t)cqe + 1);
	if (ncqe == m->ncqe)
		goto out;
	if (req->reserved0 || req->reserved1)
		ret = EINVAL;
	else if (req->cqe_size != 64 && req->cqe_size != 128)
		ret = EINVAL;
	else if (req->cqe_size != 64)
		ret = EOPNOTSUPP;
	else if (!req->buf_addr)
		ret = EFAULT;
	else if (req->buf_addr % 64)
		ret = EINVAL;
	if (ret)
		goto out;
	buf = (uint8_t *)(uintptr_t)req->buf_addr;
	m5m_ring_fresh(m->dev, buf, ncqe, "resized CQ");
	ret = m5m_cq_resize(m, buf, ncqe);
	if (ret)
		goto out;
	m->dev->st.cq_resizes++;
	cq->cqe = (int)ncqe - 1;
out:
	m5m_unlock();
	return ret;
}

int m5k_destroy_cq(struct ibv_cq *cq)
{
	struct m5m_cq *m;
	int ret = 0;

	m5m_lock();
	m = m5m_cq_of(cq);
	if (!m)
		ret = EINVAL;
	else if (m->users)
		ret = EBUSY;
	if (ret)
		goto out;
	m5m_wait_acked(m->dev, &cq->mutex, &cq->cond,
		       &cq->comp_events_completed, m->comp_reported,
		       &cq->async_events_completed, m->async_reported, "CQ",
		       m->cqn);
	if (m->chan)
		m->chan->users--;
	if (m->uobj)
		m->uobj->users--;
	m5m_dbrec_unregister(m->dbrec);
	m5m_cq_free(m);
out:
	m5m_unlock();
	return ret;
}

/* --- SRQs ----------------------------------------------------------------- */

static struct m5m_srq *m5m_srq_of(struct ibv_srq *srq)
{
	struct m5m_ctx *c = m5m_ctx_of(srq->context);
	struct m5m_srq *m = c ? m5m_tab_get(&c->dev->srqs, srq->handle) : NULL;

	return m && m->ctx == c ? m : NULL;
}

/* mlx5_ib's verify_assign_uidx with CQE version 1. */
int m5m_uidx_check(const struct m5m_ctx *c, uint32_t uidx)
{
	if (!c->cqe_version)
		return 0;
	return uidx >= 0xffffff ? EINVAL : 0;
}

static bool m5m_srq_is_xrc(const struct ibv_srq_init_attr_ex *attr)
{
	return (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	       attr->srq_type == IBV_SRQT_XRC;
}

static int m5m_srq_req_check(const struct m5m_ctx *c,
			     const struct ibv_srq_init_attr_ex *attr,
			     const struct mlx5_ib_create_srq *req)
{
	const uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
			       IBV_SRQ_INIT_ATTR_TM;

	if (attr->comp_mask & ~known)
		return EINVAL;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC)
		return EOPNOTSUPP;
	/* An XRC SRQ completes on a CQ of its own, in a domain (uverbs). */
	if (m5m_srq_is_xrc(attr) &&
	    (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	     !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq))
		return EINVAL;
	/* mlx5_ib takes max_wr 0 and sizes the SRQ to one WQE. */
	if (attr->attr.max_wr >= (1u << 15) || attr->attr.max_sge > 31)
		return EINVAL;
	if (req->flags || req->reserved0 || req->reserved1)
		return EINVAL;
	if (!req->buf_addr || !req->db_addr)
		return EFAULT;
	if (req->buf_addr % 64 || req->db_addr % 8)
		return EINVAL;
	return m5m_uidx_check(c, req->uidx);
}

int m5k_create_srq(struct ibv_context *ctx, struct verbs_srq *srq,
		   struct ibv_srq_init_attr_ex *attr,
		   const struct mlx5_ib_create_srq *req,
		   struct mlx5_ib_create_srq_resp *resp)
{
	struct m5m_srq *m = NULL;
	struct m5m_xrcd *x = NULL;
	struct m5m_cq *xcq = NULL;
	struct m5m_pd *p = NULL;
	struct m5m_ctx *c;
	uint32_t desc;
	int ret;

	m5m_lock();
	c = m5m_ctx_of(ctx);
	ret = c ? m5m_srq_req_check(c, attr, req) : ENODEV;
	if (!ret) {
		p = m5m_tab_get(&c->dev->pds, attr->pd->handle);
		if (!p || p->ctx != c)
			ret = EINVAL;
	}
	if (!ret && m5m_srq_is_xrc(attr)) {
		x = m5m_xrcd_of(attr->xrcd);
		xcq = m5m_cq_of(attr->cq);
		if (!x || !xcq)
			ret = EINVAL;
	}
	if (!ret && !(m = calloc(1, sizeof(*m))))
		ret = ENOMEM;
	if (ret)
		goto out;
	m->ctx = c;
	m->dev = c->dev;
	m->pd = p;
	m->ibsrq = &srq->srq;
	m->buf = (uint8_t *)(uintptr_t)req->buf_addr;
	m->dbrec = (__be32 *)(uintptr_t)req->db_addr;
	m->uidx = req->uidx;
	m->max_sge = attr->attr.max_sge;
	/* The kernel's geometry: max_wr + 1 WQEs, next segment + SGEs. */
	m->nwqe = m5m_roundup_pow2(attr->attr.max_wr + 1);
	desc = m5m_roundup_pow2(sizeof(struct m5_srq_next_seg) +
				attr->attr.max_sge *
					sizeof(struct m5_data_seg));
	if (desc < 32)
		desc = 32;
	while ((1u << m->shift) < desc)
		m->shift++;
	m->srqn = m5m_tab_add(&c->dev->srqs, m);
	m5m_check(c->dev, !m->dbrec[0], "new SRQ: dbrec is not zero");
	m5m_dbrec_register(m->dbrec, M5M_DBR_SRQ, m);
	p->users++;
	srq->srq.context = ctx;
	srq->srq.handle = m->srqn;
	srq->srq.srq_context = attr->srq_context;
	srq->srq.pd = attr->pd;
	srq->srq.events_completed = 0;
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	srq->srq_type = IBV_SRQT_BASIC;
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ)
		srq->cq = attr->cq;
	if (x) {
		/* What ibv_cmd_create_srq_ex fills for an XRC SRQ. */
		m->xrcd = x->xrcdn;
		m->cq = xcq;
		x->users++;
		xcq->users++;
		srq->srq_type = IBV_SRQT_XRC;
		srq->xrcd = container_of(attr->xrcd, struct verbs_xrcd, xrcd);
		srq->srq_num = m->srqn;
	}
	attr->attr.max_wr = m->nwqe - 1;
	memset(resp, 0, sizeof(*resp));
	resp->srqn = m->srqn;
out:
	m5m_unlock();
	return ret;
}

int m5k_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct m5m_srq *m;
	uint16_t avail;
	int ret = 0;

	m5m_lock();
	m = m5m_srq_of(srq);
	if (!m || (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		ret = EINVAL;
	else if (mask & IBV_SRQ_MAX_WR)
		ret = EINVAL; /* mlx5 SRQs do not resize */
	else if ((mask & IBV_SRQ_LIMIT) && attr->srq_limit >= m->nwqe)
		ret = EINVAL;
	if (!ret && (mask & IBV_SRQ_LIMIT)) {
		m->limit = attr->srq_limit;
		m->limit_armed = attr->srq_limit != 0;
		avail = (uint16_t)(be32toh(*m->dbrec) - m->consumed);
		if (m->limit_armed && avail < m->limit) {
			m->limit_armed = false;
			m5m_async_srq(m, M5M_EVENT_SRQ_LIMIT);
		}
	}
	m5m_unlock();
	return ret;
}

int m5k_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct m5m_srq *m;
	int ret = 0;

	m5m_lock();
	m = m5m_srq_of(srq);
	if (!m) {
		ret = EINVAL;
	} else {
		attr->max_wr = m->nwqe - 1;
		attr->max_sge = m->max_sge;
		attr->srq_limit = m->limit;
	}
	m5m_unlock();
	return ret;
}

int m5k_destroy_srq(struct ibv_srq *srq)
{
	struct m5m_srq *m;
	int ret = 0;

	m5m_lock();
	m = m5m_srq_of(srq);
	if (!m)
		ret = EINVAL;
	else if (m->users)
		ret = EBUSY;
	if (ret)
		goto out;
	m5m_wait_acked(m->ctx->dev, &srq->mutex, &srq->cond,
		       &srq->events_completed, m->async_reported, NULL, 0,
		       "SRQ", m->srqn);
	m5m_dbrec_unregister(m->dbrec);
	m->pd->users--;
	if (m->cq) {
		struct m5m_xrcd *x = m5m_tab_get(&m->dev->xrcds, m->xrcd);

		m->cq->users--;
		x->users--;
	}
	m5m_tab_del(&m->ctx->dev->srqs, m->srqn);
	free(m);
out:
	m5m_unlock();
	return ret;
}

int64_t m5m_cq_uar_page(struct m5m_dev *dev, struct ibv_cq *cq)
{
	struct m5m_cq *m;
	int64_t pg = -1;

	m5m_lock();
	m = m5m_cq_of(cq);
	if (m && m->dev == dev && m->uobj)
		pg = m->uar_page;
	m5m_unlock();
	return pg;
}
