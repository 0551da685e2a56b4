// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCE v2 between the engine and the wire.
 *
 * Out: a packet of a QP on the wire (the engine's BTH onwards) leaves as
 * the QP's address path names it (INIT2RTR's ads), or for UD the WQE's
 * AV: from the MAC and GID of RoCE address table entry src_addr_index
 * (cx_eth_roce.c), to rmac and rgid_rip, with hop_limit, tclass,
 * flow_label and udp_sport; framed by
 * cx_roce_pkt.c (Ethernet, IPv4 or IPv6, UDP to 4791, the ICRC).  An
 * entry that holds no RoCE v2 GID sends nothing.  A frame to the port's
 * own MAC is looped back to it (loop_push).
 *
 * In (cx_roce_receive, before the NIC receive tables): with roce_en, UDP
 * to 4791 addressed to a GID of the table is RoCE's, never mlx5e's.  It
 * is dropped and counted with a bad ICRC, for a QP number that is no QP
 * on the wire, or, for a connected QP, from a GID other than its peer's
 * (rgid_rip); the rest goes to the engine (cx_eng_wire_rx), with the IP
 * header as a UD receive's GRH area holds it (IPv4's at byte 20).
 */
#include <stdlib.h>
#include <string.h>

#include "cx_engine.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_ifc.h"
#include "cx_int.h"
#include "cx_roce_pkt.h"
#include "m5m_ibt.h"

enum {
	ROCE_V2 = 2,		/* MLX5_ROCE_VERSION_2 */
	UDP_SPORT_MIN = 0xc000, /* the ROCE page's r_roce_min_src_udp_port */
	FRAME_MAX = 4096 + 256,
	LOOP_MAX = 4096, /* frames looped back and not yet received */
};

static void roce_drop(struct cx *cx, const char *why, uint32_t n)
{
	cx->eth->st.roce_dropped++;
	cx_trace(cx, "roce drop: %s (0x%x)", why, n);
}

/*
 * A frame to the port's own MAC never reaches the wire: the port takes
 * it back, as a ConnectX loops RoCE between two QPs of one function.  It
 * is received once the engine call that sent it has returned
 * (cx_roce_loop_run), in order.
 */
static void loop_push(struct cx *cx, const uint8_t *frame, size_t n)
{
	struct cx_eth *e = cx->eth;
	struct cx_eth_frame *f;

	f = e->nloop < LOOP_MAX ? malloc(sizeof(*f) + n) : NULL;
	if (!f) {
		roce_drop(cx, "loopback queue full", e->nloop);
		return;
	}
	f->next = NULL;
	f->len = (unsigned int)n;
	memcpy(f->b, frame, n);
	if (!e->loop)
		e->loop_tail = &e->loop;
	*e->loop_tail = f;
	e->loop_tail = &f->next;
	e->nloop++;
	e->st.roce_looped++;
}

void cx_roce_qp_addr(const struct cx *cx, uint32_t qpn, struct cx_roce_addr *a)
{
	const uint8_t *ads = cx->qp[qpn].qpc + B_QPC_PRIMARY_ADDRESS_PATH;

	a->sgid_index = (uint8_t)cx_get(ads, F_ADS_SRC_ADDR_INDEX);
	memcpy(a->dmac, ads + B_ADS_RMAC, 6);
	memcpy(a->dgid, ads + B_ADS_RGID_RIP, 16);
	a->hop_limit = (uint8_t)cx_get(ads, F_ADS_HOP_LIMIT);
	a->tclass = (uint8_t)cx_get(ads, F_ADS_TCLASS);
	a->flow_label = cx_get(ads, F_ADS_FLOW_LABEL);
	a->udp_sport = (uint16_t)cx_get(ads, F_ADS_UDP_SPORT);
}

