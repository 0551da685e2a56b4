/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The Ethernet port (cx-server --eth): what the function holds for
 * Linux's mlx5e on top of the InfiniBand function's objects.  Its files:
 *	cx_eth_caps.c	the general caps an Ethernet port changes, and the
 *			ETHERNET_OFFLOADS and FLOW_TABLE capability pages
 *	cx_eth_fs.c	NIC receive flow tables, groups and entries
 *	cx_eth_tir.c	TIS, TIR, RQT: what mlx5e's transmit and receive
 *			sides name
 *	cx_eth_rq.c	Ethernet RQs (mlx5e's drop RQ) and Q counters
 *	cx_eth_tx.c	the send WQEs of Ethernet SQs (cx_sq.c): their
 *			frames (checksums, LSO segments) on the wire
 *	cx_eth_rx.c	a frame from the wire: steered to an RQ's WQE
 *			with its CQE, or dropped and counted
 *	cx_eth_pkt.c	a frame's headers; the Internet checksum
 *	cx_eth_roce.c	the RoCE address table (GIDs)
 *	cx_eth_vport.c	the NIC vport context, the vport state, the port
 *			registers (PMTU, PTYS, PAOS) and NODE_DESC
 *	cx_eth.c	command dispatch, state, reset
 * With the InfiniBand port (the default) cx->eth is NULL and every
 * command of these files answers BAD_OP, as before they existed.  The
 * wire is the host's (cx_host.eth_tx, cx_eth_receive; cx-server's
 * wire.c).
 */
#ifndef DOORBELL_TESTS_CX_ETH_H
#define DOORBELL_TESTS_CX_ETH_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "cx_int.h"

struct cx_eth_pkt;

/* Opcodes (mlx5_ifc.h MLX5_CMD_OP_*). */
enum {
	CX_OP_SET_FLOW_TABLE_ROOT = 0x92f,
	CX_OP_CREATE_FLOW_TABLE = 0x930,
	CX_OP_DESTROY_FLOW_TABLE = 0x931,
	CX_OP_CREATE_FLOW_GROUP = 0x933,
	CX_OP_DESTROY_FLOW_GROUP = 0x934,
	CX_OP_SET_FLOW_TABLE_ENTRY = 0x936,
	CX_OP_DELETE_FLOW_TABLE_ENTRY = 0x938,
	CX_OP_MODIFY_FLOW_TABLE = 0x93c,
	CX_OP_CREATE_TIR = 0x900,
	CX_OP_MODIFY_TIR = 0x901,
	CX_OP_DESTROY_TIR = 0x902,
	CX_OP_CREATE_RQ = 0x908,
	CX_OP_MODIFY_RQ = 0x909,
	CX_OP_DESTROY_RQ = 0x90a,
	CX_OP_CREATE_TIS = 0x912,
	CX_OP_DESTROY_TIS = 0x914,
	CX_OP_CREATE_RQT = 0x916,
	CX_OP_MODIFY_RQT = 0x917,
	CX_OP_DESTROY_RQT = 0x918,
	CX_OP_ALLOC_Q_COUNTER = 0x771,
	CX_OP_DEALLOC_Q_COUNTER = 0x772,
	CX_OP_QUERY_VPORT_STATE = 0x750,
	CX_OP_QUERY_VPORT_COUNTER = 0x770,
	CX_OP_QUERY_Q_COUNTER = 0x773,
	CX_OP_QUERY_HCA_VPORT_PKEY = 0x765,
	CX_OP_QUERY_NIC_VPORT_CONTEXT = 0x754,
	CX_OP_MODIFY_NIC_VPORT_CONTEXT = 0x755,
	CX_OP_QUERY_ROCE_ADDRESS = 0x760,
	CX_OP_SET_ROCE_ADDRESS = 0x761,
};

/*
 * The port: its MAC (Mellanox's OUI, ending in "cx" as the GUIDs do),
 * the largest frame PMTU offers (the MTU with its Ethernet header, VLAN
 * tag and FCS: mlx5e's MLX5E_SW2HW_MTU), the allowed lists' room
 * (log_max_current_uc_list, _mc_list, log_max_vlan_list).
 */
#define CX_ETH_MAC                                                             \
	{                                                                      \
		0x00, 0x02, 0xc9, 0x00, 0x63, 0x78                             \
	}
