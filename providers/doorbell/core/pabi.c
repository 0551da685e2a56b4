// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libibverbs' private functions, called in the running release's form
 * (core/pabi.h).  db_lib is filled once, by core/libver.c, before doorbell
 * registers; none of this is on the fast path.
 */
#include <stdint.h>
#include <string.h>

#include "core/pabi.h"

struct db_libibverbs db_lib;

const struct db_epoch *db_built_epoch(void)
{
	return db_epoch_of(DB_RDMA_CORE_MAJOR);
}

/* A verbs_context_ops in our layout, or in any release's, as slots. */
typedef void (*db_op)(void);
union db_ops {
	struct verbs_context_ops v44;
	db_op slot[DB_VOP_MAX_SLOTS];
};
_Static_assert(sizeof(struct verbs_context_ops) % sizeof(db_op) == 0,
	       "verbs_context_ops is made of pointers");

void db_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)
{
	const struct db_epoch *run = db_lib.epoch, *ours = db_built_epoch();
	union db_ops in = { .v44 = *ops }, out;
	int v;

	/* All slots: the epoch's may be more than the members of v44. */
	memset(&out, 0, sizeof(out));
	for (v = 0; v < DB_VOP_NUM; v++)
		if (ours->slot[v] >= 0 && run->slot[v] >= 0)
			out.slot[run->slot[v]] = in.slot[ours->slot[v]];
	/* libibverbs reads its own nslots slots; the rest stay NULL. */
	db_lib.verbs_set_ops(db_lib_vctx(vctx), &out.v44);
}

size_t db_ops_dropped(const struct verbs_context_ops *ops, const char **names,
		      size_t max)
{
	const struct db_epoch *run = db_lib.epoch, *ours = db_built_epoch();
	union db_ops in = { .v44 = *ops };
	size_t n = 0;
	int v;

	for (v = 0; v < DB_VOP_NUM; v++) {
		if (ours->slot[v] < 0 || run->slot[v] >= 0 ||
		    !in.slot[ours->slot[v]])
			continue;
		if (n < max)
			names[n] = db_vop_name[v];
		n++;
	}
	return n;
}

void *db_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				size_t alloc_size, size_t vctx_context_off,
				uint32_t driver_id)
{
	/* libibverbs' .context lands on ours: it starts that much earlier. */
	uintptr_t off = vctx_context_off - db_lib.epoch->vctx_context_off;

	return db_lib._verbs_init_and_alloc_context(device, cmd_fd, alloc_size,
						    (struct verbs_context *)off,
						    driver_id);
}

void db_uninit_context(struct verbs_context *vctx)
{
	db_lib.verbs_uninit_context(db_lib_vctx(vctx));
}

int db_cmd_get_context(struct verbs_context *vctx, struct ibv_get_context *cmd,
		       size_t cmd_size, struct ib_uverbs_get_context_resp *resp,
		       size_t resp_size)
{
	struct verbs_context *lib = db_lib_vctx(vctx);

	if (db_lib.epoch->args_get_context == 6)
		return db_lib.ibv_cmd_get_context.ibv_cmd_get_context_6(
			lib, cmd, cmd_size, NULL, resp, resp_size);
	return db_lib.ibv_cmd_get_context.v44(lib, cmd, cmd_size, resp,
					      resp_size);
}

int db_cmd_query_device_any(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size,
			    struct ib_uverbs_ex_query_device_resp *resp,
			    size_t *resp_size)
{
	return db_lib.ibv_cmd_query_device_any(context, input, attr, attr_size,
					       resp, resp_size);
}

int db_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		      struct ibv_port_attr *port_attr,
		      struct ibv_query_port *cmd, size_t cmd_size)
{
	return db_lib.ibv_cmd_query_port(context, port_num, port_attr, cmd,
					 cmd_size);
}

int db_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		    struct ibv_alloc_pd *cmd, size_t cmd_size,
		    struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)
{
	return db_lib.ibv_cmd_alloc_pd(context, pd, cmd, cmd_size, resp,
				       resp_size);
}

int db_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return db_lib.ibv_cmd_dealloc_pd(pd);
}

int db_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va,
		  int access, struct verbs_mr *vmr, struct ibv_reg_mr *cmd,
		  size_t cmd_size, struct ib_uverbs_reg_mr_resp *resp,
		  size_t resp_size)
{
	return db_lib.ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, cmd,
				     cmd_size, resp, resp_size);
}

int db_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			 uint64_t iova, int fd, int access,
			 struct verbs_mr *vmr)
{
	if (db_lib.epoch->args_reg_dmabuf_mr == 8)
		return db_lib.ibv_cmd_reg_dmabuf_mr.ibv_cmd_reg_dmabuf_mr_8(
			pd, offset, length, iova, fd, access, vmr, NULL);
	return db_lib.ibv_cmd_reg_dmabuf_mr.v44(pd, offset, length, iova, fd,
						access, vmr);
}

