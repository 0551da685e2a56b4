// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Rings and objects that stand in for the kernel's, for device-free tests. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxe_fake.h"

void fake_ring_init(struct rxe_ring *r, unsigned int log2_slots,
		    unsigned int log2_stride)
{
	size_t len = sizeof(struct rxe_queue_buf) +
		     ((size_t)1 << (log2_slots + log2_stride));

	memset(r, 0, sizeof(*r));
	r->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	memset(r->buf, 0, sizeof(struct rxe_queue_buf));
	memset(r->buf->data, FAKE_FILL, len - sizeof(struct rxe_queue_buf));
	r->buf->log2_elem_size = log2_stride;
	r->buf->index_mask = (1u << log2_slots) - 1;
	r->map_len = len;
	r->mask = r->buf->index_mask;
	r->log2_stride = log2_stride;
}

void fake_ring_free(struct rxe_ring *r)
{
	free(r->buf);
	r->buf = NULL;
}

int fake_slot_untouched(const struct rxe_ring *r, uint32_t idx)
{
	const uint8_t *p = rxe_ring_slot(r, idx);
	size_t i;

	for (i = 0; i < ((size_t)1 << r->log2_stride); i++)
		if (p[i] != FAKE_FILL)
			return 0;
	return 1;
}

uint32_t fake_prod(const struct rxe_ring *r)
{
	return r->buf->producer_index;
}

void fake_qp_init(struct fake_qp *f, enum ibv_qp_type type, uint32_t max_sge,
		  uint32_t max_inline)
{
	memset(f, 0, sizeof(*f));
	f->ctx.cmd_fd = open("/dev/null", O_WRONLY);
	f->pd.context = &f->ctx;
	f->pd.handle = 1;
	f->qp.vqp.qp.context = &f->ctx;
	f->qp.vqp.qp.pd = &f->pd;
	f->qp.vqp.qp.qp_type = type;
	f->qp.vqp.qp.state = IBV_QPS_RTS;
	f->qp.opcode_mask = rxe_opcode_mask(type);
	f->qp.slow_ops = rxe_slow_ops(type);
	f->qp.fast_ops = max_sge ? f->qp.opcode_mask & ~f->qp.slow_ops : 0;
	f->qp.doorbell_fd = f->ctx.cmd_fd;
	f->qp.sq.max_sge = max_sge;
	f->qp.sq.max_inline = max_inline;
	f->qp.rq.max_sge = max_sge;
	fake_ring_init(&f->qp.sq.ring, 3, 9);
	fake_ring_init(&f->qp.rq.ring, 3, 7);
	db_lock_init(&f->qp.sq.lock, true);
	db_lock_init(&f->qp.rq.lock, true);
}

void fake_qp_free(struct fake_qp *f)
{
	close(f->ctx.cmd_fd);
	fake_ring_free(&f->qp.sq.ring);
	fake_ring_free(&f->qp.rq.ring);
}
