// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Byte-for-byte cross-checks of the mlx5 backend against mlx5dv.h.  Real
 * WRs go through ibv_post_send/ibv_post_recv on QPs of the software
 * ConnectX; every WQE the backend writes is compared with one built by the
 * mlx5dv.h helpers (m5t_ref.c), the whole ring around it must be left
 * alone, every CQE is read with the mlx5dv_get_cqe_* helpers before the
 * backend parses it (m5t_cqe.c), and the CQ arm doorbell is computed from
 * the MLX5_CQ_* definitions.  One ctest per behaviour.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "mlx5/mlx5.h"
#include "m5m_int.h" /* the model port's MAC, for RoCE AVs */
#include "check.h"
#include "m5t_cqe.h"
#include "m5t_ref.h"
#include "m5t_verbs.h"
#include "m5t_wq.h"

/* --- Layouts and constants: m5_* / M5_* against mlx5dv.h ------------------ */

#define SAME_OFF(a, fa, b, fb)                                                 \
	_Static_assert(offsetof(struct a, fa) == offsetof(struct b, fb) &&     \
			       sizeof(((struct a *)0)->fa) ==                  \
				       sizeof(((struct b *)0)->fb),            \
		       #a "." #fa " vs " #b "." #fb)
#define SAME_SIZE(a, b)                                                        \
	_Static_assert(sizeof(struct a) == sizeof(struct b), #a " vs " #b)
#define SAME_VAL(a, b)                                                         \
	_Static_assert((long long)(a) == (long long)(b), #a " vs " #b)

SAME_SIZE(m5_ctrl_seg, mlx5_wqe_ctrl_seg);
SAME_OFF(m5_ctrl_seg, opmod_idx_opcode, mlx5_wqe_ctrl_seg, opmod_idx_opcode);
SAME_OFF(m5_ctrl_seg, qpn_ds, mlx5_wqe_ctrl_seg, qpn_ds);
SAME_OFF(m5_ctrl_seg, signature, mlx5_wqe_ctrl_seg, signature);
SAME_OFF(m5_ctrl_seg, rsvd, mlx5_wqe_ctrl_seg, dci_stream_channel_id);
SAME_OFF(m5_ctrl_seg, fm_ce_se, mlx5_wqe_ctrl_seg, fm_ce_se);
SAME_OFF(m5_ctrl_seg, imm, mlx5_wqe_ctrl_seg, imm);
SAME_SIZE(m5_raddr_seg, mlx5_wqe_raddr_seg);
SAME_OFF(m5_raddr_seg, raddr, mlx5_wqe_raddr_seg, raddr);
SAME_OFF(m5_raddr_seg, rkey, mlx5_wqe_raddr_seg, rkey);
SAME_OFF(m5_raddr_seg, reserved, mlx5_wqe_raddr_seg, reserved);
SAME_SIZE(m5_atomic_seg, mlx5_wqe_atomic_seg);
SAME_OFF(m5_atomic_seg, swap_add, mlx5_wqe_atomic_seg, swap_add);
SAME_OFF(m5_atomic_seg, compare, mlx5_wqe_atomic_seg, compare);
SAME_SIZE(m5_data_seg, mlx5_wqe_data_seg);
SAME_OFF(m5_data_seg, byte_count, mlx5_wqe_data_seg, byte_count);
SAME_OFF(m5_data_seg, lkey, mlx5_wqe_data_seg, lkey);
SAME_OFF(m5_data_seg, addr, mlx5_wqe_data_seg, addr);
SAME_SIZE(m5_inline_seg, mlx5_wqe_inl_data_seg);
SAME_OFF(m5_inline_seg, byte_count, mlx5_wqe_inl_data_seg, byte_count);
SAME_SIZE(m5_av, mlx5_wqe_av);
SAME_SIZE(m5_av, mlx5_wqe_datagram_seg);
SAME_OFF(m5_av, key, mlx5_wqe_av, key);
SAME_OFF(m5_av, key.qkey.qkey, mlx5_wqe_av, key.qkey.qkey);
SAME_OFF(m5_av, key.qkey.reserved, mlx5_wqe_av, key.qkey.reserved);
SAME_OFF(m5_av, key.dc_key, mlx5_wqe_av, key.dc_key);
SAME_OFF(m5_av, dqp_dct, mlx5_wqe_av, dqp_dct);
SAME_OFF(m5_av, stat_rate_sl, mlx5_wqe_av, stat_rate_sl);
SAME_OFF(m5_av, fl_mlid, mlx5_wqe_av, fl_mlid);
SAME_OFF(m5_av, rlid, mlx5_wqe_av, rlid);
SAME_OFF(m5_av, reserved0, mlx5_wqe_av, reserved0);
SAME_OFF(m5_av, rmac, mlx5_wqe_av, rmac);
SAME_OFF(m5_av, tclass, mlx5_wqe_av, tclass);
SAME_OFF(m5_av, hop_limit, mlx5_wqe_av, hop_limit);
SAME_OFF(m5_av, grh_gid_fl, mlx5_wqe_av, grh_gid_fl);
SAME_OFF(m5_av, rgid, mlx5_wqe_av, rgid);
SAME_SIZE(m5_srq_next_seg, mlx5_wqe_srq_next_seg);
SAME_OFF(m5_srq_next_seg, rsvd0, mlx5_wqe_srq_next_seg, rsvd0);
SAME_OFF(m5_srq_next_seg, next_wqe_index, mlx5_wqe_srq_next_seg,
	 next_wqe_index);
SAME_OFF(m5_srq_next_seg, signature, mlx5_wqe_srq_next_seg, signature);
SAME_OFF(m5_srq_next_seg, rsvd1, mlx5_wqe_srq_next_seg, rsvd1);
SAME_SIZE(m5_cqe64, mlx5_cqe64);
SAME_OFF(m5_cqe64, rsvd0, mlx5_cqe64, rsvd0);
SAME_OFF(m5_cqe64, wqe_id, mlx5_cqe64, wqe_id);
SAME_OFF(m5_cqe64, rsvd4, mlx5_cqe64, rsvd4);
SAME_OFF(m5_cqe64, ml_path, mlx5_cqe64, ml_path);
SAME_OFF(m5_cqe64, rsvd20, mlx5_cqe64, rsvd20);
SAME_OFF(m5_cqe64, slid, mlx5_cqe64, slid);
SAME_OFF(m5_cqe64, flags_rqpn, mlx5_cqe64, flags_rqpn);
SAME_OFF(m5_cqe64, hds_ip_ext, mlx5_cqe64, hds_ip_ext);
SAME_OFF(m5_cqe64, l4_hdr_type_etc, mlx5_cqe64, l4_hdr_type_etc);
SAME_OFF(m5_cqe64, vlan_info, mlx5_cqe64, vlan_info);
SAME_OFF(m5_cqe64, srqn_uidx, mlx5_cqe64, srqn_uidx);
SAME_OFF(m5_cqe64, imm_inval_pkey, mlx5_cqe64, imm_inval_pkey);
SAME_OFF(m5_cqe64, app, mlx5_cqe64, app);
SAME_OFF(m5_cqe64, app_op, mlx5_cqe64, app_op);
SAME_OFF(m5_cqe64, app_info, mlx5_cqe64, app_info);
SAME_OFF(m5_cqe64, byte_cnt, mlx5_cqe64, byte_cnt);
SAME_OFF(m5_cqe64, timestamp, mlx5_cqe64, timestamp);
SAME_OFF(m5_cqe64, sop_drop_qpn, mlx5_cqe64, sop_drop_qpn);
SAME_OFF(m5_cqe64, wqe_counter, mlx5_cqe64, wqe_counter);
SAME_OFF(m5_cqe64, signature, mlx5_cqe64, signature);
SAME_OFF(m5_cqe64, op_own, mlx5_cqe64, op_own);
SAME_SIZE(m5_err_cqe, mlx5_err_cqe);
SAME_OFF(m5_err_cqe, rsvd0, mlx5_err_cqe, rsvd0);
SAME_OFF(m5_err_cqe, srqn, mlx5_err_cqe, srqn);
SAME_OFF(m5_err_cqe, rsvd1, mlx5_err_cqe, rsvd1);
SAME_OFF(m5_err_cqe, vendor_err_synd, mlx5_err_cqe, vendor_err_synd);
SAME_OFF(m5_err_cqe, syndrome, mlx5_err_cqe, syndrome);
SAME_OFF(m5_err_cqe, s_wqe_opcode_qpn, mlx5_err_cqe, s_wqe_opcode_qpn);
SAME_OFF(m5_err_cqe, wqe_counter, mlx5_err_cqe, wqe_counter);
SAME_OFF(m5_err_cqe, signature, mlx5_err_cqe, signature);
SAME_OFF(m5_err_cqe, op_own, mlx5_err_cqe, op_own);

SAME_VAL(M5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
SAME_VAL(M5_SEND_WQE_SHIFT, MLX5_SEND_WQE_SHIFT);
SAME_VAL(M5_DS_UNIT, sizeof(struct mlx5_wqe_data_seg));
SAME_VAL(M5_OPCODE_NOP, MLX5_OPCODE_NOP);
SAME_VAL(M5_OPCODE_SEND_INVAL, MLX5_OPCODE_SEND_INVAL);
SAME_VAL(M5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE);
SAME_VAL(M5_OPCODE_RDMA_WRITE_IMM, MLX5_OPCODE_RDMA_WRITE_IMM);
SAME_VAL(M5_OPCODE_SEND, MLX5_OPCODE_SEND);
SAME_VAL(M5_OPCODE_SEND_IMM, MLX5_OPCODE_SEND_IMM);
SAME_VAL(M5_OPCODE_RDMA_READ, MLX5_OPCODE_RDMA_READ);
SAME_VAL(M5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_CS);
SAME_VAL(M5_OPCODE_ATOMIC_FA, MLX5_OPCODE_ATOMIC_FA);
SAME_VAL(M5_WQE_CTRL_SOLICITED, MLX5_WQE_CTRL_SOLICITED);
SAME_VAL(M5_WQE_CTRL_CQ_UPDATE, MLX5_WQE_CTRL_CQ_UPDATE);
SAME_VAL(M5_WQE_CTRL_INITIATOR_SMALL_FENCE,
	 MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
SAME_VAL(M5_WQE_CTRL_FENCE, MLX5_WQE_CTRL_FENCE);
SAME_VAL(M5_INLINE_SEG, MLX5_INLINE_SEG);
SAME_VAL(M5_INVALID_LKEY, MLX5_INVALID_LKEY);
SAME_VAL(M5_EXTENDED_UD_AV, MLX5_EXTENDED_UD_AV);
SAME_VAL(M5_CQE_REQ, MLX5_CQE_REQ);
SAME_VAL(M5_CQE_RESP_WR_IMM, MLX5_CQE_RESP_WR_IMM);
SAME_VAL(M5_CQE_RESP_SEND, MLX5_CQE_RESP_SEND);
SAME_VAL(M5_CQE_RESP_SEND_IMM, MLX5_CQE_RESP_SEND_IMM);
SAME_VAL(M5_CQE_RESP_SEND_INV, MLX5_CQE_RESP_SEND_INV);
SAME_VAL(M5_CQE_RESIZE_CQ, MLX5_CQE_RESIZE_CQ);
SAME_VAL(M5_CQE_NO_PACKET, MLX5_CQE_NO_PACKET);
SAME_VAL(M5_CQE_SIG_ERR, MLX5_CQE_SIG_ERR);
SAME_VAL(M5_CQE_REQ_ERR, MLX5_CQE_REQ_ERR);
SAME_VAL(M5_CQE_RESP_ERR, MLX5_CQE_RESP_ERR);
SAME_VAL(M5_CQE_INVALID, MLX5_CQE_INVALID);
SAME_VAL(M5_SYND_LOCAL_LENGTH_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
SAME_VAL(M5_SYND_LOCAL_QP_OP_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
SAME_VAL(M5_SYND_LOCAL_PROT_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
SAME_VAL(M5_SYND_WR_FLUSH_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
SAME_VAL(M5_SYND_MW_BIND_ERR, MLX5_CQE_SYNDROME_MW_BIND_ERR);
SAME_VAL(M5_SYND_BAD_RESP_ERR, MLX5_CQE_SYNDROME_BAD_RESP_ERR);
SAME_VAL(M5_SYND_LOCAL_ACCESS_ERR, MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR);
SAME_VAL(M5_SYND_REMOTE_INVAL_REQ_ERR, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
SAME_VAL(M5_SYND_REMOTE_ACCESS_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
SAME_VAL(M5_SYND_REMOTE_OP_ERR, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
SAME_VAL(M5_SYND_TRANSPORT_RETRY_EXC_ERR,
	 MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
SAME_VAL(M5_SYND_RNR_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
SAME_VAL(M5_SYND_REMOTE_ABORTED_ERR, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);
SAME_VAL(M5_CQE_OWNER_MASK, MLX5_CQE_OWNER_MASK);
SAME_VAL(M5_RCV_DBR, MLX5_RCV_DBR);
SAME_VAL(M5_SND_DBR, MLX5_SND_DBR);
SAME_VAL(M5_CQ_DB_REQ_NOT_SOL, MLX5_CQ_DB_REQ_NOT_SOL);
SAME_VAL(M5_CQ_DB_REQ_NOT, MLX5_CQ_DB_REQ_NOT);
SAME_VAL(M5_CQ_DOORBELL, MLX5_CQ_DOORBELL);

/*
 * What mlx5dv.h gives as accessors, not constants: the op_own byte.  Every
 * value of it must read the same through the M5_CQE_* masks and shifts as
 * through mlx5dv_get_cqe_owner/_se/_format/_opcode and mlx5dv_set_cqe_owner.
 * (m5_eqe, the M5_UAR and M5_BF offsets and the mmap commands have no
 * mlx5dv.h counterpart; the last come from <rdma/mlx5-abi.h> itself.)
 */
static void layouts_and_constants_match_mlx5dv(void)
{
	struct mlx5_cqe64 cqe;
	unsigned int v, bad = 0;

	for (v = 0; v < 256; v++) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.op_own = (uint8_t)v;
		bad += mlx5dv_get_cqe_owner(&cqe) != (v & M5_CQE_OWNER_MASK);
		bad += mlx5dv_get_cqe_se(&cqe) != !!(v & M5_CQE_SE_MASK);
		bad += mlx5dv_get_cqe_format(&cqe) !=
		       (v & M5_CQE_FORMAT_MASK) >> M5_CQE_FORMAT_SHIFT;
		bad += mlx5dv_get_cqe_opcode(&cqe) != v >> M5_CQE_OPCODE_SHIFT;
		mlx5dv_set_cqe_owner(&cqe, 1);
		bad += cqe.op_own != (v | M5_CQE_OWNER_MASK);
		mlx5dv_set_cqe_owner(&cqe, 0);
		bad += cqe.op_own != (v & ~M5_CQE_OWNER_MASK);
	}
	CHECK_EQ(bad, 0);
	cqe.op_own = M5_CQE_OP_OWN_INIT;
	CHECK_EQ(mlx5dv_get_cqe_opcode(&cqe), MLX5_CQE_INVALID);
	CHECK_EQ(mlx5dv_get_cqe_owner(&cqe), 0);
	/* The 6-bit ds and the 24-bit QPN of a control segment. */
	{
		struct mlx5_wqe_ctrl_seg c;

		mlx5dv_set_ctrl_seg(&c, 0xffff, 0xff, 0, 0xffffff, 0, M5_MAX_DS,
				    0, 0);
		CHECK_EQ(be32toh(c.qpn_ds) & 0x3f, M5_MAX_DS);
		CHECK_EQ(be32toh(c.opmod_idx_opcode) >> 8 & 0xffff, 0xffff);
	}
	if (!m5t_ref_have_x86())
		printf("    (no SSSE3: the mlx5dv_x86_* forms are not "
		       "compared)\n");
}

/* --- A pair of QPs on a model device -------------------------------------- */

#define BUF	 (256 * 1024)
#define A_SRC	 0	      /* sources */
#define A_READ	 (64 * 1024)  /* RDMA READ destinations */
#define A_ATOMIC (128 * 1024) /* atomic results */
#define B_RECV	 0	      /* receive buffers */
#define B_RDMA	 (64 * 1024)  /* RDMA WRITE/READ target */
#define B_ATOMIC (128 * 1024) /* atomic targets */
#define QKEY	 0x11110000u
#define RECV_TAG (1ull << 40)
#define MAX_AHS	 8
#define SRQ_FIFO 512

struct xc_opts {
	enum ibv_qp_type type;
	struct ibv_qp_cap cap;
	bool sig_all;
	bool eth;
	bool roce_v1;
	bool srq;
	bool channel;
	bool no_atomic;
	int cqe; /* CQ size; 0: 256 */
};

struct xc {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
	struct ibv_cq *acq, *bcq;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	struct ibv_qp_cap cap;	/* a's, as created */
	struct ibv_qp_cap bcap; /* b's (or the SRQ's sge) */
	struct m5t_sq sq;
	struct m5t_rq rq;
	struct m5t_srq ssrq;
	uint16_t srq_idx[SRQ_FIFO];
	unsigned int srq_in, srq_out;
	struct m5t_ah_info ahs[MAX_AHS];
	unsigned int nahs;
	uint64_t bytes;
	bool eth, v1;
};

static struct ibv_qp *xc_qp(struct xc *x, struct ibv_cq *cq,
			    const struct xc_opts *o, bool recv_side,
			    struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = o->type,
		.cap = o->cap,
		.sq_sig_all = o->sig_all,
	};
	struct ibv_qp *qp;

	if (recv_side && x->srq) {
		qa.srq = x->srq;
		qa.cap.max_recv_wr = qa.cap.max_recv_sge = 0;
	}
	qp = ibv_create_qp(x->pd, &qa);
	*cap = qa.cap;
	return qp;
}

static int xc_open(struct xc *x, const struct xc_opts *o)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct m5m_config cfg;
	unsigned int i;

	memset(x, 0, sizeof(*x));
	m5m_config_default(&cfg);
	if (o->eth) {
		cfg.link_layer = IBV_LINK_LAYER_ETHERNET;
		cfg.roce_v1 = o->roce_v1;
	}
	cfg.atomic = !o->no_atomic;
	x->eth = o->eth;
	x->v1 = o->roce_v1;
	x->dev = m5m_dev_create(&cfg);
	x->ctx = x->dev ? m5m_open(x->dev) : NULL;
	if (!x->ctx)
		return -1;
	x->pd = ibv_alloc_pd(x->ctx);
	if (o->channel)
		x->ch = m5m_create_comp_channel(x->dev, x->ctx);
	x->abuf = aligned_alloc(4096, BUF);
	x->bbuf = aligned_alloc(4096, BUF);
	if (!x->pd || (o->channel && !x->ch) || !x->abuf || !x->bbuf)
		return -1;
	for (i = 0; i < BUF; i++) {
		x->abuf[i] = (uint8_t)(i * 7 + (i >> 9));
		x->bbuf[i] = (uint8_t)(i * 13 + 5 + (i >> 11));
	}
	x->amr = ibv_reg_mr(x->pd, x->abuf, BUF, access);
	x->bmr = ibv_reg_mr(x->pd, x->bbuf, BUF, access);
	x->acq = ibv_create_cq(x->ctx, o->cqe ? o->cqe : 256, NULL, x->ch, 0);
	x->bcq = ibv_create_cq(x->ctx, o->cqe ? o->cqe : 256, NULL, x->ch, 0);
	if (!x->amr || !x->bmr || !x->acq || !x->bcq)
		return -1;
	if (o->srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = o->cap.max_recv_wr,
				  .max_sge = o->cap.max_recv_sge },
		};

		x->srq = ibv_create_srq(x->pd, &sa);
		if (!x->srq || m5t_srq_init(&x->ssrq, x->srq, sa.attr.max_sge))
			return -1;
		x->bcap.max_recv_wr = sa.attr.max_wr;
	}
	x->a = xc_qp(x, x->acq, o, false, &x->cap);
	x->b = xc_qp(x, x->bcq, o, true,
		     x->srq ? &(struct ibv_qp_cap){} : &x->bcap);
	if (!x->a || !x->b)
		return -1;
	if (o->srq)
		x->bcap.max_recv_sge = x->ssrq.max_gs;
	if (o->type == IBV_QPT_RC) {
		if (m5t_rc_pair(x->dev, x->a, x->b, 7))
			return -1;
	} else if (m5t_ud_up(x->a, QKEY) || m5t_ud_up(x->b, QKEY)) {
		return -1;
	}
	m5t_sq_init(&x->sq, x->a, o->sig_all, x->ahs, 0);
	m5t_rq_init(&x->rq, x->b, x->bcap.max_recv_sge);
	return 0;
}

static void xc_close(struct xc *x)
{
	unsigned int i;

	if (x->a)
		CHECK_EQ(ibv_destroy_qp(x->a), 0);
	if (x->b)
		CHECK_EQ(ibv_destroy_qp(x->b), 0);
	if (x->srq)
		CHECK_EQ(ibv_destroy_srq(x->srq), 0);
	m5t_srq_fini(&x->ssrq);
	for (i = 0; i < x->nahs; i++)
		CHECK_EQ(ibv_destroy_ah(x->ahs[i].ah), 0);
	if (x->acq)
		CHECK_EQ(ibv_destroy_cq(x->acq), 0);
	if (x->bcq)
		CHECK_EQ(ibv_destroy_cq(x->bcq), 0);
	if (x->amr)
		CHECK_EQ(ibv_dereg_mr(x->amr), 0);
	if (x->bmr)
		CHECK_EQ(ibv_dereg_mr(x->bmr), 0);
	if (x->ch)
		CHECK_EQ(m5m_destroy_comp_channel(x->dev, x->ch), 0);
	if (x->pd)
		CHECK_EQ(ibv_dealloc_pd(x->pd), 0);
	m5t_dev_close(x->dev, x->ctx);
	free(x->abuf);
	free(x->bbuf);
}

/* An AH the reference knows the AV of (sport: RoCE v2, flow label 0). */
static struct ibv_ah *xc_ah(struct xc *x, struct ibv_ah_attr *attr)
{
	struct m5t_ah_info *h = &x->ahs[x->nahs];
	enum ibv_gid_type type = !x->eth ? IBV_GID_TYPE_IB
				 : x->v1 ? IBV_GID_TYPE_ROCE_V1
					 : IBV_GID_TYPE_ROCE_V2;
	union ibv_gid port;
	uint8_t dmac[6];
	uint16_t sport = 0;

	if (x->nahs == MAX_AHS)
		return NULL;
	h->ah = ibv_create_ah(x->pd, attr);
	CHECK(h->ah);
	if (!h->ah)
		return NULL;
	/*
	 * The fake kernel answers create_ah with the port's MAC for the
	 * port's own GID, else the MAC inside a link-local GID (EUI-64).
	 */
	m5m_port_gid(x->dev, 1, &port);
	if (!memcmp(&port, &attr->grh.dgid, sizeof(port))) {
		memcpy(dmac, x->dev->mac, 6);
	} else {
		const uint8_t *g = attr->grh.dgid.raw;

		dmac[0] = g[8] ^ 2;
		memcpy(dmac + 1, g + 9, 2);
		memcpy(dmac + 3, g + 13, 3);
	}
	if (type == IBV_GID_TYPE_ROCE_V2) {
		if (attr->grh.flow_label & 0xfffff) {
			sport = m5t_ref_sport(attr->grh.flow_label);
		} else {
			/* Any port of the RoCE range: take the AH's. */
			sport = be16toh(to_m5_ah(h->ah)->av.rlid);
			CHECK(sport >= 0xc000);
		}
	}
	m5t_ref_av(&h->av, attr, x->eth, type, dmac, sport);
	x->nahs++;
	x->sq.info.nahs = x->nahs;
	return h->ah;
}

static void xc_post(struct xc *x, struct ibv_send_wr *wr, int ret,
		    unsigned int n_ok)
{
	CHECK(m5t_sq_post(&x->sq, wr, ret, n_ok, &x->bytes));
}

/* Post receives (all taken unless ret says otherwise). */
static void xc_recv_list(struct xc *x, struct ibv_recv_wr *wr, int ret,
			 unsigned int n_ok)
{
	uint16_t idx[64];
	unsigned int i;

	if (!x->srq) {
		CHECK(m5t_rq_post(&x->rq, wr, ret, n_ok, &x->bytes));
		return;
	}
	CHECK(n_ok <= 64);
	CHECK(m5t_srq_post(&x->ssrq, wr, ret, n_ok, idx, &x->bytes));
	for (i = 0; i < n_ok && i < 64; i++)
		x->srq_idx[x->srq_in++ % SRQ_FIFO] = idx[i];
}

static void xc_recv(struct xc *x, uint64_t id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)x->bbuf + off, len, x->bmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	xc_recv_list(x, &wr, 0, 1);
}

/* The next completion on cq, cross-checked with its CQE, is this one. */
static bool xc_wc(struct xc *x, struct ibv_cq *cq, uint64_t id,
		  enum ibv_wc_opcode op, struct ibv_wc *wc,
		  struct m5t_cqe_seen *seen)
{
	struct m5t_cqe_seen s;
	int n;

	n = m5t_cqe_poll(cq, wc, &s);
	CHECK_EQ(n, 1);
	if (n != 1)
		return false;
	CHECK_EQ(wc->wr_id, id);
	CHECK_EQ(wc->status, IBV_WC_SUCCESS);
	CHECK_EQ(wc->opcode, op);
	/* SRQ receives: the CQE names the WQE the free list gave. */
	if (cq == x->bcq && x->srq && (wc->opcode & IBV_WC_RECV)) {
		uint16_t idx = x->srq_idx[x->srq_out++ % SRQ_FIFO];

		CHECK_EQ(s.wqe_counter, idx);
		m5t_srq_done(&x->ssrq, idx);
	}
	if (seen)
		*seen = s;
	return true;
}

static void xc_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	CHECK_EQ(m5t_cqe_poll(cq, &wc, NULL), 0);
}

static struct ibv_send_wr xc_wr(struct xc *x, enum ibv_wr_opcode op,
				uint64_t id, struct ibv_sge *sg, int n,
				unsigned int flags)
{
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = sg,
		.num_sge = n,
		.opcode = op,
		.send_flags = flags,
		/* Ignored unless the opcode carries immediate data. */
		.imm_data = htobe32(0xa5000000u | (uint32_t)id),
	};

	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wr.wr.rdma.remote_addr =
			(uintptr_t)x->bbuf + B_RDMA + (id * 136) % 32768;
		wr.wr.rdma.rkey = x->bmr->rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr.wr.atomic.remote_addr =
			(uintptr_t)x->bbuf + B_ATOMIC + 8 * (id % 512);
		wr.wr.atomic.rkey = x->bmr->rkey;
		wr.wr.atomic.compare_add = 0x0102030405060708ull * (id | 1);
		wr.wr.atomic.swap = ~wr.wr.atomic.compare_add;
		break;
	default:
		break;
	}
	if (x->a->qp_type == IBV_QPT_UD) {
		wr.wr.ud.ah = x->nahs ? x->ahs[0].ah : NULL;
		wr.wr.ud.remote_qpn = x->b->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
	}
	return wr;
}

/* n SGEs over A's source area with these lengths (from off). */
static void xc_sges(struct xc *x, struct ibv_sge *sg, const uint32_t *len,
		    int n, uint32_t off)
{
	int i;

	for (i = 0; i < n; i++) {
		sg[i] = (struct ibv_sge){ (uintptr_t)x->abuf + A_SRC + off,
					  len[i], x->amr->lkey };
		off += len[i] + 24;
	}
}

/* The bytes an SGE list gathers. */
static uint32_t xc_gather(const struct ibv_send_wr *wr, uint8_t *out)
{
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		memcpy(out + len, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	return len;
}

static bool xc_signaled(const struct xc *x, const struct ibv_send_wr *wr)
{
	return x->sq.info.sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
}

/*
 * A SEND or SEND_WITH_IMM (any SGEs, inline or not) from a to b: a
 * receive first, the WQE cross-checked, then both completions and the
 * bytes delivered.
 */
static void xc_send_msg(struct xc *x, struct ibv_send_wr *wr)
{
	static uint8_t exp[65536];
	uint32_t hdr = x->a->qp_type == IBV_QPT_UD ? 40 : 0, len;
	uint8_t *dst = x->bbuf + B_RECV;
	struct m5t_cqe_seen seen;
	struct ibv_wc wc;

	len = xc_gather(wr, exp);
	memset(dst, 0xee, len + hdr + 64);
	xc_recv(x, wr->wr_id | RECV_TAG, B_RECV, len + hdr + 16);
	xc_post(x, wr, 0, 1);
	if (xc_signaled(x, wr))
		xc_wc(x, x->acq, wr->wr_id, IBV_WC_SEND, &wc, NULL);
	if (!xc_wc(x, x->bcq, wr->wr_id | RECV_TAG, IBV_WC_RECV, &wc, &seen))
		return;
	CHECK_EQ(wc.byte_len, len + hdr);
	CHECK_EQ(wc.src_qp, x->a->qp_num);
	CHECK_EQ(wc.qp_num, x->b->qp_num);
	CHECK_EQ(seen.se, !!(wr->send_flags & IBV_SEND_SOLICITED));
	CHECK_EQ(!!(wc.wc_flags & IBV_WC_WITH_IMM),
		 wr->opcode == IBV_WR_SEND_WITH_IMM);
	if (wr->opcode == IBV_WR_SEND_WITH_IMM)
		CHECK_EQ(wc.imm_data, wr->imm_data);
	CHECK(!memcmp(dst + hdr, exp, len));
	CHECK_EQ(dst[hdr + len], 0xee);
}

/* An RDMA WRITE (with or without immediate) and its effect. */
static void xc_write(struct xc *x, struct ibv_send_wr *wr)
{
	static uint8_t exp[65536];
	uint8_t *dst = (uint8_t *)(uintptr_t)wr->wr.rdma.remote_addr;
	bool imm = wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	uint32_t len = xc_gather(wr, exp);
	struct ibv_wc wc;

	memset(dst, 0xdd, len + 8);
	if (imm)
		xc_recv(x, wr->wr_id | RECV_TAG, B_RECV, 16);
	xc_post(x, wr, 0, 1);
	if (xc_signaled(x, wr))
		xc_wc(x, x->acq, wr->wr_id, IBV_WC_RDMA_WRITE, &wc, NULL);
	if (imm && xc_wc(x, x->bcq, wr->wr_id | RECV_TAG,
			 IBV_WC_RECV_RDMA_WITH_IMM, &wc, NULL)) {
		CHECK_EQ(wc.byte_len, len);
		CHECK_EQ(wc.imm_data, wr->imm_data);
	}
	CHECK(!memcmp(dst, exp, len));
	CHECK_EQ(dst[len], 0xdd);
}

/* An RDMA READ into the WR's SGEs and its effect. */
static void xc_read(struct xc *x, struct ibv_send_wr *wr)
{
	const uint8_t *src = (uint8_t *)(uintptr_t)wr->wr.rdma.remote_addr;
	uint32_t off = 0;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		memset((void *)(uintptr_t)wr->sg_list[i].addr, 0xcc,
		       wr->sg_list[i].length);
	xc_post(x, wr, 0, 1);
	if (xc_signaled(x, wr) &&
	    xc_wc(x, x->acq, wr->wr_id, IBV_WC_RDMA_READ, &wc, NULL)) {
		for (i = 0; i < wr->num_sge; i++)
			off += wr->sg_list[i].length;
		CHECK_EQ(wc.byte_len, off);
	}
	for (off = 0, i = 0; i < wr->num_sge; i++) {
		CHECK(!memcmp((void *)(uintptr_t)wr->sg_list[i].addr, src + off,
			      wr->sg_list[i].length));
		off += wr->sg_list[i].length;
	}
}

/* READ destinations: n SGEs in A's read area. */
static void xc_read_sges(struct xc *x, struct ibv_sge *sg, const uint32_t *len,
			 int n)
{
	uint32_t off = A_READ;
	int i;

	for (i = 0; i < n; i++) {
		sg[i] = (struct ibv_sge){ (uintptr_t)x->abuf + off, len[i],
					  x->amr->lkey };
		off += len[i] + 40;
	}
}

static void xc_atomic(struct xc *x, struct ibv_send_wr *wr)
{
	uint64_t *t = (uint64_t *)(uintptr_t)wr->wr.atomic.remote_addr;
	uint64_t *res = (uint64_t *)(uintptr_t)wr->sg_list[0].addr;
	bool cs = wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP;
	uint64_t old = *t, want;
	struct ibv_wc wc;

	want = cs ? (old == wr->wr.atomic.compare_add ? wr->wr.atomic.swap
						      : old)
		  : old + wr->wr.atomic.compare_add;
	*res = ~old;
	xc_post(x, wr, 0, 1);
	if (xc_signaled(x, wr) &&
	    xc_wc(x, x->acq, wr->wr_id,
		  cs ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, &wc, NULL))
		CHECK_EQ(wc.byte_len, 8);
	CHECK_EQ(*res, old);
	CHECK_EQ(*t, want);
}

/* Any supported WR, by opcode. */
static void xc_do(struct xc *x, struct ibv_send_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		xc_send_msg(x, wr);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		xc_write(x, wr);
		break;
	case IBV_WR_RDMA_READ:
		xc_read(x, wr);
		break;
	default:
		xc_atomic(x, wr);
		break;
	}
}

static const struct xc_opts rc_default = {
	.type = IBV_QPT_RC,
	.cap = { .max_send_wr = 16,
		 .max_recv_wr = 16,
		 .max_send_sge = 4,
		 .max_recv_sge = 4,
		 .max_inline_data = 64 },
};

static const enum ibv_wr_opcode rc_ops[] = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
};
#define NUM_RC_OPS (sizeof(rc_ops) / sizeof(rc_ops[0]))

/* Every opcode of RC, with one and with several SGEs. */
static void rc_wqes_of_every_opcode_match_mlx5dv(void)
{
	static const uint32_t lens[] = { 37, 91, 1, 200 };
	struct ibv_send_wr wr;
	struct ibv_sge sg[4];
	unsigned int i, n;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	for (i = 0; i < NUM_RC_OPS && !check_failed; i++)
		for (n = 1; n <= 4; n += 3) {
			bool atomic = rc_ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP ||
				      rc_ops[i] == IBV_WR_ATOMIC_FETCH_AND_ADD;

			if (rc_ops[i] == IBV_WR_RDMA_READ)
				xc_read_sges(&x, sg, lens, (int)n);
			else if (atomic)
				sg[0] = (struct ibv_sge){
					(uintptr_t)x.abuf + A_ATOMIC + 8 * n, 8,
					x.amr->lkey
				};
			else
				xc_sges(&x, sg, lens, (int)n, 8 * n);
			wr = xc_wr(&x, rc_ops[i], 16 * i + n, sg,
				   atomic ? 1 : (int)n, IBV_SEND_SIGNALED);
			xc_do(&x, &wr);
			/* A CAS that matches this time. */
			if (rc_ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP) {
				wr.wr.atomic.compare_add =
					*(uint64_t *)(uintptr_t)
						 wr.wr.atomic.remote_addr;
				wr.wr_id += 100;
				xc_do(&x, &wr);
			}
		}
	xc_empty(x.acq);
	xc_empty(x.bcq);
	xc_close(&x);
}

/* fm_ce_se: SIGNALED, SOLICITED, FENCE in every combination; sq_sig_all. */
static void fence_signaled_and_solicited_bits_match_mlx5dv(void)
{
	static const uint32_t len[] = { 24 };
	unsigned int f, flags, sig_all;
	struct ibv_send_wr wr;
	struct ibv_sge sg[1];
	struct xc_opts o = rc_default;
	struct xc x;

	for (sig_all = 0; sig_all < 2 && !check_failed; sig_all++) {
		o.sig_all = sig_all;
		CHECK_EQ(xc_open(&x, &o), 0);
		for (f = 0; f < 16 && !check_failed; f++) {
			flags = (f & 1 ? IBV_SEND_SIGNALED : 0) |
				(f & 2 ? IBV_SEND_SOLICITED : 0) |
				(f & 4 ? IBV_SEND_FENCE : 0) |
				(f & 8 ? IBV_SEND_INLINE : 0);
			xc_sges(&x, sg, len, 1, f);
			wr = xc_wr(&x,
				   f & 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				   f, sg, 1, flags);
			xc_send_msg(&x, &wr);
			/* The same flags on a WRITE (no receive to see SE). */
			wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 32 + f, sg, 1, flags);
			xc_write(&x, &wr);
		}
		/* Unsignaled WRs are retired by the next signaled one. */
		wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 99, sg, 1, IBV_SEND_SIGNALED);
		xc_write(&x, &wr);
		xc_empty(x.acq);
		xc_empty(x.bcq);
		CHECK_EQ(atomic_load(&to_m5_qp(x.a)->sq.tail),
			 to_m5_qp(x.a)->sq.head);
		xc_close(&x);
	}
}

/*
 * max_send_wr WRs of the largest kind the QP was sized for (max_send_sge
 * SGEs, or max_inline_data bytes inline) in one list: all must fit the SQ
 * without a WQE overwriting another.  RC writes; UD sends nobody takes.
 */
static void xc_fill_sq(struct xc *x, bool inl)
{
	static struct ibv_send_wr wr[64];
	static struct ibv_sge sg[64][8];
	uint32_t len[8], i, n = x->cap.max_send_wr, k;
	bool ud = x->a->qp_type == IBV_QPT_UD;

	CHECK(n <= 64 && x->cap.max_send_sge <= 8);
	if (n > 64 || x->cap.max_send_sge > 8)
		return;
	for (k = 0; k < 8; k++)
		len[k] = inl ? 0 : 8 + k;
	if (inl)
		len[0] = x->cap.max_inline_data;
	for (i = 0; i < n; i++) {
		xc_sges(x, sg[i], len, inl ? 1 : (int)x->cap.max_send_sge, i);
		wr[i] = xc_wr(x, ud ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, 300 + i,
			      sg[i], inl ? 1 : (int)x->cap.max_send_sge,
			      (inl ? IBV_SEND_INLINE : 0) |
				      (i + 1 == n ? IBV_SEND_SIGNALED : 0));
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	xc_post(x, wr, 0, n);
	xc_wc(x, x->acq, 300 + n - 1, ud ? IBV_WC_SEND : IBV_WC_RDMA_WRITE,
	      &(struct ibv_wc){ 0 }, NULL);
}

/* 0..max SGEs, zero-length ones anywhere (skipped), max + 1 refused. */
static void wqes_of_0_to_max_sges_match_mlx5dv(void)
{
	static const uint32_t pat[4][8] = {
		{ 17, 33, 1, 64, 100, 7, 250, 3 },
		{ 0, 40, 0, 8, 0, 16, 0, 1 },
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 9, 0, 0, 0, 0, 0, 0, 5 },
	};
	struct xc_opts o = rc_default;
	struct ibv_send_wr wr;
	struct ibv_sge sg[9];
	unsigned int t, p, n, max;
	struct xc x;

	o.cap.max_send_sge = 8;
	o.cap.max_inline_data = 0;
	for (t = 0; t < 2 && !check_failed; t++) {
		o.type = t ? IBV_QPT_UD : IBV_QPT_RC;
		CHECK_EQ(xc_open(&x, &o), 0);
		if (t)
			xc_ah(&x, &(struct ibv_ah_attr){
					  .dlid = m5m_port_lid(x.dev, 1),
					  .port_num = 1 });
		max = x.cap.max_send_sge;
		CHECK_EQ(max, 8);
		for (p = 0; p < 4 && !check_failed; p++)
			for (n = 0; n <= max && !check_failed; n++) {
				xc_sges(&x, sg, pat[p], (int)n, 0);
				wr = xc_wr(&x, IBV_WR_SEND, 100 * p + n, sg,
					   (int)n, IBV_SEND_SIGNALED);
				xc_send_msg(&x, &wr);
				if (t)
					continue;
				wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 100 * p + n,
					   sg, (int)n, IBV_SEND_SIGNALED);
				xc_write(&x, &wr);
				xc_read_sges(&x, sg, pat[p], (int)n);
				wr = xc_wr(&x, IBV_WR_RDMA_READ, 100 * p + n,
					   sg, (int)n, IBV_SEND_SIGNALED);
				xc_read(&x, &wr);
			}
		xc_fill_sq(&x, false);
		/* One SGE too many: refused (ENOMEM, as libmlx5), nothing
		 * written. */
		xc_sges(&x, sg, pat[0], 8, 0);
		sg[8] = sg[0];
		wr = xc_wr(&x, IBV_WR_SEND, 999, sg, (int)max + 1,
			   IBV_SEND_SIGNALED);
		xc_post(&x, &wr, ENOMEM, 0);
		xc_empty(x.acq);
		xc_empty(x.bcq);
		xc_close(&x);
	}
}

/* Inline payloads of 0, 1, max - 1 and max bytes; max + 1 refused. */
static void inline_wqes_up_to_max_inline_match_mlx5dv(void)
{
	static const enum ibv_wr_opcode ops[] = { IBV_WR_SEND,
						  IBV_WR_SEND_WITH_IMM,
						  IBV_WR_RDMA_WRITE,
						  IBV_WR_RDMA_WRITE_WITH_IMM };
	struct xc_opts o = rc_default;
	uint32_t sizes[5], lens[3];
	struct ibv_send_wr wr;
	struct ibv_sge sg[3];
	unsigned int t, i, s, split, max;
	struct xc x;

	o.cap.max_inline_data = 200;
	for (t = 0; t < 2 && !check_failed; t++) {
		o.type = t ? IBV_QPT_UD : IBV_QPT_RC;
		CHECK_EQ(xc_open(&x, &o), 0);
		if (t)
			xc_ah(&x, &(struct ibv_ah_attr){
					  .dlid = m5m_port_lid(x.dev, 1),
					  .port_num = 1 });
		max = x.cap.max_inline_data;
		CHECK(max >= 200);
		sizes[0] = 0;
		sizes[1] = 1;
		sizes[2] = max - 1;
		sizes[3] = max;
		sizes[4] = max + 1;
		for (i = 0; i < (t ? 2u : 4u) && !check_failed; i++)
			for (s = 0; s < 5; s++)
				for (split = 1; split <= 3; split += 2) {
					/* 3 SGEs: one of them empty. */
					lens[0] = sizes[s] / 3;
					lens[1] = 0;
					lens[2] = sizes[s] - lens[0];
					if (split == 1)
						lens[0] = sizes[s];
					xc_sges(&x, sg, lens, (int)split, 11);
					wr = xc_wr(&x, ops[i],
						   100 * i + 10 * s + split, sg,
						   (int)split,
						   IBV_SEND_SIGNALED |
							   IBV_SEND_INLINE);
					/* ENOMEM: libmlx5 v44's set_data_inl_seg. */
					if (s == 4)
						xc_post(&x, &wr, ENOMEM, 0);
					else
						xc_do(&x, &wr);
				}
		xc_fill_sq(&x, true);
		if (!t) {
			/* READ and atomics carry nothing out: not inline. */
			lens[0] = 8;
			xc_read_sges(&x, sg, lens, 1);
			wr = xc_wr(&x, IBV_WR_RDMA_READ, 1, sg, 1,
				   IBV_SEND_SIGNALED | IBV_SEND_INLINE);
			xc_post(&x, &wr, EINVAL, 0);
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = (uintptr_t)x.bbuf + B_ATOMIC;
			xc_post(&x, &wr, EINVAL, 0);
		}
		xc_empty(x.acq);
		xc_empty(x.bcq);
		xc_close(&x);
	}
}

/* Fill the SQ with one-WQEBB WRITEs until the next WQE goes at pos. */
static void xc_sq_seek(struct xc *x, unsigned int pos)
{
	static const uint32_t len[] = { 8 };
	uint32_t nbb = to_m5_qp(x->a)->sq.wqe_cnt;
	struct ibv_send_wr wr;
	struct ibv_sge sg;

	while ((x->sq.pi & (nbb - 1)) != pos && !check_failed) {
		xc_sges(x, &sg, len, 1, 0);
		if (x->a->qp_type == IBV_QPT_RC) {
			wr = xc_wr(x, IBV_WR_RDMA_WRITE, 7, &sg, 1,
				   IBV_SEND_SIGNALED);
			xc_write(x, &wr);
			continue;
		}
		/* UD: an empty SEND nobody receives (dropped). */
		wr = xc_wr(x, IBV_WR_SEND, 7, &sg, 0, IBV_SEND_SIGNALED);
		xc_post(x, &wr, 0, 1);
		xc_wc(x, x->acq, 7, IBV_WC_SEND, &(struct ibv_wc){ 0 }, NULL);
	}
}

/* WQEs of several WQEBBs at every position, across the end of the SQ. */
static void multi_wqebb_wqes_across_the_sq_end_match_mlx5dv(void)
{
	static const uint32_t lens[] = { 40, 0, 3, 77, 120, 9 };
	struct xc_opts o = rc_default;
	unsigned int t, pos, k, nbb, max;
	uint32_t inl[1];
	struct ibv_send_wr wr;
	struct ibv_sge sg[6];
	struct xc x;

	o.cap.max_send_wr = 4;
	o.cap.max_send_sge = 6;
	o.cap.max_inline_data = 120;
	for (t = 0; t < 2 && !check_failed; t++) {
		o.type = t ? IBV_QPT_UD : IBV_QPT_RC;
		CHECK_EQ(xc_open(&x, &o), 0);
		if (t) {
			struct ibv_ah_attr aa = { .is_global = 1,
						  .grh.hop_limit = 9,
						  .dlid = m5m_port_lid(x.dev,
								       1),
						  .port_num = 1 };

			m5m_port_gid(x.dev, 1, &aa.grh.dgid);
			xc_ah(&x, &aa);
		}
		nbb = to_m5_qp(x.a)->sq.wqe_cnt;
		max = x.cap.max_inline_data;
		CHECK(nbb >= 8);
		for (pos = 0; pos < nbb && !check_failed; pos++)
			for (k = 0; k < (t ? 2u : 5u) && !check_failed; k++) {
				xc_sq_seek(&x, pos);
				inl[0] = max - k;
				switch (k) {
				case 0: /* 6 SGEs (one empty) */
					xc_sges(&x, sg, lens, 6, pos);
					wr = xc_wr(&x, IBV_WR_SEND, pos, sg, 6,
						   IBV_SEND_SIGNALED);
					break;
				case 1: /* inline, wrapping mid-payload */
					xc_sges(&x, sg, inl, 1, pos);
					wr = xc_wr(&x, IBV_WR_SEND_WITH_IMM,
						   pos, sg, 1,
						   IBV_SEND_SIGNALED |
							   IBV_SEND_INLINE);
					break;
				case 2:
					xc_sges(&x, sg, lens, 6, pos);
					wr = xc_wr(&x, IBV_WR_RDMA_WRITE, pos,
						   sg, 6, IBV_SEND_SIGNALED);
					break;
				case 3:
					xc_sges(&x, sg, inl, 1, pos);
					wr = xc_wr(&x,
						   IBV_WR_RDMA_WRITE_WITH_IMM,
						   pos, sg, 1,
						   IBV_SEND_SIGNALED |
							   IBV_SEND_INLINE);
					break;
				default:
					xc_read_sges(&x, sg, lens, 6);
					wr = xc_wr(&x, IBV_WR_RDMA_READ, pos,
						   sg, 6, IBV_SEND_SIGNALED);
					break;
				}
				xc_do(&x, &wr);
			}
		xc_empty(x.acq);
		xc_empty(x.bcq);
		xc_close(&x);
	}
}

/*
 * The doorbell: the SND dbrec, then the last WQE's first 8 bytes at the
 * bfreg, or (one WQE that fits half the register, ds > 1) the whole WQE
 * by BlueFlame, the halves alternating.
 */
static void the_dbrec_and_blueflame_doorbell_match_mlx5dv(void)
{
	static const uint32_t inl[] = { 0, 8, 64, 128, 200, 240 };
	struct xc_opts o = rc_default;
	struct ibv_send_wr wr[2];
	struct m5m_stats st0, st1;
	struct ibv_sge sg[2];
	unsigned int i, n, last, nbb;
	struct m5_bf *bf;
	uint8_t wqe[1024];
	size_t len;
	uint8_t *reg;
	struct xc x;

	o.cap.max_inline_data = 240;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	bf = to_m5_qp(x.a)->bf;
	CHECK(bf->buf_size == 256 && bf->uuarn != 0);
	for (i = 0; i < 12 && !check_failed; i++) {
		unsigned int off = bf->offset;

		n = i < 6 ? 1 : 2;
		xc_sges(&x, &sg[0], &inl[i % 6], 1, 0);
		xc_sges(&x, &sg[1], &inl[i % 6], 1, 512);
		wr[0] = xc_wr(&x, IBV_WR_RDMA_WRITE, i, &sg[0], 1,
			      IBV_SEND_INLINE);
		wr[1] = xc_wr(&x, IBV_WR_RDMA_WRITE, i + 100, &sg[1], 1,
			      IBV_SEND_INLINE | IBV_SEND_SIGNALED);
		if (n == 1)
			wr[0].send_flags |= IBV_SEND_SIGNALED;
		else
			wr[0].next = &wr[1];
		m5m_get_stats(x.dev, &st0);
		reg = (uint8_t *)bf->reg + off;
		xc_post(&x, wr, 0, n);
		m5m_get_stats(x.dev, &st1);
		last = x.sq.nds - 1;
		len = x.sq.ds[last] * 16u;
		CHECK_EQ(st1.doorbells - st0.doorbells, 1);
		/* One WQE, ds > 1, in half the register: BlueFlame. */
		CHECK_EQ(st1.bf_doorbells - st0.bf_doorbells,
			 n == 1 && len > 16 && len <= bf->buf_size);
		CHECK_EQ(bf->offset, off ^ bf->buf_size);
		m5t_ring_get(wqe, to_m5_qp(x.a)->sq.buf,
			     (size_t)to_m5_qp(x.a)->sq.wqe_cnt * 64,
			     (size_t)(x.sq.wqe_pi[last] &
				      (to_m5_qp(x.a)->sq.wqe_cnt - 1)) *
				     64,
			     len);
		if (st1.bf_doorbells != st0.bf_doorbells)
			CHECK(m5t_ring_same("BlueFlame register", reg, wqe,
					    len));
		xc_wc(&x, x.acq, n == 1 ? i : i + 100, IBV_WC_RDMA_WRITE,
		      &(struct ibv_wc){ 0 }, NULL);
	}
	/* A BlueFlame WQE of 3 WQEBBs at every position: some wrap. */
	nbb = to_m5_qp(x.a)->sq.wqe_cnt;
	for (i = 0; i < nbb && !check_failed; i++) {
		static const uint32_t l100[] = { 100 };
		unsigned int off;

		xc_sq_seek(&x, i);
		off = bf->offset;
		xc_sges(&x, &sg[0], l100, 1, i);
		wr[0] = xc_wr(&x, IBV_WR_RDMA_WRITE, 200 + i, &sg[0], 1,
			      IBV_SEND_INLINE | IBV_SEND_SIGNALED);
		m5m_get_stats(x.dev, &st0);
		xc_post(&x, wr, 0, 1);
		m5m_get_stats(x.dev, &st1);
		CHECK_EQ(st1.bf_doorbells - st0.bf_doorbells, 1);
		CHECK_EQ(x.sq.ds[0], 9);
		m5t_ring_get(wqe, to_m5_qp(x.a)->sq.buf, (size_t)nbb * 64,
			     (size_t)(x.sq.wqe_pi[0] & (nbb - 1)) * 64, 144);
		CHECK(m5t_ring_same("BlueFlame register",
				    (uint8_t *)bf->reg + off, wqe, 144));
		xc_wc(&x, x.acq, 200 + i, IBV_WC_RDMA_WRITE,
		      &(struct ibv_wc){ 0 }, NULL);
	}
	xc_empty(x.acq);
out:
	xc_close(&x);
}

/* Receive WQEs: scatter lists, zero lengths skipped, the terminator. */
static void receive_wqes_match_mlx5dv(void)
{
	static const uint32_t pat[3][9] = {
		{ 16, 16, 16, 16, 16, 16, 16, 16, 16 },
		{ 0, 8, 0, 24, 0, 0, 40, 0, 8 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	};
	struct xc_opts o = rc_default;
	uint32_t len[1] = { 0 };
	struct ibv_recv_wr rw[4];
	struct ibv_send_wr wr;
	struct ibv_sge rs[4][9], sg;
	unsigned int s, p, n, k, max, total;
	struct xc x;

	o.cap.max_recv_sge = 5;
	o.cap.max_recv_wr = 4;
	for (s = 0; s < 2 && !check_failed; s++) {
		o.srq = s;
		CHECK_EQ(xc_open(&x, &o), 0);
		if (check_failed) {
			xc_close(&x);
			return;
		}
		max = x.bcap.max_recv_sge;
		CHECK(max >= 5);
		for (p = 0; p < 3 && !check_failed; p++)
			for (n = 0; n <= max && n <= 9 && !check_failed; n++) {
				for (k = total = 0; k < n; k++) {
					rs[0][k] = (struct ibv_sge){
						(uintptr_t)x.bbuf + B_RECV +
							64 * k,
						pat[p][k], x.bmr->lkey
					};
					total += pat[p][k];
				}
				rw[0] = (struct ibv_recv_wr){
					.wr_id = RECV_TAG | (16 * p + n),
					.sg_list = rs[0],
					.num_sge = (int)n,
				};
				xc_recv_list(&x, rw, 0, 1);
				/* The message fills the scatter list. */
				len[0] = total;
				xc_sges(&x, &sg, len, 1, 3 * n);
				wr = xc_wr(&x, IBV_WR_SEND, 16 * p + n, &sg, 1,
					   IBV_SEND_SIGNALED);
				xc_post(&x, &wr, 0, 1);
				xc_wc(&x, x.acq, wr.wr_id, IBV_WC_SEND,
				      &(struct ibv_wc){ 0 }, NULL);
				{
					struct ibv_wc wc;

					if (xc_wc(&x, x.bcq, rw[0].wr_id,
						  IBV_WC_RECV, &wc, NULL))
						CHECK_EQ(wc.byte_len, total);
				}
				for (k = total = 0; k < n; k++) {
					CHECK(!memcmp(
						(void *)(uintptr_t)rs[0][k]
							.addr,
						x.abuf + A_SRC + 3 * n + total,
						pat[p][k]));
					total += pat[p][k];
				}
			}
		/* A list whose third WR has one SGE too many. */
		for (k = 0; k < 3; k++) {
			rs[k][0] = (struct ibv_sge){ (uintptr_t)x.bbuf, 8,
						     x.bmr->lkey };
			rw[k] = (struct ibv_recv_wr){ .wr_id = RECV_TAG | k,
						      .sg_list = rs[k],
						      .num_sge = 1,
						      .next = &rw[k + 1] };
		}
		rw[2].num_sge = (int)max + 1;
		for (k = 1; k < 9; k++)
			rs[2][k] = rs[2][0];
		rw[2].next = NULL;
		xc_recv_list(&x, rw, EINVAL, 2);
		/* Fill to the top: the next one is refused with ENOMEM. */
		rw[0].next = NULL;
		for (k = 2; k < x.bcap.max_recv_wr; k++)
			xc_recv_list(&x, rw, 0, 1);
		xc_recv_list(&x, rw, ENOMEM, 0);
		xc_empty(x.bcq);
		xc_close(&x);
	}
}

/* Many receives through a small SRQ: the free list, WQE by WQE. */
static void srq_wqes_follow_the_free_list(void)
{
	static const uint32_t pat[] = { 0, 12, 0, 20, 4, 0 };
	struct xc_opts o = rc_default;
	struct ibv_recv_wr rw[3];
	struct ibv_sge rs[3][3], sg;
	struct ibv_send_wr wr;
	unsigned int i, k, n, p = 0;
	uint32_t len[1];
	struct xc x;

	o.srq = true;
	o.cap.max_recv_wr = 5;
	o.cap.max_recv_sge = 2;
	CHECK_EQ(xc_open(&x, &o), 0);
	for (i = 0; i < 60 && !check_failed; i++) {
		n = 1 + i % 3;
		for (k = 0; k < n; k++) {
			rs[k][0] =
				(struct ibv_sge){ (uintptr_t)x.bbuf + 256 * k,
						  pat[p++ % 6] + 1,
						  x.bmr->lkey };
			rs[k][1] =
				(struct ibv_sge){ (uintptr_t)x.bbuf + 256 * k +
							  64,
						  pat[p++ % 6], x.bmr->lkey };
			rw[k] = (struct ibv_recv_wr){
				.wr_id = RECV_TAG | (4 * i + k),
				.sg_list = rs[k],
				.num_sge = (int)(1 + (i + k) % 2),
				.next = k + 1 < n ? &rw[k + 1] : NULL,
			};
		}
		xc_recv_list(&x, rw, 0, n);
		for (k = 0; k < n; k++) {
			len[0] = 1;
			xc_sges(&x, &sg, len, 1, k);
			wr = xc_wr(&x, IBV_WR_SEND, 4 * i + k, &sg, 1,
				   IBV_SEND_SIGNALED);
			xc_post(&x, &wr, 0, 1);
			xc_wc(&x, x.acq, wr.wr_id, IBV_WC_SEND,
			      &(struct ibv_wc){ 0 }, NULL);
			xc_wc(&x, x.bcq, rw[k].wr_id, IBV_WC_RECV,
			      &(struct ibv_wc){ 0 }, NULL);
		}
	}
	/* The list holds max_wr: one more is refused. */
	rw[0].next = NULL;
	for (k = 0; k < x.bcap.max_recv_wr; k++)
		xc_recv_list(&x, rw, 0, 1);
	xc_recv_list(&x, rw, ENOMEM, 0);
	xc_close(&x);
}

/* Poll one SRQ receive of cq: the WQE the CQE names goes back on the list. */
static void xc_srq_wc(struct xc *x, struct ibv_cq *cq, uint64_t id,
		      uint16_t idx)
{
	struct m5t_cqe_seen seen;
	struct ibv_wc wc;

	CHECK_EQ(m5t_cqe_poll(cq, &wc, &seen), 1);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(seen.wqe_counter, idx);
	m5t_srq_done(&x->ssrq, idx);
}

/*
 * Two QPs on one SRQ with their own CQs, polled in turn: WQEs come back
 * out of order, and the next receives must follow the links as they are.
 */
static void srq_wqes_freed_out_of_order_are_reused_by_their_links(void)
{
	static const uint32_t one[] = { 4 };
	struct xc_opts o = rc_default;
	struct ibv_qp *a2 = NULL, *b2 = NULL;
	struct ibv_cq *b2cq = NULL;
	struct ibv_qp_cap cap;
	struct ibv_recv_wr rw[4];
	struct ibv_send_wr wr;
	struct ibv_sge rs[4], sg;
	struct m5t_sq sq2;
	uint16_t idx[4];
	unsigned int r, k;
	struct xc x;

	o.srq = true;
	o.cap.max_recv_wr = 6;
	o.cap.max_recv_sge = 1;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	b2cq = ibv_create_cq(x.ctx, 16, NULL, NULL, 0);
	b2 = b2cq ? xc_qp(&x, b2cq, &o, true, &cap) : NULL;
	a2 = xc_qp(&x, x.acq, &o, false, &cap);
	CHECK(b2 && a2);
	if (!b2 || !a2)
		goto out;
	CHECK_EQ(m5t_rc_pair(x.dev, a2, b2, 7), 0);
	m5t_sq_init(&sq2, a2, false, NULL, 0);
	xc_sges(&x, &sg, one, 1, 0);
	for (r = 0; r < 40 && !check_failed; r++) {
		for (k = 0; k < 4; k++) {
			rs[k] = (struct ibv_sge){ (uintptr_t)x.bbuf + 64 * k,
						  16 + k, x.bmr->lkey };
			rw[k] = (struct ibv_recv_wr){
				.wr_id = RECV_TAG | (4 * r + k),
				.sg_list = &rs[k],
				.num_sge = 1,
				.next = k < 3 ? &rw[k + 1] : NULL,
			};
		}
		xc_recv_list(&x, rw, 0, 4);
		/* They are taken in posting order: 0 and 2 by b, 1, 3 by b2. */
		for (k = 0; k < 4; k++) {
			idx[k] = x.srq_idx[x.srq_out++ % SRQ_FIFO];
			wr = xc_wr(&x, IBV_WR_SEND, 4 * r + k, &sg, 1,
				   IBV_SEND_SIGNALED);
			if (k % 2)
				CHECK(m5t_sq_post(&sq2, &wr, 0, 1, &x.bytes));
			else
				xc_post(&x, &wr, 0, 1);
			xc_wc(&x, x.acq, 4 * r + k, IBV_WC_SEND,
			      &(struct ibv_wc){ 0 }, NULL);
		}
		/* b's CQ first, then b2's; the other way round next time. */
		for (k = 0; k < 4; k++) {
			static const unsigned int order[2][4] = {
				{ 0, 2, 1, 3 },
				{ 1, 3, 0, 2 },
			};
			unsigned int q = order[r % 2][k];

			xc_srq_wc(&x, q % 2 ? b2cq : x.bcq,
				  RECV_TAG | (4 * r + q), idx[q]);
		}
	}
	xc_empty(x.bcq);
	xc_empty(b2cq);
out:
	if (a2)
		CHECK_EQ(ibv_destroy_qp(a2), 0);
	if (b2)
		CHECK_EQ(ibv_destroy_qp(b2), 0);
	if (b2cq)
		CHECK_EQ(ibv_destroy_cq(b2cq), 0);
	xc_close(&x);
}

/* UD over InfiniBand: AVs without and with a GRH. */
static void ud_wqes_over_ib_match_mlx5dv(void)
{
	static const uint32_t lens[] = { 60, 0, 40 };
	struct xc_opts o = rc_default;
	struct ibv_ah_attr aa[3];
	struct ibv_send_wr wr;
	struct ibv_sge sg[3];
	unsigned int i, k;
	struct xc x;

	o.type = IBV_QPT_UD;
	o.cap.max_send_sge = 3;
	o.cap.max_inline_data = 100;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	aa[0] = (struct ibv_ah_attr){ .dlid = m5m_port_lid(x.dev, 1),
				      .sl = 5,
				      .src_path_bits = 0x25,
				      .static_rate = IBV_RATE_40_GBPS,
				      .port_num = 1 };
	aa[1] = aa[0];
	aa[1].is_global = 1;
	aa[1].sl = 0xc;
	aa[1].static_rate = IBV_RATE_100_GBPS;
	aa[1].grh = (struct ibv_global_route){ .flow_label = 0x12345,
					       .hop_limit = 7,
					       .traffic_class = 0x5a };
	m5m_port_gid(x.dev, 1, &aa[1].grh.dgid);
	aa[2] = aa[1];
	aa[2].static_rate = IBV_RATE_600_GBPS;
	aa[2].src_path_bits = 0xff; /* 7 bits of it */
	for (i = 0; i < 3; i++)
		CHECK(xc_ah(&x, &aa[i]));
	for (i = 0; i < 12 && !check_failed; i++) {
		k = i % 3;
		xc_sges(&x, sg, lens, 3, i);
		wr = xc_wr(&x, i & 4 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, i,
			   sg, 3,
			   IBV_SEND_SIGNALED | (i & 8 ? IBV_SEND_INLINE : 0));
		wr.wr.ud.ah = x.ahs[k].ah;
		wr.wr.ud.remote_qkey = i & 1 ? 0x80000000u : QKEY;
		xc_send_msg(&x, &wr);
	}
	/* A wrong Q_Key: dropped, the WQE is still the reference's. */
	xc_sges(&x, sg, lens, 3, 0);
	wr = xc_wr(&x, IBV_WR_SEND, 77, sg, 3, IBV_SEND_SIGNALED);
	wr.wr.ud.remote_qkey = QKEY + 1;
	xc_post(&x, &wr, 0, 1);
	xc_wc(&x, x.acq, 77, IBV_WC_SEND, &(struct ibv_wc){ 0 }, NULL);
	xc_empty(x.bcq);
out:
	xc_close(&x);
}

/* What a UD receive says of the AV it came through. */
static void xc_ud_recv_av(struct xc *x, const struct ibv_ah_attr *aa)
{
	static const uint32_t lens[] = { 100 };
	uint8_t *dst = x->bbuf + B_RECV;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;

	xc_sges(x, &sg, lens, 1, 5);
	wr = xc_wr(x, IBV_WR_SEND, 500, &sg, 1, IBV_SEND_SIGNALED);
	wr.wr.ud.ah = x->ahs[x->nahs - 1].ah;
	xc_recv(x, RECV_TAG, B_RECV, 256);
	xc_post(x, &wr, 0, 1);
	xc_wc(x, x->acq, 500, IBV_WC_SEND, &wc, NULL);
	if (!xc_wc(x, x->bcq, RECV_TAG, IBV_WC_RECV, &wc, NULL))
		return;
	CHECK_EQ(wc.byte_len, 140);
	CHECK_EQ(wc.sl, x->eth ? aa->sl & 7 : aa->sl);
	CHECK_EQ(wc.slid, m5m_port_lid(x->dev, 1));
	CHECK_EQ(!!(wc.wc_flags & IBV_WC_GRH), x->eth || aa->is_global);
	if (wc.wc_flags & IBV_WC_GRH) {
		union ibv_gid sgid;

		/* The sender's GID at the AH's index, then the AH's dgid. */
		CHECK(m5m_port_gid_at(x->dev, 1, aa->grh.sgid_index, &sgid));
		CHECK(!memcmp(dst + 8, sgid.raw, 16));
		CHECK(!memcmp(dst + 24, aa->grh.dgid.raw, 16));
	}
	CHECK(!memcmp(dst + 40, x->abuf + A_SRC + 5, 100));
}

static void
ud_receives_over_ib_scatter_the_grh_with_the_ahs_source_gid_then_the_payload(
	void)
{
	struct xc_opts o = rc_default;
	struct ibv_ah_attr aa;
	struct xc x;

	o.type = IBV_QPT_UD;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	aa = (struct ibv_ah_attr){ .dlid = m5m_port_lid(x.dev, 1),
				   .sl = 9,
				   .port_num = 1 };
	CHECK(xc_ah(&x, &aa));
	xc_ud_recv_av(&x, &aa);
	aa.is_global = 1;
	aa.grh.hop_limit = 1;
	m5m_port_gid(x.dev, 1, &aa.grh.dgid);
	CHECK(xc_ah(&x, &aa));
	xc_ud_recv_av(&x, &aa);
	/* The port's second GID as the source: the GRH carries it. */
	aa.grh.sgid_index = 1;
	CHECK(xc_ah(&x, &aa));
	xc_ud_recv_av(&x, &aa);
	/* A third the port does not have: no AH. */
	aa.grh.sgid_index = 2;
	errno = 0;
	CHECK(!ibv_create_ah(x.pd, &aa));
	CHECK_EQ(errno, EINVAL);
out:
	xc_close(&x);
}

/* UD over RoCE: the MAC from create_ah, the UDP source port (v2). */
static void xc_roce(bool v1)
{
	static const uint32_t lens[] = { 30, 70 };
	struct xc_opts o = rc_default;
	struct ibv_ah_attr aa;
	struct ibv_send_wr wr;
	struct ibv_sge sg[2];
	unsigned int i;
	struct xc x;

	o.type = IBV_QPT_UD;
	o.eth = true;
	o.roce_v1 = v1;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	/* No GRH on RoCE: refused. */
	aa = (struct ibv_ah_attr){ .port_num = 1 };
	CHECK(!ibv_create_ah(x.pd, &aa));
	aa = (struct ibv_ah_attr){ .is_global = 1,
				   .sl = 6,
				   .static_rate = IBV_RATE_25_GBPS,
				   .src_path_bits = 3,
				   .port_num = 1 };
	aa.grh.hop_limit = 64;
	aa.grh.traffic_class = 0x88;
	m5m_port_gid(x.dev, 1, &aa.grh.dgid);
	/* Flow label 0 (any source port), then one that picks it. */
	CHECK(xc_ah(&x, &aa));
	xc_ud_recv_av(&x, &aa);
	aa.grh.flow_label = 0xabcde;
	aa.sl = 3;
	CHECK(xc_ah(&x, &aa));
	xc_ud_recv_av(&x, &aa);
	if (!v1)
		CHECK_EQ(be16toh(to_m5_ah(x.ahs[1].ah)->av.rlid),
			 0xc000 | ((0xabcde & 0x3fff) ^ (0xabcde >> 14)));
	/* A GID that is no model port: the MAC inside it; dropped. */
	aa.grh.dgid.global.interface_id = htobe64(0x021122fffe334455ull);
	CHECK(xc_ah(&x, &aa));
	for (i = 0; i < x.nahs && !check_failed; i++) {
		xc_sges(&x, sg, lens, 2, i);
		wr = xc_wr(&x, IBV_WR_SEND_WITH_IMM, i, sg, 2,
			   IBV_SEND_SIGNALED | (i & 1 ? IBV_SEND_INLINE : 0));
		wr.wr.ud.ah = x.ahs[i].ah;
		if (i < 2) {
			xc_send_msg(&x, &wr);
			continue;
		}
		xc_post(&x, &wr, 0, 1);
		xc_wc(&x, x.acq, i, IBV_WC_SEND, &(struct ibv_wc){ 0 }, NULL);
		xc_empty(x.bcq);
	}
	CHECK(!memcmp(to_m5_ah(x.ahs[2].ah)->av.rmac,
		      (uint8_t[]){ 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 }, 6));
out:
	xc_close(&x);
}

static void ud_wqes_over_roce_v2_match_mlx5dv(void)
{
	xc_roce(false);
}

static void ud_wqes_over_roce_v1_match_mlx5dv(void)
{
	xc_roce(true);
}

/*
 * A 4-WR RDMA WRITE list with a bad WR at k, for every k: the WRs before it
 * are taken, err at it (bad_wr), nothing after.  spoil makes WR k bad;
 * spare is a free SGE it may point to.
 */
typedef void (*xc_spoil_fn)(struct xc *x, struct ibv_send_wr *w,
			    struct ibv_sge *spare);

static void xc_bad_wr_list(xc_spoil_fn spoil, int err)
{
	static const uint32_t lens[] = { 16, 16, 16, 16 };
	struct ibv_send_wr wr[4];
	struct ibv_sge sg[5];
	unsigned int k, i;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	for (k = 0; k < 4 && !check_failed; k++) {
		xc_sges(&x, sg, lens, 4, 0);
		sg[4] = sg[0];
		for (i = 0; i < 4; i++) {
			wr[i] = xc_wr(&x, IBV_WR_RDMA_WRITE, 10 * k + i, sg, 1,
				      IBV_SEND_SIGNALED);
			wr[i].next = i < 3 ? &wr[i + 1] : NULL;
		}
		spoil(&x, &wr[k], &sg[4]);
		xc_post(&x, wr, err, k);
		for (i = 0; i < k; i++)
			xc_wc(&x, x.acq, 10 * k + i, IBV_WC_RDMA_WRITE,
			      &(struct ibv_wc){ 0 }, NULL);
		xc_empty(x.acq);
	}
	xc_close(&x);
}

/*
 * name, the errno in lower and upper case, what makes the WR bad (w: the
 * WR, spare: a free SGE, x: the pair).  Too many SGEs is ENOMEM, libmlx5's
 * answer; IBV_SEND_IP_CSUM is ignored on RC, as libmlx5 ignores it; FLUSH
 * and ATOMIC WRITE, which the ConnectX lacks, and LOCAL_INV and BIND_MW,
 * which the backend lacks, are EOPNOTSUPP.
 */
#define XC_BAD_WRS(X)                                                          \
	X(local_inv, eopnotsupp, EOPNOTSUPP, w->opcode = IBV_WR_LOCAL_INV)     \
	X(tso, eopnotsupp, EOPNOTSUPP, w->opcode = IBV_WR_TSO)                 \
	X(unknown_opcode, einval, EINVAL, w->opcode = (enum ibv_wr_opcode)99)  \
	X(flush_opcode, eopnotsupp, EOPNOTSUPP,                                \
	  w->opcode = (enum ibv_wr_opcode)14)                                  \
	X(atomic_write_opcode, eopnotsupp, EOPNOTSUPP,                         \
	  w->opcode = IBV_WR_ATOMIC_WRITE)                                     \
	X(more_sges_than_max_send_sge, enomem, ENOMEM, w->num_sge = 5)         \
	X(send_flag_libibverbs_does_not_define, einval, EINVAL,                \
	  w->send_flags |= 1u << 20)                                           \
	X(atomic_without_sge, einval, EINVAL,                                  \
	  w->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;                             \
	  w->num_sge = 0)                                                      \
	X(atomic_sge_of_4_bytes, einval, EINVAL,                               \
	  w->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;                               \
	  w->wr.atomic.remote_addr = (uintptr_t)x->bbuf + B_ATOMIC;            \
	  spare->length = 4; w->sg_list = spare)                               \
	X(atomic_to_unaligned_remote_address, einval, EINVAL,                  \
	  w->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;                               \
	  w->wr.atomic.remote_addr = (uintptr_t)x->bbuf + B_ATOMIC + 4)        \
	X(negative_num_sge, einval, EINVAL, w->num_sge = -1)                   \
	X(bind_mw, eopnotsupp, EOPNOTSUPP, w->opcode = IBV_WR_BIND_MW)

#define X(name, err, ERR, spoil)                                               \
	static void xc_spoil_##name(struct xc *x, struct ibv_send_wr *w,       \
				    struct ibv_sge *spare)                     \
	{                                                                      \
		spoil;                                                         \
	}                                                                      \
	static void rc_list_stops_with_##err##_at_##name(void)                 \
	{                                                                      \
		xc_bad_wr_list(xc_spoil_##name, ERR);                          \
	}
XC_BAD_WRS(X)
#undef X

/*
 * SEND with Invalidate: the WQE is libmlx5's (opcode SEND_INVAL, the rkey
 * in imm), the payload lands, and the responder refuses to invalidate an
 * ibv_reg_mr key (mlx5_ib creates it without en_rinval): the receive
 * completes with REM_INV_REQ_ERR, and so does an RC requester.  UC (no
 * answer: the requester completes, the responder stays RTS and the next
 * receive lands in the key) is kept for when the rig connects UC QPs.
 */
static void xc_send_inv_refused(enum ibv_qp_type type)
{
	static const uint32_t lens[] = { 24 };
	struct xc_opts o = rc_default;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct xc x;

	o.type = type;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	xc_sges(&x, &sg, lens, 1, 0);
	wr = xc_wr(&x, IBV_WR_SEND_WITH_INV, 1, &sg, 1, IBV_SEND_SIGNALED);
	wr.invalidate_rkey = x.bmr->rkey;
	memset(x.bbuf + B_RECV, 0xee, 64);
	xc_recv(&x, RECV_TAG | 1, B_RECV, 64);
	xc_post(&x, &wr, 0, 1);
	CHECK_EQ(m5t_cqe_poll(x.bcq, &wc, NULL), 1);
	CHECK_EQ(wc.wr_id, RECV_TAG | 1);
	CHECK_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR);
	CHECK(!memcmp(x.bbuf + B_RECV, (void *)(uintptr_t)sg.addr, 24));
	if (type == IBV_QPT_RC) {
		CHECK_EQ(m5t_cqe_poll(x.acq, &wc, NULL), 1);
		CHECK_EQ(wc.wr_id, 1);
		CHECK_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR);
	} else {
		xc_wc(&x, x.acq, 1, IBV_WC_SEND, &wc, NULL);
		wr = xc_wr(&x, IBV_WR_SEND, 2, &sg, 1, IBV_SEND_SIGNALED);
		xc_send_msg(&x, &wr);
	}
	xc_empty(x.acq);
	xc_empty(x.bcq);
out:
	xc_close(&x);
}

