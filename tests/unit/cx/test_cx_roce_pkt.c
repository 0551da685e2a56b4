// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cx_roce_pkt.c: RoCE v2 frames (Ethernet, IPv4 or IPv6, UDP to 4791, the
 * IB transport bytes, the ICRC) built and taken apart, checked against
 * frames made by Scapy.  Their bytes are the output of roce-vectors.py
 * beside this file (/usr/bin/python3 tests/unit/cx/roce-vectors.py, with
 * Debian 12's python3-scapy 2.5.0): the IPv4 frames' ICRC is Scapy's
 * (scapy.contrib.roce); Scapy has none for IPv6, so the IPv6 frame's is
 * the script's own zlib CRC-32 under the rule that rxe_icrc.c applies.
 */
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_roce_pkt.h"

/*
 * Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
 * IP(src="192.168.7.1", dst="192.168.7.2", id=0, flags="DF", ttl=64,
 *    tos=0x6a) / UDP(sport=0xc0de, dport=4791, chksum=0) /
 * BTH(opcode=0x04, pkey=0xffff, dqpn=0x000123, ackreq=1, psn=0x000456) /
 * Raw(bytes(range(0x10, 0x20))): an RC SEND_ONLY of 16 bytes.
 */
static const uint8_t scapy_v4_send[74] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x08, 0x00, 0x45, 0x6a, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00,
	0x40, 0x11, 0xaa, 0xf3, 0xc0, 0xa8, 0x07, 0x01, 0xc0, 0xa8, 0x07,
	0x02, 0xc0, 0xde, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x04, 0x00,
	0xff, 0xff, 0x00, 0x00, 0x01, 0x23, 0x80, 0x00, 0x04, 0x56, 0x10,
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
	0x1c, 0x1d, 0x1e, 0x1f, 0xe0, 0x33, 0x03, 0x41,
};

/*
 * The same MACs / IP(src="10.1.2.3", dst="10.1.2.4", id=0, flags="DF",
 * ttl=255, tos=0) / UDP(sport=0xe000, dport=4791, chksum=0) /
 * BTH(opcode=0x0a, pkey=0x8001, dqpn=0x00beef, psn=0xfffffe) / a RETH
 * (VA 0x00007f0012345000, R_Key 0x00abcdef, length 8) and 8 bytes: an RC
 * RDMA WRITE ONLY.
 */
static const uint8_t scapy_v4_write[82] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x00, 0x00, 0x44, 0x00, 0x00, 0x40, 0x00, 0xff, 0x11,
	0x63, 0xa0, 0x0a, 0x01, 0x02, 0x03, 0x0a, 0x01, 0x02, 0x04, 0xe0, 0x00,
	0x12, 0xb7, 0x00, 0x30, 0x00, 0x00, 0x0a, 0x00, 0x80, 0x01, 0x00, 0x00,
	0xbe, 0xef, 0x00, 0xff, 0xff, 0xfe, 0x00, 0x00, 0x7f, 0x00, 0x12, 0x34,
	0x50, 0x00, 0x00, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x00, 0x08, 0xa5, 0x5a,
	0xc3, 0x3c, 0x0f, 0xf0, 0x99, 0x66, 0x58, 0x1b, 0x32, 0x46,
};

/*
 * The same MACs / IPv6(src="fe80::1", dst="fe80::2", tc=0x62, fl=0xabcde,
 * hlim=64) / UDP(sport=0xd00d, dport=4791, chksum=0) / BTH(opcode=0x04,
 * pkey=0xffff, dqpn=0x000042, psn=0x000001) / 8 bytes: an RC SEND_ONLY;
 * the ICRC is the script's (Scapy computes none for IPv6).
 */
static const uint8_t scapy_v6_send[86] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x86, 0xdd, 0x66, 0x2a, 0xbc, 0xde, 0x00, 0x20, 0x11, 0x40,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xd0,
	0x0d, 0x12, 0xb7, 0x00, 0x20, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x42, 0x00, 0x00, 0x00, 0x01, 0x01, 0x23, 0x45,
	0x67, 0x89, 0xab, 0xcd, 0xef, 0x7d, 0xa8, 0x2c, 0x58,
};

enum {
	L3 = 14,	 /* the IP header, untagged */
	V4_L4 = L3 + 20, /* the UDP header */
	V6_L4 = L3 + 40,
};

static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* GID ::ffff:A.B.C.D. */
static void v4_gid(uint8_t gid[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/* GID fe80::LOW. */
static void v6_gid(uint8_t gid[16], uint8_t low)
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[15] = low;
}

static void path_common(struct cx_roce_path *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->smac, smac, 6);
	memcpy(p->dmac, dmac, 6);
}

