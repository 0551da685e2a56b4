// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Dynamic UARs: when GET_CONTEXT grants MLX5_LIB_CAP_DYN_UAR (the kernel
 * answers tot_bfregs 0), UARs are mlx5_ib UAR objects allocated as they are
 * needed, and create_qp/create_cq name theirs by page id.  The assignment
 * follows libmlx5 (rdma-core v44 providers/mlx5/verbs.c, mlx5_get_qp_uar,
 * mlx5_attach_dedicated_uar, mlx5_set_singleton_nc_uar):
 *  - CQ arms go to one non-cached UAR per context;
 *  - a thread domain has a bfreg of its own, which its QPs use without a
 *    lock; thread domains share UARs, one bfreg each (two per 4 KB UAR,
 *    32 per 64 KB page), and a freed one goes to the next thread domain;
 *    TD UARs are kept until the context closes;
 *  - other QPs take a free dedicated bfreg while there are fewer than
 *    M5_LOW_LAT_BFREGS, then a shared one while there are fewer than
 *    M5_TOTAL_BFREGS - M5_LOW_LAT_BFREGS, then the least used shared one;
 *    shared bfregs are locked.  QP UARs are kept until the context closes.
 * Without write combining (bf_reg_size 0) every QP rings the non-cached UAR
 * without BlueFlame, as libmlx5 does.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <rdma/mlx5_user_ioctl_verbs.h>

#include "mlx5/mlx5.h"

/* Destroy a UAR object: unmap it first, as libmlx5's mlx5_free_uar. */
static void m5_uar_obj_free(struct m5_context *ctx, struct m5_uar_obj *obj)
{
	m5k_munmap_uar(ctx, obj->addr, obj->k.length);
	m5k_destroy_uar(ctx, obj->k.handle);
	free(obj);
}

/* The bfregs of a UAR mapping: two per 4 KB UAR, page ids ascending. */
static void m5_uar_obj_init_bfs(struct m5_context *ctx, struct m5_uar_obj *obj,
				bool bf_ok)
{
	struct m5_bf *bf;
	unsigned int j;

	for (j = 0; j < obj->nbf; j++) {
		bf = &obj->bf[j];
		bf->reg = (char *)obj->addr +
			  j / M5_NON_FP_BFREGS_PER_UAR * M5_UAR_SIZE +
			  M5_BF_OFFSET +
			  j % M5_NON_FP_BFREGS_PER_UAR * ctx->bf_reg_size;
		bf->buf_size = bf_ok ? ctx->bf_reg_size / 2 : 0;
		bf->uuarn = bf_ok; /* the send path's "BlueFlame allowed" */
		bf->kind = obj->kind;
		bf->page_id = obj->k.page_id + j / M5_NON_FP_BFREGS_PER_UAR;
		bf->obj = obj;
		bf->need_lock = obj->kind == M5_BF_QP_SHARED &&
				!db_config()->single_threaded;
		db_lock_init(&bf->lock, bf->need_lock);
	}
}

/* Allocate and map a UAR object of type (MLX5_IB_UAPI_UAR_ALLOC_TYPE_*). */
static struct m5_uar_obj *m5_uar_obj_new(struct m5_context *ctx, uint32_t type,
					 enum m5_bf_kind kind)
{
	struct m5k_uar k = {};
	struct m5_uar_obj *obj;
	unsigned int nbf;
	void *addr;
	int ret;

	ret = m5k_alloc_uar(ctx, type, &k);
	if (ret) {
		errno = ret;
		return NULL;
	}
	nbf = k.length / M5_UAR_SIZE * M5_NON_FP_BFREGS_PER_UAR;
	obj = nbf ? calloc(1, sizeof(*obj) + nbf * sizeof(obj->bf[0])) : NULL;
	addr = obj ? m5k_mmap_uar(ctx, (off_t)k.mmap_offset, k.length)
		   : MAP_FAILED;
	if (addr == MAP_FAILED) {
		ret = obj ? errno : (nbf ? ENOMEM : EPROTO);
		free(obj);
		m5k_destroy_uar(ctx, k.handle);
		errno = ret;
		return NULL;
	}
	obj->k = k;
	obj->addr = addr;
	obj->kind = kind;
	obj->nbf = nbf;
	m5_uar_obj_init_bfs(ctx, obj,
			    type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF &&
				    ctx->bf_reg_size);
	return obj;
}

int m5_dyn_uar_init(struct m5_context *ctx)
{
	pthread_mutex_init(&ctx->uar_mutex, NULL);
	ctx->nc_uar =
		m5_uar_obj_new(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC, M5_BF_NC);
	/* A kernel without non-cached UARs: arms through a BlueFlame one. */
	if (!ctx->nc_uar && errno == EOPNOTSUPP && ctx->bf_reg_size)
		ctx->nc_uar = m5_uar_obj_new(
			ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF, M5_BF_NC);
	if (!ctx->nc_uar) {
		pthread_mutex_destroy(&ctx->uar_mutex);
		return errno;
	}
	ctx->nc_uar->bf[0].buf_size = 0;
	ctx->nc_uar->bf[0].uuarn = 0;
	ctx->cq_uar = ctx->nc_uar->addr;
	ctx->cq_uar_page = ctx->nc_uar->k.page_id;
	return 0;
}

void m5_dyn_uar_fini(struct m5_context *ctx)
{
	struct m5_uar_obj *obj;

	while ((obj = ctx->qp_uars)) {
		ctx->qp_uars = obj->next;
		m5_uar_obj_free(ctx, obj);
	}
	m5_uar_obj_free(ctx, ctx->nc_uar);
	ctx->nc_uar = NULL;
	pthread_mutex_destroy(&ctx->uar_mutex);
}

