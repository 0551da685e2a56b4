// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Send WQE decoding, written from the mlx5_hw.h layouts alone: copy the
 * WQE out of the ring (wrapping at the queue end), split it into segments
 * in the order the opcode and QP type dictate, and check every field a
 * ConnectX would reject or a provider must get right.
 */
#include <string.h>

#include "m5m_int.h"

uint16_t m5m_snd_dbrec(const struct m5m_qp *qp)
{
	return be32toh(__atomic_load_n(&qp->dbrec[M5_SND_DBR],
				       __ATOMIC_ACQUIRE)) &
	       0xffff;
}

uint16_t m5m_rcv_dbrec(const struct m5m_qp *qp)
{
	return be32toh(__atomic_load_n(&qp->dbrec[M5_RCV_DBR],
				       __ATOMIC_ACQUIRE)) &
	       0xffff;
}

/* Copy nbb WQEBBs starting at idx, wrapping at the end of the SQ. */
static void m5m_wqe_copy(const struct m5m_qp *qp, uint16_t idx, uint8_t *dst,
			 unsigned int nbb)
{
	unsigned int i;

	for (i = 0; i < nbb; i++)
		memcpy(dst + i * M5_SEND_WQE_BB,
		       m5m_sq_slot(qp, (uint16_t)(idx + i)), M5_SEND_WQE_BB);
}

static unsigned int m5m_min_ds(const struct m5m_qp *qp, uint8_t opcode)
{
	/* An XRC INI WQE carries its XRC segment before the rest. */
	unsigned int xrc =
		qp->type == IBV_QPT_XRC_SEND && opcode != M5_OPCODE_NOP;

	switch (opcode) {
	case M5_OPCODE_SEND:
	case M5_OPCODE_SEND_IMM:
	case M5_OPCODE_SEND_INVAL:
		return qp->type == IBV_QPT_UD ? 4 : 1 + xrc;
	case M5_OPCODE_RDMA_WRITE:
	case M5_OPCODE_RDMA_WRITE_IMM:
	case M5_OPCODE_RDMA_READ:
		return 2 + xrc;
	case M5_OPCODE_ATOMIC_CS:
	case M5_OPCODE_ATOMIC_FA:
		return 4 + xrc;
	case M5M_OPCODE_UMR:
		return M5M_UMR_MIN_DS;
	default:
		return 1;
	}
}

static bool m5m_opcode_ok(const struct m5m_qp *qp, uint8_t opcode)
{
	switch (opcode) {
	case M5_OPCODE_NOP:
	case M5_OPCODE_SEND:
	case M5_OPCODE_SEND_IMM:
		return true;
	case M5_OPCODE_SEND_INVAL:
	case M5_OPCODE_RDMA_WRITE:
	case M5_OPCODE_RDMA_WRITE_IMM:
		return qp->type == IBV_QPT_RC || qp->type == IBV_QPT_UC ||
		       qp->type == IBV_QPT_XRC_SEND;
	case M5_OPCODE_RDMA_READ:
	case M5_OPCODE_ATOMIC_CS:
	case M5_OPCODE_ATOMIC_FA:
		return qp->type == IBV_QPT_RC || qp->type == IBV_QPT_XRC_SEND;
	case M5M_OPCODE_UMR: /* libmlx5 binds windows on these */
		return qp->type == IBV_QPT_RC || qp->type == IBV_QPT_UC ||
		       qp->type == IBV_QPT_XRC_SEND;
	default:
		return false;
	}
}

static bool m5m_fm_ce_se_ok(uint8_t v)
{
	uint8_t fm = v >> 5, ce = (v >> 2) & 3;

	return !(v & 0x11) && (ce == 0 || ce == 2) &&
	       (fm == 0 || fm == 1 || fm == 4);
}

#define WQE_CHECK(cond, ...)                                                   \
	do {                                                                   \
		if (!(cond)) {                                                 \
			m5m_violation(dev, &d, __VA_ARGS__);                   \
			ok = false;                                            \
		}                                                              \
	} while (0)

