// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The epoch tables (abi/epochs.h).  Where each number comes from: rdma-core's
 * libibverbs/driver.h and verbs.h at each release tag, compiled for x86_64
 * (abi/epochs.h: DB_MUTEX_GROWTH for the others); docs/abi.md says how to
 * check one and how to add a release.
 */
#include <stddef.h>

#include "abi/epochs.h"

#define DB_VOP_NAME_ENTRY(name) [DB_VOP_##name] = #name,
const char *const db_vop_name[DB_VOP_NUM] = { DB_VOP_NAMES(DB_VOP_NAME_ENTRY) };

/*
 * The slot of each op in struct verbs_context_ops, per ops layout (-1: the
 * op is not a member).  Columns: rdma-core 34 | 35 | 36-58 | 59-61 | 62-63 |
 * 64 | 65.  Every member is one pointer, and the members are sorted by
 * name, so a column is the rank of each present op among the present ones.
 */
/* clang-format off */
#define DB_VOP_SLOTS(X) \
	X(advise_mr,  0,  0,  0,  0,  0,  0,  0) \
	X(alloc_buf, -1, -1, -1, -1, -1,  1,  1) \
	X(alloc_dm,  1,  1,  1,  1,  1,  2,  2) \
	X(alloc_dmah, -1, -1, -1,  2,  2,  3,  3) \
	X(alloc_mw,  2,  2,  2,  3,  3,  4,  4) \
	X(alloc_null_mr,  3,  3,  3,  4,  4,  5,  5) \
	X(alloc_parent_domain,  4,  4,  4,  5,  5,  6,  6) \
	X(alloc_pd,  5,  5,  5,  6,  6,  7,  7) \
	X(alloc_td,  6,  6,  6,  7,  7,  8,  8) \
	X(async_event,  7,  7,  7,  8,  8,  9,  9) \
	X(attach_counters_point_flow,  8,  8,  8,  9,  9, 10, 10) \
	X(attach_mcast,  9,  9,  9, 10, 10, 11, 11) \
	X(bind_mw, 10, 10, 10, 11, 11, 12, 12) \
	X(close_xrcd, 11, 11, 11, 12, 12, 13, 13) \
	X(cq_event, 12, 12, 12, 13, 13, 14, 14) \
	X(create_ah, 13, 13, 13, 14, 14, 15, 15) \
	X(create_comp_cntr, -1, -1, -1, -1, -1, -1, 16) \
	X(create_counters, 14, 14, 14, 15, 15, 16, 17) \
	X(create_cq, 15, 15, 15, 16, 16, 17, 18) \
	X(create_cq_ex, 16, 16, 16, 17, 17, 18, 19) \
	X(create_flow, 17, 17, 17, 18, 18, 19, 20) \
	X(create_flow_action_esp, 18, 18, 18, 19, 19, 20, 21) \
	X(create_qp, 19, 19, 19, 20, 20, 21, 22) \
	X(create_qp_ex, 20, 20, 20, 21, 21, 22, 23) \
	X(create_rwq_ind_table, 21, 21, 21, 22, 22, 23, 24) \
	X(create_srq, 22, 22, 22, 23, 23, 24, 25) \
	X(create_srq_ex, 23, 23, 23, 24, 24, 25, 26) \
	X(create_wq, 24, 24, 24, 25, 25, 26, 27) \
	X(dealloc_dmah, -1, -1, -1, 26, 26, 27, 28) \
	X(dealloc_mw, 25, 25, 25, 27, 27, 28, 29) \
	X(dealloc_pd, 26, 26, 26, 28, 28, 29, 30) \
	X(dealloc_td, 27, 27, 27, 29, 29, 30, 31) \
	X(dereg_mr, 28, 28, 28, 30, 30, 31, 32) \
	X(destroy_ah, 29, 29, 29, 31, 31, 32, 33) \
	X(destroy_comp_cntr, -1, -1, -1, -1, -1, -1, 34) \
	X(destroy_counters, 30, 30, 30, 32, 32, 33, 35) \
	X(destroy_cq, 31, 31, 31, 33, 33, 34, 36) \
	X(destroy_flow, 32, 32, 32, 34, 34, 35, 37) \
	X(destroy_flow_action, 33, 33, 33, 35, 35, 36, 38) \
	X(destroy_qp, 34, 34, 34, 36, 36, 37, 39) \
	X(destroy_rwq_ind_table, 35, 35, 35, 37, 37, 38, 40) \
	X(destroy_srq, 36, 36, 36, 38, 38, 39, 41) \
	X(destroy_wq, 37, 37, 37, 39, 39, 40, 42) \
	X(detach_mcast, 38, 38, 38, 40, 40, 41, 43) \
	X(dm_export_dmabuf_fd, -1, -1, -1, -1, 41, 42, 44) \
	X(free_buf, -1, -1, -1, -1, -1, 43, 45) \
	X(free_context, 39, 39, 39, 41, 42, 44, 46) \
	X(free_dm, 40, 40, 40, 42, 43, 45, 47) \
	X(get_srq_num, 41, 41, 41, 43, 44, 46, 48) \
	X(import_dm, -1, 42, 42, 44, 45, 47, 49) \
	X(import_mr, 42, 43, 43, 45, 46, 48, 50) \
	X(import_pd, 43, 44, 44, 46, 47, 49, 51) \
	X(inc_comp_cntr, -1, -1, -1, -1, -1, -1, 52) \
	X(inc_err_comp_cntr, -1, -1, -1, -1, -1, -1, 53) \
	X(modify_cq, 44, 45, 45, 47, 48, 50, 54) \
	X(modify_flow_action_esp, 45, 46, 46, 48, 49, 51, 55) \
	X(modify_qp, 46, 47, 47, 49, 50, 52, 56) \
	X(modify_qp_rate_limit, 47, 48, 48, 50, 51, 53, 57) \
	X(modify_srq, 48, 49, 49, 51, 52, 54, 58) \
	X(modify_wq, 49, 50, 50, 52, 53, 55, 59) \
	X(open_qp, 50, 51, 51, 53, 54, 56, 60) \
	X(open_xrcd, 51, 52, 52, 54, 55, 57, 61) \
	X(poll_cq, 52, 53, 53, 55, 56, 58, 62) \
	X(post_recv, 53, 54, 54, 56, 57, 59, 63) \
	X(post_send, 54, 55, 55, 57, 58, 60, 64) \
	X(post_srq_ops, 55, 56, 56, 58, 59, 61, 65) \
	X(post_srq_recv, 56, 57, 57, 59, 60, 62, 66) \
	X(qp_attach_comp_cntr, -1, -1, -1, -1, -1, -1, 67) \
	X(query_comp_cntr_caps, -1, -1, -1, -1, -1, -1, 68) \
	X(query_device_ex, 57, 58, 58, 60, 61, 63, 69) \
	X(query_ece, 58, 59, 59, 61, 62, 64, 70) \
	X(query_port, 59, 60, 60, 62, 63, 65, 71) \
	X(query_port_speed, -1, -1, -1, -1, 64, 66, 72) \
	X(query_qp, 60, 61, 61, 63, 65, 67, 73) \
	X(query_qp_data_in_order, -1, -1, 62, 64, 66, 68, 74) \
	X(query_rt_values, 61, 62, 63, 65, 67, 69, 75) \
	X(query_srq, 62, 63, 64, 66, 68, 70, 76) \
	X(read_comp_cntr, -1, -1, -1, -1, -1, -1, 77) \
	X(read_counters, 63, 64, 65, 67, 69, 71, 78) \
	X(read_err_comp_cntr, -1, -1, -1, -1, -1, -1, 79) \
	X(reg_dm_mr, 64, 65, 66, 68, 70, 72, 80) \
	X(reg_dmabuf_mr, 65, 66, 67, 69, 71, 73, 81) \
	X(reg_mr, 66, 67, 68, 70, 72, 74, 82) \
	X(reg_mr_ex, -1, -1, -1, 71, 73, 75, 83) \
	X(req_notify_cq, 67, 68, 69, 72, 74, 76, 84) \
	X(rereg_mr, 68, 69, 70, 73, 75, 77, 85) \
	X(resize_cq, 69, 70, 71, 74, 76, 78, 86) \
	X(set_comp_cntr, -1, -1, -1, -1, -1, -1, 87) \
	X(set_ece, 70, 71, 72, 75, 77, 79, 88) \
	X(set_err_comp_cntr, -1, -1, -1, -1, -1, -1, 89) \
	X(unimport_dm, -1, 72, 73, 76, 78, 80, 90) \
	X(unimport_mr, 71, 73, 74, 77, 79, 81, 91) \
	X(unimport_pd, 72, 74, 75, 78, 80, 82, 92)
