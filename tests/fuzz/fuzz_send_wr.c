// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_send_wr: lists of send WRs built from fuzz bytes (opcode, flags,
 * num_sge, SGE lengths and addresses, inline, remote addresses, AH, MW),
 * posted with rxe_post_send on a QP in ordinary memory (RC, UC, UD or a type
 * rxe does not run; any caps; any state) whose doorbell writes /dev/null,
 * in rounds between which the kernel consumes WQEs.
 *
 * Checked against the rules the README and the man pages give:
 * - the return is 0, EINVAL or ENOMEM, and exactly the one these rules
 *   predict; *bad_wr is the first WR not posted; the WRs before it are
 *   posted and the producer index moves by exactly their number;
 * - each posted WQE holds its WR (opcode, flags, lengths, SGEs or inline
 *   bytes, remote address, AH number, MW fields, zeroed kernel fields);
 * - no byte changes outside the posted slots, nothing past 208 + max(SGE
 *   array, max_inline) in any slot, no slot the kernel has not consumed,
 *   and no header word but the producer index (ASan: nothing outside the
 *   ring, the SGE lists or the inline source buffer);
 * - inline data is copied only when its length fits: each inline SGE
 *   points into a buffer of exactly max_inline bytes, at an offset where
 *   its length fits if it is at most max_inline, so a copy made before the
 *   length check reads past the buffer;
 * - non-inline SGE addresses are fuzz values that are never dereferenced;
 * - the SQ lock is free afterwards; the cached free-slot count never
 *   exceeds what the kernel's index says (sane kernel).
 */
#include <errno.h>

#include "fuzz.h"

#define FZ_MAX_WRS    8
#define FZ_MAX_ROUNDS 8
#define FZ_MAX_SGE    32

struct wr_buf {
	struct ibv_send_wr wr;
	struct ibv_sge *sge; /* exactly num_sge entries, or NULL */
};

struct ctx {
	struct fz_qp f;
	bool sane;
	uint8_t *inl; /* inline source: max_inline bytes */
	struct rxe_ah ah_ok, ah_other, ah_other_ctx;
	struct ibv_mw mw_ok, mw_other;
	struct ibv_mr mr;
};

static uint32_t pick_flags(struct fz *in)
{
	static const uint32_t common[] = {
		0,
		IBV_SEND_SIGNALED,
		IBV_SEND_INLINE,
		IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		IBV_SEND_FENCE | IBV_SEND_SOLICITED | IBV_SEND_SIGNALED,
	};
	uint8_t sel = fz_u8(in);

	if (sel < 200)
		return common[sel % 5];
	return fz_u32(in);
}

static enum ibv_wr_opcode pick_opcode(struct fz *in)
{
	uint8_t sel = fz_u8(in);

	if (sel < 224)
		return (enum ibv_wr_opcode)(sel % 16);
	return (enum ibv_wr_opcode)fz_u32(in);
}