static void rc_send_with_inv_of_an_mr_key_fails_at_the_responder(void)
{
	xc_send_inv_refused(IBV_QPT_RC);
}

/* max_send_wr outstanding: the next is refused with ENOMEM, then taken. */
static void a_full_sq_refuses_the_next_wr_with_enomem(void)
{
	static const uint32_t lens[] = { 16 };
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	unsigned int i;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	xc_sges(&x, &sg, lens, 1, 0);
	for (i = 0; i < x.cap.max_send_wr && !check_failed; i++) {
		wr = xc_wr(&x, IBV_WR_RDMA_WRITE, i, &sg, 1,
			   i + 1 == x.cap.max_send_wr ? IBV_SEND_SIGNALED : 0);
		xc_post(&x, &wr, 0, 1);
	}
	wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 1000, &sg, 1, IBV_SEND_SIGNALED);
	xc_post(&x, &wr, ENOMEM, 0);
	xc_wc(&x, x.acq, x.cap.max_send_wr - 1, IBV_WC_RDMA_WRITE,
	      &(struct ibv_wc){ 0 }, NULL);
	xc_post(&x, &wr, 0, 1);
	xc_wc(&x, x.acq, 1000, IBV_WC_RDMA_WRITE, &(struct ibv_wc){ 0 }, NULL);
	xc_close(&x);
}

