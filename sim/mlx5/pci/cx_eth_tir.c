// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What mlx5e's transmit and receive sides name (en_common.c, en/tir.c,
 * en/rqt.c, en/rx_res.c):
 *  - TIS (CREATE/DESTROY_TIS): one per traffic class, in the transport
 *    domain of ALLOC_TRANSPORT_DOMAIN (cx_obj.c); no TLS, no LAG;
 *  - RQT (CREATE/MODIFY/DESTROY_RQT): a table of RQs the RSS hash picks
 *    from, up to 2^log_max_rqt_size; MODIFY_RQT replaces the list
 *    (bitmask bit 0, rqn_list) when mlx5e's channels open and close;
 *  - TIR (CREATE/DESTROY_TIR): direct (one RQ) or indirect (an RQT and
 *    a hash function); no LRO (lro_cap 0), no TLS, no tunnel offload.
 *    MODIFY_TIR changes self_lb_block alone (bitmask self_lb_en), as
 *    mlx5e_refresh_tirs does each time the netdev opens; the hash, the
 *    RQT and LRO stay as created.
 * Objects named elsewhere stay: a TIR's RQT, an RQT's or TIR's RQ.
 */
#include <string.h>

#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"

enum {
	DISP_DIRECT = 0x0, /* MLX5_TIRC_DISP_TYPE_DIRECT, _INDIRECT */
	DISP_INDIRECT = 0x1,
	HASH_FN_TOEPLITZ = 0x2, /* MLX5_RX_HASH_FN_INVERTED_XOR8 is 1 */
	MODIFY_RQT_RQN_LIST = 1 << 0,
	MODIFY_TIR_SELF_LB_EN = 1 << 4, /* modify_tir_bitmask.self_lb_en */
	MAX_TIS = 1 << CX_ETH_LOG_MAX_TIS,
	MAX_TIR = 1 << CX_ETH_LOG_MAX_TIR,
	MAX_RQT = 1 << CX_ETH_LOG_MAX_RQT,
	/* rx_hash_field_select: l3_prot_type, l4_prot_type (the dword's top
	 * bits), selected_fields MLX5_HASH_FIELD_SEL_* (its low bits) */
	SEL_L3_IPV6 = 1u << 31,
	SEL_L4_UDP = 1u << 30,
	SEL_SRC_IP = 1 << 0,
	SEL_DST_IP = 1 << 1,
	SEL_L4_SPORT = 1 << 2,
	SEL_L4_DPORT = 1 << 3,
	/* mlx5_cqe64.rss_hash_type: IP bits 3:2, L4 bits 7:6 */
	HTYPE_IPV4 = 1 << 2,
	HTYPE_IPV6 = 2 << 2,
	HTYPE_TCP = 1 << 6,
	HTYPE_UDP = 2 << 6,
	IPPROTO_TCP = 6,
	IPPROTO_UDP = 17,
};

bool cx_eth_tir_valid(const struct cx_eth *e, uint32_t n)
{
	return n && n <= MAX_TIR && e->tir[n - 1].valid;
}

bool cx_eth_tis_valid(const struct cx_eth *e, uint32_t n)
{
	return n && n <= MAX_TIS && e->tis[n - 1];
}

static bool rqt_valid(const struct cx_eth *e, uint32_t n)
{
	return n && n <= MAX_RQT && e->rqt[n - 1].valid;
}

bool cx_eth_rq_named(const struct cx_eth *e, uint32_t n)
{
	unsigned int i, k;

	for (i = 0; i < MAX_TIR; i++)
		if (e->tir[i].valid && !e->tir[i].indirect &&
		    e->tir[i].target == n)
			return true;
	for (i = 0; i < MAX_RQT; i++)
		for (k = 0; e->rqt[i].valid && k < e->rqt[i].n; k++)
			if (e->rqt[i].rq[k] == n)
				return true;
	return false;
}

/* A transport domain of this function's (cx_obj.c). */
static bool td_valid(const struct cx *cx, const uint8_t *ctx, unsigned int off,
		     unsigned int width)
{
	return cx_obj_used(cx, CX_OBJ_TD, cx_get(ctx, off, width));
}

/* The Toeplitz hash of IN (N bytes) under KEY (40 bytes: N <= 36). */
static uint32_t toeplitz(const uint8_t *key, const uint8_t *in, unsigned int n)
{
	uint32_t h = 0, win = (uint32_t)key[0] << 24 | key[1] << 16 |
			      key[2] << 8 | key[3];
	unsigned int i, b;

	for (i = 0; i < n; i++) {
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				h ^= win;
			win = win << 1 | ((key[i + 4] >> (7 - b)) & 1);
		}
	}
	return h;
}

/* Copy A and B (N bytes each) into OUT, the smaller first when SYM. */
static unsigned int put_pair(uint8_t *out, const uint8_t *a, const uint8_t *b,
			     unsigned int n, bool sym)
{
	if (sym && memcmp(a, b, n) > 0) {
		const uint8_t *t = a;

		a = b;
		b = t;
	}
	memcpy(out, a, n);
	memcpy(out + n, b, n);
	return 2 * n;
}

