// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What an Ethernet SQ's send WQEs put on the wire (cx_eth_tx.c, captured
 * through cx_host.eth_tx): the inline headers then the data segments'
 * bytes (a segment across host runs), the VLAN tag inserted after the
 * MACs, short frames padded, the checksums mlx5e's cs_flags ask for
 * (en_tx.c mlx5e_txwqe_build_eseg_csum), LSO's segments with their
 * headers fixed up as a ConnectX fixes them, and the lengths refused.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_rig.h"
#include "cx_test.h"
#include "cx_tx_rig.h"

enum {
	CS_L3 = 0x40, /* MLX5_ETH_WQE_L3_CSUM, _L4_ */
	CS_L4 = 0x80,
	TCP_FLAGS = 0x80 | 0x10 | 0x08 | 0x01, /* CWR ACK PSH FIN */
	SEQ = 0xfffff000u,		       /* wraps in the second segment */
	IP_ID = 0xfffe,			       /* wraps too */
};

/* The payload at FRAME + OFF: LEN bytes of a pattern from SEED. */
static void fill(uint32_t off, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		at(FRAME + off)[i] = (uint8_t)(seed + i * 7);
}

/*
 * Headers at H as the kernel hands them to mlx5e: Ethernet (a C-VLAN tag
 * if VLAN), IPv4 (id IP_ID, DF) or IPv6, TCP (SEQ, TCP_FLAGS) or UDP, for
 * PAYLOAD bytes after them; the L4 checksum field holds junk (mlx5e
 * leaves the pseudo-header's sum there), the IPv4 one too.  Their length.
 */