/* clang-format on */

#define DB_COL_34(n, a, b, c, d, e, f, g) [DB_VOP_##n] = a,
#define DB_COL_35(n, a, b, c, d, e, f, g) [DB_VOP_##n] = b,
#define DB_COL_36(n, a, b, c, d, e, f, g) [DB_VOP_##n] = c,
#define DB_COL_59(n, a, b, c, d, e, f, g) [DB_VOP_##n] = d,
#define DB_COL_62(n, a, b, c, d, e, f, g) [DB_VOP_##n] = e,
#define DB_COL_64(n, a, b, c, d, e, f, g) [DB_VOP_##n] = f,
#define DB_COL_65(n, a, b, c, d, e, f, g) [DB_VOP_##n] = g,

/*
 * verbs_context: 648 bytes up to 58; 59, 62 and 64 prepend members.  Its
 * last member is the ibv_context, which holds a pthread_mutex_t.
 */
#define DB_VCTX(size, off)                                                     \
	.vctx_size = (size) + DB_MUTEX_GROWTH, .vctx_context_off = (off)
#define DB_VCTX_648 DB_VCTX(648, 320)
#define DB_VCTX_672 DB_VCTX(672, 344)
#define DB_VCTX_680 DB_VCTX(680, 352)
#define DB_VCTX_696 DB_VCTX(696, 368)