/* A QP in RESET takes no send (ENOMEM, as libmlx5): bad_wr is the first. */
static void a_qp_in_reset_refuses_a_send_with_enomem(void)
{
	static const uint32_t lens[] = { 16 };
	struct ibv_send_wr wr;
	struct ibv_qp *fresh;
	struct ibv_sge sg;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	xc_sges(&x, &sg, lens, 1, 0);
	wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 1000, &sg, 1, IBV_SEND_SIGNALED);
	fresh = ibv_create_qp(
		x.pd, &(struct ibv_qp_init_attr){
			      .send_cq = x.acq,
			      .recv_cq = x.acq,
			      .qp_type = IBV_QPT_RC,
			      .cap = { .max_send_wr = 2, .max_send_sge = 1 } });
	CHECK(fresh);
	if (fresh) {
		struct m5t_sq s;
		uint64_t b = 0;

		m5t_sq_init(&s, fresh, false, NULL, 0);
		CHECK(m5t_sq_post(&s, &wr, ENOMEM, 0, &b));
		CHECK_EQ(ibv_destroy_qp(fresh), 0);
	}
	xc_close(&x);
}

/*
 * On UD, a send then a bad second WR: the first is taken and delivered,
 * EINVAL at the second.  (On RC, a UD-only WR field means nothing.)
 */
