/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCE v2's encapsulation (IBA annex A17): the IB transport bytes of a
 * packet (BTH onwards) in Ethernet, IPv4 or IPv6 and UDP to port 4791,
 * with the invariant CRC (ICRC) behind them.  cx_roce_encap builds such a
 * frame from an address path, cx_roce_decap checks and takes one apart.
 */
#ifndef DOORBELL_SIM_CX_ROCE_PKT_H
#define DOORBELL_SIM_CX_ROCE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	CX_ROCE_UDP_PORT = 4791, /* IANA's port for RoCE v2 */
	CX_ROCE_ICRC_LEN = 4,
};

/* The address of a RoCE v2 packet: what INIT2RTR's address path gives. */
struct cx_roce_path {
	uint8_t smac[6], dmac[6];
	uint8_t sgid[16], dgid[16]; /* IPv4 as ::ffff:a.b.c.d (IPv4-mapped) */
	uint8_t hop_limit;	    /* IPv4 TTL or IPv6 hop limit */
	uint8_t tclass;		    /* IPv4 TOS or IPv6 traffic class */
	uint32_t flow_label;	    /* IPv6 only, 20 bits */
	uint16_t udp_sport;
};

/* Whether a GID is IPv4-mapped (::ffff:0:0/96): the packet is IPv4. */
bool cx_roce_gid_is_v4(const uint8_t gid[16]);

/*
 * FRAME <- Ethernet (untagged), IPv4 or IPv6 (chosen by DGID; SGID must be
 * of the same family), UDP from udp_sport to 4791 with a checksum of 0,
 * IB[0..IB_LEN) (BTH first) and the ICRC.  IPv4: no options, DF set, id 0,
 * the header checksum.  The frame's length; 0 if it would not fit CAP, the
 * families differ or IB_LEN is shorter than a BTH or too long for IP.
 */
size_t cx_roce_encap(const struct cx_roce_path *p, const uint8_t *ib,
		     size_t ib_len, uint8_t *frame, size_t cap);

/* A RoCE v2 frame taken apart by cx_roce_decap. */
struct cx_roce_rx {
	uint8_t smac[6], dmac[6];
	uint8_t sgid[16], dgid[16]; /* IPv4 mapped as above */
	uint8_t hop_limit, tclass;
	uint32_t flow_label; /* IPv6; 0 for IPv4 */
	uint16_t udp_sport;
	bool vlan; /* the frame had an 802.1Q tag, of TCI */
	uint16_t tci;
	const uint8_t *l3; /* the IP header, into the frame */
	const uint8_t *ib; /* BTH onwards, into the frame */
	size_t ib_len;	   /* without the ICRC */
};

enum cx_roce_verdict {
	CX_ROCE_OK = 0,
	CX_ROCE_NOT_ROCE,  /* not UDP to 4791 over IPv4/IPv6: not ours */
	CX_ROCE_MALFORMED, /* truncated, bad IP checksum/length, fragment */
	CX_ROCE_BAD_ICRC,
};

/*
 * The frame F of LEN bytes (trailing Ethernet padding allowed: the IP
 * lengths count) as a RoCE v2 packet; RX is filled for CX_ROCE_OK and
 * CX_ROCE_BAD_ICRC (whose addresses say whether the port drops it).
 * A non-zero UDP checksum is checked (a wrong one: MALFORMED); 0 is taken.
 */
enum cx_roce_verdict cx_roce_decap(const uint8_t *f, size_t len,
				   struct cx_roce_rx *rx);

/*
 * The ICRC of the RoCE v2 packet whose IP datagram (IPv4 or IPv6, by its
 * version nibble) is IP[0..LEN), the ICRC's own 4 bytes at its end; LEN
 * holds at least the IP, UDP and BTH headers and the ICRC.  The CRC-32 of
 * 8 bytes of ones (the masked LRH), the IP and UDP headers with their
 * variant fields as ones, the BTH with its resv8a byte as ones and the
 * rest up to the ICRC; complemented.  It goes on the wire least
 * significant byte first.
 */
uint32_t cx_roce_icrc(const uint8_t *ip, size_t len);

#endif
