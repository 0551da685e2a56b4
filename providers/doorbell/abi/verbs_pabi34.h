/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libibverbs' private provider interface as rdma-core 44 (Debian 12) lays it
 * out: the compile-time layout of doorbell.  libibverbs-dev does not install
 * this interface, so doorbell declares the part it uses here, written from
 * rdma-core v44 libibverbs/driver.h (the device, context and object structs,
 * struct verbs_context_ops, the ibv_cmd_* prototypes),
 * libibverbs/libibverbs.map.in (the IBVERBS_PRIVATE_34 symbols) and
 * libibverbs/init.c, try_driver (how the match table, match_device and the
 * ABI range are used).
 *
 * One build serves the rdma-core releases of abi/releases.txt (several
 * PABIs), whose layouts drift even inside one PABI: the ops table has 73 to 93 members,
 * verbs_context gains members at its front in 59, 62 and 64, ibv_qp_ex grew
 * in 44 and 45, verbs_sysfs_dev in 35, and four ibv_cmd_* prototypes gained
 * a parameter.  Everything here is asserted below for the 44 layout; what
 * differs at run time is in abi/epochs.h, which core/libver.c picks from
 * when libibverbs loads us, and core/pabi.c applies (docs/abi.md).
 */
#ifndef DOORBELL_VERBS_PABI34_H
#define DOORBELL_VERBS_PABI34_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "abi/epochs.h"

/*
 * The rdma-core release whose layouts the private structs declared here
 * (verbs_context_ops, verbs_sysfs_dev, ...) copy; the public ones come from
 * the libibverbs-dev headers of the build, rdma-core 44 or later.
 */
#define DB_RDMA_CORE_MAJOR 44

/* ccan-style doubly linked list node that libibverbs embeds. */
struct db_list_node {
	struct db_list_node *next;
	struct db_list_node *prev;
};

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/*
 * A device libibverbs found in sysfs; layout of rdma-core 35 to 65 (34 has no
 * num_ports, so abi_ver is 4 bytes earlier: read it with db_sysfs_abi_ver()).
 */
struct verbs_sysfs_dev {
	struct db_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device;
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct db_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

enum {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

/*
 * comp_mask and xrcd sit after ibv_qp_ex, which grew in 44 and 45: these
 * two offsets hold on rdma-core 44 only.  Use db_vqp_comp_mask() (core/pabi.h)
 * and reserve DB_VQP_ROOM bytes (DB_VERBS_QP).
 */
struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask_v44;
	struct verbs_xrcd *xrcd_v44;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/*
 * The provider's operations, in rdma-core 36-58 order (sorted by name).  Slots
 * doorbell never fills are still declared so that the layout is exact.  The
 * table handed to libibverbs is rebuilt in the running release's layout
 * (db_set_ops, core/pabi.c).
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*read_counters)(struct ibv_counters *counters, uint64_t *values,
			     uint32_t ncounters, uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * Command buffers.  libibverbs' struct ibv_<verb> is the write() header
 * followed by the uapi struct; a driver's own data follows with no padding.
 */
#define DB_CMD(name, kabi)                                                     \
	struct name {                                                          \
		struct ib_uverbs_cmd_hdr hdr;                                  \
		struct kabi core;                                              \
	}
#define DB_CMD_EX(name, kabi)                                                  \
	struct name {                                                          \
		struct ib_uverbs_cmd_hdr hdr;                                  \
		struct ib_uverbs_ex_cmd_hdr ex_hdr;                            \
		struct kabi core;                                              \
	}

DB_CMD(ibv_get_context, ib_uverbs_get_context);
DB_CMD(ibv_query_port, ib_uverbs_query_port);
DB_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
DB_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
DB_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr);
DB_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);
DB_CMD(ibv_open_xrcd, ib_uverbs_open_xrcd);
DB_CMD(ibv_open_qp, ib_uverbs_open_qp);
DB_CMD(ibv_create_cq, ib_uverbs_create_cq);
DB_CMD(ibv_resize_cq, ib_uverbs_resize_cq);
DB_CMD(ibv_query_qp, ib_uverbs_query_qp);
DB_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
DB_CMD(ibv_create_xsrq, ib_uverbs_create_xsrq);
DB_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
DB_CMD(ibv_query_srq, ib_uverbs_query_srq);
DB_CMD(ibv_post_send, ib_uverbs_post_send);
DB_CMD_EX(ibv_create_cq_ex, ib_uverbs_ex_create_cq);
DB_CMD_EX(ibv_create_qp_ex, ib_uverbs_ex_create_qp);
DB_CMD_EX(ibv_modify_cq, ib_uverbs_ex_modify_cq);

