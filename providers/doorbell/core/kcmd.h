/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The core's kernel seam: the plain uverbs commands the core's verbs send,
 * for every backend.  Each returns 0 or a positive errno and fills the
 * libibverbs object as the matching ibv_cmd_* helper does.
 *
 * Production builds link core/kcmd.c, which sends them through libibverbs.
 * The software ConnectX (sim/mlx5/model/m5m_k*.c) links its own
 * definitions of the same functions instead, a fake kernel, as it does for
 * the mlx5 backend's driver-data commands (mlx5/mlx5_seam.h).  Nothing is
 * looked up at run time; the choice is made by the linker.
 */
#ifndef DOORBELL_CORE_KCMD_H
#define DOORBELL_CORE_KCMD_H

#include "core/pabi.h"

/* fw_ver (may be NULL): the kernel's 64-bit firmware version. */
int db_k_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size,
			 uint64_t *fw_ver);
int db_k_query_port(struct ibv_context *ctx, uint8_t port,
		    struct ibv_port_attr *attr);
/*
 * drv_resp_len bytes of room for driver data after the response: some
 * kernel drivers write theirs unasked, and fail the command without room.
 */
int db_k_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		  size_t drv_resp_len);
int db_k_dealloc_pd(struct ibv_pd *pd);
int db_k_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t hca_va,
		int access, struct verbs_mr *vmr);
int db_k_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
		       uint64_t iova, int fd, int access, struct verbs_mr *vmr);
int db_k_dereg_mr(struct verbs_mr *vmr);
/* flags, pd, addr, length and access as ibv_rereg_mr(3) passes them. */
int db_k_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
int db_k_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
int db_k_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw);
int db_k_dealloc_mw(struct ibv_mw *mw);
/* attr as ibv_open_xrcd(3) takes it: the file whose inode names the domain. */
int db_k_open_xrcd(struct ibv_context *ctx, struct verbs_xrcd *xrcd,
		   struct ibv_xrcd_init_attr *attr);
int db_k_close_xrcd(struct verbs_xrcd *xrcd);
int db_k_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);
int db_k_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);

#endif /* DOORBELL_CORE_KCMD_H */
