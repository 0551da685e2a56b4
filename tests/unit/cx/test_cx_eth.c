// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX's Ethernet port (cx-server --eth): the caps that
 * let mlx5_core add mlx5e (dev.c mlx5_eth_supported), and the NIC receive
 * flow tables as fs_core.c/fs_cmd.c make them: the anchor table at load,
 * made the root, then mlx5e's tables forwarding on a miss to it.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_test.h"

static uint8_t caps[16 + CX_CAP_BYTES];

/* QUERY_HCA_CAP of TYPE (current values) into caps[]: the status. */
static int query_caps(struct cx *cx, unsigned int type)
{
	return simple(cx, CX_OP_QUERY_HCA_CAP, type << 1 | 1, caps,
		      sizeof(caps));
}

static uint32_t cap(unsigned int off, unsigned int width)
{
	return cx_get(caps + B_QUERY_HCA_CAP_OUT_CAPABILITY, off, width);
}

static void eth_port_passes_mlx5_eth_supported_and_ib_is_unchanged(void)
{
	struct cx *ib = dev_up(), *cx = dev_up_eth();
	uint8_t in[FT_IN_BYTES] = { 0 }, out[16];

	CHECK_EQ(query_caps(cx, 0), CX_OK);
	CHECK_EQ(cap(0x1b6, 2), 1u);	    /* port_type: Ethernet */
	CHECK_EQ(cap(0x21c, 1), 1u);	    /* eth_net_offloads */
	CHECK_EQ(cap(0x1a6, 1), 1u);	    /* nic_flow_table */
	CHECK_EQ(cap(0x21d, 1), 1u);	    /* roce */
	CHECK_EQ(cap(0x1a7, 1), 0u);	    /* eswitch_manager */
	CHECK_EQ(cap(0x09b, 5), 10u);	    /* the IB function's values stay */
	CHECK_EQ(query_caps(cx, 1), CX_OK); /* ETHERNET_OFFLOADS */
	CHECK_EQ(cap(0x000, 1), 1u);	    /* csum_cap */
	CHECK_EQ(cap(0x001, 1), 1u);	    /* vlan_cap */
	CHECK(cap(0x00b, 5) > 0);	    /* max_lso_cap */
	CHECK(cap(0x014, 4) > 0);	    /* rss_ind_tbl_cap */
	CHECK_EQ(query_caps(cx, 7), CX_OK); /* FLOW_TABLE */
	CHECK_EQ(cap(0x200, 1), 1u);	    /* nic_receive ft_support */
	CHECK(cap(0x238, 8) >= 3);	    /* max_ft_level */
	CHECK_EQ(query_caps(cx, 4), CX_OK); /* ROCE */
	CHECK_EQ(cap(0x08c, 4), 0x6u);	    /* l3_type: IPv4 and IPv6 */
	CHECK_EQ(cap(0x098, 8), 0x4u);	    /* roce_version: 2 only */
	CHECK_EQ(cap(0x0f0, 16), 256u);	    /* roce_address_table_size */
	CHECK_EQ(cap(0x004, 1), 0u);	    /* no sw_r_roce_src_udp_port */
	CHECK_EQ(query_caps(cx, 2), CX_BAD_PARAM); /* no ODP */

	CHECK_EQ(query_caps(ib, 0), CX_OK);
	CHECK_EQ(cap(0x1b6, 2), 0u); /* InfiniBand */
	CHECK_EQ(cap(0x21c, 1), 0u);
	CHECK_EQ(query_caps(ib, 1), CX_BAD_PARAM);
	CHECK_EQ(query_caps(ib, 7), CX_BAD_PARAM);
	CHECK_EQ(query_caps(ib, 4), CX_BAD_PARAM); /* no RoCE on IB */
	CHECK_EQ(cap(0x21d, 1), 0u);
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_FLOW_TABLE);
	CHECK_EQ(cmd_made(ib, in, sizeof(in), out, sizeof(out),
			  F_CREATE_FLOW_TABLE_OUT_TABLE_ID),
		 -CX_BAD_OP);
	CHECK_EQ(cmd_made(cx, in, sizeof(in), out, sizeof(out),
			  F_CREATE_FLOW_TABLE_OUT_TABLE_ID),
		 1);
	cx_destroy(ib);
	cx_destroy(cx);
}

/* CREATE_FLOW_TABLE of LEVEL, 2^LOG entries, missing to MISS (0: default). */
static int make_ft(struct cx *cx, unsigned int level, unsigned int log,
		   uint32_t miss)
{
	uint8_t in[FT_IN_BYTES] = { 0 }, out[16];

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_FLOW_TABLE);
	cx_set(in, F_FTC_LEVEL, level);
	cx_set(in, F_FTC_LOG_SIZE, log);
	if (miss) {
		cx_set(in, F_FTC_TABLE_MISS_ACTION, 1);
		cx_set(in, F_FTC_TABLE_MISS_ID, miss);
	}
	return cmd_made(cx, in, sizeof(in), out, sizeof(out),
			F_CREATE_FLOW_TABLE_OUT_TABLE_ID);
}

