/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mlx5 backend objects in ordinary memory, set up as the backend's create
 * calls leave them, for device-free tests: the unit tests
 * (test_mlx5_datapath.c) and the fuzzers (tests/fuzz/fuzz_mlx5_cqe.c).
 *
 * The caller owns every buffer: a unit test embeds them in one struct, a
 * fuzzer allocates each at its exact size so that ASan sees its bounds.
 * Stores are the production seams (no model): the "UAR" is memory.
 */
#ifndef DOORBELL_UNIT_M5_FAKE_H
#define DOORBELL_UNIT_M5_FAKE_H

#include "mlx5/mlx5.h"

/* A context: mutexes, user-index table, UAR page 0 at uar, atomics on. */
void m5_fake_ctx_init(struct m5_context *ctx, void *uar);
/* Frees what the context allocated (the user-index pages). */
void m5_fake_ctx_fini(struct m5_context *ctx);

/*
 * A CQ of ncqe (a power of two) CQEs at buf, every one hardware-owned,
 * whose consumer index starts at ci (0 for a new CQ) and whose doorbell
 * record (2 words) says so.
 */
void m5_fake_cq_init(struct m5_cq *cq, struct m5_context *ctx, void *buf,
		     uint32_t ncqe, __be32 *dbrec, uint32_t ci, bool locked);

/* A queue of wqe_cnt (a power of two) WQEs of 2^wqe_shift bytes at buf. */
struct m5_fake_wq {
	void *buf;
	uint64_t *wrid;	    /* wqe_cnt entries */
	uint32_t *wqe_head; /* SQ only: wqe_cnt entries */
	uint32_t wqe_cnt;
	uint32_t wqe_shift;
	uint32_t max_post;
	uint32_t max_gs;
};
void m5_fake_wq_init(struct m5_wq *wq, const struct m5_fake_wq *f, bool locked);

/*
 * A QP in RTS as m5_create_qp_ex leaves it, its sq and rq already set with
 * m5_fake_wq_init (the rq left empty when srq is given): type, QPN, CQs,
 * SRQ, doorbell record (2 words, as posting left it: rq head and sq
 * cur_post), bfreg, opcode mask, a user index.
 * Returns 0 or ENOMEM.
 */
int m5_fake_qp_init(struct m5_qp *qp, struct m5_context *ctx,
		    enum ibv_qp_type type, uint32_t qpn, struct m5_cq *send_cq,
		    struct m5_cq *recv_cq, struct m5_srq *srq, __be32 *dbrec,
		    struct m5_bf *bf);

/*
 * An SRQ as m5_create_srq_ex leaves it on a device without room for a
 * wait queue, its wq already set with m5_fake_wq_init: busy[] (freed by
 * the caller), the free list 0 -> 1 -> ... -> wqe_cnt - 1 threaded
 * through the WQEs, the doorbell record (1 word), a user index.
 * Returns 0 or ENOMEM.
 */
int m5_fake_srq_init(struct m5_srq *srq, struct m5_context *ctx, __be32 *dbrec);

#endif /* DOORBELL_UNIT_M5_FAKE_H */
