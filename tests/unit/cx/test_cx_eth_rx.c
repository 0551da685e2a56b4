// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A frame from the wire on the Ethernet port (cx_eth_rx.c): steered by
 * the NIC receive tables as mlx5e's L2 table matches a destination MAC,
 * to a TIR and its RQ (direct, or an RQT through the Toeplitz hash), into
 * the RQ's next WQE with the responder CQE mlx5e's en_rx.c reads; and
 * what the port drops and counts.  Offsets are mlx5_ifc.h's and
 * device.h's (mlx5_cqe64).
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
	RQ_PAGE = MEM_BASE + 0xc2000, /* 4 WQEs of 32 bytes */
	RQ_DBR = MEM_BASE + 0xc3000,
	BUF = MEM_BASE + 0xd0000, /* the receive buffers, 2 KiB each */
	RQ_LOG_SZ = 2,
	RQ_LOG_STRIDE = 5, /* two data segments */
	/* mlx5_cqe64 */
	CQE_RSS_HASH = 12,
	CQE_CHECK_SUM = 20,
	CQE_HDS_IP_EXT = 28,
	CQE_L4_L3 = 29,
	CQE_VLAN_INFO = 30,
	CQE_BYTE_CNT = 44,
	CQE_WQE_COUNTER = 60,
	CQE_SYNDROME = 55,
	CQE_OP_OWN = 63,
};

static const uint8_t our_mac[6] = CX_ETH_MAC;
static uint8_t in[0x400];

struct t_rx {
	struct cx *cx;
	uint32_t pd, td, key, rqn, tir, ft, fg;
	int cqn;
	uint16_t posted;
};

static int run(struct cx *cx, uint16_t op, uint32_t inlen)
{
	uint8_t out[16];

	cx_set(in, F_IN_OPCODE, op);
	return cmd_made(cx, in, inlen, out, sizeof(out), F_OBJ_OUT_NUMBER);
}

static uint32_t alloc(struct cx *cx, uint16_t op)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, op, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_OBJ_NUMBER);
}

/* An RQ of 4 WQEs of two data segments, VLAN stripping unless VSD, RDY. */
static uint32_t make_rq(struct t_rx *t, bool vsd)
{
	uint8_t *rqc = in + B_OBJ_IN_CTX, *wq = rqc + B_RQC_WQ;
	int rqn;

	memset(in, 0, sizeof(in));
	cx_set(rqc, F_RQC_VSD, vsd);
	cx_set(rqc, F_RQC_CQN, (uint32_t)t->cqn);
	cx_set(wq, F_WQ_WQ_TYPE, 1);
	cx_set(wq, F_WQ_PD, t->pd);
	cx_set(wq, F_WQ_LOG_WQ_STRIDE, RQ_LOG_STRIDE);
	cx_set(wq, F_WQ_LOG_WQ_SZ, RQ_LOG_SZ);
	cx_set64(wq, B_WQ_DBR_ADDR, RQ_DBR);
	cx_set64(in, B_CREATE_RQ_IN_PAS, RQ_PAGE);
	rqn = run(t->cx, CX_OP_CREATE_RQ, B_CREATE_RQ_IN_PAS + 8);
	CHECK(rqn > 0);
	memset(in, 0, sizeof(in));
	cx_set(in, F_OBJ_IN_NUMBER, (uint32_t)rqn);
	cx_set(in + B_OBJ_IN_CTX, F_RQC_STATE, 1);
	CHECK_EQ(run(t->cx, CX_OP_MODIFY_RQ, OBJ_IN_BYTES), 0);
	return (uint32_t)rqn;
}

/* A TIR straight to RQ N, or over an RQT of RQs N and N2 hashed with
 * Toeplitz under KEY on IPv4 addresses and TCP ports. */
