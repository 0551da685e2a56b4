/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Verbs plumbing the mlx5 model tests share: bringing RC and UD QPs up on
 * a model device, and polling for one completion.
 */
#ifndef DOORBELL_TESTS_M5T_VERBS_H
#define DOORBELL_TESTS_M5T_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "m5model.h"

/* How an RC QP is brought up: the few attributes the tests differ in. */
struct m5t_rc_cfg {
	unsigned int access; /* qp_access_flags */
	enum ibv_mtu mtu;
	uint8_t rnr_retry;
	uint32_t sq_psn, rq_psn; /* the first PSN sent, and expected */
	bool no_dest_rd_atomic;	 /* max_dest_rd_atomic 0, not 1 */
	bool own_retry;		 /* timeout and retry_cnt below, not 14 and 7 */
	uint8_t timeout, retry_cnt;
};

/*
 * RESET -> INIT -> RTR -> RTS towards QP dest of the same model device on
 * port 1 (through a GRH on an Ethernet port); 0 or -1.
 */
int m5t_rc_up(struct m5m_dev *dev, struct ibv_qp *qp, uint32_t dest,
	      const struct m5t_rc_cfg *c);
/* m5t_rc_up with every remote access, a 1024-byte MTU and rnr_retry. */
int m5t_rc_connect(struct m5m_dev *dev, struct ibv_qp *qp, uint32_t dest,
		   uint8_t rnr_retry);
/* m5t_rc_connect of a to b and of b to a; 0 or -1. */
int m5t_rc_pair(struct m5m_dev *dev, struct ibv_qp *a, struct ibv_qp *b,
		uint8_t rnr_retry);
/*
 * An RC QP on cq for sends and receives (receives from srq if given),
 * wrs WRs and sges SGEs each way.
 */
struct ibv_qp *m5t_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			 struct ibv_srq *srq, uint32_t wrs, uint32_t sges);
/* Something to read on fd right now (a read would not block). */
bool m5t_fd_ready(int fd);
/* A UD QP to RTS on port 1 with qkey; 0 or -1. */
int m5t_ud_up(struct ibv_qp *qp, uint32_t qkey);
/*
 * Close ctx and destroy dev, each if there is one, checking the model saw
 * no violation.
 */
void m5t_dev_close(struct m5m_dev *dev, struct ibv_context *ctx);
/* One completion, within a few polls: what ibv_poll_cq returned last. */
int m5t_poll_one(struct ibv_cq *cq, struct ibv_wc *wc);

#endif /* DOORBELL_TESTS_M5T_VERBS_H */
