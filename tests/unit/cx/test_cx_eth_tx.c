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
#include "cx_tx_rig.h"

/*
 * A send WQE of OP at the producer counter: IHS inline header bytes (or
 * a VLAN tag to insert when IHS is 0 and VLAN), MSS, then data segments of
 * LEN[] bytes from FRAME with KEY; signalled.  Its ds; posted: the dbrec.
 */
static unsigned int tx_send(struct t_tx *t, uint8_t op, uint16_t ihs, bool vlan,
			    uint16_t mss, const uint32_t *len, unsigned int n,
			    uint32_t key)
{
	struct tx_wqe x = { .op = op,
			    .ihs = ihs,
			    .vlan = vlan,
			    .mss = mss,
			    .n = n,
			    .key = key };

	memcpy(x.len, len, n * sizeof(*len));
	return tx_post(t, &x);
}

static void sq_names_one_tis_that_exists(void)
{
	struct cq_args a = { .log = 3, .pages = CQ_PAGES, .dbr = CQ_DBR };
	struct t_tx t;
	int eqn;

	tx_up(&t, true);
	CHECK_EQ(tx_create_sq(&t, 1, t.tis + 1), -CX_BAD_PARAM);
	CHECK_EQ(tx_create_sq(&t, 2, t.tis), -CX_BAD_PARAM);
	CHECK(tx_create_sq(&t, 0, 0) >= CX_MAX_QP); /* an ICOSQ */
	cx_destroy(t.cx);
	/* An InfiniBand port has no TIS to name. */
	t.cx = dev_up();
	eqn = make_eq_for(t.cx, 3, 2, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.eqn = eqn;
	t.cqn = make_cq(t.cx, &a);
	t.pd = t_alloc_pd(t.cx);
	t.uar = alloc_uar(t.cx);
	CHECK_EQ(tx_create_sq(&t, 1, 1), -CX_BAD_PARAM);
	CHECK(tx_create_sq(&t, 0, 0) >= CX_MAX_QP);
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
	CHECK_EQ(t.cx->eth->st.tx_frames, 1u);
	CHECK_EQ(t.cx->eth->st.tx_bytes, 60u);
	/* 18 inline bytes and 4 segments: 7 ds, two WQEBBs from index 1 */
	CHECK_EQ(tx_send(&t, SEND, 18, false, 0, many, 4, t.key), 7u);
	tx_ring(&t, 1);
	CHECK_EQ(cx_get(tx_cqe(1), 60 * 8, 16), 1);
	CHECK_EQ(t.cx->eth->st.tx_bytes, 60u + 18 + 1000);
	/* A tag to insert: 4 bytes more on the wire.  The next is at 3. */
	tx_send(&t, SEND, 0, true, 0, one, 1, t.key);
	tx_ring(&t, 3);
	CHECK_EQ(cx_get(tx_cqe(2), 60 * 8, 16), 3);
	CHECK_EQ(t.cx->eth->st.tx_frames, 3u);
	CHECK_EQ(t.cx->eth->st.tx_bytes, 60u + 18 + 1000 + 64);
	cx_destroy(t.cx);
}

static void lso_without_mss_is_refused(void)
{
	static const uint32_t seg[] = { 3000 };
	struct t_tx t;

	/* No MSS: not a segmentation the device can do (the frames of
	 * an LSO: test_cx_eth_tx_wire.c). */
	tx_up(&t, true);
	tx_send(&t, LSO, 54, false, 0, seg, 1, t.key);
	tx_ring(&t, 0);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd); /* MLX5_CQE_REQ_ERR */
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	CHECK_EQ(t.cx->eth->st.tx_frames, 0u);
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
	CHECK_EQ(t.cx->eth->st.tx_frames, 0u);
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
	CHECK_EQ(t.cx->eth->st.tx_frames, 1u);
	cx_destroy(t.cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(sq_names_one_tis_that_exists),
	CHECK_TEST(send_runs_its_wqebbs_and_completes_with_its_index),
	CHECK_TEST(lso_without_mss_is_refused),
	CHECK_TEST(a_bad_send_completes_in_error_and_stops_the_sq),
	CHECK_TEST(a_wqe_not_all_posted_waits),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_eth_tx_", tests);
}
