/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the libFuzzer targets: reading typed values from the fuzz input,
 * assertions that crash (so libFuzzer saves the input), and rings and QPs in
 * ordinary memory built the way rxe_ring_map and rxe_create_qp_ex build them.
 *
 * Rings are allocated at their exact size with malloc, so AddressSanitizer
 * reports any access past the last slot; every byte a harness does not
 * expect the provider to touch is compared with a copy taken before the call.
 */
#ifndef DOORBELL_FUZZ_H
#define DOORBELL_FUZZ_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxe/rxe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Assertions stay on in every build type: a failure is a finding. */
#define FZ_ASSERT(cond, ...)                                                   \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr,                                        \
				"%s:%d: FZ_ASSERT(%s) failed: ", __FILE__,     \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* The fuzz input, consumed from the front; zeros once it runs out. */
struct fz {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fz_bytes_le(struct fz *f, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++) {
		uint64_t b = 0;

		if (f->n) {
			b = *f->p++;
			f->n--;
		}
		v |= b << (8 * i);
	}
	return v;
}

static inline uint8_t fz_u8(struct fz *f)
{
	return (uint8_t)fz_bytes_le(f, 1);
}
static inline uint16_t fz_u16(struct fz *f)
{
	return (uint16_t)fz_bytes_le(f, 2);
}
static inline uint32_t fz_u32(struct fz *f)
{
	return (uint32_t)fz_bytes_le(f, 4);
}
static inline uint64_t fz_u64(struct fz *f)
{
	return fz_bytes_le(f, 8);
}
static inline bool fz_bool(struct fz *f)
{
	return fz_u8(f) & 1;
}

/* Copy up to len bytes of input into dst; the rest of dst gets fill. */
static inline void fz_fill(struct fz *f, void *dst, size_t len, uint8_t fill)
{
	size_t k = len < f->n ? len : f->n;

	memcpy(dst, f->p, k);
	memset((uint8_t *)dst + k, fill, len - k);
	f->p += k;
	f->n -= k;
}

/*
 * A 32-bit length: mostly small, sometimes anything (the sums that wrap,
 * the values just past a limit).
 */
static inline uint32_t fz_len(struct fz *f, uint32_t around)
{
	uint8_t sel = fz_u8(f);

	switch (sel & 3) {
	case 0:
		return fz_u8(f);
	case 1:
		return around + (int8_t)fz_u8(f);
	case 2:
		return fz_u16(f);
	default:
		return fz_u32(f);
	}
}

/* A ring in ordinary memory of exactly 384 + (mask + 1) << log2 bytes. */
struct fz_ring {
	struct rxe_ring r;
	size_t len;	 /* bytes allocated */
	uint8_t *shadow; /* a copy to compare with after a call */
};

static inline void fz_ring_alloc(struct fz_ring *fr, uint32_t log2_stride,
				 uint32_t mask, uint8_t fill)
{
	fr->len = sizeof(struct rxe_queue_buf) +
		  (((size_t)mask + 1) << log2_stride);
	fr->r.buf = malloc(fr->len);
	fr->shadow = malloc(fr->len);
	FZ_ASSERT(fr->r.buf && fr->shadow, "out of memory");
	memset(fr->r.buf, 0, sizeof(struct rxe_queue_buf));
	memset(fr->r.buf->data, fill, fr->len - sizeof(struct rxe_queue_buf));
	fr->r.buf->log2_elem_size = log2_stride;
	fr->r.buf->index_mask = mask;
	/* What rxe_ring_map keeps of a header it accepted. */
	fr->r.map_len = fr->len;
	fr->r.mask = mask;
	fr->r.log2_stride = log2_stride;
	fr->r.own = 0;
}

static inline void fz_ring_free(struct fz_ring *fr)
{
	free(fr->r.buf);
	free(fr->shadow);
	fr->r.buf = NULL;
	fr->shadow = NULL;
}

static inline void fz_ring_snap(struct fz_ring *fr)
{
	memcpy(fr->shadow, fr->r.buf, fr->len);
}

static inline size_t fz_slot_off(const struct fz_ring *fr, uint32_t idx)
{
	return sizeof(struct rxe_queue_buf) +
	       ((size_t)idx << fr->r.log2_stride);
}

/* The slot's bytes [from, stride) are as they were at the last snapshot. */
static inline bool fz_slot_tail_same(const struct fz_ring *fr, uint32_t idx,
				     size_t from)
{
	size_t stride = (size_t)1 << fr->r.log2_stride, off;

	if (from >= stride)
		return true;
	off = fz_slot_off(fr, idx) + from;
	return memcmp((uint8_t *)fr->r.buf + off, fr->shadow + off,
		      stride - from) == 0;
}

static inline bool fz_slot_same(const struct fz_ring *fr, uint32_t idx)
{
	return fz_slot_tail_same(fr, idx, 0);
}

/* The header words other than the one we own are as they were. */
static inline bool fz_header_same(const struct fz_ring *fr, bool we_produce)
{
	const struct rxe_queue_buf *now = fr->r.buf;
	const struct rxe_queue_buf *was = (const void *)fr->shadow;

	return now->log2_elem_size == was->log2_elem_size &&
	       now->index_mask == was->index_mask &&
	       (we_produce ? now->consumer_index == was->consumer_index
			   : now->producer_index == was->producer_index);
}

static inline bool fz_lock_free(const struct db_lock *l)
{
	return !atomic_load_explicit(&l->held, memory_order_relaxed);
}