static void xc_ud_bad_second_wr(xc_spoil_fn spoil)
{
	static const uint32_t lens[] = { 16 };
	struct xc_opts o = rc_default;
	struct ibv_send_wr wr[2];
	struct ibv_sge sg;
	struct xc x;

	o.type = IBV_QPT_UD;
	CHECK_EQ(xc_open(&x, &o), 0);
	xc_ah(&x, &(struct ibv_ah_attr){ .dlid = m5m_port_lid(x.dev, 1),
					 .port_num = 1 });
	xc_sges(&x, &sg, lens, 1, 0);
	wr[0] = xc_wr(&x, IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	wr[1] = xc_wr(&x, IBV_WR_SEND, 2, &sg, 1, IBV_SEND_SIGNALED);
	wr[0].next = &wr[1];
	spoil(&x, &wr[1], NULL);
	xc_recv(&x, RECV_TAG, B_RECV, 64);
	xc_post(&x, wr, EINVAL, 1);
	xc_wc(&x, x.acq, 1, IBV_WC_SEND, &(struct ibv_wc){ 0 }, NULL);
	xc_wc(&x, x.bcq, RECV_TAG, IBV_WC_RECV, &(struct ibv_wc){ 0 }, NULL);
	xc_close(&x);
}

#define XC_UD_BAD_WRS(X)                                                       \
	X(rdma_write, w->opcode = IBV_WR_RDMA_WRITE)                           \
	X(atomic, w->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD)                     \
	X(null_ah, w->wr.ud.ah = NULL)

#define X(name, spoil)                                                         \
	static void xc_ud_spoil_##name(struct xc *x, struct ibv_send_wr *w,    \
				       struct ibv_sge *spare)                  \
	{                                                                      \
		spoil;                                                         \
	}                                                                      \
	static void ud_list_stops_with_einval_at_##name(void)                  \
	{                                                                      \
		xc_ud_bad_second_wr(xc_ud_spoil_##name);                       \
	}
XC_UD_BAD_WRS(X)
#undef X

/*
 * A device without host-endian atomics: atomics are refused with
 * EOPNOTSUPP, as libmlx5 refuses them.
 */
static void atomics_are_refused_without_host_endian_atomics(void)
{
	struct xc_opts o = rc_default;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct xc x;

	o.no_atomic = true;
	CHECK_EQ(xc_open(&x, &o), 0);
	sg = (struct ibv_sge){ (uintptr_t)x.abuf + A_ATOMIC, 8, x.amr->lkey };
	wr = xc_wr(&x, IBV_WR_ATOMIC_CMP_AND_SWP, 1, &sg, 1, IBV_SEND_SIGNALED);
	xc_post(&x, &wr, EOPNOTSUPP, 0);
	xc_close(&x);
}

/* Every kind of CQE the model writes, over several passes of a small CQ. */
static void every_cqe_the_model_writes_parses_across_cq_wraps(void)
{
	static const uint32_t lens[] = { 12, 0, 30 };
	struct xc_opts o = rc_default;
	struct ibv_send_wr wr;
	struct ibv_sge sg[3];
	unsigned int i, ncqe;
	struct xc x;

	/* CQs of 8 CQEs: 280 WRs pass over them 35 times. */
	o.cqe = 7;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	ncqe = to_m5_cq(x.acq)->ncqe;
	CHECK_EQ(ncqe, 8);
	for (i = 0; i < 7 * 40 && !check_failed; i++) {
		enum ibv_wr_opcode op = rc_ops[i % NUM_RC_OPS];

		if (op == IBV_WR_RDMA_READ) {
			xc_read_sges(&x, sg, lens, 3);
		} else if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
			   op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			sg[0] = (struct ibv_sge){ (uintptr_t)x.abuf + A_ATOMIC,
						  8, x.amr->lkey };
		} else {
			xc_sges(&x, sg, lens, 3, i);
		}
		wr = xc_wr(
			&x, op, i, sg, op >= IBV_WR_ATOMIC_CMP_AND_SWP ? 1 : 3,
			IBV_SEND_SIGNALED | (i & 8 ? IBV_SEND_SOLICITED : 0));
		xc_do(&x, &wr);
	}
	CHECK(to_m5_cq(x.acq)->cons_index > 2 * ncqe);
	xc_empty(x.acq);
	xc_empty(x.bcq);
out:
	xc_close(&x);
}