static uint32_t make_tir(struct t_rx *t, uint32_t n, uint32_t n2,
			 const uint8_t *key)
{
	uint8_t *ctx = in + B_OBJ_IN_CTX;
	int rqt = 0, tir;

	if (n2) {
		memset(in, 0, sizeof(in));
		cx_set(ctx, F_RQTC_RQT_MAX_SIZE, 2);
		cx_set(ctx, F_RQTC_RQT_ACTUAL_SIZE, 2);
		cx_set(ctx + B_RQTC_RQ_NUM, 8, 24, n);
		cx_set(ctx + B_RQTC_RQ_NUM + 4, 8, 24, n2);
		rqt = run(t->cx, CX_OP_CREATE_RQT,
			  B_OBJ_IN_CTX + B_RQTC_RQ_NUM + 8);
		CHECK(rqt > 0);
	}
	memset(in, 0, sizeof(in));
	cx_set(ctx, F_TIRC_TRANSPORT_DOMAIN, t->td);
	if (n2) {
		cx_set(ctx, F_TIRC_DISP_TYPE, 1);
		cx_set(ctx, F_TIRC_INDIRECT_TABLE, (uint32_t)rqt);
		cx_set(ctx, F_TIRC_RX_HASH_FN, 2);
		memcpy(ctx + B_TIRC_RX_HASH_KEY, key, CX_ETH_RSS_KEY);
		/* IPv4, TCP; SRC_IP, DST_IP, L4_SPORT, L4_DPORT */
		cx_set(ctx, F_TIRC_RX_HASH_SEL_OUTER, 0xf);
	} else {
		cx_set(ctx, F_TIRC_INLINE_RQN, n);
	}
	tir = run(t->cx, CX_OP_CREATE_TIR, OBJ_IN_BYTES);
	CHECK(tir > 0);
	return (uint32_t)tir;
}

static int on_ft(struct cx *cx, uint16_t op, uint32_t ft, uint32_t inlen)
{
	uint8_t out[16];

	cx_set(in, F_IN_OPCODE, op);
	cx_set(in, F_FT_IN_TABLE_ID, ft);
	if (cmd(cx, in, inlen, out, sizeof(out)))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

/* The root table: one group matching the destination MAC, one entry for
 * MAC forwarding to TIR. */
static void steer_mac_to(struct t_rx *t, const uint8_t *mac, uint32_t tir)
{
	uint8_t out[16];

	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_FLOW_TABLE);
	cx_set(in, F_FTC_LOG_SIZE, 2);
	t->ft = (uint32_t)cmd_made(t->cx, in, FT_IN_BYTES, out, sizeof(out),
				   F_CREATE_FLOW_TABLE_OUT_TABLE_ID);
	CHECK(t->ft > 0);
	memset(in, 0, sizeof(in));
	cx_set(in, F_CREATE_FLOW_GROUP_IN_END_FLOW_INDEX, 3);
	cx_set(in, F_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA_ENABLE, 1);
	memset(in + B_CREATE_FLOW_GROUP_IN_MATCH + B_MATCH_DMAC, 0xff, 6);
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_FLOW_GROUP);
	cx_set(in, F_FT_IN_TABLE_ID, t->ft);
	t->fg = (uint32_t)cmd_made(t->cx, in, CREATE_FLOW_GROUP_IN_BYTES, out,
				   sizeof(out),
				   F_CREATE_FLOW_GROUP_OUT_GROUP_ID);
	CHECK(t->fg > 0);
	memset(in, 0, sizeof(in));
	cx_set(in, F_FTE_GROUP_ID, t->fg);
	cx_set(in, F_FTE_ACTION, 0x4);
	cx_set(in, F_FTE_DESTINATION_LIST_SIZE, 1);
	cx_set(in + B_SET_FTE_IN_DESTINATION, F_DEST_TYPE, 2); /* TIR */
	cx_set(in + B_SET_FTE_IN_DESTINATION, F_DEST_ID, tir);
	memcpy(in + B_SET_FTE_IN_MATCH_VALUE + B_MATCH_DMAC, mac, 6);
	CHECK_EQ(on_ft(t->cx, CX_OP_SET_FLOW_TABLE_ENTRY, t->ft,
		       B_SET_FTE_IN_DESTINATION + DEST_BYTES),
		 CX_OK);
	memset(in, 0, sizeof(in));
	CHECK_EQ(on_ft(t->cx, CX_OP_SET_FLOW_TABLE_ROOT, t->ft, FT_IN_BYTES),
		 CX_OK);
}

/* An Ethernet function (its port up) with a CQ, a PD and its key over
 * BUF, an RQ (VLAN stripping unless VSD) that the MAC steers to. */
static void rx_up(struct t_rx *t, bool vsd)
{
	struct cq_args a = { .log = 3, .pages = CQ_PAGES, .dbr = CQ_DBR };
	/* t_mkey reads four entries (two octwords) */
	uint64_t mtt[4] = { BUF, BUF + 4096, BUF + 8192, BUF + 12288 };
	int eqn;

	memset(t, 0, sizeof(*t));
	t->cx = dev_up_eth();
	eqn = make_eq_for(t->cx, 3, 2, &a.uar, COMP_EQ, 0xff);
	CHECK(eqn >= 0);
	a.eqn = eqn;
	t->cqn = make_cq(t->cx, &a);
	CHECK(t->cqn > 0);
	t->pd = t_alloc_pd(t->cx);
	t->td = alloc(t->cx, CX_OP_ALLOC_TRANSPORT_DOMAIN);
	t->key = t_mkey(t->cx, t->pd, BUF, 2 * 4096, mtt,
			IBV_ACCESS_LOCAL_WRITE);
	t->rqn = make_rq(t, vsd);
	t->tir = make_tir(t, t->rqn, 0, NULL);
	steer_mac_to(t, our_mac, t->tir);
}