/* A free bfreg of kind, or the least used one; NULL if there is none. */
static struct m5_bf *m5_find_bf(struct m5_context *ctx, enum m5_bf_kind kind,
				bool free_only)
{
	struct m5_bf *best = NULL;
	struct m5_uar_obj *obj;
	unsigned int j;

	for (obj = ctx->qp_uars; obj; obj = obj->next) {
		if (obj->kind != kind)
			continue;
		for (j = 0; j < obj->nbf; j++) {
			if (!obj->bf[j].users)
				return &obj->bf[j];
			if (!free_only &&
			    (!best || obj->bf[j].users < best->users))
				best = &obj->bf[j];
		}
	}
	return free_only ? NULL : best;
}

/*
 * One more UAR of kind for QPs or thread domains; false (errno set) if it
 * cannot be had.
 */
static bool m5_grow_qp_uars(struct m5_context *ctx, enum m5_bf_kind kind)
{
	struct m5_uar_obj *obj;

	obj = m5_uar_obj_new(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF, kind);
	if (!obj)
		return false;
	obj->next = ctx->qp_uars;
	ctx->qp_uars = obj;
	if (kind == M5_BF_QP_DEDICATED)
		ctx->qp_dedicated += obj->nbf;
	else if (kind == M5_BF_QP_SHARED)
		ctx->qp_shared += obj->nbf;
	return true;
}

static struct m5_bf *m5_qp_bf_pick(struct m5_context *ctx)
{
	struct m5_bf *bf;

	bf = m5_find_bf(ctx, M5_BF_QP_DEDICATED, true);
	if (bf)
		return bf;
	if (ctx->qp_dedicated < M5_LOW_LAT_BFREGS &&
	    m5_grow_qp_uars(ctx, M5_BF_QP_DEDICATED))
		return m5_find_bf(ctx, M5_BF_QP_DEDICATED, true);
	bf = m5_find_bf(ctx, M5_BF_QP_SHARED, true);
	if (bf)
		return bf;
	if (ctx->qp_shared < M5_TOTAL_BFREGS - M5_LOW_LAT_BFREGS &&
	    m5_grow_qp_uars(ctx, M5_BF_QP_SHARED))
		return m5_find_bf(ctx, M5_BF_QP_SHARED, true);
	/* Out of UARs (errno set by the refusal): share a shared one. */
	return m5_find_bf(ctx, M5_BF_QP_SHARED, false);
}

static struct m5_td *m5_pd_td(struct ibv_pd *pd)
{
	struct db_pd *p = container_of(pd, struct db_pd, ibv_pd);

	return p->td ? container_of(p->td, struct m5_td, core) : NULL;
}

struct m5_bf *m5_dyn_bf_get(struct m5_context *ctx, struct ibv_pd *pd)
{
	struct m5_td *td = m5_pd_td(pd);
	struct m5_bf *bf;

	pthread_mutex_lock(&ctx->uar_mutex);
	if (td && td->bf)
		bf = td->bf;
	else if (!ctx->bf_reg_size)
		bf = &ctx->nc_uar->bf[0];
	else
		bf = m5_qp_bf_pick(ctx);
	if (bf)
		bf->users++;
	pthread_mutex_unlock(&ctx->uar_mutex);
	return bf;
}

void m5_dyn_bf_put(struct m5_context *ctx, struct m5_bf *bf)
{
	pthread_mutex_lock(&ctx->uar_mutex);
	bf->users--;
	pthread_mutex_unlock(&ctx->uar_mutex);
}

struct ibv_td *m5_alloc_td(struct ibv_context *ibctx,
			   struct ibv_td_init_attr *attr)
{
	struct m5_context *ctx = to_m5_ctx(ibctx);
	struct m5_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * A bfreg no thread domain holds, from a new UAR if there is none
	 * (libmlx5 v44 verbs.c, mlx5_attach_dedicated_uar).  Static UARs, or
	 * no write combining: the QPs' bfregs as ever.
	 */
	if (ctx->dyn_uar && ctx->bf_reg_size) {
		pthread_mutex_lock(&ctx->uar_mutex);
		td->bf = m5_find_bf(ctx, M5_BF_TD, true);
		if (!td->bf && m5_grow_qp_uars(ctx, M5_BF_TD))
			td->bf = m5_find_bf(ctx, M5_BF_TD, true);
		if (td->bf)
			td->bf->users++;
		pthread_mutex_unlock(&ctx->uar_mutex);
		if (!td->bf) {
			free(td);
			return NULL;
		}
	}
	td->core.ibv_td.context = ibctx;
	return &td->core.ibv_td;
}

int m5_dealloc_td(struct ibv_td *ibtd)
{
	struct m5_td *td = container_of(ibtd, struct m5_td, core.ibv_td);
	struct m5_context *ctx = to_m5_ctx(ibtd->context);
	bool busy = atomic_load(&td->core.users);

	/*
	 * Parent domains hold their TD; QPs hold its bfreg.  The bfreg goes
	 * back for the next thread domain; its UAR stays until close.
	 */
	if (td->bf) {
		pthread_mutex_lock(&ctx->uar_mutex);
		busy |= td->bf->users > 1;
		if (!busy)
			td->bf->users = 0;
		pthread_mutex_unlock(&ctx->uar_mutex);
	}
	if (busy)
		return EBUSY;
	free(td);
	return 0;
}
