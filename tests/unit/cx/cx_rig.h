/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The data-path rig of the cx unit tests (cx_rig.c): two RC, UC, UD or XRC
 * QPs A and B on one function, made by commands as mlx5_ib makes them, with
 * their MKEYs, CQs and queues in guest pages, and the helpers that write
 * WQEs, ring doorbells and read CQEs.  test_cx_engine.c (the data path),
 * test_cx_doorbell.c (the doorbell rules and BlueFlame) and
 * test_cx_slow.c (the slow device) drive it.
 */
#ifndef DOORBELL_TESTS_CX_RIG_H
#define DOORBELL_TESTS_CX_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cx_engine.h"
#include "cx_ifc.h"
#include "cx_test.h"
#include "m5m_int.h"

#define PG(n) ((uint64_t)MEM_BASE + (uint64_t)(n)*CX_PAGE)

enum {
	RQ_LOG = 6, /* 64 receive WQEs of 64 bytes: the RQ is one page */
	SQ_LOG = 3, /* 8 WQEBBs */
	CQ_LOG = 4,
	P_DBR = 0x2e, /* QP doorbell records, 64 bytes apart */
	P_CQDBR = 0x2f,
	P_CQ = 0x30,   /* A's CQ, then B's */
	P_QP = 0x34,   /* A: RQ 0x35, SQ 0x34; B: RQ 0x37, SQ 0x36 */
	P_BIG = 0x38,  /* 16 KiB QP pages: A 0x38-0x3b, B 0x3c-0x3f */
	P_DATA = 0x40, /* A's pages 0x40-0x43, B's 0x50-0x53 */
	P_EQ = 0x90,
	P_AEQ = 0xa0,
	P_SRQ = 0xb0, /* B's RMP: 16 WQEs of 64 bytes */
	SRQ_LOG = 4,
	VEC = 1,
	CQE_INVALID = 0xf, /* make_cq's opcode */
};

#define ACC_ALL                                                                \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* A's MKEY starts 0x800 into a page: four pages for three pages' length. */
extern const uint64_t t_iova[2];

struct t_rig {
	struct cx *cx;
	uint32_t uar, pd, eqn;
	uint32_t cqn[2], key[2], qpn[2];
	uint64_t mtt[2][4];
	uint16_t sq_pi[2], rq_pi[2];
	uint64_t rq_at[2], sq_at[2]; /* guest addresses of the queues */
	unsigned int lps;	     /* QP pages: 4 KiB << lps */
	uint32_t srqn;		     /* B's receives come from this RMP */
	uint32_t xrcd, xsrqn;	     /* XRC: A is an INI, B a TGT */
};

uint32_t t_alloc_pd(struct cx *cx);
uint32_t t_create_mkey(struct cx *cx, uint8_t *in, size_t inlen);
/* CREATE_MKEY of LEN bytes at IOVA in PD over 4 KiB pages MTT: always
 * four entries (two octwords), whatever LEN needs. */
uint32_t t_mkey(struct cx *cx, uint32_t pd, uint64_t iova, uint64_t len,
		const uint64_t *mtt, int access);
uint32_t t_create_qp(struct t_rig *r, unsigned int i, uint32_t st);
void t_move(struct cx *cx, uint16_t op, uint32_t qpn, const uint8_t *ctx);
void t_up(struct cx *cx, uint32_t qpn, uint32_t dest, uint32_t qkey, bool rts);
uint32_t t_rmp(struct t_rig *r);
int t_tgt(struct t_rig *r, uint32_t xrcd);
uint32_t t_xrc_srq(struct t_rig *r, uint32_t xrcd);
struct t_rig *t_rig_on(uint32_t st, unsigned int lps, bool b_rtr, bool b_srq);
/* The same on function cx (t_rig_on: dev_up()'s). */
struct t_rig *t_rig_with(struct cx *cx, uint32_t st, unsigned int lps,
			 bool b_rtr, bool b_srq);
/*
 * t_up's ack_timeout (0: none), and on an Ethernet function the GID its
 * RoCE address path names, table entry 0's (::ffff:10.0.0.1), and the
 * MAC (t_rmac; NULL: the function's own, whose frames loop back).
 */
extern unsigned int t_ack_timeout;
/* log2 of the READs and atomics a QP has in flight at most (default 4). */
extern unsigned int t_log_sra;
extern const uint8_t t_roce_gid[16];
extern const uint8_t *t_rmac;
struct t_rig *t_rig(uint32_t st);
void t_rig_free(struct t_rig *r);
uint8_t *t_va(struct t_rig *r, unsigned int i, uint64_t iova);
void t_fill(struct t_rig *r, unsigned int i, uint64_t iova, uint32_t len,
	    uint8_t seed);
bool t_same(struct t_rig *r, unsigned int i, uint64_t iova, unsigned int j,
	    uint64_t jova, uint32_t len);
__be32 *t_dbr(unsigned int i);
uint8_t *t_wqe(struct t_rig *r, unsigned int i, uint8_t opcode,
	       unsigned int ds);
void t_data(uint8_t *p, uint32_t len, uint32_t key, uint64_t addr);
void t_raddr(uint8_t *p, uint32_t rkey, uint64_t raddr);
void t_ring(struct t_rig *r, unsigned int i, unsigned int nbb);
void t_send(struct t_rig *r, uint32_t len, uint32_t key, uint64_t addr);
void t_write(struct t_rig *r, uint32_t rkey, uint64_t raddr, uint32_t len,
	     uint32_t key, uint64_t addr);
void t_recv(struct t_rig *r, unsigned int i, uint32_t len, uint64_t addr);
const struct m5_cqe64 *t_cqe(unsigned int i, unsigned int n);
void t_check_req(struct t_rig *r, unsigned int i, uint8_t opcode,
		 uint32_t byte_cnt);
/* The error CQE of WQE 0 of QP 0: REQ_ERR, syndrome, the QP in ERR. */
void t_check_req_err(struct t_rig *r, uint8_t opcode, uint8_t synd);
#endif
