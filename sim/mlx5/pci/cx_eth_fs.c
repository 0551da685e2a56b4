// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * NIC receive flow steering, as mlx5_core's fs_cmd.c drives it: flow
 * tables (CREATE/DESTROY/MODIFY_FLOW_TABLE, SET_FLOW_TABLE_ROOT), their
 * groups (CREATE/DESTROY_FLOW_GROUP) and entries (SET/DELETE_FLOW_TABLE_
 * ENTRY).  Bookkeeping with the checks firmware makes on what the driver
 * sends: table type NIC_RX only (the one cx_eth_caps.c offers), the
 * function's own vport, a level within max_ft_level, a size within
 * log_max_ft_size, a table forwarded to (on a miss or by an entry) of a
 * higher level, groups that do not overlap inside their table, an entry
 * at a free index inside its group, forwarding to tables or TIRs
 * (cx_eth_tir.c) that exist.  No flow_modify_en: an entry is never
 * rewritten in place (op_mod 0 only).
 *
 * Steering a received frame (cx_eth_fs_steer): from the root table, the
 * entry of the lowest index whose group's mask, applied to the frame's
 * match parameters, gives the entry's value; its action decides: DROP,
 * or FWD_DEST to its first destination (a table, looked up the same way,
 * or a TIR: the end); ALLOW, having no destination on a NIC receive
 * table, drops.  A miss forwards to the table's miss table, or with the
 * default action drops.  Levels only rise, so a lookup ends.
 */
#include <stddef.h>
#include <string.h>

#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"

enum {
	TABLE_TYPE_NIC_RX = 0x0, /* fs_core.h FS_FT_NIC_RX */
	MISS_ACTION_DEF = 0x0,	 /* MLX5_FLOW_TABLE_MISS_ACTION_DEF */
	MISS_ACTION_FWD = 0x1,
	MODIFY_MISS_TABLE_ID = 1 << 0, /* MLX5_MODIFY_FLOW_TABLE_MISS_... */
	ROOT_DISCONNECT = 1,	       /* set_flow_table_root op_mod */
	/* match_criteria_enable: MLX5_MATCH_OUTER_HEADERS, _MISC_PARAMETERS */
	CRITERIA_OUTER = 1 << 0,
	CRITERIA_MISC = 1 << 1,
	CRITERIA_OFFERED = CRITERIA_OUTER | CRITERIA_MISC,
	/* MLX5_FLOW_CONTEXT_ACTION_ALLOW, _DROP, _FWD_DEST (no COUNT) */
	ACTION_ALLOW = 0x1,
	ACTION_DROP = 0x2,
	ACTION_FWD_DEST = 0x4,
	DEST_FLOW_TABLE = 0x1, /* MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE */
	DEST_TIR = 0x2,	       /* MLX5_IFC_FLOW_DESTINATION_TYPE_TIR */
};

bool cx_eth_ft_valid(const struct cx_eth *e, uint32_t id)
{
	return id && id <= CX_ETH_MAX_FT && e->ft[id - 1].valid;
}

/* The header every flow-table command shares: own vport, NIC_RX. */
static int header(const struct cx *cx, const struct cx_cmd *c, uint32_t in)
{
	int st = cx_cmd_need(cx, c, in, 16, CX_HCA_INITIALIZED);

	if (st)
		return st;
	if (cx_get(c->in, F_FT_IN_OTHER_VPORT) ||
	    cx_get(c->in, F_FT_IN_VPORT_NUMBER) ||
	    cx_get(c->in, F_FT_IN_TABLE_TYPE) != TABLE_TYPE_NIC_RX)
		return CX_BAD_PARAM;
	return CX_OK;
}

/* The table the command names, or NULL. */
static struct cx_eth_ft *named(struct cx_eth *e, const struct cx_cmd *c)
{
	uint32_t id = cx_get(c->in, F_FT_IN_TABLE_ID);

	return cx_eth_ft_valid(e, id) ? &e->ft[id - 1] : NULL;
}

/* A miss action of the context at IN for a table of LEVEL. */
static int miss(const struct cx_eth *e, const uint8_t *in, uint8_t level,
		uint8_t *action, uint32_t *id)
{
	*action = cx_get(in, F_FTC_TABLE_MISS_ACTION);
	*id = 0;
	if (*action == MISS_ACTION_DEF)
		return CX_OK;
	if (*action != MISS_ACTION_FWD)
		return CX_BAD_PARAM;
	*id = cx_get(in, F_FTC_TABLE_MISS_ID);
	if (!cx_eth_ft_valid(e, *id) || e->ft[*id - 1].level <= level)
		return CX_BAD_PARAM;
	return CX_OK;
}

