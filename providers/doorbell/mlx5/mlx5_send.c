// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The send fast path of the mlx5 backend: each WR is checked completely,
 * then its WQE is built in the SQ; the doorbell record and the doorbell (or
 * a BlueFlame copy of a single WQE) are written once for the whole list.
 */
#include <errno.h>
#include <string.h>

#include "core/attr.h"
#include "mlx5/mlx5.h"

/* fm_ce_se is looked up from send_flags (m5_fm_ce_se), without branches. */
_Static_assert((IBV_SEND_SIGNALED << 2) == M5_WQE_CTRL_CQ_UPDATE &&
		       (IBV_SEND_SOLICITED >> 1) == M5_WQE_CTRL_SOLICITED &&
		       (IBV_SEND_FENCE << 7) == M5_WQE_CTRL_FENCE,
	       "send_flags to fm_ce_se");

/* fm_ce_se of each combination of FENCE, SIGNALED and SOLICITED. */
#define M5_FM_CE_SE(f)                                                         \
	(((f)&IBV_SEND_SIGNALED) << 2 | ((f)&IBV_SEND_SOLICITED) >> 1 |        \
	 ((f)&IBV_SEND_FENCE) << 7)
static const uint8_t m5_fm_ce_se[8] = {
	M5_FM_CE_SE(0), M5_FM_CE_SE(1), M5_FM_CE_SE(2), M5_FM_CE_SE(3),
	M5_FM_CE_SE(4), M5_FM_CE_SE(5), M5_FM_CE_SE(6), M5_FM_CE_SE(7),
};

/* The opcodes of the WRs the backend accepts (qp->opcode_mask is a subset). */
static const uint8_t m5_wr_opcode[] = {
	[IBV_WR_RDMA_WRITE] = M5_OPCODE_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = M5_OPCODE_RDMA_WRITE_IMM,
	[IBV_WR_SEND] = M5_OPCODE_SEND,
	[IBV_WR_SEND_WITH_IMM] = M5_OPCODE_SEND_IMM,
	[IBV_WR_RDMA_READ] = M5_OPCODE_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = M5_OPCODE_ATOMIC_CS,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = M5_OPCODE_ATOMIC_FA,
	[IBV_WR_SEND_WITH_INV] = M5_OPCODE_SEND_INVAL,
};
#define M5_NUM_WR_OPCODES (sizeof(m5_wr_opcode) / sizeof(m5_wr_opcode[0]))

/*
 * Inline payload of a WR: EINVAL if its opcode carries no payload, ENOMEM
 * if it does not fit (libmlx5 v44's answer, qp.c set_data_inl_seg).
 */
static __attribute__((noinline)) int
m5_check_inline(const struct m5_qp *qp, const struct ibv_send_wr *wr,
		uint32_t bit, uint32_t *inl)
{
	uint64_t len = 0;
	int i;

	if (!(bit & M5_OPS_INLINE))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > qp->max_inline_data)
		return ENOMEM;
	*inl = len;
	return 0;
}

/* The rarer checks: atomics, UD address handles, inline data. */
static __attribute__((noinline)) int
m5_check_send_wr_slow(const struct m5_qp *qp, const struct ibv_send_wr *wr,
		      uint32_t bit, uint32_t *inl)
{
	const struct ibv_qp *ibqp = &qp->vqp.qp;

	if ((bit & M5_OPS_ATOMIC) &&
	    (wr->num_sge < 1 || wr->sg_list[0].length < 8 ||
	     (wr->wr.atomic.remote_addr & 7)))
		return EINVAL;
	if (ibqp->qp_type == IBV_QPT_UD && !db_ud_ah_ok(ibqp, wr->wr.ud.ah))
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE)
		return m5_check_inline(qp, wr, bit, inl);
	return 0;
}

/*
 * A WR whose num_sge is not below sq.open_gs: ENOMEM for too many SGEs or
 * a QP that has not reached RTS since its RESET (libmlx5's answer to
 * both), EINVAL for a negative count.
 */
