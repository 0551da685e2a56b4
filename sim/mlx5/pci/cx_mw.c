// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows: the UMR WQEs libmlx5 posts on a user RC, UC or XRC
 * send QP (qp.c set_bind_wr()) for ibv_bind_mw (type 1), IBV_WR_BIND_MW
 * (type 2) and IBV_WR_LOCAL_INV.  The window is a KLM key made by
 * mlx5_ib_alloc_mw() (cx_mkey.c); the ctrl segment's immediate names it
 * by index (libmlx5 gives the window's first rkey, whatever variant it
 * has now).  The WQE: ctrl (16 bytes), UMR ctrl (48: flags, klm
 * octowords, mkey_mask), mkey segment (64, the mkc layout: free, access,
 * qpn and the new variant, start, len), then for a bind one inline KLM
 * entry (byte_count, mkey, address) padded to 64 bytes.
 *
 * A bind (LEN in the mask, free 0) points the window at [address,
 * address + len) of the MR its KLM entry names and gives it the rights
 * of the mkey segment; a bind with free 1 (zero length: unbind, or local
 * invalidate) frees it.  The rules, each an error CQE that changes
 * nothing:
 * - a mask bit libmlx5 never sets, no INLINE flag, or a bind without
 *   its KLM entry: LOCAL_QP_OP_ERR;
 * - then MW_BIND_ERR when: the key is not a window (KLM, umr_en) of the
 *   QP's PD; CHECK_FREE (a type-2 bind) and the window is in use;
 *   CHECK_QPN (a type-2 invalidate) and the window is bound to another
 *   QP; the MR is not a valid PA or MTT key of the window's PD in use;
 *   the window is not inside the MR; remote write or atomic rights on an
 *   MR without local write.
 * Not checked: IBV_ACCESS_MW_BIND on the MR and the QP's bind rights (the
 * mkc and QPC have no bit for them; libmlx5 checks the MR's flag only
 * under MW_DEBUG), and which QP a type-2 window's remote accesses come
 * through (the engine's translation does not name the QP).
 */
#include <stddef.h>

#include "cx_ifc.h"
#include "cx_int.h"
#include "mlx5/mlx5_hw.h"

enum {
	UCTRL = 16,		  /* the UMR ctrl segment */
	MKC = 64,		  /* the mkey segment */
	KLM = 128,		  /* the KLM entry */
	KLM_DS = (KLM + 64) / 16, /* ds of a bind with its entry */
	F_CHECK_QPN = 1 << 3,	  /* MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN */
	F_CHECK_FREE = 1 << 5,	  /* MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE */
};

/* The mkey_mask bits libmlx5's binds set (cx_int.h). */
#define M_TAKEN                                                                \
	(CX_UMR_MASK_LEN | CX_UMR_MASK_START | CX_UMR_MASK_KEY |               \
	 CX_UMR_MASK_QPN | CX_UMR_MASK_LW | CX_UMR_MASK_RR | CX_UMR_MASK_RW |  \
	 CX_UMR_MASK_A | CX_UMR_MASK_FREE)

static bool is_window(const struct cx_mkey *w, uint32_t pdn)
{
	return w && w->mode == CX_MKEY_MODE_KLM && w->umr_en && w->pd == pdn;
}

/* The bind's MR: a key of the window's PD, in use, covering the range. */
static int check_mr(struct cx *cx, const struct cx_mkey *w, const uint8_t *m,
		    const uint8_t *klm)
{
	const struct cx_mkey *mr = cx_mkey_get(cx, cx_get(klm, 32, 32));
	uint64_t at = cx_get64(klm, 8), len = cx_get64(m, B_MKC_LEN);

	if (!mr || mr->free || mr->mode == CX_MKEY_MODE_KLM || mr->pd != w->pd)
		return M5_SYND_MW_BIND_ERR;
	if (cx_get(klm, 0, 32) < len || at + len < at)
		return M5_SYND_MW_BIND_ERR;
	if (!mr->length64 &&
	    (at < mr->start || len > mr->len || at - mr->start > mr->len - len))
		return M5_SYND_MW_BIND_ERR;
	if ((cx_get(m, F_MKC_RW) || cx_get(m, F_MKC_A)) &&
	    !(mr->access & CX_MKEY_LW))
		return M5_SYND_MW_BIND_ERR;
	return 0;
}

int cx_mw_umr(struct cx *cx, uint32_t qpn, uint32_t pdn, const uint8_t *wqe,
	      unsigned int ds)
{
	const uint8_t *u = wqe + UCTRL, *m = wqe + MKC, *klm = wqe + KLM;
	struct cx_mkey *w = cx_mkey_at(cx, cx_get(wqe, 96, 32));
	uint64_t mask = cx_get64(u, 8);
	bool bind = (mask & CX_UMR_MASK_LEN) && !cx_get(m, F_MKC_FREE);
	int synd;

	if ((mask & ~M_TAKEN) || !(u[0] & CX_UMR_INLINE) ||
	    (bind && (ds < KLM_DS || !cx_get(u, 32, 16))))
		return M5_SYND_LOCAL_QP_OP_ERR;
	if (!is_window(w, pdn))
		return M5_SYND_MW_BIND_ERR;
	if ((u[0] & F_CHECK_FREE) && !w->free)
		return M5_SYND_MW_BIND_ERR;
	if ((u[0] & F_CHECK_QPN) && w->qpn != qpn)
		return M5_SYND_MW_BIND_ERR;
	if (bind) {
		synd = check_mr(cx, w, m, klm);
		if (synd)
			return synd;
		w->klm_key = cx_get(klm, 32, 32);
		w->klm_addr = cx_get64(klm, 8);
		w->len = cx_get64(m, B_MKC_LEN);
		w->length64 = false;
	}
	cx_mkey_take(w, m, mask);
	cx_trace(cx,
		 "mw: qp 0x%x key 0x%x mask 0x%llx flags 0x%x: %s, free %u "
		 "access 0x%x start 0x%llx len 0x%llx via 0x%x",
		 qpn, cx_get(wqe, 96, 32), (unsigned long long)mask, u[0],
		 bind ? "bound" : "changed", w->free, w->access,
		 (unsigned long long)w->start, (unsigned long long)w->len,
		 w->klm_key);
	return 0;
}