/*
 * CQEs crafted in place of ones the model wrote (the model's slots, so its
 * producer count stays right), one test per row of the tables below: error
 * CQEs of every syndrome, a wrong owner bit, an INVALID opcode, a format
 * never enabled, and receive fields set to values the model never writes.
 *
 * An error CQE with syndrome synd written over the requester's (or the
 * responder's) good one: the completion carries the status mlx5dv's
 * syndrome maps to, the vendor syndrome, the wr_id and the opcode; the
 * other side's completion is untouched.
 */
static void xc_error_cqe(uint8_t synd, bool resp)
{
	static const uint32_t lens[] = { 16 };
	struct mlx5_cqe64 *cqe;
	struct mlx5_err_cqe *e;
	struct ibv_send_wr wr;
	struct ibv_cq *cq;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint8_t owner;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	if (check_failed)
		goto out;
	cq = resp ? x.bcq : x.acq;
	xc_sges(&x, &sg, lens, 1, 0);
	wr = xc_wr(&x, IBV_WR_SEND_WITH_IMM, 1, &sg, 1, IBV_SEND_SIGNALED);
	xc_recv(&x, RECV_TAG | 1, B_RECV, 64);
	xc_post(&x, &wr, 0, 1);
	cqe = m5t_cqe_next(cq);
	owner = mlx5dv_get_cqe_owner(cqe);
	e = (struct mlx5_err_cqe *)cqe;
	e->syndrome = synd;
	e->vendor_err_synd = 0x41;
	cqe->op_own = (resp ? MLX5_CQE_RESP_ERR : MLX5_CQE_REQ_ERR) << 4;
	mlx5dv_set_cqe_owner(cqe, owner);
	CHECK_EQ(m5t_cqe_poll(cq, &wc, NULL), 1);
	CHECK_EQ(wc.wr_id, resp ? RECV_TAG | 1 : 1);
	CHECK_EQ(wc.status, m5t_cqe_status(synd));
	CHECK_EQ(wc.vendor_err, 0x41);
	CHECK_EQ(wc.opcode, resp ? IBV_WC_RECV : IBV_WC_SEND);
	/* The other side's good completion. */
	if (resp)
		xc_wc(&x, x.acq, 1, IBV_WC_SEND, &wc, NULL);
	else
		xc_wc(&x, x.bcq, RECV_TAG | 1, IBV_WC_RECV, &wc, NULL);
	xc_empty(x.acq);
	xc_empty(x.bcq);
out:
	xc_close(&x);
}

