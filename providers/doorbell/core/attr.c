// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The verb policy every backend shares (core/attr.h). */
#include <errno.h>

#include "core/attr.h"

bool db_need_lock(struct ibv_pd *pd)
{
	return !db_config()->single_threaded && !db_pd_single_threaded(pd);
}

/* The backend @ctx is served by. */
static const struct db_backend *db_backend_of_ctx(struct ibv_context *ctx)
{
	return to_db_ctx(ctx)->backend;
}

/* Create flags and the parent domain; 0 or a positive errno. */
static int db_cq_attr_domain(struct ibv_context *ctx,
			     const struct ibv_cq_init_attr_ex *attr,
			     bool *single)
{
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (attr->flags & ~db_backend_of_ctx(ctx)->cq_create_flags)
			return EOPNOTSUPP;
		*single |= !!(attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		if (!db_pd_is_parent(attr->parent_domain) ||
		    !db_same_context(ctx, attr->parent_domain->context))
			return EINVAL;
		*single |= db_pd_single_threaded(attr->parent_domain);
	}
	return 0;
}

int db_cq_attr_check(struct ibv_context *ctx,
		     const struct ibv_cq_init_attr_ex *attr, bool *single)
{
	const struct db_backend *be = db_backend_of_ctx(ctx);
	int ret;

	*single = db_config()->single_threaded;
	if (attr->comp_mask & ~be->cq_comp_mask ||
	    attr->wc_flags & ~be->cq_wc_flags)
		return EOPNOTSUPP;
	ret = db_cq_attr_domain(ctx, attr, single);
	if (ret)
		return ret;
	if (attr->cqe == 0 || attr->cqe > INT32_MAX ||
	    attr->comp_vector >= (uint32_t)ctx->num_comp_vectors ||
	    (attr->channel && !db_same_context(ctx, attr->channel->context)))
		return EINVAL;
	return 0;
}

/* Whether @type is a QP type this libibverbs knows. */
static bool db_qpt_known(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
	case IBV_QPT_DRIVER:
		return true;
	default:
		return false;
	}
}

/*
 * The queue sizes against the limits query_device reports: rdma_rxe checks
 * them in the kernel, but mlx5_ib checks only the WQE counts the provider
 * computed, against its own larger limit (Linux 7.2 reports max_qp_wr 4096
 * on a device whose log_max_qp_sz is 14), so the provider is where the
 * verbs' EINVAL comes from.  An XRC target has no queues; a QP on an SRQ
 * has no receive queue of its own.
 */