/*
 * The private functions doorbell calls, as function types, not declarations:
 * nothing may reference IBVERBS_PRIVATE_<n> at link time (a version need
 * the dynamic linker cannot meet makes dlopen fail on rdma-core 57 and
 * later before any of our code runs).  core/libver.c resolves each one with
 * dlvsym() in the running libibverbs' private node, into db_lib
 * (core/pabi.h); the code calls them through core/pabi.c's db_* wrappers.
 * These are the rdma-core 44 prototypes; the four that grew later have a
 * second type with the added parameter (docs/abi.md).
 */
typedef void db_fn_verbs_register_driver(const struct verbs_device_ops *ops);
typedef void *db_fn__verbs_init_and_alloc_context(
	struct ibv_device *device, int cmd_fd, size_t alloc_size,
	struct verbs_context *context_offset, uint32_t driver_id);
typedef void db_fn_verbs_uninit_context(struct verbs_context *context);
typedef void db_fn_verbs_set_ops(struct verbs_context *vctx,
				 const struct verbs_context_ops *ops);

/* Parameters added after rdma-core 44; doorbell passes NULL for each. */
struct ibv_fd_arr;		  /* ibv_cmd_get_context, from 57 */
struct verbs_create_cq_prov_attr; /* ibv_cmd_create_cq_ex, from 59 */
struct ibv_command_buffer;	  /* reg_dmabuf_mr (54), create_qp_ex2 (64) */

typedef int db_fn_ibv_cmd_get_context(struct verbs_context *context,
				      struct ibv_get_context *cmd,
				      size_t cmd_size,
				      struct ib_uverbs_get_context_resp *resp,
				      size_t resp_size);
typedef int db_fn_ibv_cmd_get_context_6(struct verbs_context *context,
					struct ibv_get_context *cmd,
					size_t cmd_size,
					struct ibv_fd_arr *fd_arr,
					struct ib_uverbs_get_context_resp *resp,
					size_t resp_size);
typedef int db_fn_ibv_cmd_query_device_any(
	struct ibv_context *context,
	const struct ibv_query_device_ex_input *input,
	struct ibv_device_attr_ex *attr, size_t attr_size,
	struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size);
typedef int db_fn_ibv_cmd_query_port(struct ibv_context *context,
				     uint8_t port_num,
				     struct ibv_port_attr *port_attr,
				     struct ibv_query_port *cmd,
				     size_t cmd_size);
typedef int db_fn_ibv_cmd_alloc_pd(struct ibv_context *context,
				   struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_alloc_pd_resp *resp,
				   size_t resp_size);
typedef int db_fn_ibv_cmd_dealloc_pd(struct ibv_pd *pd);
typedef int db_fn_ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access,
				 struct verbs_mr *vmr, struct ibv_reg_mr *cmd,
				 size_t cmd_size,
				 struct ib_uverbs_reg_mr_resp *resp,
				 size_t resp_size);
typedef int db_fn_ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access, struct verbs_mr *vmr);
typedef int db_fn_ibv_cmd_reg_dmabuf_mr_8(struct ibv_pd *pd, uint64_t offset,
					  size_t length, uint64_t iova, int fd,
					  int access, struct verbs_mr *vmr,
					  struct ibv_command_buffer *driver);
typedef int db_fn_ibv_cmd_dereg_mr(struct verbs_mr *vmr);
typedef int db_fn_ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags,
				   void *addr, size_t length, uint64_t hca_va,
				   int access, struct ibv_pd *pd,
				   struct ibv_rereg_mr *cmd, size_t cmd_sz,
				   struct ib_uverbs_rereg_mr_resp *resp,
				   size_t resp_sz);
typedef int db_fn_ibv_cmd_advise_mr(struct ibv_pd *pd,
				    enum ibv_advise_mr_advice advice,
				    uint32_t flags, struct ibv_sge *sg_list,
				    uint32_t num_sge);
typedef int db_fn_ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
				   struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_alloc_mw_resp *resp,
				   size_t resp_size);
