// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The Ethernet port as mlx5_core's vport.c and port.c read and set it:
 * the NIC vport context (MAC, MTU, promiscuous bits, allowed lists), the
 * vport state, the P_Key table, and the registers PMTU, PAOS, PTYS and
 * NODE_DESC through ACCESS_REG.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_test.h"

static uint8_t in[0x400], out[0x400];

/* Command OP of INLEN bytes of in[] (opcode added), OUTLEN out: status. */
static int run(struct cx *cx, uint16_t op, uint32_t inlen, uint32_t outlen)
{
	cx_set(in, F_IN_OPCODE, op);
	if (cmd(cx, in, inlen, out, outlen))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

/* ACCESS_REG of REG (op_mod 1: read, 0: write) with in's data as set. */
static int reg(struct cx *cx, uint16_t id, uint16_t op_mod, uint32_t size)
{
	cx_set(in, F_IN_OP_MOD, op_mod);
	cx_set(in, F_ACCESS_REGISTER_IN_REGISTER_ID, id);
	return run(cx, CX_OP_ACCESS_REG, B_ACCESS_REGISTER_DATA + size,
		   B_ACCESS_REGISTER_DATA + size);
}

static uint32_t got(unsigned int off, unsigned int width)
{
	return cx_get(out + B_ACCESS_REGISTER_DATA, off, width);
}

static int modify(struct cx *cx, uint32_t select, uint32_t n)
{
	return run(cx, CX_OP_MODIFY_NIC_VPORT_CONTEXT,
		   B_MODIFY_NIC_VPORT_IN_CONTEXT + NIC_VPORT_CONTEXT_BYTES +
			   n * LIST_ENTRY_BYTES,
		   16);
}

static void nic_vport_context_gives_the_mac_and_keeps_mtu_and_lists(void)
{
	static const uint8_t mac[6] = CX_ETH_MAC;
	struct cx *cx = dev_up_eth();
	uint8_t *v = in + B_MODIFY_NIC_VPORT_IN_CONTEXT;
	uint8_t *q = out + B_QUERY_NIC_VPORT_OUT_CONTEXT;

	memset(in, 0, sizeof(in));
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x110), CX_OK);
	CHECK(!memcmp(q + B_NVC_PERMANENT_ADDRESS, mac, 6));
	CHECK_EQ(cx_get(q, F_NVC_MTU), 0u); /* mlx5e falls back to PMTU */
	CHECK_EQ(cx_get64(q, B_NVC_NODE_GUID), CX_NODE_GUID);
	cx_set(in, F_VPORT_IN_OTHER_VPORT, 1); /* no eswitch */
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x110),
		 CX_BAD_PARAM);

	memset(in, 0, sizeof(in));
	cx_set(in, F_MODIFY_NIC_VPORT_IN_FIELD_SELECT, 1 << 6); /* mtu */
	cx_set(v, F_NVC_MTU, CX_ETH_MAX_MTU + 1);
	CHECK_EQ(modify(cx, 1 << 6, 0), CX_BAD_PARAM);
	cx_set(v, F_NVC_MTU, 1522);
	CHECK_EQ(modify(cx, 1 << 6, 0), CX_OK);
	/* roce_en, as mlx5_nic_vport_update_roce_state sets it */
	cx_set(in, F_MODIFY_NIC_VPORT_IN_FIELD_SELECT, 1 << 1);
	cx_set(v, F_NVC_ROCE_EN, 1);
	CHECK_EQ(modify(cx, 1 << 1, 0), CX_OK);
	CHECK_EQ(cx->eth->roce_en, true);
	CHECK_EQ(cx->eth->vport_mtu, 1522); /* only the field selected */
	cx_set(v, F_NVC_ROCE_EN, 0);
	cx_set(in, F_MODIFY_NIC_VPORT_IN_FIELD_SELECT, 1 << 0); /* not ours */
	CHECK_EQ(modify(cx, 1 << 0, 0), CX_BAD_PARAM);
	CHECK_EQ(cx->eth->roce_en, true);
	/* the multicast list of set_rx_mode: two addresses */
	cx_set(in, F_MODIFY_NIC_VPORT_IN_FIELD_SELECT, 1 << 2);
	cx_set(v, F_NVC_ALLOWED_LIST_TYPE, 1);
	cx_set(v, F_NVC_ALLOWED_LIST_SIZE, 2);
	v[NIC_VPORT_CONTEXT_BYTES + 2] = 0x01;
	v[NIC_VPORT_CONTEXT_BYTES + LIST_ENTRY_BYTES + 2] = 0x33;
	CHECK_EQ(modify(cx, 1 << 2, 2), CX_OK);
	cx_set(v, F_NVC_ALLOWED_LIST_TYPE, 0); /* unicast: room for 16 */
	cx_set(v, F_NVC_ALLOWED_LIST_SIZE, 17);
	CHECK_EQ(modify(cx, 1 << 2, 17), CX_BAD_PARAM);

	memset(in, 0, sizeof(in));
	cx_set(in, F_QUERY_NIC_VPORT_IN_ALLOWED_LIST_TYPE, 1);
	/* The context alone (mlx5_ib's query of the GUIDs): as much of
	 * the list as the output holds, here one address, then all. */
	memset(out, 0, sizeof(out));
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x110), CX_OK);
	CHECK_EQ(cx_get64(q, B_NVC_NODE_GUID), CX_NODE_GUID);
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x118), CX_OK);
	CHECK_EQ(q[NIC_VPORT_CONTEXT_BYTES + 2], 0x01);
	CHECK_EQ(q[NIC_VPORT_CONTEXT_BYTES + LIST_ENTRY_BYTES + 2], 0);
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x10f),
		 CX_BAD_OUTP_LEN); /* not even the context */
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x120), CX_OK);
	CHECK_EQ(cx_get(q, F_NVC_MTU), 1522u);
	CHECK_EQ(cx_get(q, F_NVC_ALLOWED_LIST_SIZE), 2u);
	CHECK_EQ(q[NIC_VPORT_CONTEXT_BYTES + LIST_ENTRY_BYTES + 2], 0x33);
	cx_destroy(cx);
}