/* Post the RQ's next WQE: a 64-byte segment then a 1 KiB one, in the
 * WQE's 2 KiB of BUF, with KEY. */
static void post(struct t_rx *t, uint32_t key)
{
	unsigned int i = t->posted % (1 << RQ_LOG_SZ);
	uint8_t *w = at(RQ_PAGE + i * (1 << RQ_LOG_STRIDE));

	t_data(w, 64, key, BUF + i * 2048);
	t_data(w + 16, 1024, key, BUF + i * 2048 + 64);
	t->posted++;
	cx_set(at(RQ_DBR), 0, 32, t->posted);
}

/* An IPv4 UDP or TCP frame to DST of LEN bytes (>= 58), its checksums
 * right; with a VLAN tag of TCI unless 0. */
static unsigned int frame(uint8_t *f, const uint8_t *dst, unsigned int len,
			  bool tcp, uint16_t tci)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 1 };
	static const uint8_t ip[8] = { 66, 9, 149, 187, 161, 142, 100, 80 };
	unsigned int l3 = tci ? 18 : 14, l4 = l3 + 20, i;
	struct cx_eth_pkt p;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	if (tci) {
		cx_set(f, 96, 16, 0x8100);
		cx_set(f, 112, 16, tci);
	}
	cx_set(f, (l3 - 2) * 8, 16, 0x0800);
	f[l3] = 0x45;
	cx_set(f, (l3 + 2) * 8, 16, len - l3);
	f[l3 + 8] = 64;
	f[l3 + 9] = tcp ? 6 : 17;
	/* 66.9.149.187:2794 -> 161.142.100.80:1766 (Microsoft's RSS vector) */
	memcpy(f + l3 + 12, ip, sizeof(ip));
	cx_set(f, l4 * 8, 16, 2794);
	cx_set(f, l4 * 8 + 16, 16, 1766);
	if (tcp)
		f[l4 + 12] = 5 << 4;
	else
		cx_set(f, l4 * 8 + 32, 16, len - l4);
	for (i = l4 + (tcp ? 20 : 8); i < len; i++)
		f[i] = (uint8_t)i;
	CHECK(cx_eth_parse(f, len, &p));
	CHECK_EQ(p.l4, l4);
	cx_eth_fill_l3_csum(f, &p);
	cx_eth_fill_l4_csum(f, &p);
	return len;
}

static const uint8_t *cqe(unsigned int n)
{
	return at(CQ_PAGES + n * 64);
}

static void a_frame_to_our_mac_lands_in_the_next_wqe_with_its_cqe(void)
{
	uint8_t f[600];
	struct t_rx t;
	unsigned int len = frame(f, our_mac, sizeof(f), false, 0);
	uint32_t sum = cx_csum_fold(cx_csum_add(0, f + 14, len - 14));

	rx_up(&t, false);
	post(&t, t.key);
	post(&t, t.key);
	cx_eth_receive(t.cx, f, len);
	/* Scattered: 64 bytes, then the rest in the second segment. */
	CHECK(!memcmp(at(BUF), f, 64));
	CHECK(!memcmp(at(BUF + 64), f + 64, len - 64));
	CHECK_EQ(cqe(0)[CQE_OP_OWN] >> 4, 0x2); /* MLX5_CQE_RESP_SEND */
	CHECK_EQ(cx_get(cqe(0), CQE_BYTE_CNT * 8, 32), len);
	CHECK_EQ(cx_get(cqe(0), CQE_WQE_COUNTER * 8, 16), 0);
	/* L2, L3 and L4 OK; UDP over IPv4; no VLAN. */
	CHECK_EQ(cqe(0)[CQE_HDS_IP_EXT], 0x7);
	CHECK_EQ(cqe(0)[CQE_L4_L3], 2 << 4 | 2 << 2);
	/* The sum of the IP datagram's bytes, as mlx5e_handle_csum takes it */
	CHECK_EQ(cx_get(cqe(0), CQE_CHECK_SUM * 8, 16), sum);
	/* The next frame takes WQE 1. */
	cx_eth_receive(t.cx, f, len);
	CHECK_EQ(cx_get(cqe(1), CQE_WQE_COUNTER * 8, 16), 1);
	CHECK(!memcmp(at(BUF + 2048), f, 64));
	CHECK_EQ(t.cx->eth->st.rx_frames, 2);
	cx_destroy(t.cx);
}

