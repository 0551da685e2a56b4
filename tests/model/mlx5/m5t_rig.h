/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A model device with two CQs (optionally on a completion channel), a
 * buffer of M5T_RIG_BUF bytes under one MR, and an RC pair a -> b: the rig
 * the QP-state, SRQ/ODP and arm-in-poll tests share, with the posts and
 * checks they make.  m5t_rig_close() also checks the model saw no
 * violation.
 */
#ifndef DOORBELL_TESTS_M5T_RIG_H
#define DOORBELL_TESTS_M5T_RIG_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "m5model.h"

#define M5T_RIG_BUF 4096

struct m5t_rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* The device, PD, buffer, MR and CQs (on a channel if asked); 0 or -1. */
int m5t_rig_open(struct m5t_rig *r, bool channel);
/* An RC pair a -> b, a on acq, b on bcq (b's receives from srq if any). */
int m5t_rig_rc(struct m5t_rig *r, struct ibv_srq *srq);
void m5t_rig_close(struct m5t_rig *r);
/* A SEND of 16 bytes from the buffer at off; flags added to none. */
int m5t_rig_send(struct m5t_rig *r, struct ibv_qp *qp, uint64_t id,
		 uint32_t off, unsigned int flags);
/* A receive of 64 bytes at off, on qp or on srq. */
int m5t_rig_recv(struct m5t_rig *r, struct ibv_qp *qp, uint64_t id,
		 uint32_t off);
int m5t_rig_srq_recv(struct m5t_rig *r, struct ibv_srq *srq, uint64_t id,
		     uint32_t off);
int m5t_set_state(struct ibv_qp *qp, enum ibv_qp_state s);
/* The state ibv_query_qp reports (it also rewrites qp->state). */
int m5t_query_state(struct ibv_qp *qp);
/* The next completion on cq must be wr_id id with status st. */
void m5t_expect_wc(struct ibv_cq *cq, uint64_t id, enum ibv_wc_status st);
void m5t_expect_empty(struct ibv_cq *cq);

#endif /* DOORBELL_TESTS_M5T_RIG_H */
