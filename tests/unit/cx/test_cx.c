// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX's command logic without QEMU: a buffer stands for
 * guest memory, and each test drives the device the way mlx5_core does
 * (drivers/net/ethernet/mellanox/mlx5/core/cmd.c): command entry, input
 * and output mailbox chains, the doorbell, the ownership bit, EQEs.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cx_ifc.h"
#include "cx_int.h"
#include "m5model.h"

#include "cx_test.h"

static void init_segment_says_cmdif_5_ready_and_queue_shape(void)
{
	struct cx *cx = dev_new();
	uint32_t t1, t2;

	CHECK_EQ(r32(cx, 0x04) >> 16, 5);
	CHECK_EQ(r32(cx, 0x1fc) >> 31, 0);
	/* log_sz 5 (32 entries), log_stride 6 (64 bytes), as mlx5_cmd_enable reads */
	CHECK_EQ(r32(cx, 0x14) & 0xff, 0x56);
	w32(cx, 0x14, 0x12345000);
	CHECK_EQ(r32(cx, 0x14), 0x12345056);
	/* internal_timer_l, where Linux's struct mlx5_init_seg has it */
	t1 = r32(cx, 0x1004);
	t2 = r32(cx, 0x1004);
	CHECK(t1 != t2); /* the internal timer runs */
	cx_destroy(cx);
}

