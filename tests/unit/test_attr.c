// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The create checks of core/attr.c read what a backend takes from its
 * descriptor: a third backend with more features than rxe and mlx5 (here
 * completion timestamps, a QP create flag, raw packet QPs, XRC SRQs) gets
 * them past the core by saying so, and one that names nothing is refused
 * with EOPNOTSUPP; what is wrong whatever the backend stays EINVAL.
 */
#include <errno.h>

#include "core/attr.h"
#include "check.h"

/* A backend that takes more than today's two. */
static const struct db_backend wide = {
	.name = "wide",
	.cq_comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
	.cq_create_flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
			   IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	.cq_wc_flags =
		IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	.qp_comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
	.qp_create_flags = IBV_QP_CREATE_SCATTER_FCS,
	.qp_types = DB_QPT(IBV_QPT_RC) | DB_QPT(IBV_QPT_RAW_PACKET),
	.srq_comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
	.srq_types = DB_SRQT(IBV_SRQT_BASIC) | DB_SRQT(IBV_SRQT_XRC),
};

/* A backend that takes nothing beyond what every create needs. */
static const struct db_backend narrow = {
	.name = "narrow",
	.qp_comp_mask = IBV_QP_INIT_ATTR_PD,
	.qp_types = DB_QPT(IBV_QPT_RC),
	.srq_comp_mask = IBV_SRQ_INIT_ATTR_PD,
	.srq_types = DB_SRQT(IBV_SRQT_BASIC),
};

static struct db_context dbctx;
static struct ibv_pd pd;
static struct ibv_cq cq;
static struct ibv_xrcd xrcd;

static struct ibv_context *ctx_of(const struct db_backend *be)
{
	struct ibv_context *ctx = &dbctx.vctx.context;

	dbctx.backend = be;
	ctx->num_comp_vectors = 1;
	pd.context = ctx;
	cq.context = ctx;
	xrcd.context = ctx;
	return ctx;
}

static int cq_check(const struct db_backend *be, uint32_t comp_mask,
		    uint32_t flags, uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 16,
		.wc_flags = wc_flags,
		.comp_mask = comp_mask,
		.flags = flags,
	};
	bool single;

	return db_cq_attr_check(ctx_of(be), &a, &single);
}

static int qp_check(const struct db_backend *be, enum ibv_qp_type type,
		    uint32_t create_flags)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = &cq,
		.recv_cq = &cq,
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &pd,
	};
	struct ibv_context *ctx = ctx_of(be);

	if (create_flags) {
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = create_flags;
	}
	return db_qp_attr_check(ctx, &a);
}

