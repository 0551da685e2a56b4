// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UMR WQEs on the REG_UMR QP: the ones that change an existing MKEY in
 * place, with the new fields inline in the WQE's mkey segment and no
 * translation (xlt_octowords 0).  mlx5_ib posts such a WQE to change a
 * user MR's access flags or PD (umr.c, mlx5r_umr_rereg_pd_access(): the
 * fast path of ibv_rereg_mr with IBV_REREG_MR_CHANGE_ACCESS or _PD) and
 * to revoke a key (mlx5r_umr_revoke_mr(): the free bit), then sleeps
 * until its completion: without one the caller waits for ever.
 *
 * The WQE (struct mlx5r_umr_wqe after the ctrl segment): ctrl segment (16
 * bytes, the mkey in its immediate), UMR ctrl segment (48 bytes: flags,
 * xlt_octowords, mkey_mask), mkey segment (64 bytes, the mkc layout).
 * The mask's fields taken: LR, LW, RR, RW, A, PD, QPN, KEY (the variant
 * byte), FREE.  Anything else (a translation, a length, a start address,
 * a page size, a WQE that is not a UMR) completes in error: the device
 * does not claim it (cx_caps.c: umr_modify_entity_size_disabled, no ODP).
 * The CHECK_FREE/NOT_FREE flags are not checked.
 */
#include <endian.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"
#include "mlx5/mlx5_hw.h"

enum {
	RQ_REGULAR = 0x0,    /* MLX5_NON_ZERO_RQ */
	OPCODE_UMR = 0x25,   /* MLX5_OPCODE_UMR */
	UMR_INLINE = 1 << 7, /* MLX5_UMR_INLINE */
	BB = M5_SEND_WQE_BB,
};

/* mkey_mask bits (MLX5_MKEY_MASK_*) and where the mkc keeps each. */
#define MASK_PD	  (1ull << 7)
#define MASK_KEY  (1ull << 13)
#define MASK_QPN  (1ull << 14)
#define MASK_LR	  (1ull << 17)
#define MASK_LW	  (1ull << 18)
#define MASK_RR	  (1ull << 19)
#define MASK_RW	  (1ull << 20)
#define MASK_A	  (1ull << 21)
#define MASK_FREE (1ull << 29)
#define MASK_TAKEN                                                             \
	(MASK_PD | MASK_KEY | MASK_QPN | MASK_LR | MASK_LW | MASK_RR |         \
	 MASK_RW | MASK_A | MASK_FREE)

/* Basic block N (modulo the SQ's size) of QP Q's send queue, or NULL. */
static const uint8_t *sq_bb(struct cx *cx, const struct cx_qp *q, uint32_t n)
{
	uint64_t b = (uint64_t)(n & ((1u << q->log_sq_size) - 1)) * BB;

	if (q->no_sq)
		return NULL;
	if (q->rq_type == RQ_REGULAR)
		b += 1ull << (q->log_rq_size + q->log_rq_stride);
	return cx_queue_at(cx, q->pas, q->npas, q->log_page_size,
			   q->page_offset, b, BB, false);
}