static void build_wr(struct ctx *c, struct fz *in, struct wr_buf *b)
{
	struct ibv_send_wr *wr = &b->wr;
	uint32_t max_inline = c->f.qp->sq.max_inline;
	int8_t n;
	int i;

	memset(b, 0, sizeof(*b));
	wr->wr_id = fz_u64(in);
	wr->opcode = pick_opcode(in);
	wr->send_flags = pick_flags(in);
	n = (int8_t)fz_u8(in);
	wr->num_sge = n >= -4 && n <= FZ_MAX_SGE + 4 ? n : n & 3;
	wr->imm_data = fz_u32(in);
	if (wr->num_sge > 0) {
		b->sge = calloc(wr->num_sge, sizeof(*b->sge));
		FZ_ASSERT(b->sge, "out of memory");
	}
	wr->sg_list = b->sge;
	for (i = 0; i < wr->num_sge; i++) {
		uint32_t len = fz_len(in, max_inline);

		b->sge[i].length = len;
		b->sge[i].lkey = fz_u32(in);
		if (wr->send_flags & IBV_SEND_INLINE) {
			/* Valid for its length if that fits max_inline. */
			uint32_t off = 0;

			if (len <= max_inline)
				off = fz_u16(in) % (max_inline - len + 1);
			b->sge[i].addr = (uintptr_t)(c->inl + off);
		} else {
			b->sge[i].addr = fz_u64(in);
		}
	}
	/* A UD QP's WRs always name an AH (or NULL): the provider reads it. */
	switch (c->f.qp->vqp.qp.qp_type == IBV_QPT_UD ? 2 : fz_u8(in) % 4) {
	case 0:
		wr->wr.rdma.remote_addr = fz_u64(in);
		wr->wr.rdma.rkey = fz_u32(in);
		break;
	case 1:
		wr->wr.atomic.remote_addr = fz_u64(in);
		if (fz_bool(in)) /* aligned */
			wr->wr.atomic.remote_addr &= ~(uint64_t)7;
		wr->wr.atomic.compare_add = fz_u64(in);
		wr->wr.atomic.swap = fz_u64(in);
		wr->wr.atomic.rkey = fz_u32(in);
		break;
	case 2: {
		uint8_t a = fz_u8(in) % 4;

		wr->wr.ud.ah = a == 0	? NULL
			       : a == 1 ? &c->ah_ok.ibv_ah
			       : a == 2 ? &c->ah_other.ibv_ah
					: &c->ah_other_ctx.ibv_ah;
		wr->wr.ud.remote_qpn = fz_u32(in);
		wr->wr.ud.remote_qkey = fz_u32(in);
		break;
	}
	default: {
		uint8_t m = fz_u8(in);

		wr->bind_mw.mw = (m & 3) == 0	? NULL
				 : (m & 3) == 3 ? &c->mw_other
						: &c->mw_ok;
		wr->bind_mw.rkey = fz_u32(in);
		wr->bind_mw.bind_info.mr = (m & 4) ? &c->mr : NULL;
		wr->bind_mw.bind_info.addr = fz_u64(in);
		wr->bind_mw.bind_info.length = (m & 8) ? fz_u64(in) : 0;
		wr->bind_mw.bind_info.mw_access_flags = fz_u32(in);
		break;
	}
	}
}

/* What the README and ibv_post_send(3) say decides EINVAL for one WR. */
static bool wr_valid(const struct ctx *c, const struct ibv_send_wr *wr,
		     uint64_t *lenp)
{
	const struct rxe_qp *qp = c->f.qp;
	enum ibv_qp_type type = qp->vqp.qp.qp_type;
	uint32_t op = (uint32_t)wr->opcode, payload, allowed;
	uint64_t len = 0;
	int i;

	payload = (1u << IBV_WR_RDMA_WRITE) |
		  (1u << IBV_WR_RDMA_WRITE_WITH_IMM) | (1u << IBV_WR_SEND) |
		  (1u << IBV_WR_SEND_WITH_IMM) | (1u << IBV_WR_SEND_WITH_INV);
	switch (type) {
	case IBV_QPT_RC:
		allowed = payload | (1u << IBV_WR_RDMA_READ) |
			  (1u << IBV_WR_ATOMIC_CMP_AND_SWP) |
			  (1u << IBV_WR_ATOMIC_FETCH_AND_ADD) |
			  (1u << IBV_WR_LOCAL_INV) | (1u << IBV_WR_BIND_MW);
		break;
	case IBV_QPT_UC:
		allowed = payload | (1u << IBV_WR_BIND_MW);
		break;
	case IBV_QPT_UD:
		allowed = (1u << IBV_WR_SEND) | (1u << IBV_WR_SEND_WITH_IMM);
		break;
	default:
		allowed = 0;
	}
	if (op >= 32 || !(allowed & (1u << op)))
		return false;
	if (wr->send_flags &
	    ~(unsigned int)(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			    IBV_SEND_SOLICITED | IBV_SEND_INLINE))
		return false;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return false;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	*lenp = len;
	if (len > ((uint64_t)1 << 31))
		return false;
	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    (!(payload & (1u << op)) || len > qp->sq.max_inline))
		return false;
	if ((op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	     op == IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	    (len < 8 || (wr->wr.atomic.remote_addr & 7)))
		return false;
	if (op == IBV_WR_BIND_MW &&
	    (!wr->bind_mw.mw ||
	     (!wr->bind_mw.bind_info.mr && wr->bind_mw.bind_info.length) ||
	     wr->bind_mw.mw->context != qp->vqp.qp.context))
		return false;
	/* The AH must be of the QP's context and PD (handles are per context). */
	if (type == IBV_QPT_UD &&
	    (!wr->wr.ud.ah || wr->wr.ud.ah->context != qp->vqp.qp.context ||
	     wr->wr.ud.ah->pd->handle != qp->vqp.qp.pd->handle))
		return false;
	return true;
}