static __attribute__((noinline)) int
m5_sge_refused(const struct ibv_send_wr *wr)
{
	return wr->num_sge < 0 ? EINVAL : ENOMEM;
}

/*
 * An opcode past the table or without a WQE opcode: EOPNOTSUPP for the
 * verbs opcodes this backend lacks, LOCAL_INV, BIND_MW and TSO (ConnectX
 * opcodes that libmlx5 builds), FLUSH and ATOMIC_WRITE (which libmlx5 v44
 * calls unknown: EINVAL), as core/attr.h's policy says; else EINVAL: no
 * opcode at all.
 */
#define M5_OPS_LACKED                                                          \
	(M5_OP(LOCAL_INV) | M5_OP(BIND_MW) | M5_OP(TSO) |                      \
	 1u << 14 /* FLUSH */ | 1u << 15 /* ATOMIC_WRITE */)
static __attribute__((noinline)) int m5_op_unknown(uint32_t op)
{
	return op < 32 && (M5_OPS_LACKED & (1u << op)) ? EOPNOTSUPP : EINVAL;
}

/*
 * An opcode the QP does not take: EOPNOTSUPP for one the backend lacks
 * (inside the table: LOCAL_INV, BIND_MW) or an atomic on an RC QP of a
 * device without host-endian atomics (libmlx5's answer), else EINVAL.
 */
static __attribute__((noinline)) int m5_op_refused(const struct m5_qp *qp,
						   uint32_t bit)
{
	return (bit & M5_OPS_LACKED) ||
			       ((bit & M5_OPS_ATOMIC) &&
				(qp->vqp.qp.qp_type == IBV_QPT_RC ||
				 qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND))
		       ? EOPNOTSUPP
		       : EINVAL;
}

/*
 * A data segment's byte_count has 31 bits: the top one marks an inline
 * segment.  An SGE of 2 GiB or more is refused (rxe refuses it too).
 */
static inline bool m5_sge_lens_ok(const struct ibv_sge *sg, int n)
{
	uint32_t all = 0;
	int i;

	/* One SGE, the common WR: one test, no loop. */
	if (__builtin_expect(n == 1, 1))
		return !(sg[0].length & M5_INLINE_SEG);
	for (i = 0; i < n; i++)
		all |= sg[i].length;
	return !(all & M5_INLINE_SEG);
}

/*
 * Everything about a WR that can be wrong is found here, before any byte
 * of its WQE is written, for both send APIs (m5_sq_check).  num_sge must
 * be below gs (see m5_wq.open_gs).  *inl is the inline payload length, if
 * inline.
 */
static inline int m5_check_send_wr(const struct m5_qp *qp,
				   const struct ibv_send_wr *wr, uint32_t gs,
				   uint32_t *inl)
{
	uint32_t op = wr->opcode, bit;

	if (__builtin_expect(op >= M5_NUM_WR_OPCODES, 0))
		return m5_op_unknown(op);
	bit = 1u << op;
	if (__builtin_expect(!(qp->opcode_mask & bit), 0))
		return m5_op_refused(qp, bit);
	/* The SGE count and the state gate in one (see m5_wq.open_gs). */
	if (__builtin_expect((uint32_t)wr->num_sge >= gs, 0))
		return m5_sge_refused(wr);
	if (__builtin_expect((wr->send_flags & ~M5_SEND_FLAGS) ||
				     !m5_sge_lens_ok(wr->sg_list, wr->num_sge),
			     0))
		return EINVAL;
	*inl = 0;
	if (__builtin_expect((bit & M5_OPS_ATOMIC) ||
				     (wr->send_flags & IBV_SEND_INLINE) ||
				     qp->vqp.qp.qp_type == IBV_QPT_UD,
			     0)) {
		/* One inline SGE on a connected QP: the common inline WR. */
		if ((wr->send_flags & IBV_SEND_INLINE) && wr->num_sge == 1 &&
		    (bit & M5_OPS_INLINE) && qp->vqp.qp.qp_type != IBV_QPT_UD) {
			if (wr->sg_list[0].length > qp->max_inline_data)
				return ENOMEM;
			*inl = wr->sg_list[0].length;
			return 0;
		}
		return m5_check_send_wr_slow(qp, wr, bit, inl);
	}
	return 0;
}