static unsigned int headers(uint8_t *h, bool vlan, bool v6, bool udp,
			    unsigned int payload)
{
	unsigned int n = 12, l4, ip_len;

	memcpy(h, "\x02\x00\x00\x00\x00\x02\x00\x02\xc9\x00\x63\x78", 12);
	if (vlan) {
		memcpy(h + n, "\x81\x00\x00\x07", 4);
		n += 4;
	}
	memcpy(h + n, v6 ? "\x86\xdd" : "\x08\x00", 2);
	n += 2;
	l4 = n + (v6 ? 40 : 20);
	ip_len = (l4 - n) + (udp ? 8 : 20) + payload;
	memset(h + n, 0, l4 - n);
	if (v6) {
		h[n] = 0x60;
		h[n + 4] = (uint8_t)((ip_len - 40) >> 8);
		h[n + 5] = (uint8_t)(ip_len - 40);
		h[n + 6] = udp ? 17 : 6;
		h[n + 7] = 64;
		h[n + 8] = 0xfd;
		h[n + 23] = 1;
		h[n + 24] = 0xfd;
		h[n + 39] = 2;
	} else {
		memcpy(h + n,
		       "\x45\x00\x00\x00\xff\xfe\x40\x00\x40\x00\xde\xad"
		       "\x0a\x00\x00\x01\x0a\x00\x00\x02",
		       20);
		h[n + 2] = (uint8_t)(ip_len >> 8);
		h[n + 3] = (uint8_t)ip_len;
		h[n + 9] = udp ? 17 : 6;
	}
	if (udp) {
		memcpy(h + l4, "\x30\x39\x00\x35\x00\x00\xbe\xef", 8);
		h[l4 + 4] = (uint8_t)((8 + payload) >> 8);
		h[l4 + 5] = (uint8_t)(8 + payload);
		return l4 + 8;
	}
	memcpy(h + l4,
	       "\x04\xd2\x00\x50\xff\xff\xf0\x00\x00\x00\x00\x01\x50\x99"
	       "\xff\xff\xbe\xef\x00\x00",
	       20);
	return l4 + 20;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

/* Frame K on the wire, parsed, with both checksums right. */
static void check_sums(unsigned int k, struct cx_eth_pkt *p)
{
	CHECK(cx_eth_parse(tx_frame[k], tx_len[k], p));
	CHECK(p->l4 != 0);
	CHECK(cx_eth_l3_csum_ok(tx_frame[k], p));
	CHECK(cx_eth_l4_csum_ok(tx_frame[k], p));
}

static void send_puts_the_inline_headers_then_the_data(void)
{
	struct tx_wqe x = { .op = SEND, .ihs = 18, .n = 2 };
	struct t_tx t;

	tx_up(&t, true);
	fill(0, 18, 1); /* the inline bytes, kept beside for the check */
	fill(100, 50, 2);
	fill(300, 40, 3);
	x.hdr = at(FRAME);
	x.len[0] = 50;
	x.off[0] = 100;
	x.len[1] = 40;
	x.off[1] = 300;
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(tx_nframes, 1u);
	CHECK_EQ(tx_len[0], 108u);
	CHECK(!memcmp(tx_frame[0], at(FRAME), 18));
	CHECK(!memcmp(tx_frame[0] + 18, at(FRAME + 100), 50));
	CHECK(!memcmp(tx_frame[0] + 68, at(FRAME + 300), 40));
	CHECK_EQ(t.cx->eth->st.tx_bytes, 108u);
	cx_destroy(t.cx);
}

static void a_segment_is_read_across_the_host_runs_of_its_key(void)
{
	/* A key whose first two pages are swapped on the host. */
	uint64_t mtt[4] = { FRAME + 4096, FRAME, FRAME + 8192, FRAME + 12288 };
	struct tx_wqe x = { .op = SEND, .n = 1 };
	struct t_tx t;

	tx_up(&t, true);
	fill(4096 + 4000, 96, 5);
	fill(0, 104, 6);
	x.key = t_mkey(t.cx, t.pd, 0x40000000, 8192, mtt, 0);
	x.len[0] = 200;
	x.off[0] = 0x40000000 + 4000 - FRAME; /* the key's iova */
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(tx_len[0], 200u);
	CHECK(!memcmp(tx_frame[0], at(FRAME + 4096 + 4000), 96));
	CHECK(!memcmp(tx_frame[0] + 96, at(FRAME), 104));
	cx_destroy(t.cx);
}

static void the_tag_goes_after_the_macs(void)
{
	struct tx_wqe x = {
		.op = SEND, .vlan = true, .tci = 0x6123, .n = 1, .len = { 70 }
	};
	struct t_tx t;

	tx_up(&t, true);
	fill(0, 70, 9);
	tx_go(&t, &x);
	CHECK_EQ(tx_len[0], 74u);
	CHECK(!memcmp(tx_frame[0], at(FRAME), 12));
	CHECK(!memcmp(tx_frame[0] + 12, "\x81\x00\x61\x23", 4));
	CHECK(!memcmp(tx_frame[0] + 16, at(FRAME + 12), 58));
	/* MLX5_ETH_WQE_SVLAN: an 802.1ad tag. */
	x.insert_type = 0x1;
	tx_go(&t, &x);
	CHECK_EQ(tx_nframes, 2u);
	CHECK(!memcmp(tx_frame[1] + 12, "\x88\xa8\x61\x23", 4));
	CHECK_EQ(t.cx->eth->st.tx_bytes, 148u);
	cx_destroy(t.cx);
}

static void a_short_frame_is_padded_to_60_bytes(void)
{
	struct tx_wqe x = { .op = SEND, .n = 1, .len = { 42 } };
	static const uint8_t zero[18];
	struct t_tx t;

	tx_up(&t, true);
	fill(0, 64, 4);
	tx_go(&t, &x); /* an ARP request */
	CHECK_EQ(tx_len[0], 60u);
	CHECK(!memcmp(tx_frame[0], at(FRAME), 42));
	CHECK(!memcmp(tx_frame[0] + 42, zero, 18));
	CHECK_EQ(t.cx->eth->st.tx_bytes, 60u);
	cx_destroy(t.cx);
}

static void checksums_are_filled_as_cs_flags_ask(void)
{
	uint8_t h[128];
	unsigned int ihs = headers(h, false, false, false, 300);
	struct tx_wqe x = { .op = SEND,
			    .ihs = (uint16_t)ihs,
			    .hdr = h,
			    .n = 1,
			    .len = { 300 },
			    .off = { 0x1000 } };
	struct cx_eth_pkt p;
	struct t_tx t;

	tx_up(&t, true);
	fill(0x1000, 300, 3);
	/* None asked: the junk stays. */
	tx_go(&t, &x);
	CHECK(cx_eth_parse(tx_frame[0], tx_len[0], &p));
	CHECK(!cx_eth_l3_csum_ok(tx_frame[0], &p));
	CHECK(!cx_eth_l4_csum_ok(tx_frame[0], &p));
	/* L3 alone. */
	x.cs_flags = CS_L3;
	tx_go(&t, &x);
	CHECK(cx_eth_parse(tx_frame[1], tx_len[1], &p));
	CHECK(cx_eth_l3_csum_ok(tx_frame[1], &p));
	CHECK(!cx_eth_l4_csum_ok(tx_frame[1], &p));
	/* Both, as mlx5e asks for CHECKSUM_PARTIAL. */
	x.cs_flags = CS_L3 | CS_L4;
	tx_go(&t, &x);
	check_sums(2, &p);
	CHECK(!memcmp(tx_frame[2] + ihs, at(FRAME + 0x1000), 300));
	/* UDP over IPv6 behind a tag, the headers from the data. */
	ihs = headers(at(FRAME + 0x2000), true, true, true, 333);
	fill(0x2000 + ihs, 333, 8);
	x = (struct tx_wqe){ .op = SEND,
			     .cs_flags = CS_L3 | CS_L4,
			     .n = 1,
			     .len = { ihs + 333 },
			     .off = { 0x2000 } };
	tx_go(&t, &x);
	check_sums(3, &p);
	CHECK(p.vlan);
	CHECK_EQ(p.ip_version, 6);
	CHECK_EQ(tx_nframes, 4u);
	cx_destroy(t.cx);
}

static void inner_checksums_are_refused(void)
{
	struct tx_wqe x = {
		.op = SEND, .cs_flags = 0x30, .n = 1, .len = { 60 }
	};
	struct t_tx t;

	tx_up(&t, true);
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	CHECK_EQ(tx_nframes, 0u);
	cx_destroy(t.cx);
}

static void a_frame_past_the_largest_mtu_is_a_length_error(void)
{
	/* 9216 with its FCS: 9212 bytes, or the tag makes it 9213. */
	struct tx_wqe x = { .op = SEND, .n = 1, .len = { 9212 } };
	struct t_tx t;

	tx_up(&t, true);
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(tx_len[0], 9212u);
	x.vlan = true;
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(1)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(1)[55], CX_ETH_TX_LENGTH);
	CHECK_EQ(tx_nframes, 1u);
	cx_destroy(t.cx);
}