enum {
	CX_ETH_MAX_MTU = 9216,
	CX_ETH_LOG_MAX_UC_LIST = 4,
	CX_ETH_LOG_MAX_MC_LIST = 6,
	CX_ETH_LOG_MAX_VLAN_LIST = 6,
	CX_ETH_LISTS = 3, /* MLX5_NVPRT_LIST_TYPE_UC, _MC, _VLAN */
	CX_ETH_MAX_LIST = 1 << 6,
	CX_ETH_RSS_KEY = 40,	/* rx_hash_toeplitz_key */
	CX_ETH_ROCE_GIDS = 256, /* roce_address_table_size */
};

/* An entry of the RoCE address table (roce_addr_layout): a GID, the MAC
 * and VLAN it goes out with, its L3 type and RoCE version. */
struct cx_eth_gid {
	bool valid;
	uint8_t gid[16];
	uint8_t mac[6];
	bool vlan;
	uint16_t vlan_id;
	uint8_t l3_type; /* MLX5_ROCE_L3_TYPE_IPV4, _IPV6 */
	uint8_t version; /* MLX5_ROCE_VERSION_1, _2 */
};

/*
 * The flow-table limits cx_eth_caps.c advertises (flow_table_prop_layout
 * of flow_table_properties_nic_receive) and cx_eth_fs.c enforces.
 * max_ft_level must reach fs_core.c's ANCHOR_MIN_LEVEL, or mlx5_core has
 * no anchor namespace and fails to load.
 */
enum {
	CX_ETH_MAX_FT_LEVEL = 64,
	CX_ETH_LOG_MAX_FT_SIZE = 16,
	CX_ETH_LOG_MAX_FT_NUM = 6,
	CX_ETH_MAX_FT = 1 << CX_ETH_LOG_MAX_FT_NUM,
	CX_ETH_MAX_FG = 256,
	CX_ETH_MAX_FTE = 1024,
	CX_ETH_LOG_MAX_DEST = 4,
	/* log_max_tis, _tir, _rqt, _rqt_size, _rq, _wq_sz; Q counters */
	CX_ETH_LOG_MAX_TIS = 8,
	CX_ETH_LOG_MAX_TIR = 8,
	CX_ETH_LOG_MAX_RQT = 6,
	CX_ETH_LOG_MAX_RQT_SIZE = 8,
	CX_ETH_LOG_MAX_RQ = 8,
	CX_ETH_LOG_MAX_WQ_SZ = 16,
	CX_ETH_MAX_Q_COUNTER = 64,
};

/* A TIR: its RQ, or its RQT and RSS hash (rx_hash_*, outer selector). */
struct cx_eth_tir {
	bool valid, indirect;
	uint8_t self_lb_block; /* MLX5_TIRC_SELF_LB_BLOCK_BLOCK_* */
	uint32_t target;       /* the RQ (direct) or the RQT (indirect) */
	uint8_t hash_fn;       /* MLX5_RX_HASH_FN_* */
	bool symmetric;
	uint32_t selector; /* rx_hash_field_selector_outer, as one dword */
	uint8_t key[CX_ETH_RSS_KEY];
};

/*
 * What a flow group matches on and an entry's value: the first two parts
 * of fte_match_param (outer_headers, misc_parameters), the ones
 * match_criteria_enable may name here.
 */
enum {
	CX_ETH_MATCH_BYTES = 128,
	CX_ETH_MATCH_OUTER = 0,
	CX_ETH_MATCH_MISC = 64,
};

struct cx_eth_rqt {
	bool valid;
	uint32_t max, n;
	uint32_t rq[1 << CX_ETH_LOG_MAX_RQT_SIZE];
};

/* An RQ of mlx5e's: its state (MLX5_RQC_STATE_*), CQ and pages. */
struct cx_eth_rq {
	bool valid;
	uint8_t state, log_sz, log_stride, log_pg_sz, page_offset;
	bool vsd;    /* VLAN strip disable */
	uint16_t cc; /* WQEs the port has filled */
	uint32_t cqn, pd, counter;
	uint32_t no_wqe; /* frames dropped for want of a WQE */
	uint64_t dbr;
	uint32_t npas;
	uint64_t *pas;
};

struct cx_eth_ft {
	bool valid;
	uint8_t level, log_size, miss_action;
	uint32_t miss_id;
};

struct cx_eth_fg {
	bool valid;
	uint8_t criteria_enable;
	uint32_t ft, start, end;	  /* table id, first and last index */
	uint8_t mask[CX_ETH_MATCH_BYTES]; /* parts not enabled: 0 */
};

struct cx_eth_fte {
	bool valid;
	uint16_t action;
	uint32_t ft, index, group;
	uint8_t value[CX_ETH_MATCH_BYTES];
	uint32_t ndest;
	struct {
		uint8_t type; /* MLX5_IFC_FLOW_DESTINATION_TYPE_* */
		uint32_t id;
	} dest[1 << CX_ETH_LOG_MAX_DEST];
};