static int create_ft(struct cx_eth *e, struct cx_cmd *c)
{
	struct cx_eth_ft t = { .valid = true };
	unsigned int i;
	int st;

	if (cx_get(c->in, F_IN_OP_MOD) || /* no LAG demux table */
	    cx_get(c->in, F_FTC_REFORMAT_EN) || cx_get(c->in, F_FTC_DECAP_EN) ||
	    cx_get(c->in, F_FTC_TERMINATION_TABLE))
		return CX_BAD_PARAM;
	t.level = cx_get(c->in, F_FTC_LEVEL);
	t.log_size = cx_get(c->in, F_FTC_LOG_SIZE);
	if (t.level > CX_ETH_MAX_FT_LEVEL ||
	    t.log_size > CX_ETH_LOG_MAX_FT_SIZE)
		return CX_BAD_PARAM;
	st = miss(e, c->in, t.level, &t.miss_action, &t.miss_id);
	if (st)
		return st;
	for (i = 0; i < CX_ETH_MAX_FT; i++) {
		if (!e->ft[i].valid) {
			e->ft[i] = t;
			cx_set(c->out, F_CREATE_FLOW_TABLE_OUT_TABLE_ID, i + 1);
			return CX_OK;
		}
	}
	return CX_NO_RES;
}

/* A table still holding groups, or forwarded to, stays. */
static int destroy_ft(struct cx_eth *e, struct cx_eth_ft *t)
{
	uint32_t id = t - e->ft + 1;
	unsigned int i;

	for (i = 0; i < CX_ETH_MAX_FG; i++)
		if (e->fg[i].valid && e->fg[i].ft == id)
			return CX_BAD_RES;
	for (i = 0; i < CX_ETH_MAX_FT; i++)
		if (e->ft[i].valid && e->ft[i].miss_action == MISS_ACTION_FWD &&
		    e->ft[i].miss_id == id)
			return CX_BAD_RES;
	if (e->root_ft == id)
		e->root_ft = 0;
	t->valid = false;
	return CX_OK;
}

static int modify_ft(struct cx_eth *e, struct cx_eth_ft *t,
		     const struct cx_cmd *c)
{
	uint8_t action;
	uint32_t id;
	int st;

	if (cx_get(c->in, F_MODIFY_FLOW_TABLE_IN_MODIFY_FIELD_SELECT) !=
	    MODIFY_MISS_TABLE_ID)
		return CX_BAD_PARAM;
	st = miss(e, c->in, t->level, &action, &id);
	if (st)
		return st;
	t->miss_action = action;
	t->miss_id = id;
	return CX_OK;
}

static int set_root(struct cx_eth *e, const struct cx_cmd *c)
{
	struct cx_eth_ft *t = named(e, c);

	if (cx_get(c->in, F_SET_FLOW_TABLE_ROOT_IN_UNDERLAY_QPN))
		return CX_BAD_PARAM; /* IPoIB's; this port is Ethernet */
	if (cx_get(c->in, F_IN_OP_MOD) == ROOT_DISCONNECT) {
		e->root_ft = 0;
		return CX_OK;
	}
	if (cx_get(c->in, F_IN_OP_MOD) || !t)
		return CX_BAD_PARAM;
	e->root_ft = t - e->ft + 1;
	return CX_OK;
}

static int create_fg(struct cx_eth *e, struct cx_eth_ft *t, struct cx_cmd *c)
{
	struct cx_eth_fg g = { .valid = true, .ft = t - e->ft + 1 };
	unsigned int i, free = CX_ETH_MAX_FG;

	g.start = cx_get(c->in, F_CREATE_FLOW_GROUP_IN_START_FLOW_INDEX);
	g.end = cx_get(c->in, F_CREATE_FLOW_GROUP_IN_END_FLOW_INDEX);
	g.criteria_enable =
		cx_get(c->in, F_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA_ENABLE);
	if (g.start > g.end || g.end >> t->log_size ||
	    g.criteria_enable & ~CRITERIA_OFFERED)
		return CX_BAD_PARAM;
	/* What each part enabled matches on; the rest matches anything. */
	if (g.criteria_enable & CRITERIA_OUTER)
		memcpy(g.mask + CX_ETH_MATCH_OUTER,
		       c->in + B_CREATE_FLOW_GROUP_IN_MATCH +
			       CX_ETH_MATCH_OUTER,
		       CX_ETH_MATCH_MISC - CX_ETH_MATCH_OUTER);
	if (g.criteria_enable & CRITERIA_MISC)
		memcpy(g.mask + CX_ETH_MATCH_MISC,
		       c->in + B_CREATE_FLOW_GROUP_IN_MATCH + CX_ETH_MATCH_MISC,
		       CX_ETH_MATCH_BYTES - CX_ETH_MATCH_MISC);
	for (i = 0; i < CX_ETH_MAX_FG; i++) {
		const struct cx_eth_fg *o = &e->fg[i];

		if (!o->valid) {
			if (free == CX_ETH_MAX_FG)
				free = i;
			continue;
		}
		if (o->ft == g.ft && g.start <= o->end && o->start <= g.end)
			return CX_BAD_PARAM; /* overlaps group i + 1 */
	}
	if (free == CX_ETH_MAX_FG)
		return CX_NO_RES;
	e->fg[free] = g;
	cx_set(c->out, F_CREATE_FLOW_GROUP_OUT_GROUP_ID, free + 1);
	return CX_OK;
}

