/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The generic core of doorbell: device and context objects, the backend
 * interface, configuration and logging.  Backends live in their own folders
 * and see only this header from the core.
 */
#ifndef DOORBELL_CORE_H
#define DOORBELL_CORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/verbs_pabi34.h"

#define DB_NAME "doorbell"

#ifndef container_of
#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

struct db_context;

/*
 * A backend drives one kind of kernel driver.  The core picks it once, when
 * the device is matched by driver id, and installs its ops table over the
 * core's common one when a context opens; after that the fast path calls
 * straight into the backend through libibverbs' own dispatch.
 */
struct db_backend {
	const char *name;
	uint32_t driver_id;		/* enum rdma_driver_id */
	size_t context_size;		/* the backend's context object */
	/* Finish a context after the core initialised it; 0 or errno. */
	int (*init_context)(struct db_context *ctx);
	void (*uninit_context)(struct db_context *ctx);
	const struct verbs_context_ops *ops;
};

struct db_device {
	struct verbs_device vdev;
	const struct db_backend *backend;
};

/* Every backend context starts with this. */
struct db_context {
	struct verbs_context vctx;
	const struct db_backend *backend;
	unsigned int flags;		/* DB_CTX_* */
};

enum {
	DB_CTX_DEBUG = 1 << 0,
};

static inline struct db_context *to_db_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct db_context, vctx.context);
}

static inline struct db_device *to_db_dev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct db_device, vdev.device);
}

struct db_td {
	struct ibv_td ibv_td;
	atomic_int users;		/* parent domains using it */
};

/* A PD, or a parent domain when protection is set. */
struct db_pd {
	struct ibv_pd ibv_pd;
	struct db_pd *protection;	/* the PD a parent domain wraps */
	struct db_td *td;		/* a parent domain's thread domain */
	void *pd_context;
	/* A parent domain's allocators (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	/* PD: parent domains wrapping it; parent: buffers from alloc */
	atomic_int users;
};

/* domain.c */
struct ibv_pd *db_alloc_pd(struct ibv_context *ctx);
int db_dealloc_pd(struct ibv_pd *pd);
/* db_dealloc_pd for a backend whose PDs a kernel_dealloc releases. */
int db_dealloc_pd_via(struct ibv_pd *pd,
		      int (*kernel_dealloc)(struct ibv_pd *pd));
struct ibv_td *db_alloc_td(struct ibv_context *ctx,
			   struct ibv_td_init_attr *attr);
int db_dealloc_td(struct ibv_td *td);
struct ibv_pd *
db_alloc_parent_domain(struct ibv_context *ctx,
		       struct ibv_parent_domain_init_attr *attr);
/* Objects created in this PD are used by one thread at a time. */
bool db_pd_single_threaded(struct ibv_pd *pd);
bool db_pd_is_parent(struct ibv_pd *pd);

/* register.c: what libibverbs calls; tests open contexts through it. */
extern const struct verbs_device_ops db_device_ops;

/* legacy_create.c: the pre-_ex create verbs, through the backend's _ex ones */
struct ibv_cq *db_create_cq(struct ibv_context *ctx, int cqe,
			    struct ibv_comp_channel *channel, int vector);
struct ibv_qp *db_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_srq *db_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr);

/* backends.c: the table of backends this build knows. */
const struct db_backend *db_backend_for_driver(uint32_t driver_id);

/* common_verbs.c: verbs that every uverbs device implements the same way. */
extern const struct verbs_context_ops db_common_ops;

/* config.c: DOORBELL_* environment variables, read once per process. */
struct db_config {
	int debug;		/* DOORBELL_DEBUG */
	int single_threaded;	/* DOORBELL_SINGLE_THREADED */
	int mlx5;		/* DOORBELL_MLX5: serve ConnectX devices */
};
const struct db_config *db_config(void);

/* log.c */
void db_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void db_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* libver.c: accept only the libibverbs whose layouts we were built for. */
int db_libibverbs_major(const char *real_path);
int db_check_libibverbs(void);

#endif /* DOORBELL_CORE_H */