static inline void *m5_sq_wqe(const struct m5_wq *sq, uint32_t idx)
{
	return (char *)sq->buf + ((size_t)idx << M5_SEND_WQE_SHIFT);
}

/* A 16-byte segment never straddles the SQ end (it is 64-byte aligned). */
static inline char *m5_sq_wrap(const struct m5_wq *sq, char *seg)
{
	return __builtin_expect(seg == (char *)sq->qend, 0) ? (char *)sq->buf
							    : seg;
}

static inline void m5_set_data_seg(struct m5_data_seg *d, uint32_t len,
				   uint32_t lkey, uint64_t addr)
{
	d->byte_count = htobe32(len);
	d->lkey = htobe32(lkey);
	d->addr = htobe64(addr);
}

/* Gather list: one data segment per SGE; zero lengths are left out. */
static inline unsigned int m5_set_data_segs(const struct m5_wq *sq, char *seg,
					    const struct ibv_send_wr *wr)
{
	const struct ibv_sge *sg = wr->sg_list;
	unsigned int n = 0;
	int i;

	/* One SGE (segments are 16-byte aligned: this one cannot wrap). */
	if (wr->num_sge == 1 && sg->length && seg != (char *)sq->qend) {
		m5_set_data_seg((struct m5_data_seg *)seg, sg->length, sg->lkey,
				sg->addr);
		return 1;
	}
	for (i = 0; i < wr->num_sge; i++) {
		/* A data segment of byte_count 0 would mean 2 GiB. */
		if (__builtin_expect(!sg[i].length, 0))
			continue;
		seg = m5_sq_wrap(sq, seg);
		m5_set_data_seg((struct m5_data_seg *)seg, sg[i].length,
				sg[i].lkey, sg[i].addr);
		seg += sizeof(struct m5_data_seg);
		n++;
	}
	return n;
}

/*
 * Inline payload: the header, then the bytes back to back, wrapping at the
 * SQ end, zero-padded to 16 bytes.  Returns the 16-byte units used; no
 * segment at all for an empty payload.
 */
static unsigned int m5_set_inline(const struct m5_wq *sq, char *seg,
				  const struct ibv_send_wr *wr, uint32_t inl)
{
	char *dst = seg + sizeof(struct m5_inline_seg);
	const char *qend = sq->qend;
	unsigned int pad;
	uint32_t len, n;
	const char *src;
	int i;

	if (!inl)
		return 0;
	if (wr->num_sge == 1 && (size_t)(qend - dst) > inl) {
		/*
		 * One SGE, no wrap: zero the last 16-byte unit, then write
		 * the header and the bytes over it; what is left of it is the
		 * pad (cheaper than a memset of 0 to 15 bytes).
		 */
		size_t unit = (sizeof(struct m5_inline_seg) + inl - 1) &
			      ~(size_t)(M5_DS_UNIT - 1);
		uint64_t *last = (uint64_t *)(seg + unit);

		last[0] = 0;
		last[1] = 0;
		((struct m5_inline_seg *)seg)->byte_count =
			htobe32(inl | M5_INLINE_SEG);
		memcpy(dst, (const void *)(uintptr_t)wr->sg_list[0].addr, inl);
		return (sizeof(struct m5_inline_seg) + inl + M5_DS_UNIT - 1) /
		       M5_DS_UNIT;
	}
	((struct m5_inline_seg *)seg)->byte_count =
		htobe32(inl | M5_INLINE_SEG);
	for (i = 0; i < wr->num_sge; i++) {
		src = (const char *)(uintptr_t)wr->sg_list[i].addr;
		len = wr->sg_list[i].length;
		if (__builtin_expect((size_t)(qend - dst) <= len, 0)) {
			n = qend - dst;
			memcpy(dst, src, n);
			src += n;
			len -= n;
			dst = sq->buf;
		}
		memcpy(dst, src, len);
		dst += len;
	}
	/* The pad ends on a 16-byte boundary, so it never crosses qend. */
	pad = -(sizeof(struct m5_inline_seg) + inl) & (M5_DS_UNIT - 1);
	memset(dst, 0, pad);
	return (sizeof(struct m5_inline_seg) + inl + M5_DS_UNIT - 1) /
	       M5_DS_UNIT;
}

