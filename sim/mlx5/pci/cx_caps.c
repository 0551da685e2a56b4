// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * QUERY_HCA_CAP and SET_HCA_CAP.  Two capability types exist: the general
 * device capabilities (struct mlx5_ifc_cmd_hca_cap_bits, op_mod type 0)
 * and the atomic ones (struct mlx5_ifc_atomic_caps_bits, type 3); every
 * other type answers BAD_PARAM, and the general ones leave at zero every
 * feature bit whose commands the device does not run (no Ethernet, RoCE,
 * flow tables, ODP, DC, XRC, tracer, ...).  An Ethernet port (cx-server
 * --eth) sets more fields and has two more types (cx_eth_caps.c).  The
 * tables say
 * each value; docs/connectx-device.md says which driver path reads it.
 * umr_modify_entity_size_disabled is set: with it mlx5_ib registers every
 * MR with CREATE_MKEY (umr.h, mlx5r_umr_can_load_pas()).  cx_umr.c runs
 * the UMR WQEs that load a translation, but the same bit clear would also
 * tell mlx5_ib that IB_WR_REG_MR works on any QP (main.c:
 * IB_DEVICE_MEM_MGT_EXTENSIONS), and the data path runs no UMR WQE on an
 * ordinary QP.
 */
#include <string.h>

#include "cx_ifc.h"
#include "cx_eth.h"
#include "cx_int.h"

enum {
	CAP_GENERAL = 0,
	CAP_ATOMIC = 3,	    /* MLX5_CAP_ATOMIC */
	OP_MOD_CURRENT = 1, /* op_mod bit 0: current (1) or maximum (0) */
};

/* Bit offsets from mlx5_ifc.h struct mlx5_ifc_cmd_hca_cap_bits. */
static const struct cx_cap general[] = {
	{ 0x080, 0x08, false, 14 },	 /* log_max_srq_sz */
	{ 0x088, 0x08, false, 14 },	 /* log_max_qp_sz: 16K WQEs */
	{ 0x09b, 0x05, true, 10 },	 /* log_max_qp */
	{ 0x0ab, 0x05, false, 8 },	 /* log_max_srq */
	{ 0x0c8, 0x08, false, 16 },	 /* log_max_cq_sz */
	{ 0x0db, 0x05, false, 10 },	 /* log_max_cq */
	{ 0x0e0, 0x08, false, 13 },	 /* log_max_eq_sz */
	{ 0x0ea, 0x06, false, 14 },	 /* log_max_mkey: 6.1's mkey cache */
	{ 0x0fc, 0x04, false, 4 },	 /* log_max_eq: CX_MAX_EQ */
	{ 0x109, 0x07, false, 48 },	 /* log_max_mrw_sz */
	{ 0x14a, 0x06, false, 4 },	 /* log_max_ra_req_qp */
	{ 0x15a, 0x06, false, 4 },	 /* log_max_ra_res_qp */
	{ 0x170, 0x10, false, 0 },	 /* gid_table_size */
	{ 0x190, 0x10, true, 0 },	 /* pkey_table_size: 128 */
	{ 0x1ab, 0x05, false, 16 },	 /* local_ca_ack_delay */
	{ 0x1b6, 0x02, false, 0 },	 /* port_type: InfiniBand */
	{ 0x1b8, 0x08, false, 1 },	 /* num_ports */
	{ 0x1c3, 0x05, false, 30 },	 /* log_max_msg */
	{ 0x1fc, 0x04, false, 1 },	 /* cqe_version */
	{ 0x207, 0x01, false, 1 },	 /* umr_modify_entity_size_disabled */
	{ 0x210, 0x02, true, 0 },	 /* cmdif_checksum: none */
	{ 0x21e, 0x01, false, 1 },	 /* atomic: the type 3 caps below */
	{ 0x220, 0x01, false, 1 },	 /* cq_oi: cx_cq.c's overrun ignore */
	{ 0x221, 0x01, false, 1 },	 /* cq_resize: MODIFY_CQ op_mod 1 */
	{ 0x222, 0x01, false, 1 },	 /* cq_moderation */
	{ 0x231, 0x01, false, 1 },	 /* imaicl: memory windows (cx_mw.c) */
	{ 0x23c, 0x01, false, 1 },	 /* xrc (domains; mlx5_ib needs it) */
	{ 0x23d, 0x01, false, 1 },	 /* ud */
	{ 0x23f, 0x01, false, 1 },	 /* rc */
	{ 0x24a, 0x06, false, 3 },	 /* uar_sz: 8 MiB BAR0 */
	{ 0x258, 0x08, false, 12 },	 /* log_pg_sz */
	{ 0x260, 0x01, false, 1 },	 /* bf: BlueFlame (cx_bf.c) */
	{ 0x26b, 0x05, false, 9 },	 /* log_bf_reg_size: 2 x 256 B */
	{ 0x290, 0x10, false, 1024 },	 /* max_wqe_sz_sq */
	{ 0x2b0, 0x10, false, 512 },	 /* max_wqe_sz_rq */
	{ 0x323, 0x05, false, 8 },	 /* log_max_transport_domain */
	{ 0x32b, 0x05, false, 10 },	 /* log_max_pd */
	{ 0x33b, 0x05, false, 8 },	 /* log_max_xrcd */
	{ 0x36b, 0x05, false, 4 },	 /* log_max_sq: CX_MAX_SQ (cx_sq.c) */
	{ 0x490, 0x10, true, 0 },	 /* log_uar_page_sz: 4 KiB */
	{ 0x4e0, 0x20, false, 1000000 }, /* device_frequency_khz */
	{ 0x520, 0x20, false, 1 },	 /* num_of_uars_per_page */
};