/* name, syndrome (the PRM's; 0x33 is none of them) */
#define XC_ERROR_SYNDROMES(X)                                                  \
	X(local_length, 0x01)                                                  \
	X(local_qp_operation, 0x02)                                            \
	X(local_protection, 0x04)                                              \
	X(wr_flushed, 0x05)                                                    \
	X(mw_bind, 0x06)                                                       \
	X(bad_response, 0x10)                                                  \
	X(local_access, 0x11)                                                  \
	X(remote_invalid_request, 0x12)                                        \
	X(remote_access, 0x13)                                                 \
	X(remote_operation, 0x14)                                              \
	X(transport_retry_exceeded, 0x15)                                      \
	X(rnr_retry_exceeded, 0x16)                                            \
	X(remote_aborted, 0x22)                                                \
	X(unknown_0x33, 0x33)

#define X(name, synd)                                                          \
	static void requester_error_cqe_##name##_maps_like_mlx5dv(void)        \
	{                                                                      \
		xc_error_cqe(synd, false);                                     \
	}                                                                      \
	static void responder_error_cqe_##name##_maps_like_mlx5dv(void)        \
	{                                                                      \
		xc_error_cqe(synd, true);                                      \
	}
XC_ERROR_SYNDROMES(X)
#undef X

/* Ownership: wrong parity or INVALID is the device's; format != 0 errs. */
enum xc_own { XC_OWN_PARITY, XC_OWN_INVALID, XC_OWN_FORMAT_1 };

