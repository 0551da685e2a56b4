/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Verbs plumbing the mlx5 model tests share: bringing RC and UD QPs up on
 * a model device, and polling for one completion.
 */
#ifndef DOORBELL_TESTS_M5T_VERBS_H
#define DOORBELL_TESTS_M5T_VERBS_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "m5model.h"

/*
 * RESET -> INIT -> RTR -> RTS towards QP dest of the same model device on
 * port 1 (through a GRH on an Ethernet port); 0 or -1.
 */
int m5t_rc_connect(struct m5m_dev *dev, struct ibv_qp *qp, uint32_t dest,
		   uint8_t rnr_retry);
/* A UD QP to RTS on port 1 with qkey; 0 or -1. */
int m5t_ud_up(struct ibv_qp *qp, uint32_t qkey);
/* One completion, within a few polls: what ibv_poll_cq returned last. */
int m5t_poll_one(struct ibv_cq *cq, struct ibv_wc *wc);

#endif /* DOORBELL_TESTS_M5T_VERBS_H */
