// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_xfer's RC phase: both sides at once post their schedules on every RC
 * QP (SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ and
 * the atomics, in chains, up to WINDOW outstanding) and check every send and
 * receive completion as it is polled: exactly once, in order, the right
 * opcode, byte_len and imm_data, the data received or read, the values the
 * atomics returned. The end of the phase is xfer_rc_check.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "xfer.h"

static uint32_t next_post[MAX_QPS], next_done[MAX_QPS], next_recv[MAX_QPS];
static int32_t *recv_to_msg[MAX_QPS]; /* peer's recv index -> message index */
uint8_t *shared_seen;		      /* values returned by the shared FAA */
uint64_t shared_total;

static uint32_t imm_of(int init_side, int q, uint32_t k)
{
	return (uint32_t)mix64(((uint64_t)init_side << 40) ^
			       ((uint64_t)q << 20) ^ k ^ opt.seed);
}

static void build_wr(int q, uint32_t k, struct ibv_send_wr *wr,
		     struct ibv_sge *sg)
{
	struct msg *m = &own[q].m[k];
	uint64_t la = (uintptr_t)loc_buf + m->loc_off;
	uint64_t ra = peer.rem_addr + m->rem_off;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ((uint64_t)q << 32) | k;
	wr->sg_list = sg;
	wr->num_sge = m->nsge;
	if (m->nsge == 2) {
		uint32_t cut = m->size / 2 + (k % 3);

		if (cut >= m->size)
			cut = m->size - 1;
		sg[0] = (struct ibv_sge){ la, cut, loc_mr->lkey };
		sg[1] = (struct ibv_sge){ la + cut, m->size - cut,
					  loc_mr->lkey };
	} else {
		sg[0] = (struct ibv_sge){ la, m->size, loc_mr->lkey };
	}
	if (m->size == 0)
		wr->num_sge = 0;
	if (m->inl)
		wr->send_flags |= IBV_SEND_INLINE;
	switch (m->op) {
	case OP_SEND:
		wr->opcode = IBV_WR_SEND;
		break;
	case OP_SEND_IMM:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(imm_of(side, q, k));
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		wr->opcode = m->op == OP_WRITE ? IBV_WR_RDMA_WRITE
					       : IBV_WR_RDMA_WRITE_WITH_IMM;
		if (m->op == OP_WRITE_IMM)
			wr->imm_data = htonl(imm_of(side, q, k));
		wr->wr.rdma.remote_addr = ra;
		wr->wr.rdma.rkey = peer.rem_rkey;
		break;
	case OP_READ:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = ra;
		wr->wr.rdma.rkey = peer.rem_rkey;
		break;
	case OP_FAA:
	case OP_FAA_SHARED:
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.remote_addr = ra;
		wr->wr.atomic.rkey = peer.rem_rkey;
		wr->wr.atomic.compare_add = 1;
		break;
	case OP_CAS:
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = ra;
		wr->wr.atomic.rkey = peer.rem_rkey;
		wr->wr.atomic.compare_add = m->expect;
		wr->wr.atomic.swap = m->expect + 1;
		break;
	}
}

/* Post the next WRs of every QP, in chains of 1-4, up to WINDOW outstanding. */
static bool post_more(uint64_t *rs)
{
	bool any = false;

	for (int q = 0; q < opt.nqps; q++) {
		struct ibv_send_wr wr[4], *bad;
		struct ibv_sge sg[4][MAX_SGE];
		uint32_t room = WINDOW - (next_post[q] - next_done[q]);
		uint32_t left = own[q].n - next_post[q];
		uint32_t c = 1 + rng_next(rs) % 4;

		if (c > room)
			c = room;
		if (c > left)
			c = left;
		if (!c)
			continue;
		for (uint32_t i = 0; i < c; i++) {
			build_wr(q, next_post[q] + i, &wr[i], sg[i]);
			wr[i].next = i + 1 < c ? &wr[i + 1] : NULL;
		}
		if (ibv_post_send(qp[q], wr, &bad)) {
			fail(T_RC_ORDER,
			     "ibv_post_send(QP %d, WR %u, chain of %u) failed: "
			     "%s",
			     q, next_post[q], c, strerror(errno));
			return false;
		}
		next_post[q] += c;
		any = true;
	}
	return any;
}