/* Group ID of table T, or NULL. */
static struct cx_eth_fg *group(struct cx_eth *e, const struct cx_eth_ft *t,
			       uint32_t id)
{
	if (!id || id > CX_ETH_MAX_FG || !e->fg[id - 1].valid ||
	    e->fg[id - 1].ft != (uint32_t)(t - e->ft + 1))
		return NULL;
	return &e->fg[id - 1];
}

/* The entry at INDEX of table T, or NULL. */
static struct cx_eth_fte *entry(struct cx_eth *e, const struct cx_eth_ft *t,
				uint32_t index)
{
	unsigned int i;

	for (i = 0; i < CX_ETH_MAX_FTE; i++)
		if (e->fte[i].valid && e->fte[i].index == index &&
		    e->fte[i].ft == (uint32_t)(t - e->ft + 1))
			return &e->fte[i];
	return NULL;
}

static int destroy_fg(struct cx_eth *e, struct cx_eth_ft *t,
		      const struct cx_cmd *c)
{
	struct cx_eth_fg *g =
		group(e, t, cx_get(c->in, F_DESTROY_FLOW_GROUP_IN_GROUP_ID));
	unsigned int i;

	if (!g)
		return CX_BAD_PARAM;
	for (i = 0; i < CX_ETH_MAX_FTE; i++)
		if (e->fte[i].valid &&
		    e->fte[i].group == (uint32_t)(g - e->fg + 1))
			return CX_BAD_RES; /* its entries go first */
	g->valid = false;
	return CX_OK;
}

bool cx_eth_fs_dest_named(const struct cx_eth *e, uint32_t n)
{
	unsigned int i, k;

	for (i = 0; i < CX_ETH_MAX_FTE; i++)
		for (k = 0; e->fte[i].valid && k < e->fte[i].ndest; k++)
			if (e->fte[i].dest[k].type == DEST_TIR &&
			    e->fte[i].dest[k].id == n)
				return true;
	return false;
}

/* The destinations of entry F of table T: tables of a higher level, TIRs. */
static int dests(struct cx_eth *e, const struct cx_eth_ft *t,
		 const struct cx_cmd *c, struct cx_eth_fte *f, uint32_t n)
{
	uint32_t i, id, type;
	const uint8_t *d;

	if (!n || n > 1u << CX_ETH_LOG_MAX_DEST)
		return CX_BAD_PARAM;
	if (c->inlen < B_SET_FTE_IN_DESTINATION + n * DEST_BYTES)
		return CX_BAD_INP_LEN;
	for (i = 0; i < n; i++) {
		d = c->in + B_SET_FTE_IN_DESTINATION + i * DEST_BYTES;
		id = cx_get(d, F_DEST_ID);
		type = cx_get(d, F_DEST_TYPE);
		if (type == DEST_TIR ? !cx_eth_tir_valid(e, id)
				     : type != DEST_FLOW_TABLE ||
					       !cx_eth_ft_valid(e, id) ||
					       e->ft[id - 1].level <= t->level)
			return CX_BAD_PARAM;
		f->dest[i].type = type;
		f->dest[i].id = id;
	}
	f->ndest = n;
	return CX_OK;
}