/* The address paths that scapy_v4_send, _v4_write and _v6_send went by. */
static void path_v4_send(struct cx_roce_path *p)
{
	path_common(p);
	v4_gid(p->sgid, 192, 168, 7, 1);
	v4_gid(p->dgid, 192, 168, 7, 2);
	p->hop_limit = 64;
	p->tclass = 0x6a;
	p->udp_sport = 0xc0de;
}

static void path_v4_write(struct cx_roce_path *p)
{
	path_common(p);
	v4_gid(p->sgid, 10, 1, 2, 3);
	v4_gid(p->dgid, 10, 1, 2, 4);
	p->hop_limit = 255;
	p->udp_sport = 0xe000;
}

static void path_v6_send(struct cx_roce_path *p)
{
	path_common(p);
	v6_gid(p->sgid, 1);
	v6_gid(p->dgid, 2);
	p->hop_limit = 64;
	p->tclass = 0x62;
	p->flow_label = 0xabcde;
	p->udp_sport = 0xd00d;
}

struct vector {
	const char *name;
	const uint8_t *frame;
	size_t len;
	unsigned int l4; /* the UDP header's offset */
	void (*path)(struct cx_roce_path *p);
};

static const struct vector vectors[] = {
	{ "v4_send", scapy_v4_send, sizeof(scapy_v4_send), V4_L4,
	  path_v4_send },
	{ "v4_write", scapy_v4_write, sizeof(scapy_v4_write), V4_L4,
	  path_v4_write },
	{ "v6_send", scapy_v6_send, sizeof(scapy_v6_send), V6_L4,
	  path_v6_send },
};

#define FOR_EACH_VECTOR(v)                                                     \
	for ((v) = vectors;                                                    \
	     (v) < vectors + sizeof(vectors) / sizeof(vectors[0]); (v)++)

/* The IB transport bytes of vector V (BTH onwards, no ICRC). */
static const uint8_t *ib_of(const struct vector *v, size_t *len)
{
	*len = v->len - v->l4 - 8 - CX_ROCE_ICRC_LEN;
	return v->frame + v->l4 + 8;
}

static enum cx_roce_verdict decap(const uint8_t *f, size_t len)
{
	struct cx_roce_rx rx;

	return cx_roce_decap(f, len, &rx);
}

static void icrc_matches_scapy_vector(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		const uint8_t *t = v->frame + v->len - 4;
		uint32_t want =
			t[0] | t[1] << 8 | t[2] << 16 | (uint32_t)t[3] << 24;

		if (cx_roce_icrc(v->frame + L3, v->len - L3) != want)
			CHECK_FAILF("%s: ICRC 0x%08x, Scapy's 0x%08x", v->name,
				    cx_roce_icrc(v->frame + L3, v->len - L3),
				    want);
	}
}

static void encap_gives_scapys_frames_byte_for_byte(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		struct cx_roce_path p;
		uint8_t f[256];
		size_t ib_len, n;
		const uint8_t *ib = ib_of(v, &ib_len);

		v->path(&p);
		memset(f, 0xee, sizeof(f));
		n = cx_roce_encap(&p, ib, ib_len, f, sizeof(f));
		CHECK_EQ(n, v->len);
		if (n == v->len && memcmp(f, v->frame, n))
			CHECK_FAILF("%s: the frame differs from Scapy's",
				    v->name);
	}
}

static void encap_refuses_a_frame_that_does_not_fit(void)
{
	const struct vector *v = &vectors[0];
	struct cx_roce_path p;
	uint8_t f[256];
	size_t ib_len;
	const uint8_t *ib = ib_of(v, &ib_len);

	path_v4_send(&p);
	CHECK_EQ(cx_roce_encap(&p, ib, ib_len, f, v->len - 1), 0);
	CHECK_EQ(cx_roce_encap(&p, ib, ib_len, f, v->len), v->len);
	/* Less than a BTH is no IB packet. */
	CHECK_EQ(cx_roce_encap(&p, ib, 11, f, sizeof(f)), 0);
}

static void encap_refuses_gids_of_two_families(void)
{
	struct cx_roce_path p;
	uint8_t f[256], ib[12] = { 0x04 };

	path_v4_send(&p);
	v6_gid(p.sgid, 1);
	CHECK_EQ(cx_roce_encap(&p, ib, sizeof(ib), f, sizeof(f)), 0);
	path_v6_send(&p);
	v4_gid(p.sgid, 10, 0, 0, 1);
	CHECK_EQ(cx_roce_encap(&p, ib, sizeof(ib), f, sizeof(f)), 0);
}

