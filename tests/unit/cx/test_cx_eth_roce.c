// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The Ethernet port's RoCE address table (cx_eth_roce.c):
 * SET_ROCE_ADDRESS as mlx5_core_roce_gid_set() writes a GID (its MAC,
 * VLAN, L3 type and version), QUERY_ROCE_ADDRESS reads it back, an
 * all-zero GID empties the entry, and what firmware refuses: an index
 * past roce_address_table_size, a version the caps do not offer (v1) or an unknown L3 type, another
 * port; an InfiniBand function has no table.  Offsets are mlx5_ifc.h's.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_test.h"

static uint8_t in[0x40], out[0x40];

/* SET_ROCE_ADDRESS of entry I: GID (16 bytes) of VERSION and L3 type,
 * MAC 02:00:00:00:00:01, VLAN 7 when VLAN: the status. */
static int set(struct cx *cx, uint32_t i, const uint8_t *gid, uint32_t version,
	       uint32_t l3, bool vlan)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	uint8_t *a = in + B_SET_ROCE_ADDRESS_IN_ADDR;

	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_SET_ROCE_ADDRESS);
	cx_set(in, F_ROCE_ADDRESS_IN_INDEX, i);
	memcpy(a + B_ROCE_ADDR_GID, gid, 16);
	memcpy(a + B_ROCE_ADDR_MAC, mac, 6);
	cx_set(a, F_ROCE_ADDR_VLAN_VALID, vlan);
	cx_set(a, F_ROCE_ADDR_VLAN_ID, vlan ? 7 : 0);
	cx_set(a, F_ROCE_ADDR_VERSION, version);
	cx_set(a, F_ROCE_ADDR_L3_TYPE, l3);
	if (cmd(cx, in, B_SET_ROCE_ADDRESS_IN_ADDR + ROCE_ADDR_BYTES, out, 16))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

/* QUERY_ROCE_ADDRESS of entry I: the status; the entry at out + 0x10. */
static int query(struct cx *cx, uint32_t i)
{
	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_ROCE_ADDRESS);
	cx_set(in, F_ROCE_ADDRESS_IN_INDEX, i);
	if (cmd(cx, in, 16, out,
		B_QUERY_ROCE_ADDRESS_OUT_ADDR + ROCE_ADDR_BYTES))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

static void a_gid_is_written_read_back_and_emptied(void)
{
	/* ::ffff:198.51.100.1, RoCE v2 over IPv4, as the core's table has it */
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 198,
					[13] = 51,   [14] = 100,  [15] = 1 };
	static const uint8_t zero[16];
	const uint8_t *a = out + B_QUERY_ROCE_ADDRESS_OUT_ADDR;
	struct cx *cx;

	cx = dev_up_eth();
	CHECK_EQ(set(cx, 3, v4, 2, 0, true), CX_OK);
	CHECK_EQ(query(cx, 3), CX_OK);
	CHECK(!memcmp(a + B_ROCE_ADDR_GID, v4, 16));
	CHECK_EQ(a[B_ROCE_ADDR_MAC + 5], 1);
	CHECK_EQ(cx_get(a, F_ROCE_ADDR_VERSION), 2u);
	CHECK_EQ(cx_get(a, F_ROCE_ADDR_L3_TYPE), 0u);
	CHECK_EQ(cx_get(a, F_ROCE_ADDR_VLAN_VALID), 1u);
	CHECK_EQ(cx_get(a, F_ROCE_ADDR_VLAN_ID), 7u);
	CHECK(cx->eth->gid[3].valid);
	/* Deleted: mlx5_ib writes a zero GID. */
	CHECK_EQ(set(cx, 3, zero, 0, 0, false), CX_OK);
	CHECK(!cx->eth->gid[3].valid);
	CHECK_EQ(query(cx, 3), CX_OK);
	CHECK(!memcmp(a, zero, 16));
	cx_destroy(cx);
}

static void what_firmware_refuses_is_refused(void)
{
	static const uint8_t gid[16] = { 0xfe, 0x80, [15] = 1 };
	struct cx *ib = dev_up(), *cx;

	cx = dev_up_eth();
	CHECK_EQ(set(cx, CX_ETH_ROCE_GIDS, gid, 2, 1, false), CX_BAD_PARAM);
	CHECK_EQ(set(cx, 0, gid, 1, 1, false), CX_BAD_PARAM); /* version 1? */
	CHECK_EQ(set(cx, 0, gid, 0, 1, false), CX_BAD_PARAM); /* RoCE v1 */
	CHECK_EQ(set(cx, 0, gid, 2, 2, false), CX_BAD_PARAM); /* l3 type 2 */
	CHECK(!cx->eth->gid[0].valid);
	cx_set(in, F_ROCE_ADDRESS_IN_VHCA_PORT, 2);
	CHECK_EQ(cmd(cx, in, B_SET_ROCE_ADDRESS_IN_ADDR + ROCE_ADDR_BYTES, out,
		     16),
		 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	CHECK_EQ(query(cx, CX_ETH_ROCE_GIDS), CX_BAD_PARAM);
	CHECK_EQ(set(cx, 0, gid, 2, 1, false), CX_OK); /* RoCE v2, IPv6 */
	CHECK_EQ(set(ib, 0, gid, 2, 1, false), CX_BAD_OP);
	cx_destroy(cx);
	cx_destroy(ib);
}

int main(int argc, char **argv)
{
	static const struct check_test tests[] = {
		CHECK_TEST(a_gid_is_written_read_back_and_emptied),
		CHECK_TEST(what_firmware_refuses_is_refused),
	};

	return CX_TEST_MAIN(argc, argv, "cx_eth_roce_", tests);
}
