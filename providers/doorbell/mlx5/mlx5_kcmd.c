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
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

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

struct m5_cmd_resize_cq {
	struct ibv_resize_cq ibv;
	struct mlx5_ib_resize_cq drv;
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
M5_NO_PAD(m5_cmd_resize_cq);
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

	ret = db_cmd_get_context(&ctx->core.vctx, &cmd.ibv, sizeof(cmd), &r.ibv,
				 sizeof(r));
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

/* Read-only: mlx5_ib refuses a writable map of the timer's page. */
void *m5k_mmap_clock(struct m5_context *ctx, off_t offset, size_t len)
{
	return mmap(NULL, len, PROT_READ, MAP_SHARED,
		    ctx->core.vctx.context.cmd_fd, offset);
}

void m5k_munmap_clock(struct m5_context *ctx, void *addr, size_t len)
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

	ret = db_cmd_create_cq_ex(ctx, attr, cq, &cmd.ibv, sizeof(cmd), &r.ibv,
				  sizeof(r), 0);
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	struct ibv_modify_cq cmd = {};

	return db_lib.ibv_cmd_modify_cq(cq, attr, &cmd, sizeof(cmd));
}

/* mlx5_ib has no driver data in the response; libibverbs sets cq->cqe. */
int m5k_resize_cq(struct ibv_cq *cq, int cqe,
		  const struct mlx5_ib_resize_cq *req)
{
	struct m5_cmd_resize_cq cmd = { .drv = *req };
	struct ib_uverbs_resize_cq_resp resp = {};

	return db_lib.ibv_cmd_resize_cq(cq, cqe, &cmd.ibv, sizeof(cmd), &resp,
					sizeof(resp));
}

int m5k_destroy_cq(struct ibv_cq *cq)
{
	return db_lib.ibv_cmd_destroy_cq(cq);
}

int m5k_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		  struct ibv_qp_init_attr_ex *attr,
		  const struct mlx5_ib_create_qp *req,
		  struct mlx5_ib_create_qp_resp *resp)
{
	struct m5_cmd_create_qp cmd = { .drv = *req };
	struct m5_cmd_create_qp_resp r = {};
	int ret;

	ret = db_cmd_create_qp_ex2(ctx, qp, attr, &cmd.ibv, sizeof(cmd), &r.ibv,
				   sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_modify_qp cmd = {};

	return db_lib.ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
}

int m5k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct ibv_query_qp cmd = {};

	return db_lib.ibv_cmd_query_qp(qp, attr, mask, init, &cmd, sizeof(cmd));
}

int m5k_destroy_qp(struct ibv_qp *qp)
{
	return db_lib.ibv_cmd_destroy_qp(qp);
}

int m5k_open_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		struct ibv_qp_open_attr *attr)
{
	struct ibv_open_qp cmd = {};
	struct ib_uverbs_create_qp_resp resp = {};

	/* The running release's verbs_qp: it fills comp_mask and xrcd. */
	return db_lib.ibv_cmd_open_qp(ctx, qp, db_lib.epoch->vqp_size, attr,
				      &cmd, sizeof(cmd), &resp, sizeof(resp));
}

int m5k_create_srq(struct ibv_context *ctx, struct verbs_srq *srq,
		   struct ibv_srq_init_attr_ex *attr,
		   const struct mlx5_ib_create_srq *req,
		   struct mlx5_ib_create_srq_resp *resp)
{
	struct m5_cmd_create_srq cmd = { .drv = *req };
	struct m5_cmd_create_srq_resp r = {};
	int ret;

	ret = db_lib.ibv_cmd_create_srq_ex(ctx, srq, attr, &cmd.ibv,
					   sizeof(cmd), &r.ibv, sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct ibv_modify_srq cmd = {};

	return db_lib.ibv_cmd_modify_srq(srq, attr, mask, &cmd, sizeof(cmd));
}

int m5k_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return db_lib.ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

int m5k_destroy_srq(struct ibv_srq *srq)
{
	return db_lib.ibv_cmd_destroy_srq(srq);
}

int m5k_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		  struct ibv_ah_attr *attr, struct mlx5_ib_create_ah_resp *resp)
{
	struct m5_cmd_create_ah_resp r = {};
	int ret;

	ret = db_lib.ibv_cmd_create_ah(pd, ah, attr, &r.ibv, sizeof(r));
	if (!ret)
		*resp = r.drv;
	return ret;
}

int m5k_destroy_ah(struct ibv_ah *ah)
{
	return db_lib.ibv_cmd_destroy_ah(ah);
}

/*
 * The UAR object methods go through the uverbs ioctl: a header, then one
 * attribute per argument (mlx5_ib's UAPI in <rdma/mlx5_user_ioctl_cmds.h>).
 * The new object's handle comes back in its attribute's data.
 */
struct m5_uar_ioctl {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[5];
};
_Static_assert(offsetof(struct m5_uar_ioctl, attrs) ==
		       sizeof(struct ib_uverbs_ioctl_hdr),
	       "ioctl attributes follow the header");
_Static_assert(sizeof(struct ib_uverbs_attr) == 16,
	       "struct ib_uverbs_attr is 16 bytes");

static int m5_uar_ioctl(struct m5_context *ctx, struct m5_uar_ioctl *c,
			uint16_t method, uint16_t nattrs)
{
	c->hdr.length =
		(uint16_t)(sizeof(c->hdr) + nattrs * sizeof(c->attrs[0]));
	c->hdr.object_id = MLX5_IB_OBJECT_UAR;
	c->hdr.method_id = method;
	c->hdr.num_attrs = nattrs;
	c->hdr.driver_id = RDMA_DRIVER_MLX5;
	if (ioctl(ctx->core.vctx.context.cmd_fd, RDMA_VERBS_IOCTL, c))
		return errno;
	return 0;
}

int m5k_alloc_uar(struct m5_context *ctx, uint32_t type, struct m5k_uar *uar)
{
	struct m5_uar_ioctl c = {
		.attrs = {
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE,
			  .len = sizeof(uint64_t),
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = type },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			  .len = sizeof(uar->mmap_offset),
			  .data = (uintptr_t)&uar->mmap_offset },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
			  .len = sizeof(uar->length),
			  .data = (uintptr_t)&uar->length },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
			  .len = sizeof(uar->page_id),
			  .data = (uintptr_t)&uar->page_id },
		},
	};
	int ret;

	ret = m5_uar_ioctl(ctx, &c, MLX5_IB_METHOD_UAR_OBJ_ALLOC, 5);
	if (!ret)
		uar->handle = (uint32_t)c.attrs[0].data;
	return ret;
}

int m5k_destroy_uar(struct m5_context *ctx, uint32_t handle)
{
	struct m5_uar_ioctl c = {
		.attrs = {
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE,
			  .data = handle },
		},
	};

	return m5_uar_ioctl(ctx, &c, MLX5_IB_METHOD_UAR_OBJ_DESTROY, 1);
}
