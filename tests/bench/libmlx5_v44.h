/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Stock libmlx5's private layouts, as facts, for tests/bench/libmlx5_bench.c.
 *
 * The side-by-side bench builds libmlx5's own context, QP, CQ and BlueFlame
 * register in ordinary memory and calls its real post_send / poll_cq.  These
 * are the few fields those two functions read, at the offsets libmlx5 has
 * them, each with its declaration in rdma-core tag v44.0 (commit 91392a91eb41),
 * providers/mlx5/mlx5.h unless another file is named.  Offsets are for
 * x86-64 (LP64, glibc: pthread_spinlock_t is 4 bytes).  Nothing else of
 * libmlx5 is declared; every other byte is padding that stays zero, which
 * is what the fields left unset would be in this configuration (no
 * MLX5_DEBUG, no wq_sig, no stall, no MW, no DEVX).
 *
 * The offsets were read with offsetof() from v44.0's own mlx5.h, compiled
 * against that tree's generated headers; every one is checked below.
 */
#ifndef DOORBELL_BENCH_LIBMLX5_V44_H
#define DOORBELL_BENCH_LIBMLX5_V44_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <infiniband/verbs.h>

/* enum in mlx5.h:141-143 (MLX5_UIDX_TABLE_SHIFT / _MASK / _SIZE). */
#define LM5_UIDX_TABLE_SHIFT 12
#define LM5_UIDX_TABLE_MASK  ((1 << LM5_UIDX_TABLE_SHIFT) - 1)
#define LM5_UIDX_TABLE_SIZE  (1 << (24 - LM5_UIDX_TABLE_SHIFT))
/* mlx5.h:70 MLX5_CQE_VERSION_V1; mlx5.h:159 MLX5_BF_OFFSET. */
#define LM5_CQE_VERSION_V1 1
#define LM5_BF_OFFSET	   0x800
/* mlx5.h:209: MLX5_RSC_TYPE_QP is the first of enum mlx5_rsc_type. */
#define LM5_RSC_TYPE_QP 0

/* struct mlx5_spinlock, mlx5.h:243-247. */
struct lm5_spinlock {
	pthread_spinlock_t lock; /* :244 */
	int in_use;		 /* :245 */
	int need_lock;		 /* :246 */
};
_Static_assert(sizeof(struct lm5_spinlock) == 12, "mlx5_spinlock");
_Static_assert(sizeof(pthread_spinlock_t) == 4, "glibc pthread_spinlock_t");

/* struct mlx5_bf, mlx5.h:604 (152 bytes). */
struct lm5_bf {
	void *reg;		  /* :605 */
	int need_lock;		  /* :606 */
	struct lm5_spinlock lock; /* :607 */
	unsigned int offset;	  /* :608 */
	unsigned int buf_size;	  /* :609 */
	unsigned int uuarn;	  /* :610 */
	uint8_t pad_36[152 - 36];
};
_Static_assert(offsetof(struct lm5_bf, lock) == 12, "mlx5_bf.lock");
_Static_assert(offsetof(struct lm5_bf, offset) == 24, "mlx5_bf.offset");
_Static_assert(offsetof(struct lm5_bf, buf_size) == 28, "mlx5_bf.buf_size");
_Static_assert(offsetof(struct lm5_bf, uuarn) == 32, "mlx5_bf.uuarn");
_Static_assert(sizeof(struct lm5_bf) == 152, "sizeof mlx5_bf");

/*
 * struct verbs_context, libibverbs/verbs.h:2095 (648 bytes), whose last
 * field is the public struct ibv_context (:2170).
 */
struct lm5_verbs_context {
	uint8_t pad_0[648 - sizeof(struct ibv_context)];
	struct ibv_context context;
};
_Static_assert(sizeof(struct lm5_verbs_context) == 648, "verbs_context");