/* LSO of PAYLOAD bytes at MSS behind headers (VLAN, V6, UDP): posted. */
static unsigned int lso_go(struct t_tx *t, uint8_t *h, bool vlan, bool v6,
			   bool udp, unsigned int payload, uint16_t mss)
{
	unsigned int ihs = headers(h, vlan, v6, udp, payload);
	struct tx_wqe x = { .op = LSO,
			    .cs_flags = CS_L3 | CS_L4,
			    .mss = mss,
			    .ihs = (uint16_t)ihs,
			    .hdr = h,
			    .n = 2,
			    .len = { 1000, payload - 1000 },
			    .off = { 0x100, 0x2000 } };

	fill(0x100, 1000, 1);
	fill(0x2000, payload - 1000, 77);
	tx_go(t, &x);
	return ihs;
}

/* Segment K's payload: N bytes from OFF in the LSO's payload. */
static bool seg_payload(unsigned int k, unsigned int ihs, unsigned int off,
			unsigned int n)
{
	const uint8_t *s = tx_frame[k] + ihs;
	unsigned int i;

	for (i = 0; i < n; i++, off++)
		if (s[i] != (off < 1000 ? at(FRAME + 0x100)[off]
					: at(FRAME + 0x2000)[off - 1000]))
			return false;
	return true;
}