static enum ibv_wc_opcode wc_opcode_of(uint8_t op)
{
	switch (op) {
	case OP_SEND:
	case OP_SEND_IMM:
		return IBV_WC_SEND;
	case OP_WRITE:
	case OP_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
		return IBV_WC_RDMA_READ;
	case OP_CAS:
		return IBV_WC_COMP_SWAP;
	default:
		return IBV_WC_FETCH_ADD;
	}
}

static int qp_index(uint32_t qpn)
{
	for (int q = 0; q < opt.nqps; q++)
		if (qp[q]->qp_num == qpn)
			return q;
	return -1;
}

/* Check a segment against its pattern; count the bytes on success. */
bool check_seg(int t, const char *what, const uint8_t *p, uint32_t n,
	       uint64_t s, int q, uint32_t k)
{
	size_t bad = pattern_check(p, n, s);

	if (bad != n) {
		fail(t,
		     "%s QP %d msg %u (%u bytes): byte %zu is 0x%02x, not the "
		     "pattern "
		     "(first %zu bytes good)",
		     what, q, k, n, bad, p[bad], bad);
		return false;
	}
	bytes_verified += n;
	return true;
}

/* One completion of a WR this side posted. */
static void on_send_wc(const struct ibv_wc *wc)
{
	int q = (int)(wc->wr_id >> 32);
	uint32_t k = (uint32_t)wc->wr_id;
	struct msg *m;

	if (q < 0 || q >= opt.nqps || k >= own[q].n) {
		fail(T_RC_ORDER,
		     "send completion with unknown wr_id 0x%" PRIx64
		     " (status %s)",
		     wc->wr_id, ibv_wc_status_str(wc->status));
		return;
	}
	m = &own[q].m[k];
	if (wc->status != IBV_WC_SUCCESS) {
		fail(T_RC_ORDER,
		     "QP %d WR %u (%s, %u bytes): status %s (vendor_err 0x%x)",
		     q, k, op_name[m->op], m->size,
		     ibv_wc_status_str(wc->status), wc->vendor_err);
		next_done[q]++;
		return;
	}
	if (k != next_done[q] || k >= next_post[q]) {
		fail(T_RC_ORDER,
		     "QP %d: completion for WR %u, expected WR %u (%u posted)",
		     q, k, next_done[q], next_post[q]);
		if (k < next_done[q])
			return; /* a second completion: ignore */
	}
	next_done[q] = k + 1;
	wrs_done++;
	op_done[m->op]++;
	if (wc->qp_num != qp[q]->qp_num)
		fail(T_RC_ORDER, "QP %d WR %u: wc.qp_num 0x%x, QP is 0x%x", q,
		     k, wc->qp_num, qp[q]->qp_num);
	if (wc->opcode != wc_opcode_of(m->op))
		fail(T_RC_ORDER, "QP %d WR %u (%s): wc.opcode %d, expected %d",
		     q, k, op_name[m->op], wc->opcode, wc_opcode_of(m->op));
	if (m->op == OP_READ) {
		if (wc->byte_len != m->size)
			fail(T_RC_READ,
			     "QP %d WR %u RDMA_READ: byte_len %u, expected %u",
			     q, k, wc->byte_len, m->size);
		check_seg(T_RC_READ, "RDMA_READ result", loc_buf + m->loc_off,
			  m->size, msg_seed(side, q, k), q, k);
	} else if (m->op >= OP_FAA) {
		uint64_t v;

		memcpy(&v, loc_buf + m->loc_off, 8);
		if (wc->byte_len != 8)
			fail(T_RC_ATOMIC,
			     "QP %d WR %u %s: byte_len %u, expected 8", q, k,
			     op_name[m->op], wc->byte_len);
		if (m->op == OP_FAA_SHARED) {
			if (v >= shared_total || shared_seen[v])
				fail(T_RC_ATOMIC,
				     "QP %d WR %u shared FETCH_AND_ADD "
				     "returned %" PRIu64 " (%s; %" PRIu64
				     " increments in all)",
				     q, k, v,
				     v >= shared_total ? "out of range"
						       : "returned twice",
				     shared_total);
			else
				shared_seen[v] = 1;
			memcpy(loc_exp + m->loc_off, &v, 8);
		} else if (v != m->expect) {
			fail(T_RC_ATOMIC,
			     "QP %d WR %u %s returned %" PRIu64
			     ", expected %" PRIu64,
			     q, k, op_name[m->op], v, m->expect);
		}
	}
}