/* One uidx_table entry: the anonymous struct of mlx5.h:337-340. */
struct lm5_uidx_entry {
	void **table; /* :338, struct mlx5_resource ** */
	int refcnt;   /* :339 */
};

/* struct mlx5_context, mlx5.h:314 (267904 bytes). */
struct lm5_context {
	struct lm5_verbs_context ibv_ctx; /* :315 */
	uint8_t pad_648[652 - 648];
	int bf_reg_size; /* :317 */
	uint8_t pad_656[676 - 656];
	int prefer_bf;	/* :323 */
	int shut_up_bf; /* :324 */
	uint8_t pad_684[131840 - 684];
	struct lm5_uidx_entry uidx_table[LM5_UIDX_TABLE_SIZE]; /* :340 */
	uint8_t pad_197376[267312 - 197376];
	FILE *dbg_fp; /* :364 */
	uint8_t pad_267320[267392 - 267320];
	int cqe_version; /* :368 */
	uint8_t pad_267396[267904 - 267396];
};
_Static_assert(offsetof(struct lm5_context, ibv_ctx.context.ops.post_send) ==
		       528,
	       "mlx5_context ops.post_send");
_Static_assert(offsetof(struct lm5_context, ibv_ctx.context.ops.poll_cq) == 416,
	       "mlx5_context ops.poll_cq");
_Static_assert(offsetof(struct lm5_context, bf_reg_size) == 652,
	       "mlx5_context.bf_reg_size");
_Static_assert(offsetof(struct lm5_context, prefer_bf) == 676,
	       "mlx5_context.prefer_bf");
_Static_assert(offsetof(struct lm5_context, shut_up_bf) == 680,
	       "mlx5_context.shut_up_bf");
_Static_assert(offsetof(struct lm5_context, uidx_table) == 131840,
	       "mlx5_context.uidx_table");
_Static_assert(sizeof(struct lm5_uidx_entry) == 16, "uidx_table entry");
_Static_assert(offsetof(struct lm5_context, dbg_fp) == 267312,
	       "mlx5_context.dbg_fp");
_Static_assert(offsetof(struct lm5_context, cqe_version) == 267392,
	       "mlx5_context.cqe_version");
_Static_assert(sizeof(struct lm5_context) == 267904, "sizeof mlx5_context");

/* struct mlx5_buf, mlx5.h:432: only buf (:433) and length (:434). */
struct lm5_buf_head {
	void *buf;
	size_t length;
};

/* struct mlx5_cq, mlx5.h:487 (592 bytes); verbs_cq (:488) starts with cq. */
struct lm5_cq {
	struct ibv_cq cq; /* :488, verbs_cq.cq */
	uint8_t pad_128[288 - 128];
	struct lm5_buf_head buf_a; /* :489 */
	uint8_t pad_304[416 - 304];
	struct lm5_buf_head *active_buf; /* :491 */
	uint8_t pad_424[436 - 424];
	int active_cqes;	  /* :494 */
	struct lm5_spinlock lock; /* :495 */
	uint32_t cqn;		  /* :496 */
	uint32_t cons_index;	  /* :497 */
	uint8_t pad_460[464 - 460];
	__be32 *dbrec; /* :498 */
	uint8_t pad_472[476 - 472];
	int arm_sn; /* :500 */
	int cqe_sz; /* :501 */
	uint8_t pad_484[492 - 484];
	int stall_enable; /* :504 */
	uint8_t pad_496[592 - 496];
};
_Static_assert(offsetof(struct lm5_cq, buf_a) == 288, "mlx5_cq.buf_a");
_Static_assert(offsetof(struct lm5_cq, active_buf) == 416,
	       "mlx5_cq.active_buf");
_Static_assert(offsetof(struct lm5_cq, active_cqes) == 436,
	       "mlx5_cq.active_cqes");