/*
 * A QP as rxe_create_qp_ex leaves it (the fields the send paths read), its
 * SQ a ring whose slots are as large as the kernel must make them for the
 * caps (rxe_sq_slot_min), and its doorbell a write to /dev/null.
 */
struct fz_qp {
	struct ibv_context ctx;
	struct ibv_pd pd;
	struct ibv_pd other_pd; /* a PD of another handle */
	struct ibv_context other_ctx;
	struct rxe_qp *qp; /* allocated: ASan sees its bounds */
	struct fz_ring sq;
	size_t slot_used_max; /* 208 + max(SGE array, max_inline) */
};

/* One /dev/null for every doorbell of the process. */
static inline int fz_devnull(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	FZ_ASSERT(fd >= 0, "cannot open /dev/null");
	return fd;
}

static inline size_t fz_sq_slot_min(uint32_t max_sge, uint32_t max_inline)
{
	size_t sges = (size_t)max_sge * sizeof(struct rxe_sge);

	return sizeof(struct rxe_send_wqe) +
	       (sges > max_inline ? sges : max_inline);
}

static inline unsigned int fz_log2_ceil(size_t v)
{
	unsigned int l = 0;

	while (((size_t)1 << l) < v)
		l++;
	return l;
}

static inline void fz_qp_init(struct fz_qp *f, enum ibv_qp_type type,
			      enum ibv_qp_state state, uint32_t max_sge,
			      uint32_t max_inline, uint32_t log2_slots,
			      uint32_t extra_stride, bool locked)
{
	size_t min_slot = fz_sq_slot_min(max_sge, max_inline);
	uint32_t log2 = fz_log2_ceil(min_slot) + extra_stride;
	struct rxe_qp *qp;

	memset(f, 0, sizeof(*f));
	/* As a load on the libibverbs the provider was built against. */
	if (!db_lib.epoch)
		db_lib.epoch = db_epoch_of(DB_RDMA_CORE_MAJOR);
	if (log2 < 6)
		log2 = 6;
	f->ctx.cmd_fd = fz_devnull();
	f->other_ctx.cmd_fd = fz_devnull();
	f->pd.context = &f->ctx;
	f->pd.handle = 1;
	f->other_pd.context = &f->ctx;
	f->other_pd.handle = 2;
	f->qp = qp = calloc(1, sizeof(*qp));
	FZ_ASSERT(qp, "out of memory");
	qp->vqp.qp.context = &f->ctx;
	qp->vqp.qp.pd = &f->pd;
	qp->vqp.qp.qp_type = type;
	qp->vqp.qp.state = state;
	qp->vqp.qp.handle = 7;
	fz_ring_alloc(&f->sq, log2, (1u << log2_slots) - 1, 0xa5);
	/* The geometry the kernel would give must pass the provider's check. */
	FZ_ASSERT(rxe_ring_check(log2, (1u << log2_slots) - 1, f->sq.len,
				 min_slot) == 0,
		  "slot 2^%u for %zu bytes, %u slots", log2, min_slot,
		  1u << log2_slots);
	qp->sq.ring = f->sq.r;
	qp->sq.max_sge = max_sge;
	qp->sq.max_inline = max_inline;
	/* As in rxe_create_qp_ex. */
	qp->opcode_mask = rxe_opcode_mask(type);
	qp->slow_ops = rxe_slow_ops(type);
	if (qp->sq.max_sge)
		qp->fast_ops = qp->opcode_mask & ~qp->slow_ops;
	qp->doorbell_fd = f->ctx.cmd_fd;
	db_lock_init(&qp->sq.lock, locked);
	db_lock_init(&qp->rq.lock, locked);
	f->slot_used_max = min_slot;
}

static inline void fz_qp_free(struct fz_qp *f)
{
	fz_ring_free(&f->sq);
	free(f->qp);
	f->qp = NULL;
}

/* The ring the QP actually uses (the provider's copy of fz_ring.r). */
static inline struct rxe_ring *fz_qp_ring(struct fz_qp *f)
{
	return &f->qp->sq.ring;
}

/*
 * The kernel consumes WQEs: a sane kernel moves its consumer index forward
 * over posted WQEs only; an insane one writes anything.
 */
static inline void fz_kernel_consume(struct fz_qp *f, struct fz *in, bool sane)
{
	struct rxe_ring *r = fz_qp_ring(f);
	uint32_t kcons = r->buf->consumer_index;

	if (sane) {
		/* Only what was published: not slots claimed but unposted. */
		uint32_t outstanding =
			(r->buf->producer_index - kcons) & r->mask;

		if (outstanding)
			kcons = (kcons + 1 + fz_u8(in) % outstanding) & r->mask;
	} else {
		kcons = fz_u32(in);
	}
	r->buf->consumer_index = kcons;
}

/* Free slots of the SQ as the kernel's index says. */
static inline uint32_t fz_room(const struct rxe_ring *r)
{
	return ((r->buf->consumer_index & r->mask) - r->own - 1) & r->mask;
}

/* Slots the kernel has not consumed yet: [kcons, own) must not be written. */
static inline bool fz_in_flight(const struct rxe_ring *r, uint32_t kcons,
				uint32_t own, uint32_t idx)
{
	return ((idx - kcons) & r->mask) < ((own - kcons) & r->mask);
}

#endif /* DOORBELL_FUZZ_H */
