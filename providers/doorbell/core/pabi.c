// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ops table and the private functions whose argument lists differ
 * between releases, in the running release's form; and the one installed
 * as an op (core/pabi.h).  db_lib is filled once, by core/libver.c, before
 * doorbell registers; none of this is on the fast path.
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