static void enable_hca_then_issi_1_is_offered_and_set(void)
{
	struct cx *cx = dev_new();
	uint8_t in[16] = { 0 }, out[112];

	w32(cx, 0x14, CMDQ);
	CHECK_EQ(simple(cx, CX_OP_QUERY_ISSI, 0, out, sizeof(out)),
		 CX_BAD_SYS_STATE);
	CHECK_EQ(simple(cx, CX_OP_ENABLE_HCA, 0, out, 12), CX_OK);
	CHECK_EQ(simple(cx, CX_OP_QUERY_ISSI, 0, out, sizeof(out)), CX_OK);
	CHECK_EQ(cx_get(out, F_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0) & 2, 2);
	cx_set(in, F_IN_OPCODE, CX_OP_SET_ISSI);
	cx_set(in, F_SET_ISSI_IN_CURRENT_ISSI, 1);
	CHECK_EQ(cmd(cx, in, sizeof(in), out, 16), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	CHECK_EQ(simple(cx, CX_OP_QUERY_ISSI, 0, out, sizeof(out)), CX_OK);
	CHECK_EQ(cx_get(out, F_QUERY_ISSI_OUT_CURRENT_ISSI), 1);
	cx_set(in, F_SET_ISSI_IN_CURRENT_ISSI, 2);
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_destroy(cx);
}

static void query_hca_cap_answers_through_output_mailboxes(void)
{
	struct cx *cx = dev_new();
	uint8_t out[16 + 0x1000];
	const uint8_t *cap = out + B_QUERY_HCA_CAP_OUT_CAPABILITY;

	w32(cx, 0x14, CMDQ);
	simple(cx, CX_OP_ENABLE_HCA, 0, out, 12);
	memset(out, 0xee, sizeof(out));
	/* op_mod: type 0 (general), bit 0 = current */
	CHECK_EQ(simple(cx, CX_OP_QUERY_HCA_CAP, 1, out, sizeof(out)), CX_OK);
	CHECK_EQ(cx_get(cap, 0x1b6, 2), 0);	   /* port_type IB */
	CHECK_EQ(cx_get(cap, 0x1b8, 8), 1);	   /* num_ports */
	CHECK_EQ(cx_get(cap, 0x231, 1), 1);	   /* imaicl: memory windows */
	CHECK_EQ(cx_get(cap, 0x4e0, 32), 1000000); /* last mailbox */
	/* Another capability type is not there. */
	CHECK_EQ(simple(cx, CX_OP_QUERY_HCA_CAP, 2 << 1 | 1, out, sizeof(out)),
		 CX_BAD_PARAM);
	/* An output too short for the structure. */
	CHECK_EQ(simple(cx, CX_OP_QUERY_HCA_CAP, 1, out, 64), CX_BAD_OUTP_LEN);
	cx_destroy(cx);
}

static void set_hca_cap_takes_settable_fields_up_to_max(void)
{
	struct cx *cx = dev_new();
	static uint8_t in[16 + 0x1000], out[16 + 0x1000];
	uint8_t *cap = in + B_SET_HCA_CAP_IN_CAPABILITY;

	w32(cx, 0x14, CMDQ);
	simple(cx, CX_OP_ENABLE_HCA, 0, out, 12);
	simple(cx, CX_OP_QUERY_HCA_CAP, 1, out, sizeof(out));
	memcpy(cap, out + 16, 0x1000);
	cx_set(in, F_IN_OPCODE, CX_OP_SET_HCA_CAP);
	cx_set(cap, 0x9b, 5, 8);  /* log_max_qp below the maximum */
	cx_set(cap, 0x1b6, 2, 1); /* port_type: not settable, ignored */
	CHECK_EQ(cmd(cx, in, sizeof(in), out, 16), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	simple(cx, CX_OP_QUERY_HCA_CAP, 1, out, sizeof(out));
	CHECK_EQ(cx_get(out + 16, 0x9b, 5), 8);
	CHECK_EQ(cx_get(out + 16, 0x1b6, 2), 0);
	cx_set(cap, 0x9b, 5, 11); /* above the maximum (10) */
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_destroy(cx);
}

/*
 * mlx5_core's handle_hca_cap_atomic(): the general atomic bit, then the
 * atomic caps (type 3) offer host-endian 8-byte requests, which SET_HCA_CAP
 * selects; mlx5_ib needs CMP_SWAP and FETCH_ADD at 8 bytes on QPs.
 */
static void atomic_caps_offer_8_byte_host_endian_cmp_swap_and_fetch_add(void)
{
	struct cx *cx = dev_new();
	static uint8_t in[16 + 0x1000], out[16 + 0x1000];
	uint8_t *cap = in + B_SET_HCA_CAP_IN_CAPABILITY;

	w32(cx, 0x14, CMDQ);
	simple(cx, CX_OP_ENABLE_HCA, 0, out, 12);
	simple(cx, CX_OP_QUERY_HCA_CAP, 1, out, sizeof(out));
	CHECK_EQ(cx_get(out + 16, 0x21e, 1), 1); /* atomic */
	CHECK_EQ(simple(cx, CX_OP_QUERY_HCA_CAP, 3 << 1, out, sizeof(out)),
		 CX_OK);
	CHECK_EQ(cx_get(out + 16, 0x46, 1), 1);	 /* host endianness offered */
	CHECK_EQ(cx_get(out + 16, 0x90, 16), 3); /* CMP_SWAP | FETCH_ADD */
	CHECK_EQ(cx_get(out + 16, 0xb0, 16), 8); /* 8-byte on QPs */
	CHECK_EQ(cx_get(out + 16, 0xd0, 16), 0); /* none on DC */
	memcpy(cap, out + 16, 0x1000);
	cx_set(in, F_IN_OPCODE, CX_OP_SET_HCA_CAP);
	cx_set(in, F_IN_OP_MOD, 3 << 1);
	cx_set(cap, 0x40, 2, 1); /* atomic_req_8B_endianness_mode: host */
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	CHECK_EQ(simple(cx, CX_OP_QUERY_HCA_CAP, 3 << 1 | 1, out, sizeof(out)),
		 CX_OK);
	CHECK_EQ(cx_get(out + 16, 0x40, 2), 1);
	cx_set(cap, 0x40, 2, 2); /* a mode the device does not have */
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_destroy(cx);
}

static void unknown_opcode_is_bad_op_and_short_input_bad_inp_len(void)
{
	struct cx *cx = dev_up();
	uint8_t out[16];

	CHECK_EQ(simple(cx, 0x7ff, 0, out, sizeof(out)), CX_BAD_OP);
	/* ACCESS_REG without its register data */
	CHECK_EQ(simple(cx, CX_OP_ACCESS_REG, 0, out, sizeof(out)),
		 CX_BAD_INP_LEN);
	cx_destroy(cx);
}

static void bad_mailbox_chains_get_delivery_errors_and_copy_nothing(void)
{
	struct cx *cx = dev_new();
	static uint8_t out[16 + 0x1000];
	uint8_t in[16] = { 0 }, *lay = at(CMDQ);

	w32(cx, 0x14, CMDQ);
	simple(cx, CX_OP_ENABLE_HCA, 0, out, 12);
	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_HCA_CAP);
	cx_set(in, F_IN_OP_MOD, 1);
	/* Token of the third output mailbox wrong: TOK_ERR (0x2). */
	cmd(cx, in, sizeof(in), out, sizeof(out));
	at(MBOX + 0x8000 + 2 * 1024)[573] ^= 1;
	memset(at(MBOX + 0x8000), 0xcc, 512);
	lay[63] = 1;
	w32(cx, DBELL, 1);
	CHECK_EQ(lay[63], 0x2 << 1);
	CHECK_EQ(at(MBOX + 0x8000)[0], 0xcc); /* nothing written */
	/* Block number out of sequence: BAD_BLK_NUM (0x3). */
	at(MBOX + 0x8000 + 2 * 1024)[573] ^= 1;
	cx_set(at(MBOX + 0x8000 + 1024), 568 * 8, 32, 7);
	lay[63] = 1;
	w32(cx, DBELL, 1);
	CHECK_EQ(lay[63], 0x3 << 1);
	/* Output chain leaving guest memory: OUT_PTR_ALIGN (0x4). */
	cx_set(at(MBOX + 0x8000 + 1024), 568 * 8, 32, 1);
	cx_set64(at(MBOX + 0x8000 + 1024), 560, 0x40000000);
	lay[63] = 1;
	w32(cx, DBELL, 1);
	CHECK_EQ(lay[63], 0x4 << 1);
	/* Input pointer not aligned: IN_PTR_ALIGN (0x5). */
	cx_set(lay, 4 * 8, 32, 64);
	cx_set64(lay, 8, MBOX + 8);
	lay[63] = 1;
	w32(cx, DBELL, 1);
	CHECK_EQ(lay[63], 0x5 << 1);
	/* Entry the driver does not hand over: left alone. */
	lay[63] = 0x7e;
	w32(cx, DBELL, 1);
	CHECK_EQ(lay[63], 0x7e);
	cx_destroy(cx);
}

static void eqs_sharing_a_vector_each_signal_it_and_get_their_events(void)
{
	struct cx *cx = dev_up();
	uint8_t out[16], data[4] = { 1, 2, 3, 4 };
	uint32_t u1, u2;
	int e1 = make_eq(cx, 2, 0, &u1, EQ_PAGES);
	/* 0x0b: page request, as mlx5_core's pages EQ takes it */
	int e2 = make_eq_for(cx, 2, 0, &u2, EQ_PAGES + 4096, 0x0b);

	CHECK(e1 >= 0 && e2 >= 0 && e1 != e2);
	/* e1 holds the completions of e2's ALLOC_UAR and CREATE_EQ. */
	CHECK_EQ(cx->eq[e1].pc, 2);
	w32(cx, u1 * 4096 + 0x40, (uint32_t)e1 << 24 | 2);
	w32(cx, u2 * 4096 + 0x40, (uint32_t)e2 << 24);
	CHECK_EQ(irqs[0], 0);
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16); /* to e1 */
	CHECK_EQ(irqs[0], 1);
	CHECK(cx_eq_post(cx, 0x0b, 0, data, sizeof(data))); /* to e2 */
	CHECK_EQ(irqs[0], 2);
	CHECK_EQ(at(EQ_PAGES + 2 * 64)[1], CX_EVENT_CMD);
	CHECK_EQ(at(EQ_PAGES + 4096)[1], 0x0b);
	CHECK_EQ(at(EQ_PAGES + 4096)[0x20 + 3], 4);
	/* Both fired: neither signals again until re-armed. */
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16);
	CHECK(cx_eq_post(cx, 0x0b, 0, data, sizeof(data)));
	CHECK_EQ(irqs[0], 2);
	/* No EQ takes event 0x05: nothing is written, nothing signalled. */
	CHECK(!cx_eq_post(cx, 0x05, 0, data, sizeof(data)));
	CHECK_EQ(irqs[0], 2);
	cx_destroy(cx);
}