/*
 * The data part, to the end of ds: data segments, an inline segment, or
 * an inline segment (its header and bytes padded to 16) followed by data
 * segments.  A ConnectX gathers the inline bytes first, then the data
 * segments': UCX's ud_mlx5 and rc_mlx5 post a header inline and the
 * payload by pointer in one WQE (openucx/ucx src/uct/ib/ud/accel/ud_mlx5.c,
 * uct_ud_mlx5_ep_am_zcopy).
 */
static bool m5m_wqe_data(struct m5m_qp *qp, struct m5m_wqe *w, unsigned int off)
{
	struct m5m_dev *dev = qp->dev;
	struct m5m_dump d = { .wqe = w };
	unsigned int rem = w->ds * M5_DS_UNIT - off, i, pad;
	uint32_t bc;
	bool ok = true;

	w->nsge = 0;
	w->is_inline = false;
	w->inl_len = 0;
	if (!rem)
		return true;
	bc = be32toh(
		((const struct m5_inline_seg *)(w->raw + off))->byte_count);
	if (bc & M5_INLINE_SEG) {
		w->is_inline = true;
		w->inl_len = bc & ~M5_INLINE_SEG;
		w->inl = w->raw + off + sizeof(struct m5_inline_seg);
		pad = (w->inl_len + sizeof(struct m5_inline_seg) + 15) / 16 *
		      16;
		WQE_CHECK(pad <= rem,
			  "inline length %u overruns the %u bytes ds leaves",
			  w->inl_len, rem);
		if (pad > rem) {
			w->inl_len = rem - sizeof(struct m5_inline_seg);
			return ok;
		}
		off += pad;
		rem -= pad;
	}
	w->sge = (const struct m5_data_seg *)(w->raw + off);
	w->nsge = rem / M5_DS_UNIT;
	for (i = 0; i < w->nsge; i++) {
		bc = be32toh(w->sge[i].byte_count);
		WQE_CHECK(!(bc & M5_INLINE_SEG),
			  "data segment %u carries the inline bit", i);
		WQE_CHECK(bc != 0,
			  "data segment %u has byte_count 0 (2 GiB to the "
			  "device; zero-length SGEs must be skipped)",
			  i);
	}
	return ok;
}

static bool m5m_wqe_segments(struct m5m_qp *qp, struct m5m_wqe *w)
{
	struct m5m_dev *dev = qp->dev;
	struct m5m_dump d = { .wqe = w };
	const struct m5_raddr_seg *ra;
	const struct m5_atomic_seg *at;
	unsigned int off = sizeof(struct m5_ctrl_seg);
	bool ok = true;

	w->av = NULL;
	w->grh = NULL;
	w->has_raddr = w->has_atomic = false;
	w->xrc_srqn = 0;
	if (qp->type == IBV_QPT_XRC_SEND && w->opcode != M5_OPCODE_NOP) {
		w->xrc_srqn =
			be32toh(((const struct m5_xrc_seg *)(w->raw + off))
					->xrc_srqn) &
			0xffffff;
		off += sizeof(struct m5_xrc_seg);
	}
	if (qp->type == IBV_QPT_UD && w->opcode != M5_OPCODE_NOP) {
		w->av = (const struct m5_av *)(w->raw + off);
		WQE_CHECK(be32toh(w->av->dqp_dct) & M5_EXTENDED_UD_AV,
			  "UD address vector without the extended-AV bit");
		off += sizeof(struct m5_av);
	}
	switch (w->opcode) {
	case M5_OPCODE_RDMA_WRITE:
	case M5_OPCODE_RDMA_WRITE_IMM:
	case M5_OPCODE_RDMA_READ:
	case M5_OPCODE_ATOMIC_CS:
	case M5_OPCODE_ATOMIC_FA:
		ra = (const struct m5_raddr_seg *)(w->raw + off);
		w->has_raddr = true;
		w->raddr = be64toh(ra->raddr);
		w->rkey = be32toh(ra->rkey);
		WQE_CHECK(!ra->reserved, "remote address segment reserved "
					 "word is not zero");
		off += sizeof(*ra);
		break;
	default:
		break;
	}
	if (w->opcode == M5_OPCODE_ATOMIC_CS ||
	    w->opcode == M5_OPCODE_ATOMIC_FA) {
		at = (const struct m5_atomic_seg *)(w->raw + off);
		w->has_atomic = true;
		w->swap_add = be64toh(at->swap_add);
		w->compare = be64toh(at->compare);
		off += sizeof(*at);
	}
	if (off > w->ds * M5_DS_UNIT)
		return false;
	if (!m5m_wqe_data(qp, w, off))
		ok = false;
	if (w->has_atomic)
		WQE_CHECK(!w->is_inline && w->nsge == 1 &&
				  be32toh(w->sge[0].byte_count) == 8,
			  "atomic WQE needs exactly one 8-byte data segment");
	if (w->opcode == M5_OPCODE_RDMA_READ)
		WQE_CHECK(!w->is_inline, "RDMA READ with inline data");
	return ok;
}