static void gid_is_v4_only_for_the_mapped_prefix(void)
{
	uint8_t gid[16];

	v4_gid(gid, 1, 2, 3, 4);
	CHECK(cx_roce_gid_is_v4(gid));
	gid[9] = 1; /* ::1:ffff:0:0/96 is no IPv4 */
	CHECK(!cx_roce_gid_is_v4(gid));
	v6_gid(gid, 1);
	CHECK(!cx_roce_gid_is_v4(gid));
	memset(gid, 0, sizeof(gid));
	CHECK(!cx_roce_gid_is_v4(gid));
}

static void decap_of_scapys_frames_gives_their_path(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		struct cx_roce_path p;
		struct cx_roce_rx rx;
		size_t ib_len;
		const uint8_t *ib = ib_of(v, &ib_len);

		v->path(&p);
		memset(&rx, 0xee, sizeof(rx));
		CHECK_EQ(cx_roce_decap(v->frame, v->len, &rx), CX_ROCE_OK);
		CHECK(!memcmp(rx.smac, p.smac, 6));
		CHECK(!memcmp(rx.dmac, p.dmac, 6));
		CHECK(!memcmp(rx.sgid, p.sgid, 16));
		CHECK(!memcmp(rx.dgid, p.dgid, 16));
		CHECK_EQ(rx.hop_limit, p.hop_limit);
		CHECK_EQ(rx.tclass, p.tclass);
		CHECK_EQ(rx.flow_label, p.flow_label);
		CHECK_EQ(rx.udp_sport, p.udp_sport);
		CHECK(!rx.vlan);
		CHECK(rx.ib == ib);
		CHECK_EQ(rx.ib_len, ib_len);
	}
}

static void decap_of_encap_gives_the_path_back(void)
{
	struct cx_roce_path p;
	struct cx_roce_rx rx;
	uint8_t f[256], ib[40];
	size_t n, i;

	for (i = 0; i < sizeof(ib); i++)
		ib[i] = (uint8_t)(i * 13 + 5);
	path_v6_send(&p);
	p.flow_label = 0xfffff;
	p.tclass = 0xff;
	p.hop_limit = 1;
	n = cx_roce_encap(&p, ib, sizeof(ib), f, sizeof(f));
	CHECK_EQ(n, 14 + 40 + 8 + sizeof(ib) + 4);
	if (cx_roce_decap(f, n, &rx) != CX_ROCE_OK) {
		CHECK_FAILF("the encapsulated frame does not decap");
		return;
	}
	CHECK_EQ(rx.flow_label, 0xfffff);
	CHECK_EQ(rx.tclass, 0xff);
	CHECK_EQ(rx.hop_limit, 1);
	CHECK_EQ(rx.ib_len, sizeof(ib));
	CHECK(!memcmp(rx.ib, ib, sizeof(ib)));
}

static void a_flipped_ib_bit_is_a_bad_icrc(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		uint8_t f[256];
		size_t i;

		/* Each byte from the BTH to the ICRC's last, but resv8a. */
		for (i = v->l4 + 8; i < v->len; i++) {
			if (i == v->l4 + 8 + 4)
				continue;
			memcpy(f, v->frame, v->len);
			f[i] ^= 0x10;
			if (decap(f, v->len) != CX_ROCE_BAD_ICRC)
				CHECK_FAILF("%s: byte %zu flipped: verdict %d",
					    v->name, i, decap(f, v->len));
		}
	}
}

static void a_changed_address_is_a_bad_icrc(void)
{
	uint8_t f[sizeof(scapy_v6_send)];

	/* The IPv6 header has no checksum: only the ICRC sees this. */
	memcpy(f, scapy_v6_send, sizeof(f));
	f[L3 + 8 + 15] ^= 1; /* the source's last byte */
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_BAD_ICRC);
	memcpy(f, scapy_v6_send, sizeof(f));
	f[V6_L4] ^= 1; /* the UDP source port */
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_BAD_ICRC);
}

static void fecn_and_becn_are_outside_the_icrc(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		uint8_t f[256];

		memcpy(f, v->frame, v->len);
		f[v->l4 + 8 + 4] = 0xc0; /* FECN, BECN */
		CHECK_EQ(decap(f, v->len), CX_ROCE_OK);
	}
}

/* What a router does to an IPv4 frame: TTL down, ECN marked CE, the
 * header checksum fixed. */