/*
 * The hash input of the fields the selector names, when the frame is of
 * its L3 (and L4) type: source then destination address, source then
 * destination port.  A symmetric hash puts the smaller of each pair
 * first (our choice: the PRM names no order), so both directions agree.
 */
static unsigned int hash_input(const struct cx_eth_tir *t, const uint8_t *f,
			       const struct cx_eth_pkt *p, uint8_t *in,
			       uint8_t *htype)
{
	bool v6 = t->selector & SEL_L3_IPV6;
	uint8_t want_l4 = t->selector & SEL_L4_UDP ? IPPROTO_UDP : IPPROTO_TCP;
	unsigned int n = 0, alen = v6 ? 16 : 4;
	const uint8_t *src = f + p->l3 + (v6 ? 8 : 12);

	*htype = 0;
	if (p->ip_version != (v6 ? 6 : 4))
		return 0;
	if (t->selector & (SEL_SRC_IP | SEL_DST_IP)) {
		n += put_pair(in, src, src + alen, alen, t->symmetric);
		*htype |= v6 ? HTYPE_IPV6 : HTYPE_IPV4;
	}
	if (t->selector & (SEL_L4_SPORT | SEL_L4_DPORT)) {
		if (!p->l4 || p->ip_proto != want_l4)
			return n;
		n += put_pair(in + n, f + p->l4, f + p->l4 + 2, 2,
			      t->symmetric);
		*htype |= want_l4 == IPPROTO_UDP ? HTYPE_UDP : HTYPE_TCP;
	}
	return n;
}

uint32_t cx_eth_tir_rq(const struct cx_eth *e, uint32_t n, const uint8_t *f,
		       const struct cx_eth_pkt *p, uint32_t *hash,
		       uint8_t *htype)
{
	const struct cx_eth_tir *t;
	const struct cx_eth_rqt *q;
	uint8_t in[36];
	unsigned int len;

	*hash = 0;
	*htype = 0;
	if (!cx_eth_tir_valid(e, n))
		return 0;
	t = &e->tir[n - 1];
	if (!t->indirect)
		return t->target;
	q = &e->rqt[t->target - 1];
	if (!q->n)
		return 0;
	if (t->hash_fn == HASH_FN_TOEPLITZ) {
		len = hash_input(t, f, p, in, htype);
		*hash = len ? toeplitz(t->key, in, len) : 0;
	}
	/* The hash's low bits index the table (mlx5e's size: a power of 2). */
	return q->rq[*hash % q->n];
}

static int create_tis(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *ctx = c->in + B_OBJ_IN_CTX;
	unsigned int i;

	if (!td_valid(cx, ctx, F_TISC_TRANSPORT_DOMAIN))
		return CX_BAD_PARAM;
	if (cx_get(ctx, F_TISC_TLS_EN) ||
	    cx_get(ctx, F_TISC_STRICT_LAG_TX_PORT_AFFINITY))
		return CX_BAD_PARAM;
	for (i = 0; i < MAX_TIS; i++) {
		if (!cx->eth->tis[i]) {
			cx->eth->tis[i] = true;
			cx_set(c->out, F_OBJ_OUT_NUMBER, i + 1);
			return CX_OK;
		}
	}
	return CX_NO_RES;
}

static int create_tir(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *ctx = c->in + B_OBJ_IN_CTX;
	struct cx_eth *e = cx->eth;
	struct cx_eth_tir t = { .valid = true };
	unsigned int i;

	t.self_lb_block = cx_get(ctx, F_TIRC_SELF_LB_BLOCK);
	if (!td_valid(cx, ctx, F_TIRC_TRANSPORT_DOMAIN) ||
	    cx_get(ctx, F_TIRC_TLS_EN) ||
	    cx_get(ctx, F_TIRC_PACKET_MERGE_MASK) ||
	    cx_get(ctx, F_TIRC_TUNNELED_OFFLOAD_EN))
		return CX_BAD_PARAM;
	switch (cx_get(ctx, F_TIRC_DISP_TYPE)) {
	case DISP_DIRECT:
		t.target = cx_get(ctx, F_TIRC_INLINE_RQN);
		if (!cx_eth_rq_valid(e, t.target))
			return CX_BAD_PARAM;
		break;
	case DISP_INDIRECT:
		t.indirect = true;
		t.target = cx_get(ctx, F_TIRC_INDIRECT_TABLE);
		t.hash_fn = cx_get(ctx, F_TIRC_RX_HASH_FN);
		t.symmetric = cx_get(ctx, F_TIRC_RX_HASH_SYMMETRIC);
		t.selector = cx_get(ctx, F_TIRC_RX_HASH_SEL_OUTER);
		memcpy(t.key, ctx + B_TIRC_RX_HASH_KEY, sizeof(t.key));
		if (!rqt_valid(e, t.target) ||
		    cx_get(ctx, F_TIRC_RX_HASH_FN) > HASH_FN_TOEPLITZ)
			return CX_BAD_PARAM;
		break;
	default:
		return CX_BAD_PARAM;
	}
	for (i = 0; i < MAX_TIR; i++) {
		if (!e->tir[i].valid) {
			e->tir[i] = t;
			cx_set(c->out, F_OBJ_OUT_NUMBER, i + 1);
			return CX_OK;
		}
	}
	return CX_NO_RES;
}