/* Two functions in one host (cx-server --mac): GUIDs of their own. */
static void a_function_of_another_mac_has_guids_of_its_own(void)
{
	struct cx *cx = dev_up_eth();
	uint8_t *q = out + B_QUERY_NIC_VPORT_OUT_CONTEXT;

	cx->eth->mac[5] = 0x79; /* 00:02:c9:00:63:79, the pair's second */
	memset(in, 0, sizeof(in));
	CHECK_EQ(run(cx, CX_OP_QUERY_NIC_VPORT_CONTEXT, 16, 0x110), CX_OK);
	CHECK_EQ(cx_get64(q, B_NVC_NODE_GUID), 0x0002c90300006379ull);
	CHECK_EQ(cx_get64(q, B_NVC_SYSTEM_IMAGE_GUID), 0x0002c90300006379ull);
	CHECK_EQ(cx_get64(q, B_NVC_PORT_GUID), 0x0002c9030000637aull);
	cx_destroy(cx);
}

static void port_registers_and_vport_state_follow_the_admin_status(void)
{
	struct cx *cx = dev_up_eth(), *ib = dev_up();

	memset(in, 0, sizeof(in));
	cx_set(in + B_ACCESS_REGISTER_DATA, F_REG_LOCAL_PORT, 1);
	CHECK_EQ(reg(cx, 0x5003, 1, 16), CX_OK); /* PMTU */
	CHECK_EQ(got(F_PMTU_MAX_MTU), (uint32_t)CX_ETH_MAX_MTU);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PMTU_ADMIN_MTU, 1522);
	CHECK_EQ(reg(cx, 0x5003, 0, 16), CX_OK);
	CHECK_EQ(got(F_PMTU_OPER_MTU), 1522u);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PTYS_PROTO_MASK, 1 << 2);
	CHECK_EQ(reg(cx, 0x5004, 1, 64), CX_OK); /* PTYS, Ethernet */
	CHECK(got(F_PTYS_ETH_PROTO_OPER) != 0);
	CHECK_EQ(reg(ib, 0x5004, 1, 64), CX_BAD_PARAM); /* not on IB */
	/* PAOS: down, and the vport state follows */
	memset(in, 0, sizeof(in));
	cx_set(in + B_ACCESS_REGISTER_DATA, F_REG_LOCAL_PORT, 1);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PAOS_ADMIN_STATUS, 2);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PAOS_ASE, 1);
	CHECK_EQ(reg(cx, 0x5006, 0, 16), CX_OK);
	CHECK_EQ(got(F_PAOS_OPER_STATUS), 2u);
	memset(in, 0, sizeof(in));
	CHECK_EQ(run(cx, CX_OP_QUERY_VPORT_STATE, 16, 16), CX_OK);
	CHECK_EQ(cx_get(out, F_QUERY_VPORT_STATE_OUT_STATE), 0u);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_REG_LOCAL_PORT, 1);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PAOS_ADMIN_STATUS, 1);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PAOS_ASE, 1);
	CHECK_EQ(reg(cx, 0x5006, 0, 16), CX_OK);
	memset(in, 0, sizeof(in));
	CHECK_EQ(run(cx, CX_OP_QUERY_VPORT_STATE, 16, 16), CX_OK);
	CHECK_EQ(cx_get(out, F_QUERY_VPORT_STATE_OUT_STATE), 1u);
	/* the counters mlx5e's statistics read: none counted yet */
	memset(in, 0, sizeof(in));
	cx_set(in + B_ACCESS_REGISTER_DATA, F_REG_LOCAL_PORT, 1);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PPCNT_GRP, 0x12); /* phy */
	CHECK_EQ(reg(cx, 0x5008, 1, PPCNT_BYTES), CX_OK);
	CHECK_EQ(got(0x40, 32), 0u);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PPCNT_GRP, 0x20); /* IB port */
	CHECK_EQ(reg(cx, 0x5008, 1, PPCNT_BYTES), CX_BAD_PARAM);
	memset(in, 0, sizeof(in));
	CHECK_EQ(run(cx, CX_OP_QUERY_VPORT_COUNTER, 32, 0x210), CX_OK);
	CHECK_EQ(run(cx, CX_OP_QUERY_VPORT_COUNTER, 32, 0x100),
		 CX_BAD_OUTP_LEN);
	/* NODE_DESC, and the P_Key table mlx5_ib reads without MADs */
	CHECK_EQ(reg(cx, 0x6001, 1, 64), CX_OK);
	CHECK(!strcmp((char *)out + B_ACCESS_REGISTER_DATA, CX_NODE_DESC));
	memset(in, 0, sizeof(in));
	CHECK_EQ(run(cx, CX_OP_QUERY_HCA_VPORT_PKEY, 16, 20), CX_OK);
	CHECK_EQ(cx_get(out + B_QUERY_HCA_VPORT_PKEY_OUT_PKEY, 0x10, 0x10),
		 0xffffu);
	cx_set(in, F_QUERY_HCA_VPORT_PKEY_IN_PKEY_INDEX, 128);
	CHECK_EQ(run(cx, CX_OP_QUERY_HCA_VPORT_PKEY, 16, 20), CX_BAD_PARAM);
	CHECK_EQ(run(ib, CX_OP_QUERY_HCA_VPORT_PKEY, 16, 20), CX_BAD_OP);
	cx_destroy(cx);
	cx_destroy(ib);
}

