// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCE address table of the Ethernet port (the ROCE capability page's
 * roce_address_table_size entries): SET_ROCE_ADDRESS writes an entry as
 * mlx5_core's mlx5_core_roce_gid_set() does for each GID the RDMA core
 * adds or deletes (mlx5_ib's set_roce_addr): the GID, the MAC and VLAN
 * of its netdev, its L3 type (IPv4 or IPv6, for RoCE v2) and RoCE version
 * (2: the caps offer no other); an all-zero GID empties the entry.  QUERY_ROCE_ADDRESS reads
 * one back.  Checked as firmware does: an index inside the table, port 0
 * or 1 (num_vhca_ports is 0), the version and an L3 type the caps offer.  The
 * table is what a RoCE QP's source GID index names (issue #32 step 3).
 */
#include <string.h>

#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"

enum {
	ROCE_V2 = 2, /* MLX5_ROCE_VERSION_2 (_1 is 0) */
	L3_IPV6 = 1, /* MLX5_ROCE_L3_TYPE_IPV4 is 0 */
	SET_IN_BYTES = B_SET_ROCE_ADDRESS_IN_ADDR + ROCE_ADDR_BYTES,
	QUERY_IN_BYTES = 16,
	QUERY_OUT_BYTES = B_QUERY_ROCE_ADDRESS_OUT_ADDR + ROCE_ADDR_BYTES,
};

static const uint8_t zero_gid[16];

static int set_address(struct cx_eth *e, const uint8_t *a, uint32_t i)
{
	struct cx_eth_gid g = { 0 };

	g.version = cx_get(a, F_ROCE_ADDR_VERSION);
	g.l3_type = cx_get(a, F_ROCE_ADDR_L3_TYPE);
	memcpy(g.gid, a + B_ROCE_ADDR_GID, sizeof(g.gid));
	g.valid = memcmp(g.gid, zero_gid, sizeof(zero_gid)) != 0;
	/* Only the version the caps offer (cx_eth_caps.c: v2); an entry
	 * emptied (all zero, as mlx5_core writes it) has none. */
	if (g.valid && (g.version != ROCE_V2 || g.l3_type > L3_IPV6))
		return CX_BAD_PARAM;
	memcpy(g.mac, a + B_ROCE_ADDR_MAC, sizeof(g.mac));
	g.vlan = cx_get(a, F_ROCE_ADDR_VLAN_VALID);
	g.vlan_id = cx_get(a, F_ROCE_ADDR_VLAN_ID);
	e->gid[i] = g.valid ? g : (struct cx_eth_gid){ 0 };
	return CX_OK;
}

static void put_address(const struct cx_eth_gid *g, uint8_t *a)
{
	if (!g->valid)
		return;
	memcpy(a + B_ROCE_ADDR_GID, g->gid, sizeof(g->gid));
	memcpy(a + B_ROCE_ADDR_MAC, g->mac, sizeof(g->mac));
	cx_set(a, F_ROCE_ADDR_VLAN_VALID, g->vlan);
	cx_set(a, F_ROCE_ADDR_VLAN_ID, g->vlan_id);
	cx_set(a, F_ROCE_ADDR_L3_TYPE, g->l3_type);
	cx_set(a, F_ROCE_ADDR_VERSION, g->version);
}

unsigned int cx_eth_roce_gids(const struct cx_eth *e)
{
	unsigned int i, n = 0;

	for (i = 0; i < CX_ETH_ROCE_GIDS; i++)
		n += e->gid[i].valid;
	return n;
}

int cx_eth_roce_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	bool set = opcode == CX_OP_SET_ROCE_ADDRESS;
	uint32_t i;
	int st;

	st = cx_cmd_need(cx, c, set ? SET_IN_BYTES : QUERY_IN_BYTES,
			 set ? 16 : QUERY_OUT_BYTES, CX_HCA_INITIALIZED);
	if (st)
		return st;
	i = cx_get(c->in, F_ROCE_ADDRESS_IN_INDEX);
	if (i >= CX_ETH_ROCE_GIDS ||
	    cx_get(c->in, F_ROCE_ADDRESS_IN_VHCA_PORT) > 1)
		return CX_BAD_PARAM;
	if (set)
		return set_address(cx->eth, c->in + B_SET_ROCE_ADDRESS_IN_ADDR,
				   i);
	put_address(&cx->eth->gid[i], c->out + B_QUERY_ROCE_ADDRESS_OUT_ADDR);
	return CX_OK;
}
