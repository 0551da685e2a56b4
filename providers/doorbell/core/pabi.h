/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The running libibverbs, as core/libver.c found it when libibverbs loaded
 * us: its layout epoch (abi/epochs.h) and its private functions, resolved
 * with dlvsym() in its IBVERBS_PRIVATE_<pabi> node.  Nothing here is
 * consulted on the fast path: post_send, poll_cq and the ibv_wr_* builders
 * are installed per object when it is created, and never look here.
 *
 * The code calls libibverbs' private functions straight through db_lib:
 * db_lib.ibv_cmd_x(...) with rdma-core 44's argument list (the typedefs in
 * abi/verbs_pabi34.h).  Only where the argument list differs between
 * releases is there a db_cmd_* function below, which calls the running
 * release's form: a name moved into DB_LIB_GROWN_FNS turns its field into
 * a union, so a direct caller stops compiling.  ibv_cmd_reg_dmabuf_mr is
 * always called with its trailing parameter (see DB_LIB_LONG_FNS).
 */
#ifndef DOORBELL_CORE_PABI_H
#define DOORBELL_CORE_PABI_H

#include <stdbool.h>
#include <string.h>

#include "abi/epochs.h"
#include "abi/verbs_pabi34.h"

/* The private functions doorbell calls: one X(name) per symbol. */
#define DB_LIB_FNS(X)                                                          \
	X(_verbs_init_and_alloc_context)                                       \
	X(verbs_uninit_context)                                                \
	X(verbs_set_ops)                                                       \
	X(ibv_cmd_query_device_any)                                            \
	X(ibv_cmd_query_port)                                                  \
	X(ibv_cmd_alloc_pd)                                                    \
	X(ibv_cmd_dealloc_pd)                                                  \
	X(ibv_cmd_reg_mr)                                                      \
	X(ibv_cmd_dereg_mr)                                                    \
	X(ibv_cmd_rereg_mr)                                                    \
	X(ibv_cmd_advise_mr)                                                   \
	X(ibv_cmd_alloc_mw)                                                    \
	X(ibv_cmd_dealloc_mw)                                                  \
	X(ibv_cmd_open_xrcd)                                                   \
	X(ibv_cmd_close_xrcd)                                                  \
	X(ibv_cmd_open_qp)                                                     \
	X(ibv_cmd_req_notify_cq)                                               \
	X(ibv_cmd_resize_cq)                                                   \
	X(ibv_cmd_modify_cq)                                                   \
	X(ibv_cmd_destroy_cq)                                                  \
	X(ibv_cmd_create_srq_ex)                                               \
	X(ibv_cmd_modify_srq)                                                  \
	X(ibv_cmd_query_srq)                                                   \
	X(ibv_cmd_destroy_srq)                                                 \
	X(ibv_cmd_query_qp)                                                    \
	X(ibv_cmd_modify_qp)                                                   \
	X(ibv_cmd_destroy_qp)                                                  \
	X(ibv_cmd_create_ah)                                                   \
	X(ibv_cmd_destroy_ah)                                                  \
	X(ibv_cmd_attach_mcast)                                                \
	X(ibv_cmd_detach_mcast)
/* The ones whose prototype gained a parameter: X(name, type of the new form) */
#define DB_LIB_GROWN_FNS(X)                                                    \
	X(ibv_cmd_get_context, ibv_cmd_get_context_6)                          \
	X(ibv_cmd_create_cq_ex, ibv_cmd_create_cq_ex_9)                        \
	X(ibv_cmd_create_qp_ex2, ibv_cmd_create_qp_ex2_8)
/*
 * Grown by a trailing parameter in a release that exports nothing new, so
 * that the older form cannot be told apart (ibv_cmd_reg_dmabuf_mr gained
 * `driver` in 54, and 53 and 54 to 56 export the same symbols): called in
 * the long form, with NULL last, on every release.  An older callee
 * ignores it: under the LP64 psABIs doorbell builds for the caller owns the
 * argument area, and the 8th argument is past every parameter it reads.
 * X(name, type of the long form)
 */
#define DB_LIB_LONG_FNS(X) X(ibv_cmd_reg_dmabuf_mr, ibv_cmd_reg_dmabuf_mr_8)

#define DB_LIB_FN_FIELD(name)	      db_fn_##name *name;
#define DB_LIB_LONG_FIELD(name, long) db_fn_##long *name;
#define DB_LIB_GROWN_FIELD(name, grown)                                        \
	union {                                                                \
		db_fn_##name *v44;                                             \
		db_fn_##grown *grown;                                          \
	} name;

struct db_libibverbs {
	const struct db_epoch *epoch; /* NULL until core/libver.c accepted */
	int major;		      /* rdma-core release */
	db_fn_verbs_register_driver *verbs_register_driver; /* _<pabi> */
	DB_LIB_FNS(DB_LIB_FN_FIELD)
	DB_LIB_LONG_FNS(DB_LIB_LONG_FIELD)
	DB_LIB_GROWN_FNS(DB_LIB_GROWN_FIELD)
};
#undef DB_LIB_FN_FIELD
#undef DB_LIB_LONG_FIELD
#undef DB_LIB_GROWN_FIELD