static void lso_cuts_tcp_over_ipv4_into_mss_segments(void)
{
	uint8_t h[128];
	struct cx_eth_pkt p;
	struct t_tx t;
	unsigned int ihs, k;

	tx_up(&t, true);
	ihs = lso_go(&t, h, false, false, false, 3000, 1448);
	CHECK_EQ(ihs, 54u);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(tx_nframes, 3u);
	CHECK_EQ(t.cx->eth->st.tx_frames, 3u);
	CHECK_EQ(t.cx->eth->st.tx_bytes, 3000u + 3 * 54);
	for (k = 0; k < 3; k++) {
		unsigned int n = k < 2 ? 1448 : 104;
		const uint8_t *f = tx_frame[k];

		CHECK_EQ(tx_len[k], 54 + n);
		check_sums(k, &p);
		CHECK_EQ(p.l3_end, 54 + n); /* total length */
		CHECK_EQ(be16(f + 18), (uint16_t)(IP_ID + k)); /* id */
		CHECK_EQ(be32(f + 38), SEQ + k * 1448);
		CHECK(!memcmp(f, h, 16));	    /* MACs, type, tos */
		CHECK(!memcmp(f + 20, h + 20, 4));  /* DF, TTL, proto */
		CHECK(!memcmp(f + 26, h + 26, 12)); /* addresses, ports */
		CHECK(seg_payload(k, 54, k * 1448, n));
	}
	CHECK_EQ(tx_frame[0][47], 0x80 | 0x10); /* CWR ACK */
	CHECK_EQ(tx_frame[1][47], 0x10);
	CHECK_EQ(tx_frame[2][47], 0x10 | 0x08 | 0x01); /* ACK PSH FIN */
	cx_destroy(t.cx);
}

static void lso_cuts_tagged_tcp_over_ipv6(void)
{
	uint8_t h[128];
	struct cx_eth_pkt p;
	struct t_tx t;
	unsigned int ihs, k;

	tx_up(&t, true);
	ihs = lso_go(&t, h, true, true, false, 2500, 1220);
	CHECK_EQ(ihs, 78u);
	CHECK_EQ(tx_nframes, 3u);
	for (k = 0; k < 3; k++) {
		unsigned int n = k < 2 ? 1220 : 60;

		CHECK_EQ(tx_len[k], ihs + n);
		check_sums(k, &p);
		CHECK(p.vlan);
		CHECK_EQ(be16(tx_frame[k] + 22), 20 + n); /* payload length */
		CHECK_EQ(be32(tx_frame[k] + 62), SEQ + k * 1220);
		CHECK(seg_payload(k, ihs, k * 1220, n));
	}
	cx_destroy(t.cx);
}

static void lso_cuts_udp_into_datagrams(void)
{
	uint8_t h[128];
	struct cx_eth_pkt p;
	struct t_tx t;
	unsigned int ihs, k;

	tx_up(&t, true);
	/* GSO_UDP_L4: mlx5e sets the UDP length to one segment's. */
	ihs = lso_go(&t, h, false, false, true, 2000, 1400);
	CHECK_EQ(ihs, 42u);
	CHECK_EQ(tx_nframes, 2u);
	for (k = 0; k < 2; k++) {
		unsigned int n = k ? 600 : 1400;

		CHECK_EQ(tx_len[k], ihs + n);
		check_sums(k, &p);
		CHECK_EQ(p.ip_proto, 17);
		CHECK_EQ(be16(tx_frame[k] + 38), 8 + n); /* UDP length */
		CHECK_EQ(be16(tx_frame[k] + 16), 28 + n);
		CHECK_EQ(be16(tx_frame[k] + 18), (uint16_t)(IP_ID + k));
		CHECK(seg_payload(k, ihs, k * 1400, n));
	}
	cx_destroy(t.cx);
}

