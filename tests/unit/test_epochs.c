// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The epoch tables (abi/epochs.c) against themselves and against the
 * rdma-core 44 header doorbell compiles with, and what core/pabi.c makes of
 * them: the ops table in each epoch's layout, libibverbs' verbs_context
 * placement, verbs_qp.comp_mask, the argument form of the four ibv_cmd_*
 * that grew.  libibverbs' functions are replaced in db_lib by recorders.
 * (Whether the numbers match each rdma-core tag is another test's job.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/doorbell.h"
#include "rxe/rxe.h"
#include "check.h"

#ifdef __LP64__
/* providers/doorbell/abi/releases.txt's range, and no other release. */
static void every_release_served_has_one_epoch_in_order(void)
{
	unsigned int i;
	int r;

	CHECK(db_num_epochs > 0);
	CHECK_EQ(db_epochs[0].first, DB_RANGE_FIRST);
	CHECK_EQ(db_epochs[db_num_epochs - 1].last, DB_RANGE_LAST);
	for (i = 0; i < db_num_epochs; i++) {
		CHECK(db_epochs[i].first <= db_epochs[i].last);
		if (i)
			CHECK_EQ(db_epochs[i].first, db_epochs[i - 1].last + 1);
	}
	for (r = DB_RANGE_FIRST; r <= DB_RANGE_LAST; r++) {
		const struct db_epoch *e = db_epoch_of(r);

		CHECK(e && e->first <= r && r <= e->last);
	}
	CHECK(db_epoch_of(DB_RANGE_FIRST - 1) == NULL);
	CHECK(db_epoch_of(DB_RANGE_LAST + 1) == NULL);
	CHECK(db_epoch_of(-1) == NULL);
}

/* The PABIs of releases.txt, in order, are the epochs' distinct ones. */
static void the_epochs_pabis_are_those_of_releases_txt(void)
{
	static const int pabis[] = { DB_RANGE_PABIS };
	unsigned int i, n = 0;

	for (i = 0; i < db_num_epochs; i++) {
		if (i && db_epochs[i].pabi == db_epochs[i - 1].pabi)
			continue;
		CHECK(n < sizeof(pabis) / sizeof(pabis[0]));
		if (n < sizeof(pabis) / sizeof(pabis[0]))
			CHECK_EQ(db_epochs[i].pabi, pabis[n]);
		n++;
	}
	CHECK_EQ(n, sizeof(pabis) / sizeof(pabis[0]));
}

static void op_names_are_sorted_and_each_layout_is_their_rank(void)
{
	unsigned int i, n;
	int v;

	for (v = 1; v < DB_VOP_NUM; v++)
		CHECK(strcmp(db_vop_name[v - 1], db_vop_name[v]) < 0);
	for (i = 0; i < db_num_epochs; i++) {
		const struct db_epoch *e = &db_epochs[i];

		CHECK(e->nslots <= DB_VOP_MAX_SLOTS);
		/* rdma-core sorts the members: slot = rank among present */
		n = 0;
		for (v = 0; v < DB_VOP_NUM; v++) {
			if (e->slot[v] < 0)
				continue;
			CHECK_EQ((unsigned int)e->slot[v], n);
			n++;
		}
		CHECK_EQ(n, e->nslots);
	}
}

/* Our struct verbs_context_ops: each member at the built epoch's slot. */
/* clang-format off */
#define OPS44(X) \
	X(advise_mr) X(alloc_dm) X(alloc_mw) X(alloc_null_mr) \
	X(alloc_parent_domain) X(alloc_pd) X(alloc_td) X(async_event) \
	X(attach_counters_point_flow) X(attach_mcast) X(bind_mw) \
	X(close_xrcd) X(cq_event) X(create_ah) X(create_counters) \
	X(create_cq) X(create_cq_ex) X(create_flow) \
	X(create_flow_action_esp) X(create_qp) X(create_qp_ex) \
	X(create_rwq_ind_table) X(create_srq) X(create_srq_ex) X(create_wq) \
	X(dealloc_mw) X(dealloc_pd) X(dealloc_td) X(dereg_mr) X(destroy_ah) \
	X(destroy_counters) X(destroy_cq) X(destroy_flow) \
	X(destroy_flow_action) X(destroy_qp) X(destroy_rwq_ind_table) \
	X(destroy_srq) X(destroy_wq) X(detach_mcast) X(free_context) \
	X(free_dm) X(get_srq_num) X(import_dm) X(import_mr) X(import_pd) \
	X(modify_cq) X(modify_flow_action_esp) X(modify_qp) \
	X(modify_qp_rate_limit) X(modify_srq) X(modify_wq) X(open_qp) \
	X(open_xrcd) X(poll_cq) X(post_recv) X(post_send) X(post_srq_ops) \
	X(post_srq_recv) X(query_device_ex) X(query_ece) X(query_port) \
	X(query_qp) X(query_qp_data_in_order) X(query_rt_values) \
	X(query_srq) X(read_counters) X(reg_dm_mr) X(reg_dmabuf_mr) \
	X(reg_mr) X(req_notify_cq) X(rereg_mr) X(resize_cq) X(set_ece) \
	X(unimport_dm) X(unimport_mr) X(unimport_pd)
/* clang-format on */

static void the_built_epoch_is_the_layout_of_our_header(void)
{
	const struct db_epoch *e = db_built_epoch();
	unsigned int n = 0;

	CHECK(e != NULL);
	if (!e)
		return;
	CHECK(e->first <= DB_RDMA_CORE_MAJOR && DB_RDMA_CORE_MAJOR <= e->last);
#define CHECK_SLOT(name)                                                       \
	CHECK_EQ(offsetof(struct verbs_context_ops, name) / sizeof(void *),    \
		 (size_t)e->slot[DB_VOP_##name]);                              \
	n++;
	OPS44(CHECK_SLOT)
#undef CHECK_SLOT
	CHECK_EQ(n, e->nslots);
	CHECK_EQ(sizeof(struct verbs_context_ops) / sizeof(void *),
		 (size_t)e->nslots);
	CHECK_EQ(offsetof(struct verbs_sysfs_dev, abi_ver),
		 (size_t)e->sysfs_abi_ver_off);
}

/*
 * The public structs come from the libibverbs-dev headers the build uses,
 * of release DB_HEADERS_RDMA_CORE (tests/unit/CMakeLists.txt): they must
 * have that release's epoch layout.
 */
static void the_build_headers_have_their_epochs_layout(void)
{
	const struct db_epoch *e = db_epoch_of(DB_HEADERS_RDMA_CORE);

	CHECK(e != NULL);
	if (!e)
		return;
	CHECK_EQ(sizeof(struct verbs_context), (size_t)e->vctx_size);
	CHECK_EQ(offsetof(struct verbs_context, context),
		 (size_t)e->vctx_context_off);
	CHECK_EQ(sizeof(struct ibv_qp_ex), (size_t)e->qp_ex_size);
	CHECK_EQ(offsetof(struct verbs_qp, comp_mask_v44),
		 (size_t)e->vqp_comp_mask_off);
	CHECK_EQ(offsetof(struct verbs_qp, xrcd_v44), (size_t)e->vqp_xrcd_off);
	CHECK_EQ(sizeof(struct verbs_qp), (size_t)e->vqp_size);
}

/* What the reserves in our objects must hold, in every epoch. */
static void every_epoch_fits_the_reserved_room(void)
{
	size_t ctx_at = offsetof(struct db_context, vctx.context);
	unsigned int i;

	for (i = 0; i < db_num_epochs; i++) {
		const struct db_epoch *e = &db_epochs[i];

		/* verbs_context ends in .context, prepended members only */
		CHECK_EQ((size_t)(e->vctx_size - e->vctx_context_off),
			 sizeof(struct ibv_context));
		CHECK(e->vctx_context_off <= ctx_at);
		CHECK_EQ(ctx_at - e->vctx_context_off + e->vctx_size,
			 offsetof(struct db_context, backend));
		/* verbs_qp: comp_mask right after ibv_qp_ex, then xrcd */
		CHECK_EQ(e->vqp_comp_mask_off, e->qp_ex_size);
		CHECK_EQ(e->vqp_xrcd_off, e->vqp_comp_mask_off + 8);
		CHECK_EQ(e->vqp_size, e->vqp_xrcd_off + 8);
		CHECK(e->vqp_size <= DB_VQP_ROOM);
		CHECK(e->sysfs_abi_ver_off + 4 <=
		      sizeof(struct verbs_sysfs_dev));
		CHECK(e->args_reg_dmabuf_mr == 7 || e->args_reg_dmabuf_mr == 8);
		CHECK(e->args_get_context == 5 || e->args_get_context == 6);
		CHECK(e->args_create_cq_ex == 8 || e->args_create_cq_ex == 9);
		CHECK(e->args_create_qp_ex2 == 7 || e->args_create_qp_ex2 == 8);
		if (i) {
			const struct db_epoch *p = &db_epochs[i - 1];

			CHECK(e->pabi >= p->pabi);
			CHECK(e->ibverbs_minor >= p->ibverbs_minor);
			CHECK(e->vctx_size >= p->vctx_size);
			CHECK(e->qp_ex_size >= p->qp_ex_size);
			CHECK(e->args_reg_dmabuf_mr >= p->args_reg_dmabuf_mr);
			CHECK(e->args_get_context >= p->args_get_context);
			CHECK(e->args_create_cq_ex >= p->args_create_cq_ex);
			CHECK(e->args_create_qp_ex2 >= p->args_create_qp_ex2);
		}
	}
	CHECK_EQ(sizeof(((struct rxe_qp *)0)->vqp_room), (size_t)DB_VQP_ROOM);
}

/* Recorders standing in for libibverbs' functions. */
static struct {
	void *slots[DB_VOP_MAX_SLOTS + 8];
	struct verbs_context *vctx;
	uintptr_t context_offset;
	int form; /* parameters of the form called */
	bool null_extra;
	void *vmr;    /* rec_dmabuf_7's 7th argument */
	bool args_ok; /* and its first five were the ones passed */
} rec;

static void rec_set_ops(struct verbs_context *vctx,
			const struct verbs_context_ops *ops)
{
	rec.vctx = vctx;
	memcpy(rec.slots, ops, db_lib.epoch->nslots * sizeof(void *));
}

static void *rec_alloc(struct ibv_device *device, int cmd_fd, size_t alloc_size,
		       struct verbs_context *context_offset, uint32_t driver_id)
{
	rec.context_offset = (uintptr_t)context_offset;
	return NULL;
}

static void rec_uninit(struct verbs_context *vctx)
{
	rec.vctx = vctx;
}

static int rec_get_context_5(struct verbs_context *context,
			     struct ibv_get_context *cmd, size_t cmd_size,
			     struct ib_uverbs_get_context_resp *resp,
			     size_t resp_size)
{
	rec.vctx = context;
	rec.form = 5;
	return (int)resp_size;
}

static int rec_get_context_6(struct verbs_context *context,
			     struct ibv_get_context *cmd, size_t cmd_size,
			     struct ibv_fd_arr *fd_arr,
			     struct ib_uverbs_get_context_resp *resp,
			     size_t resp_size)
{
	rec.vctx = context;
	rec.form = 6;
	rec.null_extra = fd_arr == NULL;
	return (int)resp_size;
}

/*
 * rdma-core 53's 7-parameter ibv_cmd_reg_dmabuf_mr, recording what it got.
 * noinline and external: called through a pointer, as libibverbs' is.
 */
__attribute__((noinline)) int rec_dmabuf_7(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova, int fd,
					   int access, struct verbs_mr *vmr);
__attribute__((noinline)) int rec_dmabuf_7(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova, int fd,
					   int access, struct verbs_mr *vmr)
{
	rec.form = 7;
	rec.vmr = vmr;
	rec.args_ok = pd == (struct ibv_pd *)0x10 && offset == 0x20 &&
		      length == 0x30 && iova == 0x40 && fd == 5;
	return access;
}

static int rec_cq_8(struct ibv_context *context,
		    const struct ibv_cq_init_attr_ex *cq_attr,
		    struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
		    size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp,
		    size_t resp_size, uint32_t cmd_flags)
{
	rec.form = 8;
	return (int)cmd_flags;
}

static int rec_cq_9(struct ibv_context *context,
		    const struct ibv_cq_init_attr_ex *cq_attr,
		    struct verbs_create_cq_prov_attr *prov_attr,
		    struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
		    size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp,
		    size_t resp_size, uint32_t cmd_flags)
{
	rec.form = 9;
	rec.null_extra = prov_attr == NULL;
	return (int)cmd_flags;
}

static int rec_qp_7(struct ibv_context *context, struct verbs_qp *qp,
		    struct ibv_qp_init_attr_ex *attr,
		    struct ibv_create_qp_ex *cmd, size_t cmd_size,
		    struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size)
{
	rec.form = 7;
	return (int)resp_size;
}

static int rec_qp_8(struct ibv_context *context, struct verbs_qp *qp,
		    struct ibv_qp_init_attr_ex *attr,
		    struct ibv_create_qp_ex *cmd, size_t cmd_size,
		    struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size,
		    struct ibv_command_buffer *driver)
{
	rec.form = 8;
	rec.null_extra = driver == NULL;
	return (int)resp_size;
}

/* db_lib as libver.c would fill it for epoch e, with the recorders. */
static struct db_libibverbs saved;

static void use_epoch(const struct db_epoch *e)
{
	memset(&rec, 0, sizeof(rec));
	db_lib.epoch = e;
	db_lib.major = e->first;
	db_lib.verbs_set_ops = rec_set_ops;
	db_lib._verbs_init_and_alloc_context = rec_alloc;
	db_lib.verbs_uninit_context = rec_uninit;
	if (e->args_get_context == 6)
		db_lib.ibv_cmd_get_context.ibv_cmd_get_context_6 =
			rec_get_context_6;
	else
		db_lib.ibv_cmd_get_context.v44 = rec_get_context_5;
	if (e->args_create_cq_ex == 9)
		db_lib.ibv_cmd_create_cq_ex.ibv_cmd_create_cq_ex_9 = rec_cq_9;
	else
		db_lib.ibv_cmd_create_cq_ex.v44 = rec_cq_8;
	if (e->args_create_qp_ex2 == 8)
		db_lib.ibv_cmd_create_qp_ex2.ibv_cmd_create_qp_ex2_8 = rec_qp_8;
	else
		db_lib.ibv_cmd_create_qp_ex2.v44 = rec_qp_7;
}

static void ops_go_to_each_epochs_slots_by_name(void)
{
	const struct db_epoch *ours = db_built_epoch();
	union {
		struct verbs_context_ops ops;
		uintptr_t slot[DB_VOP_MAX_SLOTS];
	} in;
	struct db_context ctx = {};
	unsigned int i, s;
	int v;

	saved = db_lib;
	/* Each of our ops a distinct non-NULL value: 0x1000 + its slot. */
	memset(&in, 0, sizeof(in));
	for (s = 0; s < ours->nslots; s++)
		in.slot[s] = 0x1000 + s;
	for (i = 0; i < db_num_epochs; i++) {
		const struct db_epoch *e = &db_epochs[i];

		use_epoch(e);
		memset(rec.slots, 0xff, sizeof(rec.slots));
		db_set_ops(&ctx.vctx, &in.ops);
		CHECK(rec.vctx == db_lib_vctx(&ctx.vctx));
		for (v = 0; v < DB_VOP_NUM; v++) {
			if (e->slot[v] < 0)
				continue;
			CHECK_EQ((uintptr_t)rec.slots[e->slot[v]],
				 ours->slot[v] < 0
					 ? (uintptr_t)0
					 : (uintptr_t)0x1000 + ours->slot[v]);
		}
		/* libibverbs reads nslots: nothing is written past them */
		CHECK_EQ((uintptr_t)rec.slots[e->nslots], UINTPTR_MAX);
	}
	db_lib = saved;
}

static void libibverbs_context_coincides_with_ours_at_context(void)
{
	struct db_context ctx = {};
	unsigned int i;

	saved = db_lib;
	for (i = 0; i < db_num_epochs; i++) {
		const struct db_epoch *e = &db_epochs[i];
		struct verbs_context *lib;

		use_epoch(e);
		lib = db_lib_vctx(&ctx.vctx);
		CHECK((char *)lib + e->vctx_context_off ==
		      (char *)&ctx.vctx.context);
		CHECK((char *)lib >= (char *)&ctx);
		CHECK((char *)lib + e->vctx_size == (char *)&ctx.backend);
		db_init_and_alloc_context(
			NULL, -1, sizeof(ctx),
			offsetof(struct db_context, vctx.context), 0);
		CHECK_EQ(rec.context_offset,
			 (uintptr_t)((char *)lib - (char *)&ctx));
		db_uninit_context(&ctx.vctx);
		CHECK(rec.vctx == lib);
	}
	db_lib = saved;
}

static void grown_commands_are_called_in_each_epochs_form(void)
{
	struct db_context ctx = {};
	unsigned int i;

	saved = db_lib;
	for (i = 0; i < db_num_epochs; i++) {
		const struct db_epoch *e = &db_epochs[i];

		use_epoch(e);
		CHECK_EQ(db_cmd_get_context(&ctx.vctx, NULL, 0, NULL, 77), 77);
		CHECK_EQ(rec.form, e->args_get_context);
		CHECK(rec.vctx == db_lib_vctx(&ctx.vctx));
		CHECK(rec.form == 5 || rec.null_extra);
		rec.null_extra = false;
		CHECK_EQ(db_cmd_create_cq_ex(NULL, NULL, NULL, NULL, 0, NULL, 0,
					     33),
			 33);
		CHECK_EQ(rec.form, e->args_create_cq_ex);
		CHECK(rec.form == 8 || rec.null_extra);
		rec.null_extra = false;
		CHECK_EQ(db_cmd_create_qp_ex2(NULL, NULL, NULL, NULL, 0, NULL,
					      44),
			 44);
		CHECK_EQ(rec.form, e->args_create_qp_ex2);
		CHECK(rec.form == 7 || rec.null_extra);
	}
	db_lib = saved;
}

/*
 * doorbell calls ibv_cmd_reg_dmabuf_mr in its 8-parameter form on every
 * release (core/pabi.h, DB_LIB_LONG_FNS): on 53 the callee has 7 and must
 * still get all seven, the 7th (vmr) past the argument registers on x86_64.
 */
static void reg_dmabuf_mr_of_53_gets_its_arguments_from_the_long_call(void)
{
	db_fn_ibv_cmd_reg_dmabuf_mr_8 *call =
		(db_fn_ibv_cmd_reg_dmabuf_mr_8 *)(void (*)(void))rec_dmabuf_7;
	struct verbs_mr *vmr = (struct verbs_mr *)0x70;

	memset(&rec, 0, sizeof(rec));
	CHECK_EQ(
		call((struct ibv_pd *)0x10, 0x20, 0x30, 0x40, 5, 55, vmr, NULL),
		55);
	CHECK_EQ(rec.form, 7);
	CHECK(rec.vmr == vmr);
	CHECK(rec.args_ok);
}

static void qp_comp_mask_and_sysfs_abi_ver_are_at_each_epochs_offset(void)
{
	struct rxe_qp qp;
	struct verbs_sysfs_dev sysfs;
	unsigned int i;

	saved = db_lib;
	for (i = 0; i < db_num_epochs; i++) {
		const struct db_epoch *e = &db_epochs[i];
		uint32_t got;

		use_epoch(e);
		memset(&qp, 0, sizeof(qp));
		db_vqp_set_ex(&qp.vqp);
		memcpy(&got, qp.vqp_room + e->vqp_comp_mask_off, sizeof(got));
		CHECK_EQ(got, (uint32_t)VERBS_QP_EX);
		/* Nothing else written. */
		memset(qp.vqp_room + e->vqp_comp_mask_off, 0, sizeof(got));
		CHECK(!memcmp(qp.vqp_room, (unsigned char[DB_VQP_ROOM]){ 0 },
			      DB_VQP_ROOM));
		memset(&sysfs, 0, sizeof(sysfs));
		got = 6;
		memcpy((char *)&sysfs + e->sysfs_abi_ver_off, &got,
		       sizeof(got));
		CHECK_EQ(db_sysfs_abi_ver(&sysfs), 6u);
	}
	db_lib = saved;
}
#define EPOCH_TEST(fn) CHECK_TEST(fn)
#else
/* The epochs hold LP64 layouts (abi/epochs.h); a 32-bit build refuses to
 * load, so each test skips, under its own name. */
static void epochs_are_lp64_only(void)
{
	CHECK_SKIP("the epoch layouts are LP64 only; this build is not");
}
#define EPOCH_TEST(fn) CHECK_TEST_AS(fn, epochs_are_lp64_only)
#endif /* __LP64__ */

static const struct check_test tests[] = {
	EPOCH_TEST(every_release_served_has_one_epoch_in_order),
	EPOCH_TEST(the_epochs_pabis_are_those_of_releases_txt),
	EPOCH_TEST(op_names_are_sorted_and_each_layout_is_their_rank),
	EPOCH_TEST(the_built_epoch_is_the_layout_of_our_header),
	EPOCH_TEST(the_build_headers_have_their_epochs_layout),
	EPOCH_TEST(every_epoch_fits_the_reserved_room),
	EPOCH_TEST(ops_go_to_each_epochs_slots_by_name),
	EPOCH_TEST(libibverbs_context_coincides_with_ours_at_context),
	EPOCH_TEST(grown_commands_are_called_in_each_epochs_form),
	EPOCH_TEST(reg_dmabuf_mr_of_53_gets_its_arguments_from_the_long_call),
	EPOCH_TEST(qp_comp_mask_and_sysfs_abi_ver_are_at_each_epochs_offset),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_epochs_", tests);
}