/* PAOS write of admin status V (MLX5_PORT_UP 1, _DOWN 2). */
static int paos(struct cx *cx, uint32_t v)
{
	memset(in, 0, sizeof(in));
	cx_set(in + B_ACCESS_REGISTER_DATA, F_REG_LOCAL_PORT, 1);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PAOS_ADMIN_STATUS, v);
	cx_set(in + B_ACCESS_REGISTER_DATA, F_PAOS_ASE, 1);
	return reg(cx, 0x5006, 0, 16);
}

/*
 * mlx5e_open reads the vport state, then sets PAOS up: the carrier comes
 * from the port change event (MLX5_EVENT_TYPE_PORT_CHANGE 0x9, subtype
 * ACTIVE 4 or DOWN 1, the port in the data's byte 8, bits 7:4) the
 * change raises.  A write that changes nothing raises none.
 */
static void paos_changes_raise_the_port_change_event(void)
{
	struct cx *cx = dev_up_eth();
	uint32_t uar;
	int eqn = make_eq_for(cx, 2, 1, &uar, EQ_PAGES, 0x09);
	const uint8_t *eqe = at(EQ_PAGES);

	CHECK(eqn >= 0);
	CHECK_EQ(paos(cx, 1), CX_OK); /* up already: nothing */
	CHECK_EQ(eqe[63], 1);	      /* still the device's */
	CHECK_EQ(paos(cx, 2), CX_OK);
	CHECK_EQ(eqe[63], 0);
	CHECK_EQ(eqe[1], 0x09);
	CHECK_EQ(eqe[3], 1);
	CHECK_EQ(eqe[0x20 + 8] >> 4, 1);
	CHECK_EQ(paos(cx, 2), CX_OK);
	CHECK_EQ(eqe[64 + 63], 1);
	CHECK_EQ(paos(cx, 1), CX_OK);
	CHECK_EQ(eqe[64 + 1], 0x09);
	CHECK_EQ(eqe[64 + 3], 4);
	cx_destroy(cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(paos_changes_raise_the_port_change_event),
	CHECK_TEST(nic_vport_context_gives_the_mac_and_keeps_mtu_and_lists),
	CHECK_TEST(a_function_of_another_mac_has_guids_of_its_own),
	CHECK_TEST(port_registers_and_vport_state_follow_the_admin_status),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_eth_vport_", tests);
}