_Static_assert(offsetof(struct lm5_cq, lock) == 440, "mlx5_cq.lock");
_Static_assert(offsetof(struct lm5_cq, cqn) == 452, "mlx5_cq.cqn");
_Static_assert(offsetof(struct lm5_cq, cons_index) == 456,
	       "mlx5_cq.cons_index");
_Static_assert(offsetof(struct lm5_cq, dbrec) == 464, "mlx5_cq.dbrec");
_Static_assert(offsetof(struct lm5_cq, arm_sn) == 476, "mlx5_cq.arm_sn");
_Static_assert(offsetof(struct lm5_cq, cqe_sz) == 480, "mlx5_cq.cqe_sz");
_Static_assert(offsetof(struct lm5_cq, stall_enable) == 492,
	       "mlx5_cq.stall_enable");
_Static_assert(sizeof(struct lm5_cq) == 592, "sizeof mlx5_cq");

/* struct mlx5_wq, mlx5.h:578 (80 bytes), the QP's sq. */
struct lm5_wq {
	uint64_t *wrid;		  /* :579 */
	unsigned int *wqe_head;	  /* :580 */
	struct lm5_spinlock lock; /* :581 */
	unsigned int wqe_cnt;	  /* :582 */
	unsigned int max_post;	  /* :583 */
	unsigned int head;	  /* :584 */
	unsigned int tail;	  /* :585 */
	unsigned int cur_post;	  /* :586 */
	int max_gs;		  /* :587 */
	int qp_state_max_gs;	  /* :592 */
	int wqe_shift;		  /* :593 */
	int offset;		  /* :594 */
	void *qend;		  /* :595 */
	uint32_t *wr_data;	  /* :596 */
};
_Static_assert(offsetof(struct lm5_wq, wqe_cnt) == 28, "mlx5_wq.wqe_cnt");
_Static_assert(offsetof(struct lm5_wq, cur_post) == 44, "mlx5_wq.cur_post");
_Static_assert(offsetof(struct lm5_wq, qp_state_max_gs) == 52,
	       "mlx5_wq.qp_state_max_gs");
_Static_assert(offsetof(struct lm5_wq, qend) == 64, "mlx5_wq.qend");
_Static_assert(sizeof(struct lm5_wq) == 80, "sizeof mlx5_wq");

/* struct mlx5_qp, mlx5.h:647 (960 bytes). */
struct lm5_qp {
	uint32_t rsc_type; /* :648, rsc.type (:231) */
	uint32_t rsc_rsn;  /* :648, rsc.rsn (:232) */
	struct ibv_qp qp;  /* :649, verbs_qp.qp */
	uint8_t pad_168[480 - 168];
	struct ibv_qp *ibv_qp; /* :651 */
	uint8_t pad_488[552 - 488];
	int max_inline_data; /* :653 */
	uint8_t pad_556[632 - 556];
	struct lm5_bf *bf; /* :658 */
	uint8_t pad_640[696 - 640];
	uint8_t fm_cache;	/* :675 */
	uint8_t sq_signal_bits; /* :676 */
	uint8_t pad_698[704 - 698];
	void *sq_start;	  /* :677 */
	struct lm5_wq sq; /* :678 */
	__be32 *db;	  /* :680 */
	uint8_t pad_800[888 - 800];
	int wq_sig; /* :683 */
	uint8_t pad_892[896 - 892];
	int atomics_enabled; /* :685 */
	uint8_t pad_900[960 - 900];
};
_Static_assert(offsetof(struct lm5_qp, qp) == 8, "mlx5_qp.verbs_qp");
_Static_assert(offsetof(struct lm5_qp, ibv_qp) == 480, "mlx5_qp.ibv_qp");
_Static_assert(offsetof(struct lm5_qp, max_inline_data) == 552,
	       "mlx5_qp.max_inline_data");
