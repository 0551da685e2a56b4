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
#include <stdio.h>

#include "abi/verbs_pabi34.h"
#include "core/pabi.h"

#define DB_NAME "doorbell"

#ifndef container_of
#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))
#endif

struct db_context;

/* Bit of an enum ibv_qp_type in a backend's qp_types. */
#define DB_QPT(type) (1u << ((type)&31))
/* Bit of an enum ibv_srq_type in a backend's srq_types. */
#define DB_SRQT(type) (1u << ((type)&31))

/*
 * A backend drives one kind of kernel driver, and this descriptor is all the
 * core knows of it.  register.c builds libibverbs' match table and ABI range
 * from the list in backends.c; the core picks a backend once, when a device
 * is matched, and installs its ops table over the core's common one when a
 * context opens.  After that the fast path calls straight into the backend
 * through libibverbs' own dispatch.
 */
struct db_backend {
	const char *name;
	uint32_t driver_id; /* enum rdma_driver_id */
	/* The uverbs ABI versions of the kernel driver (sysfs abi_version). */
	uint32_t kabi_min;
	uint32_t kabi_max;
	/*
	 * NULL: the driver's devices are always served.  Otherwise the
	 * variable that opts them in; without it they are left to
	 * native_provider, the rdma-core provider that usually serves them.
	 */
	const char *opt_in_env;
	const char *native_provider;
	/*
	 * native_provider's file (its soname): when it is already loaded as
	 * doorbell registers, its driver was registered first and serves the
	 * devices, opt-in or not; with opt_in_env set doorbell says so once.
	 */
	const char *native_soname;
	/*
	 * Non-NULL when this build cannot serve the driver (say, no register
	 * stores for the architecture): why, said once on stderr when such a
	 * device is matched; the device is then left to native_provider.
	 */
	const char *absent_reason;
	size_t context_size; /* the backend's context object */
	/*
	 * Room for the driver data the kernel writes after ALLOC_PD's
	 * response; 0 for none.
	 */
	size_t pd_resp_drv_len;
	/*
	 * What the backend's create verbs take (core/attr.c refuses the rest
	 * with EOPNOTSUPP): masks of the libibverbs enums named, 0 for none.
	 */
	uint32_t cq_comp_mask;	  /* enum ibv_cq_init_attr_mask */
	uint32_t cq_create_flags; /* enum ibv_create_cq_attr_flags */
	uint64_t cq_wc_flags;	  /* enum ibv_create_cq_wc_flags */
	uint32_t qp_comp_mask;	  /* enum ibv_qp_init_attr_mask */
	uint32_t qp_create_flags; /* enum ibv_qp_create_flags */
	uint32_t qp_types;	  /* DB_QPT(enum ibv_qp_type), core/attr.h */
	uint32_t srq_comp_mask;	  /* enum ibv_srq_init_attr_mask */
	uint32_t srq_types;	  /* DB_SRQT(enum ibv_srq_type), core/attr.h */
	/*
	 * An SRQ of max_wr 0 is taken (the native provider and kernel size
	 * it to one WQE and it holds no WR: mlx5), not refused with EINVAL.
	 */
	bool srq_takes_0_wr;
	/*
	 * The features of query_device(_ex)'s answer that the backend serves
	 * (DB_SERVES_*, core/caps.c); the core clears the fields and cap
	 * flags of the others.
	 */
	uint32_t serves;
	/*
	 * Open the kernel's side of a context the core initialised:
	 * GET_CONTEXT with the driver's data, and what its reply says; 0 or
	 * errno.  The core then queries the device once (db_context.dev).
	 */
	int (*get_context)(struct db_context *ctx);
	/* Optional: finish the context, dev known; 0 or errno. */
	int (*init_context)(struct db_context *ctx);
	/* Optional: release what init_context took. */
	void (*uninit_context)(struct db_context *ctx);
	/*
	 * Optional: the firmware version string of the kernel's 64-bit one;
	 * NULL for the core's "major.minor.subminor".
	 */
	void (*format_fw_ver)(char *buf, size_t len, uint64_t fw_ver);
	const struct verbs_context_ops *ops;
};

/* Features of db_backend.serves; core/caps.c lists what each covers. */
enum {
	DB_SERVES_MW = 1 << 0,	      /* memory windows, bind */
	DB_SERVES_MEM_MGT = 1 << 1,   /* LOCAL_INV, SEND_WITH_INV */
	DB_SERVES_XRC = 1 << 2,	      /* XRC domains, SRQs and QPs */
	DB_SERVES_RAW = 1 << 3,	      /* raw packet QPs, TSO, checksums */
	DB_SERVES_RSS = 1 << 4,	      /* WQs, indirection tables */
	DB_SERVES_TM = 1 << 5,	      /* tag-matching SRQs */
	DB_SERVES_DM = 1 << 6,	      /* device memory */
	DB_SERVES_TIMESTAMP = 1 << 7, /* completion timestamps */
	DB_SERVES_PACING = 1 << 8,    /* packet pacing (rate limits) */
};