void cx_roce_tx(struct cx *cx, const struct cx_roce_addr *a, const uint8_t *pkt,
		size_t len)
{
	struct cx_eth *e = cx->eth;
	const struct cx_eth_gid *g;
	struct cx_roce_path p = { 0 };
	uint8_t frame[FRAME_MAX];
	size_t n;

	if (!e)
		return;
	g = &e->gid[a->sgid_index % CX_ETH_ROCE_GIDS];
	if (!g->valid || g->version != ROCE_V2) {
		roce_drop(cx, "source GID index holds no RoCE v2 GID",
			  a->sgid_index);
		return;
	}
	memcpy(p.smac, g->mac, 6);
	memcpy(p.dmac, a->dmac, 6);
	memcpy(p.sgid, g->gid, 16);
	memcpy(p.dgid, a->dgid, 16);
	p.hop_limit = a->hop_limit;
	p.tclass = a->tclass;
	p.flow_label = a->flow_label;
	/* None given: one of the ROCE page's source ports, per flow. */
	p.udp_sport =
		a->udp_sport
			? a->udp_sport
			: (uint16_t)(UDP_SPORT_MIN | (a->flow_label & 0x3fff));
	n = cx_roce_encap(&p, pkt, len, frame, sizeof(frame));
	if (!n) {
		roce_drop(cx, "not framed (GID families differ)",
			  a->sgid_index);
		return;
	}
	e->st.roce_tx++;
	if (!memcmp(p.dmac, e->mac, 6)) {
		loop_push(cx, frame, n);
		return;
	}
	e->st.tx_frames++;
	e->st.tx_bytes += n;
	if (cx->host.eth_tx)
		cx->host.eth_tx(cx->host.ctx, frame, (unsigned int)n);
}

void cx_roce_loop_run(struct cx *cx)
{
	struct cx_eth *e = cx->eth;
	struct cx_eth_frame *f;

	if (!e || e->looping)
		return;
	e->looping = true;
	while ((f = e->loop)) {
		e->loop = f->next;
		e->nloop--;
		cx_eth_receive(cx, f->b, f->len);
		free(f);
	}
	e->looping = false;
}

void cx_roce_loop_free(struct cx_eth *e)
{
	struct cx_eth_frame *f;

	while ((f = e->loop)) {
		e->loop = f->next;
		free(f);
	}
	e->nloop = 0;
}

/* The table entry holding gid as a RoCE v2 GID, or NULL. */
static const struct cx_eth_gid *our_gid(const struct cx_eth *e,
					const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < CX_ETH_ROCE_GIDS; i++)
		if (e->gid[i].valid && e->gid[i].version == ROCE_V2 &&
		    !memcmp(e->gid[i].gid, gid, 16))
			return &e->gid[i];
	return NULL;
}

bool cx_roce_receive(struct cx *cx, const uint8_t *f, unsigned int len)
{
	struct cx_eth *e = cx->eth;
	const struct ibt_bth *b;
	struct cx_roce_rx rx;
	enum cx_roce_verdict v;
	uint8_t grh[40];
	uint32_t qpn;
	int n;

	if (!e || !e->roce_en)
		return false;
	v = cx_roce_decap(f, len, &rx);
	if (v == CX_ROCE_NOT_ROCE || v == CX_ROCE_MALFORMED ||
	    !our_gid(e, rx.dgid))
		return false;
	if (v == CX_ROCE_BAD_ICRC) {
		e->st.roce_bad_icrc++;
		roce_drop(cx, "ICRC", len);
		return true;
	}
	if (rx.ib_len < sizeof(*b)) {
		roce_drop(cx, "no BTH", (uint32_t)rx.ib_len);
		return true;
	}
	b = (const struct ibt_bth *)rx.ib;
	qpn = be32toh(b->dqpn) & IBT_QPN_MASK;
	n = cx_eng_wire_qp(cx, qpn);
	if (n < 0) {
		roce_drop(cx, "no QP on the wire of that number", qpn);
		return true;
	}
	/* A connected QP takes its peer's packets only; UD anyone's. */
	if ((cx->qp[n].st == CX_ST_RC || cx->qp[n].st == CX_ST_UC) &&
	    memcmp(rx.sgid,
		   cx->qp[n].qpc + B_QPC_PRIMARY_ADDRESS_PATH + B_ADS_RGID_RIP,
		   16)) {
		roce_drop(cx, "not from the QP's peer GID", qpn);
		return true;
	}
	/* The GRH area of a UD receive: IPv6's header, or IPv4's at 20. */
	memset(grh, 0, sizeof(grh));
	if (cx_roce_gid_is_v4(rx.dgid))
		memcpy(grh + 20, rx.l3, 20);
	else
		memcpy(grh, rx.l3, 40);
	e->st.roce_rx++;
	cx_eng_wire_rx(cx, (uint32_t)n, rx.ib, rx.ib_len, grh);
	return true;
}