/* RQT context CTX's list into R (at most R->max RQs, each an RQ). */
static int rq_list(const struct cx_eth *e, const struct cx_cmd *c,
		   const uint8_t *ctx, struct cx_eth_rqt *r)
{
	uint32_t n = cx_get(ctx, F_RQTC_RQT_ACTUAL_SIZE), k;

	if (!n || n > r->max)
		return CX_BAD_PARAM;
	if (c->inlen < B_OBJ_IN_CTX + B_RQTC_RQ_NUM + n * 4)
		return CX_BAD_INP_LEN;
	for (k = 0; k < n; k++)
		if (!cx_eth_rq_valid(
			    e, cx_get(ctx + B_RQTC_RQ_NUM + k * 4, 8, 24)))
			return CX_BAD_PARAM;
	for (k = 0; k < n; k++)
		r->rq[k] = cx_get(ctx + B_RQTC_RQ_NUM + k * 4, 8, 24);
	r->n = n;
	return CX_OK;
}

static int create_rqt(struct cx_eth *e, struct cx_cmd *c)
{
	const uint8_t *ctx = c->in + B_OBJ_IN_CTX;
	uint32_t max = cx_get(ctx, F_RQTC_RQT_MAX_SIZE);
	unsigned int i;
	int st;

	if (!max || max > 1u << CX_ETH_LOG_MAX_RQT_SIZE)
		return CX_BAD_PARAM;
	for (i = 0; i < MAX_RQT && e->rqt[i].valid; i++)
		;
	if (i == MAX_RQT)
		return CX_NO_RES;
	e->rqt[i].max = max;
	st = rq_list(e, c, ctx, &e->rqt[i]);
	if (st)
		return st;
	e->rqt[i].valid = true;
	cx_set(c->out, F_OBJ_OUT_NUMBER, i + 1);
	return CX_OK;
}

static int destroy_rqt(struct cx_eth *e, uint32_t n)
{
	unsigned int i;

	if (!rqt_valid(e, n))
		return CX_BAD_PARAM;
	for (i = 0; i < MAX_TIR; i++)
		if (e->tir[i].valid && e->tir[i].indirect &&
		    e->tir[i].target == n)
			return CX_BAD_RES;
	e->rqt[n - 1].valid = false;
	return CX_OK;
}

int cx_eth_tir_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	struct cx_eth *e = cx->eth;
	uint32_t n = cx_get(c->in, F_OBJ_IN_NUMBER), in = OBJ_IN_BYTES;
	int st;

	if (opcode == CX_OP_CREATE_TIS)
		in = CREATE_TIS_IN_BYTES;
	else if (opcode == CX_OP_DESTROY_TIS || opcode == CX_OP_DESTROY_TIR ||
		 opcode == CX_OP_DESTROY_RQT)
		in = 16;
	st = cx_cmd_need(cx, c, in, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	switch (opcode) {
	case CX_OP_CREATE_TIS:
		return create_tis(cx, c);
	case CX_OP_DESTROY_TIS:
		if (!n || n > MAX_TIS || !e->tis[n - 1])
			return CX_BAD_PARAM;
		e->tis[n - 1] = false;
		return CX_OK;
	case CX_OP_CREATE_TIR:
		return create_tir(cx, c);
	case CX_OP_DESTROY_TIR:
		if (!cx_eth_tir_valid(e, n))
			return CX_BAD_PARAM;
		if (cx_eth_fs_dest_named(e, n))
			return CX_BAD_RES;
		e->tir[n - 1].valid = false;
		return CX_OK;
	case CX_OP_MODIFY_TIR:
		if (!cx_eth_tir_valid(e, n) ||
		    cx_get(c->in, F_MODIFY_IN_BITMASK_HI) ||
		    cx_get(c->in, F_MODIFY_IN_BITMASK_LO) !=
			    MODIFY_TIR_SELF_LB_EN)
			return CX_BAD_PARAM;
		e->tir[n - 1].self_lb_block =
			cx_get(c->in + B_OBJ_IN_CTX, F_TIRC_SELF_LB_BLOCK);
		return CX_OK;
	case CX_OP_CREATE_RQT:
		return create_rqt(e, c);
	case CX_OP_MODIFY_RQT:
		if (!rqt_valid(e, n) || cx_get(c->in, F_MODIFY_IN_BITMASK_LO) !=
						MODIFY_RQT_RQN_LIST)
			return CX_BAD_PARAM;
		return rq_list(e, c, c->in + B_OBJ_IN_CTX, &e->rqt[n - 1]);
	case CX_OP_DESTROY_RQT:
		return destroy_rqt(e, n);
	}
	return CX_BAD_OP;
}