/* One receive completion (a SEND or WRITE_WITH_IMM of the peer). */
static void on_recv_wc(const struct ibv_wc *wc)
{
	int q = (int)(wc->wr_id >> 32);
	uint32_t j = (uint32_t)wc->wr_id, k;
	struct msg *m;
	uint64_t s;

	if (q < 0 || q >= opt.nqps || j >= theirs[q].nrecv) {
		fail(T_RC_ORDER,
		     "receive completion with unknown wr_id 0x%" PRIx64
		     " (status %s)",
		     wc->wr_id, ibv_wc_status_str(wc->status));
		return;
	}
	k = recv_to_msg[q][j];
	m = &theirs[q].m[k];
	if (wc->status != IBV_WC_SUCCESS) {
		fail(T_RC_ORDER,
		     "QP %d receive %u (peer's %s, %u bytes): status %s", q, j,
		     op_name[m->op], m->size, ibv_wc_status_str(wc->status));
		next_recv[q]++;
		return;
	}
	if (j != next_recv[q]) {
		fail(T_RC_ORDER, "QP %d: receive completion %u, expected %u", q,
		     j, next_recv[q]);
		if (j < next_recv[q])
			return;
	}
	next_recv[q] = j + 1;
	recvs_done++;
	if (qp_index(wc->qp_num) != q)
		fail(T_RC_ORDER, "QP %d receive %u: wc.qp_num 0x%x", q, j,
		     wc->qp_num);
	if (wc->byte_len != m->size)
		fail(T_RC_SW,
		     "QP %d receive %u (peer's %s): byte_len %u, sent %u", q, j,
		     op_name[m->op], wc->byte_len, m->size);
	if (m->op == OP_WRITE_IMM ? wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM
				  : wc->opcode != IBV_WC_RECV)
		fail(T_RC_ORDER, "QP %d receive %u (peer's %s): wc.opcode %d",
		     q, j, op_name[m->op], wc->opcode);
	if (m->op == OP_SEND) {
		if (wc->wc_flags & IBV_WC_WITH_IMM)
			fail(T_RC_ORDER,
			     "QP %d receive %u: SEND completed WITH_IMM", q, j);
	} else if (!(wc->wc_flags & IBV_WC_WITH_IMM) ||
		   ntohl(wc->imm_data) != imm_of(!side, q, k)) {
		fail(T_RC_SW,
		     "QP %d receive %u (peer's %s): imm_data 0x%08x%s, sent "
		     "0x%08x",
		     q, j, op_name[m->op], ntohl(wc->imm_data),
		     wc->wc_flags & IBV_WC_WITH_IMM ? ""
						    : " (no WITH_IMM flag)",
		     imm_of(!side, q, k));
	}
	s = msg_seed(!side, q, k);
	if (m->op == OP_WRITE_IMM)
		check_seg(T_RC_SW, "RDMA_WRITE_WITH_IMM data",
			  rem_buf + m->rem_off, m->size, s, q, k);
	else
		check_seg(T_RC_SW, "received SEND",
			  loc_buf + rcv_base + m->rcv_off, m->size, s, q, k);
}

