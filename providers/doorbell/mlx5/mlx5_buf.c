// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory the device reads and writes: queue buffers, pages of doorbell
 * records, and the user-index table that maps a CQE back to its QP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/attr.h"
#include "mlx5/mlx5.h"

#define M5_UIDX_PAGE_SHIFT 16
#define M5_UIDX_PAGE_SLOTS (1u << M5_UIDX_PAGE_SHIFT)

/*
 * Page aligned and zeroed: what the kernel pins for the device.  Kept out
 * of fork()ed children as libibverbs' fork support asks.
 */
void *m5_buf_alloc(size_t len)
{
	void *buf;
	int ret;

	if (!len) {
		errno = EINVAL;
		return NULL;
	}
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	ret = ibv_dontfork_range(buf, len);
	if (ret) {
		/* An errno, or -1 from madvise() with errno set. */
		ret = ret > 0 ? ret : errno ? errno : ENOMEM;
		munmap(buf, len);
		errno = ret;
		return NULL;
	}
	return buf;
}

void m5_buf_free(void *buf, size_t len)
{
	if (!buf)
		return;
	ibv_dofork_range(buf, len);
	munmap(buf, len);
}

static size_t m5_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * libmlx5 asks a parent domain's allocator for the same buffers, aligned
 * to a page.  Its memory is the user's: zeroed here as ours is, and left
 * to the user as to fork().
 */
void *m5_qbuf_alloc(struct m5_qbuf *qb, struct ibv_pd *pd, size_t len,
		    uint64_t type)
{
	void *buf;

	qb->pd = NULL;
	qb->type = type;
	if (!len) {
		errno = EINVAL;
		return NULL;
	}
	buf = db_pd_alloc(pd, len, m5_page_size(), type);
	if (buf == IBV_ALLOCATOR_USE_DEFAULT)
		return m5_buf_alloc(len);
	if (!buf)
		return NULL;
	memset(buf, 0, len);
	qb->pd = pd;
	return buf;
}

void m5_qbuf_free(struct m5_qbuf *qb, void *buf, size_t len)
{
	if (!buf)
		return;
	if (qb->pd)
		db_pd_free(qb->pd, buf, qb->type);
	else
		m5_buf_free(buf, len);
}

/* --- Doorbell records --------------------------------------------------- */

static unsigned int m5_dbrec_first_free(const struct m5_dbrec_page *p)
{
	unsigned int w;

	for (w = 0; w < 4; w++)
		if (p->free_mask[w])
			return w * 64 + __builtin_ctzll(p->free_mask[w]);
	return p->nslots; /* not reached: used < nslots */
}

static struct m5_dbrec_page *m5_dbrec_page_new(struct m5_context *ctx)
{
	size_t psize = m5_page_size();
	struct m5_dbrec_page *p;
	unsigned int i;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->page = m5_buf_alloc(psize);
	if (!p->page) {
		free(p);
		return NULL;
	}
	p->nslots = psize / ctx->cache_line_size;
	if (p->nslots > 256)
		p->nslots = 256;
	for (i = 0; i < p->nslots; i++)
		p->free_mask[i / 64] |= 1ull << (i % 64);
	p->next = ctx->dbrec_pages;
	ctx->dbrec_pages = p;
	return p;
}

/* A zeroed 8-byte record in its own cache line. */
__be32 *m5_dbrec_alloc(struct m5_context *ctx)
{
	struct m5_dbrec_page *p;
	unsigned int slot;
	__be32 *rec = NULL;

	pthread_mutex_lock(&ctx->dbrec_mutex);
	for (p = ctx->dbrec_pages; p; p = p->next)
		if (p->used < p->nslots)
			break;
	if (!p)
		p = m5_dbrec_page_new(ctx);
	if (p) {
		slot = m5_dbrec_first_free(p);
		p->free_mask[slot / 64] &= ~(1ull << (slot % 64));
		p->used++;
		rec = (__be32 *)((char *)p->page +
				 (size_t)slot * ctx->cache_line_size);
		rec[0] = 0;
		rec[1] = 0;
	}
	pthread_mutex_unlock(&ctx->dbrec_mutex);
	if (!rec)
		errno = ENOMEM;
	return rec;
}

