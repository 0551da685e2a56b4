// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The mlx5 backend's entry: its descriptor, its ops table and its part of
 * opening a context.  Devices, ports, PDs and MRs are the core's verbs.
 */
#include <errno.h>
#include <stdio.h>

#include "mlx5/mlx5.h"

static void m5_store_limits(struct m5_context *ctx,
			    const struct mlx5_ib_alloc_ucontext_resp *resp)
{
	ctx->bf_reg_size = resp->bf_reg_size;
	ctx->tot_bfregs = resp->tot_bfregs;
	ctx->cache_line_size = resp->cache_line_size;
	ctx->max_sq_desc_sz = resp->max_sq_desc_sz;
	ctx->max_rq_desc_sz = resp->max_rq_desc_sz;
	ctx->max_send_wqebb = resp->max_send_wqebb;
	ctx->max_recv_wr = resp->max_recv_wr;
	ctx->max_srq_recv_wr = resp->max_srq_recv_wr;
	ctx->num_uars_per_page = resp->num_uars_per_page;
	ctx->log_uar_size = resp->log_uar_size;
	ctx->cqe_version = resp->cqe_version;
	ctx->cmds_supp_uhw = resp->cmds_supp_uhw;
	ctx->eth_min_inline = resp->eth_min_inline;
	ctx->num_ports = resp->num_ports > 255 ? 255 : resp->num_ports;
	ctx->has_clock_offset =
		resp->comp_mask &
		MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET;
	ctx->clock_offset = resp->hca_core_clock_offset;
}

/*
 * What the send path needs to know of the device and its ports.  mlx5_ib
 * reports IBV_ATOMIC_HCA only when the device answers atomics in host
 * byte order; without it atomics are refused.
 */
static void m5_cache_caps(struct m5_context *ctx)
{
	struct ibv_context *ibctx = &ctx->core.vctx.context;
	const struct ibv_device_attr *dev = &ctx->core.dev.orig_attr;
	union db_port_attr pattr; /* 56 bytes from rdma-core 49 */
	unsigned int p;

	/* The core's query at open; all zero if the kernel did not answer. */
	ctx->atomic_cap = dev->atomic_cap != IBV_ATOMIC_NONE;
	for (p = 1; p <= ctx->num_ports && p <= 2; p++) {
		pattr = (union db_port_attr){};
		if (db_k_query_port(ibctx, p, &pattr.attr))
			continue;
		ctx->link_layer[p - 1] = pattr.attr.link_layer;
		ctx->port_flags[p - 1] = pattr.attr.flags;
		ctx->gid_tbl_len[p - 1] = pattr.attr.gid_tbl_len;
	}
}

static int m5_get_context(struct db_context *core)
{
	struct m5_context *ctx = container_of(core, struct m5_context, core);
	const char *name = core->vctx.context.device->name;
	struct mlx5_ib_alloc_ucontext_req_v2 req = {
		.total_num_bfregs = M5_TOTAL_BFREGS,
		.num_low_latency_bfregs = M5_LOW_LAT_BFREGS,
		.max_cqe_version = 1,
		/*
		 * 4 KB UARs, and dynamic ones if the kernel has them (it
		 * then answers tot_bfregs 0); no DEVX.
		 */
		.lib_caps = MLX5_LIB_CAP_4K_UAR | MLX5_LIB_CAP_DYN_UAR,
	};
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	int ret;

	/* DOORBELL_MLX5_STATIC_UARS: static UARs only (doorbell(7)). */
	if (db_env_flag("DOORBELL_MLX5_STATIC_UARS"))
		req.lib_caps &= ~MLX5_LIB_CAP_DYN_UAR;
	ret = m5k_get_context(ctx, &req, &resp);
	if (ret)
		return ret;
	if (resp.cqe_version != 1) {
		db_refuse("%s: mlx5 context with CQE version %u; this backend "
			  "needs version 1",
			  name, resp.cqe_version);
		return EOPNOTSUPP;
	}
	m5_store_limits(ctx, &resp);
	return 0;
}

static int m5_init_context(struct db_context *core)
{
	struct m5_context *ctx = container_of(core, struct m5_context, core);
	const char *name = core->vctx.context.device->name;
	int ret;

	m5_buf_ctx_init(ctx);
	/* mlx5_ib answers tot_bfregs 0 when it gives dynamic UARs. */
	ctx->dyn_uar = !ctx->tot_bfregs;
	if (ctx->dyn_uar) {
		ret = m5_dyn_uar_init(ctx);
	} else {
		ret = m5_map_uars(ctx);
		ctx->cq_uar = ctx->uar[0];
	}
	if (ret) {
		db_refuse("%s: cannot map the mlx5 UARs: %d", name, ret);
		m5_buf_ctx_fini(ctx);
		return ret;
	}
	m5_cache_caps(ctx);
	m5_clock_map(ctx);
	db_debug("%s: %s UARs (%u static bfregs), bf_reg_size %u, atomics %s",
		 name, ctx->dyn_uar ? "dynamic" : "static", ctx->tot_bfregs,
		 ctx->bf_reg_size, ctx->atomic_cap ? "on" : "off");
	return 0;
}

