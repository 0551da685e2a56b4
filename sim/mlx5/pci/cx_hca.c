// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The function's lifecycle and resources that are not queues: ENABLE_HCA,
 * ISSI, pages, INIT_HCA/TEARDOWN_HCA, UARs, the one access register
 * mlx5_core writes before INIT_HCA, QUERY_ADAPTER.  In the order of
 * Linux's mlx5_function_setup() (drivers/net/ethernet/mellanox/mlx5/core/
 * main.c).
 */
#include <string.h>

#include "cx_ifc.h"
#include "cx_engine.h"
#include "cx_int.h"

enum {
	ISSI_SUPPORTED = 1 << 1 | 1 << 0, /* ISSI 0 and 1 */
	REG_HOST_ENDIANNESS = 0x7004,	  /* MLX5_REG_HOST_ENDIANNESS */
	REG_HOST_ENDIANNESS_SIZE = 16,
	REG_PCAP = 0x5001, /* MLX5_REG_PCAP: the port's IB capability mask */
	REG_PCAP_SIZE = 20,
	REG_PCAP_CAPS = 4, /* struct mlx5_reg_pcap caps_127_96 */
	QUERY_PAGES_BOOT = 1,
	QUERY_PAGES_INIT = 2,
	QUERY_PAGES_REGULAR = 3,
	TEARDOWN_GRACEFUL = 0,
};

/* Smallest input and output the driver's layout of each command has. */
static const struct {
	uint16_t op, in, out;
	enum cx_hca_state need; /* lowest state it runs in */
} cmds[] = {
	{ CX_OP_ENABLE_HCA, 16, 12, CX_HCA_DISABLED },
	{ CX_OP_DISABLE_HCA, 16, 12, CX_HCA_ENABLED },
	{ CX_OP_QUERY_ISSI, 16, 112, CX_HCA_ENABLED },
	{ CX_OP_SET_ISSI, 16, 16, CX_HCA_ENABLED },
	{ CX_OP_QUERY_PAGES, 16, 16, CX_HCA_ENABLED },
	{ CX_OP_MANAGE_PAGES, 16, 16, CX_HCA_ENABLED },
	{ CX_OP_INIT_HCA, 16, 16, CX_HCA_ENABLED },
	{ CX_OP_TEARDOWN_HCA, 16, 16, CX_HCA_INITIALIZED },
	{ CX_OP_ACCESS_REG, 16 + REG_HOST_ENDIANNESS_SIZE, 16, CX_HCA_ENABLED },
	{ CX_OP_ALLOC_UAR, 16, 16, CX_HCA_INITIALIZED },
	{ CX_OP_DEALLOC_UAR, 16, 16, CX_HCA_INITIALIZED },
	{ CX_OP_QUERY_ADAPTER, 16, 272, CX_HCA_INITIALIZED },
};

void cx_hca_reset(struct cx *cx)
{
	cx->state = CX_HCA_DISABLED;
	cx->issi = 0;
	cx->port_caps = 0;
	memset(cx->uar_used, 0, sizeof(cx->uar_used));
	memset(cx->obj_used, 0, sizeof(cx->obj_used));
	cx_mkey_reset(cx);
	cx_cq_reset(cx);
	cx_srq_reset(cx);
	cx_qp_reset(cx);
	cx_sq_reset(cx);
	cx_eng_reset(cx);
	cx_eth_reset(cx);
	cx_caps_init(cx);
}

static int alloc_uar(struct cx *cx, struct cx_cmd *c)
{
	unsigned int i;

	for (i = CX_FIRST_UAR; i < CX_MAX_UAR; i++) {
		if (!cx->uar_used[i]) {
			cx->uar_used[i] = 1;
			cx_bf_uar_fresh(cx, i);
			cx_set(c->out, F_ALLOC_UAR_OUT_UAR, i);
			return CX_OK;
		}
	}
	return CX_NO_RES;
}

static int dealloc_uar(struct cx *cx, struct cx_cmd *c)
{
	uint32_t i = cx_get(c->in, F_DEALLOC_UAR_IN_UAR);

	if (i < CX_FIRST_UAR || i >= CX_MAX_UAR || !cx->uar_used[i])
		return CX_BAD_RES;
	cx->uar_used[i] = 0;
	return CX_OK;
}

/*
 * Two registers: the host endianness (written once by set_hca_ctrl()):
 * accepted, the device's structures are big-endian whatever the host says;
 * the port capability mask (PCAP, mlx5_set_port_caps(), when mlx5_ib's
 * modify_port sets or clears IsSM, IsCM, ...), which PortInfo reports.
 * An Ethernet port has more (cx_eth_reg()).
 */