struct db_device {
	struct verbs_device vdev;
	const struct db_backend *backend;
};

/*
 * Every backend context starts with this.  vctx has the rdma-core 44 layout;
 * libibverbs' own verbs_context ends where it ends (both end in .context)
 * and starts up to DB_VCTX_FRONT_ROOM bytes earlier (rdma-core 59 and
 * later prepend members): register.c places it so.  Pass &ctx->vctx to the
 * db_* wrappers of core/pabi.h, which hand libibverbs its own pointer.
 */
struct db_context {
	unsigned char vctx_front[DB_VCTX_FRONT_ROOM];
	struct verbs_context vctx;
	const struct db_backend *backend;
	/*
	 * The device as EX_QUERY_DEVICE described it once, when the context
	 * opened (register.c): odp_caps, device_cap_flags_ex and the limits
	 * the backends check.  All zero when the kernel did not answer.
	 */
	struct ibv_device_attr_ex dev;
	bool dev_known; /* the kernel answered */
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
	atomic_int users; /* parent domains using it */
};

/* A PD, or a parent domain when protection is set. */
struct db_pd {
	struct ibv_pd ibv_pd;
	struct db_pd *protection; /* the PD a parent domain wraps */
	struct db_td *td;	  /* a parent domain's thread domain */
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
struct ibv_td *db_alloc_td(struct ibv_context *ctx,
			   struct ibv_td_init_attr *attr);
int db_dealloc_td(struct ibv_td *td);
struct ibv_pd *db_alloc_parent_domain(struct ibv_context *ctx,
				      struct ibv_parent_domain_init_attr *attr);
/*
 * xrcd.c: XRC domains, the kernel's objects.  Core verbs that a backend
 * serving XRC lists in its ops (no backend gets them by default).
 */
struct ibv_xrcd *db_open_xrcd(struct ibv_context *ctx,
			      struct ibv_xrcd_init_attr *attr);
int db_close_xrcd(struct ibv_xrcd *xrcd);
/* Objects created in this PD are used by one thread at a time. */
bool db_pd_single_threaded(struct ibv_pd *pd);
bool db_pd_is_parent(struct ibv_pd *pd);
/*
 * A buffer of @size bytes aligned to @align for a queue of @type (the
 * provider's resource type, e.g. MLX5DV_RES_TYPE_CQ) from the allocator of
 * parent domain @pd, as libibverbs' IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS
 * promises.  IBV_ALLOCATOR_USE_DEFAULT when @pd is no parent domain with
 * allocators or its allocator says so: the caller allocates its own.  NULL
 * with errno ENOMEM when the allocator fails.  A buffer it gave must go
 * back through db_pd_free, and keeps @pd from being deallocated (EBUSY).
 */
void *db_pd_alloc(struct ibv_pd *pd, size_t size, size_t align, uint64_t type);
void db_pd_free(struct ibv_pd *pd, void *buf, uint64_t type);

/*
 * register.c: what libibverbs calls; tests open contexts through it.  Its
 * match table and ABI range are filled from db_backends[] at load time.
 */
extern struct verbs_device_ops db_device_ops;
void db_free_context(struct ibv_context *ibctx);
/* core/caps.c: clear from @attr what @be does not serve. */
void db_mask_device_attr(const struct db_backend *be,
			 struct ibv_device_attr_ex *attr, size_t size);

/* legacy_create.c: the pre-_ex create verbs, through the backend's _ex ones */
struct ibv_cq *db_create_cq(struct ibv_context *ctx, int cqe,
			    struct ibv_comp_channel *channel, int vector);
struct ibv_qp *db_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_srq *db_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr);

/* backends.c: the backends this build carries. */
extern const struct db_backend *const db_backends[];
extern const size_t db_num_backends;

/* common_verbs.c: verbs that every uverbs device implements the same way. */
extern const struct verbs_context_ops db_common_ops;
/* A core verb for the backends whose kernel driver registers dma-bufs. */
struct ibv_mr *db_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				size_t length, uint64_t iova, int fd,
				int access);
/* ibv_rereg_mr, for the backends whose kernel driver re-registers MRs. */
int db_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd, void *addr,
		size_t length, int access);

/* config.c: DOORBELL_* environment variables, read once per process. */
struct db_config {
	int debug;	     /* DOORBELL_DEBUG */
	int single_threaded; /* DOORBELL_SINGLE_THREADED */
};
const struct db_config *db_config(void);
/* A variable that is set and not "0"; a backend's opt_in_env, say. */
bool db_env_flag(const char *name);

/* log.c */
void db_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void db_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* DOORBELL_CORE_H */