static void xc_cqe_owner(enum xc_own how)
{
	static const uint32_t lens[] = { 16 };
	struct mlx5_cqe64 *cqe, keep;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	if (check_failed)
		goto out;
	xc_sges(&x, &sg, lens, 1, 0);
	wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 50, &sg, 1, IBV_SEND_SIGNALED);
	xc_post(&x, &wr, 0, 1);
	cqe = m5t_cqe_next(x.acq);
	keep = *cqe;
	if (how == XC_OWN_PARITY)
		mlx5dv_set_cqe_owner(cqe, !mlx5dv_get_cqe_owner(cqe));
	else if (how == XC_OWN_INVALID)
		cqe->op_own = (uint8_t)(MLX5_CQE_INVALID << 4 |
					mlx5dv_get_cqe_owner(cqe));
	else
		cqe->op_own |= 1 << 2; /* format 1 */
	if (how != XC_OWN_FORMAT_1) {
		CHECK_EQ(m5t_cqe_poll(x.acq, &wc, NULL), 0);
		*cqe = keep;
		xc_wc(&x, x.acq, 50, IBV_WC_RDMA_WRITE, &wc, NULL);
	} else {
		CHECK_EQ(m5t_cqe_poll(x.acq, &wc, NULL), 1);
		CHECK_EQ(wc.wr_id, 50);
		CHECK(wc.status != IBV_WC_SUCCESS);
	}
	xc_empty(x.acq);