static bool rc_all_done(void)
{
	for (int q = 0; q < opt.nqps; q++)
		if (next_done[q] < own[q].n || next_recv[q] < theirs[q].nrecv)
			return false;
	return true;
}

/* The peer's TAG_RC_DONE (a = its RC phase went well), read without blocking
 * while our own RC phase runs. */
struct wire_ctl peer_done;
static size_t peer_done_got;

bool peer_done_seen(void)
{
	return peer_done_got == sizeof(peer_done);
}

/* Read what has arrived of it; false if the control channel broke. */
bool poll_peer_done(void)
{
	while (!peer_done_seen()) {
		ssize_t r =
			recv(ctl_fd, (char *)&peer_done + peer_done_got,
			     sizeof(peer_done) - peer_done_got, MSG_DONTWAIT);

		if (r > 0) {
			peer_done_got += r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		return false;
	}
	return peer_done.magic == CTL_MAGIC && peer_done.tag == TAG_RC_DONE;
}

void rc_phase(void)
{
	double t0 = now_s(), deadline = t0 + opt.phase_s, last_note = t0,
	       give_up = 0;
	uint64_t rs = mix64(opt.seed + 77 + side);

	for (int q = 0; q < opt.nqps; q++) {
		recv_to_msg[q] = calloc(theirs[q].nrecv + 1, sizeof(int32_t));
		for (uint32_t k = 0; k < theirs[q].n; k++)
			if (theirs[q].m[k].recv_idx >= 0)
				recv_to_msg[q][theirs[q].m[k].recv_idx] = k;
		shared_total += own[q].nshared;
	}
	shared_seen = calloc(shared_total + 1, 1);
	for (;;) {
		int a, b;
		bool posted = post_more(&rs);

		a = drain(scq, on_send_wc);
		b = drain(rcq, on_recv_wc);
		if (a < 0 || b < 0 || result[T_RC_ORDER] == 0)
			break; /* a WR failed: its QP is in error, the rest would time out */
		if (rc_all_done())
			break;
		if (!poll_peer_done()) {
			fail(T_RC_ORDER,
			     "control channel broke during the RC phase");
			break;
		}
		/* A peer that failed (a QP in error) answers no more: stop soon. */
		if (peer_done_seen() && !peer_done.a) {
			if (!give_up)
				give_up = now_s() + 5;
			else if (now_s() > give_up) {
				fail(T_RC_ORDER, "the peer's RC phase failed; "
						 "stopped waiting for our "
						 "remaining completions");
				break;
			}
		}
		if (now_s() > deadline) {
			uint32_t pd_ = 0, rd = 0, pe = 0, re = 0;

			for (int q = 0; q < opt.nqps; q++) {
				pd_ += next_done[q];
				pe += own[q].n;
				rd += next_recv[q];
				re += theirs[q].nrecv;
			}
			fail(T_RC_ORDER,
			     "RC phase not finished after %d s: %u of %u own "
			     "WRs "
			     "completed, %u of %u receives",
			     opt.phase_s, pd_, pe, rd, re);
			break;
		}
		if (opt.verbose && now_s() - last_note > 10) {
			last_note = now_s();
			note("RC: %" PRIu64 " WRs and %" PRIu64
			     " receives completed, %" PRIu64 " bytes verified",
			     wrs_done, recvs_done, bytes_verified);
		}
		if (posted || a || b)
			continue;
		if (!arm(scq) || !arm(rcq))
			break;
		a = drain(scq, on_send_wc);
		b = drain(rcq, on_recv_wc);
		if (a || b)
			continue;
		wait_event(scq, rcq, peer_done_seen() ? -1 : ctl_fd, 200);
	}
	note("RC phase: %" PRIu64 " WRs, %" PRIu64 " receives, %" PRIu64
	     " bytes verified in %.1f s",
	     wrs_done, recvs_done, bytes_verified, now_s() - t0);
}
