// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The static UARs of a context: map the system pages that hold them and
 * describe every BlueFlame register ("bfreg") a QP may be given.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mlx5/mlx5.h"

/*
 * libmlx5's rule: bfreg 0 takes no BlueFlame and no lock; the last
 * M5_LOW_LAT_BFREGS (the kernel's "high" class) each serve one QP and
 * need no lock; the "medium" ones between are shared and locked.  n counts
 * bfregs as the kernel does, two per UAR.
 */
static bool m5_bfreg_need_lock(const struct m5_context *ctx, unsigned int n)
{
	if (n == 0 || db_config()->single_threaded)
		return false;
	return n < ctx->tot_bfregs - M5_LOW_LAT_BFREGS;
}

static void m5_init_bfs(struct m5_context *ctx, unsigned int per_page)
{
	unsigned int page, j, k, uar, b;
	struct m5_bf *bf;

	for (page = 0; page < ctx->num_uar_pages; page++) {
		for (j = 0; j < per_page; j++) {
			uar = page * per_page + j;
			for (k = 0; k < M5_NON_FP_BFREGS_PER_UAR; k++) {
				b = uar * M5_BFREGS_PER_UAR + k;
				bf = &ctx->bfs[b];
				bf->reg = (char *)ctx->uar[page] +
					  j * M5_UAR_SIZE + M5_BF_OFFSET +
					  k * ctx->bf_reg_size;
				bf->offset = 0;
				bf->buf_size = b ? ctx->bf_reg_size / 2 : 0;
				bf->uuarn = b;
				bf->need_lock = m5_bfreg_need_lock(
					ctx,
					uar * M5_NON_FP_BFREGS_PER_UAR + k);
				db_lock_init(&bf->lock, bf->need_lock);
			}
		}
	}
}

static void m5_unmap_pages(struct m5_context *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->num_uar_pages; i++) {
		if (ctx->uar[i])
			m5k_munmap_uar(ctx, ctx->uar[i], ctx->uar_map_len);
		ctx->uar[i] = NULL;
	}
	ctx->num_uar_pages = 0;
}

int m5_map_uars(struct m5_context *ctx)
{
	size_t psize = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int per_page, npages, i;
	off_t off;
	void *p;
	int ret;

	/* A kernel without 4K-UAR support reports neither field. */
	per_page = ctx->num_uars_per_page ? ctx->num_uars_per_page : 1;
	if ((size_t)per_page * M5_UAR_SIZE > psize)
		return EPROTO;
	npages = ctx->tot_bfregs / (per_page * M5_NON_FP_BFREGS_PER_UAR);
	if (!npages || npages > M5_MAX_UAR_PAGES ||
	    ctx->tot_bfregs < M5_LOW_LAT_BFREGS)
		return EPROTO;
	ctx->bfs = calloc((size_t)npages * per_page * M5_BFREGS_PER_UAR,
			  sizeof(*ctx->bfs));
	if (!ctx->bfs)
		return ENOMEM;
	ctx->num_bfs = npages * per_page * M5_BFREGS_PER_UAR;
	ctx->uar_map_len = psize;
	ctx->num_uar_pages = npages;
	for (i = 0; i < npages; i++) {
		off = (off_t)((M5_MMAP_CMD_REGULAR << M5_MMAP_CMD_SHIFT) | i) *
		      (off_t)psize;
		p = m5k_mmap_uar(ctx, off, psize);
		if (p == MAP_FAILED) {
			ret = errno ? errno : ENOMEM;
			m5_unmap_pages(ctx);
			free(ctx->bfs);
			ctx->bfs = NULL;
			ctx->num_bfs = 0;
			return ret;
		}
		ctx->uar[i] = p;
	}
	m5_init_bfs(ctx, per_page);
	return 0;
}

void m5_unmap_uars(struct m5_context *ctx)
{
	free(ctx->bfs);
	ctx->bfs = NULL;
	ctx->num_bfs = 0;
	m5_unmap_pages(ctx);
}
