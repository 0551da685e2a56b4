// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Verbs that are plain uverbs commands on every device.  A backend's ops
 * table is installed over this one and may replace any of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/doorbell.h"

static int db_query_device_ex(struct ibv_context *ctx,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int db_query_port(struct ibv_context *ctx, uint8_t port,
			 struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_mr *db_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t hca_va, int access)
{
	struct ibv_reg_mr cmd = {};
	struct ib_uverbs_reg_mr_resp resp = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int db_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static struct ibv_mw *db_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_alloc_mw cmd = {};
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int db_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

static void db_free_context(struct ibv_context *ibctx)
{
	struct db_context *ctx = to_db_ctx(ibctx);

	db_debug("%s: closing context", ibctx->device->name);
	ctx->backend->uninit_context(ctx);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

const struct verbs_context_ops db_common_ops = {
	.alloc_mw = db_alloc_mw,
	.alloc_parent_domain = db_alloc_parent_domain,
	.alloc_pd = db_alloc_pd,
	.alloc_td = db_alloc_td,
	.attach_mcast = ibv_cmd_attach_mcast,
	.create_cq = db_create_cq,
	.create_qp = db_create_qp,
	.create_srq = db_create_srq,
	.dealloc_mw = db_dealloc_mw,
	.dealloc_pd = db_dealloc_pd,
	.dealloc_td = db_dealloc_td,
	.dereg_mr = db_dereg_mr,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = db_free_context,
	.query_device_ex = db_query_device_ex,
	.query_port = db_query_port,
	.reg_mr = db_reg_mr,
	.req_notify_cq = ibv_cmd_req_notify_cq,
};