static void eq_fires_once_per_arm_and_on_arm_with_pending_eqes(void)
{
	struct cx *cx = dev_up();
	uint8_t out[16];
	uint32_t uar;
	int eqn = make_eq(cx, 2, 3, &uar, EQ_PAGES);

	CHECK(eqn >= 0);
	/* CREATE_EQ's own completion is not reported to the EQ it made. */
	CHECK_EQ(at(EQ_PAGES)[63], 1);
	/* The next command's is, with its entry's bit; not armed: no IRQ. */
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16);
	CHECK_EQ(irqs[3], 0);
	CHECK_EQ(at(EQ_PAGES)[1], CX_EVENT_CMD);
	CHECK_EQ(cx_get(at(EQ_PAGES), 0x20 * 8, 32), 1); /* entry 0 */
	CHECK_EQ(at(EQ_PAGES)[63], 0);
	/* Arming with that EQE unconsumed fires at once. */
	w32(cx, uar * 4096 + 0x40, (uint32_t)eqn << 24 | 0);
	CHECK_EQ(irqs[3], 1);
	/* Consumed and armed: the next EQE fires, the one after does not. */
	w32(cx, uar * 4096 + 0x40, (uint32_t)eqn << 24 | 1);
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16);
	CHECK_EQ(irqs[3], 2);
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16);
	CHECK_EQ(irqs[3], 2);
	/* Update ci without arming: still no interrupt. */
	w32(cx, uar * 4096 + 0x48, (uint32_t)eqn << 24 | 3);
	CHECK_EQ(irqs[3], 2);
	/* Fourth EQE, then the ring wraps: owner flips to 1. */
	w32(cx, uar * 4096 + 0x40, (uint32_t)eqn << 24 | 3);
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16);
	CHECK_EQ(irqs[3], 3);
	CHECK_EQ(at(EQ_PAGES + 3 * 64)[63], 0);
	w32(cx, uar * 4096 + 0x40, (uint32_t)eqn << 24 | 4);
	simple(cx, CX_OP_QUERY_ADAPTER, 0, out, 16);
	CHECK_EQ(at(EQ_PAGES)[63], 1);
	CHECK_EQ(irqs[3], 4);
	/* A doorbell on another UAR page does nothing. */
	w32(cx, (uar + 1) * 4096 + 0x40, (uint32_t)eqn << 24 | 4);
	CHECK_EQ(irqs[3], 4);
	cx_destroy(cx);
}

