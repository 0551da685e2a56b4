/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A verbs WR list posted through the ibv_wr_* API instead of
 * ibv_post_send: the same work, as an application would describe it.
 */
#ifndef DOORBELL_TESTS_M5T_WR_H
#define DOORBELL_TESTS_M5T_WR_H

#include <stdbool.h>

#include <infiniband/verbs.h>

/*
 * Describe one WR to qpx (between ibv_wr_start and ibv_wr_complete): its
 * builder, wr_id and wr_flags, its SGEs by wr_set_sge (one) or
 * wr_set_sge_list, inline data by wr_set_inline_data (one buffer) or
 * wr_set_inline_data_list, its UD address.  A negative num_sge is passed
 * to wr_set_sge_list as is (a huge count).  False for an opcode that has
 * no ibv_wr_* builder.
 */
bool m5t_wr_one(struct ibv_qp_ex *qpx, const struct ibv_send_wr *wr);
/*
 * The whole list as one batch, with ibv_post_send's signature: 0, or
 * what ibv_wr_complete returned with *bad the first WR (the batch is
 * refused whole); -1 (and a line printed) if a WR has no builder.
 */
int m5t_wr_post(struct ibv_qp *qp, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad);

#endif /* DOORBELL_TESTS_M5T_WR_H */
