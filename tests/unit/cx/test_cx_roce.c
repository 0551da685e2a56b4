// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RC and UD over RoCE v2 (cx_roce.c, m5m_wire_req.c, m5m_wire_rsp.c): QPs A and
 * B of one Ethernet function whose address paths name the function's own
 * GID and MAC.  Every frame the port sends is caught here, checked as
 * RoCE v2 (UDP to 4791, a good ICRC), and handed back to the port's
 * receive side by the test, which may lose, hold back or corrupt it: the
 * transport's answers (sequence NAKs, duplicates, RNR, the ACK timeout)
 * are what is tested, and the bytes and completions that result.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_rig.h"
#include "cx_roce_pkt.h"
#include "m5m_ibt.h"

enum {
	MAXF = 256,
	FRAME = 4096 + 256,
	ACK_TIMEOUT = 8, /* 4.096 us << 8: about 1 ms */
};

static struct {
	uint8_t f[MAXF][FRAME];
	unsigned int len[MAXF];
	unsigned int head, tail; /* frames caught, not yet delivered */
	unsigned int sent;	 /* frames the port sent */
	uint8_t ops[MAXF];	 /* their BTH opcodes, in order */
	bool bad;		 /* one was not RoCE v2 with a good ICRC */
} w;

static void catch_frame(void *ctx, const uint8_t *f, unsigned int len)
{
	struct cx_roce_rx rx;

	(void)ctx;
	if (cx_roce_decap(f, len, &rx) != CX_ROCE_OK || len > FRAME ||
	    w.tail - w.head >= MAXF) {
		w.bad = true;
		return;
	}
	w.ops[w.sent++ % MAXF] = rx.ib[0];
	memcpy(w.f[w.tail % MAXF], f, len);
	w.len[w.tail++ % MAXF] = len;
}

/* A MAC not the function's: frames to it go to the test's wire. */
static const uint8_t peer_mac[6] = { 0x00, 0x02, 0xc9, 0x00, 0x63, 0x79 };

/* Two QPs of st whose RoCE paths go to MAC rmac (NULL: their own). */
static struct t_rig *roce_rig_to(uint32_t st, const uint8_t *rmac)
{
	struct cx *cx = dev_up_eth();
	struct cx_eth_gid *g = &cx->eth->gid[0];

	memset(&w, 0, sizeof(w));
	cx->host.eth_tx = catch_frame;
	cx->eth->admin_status = 1; /* PAOS up */
	cx->eth->admin_mtu = 9000;
	cx->eth->roce_en = true;
	g->valid = true;
	memcpy(g->gid, t_roce_gid, 16);
	memcpy(g->mac, cx->eth->mac, 6);
	g->version = 2;
	t_ack_timeout = ACK_TIMEOUT;
	t_rmac = rmac;
	return t_rig_with(cx, st, 0, false, false);
}

static struct t_rig *roce_rig(uint32_t st)
{
	return roce_rig_to(st, peer_mac);
}

/* The oldest frame caught, or NULL. */
static uint8_t *next_frame(unsigned int *len)
{
	if (w.head == w.tail)
		return NULL;
	*len = w.len[w.head % MAXF];
	return w.f[w.head++ % MAXF];
}

/* Deliver what was caught, the loss and timers included, until quiet. */
static void pump(struct t_rig *r, unsigned int lose_mask)
{
	unsigned int n = 0, len, rounds = 0;
	int64_t due;
	uint8_t *f;

	for (;;) {
		while ((f = next_frame(&len))) {
			if (!(n < 32 && lose_mask >> n & 1))
				cx_eth_receive(r->cx, f, len);
			n++;
		}
		due = cx_eng_timers(r->cx);
		if (w.head != w.tail)
			continue;
		if (due < 0 || rounds++ > 64)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = due + 1000 }, NULL);
	}
}

static unsigned int ops_of(uint8_t op)
{
	unsigned int i, n = 0;

	for (i = 0; i < w.sent && i < MAXF; i++)
		n += w.ops[i] == op;
	return n;
}

/* The receive CQE at slot n of B's CQ: RESP_SEND of len bytes. */
static void check_recv(unsigned int n, uint32_t len)
{
	const struct m5_cqe64 *c = t_cqe(1, n);

	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c->byte_cnt), len);
}

