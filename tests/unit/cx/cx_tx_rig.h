/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The transmit rig of the cx_eth_tx tests (cx_tx_rig.c): an Ethernet
 * function with mlx5e's transmit SQ (a CQ, a PD and its mkey over FRAME,
 * a TIS), the send WQEs en_tx.c writes, its doorbell and CQEs, and the
 * wire (cx_host.eth_tx) captured.  Offsets are mlx5_ifc.h's and qp.h's.
 */
#ifndef DOORBELL_TESTS_CX_TX_RIG_H
#define DOORBELL_TESTS_CX_TX_RIG_H

#include <stdbool.h>
#include <stdint.h>

#include "cx_test.h"

enum {
	COMP_EQ = MEM_BASE + 0xb0000,
	CQ_PAGES = MEM_BASE + 0xc0000,
	CQ_DBR = MEM_BASE + 0xc1000,
	SQ_PAGE = MEM_BASE + 0xc2000, /* 8 WQEBBs */
	SQ_DBR = MEM_BASE + 0xc3000,
	FRAME = MEM_BASE + 0xd0000, /* the frames' bytes: 4 pages */
	SEND = 0x0a,		    /* MLX5_OPCODE_SEND, _LSO */
	LSO = 0x0e,
	TX_MAX_FRAMES = 64,
	TX_FRAME_MAX = 9216,
};

struct t_tx {
	struct cx *cx;
	uint32_t uar, sqn, pd, tis, key;
	int cqn;
	uint16_t pc;
};

/* The frames on the wire since tx_up(): how many, their bytes. */
extern unsigned int tx_nframes;
extern unsigned int tx_len[TX_MAX_FRAMES];
extern uint8_t tx_frame[TX_MAX_FRAMES][TX_FRAME_MAX];

/* CREATE_SQ with TIS list size N naming TIS (mlx5e's csp): sqn or -st. */
int tx_create_sq(struct t_tx *t, uint32_t n, uint32_t tis);
/* An Ethernet function with a CQ, a PD and its mkey over FRAME (4 pages,
 * in order), a TIS; an SQ (with the TIS if WITH_TIS) in RDY; the wire
 * captured. */
void tx_up(struct t_tx *t, bool with_tis);

/* A send WQE's Ethernet segment and data segments (from FRAME + ADDR[]). */
struct tx_wqe {
	uint8_t op, cs_flags;
	uint16_t mss;
	uint16_t ihs;		   /* inline header bytes, from HDR */
	const uint8_t *hdr;	   /* NULL: zeros */
	bool vlan;		   /* insert a tag (IHS 0) */
	uint16_t tci, insert_type; /* insert.vlan_tci; extra type bits */
	unsigned int n;
	uint32_t len[8], off[8]; /* data segments: bytes at FRAME + off */
	uint32_t key;		 /* 0: the rig's */
};
/* WQE X at the producer counter, signalled: its ds; posted: the dbrec. */
unsigned int tx_post(struct t_tx *t, const struct tx_wqe *x);
/* The 8-byte doorbell of the WQE at WQEBB IDX (its first 8 bytes). */
void tx_ring(struct t_tx *t, uint16_t idx);
/* tx_post() then tx_ring() of it. */
unsigned int tx_go(struct t_tx *t, const struct tx_wqe *x);
const uint8_t *tx_cqe(unsigned int n);

#endif
