// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The Ethernet port's state and its commands' dispatch (cx_eth.h).  An
 * InfiniBand function (cx->eth NULL) answers them BAD_OP, as a ConnectX
 * whose port is InfiniBand refuses what its caps do not offer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx_eth.h"

typedef int cx_eth_exec_fn(struct cx *cx, uint16_t opcode, struct cx_cmd *c);

/* The file that runs Ethernet command OP; NULL if OP is not one. */
static cx_eth_exec_fn *eth_exec_of(uint16_t op)
{
	switch (op) {
	case CX_OP_SET_FLOW_TABLE_ROOT:
	case CX_OP_CREATE_FLOW_TABLE:
	case CX_OP_DESTROY_FLOW_TABLE:
	case CX_OP_MODIFY_FLOW_TABLE:
	case CX_OP_CREATE_FLOW_GROUP:
	case CX_OP_DESTROY_FLOW_GROUP:
	case CX_OP_SET_FLOW_TABLE_ENTRY:
	case CX_OP_DELETE_FLOW_TABLE_ENTRY:
		return cx_eth_fs_exec;
	case CX_OP_QUERY_VPORT_STATE:
	case CX_OP_QUERY_VPORT_COUNTER:
	case CX_OP_QUERY_HCA_VPORT_PKEY:
	case CX_OP_QUERY_NIC_VPORT_CONTEXT:
	case CX_OP_MODIFY_NIC_VPORT_CONTEXT:
		return cx_eth_vport_exec;
	case CX_OP_CREATE_TIS:
	case CX_OP_DESTROY_TIS:
	case CX_OP_CREATE_TIR:
	case CX_OP_MODIFY_TIR:
	case CX_OP_DESTROY_TIR:
	case CX_OP_CREATE_RQT:
	case CX_OP_MODIFY_RQT:
	case CX_OP_DESTROY_RQT:
		return cx_eth_tir_exec;
	case CX_OP_CREATE_RQ:
	case CX_OP_MODIFY_RQ:
	case CX_OP_DESTROY_RQ:
	case CX_OP_ALLOC_Q_COUNTER:
	case CX_OP_DEALLOC_Q_COUNTER:
	case CX_OP_QUERY_Q_COUNTER:
		return cx_eth_rq_exec;
	case CX_OP_QUERY_ROCE_ADDRESS:
	case CX_OP_SET_ROCE_ADDRESS:
		return cx_eth_roce_exec;
	}
	return NULL;
}

bool cx_eth_op(uint16_t op)
{
	return eth_exec_of(op) != NULL;
}

int cx_eth_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	cx_eth_exec_fn *exec = eth_exec_of(opcode);

	if (!cx->eth || !exec)
		return CX_BAD_OP;
	return exec(cx, opcode, c);
}

bool cx_eth_init(struct cx *cx)
{
	if (!cx->host.eth)
		return true;
	cx->eth = calloc(1, sizeof(*cx->eth));
	return cx->eth;
}

void cx_eth_reset(struct cx *cx)
{
	static const uint8_t mac[6] = CX_ETH_MAC, none[6] = { 0 };
	struct cx_eth *e = cx->eth;

	if (e) {
		/* The statistics count for the server's life, as the engine's */
		struct cx_eth_stats st = e->st;

		cx_eth_rq_reset(e);
		cx_roce_loop_free(e);
		memset(e, 0, sizeof(*e));
		cx_eth_vport_reset(e);
		e->st = st;
		memcpy(e->mac,
		       memcmp(cx->host.mac, none, 6) ? cx->host.mac : mac,
		       sizeof(e->mac));
	}
}

void cx_eth_free(struct cx *cx)
{
	if (cx->eth) {
		cx_eth_rq_reset(cx->eth);
		cx_roce_loop_free(cx->eth);
	}
	free(cx->eth);
	cx->eth = NULL;
}

void cx_eth_report(const struct cx *cx, FILE *f)
{
	const struct cx_eth *e = cx->eth;
	const struct {
		const char *name;
		uint64_t v;
	} st[] = {
		{ "eth_tx_frames", e->st.tx_frames },
		{ "eth_tx_bytes", e->st.tx_bytes },
		{ "eth_rx_frames", e->st.rx_frames },
		{ "eth_rx_bytes", e->st.rx_bytes },
		{ "eth_rx_dropped", e->st.rx_dropped },
		{ "eth_rx_no_wqe", e->st.rx_no_wqe },
		{ "roce_tx", e->st.roce_tx },
		{ "roce_rx", e->st.roce_rx },
		{ "roce_dropped", e->st.roce_dropped },
		{ "roce_bad_icrc", e->st.roce_bad_icrc },
		{ "roce_looped", e->st.roce_looped },
	};
	unsigned int i;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		fprintf(f, "stat: %s %llu\n", st[i].name,
			(unsigned long long)st[i].v);
	fprintf(f, "stat: eth_roce_gids %u\n", cx_eth_roce_gids(e));
}
