// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MAD_IFC: the subnet management agent of the one InfiniBand port.
 * mlx5_ib (drivers/infiniband/hw/mlx5/mad.c) asks it, with LID-routed
 * SubnGet() SMPs, for NodeInfo, NodeDescription, PortInfo, GUIDInfo and
 * P_KeyTable; the answers are fixed: the port is ACTIVE with LID 1 and two
 * GIDs (GUIDInfo: the engine's M5M_PORT_GUID of index 0 and 1), as if
 * a subnet manager on LID 1 had configured it (there is no fabric, so no
 * subnet manager to wait for).  Anything else gets a GetResp() carrying
 * the MAD status "unsupported method/attribute"; the command succeeds, as
 * it does when real firmware answers a MAD.
 */
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"
#include "m5model.h"

/* struct ib_smp (include/rdma/ib_smi.h) byte offsets. */
enum {
	SMP_BASE_VERSION = 0,
	SMP_MGMT_CLASS = 1,
	SMP_METHOD = 3,
	SMP_STATUS = 4,
	SMP_ATTR_ID = 16,
	SMP_ATTR_MOD = 20,
	SMP_DATA = 64,
	SMP_SIZE = 256,
	CLASS_SUBN_LID_ROUTED = 0x01,
	METHOD_GET = 0x01,
	METHOD_GET_RESP = 0x81,
	STATUS_UNSUP_METHOD_ATTR = 0x000c,
	STATUS_INVALID_FIELD = 0x001c,
	ATTR_NODE_DESC = 0x0010,
	ATTR_NODE_INFO = 0x0011,
	ATTR_GUID_INFO = 0x0014,
	ATTR_PORT_INFO = 0x0015,
	ATTR_PKEY_TABLE = 0x0016,
	B_MAD_IFC_IN_MAD = 0x10,
	B_MAD_IFC_OUT_RESPONSE = 0x10,
	PKEY_BLOCKS = 128 / 32, /* pkey_table_size 0: 128 entries */
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (56 - 8 * i);
}

static void node_info(uint8_t *d)
{
	d[0] = 1;		    /* base version */
	d[1] = 1;		    /* class version */
	d[2] = 1;		    /* node type: channel adapter */
	d[3] = 1;		    /* ports */
	put64(d + 4, CX_NODE_GUID); /* system image GUID */
	put64(d + 12, CX_NODE_GUID);
	put64(d + 20, CX_PORT_GUID);
	put16(d + 28, 128); /* partition cap */
	put16(d + 30, CX_PCI_DEVICE);
	d[36] = 1;    /* local port number */
	d[37] = 0x00; /* vendor id 0x0002c9 */
	d[38] = 0x02;
	d[39] = 0xc9;
}

/* PortInfo: 4x SDR, MTU 4096, ACTIVE/LinkUp, LID 1, SM LID 1. */
static void port_info(const struct cx *cx, uint8_t *d)
{
	int i;

	for (i = 0; i < 4; i++) /* CapabilityMask: what PCAP set */
		d[20 + i] = cx->port_caps >> (24 - 8 * i);
	put64(d + 8, 0xfe80000000000000ull); /* GID prefix */
	put16(d + 16, CX_PORT_LID);	     /* LID */
	put16(d + 18, CX_PORT_SM_LID);	     /* master SM LID */
	d[28] = 1;			     /* local port number */
	d[29] = 2;			     /* link width enabled: 4x */
	d[30] = 3;			     /* link width supported: 1x, 4x */
	d[31] = 2;			     /* link width active: 4x */
	d[32] = 1 << 4 |
		CX_PORT_STATE_ACTIVE; /* speed supported SDR, state ACTIVE */
	d[33] = CX_PORT_PHYS_LINK_UP << 4 |
		2;			/* phys state LinkUp, down: polling */
	d[35] = 1 << 4 | 1;		/* speed active, enabled: SDR */
	d[36] = 5 << 4;			/* neighbour MTU 4096, SM SL 0 */
	d[37] = 1 << 4;			/* VLCap: VL0 */
	d[41] = 5;			/* MTUCap 4096 */
	d[43] = 1 << 4;			/* operational VLs: VL0 */
	d[50] = M5M_IB_PORT_GIDS;	/* GUIDCap: the GID table's size */
	d[51] = CX_PORT_SUBNET_TIMEOUT; /* subnet timeout */
}

int cx_mad_exec(struct cx *cx, struct cx_cmd *c)
{
	int st;
	const uint8_t *in;
	uint8_t *out, *d;
	uint32_t mod;
	uint16_t status = 0;

	st = cx_cmd_need(cx, c, B_MAD_IFC_IN_MAD + SMP_SIZE,
			 B_MAD_IFC_OUT_RESPONSE + SMP_SIZE, CX_HCA_INITIALIZED);
	if (st)
		return st;
	if (cx_get(c->in, F_MAD_IFC_IN_PORT) != 1)
		return CX_BAD_PARAM;
	in = c->in + B_MAD_IFC_IN_MAD;
	out = c->out + B_MAD_IFC_OUT_RESPONSE;
	d = out + SMP_DATA;
	memcpy(out, in, SMP_DATA); /* the header; data starts zeroed */
	mod = cx_get(in, SMP_ATTR_MOD * 8, 32);
	if (in[SMP_BASE_VERSION] != 1 ||
	    in[SMP_MGMT_CLASS] != CLASS_SUBN_LID_ROUTED ||
	    in[SMP_METHOD] != METHOD_GET) {
		status = STATUS_UNSUP_METHOD_ATTR;
	} else {
		switch (cx_get(in, SMP_ATTR_ID * 8, 16)) {
		case ATTR_NODE_INFO:
			node_info(d);
			break;
		case ATTR_NODE_DESC:
			memcpy(d, CX_NODE_DESC, sizeof(CX_NODE_DESC));
			break;
		case ATTR_PORT_INFO:
			if (mod != 1)
				status = STATUS_INVALID_FIELD;
			else
				port_info(cx, d);
			break;
		case ATTR_GUID_INFO: /* block 0: the GUIDs of GID 0 and 1 */
			if (mod != 0)
				status = STATUS_INVALID_FIELD;
			for (int i = 0; !status && i < M5M_IB_PORT_GIDS; i++)
				put64(d + 8 * i,
				      M5M_PORT_GUID(CX_NODE_GUID, 1, i));
			break;
		case ATTR_PKEY_TABLE:
			if (mod >= PKEY_BLOCKS)
				status = STATUS_INVALID_FIELD;
			else if (mod == 0)
				put16(d,
				      0xffff); /* default full-member P_Key */
			break;
		default:
			status = STATUS_UNSUP_METHOD_ATTR;
		}
	}
	out[SMP_METHOD] = METHOD_GET_RESP;
	put16(out + SMP_STATUS, status);
	return CX_OK;
}