int db_cmd_dereg_mr(struct verbs_mr *vmr)
{
	return db_lib.ibv_cmd_dereg_mr(vmr);
}

int db_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return db_lib.ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

int db_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw,
		    struct ibv_alloc_mw *cmd, size_t cmd_size,
		    struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)
{
	return db_lib.ibv_cmd_alloc_mw(pd, type, mw, cmd, cmd_size, resp,
				       resp_size);
}

int db_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return db_lib.ibv_cmd_dealloc_mw(mw);
}

int db_cmd_create_cq_ex(struct ibv_context *context,
			const struct ibv_cq_init_attr_ex *cq_attr,
			struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			size_t cmd_size,
			struct ib_uverbs_ex_create_cq_resp *resp,
			size_t resp_size, uint32_t cmd_flags)
{
	if (db_lib.epoch->args_create_cq_ex == 9)
		return db_lib.ibv_cmd_create_cq_ex.ibv_cmd_create_cq_ex_9(
			context, cq_attr, NULL, cq, cmd, cmd_size, resp,
			resp_size, cmd_flags);
	return db_lib.ibv_cmd_create_cq_ex.v44(context, cq_attr, cq, cmd,
					       cmd_size, resp, resp_size,
					       cmd_flags);
}

int db_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return db_lib.ibv_cmd_req_notify_cq(cq, solicited_only);
}

int db_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		     size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		     size_t resp_size)
{
	return db_lib.ibv_cmd_resize_cq(cq, cqe, cmd, cmd_size, resp,
					resp_size);
}

int db_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		     struct ibv_modify_cq *cmd, size_t cmd_size)
{
	return db_lib.ibv_cmd_modify_cq(cq, attr, cmd, cmd_size);
}

int db_cmd_destroy_cq(struct ibv_cq *cq)
{
	return db_lib.ibv_cmd_destroy_cq(cq);
}

int db_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			 struct ibv_srq_init_attr_ex *attr_ex,
			 struct ibv_create_xsrq *cmd, size_t cmd_size,
			 struct ib_uverbs_create_srq_resp *resp,
			 size_t resp_size)
{
	return db_lib.ibv_cmd_create_srq_ex(context, srq, attr_ex, cmd,
					    cmd_size, resp, resp_size);
}

int db_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      int srq_attr_mask, struct ibv_modify_srq *cmd,
		      size_t cmd_size)
{
	return db_lib.ibv_cmd_modify_srq(srq, srq_attr, srq_attr_mask, cmd,
					 cmd_size);
}

int db_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		     struct ibv_query_srq *cmd, size_t cmd_size)
{
	return db_lib.ibv_cmd_query_srq(srq, srq_attr, cmd, cmd_size);
}

int db_cmd_destroy_srq(struct ibv_srq *srq)
{
	return db_lib.ibv_cmd_destroy_srq(srq);
}

int db_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr,
			 struct ibv_create_qp_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_qp_resp *resp,
			 size_t resp_size)
{
	if (db_lib.epoch->args_create_qp_ex2 == 8)
		return db_lib.ibv_cmd_create_qp_ex2.ibv_cmd_create_qp_ex2_8(
			context, qp, attr, cmd, cmd_size, resp, resp_size,
			NULL);
	return db_lib.ibv_cmd_create_qp_ex2.v44(context, qp, attr, cmd,
						cmd_size, resp, resp_size);
}

int db_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		    int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		    struct ibv_query_qp *cmd, size_t cmd_size)
{
	return db_lib.ibv_cmd_query_qp(qp, qp_attr, attr_mask, qp_init_attr,
				       cmd, cmd_size);
}

int db_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		     struct ibv_modify_qp *cmd, size_t cmd_size)
{
	return db_lib.ibv_cmd_modify_qp(qp, attr, attr_mask, cmd, cmd_size);
}

int db_cmd_destroy_qp(struct ibv_qp *qp)
{
	return db_lib.ibv_cmd_destroy_qp(qp);
}

int db_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		     struct ibv_ah_attr *attr,
		     struct ib_uverbs_create_ah_resp *resp, size_t resp_size)
{
	return db_lib.ibv_cmd_create_ah(pd, ah, attr, resp, resp_size);
}

int db_cmd_destroy_ah(struct ibv_ah *ah)
{
	return db_lib.ibv_cmd_destroy_ah(ah);
}

int db_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid)
{
	return db_lib.ibv_cmd_attach_mcast(qp, gid, lid);
}

int db_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid)
{
	return db_lib.ibv_cmd_detach_mcast(qp, gid, lid);
}