static void route_v4(uint8_t *f, size_t len)
{
	struct cx_eth_pkt p;

	f[L3 + 8]--;
	f[L3 + 1] |= 3;
	CHECK(cx_eth_parse(f, (unsigned int)len, &p));
	cx_eth_fill_l3_csum(f, &p);
}

static void a_routed_frame_keeps_its_icrc(void)
{
	uint8_t f[256];
	struct cx_roce_rx rx;

	memcpy(f, scapy_v4_send, sizeof(scapy_v4_send));
	route_v4(f, sizeof(scapy_v4_send));
	CHECK_EQ(cx_roce_decap(f, sizeof(scapy_v4_send), &rx), CX_ROCE_OK);
	CHECK_EQ(rx.hop_limit, 63);
	CHECK_EQ(rx.tclass, 0x6b);
	/* IPv6: hop limit, traffic class (ECN too) and flow label. */
	memcpy(f, scapy_v6_send, sizeof(scapy_v6_send));
	f[L3 + 7]--;
	f[L3 + 0] ^= 0x0f;
	f[L3 + 1] ^= 0xff;
	f[L3 + 3] ^= 0x55;
	CHECK_EQ(cx_roce_decap(f, sizeof(scapy_v6_send), &rx), CX_ROCE_OK);
	CHECK_EQ(rx.hop_limit, 63);
	CHECK_EQ(rx.tclass, 0x9d);
	CHECK_EQ(rx.flow_label, 0x5bc8b);
}

static void a_bad_ipv4_header_checksum_is_malformed(void)
{
	uint8_t f[sizeof(scapy_v4_send)];

	memcpy(f, scapy_v4_send, sizeof(f));
	f[L3 + 8]--; /* TTL, the checksum left as it was */
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_MALFORMED);
}

static void a_truncated_frame_is_malformed(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		size_t n;

		/* From the UDP destination port on, every cut is seen. */
		for (n = v->l4 + 4; n < v->len; n++)
			if (decap(v->frame, n) != CX_ROCE_MALFORMED)
				CHECK_FAILF("%s cut to %zu: verdict %d",
					    v->name, n, decap(v->frame, n));
	}
}

static void ip_and_udp_lengths_must_agree(void)
{
	uint8_t f[sizeof(scapy_v6_send) + 4];

	/* A UDP length short of the IPv6 payload. */
	memcpy(f, scapy_v6_send, sizeof(scapy_v6_send));
	f[V6_L4 + 5] -= 4;
	CHECK_EQ(decap(f, sizeof(scapy_v6_send)), CX_ROCE_MALFORMED);
	/* A UDP datagram too short for a BTH and an ICRC. */
	memcpy(f, scapy_v6_send, sizeof(scapy_v6_send));
	f[L3 + 5] = 8 + 12 + 3;
	f[V6_L4 + 5] = 8 + 12 + 3;
	CHECK_EQ(decap(f, sizeof(scapy_v6_send)), CX_ROCE_MALFORMED);
}

static void a_fragment_is_malformed(void)
{
	uint8_t f[sizeof(scapy_v4_send)];
	struct cx_eth_pkt p;

	memcpy(f, scapy_v4_send, sizeof(f));
	f[L3 + 6] = 0x20; /* MF, not DF */
	CHECK(cx_eth_parse(f, sizeof(f), &p));
	cx_eth_fill_l3_csum(f, &p);
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_MALFORMED);
}

static void udp_to_another_port_is_not_roce(void)
{
	uint8_t f[sizeof(scapy_v6_send)];

	memcpy(f, scapy_v4_send, sizeof(scapy_v4_send));
	f[V4_L4 + 3]++; /* 4792 */
	CHECK_EQ(decap(f, sizeof(scapy_v4_send)), CX_ROCE_NOT_ROCE);
	memcpy(f, scapy_v6_send, sizeof(scapy_v6_send));
	f[V6_L4 + 2] = 0; /* 183 */
	CHECK_EQ(decap(f, sizeof(scapy_v6_send)), CX_ROCE_NOT_ROCE);
}

static void other_frames_are_not_roce(void)
{
	uint8_t f[sizeof(scapy_v4_send)];

	memcpy(f, scapy_v4_send, sizeof(f));
	f[L3 + 9] = 6; /* TCP */
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_NOT_ROCE);
	memcpy(f, scapy_v4_send, sizeof(f));
	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_NOT_ROCE);
	CHECK_EQ(decap(scapy_v4_send, 13), CX_ROCE_NOT_ROCE);
	/* RoCE v1 (ethertype 0x8915) is not v2's. */
	f[12] = 0x89;
	f[13] = 0x15;
	CHECK_EQ(decap(f, sizeof(f)), CX_ROCE_NOT_ROCE);
}

