// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * QUERY_HCA_VPORT_CONTEXT of the function's own vport on port 1: what
 * mlx5_ib's get_port_immutable (mlx5_port_immutable) reads for an
 * InfiniBand port before ib_register_device() goes on.  The same port as
 * MAD_IFC's PortInfo (the CX_PORT_* facts of cx_int.h).  No other vport
 * (no SR-IOV): other_vport gets BAD_PARAM.  port_num is 0 (mlx5_core sets
 * it only on dual-port devices) or 1.
 */
#include "cx_ifc.h"
#include "cx_int.h"

enum { B_HCA_VPORT_CONTEXT = 0x10, HCA_VPORT_CONTEXT_BYTES = 0x200 };

int cx_port_exec(struct cx *cx, struct cx_cmd *c)
{
	int st;
	uint8_t *v = c->out + B_HCA_VPORT_CONTEXT;

	st = cx_cmd_need(cx, c, 16,
			 B_HCA_VPORT_CONTEXT + HCA_VPORT_CONTEXT_BYTES,
			 CX_HCA_INITIALIZED);
	if (st)
		return st;
	if (cx_get(c->in, F_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT) ||
	    cx_get(c->in, F_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM) > 1)
		return CX_BAD_PARAM;
	cx_set(v, F_HCA_VPORT_CONTEXT_HAS_SMI, 1);
	cx_set(v, F_HCA_VPORT_CONTEXT_PORT_PHYSICAL_STATE,
	       CX_PORT_PHYS_LINK_UP);
	cx_set(v, F_HCA_VPORT_CONTEXT_VPORT_STATE, CX_PORT_STATE_ACTIVE);
	cx_set64(v, B_HCA_VPORT_CONTEXT_PORT_GUID, CX_PORT_GUID);
	cx_set64(v, B_HCA_VPORT_CONTEXT_NODE_GUID, CX_NODE_GUID);
	cx_set(v, F_HCA_VPORT_CONTEXT_LID, CX_PORT_LID);
	cx_set(v, F_HCA_VPORT_CONTEXT_SUBNET_TIMEOUT, CX_PORT_SUBNET_TIMEOUT);
	cx_set(v, F_HCA_VPORT_CONTEXT_SM_LID, CX_PORT_SM_LID);
	return CX_OK;
}
