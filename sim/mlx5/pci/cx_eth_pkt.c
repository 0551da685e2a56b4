// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A frame's headers as the port's parser finds them, and the Internet
 * checksum (RFC 1071) over them: what steering matches (cx_eth_rx.c),
 * what the RSS hash reads, what a receive CQE reports (its checksum and
 * L3_OK/L4_OK) and what a send WQE's checksum offload fills
 * (cx_eth_tx.c).  The parser reads an Ethernet header, at most one
 * C-VLAN tag (0x8100), an IPv4 header (with its options) or an IPv6
 * header (no extension headers: anything else after it is not L4), and a
 * TCP or UDP header of an unfragmented datagram.  Every length is checked
 * against the frame; a header that does not fit is not found.
 */
#include <string.h>

#include "cx_eth.h"

enum {
	ETH_HLEN = 14,
	VLAN_HLEN = 4,
	ETH_P_8021Q = 0x8100,
	ETH_P_IP = 0x0800,
	ETH_P_IPV6 = 0x86dd,
	IPV6_HLEN = 40,
	IPPROTO_TCP = 6,
	IPPROTO_UDP = 17,
	IPPROTO_FRAGMENT = 44,
	TCP_HLEN = 20,
	UDP_HLEN = 8,
};

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t cx_csum_add(uint32_t sum, const uint8_t *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		sum += be16_at(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	/* Fold early, so that no frame can overflow 32 bits. */
	return (sum & 0xffff) + (sum >> 16);
}

uint16_t cx_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void parse_l4(const uint8_t *f, struct cx_eth_pkt *p, unsigned int l4)
{
	if (p->frag)
		return;
	if (p->ip_proto == IPPROTO_UDP && l4 + UDP_HLEN <= p->l3_end)
		p->l4 = l4;
	if (p->ip_proto == IPPROTO_TCP && l4 + TCP_HLEN <= p->l3_end &&
	    (f[l4 + 12] >> 4) * 4 >= TCP_HLEN &&
	    l4 + (f[l4 + 12] >> 4) * 4 <= p->l3_end)
		p->l4 = l4;
}

static void parse_ipv4(const uint8_t *f, unsigned int len, struct cx_eth_pkt *p,
		       unsigned int l3)
{
	unsigned int ihl = (f[l3] & 0xf) * 4, tot;

	if (l3 + 20 > len || f[l3] >> 4 != 4 || ihl < 20 || l3 + ihl > len)
		return;
	tot = be16_at(f + l3 + 2);
	if (tot < ihl || l3 + tot > len)
		return;
	p->l3 = l3;
	p->ip_version = 4;
	p->ip_proto = f[l3 + 9];
	p->frag = be16_at(f + l3 + 6) & 0x3fff; /* MF or an offset */
	p->l3_end = l3 + tot;
	parse_l4(f, p, l3 + ihl);
}

static void parse_ipv6(const uint8_t *f, unsigned int len, struct cx_eth_pkt *p,
		       unsigned int l3)
{
	if (l3 + IPV6_HLEN > len || f[l3] >> 4 != 6 ||
	    l3 + IPV6_HLEN + be16_at(f + l3 + 4) > len)
		return;
	p->l3 = l3;
	p->ip_version = 6;
	p->ip_proto = f[l3 + 6];
	p->frag = p->ip_proto == IPPROTO_FRAGMENT;
	p->l3_end = l3 + IPV6_HLEN + be16_at(f + l3 + 4);
	parse_l4(f, p, l3 + IPV6_HLEN);
}

bool cx_eth_parse(const uint8_t *f, unsigned int len, struct cx_eth_pkt *p)
{
	unsigned int l3 = ETH_HLEN;

	memset(p, 0, sizeof(*p));
	if (len < ETH_HLEN)
		return false;
	p->len = len;
	p->ethertype = be16_at(f + 12);
	if (p->ethertype == ETH_P_8021Q && len >= ETH_HLEN + VLAN_HLEN) {
		p->vlan = true;
		p->tci = be16_at(f + 14);
		p->ethertype = be16_at(f + 16);
		l3 += VLAN_HLEN;
	}
	if (p->ethertype == ETH_P_IP)
		parse_ipv4(f, len, p, l3);
	else if (p->ethertype == ETH_P_IPV6)
		parse_ipv6(f, len, p, l3);
	return true;
}

/* The pseudo-header's sum (RFC 793, RFC 8200 8.1) for L4 bytes of L4. */
static uint32_t pseudo(const uint8_t *f, const struct cx_eth_pkt *p,
		       unsigned int l4len)
{
	uint32_t sum = p->ip_proto + l4len;

	if (p->ip_version == 4)
		return cx_csum_add(sum, f + p->l3 + 12, 8);
	return cx_csum_add(sum, f + p->l3 + 8, 32);
}

bool cx_eth_l3_csum_ok(const uint8_t *f, const struct cx_eth_pkt *p)
{
	if (p->ip_version == 6)
		return true; /* IPv6 has no header checksum */
	return p->ip_version == 4 &&
	       cx_csum_fold(cx_csum_add(0, f + p->l3, (f[p->l3] & 0xf) * 4)) ==
		       0xffff;
}

bool cx_eth_l4_csum_ok(const uint8_t *f, const struct cx_eth_pkt *p)
{
	unsigned int n = p->l3_end - p->l4;

	if (!p->l4)
		return false;
	/* An IPv4 UDP datagram may go without a checksum (RFC 768). */
	if (p->ip_proto == IPPROTO_UDP && p->ip_version == 4 &&
	    !be16_at(f + p->l4 + 6))
		return true;
	return cx_csum_fold(cx_csum_add(pseudo(f, p, n), f + p->l4, n)) ==
	       0xffff;
}

static void put_csum(uint8_t *at, uint32_t sum)
{
	uint16_t c = (uint16_t)~cx_csum_fold(sum);

	at[0] = c >> 8;
	at[1] = c & 0xff;
}

void cx_eth_fill_l3_csum(uint8_t *f, const struct cx_eth_pkt *p)
{
	if (p->ip_version != 4)
		return;
	f[p->l3 + 10] = f[p->l3 + 11] = 0;
	put_csum(f + p->l3 + 10,
		 cx_csum_add(0, f + p->l3, (f[p->l3] & 0xf) * 4));
}

void cx_eth_fill_l4_csum(uint8_t *f, const struct cx_eth_pkt *p)
{
	unsigned int n = p->l3_end - p->l4;
	uint8_t *c;

	if (!p->l4)
		return;
	c = f + p->l4 + (p->ip_proto == IPPROTO_TCP ? 16 : 6);
	c[0] = c[1] = 0;
	put_csum(c, cx_csum_add(pseudo(f, p, n), f + p->l4, n));
	/* UDP sends a computed 0 as all ones (RFC 768). */
	if (p->ip_proto == IPPROTO_UDP && !c[0] && !c[1])
		c[0] = c[1] = 0xff;
}
