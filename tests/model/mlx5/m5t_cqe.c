// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * CQEs read with mlx5dv.h before the backend polls them (m5t_cqe.h).  The
 * backend's struct m5_cq gives where its ring is and its consumer index;
 * what the completion must say comes from the mlx5dv.h layouts.
 */
#include <stdio.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "mlx5/mlx5.h"
#include "m5t_cqe.h"

enum ibv_wc_status m5t_cqe_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

void *m5t_cqe_next(struct ibv_cq *ibcq)
{
	struct m5_cq *cq = to_m5_cq(ibcq);

	return (struct mlx5_cqe64 *)cq->buf + (cq->cons_index & (cq->ncqe - 1));
}

/* A send WQE's opcode (sop_drop_qpn 31:24) as a work completion. */
static void m5t_req_wc(uint8_t op, const struct mlx5_cqe64 *cqe,
		       struct ibv_wc *w)
{
	switch (op) {
	case MLX5_OPCODE_SEND_IMM:
		w->wc_flags = IBV_WC_WITH_IMM;
		/* fall through */
	case MLX5_OPCODE_SEND:
		w->opcode = IBV_WC_SEND;
		break;
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		w->wc_flags = IBV_WC_WITH_IMM;
		/* fall through */
	case MLX5_OPCODE_RDMA_WRITE:
		w->opcode = IBV_WC_RDMA_WRITE;
		break;
	case MLX5_OPCODE_RDMA_READ:
		w->opcode = IBV_WC_RDMA_READ;
		w->byte_len = be32toh(cqe->byte_cnt);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
		w->opcode = IBV_WC_COMP_SWAP;
		w->byte_len = 8;
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		w->opcode = IBV_WC_FETCH_ADD;
		w->byte_len = 8;
		break;
	default:
		w->status = IBV_WC_GENERAL_ERR;
		break;
	}
}

static void m5t_resp_wc(uint8_t opcode, const struct mlx5_cqe64 *cqe,
			struct ibv_wc *w)
{
	uint32_t rqpn = be32toh(cqe->flags_rqpn);

	w->opcode = opcode == MLX5_CQE_RESP_WR_IMM ? IBV_WC_RECV_RDMA_WITH_IMM
						   : IBV_WC_RECV;
	w->byte_len = be32toh(cqe->byte_cnt);
	w->src_qp = rqpn & 0xffffff;
	w->sl = (rqpn >> 24) & 0xf;
	w->slid = be16toh(cqe->slid);
	w->dlid_path_bits = cqe->ml_path & 0x7f;
	w->wc_flags = (rqpn >> 28) & 3 ? IBV_WC_GRH : 0;
	if (opcode == MLX5_CQE_RESP_WR_IMM ||
	    opcode == MLX5_CQE_RESP_SEND_IMM) {
		w->wc_flags |= IBV_WC_WITH_IMM;
		w->imm_data = cqe->imm_inval_pkey;
	} else if (opcode == MLX5_CQE_RESP_SEND_INV) {
		w->wc_flags |= IBV_WC_WITH_INV;
		w->invalidated_rkey = be32toh(cqe->imm_inval_pkey);
	} else {
		w->pkey_index = be32toh(cqe->imm_inval_pkey) & 0xffff;
	}
}

/* The completion a software-owned CQE encodes (wr_id left 0). */
static void m5t_cqe_wc(struct mlx5_cqe64 *cqe, struct ibv_wc *w)
{
	struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)cqe;
	uint8_t opcode = mlx5dv_get_cqe_opcode(cqe);

	memset(w, 0, sizeof(*w));
	w->qp_num = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	switch (opcode) {
	case MLX5_CQE_REQ:
		m5t_req_wc(be32toh(cqe->sop_drop_qpn) >> 24, cqe, w);
		break;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		m5t_resp_wc(opcode, cqe, w);
		break;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		/* The opcode of a failed send is known, a receive's is not. */
		if (opcode == MLX5_CQE_REQ_ERR)
			m5t_req_wc(be32toh(e->s_wqe_opcode_qpn) >> 24, cqe, w);
		else
			w->opcode = IBV_WC_RECV;
		w->byte_len = 0;
		w->wc_flags = 0;
		w->status = m5t_cqe_status(e->syndrome);
		w->vendor_err = e->vendor_err_synd;
		break;
	default:
		w->status = IBV_WC_GENERAL_ERR;
		break;
	}
	/* A format we never enabled (compressed, inline scatter). */
	if (mlx5dv_get_cqe_format(cqe))
		w->status = IBV_WC_GENERAL_ERR;
}

#define M5T_WC_FIELD(f)                                                        \
	do {                                                                   \
		if (got->f != want->f) {                                       \
			printf("    CQE 0x%x (op_own 0x%02x): wc." #f          \
			       " %llu, the CQE says %llu\n",                   \
			       ci, op_own, (unsigned long long)got->f,         \
			       (unsigned long long)want->f);                   \
			ok = false;                                            \
		}                                                              \
	} while (0)

static bool m5t_wc_same(const struct ibv_wc *got, const struct ibv_wc *want,
			uint8_t opcode, uint32_t ci, uint8_t op_own)
{
	bool ok = true;

	M5T_WC_FIELD(status);
	M5T_WC_FIELD(qp_num);
	M5T_WC_FIELD(wc_flags);
	M5T_WC_FIELD(byte_len);
	M5T_WC_FIELD(vendor_err);
	/* Error completions of receives and general errors: no opcode. */
	if (want->status == IBV_WC_SUCCESS || opcode == MLX5_CQE_REQ_ERR)
		M5T_WC_FIELD(opcode);
	if (want->status != IBV_WC_SUCCESS || opcode == MLX5_CQE_REQ)
		return ok;
	M5T_WC_FIELD(src_qp);
	M5T_WC_FIELD(sl);
	M5T_WC_FIELD(slid);
	M5T_WC_FIELD(dlid_path_bits);
	if (want->wc_flags & IBV_WC_WITH_IMM)
		M5T_WC_FIELD(imm_data);
	else if (want->wc_flags & IBV_WC_WITH_INV)
		M5T_WC_FIELD(invalidated_rkey);
	else
		M5T_WC_FIELD(pkey_index);
	return ok;
}

int m5t_cqe_poll(struct ibv_cq *ibcq, struct ibv_wc *wc,
		 struct m5t_cqe_seen *seen)
{
	struct m5_cq *cq = to_m5_cq(ibcq);
	uint32_t ci = cq->cons_index;
	struct mlx5_cqe64 *cqe = m5t_cqe_next(ibcq);
	uint8_t op_own = cqe->op_own, opcode = mlx5dv_get_cqe_opcode(cqe);
	/* Software's: the owner bit flips each pass over the ring. */
	bool sw = opcode != MLX5_CQE_INVALID &&
		  mlx5dv_get_cqe_owner(cqe) == !!(ci & cq->ncqe);
	struct ibv_wc want;
	int n;

	if (sw)
		m5t_cqe_wc(cqe, &want);
	if (seen) {
		seen->opcode = opcode;
		seen->se = mlx5dv_get_cqe_se(cqe);
		seen->wqe_counter = be16toh(cqe->wqe_counter);
	}
	n = ibv_poll_cq(ibcq, 1, wc);
	if (n != (sw ? 1 : 0)) {
		printf("    CQ consumer index 0x%x, op_own 0x%02x: ibv_poll_cq "
		       "returned %d\n",
		       ci, op_own, n);
		return -1;
	}
	if (sw && !m5t_wc_same(wc, &want, opcode, ci, op_own))
		return -1;
	return n;
}
