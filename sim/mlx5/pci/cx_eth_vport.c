// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The Ethernet port as mlx5_core's vport.c and port.c see it:
 *  - QUERY_NIC_VPORT_CONTEXT / MODIFY_NIC_VPORT_CONTEXT of the function's
 *    own vport: the permanent MAC (mlx5_query_nic_vport_mac_address), the
 *    MTU (0 until mlx5e sets it; mlx5e_query_mtu then reads PMTU), the
 *    GUIDs mlx5_ib reads on an Ethernet port, the promiscuous bits and
 *    the UC/MC/VLAN allowed lists of mlx5e's set_rx_mode.  No roce_en
 *    (roce is 0), no min_inline (wqe_inline_mode NOT_REQUIRED), no change
 *    events (nic_vport_change_event 0), no local loopback bits;
 *  - QUERY_VPORT_STATE of the NIC vport: up while PAOS says up;
 *  - QUERY_VPORT_COUNTER and the PPCNT groups mlx5e's statistics read
 *    (IEEE 802.3, RFC 2863, RFC 2819, per priority, physical layer): all
 *    zero, as no frame has moved yet (the data path will count);
 *  - QUERY_HCA_VPORT_PKEY: mlx5_ib reads the P_Key table through it on
 *    a port without MADs: pkey_table_size 0 is 128 entries, the default
 *    P_Key 0xffff at index 0 and no other (as MAD_IFC's table, cx_mad.c);
 *  - the registers (ACCESS_REG): PMTU (the largest frame and the one
 *    set), PTYS (one Ethernet speed, 40GBASE-CR4, read only), PAOS (the
 *    port's admin status; the link follows it: there is no cable to
 *    lose), NODE_DESC (what mlx5_ib reads on a port with no MADs).
 *    A PAOS write that changes the status raises the port change event
 *    (PORT_CHANGE, subtype ACTIVE or DOWN) a ConnectX raises when its
 *    link goes up or down: mlx5e turns the carrier on from it, as
 *    mlx5e_open sets PAOS up after it has read the vport state.
 */
#include <string.h>

#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"

enum {
	/* modify_nic_vport_field_select: a bit's mask in its dword */
	SEL_ROCE_EN = 1 << 1,
	SEL_MTU = 1 << 6,
	SEL_PROMISC = 1 << 4,
	SEL_ADDRESSES_LIST = 1 << 2,
	STATE_DOWN = 0x0, /* VPORT_STATE_DOWN, _UP */
	STATE_UP = 0x1,
	OP_MOD_VNIC_VPORT = 0x0, /* MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT */
	PORT_UP = 1,		 /* MLX5_PORT_UP, _DOWN (PAOS status) */
	PORT_DOWN = 2,
	EVENT_PORT_CHANGE = 0x09, /* MLX5_EVENT_TYPE_PORT_CHANGE */
	PORT_CHANGE_DOWN = 1,	  /* MLX5_PORT_CHANGE_SUBTYPE_DOWN, _ACTIVE */
	PORT_CHANGE_ACTIVE = 4,
	EQE_PORT = 8,  /* mlx5_eqe_port_state.port: the port in bits 7:4 */
	REG_WRITE = 0, /* ACCESS_REG op_mod */
	REG_PMTU = 0x5003,
	REG_PTYS = 0x5004,
	REG_PAOS = 0x5006,
	REG_PPCNT = 0x5008,
	REG_NODE_DESC = 0x6001,
	PTYS_EN = 1 << 2,    /* MLX5_PTYS_EN */
	ETH_40GBASE_CR4 = 6, /* MLX5E_40GBASE_CR4 */
	MTU_OVERHEAD = 22,   /* ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN */
	MIN_MTU = 68 + MTU_OVERHEAD,
	PKEY_TABLE = 128,  /* mlx5_to_sw_pkey_sz(pkey_table_size 0) */
	PKEY_ALL = 0xffff, /* pkey_index: the whole table */
	PKEY_DEFAULT = 0xffff,
	PKEY_BYTES = 4,
};

static const uint8_t log_max_list[CX_ETH_LISTS] = { CX_ETH_LOG_MAX_UC_LIST,
						    CX_ETH_LOG_MAX_MC_LIST,
						    CX_ETH_LOG_MAX_VLAN_LIST };

void cx_eth_vport_reset(struct cx_eth *e)
{
	e->admin_mtu = CX_ETH_MAX_MTU;
	e->admin_status = PORT_UP;
}

/* PAOS admin status V: the link follows, and says so if it changed. */
static void set_admin_status(struct cx *cx, uint8_t v)
{
	uint8_t data[EQE_PORT + 1] = { 0 };

	if (cx->eth->admin_status == v)
		return;
	cx->eth->admin_status = v;
	data[EQE_PORT] = 1 << 4;
	cx_eq_post(cx, EVENT_PORT_CHANGE,
		   v == PORT_UP ? PORT_CHANGE_ACTIVE : PORT_CHANGE_DOWN, data,
		   sizeof(data));
}

/*
 * The node GUID of the function, from its MAC as the default one's
 * (CX_NODE_GUID: OUI, 0x0300, the MAC's low three bytes): two functions
 * in one host differ, as two adapters do; the CM keys its connections
 * on it.  The port GUID is the next.
 */
static uint64_t node_guid(const struct cx_eth *e)
{
	return (uint64_t)e->mac[0] << 56 | (uint64_t)e->mac[1] << 48 |
	       (uint64_t)e->mac[2] << 40 | 0x0300ull << 24 |
	       (uint64_t)e->mac[3] << 16 | (uint64_t)e->mac[4] << 8 | e->mac[5];
}

static int query_context(struct cx_eth *e, struct cx_cmd *c)
{
	uint8_t *v = c->out + B_QUERY_NIC_VPORT_OUT_CONTEXT;
	uint32_t t = cx_get(c->in, F_QUERY_NIC_VPORT_IN_ALLOWED_LIST_TYPE);
	uint32_t need, fit;

	if (t >= CX_ETH_LISTS)
		return CX_BAD_PARAM;
	need = B_QUERY_NIC_VPORT_OUT_CONTEXT + NIC_VPORT_CONTEXT_BYTES;
	if (c->outlen < need)
		return CX_BAD_OUTP_LEN;
	/*
	 * The list as far as the output holds it: mlx5_ib and mlx5_core
	 * read the MAC and GUIDs with an output of the context alone while
	 * mlx5e's UC list holds the netdev's address.
	 */
	fit = (c->outlen - need) / LIST_ENTRY_BYTES;
	if (fit > e->list_size[t])
		fit = e->list_size[t];
	cx_set(v, F_NVC_ROCE_EN, e->roce_en);
	cx_set(v, F_NVC_MTU, e->vport_mtu);
	cx_set64(v, B_NVC_SYSTEM_IMAGE_GUID, node_guid(e));
	cx_set64(v, B_NVC_PORT_GUID, node_guid(e) + 1);
	cx_set64(v, B_NVC_NODE_GUID, node_guid(e));
	cx_set(v, F_NVC_PROMISC_UC, e->promisc_uc);
	cx_set(v, F_NVC_PROMISC_MC, e->promisc_mc);
	cx_set(v, F_NVC_PROMISC_ALL, e->promisc_all);
	cx_set(v, F_NVC_ALLOWED_LIST_TYPE, t);
	cx_set(v, F_NVC_ALLOWED_LIST_SIZE, e->list_size[t]);
	memcpy(v + B_NVC_PERMANENT_ADDRESS, e->mac, sizeof(e->mac));
	memcpy(v + NIC_VPORT_CONTEXT_BYTES, e->list[t], fit * LIST_ENTRY_BYTES);
	return CX_OK;
}

/* Only the fields mlx5e changes; the others are not the driver's. */
static int modify_context(struct cx_eth *e, const struct cx_cmd *c)
{
	const uint8_t *v = c->in + B_MODIFY_NIC_VPORT_IN_CONTEXT;
	uint32_t sel = cx_get(c->in, F_MODIFY_NIC_VPORT_IN_FIELD_SELECT);
	uint32_t mtu = cx_get(v, F_NVC_MTU);
	uint32_t t = cx_get(v, F_NVC_ALLOWED_LIST_TYPE);
	uint32_t n = cx_get(v, F_NVC_ALLOWED_LIST_SIZE);

	if (c->inlen < B_MODIFY_NIC_VPORT_IN_CONTEXT + NIC_VPORT_CONTEXT_BYTES)
		return CX_BAD_INP_LEN;
	if (!sel ||
	    sel & ~(SEL_ROCE_EN | SEL_MTU | SEL_PROMISC | SEL_ADDRESSES_LIST))
		return CX_BAD_PARAM;
	if (sel & SEL_MTU && (mtu < MIN_MTU || mtu > CX_ETH_MAX_MTU))
		return CX_BAD_PARAM;
	if (sel & SEL_ADDRESSES_LIST) {
		if (t >= CX_ETH_LISTS || n > 1u << log_max_list[t])
			return CX_BAD_PARAM;
		if (c->inlen < B_MODIFY_NIC_VPORT_IN_CONTEXT +
				       NIC_VPORT_CONTEXT_BYTES +
				       n * LIST_ENTRY_BYTES)
			return CX_BAD_INP_LEN;
	}
	if (sel & SEL_ROCE_EN)
		e->roce_en = cx_get(v, F_NVC_ROCE_EN);
	if (sel & SEL_MTU)
		e->vport_mtu = mtu;
	if (sel & SEL_PROMISC) {
		e->promisc_uc = cx_get(v, F_NVC_PROMISC_UC);
		e->promisc_mc = cx_get(v, F_NVC_PROMISC_MC);
		e->promisc_all = cx_get(v, F_NVC_PROMISC_ALL);
	}
	if (sel & SEL_ADDRESSES_LIST) {
		e->list_size[t] = n;
		memcpy(e->list[t], v + NIC_VPORT_CONTEXT_BYTES,
		       n * LIST_ENTRY_BYTES);
	}
	return CX_OK;
}

static int query_pkey(const struct cx_cmd *c)
{
	uint32_t i = cx_get(c->in, F_QUERY_HCA_VPORT_PKEY_IN_PKEY_INDEX);
	uint32_t n = i == PKEY_ALL ? PKEY_TABLE : 1;

	if (cx_get(c->in, F_QUERY_HCA_VPORT_PKEY_IN_PORT_NUM) > 1 ||
	    (i != PKEY_ALL && i >= PKEY_TABLE))
		return CX_BAD_PARAM;
	if (c->outlen < B_QUERY_HCA_VPORT_PKEY_OUT_PKEY + n * PKEY_BYTES)
		return CX_BAD_OUTP_LEN;
	if (i == 0 || i == PKEY_ALL)
		cx_set(c->out + B_QUERY_HCA_VPORT_PKEY_OUT_PKEY, 0x10, 0x10,
		       PKEY_DEFAULT);
	return CX_OK;
}

int cx_eth_vport_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	int st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);

	if (st)
		return st;
	if (cx_get(c->in, F_VPORT_IN_OTHER_VPORT) ||
	    cx_get(c->in, F_VPORT_IN_VPORT_NUMBER))
		return CX_BAD_PARAM; /* no eswitch: the own vport only */
	switch (opcode) {
	case CX_OP_QUERY_VPORT_STATE:
		if (cx_get(c->in, F_IN_OP_MOD) != OP_MOD_VNIC_VPORT)
			return CX_BAD_PARAM;
		cx_set(c->out, F_QUERY_VPORT_STATE_OUT_STATE,
		       cx->eth->admin_status == PORT_UP ? STATE_UP
							: STATE_DOWN);
		return CX_OK;
	case CX_OP_QUERY_HCA_VPORT_PKEY:
		return query_pkey(c);
	case CX_OP_QUERY_VPORT_COUNTER:
		if (c->outlen < QUERY_VPORT_COUNTER_OUT_BYTES)
			return CX_BAD_OUTP_LEN;
		return CX_OK; /* every counter 0: nothing has moved */
	case CX_OP_QUERY_NIC_VPORT_CONTEXT:
		return query_context(cx->eth, c);
	case CX_OP_MODIFY_NIC_VPORT_CONTEXT:
		return modify_context(cx->eth, c);
	}
	return CX_BAD_OP;
}

