// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The page list of a queue (CQ, QP, SRQ/RMP) in its create command: how
 * many pages the queue spans from its page_offset, that the command holds
 * them, and that each is page-aligned guest memory the device may access;
 * and where a byte of the queue is, for every reader of one.
 */
#include <stdlib.h>

#include "cx_ifc.h"
#include "cx_int.h"

int cx_take_pas(struct cx *cx, const struct cx_cmd *c, uint32_t at,
		const struct cx_queue_geo *q, uint64_t **pasp, uint32_t *npasp)
{
	uint64_t pagesz = (uint64_t)CX_PAGE << q->lps, bytes = q->bytes;
	uint64_t npas, *pas;
	uint32_t i;

	if (bytes)
		bytes += cx_queue_start(q->lps, q->page_offset);
	npas = (bytes + pagesz - 1) / pagesz;
	if (c->inlen < at + npas * 8)
		return CX_BAD_INP_LEN;
	pas = calloc(npas ? npas : 1, sizeof(*pas));
	if (!pas)
		return CX_NO_RES;
	for (i = 0; i < npas; i++) {
		pas[i] = cx_get64(c->in, at + i * 8);
		if (pas[i] % pagesz || !cx_dma(cx, pas[i], pagesz, q->write)) {
			free(pas);
			return CX_BAD_PARAM;
		}
	}
	*pasp = pas;
	*npasp = npas;
	return CX_OK;
}

void *cx_queue_at(struct cx *cx, const uint64_t *pas, uint32_t npas,
		  uint8_t lps, uint32_t page_offset, uint64_t off, uint64_t len,
		  bool write)
{
	uint64_t pagesz = (uint64_t)CX_PAGE << lps;
	uint64_t b = off + cx_queue_start(lps, page_offset);

	if (!pas || b / pagesz >= npas || b % pagesz + len > pagesz)
		return NULL;
	return cx_dma(cx, pas[b / pagesz] + b % pagesz, len, write);
}