/* The WQE in the slot holds the WR. */
static void check_wqe(const struct ctx *c, const struct ibv_send_wr *wr,
		      uint64_t len, uint32_t idx, bool lapped)
{
	const struct rxe_qp *qp = c->f.qp;
	const struct rxe_send_wqe *w = rxe_ring_slot(&qp->sq.ring, idx);
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	size_t used;
	int i;

	FZ_ASSERT(w->wr.wr_id == wr->wr_id && w->wr.opcode == wr->opcode &&
			  w->wr.send_flags == wr->send_flags &&
			  w->wr.ex.imm_data == wr->imm_data,
		  "WQE %u header differs from its WR", idx);
	FZ_ASSERT(w->dma.length == len && w->dma.resid == len &&
			  w->dma.num_sge == (uint32_t)wr->num_sge &&
			  w->dma.cur_sge == 0 && w->dma.sge_offset == 0,
		  "WQE %u: length %u num_sge %u for %llu bytes in %d SGEs", idx,
		  w->dma.length, w->dma.num_sge, (unsigned long long)len,
		  wr->num_sge);
	FZ_ASSERT(w->status == 0 && w->state == 0 && w->mask == 0 &&
			  w->has_rd_atomic == 0 && w->ssn == 0 &&
			  w->first_psn == 0 && w->last_psn == 0 &&
			  w->ack_length == 0,
		  "WQE %u keeps kernel state of the slot's last use", idx);
	FZ_ASSERT(w->iova == wr->wr.rdma.remote_addr, "WQE %u iova", idx);
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
		FZ_ASSERT(w->wr.wr.atomic.remote_addr ==
					  wr->wr.atomic.remote_addr &&
				  w->wr.wr.atomic.compare_add ==
					  wr->wr.atomic.compare_add &&
				  w->wr.wr.atomic.swap == wr->wr.atomic.swap &&
				  w->wr.wr.atomic.rkey == wr->wr.atomic.rkey,
			  "WQE %u atomic arguments", idx);
	else if (wr->opcode == IBV_WR_BIND_MW)
		FZ_ASSERT(w->wr.wr.mw.addr == wr->bind_mw.bind_info.addr &&
				  w->wr.wr.mw.length ==
					  wr->bind_mw.bind_info.length &&
				  w->wr.wr.mw.mr_lkey ==
					  (wr->bind_mw.bind_info.mr
						   ? wr->bind_mw.bind_info.mr
							     ->lkey
						   : 0) &&
				  w->wr.wr.mw.mw_rkey == wr->bind_mw.mw->rkey &&
				  w->wr.wr.mw.rkey == wr->bind_mw.rkey &&
				  w->wr.wr.mw.access ==
					  wr->bind_mw.bind_info.mw_access_flags,
			  "WQE %u MW bind arguments", idx);
	else if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		FZ_ASSERT(w->wr.wr.ud.ah_num ==
					  to_rxe_ah(wr->wr.ud.ah)->ah_num &&
				  w->wr.wr.ud.remote_qpn ==
					  wr->wr.ud.remote_qpn &&
				  w->wr.wr.ud.remote_qkey ==
					  wr->wr.ud.remote_qkey,
			  "WQE %u UD address", idx);
	else
		FZ_ASSERT(w->wr.wr.rdma.remote_addr ==
					  wr->wr.rdma.remote_addr &&
				  w->wr.wr.rdma.rkey == wr->wr.rdma.rkey,
			  "WQE %u RDMA arguments", idx);
	if (inl) {
		const uint8_t *p = w->dma.inline_data;

		for (i = 0; i < wr->num_sge; i++) {
			FZ_ASSERT(memcmp(p,
					 (void *)(uintptr_t)wr->sg_list[i].addr,
					 wr->sg_list[i].length) == 0,
				  "WQE %u inline bytes of SGE %d", idx, i);
			p += wr->sg_list[i].length;
		}
		used = sizeof(*w) + len;
	} else {
		for (i = 0; i < wr->num_sge; i++)
			FZ_ASSERT(w->dma.sge[i].addr == wr->sg_list[i].addr &&
					  w->dma.sge[i].length ==
						  wr->sg_list[i].length &&
					  w->dma.sge[i].lkey ==
						  wr->sg_list[i].lkey,
				  "WQE %u SGE %d", idx, i);
		used = sizeof(*w) +
		       (size_t)wr->num_sge * sizeof(struct rxe_sge);
	}
	FZ_ASSERT(used <= c->f.slot_used_max, "WQE %u uses %zu bytes of %zu",
		  idx, used, c->f.slot_used_max);
	/* A slot written twice in one call (a lap) keeps the first's tail. */
	FZ_ASSERT(lapped || fz_slot_tail_same(&c->f.sq, idx, used),
		  "WQE %u: bytes past the %zu it needs were written", idx,
		  used);
}