static void create_eq_refuses_pages_outside_guest_memory(void)
{
	struct cx *cx = dev_up();
	uint32_t uar;

	CHECK_EQ(make_eq(cx, 2, 0, &uar, 0x7000000), -CX_BAD_PARAM);
	CHECK_EQ(make_eq(cx, 2, 0, &uar, EQ_PAGES + 64), -CX_BAD_PARAM);
	CHECK(make_eq(cx, 2, 0, &uar, EQ_PAGES) >= 0);
	cx_destroy(cx);
}

/* MAD_IFC with a LID-routed SubnGet(ATTR, MOD) on port 1; SMP to OUT. */
static int mad(struct cx *cx, uint16_t attr, uint32_t mod, uint8_t *out)
{
	uint8_t in[16 + 256] = { 0 }, o[16 + 256];

	cx_set(in, F_IN_OPCODE, CX_OP_MAD_IFC);
	cx_set(in, F_IN_OP_MOD, 3);
	cx_set(in, F_MAD_IFC_IN_PORT, 1);
	in[16] = 1; /* base version */
	in[17] = 1; /* SubnMgmt LID routed */
	in[18] = 1;
	in[19] = 1; /* Get */
	cx_set(in + 16, 16 * 8, 16, attr);
	cx_set(in + 16, 20 * 8, 32, mod);
	if (cmd(cx, in, sizeof(in), o, sizeof(o)))
		return -1;
	memcpy(out, o + 16, 256);
	return cx_get(o, F_OUT_STATUS);
}