extern struct db_libibverbs db_lib;

/* The epoch of the headers doorbell is compiled with (rdma-core 44). */
const struct db_epoch *db_built_epoch(void);

/*
 * libibverbs' verbs_context of a context: ours (struct db_context) has the
 * 44 layout, libibverbs' ends at the same place and may start earlier; both
 * end in .context, and the other members keep their distance to it.
 */
static inline struct verbs_context *db_lib_vctx(struct verbs_context *vctx)
{
	return (struct verbs_context *)((char *)&vctx->context -
					db_lib.epoch->vctx_context_off);
}

/* verbs_qp.comp_mask where the running libibverbs has it. */
static inline uint32_t *db_vqp_comp_mask(struct verbs_qp *vqp)
{
	return (uint32_t *)((char *)vqp + db_lib.epoch->vqp_comp_mask_off);
}

/* verbs_qp.xrcd (an XRC target's domain) where the running one has it. */
static inline struct verbs_xrcd **db_vqp_xrcd(struct verbs_qp *vqp)
{
	return (struct verbs_xrcd **)((char *)vqp + db_lib.epoch->vqp_xrcd_off);
}

/* After ibv_cmd_create_qp_ex2: ibv_qp_to_qp_ex() now returns the QP. */
static inline void db_vqp_set_ex(struct verbs_qp *vqp)
{
	*db_vqp_comp_mask(vqp) |= VERBS_QP_EX;
}

/*
 * ibv_qp_ex members newer than rdma-core 43, at the same offset in every
 * release that has them (v44.0 and v45.0 libibverbs/verbs.h, struct
 * ibv_qp_ex; the golden files' qp_ex_size): wr_atomic_write from 44,
 * wr_flush from 45.  Before that, those bytes are verbs_qp's comp_mask and
 * xrcd, which libibverbs owns.  ibv_qp_ex starts with the ibv_qp, which
 * holds a pthread_mutex_t (abi/epochs.h, DB_MUTEX_GROWTH).
 */
#define DB_QPX_WR_ATOMIC_WRITE_OFF (344 + DB_MUTEX_GROWTH)
#define DB_QPX_WR_FLUSH_OFF	   (352 + DB_MUTEX_GROWTH)

/* Does the running release's ibv_qp_ex have the function pointer at off? */
static inline bool db_qpx_has(size_t off)
{
	return off + sizeof(void (*)(void)) <= db_lib.epoch->qp_ex_size;
}

/* ibv_qp_ex.wr_atomic_write and .wr_flush (rdma-core 44 and 45). */
typedef void db_wr_atomic_write_fn(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t addr, const void *atomic_wr);
typedef void db_wr_flush_fn(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
			    size_t len, uint8_t type, uint8_t level);

/*
 * Set wr_atomic_write and wr_flush only where the running release's
 * ibv_qp_ex has them (memcpy: an older verbs.h may lack the member).
 */
static inline void db_qpx_set_ext_ops(struct ibv_qp_ex *qpx,
				      db_wr_atomic_write_fn *atomic_write,
				      db_wr_flush_fn *flush)
{
	if (db_qpx_has(DB_QPX_WR_ATOMIC_WRITE_OFF))
		memcpy((char *)qpx + DB_QPX_WR_ATOMIC_WRITE_OFF, &atomic_write,
		       sizeof(atomic_write));
	if (db_qpx_has(DB_QPX_WR_FLUSH_OFF))
		memcpy((char *)qpx + DB_QPX_WR_FLUSH_OFF, &flush,
		       sizeof(flush));
}

static inline uint32_t db_sysfs_abi_ver(const struct verbs_sysfs_dev *sysfs)
{
	uint32_t v;

	memcpy(&v, (const char *)sysfs + db_lib.epoch->sysfs_abi_ver_off,
	       sizeof(v));
	return v;
}

/* verbs_set_ops with a table in our layout, rebuilt in the running one. */
void db_set_ops(struct verbs_context *vctx,
		const struct verbs_context_ops *ops);
/* The ops of ours that the running release has no slot for. */
size_t db_ops_dropped(const struct verbs_context_ops *ops, const char **names,
		      size_t max);

/* Those whose argument lists differ between releases, or with our vctx. */
void *db_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				size_t alloc_size, size_t vctx_context_off,
				uint32_t driver_id);
void db_uninit_context(struct verbs_context *vctx);
int db_cmd_get_context(struct verbs_context *vctx, struct ibv_get_context *cmd,
		       size_t cmd_size, struct ib_uverbs_get_context_resp *resp,
		       size_t resp_size);
int db_cmd_create_cq_ex(struct ibv_context *context,
			const struct ibv_cq_init_attr_ex *cq_attr,
			struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			size_t cmd_size,
			struct ib_uverbs_ex_create_cq_resp *resp,
			size_t resp_size, uint32_t cmd_flags);
int db_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr,
			 struct ibv_create_qp_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_qp_resp *resp,
			 size_t resp_size);

/*
 * Installed as an op in a backend's static ops table (rxe/rxe_context.c),
 * where a pointer read from db_lib at run time cannot go.
 */
int db_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);

#endif /* DOORBELL_CORE_PABI_H */
