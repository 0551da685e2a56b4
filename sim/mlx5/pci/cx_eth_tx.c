// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An Ethernet SQ's send WQE (mlx5_ifc.h / qp.h: mlx5_wqe_ctrl_seg,
 * mlx5_wqe_eth_seg, mlx5_wqe_data_seg), as mlx5e's en_tx.c builds it with
 * MLX5_OPCODE_SEND or MLX5_OPCODE_LSO, parsed as a ConnectX parses it
 * before the frame goes out: the Ethernet segment's inline headers (or
 * the VLAN tag it inserts, MLX5_ETH_WQE_INSERT_VLAN), its MSS for LSO,
 * then each data segment read through its memory key in the SQ's PD.
 * There is no wire yet: the frame is counted (struct cx_eth's tx_*) and
 * dropped.  Left out: inline data segments (MLX5_INLINE_SEG, used by
 * mlx5e's multi-packet WQEs, which the caps do not offer).
 */
#include <endian.h>
#include <string.h>

#include "cx_eth.h"

enum {
	DS = 16,		   /* MLX5_SEND_WQE_DS */
	CTRL_DS = 7,		   /* qpn_ds's low byte: ds in bits 5:0 */
	ESEG = 16,		   /* the Ethernet segment, after ctrl */
	ESEG_MSS = ESEG + 6,	   /* mss */
	ESEG_INLINE = ESEG + 12,   /* inline_hdr.sz, or insert.type */
	INLINE_START = 2,	   /* inline_hdr.start[]: in the segment */
	INSERT_VLAN = 0x8000,	   /* MLX5_ETH_WQE_INSERT_VLAN */
	DSEG_INLINE = 0x80000000u, /* MLX5_INLINE_SEG */
	ETH_HLEN = 14,
	VLAN_HLEN = 4,
	OPCODE_LSO = 0x0e, /* MLX5_OPCODE_LSO */
};

static uint32_t be32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

int cx_eth_tx(struct cx *cx, uint32_t pd, const uint8_t *w, unsigned int len)
{
	uint32_t ds = w[CTRL_DS] & 0x3f, inl, ihs, d, first;
	uint16_t word = (uint16_t)(w[ESEG_INLINE] << 8 | w[ESEG_INLINE + 1]);
	uint16_t mss = (uint16_t)(w[ESEG_MSS] << 8 | w[ESEG_MSS + 1]);
	uint64_t bytes, payload;

	if (ds < 2 || ds * DS > len)
		return CX_ETH_TX_QP_OP;
	/* Inline headers, or a tag to insert (then no inline bytes). */
	ihs = word & INSERT_VLAN ? 0 : word;
	inl = ihs > INLINE_START ? (ihs - INLINE_START + DS - 1) / DS : 0;
	if (2 + inl > ds)
		return CX_ETH_TX_QP_OP;
	bytes = ihs + (word & INSERT_VLAN ? VLAN_HLEN : 0);
	first = 2 + inl;
	for (d = first; d < ds; d++) {
		const uint8_t *s = w + d * DS;
		uint32_t n = be32_at(s), lkey = be32_at(s + 4);
		uint64_t addr =
			(uint64_t)be32_at(s + 8) << 32 | be32_at(s + 12);
		uint8_t *host;
		uint64_t run;

		if (n & DSEG_INLINE)
			return CX_ETH_TX_QP_OP;
		if (!n)
			continue;
		if (cx_mkey_xlate(cx, pd, lkey, addr, n, CX_MKEY_LR, false,
				  &host, &run))
			return CX_ETH_TX_PROT;
		bytes += n;
	}
	if (bytes < ETH_HLEN)
		return CX_ETH_TX_LENGTH;
	if (w[3] == OPCODE_LSO) {
		/* The headers inline, repeated on each segment of MSS. */
		if (!mss || ihs < ETH_HLEN)
			return CX_ETH_TX_QP_OP;
		payload = bytes - ihs;
		cx->eth->tx_frames += payload ? (payload + mss - 1) / mss : 1;
		cx->eth->tx_bytes += bytes;
	} else {
		cx->eth->tx_frames++;
		cx->eth->tx_bytes += bytes;
	}
	return 0;
}