static bool wr_api_only(enum ibv_wr_opcode op)
{
	return op < 32 && ((1u << op) & RXE_OPS_WR_API_ONLY);
}

static void post_round(struct ctx *c, struct fz *in)
{
	struct rxe_qp *qp = c->f.qp;
	struct rxe_ring *r = &qp->sq.ring;
	struct wr_buf b[FZ_MAX_WRS];
	struct ibv_send_wr *bad = (void *)(uintptr_t)1;
	uint64_t lens[FZ_MAX_WRS];
	bool valid[FZ_MAX_WRS];
	uint32_t own0 = r->own, prod0 = r->buf->producer_index;
	uint32_t room, posted, i;
	int n = 1 + fz_u8(in) % FZ_MAX_WRS, k, ret, want = 0, stop = n;

	for (k = 0; k < n; k++) {
		build_wr(c, in, &b[k]);
		b[k].wr.next = k + 1 < n ? &b[k + 1].wr : NULL;
	}
	for (k = 0; k < n; k++)
		valid[k] = wr_valid(c, &b[k].wr, &lens[k]);
	/* What should happen. */
	room = fz_room(r);
	if (qp->vqp.qp.state < IBV_QPS_RTS) {
		want = EINVAL;
		stop = 0;
	} else {
		for (k = 0, posted = 0; k < n; k++) {
			if (!valid[k]) {
				/* FLUSH, ATOMIC WRITE: only ibv_wr_* has them. */
				want = wr_api_only(b[k].wr.opcode) ? EOPNOTSUPP
								   : EINVAL;
				break;
			}
			if (posted == room) {
				want = ENOMEM;
				break;
			}
			posted++;
		}
		stop = k;
	}

	fz_ring_snap(&c->f.sq);
	ret = rxe_post_send(&qp->vqp.qp, &b[0].wr, &bad);

	FZ_ASSERT(ret == 0 || ret == EINVAL || ret == ENOMEM ||
			  ret == EOPNOTSUPP,
		  "post_send returned %d", ret);
	FZ_ASSERT(fz_lock_free(&qp->sq.lock), "the SQ lock is still held");
	FZ_ASSERT(fz_header_same(&c->f.sq, true),
		  "post_send wrote the kernel's header words");
	if (ret) {
		FZ_ASSERT(bad != (void *)(uintptr_t)1, "*bad_wr not set");
		for (k = 0; k < n && bad != &b[k].wr; k++)
			;
		FZ_ASSERT(k < n, "*bad_wr is not one of the WRs");
	} else {
		k = n;
	}
	/*
	 * An insane kernel's consumer index can make the provider lap the
	 * ring within one call (it trusts the free slots it last saw), so
	 * the index moves by the number posted modulo the ring's size.
	 */
	posted = k;
	FZ_ASSERT(((r->own - own0) & r->mask) == (posted & r->mask),
		  "the producer index moved by %u for %d WRs posted",
		  (r->own - own0) & r->mask, k);
	FZ_ASSERT(posted ? r->buf->producer_index == r->own
			 : r->buf->producer_index == prod0,
		  "producer index %u published, ours %u",
		  r->buf->producer_index, r->own);
	/* Every slot but the posted ones is as it was. */
	for (i = 0; i <= r->mask && posted <= r->mask; i++) {
		if (((i - own0) & r->mask) < posted)
			continue;
		FZ_ASSERT(fz_slot_same(&c->f.sq, i),
			  "slot %u written, %u posted from %u", i, posted,
			  own0);
	}
	if (c->sane) {
		FZ_ASSERT(ret == want && k == stop,
			  "post_send returned %d at WR %d, the rules say %d "
			  "at WR %d",
			  ret, k, want, stop);
		FZ_ASSERT(qp->sq.room <= fz_room(r),
			  "%u free slots cached, %u free", qp->sq.room,
			  fz_room(r));
	} else {
		/* An insane kernel index only changes how much fits: the WRs
		 * posted are valid, and EINVAL stops at an invalid one. */
		for (i = 0; i < (uint32_t)k; i++)
			FZ_ASSERT(valid[i], "invalid WR %u posted", i);
		if (ret == EINVAL)
			FZ_ASSERT(qp->vqp.qp.state < IBV_QPS_RTS ? k == 0
								 : !valid[k],
				  "EINVAL for the valid WR %d", k);
		if (ret == ENOMEM)
			FZ_ASSERT(valid[k], "ENOMEM for the invalid WR %d", k);
	}
	/* The WQEs still in their slots (all of them, but on a lap). */
	for (i = posted > r->mask ? posted - r->mask - 1 : 0; i < posted; i++)
		check_wqe(c, &b[i].wr, lens[i], (own0 + i) & r->mask,
			  posted > r->mask + 1);
	for (k = 0; k < n; k++)
		free(b[k].sge);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,	    IBV_QPT_RC,
		IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND,
	};
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RTS,  IBV_QPS_RTS, IBV_QPS_RTS, IBV_QPS_RTS,
		IBV_QPS_SQD,  IBV_QPS_SQE, IBV_QPS_ERR, IBV_QPS_RESET,
		IBV_QPS_INIT, IBV_QPS_RTR,
	};
	struct fz in = { data, size };
	struct ctx c;
	uint8_t cfg = fz_u8(&in);
	uint32_t max_sge, max_inline, log2_slots, own;
	int rounds;

	memset(&c, 0, sizeof(c));
	c.sane = !(cfg & 0x80);
	max_sge = fz_u8(&in) % (FZ_MAX_SGE + 1);
	max_inline = fz_u16(&in) % 1025;
	log2_slots = fz_u8(&in) % 7; /* one slot: a queue with no room */
	fz_qp_init(&c.f, types[cfg & 7], states[fz_u8(&in) % 10], max_sge,
		   max_inline, log2_slots, (cfg >> 3) & 1, cfg & 0x10);
	own = fz_u32(&in) & c.f.qp->sq.ring.mask;
	c.f.qp->sq.ring.own = own;
	c.f.qp->sq.ring.buf->producer_index = own;
	c.f.qp->sq.ring.buf->consumer_index = own;
	c.inl = malloc(max_inline ? max_inline : 1);
	FZ_ASSERT(c.inl, "out of memory");
	fz_fill(&in, c.inl, max_inline, 0x3c);
	c.ah_ok.ibv_ah.pd = &c.f.pd;
	c.ah_ok.ah_num = 5;
	c.ah_ok.ibv_ah.context = &c.f.ctx;
	c.ah_other.ibv_ah.pd = &c.f.other_pd;
	c.ah_other.ibv_ah.context = &c.f.ctx;
	c.ah_other.ah_num = 6;
	/* The QP's PD handle, but another context's AH. */
	c.ah_other_ctx.ibv_ah.pd = &c.f.pd;
	c.ah_other_ctx.ibv_ah.context = &c.f.other_ctx;
	c.ah_other_ctx.ah_num = 7;
	c.mw_ok.context = &c.f.ctx;
	c.mw_ok.rkey = 0x1234;
	c.mw_other.context = &c.f.other_ctx;
	c.mr.lkey = 0x4321;

	for (rounds = 0; rounds < FZ_MAX_ROUNDS && in.n; rounds++) {
		post_round(&c, &in);
		fz_kernel_consume(&c.f, &in, c.sane);
		if ((fz_u8(&in) & 7) == 0)
			c.f.qp->vqp.qp.state = states[fz_u8(&in) % 10];
	}
	free(c.inl);
	fz_qp_free(&c.f);
	return 0;
}
