// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The production side of the kernel seam (mlx5_seam.h): uverbs commands
 * through libibverbs' ibv_cmd_* with mlx5_ib's driver data appended, and
 * the UAR mappings on the uverbs fd.  Tests link the software ConnectX's
 * definitions of these functions instead of this file.
 *
 * Each command buffer is the core command (or response) followed by the
 * mlx5_ib struct, with no padding between: the layout rdma-core's
 * DECLARE_DRV_CMD produces, asserted below.
 */
#include <sys/mman.h>

#include "mlx5/mlx5.h"

struct m5_cmd_get_context {
	struct ibv_get_context ibv;
	struct mlx5_ib_alloc_ucontext_req_v2 drv;
};

struct m5_cmd_get_context_resp {
	struct ib_uverbs_get_context_resp ibv;
	struct mlx5_ib_alloc_ucontext_resp drv;
};

struct m5_cmd_create_cq {
	struct ibv_create_cq_ex ibv;
	struct mlx5_ib_create_cq drv;
};

struct m5_cmd_create_cq_resp {
	struct ib_uverbs_ex_create_cq_resp ibv;
	struct mlx5_ib_create_cq_resp drv;
};

struct m5_cmd_create_qp {
	struct ibv_create_qp_ex ibv;
	struct mlx5_ib_create_qp drv;
};

struct m5_cmd_create_qp_resp {
	struct ib_uverbs_ex_create_qp_resp ibv;
	struct mlx5_ib_create_qp_resp drv;
};

struct m5_cmd_create_srq {
	struct ibv_create_xsrq ibv;
	struct mlx5_ib_create_srq drv;
};

struct m5_cmd_create_srq_resp {
	struct ib_uverbs_create_srq_resp ibv;
	struct mlx5_ib_create_srq_resp drv;
};

struct m5_cmd_create_ah_resp {
	struct ib_uverbs_create_ah_resp ibv;
	struct mlx5_ib_create_ah_resp drv;
};

#define M5_NO_PAD(type)                                                        \
	_Static_assert(                                                        \
		offsetof(struct type, drv) ==                                  \
				sizeof(((struct type *)0)->ibv) &&             \
			sizeof(struct type) ==                                 \
				sizeof(((struct type *)0)->ibv) +              \
					sizeof(((struct type *)0)->drv),       \
		#type " has padding")
M5_NO_PAD(m5_cmd_get_context);
M5_NO_PAD(m5_cmd_get_context_resp);
M5_NO_PAD(m5_cmd_create_cq);
M5_NO_PAD(m5_cmd_create_cq_resp);
M5_NO_PAD(m5_cmd_create_qp);
M5_NO_PAD(m5_cmd_create_qp_resp);
M5_NO_PAD(m5_cmd_create_srq);
M5_NO_PAD(m5_cmd_create_srq_resp);
M5_NO_PAD(m5_cmd_create_ah_resp);

int m5k_get_context(struct m5_context *ctx,
		    const struct mlx5_ib_alloc_ucontext_req_v2 *req,
		    struct mlx5_ib_alloc_ucontext_resp *resp)
{
	struct m5_cmd_get_context cmd = { .drv = *req };
	struct m5_cmd_get_context_resp r = {};
	int ret;

	ret = ibv_cmd_get_context(&ctx->core.vctx, &cmd.ibv, sizeof(cmd),
				  &r.ibv, sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

/* Write-only: userspace never reads a UAR. */
void *m5k_mmap_uar(struct m5_context *ctx, off_t offset, size_t len)
{
	return mmap(NULL, len, PROT_WRITE, MAP_SHARED,
		    ctx->core.vctx.context.cmd_fd, offset);
}

void m5k_munmap_uar(struct m5_context *ctx, void *addr, size_t len)
{
	munmap(addr, len);
}

int m5k_query_gid_type(struct ibv_context *ctx, uint8_t port,
		       unsigned int index, enum ibv_gid_type *type)
{
	struct ibv_gid_entry gid = {};
	int ret;

	ret = ibv_query_gid_ex(ctx, port, index, &gid, 0);
	if (!ret)
		*type = gid.gid_type;
	return ret;
}

int m5k_create_cq(struct ibv_context *ctx,
		  const struct ibv_cq_init_attr_ex *attr, struct verbs_cq *cq,
		  const struct mlx5_ib_create_cq *req,
		  struct mlx5_ib_create_cq_resp *resp)
{
	struct m5_cmd_create_cq cmd = { .drv = *req };
	struct m5_cmd_create_cq_resp r = {};
	int ret;

	ret = ibv_cmd_create_cq_ex(ctx, attr, cq, &cmd.ibv, sizeof(cmd), &r.ibv,
				   sizeof(r), 0);
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	struct ibv_modify_cq cmd = {};

	return ibv_cmd_modify_cq(cq, attr, &cmd, sizeof(cmd));
}

int m5k_destroy_cq(struct ibv_cq *cq)
{
	return ibv_cmd_destroy_cq(cq);
}

int m5k_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		  struct ibv_qp_init_attr_ex *attr,
		  const struct mlx5_ib_create_qp *req,
		  struct mlx5_ib_create_qp_resp *resp)
{
	struct m5_cmd_create_qp cmd = { .drv = *req };
	struct m5_cmd_create_qp_resp r = {};
	int ret;

	ret = ibv_cmd_create_qp_ex2(ctx, qp, attr, &cmd.ibv, sizeof(cmd),
				    &r.ibv, sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
}

int m5k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(qp, attr, mask, init, &cmd, sizeof(cmd));
}

int m5k_destroy_qp(struct ibv_qp *qp)
{
	return ibv_cmd_destroy_qp(qp);
}

int m5k_create_srq(struct ibv_context *ctx, struct verbs_srq *srq,
		   struct ibv_srq_init_attr_ex *attr,
		   const struct mlx5_ib_create_srq *req,
		   struct mlx5_ib_create_srq_resp *resp)
{
	struct m5_cmd_create_srq cmd = { .drv = *req };
	struct m5_cmd_create_srq_resp r = {};
	int ret;

	ret = ibv_cmd_create_srq_ex(ctx, srq, attr, &cmd.ibv, sizeof(cmd),
				    &r.ibv, sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(srq, attr, mask, &cmd, sizeof(cmd));
}

int m5k_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

int m5k_destroy_srq(struct ibv_srq *srq)
{
	return ibv_cmd_destroy_srq(srq);
}

int m5k_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		  struct ibv_ah_attr *attr, struct mlx5_ib_create_ah_resp *resp)
{
	struct m5_cmd_create_ah_resp r = {};
	int ret;

	ret = ibv_cmd_create_ah(pd, ah, attr, &r.ibv, sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_destroy_ah(struct ibv_ah *ah)
{
	return ibv_cmd_destroy_ah(ah);
}