/* UD: the AH's address vector with the WR's destination QP and Q_Key. */
static inline void m5_set_dgram_seg(struct m5_av *av,
				    const struct ibv_send_wr *wr)
{
	memcpy(av, &to_m5_ah(wr->wr.ud.ah)->av, sizeof(*av));
	av->dqp_dct = htobe32(wr->wr.ud.remote_qpn | M5_EXTENDED_UD_AV);
	av->key.qkey.qkey = htobe32(wr->wr.ud.remote_qkey);
}

/* RDMA and atomics: the remote address, plus the atomic operands. */
static unsigned int m5_set_remote_segs(char *seg, const struct ibv_send_wr *wr,
				       uint32_t bit)
{
	struct m5_raddr_seg *r = (struct m5_raddr_seg *)seg;
	struct m5_atomic_seg *a = (struct m5_atomic_seg *)(r + 1);

	r->reserved = 0;
	if (!(bit & M5_OPS_ATOMIC)) {
		r->raddr = htobe64(wr->wr.rdma.remote_addr);
		r->rkey = htobe32(wr->wr.rdma.rkey);
		return 1;
	}
	r->raddr = htobe64(wr->wr.atomic.remote_addr);
	r->rkey = htobe32(wr->wr.atomic.rkey);
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		a->swap_add = htobe64(wr->wr.atomic.swap);
		a->compare = htobe64(wr->wr.atomic.compare_add);
	} else {
		a->swap_add = htobe64(wr->wr.atomic.compare_add);
		a->compare = 0;
	}
	return 2;
}

/*
 * The segments after the control segment; returns the WQE's ds (16-byte
 * units, control segment included).  Control, remote address and atomic
 * segments share the first WQEBB, as do control and datagram segments.
 */
static inline unsigned int m5_set_segs(const struct m5_qp *qp,
				       const struct ibv_send_wr *wr,
				       uint32_t inl, char *seg)
{
	const struct m5_wq *sq = &qp->sq;
	uint32_t bit = 1u << wr->opcode;
	unsigned int ds = 1;

	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		m5_set_dgram_seg((struct m5_av *)seg, wr);
		seg += sizeof(struct m5_av);
		ds += sizeof(struct m5_av) / M5_DS_UNIT;
	} else if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND) {
		/* The XRC SRQ the message is for, before any other segment. */
		struct m5_xrc_seg *x = (struct m5_xrc_seg *)seg;

		x->xrc_srqn = htobe32(wr->qp_type.xrc.remote_srqn);
		memset(x->rsvd, 0, sizeof(x->rsvd));
		seg += sizeof(*x);
		ds++;
	}
	if (qp->vqp.qp.qp_type != IBV_QPT_UD &&
	    (bit & (M5_OPS_RDMA | M5_OPS_ATOMIC))) {
		unsigned int n = m5_set_remote_segs(seg, wr, bit);

		seg += n * M5_DS_UNIT;
		ds += n;
	}
	seg = m5_sq_wrap(sq, seg);
	if (__builtin_expect(wr->send_flags & IBV_SEND_INLINE, 0))
		return ds + m5_set_inline(sq, seg, wr, inl);
	if (__builtin_expect(bit & M5_OPS_ATOMIC, 0)) {
		/* The 8-byte result lands in the first SGE, which fits it. */
		m5_set_data_seg((struct m5_data_seg *)seg, 8,
				wr->sg_list[0].lkey, wr->sg_list[0].addr);
		return ds + 1;
	}
	return ds + m5_set_data_segs(sq, seg, wr);
}

/*
 * The WQEBBs after a WQE's first are no WQE of their own: mark them so that
 * a CQE naming one (a device that lies) retires nothing.  The mark is 2^31
 * away from any head the poller can be compared with (mlx5_poll.c).
 */
