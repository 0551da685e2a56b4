// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cx_eth_pkt.c: a frame's headers as the port's parser finds them (an
 * Ethernet header, one C-VLAN tag, IPv4 with options or IPv6, TCP or UDP
 * of an unfragmented datagram, each length checked against the frame),
 * and the Internet checksum (RFC 1071) checked against frames whose
 * checksums are known: Scapy's Ether()/IP()/TCP() (IP 0x7ccd, TCP 0x917c)
 * and the IPv4 header of Wikipedia's "Internet checksum" example (0xb861).
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"

/* Scapy's raw(Ether()/IP()/TCP()): 127.0.0.1 port 20 to 127.0.0.1 port
 * 80, a SYN of window 8192. */
static const uint8_t scapy_syn[54] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x08, 0x00, 0x45, 0x00, 0x00, 0x28, 0x00, 0x01, 0x00, 0x00,
	0x40, 0x06, 0x7c, 0xcd, 0x7f, 0x00, 0x00, 0x01, 0x7f, 0x00, 0x00,
	0x01, 0x00, 0x14, 0x00, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x50, 0x02, 0x20, 0x00, 0x91, 0x7c, 0x00, 0x00,
};

/* Wikipedia's IPv4 header: 192.168.0.1 to 192.168.0.199, UDP. */
static const uint8_t wiki_ip[20] = {
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

/* An Ethernet header with TYPE (and a C-VLAN tag of TCI if VLAN): its
 * length. */
static unsigned int eth(uint8_t *f, uint16_t type, bool vlan, uint16_t tci)
{
	unsigned int n = 12;

	memset(f, 0x11, 12);
	if (vlan) {
		f[n++] = 0x81;
		f[n++] = 0x00;
		f[n++] = (uint8_t)(tci >> 8);
		f[n++] = (uint8_t)tci;
	}
	f[n++] = (uint8_t)(type >> 8);
	f[n++] = (uint8_t)type;
	return n;
}

/* The scapy SYN's IP and TCP after an Ethernet header (tagged if VLAN). */
static unsigned int syn(uint8_t *f, bool vlan)
{
	unsigned int n = eth(f, 0x0800, vlan, 0x2005);

	memcpy(f + n, scapy_syn + 14, 40);
	return n + 40;
}

/* Ethernet, IPv6 (::1 to ::2, hop limit 64) and UDP with LEN payload
 * bytes: the frame's length. */
static unsigned int v6_udp(uint8_t *f, unsigned int len)
{
	unsigned int n = eth(f, 0x86dd, false, 0), i;
	uint8_t *ip = f + n, *u = ip + 40;

	memset(ip, 0, 48);
	ip[0] = 0x60;
	ip[4] = (uint8_t)((8 + len) >> 8);
	ip[5] = (uint8_t)(8 + len);
	ip[6] = 17;
	ip[7] = 64;
	ip[23] = 1;
	ip[39] = 2;
	u[0] = 0x30;
	u[1] = 0x39; /* 12345 to 53 */
	u[3] = 53;
	u[4] = (uint8_t)((8 + len) >> 8);
	u[5] = (uint8_t)(8 + len);
	for (i = 0; i < len; i++)
		u[8 + i] = (uint8_t)(i * 7 + 1);
	return n + 48 + len;
}

static void parses_an_untagged_ipv4_tcp_frame(void)
{
	struct cx_eth_pkt p;

	CHECK(cx_eth_parse(scapy_syn, sizeof(scapy_syn), &p));
	CHECK(!p.vlan);
	CHECK_EQ(p.ethertype, 0x0800);
	CHECK_EQ(p.ip_version, 4);
	CHECK_EQ(p.ip_proto, 6);
	CHECK(!p.frag);
	CHECK_EQ(p.l3, 14u);
	CHECK_EQ(p.l3_end, 54u);
	CHECK_EQ(p.l4, 34u);
}

static void parses_a_tagged_ipv4_tcp_frame(void)
{
	uint8_t f[64];
	unsigned int n = syn(f, true);
	struct cx_eth_pkt p;

	CHECK(cx_eth_parse(f, n, &p));
	CHECK(p.vlan);
	CHECK_EQ(p.tci, 0x2005);
	CHECK_EQ(p.ethertype, 0x0800);
	CHECK_EQ(p.l3, 18u);
	CHECK_EQ(p.l4, 38u);
	CHECK_EQ(p.l3_end, 58u);
	CHECK(cx_eth_l3_csum_ok(f, &p));
	CHECK(cx_eth_l4_csum_ok(f, &p));
}

static void parses_an_ipv6_udp_frame(void)
{
	uint8_t f[128];
	unsigned int n = v6_udp(f, 11);
	struct cx_eth_pkt p;

	CHECK(cx_eth_parse(f, n, &p));
	CHECK_EQ(p.ip_version, 6);
	CHECK_EQ(p.ip_proto, 17);
	CHECK_EQ(p.l3, 14u);
	CHECK_EQ(p.l4, 54u);
	CHECK_EQ(p.l3_end, n);
	CHECK(cx_eth_l3_csum_ok(f, &p)); /* IPv6 has none */
	/* No checksum filled yet: IPv6's UDP needs one. */
	CHECK(!cx_eth_l4_csum_ok(f, &p));
	cx_eth_fill_l4_csum(f, &p);
	CHECK(cx_eth_l4_csum_ok(f, &p));
	f[n - 1] ^= 1;
	CHECK(!cx_eth_l4_csum_ok(f, &p));
}

static void a_truncated_header_is_not_found(void)
{
	uint8_t f[64];
	struct cx_eth_pkt p;

	/* Shorter than an Ethernet header: no frame. */
	CHECK(!cx_eth_parse(scapy_syn, 13, &p));
	/* The IP datagram longer than the frame: no L3, no L4. */
	CHECK(cx_eth_parse(scapy_syn, 53, &p));
	CHECK_EQ(p.ethertype, 0x0800);
	CHECK_EQ(p.ip_version, 0);
	CHECK_EQ(p.l3, 0u);
	CHECK_EQ(p.l4, 0u);
	/* A TCP data offset past the datagram: L3 only. */
	memcpy(f, scapy_syn, sizeof(scapy_syn));
	f[46] = 0x60; /* 24 header bytes in a 20-byte segment */
	CHECK(cx_eth_parse(f, sizeof(scapy_syn), &p));
	CHECK_EQ(p.l3, 14u);
	CHECK_EQ(p.l4, 0u);
	CHECK(!cx_eth_l4_csum_ok(f, &p));
	/* An IPv4 header length below 20 bytes: not IP. */
	memcpy(f, scapy_syn, sizeof(scapy_syn));
	f[14] = 0x44;
	CHECK(cx_eth_parse(f, sizeof(scapy_syn), &p));
	CHECK_EQ(p.ip_version, 0);
}

static void a_fragment_has_no_l4(void)
{
	uint8_t f[128];
	unsigned int n;
	struct cx_eth_pkt p;

	memcpy(f, scapy_syn, sizeof(scapy_syn));
	f[20] |= 0x20; /* MF */
	CHECK(cx_eth_parse(f, sizeof(scapy_syn), &p));
	CHECK(p.frag);
	CHECK_EQ(p.l3, 14u);
	CHECK_EQ(p.l4, 0u);
	memcpy(f, scapy_syn, sizeof(scapy_syn));
	f[21] = 0x10; /* an offset, MF clear: the last fragment */
	CHECK(cx_eth_parse(f, sizeof(scapy_syn), &p));
	CHECK(p.frag);
	CHECK_EQ(p.l4, 0u);
	/* IPv6's fragment header (44) after the fixed header. */
	n = v6_udp(f, 11);
	f[14 + 6] = 44;
	CHECK(cx_eth_parse(f, n, &p));
	CHECK(p.frag);
	CHECK_EQ(p.l4, 0u);
}

static void checksums_match_known_frames(void)
{
	uint8_t f[64], ip[20];
	struct cx_eth_pkt p;

	memcpy(f, scapy_syn, sizeof(scapy_syn));
	CHECK(cx_eth_parse(f, sizeof(scapy_syn), &p));
	CHECK(cx_eth_l3_csum_ok(f, &p));
	CHECK(cx_eth_l4_csum_ok(f, &p));
	/* Filled from scratch: the known values. */
	f[24] = f[25] = 0xaa;
	f[50] = f[51] = 0x55;
	CHECK(!cx_eth_l3_csum_ok(f, &p));
	CHECK(!cx_eth_l4_csum_ok(f, &p));
	cx_eth_fill_l3_csum(f, &p);
	cx_eth_fill_l4_csum(f, &p);
	CHECK_EQ(f[24] << 8 | f[25], 0x7ccd);
	CHECK_EQ(f[50] << 8 | f[51], 0x917c);
	CHECK(!memcmp(f, scapy_syn, sizeof(scapy_syn)));
	/* A changed address breaks the TCP checksum too (pseudo-header). */
	f[33] = 2;
	CHECK(!cx_eth_l4_csum_ok(f, &p));
	/* Wikipedia's header: sums to all ones; 0xb861 from scratch. */
	CHECK_EQ(cx_csum_fold(cx_csum_add(0, wiki_ip, 20)), 0xffff);
	memcpy(ip, wiki_ip, 20);
	ip[10] = ip[11] = 0;
	CHECK_EQ((uint16_t)~cx_csum_fold(cx_csum_add(0, ip, 20)), 0xb861);
	/* An odd length pads its last byte with a zero byte. */
	CHECK_EQ(cx_csum_fold(
			 cx_csum_add(0, (const uint8_t *)"\x01\x02\x03", 3)),
		 0x0402);
}

static void a_udp_checksum_of_zero_goes_as_all_ones(void)
{
	uint8_t f[128];
	unsigned int n = v6_udp(f, 2);
	struct cx_eth_pkt p;
	uint32_t sum;

	CHECK(cx_eth_parse(f, n, &p));
	/* Make the payload's sum cancel the rest: the checksum computes 0. */
	f[n - 2] = f[n - 1] = 0;
	f[p.l4 + 6] = f[p.l4 + 7] = 0;
	sum = cx_csum_fold(cx_csum_add(17 + 10, f + p.l3 + 8, 32));
	sum = cx_csum_fold(cx_csum_add(sum, f + p.l4, 10));
	sum = (uint16_t)~sum; /* what the payload word must add */
	f[n - 2] = (uint8_t)(sum >> 8);
	f[n - 1] = (uint8_t)sum;
	cx_eth_fill_l4_csum(f, &p);
	CHECK_EQ(f[p.l4 + 6], 0xff);
	CHECK_EQ(f[p.l4 + 7], 0xff);
	CHECK(cx_eth_l4_csum_ok(f, &p));
}

static const struct check_test tests[] = {
	CHECK_TEST(parses_an_untagged_ipv4_tcp_frame),
	CHECK_TEST(parses_a_tagged_ipv4_tcp_frame),
	CHECK_TEST(parses_an_ipv6_udp_frame),
	CHECK_TEST(a_truncated_header_is_not_found),
	CHECK_TEST(a_fragment_has_no_l4),
	CHECK_TEST(checksums_match_known_frames),
	CHECK_TEST(a_udp_checksum_of_zero_goes_as_all_ones),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "cx_eth_pkt_", tests);
}