/* A command of the flow-table header on table FT; its status. */
static int on_ft(struct cx *cx, uint16_t op, uint16_t op_mod, uint32_t ft,
		 uint8_t *in, uint32_t inlen)
{
	uint8_t out[16];

	cx_set(in, F_IN_OPCODE, op);
	cx_set(in, F_IN_OP_MOD, op_mod);
	cx_set(in, F_FT_IN_TABLE_ID, ft);
	if (cmd(cx, in, inlen, out, sizeof(out)))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

static int ft_cmd(struct cx *cx, uint16_t op, uint16_t op_mod, uint32_t ft)
{
	uint8_t in[FT_IN_BYTES] = { 0 };

	return on_ft(cx, op, op_mod, ft, in, sizeof(in));
}

/* CREATE_FLOW_GROUP [START, END] of FT: its id or minus the status. */
static int make_fg(struct cx *cx, uint32_t ft, uint32_t start, uint32_t end)
{
	static uint8_t in[CREATE_FLOW_GROUP_IN_BYTES];
	uint8_t out[16];

	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_FLOW_GROUP);
	cx_set(in, F_FT_IN_TABLE_ID, ft);
	cx_set(in, F_CREATE_FLOW_GROUP_IN_START_FLOW_INDEX, start);
	cx_set(in, F_CREATE_FLOW_GROUP_IN_END_FLOW_INDEX, end);
	cx_set(in, F_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA_ENABLE, 1);
	return cmd_made(cx, in, sizeof(in), out, sizeof(out),
			F_CREATE_FLOW_GROUP_OUT_GROUP_ID);
}

/* SET_FLOW_TABLE_ENTRY at INDEX of FT, group FG, forwarding to table
 * DEST (0: drop); the status. */
static int set_fte(struct cx *cx, uint32_t ft, uint32_t fg, uint32_t index,
		   uint32_t dest)
{
	static uint8_t in[B_SET_FTE_IN_DESTINATION + DEST_BYTES];

	memset(in, 0, sizeof(in));
	cx_set(in, F_FTE_IN_FLOW_INDEX, index);
	cx_set(in, F_FTE_GROUP_ID, fg);
	cx_set(in, F_FTE_ACTION, dest ? 0x4 : 0x2);
	if (dest) {
		cx_set(in, F_FTE_DESTINATION_LIST_SIZE, 1);
		cx_set(in + B_SET_FTE_IN_DESTINATION, F_DEST_TYPE, 1);
		cx_set(in + B_SET_FTE_IN_DESTINATION, F_DEST_ID, dest);
	}
	return on_ft(cx, CX_OP_SET_FLOW_TABLE_ENTRY, 0, ft, in, sizeof(in));
}

static int del_fte(struct cx *cx, uint32_t ft, uint32_t index)
{
	uint8_t in[FT_IN_BYTES] = { 0 };

	cx_set(in, F_FTE_IN_FLOW_INDEX, index);
	return on_ft(cx, CX_OP_DELETE_FLOW_TABLE_ENTRY, 0, ft, in, sizeof(in));
}

static int del_fg(struct cx *cx, uint32_t ft, uint32_t fg)
{
	uint8_t in[FT_IN_BYTES] = { 0 };

	cx_set(in, F_DESTROY_FLOW_GROUP_IN_GROUP_ID, fg);
	return on_ft(cx, CX_OP_DESTROY_FLOW_GROUP, 0, ft, in, sizeof(in));
}