static inline void m5_mark_tail_bbs(struct m5_wq *sq, unsigned int bbs,
				    uint32_t head)
{
	uint32_t not_a_start = head ^ M5_NOT_A_WQE_START;
	unsigned int i;

	for (i = 1; i < bbs; i++)
		sq->wqe_head[(sq->cur_post + i) & (sq->wqe_cnt - 1)] =
			not_a_start;
}

/*
 * The ctrl segment's imm: the immediate data (big-endian already) or the
 * rkey a SEND with Invalidate names (host order: imm_data's union twin).
 * One test on the common path: an opcode with neither.
 */
static inline __be32 m5_ctrl_imm(const struct ibv_send_wr *wr)
{
	uint32_t bit = 1u << wr->opcode;

	if (!(bit & (M5_OPS_IMM | M5_OP(SEND_WITH_INV))))
		return 0;
	return bit & M5_OPS_IMM ? wr->imm_data : htobe32(wr->invalidate_rkey);
}

/*
 * Build the WQE of a checked WR at cur_post and account for it.  The
 * control segment is written last; the device reads none of it before the
 * doorbell.  Returns the WQE's ds.
 */
static inline unsigned int m5_build_wqe(struct m5_qp *qp,
					const struct ibv_send_wr *wr,
					uint32_t inl, unsigned int nreq,
					struct m5_ctrl_seg *ctrl)
{
	struct m5_wq *sq = &qp->sq;
	uint32_t idx = sq->cur_post & (sq->wqe_cnt - 1);
	uint32_t flags = wr->send_flags;
	unsigned int ds, bbs;

	ds = m5_set_segs(qp, wr, inl, (char *)(ctrl + 1));
	*ctrl = (struct m5_ctrl_seg){
		.opmod_idx_opcode = htobe32((sq->cur_post & 0xffff) << 8 |
					    m5_wr_opcode[wr->opcode]),
		.qpn_ds = htobe32(qp->vqp.qp.qp_num << 8 | ds),
		.fm_ce_se = qp->sq_signal_bits |
			    m5_fm_ce_se[flags &
					(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
					 IBV_SEND_SOLICITED)],
		.imm = m5_ctrl_imm(wr),
	};
	sq->wrid[idx] = wr->wr_id;
	sq->wqe_head[idx] = sq->head + nreq;
	bbs = (ds + M5_SEND_WQE_BB / M5_DS_UNIT - 1) /
	      (M5_SEND_WQE_BB / M5_DS_UNIT);
	if (__builtin_expect(bbs > 1, 0))
		m5_mark_tail_bbs(sq, bbs, sq->head + nreq);
	sq->cur_post += bbs;
	return ds;
}

/*
 * Tell the device about the WQEs posted: SND dbrec, then the doorbell, or
 * the whole WQE by BlueFlame when it is the only one and fits.  The order
 * is that of libmlx5 (rdma-core v44 providers/mlx5/qp.c, post_send_db and
 * mlx5_bf_copy).  BlueFlame for every single WQE, inline or not, is
 * libmlx5's default too (MLX5_POST_SEND_PREFER_BF unset;
 * docs/performance.md, "BlueFlame").
 */
