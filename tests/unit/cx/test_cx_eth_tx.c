// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5e's transmit SQ on the Ethernet port (en_main.c mlx5e_create_sq,
 * en_tx.c mlx5e_sq_xmit_wqe): CREATE_SQ naming its TIS, SEND and LSO WQEs
 * of a ctrl, an Ethernet and data segments over one or more WQEBBs, the
 * 8-byte doorbell, a requester CQE per signalled WQE; and the errors a
 * ConnectX completes such a WQE with.  Offsets are mlx5_ifc.h's and
 * qp.h's.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_rig.h"
#include "cx_test.h"

enum {
	COMP_EQ = MEM_BASE + 0xb0000,
	CQ_PAGES = MEM_BASE + 0xc0000,
	CQ_DBR = MEM_BASE + 0xc1000,
	SQ_PAGE = MEM_BASE + 0xc2000, /* 8 WQEBBs */
	SQ_DBR = MEM_BASE + 0xc3000,
	FRAME = MEM_BASE + 0xd0000, /* the frames' bytes */
	CTX = 0x100,		    /* create_sq_in.ctx (bits) */
	WQ = CTX + 0x180,
	SEND = 0x0a, /* MLX5_OPCODE_SEND, _LSO */
	LSO = 0x0e,
};

struct t_tx {
	struct cx *cx;
	uint32_t uar, sqn, pd, tis, key;
	int cqn;
	uint16_t pc;
};

static uint32_t obj(struct cx *cx, uint16_t op)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, op, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_OBJ_NUMBER);
}

/* CREATE_SQ with TIS list size N naming TIS (mlx5e's csp): sqn or -st. */
static int create_sq(struct t_tx *t, uint32_t n, uint32_t tis)
{
	uint8_t in[0x118] = { 0 }, out[0x10] = { 0 };

	cx_set(in, 0, 16, CX_OP_CREATE_SQ);
	cx_set(in, CTX + 0x48, 24, (uint32_t)t->cqn);
	cx_set(in, CTX + 0x100, 16, n);	   /* tis_lst_sz */
	cx_set(in, CTX + 0x168, 24, tis);  /* tis_num_0 */
	cx_set(in, WQ, 4, 1);		   /* cyclic */
	cx_set(in, WQ + 0x48, 24, t->pd);  /* wq.pd */
	cx_set(in, WQ + 0x68, 24, t->uar); /* wq.uar_page */
	cx_set64(in, (WQ + 0x80) / 8, SQ_DBR);
	cx_set(in, WQ + 0x10c, 4, 6);
	cx_set(in, WQ + 0x11b, 5, 3);
	cx_set64(in, (WQ + 0x600) / 8, SQ_PAGE);
	return cmd_made(t->cx, in, sizeof(in), out, sizeof(out), 0x48, 24);
}