typedef int db_fn_ibv_cmd_dealloc_mw(struct ibv_mw *mw);
typedef int db_fn_ibv_cmd_open_xrcd(struct ibv_context *context,
				    struct verbs_xrcd *xrcd, int vxrcd_size,
				    struct ibv_xrcd_init_attr *attr,
				    struct ibv_open_xrcd *cmd, size_t cmd_size,
				    struct ib_uverbs_open_xrcd_resp *resp,
				    size_t resp_size);
typedef int db_fn_ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
typedef int db_fn_ibv_cmd_open_qp(struct ibv_context *context,
				  struct verbs_qp *qp, int vqp_sz,
				  struct ibv_qp_open_attr *attr,
				  struct ibv_open_qp *cmd, size_t cmd_size,
				  struct ib_uverbs_create_qp_resp *resp,
				  size_t resp_size);
typedef int db_fn_ibv_cmd_create_cq_ex(
	struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
	struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
	uint32_t cmd_flags);
typedef int db_fn_ibv_cmd_create_cq_ex_9(
	struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
	struct verbs_create_cq_prov_attr *prov_attr, struct verbs_cq *cq,
	struct ibv_create_cq_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
	uint32_t cmd_flags);
typedef int db_fn_ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
typedef int db_fn_ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
				    struct ibv_resize_cq *cmd, size_t cmd_size,
				    struct ib_uverbs_resize_cq_resp *resp,
				    size_t resp_size);
typedef int db_fn_ibv_cmd_modify_cq(struct ibv_cq *cq,
				    struct ibv_modify_cq_attr *attr,
				    struct ibv_modify_cq *cmd, size_t cmd_size);
typedef int db_fn_ibv_cmd_destroy_cq(struct ibv_cq *cq);
typedef int db_fn_ibv_cmd_create_srq_ex(struct ibv_context *context,
					struct verbs_srq *srq,
					struct ibv_srq_init_attr_ex *attr_ex,
					struct ibv_create_xsrq *cmd,
					size_t cmd_size,
					struct ib_uverbs_create_srq_resp *resp,
					size_t resp_size);
typedef int db_fn_ibv_cmd_modify_srq(struct ibv_srq *srq,
				     struct ibv_srq_attr *srq_attr,
				     int srq_attr_mask,
				     struct ibv_modify_srq *cmd,
				     size_t cmd_size);
typedef int db_fn_ibv_cmd_query_srq(struct ibv_srq *srq,
				    struct ibv_srq_attr *srq_attr,
				    struct ibv_query_srq *cmd, size_t cmd_size);
typedef int db_fn_ibv_cmd_destroy_srq(struct ibv_srq *srq);
typedef int
db_fn_ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			    struct ibv_qp_init_attr_ex *attr,
			    struct ibv_create_qp_ex *cmd, size_t cmd_size,
			    struct ib_uverbs_ex_create_qp_resp *resp,
			    size_t resp_size);
typedef int db_fn_ibv_cmd_create_qp_ex2_8(
	struct ibv_context *context, struct verbs_qp *qp,
	struct ibv_qp_init_attr_ex *attr, struct ibv_create_qp_ex *cmd,
	size_t cmd_size, struct ib_uverbs_ex_create_qp_resp *resp,
	size_t resp_size, struct ibv_command_buffer *driver);
typedef int db_fn_ibv_cmd_query_qp(struct ibv_qp *qp,
				   struct ibv_qp_attr *qp_attr, int attr_mask,
				   struct ibv_qp_init_attr *qp_init_attr,
				   struct ibv_query_qp *cmd, size_t cmd_size);
typedef int db_fn_ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				    int attr_mask, struct ibv_modify_qp *cmd,
				    size_t cmd_size);
typedef int db_fn_ibv_cmd_destroy_qp(struct ibv_qp *qp);
typedef int db_fn_ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
				    struct ibv_ah_attr *attr,
				    struct ib_uverbs_create_ah_resp *resp,
				    size_t resp_size);
typedef int db_fn_ibv_cmd_destroy_ah(struct ibv_ah *ah);
typedef int db_fn_ibv_cmd_attach_mcast(struct ibv_qp *qp,
				       const union ibv_gid *gid, uint16_t lid);
typedef int db_fn_ibv_cmd_detach_mcast(struct ibv_qp *qp,
				       const union ibv_gid *gid, uint16_t lid);

