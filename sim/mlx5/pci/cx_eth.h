/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The Ethernet port (cx-server --eth): what the function holds for
 * Linux's mlx5e on top of the InfiniBand function's objects.  Its files:
 *	cx_eth_caps.c	the general caps an Ethernet port changes, and the
 *			ETHERNET_OFFLOADS and FLOW_TABLE capability pages
 *	cx_eth_fs.c	NIC receive flow tables, groups and entries
 *	cx_eth.c	command dispatch, state, reset
 * With the InfiniBand port (the default) cx->eth is NULL and every
 * command of these files answers BAD_OP, as before they existed.
 * Bookkeeping only: no frame moves yet (issue #32, step 1).
 */
#ifndef DOORBELL_TESTS_CX_ETH_H
#define DOORBELL_TESTS_CX_ETH_H

#include <stdbool.h>
#include <stdint.h>

#include "cx_int.h"

/* Opcodes (mlx5_ifc.h MLX5_CMD_OP_*). */
enum {
	CX_OP_SET_FLOW_TABLE_ROOT = 0x92f,
	CX_OP_CREATE_FLOW_TABLE = 0x930,
	CX_OP_DESTROY_FLOW_TABLE = 0x931,
	CX_OP_CREATE_FLOW_GROUP = 0x933,
	CX_OP_DESTROY_FLOW_GROUP = 0x934,
	CX_OP_SET_FLOW_TABLE_ENTRY = 0x936,
	CX_OP_DELETE_FLOW_TABLE_ENTRY = 0x938,
	CX_OP_MODIFY_FLOW_TABLE = 0x93c,
};

/*
 * The flow-table limits cx_eth_caps.c advertises (flow_table_prop_layout
 * of flow_table_properties_nic_receive) and cx_eth_fs.c enforces.
 * max_ft_level must reach fs_core.c's ANCHOR_MIN_LEVEL, or mlx5_core has
 * no anchor namespace and fails to load.
 */
enum {
	CX_ETH_MAX_FT_LEVEL = 64,
	CX_ETH_LOG_MAX_FT_SIZE = 16,
	CX_ETH_LOG_MAX_FT_NUM = 6,
	CX_ETH_MAX_FT = 1 << CX_ETH_LOG_MAX_FT_NUM,
	CX_ETH_MAX_FG = 256,
	CX_ETH_MAX_FTE = 4096,
	CX_ETH_LOG_MAX_DEST = 4,
};

struct cx_eth_ft {
	bool valid;
	uint8_t level, log_size, miss_action;
	uint32_t miss_id;
};

struct cx_eth_fg {
	bool valid;
	uint8_t criteria_enable;
	uint32_t ft, start, end; /* table id, first and last index */
};

struct cx_eth_fte {
	bool valid;
	uint16_t action;
	uint32_t ft, index, group;
};

struct cx_eth {
	struct cx_eth_ft ft[CX_ETH_MAX_FT]; /* table id N at ft[N - 1] */
	uint32_t root_ft;		    /* SET_FLOW_TABLE_ROOT's; 0: none */
	struct cx_eth_fg fg[CX_ETH_MAX_FG]; /* group id N at fg[N - 1] */
	struct cx_eth_fte fte[CX_ETH_MAX_FTE];
};

/* cx_eth_caps.c: the *N fields of capability type TYPE an Ethernet port
 * sets over the InfiniBand function's (cx_caps.c); *N 0: none. */
const struct cx_cap *cx_eth_caps(uint32_t type, unsigned int *n);

int cx_eth_fs_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
/* Whether ID is a NIC receive flow table (for a forward to it). */
bool cx_eth_ft_valid(const struct cx_eth *e, uint32_t id);

#endif
