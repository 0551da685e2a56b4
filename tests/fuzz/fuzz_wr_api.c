// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_wr_api: sessions of ibv_wr_* calls on an extended QP in ordinary
 * memory (rxe_qp_set_wr_ops): wr_start, any builders with any wr_id and
 * wr_flags, the setters (UD address, one SGE, SGE lists and inline data
 * lists of fuzz lengths), then wr_complete or wr_abort; between sessions
 * the kernel consumes WQEs.
 *
 * Checked:
 * - wr_complete returns 0, EINVAL or ENOMEM; with a sane kernel exactly
 *   what the rules predict (the first error of the session wins);
 * - on success the producer index moves by the number of WRs built and
 *   each WQE holds what its builder and last setters gave;
 * - on an error and on wr_abort nothing is published: the producer index,
 *   our index and the cached free-slot count are as at wr_start;
 * - no write outside the ring (ASan), past 208 + max(SGE array,
 *   max_inline) in any slot, or into a slot the kernel has not consumed;
 * - inline data is copied only when the lengths fit (each buffer points
 *   into a max_inline-byte allocation where it fits if its length does);
 * - the SQ lock is held from wr_start and free after complete/abort.
 */
#include <errno.h>

#include "fuzz.h"

/*
 * ibv_post_send, ibv_wr_set_sge_list and ibv_wr_set_sge all refuse a
 * message above 2 GiB (RXE_MAX_MSG).  set_sge once did not (found by this
 * target; tests/fuzz/repro/wr_set_sge_over_2g.c); -DFZ_SET_SGE_CHECKS_MAX_MSG=0
 * models that old behaviour.
 */
#ifndef FZ_SET_SGE_CHECKS_MAX_MSG
#define FZ_SET_SGE_CHECKS_MAX_MSG 1
#endif

#define FZ_MAX_SESSIONS 8
#define FZ_MAX_CALLS	24
#define FZ_MAX_BUILT	64
#define FZ_MAX_LIST	40

/* What one built WQE should hold when the session completes. */
struct expect {
	uint32_t opcode;
	uint64_t wr_id;
	uint32_t flags;	      /* without INLINE */
	uint32_t imm_or_rkey; /* ex: imm_data or invalidate_rkey */
	uint64_t raddr, cmp, swap;
	uint32_t rkey;
	bool ud; /* set_ud_addr was called */
	uint32_t ah_num, qpn, qkey;
	const struct ibv_mw *mw;
	struct ibv_mw_bind_info bi;
	uint32_t mw_rkey;
	int data; /* 0 none, 1 SGEs, 2 inline */
	uint32_t num_sge;
	uint64_t len;
	struct ibv_sge sge[FZ_MAX_LIST];
	uint8_t *inl; /* expected inline bytes, len of them */
};

struct ctx {
	struct fz_qp f;
	struct ibv_qp_ex *qpx;
	bool sane;
	uint8_t *inl_src; /* max_inline bytes */
	struct rxe_ah ah_ok, ah_other, ah_other_ctx;
	struct ibv_mw mw_ok, mw_other;
	struct ibv_mr mr;
	/* the session */
	int err;	    /* the model's first error */
	struct expect *cur; /* the WQE the setters fill */
	struct expect built[FZ_MAX_BUILT];
	uint32_t nbuilt;
	uint32_t room; /* free slots, for the model */
};

static const uint32_t payload_ops =
	(1u << IBV_WR_RDMA_WRITE) | (1u << IBV_WR_RDMA_WRITE_WITH_IMM) |
	(1u << IBV_WR_SEND) | (1u << IBV_WR_SEND_WITH_IMM) |
	(1u << IBV_WR_SEND_WITH_INV);

static uint32_t allowed_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return payload_ops | (1u << IBV_WR_RDMA_READ) |
		       (1u << IBV_WR_ATOMIC_CMP_AND_SWP) |
		       (1u << IBV_WR_ATOMIC_FETCH_AND_ADD) |
		       (1u << IBV_WR_LOCAL_INV) | (1u << IBV_WR_BIND_MW);
	case IBV_QPT_UC:
		return payload_ops | (1u << IBV_WR_BIND_MW);
	case IBV_QPT_UD:
		return (1u << IBV_WR_SEND) | (1u << IBV_WR_SEND_WITH_IMM);
	default:
		return 0;
	}
}

