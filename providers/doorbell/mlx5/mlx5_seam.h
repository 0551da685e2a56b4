/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The two seams between the mlx5 backend and a ConnectX.
 *
 * 1. Kernel commands (m5k_*): production builds link mlx5_kcmd.c, which
 *    sends uverbs commands with the mlx5_ib driver data and mmaps UARs on
 *    the uverbs fd.  The software ConnectX (tests/mlx5/model) links its own
 *    definitions of the same functions instead: a fake kernel.  Nothing is
 *    looked up at run time; the choice is made by the linker.  The plain
 *    commands, with no driver data (device and port queries, PDs, MRs),
 *    are the core's, through the same kind of seam (core/kcmd.h).
 *
 * 2. Device memory: every store to a UAR, every doorbell-record store and
 *    every barrier.  Production builds inline the real stores and fences
 *    below.  Built with DOORBELL_MLX5_MODEL (only tests/mlx5 does that),
 *    each becomes a call into the model, which sees the address, width,
 *    value and order of every access.
 */
#ifndef DOORBELL_MLX5_SEAM_H
#define DOORBELL_MLX5_SEAM_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "abi/verbs_pabi34.h"
#include "core/kcmd.h"
#include "mlx5/mlx5_hw.h"

struct m5_context;

/* --- Seam 1: kernel commands; 0 or a positive errno ---------------------- */

int m5k_get_context(struct m5_context *ctx,
		    const struct mlx5_ib_alloc_ucontext_req_v2 *req,
		    struct mlx5_ib_alloc_ucontext_resp *resp);
/* Map one UAR page; MAP_FAILED (errno set) on failure. */
void *m5k_mmap_uar(struct m5_context *ctx, off_t offset, size_t len);
void m5k_munmap_uar(struct m5_context *ctx, void *addr, size_t len);
/* The type of GID index of a port (IB, RoCE v1, RoCE v2). */
int m5k_query_gid_type(struct ibv_context *ctx, uint8_t port,
		       unsigned int index, enum ibv_gid_type *type);
int m5k_create_cq(struct ibv_context *ctx,
		  const struct ibv_cq_init_attr_ex *attr, struct verbs_cq *cq,
		  const struct mlx5_ib_create_cq *req,
		  struct mlx5_ib_create_cq_resp *resp);
int m5k_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
int m5k_destroy_cq(struct ibv_cq *cq);
int m5k_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
		  struct ibv_qp_init_attr_ex *attr,
		  const struct mlx5_ib_create_qp *req,
		  struct mlx5_ib_create_qp_resp *resp);
int m5k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int m5k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init);
int m5k_destroy_qp(struct ibv_qp *qp);
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

/* --- Seam 2: device memory ------------------------------------------------ */

enum m5_barrier {
	M5_BAR_TO_DEVICE,   /* host-memory stores before a dbrec store */
	M5_BAR_FROM_DEVICE, /* CQE ownership read before its body */
	M5_BAR_WC_START,    /* dbrec store before the UAR write */
	M5_BAR_WC_FLUSH,    /* UAR write out before the lock is dropped */
};

#ifdef DOORBELL_MLX5_MODEL

void m5_seam_barrier(enum m5_barrier b);
void m5_seam_dbrec(__be32 *rec, __be32 val);
void m5_seam_write64(void *reg, __be64 val);
void m5_seam_bf_copy(void *reg, const void *wqe, unsigned int len,
		     const void *sq_start, const void *sq_end);

static inline void m5_barrier(enum m5_barrier b)
{
	m5_seam_barrier(b);
}

static inline void m5_dbrec_store(__be32 *rec, __be32 val)
{
	m5_seam_dbrec(rec, val);
}

static inline void m5_mmio_write64(void *reg, __be64 val)
{
	m5_seam_write64(reg, val);
}

static inline void m5_bf_copy(void *reg, const void *wqe, unsigned int len,
			      const void *sq_start, const void *sq_end)
{
	m5_seam_bf_copy(reg, wqe, len, sq_start, sq_end);
}

#else /* production */

static inline void m5_barrier(enum m5_barrier b)
{
#if defined(__x86_64__) || defined(__i386__)
	/*
	 * x86: host stores reach coherent DMA in program order, so only the
	 * compiler must be stopped; stores to the write-combining UAR need
	 * an sfence before (WC_START) and after (WC_FLUSH) them.
	 */
	if (b == M5_BAR_WC_START || b == M5_BAR_WC_FLUSH)
		asm volatile("sfence" ::: "memory");
	else
		asm volatile("" ::: "memory");
#elif defined(__aarch64__)
	/* arm64: stores must drain to the device (dsb st); loads wait (dmb). */
	if (b == M5_BAR_FROM_DEVICE)
		asm volatile("dmb oshld" ::: "memory");
	else
		asm volatile("dsb st" ::: "memory");
#else
	(void)b;
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

static inline void m5_dbrec_store(__be32 *rec, __be32 val)
{
	/* One aligned 32-bit store the device can never see torn. */
	*(volatile __be32 *)rec = val;
}

static inline void m5_mmio_write64(void *reg, __be64 val)
{
	/* One 8-byte store: the doorbell is taken as a single write. */
	*(volatile uint64_t *)reg = (uint64_t)val;
}

/*
 * Copy a WQE of len bytes (a multiple of 64) into a BlueFlame register in
 * ascending 8-byte stores, wrapping the source at the end of the SQ.  Each
 * 64-byte block is eight explicit stores: a loop here costs the fast path
 * about 40 instructions per block (docs/performance.md).
 */
static inline void m5_bf_copy(void *reg, const void *wqe, unsigned int len,
			      const void *sq_start, const void *sq_end)
{
	volatile uint64_t *dst = reg;
	const uint64_t *src = wqe;

	for (; len; len -= M5_SEND_WQE_BB, dst += 8, src += 8) {
		if ((const void *)src == sq_end)
			src = sq_start;
		dst[0] = src[0];
		dst[1] = src[1];
		dst[2] = src[2];
		dst[3] = src[3];
		dst[4] = src[4];
		dst[5] = src[5];
		dst[6] = src[6];
		dst[7] = src[7];
	}
}

#endif /* DOORBELL_MLX5_MODEL */

#endif /* DOORBELL_MLX5_SEAM_H */