/*
 * Keep memory the device DMAs to out of a forked child when the application
 * called ibv_fork_init(); no-ops otherwise.  Public (IBVERBS_1.1), so linked
 * normally; driver.h declares them, libibverbs-dev's verbs.h does not.
 */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/*
 * ibv_cmd_query_port fills libibverbs' own struct ibv_port_attr, 52 bytes in
 * 44 and 56 from 49 (active_speed_ex): a port query of our own must give it
 * room for the largest.
 */
union db_port_attr {
	struct ibv_port_attr attr;
	unsigned char room[64];
};

/*
 * Room for the largest layout of each object that grew after rdma-core 44.
 * verbs_qp: 376 bytes from rdma-core 45 (ibv_qp_ex gained wr_atomic_write in
 * 44 and wr_flush in 45, moving comp_mask and xrcd).  verbs_context: its
 * members are prepended, 648 bytes up to 58 and 696 from 64, so a context
 * reserves the difference in front of it (core/doorbell.h, struct
 * db_context).  LP64 sizes (abi/epochs.h: x86_64's, plus DB_MUTEX_GROWTH
 * for the pthread_mutex_t inside ibv_qp); 32-bit builds refuse to load.
 */
#define DB_VQP_ROOM	   (376 + DB_MUTEX_GROWTH)
#define DB_VCTX_FRONT_ROOM 48
/* A backend QP's libibverbs part, with the room for any release's layout. */
#define DB_VERBS_QP(name)                                                      \
	union {                                                                \
		struct verbs_qp name;                                          \
		unsigned char name##_room[DB_VQP_ROOM];                        \
	}

/*
 * Layout checks: x86_64 sizes and offsets of rdma-core v44's own structs
 * (libibverbs/driver.h, verbs.h), as gcc lays them out, on every LP64
 * architecture: the structs that hold a pthread_mutex_t (ibv_context,
 * ibv_cq, ibv_srq, ibv_qp) are DB_MUTEX_GROWTH larger than on x86_64.
 * A change in any of these means this header no longer describes the
 * libibverbs-dev headers it is compiled against (Debian 12's, rdma-core 44).
 */
#if defined(__LP64__)
_Static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent");
_Static_assert(sizeof(struct verbs_device_ops) == 72, "verbs_device_ops");
_Static_assert(offsetof(struct verbs_device_ops, alloc_context) == 40,
	       "verbs_device_ops.alloc_context");
_Static_assert(offsetof(struct verbs_device_ops, uninit_device) == 64,
	       "verbs_device_ops.uninit_device");
_Static_assert(sizeof(struct ibv_device) == 664, "ibv_device");
_Static_assert(offsetof(struct verbs_device, ops) == 664, "verbs_device.ops");
_Static_assert(offsetof(struct verbs_device, sysfs) == 696,
	       "verbs_device.sysfs");
_Static_assert(sizeof(struct verbs_device) == 712, "verbs_device");
_Static_assert(offsetof(struct verbs_sysfs_dev, abi_ver) == 968,
	       "verbs_sysfs_dev.abi_ver");
_Static_assert(sizeof(struct verbs_context_ops) == 76 * sizeof(void *),
	       "verbs_context_ops has 76 members in rdma-core 36-58");
_Static_assert(offsetof(struct verbs_context_ops, poll_cq) == 53 * 8,
	       "verbs_context_ops.poll_cq");
_Static_assert(offsetof(struct verbs_context_ops, post_send) == 55 * 8,
	       "verbs_context_ops.post_send");
_Static_assert(offsetof(struct verbs_context_ops, query_qp_data_in_order) ==
		       62 * 8,
	       "verbs_context_ops.query_qp_data_in_order");
_Static_assert(offsetof(struct verbs_context_ops, unimport_pd) == 75 * 8,
	       "verbs_context_ops.unimport_pd");
/*
 * The public structs below come from the libibverbs-dev the build uses
 * (rdma-core 44 or later): their layout is that release's, and the run-time
 * layout is the epoch's (abi/epochs.c).  What must hold for any of them:
 * verbs_context keeps 328 bytes (x86_64) from .context to its end and grows only in
 * front, which DB_VCTX_FRONT_ROOM covers; ibv_qp_ex is one of its three
 * sizes and verbs_qp fits DB_VQP_ROOM; ibv_port_attr fits its room.
 */
_Static_assert(sizeof(struct verbs_context) -
			       offsetof(struct verbs_context, context) ==
		       328 + DB_MUTEX_GROWTH,
	       "verbs_context: 328 bytes from .context to the end");
