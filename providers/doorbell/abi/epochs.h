/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The layout epochs of libibverbs' private provider interface, as data: one
 * entry per range of rdma-core majors (34 to 65) in which every size, offset,
 * ops slot and ibv_cmd_* parameter count doorbell relies on is the same.
 * Values are x86_64 (LP64) ones plus DB_MUTEX_GROWTH where a struct holds a
 * pthread_mutex_t; every other field they measure is made of pointers,
 * longs, fixed-width integers and pthread_cond_t (48 bytes on every LP64
 * glibc), so other LP64 architectures share them.  Facts and their
 * sources: docs/abi.md; the architectures: docs/architectures.md.
 *
 * Self-contained (no libibverbs header), so tests can check the tables
 * against data recorded from each rdma-core tag.
 */
#ifndef DOORBELL_ABI_EPOCHS_H
#define DOORBELL_ABI_EPOCHS_H

#include <pthread.h>

/*
 * How much larger glibc's pthread_mutex_t is here than on x86_64 (40
 * bytes): 8 on aarch64 (48), 0 on ppc64le, s390x and riscv64.  struct
 * ibv_context and struct ibv_qp each hold one, so sizeof(verbs_context)
 * and every ibv_qp_ex/verbs_qp field past ibv_qp grow by it.
 */
#define DB_MUTEX_GROWTH (sizeof(pthread_mutex_t) - 40)

/*
 * Every struct verbs_context_ops member that exists in any of rdma-core 34
 * to 65, in the order rdma-core sorts them (by name).
 */
#define DB_VOP_NAMES(X)                                                        \
	X(advise_mr)                                                           \
	X(alloc_buf)                                                           \
	X(alloc_dm)                                                            \
	X(alloc_dmah)                                                          \
	X(alloc_mw)                                                            \
	X(alloc_null_mr)                                                       \
	X(alloc_parent_domain)                                                 \
	X(alloc_pd)                                                            \
	X(alloc_td)                                                            \
	X(async_event)                                                         \
	X(attach_counters_point_flow)                                          \
	X(attach_mcast)                                                        \
	X(bind_mw)                                                             \
	X(close_xrcd)                                                          \
	X(cq_event)                                                            \
	X(create_ah)                                                           \
	X(create_comp_cntr)                                                    \
	X(create_counters)                                                     \
	X(create_cq)                                                           \
	X(create_cq_ex)                                                        \
	X(create_flow)                                                         \
	X(create_flow_action_esp)                                              \
	X(create_qp)                                                           \
	X(create_qp_ex)                                                        \
	X(create_rwq_ind_table)                                                \
	X(create_srq)                                                          \
	X(create_srq_ex)                                                       \
	X(create_wq)                                                           \
	X(dealloc_dmah)                                                        \
	X(dealloc_mw)                                                          \
	X(dealloc_pd)                                                          \
	X(dealloc_td)                                                          \
	X(dereg_mr)                                                            \
	X(destroy_ah)                                                          \
	X(destroy_comp_cntr)                                                   \
	X(destroy_counters)                                                    \
	X(destroy_cq)                                                          \
	X(destroy_flow)                                                        \
	X(destroy_flow_action)                                                 \
	X(destroy_qp)                                                          \
	X(destroy_rwq_ind_table)                                               \
	X(destroy_srq)                                                         \
	X(destroy_wq)                                                          \
	X(detach_mcast)                                                        \
	X(dm_export_dmabuf_fd)                                                 \
	X(free_buf)                                                            \
	X(free_context)                                                        \
	X(free_dm)                                                             \
	X(get_srq_num)                                                         \
	X(import_dm)                                                           \
	X(import_mr)                                                           \
	X(import_pd)                                                           \
	X(inc_comp_cntr)                                                       \
	X(inc_err_comp_cntr)                                                   \
	X(modify_cq)                                                           \
	X(modify_flow_action_esp)                                              \
	X(modify_qp)                                                           \
	X(modify_qp_rate_limit)                                                \
	X(modify_srq)                                                          \
	X(modify_wq)                                                           \
	X(open_qp)                                                             \
	X(open_xrcd)                                                           \
	X(poll_cq)                                                             \
	X(post_recv)                                                           \
	X(post_send)                                                           \
	X(post_srq_ops)                                                        \
	X(post_srq_recv)                                                       \
	X(qp_attach_comp_cntr)                                                 \
	X(query_comp_cntr_caps)                                                \
	X(query_device_ex)                                                     \
	X(query_ece)                                                           \
	X(query_port)                                                          \
	X(query_port_speed)                                                    \
	X(query_qp)                                                            \
	X(query_qp_data_in_order)                                              \
	X(query_rt_values)                                                     \
	X(query_srq)                                                           \
	X(read_comp_cntr)                                                      \
	X(read_counters)                                                       \
	X(read_err_comp_cntr)                                                  \
	X(reg_dm_mr)                                                           \
	X(reg_dmabuf_mr)                                                       \
	X(reg_mr)                                                              \
	X(reg_mr_ex)                                                           \
	X(req_notify_cq)                                                       \
	X(rereg_mr)                                                            \
	X(resize_cq)                                                           \
	X(set_comp_cntr)                                                       \
	X(set_ece)                                                             \
	X(set_err_comp_cntr)                                                   \
	X(unimport_dm)                                                         \
	X(unimport_mr)                                                         \
	X(unimport_pd)

#define DB_VOP_ENUM_ENTRY(name) DB_VOP_##name,
enum db_vop { DB_VOP_NAMES(DB_VOP_ENUM_ENTRY) DB_VOP_NUM };
#undef DB_VOP_ENUM_ENTRY

extern const char *const db_vop_name[DB_VOP_NUM]; /* "advise_mr", ... */

/* The most ops slots of any epoch (rdma-core 65). */
#define DB_VOP_MAX_SLOTS 93

/* One layout epoch of libibverbs' private ABI. */
struct db_epoch {
	int first, last;	      /* rdma-core majors covered, inclusive */
	int pabi;		      /* 34, 57, 59, 64 or 65 */
	int ibverbs_minor;	      /* libibverbs.so.1.<minor>.<major>.<n> */
	unsigned int nslots;	      /* sizeof(struct verbs_context_ops) / 8 */
	signed char slot[DB_VOP_NUM]; /* slot index of each op, -1 if absent */
	unsigned int vctx_size;	      /* sizeof(struct verbs_context) */
	unsigned int vctx_context_off;	/* offsetof(verbs_context, context) */
	unsigned int qp_ex_size;	/* sizeof(struct ibv_qp_ex) */
	unsigned int vqp_comp_mask_off; /* offsetof(verbs_qp, comp_mask) */
	unsigned int vqp_xrcd_off;	/* offsetof(verbs_qp, xrcd) */
	unsigned int vqp_size;		/* sizeof(struct verbs_qp) */
	unsigned int sysfs_abi_ver_off; /* offsetof(verbs_sysfs_dev, abi_ver) */
	unsigned char args_reg_dmabuf_mr; /* parameter counts of the four */
	unsigned char args_get_context;	  /* ibv_cmd_* prototypes that grew */
	unsigned char args_create_cq_ex;
	unsigned char args_create_qp_ex2;
};

extern const struct db_epoch db_epochs[];
extern const unsigned int db_num_epochs;

/* The epoch of an rdma-core major, NULL outside 34..65. */
const struct db_epoch *db_epoch_of(int major);

#endif /* DOORBELL_ABI_EPOCHS_H */
