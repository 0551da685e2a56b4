// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Queue pairs of the rxe backend: creation maps the SQ and RQ rings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr.h"
#include "rxe/rxe.h"

/* Slot bytes the kernel must give us for the caps it reported. */
static size_t rxe_sq_slot_min(const struct ibv_qp_cap *cap)
{
	size_t sges = (size_t)cap->max_send_sge * sizeof(struct rxe_sge);
	size_t data = sges > cap->max_inline_data ? sges : cap->max_inline_data;

	return sizeof(struct rxe_send_wqe) + data;
}

static size_t rxe_rq_slot_min(uint32_t max_sge)
{
	return sizeof(struct rxe_recv_wqe) +
	       (size_t)max_sge * sizeof(struct rxe_sge);
}

static int rxe_check_qp_attr(struct ibv_context *ctx,
			     const struct ibv_qp_init_attr_ex *attr)
{
	int ret;

	ret = db_qp_attr_check(ctx, attr);
	if (ret)
		return ret;
	/* What the QP type or the running kernel lacks is refused. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags &
	     ~rxe_send_ops_flags_ok(attr->qp_type, rxe_dev_caps(ctx))))
		return EOPNOTSUPP;
	return 0;
}

/* The doorbell is a POST_SEND write() with no WRs; format it once. */
static void rxe_qp_init_doorbell(struct rxe_qp *qp)
{
	struct ibv_post_send *c = &qp->doorbell_cmd;

	qp->doorbell_fd = qp->vqp.qp.context->cmd_fd;
	c->hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c->hdr.in_words = sizeof(*c) / 4;
	c->hdr.out_words = sizeof(qp->doorbell_resp) / 4;
	c->core.response = (uintptr_t)&qp->doorbell_resp;
	c->core.qp_handle = qp->vqp.qp.handle;
	c->core.wr_count = 0;
	c->core.sge_count = 0;
	c->core.wqe_size = sizeof(struct ibv_send_wr);
}

static int rxe_qp_map(struct rxe_qp *qp, int fd,
		      const struct rxe_cmd_create_qp_ex_resp *resp,
		      const struct ibv_qp_init_attr_ex *attr)
{
	bool need_lock = db_need_lock(attr->pd);
	int ret;

	ret = rxe_ring_map(&qp->sq.ring, fd, &resp->drv.sq_mi,
			   rxe_sq_slot_min(&attr->cap), true);
	if (ret)
		return ret;
	qp->sq.max_sge = attr->cap.max_send_sge;
	qp->sq.max_inline = attr->cap.max_inline_data;
	if (!attr->srq) {
		ret = rxe_ring_map(&qp->rq.ring, fd, &resp->drv.rq_mi,
				   rxe_rq_slot_min(attr->cap.max_recv_sge),
				   true);
		if (ret) {
			rxe_ring_unmap(&qp->sq.ring);
			return ret;
		}
		qp->rq.max_sge = attr->cap.max_recv_sge;
	}
	db_lock_init(&qp->sq.lock, need_lock);
	db_lock_init(&qp->rq.lock, need_lock);
	return 0;
}

struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ibctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_create_qp_ex cmd = {};
	struct rxe_cmd_create_qp_ex_resp resp = {};
	struct rxe_qp *qp;
	int ret;

	ret = rxe_check_qp_attr(ibctx, attr);
	if (ret)
		goto err;
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		ret = ENOMEM;
		goto err;
	}
	ret = db_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp.ibv, sizeof(resp));
	if (ret)
		goto err_free;
	ret = rxe_qp_map(qp, ibctx->cmd_fd, &resp, attr);
	if (ret)
		goto err_destroy;
	qp->opcode_mask = rxe_opcode_mask(attr->qp_type);
	qp->slow_ops = rxe_slow_ops(attr->qp_type);
	/* One SGE must fit for the fast path's single-SGE WRs. */
	if (qp->sq.max_sge)
		qp->fast_ops = qp->opcode_mask & ~qp->slow_ops;
	rxe_qp_init_doorbell(qp);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->wr_ext_ops =
			rxe_wr_ext_ops(attr->qp_type, rxe_dev_caps(ibctx),
				       attr->send_ops_flags);
		rxe_qp_set_wr_ops(qp);
		/* After the command: libibverbs cleared comp_mask in it. */
		db_vqp_set_ex(&qp->vqp);
	}
	return &qp->vqp.qp;

err_destroy:
	db_lib.ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
err:
	errno = ret;
	return NULL;
}

int rxe_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = db_qp_modify_check(attr, mask);
	if (ret)
		return ret;
	return db_lib.ibv_cmd_modify_qp(ibqp, attr, mask, &cmd, sizeof(cmd));
}

int rxe_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return db_lib.ibv_cmd_query_qp(ibqp, attr, mask, init_attr, &cmd,
				       sizeof(cmd));
}

/*
 * rxe places payload with the kernel's memcpy, one packet at a time.  Bytes
 * of one packet may become visible out of order (x86 fast-string stores are
 * not ordered among themselves), so no in-order placement is promised: not
 * for the whole message, nor per 128 bytes.
 */
int rxe_query_qp_data_in_order(struct ibv_qp *ibqp, enum ibv_wr_opcode op,
			       uint32_t flags)
{
	return 0;
}

int rxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	int ret;

	ret = db_lib.ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	rxe_ring_unmap(&qp->sq.ring);
	rxe_ring_unmap(&qp->rq.ring);
	free(qp);
	return 0;
}