static void a_frame_no_entry_matches_is_dropped(void)
{
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 9 };
	uint8_t f[100];
	struct t_rx t;

	rx_up(&t, false);
	post(&t, t.key);
	cx_eth_receive(t.cx, f, frame(f, other, sizeof(f), false, 0));
	CHECK_EQ(cqe(0)[CQE_OP_OWN] >> 4, 0xf); /* still the driver's */
	CHECK_EQ(t.cx->eth->st.rx_dropped, 1);
	CHECK_EQ(t.cx->eth->st.rx_frames, 0);
	cx_destroy(t.cx);
}

static void a_frame_with_no_wqe_posted_counts_out_of_buffer(void)
{
	uint8_t f[100];
	struct t_rx t;

	rx_up(&t, false);
	cx_eth_receive(t.cx, f, frame(f, our_mac, sizeof(f), false, 0));
	CHECK_EQ(t.cx->eth->st.rx_no_wqe, 1);
	CHECK_EQ(t.cx->eth->rq[t.rqn - 1].no_wqe, 1);
	CHECK_EQ(cqe(0)[CQE_OP_OWN] >> 4, 0xf);
	/* Posted now: the next frame takes WQE 0. */
	post(&t, t.key);
	cx_eth_receive(t.cx, f, sizeof(f));
	CHECK_EQ(cqe(0)[CQE_OP_OWN] >> 4, 0x2);
	CHECK_EQ(cx_get(cqe(0), CQE_WQE_COUNTER * 8, 16), 0);
	cx_destroy(t.cx);
}

static void the_vlan_tag_goes_into_the_cqe_unless_stripping_is_off(void)
{
	uint8_t f[200];
	struct t_rx t;
	unsigned int len = frame(f, our_mac, sizeof(f), true, 0x2007);

	rx_up(&t, false);
	post(&t, t.key);
	cx_eth_receive(t.cx, f, len);
	CHECK_EQ(cx_get(cqe(0), CQE_BYTE_CNT * 8, 32), len - 4);
	CHECK_EQ(cqe(0)[CQE_L4_L3] & 1, 1);
	CHECK_EQ(cx_get(cqe(0), CQE_VLAN_INFO * 8, 16), 0x2007);
	CHECK(!memcmp(at(BUF), f, 12));
	CHECK(!memcmp(at(BUF + 12), f + 16, 52));
	CHECK_EQ(cqe(0)[CQE_HDS_IP_EXT], 0x7);
	cx_destroy(t.cx);

	rx_up(&t, true); /* vsd: the frame as it came */
	post(&t, t.key);
	cx_eth_receive(t.cx, f, len);
	CHECK_EQ(cx_get(cqe(0), CQE_BYTE_CNT * 8, 32), len);
	CHECK_EQ(cqe(0)[CQE_L4_L3] & 1, 0);
	CHECK(!memcmp(at(BUF), f, 64));
	cx_destroy(t.cx);
}

static void a_bad_checksum_is_reported_not_ok(void)
{
	uint8_t f[100];
	struct t_rx t;
	unsigned int len = frame(f, our_mac, sizeof(f), true, 0);

	f[len - 1] ^= 0x40; /* the payload changed after the TCP checksum */
	rx_up(&t, false);
	post(&t, t.key);
	cx_eth_receive(t.cx, f, len);
	CHECK_EQ(cqe(0)[CQE_HDS_IP_EXT], 0x3); /* L2, L3; not L4 */
	CHECK_EQ(cqe(0)[CQE_L4_L3] >> 4, 1);   /* TCP without ACK */
	cx_destroy(t.cx);
}

/* Microsoft's RSS verification suite: the key, and the IPv4 TCP hash of
 * 66.9.149.187:2794 -> 161.142.100.80:1766. */