static void fail(struct ctx *c, int err)
{
	if (!c->err)
		c->err = err;
	c->cur = NULL;
}

/*
 * The end of the WR described so far (rxe_wr_end): an atomic needs an
 * 8-byte result buffer and an 8-byte aligned target.
 */
static void model_end(struct ctx *c)
{
	struct expect *e = c->cur;

	if (e &&
	    (e->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	     e->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	    (e->len < 8 || (e->raddr & 7)))
		fail(c, EINVAL);
	c->cur = NULL;
}

/* The model of a builder: a new WQE, or the session's first error. */
static struct expect *model_new(struct ctx *c, uint32_t op)
{
	struct expect *e;

	model_end(c);
	if (c->err)
		return NULL;
	if (!(allowed_ops(c->f.qp->vqp.qp.qp_type) & (1u << op)) ||
	    (c->qpx->wr_flags &
	     ~(unsigned int)(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			     IBV_SEND_SOLICITED | IBV_SEND_INLINE))) {
		fail(c, EINVAL);
		return NULL;
	}
	if (!c->room || c->nbuilt == FZ_MAX_BUILT) {
		fail(c, ENOMEM);
		return NULL;
	}
	c->room--;
	e = &c->built[c->nbuilt++];
	free(e->inl);
	memset(e, 0, sizeof(*e));
	e->opcode = op;
	e->wr_id = c->qpx->wr_id;
	e->flags = c->qpx->wr_flags & ~IBV_SEND_INLINE;
	c->cur = e;
	return e;
}

static void call_builder(struct ctx *c, struct fz *in)
{
	struct ibv_qp_ex *qpx = c->qpx;
	uint8_t which = fz_u8(in) % 10;
	uint32_t rkey = fz_u32(in), imm = fz_u32(in);
	uint64_t addr = fz_u64(in), a2 = fz_u64(in), a3 = fz_u64(in);
	struct expect *e;

	qpx->wr_id = fz_u64(in);
	qpx->wr_flags = fz_u8(in) < 224 ? fz_u8(in) & 0xf : fz_u32(in);
	if (which == 3 || which == 4) {
		/* Atomics need an 8-byte aligned remote address. */
		if (fz_bool(in))
			addr &= ~(uint64_t)7;
	}
	switch (which) {
	case 0:
		qpx->wr_rdma_write(qpx, rkey, addr);
		if ((e = model_new(c, IBV_WR_RDMA_WRITE)))
			e->raddr = addr, e->rkey = rkey;
		break;
	case 1:
		qpx->wr_rdma_write_imm(qpx, rkey, addr, imm);
		if ((e = model_new(c, IBV_WR_RDMA_WRITE_WITH_IMM)))
			e->raddr = addr, e->rkey = rkey, e->imm_or_rkey = imm;
		break;
	case 2:
		qpx->wr_rdma_read(qpx, rkey, addr);
		if ((e = model_new(c, IBV_WR_RDMA_READ)))
			e->raddr = addr, e->rkey = rkey;
		break;
	case 3:
	case 4:
		if (which == 3)
			qpx->wr_atomic_cmp_swp(qpx, rkey, addr, a2, a3);
		else
			qpx->wr_atomic_fetch_add(qpx, rkey, addr, a2);
		e = model_new(c, which == 3 ? IBV_WR_ATOMIC_CMP_AND_SWP
					    : IBV_WR_ATOMIC_FETCH_AND_ADD);
		if (e) {
			e->raddr = addr;
			e->rkey = rkey;
			e->cmp = a2;
			e->swap = which == 3 ? a3 : 0;
		}
		break;
	case 5: {
		uint8_t m = fz_u8(in);
		struct ibv_mw *mw = (m & 3) == 0   ? NULL
				    : (m & 3) == 3 ? &c->mw_other
						   : &c->mw_ok;
		struct ibv_mw_bind_info bi = {
			.mr = (m & 4) ? &c->mr : NULL,
			.addr = a2,
			.length = (m & 8) ? a3 : 0,
			.mw_access_flags = imm,
		};
		const struct ibv_mw_bind_info *bip = (m & 16) ? NULL : &bi;

		qpx->wr_bind_mw(qpx, mw, rkey, bip);
		if (!mw || !bip || (!bi.mr && bi.length) ||
		    mw->context != &c->f.ctx) {
			fail(c, EINVAL);
			break;
		}
		if ((e = model_new(c, IBV_WR_BIND_MW))) {
			e->mw = mw;
			e->bi = bi;
			e->mw_rkey = rkey;
		}
		break;
	}
	case 6:
		qpx->wr_local_inv(qpx, rkey);
		if ((e = model_new(c, IBV_WR_LOCAL_INV)))
			e->imm_or_rkey = rkey;
		break;
	case 7:
		qpx->wr_send(qpx);
		model_new(c, IBV_WR_SEND);
		break;
	case 8:
		qpx->wr_send_imm(qpx, imm);
		if ((e = model_new(c, IBV_WR_SEND_WITH_IMM)))
			e->imm_or_rkey = imm;
		break;
	default:
		qpx->wr_send_inv(qpx, rkey);
		if ((e = model_new(c, IBV_WR_SEND_WITH_INV)))
			e->imm_or_rkey = rkey;
		break;
	}
}

/* Inline buffers: inside inl_src where the length fits, if it can. */
static void *inline_addr(struct ctx *c, struct fz *in, uint64_t len)
{
	uint32_t max = c->f.qp->sq.max_inline;
	uint64_t off = 0;

	if (len <= max)
		off = fz_u16(in) % (max - len + 1);
	return c->inl_src + off;
}

static void call_setter(struct ctx *c, struct fz *in)
{
	struct ibv_qp_ex *qpx = c->qpx;
	struct rxe_qp *qp = c->f.qp;
	struct expect *e = c->cur;
	uint8_t which = fz_u8(in) % 5;
	size_t n, i;

	/* A UD address on an RC or UC WQE would land on its RDMA fields. */
	if (which == 0 && qp->vqp.qp.qp_type != IBV_QPT_UD)
		which = 1;
	switch (which) {
	case 0: {
		uint8_t a = fz_u8(in) % 4;
		struct ibv_ah *ah = a == 0   ? NULL
				    : a == 1 ? &c->ah_ok.ibv_ah
				    : a == 2 ? &c->ah_other.ibv_ah
					     : &c->ah_other_ctx.ibv_ah;
		uint32_t qpn = fz_u32(in), qkey = fz_u32(in);

		qpx->wr_set_ud_addr(qpx, ah, qpn, qkey);
		if (!e)
			break;
		if (!ah || ah->context != &c->f.ctx ||
		    ah->pd->handle != c->f.pd.handle) {
			fail(c, EINVAL);
			break;
		}
		e->ud = true;
		e->ah_num = to_rxe_ah(ah)->ah_num;
		e->qpn = qpn;
		e->qkey = qkey;
		break;
	}
	case 1: {
		uint32_t lkey = fz_u32(in), len = fz_len(in, 4096);
		uint64_t addr = fz_u64(in);

		qpx->wr_set_sge(qpx, lkey, addr, len);
		if (!e)
			break;
		if (!qp->sq.max_sge ||
		    (FZ_SET_SGE_CHECKS_MAX_MSG && len > ((uint64_t)1 << 31))) {
			fail(c, EINVAL);
			break;
		}
		e->data = 1;
		e->num_sge = 1;
		e->len = len;
		e->sge[0] = (struct ibv_sge){ addr, len, lkey };
		break;
	}
	case 2: {
		struct ibv_sge *sg;
		uint64_t len = 0;

		n = fz_u8(in) % (FZ_MAX_LIST + 1);
		/* Exactly n entries: ASan sees a read past the last. */
		sg = malloc(n ? n * sizeof(*sg) : 1);
		FZ_ASSERT(sg, "out of memory");
		for (i = 0; i < n; i++) {
			sg[i].addr = fz_u64(in);
			sg[i].length = fz_len(in, 1u << 30);
			sg[i].lkey = fz_u32(in);
			len += sg[i].length;
		}
		qpx->wr_set_sge_list(qpx, n, sg);
		if (e) {
			if (n > qp->sq.max_sge || len > ((uint64_t)1 << 31)) {
				fail(c, EINVAL);
			} else {
				e->data = 1;
				e->num_sge = n;
				e->len = len;
				memcpy(e->sge, sg, n * sizeof(*sg));
			}
		}
		free(sg);
		break;
	}
	default: {
		struct ibv_data_buf *bl;
		uint64_t len = 0;
		bool one = which == 3;

		n = one ? 1 : fz_u8(in) % 9;
		bl = malloc(n ? n * sizeof(*bl) : 1);
		FZ_ASSERT(bl, "out of memory");
		for (i = 0; i < n; i++) {
			uint8_t sel = fz_u8(in);

			bl[i].length = sel < 250 ? fz_len(in, qp->sq.max_inline)
						 : (size_t)fz_u64(in);
			bl[i].addr = inline_addr(c, in, bl[i].length);
			len += bl[i].length;
			if (len < bl[i].length)
				len = UINT64_MAX; /* wrapped */
		}
		if (one)
			qpx->wr_set_inline_data(qpx, bl[0].addr, bl[0].length);
		else
			qpx->wr_set_inline_data_list(qpx, n, bl);
		if (e) {
			if (!(payload_ops & (1u << e->opcode)) ||
			    len > qp->sq.max_inline) {
				fail(c, EINVAL);
			} else {
				uint8_t *p;

				free(e->inl);
				e->inl = p = malloc(len ? len : 1);
				FZ_ASSERT(p, "out of memory");
				for (i = 0; i < n; i++) {
					memcpy(p, bl[i].addr, bl[i].length);
					p += bl[i].length;
				}
				e->data = 2;
				e->num_sge = 0;
				e->len = len;
			}
		}
		free(bl);
		break;
	}
	}
}

static void check_wqe(struct ctx *c, const struct expect *e, uint32_t idx)
{
	const struct rxe_send_wqe *w = rxe_ring_slot(&c->f.qp->sq.ring, idx);
	size_t used;
	uint32_t i;

	FZ_ASSERT(w->wr.opcode == e->opcode && w->wr.wr_id == e->wr_id &&
			  w->wr.send_flags ==
				  (e->flags |
				   (e->data == 2 ? IBV_SEND_INLINE : 0)),
		  "WQE %u: opcode %u wr_id %llx flags %x", idx, w->wr.opcode,
		  (unsigned long long)w->wr.wr_id, w->wr.send_flags);
	FZ_ASSERT(w->wr.ex.invalidate_rkey == e->imm_or_rkey,
		  "WQE %u imm/invalidate rkey", idx);
	FZ_ASSERT(w->status == 0 && w->state == 0 && w->mask == 0 &&
			  w->has_rd_atomic == 0 && w->ssn == 0 &&
			  w->dma.cur_sge == 0 && w->dma.sge_offset == 0,
		  "WQE %u keeps kernel state of the slot's last use", idx);
	switch (e->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		FZ_ASSERT(w->wr.wr.atomic.remote_addr == e->raddr &&
				  w->wr.wr.atomic.compare_add == e->cmp &&
				  w->wr.wr.atomic.swap == e->swap &&
				  w->wr.wr.atomic.rkey == e->rkey &&
				  w->iova == e->raddr,
			  "WQE %u atomic arguments", idx);
		break;
	case IBV_WR_BIND_MW:
		FZ_ASSERT(w->wr.wr.mw.addr == e->bi.addr &&
				  w->wr.wr.mw.length == e->bi.length &&
				  w->wr.wr.mw.mr_lkey ==
					  (e->bi.mr ? e->bi.mr->lkey : 0) &&
				  w->wr.wr.mw.mw_rkey == e->mw->rkey &&
				  w->wr.wr.mw.rkey == e->mw_rkey &&
				  w->wr.wr.mw.access == e->bi.mw_access_flags,
			  "WQE %u MW bind arguments", idx);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		FZ_ASSERT(w->wr.wr.rdma.remote_addr == e->raddr &&
				  w->wr.wr.rdma.rkey == e->rkey &&
				  w->iova == e->raddr,
			  "WQE %u RDMA arguments", idx);
		break;
	default:
		break;
	}
	if (e->ud)
		FZ_ASSERT(w->wr.wr.ud.ah_num == e->ah_num &&
				  w->wr.wr.ud.remote_qpn == e->qpn &&
				  w->wr.wr.ud.remote_qkey == e->qkey,
			  "WQE %u UD address", idx);
	FZ_ASSERT(w->dma.length == e->len && w->dma.resid == e->len &&
			  w->dma.num_sge == e->num_sge,
		  "WQE %u: length %u num_sge %u, expected %llu and %u", idx,
		  w->dma.length, w->dma.num_sge, (unsigned long long)e->len,
		  e->num_sge);
	used = sizeof(*w);
	if (e->data == 1) {
		for (i = 0; i < e->num_sge; i++)
			FZ_ASSERT(w->dma.sge[i].addr == e->sge[i].addr &&
					  w->dma.sge[i].length ==
						  e->sge[i].length &&
					  w->dma.sge[i].lkey == e->sge[i].lkey,
				  "WQE %u SGE %u", idx, i);
		used += e->num_sge * sizeof(struct rxe_sge);
	} else if (e->data == 2) {
		FZ_ASSERT(memcmp(w->dma.inline_data, e->inl, e->len) == 0,
			  "WQE %u inline bytes", idx);
		used += e->len;
	}
	FZ_ASSERT(used <= c->f.slot_used_max, "WQE %u uses %zu of %zu bytes",
		  idx, used, c->f.slot_used_max);
}

static void session(struct ctx *c, struct fz *in)
{
	struct ibv_qp_ex *qpx = c->qpx;
	struct rxe_qp *qp = c->f.qp;
	struct rxe_ring *r = &qp->sq.ring;
	uint32_t own0, room0, prod0, kcons, kc_now, i, calls;
	bool complete;
	int ret;

	fz_ring_snap(&c->f.sq);
	kc_now = r->buf->consumer_index;
	prod0 = r->buf->producer_index;
	qpx->wr_start(qpx);
	own0 = r->own;
	room0 = qp->sq.room;
	FZ_ASSERT(!qp->sq.lock.need || !fz_lock_free(&qp->sq.lock),
		  "wr_start returned without the SQ lock");
	c->err = qp->vqp.qp.state < IBV_QPS_RTS ? EINVAL : 0;
	c->cur = NULL;
	c->nbuilt = 0;
	c->room = fz_room(r);
	calls = fz_u8(in) % FZ_MAX_CALLS;
	for (i = 0; i < calls && in->n; i++) {
		uint8_t op = fz_u8(in);

		if (op < 100)
			call_builder(c, in);
		else if (op < 250)
			call_setter(c, in);
		else if (c->sane) {
			/* The kernel runs while we build: it only frees. */
			uint32_t before = fz_room(r);

			fz_kernel_consume(&c->f, in, true);
			c->room += fz_room(r) - before;
			kc_now = r->buf->consumer_index;
		}
	}
	complete = fz_u8(in) < 200;
	if (complete) {
		model_end(c);
		ret = qpx->wr_complete(qpx);
		FZ_ASSERT(ret == 0 || ret == EINVAL || ret == ENOMEM,
			  "wr_complete returned %d", ret);
		if (c->sane)
			FZ_ASSERT(ret == c->err,
				  "wr_complete returned %d, the rules say %d",
				  ret, c->err);
	} else {
		qpx->wr_abort(qpx);
		ret = -1;
	}
	FZ_ASSERT(fz_lock_free(&qp->sq.lock), "the SQ lock is still held");
	FZ_ASSERT(r->buf->consumer_index == kc_now,
		  "the provider wrote the kernel's consumer index");
	/* Slots the kernel still owns now were owned all along. */
	kcons = r->buf->consumer_index & r->mask;
	if (ret != 0) {
		/* Nothing published, everything as at wr_start. */
		FZ_ASSERT(r->buf->producer_index == prod0,
			  "producer index %u published after an error/abort "
			  "(was %u)",
			  r->buf->producer_index, prod0);
		FZ_ASSERT(r->own == own0 && qp->sq.room == room0,
			  "index %u room %u after an error/abort, were %u %u",
			  r->own, qp->sq.room, own0, room0);
	} else if (c->sane) {
		FZ_ASSERT(((r->own - own0) & r->mask) == c->nbuilt &&
				  r->buf->producer_index ==
					  (c->nbuilt ? r->own : prod0),
			  "%u WRs built, index moved %u, published %u",
			  c->nbuilt, (r->own - own0) & r->mask,
			  r->buf->producer_index);
		for (i = 0; i < c->nbuilt; i++)
			check_wqe(c, &c->built[i], (own0 + i) & r->mask);
	} else {
		/* An insane kernel index changes how many fit (the provider
		 * trusts the free slots it last saw): what was built is
		 * published all the same. */
		FZ_ASSERT(r->buf->producer_index ==
				  (r->own != own0 ? r->own : prod0),
			  "index moved %u, published %u",
			  (r->own - own0) & r->mask, r->buf->producer_index);
	}
	/* No slot the kernel still owns was written; no slot past its
	 * largest WQE. */
	for (i = 0; i <= r->mask; i++) {
		if (c->sane && fz_in_flight(r, kcons, own0, i))
			FZ_ASSERT(fz_slot_same(&c->f.sq, i),
				  "slot %u written while the kernel owns it",
				  i);
		FZ_ASSERT(fz_slot_tail_same(&c->f.sq, i, c->f.slot_used_max),
			  "slot %u written past %zu bytes", i,
			  c->f.slot_used_max);
	}
	if (c->sane)
		FZ_ASSERT(qp->sq.room <= fz_room(r),
			  "%u free slots cached, %u free", qp->sq.room,
			  fz_room(r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC,
		IBV_QPT_UC,
		IBV_QPT_UD,
		IBV_QPT_RC,
	};
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPS_RTS,	 IBV_QPS_RTS,
		IBV_QPS_SQD, IBV_QPS_ERR, IBV_QPS_RESET, IBV_QPS_RTR,
	};
	struct fz in = { data, size };
	struct ctx *c;
	uint8_t cfg = fz_u8(&in);
	uint32_t max_sge, max_inline, log2_slots, own, i;
	int s;

	c = calloc(1, sizeof(*c));
	FZ_ASSERT(c, "out of memory");
	c->sane = !(cfg & 0x80);
	max_sge = fz_u8(&in) % (FZ_MAX_LIST + 1);
	max_inline = fz_u16(&in) % 1025;
	log2_slots = fz_u8(&in) % 7; /* one slot: a queue with no room */
	fz_qp_init(&c->f, types[cfg & 3], states[fz_u8(&in) % 8], max_sge,
		   max_inline, log2_slots, (cfg >> 3) & 1, cfg & 0x10);
	rxe_qp_set_wr_ops(c->f.qp);
	c->qpx = &c->f.qp->vqp.qp_ex;
	own = fz_u32(&in) & c->f.qp->sq.ring.mask;
	c->f.qp->sq.ring.own = own;
	c->f.qp->sq.ring.buf->producer_index = own;
	c->f.qp->sq.ring.buf->consumer_index = own;
	c->inl_src = malloc(max_inline ? max_inline : 1);
	FZ_ASSERT(c->inl_src, "out of memory");
	fz_fill(&in, c->inl_src, max_inline, 0x3c);
	c->ah_ok.ibv_ah.pd = &c->f.pd;
	c->ah_ok.ah_num = 5;
	c->ah_ok.ibv_ah.context = &c->f.ctx;
	c->ah_other.ibv_ah.pd = &c->f.other_pd;
	c->ah_other.ibv_ah.context = &c->f.ctx;
	c->ah_other.ah_num = 6;
	/* The QP's PD handle, but another context's AH. */
	c->ah_other_ctx.ibv_ah.pd = &c->f.pd;
	c->ah_other_ctx.ibv_ah.context = &c->f.other_ctx;
	c->ah_other_ctx.ah_num = 7;
	c->mw_ok.context = &c->f.ctx;
	c->mw_ok.rkey = 0x1234;
	c->mw_other.context = &c->f.other_ctx;
	c->mr.lkey = 0x4321;

	for (s = 0; s < FZ_MAX_SESSIONS && in.n; s++) {
		session(c, &in);
		fz_kernel_consume(&c->f, &in, c->sane);
		if ((fz_u8(&in) & 7) == 0)
			c->f.qp->vqp.qp.state = states[fz_u8(&in) % 8];
	}
	for (i = 0; i < FZ_MAX_BUILT; i++)
		free(c->built[i].inl);
	free(c->inl_src);
	fz_qp_free(&c->f);
	free(c);
	return 0;
}