static void flow_tables_chain_by_level_as_fs_core_makes_them(void)
{
	struct cx *cx = dev_up_eth();
	int anchor, l2, ttc;

	/* mlx5_core's anchor (1 entry, the last level), made the root */
	anchor = make_ft(cx, 40, 0, 0);
	CHECK_EQ(anchor, 1);
	CHECK_EQ(ft_cmd(cx, CX_OP_SET_FLOW_TABLE_ROOT, 0, anchor), CX_OK);
	CHECK_EQ(cx->eth->root_ft, (uint32_t)anchor);
	/* mlx5e's: a miss goes on to a table of a higher level only */
	l2 = make_ft(cx, 9, 7, anchor);
	CHECK_EQ(l2, 2);
	CHECK_EQ(make_ft(cx, 41, 7, l2), -CX_BAD_PARAM);
	CHECK_EQ(make_ft(cx, 9, 7, 7), -CX_BAD_PARAM); /* no table 7 */
	CHECK_EQ(make_ft(cx, CX_ETH_MAX_FT_LEVEL + 1, 0, 0), -CX_BAD_PARAM);
	CHECK_EQ(make_ft(cx, 8, CX_ETH_LOG_MAX_FT_SIZE + 1, 0), -CX_BAD_PARAM);
	ttc = make_ft(cx, 8, 4, l2);
	CHECK_EQ(ttc, 3);
	CHECK_EQ(ft_cmd(cx, CX_OP_SET_FLOW_TABLE_ROOT, 0, ttc), CX_OK);
	/* a table that is forwarded to stays */
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, l2), CX_BAD_RES);
	/* another vport's or another type's table: not this function's */
	{
		uint8_t in[FT_IN_BYTES] = { 0 };

		cx_set(in, F_FT_IN_TABLE_TYPE, 1); /* NIC_TX: not offered */
		CHECK_EQ(on_ft(cx, CX_OP_DESTROY_FLOW_TABLE, 0, ttc, in,
			       sizeof(in)),
			 CX_BAD_PARAM);
		memset(in, 0, sizeof(in));
		cx_set(in, F_FT_IN_OTHER_VPORT, 1);
		CHECK_EQ(on_ft(cx, CX_OP_DESTROY_FLOW_TABLE, 0, ttc, in,
			       sizeof(in)),
			 CX_BAD_PARAM);
	}
	CHECK_EQ(ft_cmd(cx, CX_OP_SET_FLOW_TABLE_ROOT, 1, 0), CX_OK);
	CHECK_EQ(cx->eth->root_ft, 0u);
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, ttc), CX_OK);
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, ttc), CX_BAD_PARAM);
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, l2), CX_OK);
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, anchor), CX_OK);
	cx_destroy(cx);
}

static void flow_entries_sit_in_their_group_and_forward_down_the_levels(void)
{
	struct cx *cx = dev_up_eth();
	int anchor = make_ft(cx, 40, 0, 0), ft = make_ft(cx, 8, 4, anchor);
	int g1, g2;

	g1 = make_fg(cx, ft, 0, 3);
	CHECK_EQ(g1, 1);
	CHECK_EQ(make_fg(cx, ft, 3, 5), -CX_BAD_PARAM);	  /* overlaps g1 */
	CHECK_EQ(make_fg(cx, ft, 10, 16), -CX_BAD_PARAM); /* past 2^4 */
	CHECK_EQ(make_fg(cx, ft, 5, 4), -CX_BAD_PARAM);
	g2 = make_fg(cx, ft, 4, 15);
	CHECK_EQ(g2, 2);
	CHECK_EQ(make_fg(cx, anchor, 0, 0), 3); /* another table's index 0 */
	CHECK_EQ(set_fte(cx, ft, g1, 0, anchor), CX_OK);
	CHECK_EQ(set_fte(cx, ft, g1, 0, anchor), CX_BAD_PARAM); /* taken */
	CHECK_EQ(set_fte(cx, ft, g1, 4, anchor), CX_BAD_PARAM); /* in g2 */
	CHECK_EQ(set_fte(cx, ft, 3, 1, anchor), CX_BAD_PARAM);	/* anchor's */
	CHECK_EQ(set_fte(cx, anchor, 3, 0, ft), CX_BAD_PARAM);	/* level up */
	CHECK_EQ(set_fte(cx, ft, g2, 4, 9), CX_BAD_PARAM);	/* no table 9 */
	CHECK_EQ(set_fte(cx, ft, g2, 4, 0), CX_OK);		/* drop */
	/* groups with entries, tables with groups, stay */
	CHECK_EQ(del_fg(cx, ft, g1), CX_BAD_RES);
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, ft), CX_BAD_RES);
	CHECK_EQ(del_fte(cx, ft, 0), CX_OK);
	CHECK_EQ(del_fte(cx, ft, 0), CX_BAD_PARAM);
	CHECK_EQ(del_fg(cx, ft, g1), CX_OK);
	CHECK_EQ(del_fg(cx, anchor, g2), CX_BAD_PARAM); /* ft's group */
	CHECK_EQ(del_fte(cx, ft, 4), CX_OK);
	CHECK_EQ(del_fg(cx, ft, g2), CX_OK);
	CHECK_EQ(ft_cmd(cx, CX_OP_DESTROY_FLOW_TABLE, 0, ft), CX_OK);
	cx_destroy(cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(eth_port_passes_mlx5_eth_supported_and_ib_is_unchanged),
	CHECK_TEST(flow_tables_chain_by_level_as_fs_core_makes_them),
	CHECK_TEST(flow_entries_sit_in_their_group_and_forward_down_the_levels),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_eth_", tests);
}