static inline void m5_ring_sq(struct m5_qp *qp, unsigned int nreq,
			      const struct m5_ctrl_seg *ctrl, unsigned int ds)
{
	struct m5_bf *bf = qp->bf;
	unsigned int len = ds * M5_DS_UNIT;
	void *reg;
	__be64 db;

	qp->sq.head += nreq;
	/* Orders: the WQE stores before the dbrec store. */
	udma_to_device_barrier();
	m5_dbrec_store(&qp->dbrec[M5_SND_DBR],
		       htobe32(qp->sq.cur_post & 0xffff));
	if (bf->need_lock)
		db_lock(&bf->lock);
	reg = (char *)bf->reg + bf->offset;
	/* Orders: the dbrec store before the write to the UAR. */
	mmio_wc_start();
	/* len > 0, so len <= buf_size also says the bfreg has BlueFlame. */
	if (nreq == 1 && ds > 1 && len <= bf->buf_size && bf->uuarn) {
		len = (len + M5_SEND_WQE_BB - 1) & ~(M5_SEND_WQE_BB - 1);
		m5_bf_copy(reg, ctrl, len, qp->sq.buf, qp->sq.qend);
	} else {
		/* The first 8 bytes of the control segment, as stored. */
		memcpy(&db, ctrl, sizeof(db));
		mmio_write64_be(reg, db);
	}
	/* Orders: the UAR write out of the WC buffer before the next one. */
	mmio_flush_writes();
	/*
	 * Alternate the BlueFlame halves.  Without BlueFlame (buf_size 0,
	 * e.g. bfreg 0, shared by QPs without a lock) nothing is written.
	 */
	if (bf->buf_size)
		bf->offset ^= bf->buf_size;
	if (bf->need_lock)
		db_unlock(&bf->lock);
}

int m5_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr)
{
	struct m5_qp *qp = to_m5_qp(ibqp);
	struct m5_wq *sq = &qp->sq;
	struct m5_ctrl_seg *ctrl = NULL;
	unsigned int nreq = 0, ds = 0;
	uint32_t tail, inl;
	int err = 0;

	/*
	 * No state test here: m5_check_send_wr refuses every WR until the QP
	 * has reached RTS, and takes them in SQD, SQE and ERR, as libmlx5
	 * does (the device holds them in SQD and flushes them in SQE/ERR).
	 */
	db_lock(&sq->lock);
	/* Acquire: pairs with the poller's release of the WQEs it retired. */
	tail = atomic_load_explicit(&sq->tail, memory_order_acquire);
	for (; wr; wr = wr->next, nreq++) {
		err = m5_check_send_wr(qp, wr, qp->sq.open_gs, &inl);
		if (__builtin_expect(err, 0))
			break;
		if (m5_sq_full(sq, &tail, nreq)) {
			err = ENOMEM;
			break;
		}
		ctrl = m5_sq_wqe(sq, sq->cur_post & (sq->wqe_cnt - 1));
		ds = m5_build_wqe(qp, wr, inl, nreq, ctrl);
	}
	if (__builtin_expect(nreq != 0, 1))
		m5_ring_sq(qp, nreq, ctrl, ds);
	db_unlock(&sq->lock);
	if (__builtin_expect(err, 0))
		*bad_wr = wr;
	return err;
}

/*
 * --- The builder above, for the ibv_wr_* API (mlx5_wr.c) ------------------
 * Out-of-line entries so that both APIs write WQEs and ring the SQ with
 * the same code.  flatten inlines the builder here early, so that
 * m5_post_send stays the only caller the inliner weighs and keeps its
 * copies inlined (tests/bench/insn-guard.sh --mlx5 counts it).
 */
__attribute__((flatten)) int
m5_sq_check(const struct m5_qp *qp, const struct ibv_send_wr *wr, uint32_t *inl)
{
	/*
	 * Inline bytes are staged as one SGE, which max_send_sge does not
	 * bound; m5_wr_start has checked the state gate.
	 */
	uint32_t gs = wr->send_flags & IBV_SEND_INLINE ? 2 : qp->sq.open_gs;

	return m5_check_send_wr(qp, wr, gs, inl);
}

__attribute__((flatten)) unsigned int
m5_sq_build(struct m5_qp *qp, const struct ibv_send_wr *wr, uint32_t inl,
	    unsigned int nreq, struct m5_ctrl_seg **ctrl)
{
	struct m5_wq *sq = &qp->sq;

	*ctrl = m5_sq_wqe(sq, sq->cur_post & (sq->wqe_cnt - 1));
	return m5_build_wqe(qp, wr, inl, nreq, *ctrl);
}

__attribute__((flatten)) void m5_sq_ring(struct m5_qp *qp, unsigned int nreq,
					 const struct m5_ctrl_seg *ctrl,
					 unsigned int ds)
{
	m5_ring_sq(qp, nreq, ctrl, ds);
}