/* A frame the port looped back to itself (cx_roce.c), waiting. */
struct cx_eth_frame {
	struct cx_eth_frame *next;
	unsigned int len;
	uint8_t b[];
};

/* The port's statistics (cx-server's stat lines); a reset keeps them. */
struct cx_eth_stats {
	/* cx_eth_tx.c: frames the SQs sent (LSO: per segment), and their
	 * bytes on the wire (padding included) */
	uint64_t tx_frames, tx_bytes;
	/* cx_eth_rx.c: frames received into an RQ; dropped: the port down,
	 * no entry steered them to an RQ in RDY, longer than the WQE, or
	 * (rx_no_wqe) the RQ had no WQE posted */
	uint64_t rx_frames, rx_bytes, rx_dropped, rx_no_wqe;
	/* cx_roce.c: RoCE v2 frames sent and taken by the engine, dropped
	 * (of those, with a bad ICRC) */
	uint64_t roce_tx, roce_rx, roce_dropped, roce_bad_icrc;
	/* of roce_tx, looped back to the port itself */
	uint64_t roce_looped;
};

struct cx_eth {
	struct cx_eth_ft ft[CX_ETH_MAX_FT]; /* table id N at ft[N - 1] */
	uint32_t root_ft;		    /* SET_FLOW_TABLE_ROOT's; 0: none */
	struct cx_eth_fg fg[CX_ETH_MAX_FG]; /* group id N at fg[N - 1] */
	struct cx_eth_fte fte[CX_ETH_MAX_FTE];
	/* cx_eth_tir.c, cx_eth_rq.c: number N at [N - 1] */
	bool tis[1 << CX_ETH_LOG_MAX_TIS];
	struct cx_eth_tir tir[1 << CX_ETH_LOG_MAX_TIR];
	struct cx_eth_rqt rqt[1 << CX_ETH_LOG_MAX_RQT];
	struct cx_eth_rq rq[1 << CX_ETH_LOG_MAX_RQ];
	bool q_counter[CX_ETH_MAX_Q_COUNTER];
	/* cx_eth_vport.c */
	uint8_t mac[6]; /* cx_host's, or CX_ETH_MAC */
	bool roce_en;	/* nic_vport_context.roce_en */
	/* cx_eth_roce.c */
	struct cx_eth_gid gid[CX_ETH_ROCE_GIDS];
	uint16_t vport_mtu;   /* 0 until MODIFY_NIC_VPORT_CONTEXT sets it */
	uint16_t admin_mtu;   /* PMTU */
	uint8_t admin_status; /* PAOS: MLX5_PORT_UP (1) or _DOWN (2) */
	bool promisc_uc, promisc_mc, promisc_all;
	uint32_t list_size[CX_ETH_LISTS];
	uint8_t list[CX_ETH_LISTS][CX_ETH_MAX_LIST][8];
	struct cx_eth_stats st;
	/* cx_roce.c: frames to the port's own MAC, and their count */
	struct cx_eth_frame *loop, **loop_tail;
	unsigned int nloop;
	bool looping;
};

/* cx_eth_caps.c: the *N fields of capability type TYPE an Ethernet port
 * sets over the InfiniBand function's (cx_caps.c); *N 0: none. */
const struct cx_cap *cx_eth_caps(uint32_t type, unsigned int *n);

int cx_eth_vport_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
void cx_eth_vport_reset(struct cx_eth *e);
int cx_eth_tir_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
int cx_eth_rq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
/* The RQs' pages freed (before the state is cleared). */
void cx_eth_rq_reset(struct cx_eth *e);
/* Whether N is a TIR (a flow entry's destination), an RQ. */
bool cx_eth_tir_valid(const struct cx_eth *e, uint32_t n);
bool cx_eth_rq_valid(const struct cx_eth *e, uint32_t n);
/* Whether RQ N is named by a TIR or an RQT (it stays while it is). */
bool cx_eth_rq_named(const struct cx_eth *e, uint32_t n);
/* The statistic lines of the Ethernet port (cx_eng_report's). */
void cx_eth_report(const struct cx *cx, FILE *f);
/* Whether N is a TIS (an SQ's tis_num_0). */
bool cx_eth_tis_valid(const struct cx_eth *e, uint32_t n);
/*
 * cx_eth_tx.c: send WQE W (MLX5_OPCODE_SEND or _LSO; LEN bytes of it
 * read, all its ds) of an SQ in PD, with cx->eth set: 0 once its frames
 * are on the wire and counted, else the error CQE's syndrome
 * (MLX5_CQE_SYNDROME_*; then no frame went).
 */
