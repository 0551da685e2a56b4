// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The device object: creation, reset, and the host services it uses. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cx_engine.h"
#include "cx_int.h"

uint64_t cx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

uint64_t cx_timer(const struct cx *cx)
{
	return cx_now_ns() - cx->t0_ns;
}

void cx_trace(struct cx *cx, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!cx->host.trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	cx->host.trace(cx->host.ctx, line);
}

void *cx_dma(struct cx *cx, uint64_t addr, uint64_t len, bool write)
{
	if (!len || addr + len < addr)
		return NULL;
	return cx->host.dma(cx->host.ctx, addr, len, write);
}

void cx_reset(struct cx *cx)
{
	cx_eq_reset(cx);
	cx_hca_reset(cx);
	cx_pci_init(cx);
	cx->cmdq_h = 0;
	cx->cmdq_l = 0;
	cx_bf_reset(cx);
	cx->t0_ns = cx_now_ns();
}

struct cx *cx_create(const struct cx_host *host)
{
	struct cx *cx = calloc(1, sizeof(*cx));

	if (!cx)
		return NULL;
	if (host->vectors > CX_MSIX_VECTORS) {
		free(cx);
		return NULL;
	}
	cx->host = *host;
	if (!cx->host.vectors)
		cx->host.vectors = CX_MSIX_VECTORS;
	if (!cx_eth_init(cx)) {
		free(cx);
		return NULL;
	}
	if (cx_eng_init(cx)) {
		cx_eth_free(cx);
		free(cx);
		return NULL;
	}
	cx_reset(cx);
	return cx;
}

int64_t cx_timers(struct cx *cx)
{
	int64_t bf = cx_bf_timers(cx);
	int64_t cq = cx_cq_timers(cx), eng = cx_eng_timers(cx);

	if (cq < 0 || (eng >= 0 && eng < cq))
		cq = eng;
	if (cq < 0 || (bf >= 0 && bf < cq))
		cq = bf;
	return cq;
}

void cx_destroy(struct cx *cx)
{
	if (cx) {
		cx_mkey_reset(cx);
		cx_cq_reset(cx);
		cx_srq_reset(cx);
		cx_qp_reset(cx);
		cx_sq_reset(cx);
		cx_eng_fini(cx);
		cx_eth_free(cx);
	}
	free(cx);
}