_Static_assert(DB_VCTX_FRONT_ROOM + offsetof(struct verbs_context, context) >=
		       368,
	       "verbs_context: room in front for rdma-core 64's layout");
_Static_assert(sizeof(struct ibv_qp_ex) - DB_MUTEX_GROWTH == 344 ||
		       sizeof(struct ibv_qp_ex) - DB_MUTEX_GROWTH == 352 ||
		       sizeof(struct ibv_qp_ex) - DB_MUTEX_GROWTH == 360,
	       "ibv_qp_ex: 344 (34-43), 352 (44) or 360 (45-65) bytes");
_Static_assert(offsetof(struct verbs_qp, comp_mask_v44) ==
		       sizeof(struct ibv_qp_ex),
	       "verbs_qp.comp_mask follows ibv_qp_ex");
_Static_assert(sizeof(struct verbs_qp) <= DB_VQP_ROOM, "verbs_qp room");
_Static_assert(sizeof(struct ibv_port_attr) <= sizeof(union db_port_attr) &&
		       sizeof(struct ibv_port_attr) >= 52,
	       "ibv_port_attr: 52 (34-48) or 56 (49-65) bytes");
_Static_assert(sizeof(struct verbs_cq) == 288 + DB_MUTEX_GROWTH, "verbs_cq");
_Static_assert(offsetof(struct verbs_srq, srq_num) == 152 + DB_MUTEX_GROWTH,
	       "verbs_srq.srq_num");
_Static_assert(sizeof(struct verbs_srq) == 160 + DB_MUTEX_GROWTH, "verbs_srq");
_Static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr");
_Static_assert(sizeof(struct verbs_xrcd) == 16, "verbs_xrcd");
#endif
_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "ibv_qp_ex.qp_base");
_Static_assert(sizeof(struct ibv_get_context) == 16, "ibv_get_context");
_Static_assert(sizeof(struct ibv_query_port) == 24, "ibv_query_port");
_Static_assert(sizeof(struct ibv_alloc_pd) == 16, "ibv_alloc_pd");
_Static_assert(sizeof(struct ibv_reg_mr) == 48, "ibv_reg_mr");
_Static_assert(sizeof(struct ibv_rereg_mr) == 56, "ibv_rereg_mr");
_Static_assert(sizeof(struct ibv_alloc_mw) == 24, "ibv_alloc_mw");
_Static_assert(sizeof(struct ibv_open_xrcd) == 24, "ibv_open_xrcd");
_Static_assert(sizeof(struct ibv_open_qp) == 40, "ibv_open_qp");
_Static_assert(sizeof(struct ibv_create_cq) == 40, "ibv_create_cq");
_Static_assert(sizeof(struct ibv_resize_cq) == 24, "ibv_resize_cq");
_Static_assert(sizeof(struct ibv_create_cq_ex) == 56, "ibv_create_cq_ex");
_Static_assert(sizeof(struct ibv_create_qp_ex) == 88, "ibv_create_qp_ex");
_Static_assert(sizeof(struct ibv_modify_cq) == 40, "ibv_modify_cq");
_Static_assert(sizeof(struct ibv_modify_qp) == 120, "ibv_modify_qp");
_Static_assert(sizeof(struct ibv_query_qp) == 24, "ibv_query_qp");
_Static_assert(sizeof(struct ibv_create_xsrq) == 56, "ibv_create_xsrq");
_Static_assert(sizeof(struct ibv_modify_srq) == 24, "ibv_modify_srq");
_Static_assert(sizeof(struct ibv_query_srq) == 24, "ibv_query_srq");
_Static_assert(sizeof(struct ibv_post_send) == 32, "ibv_post_send");
_Static_assert(sizeof(struct ib_uverbs_ex_create_qp_resp) == 40,
	       "ib_uverbs_ex_create_qp_resp");
_Static_assert(sizeof(struct ib_uverbs_ex_create_cq_resp) == 16,
	       "ib_uverbs_ex_create_cq_resp");
_Static_assert(sizeof(struct ib_uverbs_resize_cq_resp) == 8,
	       "ib_uverbs_resize_cq_resp");
_Static_assert(sizeof(struct ib_uverbs_create_srq_resp) == 16,
	       "ib_uverbs_create_srq_resp");
_Static_assert(sizeof(struct ib_uverbs_create_ah_resp) == 4,
	       "ib_uverbs_create_ah_resp");

#endif /* DOORBELL_VERBS_PABI34_H */