bool m5m_wqe_decode(struct m5m_qp *qp, uint16_t idx, struct m5m_wqe *w)
{
	struct m5m_dev *dev = qp->dev;
	struct m5m_dump d = { .wqe = w };
	const struct m5_ctrl_seg *c = (const void *)w->raw;
	uint32_t v;
	bool ok = true;

	m5m_wqe_copy(qp, idx, w->raw, 1);
	v = be32toh(c->opmod_idx_opcode);
	w->opmod = v >> 24;
	w->idx = (uint16_t)(v >> 8);
	w->opcode = (uint8_t)v;
	v = be32toh(c->qpn_ds);
	w->qpn = v >> 8;
	w->ds = v & 0x3f;
	w->fm_ce_se = c->fm_ce_se;
	w->imm = c->imm;
	w->nbb = (w->ds * M5_DS_UNIT + M5_SEND_WQE_BB - 1) / M5_SEND_WQE_BB;
	if (!w->nbb)
		w->nbb = 1;
	if (w->nbb > qp->sq_bbs)
		w->nbb = qp->sq_bbs;
	m5m_wqe_copy(qp, idx, w->raw, w->nbb);
	WQE_CHECK(w->idx == idx, "ctrl index 0x%04x, the device expects 0x%04x",
		  w->idx, idx);
	WQE_CHECK(w->qpn == qp->qpn, "ctrl qpn 0x%x on QP 0x%x", w->qpn,
		  qp->qpn);
	WQE_CHECK(!w->opmod && !c->signature && !c->rsvd[0] && !c->rsvd[1],
		  "ctrl opmod, signature or reserved bytes are not zero");
	WQE_CHECK(m5m_fm_ce_se_ok(w->fm_ce_se), "ctrl fm_ce_se 0x%02x",
		  w->fm_ce_se);
	WQE_CHECK(!qp->sq_sig_all || (w->fm_ce_se & M5_WQE_CTRL_CQ_UPDATE),
		  "sq_sig_all QP posted a WQE without CQ_UPDATE");
	if (!m5m_opcode_ok(qp, w->opcode)) {
		WQE_CHECK(false, "opcode 0x%02x is not valid on this QP",
			  w->opcode);
		return false;
	}
	WQE_CHECK(w->ds >= m5m_min_ds(qp, w->opcode),
		  "ds %u is below the %u the opcode needs", w->ds,
		  m5m_min_ds(qp, w->opcode));
	WQE_CHECK(w->ds * M5_DS_UNIT <= (size_t)qp->sq_bbs * M5_SEND_WQE_BB,
		  "ds %u is larger than the SQ", w->ds);
	/* SEND_INVAL carries the rkey to invalidate in the imm field, UMR
	 * the key it changes. */
	WQE_CHECK(w->opcode == M5_OPCODE_SEND_IMM ||
			  w->opcode == M5_OPCODE_RDMA_WRITE_IMM ||
			  w->opcode == M5_OPCODE_SEND_INVAL ||
			  w->opcode == M5M_OPCODE_UMR || !w->imm,
		  "ctrl imm set on an opcode without immediate data");
	if (!ok || w->ds < m5m_min_ds(qp, w->opcode))
		return false;
	if (w->opcode == M5M_OPCODE_UMR) {
		/* No XRC segment, no data: the umr op reads w->raw. */
		w->av = NULL;
		w->has_raddr = w->has_atomic = w->is_inline = false;
		w->xrc_srqn = 0;
		w->nsge = 0;
		w->inl_len = 0;
		return true;
	}
	return m5m_wqe_segments(qp, w);
}