static void mad_ifc_says_port_1_active_with_lid_1(void)
{
	struct cx *cx = dev_up();
	uint8_t smp[256];

	CHECK_EQ(mad(cx, 0x15, 1, smp), CX_OK);
	CHECK_EQ(smp[3], 0x81);			   /* GetResp */
	CHECK_EQ(cx_get(smp, 4 * 8, 16), 0);	   /* MAD status */
	CHECK_EQ(cx_get(smp + 64, 16 * 8, 16), 1); /* LID */
	CHECK_EQ(smp[64 + 32] & 0xf, 4);	   /* ACTIVE */
	CHECK_EQ(smp[64 + 33] >> 4, 5);		   /* LinkUp */
	CHECK_EQ(mad(cx, 0x11, 0, smp), CX_OK);
	CHECK_EQ(smp[64 + 2], 1); /* channel adapter */
	CHECK_EQ(cx_get(smp + 64, 20 * 8, 32), cx_get(smp + 64, 12 * 8, 32));
	CHECK_EQ(mad(cx, 0x16, 0, smp), CX_OK);
	CHECK_EQ(cx_get(smp + 64, 0, 16), 0xffff);
	/* Port 2, P_Key block 4, an attribute it lacks: MAD status errors. */
	CHECK_EQ(mad(cx, 0x15, 2, smp), CX_OK);
	CHECK_EQ(cx_get(smp, 4 * 8, 16), 0x1c);
	CHECK_EQ(mad(cx, 0x16, 4, smp), CX_OK);
	CHECK_EQ(cx_get(smp, 4 * 8, 16), 0x1c);
	CHECK_EQ(mad(cx, 0xff90, 1, smp), CX_OK);
	CHECK_EQ(cx_get(smp, 4 * 8, 16), 0x0c);
	cx_destroy(cx);
}

/*
 * Two GIDs on port 1: GUIDCap 2, and GUIDInfo's block 0 holds the GUIDs
 * the engine puts in a UD GRH for SGID index 0 and 1 (mlx5_ib reads GID i
 * as PortInfo's prefix and GUIDInfo's entry i).
 */
static void mad_ifc_gives_port_1_the_engines_two_gids(void)
{
	struct cx *cx = dev_up();
	uint8_t smp[256];

	CHECK_EQ(mad(cx, 0x15, 1, smp), CX_OK);
	CHECK_EQ(smp[64 + 50], 2); /* GUIDCap */
	CHECK_EQ(mad(cx, 0x14, 0, smp), CX_OK);
	CHECK_EQ(cx_get(smp, 4 * 8, 16), 0);
	CHECK_EQ(cx_get64(smp + 64, 0), M5M_PORT_GUID(CX_NODE_GUID, 1, 0));
	CHECK_EQ(cx_get64(smp + 64, 8), M5M_PORT_GUID(CX_NODE_GUID, 1, 1));
	CHECK_EQ(cx_get64(smp + 64, 16), 0);
	CHECK_EQ(mad(cx, 0x14, 1, smp), CX_OK);
	CHECK_EQ(cx_get(smp, 4 * 8, 16), 0x1c);
	cx_destroy(cx);
}