static void set_rdy(struct t_tx *t)
{
	uint8_t in[0x40] = { 0 }, out[0x10] = { 0 };

	cx_set(in, 0, 16, CX_OP_MODIFY_SQ);
	cx_set(in, 0x48, 24, t->sqn);
	cx_set(in, CTX + 0x8, 4, 1);
	CHECK_EQ(cmd(t->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
}

/* An Ethernet function with a CQ, a PD and its mkey over FRAME, a TIS;
 * an SQ (with the TIS if WITH_TIS) in RDY. */
static void tx_up(struct t_tx *t, bool with_tis)
{
	struct cq_args a = { .log = 3, .pages = CQ_PAGES, .dbr = CQ_DBR };
	uint64_t mtt[4] = { FRAME, FRAME + 4096, FRAME + 8192, FRAME + 12288 };
	uint8_t in[CREATE_TIS_IN_BYTES] = { 0 }, out[16];
	int eqn, sqn;

	memset(t, 0, sizeof(*t));
	dev_eth = true;
	t->cx = dev_up();
	dev_eth = false;
	eqn = make_eq_for(t->cx, 3, 2, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.eqn = eqn;
	t->cqn = make_cq(t->cx, &a);
	CHECK(t->cqn > 0);
	t->pd = t_alloc_pd(t->cx);
	t->key = t_mkey(t->cx, t->pd, FRAME, 4 * 4096, mtt, 0);
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_TIS);
	cx_set(in + B_OBJ_IN_CTX, F_TISC_TRANSPORT_DOMAIN,
	       obj(t->cx, CX_OP_ALLOC_TRANSPORT_DOMAIN));
	t->tis = (uint32_t)cmd_made(t->cx, in, sizeof(in), out, sizeof(out),
				    F_OBJ_OUT_NUMBER);
	CHECK(t->tis > 0);
	t->uar = alloc_uar(t->cx);
	sqn = create_sq(t, with_tis, with_tis ? t->tis : 0);
	CHECK(sqn >= CX_MAX_QP);
	t->sqn = (uint32_t)sqn;
	set_rdy(t);
}

/*
 * A send WQE of OP at the producer counter: IHS inline header bytes (or
 * a VLAN tag to insert when IHS is 0 and VLAN), MSS, then data segments of
 * LEN[] bytes from FRAME with KEY; signalled.  Its ds; posted: the dbrec.
 */
static unsigned int tx_send(struct t_tx *t, uint8_t op, uint16_t ihs, bool vlan,
			    uint16_t mss, const uint32_t *len, unsigned int n,
			    uint32_t key)
{
	uint8_t w[8 * 64] = { 0 };
	unsigned int ds = 2, k, wqebbs;

	ds += ihs > 2 ? (ihs - 2 + 15) / 16 : 0;
	cx_set(w, 0, 32, (uint32_t)t->pc << 8 | op);
	w[11] = 0x8; /* MLX5_WQE_CTRL_CQ_UPDATE */
	cx_set(w, 16 * 8 + 48, 16, mss);
	cx_set(w, 28 * 8, 16, vlan && !ihs ? 0x8000 : ihs);
	for (k = 0; k < n; k++, ds++) {
		cx_set(w, ds * 128, 32, len[k]);
		cx_set(w, ds * 128 + 32, 32, key);
		cx_set64(w, ds * 16 + 8, FRAME);
	}
	cx_set(w, 32, 32, t->sqn << 8 | ds);
	wqebbs = (ds + 3) / 4;
	for (k = 0; k < wqebbs; k++)
		memcpy(at(SQ_PAGE + ((t->pc + k) % 8) * 64), w + k * 64, 64);
	t->pc = (uint16_t)(t->pc + wqebbs);
	cx_set(at(SQ_DBR), 32, 32, t->pc);
	return ds;
}

/* The 8-byte doorbell of the WQE at WQEBB IDX (its first 8 bytes). */
static void tx_ring(struct t_tx *t, uint16_t idx)
{
	CHECK_EQ(cx_bar_write(t->cx, t->uar * CX_PAGE + 0x800,
			      at(SQ_PAGE + (idx % 8) * 64), 8),
		 0);
}

static const uint8_t *tx_cqe(unsigned int n)
{
	return at(CQ_PAGES + n * 64);
}

static void sq_names_one_tis_that_exists(void)
{
	struct cq_args a = { .log = 3, .pages = CQ_PAGES, .dbr = CQ_DBR };
	struct t_tx t;
	int eqn;

	tx_up(&t, true);
	CHECK_EQ(create_sq(&t, 1, t.tis + 1), -CX_BAD_PARAM);
	CHECK_EQ(create_sq(&t, 2, t.tis), -CX_BAD_PARAM);
	CHECK(create_sq(&t, 0, 0) >= CX_MAX_QP); /* an ICOSQ */
	cx_destroy(t.cx);
	/* An InfiniBand port has no TIS to name. */
	t.cx = dev_up();
	eqn = make_eq_for(t.cx, 3, 2, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.eqn = eqn;
	t.cqn = make_cq(t.cx, &a);
	t.pd = t_alloc_pd(t.cx);
	t.uar = alloc_uar(t.cx);
	CHECK_EQ(create_sq(&t, 1, 1), -CX_BAD_PARAM);
	CHECK(create_sq(&t, 0, 0) >= CX_MAX_QP);
	cx_destroy(t.cx);
}

static void send_runs_its_wqebbs_and_completes_with_its_index(void)
{
	static const uint32_t one[] = { 60 }, many[] = { 100, 200, 300, 400 };
	struct t_tx t;

	tx_up(&t, true);
	/* ARP: 60 bytes, no inline header (wqe_inline_mode NOT_REQUIRED) */
	CHECK_EQ(tx_send(&t, SEND, 0, false, 0, one, 1, t.key), 3u);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0); /* MLX5_CQE_REQ */
	CHECK_EQ(cx_get(tx_cqe(0), 60 * 8, 16), 0);
	CHECK_EQ(cx_get(tx_cqe(0), 56 * 8, 32) & 0xffffff, t.sqn);
	CHECK_EQ(t.cx->eth->tx_frames, 1u);
	CHECK_EQ(t.cx->eth->tx_bytes, 60u);
	/* 18 inline bytes and 4 segments: 7 ds, two WQEBBs from index 1 */
	CHECK_EQ(tx_send(&t, SEND, 18, false, 0, many, 4, t.key), 7u);
	tx_ring(&t, 1);
	CHECK_EQ(cx_get(tx_cqe(1), 60 * 8, 16), 1);
	CHECK_EQ(t.cx->eth->tx_bytes, 60u + 18 + 1000);
	/* A tag to insert: 4 bytes more on the wire.  The next is at 3. */
	tx_send(&t, SEND, 0, true, 0, one, 1, t.key);
	tx_ring(&t, 3);
	CHECK_EQ(cx_get(tx_cqe(2), 60 * 8, 16), 3);
	CHECK_EQ(t.cx->eth->tx_frames, 3u);
	CHECK_EQ(t.cx->eth->tx_bytes, 60u + 18 + 1000 + 64);
	cx_destroy(t.cx);
}

static void lso_counts_a_frame_per_mss(void)
{
	static const uint32_t seg[] = { 3000 };
	struct t_tx t;

	tx_up(&t, true);
	/* 54 header bytes inline, 3000 of payload in segments of 1448 */
	tx_send(&t, LSO, 54, false, 1448, seg, 1, t.key);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(t.cx->eth->tx_frames, 3u);
	/* No MSS: not a segmentation the device can do. */
	tx_send(&t, LSO, 54, false, 0, seg, 1, t.key);
	tx_ring(&t, 2);			   /* the first took two WQEBBs */
	CHECK_EQ(tx_cqe(1)[63] >> 4, 0xd); /* MLX5_CQE_REQ_ERR */
	CHECK_EQ(tx_cqe(1)[55], CX_ETH_TX_QP_OP);
	cx_destroy(t.cx);
}

static void a_bad_send_completes_in_error_and_stops_the_sq(void)
{
	static const uint32_t one[] = { 60 }, short_frame[] = { 10 },
			      past[] = { 4 * 4096 + 1 };
	struct t_tx t;

	/* A key that is not the SQ's PD's (or none): a protection error */
	tx_up(&t, true);
	tx_send(&t, SEND, 0, false, 0, one, 1, t.key + 0x100);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_PROT);
	/* In ERR the next WQE does not run. */
	tx_send(&t, SEND, 0, false, 0, one, 1, t.key);
	tx_ring(&t, 1);
	CHECK_EQ(tx_cqe(1)[63] >> 4, 0xf);
	CHECK_EQ(t.cx->eth->tx_frames, 0u);
	cx_destroy(t.cx);
	/* Past the key's end: a protection error too. */
	tx_up(&t, true);
	tx_send(&t, SEND, 0, false, 0, past, 1, t.key);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_PROT);
	cx_destroy(t.cx);
	/* Fewer bytes than an Ethernet header: a length error. */
	tx_up(&t, true);
	tx_send(&t, SEND, 0, false, 0, short_frame, 1, t.key);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_LENGTH);
	cx_destroy(t.cx);
	/* An SQ without a TIS (mlx5e's ICOSQ) sends nothing. */
	tx_up(&t, false);
	tx_send(&t, SEND, 0, false, 0, one, 1, t.key);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	cx_destroy(t.cx);
}

static void a_wqe_not_all_posted_waits(void)
{
	static const uint32_t many[] = { 100, 200, 300, 400 };
	struct t_tx t;

	tx_up(&t, true);
	tx_send(&t, SEND, 18, false, 0, many, 4, t.key); /* two WQEBBs */
	cx_set(at(SQ_DBR), 32, 32, 1);			 /* one posted */
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xf); /* nothing ran */
	cx_set(at(SQ_DBR), 32, 32, 2);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(t.cx->eth->tx_frames, 1u);
	cx_destroy(t.cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(sq_names_one_tis_that_exists),
	CHECK_TEST(send_runs_its_wqebbs_and_completes_with_its_index),
	CHECK_TEST(lso_counts_a_frame_per_mss),
	CHECK_TEST(a_bad_send_completes_in_error_and_stops_the_sq),
	CHECK_TEST(a_wqe_not_all_posted_waits),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_eth_tx_", tests);
}
