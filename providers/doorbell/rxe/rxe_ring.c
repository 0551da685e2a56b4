// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Mapping and validating the rings rdma_rxe shares with us. */
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "rxe/rxe_ring.h"

/*
 * A ring header is written by the kernel: check that the geometry it claims
 * fits inside the mapping before we index anything with it.
 */
int rxe_ring_check(uint32_t log2_stride, uint32_t mask, size_t map_len,
		   size_t min_slot)
{
	size_t slots = (size_t)mask + 1;

	if (log2_stride < 6 || log2_stride > 20)
		return EPROTO;
	if (((size_t)1 << log2_stride) < min_slot)
		return EPROTO;
	/* One slot (mask 0) is a queue created with no room: posts get ENOMEM. */
	if ((slots & mask) != 0 || slots > ((size_t)1 << 24))
		return EPROTO;
	if (map_len < sizeof(struct rxe_queue_buf) ||
	    (map_len - sizeof(struct rxe_queue_buf)) >> log2_stride < slots)
		return EPROTO;
	return 0;
}

int rxe_ring_map(struct rxe_ring *r, int cmd_fd, const struct mminfo *mi,
		 size_t min_slot, bool we_produce)
{
	struct rxe_queue_buf *buf;
	int err;

	if (mi->size < sizeof(struct rxe_queue_buf))
		return EPROTO;
	buf = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		   mi->offset);
	if (buf == MAP_FAILED)
		return errno;
	err = rxe_ring_check(buf->log2_elem_size, buf->index_mask, mi->size,
			     min_slot);
	if (err) {
		munmap(buf, mi->size);
		return err;
	}
	r->buf = buf;
	r->map_len = mi->size;
	r->mask = buf->index_mask;
	r->log2_stride = buf->log2_elem_size;
	/* Indices survive a QP reset or a resize: continue from the header. */
	r->own = (we_produce ? buf->producer_index : buf->consumer_index) &
		 r->mask;
	return 0;
}

void rxe_ring_unmap(struct rxe_ring *r)
{
	if (r->buf)
		munmap(r->buf, r->map_len);
	r->buf = NULL;
}