/* mlx5_set_port_caps(): ACCESS_REG PCAP write; PortInfo then says it. */
static void pcap_write_sets_the_port_info_capability_mask(void)
{
	struct cx *cx = dev_up();
	uint8_t in[16 + 20] = { 0 }, out[16 + 20], smp[256];

	CHECK_EQ(mad(cx, 0x15, 1, smp), CX_OK);
	CHECK_EQ(cx_get(smp + 64, 20 * 8, 32), 0);
	cx_set(in, F_IN_OPCODE, CX_OP_ACCESS_REG);
	cx_set(in, F_ACCESS_REGISTER_IN_REGISTER_ID, 0x5001);
	in[16 + 1] = 1;					/* port_num */
	cx_set(in + 16, 4 * 8, 32, 1u << 16 | 1u << 1); /* IsCM, IsSM */
	CHECK_EQ(cmd(cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	CHECK_EQ(mad(cx, 0x15, 1, smp), CX_OK);
	CHECK_EQ(cx_get(smp + 64, 20 * 8, 32), 1u << 16 | 1u << 1);
	/* Another register: not offered. */
	cx_set(in, F_ACCESS_REGISTER_IN_REGISTER_ID, 0x5004);
	cmd(cx, in, sizeof(in), out, sizeof(out));
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_destroy(cx);
}

static void hca_vport_context_agrees_with_port_info(void)
{
	struct cx *cx = dev_up();
	uint8_t in[16] = { 0 }, out[16 + 0x200], smp[256];
	const uint8_t *v = out + 16;

	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_HCA_VPORT_CONTEXT);
	/* port_num 0, as mlx5_core sends it on a single-port device */
	CHECK_EQ(cmd(cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	mad(cx, 0x15, 1, smp);
	CHECK_EQ(cx_get(v, F_HCA_VPORT_CONTEXT_LID),
		 cx_get(smp + 64, 16 * 8, 16));
	CHECK_EQ(cx_get(v, F_HCA_VPORT_CONTEXT_VPORT_STATE),
		 smp[64 + 32] & 0xf);
	CHECK_EQ(cx_get(v, F_HCA_VPORT_CONTEXT_PORT_PHYSICAL_STATE),
		 smp[64 + 33] >> 4);
	mad(cx, 0x14, 0, smp);
	CHECK(cx_get64(v, B_HCA_VPORT_CONTEXT_PORT_GUID) == cx_get64(smp, 64));
	cx_set(in, F_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM, 2);
	cmd(cx, in, sizeof(in), out, sizeof(out));
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_set(in, F_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM, 1);
	/* Another vport (a VF's) does not exist. */
	cx_set(in, F_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT, 1);
	cmd(cx, in, sizeof(in), out, sizeof(out));
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_PARAM);
	cx_destroy(cx);
}

static void pd_xrcd_and_transport_domain_numbers_are_handed_out_once(void)
{
	static const uint16_t ops[][2] = {
		{ CX_OP_ALLOC_PD, CX_OP_DEALLOC_PD },
		{ CX_OP_ALLOC_XRCD, CX_OP_DEALLOC_XRCD },
		{ CX_OP_ALLOC_TRANSPORT_DOMAIN,
		  CX_OP_DEALLOC_TRANSPORT_DOMAIN },
	};
	struct cx *cx = dev_new();
	uint8_t in[16], out[16];
	uint32_t a, b;

	w32(cx, 0x14, CMDQ);
	simple(cx, CX_OP_ENABLE_HCA, 0, out, 12);
	CHECK_EQ(simple(cx, CX_OP_ALLOC_PD, 0, out, 16), CX_BAD_SYS_STATE);
	simple(cx, CX_OP_INIT_HCA, 0, out, 16);
	for (unsigned int k = 0; k < 3; k++) {
		CHECK_EQ(simple(cx, ops[k][0], 0, out, 16), CX_OK);
		a = cx_get(out, F_OBJ_NUMBER);
		CHECK_EQ(simple(cx, ops[k][0], 0, out, 16), CX_OK);
		b = cx_get(out, F_OBJ_NUMBER);
		CHECK(a != 0 && b != 0 && a != b);
		memset(in, 0, sizeof(in));
		cx_set(in, F_IN_OPCODE, ops[k][1]);
		cx_set(in, F_OBJ_NUMBER, a);
		cmd(cx, in, sizeof(in), out, 16);
		CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
		/* Twice: the number is no longer allocated. */
		cmd(cx, in, sizeof(in), out, 16);
		CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_RES);
		/* The freed number is the next one handed out. */
		simple(cx, ops[k][0], 0, out, 16);
		CHECK_EQ(cx_get(out, F_OBJ_NUMBER), a);
	}
	cx_destroy(cx);
}

/* CREATE_MKEY in access MODE on PD with NMTT page addresses. */
static int mkey(struct cx *cx, uint32_t mode, uint32_t pd, unsigned int nmtt,
		uint32_t *index)
{
	static uint8_t in[0x110 + 64 * 8];
	uint8_t out[16], *mkc = in + B_CREATE_MKEY_IN_MKC;
	unsigned int i;

	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_MKEY);
	cx_set(mkc, F_MKC_ACCESS_MODE_1_0, mode);
	cx_set(mkc, F_MKC_PD, pd);
	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_MKEY_7_0, 0x42);
	cx_set(mkc, F_MKC_LENGTH64, mode == 0);
	cx_set(in, F_CREATE_MKEY_IN_TRANSLATIONS_ACTUAL, nmtt / 2);
	for (i = 0; i < nmtt; i++)
		cx_set64(in, B_CREATE_MKEY_IN_MTT + i * 8, MEM_BASE + i * 4096);
	if (cmd(cx, in, 0x110 + nmtt * 8, out, sizeof(out)))
		return -1;
	*index = cx_get(out, F_MKEY_INDEX);
	return cx_get(out, F_OUT_STATUS);
}