/* Register REG's size, 0 for one the Ethernet port does not have. */
static uint32_t reg_size(uint32_t reg)
{
	switch (reg) {
	case REG_PMTU:
	case REG_PAOS:
		return 16;
	case REG_PTYS:
	case REG_NODE_DESC:
		return 64;
	case REG_PPCNT:
		return PPCNT_BYTES;
	}
	return 0;
}

int cx_eth_reg(struct cx *cx, uint32_t reg, const struct cx_cmd *c)
{
	struct cx_eth *e = cx->eth;
	const uint8_t *in = c->in + B_ACCESS_REGISTER_DATA;
	uint8_t *out = c->out + B_ACCESS_REGISTER_DATA;
	bool write = cx_get(c->in, F_IN_OP_MOD) == REG_WRITE;
	uint32_t size = reg_size(reg), v;

	if (!e || !size)
		return -1;
	if (c->inlen < B_ACCESS_REGISTER_DATA + size)
		return CX_BAD_INP_LEN;
	if (c->outlen < B_ACCESS_REGISTER_DATA + size)
		return CX_BAD_OUTP_LEN;
	if (reg != REG_NODE_DESC && cx_get(in, F_REG_LOCAL_PORT) != 1)
		return CX_BAD_PARAM;
	memcpy(out, in, size);
	switch (reg) {
	case REG_PMTU:
		v = cx_get(in, F_PMTU_ADMIN_MTU);
		if (write && (v < MIN_MTU || v > CX_ETH_MAX_MTU))
			return CX_BAD_PARAM;
		if (write)
			e->admin_mtu = v;
		cx_set(out, F_PMTU_MAX_MTU, CX_ETH_MAX_MTU);
		cx_set(out, F_PMTU_ADMIN_MTU, e->admin_mtu);
		cx_set(out, F_PMTU_OPER_MTU, e->admin_mtu);
		return CX_OK;
	case REG_PTYS:
		if (write || !(cx_get(in, F_PTYS_PROTO_MASK) & PTYS_EN))
			return CX_BAD_PARAM;
		cx_set(out, F_PTYS_ETH_PROTO_CAPABILITY, 1u << ETH_40GBASE_CR4);
		cx_set(out, F_PTYS_ETH_PROTO_ADMIN, 1u << ETH_40GBASE_CR4);
		cx_set(out, F_PTYS_ETH_PROTO_OPER, 1u << ETH_40GBASE_CR4);
		return CX_OK;
	case REG_PAOS:
		v = cx_get(in, F_PAOS_ADMIN_STATUS);
		if (write && cx_get(in, F_PAOS_ASE)) {
			if (v != PORT_UP && v != PORT_DOWN)
				return CX_BAD_PARAM;
			set_admin_status(cx, (uint8_t)v);
		}
		cx_set(out, F_PAOS_ADMIN_STATUS, e->admin_status);
		cx_set(out, F_PAOS_OPER_STATUS, e->admin_status);
		return CX_OK;
	case REG_PPCNT:
		/* MLX5_IEEE_802_3_, RFC_2863_, RFC_2819_, PER_PRIORITY_,
		 * PHYSICAL_LAYER_COUNTERS_GROUP: their counters, all 0 */
		v = cx_get(in, F_PPCNT_GRP);
		if (write || (v > 2 && v != 0x10 && v != 0x12))
			return CX_BAD_PARAM;
		memset(out, 0, size);
		memcpy(out, in, 8); /* the request's port and group */
		return CX_OK;
	case REG_NODE_DESC:
		if (write)
			return CX_BAD_PARAM;
		memset(out, 0, size);
		memcpy(out, CX_NODE_DESC, sizeof(CX_NODE_DESC));
		return CX_OK;
	}
	return -1;
}