static void a_padded_60_byte_frame_decaps_with_its_ib_length(void)
{
	/* A zero-length SEND_ONLY: 58 bytes, padded to 60 with zeros. */
	uint8_t ib[12] = { 0x04, 0, 0xff, 0xff, 0, 0, 0, 0x07, 0, 0, 0, 1 };
	struct cx_roce_path p;
	struct cx_roce_rx rx;
	uint8_t f[64];
	size_t n;

	path_v4_send(&p);
	memset(f, 0, sizeof(f));
	n = cx_roce_encap(&p, ib, sizeof(ib), f, sizeof(f));
	CHECK_EQ(n, 58);
	CHECK_EQ(cx_roce_decap(f, 60, &rx), CX_ROCE_OK);
	CHECK_EQ(rx.ib_len, sizeof(ib));
	CHECK(rx.ib == f + V4_L4 + 8);
	/* Padding of ones is just as much outside the ICRC. */
	f[58] = f[59] = 0xff;
	CHECK_EQ(cx_roce_decap(f, 60, &rx), CX_ROCE_OK);
	CHECK_EQ(rx.ib_len, sizeof(ib));
}

static void a_tagged_frame_decaps_with_its_tag(void)
{
	uint8_t f[sizeof(scapy_v4_send) + 4];
	struct cx_roce_rx rx;

	memcpy(f, scapy_v4_send, 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = 0x60; /* PCP 3, VLAN 5 */
	f[15] = 0x05;
	memcpy(f + 16, scapy_v4_send + 12, sizeof(scapy_v4_send) - 12);
	CHECK_EQ(cx_roce_decap(f, sizeof(f), &rx), CX_ROCE_OK);
	CHECK(rx.vlan);
	CHECK_EQ(rx.tci, 0x6005);
	CHECK(rx.ib == f + V4_L4 + 4 + 8);
	CHECK_EQ(rx.ib_len, 28);
	f[sizeof(f) - 5] ^= 1;
	CHECK_EQ(cx_roce_decap(f, sizeof(f), &rx), CX_ROCE_BAD_ICRC);
}

static void a_udp_checksum_is_checked_when_present(void)
{
	const struct vector *v;

	FOR_EACH_VECTOR(v)
	{
		uint8_t f[256];
		struct cx_eth_pkt p;

		/* A right one: outside the ICRC, so the frame decaps. */
		memcpy(f, v->frame, v->len);
		CHECK(cx_eth_parse(f, (unsigned int)v->len, &p));
		cx_eth_fill_l4_csum(f, &p);
		CHECK(f[v->l4 + 6] || f[v->l4 + 7]);
		CHECK_EQ(decap(f, v->len), CX_ROCE_OK);
		f[v->l4 + 7] ^= 1;
		CHECK_EQ(decap(f, v->len), CX_ROCE_MALFORMED);
	}
}

static const struct check_test tests[] = {
	CHECK_TEST(icrc_matches_scapy_vector),
	CHECK_TEST(encap_gives_scapys_frames_byte_for_byte),
	CHECK_TEST(encap_refuses_a_frame_that_does_not_fit),
	CHECK_TEST(encap_refuses_gids_of_two_families),
	CHECK_TEST(gid_is_v4_only_for_the_mapped_prefix),
	CHECK_TEST(decap_of_scapys_frames_gives_their_path),
	CHECK_TEST(decap_of_encap_gives_the_path_back),
	CHECK_TEST(a_flipped_ib_bit_is_a_bad_icrc),
	CHECK_TEST(a_changed_address_is_a_bad_icrc),
	CHECK_TEST(fecn_and_becn_are_outside_the_icrc),
	CHECK_TEST(a_routed_frame_keeps_its_icrc),
	CHECK_TEST(a_bad_ipv4_header_checksum_is_malformed),
	CHECK_TEST(a_truncated_frame_is_malformed),
	CHECK_TEST(ip_and_udp_lengths_must_agree),
	CHECK_TEST(a_fragment_is_malformed),
	CHECK_TEST(udp_to_another_port_is_not_roce),
	CHECK_TEST(other_frames_are_not_roce),
	CHECK_TEST(a_padded_60_byte_frame_decaps_with_its_ib_length),
	CHECK_TEST(a_tagged_frame_decaps_with_its_tag),
	CHECK_TEST(a_udp_checksum_is_checked_when_present),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "cx_roce_pkt_", tests);
}
