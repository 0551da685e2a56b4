// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UMR WQEs on the REG_UMR QP: they change an existing MKEY in place and
 * may load part of its translation.  mlx5_ib posts them (umr.c) to change
 * a user MR's access flags or PD (mlx5r_umr_rereg_pd_access(): the fast
 * path of ibv_rereg_mr), to revoke a key (mlx5r_umr_revoke_mr(): the free
 * bit), and to give a free key of its mkey cache a user MR's pages
 * (mlx5r_umr_update_mr_pas(): MTT entries in a kernel buffer, one WQE per
 * buffer-full, the last one enabling the key with its start, length, page
 * size, access and PD), then sleeps until the completion: without one the
 * caller waits for ever.
 *
 * The WQE (struct mlx5r_umr_wqe after the ctrl segment): ctrl segment (16
 * bytes, the mkey in its immediate), UMR ctrl segment (48 bytes: flags,
 * xlt_octowords, xlt_offset and xlt_offset_47_16 in octowords, mkey_mask),
 * mkey segment (64 bytes, the mkc layout), then the translation: inline
 * (the INLINE flag) or a data segment (byte_count, lkey, addr) naming it
 * in memory through a key with local read (mlx5_ib: the UMR PD's DMA MR;
 * the REG_UMR QP has no PD, so a key of any PD).  The entries land at the
 * offset (TRANSLATION_OFFSET_EN, else 0) of an MTT key, within the size it
 * was made with (cx_mkey_load()).  The mask's fields taken: LEN (and
 * length64), PAGE_SIZE, START_ADDR, PD, KEY (the variant byte), QPN, LR,
 * LW, RR, RW, A, FREE.  Anything else (a KLM key, another mask bit, a
 * translation past the key or outside guest memory, a WQE that is not a
 * UMR) completes in error and changes nothing.  The CHECK_FREE/NOT_FREE
 * flags are not checked.  mlx5_ib posts the translation ones only when
 * umr_modify_entity_size_disabled is clear (umr.h,
 * mlx5r_umr_can_load_pas()), which cx_caps.c keeps set for now.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"
#include "mlx5/mlx5_hw.h"

enum {
	RQ_REGULAR = 0x0,	/* MLX5_NON_ZERO_RQ */
	OPCODE_UMR = 0x25,	/* MLX5_OPCODE_UMR */
	UMR_OFFSET_EN = 1 << 4, /* MLX5_UMR_TRANSLATION_OFFSET_EN */
	BB = M5_SEND_WQE_BB,
	XLT_AT = 128, /* the translation: after the mkey segment */
};

/* The mkey_mask bits this QP's UMR WQEs may set (cx_int.h). */
#define MASK_TAKEN                                                             \
	(CX_UMR_MASK_LEN | CX_UMR_MASK_PAGE_SIZE | CX_UMR_MASK_START |         \
	 CX_UMR_MASK_PD | CX_UMR_MASK_KEY | CX_UMR_MASK_QPN | CX_UMR_MASK_LR | \
	 CX_UMR_MASK_LW | CX_UMR_MASK_RR | CX_UMR_MASK_RW | CX_UMR_MASK_A |    \
	 CX_UMR_MASK_FREE)

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

/*
 * The N translation entries of the WQE at basic block WQE into XLT: inline
 * after its mkey segment, or where its data segment points.  0, or the
 * error CQE's syndrome.
 */