static int db_qp_caps_check(struct ibv_context *ctx,
			    const struct ibv_qp_init_attr_ex *attr)
{
	const struct db_context *c = to_db_ctx(ctx);
	const struct ibv_device_attr *dev = &c->dev.orig_attr;
	const struct ibv_qp_cap *cap = &attr->cap;

	if (!c->dev_known || attr->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	if (attr->qp_type == IBV_QPT_XRC_SEND)
		return cap->max_send_wr > (uint32_t)dev->max_qp_wr ||
				       cap->max_send_sge >
					       (uint32_t)dev->max_sge
			       ? EINVAL
			       : 0;
	if (cap->max_send_wr > (uint32_t)dev->max_qp_wr ||
	    cap->max_send_sge > (uint32_t)dev->max_sge)
		return EINVAL;
	if (!attr->srq && (cap->max_recv_wr > (uint32_t)dev->max_qp_wr ||
			   cap->max_recv_sge > (uint32_t)dev->max_sge))
		return EINVAL;
	return 0;
}

/*
 * The objects an XRC QP of a backend serving its type needs: a target
 * its domain only (the kernel's object), an initiator a PD and a send CQ.
 * -1 for any other QP.
 */
static int db_xrc_objs_check(struct ibv_context *ctx,
			     const struct db_backend *be,
			     const struct ibv_qp_init_attr_ex *attr)
{
	if (!(be->qp_types & DB_QPT(attr->qp_type)))
		return -1;
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) &&
				       attr->xrcd &&
				       db_same_context(ctx, attr->xrcd->context)
			       ? 0
			       : EINVAL;
	if (attr->qp_type == IBV_QPT_XRC_SEND)
		return (attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd &&
				       db_same_context(ctx,
						       attr->pd->context) &&
				       attr->send_cq &&
				       db_same_context(
					       ctx, attr->send_cq->context) &&
				       !attr->srq
			       ? 0
			       : EINVAL;
	return -1;
}

int db_qp_attr_check(struct ibv_context *ctx,
		     const struct ibv_qp_init_attr_ex *attr)
{
	const struct db_backend *be = db_backend_of_ctx(ctx);
	int ret = db_xrc_objs_check(ctx, be, attr);

	/*
	 * A QP needs a PD and CQs, whatever the device: EINVAL before any
	 * EOPNOTSUPP.  Handles are numbered per context: an object of
	 * another one would name one of ours to the kernel.
	 */
	if (ret > 0)
		return ret;
	if (ret < 0 &&
	    (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	     !db_same_context(ctx, attr->pd->context) || !attr->send_cq ||
	     !db_same_context(ctx, attr->send_cq->context) || !attr->recv_cq ||
	     !db_same_context(ctx, attr->recv_cq->context) ||
	     (attr->srq && !db_same_context(ctx, attr->srq->context))))
		return EINVAL;
	if (attr->comp_mask & ~be->qp_comp_mask)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr->create_flags & ~be->qp_create_flags))
		return EOPNOTSUPP;
	if (!db_qpt_known(attr->qp_type))
		return EINVAL;
	if (!(be->qp_types & DB_QPT(attr->qp_type)))
		return EOPNOTSUPP;
	return db_qp_caps_check(ctx, attr);
}

int db_qp_modify_check(const struct ibv_qp_attr *attr, int mask)
{
	/* 5-bit and 3-bit fields of the IB spec's QP context */
	if (((mask & IBV_QP_TIMEOUT) && attr->timeout > 31) ||
	    ((mask & IBV_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31) ||
	    ((mask & IBV_QP_RETRY_CNT) && attr->retry_cnt > 7) ||
	    ((mask & IBV_QP_RNR_RETRY) && attr->rnr_retry > 7))
		return EINVAL;
	return 0;
}

/* Whether @type is an SRQ type this libibverbs knows. */
static bool db_srqt_known(enum ibv_srq_type type)
{
	return type == IBV_SRQT_BASIC || type == IBV_SRQT_XRC ||
	       type == IBV_SRQT_TM;
}

int db_srq_attr_check(struct ibv_context *ctx,
		      const struct ibv_srq_init_attr_ex *attr)
{
	const struct db_backend *be = db_backend_of_ctx(ctx);
	const struct ibv_device_attr *dev = &to_db_ctx(ctx)->dev.orig_attr;
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	if (attr->comp_mask & ~be->srq_comp_mask)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (!db_srqt_known(type))
		return EINVAL;
	if (!(be->srq_types & DB_SRQT(type)))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    !db_same_context(ctx, attr->pd->context))
		return EINVAL;
	/* An XRC SRQ: its domain and the CQ its receives complete on. */
	if (type == IBV_SRQT_XRC &&
	    (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	     !db_same_context(ctx, attr->xrcd->context) ||
	     !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
	     !db_same_context(ctx, attr->cq->context)))
		return EINVAL;
	/*
	 * An SRQ holds at least one WR, unless the backend's native provider
	 * takes 0 (libmlx5 and mlx5_ib size it to one WQE that holds none).
	 */
	if (!attr->attr.max_wr && !be->srq_takes_0_wr)
		return EINVAL;
	if (to_db_ctx(ctx)->dev_known &&
	    (attr->attr.max_wr > (uint32_t)dev->max_srq_wr ||
	     attr->attr.max_sge > (uint32_t)dev->max_srq_sge))
		return EINVAL;
	return 0;
}
