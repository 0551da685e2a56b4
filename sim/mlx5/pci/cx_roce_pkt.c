// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCE v2 frames (IBA annex A17): the IB transport bytes put into and
 * taken out of Ethernet, IPv4 or IPv6, and UDP to port 4791, behind the
 * invariant CRC.  The ICRC is the CRC-32 of Ethernet (reflected polynomial
 * 0xedb88320, seeded with ones, complemented, least significant byte first
 * on the wire) over 8 bytes of ones standing for the masked LRH, the IP
 * header, the UDP header and the BTH with every field that a router may
 * change set to ones (IPv4 TOS, TTL and header checksum; IPv6 traffic
 * class, flow label and hop limit; the UDP checksum; the BTH's resv8a
 * byte, which holds FECN and BECN), then the rest up to the ICRC itself:
 * Linux's rxe_icrc.c computes the same, and Scapy's scapy.contrib.roce
 * for IPv4.  The UDP checksum goes out as 0 for IPv6 too, as rxe's
 * prepare_udp_hdr() sends it (its tunnel sockets accept a zero IPv6 UDP
 * checksum); the ICRC covers the datagram.  Headers are parsed by
 * cx_eth_pkt.c, whose Internet checksum fills the IPv4 header's.
 */
#include <string.h>

#include "cx_eth.h"
#include "cx_roce_pkt.h"

enum {
	ETH_HLEN = 14,
	ETH_P_IP = 0x0800,
	ETH_P_IPV6 = 0x86dd,
	IPV4_HLEN = 20,
	IPV6_HLEN = 40,
	IP_DF = 0x4000,
	IPPROTO_UDP = 17,
	UDP_HLEN = 8,
	BTH_LEN = 12,
	BTH_RESV8A = 4,
	IP_MAX = 0xffff, /* IPv4 total length, IPv6 payload length */
	MASKED_MAX = 60 + UDP_HLEN + BTH_LEN, /* IPv4 with all options */
	/* No IP datagram ends past this: more is padding. */
	FRAME_MAX = ETH_HLEN + 4 + IPV6_HLEN + IP_MAX,
};

/* The CRC-32's remainders of a nibble, for the reflected 0xedb88320. */
static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

/* CRC onto N bytes of P (neither seeded nor complemented here). */
static uint32_t crc32_add(uint32_t crc, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ crc_nibble[crc & 0xf];
		crc = (crc >> 4) ^ crc_nibble[crc & 0xf];
	}
	return crc;
}

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_be16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned int ip_hlen(const uint8_t *ip)
{
	return ip[0] >> 4 == 4 ? (ip[0] & 0xf) * 4u : IPV6_HLEN;
}

uint32_t cx_roce_icrc(const uint8_t *ip, size_t len)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff };
	unsigned int hl = ip_hlen(ip), n = hl + UDP_HLEN + BTH_LEN;
	uint8_t m[MASKED_MAX];
	uint32_t crc;

	memcpy(m, ip, n);
	if (ip[0] >> 4 == 4) {
		m[1] = 0xff;	      /* TOS */
		m[8] = 0xff;	      /* TTL */
		m[10] = m[11] = 0xff; /* header checksum */
	} else {
		m[0] |= 0x0f; /* traffic class, flow label */
		m[1] = m[2] = m[3] = 0xff;
		m[7] = 0xff; /* hop limit */
	}
	m[hl + 6] = m[hl + 7] = 0xff; /* UDP checksum */
	m[hl + UDP_HLEN + BTH_RESV8A] = 0xff;
	crc = crc32_add(0xffffffff, lrh, sizeof(lrh));
	crc = crc32_add(crc, m, n);
	crc = crc32_add(crc, ip + n, len - CX_ROCE_ICRC_LEN - n);
	return ~crc;
}

bool cx_roce_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t v4_prefix[12] = { 0, 0, 0, 0, 0,	 0,
					       0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(gid, v4_prefix, sizeof(v4_prefix));
}

size_t cx_roce_encap(const struct cx_roce_path *p, const uint8_t *ib,
		     size_t ib_len, uint8_t *frame, size_t cap)
{
	bool v4 = cx_roce_gid_is_v4(p->dgid);
	size_t hl = v4 ? IPV4_HLEN : IPV6_HLEN;
	size_t udp_len = UDP_HLEN + ib_len + CX_ROCE_ICRC_LEN;
	size_t ip_len = hl + udp_len, n = ETH_HLEN + ip_len;
	uint8_t *ip = frame + ETH_HLEN, *udp = ip + hl;
	struct cx_eth_pkt pkt;
	uint32_t icrc;

	if (v4 != cx_roce_gid_is_v4(p->sgid) || ib_len < BTH_LEN ||
	    (v4 ? ip_len : udp_len) > IP_MAX || n > cap)
		return 0;
	memcpy(frame, p->dmac, 6);
	memcpy(frame + 6, p->smac, 6);
	put_be16(frame + 12, v4 ? ETH_P_IP : ETH_P_IPV6);
	memset(ip, 0, hl);
	if (v4) {
		ip[0] = 0x45;
		ip[1] = p->tclass;
		put_be16(ip + 2, (unsigned int)ip_len);
		put_be16(ip + 6, IP_DF);
		ip[8] = p->hop_limit;
		ip[9] = IPPROTO_UDP;
		memcpy(ip + 12, p->sgid + 12, 4);
		memcpy(ip + 16, p->dgid + 12, 4);
	} else {
		ip[0] = (uint8_t)(0x60 | p->tclass >> 4);
		ip[1] = (uint8_t)(p->tclass << 4 | (p->flow_label >> 16 & 0xf));
		put_be16(ip + 2, p->flow_label & 0xffff);
		put_be16(ip + 4, (unsigned int)udp_len);
		ip[6] = IPPROTO_UDP;
		ip[7] = p->hop_limit;
		memcpy(ip + 8, p->sgid, 16);
		memcpy(ip + 24, p->dgid, 16);
	}
	put_be16(udp, p->udp_sport);
	put_be16(udp + 2, CX_ROCE_UDP_PORT);
	put_be16(udp + 4, (unsigned int)udp_len);
	put_be16(udp + 6, 0);
	memcpy(udp + UDP_HLEN, ib, ib_len);
	cx_eth_parse(frame, (unsigned int)n, &pkt);
	cx_eth_fill_l3_csum(frame, &pkt);
	icrc = cx_roce_icrc(ip, ip_len);
	frame[n - 4] = (uint8_t)icrc;
	frame[n - 3] = (uint8_t)(icrc >> 8);
	frame[n - 2] = (uint8_t)(icrc >> 16);
	frame[n - 1] = (uint8_t)(icrc >> 24);
	return n;
}

