// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A frame from the wire arrives at the Ethernet port (cx_eth_receive):
 *  1. the port takes it while PAOS has it up and it fits the MTU PMTU
 *     sets (with a VLAN tag and the FCS the wire does not carry);
 *  2. the NIC receive tables steer its match parameters (outer headers,
 *     as fte_match_set_lyr_2_4 lays them out) to a TIR (cx_eth_fs.c), the
 *     TIR to an RQ (cx_eth_tir.c: direct, or the RSS hash's RQT entry);
 *  3. an RQ in RDY without VLAN stripping disabled (rqc.vsd) takes the
 *     C-VLAN tag off and reports it in the CQE;
 *  4. the frame is scattered over the data segments of the RQ's next WQE
 *     (a cyclic WQ: mlx5e's mlx5e_rx_wqe_cyc; a segment of
 *     MLX5_INVALID_LKEY ends the list) through their keys in the RQ's PD,
 *     and a responder CQE (MLX5_CQE_RESP_SEND) reports it as mlx5e's
 *     en_rx.c reads it: byte_cnt, wqe_counter, the checksum of the bytes
 *     from the IP header to the datagram's end (mlx5e_handle_csum, no
 *     cqe_checksum_full), L3_OK and L4_OK, the header types, the VLAN,
 *     the RSS hash and its type, the time stamp.
 * Dropped and counted (struct cx_eth's rx_*): the port down, no RQ in
 * RDY, no WQE posted (the RQ's out_of_buffer), a frame longer than the
 * WQE.  A key that fails completes the WQE with a responder error CQE
 * (LOCAL_PROT_ERR) and moves the RQ to ERR, as mlx5e's recovery expects.
 * RoCE v2 for the port's GIDs goes to the RoCE engine first (cx_roce.c).
 * No local loopback: frames the port sends never come back to it.
 */
#include <endian.h>
#include <string.h>

#include "cx.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"

enum {
	ETH_HLEN = 14,
	VLAN_HLEN = 4,
	FCS_LEN = 4,
	PORT_UP = 1,  /* MLX5_PORT_UP */
	RQ_RDY = 0x1, /* MLX5_RQC_STATE_RDY, _ERR */
	RQ_ERR = 0x3,
	DSEG = 16,	      /* mlx5_wqe_data_seg */
	INVALID_LKEY = 0x100, /* MLX5_INVALID_LKEY */
	IPPROTO_TCP = 6,
	IPPROTO_UDP = 17,
	/* mlx5_cqe64 byte offsets */
	CQE_RSS_HASH = 12,
	CQE_RSS_HTYPE = 16,
	CQE_CHECK_SUM = 20,
	CQE_HDS_IP_EXT = 28,
	CQE_L4_L3_HDR_TYPE = 29,
	CQE_VLAN_INFO = 30,
	CQE_BYTE_CNT = 44,
	CQE_TIMESTAMP = 48,
	CQE_WQE_COUNTER = 60,
	CQE_SYNDROME = 55, /* mlx5_err_cqe.syndrome */
	CQE_OP_OWN = 63,
	CQE_RESP_SEND = 0x2, /* MLX5_CQE_RESP_SEND, _RESP_ERR */
	CQE_RESP_ERR = 0xe,
	SYND_LOCAL_PROT = 0x4, /* MLX5_CQE_SYNDROME_LOCAL_PROT_ERR */
	/* hds_ip_ext: CQE_L2_OK, _L3_OK, _L4_OK */
	L2_OK = 1 << 0,
	L3_OK = 1 << 1,
	L4_OK = 1 << 2,
	/* l4_l3_hdr_type: CQE_L4_HDR_TYPE_* << 4, l3 type << 2, VLAN bit 0 */
	L4_TCP_NO_ACK = 0x1,
	L4_UDP = 0x2,
	L4_TCP_ACK_NO_DATA = 0x3,
	L4_TCP_ACK_AND_DATA = 0x4,
	L3_IPV6 = 0x1,
	L3_IPV4 = 0x2,
	TCP_ACK = 0x10,
};

/* A frame dropped, counted; named in the trace (cx-server --trace). */
static void drop(struct cx *cx, struct cx_eth *e, const char *why,
		 unsigned int n)
{
	e->st.rx_dropped++;
	cx_trace(cx, "eth rx drop: %s (%u)", why, n);
}

/* Frame F's match parameters (cx_eth_ifc.h's B_MATCH_* and F_MATCH_*). */
static void match_of(const uint8_t *f, const struct cx_eth_pkt *p, uint8_t *m)
{
	const uint8_t *ip = f + p->l3;

	memset(m, 0, CX_ETH_MATCH_BYTES);
	memcpy(m + B_MATCH_SMAC, f + 6, 6);
	memcpy(m + B_MATCH_DMAC, f, 6);
	cx_set(m, B_MATCH_ETHERTYPE * 8, 16, p->ethertype);
	if (p->vlan) {
		cx_set(m, F_MATCH_CVLAN_TAG, 1);
		cx_set(m, B_MATCH_FIRST_VLAN * 8, 16, p->tci);
	}
	if (!p->ip_version)
		return;
	m[B_MATCH_IP_PROTOCOL] = p->ip_proto;
	cx_set(m, F_MATCH_IP_VERSION, p->ip_version);
	cx_set(m, F_MATCH_FRAG, p->frag);
	if (p->ip_version == 4) {
		m[B_MATCH_IP_DSCP_ECN] = ip[1];
		m[B_MATCH_TTL_HOPLIMIT] = ip[8];
		memcpy(m + B_MATCH_SRC_IP + 12, ip + 12, 4);
		memcpy(m + B_MATCH_DST_IP + 12, ip + 16, 4);
	} else {
		m[B_MATCH_IP_DSCP_ECN] = (uint8_t)(ip[0] << 4 | ip[1] >> 4);
		m[B_MATCH_TTL_HOPLIMIT] = ip[7];
		memcpy(m + B_MATCH_SRC_IP, ip + 8, 16);
		memcpy(m + B_MATCH_DST_IP, ip + 24, 16);
	}
	if (!p->l4)
		return;
	if (p->ip_proto == IPPROTO_TCP) {
		memcpy(m + B_MATCH_TCP_SPORT, f + p->l4, 4);
		cx_set(m, F_MATCH_TCP_FLAGS,
		       (f[p->l4 + 12] & 1) << 8 | f[p->l4 + 13]);
	} else {
		memcpy(m + B_MATCH_UDP_SPORT, f + p->l4, 4);
	}
}

/* Copy LEN bytes of F to ADDR of KEY (local write in PD); -1 if it fails. */
static int scatter(struct cx *cx, uint32_t pd, uint32_t key, uint64_t addr,
		   const uint8_t *f, uint64_t len)
{
	while (len) {
		uint8_t *host;
		uint64_t run;

		if (cx_mkey_xlate(cx, pd, key, addr, len, CX_MKEY_LW, true,
				  &host, &run) ||
		    !run)
			return -1;
		if (run > len)
			run = len;
		memcpy(host, f, run);
		f += run;
		addr += run;
		len -= run;
	}
	return 0;
}

/*
 * F (LEN bytes) over the data segments of WQE W (STRIDE bytes): 0, 1
 * when the segments hold fewer bytes, -1 when a key fails.
 */
static int fill_wqe(struct cx *cx, const struct cx_eth_rq *r, const uint8_t *w,
		    unsigned int stride, const uint8_t *f, unsigned int len)
{
	unsigned int s, left = len;

	for (s = 0; s < stride / DSEG && left; s++) {
		const uint8_t *d = w + s * DSEG;
		uint32_t room = cx_get(d, 1, 31), key = cx_get(d, 32, 32);
		uint64_t addr = cx_get64(d, 8);
		unsigned int n = room < left ? room : left;

		if (key == INVALID_LKEY)
			break;
		if (n && scatter(cx, r->pd, key, addr, f + len - left, n))
			return -1;
		left -= n;
	}
	return left ? 1 : 0;
}

/* The CQE's fields that describe frame F (P: its headers). */
static void describe(const uint8_t *f, const struct cx_eth_pkt *p, uint8_t *cqe)
{
	uint8_t ok = L2_OK, l4 = 0, l3 = 0;

	if (p->ip_version) {
		l3 = p->ip_version == 4 ? L3_IPV4 : L3_IPV6;
		cx_set(cqe, CQE_CHECK_SUM * 8, 16,
		       cx_csum_fold(
			       cx_csum_add(0, f + p->l3, p->l3_end - p->l3)));
		if (cx_eth_l3_csum_ok(f, p))
			ok |= L3_OK;
	}
	if (p->l4) {
		if (p->ip_proto == IPPROTO_UDP) {
			l4 = L4_UDP;
		} else {
			unsigned int hl = (f[p->l4 + 12] >> 4) * 4;

			l4 = !(f[p->l4 + 13] & TCP_ACK) ? L4_TCP_NO_ACK
			     : p->l4 + hl < p->l3_end	? L4_TCP_ACK_AND_DATA
							: L4_TCP_ACK_NO_DATA;
		}
		if (cx_eth_l4_csum_ok(f, p))
			ok |= L4_OK;
	}
	cqe[CQE_HDS_IP_EXT] = ok;
	cqe[CQE_L4_L3_HDR_TYPE] |= (uint8_t)(l4 << 4 | l3 << 2);
}

/* Frame F (LEN bytes, P its headers) into RQ N's next WQE, with its CQE. */
static void rq_receive(struct cx *cx, struct cx_eth *e, uint32_t n,
		       const uint8_t *f, unsigned int len,
		       const struct cx_eth_pkt *p, uint32_t hash, uint8_t htype)
{
	struct cx_eth_rq *r = &e->rq[n - 1];
	unsigned int stride = 1u << r->log_stride, mask = (1u << r->log_sz) - 1;
	uint8_t cqe[64] = { 0 }, strip[CX_ETH_MAX_MTU];
	const uint32_t *dbr = cx_dma(cx, r->dbr, 4, false); /* big-endian */
	struct cx_eth_pkt q = *p;
	const uint8_t *w;
	uint16_t posted;
	int st;

	if (r->state != RQ_RDY || !dbr) {
		drop(cx, e, "RQ not in RDY", n);
		return;
	}
	/* MLX5_RCV_DBR.  Acquire: the WQEs are read after the count. */
	posted = (uint16_t)be32toh(__atomic_load_n(&dbr[0], __ATOMIC_ACQUIRE));
	if (posted == r->cc) {
		r->no_wqe++;
		e->st.rx_no_wqe++;
		return;
	}
	w = cx_queue_at(cx, r->pas, r->npas, r->log_pg_sz, r->page_offset,
			(uint64_t)(r->cc & mask) * stride, stride, false);
	if (!w) {
		drop(cx, e, "WQE not in guest memory", n);
		return;
	}
	if (p->vlan && !r->vsd) {
		/* The tag goes into the CQE; the MACs close up over it. */
		memcpy(strip, f, 12);
		memcpy(strip + 12, f + 12 + VLAN_HLEN, len - 12 - VLAN_HLEN);
		f = strip;
		len -= VLAN_HLEN;
		cx_eth_parse(f, len, &q);
		cqe[CQE_L4_L3_HDR_TYPE] = 1;
		cx_set(cqe, CQE_VLAN_INFO * 8, 16, p->tci);
	}
	st = fill_wqe(cx, r, w, stride, f, len);
	if (st > 0) {
		drop(cx, e, "longer than the WQE", n); /* nothing consumed */
		return;
	}
	cx_set(cqe, CQE_WQE_COUNTER * 8, 16, r->cc);
	r->cc++;
	if (st < 0) {
		cqe[CQE_SYNDROME] = SYND_LOCAL_PROT;
		cqe[CQE_OP_OWN] = CQE_RESP_ERR << 4;
		r->state = RQ_ERR;
		e->st.rx_dropped++;
	} else {
		describe(f, &q, cqe);
		cx_set(cqe, CQE_RSS_HASH * 8, 32, hash);
		cqe[CQE_RSS_HTYPE] = htype;
		cx_set(cqe, CQE_BYTE_CNT * 8, 32, len);
		cx_set64(cqe, CQE_TIMESTAMP, cx_timer(cx));
		cqe[CQE_OP_OWN] = CQE_RESP_SEND << 4;
		e->st.rx_frames++;
		e->st.rx_bytes += len;
	}
	cx_cq_push(cx, r->cqn, cqe, false);
}

void cx_eth_receive(struct cx *cx, const uint8_t *f, unsigned int len)
{
	struct cx_eth *e = cx->eth;
	uint8_t m[CX_ETH_MATCH_BYTES], htype;
	struct cx_eth_pkt p;
	uint32_t tir, rq, hash;

	if (!e)
		return;
	if (e->admin_status != PORT_UP) {
		drop(cx, e, "port down", len);
		return;
	}
	if (!cx_eth_parse(f, len, &p) || len + FCS_LEN > e->admin_mtu ||
	    len > CX_ETH_MAX_MTU) {
		drop(cx, e, "frame length", len);
		return;
	}
	if (cx_roce_receive(cx, f, len))
		return;
	match_of(f, &p, m);
	tir = cx_eth_fs_steer(e, m);
	rq = tir ? cx_eth_tir_rq(e, tir, f, &p, &hash, &htype) : 0;
	if (!cx_eth_rq_valid(e, rq)) {
		drop(cx, e, tir ? "TIR without an RQ" : "no entry steers it",
		     tir);
		return;
	}
	rq_receive(cx, e, rq, f, len, &p, hash, htype);
}