/* An XRC SRQ with its domain and CQ unless bare. */
static int srq_check_xrc(const struct db_backend *be, enum ibv_srq_type type,
			 bool bare)
{
	struct ibv_srq_init_attr_ex a = {
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = type,
		.pd = &pd,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_context *ctx = ctx_of(be);

	if (type == IBV_SRQT_XRC && !bare) {
		a.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		a.xrcd = &xrcd;
		a.cq = &cq;
	}
	return db_srq_attr_check(ctx, &a);
}

static int srq_check(const struct db_backend *be, enum ibv_srq_type type)
{
	return srq_check_xrc(be, type, false);
}

static void a_backend_that_names_a_feature_gets_it_past_the_core(void)
{
	CHECK_EQ(cq_check(&wide, IBV_CQ_INIT_ATTR_MASK_FLAGS,
			  IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP),
		 0);
	CHECK_EQ(qp_check(&wide, IBV_QPT_RAW_PACKET, IBV_QP_CREATE_SCATTER_FCS),
		 0);
	CHECK_EQ(srq_check(&wide, IBV_SRQT_XRC), 0);
	/* An XRC SRQ names its domain and CQ (libibverbs reads both). */
	CHECK_EQ(srq_check_xrc(&wide, IBV_SRQT_XRC, true), EINVAL);
}

static void a_backend_that_names_nothing_is_refused_with_EOPNOTSUPP(void)
{
	CHECK_EQ(cq_check(&narrow, 0, 0, IBV_WC_EX_WITH_BYTE_LEN), EOPNOTSUPP);
	CHECK_EQ(cq_check(&narrow, IBV_CQ_INIT_ATTR_MASK_FLAGS, 0, 0),
		 EOPNOTSUPP);
	CHECK_EQ(qp_check(&narrow, IBV_QPT_RC, IBV_QP_CREATE_SCATTER_FCS),
		 EOPNOTSUPP);
	CHECK_EQ(qp_check(&narrow, IBV_QPT_UD, 0), EOPNOTSUPP);
	CHECK_EQ(srq_check(&narrow, IBV_SRQT_BASIC), EOPNOTSUPP);
	CHECK_EQ(cq_check(&wide, 0, 0, IBV_WC_EX_WITH_FLOW_TAG), EOPNOTSUPP);
	CHECK_EQ(qp_check(&wide, IBV_QPT_RC, IBV_QP_CREATE_CVLAN_STRIPPING),
		 EOPNOTSUPP);
	CHECK_EQ(srq_check(&wide, IBV_SRQT_TM), EOPNOTSUPP);
}

static void an_unknown_type_is_EINVAL_whatever_the_backend_takes(void)
{
	CHECK_EQ(qp_check(&wide, (enum ibv_qp_type)30, 0), EINVAL);
	CHECK_EQ(srq_check(&wide, (enum ibv_srq_type)30), EINVAL);
	CHECK_EQ(qp_check(&narrow, (enum ibv_qp_type)30, 0), EINVAL);
}

static void the_driver_qp_type_is_refused_unless_named(void)
{
	struct db_backend driver = wide;

	CHECK_EQ(qp_check(&wide, IBV_QPT_DRIVER, 0), EOPNOTSUPP);
	driver.qp_types |= DB_QPT(IBV_QPT_DRIVER);
	CHECK_EQ(qp_check(&driver, IBV_QPT_DRIVER, 0), 0);
}

/*
 * mlx5_ib checks only the WQE counts the provider computes, against its
 * own limit, so the core holds every backend to query_device's.
 */
static void queue_sizes_beyond_query_device_are_EINVAL(void)
{
	struct ibv_context *ctx = ctx_of(&wide);
	struct ibv_srq srq = { .context = ctx };
	struct ibv_qp_init_attr_ex a = {
		.send_cq = &cq,
		.recv_cq = &cq,
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &pd,
		.cap = { .max_send_wr = 64,
			 .max_recv_wr = 64,
			 .max_send_sge = 4,
			 .max_recv_sge = 4 },
	};
	struct ibv_srq_init_attr_ex s = {
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = &pd,
		.attr = { .max_wr = 32, .max_sge = 2 },
	};

	dbctx.dev = (struct ibv_device_attr_ex){};
	dbctx.dev.orig_attr.max_qp_wr = 64;
	dbctx.dev.orig_attr.max_sge = 4;
	dbctx.dev.orig_attr.max_srq_wr = 32;
	dbctx.dev.orig_attr.max_srq_sge = 2;
	dbctx.dev_known = true;
	CHECK_EQ(db_qp_attr_check(ctx, &a), 0);
	a.cap.max_send_wr = 65;
	CHECK_EQ(db_qp_attr_check(ctx, &a), EINVAL);
	a.cap.max_send_wr = 64;
	a.cap.max_recv_sge = 5;
	CHECK_EQ(db_qp_attr_check(ctx, &a), EINVAL);
	a.srq = &srq; /* no receive queue of its own */
	CHECK_EQ(db_qp_attr_check(ctx, &a), 0);
	a.cap.max_send_sge = 5;
	CHECK_EQ(db_qp_attr_check(ctx, &a), EINVAL);
	CHECK_EQ(db_srq_attr_check(ctx, &s), 0);
	s.attr.max_wr = 0;
	CHECK_EQ(db_srq_attr_check(ctx, &s), EINVAL);
	s.attr.max_wr = 33;
	CHECK_EQ(db_srq_attr_check(ctx, &s), EINVAL);
	s.attr.max_wr = 32;
	s.attr.max_sge = 3;
	CHECK_EQ(db_srq_attr_check(ctx, &s), EINVAL);
	/* Without the kernel's answer only the zero SRQ is known wrong. */
	dbctx.dev_known = false;
	CHECK_EQ(db_srq_attr_check(ctx, &s), 0);
	a.srq = NULL;
	a.cap.max_send_wr = 1u << 20;
	CHECK_EQ(db_qp_attr_check(ctx, &a), 0);
}

static void qp_attributes_wider_than_their_bits_are_EINVAL(void)
{
	struct ibv_qp_attr at = { .timeout = 31,
				  .min_rnr_timer = 31,
				  .retry_cnt = 7,
				  .rnr_retry = 7 };
	int all = IBV_QP_TIMEOUT | IBV_QP_MIN_RNR_TIMER | IBV_QP_RETRY_CNT |
		  IBV_QP_RNR_RETRY;

	CHECK_EQ(db_qp_modify_check(&at, all), 0);
	at.timeout = 32;
	CHECK_EQ(db_qp_modify_check(&at, all), EINVAL);
	CHECK_EQ(db_qp_modify_check(&at, all & ~IBV_QP_TIMEOUT), 0);
	at.timeout = 0;
	at.min_rnr_timer = 32;
	CHECK_EQ(db_qp_modify_check(&at, IBV_QP_MIN_RNR_TIMER), EINVAL);
	at.min_rnr_timer = 0;
	at.retry_cnt = 8;
	CHECK_EQ(db_qp_modify_check(&at, IBV_QP_RETRY_CNT), EINVAL);
	at.retry_cnt = 0;
	at.rnr_retry = 8;
	CHECK_EQ(db_qp_modify_check(&at, IBV_QP_RNR_RETRY), EINVAL);
}

/* max_wr 0 is EINVAL unless the backend says its native provider takes it. */
static void an_srq_of_0_wr_is_EINVAL_unless_the_backend_takes_it(void)
{
	struct db_backend takes = wide;
	struct ibv_srq_init_attr_ex s = {
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = &pd,
		.attr = { .max_wr = 0, .max_sge = 1 },
	};
	struct ibv_context *ctx = ctx_of(&wide);

	dbctx.dev_known = false;
	CHECK_EQ(db_srq_attr_check(ctx, &s), EINVAL);
	takes.srq_takes_0_wr = true;
	ctx = ctx_of(&takes);
	CHECK_EQ(db_srq_attr_check(ctx, &s), 0);
	s.attr.max_wr = 1;
	CHECK_EQ(db_srq_attr_check(ctx, &s), 0);
}

static const struct check_test tests[] = {
	CHECK_TEST(queue_sizes_beyond_query_device_are_EINVAL),
	CHECK_TEST(an_srq_of_0_wr_is_EINVAL_unless_the_backend_takes_it),
	CHECK_TEST(qp_attributes_wider_than_their_bits_are_EINVAL),
	CHECK_TEST(a_backend_that_names_a_feature_gets_it_past_the_core),
	CHECK_TEST(a_backend_that_names_nothing_is_refused_with_EOPNOTSUPP),
	CHECK_TEST(an_unknown_type_is_EINVAL_whatever_the_backend_takes),
	CHECK_TEST(the_driver_qp_type_is_refused_unless_named),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_attr_", tests);
}
