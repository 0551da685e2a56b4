// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device query of a context: the core sends EX_QUERY_DEVICE once, when
 * the context opens, and the verbs that depend on what the device said
 * (the ODP check of ibv_reg_mr, the CQ size limit, the atomics of a QP)
 * read that answer; none of them queries the fake kernel again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "m5model.h"
#include "check.h"

/* EX_QUERY_DEVICE commands the fake kernel of @dev has answered. */
static uint64_t queries(struct m5m_dev *dev)
{
	struct m5m_stats st;

	m5m_get_stats(dev, &st);
	return st.query_device_cmds;
}

static struct m5m_dev *dev_with_odp(bool odp)
{
	struct m5m_config cfg;

	m5m_config_default(&cfg);
	cfg.odp = odp;
	return m5m_dev_create(&cfg);
}

static void a_context_open_queries_the_device_once(void)
{
	struct m5m_dev *dev = dev_with_odp(false);
	struct ibv_context *ctx;
	struct ibv_cq *cq;

	CHECK(dev != NULL);
	if (!dev)
		return;
	ctx = m5m_open(dev);
	CHECK(ctx != NULL);
	if (ctx) {
		CHECK_EQ(queries(dev), 1);
		/* The CQ size limit is the device's max_cqe, read at open. */
		cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		CHECK(cq != NULL);
		CHECK(!ibv_create_cq(ctx, 1 << 23, NULL, NULL, 0));
		CHECK_EQ(queries(dev), 1);
		if (cq)
			CHECK_EQ(ibv_destroy_cq(cq), 0);
		ibv_close_device(ctx);
	}
	m5m_dev_destroy(dev);
}

/*
 * ibv_reg_mr with IBV_ACCESS_ON_DEMAND on a context of a device with or
 * without ODP: the MR it gives (NULL or not), its errno, and the queries
 * the fake kernel answered during the call.
 */