static int set_fte(struct cx_eth *e, struct cx_eth_ft *t,
		   const struct cx_cmd *c)
{
	struct cx_eth_fte f;
	uint32_t n = cx_get(c->in, F_FTE_DESTINATION_LIST_SIZE);
	struct cx_eth_fg *g;
	unsigned int i;
	int st;

	if (c->inlen < B_SET_FTE_IN_DESTINATION)
		return CX_BAD_INP_LEN;
	memset(&f, 0, sizeof(f));
	f.valid = true;
	f.ft = t - e->ft + 1;
	f.index = cx_get(c->in, F_FTE_IN_FLOW_INDEX);
	f.group = cx_get(c->in, F_FTE_GROUP_ID);
	f.action = cx_get(c->in, F_FTE_ACTION);
	memcpy(f.value, c->in + B_SET_FTE_IN_MATCH_VALUE, sizeof(f.value));
	g = group(e, t, f.group);
	if (cx_get(c->in, F_IN_OP_MOD) || !g || f.index < g->start ||
	    f.index > g->end || entry(e, t, f.index))
		return CX_BAD_PARAM;
	if (cx_get(c->in, F_FTE_FLOW_COUNTER_LIST_SIZE) || !f.action ||
	    f.action & ~(ACTION_ALLOW | ACTION_DROP | ACTION_FWD_DEST) ||
	    (f.action & ACTION_DROP && f.action != ACTION_DROP))
		return CX_BAD_PARAM;
	if (f.action & ACTION_FWD_DEST) {
		st = dests(e, t, c, &f, n);
		if (st)
			return st;
	} else if (n) {
		return CX_BAD_PARAM;
	}
	for (i = 0; i < CX_ETH_MAX_FTE; i++) {
		if (!e->fte[i].valid) {
			e->fte[i] = f;
			return CX_OK;
		}
	}
	return CX_NO_RES;
}

static bool matches(const struct cx_eth_fg *g, const struct cx_eth_fte *f,
		    const uint8_t *m)
{
	unsigned int i;

	for (i = 0; i < CX_ETH_MATCH_BYTES; i++)
		if ((m[i] & g->mask[i]) != (f->value[i] & g->mask[i]))
			return false;
	return true;
}

/* The entry of table ID that frame M hits: the lowest index matching. */
static const struct cx_eth_fte *lookup(const struct cx_eth *e, uint32_t id,
				       const uint8_t *m)
{
	const struct cx_eth_fte *hit = NULL;
	unsigned int i;

	for (i = 0; i < CX_ETH_MAX_FTE; i++) {
		const struct cx_eth_fte *f = &e->fte[i];

		if (!f->valid || f->ft != id || (hit && hit->index < f->index))
			continue;
		if (matches(&e->fg[f->group - 1], f, m))
			hit = f;
	}
	return hit;
}

uint32_t cx_eth_fs_steer(const struct cx_eth *e, const uint8_t *m)
{
	uint32_t id = e->root_ft;
	unsigned int hops;

	/* Bounded as well: the device never trusts its own tables blindly. */
	for (hops = 0; hops < CX_ETH_MAX_FT && cx_eth_ft_valid(e, id); hops++) {
		const struct cx_eth_ft *t = &e->ft[id - 1];
		const struct cx_eth_fte *f = lookup(e, id, m);

		if (!f) {
			if (t->miss_action != MISS_ACTION_FWD)
				return 0;
			id = t->miss_id;
			continue;
		}
		if (!(f->action & ACTION_FWD_DEST) || !f->ndest)
			return 0;
		if (f->dest[0].type == DEST_TIR)
			return f->dest[0].id;
		id = f->dest[0].id;
	}
	return 0;
}

int cx_eth_fs_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	struct cx_eth *e = cx->eth;
	struct cx_eth_fte *f;
	struct cx_eth_ft *t;
	int st;

	st = header(cx, c,
		    opcode == CX_OP_CREATE_FLOW_GROUP
			    ? CREATE_FLOW_GROUP_IN_BYTES
			    : FT_IN_BYTES);
	if (st)
		return st;
	if (opcode == CX_OP_CREATE_FLOW_TABLE)
		return create_ft(e, c);
	if (opcode == CX_OP_SET_FLOW_TABLE_ROOT)
		return set_root(e, c);
	t = named(e, c);
	if (!t)
		return CX_BAD_PARAM;
	switch (opcode) {
	case CX_OP_DESTROY_FLOW_TABLE:
		return destroy_ft(e, t);
	case CX_OP_MODIFY_FLOW_TABLE:
		return modify_ft(e, t, c);
	case CX_OP_CREATE_FLOW_GROUP:
		return create_fg(e, t, c);
	case CX_OP_DESTROY_FLOW_GROUP:
		return destroy_fg(e, t, c);
	case CX_OP_SET_FLOW_TABLE_ENTRY:
		return set_fte(e, t, c);
	case CX_OP_DELETE_FLOW_TABLE_ENTRY:
		f = entry(e, t, cx_get(c->in, F_FTE_IN_FLOW_INDEX));
		if (!f)
			return CX_BAD_PARAM;
		f->valid = false;
		return CX_OK;
	}
	return CX_BAD_OP;
}
