// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_create_cq, ibv_create_qp and ibv_create_srq, the verbs older than
 * their _ex forms: the attributes are carried over and the backend's _ex
 * verb does the work, so every backend implements only the _ex ones.
 */
#include "core/doorbell.h"

static const struct verbs_context_ops *db_backend_ops(struct ibv_context *ctx)
{
	return to_db_ctx(ctx)->backend->ops;
}

struct ibv_cq *db_create_cq(struct ibv_context *ctx, int cqe,
			    struct ibv_comp_channel *channel, int vector)
{
	struct ibv_cq_init_attr_ex attr = {
		/* A negative count becomes too large, and is refused. */
		.cqe = (uint32_t)cqe,
		.channel = channel,
		.comp_vector = vector,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cq;

	cq = db_backend_ops(ctx)->create_cq_ex(ctx, &attr);
	return cq ? ibv_cq_ex_to_cq(cq) : NULL;
}

struct ibv_qp *db_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = db_backend_ops(pd->context)->create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_srq *db_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
		.pd = pd,
	};
	struct ibv_srq *srq;

	srq = db_backend_ops(pd->context)->create_srq_ex(pd->context, &ex);
	if (srq)
		attr->attr = ex.attr;
	return srq;
}
