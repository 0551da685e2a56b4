// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * core/caps.c: query_device(_ex) keeps of the kernel's answer what the
 * serving backend serves (db_backend.serves), here for the rxe backend;
 * tests/model/mlx5/test_device_query.c checks the mlx5 backend through
 * ibv_query_device(_ex).
 */
#include <string.h>

#include "core/backends.h"
#include "check.h"

/* What a kernel might say: every feature core/caps.c knows of. */
static void all_caps(struct ibv_device_attr_ex *a)
{
	memset(a, 0, sizeof(*a));
	a->orig_attr.device_cap_flags =
		IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_XRC |
		IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2A |
		IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_MEM_MGT_EXTENSIONS |
		IBV_DEVICE_RAW_IP_CSUM;
	a->orig_attr.max_mw = 1000;
	a->orig_attr.max_qp_wr = 4096;
	a->device_cap_flags_ex = (unsigned int)a->orig_attr.device_cap_flags |
				 IBV_DEVICE_RAW_SCATTER_FCS;
	a->odp_caps.general_caps = IBV_ODP_SUPPORT;
	a->completion_timestamp_mask = 0xffff;
	a->hca_core_clock = 1000;
	a->tso_caps.max_tso = 1;
	a->rss_caps.max_rwq_indirection_tables = 1;
	a->max_wq_type_rq = 1;
	a->packet_pacing_caps.qp_rate_limit_max = 1;
	a->raw_packet_caps = 1;
	a->tm_caps.max_num_tags = 1;
	a->max_dm_size = 4096;
	a->xrc_odp_caps = 1;
	a->cq_mod_caps.max_cq_count = 1;
}

static void rxe_keeps_windows_and_mem_mgt_and_cuts_the_rest(void)
{
	const unsigned int kept =
		IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_MEM_WINDOW |
		IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B |
		IBV_DEVICE_MEM_MGT_EXTENSIONS;
	struct ibv_device_attr_ex a;

	all_caps(&a);
	db_mask_device_attr(&db_rxe_backend, &a, sizeof(a));
	CHECK_EQ((unsigned int)a.orig_attr.device_cap_flags, kept);
	CHECK_EQ(a.device_cap_flags_ex, kept);
	CHECK_EQ(a.orig_attr.max_mw, 1000);
	CHECK_EQ(a.orig_attr.max_qp_wr, 4096);
	CHECK_EQ(a.odp_caps.general_caps, IBV_ODP_SUPPORT);
	CHECK_EQ(a.cq_mod_caps.max_cq_count, 1);
	CHECK_EQ(a.completion_timestamp_mask, 0);
	CHECK_EQ(a.hca_core_clock, 0);
	CHECK_EQ(a.tso_caps.max_tso, 0);
	CHECK_EQ(a.rss_caps.max_rwq_indirection_tables, 0);
	CHECK_EQ(a.max_wq_type_rq, 0);
	CHECK_EQ(a.packet_pacing_caps.qp_rate_limit_max, 0);
	CHECK_EQ(a.raw_packet_caps, 0);
	CHECK_EQ(a.tm_caps.max_num_tags, 0);
	CHECK_EQ(a.max_dm_size, 0);
	CHECK_EQ(a.xrc_odp_caps, 0);
}

static void mlx5_cuts_windows_and_mem_mgt_and_keeps_xrc(void)
{
	const unsigned int kept = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_XRC;
	struct ibv_device_attr_ex a;

	all_caps(&a);
	db_mask_device_attr(&db_mlx5_backend, &a, sizeof(a));
	CHECK_EQ((unsigned int)a.orig_attr.device_cap_flags, kept);
	CHECK_EQ(a.device_cap_flags_ex, kept);
	CHECK_EQ(a.orig_attr.max_mw, 0);
	CHECK_EQ(a.max_dm_size, 0);
	CHECK_EQ(a.xrc_odp_caps, 1);
}

/* A caller's short struct (the legacy query): nothing past it written. */
static void a_short_attr_is_masked_within_its_size(void)
{
	struct ibv_device_attr_ex a;

	all_caps(&a);
	db_mask_device_attr(&db_rxe_backend, &a, sizeof(a.orig_attr));
	CHECK_EQ(a.orig_attr.device_cap_flags & IBV_DEVICE_XRC, 0);
	CHECK_EQ(a.completion_timestamp_mask, 0xffff);
	CHECK_EQ(a.max_dm_size, 4096);
	CHECK(a.device_cap_flags_ex & IBV_DEVICE_XRC);
}

static const struct check_test tests[] = {
	CHECK_TEST(rxe_keeps_windows_and_mem_mgt_and_cuts_the_rest),
	CHECK_TEST(mlx5_cuts_windows_and_mem_mgt_and_keeps_xrc),
	CHECK_TEST(a_short_attr_is_masked_within_its_size),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_caps_", tests);
}