static void mkeys_need_a_pd_and_a_known_access_mode(void)
{
	struct cx *cx = dev_up();
	uint8_t in[16] = { 0 }, out[16];
	uint32_t pd, a, b;

	simple(cx, CX_OP_ALLOC_PD, 0, out, 16);
	pd = cx_get(out, F_OBJ_NUMBER);
	CHECK_EQ(mkey(cx, 0, pd, 0, &a), CX_OK); /* PA: ib_alloc_pd's DMA MR */
	CHECK_EQ(mkey(cx, 1, pd, 8, &b), CX_OK); /* MTT: 8 pages */
	CHECK(a != 0 && b != 0 && a != b);
	/* No key is MLX5_INVALID_LKEY (0x100), whatever its variant byte. */
	CHECK(a != 1 && b != 1);
	CHECK_EQ(cx->mkey[b].nmtt, 8);
	CHECK(cx->mkey[b].mtt[7] == MEM_BASE + 7 * 4096);
	CHECK_EQ(mkey(cx, 0, pd + 1, 0, &a), CX_BAD_RES); /* no such PD */
	CHECK_EQ(mkey(cx, 2, pd, 0, &a), CX_OK); /* KLM: a memory window */
	CHECK_EQ(cx->mkey[a].mode, CX_MKEY_MODE_KLM);
	CHECK_EQ(mkey(cx, 2, pd, 2, &a), CX_BAD_PARAM); /* KLM with entries */
	CHECK_EQ(mkey(cx, 3, pd, 0, &a), CX_BAD_PARAM); /* KSM: not here */
	CHECK_EQ(mkey(cx, 0, pd, 2, &a), CX_BAD_PARAM); /* PA with pages */
	cx_set(in, F_IN_OPCODE, CX_OP_DESTROY_MKEY);
	cx_set(in, F_MKEY_INDEX, b);
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	cmd(cx, in, sizeof(in), out, 16);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_BAD_RES);
	cx_destroy(cx);
}