static void m5_uninit_context(struct db_context *core)
{
	struct m5_context *ctx = container_of(core, struct m5_context, core);

	m5_clock_unmap(ctx);
	if (ctx->dyn_uar)
		m5_dyn_uar_fini(ctx);
	else
		m5_unmap_uars(ctx);
	m5_buf_ctx_fini(ctx);
}

/* mlx5 firmware versions read major.minor.subminor, with 4 subminor digits. */
static void m5_format_fw_ver(char *buf, size_t len, uint64_t fw)
{
	snprintf(buf, len, "%u.%u.%04u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
}

/*
 * Binding a window needs a UMR WQE, which this backend does not build.  A
 * type that no device has is EINVAL, as the kernel answers rxe.
 */
static struct ibv_mw *m5_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	(void)pd;
	errno = type == IBV_MW_TYPE_1 || type == IBV_MW_TYPE_2 ? EOPNOTSUPP
							       : EINVAL;
	return NULL;
}

static const struct verbs_context_ops m5_ops = {
	.alloc_mw = m5_alloc_mw,
	.alloc_td = m5_alloc_td,
	/* XRC domains, once .serves says XRC (core/xrcd.c). */
	.close_xrcd = db_close_xrcd,
	.cq_event = m5_cq_event,
	.create_ah = m5_create_ah,
	.create_cq_ex = m5_create_cq_ex,
	.create_qp_ex = m5_create_qp_ex,
	.create_srq_ex = m5_create_srq_ex,
	.dealloc_td = m5_dealloc_td,
	.destroy_ah = m5_destroy_ah,
	.destroy_cq = m5_destroy_cq,
	.destroy_qp = m5_destroy_qp,
	.destroy_srq = m5_destroy_srq,
	.modify_cq = m5_modify_cq,
	.modify_qp = m5_modify_qp,
	.get_srq_num = m5_get_srq_num,
	.modify_srq = m5_modify_srq,
	.open_qp = m5_open_qp,
	.open_xrcd = db_open_xrcd,
	.poll_cq = m5_poll_cq,
	.post_recv = m5_post_recv,
	.post_send = m5_post_send,
	.post_srq_recv = m5_post_srq_recv,
	.query_qp = m5_query_qp,
	.query_rt_values = m5_query_rt_values,
	.query_srq = m5_query_srq,
	.reg_dmabuf_mr = db_reg_dmabuf_mr,
	.req_notify_cq = m5_req_notify_cq,
	/* mlx5_ib re-registers (keys kept where it can, by UMR). */
	.rereg_mr = db_rereg_mr,
	.resize_cq = m5_resize_cq,
};

const struct db_backend db_mlx5_backend = {
	.name = "mlx5",
	.driver_id = RDMA_DRIVER_MLX5,
	.kabi_min = M5_KABI_MIN,
	.kabi_max = M5_KABI_MAX,
	/* Verified on the software ConnectX only: opt-in (doorbell(7)). */
	.opt_in_env = "DOORBELL_MLX5",
	.native_provider = "libmlx5",
	.native_soname = "libmlx5.so.1",
	.context_size = sizeof(struct m5_context),
	/* mlx5_ib writes the PD number after ALLOC_PD's response, room or not. */
	.pd_resp_drv_len = sizeof(struct mlx5_ib_alloc_pd_resp),
	/*
	 * What this backend builds: of the CQ create flags only overrun
	 * ignore reaches the kernel (single-threaded use is ours); of the
	 * QP ones only the kernel's
	 * own, multicast loopback blocking (mlx5_ib answers EOPNOTSUPP
	 * without block_lb_mc; rdma-core's suite asks for it on UD QPs of a
	 * Mellanox device); RC, UC, UD and XRC QPs; completion timestamps
	 * (the device's internal timer, not wall-clock time); no TSO or RSS;
	 * basic and XRC SRQs.
	 */
	.cq_comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
	.cq_create_flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
			   IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	.cq_wc_flags =
		IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	.qp_comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
			IBV_QP_INIT_ATTR_CREATE_FLAGS |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	.qp_create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
	.qp_types = DB_QPT(IBV_QPT_RC) | DB_QPT(IBV_QPT_UC) |
		    DB_QPT(IBV_QPT_UD) | DB_QPT(IBV_QPT_XRC_SEND) |
		    DB_QPT(IBV_QPT_XRC_RECV),
	.srq_comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
	.srq_types = DB_SRQT(IBV_SRQT_BASIC) | DB_SRQT(IBV_SRQT_XRC),
	/* libmlx5 takes max_wr 0 (rdma-core's suite's SrqInitAttr()). */
	.srq_takes_0_wr = true,
	/*
	 * Of the features core/caps.c masks, completion timestamps and XRC
	 * (domains, XRC SRQs, initiators and targets, the XRC segment in
	 * both send APIs): no windows, LOCAL_INV (so not MEM_MGT, though
	 * SEND_WITH_INV is posted), raw QPs, RSS, tag matching, device
	 * memory or pacing (ODP and atomics are served and kept).
	 */
	.serves = DB_SERVES_TIMESTAMP | DB_SERVES_XRC,
	.get_context = m5_get_context,
	.init_context = m5_init_context,
	.uninit_context = m5_uninit_context,
	.format_fw_ver = m5_format_fw_ver,
	.ops = &m5_ops,
};
