// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An Ethernet SQ's send WQE (mlx5_ifc.h / qp.h: mlx5_wqe_ctrl_seg,
 * mlx5_wqe_eth_seg, mlx5_wqe_data_seg), as mlx5e's en_tx.c builds it with
 * MLX5_OPCODE_SEND or MLX5_OPCODE_LSO, run as a ConnectX runs it: the
 * frame is the Ethernet segment's inline headers (or the first data bytes
 * with the VLAN tag it inserts after the MACs, MLX5_ETH_WQE_INSERT_VLAN),
 * then each data segment read through its memory key in the SQ's PD; the
 * checksums cs_flags asks for are computed over it (the field zeroed
 * first: mlx5e leaves the pseudo-header's sum there); an LSO's payload is
 * cut into MSS-sized segments, each behind a copy of the inline headers
 * fixed up for it; a frame under 60 bytes is padded.  Each frame goes to
 * the wire (cx->host.eth_tx; none: dropped) and is counted (struct
 * cx_eth's tx_*).  Left out: inline data segments (MLX5_INLINE_SEG, used
 * by mlx5e's multi-packet WQEs, which the caps do not offer), the inner
 * checksums of tunnels (not offered either: refused), IPv6 extension
 * headers and S-VLAN tagged headers under LSO (the parser's limits).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cx_eth.h"

enum {
	DS = 16,		   /* MLX5_SEND_WQE_DS */
	CTRL_DS = 7,		   /* qpn_ds's low byte: ds in bits 5:0 */
	ESEG = 16,		   /* the Ethernet segment, after ctrl */
	ESEG_CS = ESEG + 4,	   /* cs_flags */
	ESEG_MSS = ESEG + 6,	   /* mss */
	ESEG_INLINE = ESEG + 12,   /* inline_hdr.sz, or insert.type */
	ESEG_TCI = ESEG + 14,	   /* insert.vlan_tci */
	INLINE_START = 2,	   /* inline_hdr.start[]: in the segment */
	INSERT_VLAN = 0x8000,	   /* MLX5_ETH_WQE_INSERT_VLAN */
	INSERT_SVLAN = 0x0001,	   /* MLX5_ETH_WQE_SVLAN */
	DSEG_INLINE = 0x80000000u, /* MLX5_INLINE_SEG */
	CS_INNER = 0x30,	   /* MLX5_ETH_WQE_L3_INNER_CSUM, _L4_ */
	CS_L3 = 0x40,		   /* MLX5_ETH_WQE_L3_CSUM */
	CS_L4 = 0x80,		   /* MLX5_ETH_WQE_L4_CSUM */
	ETH_ALEN2 = 12,		   /* the two MACs */
	ETH_HLEN = 14,
	ETH_ZLEN = 60, /* the shortest frame, without FCS */
	ETH_FCS_LEN = 4,
	VLAN_HLEN = 4,
	ETH_P_8021Q = 0x8100,
	ETH_P_8021AD = 0x88a8,
	IPV6_HLEN = 40,
	IPPROTO_TCP = 6,
	UDP_HLEN = 8,
	TCP_CWR = 0x80,
	TCP_PSH = 0x08,
	TCP_FIN = 0x01,
	OPCODE_LSO = 0x0e, /* MLX5_OPCODE_LSO */
	/* The longest frame: PMTU's largest, less its FCS. */
	MAX_FRAME = CX_ETH_MAX_MTU - ETH_FCS_LEN,
	MAX_LSO = 1 << 16, /* an LSO's payload: max_lso_cap 16 */
};

static uint32_t be32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* Data segment D of W: its length, key and address. */
static void dseg(const uint8_t *w, uint32_t d, uint32_t *n, uint32_t *lkey,
		 uint64_t *addr)
{
	const uint8_t *s = w + d * DS;

	*n = be32_at(s);
	*lkey = be32_at(s + 4);
	*addr = (uint64_t)be32_at(s + 8) << 32 | be32_at(s + 12);
}

/* Data segments FIRST up to DS: *BYTES in all, or the syndrome. */
static int data_len(struct cx *cx, uint32_t pd, const uint8_t *w,
		    uint32_t first, uint32_t ds, uint64_t *bytes)
{
	uint32_t d, n, lkey;
	uint64_t addr, run;
	uint8_t *host;

	*bytes = 0;
	for (d = first; d < ds; d++) {
		dseg(w, d, &n, &lkey, &addr);
		if (n & DSEG_INLINE)
			return CX_ETH_TX_QP_OP;
		if (!n)
			continue;
		if (cx_mkey_xlate(cx, pd, lkey, addr, n, CX_MKEY_LR, false,
				  &host, &run))
			return CX_ETH_TX_PROT;
		*bytes += n;
	}
	return 0;
}

/* The data segments' bytes to TO, a host run at a time (checked). */
static void data_copy(struct cx *cx, uint32_t pd, const uint8_t *w,
		      uint32_t first, uint32_t ds, uint8_t *to)
{
	uint32_t d, n, lkey;
	uint64_t addr, run, off;
	uint8_t *host;

	for (d = first; d < ds; d++) {
		dseg(w, d, &n, &lkey, &addr);
		for (off = 0; off < n; off += run, to += run) {
			if (cx_mkey_xlate(cx, pd, lkey, addr + off, n - off,
					  CX_MKEY_LR, false, &host, &run))
				return; /* data_len() translated it all */
			if (run > n - off)
				run = n - off;
			memcpy(to, host, run);
		}
	}
}

/* The checksums cs_flags CS asks for, over frame F of LEN bytes. */
static void offload(uint8_t *f, unsigned int len, uint8_t cs)
{
	struct cx_eth_pkt p;

	if (!(cs & (CS_L3 | CS_L4)) || !cx_eth_parse(f, len, &p))
		return;
	if (cs & CS_L3)
		cx_eth_fill_l3_csum(f, &p);
	if (cs & CS_L4)
		cx_eth_fill_l4_csum(f, &p);
}

/* Frame F of LEN bytes on the wire, padded to ETH_ZLEN, and counted. */
static void wire(struct cx *cx, const uint8_t *f, unsigned int len)
{
	uint8_t pad[ETH_ZLEN] = { 0 };

	if (len < ETH_ZLEN) {
		memcpy(pad, f, len);
		f = pad;
		len = ETH_ZLEN;
	}
	cx->eth->st.tx_frames++;
	cx->eth->st.tx_bytes += len;
	if (cx->host.eth_tx)
		cx->host.eth_tx(cx->host.ctx, f, len);
}

/*
 * The length fields of headers H for a frame of LEN bytes: the IP
 * header's at L3, and the UDP header's at UDP (0: none).
 */
static void set_lengths(uint8_t *h, unsigned int l3, unsigned int udp,
			unsigned int len)
{
	if (h[l3] >> 4 == 4)
		put16(h + l3 + 2, len - l3);
	else
		put16(h + l3 + 4, len - l3 - IPV6_HLEN);
	if (udp)
		put16(h + udp + 4, len - udp);
}

/*
 * Headers H of IHS bytes as LSO takes them: Ethernet (one C-VLAN tag at
 * most), IPv4 or IPv6, and TCP or UDP ending at IHS; into *P (parsed as
 * a frame of the headers alone), else false.
 */
static bool lso_headers(uint8_t *h, unsigned int ihs, struct cx_eth_pkt *p)
{
	unsigned int l3 = ETH_HLEN, v, end;

	if (ihs >= ETH_HLEN + VLAN_HLEN &&
	    be16_at(h + ETH_ALEN2) == ETH_P_8021Q)
		l3 += VLAN_HLEN;
	v = ihs >= l3 + 20 ? h[l3] >> 4 : 0;
	if (v != 4 && (v != 6 || ihs < l3 + IPV6_HLEN))
		return false;
	set_lengths(h, l3, 0, ihs);
	if (!cx_eth_parse(h, ihs, p) || !p->l4)
		return false;
	end = p->l4 + (p->ip_proto == IPPROTO_TCP ? (h[p->l4 + 12] >> 4) * 4
						  : UDP_HLEN);
	return end == ihs;
}

/*
 * LSO over frame F of LEN bytes: the payload after the IHS header bytes
 * in segments of MSS, each behind the headers with its lengths, IPv4 id
 * (+1 a segment), TCP sequence number (+MSS) and flags (CWR on the first,
 * FIN and PSH on the last only), then the checksums CS asks for.  Each
 * segment is built in place before its payload (over the one before,
 * already sent).  0, or the syndrome.
 */
static int lso(struct cx *cx, uint8_t *f, unsigned int len, unsigned int ihs,
	       unsigned int mss, uint8_t cs)
{
	uint8_t h[64 * DS];
	struct cx_eth_pkt p;
	unsigned int i, n, off, seglen, l4, udp;
	uint32_t seq;
	uint16_t id;
	uint8_t flags;

	memcpy(h, f, ihs);
	if (!lso_headers(h, ihs, &p))
		return CX_ETH_TX_QP_OP;
	l4 = p.l4;
	udp = p.ip_proto == IPPROTO_TCP ? 0 : l4;
	id = p.ip_version == 4 ? be16_at(h + p.l3 + 4) : 0;
	seq = be32_at(h + l4 + 4);
	flags = h[l4 + 13];
	for (i = 0, off = ihs; i == 0 || off < len; i++, off += n) {
		uint8_t *s = f + off - ihs;

		n = len - off < mss ? len - off : mss;
		seglen = ihs + n;
		memcpy(s, h, ihs);
		set_lengths(s, p.l3, udp, seglen);
		if (p.ip_version == 4)
			put16(s + p.l3 + 4, (uint16_t)(id + i));
		if (p.ip_proto == IPPROTO_TCP) {
			put32(s + l4 + 4, seq + i * mss);
			s[l4 + 13] = flags;
			if (i)
				s[l4 + 13] &= (uint8_t)~TCP_CWR;
			if (off + n < len)
				s[l4 + 13] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
		}
		offload(s, seglen, cs);
		wire(cx, s, seglen);
	}
	return 0;
}

int cx_eth_tx(struct cx *cx, uint32_t pd, const uint8_t *w, unsigned int len)
{
	uint32_t ds = w[CTRL_DS] & 0x3f, inl, ihs, first, tag;
	uint16_t word = be16_at(w + ESEG_INLINE);
	uint16_t mss = be16_at(w + ESEG_MSS);
	uint8_t cs = w[ESEG_CS], *f;
	bool is_lso = w[3] == OPCODE_LSO;
	uint64_t data, bytes;
	int synd = 0;

	if (ds < 2 || ds * DS > len)
		return CX_ETH_TX_QP_OP;
	/* Inline headers, or a tag to insert (then no inline bytes). */
	ihs = word & INSERT_VLAN ? 0 : word;
	tag = word & INSERT_VLAN ? VLAN_HLEN : 0;
	inl = ihs > INLINE_START ? (ihs - INLINE_START + DS - 1) / DS : 0;
	if (2 + inl > ds)
		return CX_ETH_TX_QP_OP;
	/* Tunnels' inner checksums: no tunnel is offered. */
	if (cs & CS_INNER)
		return CX_ETH_TX_QP_OP;
	/* LSO repeats the inline headers on each segment of MSS. */
	if (is_lso && (!mss || ihs < ETH_HLEN))
		return CX_ETH_TX_QP_OP;
	first = 2 + inl;
	synd = data_len(cx, pd, w, first, ds, &data);
	if (synd)
		return synd;
	bytes = ihs + data;
	if (bytes < ETH_HLEN)
		return CX_ETH_TX_LENGTH;
	if (is_lso ? data > MAX_LSO ||
			     ihs + (data < mss ? data : mss) > MAX_FRAME
		   : bytes + tag > MAX_FRAME)
		return CX_ETH_TX_LENGTH;
	f = malloc(bytes + tag);
	if (!f) /* the frame cannot be built: as one too long */
		return CX_ETH_TX_LENGTH;
	memcpy(f, w + ESEG_INLINE + INLINE_START, ihs);
	data_copy(cx, pd, w, first, ds, f + ihs + tag);
	if (tag) {
		memmove(f, f + tag, ETH_ALEN2);
		put16(f + ETH_ALEN2,
		      word & INSERT_SVLAN ? ETH_P_8021AD : ETH_P_8021Q);
		memcpy(f + ETH_ALEN2 + 2, w + ESEG_TCI, 2);
	}
	if (is_lso) {
		synd = lso(cx, f, (unsigned int)bytes, ihs, mss, cs);
	} else {
		offload(f, (unsigned int)(bytes + tag), cs);
		wire(cx, f, (unsigned int)(bytes + tag));
	}
	free(f);
	return synd;
}