static void rss_picks_the_rq_by_the_toeplitz_hash(void)
{
	static const uint8_t key[CX_ETH_RSS_KEY] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
		0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
		0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
		0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa
	};
	uint8_t f[100];
	struct t_rx t;
	uint32_t rq2, tir;

	rx_up(&t, false);
	/* The second RQ shares the first's ring: its WQE 0 is posted. */
	rq2 = make_rq(&t, false);
	tir = make_tir(&t, t.rqn, rq2, key);
	memset(in, 0, sizeof(in));
	cx_set(in, F_FTE_IN_FLOW_INDEX, 0);
	CHECK_EQ(on_ft(t.cx, CX_OP_DELETE_FLOW_TABLE_ENTRY, t.ft, FT_IN_BYTES),
		 CX_OK);
	memset(in, 0, sizeof(in));
	cx_set(in, F_FTE_GROUP_ID, t.fg);
	cx_set(in, F_FTE_ACTION, 0x4);
	cx_set(in, F_FTE_DESTINATION_LIST_SIZE, 1);
	cx_set(in + B_SET_FTE_IN_DESTINATION, F_DEST_TYPE, 2);
	cx_set(in + B_SET_FTE_IN_DESTINATION, F_DEST_ID, tir);
	memcpy(in + B_SET_FTE_IN_MATCH_VALUE + B_MATCH_DMAC, our_mac, 6);
	CHECK_EQ(on_ft(t.cx, CX_OP_SET_FLOW_TABLE_ENTRY, t.ft,
		       B_SET_FTE_IN_DESTINATION + DEST_BYTES),
		 CX_OK);
	post(&t, t.key);
	cx_eth_receive(t.cx, f, frame(f, our_mac, sizeof(f), true, 0));
	CHECK_EQ(cx_get(cqe(0), CQE_RSS_HASH * 8, 32), 0x51ccc178);
	CHECK_EQ(cqe(0)[CQE_RSS_HASH + 4], 1 << 6 | 1 << 2); /* TCP, IPv4 */
	/* 0x51ccc178 is even: the RQT's first RQ took it. */
	CHECK_EQ(t.cx->eth->rq[t.rqn - 1].cc, 1);
	CHECK_EQ(t.cx->eth->rq[rq2 - 1].cc, 0);
	cx_destroy(t.cx);
}

static void a_key_that_fails_completes_in_error_and_stops_the_rq(void)
{
	uint8_t f[100];
	struct t_rx t;

	rx_up(&t, false);
	post(&t, t.key + 0x100); /* a key that is not */
	post(&t, t.key);
	cx_eth_receive(t.cx, f, frame(f, our_mac, sizeof(f), false, 0));
	CHECK_EQ(cqe(0)[CQE_OP_OWN] >> 4, 0xe); /* MLX5_CQE_RESP_ERR */
	CHECK_EQ(cqe(0)[CQE_SYNDROME], 0x4);	/* LOCAL_PROT_ERR */
	/* In ERR the RQ takes no more. */
	cx_eth_receive(t.cx, f, sizeof(f));
	CHECK_EQ(cqe(1)[CQE_OP_OWN] >> 4, 0xf);
	CHECK_EQ(t.cx->eth->st.rx_frames, 0);
	cx_destroy(t.cx);
}

static void a_frame_longer_than_the_wqe_or_the_mtu_is_dropped(void)
{
	uint8_t f[1200];
	struct t_rx t;

	rx_up(&t, false);
	post(&t, t.key);
	/* 1,200 bytes over segments of 64 + 1,024: nothing consumed. */
	cx_eth_receive(t.cx, f, frame(f, our_mac, sizeof(f), false, 0));
	CHECK_EQ(t.cx->eth->st.rx_dropped, 1);
	CHECK_EQ(t.cx->eth->rq[t.rqn - 1].cc, 0);
	/* Over PMTU's frame size (with the FCS): dropped at the port. */
	t.cx->eth->admin_mtu = 1000;
	cx_eth_receive(t.cx, f, frame(f, our_mac, 997, false, 0));
	CHECK_EQ(t.cx->eth->st.rx_dropped, 2);
	cx_eth_receive(t.cx, f, frame(f, our_mac, 996, false, 0));
	CHECK_EQ(t.cx->eth->st.rx_frames, 1);
	cx_destroy(t.cx);
}

int main(int argc, char **argv)
{
	static const struct check_test tests[] = {
		CHECK_TEST(
			a_frame_to_our_mac_lands_in_the_next_wqe_with_its_cqe),
		CHECK_TEST(a_frame_no_entry_matches_is_dropped),
		CHECK_TEST(a_frame_with_no_wqe_posted_counts_out_of_buffer),
		CHECK_TEST(
			the_vlan_tag_goes_into_the_cqe_unless_stripping_is_off),
		CHECK_TEST(a_bad_checksum_is_reported_not_ok),
		CHECK_TEST(rss_picks_the_rq_by_the_toeplitz_hash),
		CHECK_TEST(
			a_key_that_fails_completes_in_error_and_stops_the_rq),
		CHECK_TEST(a_frame_longer_than_the_wqe_or_the_mtu_is_dropped),
	};

	return CX_TEST_MAIN(argc, argv, "cx_eth_rx_", tests);
}
