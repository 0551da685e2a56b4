// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device's internal timer: the page mlx5_ib maps read-only for it, and
 * ibv_query_rt_values_ex's raw clock read from that page.  Completion
 * timestamps are the same timer, written by the device into each CQE
 * (mlx5_poll.c reads them).
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mlx5/mlx5.h"

void m5_clock_map(struct m5_context *ctx)
{
	size_t psize = (size_t)sysconf(_SC_PAGESIZE);
	off_t off =
		(off_t)(M5_MMAP_CMD_CLOCK << M5_MMAP_CMD_SHIFT) * (off_t)psize;
	void *p;

	if (!ctx->has_clock_offset ||
	    ctx->clock_offset > psize - M5_CLOCK_LO - sizeof(__be32) ||
	    ctx->clock_offset % sizeof(__be32))
		return;
	p = m5k_mmap_clock(ctx, off, psize);
	if (p == MAP_FAILED) {
		/* No raw clock then: query_rt_values answers EOPNOTSUPP. */
		db_debug("%s: no internal timer page: %d",
			 ctx->core.vctx.context.device->name, errno);
		return;
	}
	ctx->clock_page = p;
	ctx->clock_page_len = psize;
}

void m5_clock_unmap(struct m5_context *ctx)
{
	if (ctx->clock_page)
		m5k_munmap_clock(ctx, ctx->clock_page, ctx->clock_page_len);
	ctx->clock_page = NULL;
}

/*
 * The 64-bit timer from its two words: a low word read between two equal
 * high words belongs to them; if the high word moved, the low word wrapped
 * between the reads, and is read again under the new high word.
 */
static uint64_t m5_clock_read(const struct m5_context *ctx)
{
	const uint8_t *t = (const uint8_t *)ctx->clock_page + ctx->clock_offset;
	uint32_t hi, lo, hi2;

	hi = be32toh(mmio_read32_be(t + M5_CLOCK_HI));
	lo = be32toh(mmio_read32_be(t + M5_CLOCK_LO));
	hi2 = be32toh(mmio_read32_be(t + M5_CLOCK_HI));
	if (hi2 != hi)
		lo = be32toh(mmio_read32_be(t + M5_CLOCK_LO));
	return (uint64_t)hi2 << 32 | lo;
}

/*
 * The raw clock is the only value this device has: a request naming
 * another is EINVAL and fills nothing, as the verbs' comp_mask rule has it.
 */
int m5_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *v)
{
	struct m5_context *ctx = to_m5_ctx(ibctx);
	uint32_t want = v->comp_mask;

	if (want & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	v->comp_mask = 0;
	if (!want)
		return 0;
	if (!ctx->clock_page)
		return EOPNOTSUPP;
	v->raw_clock.tv_sec = 0;
	v->raw_clock.tv_nsec = (long)m5_clock_read(ctx);
	v->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	return 0;
}
