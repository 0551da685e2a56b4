// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The rxe backend's entry: its ops table and its part of opening a context. */
#include <errno.h>

#include "rxe/rxe.h"

/* rxe sends no driver data with GET_CONTEXT. */
static int rxe_get_context(struct db_context *ctx)
{
	struct ibv_get_context cmd = {};
	struct ib_uverbs_get_context_resp resp = {};

	return db_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd), &resp,
				  sizeof(resp));
}

static const struct verbs_context_ops rxe_ops = {
	.bind_mw = rxe_bind_mw,
	.create_ah = rxe_create_ah,
	.create_cq_ex = rxe_create_cq_ex,
	.create_qp_ex = rxe_create_qp_ex,
	.create_srq_ex = rxe_create_srq_ex,
	.destroy_ah = rxe_destroy_ah,
	.destroy_cq = rxe_destroy_cq,
	.destroy_qp = rxe_destroy_qp,
	.destroy_srq = rxe_destroy_srq,
	.modify_qp = rxe_modify_qp,
	.modify_srq = rxe_modify_srq,
	.poll_cq = rxe_poll_cq,
	.post_recv = rxe_post_recv,
	.post_send = rxe_post_send,
	.post_srq_recv = rxe_post_srq_recv,
	.query_qp = rxe_query_qp,
	.query_qp_data_in_order = rxe_query_qp_data_in_order,
	.query_srq = rxe_query_srq,
	/* rdma_rxe arms its CQs itself: the plain kernel command. */
	.req_notify_cq = db_cmd_req_notify_cq,
	.resize_cq = rxe_resize_cq,
};

const struct db_backend db_rxe_backend = {
	.name = "rxe",
	.driver_id = RDMA_DRIVER_RXE,
	.kabi_min = RXE_KABI_VERSION,
	.kabi_max = RXE_KABI_VERSION,
	/* rxe keeps nothing per context beyond the core's. */
	.context_size = sizeof(struct db_context),
	/*
	 * What rdma_rxe takes: no CQ or QP create flag reaches the kernel
	 * (single-threaded use is ours), no XRC, TSO or RSS, basic SRQs.
	 */
	.cq_comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
	.cq_create_flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	.cq_wc_flags = IBV_WC_STANDARD_FLAGS,
	.qp_comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	.qp_types =
		DB_QPT(IBV_QPT_RC) | DB_QPT(IBV_QPT_UC) | DB_QPT(IBV_QPT_UD),
	.srq_comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
	.srq_types = DB_SRQT(IBV_SRQT_BASIC),
	/* Windows (alloc_mw, BIND_MW), LOCAL_INV and SEND_WITH_INV. */
	.serves = DB_SERVES_MW | DB_SERVES_MEM_MGT,
	.get_context = rxe_get_context,
	.ops = &rxe_ops,
};
