/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Posting WR lists through the verbs API and holding what the mlx5 backend
 * wrote in its rings and doorbell records to the mlx5dv reference
 * (m5t_ref.h): the SQ, the RQ and the SRQ of backend objects, reached
 * through the backend's structs (mlx5/mlx5.h) for their addresses only.
 */
#ifndef DOORBELL_TESTS_M5T_WQ_H
#define DOORBELL_TESTS_M5T_WQ_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "m5t_ref.h"

/* A send queue as the test tracks it. */
struct m5t_sq {
	struct ibv_qp *qp;
	struct m5t_sq_info info;
	uint16_t pi; /* WQEBBs posted, as the reference counts them */
	/* after each m5t_sq_post: the accepted WQEs' ds, in order */
	unsigned int nds;
	uint8_t ds[256];
	uint16_t wqe_pi[256]; /* and their first WQEBB */
	uint64_t wrapped;     /* WQEs that ran across the end of the SQ */
	/*
	 * ibv_wr_*: a refused batch may have written WQEs in the free part
	 * of the SQ, past the producer index, where the device never reads:
	 * those bytes are not compared (everything else is).
	 */
	bool batch_api;
};

/* A receive queue (max_gs: the max_recv_sge the QP was given). */
struct m5t_rq {
	struct ibv_qp *qp;
	unsigned int max_gs;
	uint32_t head; /* WQEs posted */
};

/* An SRQ and the free list the backend must be keeping. */
struct m5t_srq {
	struct ibv_srq *srq;
	unsigned int max_gs;
	uint16_t *next;
	uint32_t cnt;
	uint16_t head, tail;
	uint16_t posted;
};

/* The SQ of a new QP (nothing posted yet). */
void m5t_sq_init(struct m5t_sq *s, struct ibv_qp *qp, bool sig_all,
		 const struct m5t_ah_info *ahs, unsigned int nahs);
/*
 * ibv_post_send(wr) of which the first n_ok WRs must be taken and which
 * must return ret (bad_wr: the next WR).  The reference builds those WQEs
 * at the producer index before the call; after it the whole SQ ring must
 * be the old ring with them laid over it (bytes written and bytes left
 * alone), the SND dbrec the new producer index, and the doorbell register
 * the last WQE's first 8 bytes.  *bytes grows by the WQE bytes compared.
 */
bool m5t_sq_post(struct m5t_sq *s, struct ibv_send_wr *wr, int ret,
		 unsigned int n_ok, uint64_t *bytes);
/* The same, with post (e.g. m5t_wr_post, m5t_wr.h) instead of post_send. */
typedef int m5t_post_fn(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad);
bool m5t_sq_post_with(struct m5t_sq *s, m5t_post_fn *post,
		      struct ibv_send_wr *wr, int ret, unsigned int n_ok,
		      uint64_t *bytes);

void m5t_rq_init(struct m5t_rq *r, struct ibv_qp *qp, unsigned int max_gs);
/* The same for ibv_post_recv: RQ ring and RCV dbrec. */
bool m5t_rq_post(struct m5t_rq *r, struct ibv_recv_wr *wr, int ret,
		 unsigned int n_ok, uint64_t *bytes);

int m5t_srq_init(struct m5t_srq *s, struct ibv_srq *srq, unsigned int max_gs);
void m5t_srq_fini(struct m5t_srq *s);
/*
 * The same for ibv_post_srq_recv: each WQE taken from the head of the
 * free list (its next segment must link where the list says), the SRQ
 * dbrec.  idx[i] gets the WQE index of the i-th WR taken.
 */
bool m5t_srq_post(struct m5t_srq *s, struct ibv_recv_wr *wr, int ret,
		  unsigned int n_ok, uint16_t *idx, uint64_t *bytes);
/* A completion gave WQE idx back: it joins the list at the tail. */
void m5t_srq_done(struct m5t_srq *s, uint16_t idx);

#endif /* DOORBELL_TESTS_M5T_WQ_H */