/*
 * ibv_qp_ex: + wr_atomic_write in 44, + wr_flush in 45; verbs_qp follows.
 * Its first member, the ibv_qp, holds a pthread_mutex_t.
 */
#define DB_QP(size)                                                            \
	.qp_ex_size = (size) + DB_MUTEX_GROWTH,                                \
	.vqp_comp_mask_off = (size) + DB_MUTEX_GROWTH,                         \
	.vqp_xrcd_off = (size) + 8 + DB_MUTEX_GROWTH,                          \
	.vqp_size = (size) + 16 + DB_MUTEX_GROWTH
#define DB_QP_344 DB_QP(344)
#define DB_QP_352 DB_QP(352)
#define DB_QP_360 DB_QP(360)

/* Parameter counts: reg_dmabuf_mr, get_context, create_cq_ex, create_qp_ex2 */
#define DB_ARGS(a, b, c, d)                                                    \
	.args_reg_dmabuf_mr = a, .args_get_context = b,                        \
	.args_create_cq_ex = c, .args_create_qp_ex2 = d

/* clang-format off */
const struct db_epoch db_epochs[] = {
	{ .first = 34, .last = 34, .pabi = 34, .ibverbs_minor = 12,
	  .nslots = 73, .slot = { DB_VOP_SLOTS(DB_COL_34) },
	  DB_VCTX_648, DB_QP_344, .sysfs_abi_ver_off = 964,
	  DB_ARGS(7, 5, 8, 7) },
	{ .first = 35, .last = 35, .pabi = 34, .ibverbs_minor = 13,
	  .nslots = 75, .slot = { DB_VOP_SLOTS(DB_COL_35) },
	  DB_VCTX_648, DB_QP_344, .sysfs_abi_ver_off = 968,
	  DB_ARGS(7, 5, 8, 7) },
	{ .first = 36, .last = 43, .pabi = 34, .ibverbs_minor = 14,
	  .nslots = 76, .slot = { DB_VOP_SLOTS(DB_COL_36) },
	  DB_VCTX_648, DB_QP_344, .sysfs_abi_ver_off = 968,
	  DB_ARGS(7, 5, 8, 7) },
	{ .first = 44, .last = 44, .pabi = 34, .ibverbs_minor = 14,
	  .nslots = 76, .slot = { DB_VOP_SLOTS(DB_COL_36) },
	  DB_VCTX_648, DB_QP_352, .sysfs_abi_ver_off = 968,
	  DB_ARGS(7, 5, 8, 7) },
	{ .first = 45, .last = 53, .pabi = 34, .ibverbs_minor = 14,
	  .nslots = 76, .slot = { DB_VOP_SLOTS(DB_COL_36) },
	  DB_VCTX_648, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(7, 5, 8, 7) },
	{ .first = 54, .last = 56, .pabi = 34, .ibverbs_minor = 14,
	  .nslots = 76, .slot = { DB_VOP_SLOTS(DB_COL_36) },
	  DB_VCTX_648, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(8, 5, 8, 7) },
	{ .first = 57, .last = 58, .pabi = 57, .ibverbs_minor = 14,
	  .nslots = 76, .slot = { DB_VOP_SLOTS(DB_COL_36) },
	  DB_VCTX_648, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(8, 6, 8, 7) },
	{ .first = 59, .last = 61, .pabi = 59, .ibverbs_minor = 15,
	  .nslots = 79, .slot = { DB_VOP_SLOTS(DB_COL_59) },
	  DB_VCTX_672, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(8, 6, 9, 7) },
	{ .first = 62, .last = 63, .pabi = 59, .ibverbs_minor = 16,
	  .nslots = 81, .slot = { DB_VOP_SLOTS(DB_COL_62) },
	  DB_VCTX_680, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(8, 6, 9, 7) },
	{ .first = 64, .last = 64, .pabi = 64, .ibverbs_minor = 17,
	  .nslots = 83, .slot = { DB_VOP_SLOTS(DB_COL_64) },
	  DB_VCTX_696, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(8, 6, 9, 8) },
	{ .first = 65, .last = 65, .pabi = 65, .ibverbs_minor = 18,
	  .nslots = 93, .slot = { DB_VOP_SLOTS(DB_COL_65) },
	  DB_VCTX_696, DB_QP_360, .sysfs_abi_ver_off = 968,
	  DB_ARGS(8, 6, 9, 8) },
};
/* clang-format on */

const unsigned int db_num_epochs = sizeof(db_epochs) / sizeof(db_epochs[0]);

const struct db_epoch *db_epoch_of(int major)
{
	unsigned int i;

	for (i = 0; i < db_num_epochs; i++)
		if (major >= db_epochs[i].first && major <= db_epochs[i].last)
			return &db_epochs[i];
	return NULL;
}
