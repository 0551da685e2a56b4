/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The rings rdma_rxe shares with userspace.  Each ring is a 384-byte header
 * holding the producer and consumer indices, then 2^n slots.  We own one
 * index of each ring and keep a private copy of it; the kernel owns the
 * other, which we only ever load with acquire and mask before use.
 */
#ifndef DOORBELL_RXE_RING_H
#define DOORBELL_RXE_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include "rxe/rxe_hw.h"

struct rxe_ring {
	struct rxe_queue_buf *buf; /* the mmapped ring, NULL if none */
	size_t map_len;
	uint32_t mask; /* slots - 1: the usable capacity */
	uint32_t log2_stride;
	uint32_t own; /* our index: producer or consumer */
};

/* rxe_ring.c */
int rxe_ring_map(struct rxe_ring *r, int cmd_fd, const struct mminfo *mi,
		 size_t min_slot, bool we_produce);
void rxe_ring_unmap(struct rxe_ring *r);
int rxe_ring_check(uint32_t log2_stride, uint32_t mask, size_t map_len,
		   size_t min_slot);

static inline void *rxe_ring_slot(const struct rxe_ring *r, uint32_t idx)
{
	return r->buf->data + ((size_t)idx << r->log2_stride);
}

static inline uint32_t rxe_ring_next(const struct rxe_ring *r, uint32_t idx)
{
	return (idx + 1) & r->mask;
}

/* The kernel's consumer index of a ring we produce into. */
static inline uint32_t rxe_ring_kcons(const struct rxe_ring *r)
{
	/* Acquire: the kernel is done with every slot before this index. */
	return atomic_load_explicit((_Atomic uint32_t *)&r->buf->consumer_index,
				    memory_order_acquire) &
	       r->mask;
}

/* The kernel's producer index of a ring we consume from. */
static inline uint32_t rxe_ring_kprod(const struct rxe_ring *r)
{
	/* Acquire: CQE contents are visible before we read past this index. */
	return atomic_load_explicit((_Atomic uint32_t *)&r->buf->producer_index,
				    memory_order_acquire) &
	       r->mask;
}

/* Free slots of a ring we produce into. */
static inline uint32_t rxe_ring_room(const struct rxe_ring *r)
{
	return (rxe_ring_kcons(r) - r->own - 1) & r->mask;
}

/* Make every WQE written up to r->own visible to the kernel. */
static inline void rxe_ring_publish_producer(struct rxe_ring *r)
{
	/* Release: the WQE bytes are written before the index that shows them. */
	atomic_store_explicit((_Atomic uint32_t *)&r->buf->producer_index,
			      r->own, memory_order_release);
}

/* Give consumed CQE slots back to the kernel. */
static inline void rxe_ring_publish_consumer(struct rxe_ring *r)
{
	/* Release: our reads of the CQEs finish before the kernel reuses them. */
	atomic_store_explicit((_Atomic uint32_t *)&r->buf->consumer_index,
			      r->own, memory_order_release);
}

#endif /* DOORBELL_RXE_RING_H */