static void reg_on_demand(bool odp, bool *got_mr, int *err, uint64_t *sent)
{
	struct m5m_dev *dev = dev_with_odp(odp);
	struct ibv_context *ctx = dev ? m5m_open(dev) : NULL;
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	static char buf[4096];
	struct ibv_mr *mr = NULL;
	uint64_t before;

	*got_mr = false;
	*err = -1;
	*sent = ~0ull;
	CHECK(pd != NULL);
	if (pd) {
		before = queries(dev);
		errno = 0;
		mr = ibv_reg_mr(pd, buf, sizeof(buf),
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
		*err = errno;
		*sent = queries(dev) - before;
		*got_mr = mr != NULL;
		if (mr)
			CHECK_EQ(ibv_dereg_mr(mr), 0);
		CHECK_EQ(ibv_dealloc_pd(pd), 0);
	}
	if (ctx)
		ibv_close_device(ctx);
	if (dev)
		m5m_dev_destroy(dev);
}

static void reg_mr_on_demand_without_odp_is_EOPNOTSUPP_with_no_query(void)
{
	uint64_t sent;
	bool got;
	int err;

	reg_on_demand(false, &got, &err, &sent);
	CHECK(!got);
	CHECK_EQ(err, EOPNOTSUPP);
	CHECK_EQ(sent, 0);
}

static void reg_mr_on_demand_with_odp_registers_with_no_query(void)
{
	uint64_t sent;
	bool got;
	int err;

	reg_on_demand(true, &got, &err, &sent);
	CHECK(got);
	CHECK_EQ(sent, 0);
}

static void query_device_ex_reports_the_odp_caps_of_the_device(void)
{
	struct m5m_dev *dev = dev_with_odp(true);
	struct ibv_context *ctx = dev ? m5m_open(dev) : NULL;
	struct ibv_device_attr_ex attr = {};

	CHECK(ctx != NULL);
	if (ctx) {
		CHECK_EQ(ibv_query_device_ex(ctx, NULL, &attr), 0);
		CHECK(attr.odp_caps.general_caps & IBV_ODP_SUPPORT);
		CHECK(attr.odp_caps.per_transport_caps.rc_odp_caps &
		      IBV_ODP_SUPPORT_WRITE);
		ibv_close_device(ctx);
	}
	if (dev)
		m5m_dev_destroy(dev);
}

/*
 * The fake kernel answers as mlx5_ib does for a ConnectX: XRC, windows,
 * MEM_MGT_EXTENSIONS, raw packet and RSS caps, tag matching, device memory
 * and completion timestamps.  The backend serves none of them but the
 * timestamps, so both queries report none of the others
 * (docs/capabilities.md); what it serves stays the kernel's.
 */
static void query_device_reports_only_what_the_backend_serves(void)
{
	const unsigned int cut =
		IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B |
		IBV_DEVICE_MEM_MGT_EXTENSIONS | IBV_DEVICE_RAW_IP_CSUM |
		IBV_DEVICE_MANAGED_FLOW_STEERING;
	struct m5m_dev *dev = dev_with_odp(true);
	struct ibv_context *ctx = dev ? m5m_open(dev) : NULL;
	struct ibv_device_attr_ex ex = {};
	struct ibv_device_attr attr = {};
	struct ibv_xrcd *xrcd;

	CHECK(ctx != NULL);
	if (!ctx)
		goto out;
	CHECK_EQ(ibv_query_device_ex(ctx, NULL, &ex), 0);
	CHECK_EQ(ibv_query_device(ctx, &attr), 0);
	CHECK_EQ(ex.orig_attr.device_cap_flags & cut, 0);
	CHECK_EQ(attr.device_cap_flags & cut, 0);
	CHECK_EQ(ex.device_cap_flags_ex & (cut | IBV_DEVICE_RAW_SCATTER_FCS |
					   IBV_DEVICE_PCI_WRITE_END_PADDING),
		 0);
	CHECK_EQ(ex.orig_attr.max_mw, 0);
	CHECK_EQ(attr.max_mw, 0);
	CHECK_EQ(ex.tso_caps.max_tso, 0);
	CHECK_EQ(ex.rss_caps.max_rwq_indirection_tables, 0);
	CHECK_EQ(ex.max_wq_type_rq, 0);
	CHECK_EQ(ex.packet_pacing_caps.qp_rate_limit_max, 0);
	CHECK_EQ(ex.raw_packet_caps, 0);
	CHECK_EQ(ex.tm_caps.max_num_tags, 0);
	CHECK_EQ(ex.max_dm_size, 0);
	/* What the backend serves keeps the kernel's answer. */
	CHECK(attr.device_cap_flags & IBV_DEVICE_XRC);
	CHECK_EQ(ex.xrc_odp_caps, IBV_ODP_SUPPORT_SEND);
	CHECK(attr.device_cap_flags & IBV_DEVICE_RC_RNR_NAK_GEN);
	CHECK(ex.device_cap_flags_ex & IBV_DEVICE_BAD_PKEY_CNTR);
	CHECK(ex.odp_caps.general_caps & IBV_ODP_SUPPORT);
	CHECK_EQ(ex.completion_timestamp_mask, (1ull << 63) - 1);
	CHECK_EQ(ex.hca_core_clock, M5M_CORE_CLOCK_KHZ);
	CHECK_EQ(attr.max_qp_wr, ex.orig_attr.max_qp_wr);
	CHECK(attr.max_qp_wr > 0);
	/* The two queries agree. */
	CHECK_EQ(attr.device_cap_flags, ex.orig_attr.device_cap_flags);
	/* And the verbs serve what is advertised. */
	xrcd = ibv_open_xrcd(ctx,
			     &(struct ibv_xrcd_init_attr){
				     .comp_mask = IBV_XRCD_INIT_ATTR_FD |
						  IBV_XRCD_INIT_ATTR_OFLAGS,
				     .fd = -1,
				     .oflags = O_CREAT });
	CHECK(xrcd);
	if (xrcd)
		CHECK_EQ(ibv_close_xrcd(xrcd), 0);
	ibv_close_device(ctx);
out:
	if (dev)
		m5m_dev_destroy(dev);
}

static const struct check_test tests[] = {
	CHECK_TEST(query_device_reports_only_what_the_backend_serves),
	CHECK_TEST(a_context_open_queries_the_device_once),
	CHECK_TEST(reg_mr_on_demand_without_odp_is_EOPNOTSUPP_with_no_query),
	CHECK_TEST(reg_mr_on_demand_with_odp_registers_with_no_query),
	CHECK_TEST(query_device_ex_reports_the_odp_caps_of_the_device),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_device_query_", tests);
}