static void config_space_is_a_connectx5_with_msix_in_bar0(void)
{
	struct cx *cx = dev_new();
	uint8_t c[256], w[2] = { 0xff, 0xff };

	cx_config_read(cx, 0, c, sizeof(c));
	CHECK_EQ(c[0] | c[1] << 8, 0x15b3);
	CHECK_EQ(c[2] | c[3] << 8, 0x1017);
	CHECK_EQ(c[0x10] & 0xf, 0xc);
	CHECK_EQ(c[c[0x34]], 0x11);
	CHECK_EQ((c[c[0x34] + 2] | c[c[0x34] + 3] << 8) & 0x7ff,
		 CX_MSIX_VECTORS - 1);
	cx_config_write(cx, 0, w, 2); /* vendor id is read-only */
	cx_config_read(cx, 0, c, 2);
	CHECK_EQ(c[0] | c[1] << 8, 0x15b3);
	CHECK(cx_config_read(cx, 255, c, 2) != 0);
	cx_destroy(cx);
}

/* cx-server --vectors 2: the MSI-X table has 2 entries, and an EQ on a
 * vector beyond them is refused; 0 or more than CX_MSIX_VECTORS makes no
 * device. */
static void fewer_vectors_shrink_the_msix_table_and_the_eq_vectors(void)
{
	struct cx_host bad = { .dma = t_dma, .vectors = CX_MSIX_VECTORS + 1 };
	struct cx *cx;
	uint8_t c[256];
	uint32_t uar;

	CHECK(cx_create(&bad) == NULL);
	dev_vectors = 2;
	cx = dev_up();
	dev_vectors = 0;
	cx_config_read(cx, 0, c, sizeof(c));
	CHECK_EQ((c[c[0x34] + 2] | c[c[0x34] + 3] << 8) & 0x7ff, 1);
	CHECK(make_eq(cx, 3, 1, &uar, EQ_PAGES) >= 0);
	CHECK_EQ(make_eq(cx, 3, 2, &uar, EQ_PAGES + 0x1000), -CX_BAD_PARAM);
	cx_destroy(cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(init_segment_says_cmdif_5_ready_and_queue_shape),
	CHECK_TEST(enable_hca_then_issi_1_is_offered_and_set),
	CHECK_TEST(query_hca_cap_answers_through_output_mailboxes),
	CHECK_TEST(set_hca_cap_takes_settable_fields_up_to_max),
	CHECK_TEST(atomic_caps_offer_8_byte_host_endian_cmp_swap_and_fetch_add),
	CHECK_TEST(unknown_opcode_is_bad_op_and_short_input_bad_inp_len),
	CHECK_TEST(bad_mailbox_chains_get_delivery_errors_and_copy_nothing),
	CHECK_TEST(eq_fires_once_per_arm_and_on_arm_with_pending_eqes),
	CHECK_TEST(eqs_sharing_a_vector_each_signal_it_and_get_their_events),
	CHECK_TEST(create_eq_refuses_pages_outside_guest_memory),
	CHECK_TEST(mad_ifc_says_port_1_active_with_lid_1),
	CHECK_TEST(mad_ifc_gives_port_1_the_engines_two_gids),
	CHECK_TEST(pcap_write_sets_the_port_info_capability_mask),
	CHECK_TEST(hca_vport_context_agrees_with_port_info),
	CHECK_TEST(pd_xrcd_and_transport_domain_numbers_are_handed_out_once),
	CHECK_TEST(mkeys_need_a_pd_and_a_known_access_mode),
	CHECK_TEST(config_space_is_a_connectx5_with_msix_in_bar0),
	CHECK_TEST(fewer_vectors_shrink_the_msix_table_and_the_eq_vectors),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_", tests);
}