/* A READ from QP 0 of len bytes at B's raddr into A's laddr, rung. */
static void post_read(struct t_rig *r, uint64_t raddr, uint32_t len,
		      uint64_t laddr)
{
	uint8_t *wq = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 3);

	t_raddr(wq, r->key[1], raddr);
	t_data(wq + 16, len, r->key[0], laddr);
	t_ring(r, 0, 1);
}

static void rc_send_crosses_the_wire_as_rocev2_frames_and_lands(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;

	t_fill(r, 0, src, 6000, 3);
	t_recv(r, 1, 8000, dst);
	t_send(r, 6000, r->key[0], src);
	/* Nothing lands before the frames reach the port. */
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	pump(r, 0);
	CHECK(!w.bad);
	CHECK(t_same(r, 0, src, 1, dst, 6000));
	t_check_req(r, 0, M5_OPCODE_SEND, 6000);
	check_recv(0, 6000);
	CHECK_EQ(be32toh(t_cqe(1, 0)->flags_rqpn) & 0xffffff, r->qpn[0]);
	/* Two packets of the 4096-byte MTU, one ACK; nothing more. */
	CHECK_EQ(ops_of(IBT_SEND_FIRST), 1);
	CHECK_EQ(ops_of(IBT_SEND_LAST), 1);
	CHECK_EQ(ops_of(IBT_ACK), 1);
	CHECK_EQ(w.sent, 3);
	CHECK_EQ(r->cx->eth->st.roce_rx, 3);
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void rc_write_read_and_atomics_cross_the_wire(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[1] + 0x200;
	uint64_t *target, *orig;
	uint8_t *wq;

	t_fill(r, 0, a, 5000, 11);
	t_write(r, r->key[1], b, 5000, r->key[0], a);
	pump(r, 0);
	CHECK(t_same(r, 0, a, 1, b, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 5000);
	/* READ back 5000 bytes of B into A at a + 0x1000. */
	t_fill(r, 1, b, 5000, 77);
	post_read(r, b, 5000, a + 0x1000);
	pump(r, 0);
	CHECK(t_same(r, 0, a + 0x1000, 1, b, 5000));
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(ops_of(IBT_READ_RESP_FIRST), 1);
	CHECK_EQ(ops_of(IBT_READ_RESP_LAST), 1);
	/* Fetch-and-add 5 on B's 8 bytes at b + 0x1000 (aligned). */
	target = (uint64_t *)t_va(r, 1, (b + 0x1000) & ~7ull);
	orig = (uint64_t *)t_va(r, 0, a + 0x2800);
	*target = 40;
	wq = t_wqe(r, 0, M5_OPCODE_ATOMIC_FA, 4);
	t_raddr(wq, r->key[1], (b + 0x1000) & ~7ull);
	*(__be64 *)(wq + 16) = htobe64(5);
	t_data(wq + 32, 8, r->key[0], a + 0x2800);
	t_ring(r, 0, 1);
	pump(r, 0);
	CHECK_EQ(*target, 45);
	CHECK_EQ(*orig, 40);
	CHECK_EQ(t_cqe(0, 2)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK(!w.bad);
	t_rig_free(r);
}

/* The first of two packets is lost: a sequence NAK, go-back-N, once. */
static void lost_packet_is_resent_and_the_message_lands_once(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;

	t_fill(r, 0, src, 6000, 5);
	t_recv(r, 1, 8000, dst);
	t_recv(r, 1, 8000, dst + 0x2000);
	t_send(r, 6000, r->key[0], src);
	pump(r, 1u << 0);
	CHECK(t_same(r, 0, src, 1, dst, 6000));
	t_check_req(r, 0, M5_OPCODE_SEND, 6000);
	check_recv(0, 6000);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID); /* once */
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(ops_of(IBT_SEND_FIRST), 2);
	CHECK(cx_eng_stats(r->cx)->violations == 0);
	t_rig_free(r);
}

/* The ACK is lost: the timer resends, the duplicate is ACKed, no twice. */
static void lost_ack_brings_a_duplicate_that_lands_nothing_twice(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;

	t_fill(r, 0, src, 100, 9);
	t_recv(r, 1, 256, dst);
	t_recv(r, 1, 256, dst + 0x100);
	t_send(r, 100, r->key[0], src);
	pump(r, 1u << 1); /* frame 0 the SEND, frame 1 its ACK */
	t_check_req(r, 0, M5_OPCODE_SEND, 100);
	check_recv(0, 100);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(ops_of(IBT_SEND_ONLY), 2);
	CHECK_EQ(ops_of(IBT_ACK), 2);
	t_rig_free(r);
}

/* A fetch-and-add whose answer is lost runs once: the cache answers. */
static void duplicate_atomic_is_answered_without_running_twice(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[1] + 0x200;
	uint64_t *target = (uint64_t *)t_va(r, 1, b);
	uint8_t *wq;

	*target = 7;
	wq = t_wqe(r, 0, M5_OPCODE_ATOMIC_FA, 4);
	t_raddr(wq, r->key[1], b);
	*(__be64 *)(wq + 16) = htobe64(1);
	t_data(wq + 32, 8, r->key[0], a);
	t_ring(r, 0, 1);
	pump(r, 1u << 1);
	CHECK_EQ(*target, 8);
	CHECK_EQ(*(uint64_t *)t_va(r, 0, a), 7);
	CHECK_EQ(ops_of(IBT_FETCH_ADD), 2);
	CHECK_EQ(ops_of(IBT_ATOMIC_ACK), 2);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_rig_free(r);
}

/* Two messages, their packets swapped on the wire: both land, in order. */
static void reordered_packets_land_in_order_once(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;
	unsigned int l0, l1;
	uint8_t *f0, *f1, tmp[FRAME];

	t_fill(r, 0, src, 300, 1);
	t_recv(r, 1, 256, dst);
	t_recv(r, 1, 256, dst + 0x200);
	t_send(r, 100, r->key[0], src);
	t_send(r, 200, r->key[0], src + 100);
	CHECK_EQ(w.tail - w.head, 2);
	f0 = w.f[w.head % MAXF];
	f1 = w.f[(w.head + 1) % MAXF];
	l0 = w.len[w.head % MAXF];
	l1 = w.len[(w.head + 1) % MAXF];
	memcpy(tmp, f0, l0);
	memcpy(f0, f1, l1);
	memcpy(f1, tmp, l0);
	w.len[w.head % MAXF] = l1;
	w.len[(w.head + 1) % MAXF] = l0;
	pump(r, 0);
	CHECK(t_same(r, 0, src, 1, dst, 100));
	CHECK(t_same(r, 0, src + 100, 1, dst + 0x200, 200));
	check_recv(0, 100);
	check_recv(1, 200);
	CHECK_EQ(t_cqe(1, 2)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(0, 2)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/*
 * A READ's middle response is lost: the last one, past the gap, has the
 * READ asked again at once for the rest (from the missing PSN, the RETH
 * moved on), not from its start after the ACK timeout.
 */
static void read_response_gap_asks_again_for_the_rest_only(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[1] + 0x200;

	t_fill(r, 1, b, 9000, 21);
	post_read(r, b, 9000, a);
	pump(r, 1u << 2); /* 0 the request; 1, 2, 3 FIRST, MIDDLE, LAST */
	CHECK(t_same(r, 0, a, 1, b, 9000));
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(ops_of(IBT_READ_REQUEST), 2);
	CHECK_EQ(ops_of(IBT_READ_RESP_FIRST), 2);
	CHECK_EQ(ops_of(IBT_READ_RESP_MIDDLE), 1);
	CHECK_EQ(ops_of(IBT_READ_RESP_LAST), 2);
	CHECK_EQ(cx_eng_stats(r->cx)->ack_timeouts, 0);
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK(!w.bad);
	t_rig_free(r);
}

/*
 * The answers to an earlier ask land: a duplicate past a gap has the READ
 * asked again for its rest, whose answers are lost, and the first ask's
 * responses, in order after it, bring the bytes (each ask wants the same
 * ones at a PSN): the READ completes without the ACK timer.
 */
static void read_responses_to_an_earlier_ask_land_after_asking_again(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[1] + 0x200;
	static uint8_t resp[3][FRAME];
	unsigned int len[3] = { 0 }, n = 0, k;
	uint8_t *f;

	t_fill(r, 1, b, 9000, 51);
	post_read(r, b, 9000, a);
	f = next_frame(&n); /* the request */
	cx_eth_receive(r->cx, f, n);
	CHECK_EQ(w.tail - w.head, 3); /* FIRST, MIDDLE, LAST */
	for (k = 0; k < 3; k++) {
		f = next_frame(&len[k]);
		memcpy(resp[k], f, len[k]);
	}
	cx_eth_receive(r->cx, resp[0], len[0]);
	cx_eth_receive(r->cx, resp[2], len[2]); /* a duplicate, early */
	CHECK_EQ(w.tail - w.head, 1);  /* asked again from the MIDDLE */
	CHECK(next_frame(&n) != NULL); /* lost */
	cx_eth_receive(r->cx, resp[1], len[1]);
	cx_eth_receive(r->cx, resp[2], len[2]);
	CHECK(t_same(r, 0, a, 1, b, 9000));
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(ops_of(IBT_READ_REQUEST), 2);
	CHECK_EQ(cx_eng_stats(r->cx)->ack_timeouts, 0);
	t_rig_free(r);
}

/*
 * Two READs, the first one's response lost: the second's response asks
 * the first again, and both complete, in order, without the ACK timer.
 */
static void read_answered_behind_a_lost_one_completes_after_it(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[1] + 0x200;
	t_fill(r, 1, b, 64, 33);
	post_read(r, b, 32, a);
	post_read(r, b + 32, 32, a + 32);
	pump(r, 1u << 2); /* 0, 1 the requests; 2 the first's response */
	CHECK(t_same(r, 0, a, 1, b, 64));
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(ops_of(IBT_READ_REQUEST), 3);
	CHECK_EQ(cx_eng_stats(r->cx)->ack_timeouts, 0);
	t_rig_free(r);
}

/* log_sra_max 0: one READ or atomic unanswered at most; the next waits. */
static void reads_past_log_sra_max_wait_for_an_answer(void)
{
	struct t_rig *r;
	uint64_t a = t_iova[0] + 0x100, b = t_iova[1] + 0x200;
	uint8_t *wq;

	t_log_sra = 0;
	r = roce_rig(CX_ST_RC);
	t_log_sra = 4;
	t_fill(r, 1, b, 64, 45);
	post_read(r, b, 32, a);
	wq = t_wqe(r, 0, M5_OPCODE_ATOMIC_FA, 4);
	t_raddr(wq, r->key[1], b + 32);
	t_data(wq + 32, 8, r->key[0], a + 32);
	t_ring(r, 0, 1);
	CHECK_EQ(w.tail - w.head, 1); /* the READ; the atomic waits */
	pump(r, 0);
	CHECK(t_same(r, 0, a, 1, b, 32));
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(ops_of(IBT_FETCH_ADD), 1);
	t_rig_free(r);
}

/* No receive WQE: RNR NAK, and the SEND lands once one is posted. */
static void send_without_a_receive_waits_for_rnr_and_lands_later(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;
	struct cx_roce_rx rx;
	unsigned int len = 0;
	uint8_t *f;

	t_fill(r, 0, src, 64, 2);
	t_send(r, 64, r->key[0], src);
	f = next_frame(&len);
	cx_eth_receive(r->cx, f, len);
	CHECK_EQ(w.ops[1], IBT_ACK); /* the RNR NAK */
	f = next_frame(&len);
	CHECK_EQ(cx_roce_decap(f, len, &rx), CX_ROCE_OK);
	CHECK_EQ(rx.ib[sizeof(struct ibt_bth)] & IBT_AETH_KIND, IBT_AETH_RNR);
	cx_eth_receive(r->cx, f, len);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	t_recv(r, 1, 256, dst);
	pump(r, 0);
	CHECK(t_same(r, 0, src, 1, dst, 64));
	t_check_req(r, 0, M5_OPCODE_SEND, 64);
	check_recv(0, 64);
	t_rig_free(r);
}

static void frame_with_a_bad_icrc_is_dropped_and_counted(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;
	unsigned int len = 0;
	uint8_t *f;

	t_fill(r, 0, src, 64, 2);
	t_recv(r, 1, 256, dst);
	t_send(r, 64, r->key[0], src);
	f = next_frame(&len);
	f[len - 10] ^= 1; /* a payload bit */
	cx_eth_receive(r->cx, f, len);
	CHECK_EQ(r->cx->eth->st.roce_bad_icrc, 1);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	/* The timer resends it, intact this time. */
	pump(r, 0);
	CHECK(t_same(r, 0, src, 1, dst, 64));
	check_recv(0, 64);
	t_rig_free(r);
}

/*
 * The steering's drops: a SEND_ONLY for B from a GID that is not B's
 * peer, and one for a QP number no QP has; nothing lands, nothing is
 * answered, each counted.
 */
static void packets_from_another_gid_or_for_no_qp_are_dropped(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);
	uint8_t pkt[sizeof(struct ibt_bth) + 64] = { IBT_SEND_ONLY };
	struct ibt_bth *b = (struct ibt_bth *)pkt;
	struct cx_roce_path p = { .hop_limit = 64, .udp_sport = 0xc000 };
	uint8_t frame[256];
	size_t n;

	t_recv(r, 1, 256, t_iova[1]);
	memcpy(p.dmac, r->cx->eth->mac, 6);
	memcpy(p.sgid, t_roce_gid, 16);
	p.sgid[15] = 9; /* ::ffff:10.0.0.9, not B's peer */
	memcpy(p.dgid, t_roce_gid, 16);
	b->pkey = htobe16(0xffff);
	b->dqpn = htobe32(r->qpn[1]);
	n = cx_roce_encap(&p, pkt, sizeof(pkt), frame, sizeof(frame));
	CHECK(n > 0);
	cx_eth_receive(r->cx, frame, (unsigned int)n);
	CHECK_EQ(r->cx->eth->st.roce_dropped, 1);
	memcpy(p.sgid, t_roce_gid, 16); /* the peer's, to no QP */
	b->dqpn = htobe32(0x3ff);
	n = cx_roce_encap(&p, pkt, sizeof(pkt), frame, sizeof(frame));
	cx_eth_receive(r->cx, frame, (unsigned int)n);
	CHECK_EQ(r->cx->eth->st.roce_dropped, 2);
	CHECK_EQ(r->cx->eth->st.roce_rx, 0);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(w.sent, 0); /* no answer */
	t_rig_free(r);
}

/* A WRITE to a key B does not have: NAK, both QPs in ERR. */
static void write_to_a_bad_rkey_is_a_remote_access_error(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);

	t_write(r, r->key[1] + 0x10000, t_iova[1], 64, r->key[0], t_iova[0]);
	pump(r, 0);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	t_rig_free(r);
}

/* Every frame lost: retry_cnt resends, then TRANSPORT_RETRY_EXC. */
static void nothing_answering_ends_in_transport_retry_exceeded(void)
{
	struct t_rig *r = roce_rig(CX_ST_RC);

	t_recv(r, 1, 256, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	pump(r, ~0u);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_TRANSPORT_RETRY_EXC_ERR);
	CHECK_EQ(ops_of(IBT_SEND_ONLY), 8); /* once, then retry_cnt 7 */
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/* UD: one packet with a DETH; the receive's GRH area holds the IPv4
 * header at byte 20; a wrong Q_Key is dropped at the receiver. */
static void ud_send_crosses_with_its_ipv4_header_in_the_grh_area(void)
{
	struct t_rig *r = roce_rig(CX_ST_UD);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1];
	uint8_t grh[40];
	struct m5_av *av;
	unsigned int k;
	uint8_t *wq;

	t_fill(r, 0, src, 100, 4);
	t_recv(r, 1, 40 + 256, dst);
	for (k = 0; k < 2; k++) {
		wq = t_wqe(r, 0, M5_OPCODE_SEND, 5); /* ctrl, AV, data */
		av = (struct m5_av *)wq;
		av->key.qkey.qkey = htobe32(k ? 0x999 : 0x1234);
		av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
		av->grh_gid_fl = htobe32(1u << 30); /* GID index 0 */
		av->hop_limit = 64;
		memcpy(av->rmac, peer_mac, 6);
		memcpy(av->rgid, t_roce_gid, 16);
		t_data(wq + sizeof(*av), 100, r->key[0], src);
		t_ring(r, 0, 2);
	}
	pump(r, 0);
	CHECK(!w.bad);
	CHECK_EQ(ops_of(IBT_UD | IBT_SEND_ONLY), 2);
	CHECK(t_same(r, 0, src, 1, dst + 40, 100));
	for (k = 0; k < sizeof(grh); k++)
		grh[k] = *t_va(r, 1, dst + k);
	CHECK_EQ(grh[20] >> 4, 4); /* IPv4 */
	CHECK_EQ(grh[20 + 9], 17); /* UDP */
	CHECK(!memcmp(grh + 20 + 12, t_roce_gid + 12, 4));
	check_recv(0, 140);
	CHECK_EQ(be32toh(t_cqe(1, 0)->flags_rqpn) & 0xffffff, r->qpn[0]);
	CHECK((be32toh(t_cqe(1, 0)->flags_rqpn) >> M5_CQE_GRH_SHIFT) & 3);
	/* roce_netw_hdr_type (bits 25:24): IPv4, as mlx5_ib's GSI reads it */
	CHECK_EQ(be32toh(t_cqe(1, 0)->flags_rqpn) >> 24 & 3, 2);
	/* The second, Q_Key 0x999, was dropped: no second receive. */
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_rig_free(r);
}

/* To the function's own MAC: looped back inside it, never on the wire. */
static void frames_to_the_own_mac_loop_back_and_land(void)
{
	struct t_rig *r = roce_rig_to(CX_ST_RC, NULL);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;

	t_fill(r, 0, src, 6000, 8);
	t_recv(r, 1, 8000, dst);
	t_send(r, 6000, r->key[0], src);
	/* Landed at the doorbell's return: two packets and the ACK. */
	CHECK(t_same(r, 0, src, 1, dst, 6000));
	t_check_req(r, 0, M5_OPCODE_SEND, 6000);
	check_recv(0, 6000);
	CHECK_EQ(w.sent, 0);
	CHECK_EQ(r->cx->eth->st.roce_looped, 3);
	CHECK_EQ(r->cx->eth->st.tx_frames, 0);
	t_rig_free(r);
}

int main(int argc, char **argv)
{
	static const struct check_test tests[] = {
		CHECK_TEST(rc_send_crosses_the_wire_as_rocev2_frames_and_lands),
		CHECK_TEST(rc_write_read_and_atomics_cross_the_wire),
		CHECK_TEST(lost_packet_is_resent_and_the_message_lands_once),
		CHECK_TEST(
			lost_ack_brings_a_duplicate_that_lands_nothing_twice),
		CHECK_TEST(duplicate_atomic_is_answered_without_running_twice),
		CHECK_TEST(reordered_packets_land_in_order_once),
		CHECK_TEST(read_response_gap_asks_again_for_the_rest_only),
		CHECK_TEST(read_answered_behind_a_lost_one_completes_after_it),
		CHECK_TEST(
			read_responses_to_an_earlier_ask_land_after_asking_again),
		CHECK_TEST(reads_past_log_sra_max_wait_for_an_answer),
		CHECK_TEST(
			send_without_a_receive_waits_for_rnr_and_lands_later),
		CHECK_TEST(frame_with_a_bad_icrc_is_dropped_and_counted),
		CHECK_TEST(packets_from_another_gid_or_for_no_qp_are_dropped),
		CHECK_TEST(write_to_a_bad_rkey_is_a_remote_access_error),
		CHECK_TEST(nothing_answering_ends_in_transport_retry_exceeded),
		CHECK_TEST(
			ud_send_crosses_with_its_ipv4_header_in_the_grh_area),
		CHECK_TEST(frames_to_the_own_mac_loop_back_and_land),
	};

	return CX_TEST_MAIN(argc, argv, "cx_roce_", tests);
}