static int read_xlt(struct cx *cx, const struct cx_qp *q, uint16_t wqe,
		    bool inl, uint32_t n, uint64_t *xlt)
{
	uint64_t len = (uint64_t)n * 8, done, run;
	const uint8_t *d;
	uint8_t *p;
	uint32_t j;

	if (inl) {
		for (j = 0; j < n; j++) {
			d = sq_bb(cx, q, wqe + (XLT_AT + j * 8) / BB);
			if (!d)
				return M5_SYND_LOCAL_PROT_ERR;
			xlt[j] = cx_get64(d, (XLT_AT + j * 8) % BB);
		}
		return 0;
	}
	d = sq_bb(cx, q, wqe + XLT_AT / BB);
	if (!d)
		return M5_SYND_LOCAL_PROT_ERR;
	if (cx_get(d, 0, 32) < len) /* byte_count */
		return M5_SYND_LOCAL_LENGTH_ERR;
	for (done = 0; done < len; done += run) {
		if (cx_mkey_xlate(cx, CX_ANY_PD, cx_get(d, 32, 32),
				  cx_get64(d, 8) + done, len - done, CX_MKEY_LR,
				  false, &p, &run))
			return M5_SYND_LOCAL_PROT_ERR;
		memcpy((uint8_t *)xlt + done, p, run);
	}
	for (j = 0; j < n; j++)
		xlt[j] = be64toh(xlt[j]);
	return 0;
}

/* The mkey change of one UMR WQE at basic block WQE: 0, or a syndrome. */
static int apply(struct cx *cx, const struct cx_qp *q, uint16_t wqe,
		 uint32_t mkey, const uint8_t *uctrl, const uint8_t *mkc)
{
	uint64_t mask = cx_get64(uctrl, 8);
	uint32_t pd = cx_get(mkc, F_MKC_PD);
	uint32_t n = cx_get(uctrl, 32, 16) * 2; /* xlt_octowords */
	uint64_t at = 0, *xlt = NULL;
	struct cx_mkey *k;
	int synd;

	if (uctrl[0] & UMR_OFFSET_EN)
		at = ((uint64_t)cx_get(uctrl, 128, 32) << 16 |
		      cx_get(uctrl, 48, 16)) *
		     2;
	if ((!(uctrl[0] & CX_UMR_INLINE) && !n) || (mask & ~MASK_TAKEN))
		return M5_SYND_LOCAL_QP_OP_ERR;
	k = cx_mkey_get(cx, mkey);
	if (!k)
		return M5_SYND_LOCAL_PROT_ERR;
	if ((mask & CX_UMR_MASK_PD) && !cx_obj_used(cx, CX_OBJ_PD, pd))
		return M5_SYND_LOCAL_PROT_ERR;
	if (n) {
		if (!cx_mkey_fits(k, at, n))
			return M5_SYND_LOCAL_PROT_ERR;
		xlt = malloc((size_t)n * sizeof(*xlt));
		if (!xlt)
			return M5_SYND_LOCAL_QP_OP_ERR;
		synd = read_xlt(cx, q, wqe, uctrl[0] & CX_UMR_INLINE, n, xlt);
		if (!synd && !cx_mkey_load(k, at, n, xlt))
			synd = M5_SYND_LOCAL_QP_OP_ERR;
		free(xlt);
		if (synd)
			return synd;
	}
	if (mask & CX_UMR_MASK_LEN) {
		k->len = cx_get64(mkc, B_MKC_LEN);
		k->length64 = cx_get(mkc, F_MKC_LENGTH64);
	}
	if (mask & CX_UMR_MASK_PAGE_SIZE)
		k->log_page_size = cx_get(mkc, F_MKC_LOG_PAGE_SIZE);
	if (mask & CX_UMR_MASK_PD)
		k->pd = pd;
	cx_mkey_take(k, mkc, mask);
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
			       ? apply(cx, q, q->umr_ci, cx_get(ctrl, 96, 32),
				       ctrl + 16, m)
			       : M5_SYND_LOCAL_QP_OP_ERR;
		cx_trace(cx,
			 "umr qp 0x%x: WQE %u opcode 0x%x mkey 0x%x flags 0x%x "
			 "xlt_octowords %u mask 0x%llx: syndrome 0x%x",
			 qpn, idx, opcode, cx_get(ctrl, 96, 32), ctrl[16],
			 cx_get(ctrl + 16, 32, 16),
			 (unsigned long long)cx_get64(ctrl + 16, 8), synd);
		if (synd || (ctrl[11] & M5_WQE_CTRL_CQ_UPDATE))
			complete(cx, q, qpn, idx, opcode, synd);
		q->umr_ci += nbb;
		if (synd)
			return; /* the QP stops at its first error */
	}
}