/* The mkey change of one UMR WQE: 0, or the error CQE's syndrome. */
static int apply(struct cx *cx, uint32_t mkey, const uint8_t *uctrl,
		 const uint8_t *mkc)
{
	uint64_t mask = cx_get64(uctrl, 8);
	uint32_t i = mkey >> 8, pd = cx_get(mkc, F_MKC_PD);
	struct cx_mkey *k;

	if (!(uctrl[0] & UMR_INLINE) || cx_get(uctrl, 32, 16) ||
	    (mask & ~MASK_TAKEN))
		return M5_SYND_LOCAL_QP_OP_ERR;
	if (!i || i >= CX_MAX_MKEY || !cx->mkey[i].valid ||
	    cx->mkey[i].variant != (mkey & 0xff))
		return M5_SYND_LOCAL_PROT_ERR;
	if ((mask & MASK_PD) && !cx_obj_used(cx, CX_OBJ_PD, pd))
		return M5_SYND_LOCAL_PROT_ERR;
	k = &cx->mkey[i];
	if (mask & MASK_PD)
		k->pd = pd;
	if (mask & MASK_KEY)
		k->variant = cx_get(mkc, F_MKC_MKEY_7_0);
	if (mask & MASK_QPN)
		k->qpn = cx_get(mkc, F_MKC_QPN);
	if (mask & MASK_FREE)
		k->free = cx_get(mkc, F_MKC_FREE);
#define TAKE(m, f, bit)                                                        \
	do {                                                                   \
		if (mask & (m))                                                \
			k->access = (k->access & ~(bit)) |                     \
				    (cx_get(mkc, f) ? (bit) : 0);              \
	} while (0)
	TAKE(MASK_LR, F_MKC_LR, 1 << 0);
	TAKE(MASK_LW, F_MKC_LW, 1 << 1);
	TAKE(MASK_RR, F_MKC_RR, 1 << 2);
	TAKE(MASK_RW, F_MKC_RW, 1 << 3);
	TAKE(MASK_A, F_MKC_A, 1 << 4);
#undef TAKE
	return 0;
}

static void complete(struct cx *cx, const struct cx_qp *q, uint32_t qpn,
		     uint16_t idx, uint8_t opcode, int synd)
{
	struct m5_err_cqe cqe = { 0 };

	cqe.s_wqe_opcode_qpn = htobe32((uint32_t)opcode << 24 | qpn);
	cqe.wqe_counter = htobe16(idx);
	cqe.syndrome = synd;
	cqe.op_own = (synd ? M5_CQE_REQ_ERR : M5_CQE_REQ)
		     << M5_CQE_OPCODE_SHIFT;
	if (cx_cq_push(cx, q->cqn_snd, (const uint8_t *)&cqe, false) != CX_OK)
		cx_trace(cx, "umr qp 0x%x: CQE for WQE %u lost", qpn, idx);
}

void cx_umr_doorbell(struct cx *cx, uint32_t qpn)
{
	struct cx_qp *q = &cx->qp[qpn];
	const uint8_t *dbr = cx_dma(cx, q->dbr, 8, false);
	uint16_t pi;

	if (!dbr || q->state != CX_QP_RTS)
		return;
	pi = cx_get(dbr, 48, 16); /* the SQ counter, big-endian at +4 */
	while (q->umr_ci != pi) {
		const uint8_t *c = sq_bb(cx, q, q->umr_ci);
		const uint8_t *m = sq_bb(cx, q, q->umr_ci + 1);
		uint8_t ctrl[BB];
		uint32_t ds, nbb;
		uint16_t idx;
		uint8_t opcode;
		int synd;

		if (!c || !m) {
			cx_trace(cx, "umr qp 0x%x: WQE %u outside guest memory",
				 qpn, q->umr_ci);
			return;
		}
		memcpy(ctrl, c, BB);
		opcode = ctrl[3];
		idx = cx_get(ctrl, 8, 16);
		ds = cx_get(ctrl, 58, 6);
		nbb = ds ? (ds * 16 + BB - 1) / BB : 1;
		synd = opcode == OPCODE_UMR
			       ? apply(cx, cx_get(ctrl, 96, 32), ctrl + 16, m)
			       : M5_SYND_LOCAL_QP_OP_ERR;
		cx_trace(cx, "umr qp 0x%x: WQE %u opcode 0x%x mkey 0x%x: %s",
			 qpn, idx, opcode, cx_get(ctrl, 96, 32),
			 synd ? "error" : "done");
		if (synd || (ctrl[11] & M5_WQE_CTRL_CQ_UPDATE))
			complete(cx, q, qpn, idx, opcode, synd);
		q->umr_ci += nbb;
		if (synd)
			return; /* the QP stops at its first error */
	}
}
