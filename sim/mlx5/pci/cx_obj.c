// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The objects that are only a number the device hands out and takes back:
 * protection domains (ALLOC_PD), XRC domains (ALLOC_XRCD: mlx5_ib allocates
 * two when it loads, its dev_res stage refuses a device without the xrc
 * capability) and transport domains (ALLOC_TRANSPORT_DOMAIN, one per user
 * context).  All three commands have the same 16-byte layout: the number
 * at bits 0x48..0x5f of the output (alloc) or the input (dealloc).
 * Numbers start at 1, up to the count the capabilities advertise.
 */
#include "cx_ifc.h"
#include "cx_int.h"

static const struct {
	uint16_t alloc, dealloc;
	uint32_t max; /* 1 << cx_caps.c's log_max_pd, log_max_xrcd, ... */
} kinds[CX_OBJ_KINDS] = {
	{ CX_OP_ALLOC_PD, CX_OP_DEALLOC_PD, 1 << 10 },
	{ CX_OP_ALLOC_XRCD, CX_OP_DEALLOC_XRCD, 1 << 8 },
	{ CX_OP_ALLOC_TRANSPORT_DOMAIN, CX_OP_DEALLOC_TRANSPORT_DOMAIN,
	  1 << 8 },
};

bool cx_obj_used(const struct cx *cx, unsigned int kind, uint32_t n)
{
	return kind < CX_OBJ_KINDS && n && n < kinds[kind].max &&
	       cx->obj_used[kind][n / 8] >> (n % 8) & 1;
}

int cx_obj_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	int st;
	uint8_t *used;
	uint32_t n;
	unsigned int k;

	for (k = 0; k < CX_OBJ_KINDS; k++)
		if (kinds[k].alloc == opcode || kinds[k].dealloc == opcode)
			break;
	if (k == CX_OBJ_KINDS)
		return CX_BAD_OP;
	st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	used = cx->obj_used[k];
	if (opcode == kinds[k].dealloc) {
		n = cx_get(c->in, F_OBJ_NUMBER);
		if (!n || n >= kinds[k].max || !(used[n / 8] >> (n % 8) & 1))
			return CX_BAD_RES;
		used[n / 8] &= ~(1u << (n % 8));
		return CX_OK;
	}
	for (n = 1; n < kinds[k].max; n++) {
		if (!(used[n / 8] >> (n % 8) & 1)) {
			used[n / 8] |= 1u << (n % 8);
			cx_set(c->out, F_OBJ_NUMBER, n);
			return CX_OK;
		}
	}
	return CX_NO_RES;
}
