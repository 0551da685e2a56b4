// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The production side of the core's kernel seam (core/kcmd.h): plain uverbs
 * commands through libibverbs' ibv_cmd_* helpers, with no driver data in
 * the command.  Tests that run on the software ConnectX link its
 * definitions of these functions instead of this file.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/kcmd.h"

int db_k_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size,
			 uint64_t *fw_ver)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	int ret;

	ret = db_lib.ibv_cmd_query_device_any(ctx, input, attr, attr_size,
					      &resp, &resp_size);
	if (!ret && fw_ver)
		*fw_ver = resp.base.fw_ver;
	return ret;
}

int db_k_query_port(struct ibv_context *ctx, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return db_lib.ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

int db_k_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		  size_t drv_resp_len)
{
	struct ibv_alloc_pd cmd = {};
	struct ib_uverbs_alloc_pd_resp *resp;
	int ret;

	/* The driver data follows the response, as DECLARE_DRV_CMD lays out. */
	resp = calloc(1, sizeof(*resp) + drv_resp_len);
	if (!resp)
		return ENOMEM;
	ret = db_lib.ibv_cmd_alloc_pd(ctx, pd, &cmd, sizeof(cmd), resp,
				      sizeof(*resp) + drv_resp_len);
	free(resp);
	return ret;
}

int db_k_dealloc_pd(struct ibv_pd *pd)
{
	return db_lib.ibv_cmd_dealloc_pd(pd);
}

int db_k_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t hca_va,
		int access, struct verbs_mr *vmr)
{
	struct ibv_reg_mr cmd = {};
	struct ib_uverbs_reg_mr_resp resp = {};

	return db_lib.ibv_cmd_reg_mr(pd, addr, len, hca_va, access, vmr, &cmd,
				     sizeof(cmd), &resp, sizeof(resp));
}

int db_k_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
		       uint64_t iova, int fd, int access, struct verbs_mr *vmr)
{
	return db_lib.ibv_cmd_reg_dmabuf_mr(pd, offset, len, iova, fd, access,
					    vmr, NULL);
}

int db_k_dereg_mr(struct verbs_mr *vmr)
{
	return db_lib.ibv_cmd_dereg_mr(vmr);
}

/* The device sees the new range at its own address (hca_va = addr). */
int db_k_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ibv_rereg_mr cmd = {};
	struct ib_uverbs_rereg_mr_resp resp = {};

	return db_lib.ibv_cmd_rereg_mr(vmr, flags, addr, length,
				       (uintptr_t)addr, access, pd, &cmd,
				       sizeof(cmd), &resp, sizeof(resp));
}

int db_k_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return db_lib.ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

int db_k_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw)
{
	struct ibv_alloc_mw cmd = {};
	struct ib_uverbs_alloc_mw_resp resp = {};

	return db_lib.ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
				       sizeof(resp));
}

int db_k_dealloc_mw(struct ibv_mw *mw)
{
	return db_lib.ibv_cmd_dealloc_mw(mw);
}

int db_k_open_xrcd(struct ibv_context *ctx, struct verbs_xrcd *xrcd,
		   struct ibv_xrcd_init_attr *attr)
{
	struct ibv_open_xrcd cmd = {};
	struct ib_uverbs_open_xrcd_resp resp = {};

	return db_lib.ibv_cmd_open_xrcd(ctx, xrcd, sizeof(*xrcd), attr, &cmd,
					sizeof(cmd), &resp, sizeof(resp));
}

int db_k_close_xrcd(struct verbs_xrcd *xrcd)
{
	return db_lib.ibv_cmd_close_xrcd(xrcd);
}

int db_k_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return db_lib.ibv_cmd_attach_mcast(qp, gid, lid);
}

int db_k_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return db_lib.ibv_cmd_detach_mcast(qp, gid, lid);
}