_Static_assert(offsetof(struct lm5_qp, bf) == 632, "mlx5_qp.bf");
_Static_assert(offsetof(struct lm5_qp, fm_cache) == 696, "mlx5_qp.fm_cache");
_Static_assert(offsetof(struct lm5_qp, sq_start) == 704, "mlx5_qp.sq_start");
_Static_assert(offsetof(struct lm5_qp, sq) == 712, "mlx5_qp.sq");
_Static_assert(offsetof(struct lm5_qp, sq.wqe_head) == 720,
	       "mlx5_qp.sq.wqe_head");
_Static_assert(offsetof(struct lm5_qp, sq.max_gs) == 760, "mlx5_qp.sq.max_gs");
_Static_assert(offsetof(struct lm5_qp, sq.wqe_shift) == 768,
	       "mlx5_qp.sq.wqe_shift");
_Static_assert(offsetof(struct lm5_qp, sq.wr_data) == 784,
	       "mlx5_qp.sq.wr_data");
_Static_assert(offsetof(struct lm5_qp, db) == 792, "mlx5_qp.db");
_Static_assert(offsetof(struct lm5_qp, wq_sig) == 888, "mlx5_qp.wq_sig");
_Static_assert(offsetof(struct lm5_qp, atomics_enabled) == 896,
	       "mlx5_qp.atomics_enabled");
_Static_assert(sizeof(struct lm5_qp) == 960, "sizeof mlx5_qp");

/*
 * The SQ geometry v44.0's providers/mlx5/qp.c mlx5_calc_sq_size() gives an
 * RC QP with max_send_wr 64, max_send_sge 1, max_inline_data 64 and every
 * RC opcode (the bind-MW overhead of 192 bytes sets the WQE size: 320 bytes,
 * 5 basic blocks; 64 of them round up to a 32 KiB queue).
 */
#define LM5_SQ_WQE_CNT	  512
#define LM5_SQ_MAX_POST	  102
#define LM5_SQ_MAX_INLINE 124

/*
 * Where the two functions are in one known build.  mlx5_post_send and
 * mlx5_poll_cq_v1 are internal (hidden by providers/mlx5/libmlx5.map), so
 * the bench finds them at the load base plus these offsets, and checks them
 * against libmlx5's own ops tables in the same build: mlx5_ctx_common_ops
 * (providers/mlx5/mlx5.c:97, .post_send = mlx5_post_send) and
 * mlx5_ctx_cqev1_ops (mlx5.c:177, only .poll_cq = mlx5_poll_cq_v1), both
 * struct verbs_context_ops (libibverbs/driver.h; post_send is pointer 55,
 * poll_cq pointer 53, as providers/doorbell/abi/verbs_pabi34.h asserts).
 * The offsets were found from the library's R_X86_64_RELATIVE relocations
 * (readelf -r): the ops table with only its poll_cq slot relocated is
 * mlx5_ctx_cqev1_ops; mlx5_post_send is the one-instruction jmp that
 * mlx5_ctx_common_ops' post_send slot points at.
 */
struct lm5_build {
	const char *what;
	const char *build_id; /* GNU build-id, hex */
	uintptr_t post_send;  /* mlx5_post_send */
	uintptr_t poll_cq_v1; /* mlx5_poll_cq_v1 */
	uintptr_t common_ops; /* mlx5_ctx_common_ops */
	uintptr_t cqev1_ops;  /* mlx5_ctx_cqev1_ops */
};

static const struct lm5_build lm5_builds[] = {
	{
		.what = "Debian 12 ibverbs-providers 44.0-2 amd64, "
			"libmlx5.so.1.24.44.0",
		.build_id = "800c6ca768baceb592682738a03643f11379cbdd",
		.post_send = 0x552e0,
		.poll_cq_v1 = 0x1e880,
		.common_ops = 0x795a0,
		.cqev1_ops = 0x79340,
	},
};

/* Pointer indexes in struct verbs_context_ops. */
#define LM5_OPS_POLL_CQ	  53
#define LM5_OPS_POST_SEND 55

#endif
