// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_cq_ring: a CQ ring whose header and CQEs the fuzzer writes, as a
 * kernel would (a sane one that only adds CQEs to free slots, or an insane
 * one that writes anything anywhere), polled with rxe_poll_cq and the
 * ibv_cq_ex start/next/end_poll calls.
 *
 * Checked: rxe_ring_check accepts only geometry that fits the mapping (2^n
 * slots, one included, of at least a CQE's size); the
 * polls never touch memory outside the ring or the wc array (ASan: both are
 * allocated at their exact size), never write the ring's CQEs or the
 * kernel's header words, hand out exactly min(asked, available) CQEs, each
 * one a faithful copy of its slot, move the consumer index by exactly what
 * they handed out and publish it, and leave the CQ lock free.  With a sane
 * kernel every CQE comes out exactly once, in order, and the consumer index
 * never passes the producer.
 */
#include <errno.h>

#include "fuzz.h"

#define FZ_MAX_MAP (1u << 16) /* larger rings are only checked, not polled */
#define FZ_MAX_OPS 64

struct cq_state {
	struct rxe_cq *cq;
	uint8_t *buf; /* the ring: 384-byte header, then slots */
	uint8_t *shadow;
	size_t len;
	bool sane;
	uint32_t kprod;	   /* the sane kernel's producer index */
	uint64_t produced; /* CQEs the sane kernel wrote: wr_id = seq */
	uint64_t consumed; /* CQEs handed out */
};

static struct rxe_queue_buf *qb(struct cq_state *s)
{
	return (struct rxe_queue_buf *)s->buf;
}

static const struct ib_uverbs_wc *slot(struct cq_state *s, uint32_t idx)
{
	return rxe_ring_slot(&s->cq->ring, idx);
}

static void snap(struct cq_state *s)
{
	memcpy(s->shadow, s->buf, s->len);
}

/* Only the consumer index may change when the provider runs. */
static void check_untouched(struct cq_state *s)
{
	const struct rxe_queue_buf *was = (const void *)s->shadow;

	FZ_ASSERT(memcmp(s->buf + sizeof(struct rxe_queue_buf),
			 s->shadow + sizeof(struct rxe_queue_buf),
			 s->len - sizeof(struct rxe_queue_buf)) == 0,
		  "a poll wrote into the CQ ring's slots");
	FZ_ASSERT(qb(s)->producer_index == was->producer_index &&
			  qb(s)->log2_elem_size == was->log2_elem_size &&
			  qb(s)->index_mask == was->index_mask,
		  "a poll wrote the kernel's header words");
	FZ_ASSERT(fz_lock_free(&s->cq->lock), "the CQ lock is still held");
}

/* The wc the provider made of a CQE is the CQE, flags translated. */
static void check_wc(const struct ibv_wc *wc, const struct ib_uverbs_wc *c)
{
	FZ_ASSERT(wc->wr_id == c->wr_id && wc->status == c->status &&
			  wc->opcode == c->opcode &&
			  wc->vendor_err == c->vendor_err &&
			  wc->byte_len == c->byte_len &&
			  wc->imm_data == c->ex.imm_data &&
			  wc->qp_num == c->qp_num && wc->src_qp == c->src_qp &&
			  wc->pkey_index == c->pkey_index &&
			  wc->slid == c->slid && wc->sl == c->sl &&
			  wc->dlid_path_bits == c->dlid_path_bits,
		  "wc differs from its CQE");
	FZ_ASSERT(
		wc->wc_flags == rxe_wc_flags(c->wc_flags) &&
			!(wc->wc_flags &
			  ~(unsigned int)(IBV_WC_GRH | IBV_WC_WITH_IMM |
					  IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK)),
		"wc_flags 0x%x from kernel flags 0x%x", wc->wc_flags,
		c->wc_flags);
}

/* A sane kernel's view: CQEs written and not yet given back. */
static uint32_t outstanding(struct cq_state *s)
{
	return (s->kprod - (qb(s)->consumer_index & s->cq->ring.mask)) &
	       s->cq->ring.mask;
}

static void sane_invariant(struct cq_state *s)
{
	uint32_t mask = s->cq->ring.mask;

	if (!s->sane)
		return;
	FZ_ASSERT(s->consumed <= s->produced, "consumed %llu of %llu CQEs",
		  (unsigned long long)s->consumed,
		  (unsigned long long)s->produced);
	/* The consumer is exactly as far behind the producer as it should
	 * be: it never passed it, never fell back, never skipped a CQE. */
	FZ_ASSERT(((s->kprod - s->cq->ring.own) & mask) ==
			  s->produced - s->consumed,
		  "consumer index %u, producer %u, %llu outstanding",
		  s->cq->ring.own, s->kprod,
		  (unsigned long long)(s->produced - s->consumed));
}

/* The kernel side: write CQEs and move the producer index. */
static void kernel_produce(struct cq_state *s, struct fz *in)
{
	uint32_t mask = s->cq->ring.mask, k, free_slots;
	uint8_t how = fz_u8(in);

	if (!s->sane) {
		uint32_t idx = fz_u32(in) & mask;

		if (how & 1)
			fz_fill(in, (void *)slot(s, idx),
				sizeof(struct ib_uverbs_wc), 0);
		qb(s)->producer_index = fz_u32(in);
		return;
	}
	/* One slot always stays empty: a full ring has mask CQEs. */
	free_slots = mask - outstanding(s);
	k = free_slots ? fz_u8(in) % (free_slots + 1) : 0;
	while (k--) {
		struct ib_uverbs_wc *c = (void *)slot(s, s->kprod);

		fz_fill(in, c, sizeof(*c), 0);
		c->wr_id = s->produced++;
		s->kprod = (s->kprod + 1) & mask;
	}
	/* The provider must mask what it loads: high bits are noise. */
	qb(s)->producer_index = s->kprod | ((how & 2) ? fz_u32(in) & ~mask : 0);
}

static void do_poll_cq(struct cq_state *s, struct fz *in)
{
	struct rxe_ring *r = &s->cq->ring;
	int nwc = (int)(fz_u8(in) % 24) - 2, n, i, want;
	struct ibv_wc *wc;
	uint32_t own0 = r->own, avail, cons0 = qb(s)->consumer_index;

	/* Exactly nwc entries: ASan sees a write past the last one. */
	wc = malloc(nwc > 0 ? (size_t)nwc * sizeof(*wc) : 1);
	FZ_ASSERT(wc, "out of memory");
	avail = ((qb(s)->producer_index & r->mask) - own0) & r->mask;
	snap(s);
	n = rxe_poll_cq(&s->cq->vcq.cq, nwc, wc);
	want = nwc > 0 ? ((uint32_t)nwc < avail ? nwc : (int)avail) : 0;
	FZ_ASSERT(n == want, "poll_cq(%d) returned %d with %u CQEs ready", nwc,
		  n, avail);
	FZ_ASSERT(r->own == ((own0 + (uint32_t)n) & r->mask),
		  "consumer index moved from %u to %u for %d CQEs", own0,
		  r->own, n);
	FZ_ASSERT(n ? qb(s)->consumer_index == r->own
		    : qb(s)->consumer_index == cons0,
		  "published consumer index %u, ours %u", qb(s)->consumer_index,
		  r->own);
	check_untouched(s);
	for (i = 0; i < n; i++) {
		const struct ib_uverbs_wc *c = slot(s, (own0 + i) & r->mask);

		check_wc(&wc[i], c);
		if (s->sane)
			FZ_ASSERT(wc[i].wr_id == s->consumed + i,
				  "CQE %llu came out as number %llu",
				  (unsigned long long)wc[i].wr_id,
				  (unsigned long long)(s->consumed + i));
	}
	s->consumed += n;
	sane_invariant(s);
	free(wc);
}

/* Everything the cq_ex readers return is the shown CQE's. */
static void check_shown(struct cq_state *s, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &s->cq->vcq.cq_ex;
	const struct ib_uverbs_wc *c = slot(s, s->cq->ring.own);

	FZ_ASSERT(s->cq->cur == c, "the shown CQE is not the one at own");
	FZ_ASSERT(cqx->wr_id == c->wr_id &&
			  cqx->status == (enum ibv_wc_status)c->status,
		  "cq_ex wr_id/status differ from the CQE");
	FZ_ASSERT(cqx->read_opcode(cqx) == (enum ibv_wc_opcode)c->opcode &&
			  cqx->read_vendor_err(cqx) == c->vendor_err &&
			  cqx->read_wc_flags(cqx) == rxe_wc_flags(c->wc_flags),
		  "cq_ex readers differ from the CQE");
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		FZ_ASSERT(cqx->read_byte_len(cqx) == c->byte_len, "byte_len");
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		FZ_ASSERT(cqx->read_imm_data(cqx) == c->ex.imm_data, "imm");
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		FZ_ASSERT(cqx->read_qp_num(cqx) == c->qp_num, "qp_num");
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		FZ_ASSERT(cqx->read_src_qp(cqx) == c->src_qp, "src_qp");
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		FZ_ASSERT(cqx->read_slid(cqx) == c->slid, "slid");
	if (wc_flags & IBV_WC_EX_WITH_SL)
		FZ_ASSERT(cqx->read_sl(cqx) == c->sl, "sl");
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		FZ_ASSERT(cqx->read_dlid_path_bits(cqx) == c->dlid_path_bits,
			  "dlid_path_bits");
	if (s->sane)
		FZ_ASSERT(c->wr_id == s->consumed,
			  "cq_ex shows CQE %llu, expected %llu",
			  (unsigned long long)c->wr_id,
			  (unsigned long long)s->consumed);
}

static void do_poll_ex(struct cq_state *s, struct fz *in, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &s->cq->vcq.cq_ex;
	struct rxe_ring *r = &s->cq->ring;
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	uint32_t own0 = r->own, cons0 = qb(s)->consumer_index, shown = 0;
	uint32_t avail;
	int ret, steps;

	if ((fz_u8(in) & 15) == 0)
		attr.comp_mask = 1 + fz_u8(in);
	avail = ((qb(s)->producer_index & r->mask) - own0) & r->mask;
	snap(s);
	ret = cqx->start_poll(cqx, &attr);
	if (attr.comp_mask || !avail) {
		FZ_ASSERT(ret == (attr.comp_mask ? EINVAL : ENOENT),
			  "start_poll returned %d (comp_mask %u, %u ready)",
			  ret, attr.comp_mask, avail);
		FZ_ASSERT(r->own == own0 && qb(s)->consumer_index == cons0,
			  "a start_poll that showed nothing moved the index");
		check_untouched(s);
		return;
	}
	FZ_ASSERT(ret == 0, "start_poll returned %d with %u CQEs ready", ret,
		  avail);
	FZ_ASSERT(!s->cq->lock.need || !fz_lock_free(&s->cq->lock),
		  "start_poll returned without the lock");
	check_shown(s, wc_flags);
	shown = 1;
	for (steps = 0; steps < 40; steps++) {
		uint8_t op = fz_u8(in) % 4;

		if (op == 0)
			break;
		if (op == 1) {
			/* The kernel adds CQEs while we poll. */
			kernel_produce(s, in);
			snap(s);
			continue;
		}
		ret = cqx->next_poll(cqx);
		if (s->sane) {
			s->consumed++;
			FZ_ASSERT(ret == (r->own == s->kprod ? ENOENT : 0),
				  "next_poll returned %d at %u, producer %u",
				  ret, r->own, s->kprod);
		}
		FZ_ASSERT(ret == 0 || ret == ENOENT, "next_poll returned %d",
			  ret);
		if (ret) {
			FZ_ASSERT(s->cq->cur == NULL, "ENOENT but a CQE shown");
			break;
		}
		check_shown(s, wc_flags);
		shown++;
	}
	if (s->sane && ret == 0)
		s->consumed++; /* end_poll consumes the shown CQE */
	cqx->end_poll(cqx);
	FZ_ASSERT(r->own == ((own0 + shown) & r->mask),
		  "cq_ex consumed %u CQEs but showed %u",
		  (r->own - own0) & r->mask, shown);
	FZ_ASSERT(qb(s)->consumer_index == r->own,
		  "end_poll published %u, ours %u", qb(s)->consumer_index,
		  r->own);
	FZ_ASSERT(s->cq->cur == NULL, "a CQE is still shown after end_poll");
	check_untouched(s);
	sane_invariant(s);
}

/* The geometry oracle: what the check accepts fits the mapping. */
static void check_geometry(uint32_t log2, uint32_t mask, size_t map_len,
			   int ret)
{
	unsigned __int128 need;

	FZ_ASSERT(ret == 0 || ret == EPROTO, "rxe_ring_check returned %d", ret);
	if (ret)
		return;
	FZ_ASSERT(log2 < 64 &&
			  ((size_t)1 << log2) >= sizeof(struct ib_uverbs_wc),
		  "accepted a %u-bit slot", log2);
	/* 2^n slots; one slot (mask 0) is a queue with no room. */
	FZ_ASSERT((((uint64_t)mask + 1) & mask) == 0,
		  "accepted index mask 0x%x", mask);
	need = sizeof(struct rxe_queue_buf) +
	       ((unsigned __int128)((uint64_t)mask + 1) << log2);
	FZ_ASSERT(need <= map_len, "accepted %u slots of 2^%u in %zu bytes",
		  mask + 1, log2, map_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	struct cq_state s = { 0 };
	uint8_t mode = fz_u8(&in), msel;
	uint32_t log2, mask, own;
	uint64_t wc_flags;
	size_t exact, map_len;
	int ret, ops;

	/* Geometry: mostly what a kernel gives, sometimes anything. */
	log2 = (mode & 2) ? fz_u8(&in) : 6 + fz_u8(&in) % 4;
	msel = fz_u8(&in);
	mask = (mode & 4) ? fz_u32(&in) : (1u << (msel % 12)) - 1;
	exact = SIZE_MAX;
	if (log2 < 64) {
		unsigned __int128 e =
			sizeof(struct rxe_queue_buf) +
			((unsigned __int128)((uint64_t)mask + 1) << log2);

		if (e < SIZE_MAX)
			exact = (size_t)e;
	}
	switch ((mode >> 3) & 3) {
	case 0:
	case 1:
		map_len = exact;
		break;
	case 2:
		map_len = exact - fz_u8(&in);
		break;
	default:
		map_len = fz_u32(&in);
		break;
	}
	ret = rxe_ring_check(log2, mask, map_len, sizeof(struct ib_uverbs_wc));
	check_geometry(log2, mask, map_len, ret);
	if (ret || map_len > FZ_MAX_MAP)
		return 0;

	/* The mapping, as rxe_ring_map would have it. */
	s.sane = mode & 1;
	s.len = map_len;
	s.buf = malloc(map_len);
	s.shadow = malloc(map_len);
	s.cq = calloc(1, sizeof(*s.cq));
	FZ_ASSERT(s.buf && s.shadow && s.cq, "out of memory");
	memset(s.buf, 0, sizeof(struct rxe_queue_buf));
	/* Old CQE bytes: whatever the fuzzer says, then a pattern. */
	fz_fill(&in, s.buf + sizeof(struct rxe_queue_buf),
		(map_len - sizeof(struct rxe_queue_buf)) < 512
			? map_len - sizeof(struct rxe_queue_buf)
			: 512,
		0x5a);
	if (map_len - sizeof(struct rxe_queue_buf) > 512)
		memset(s.buf + sizeof(struct rxe_queue_buf) + 512, 0x5a,
		       map_len - sizeof(struct rxe_queue_buf) - 512);
	qb(&s)->log2_elem_size = log2;
	qb(&s)->index_mask = mask;
	own = fz_u32(&in);
	if (s.sane) {
		own &= mask;
		s.kprod = own;
		qb(&s)->producer_index = own;
	} else {
		qb(&s)->producer_index = fz_u32(&in);
	}
	qb(&s)->consumer_index = own;
	s.cq->ring.buf = qb(&s);
	s.cq->ring.map_len = map_len;
	s.cq->ring.mask = qb(&s)->index_mask;
	s.cq->ring.log2_stride = qb(&s)->log2_elem_size;
	s.cq->ring.own = qb(&s)->consumer_index & s.cq->ring.mask;
	db_lock_init(&s.cq->lock, mode & 32);
	wc_flags = fz_u64(&in) & IBV_WC_STANDARD_FLAGS;
	rxe_cq_set_ex_ops(s.cq, wc_flags);

	for (ops = 0; ops < FZ_MAX_OPS && in.n; ops++) {
		switch (fz_u8(&in) % 3) {
		case 0:
			kernel_produce(&s, &in);
			break;
		case 1:
			do_poll_cq(&s, &in);
			break;
		default:
			do_poll_ex(&s, &in, wc_flags);
			break;
		}
	}
	free(s.cq);
	free(s.buf);
	free(s.shadow);
	return 0;
}
