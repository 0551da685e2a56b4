/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Polling a backend CQ with the CQE read first through mlx5dv.h: what the
 * mlx5dv_get_cqe_* helpers and the struct mlx5_cqe64 / mlx5_err_cqe fields
 * say the work completion must be, held against what ibv_poll_cq returns.
 */
#ifndef DOORBELL_TESTS_M5T_CQE_H
#define DOORBELL_TESTS_M5T_CQE_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* What the CQE showed, for checks the caller makes. */
struct m5t_cqe_seen {
	uint8_t opcode; /* mlx5dv_get_cqe_opcode */
	uint8_t se;	/* mlx5dv_get_cqe_se */
	uint16_t wqe_counter;
};

/*
 * Poll one completion from cq.  The CQE at the consumer index decides:
 * software's (owner bit = pass parity, opcode not INVALID) and the poll
 * must return it, with every ibv_wc field but wr_id as the CQE encodes
 * it; not software's and the poll must return 0.  Returns what
 * ibv_poll_cq returned, or -1 (a line printed) on a mismatch.
 */
int m5t_cqe_poll(struct ibv_cq *cq, struct ibv_wc *wc,
		 struct m5t_cqe_seen *seen);
/* The CQE at cq's consumer index (struct mlx5_cqe64 *), for crafting. */
void *m5t_cqe_next(struct ibv_cq *cq);
/* IBV_WC_* of an mlx5 syndrome (mlx5dv.h MLX5_CQE_SYNDROME_*). */
enum ibv_wc_status m5t_cqe_status(uint8_t syndrome);

#endif /* DOORBELL_TESTS_M5T_CQE_H */
