/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The two seams between the mlx5 backend and a ConnectX.
 *
 * 1. Kernel commands (m5k_*): production builds link mlx5_kcmd.c, which
 *    sends uverbs commands with the mlx5_ib driver data and mmaps UARs on
 *    the uverbs fd.  The software ConnectX (sim/mlx5/model) links its own
 *    definitions of the same functions instead: a fake kernel.  Nothing is
 *    looked up at run time; the choice is made by the linker.  The plain
 *    commands, with no driver data (device and port queries, PDs, MRs),
 *    are the core's, through the same kind of seam (core/kcmd.h).
 *
 * 2. Device memory: every store to a UAR, every doorbell-record store and
 *    every barrier.  Production builds inline the real stores and fences
 *    (core/mmio.h, and the two below).  Built with DOORBELL_MLX5_MODEL
 *    (only tests/model/mlx5 does that), each becomes a call into the model,
 *    which sees the address, width, value and order of every access.
 */
#ifndef DOORBELL_MLX5_SEAM_H
#define DOORBELL_MLX5_SEAM_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "abi/verbs_pabi34.h"
#include "core/kcmd.h"
#include "mlx5/mlx5_hw.h"

/* The model build routes core/mmio.h's stores and barriers to the model. */
#if defined(DOORBELL_MLX5_MODEL) && !defined(DB_MMIO_MODEL)
#define DB_MMIO_MODEL 1
#endif
#include "core/mmio.h"

struct m5_context;

/* --- Seam 1: kernel commands; 0 or a positive errno ---------------------- */

int m5k_get_context(struct m5_context *ctx,
		    const struct mlx5_ib_alloc_ucontext_req_v2 *req,
		    struct mlx5_ib_alloc_ucontext_resp *resp);
/* Map one UAR page; MAP_FAILED (errno set) on failure. */
void *m5k_mmap_uar(struct m5_context *ctx, off_t offset, size_t len);
void m5k_munmap_uar(struct m5_context *ctx, void *addr, size_t len);
/* Map the internal timer's page, read-only; MAP_FAILED (errno set). */
void *m5k_mmap_clock(struct m5_context *ctx, off_t offset, size_t len);
void m5k_munmap_clock(struct m5_context *ctx, void *addr, size_t len);
/* The type of GID index of a port (IB, RoCE v1, RoCE v2). */
int m5k_query_gid_type(struct ibv_context *ctx, uint8_t port,
		       unsigned int index, enum ibv_gid_type *type);
int m5k_create_cq(struct ibv_context *ctx,
		  const struct ibv_cq_init_attr_ex *attr, struct verbs_cq *cq,
		  const struct mlx5_ib_create_cq *req,
		  struct mlx5_ib_create_cq_resp *resp);
int m5k_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
/* RESIZE_CQ to cqe entries, the new ring in req (mlx5_ib_resize_cq). */
int m5k_resize_cq(struct ibv_cq *cq, int cqe,
		  const struct mlx5_ib_resize_cq *req);
int m5k_destroy_cq(struct ibv_cq *cq);
int m5k_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		  struct ibv_qp_init_attr_ex *attr,
		  const struct mlx5_ib_create_qp *req,
		  struct mlx5_ib_create_qp_resp *resp);
int m5k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int m5k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init);
int m5k_destroy_qp(struct ibv_qp *qp);
/* Another handle on an XRC target QP, found by number in its domain. */
int m5k_open_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		struct ibv_qp_open_attr *attr);
int m5k_create_srq(struct ibv_context *ctx, struct verbs_srq *srq,
		   struct ibv_srq_init_attr_ex *attr,
		   const struct mlx5_ib_create_srq *req,
		   struct mlx5_ib_create_srq_resp *resp);
int m5k_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int m5k_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int m5k_destroy_srq(struct ibv_srq *srq);
int m5k_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		  struct ibv_ah_attr *attr,
		  struct mlx5_ib_create_ah_resp *resp);
int m5k_destroy_ah(struct ibv_ah *ah);

/*
 * Dynamic UARs: a UAR object of mlx5_ib (MLX5_IB_OBJECT_UAR), allocated by
 * type (MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF or _NC), mapped with m5k_mmap_uar at
 * mmap_offset for length bytes, and named to create_qp/create_cq by its
 * page_id.  0 or a positive errno.
 */
struct m5k_uar {
	uint32_t handle;
	uint32_t page_id;
	uint64_t mmap_offset;
	uint32_t length;
};
int m5k_alloc_uar(struct m5_context *ctx, uint32_t type, struct m5k_uar *uar);
int m5k_destroy_uar(struct m5_context *ctx, uint32_t handle);

/* --- Seam 2: device memory ------------------------------------------------ */

/*
 * The barriers and register stores are core/mmio.h's, under rdma-core's
 * names.  What is mlx5's own: the doorbell-record store (host memory the
 * device reads) and the BlueFlame copy, whose source wraps at the SQ end.
 */
#ifdef DOORBELL_MLX5_MODEL

void m5_seam_dbrec(__be32 *rec, __be32 val);
void m5_seam_bf_copy(void *reg, const void *wqe, unsigned int len,
		     const void *sq_start, const void *sq_end);

static inline void m5_dbrec_store(__be32 *rec, __be32 val)
{
	m5_seam_dbrec(rec, val);
}

static inline void m5_bf_copy(void *reg, const void *wqe, unsigned int len,
			      const void *sq_start, const void *sq_end)
{
	m5_seam_bf_copy(reg, wqe, len, sq_start, sq_end);
}

#else /* production */

static inline void m5_dbrec_store(__be32 *rec, __be32 val)
{
	/* One aligned 32-bit store the device can never see torn. */
	*(volatile __be32 *)rec = val;
}

/*
 * Copy a WQE of len bytes (a multiple of 64) into a BlueFlame register in
 * ascending 64-byte blocks, wrapping the source at the end of the SQ.
 */
static inline void m5_bf_copy(void *reg, const void *wqe, unsigned int len,
			      const void *sq_start, const void *sq_end)
{
	char *dst = reg;
	const char *src = wqe;

	for (; len; len -= M5_SEND_WQE_BB, dst += M5_SEND_WQE_BB,
		    src += M5_SEND_WQE_BB) {
		if ((const void *)src == sq_end)
			src = sq_start;
		mmio_memcpy_x64(dst, src, M5_SEND_WQE_BB);
	}
}

#endif /* DOORBELL_MLX5_MODEL */

#endif /* DOORBELL_MLX5_SEAM_H */