static int access_reg(struct cx *cx, struct cx_cmd *c)
{
	uint32_t reg = cx_get(c->in, F_ACCESS_REGISTER_IN_REGISTER_ID);
	uint32_t size = REG_HOST_ENDIANNESS_SIZE;
	const uint8_t *data = c->in + B_ACCESS_REGISTER_DATA;
	int st = cx_eth_reg(cx, reg, c);

	if (st >= 0)
		return st;
	if (reg == REG_PCAP) {
		size = REG_PCAP_SIZE;
		if (c->inlen < B_ACCESS_REGISTER_DATA + size)
			return CX_BAD_INP_LEN;
		if (cx_get(c->in, F_IN_OP_MOD) == 0) /* write */
			cx->port_caps = cx_get(data, REG_PCAP_CAPS * 8, 32);
	} else if (reg != REG_HOST_ENDIANNESS) {
		cx_trace(cx, "access_reg 0x%x: not offered", reg);
		return CX_BAD_PARAM;
	}
	if (c->outlen >= B_ACCESS_REGISTER_DATA + size)
		memcpy(c->out + B_ACCESS_REGISTER_DATA, data, size);
	if (reg == REG_PCAP && c->outlen >= B_ACCESS_REGISTER_DATA + size)
		cx_set(c->out + B_ACCESS_REGISTER_DATA, REG_PCAP_CAPS * 8, 32,
		       cx->port_caps);
	return CX_OK;
}

int cx_hca_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	unsigned int i;
	int st;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].op == opcode)
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0]))
		return CX_BAD_OP;
	st = cx_cmd_need(cx, c, cmds[i].in, cmds[i].out, cmds[i].need);
	if (st)
		return st;

	switch (opcode) {
	case CX_OP_ENABLE_HCA:
		if (cx_get(c->in, F_ENABLE_HCA_IN_FUNCTION_ID))
			return CX_BAD_PARAM; /* no VFs */
		if (cx->state == CX_HCA_DISABLED)
			cx->state = CX_HCA_ENABLED;
		return CX_OK;
	case CX_OP_DISABLE_HCA:
		cx_eq_reset(cx);
		cx_hca_reset(cx);
		return CX_OK;
	case CX_OP_QUERY_ISSI:
		cx_set(c->out, F_QUERY_ISSI_OUT_CURRENT_ISSI, cx->issi);
		cx_set(c->out, F_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0,
		       ISSI_SUPPORTED);
		return CX_OK;
	case CX_OP_SET_ISSI:
		if (cx_get(c->in, F_SET_ISSI_IN_CURRENT_ISSI) > 1)
			return CX_BAD_PARAM;
		cx->issi = cx_get(c->in, F_SET_ISSI_IN_CURRENT_ISSI);
		return CX_OK;
	case CX_OP_QUERY_PAGES:
		/* A software device keeps its state in its own memory. */
		if (cx_get(c->in, F_IN_OP_MOD) < QUERY_PAGES_BOOT ||
		    cx_get(c->in, F_IN_OP_MOD) > QUERY_PAGES_REGULAR)
			return CX_BAD_PARAM;
		cx_set(c->out, F_QUERY_PAGES_OUT_NUM_PAGES, 0);
		return CX_OK;
	case CX_OP_MANAGE_PAGES:
		/* It never asked for pages, so it takes and returns none. */
		if (cx_get(c->in, F_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES))
			return CX_BAD_PARAM;
		cx_set(c->out, F_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES, 0);
		return CX_OK;
	case CX_OP_INIT_HCA:
		if (cx->state != CX_HCA_ENABLED)
			return CX_BAD_SYS_STATE;
		cx->state = CX_HCA_INITIALIZED;
		return CX_OK;
	case CX_OP_TEARDOWN_HCA:
		if (cx_get(c->in, F_TEARDOWN_HCA_IN_PROFILE) !=
		    TEARDOWN_GRACEFUL)
			return CX_BAD_PARAM; /* no force/fast teardown cap */
		cx_eq_reset(cx);
		memset(cx->uar_used, 0, sizeof(cx->uar_used));
		memset(cx->obj_used, 0, sizeof(cx->obj_used));
		cx_mkey_reset(cx);
		cx_cq_reset(cx);
		cx_srq_reset(cx);
		cx_qp_reset(cx);
		cx_sq_reset(cx);
		cx_eng_reset(cx);
		cx_eth_reset(cx);
		cx->state = CX_HCA_ENABLED;
		return CX_OK;
	case CX_OP_ACCESS_REG:
		return access_reg(cx, c);
	case CX_OP_ALLOC_UAR:
		return alloc_uar(cx, c);
	case CX_OP_DEALLOC_UAR:
		return dealloc_uar(cx, c);
	case CX_OP_QUERY_ADAPTER:
		/* All zero: no VSD, no PSID (the board id prints empty). */
		return CX_OK;
	}
	return CX_BAD_OP;
}