static void lso_needs_whole_ip_tcp_or_udp_headers_inline(void)
{
	uint8_t h[128];
	unsigned int ihs = headers(h, false, false, false, 100);
	struct tx_wqe x = {
		.op = LSO, .mss = 536, .hdr = h, .n = 1, .len = { 2000 }
	};
	struct t_tx t;

	/* The TCP header's end is not the inline headers' end. */
	tx_up(&t, true);
	x.ihs = (uint16_t)(ihs - 4);
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	cx_destroy(t.cx);
	/* Payload bytes inline: they would repeat on each segment. */
	tx_up(&t, true);
	x.ihs = (uint16_t)(ihs + 4);
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	cx_destroy(t.cx);
	/* Not IP. */
	tx_up(&t, true);
	x.ihs = (uint16_t)ihs;
	h[12] = 0x88;
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	cx_destroy(t.cx);
	/* A fragment. */
	tx_up(&t, true);
	h[12] = 0x08;
	h[20] |= 0x20;
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_QP_OP);
	CHECK_EQ(tx_nframes, 0u);
	cx_destroy(t.cx);
}

static void lso_lengths_past_the_limits_are_refused(void)
{
	uint8_t h[128];
	unsigned int ihs = headers(h, false, false, false, 100);
	struct tx_wqe x = { .op = LSO,
			    .mss = 1448,
			    .ihs = (uint16_t)ihs,
			    .hdr = h,
			    .n = 5,
			    .len = { 16384, 16384, 16384, 16384, 1 } };
	struct t_tx t;

	/* A payload of 64 KiB and one byte (max_lso_cap 16). */
	tx_up(&t, true);
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0xd);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_LENGTH);
	cx_destroy(t.cx);
	/* 64 KiB exactly: 46 segments. */
	tx_up(&t, true);
	x.n = 4;
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[63] >> 4, 0);
	CHECK_EQ(tx_nframes, 46u);
	CHECK_EQ(tx_len[45], 54u + 65536 - 45 * 1448);
	cx_destroy(t.cx);
	/* A segment past the largest frame. */
	tx_up(&t, true);
	x.mss = (uint16_t)(9212 - ihs + 1);
	tx_go(&t, &x);
	CHECK_EQ(tx_cqe(0)[55], CX_ETH_TX_LENGTH);
	CHECK_EQ(tx_nframes, 0u);
	cx_destroy(t.cx);
}

static const struct check_test tests[] = {
	CHECK_TEST(send_puts_the_inline_headers_then_the_data),
	CHECK_TEST(a_segment_is_read_across_the_host_runs_of_its_key),
	CHECK_TEST(the_tag_goes_after_the_macs),
	CHECK_TEST(a_short_frame_is_padded_to_60_bytes),
	CHECK_TEST(checksums_are_filled_as_cs_flags_ask),
	CHECK_TEST(inner_checksums_are_refused),
	CHECK_TEST(a_frame_past_the_largest_mtu_is_a_length_error),
	CHECK_TEST(lso_cuts_tcp_over_ipv4_into_mss_segments),
	CHECK_TEST(lso_cuts_tagged_tcp_over_ipv6),
	CHECK_TEST(lso_cuts_udp_into_datagrams),
	CHECK_TEST(lso_needs_whole_ip_tcp_or_udp_headers_inline),
	CHECK_TEST(lso_lengths_past_the_limits_are_refused),
};

int main(int argc, char **argv)
{
	return CX_TEST_MAIN(argc, argv, "cx_eth_tx_", tests);
}
