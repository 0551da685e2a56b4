// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Protection domains, thread domains and parent domains.  A parent domain
 * is a userspace object that wraps a PD (its kernel handle is the PD's) and
 * may carry a thread domain: objects created in it are used by one thread
 * at a time, so their locks are elided.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/doorbell.h"
#include "core/kcmd.h"

static struct db_pd *to_db_pd(struct ibv_pd *pd)
{
	return container_of(pd, struct db_pd, ibv_pd);
}

static struct db_td *to_db_td(struct ibv_td *td)
{
	return container_of(td, struct db_td, ibv_td);
}

void *db_pd_alloc(struct ibv_pd *pd, size_t size, size_t align, uint64_t type)
{
	struct db_pd *p;
	void *buf;

	/* Both or neither: what alloc gave must go back to free. */
	if (!db_pd_is_parent(pd))
		return IBV_ALLOCATOR_USE_DEFAULT;
	p = to_db_pd(pd);
	if (!p->alloc || !p->free)
		return IBV_ALLOCATOR_USE_DEFAULT;
	buf = p->alloc(pd, p->pd_context, size, align, type);
	if (buf == IBV_ALLOCATOR_USE_DEFAULT)
		return buf;
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	atomic_fetch_add(&p->users, 1);
	return buf;
}

void db_pd_free(struct ibv_pd *pd, void *buf, uint64_t type)
{
	struct db_pd *p = to_db_pd(pd);

	p->free(pd, p->pd_context, buf, type);
	atomic_fetch_sub(&p->users, 1);
}

bool db_pd_single_threaded(struct ibv_pd *pd)
{
	return pd && to_db_pd(pd)->td;
}

bool db_pd_is_parent(struct ibv_pd *pd)
{
	return pd && to_db_pd(pd)->protection;
}

struct ibv_pd *db_alloc_pd(struct ibv_context *ctx)
{
	struct db_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = db_k_alloc_pd(ctx, &pd->ibv_pd,
			    to_db_ctx(ctx)->backend->pd_resp_drv_len);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

int db_dealloc_pd(struct ibv_pd *ibpd)
{
	struct db_pd *pd = to_db_pd(ibpd);
	int ret;

	if (pd->protection) {
		/* Its free is still to be called for a queue's buffer. */
		if (atomic_load(&pd->users))
			return EBUSY;
		if (pd->td)
			atomic_fetch_sub(&pd->td->users, 1);
		atomic_fetch_sub(&pd->protection->users, 1);
		free(pd);
		return 0;
	}
	if (atomic_load(&pd->users))
		return EBUSY;
	ret = db_k_dealloc_pd(ibpd);
	if (!ret)
		free(pd);
	return ret;
}

struct ibv_td *db_alloc_td(struct ibv_context *ctx,
			   struct ibv_td_init_attr *attr)
{
	struct db_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = ctx;
	return &td->ibv_td;
}

int db_dealloc_td(struct ibv_td *ibtd)
{
	struct db_td *td = to_db_td(ibtd);

	if (atomic_load(&td->users))
		return EBUSY;
	free(td);
	return 0;
}

struct ibv_pd *db_alloc_parent_domain(struct ibv_context *ctx,
				      struct ibv_parent_domain_init_attr *attr)
{
	const uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	struct db_pd *parent, *pd;

	if (attr->comp_mask & ~known) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->pd || attr->pd->context != ctx ||
	    db_pd_is_parent(attr->pd) ||
	    (attr->td && attr->td->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	pd = to_db_pd(attr->pd);
	parent = calloc(1, sizeof(*parent));
	if (!parent) {
		errno = ENOMEM;
		return NULL;
	}
	parent->ibv_pd.context = ctx;
	parent->ibv_pd.handle = pd->ibv_pd.handle;
	parent->protection = pd;
	atomic_fetch_add(&pd->users, 1);
	if (attr->td) {
		parent->td = to_db_td(attr->td);
		atomic_fetch_add(&parent->td->users, 1);
	}
	/*
	 * The allocators are for the buffers the provider allocates itself:
	 * mlx5's queue buffers (mlx5/mlx5_buf.c, through db_pd_alloc).  rxe's
	 * queues are kernel memory mapped in, so rxe never calls them.
	 */
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		parent->alloc = attr->alloc;
		parent->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent->pd_context = attr->pd_context;
	return &parent->ibv_pd;
}