/*
 * Whether the bytes there say UDP to 4791 over IPv4 or IPv6, however
 * truncated or broken the rest: a frame that claims RoCE v2 is checked as
 * one (MALFORMED if it fails), any other is not ours.  An IPv6 extension
 * header (a fragment header too) is not looked past: not ours.
 */
static bool claims_roce(const uint8_t *f, size_t len,
			const struct cx_eth_pkt *p, unsigned int l3)
{
	unsigned int l4;
	uint8_t proto;

	if (p->ethertype == ETH_P_IP && len >= l3 + IPV4_HLEN) {
		l4 = l3 + (f[l3] & 0xf) * 4;
		proto = f[l3 + 9];
	} else if (p->ethertype == ETH_P_IPV6 && len >= l3 + IPV6_HLEN) {
		l4 = l3 + IPV6_HLEN;
		proto = f[l3 + 6];
	} else {
		return false;
	}
	return proto == IPPROTO_UDP && len >= l4 + 4 &&
	       be16_at(f + l4 + 2) == CX_ROCE_UDP_PORT;
}

static uint32_t le32_at(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fill_rx(const uint8_t *f, const struct cx_eth_pkt *p,
		    struct cx_roce_rx *rx)
{
	const uint8_t *ip = f + p->l3, *udp = f + p->l4;

	memset(rx, 0, sizeof(*rx));
	memcpy(rx->dmac, f, 6);
	memcpy(rx->smac, f + 6, 6);
	rx->vlan = p->vlan;
	rx->tci = p->tci;
	if (p->ip_version == 4) {
		rx->sgid[10] = rx->sgid[11] = 0xff;
		rx->dgid[10] = rx->dgid[11] = 0xff;
		memcpy(rx->sgid + 12, ip + 12, 4);
		memcpy(rx->dgid + 12, ip + 16, 4);
		rx->tclass = ip[1];
		rx->hop_limit = ip[8];
	} else {
		memcpy(rx->sgid, ip + 8, 16);
		memcpy(rx->dgid, ip + 24, 16);
		rx->tclass = (uint8_t)((ip[0] & 0xf) << 4 | ip[1] >> 4);
		rx->flow_label =
			(uint32_t)(ip[1] & 0xf) << 16 | be16_at(ip + 2);
		rx->hop_limit = ip[7];
	}
	rx->udp_sport = be16_at(udp);
	rx->l3 = ip;
	rx->ib = udp + UDP_HLEN;
	rx->ib_len = p->l3_end - p->l4 - UDP_HLEN - CX_ROCE_ICRC_LEN;
}

enum cx_roce_verdict cx_roce_decap(const uint8_t *f, size_t len,
				   struct cx_roce_rx *rx)
{
	unsigned int n = len > FRAME_MAX ? FRAME_MAX : (unsigned int)len;
	struct cx_eth_pkt p;
	unsigned int l4_len;

	if (!cx_eth_parse(f, n, &p) ||
	    !claims_roce(f, n, &p, ETH_HLEN + (p.vlan ? 4 : 0)))
		return CX_ROCE_NOT_ROCE;
	/* The parser found no IP header whose lengths fit the frame. */
	if (!p.ip_version || p.frag || !cx_eth_l3_csum_ok(f, &p) || !p.l4)
		return CX_ROCE_MALFORMED;
	l4_len = p.l3_end - p.l4;
	if (be16_at(f + p.l4 + 4) != l4_len ||
	    l4_len < UDP_HLEN + BTH_LEN + CX_ROCE_ICRC_LEN ||
	    (be16_at(f + p.l4 + 6) && !cx_eth_l4_csum_ok(f, &p)))
		return CX_ROCE_MALFORMED;
	/* Filled for a bad ICRC too: the port drops it only if it is its. */
	fill_rx(f, &p, rx);
	if (cx_roce_icrc(f + p.l3, p.l3_end - p.l3) !=
	    le32_at(f + p.l3_end - CX_ROCE_ICRC_LEN))
		return CX_ROCE_BAD_ICRC;
	return CX_ROCE_OK;
}