out:
	xc_close(&x);
}

static void a_cqe_of_the_wrong_parity_is_not_polled(void)
{
	xc_cqe_owner(XC_OWN_PARITY);
}

static void an_invalid_cqe_is_not_polled(void)
{
	xc_cqe_owner(XC_OWN_INVALID);
}

static void a_cqe_of_format_1_completes_in_error(void)
{
	xc_cqe_owner(XC_OWN_FORMAT_1);
}

/*
 * A responder CQE of opcode op with the fields the model leaves plain
 * (byte count, flags, SLID, path bits, immediate) set: they are read.
 */
static void xc_resp_cqe(uint8_t op, unsigned int i)
{
	static const uint32_t lens[] = { 16 };
	struct mlx5_cqe64 *cqe;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint8_t owner;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	if (check_failed)
		goto out;
	xc_sges(&x, &sg, lens, 1, 0);
	wr = xc_wr(&x, IBV_WR_SEND, 60 + i, &sg, 1, IBV_SEND_SIGNALED);
	xc_recv(&x, RECV_TAG | (60 + i), B_RECV, 64);
	xc_post(&x, &wr, 0, 1);
	xc_wc(&x, x.acq, 60 + i, IBV_WC_SEND, &wc, NULL);
	cqe = m5t_cqe_next(x.bcq);
	owner = mlx5dv_get_cqe_owner(cqe);
	cqe->byte_cnt = htobe32(0x1234 + i);
	cqe->flags_rqpn = htobe32((i + 1) << 28 | (9 + i) << 24 |
				  (be32toh(cqe->flags_rqpn) & 0xffffff));
	cqe->slid = htobe16(0xbeef);
	cqe->ml_path = (uint8_t)(0xf0 | i);
	cqe->imm_inval_pkey = htobe32(0xcafe0000 | i);
	cqe->op_own = (uint8_t)(op << 4 | (i & 1) << 1);
	mlx5dv_set_cqe_owner(cqe, owner);
	CHECK_EQ(m5t_cqe_poll(x.bcq, &wc, NULL), 1);
	CHECK_EQ(wc.wr_id, RECV_TAG | (60 + i));
	CHECK_EQ(wc.byte_len, 0x1234 + i);
	CHECK_EQ(wc.slid, 0xbeef);
	xc_empty(x.bcq);
out:
	xc_close(&x);
}

/* name, responder opcode, row (varies the fields) */
#define XC_RESP_CQES(X)                                                        \
	X(send, MLX5_CQE_RESP_SEND, 0)                                         \
	X(send_imm, MLX5_CQE_RESP_SEND_IMM, 1)                                 \
	X(send_inv, MLX5_CQE_RESP_SEND_INV, 2)                                 \
	X(write_imm, MLX5_CQE_RESP_WR_IMM, 3)

#define X(name, op, i)                                                         \
	static void responder_cqe_##name##_fields_are_read(void)               \
	{                                                                      \
		xc_resp_cqe(op, i);                                            \
	}
XC_RESP_CQES(X)
#undef X

/* A requester CQE naming opcode op (whatever was posted) completes it. */
static void xc_req_cqe_opcode(uint8_t op)
{
	static const uint32_t lens[] = { 16 };
	struct mlx5_cqe64 *cqe;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct xc x;

	CHECK_EQ(xc_open(&x, &rc_default), 0);
	if (check_failed)
		goto out;
	xc_sges(&x, &sg, lens, 1, 0);
	wr = xc_wr(&x, IBV_WR_RDMA_WRITE, 70, &sg, 1, IBV_SEND_SIGNALED);
	xc_post(&x, &wr, 0, 1);
	cqe = m5t_cqe_next(x.acq);
	cqe->sop_drop_qpn = htobe32((uint32_t)op << 24 |
				    (be32toh(cqe->sop_drop_qpn) & 0xffffff));
	cqe->byte_cnt = htobe32(999);
	CHECK_EQ(m5t_cqe_poll(x.acq, &wc, NULL), 1);
	CHECK_EQ(wc.wr_id, 70);
	xc_empty(x.acq);
out:
	xc_close(&x);
}

#define XC_REQ_OPCODES(X)                                                      \
	X(send, MLX5_OPCODE_SEND)                                              \
	X(send_imm, MLX5_OPCODE_SEND_IMM)                                      \
	X(rdma_write, MLX5_OPCODE_RDMA_WRITE)                                  \
	X(rdma_write_imm, MLX5_OPCODE_RDMA_WRITE_IMM)                          \
	X(rdma_read, MLX5_OPCODE_RDMA_READ)                                    \
	X(atomic_cs, MLX5_OPCODE_ATOMIC_CS)                                    \
	X(atomic_fa, MLX5_OPCODE_ATOMIC_FA)

#define X(name, op)                                                            \
	static void requester_cqe_naming_##name##_completes_the_wr(void)       \
	{                                                                      \
		xc_req_cqe_opcode(op);                                         \
	}
XC_REQ_OPCODES(X)
#undef X

/*
 * The arm doorbell: dbrec word 1 (mlx5dv.h has no name for the CQ dbrec
 * words; the PRM's order is CI, then ARM) and the 64-bit write at
 * UAR 0 + MLX5_CQ_DOORBELL: sn << 28 | MLX5_CQ_DB_REQ_NOT(_SOL) | ci, then
 * the CQ number.
 */
static void the_cq_arm_doorbell_matches_mlx5dv(void)
{
	static const uint32_t lens[] = { 8 };
	struct xc_opts o = rc_default;
	struct m5m_cq_info info;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_cq *ecq;
	struct m5_cq *cq;
	uint32_t arm, sn = 0, ci = 0;
	uint64_t db;
	void *ectx;
	unsigned int i, k;
	struct xc x;

	o.channel = true;
	CHECK_EQ(xc_open(&x, &o), 0);
	if (check_failed)
		goto out;
	cq = to_m5_cq(x.bcq);
	CHECK_EQ(m5m_cq_info(x.dev, x.bcq, &info), 0);
	/* The context's CQ UAR: the non-cached dynamic one on this model. */
	CHECK((uint8_t *)cq->arm_reg ==
	      (uint8_t *)to_m5_ctx(x.ctx)->cq_uar + MLX5_CQ_DOORBELL);
	CHECK_EQ(m5m_cq_uar_page(x.dev, x.bcq),
		 (int64_t)to_m5_ctx(x.ctx)->cq_uar_page);
	xc_sges(&x, &sg, lens, 1, 0);
	for (i = 0; i < 10 && !check_failed; i++) {
		bool sol = i & 1;

		CHECK_EQ(ibv_req_notify_cq(x.bcq, sol), 0);
		arm = (sn & 3) << 28 |
		      (sol ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT) |
		      (ci & 0xffffff);
		CHECK_EQ(be32toh(cq->dbrec[1]), arm);
		memcpy(&db, cq->arm_reg, 8);
		CHECK_EQ(be64toh(db), (uint64_t)arm << 32 | info.cqn);
		/* i + 1 messages, solicited: one event, sn + 1. */
		for (k = 0; k <= i; k++) {
			wr = xc_wr(&x, IBV_WR_SEND, k, &sg, 1,
				   IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
			xc_send_msg(&x, &wr);
			ci++; /* the receive polled */
		}
		CHECK_EQ(m5m_irq_service(x.dev), 1);
		CHECK_EQ(ibv_get_cq_event(x.ch, &ecq, &ectx), 0);
		CHECK(ecq == x.bcq);
		ibv_ack_cq_events(x.bcq, 1);
		sn++;
		CHECK_EQ(cq->arm_sn, sn);
	}
out:
	xc_close(&x);
}

static const struct check_test tests[] = {
	CHECK_TEST(layouts_and_constants_match_mlx5dv),
	CHECK_TEST(rc_wqes_of_every_opcode_match_mlx5dv),
	CHECK_TEST(fence_signaled_and_solicited_bits_match_mlx5dv),
	CHECK_TEST(wqes_of_0_to_max_sges_match_mlx5dv),
	CHECK_TEST(inline_wqes_up_to_max_inline_match_mlx5dv),
	CHECK_TEST(multi_wqebb_wqes_across_the_sq_end_match_mlx5dv),
	CHECK_TEST(the_dbrec_and_blueflame_doorbell_match_mlx5dv),
	CHECK_TEST(receive_wqes_match_mlx5dv),
	CHECK_TEST(srq_wqes_follow_the_free_list),
	CHECK_TEST(srq_wqes_freed_out_of_order_are_reused_by_their_links),
	CHECK_TEST(ud_wqes_over_ib_match_mlx5dv),
	CHECK_TEST(
		ud_receives_over_ib_scatter_the_grh_with_the_ahs_source_gid_then_the_payload),
	CHECK_TEST(ud_wqes_over_roce_v2_match_mlx5dv),
	CHECK_TEST(ud_wqes_over_roce_v1_match_mlx5dv),
	CHECK_TEST(rc_send_with_inv_of_an_mr_key_fails_at_the_responder),
#define X(name, err, ERR, spoil)                                               \
	CHECK_TEST(rc_list_stops_with_##err##_at_##name),
	XC_BAD_WRS(X)
#undef X
		CHECK_TEST(a_full_sq_refuses_the_next_wr_with_enomem),
	CHECK_TEST(a_qp_in_reset_refuses_a_send_with_enomem),
#define X(name, spoil) CHECK_TEST(ud_list_stops_with_einval_at_##name),
	XC_UD_BAD_WRS(X)
#undef X
		CHECK_TEST(atomics_are_refused_without_host_endian_atomics),
	CHECK_TEST(every_cqe_the_model_writes_parses_across_cq_wraps),
#define X(name, synd)                                                          \
	CHECK_TEST(requester_error_cqe_##name##_maps_like_mlx5dv),             \
		CHECK_TEST(responder_error_cqe_##name##_maps_like_mlx5dv),
	XC_ERROR_SYNDROMES(X)
#undef X
		CHECK_TEST(a_cqe_of_the_wrong_parity_is_not_polled),
	CHECK_TEST(an_invalid_cqe_is_not_polled),
	CHECK_TEST(a_cqe_of_format_1_completes_in_error),
#define X(name, op, i) CHECK_TEST(responder_cqe_##name##_fields_are_read),
	XC_RESP_CQES(X)
#undef X
#define X(name, op) CHECK_TEST(requester_cqe_naming_##name##_completes_the_wr),
		XC_REQ_OPCODES(X)
#undef X
			CHECK_TEST(the_cq_arm_doorbell_matches_mlx5dv),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_crosscheck_", tests);
}