/*
 * Bit offsets from struct mlx5_ifc_atomic_caps_bits: the two 8-byte IB
 * atomics (compare and swap, fetch and add) on RC QPs, answered in host
 * endianness, which mlx5_core's handle_hca_cap_atomic() selects when
 * supported_atomic_req_8B_endianness_mode_1 says it can (the engine,
 * m5m_send.c, runs them on host-endian words); with these mlx5_ib reports
 * IB_ATOMIC_HCA and gives an RC QP with remote atomic access atomic_mode
 * IB_COMP.  No extended or masked atomics, none on DC.
 */
static const struct cx_cap atomics[] = {
	{ 0x040, 0x02, true, 1 },  /* atomic_req_8B_endianness_mode: host */
	{ 0x046, 0x01, false, 1 }, /* supported_..._endianness_mode_1 */
	{ 0x090, 0x10, false, 3 }, /* atomic_operations: CMP_SWAP, FETCH_ADD */
	{ 0x0b0, 0x10, false, 8 }, /* atomic_size_qp: 8 bytes */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const struct cx_cap *cap;
	unsigned int n;
} types[CX_CAP_TYPES] = {
	[CAP_GENERAL] = { general, N(general) },
	[CAP_ATOMIC] = { atomics, N(atomics) },
};

static void put(uint8_t *buf, const struct cx_cap *cap, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		cx_set(buf, cap[i].off, cap[i].width, cap[i].val);
}

/* Whether the function has capability type TYPE. */
static bool has(const struct cx *cx, uint32_t type)
{
	unsigned int n = 0;

	if (type >= CX_CAP_TYPES)
		return false;
	if (cx->eth)
		cx_eth_caps(type, &n);
	return types[type].n || n;
}

/*
 * The maximum values of capability type TYPE (one that exists): the
 * InfiniBand function's, then what an Ethernet port changes or adds.
 */
static void fill(const struct cx *cx, uint8_t *buf, uint32_t type)
{
	const struct cx_cap *eth;
	unsigned int n = 0;

	memset(buf, 0, CX_CAP_BYTES);
	put(buf, types[type].cap, types[type].n);
	if (cx->eth) {
		eth = cx_eth_caps(type, &n);
		put(buf, eth, n);
	}
}

void cx_caps_init(struct cx *cx)
{
	uint32_t type;

	for (type = 0; type < CX_CAP_TYPES; type++)
		if (has(cx, type))
			fill(cx, cx->cap_cur[type], type);
}

int cx_caps_query(struct cx *cx, struct cx_cmd *c)
{
	int st;
	uint32_t op_mod = cx_get(c->in, F_IN_OP_MOD);
	uint32_t type = op_mod >> 1;

	st = cx_cmd_need(cx, c, 16,
			 B_QUERY_HCA_CAP_OUT_CAPABILITY + CX_CAP_BYTES,
			 CX_HCA_ENABLED);
	if (st)
		return st;
	if (!has(cx, type))
		return CX_BAD_PARAM;
	if (op_mod & OP_MOD_CURRENT)
		memcpy(c->out + B_QUERY_HCA_CAP_OUT_CAPABILITY,
		       cx->cap_cur[type], CX_CAP_BYTES);
	else
		fill(cx, c->out + B_QUERY_HCA_CAP_OUT_CAPABILITY, type);
	return CX_OK;
}

/*
 * SET_HCA_CAP before INIT_HCA: the settable fields take the new value if
 * it is no more than the maximum; the rest of the input is ignored, as
 * mlx5_core sends back the whole current structure.
 */
int cx_caps_set(struct cx *cx, struct cx_cmd *c)
{
	int st;
	const uint8_t *in = c->in + B_SET_HCA_CAP_IN_CAPABILITY;
	uint32_t type = cx_get(c->in, F_IN_OP_MOD) >> 1;
	const struct cx_cap *cap;
	unsigned int i;

	st = cx_cmd_need(cx, c, B_SET_HCA_CAP_IN_CAPABILITY + CX_CAP_BYTES, 16,
			 CX_HCA_ENABLED);
	if (st)
		return st;
	if (cx->state != CX_HCA_ENABLED)
		return CX_BAD_SYS_STATE;
	if (type >= CX_CAP_TYPES || !types[type].n)
		return CX_BAD_PARAM;
	cap = types[type].cap;
	for (i = 0; i < types[type].n; i++)
		if (cap[i].settable &&
		    cx_get(in, cap[i].off, cap[i].width) > cap[i].val)
			return CX_BAD_PARAM;
	for (i = 0; i < types[type].n; i++)
		if (cap[i].settable)
			cx_set(cx->cap_cur[type], cap[i].off, cap[i].width,
			       cx_get(in, cap[i].off, cap[i].width));
	return CX_OK;
}