enum {
	CX_ETH_TX_LENGTH = 0x1, /* _LOCAL_LENGTH_ERR */
	CX_ETH_TX_QP_OP = 0x2,	/* _LOCAL_QP_OP_ERR */
	CX_ETH_TX_PROT = 0x4,	/* _LOCAL_PROT_ERR */
};
int cx_eth_tx(struct cx *cx, uint32_t pd, const uint8_t *w, unsigned int len);
int cx_eth_fs_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
int cx_eth_roce_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
/*
 * cx_roce.c: whether frame F is RoCE v2 for this port (taken by the
 * engine or dropped; false: the NIC receive tables have it).
 */
bool cx_roce_receive(struct cx *cx, const uint8_t *f, unsigned int len);
/*
 * cx_roce.c: receive what the port sent to its own MAC (after the engine
 * call that sent it; a call within one does nothing); free what waits.
 */
void cx_roce_loop_run(struct cx *cx);
void cx_roce_loop_free(struct cx_eth *e);
/* How many entries of the RoCE address table hold a GID. */
unsigned int cx_eth_roce_gids(const struct cx_eth *e);

/*
 * cx_eth_pkt.c: a frame's headers as the port's parser finds them (one
 * C-VLAN tag at most; IPv4 or IPv6 without extension headers; TCP or UDP
 * of an unfragmented datagram).  Offsets from the frame's start; 0: not
 * found.  The Internet checksum (RFC 1071): cx_csum_add sums N bytes as
 * big-endian 16-bit words (an odd last byte padded with 0) onto SUM,
 * cx_csum_fold folds a sum to 16 bits (not complemented).
 */
struct cx_eth_pkt {
	unsigned int len;
	uint16_t ethertype; /* after the tag, if any */
	bool vlan;	    /* a C-VLAN tag follows the MACs */
	uint16_t tci;
	uint8_t ip_version; /* 4, 6; 0: not IP */
	uint8_t ip_proto;   /* IPv4 protocol, IPv6 next header */
	bool frag;	    /* a fragment (IPv4 MF or offset, IPv6 header 44) */
	unsigned int l3;    /* the IP header */
	unsigned int l3_end; /* l3 + the IP datagram's length (in the frame) */
	unsigned int l4;     /* the TCP or UDP header */
};
/* False for a frame shorter than an Ethernet header. */
bool cx_eth_parse(const uint8_t *f, unsigned int len, struct cx_eth_pkt *p);
uint32_t cx_csum_add(uint32_t sum, const uint8_t *p, unsigned int n);
uint16_t cx_csum_fold(uint32_t sum);
/* Whether the IPv4 header checksum holds (IPv6: true); the TCP or UDP
 * checksum with its pseudo-header (an IPv4 UDP checksum of 0: true). */
bool cx_eth_l3_csum_ok(const uint8_t *f, const struct cx_eth_pkt *p);
bool cx_eth_l4_csum_ok(const uint8_t *f, const struct cx_eth_pkt *p);
/* Compute and write the IPv4 header's, the TCP or UDP checksum. */
void cx_eth_fill_l3_csum(uint8_t *f, const struct cx_eth_pkt *p);
void cx_eth_fill_l4_csum(uint8_t *f, const struct cx_eth_pkt *p);
/* Whether ID is a NIC receive flow table (for a forward to it). */
bool cx_eth_ft_valid(const struct cx_eth *e, uint32_t id);
/*
 * The TIR that the NIC receive tables steer a frame to, given its match
 * parameters M (CX_ETH_MATCH_BYTES, as struct cx_eth_fg's mask); 0 when
 * a table drops it or misses with the default action.
 */
uint32_t cx_eth_fs_steer(const struct cx_eth *e, const uint8_t *m);
/*
 * The RQ of TIR N for frame F (P its headers): the direct TIR's, or the
 * RQT entry the hash picks; *HASH and *HTYPE are the CQE's
 * rss_hash_result and rss_hash_type (0 for a direct TIR).  0: none.
 */
uint32_t cx_eth_tir_rq(const struct cx_eth *e, uint32_t n, const uint8_t *f,
		       const struct cx_eth_pkt *p, uint32_t *hash,
		       uint8_t *htype);
/* Whether a flow entry forwards to TIR N (it stays while one does). */
bool cx_eth_fs_dest_named(const struct cx_eth *e, uint32_t n);

#endif