void m5_dbrec_free(struct m5_context *ctx, __be32 *rec)
{
	size_t psize = m5_page_size();
	struct m5_dbrec_page **pp, *p;
	unsigned int slot;
	char *c = (char *)rec;

	if (!rec)
		return;
	pthread_mutex_lock(&ctx->dbrec_mutex);
	for (pp = &ctx->dbrec_pages; (p = *pp); pp = &p->next)
		if (c >= (char *)p->page && c < (char *)p->page + psize)
			break;
	if (p) {
		slot = (c - (char *)p->page) / ctx->cache_line_size;
		p->free_mask[slot / 64] |= 1ull << (slot % 64);
		if (!--p->used) {
			*pp = p->next;
			m5_buf_free(p->page, psize);
			free(p);
		}
	}
	pthread_mutex_unlock(&ctx->dbrec_mutex);
}

/* --- User indexes -------------------------------------------------------- */

/*
 * The table is filled under uidx_mutex and read without it by poll_cq:
 * pages and entries are published with release stores.  A page stays until
 * the context closes, so a reader never sees one freed under it.
 */
int m5_uidx_alloc(struct m5_context *ctx, struct m5_rsc *rsc)
{
	struct m5_rsc **page;
	uint32_t u;
	int ret = ENOMEM;

	pthread_mutex_lock(&ctx->uidx_mutex);
	for (u = ctx->uidx_hint; u < M5_UIDX_NONE; u++) {
		page = ctx->uidx_table[u >> M5_UIDX_PAGE_SHIFT];
		if (!page) {
			page = calloc(M5_UIDX_PAGE_SLOTS, sizeof(*page));
			if (!page)
				break;
			__atomic_store_n(
				&ctx->uidx_table[u >> M5_UIDX_PAGE_SHIFT], page,
				__ATOMIC_RELEASE);
		}
		if (page[u & (M5_UIDX_PAGE_SLOTS - 1)])
			continue;
		rsc->uidx = u;
		__atomic_store_n(&page[u & (M5_UIDX_PAGE_SLOTS - 1)], rsc,
				 __ATOMIC_RELEASE);
		ctx->uidx_hint = u + 1;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&ctx->uidx_mutex);
	return ret;
}

struct m5_rsc *m5_uidx_find(struct m5_context *ctx, uint32_t uidx)
{
	struct m5_rsc **page;

	uidx &= M5_UIDX_NONE;
	page = __atomic_load_n(&ctx->uidx_table[uidx >> M5_UIDX_PAGE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!page)
		return NULL;
	return __atomic_load_n(&page[uidx & (M5_UIDX_PAGE_SLOTS - 1)],
			       __ATOMIC_ACQUIRE);
}

void m5_uidx_free(struct m5_context *ctx, uint32_t uidx)
{
	struct m5_rsc **page;

	if (uidx >= M5_UIDX_NONE)
		return;
	pthread_mutex_lock(&ctx->uidx_mutex);
	page = ctx->uidx_table[uidx >> M5_UIDX_PAGE_SHIFT];
	if (page) {
		__atomic_store_n(&page[uidx & (M5_UIDX_PAGE_SLOTS - 1)], NULL,
				 __ATOMIC_RELEASE);
		if (uidx < ctx->uidx_hint)
			ctx->uidx_hint = uidx;
	}
	pthread_mutex_unlock(&ctx->uidx_mutex);
}

/* --- Per context --------------------------------------------------------- */

void m5_buf_ctx_init(struct m5_context *ctx)
{
	uint32_t cls = ctx->cache_line_size;

	/* Slots must hold a record and keep it 8-byte aligned. */
	if (cls < 8 || (cls & (cls - 1)) || cls > m5_page_size())
		ctx->cache_line_size = 64;
	pthread_mutex_init(&ctx->dbrec_mutex, NULL);
	pthread_mutex_init(&ctx->uidx_mutex, NULL);
}

/* Everything still held when the context closes. */
void m5_buf_ctx_fini(struct m5_context *ctx)
{
	struct m5_dbrec_page *p;
	unsigned int i;

	while ((p = ctx->dbrec_pages)) {
		ctx->dbrec_pages = p->next;
		m5_buf_free(p->page, m5_page_size());
		free(p);
	}
	for (i = 0; i < 256; i++) {
		free(ctx->uidx_table[i]);
		ctx->uidx_table[i] = NULL;
	}
	pthread_mutex_destroy(&ctx->dbrec_mutex);
	pthread_mutex_destroy(&ctx->uidx_mutex);
}
