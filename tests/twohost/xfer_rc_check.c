// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The end of rdma_xfer's RC phase: each side tells the other how its RC
 * phase went; once both are done, the peer's writes and atomics are all in
 * our memory, and the atomic words, the shared counter's returned values,
 * the plain RDMA WRITE data and both whole buffers are checked against their
 * expected images (a difference is blamed on the message it belongs to).
 */
#include <inttypes.h>
#include <poll.h>
#include <string.h>

#include "xfer.h"

/* The test a message of this opcode belongs to. */
static int test_of(uint8_t op)
{
	return op <= OP_WRITE_IMM ? T_RC_SW
	       : op == OP_READ	  ? T_RC_READ
				  : T_RC_ATOMIC;
}

/* The message whose segment (with its trailing canary gap) holds byte OFF
 * of the local buffer (is_rem false) or the remote one; NULL if none. */
static const struct msg *owner_of(bool is_rem, uint64_t off, int *qo,
				  uint32_t *ko, bool *mine)
{
	for (int q = 0; q < opt.nqps; q++) {
		for (uint32_t k = 0; k < own[q].n && !is_rem; k++) {
			const struct msg *m = &own[q].m[k];

			if (off >= m->loc_off &&
			    off < m->loc_off + m->size + GAP) {
				*qo = q, *ko = k, *mine = true;
				return m;
			}
		}
		for (uint32_t k = 0; k < theirs[q].n; k++) {
			const struct msg *m = &theirs[q].m[k];
			bool in_rcv =
				!is_rem &&
				(m->op == OP_SEND || m->op == OP_SEND_IMM) &&
				off >= rcv_base + m->rcv_off &&
				off < rcv_base + m->rcv_off + m->size + GAP;
			bool in_rem = is_rem && m->op <= OP_READ &&
				      m->op >= OP_WRITE && off >= m->rem_off &&
				      off < m->rem_off + m->size + GAP;

			if (in_rcv || in_rem) {
				*qo = q, *ko = k, *mine = false;
				return m;
			}
		}
	}
	return NULL;
}

/* Compare a whole buffer with its expected image; blame the first
 * difference on the test of the message it belongs to. */
static bool compare_image(bool is_rem, const uint8_t *buf, const uint8_t *exp,
			  size_t len)
{
	const struct msg *m;
	bool mine = false;
	uint32_t k = 0;
	size_t i;
	int q = 0;

	if (!memcmp(buf, exp, len))
		return true;
	for (i = 0; i < len && buf[i] == exp[i]; i++)
		;
	m = owner_of(is_rem, i, &q, &k, &mine);
	if (m)
		fail(test_of(m->op),
		     "final %s buffer: byte %zu is 0x%02x, expected 0x%02x: in "
		     "%s of %s %s QP %d msg %u (%u bytes)",
		     is_rem ? "remote" : "local", i, buf[i], exp[i],
		     i - (mine	   ? m->loc_off
			  : is_rem ? m->rem_off
				   : rcv_base + m->rcv_off) <
				     m->size
			     ? "the data"
			     : "the canary after the data",
		     mine ? "our" : "the peer's", op_name[m->op], q, k,
		     m->size);
	else
		fail(is_rem && i >= their_z.rem ? T_RC_ATOMIC : T_RC_SW,
		     "final %s buffer: byte %zu of %zu is 0x%02x, expected "
		     "0x%02x (%s)",
		     is_rem ? "remote" : "local", i, len, buf[i], exp[i],
		     is_rem && i >= their_z.rem ? "atomic words"
						: "canary outside any message");
	return false;
}

static void rc_final_check(void)
{
	uint64_t write_bytes = 0;

	/* Atomic words: per-QP counters, CAS chains, shared counter. */
	for (int q = 0; q < opt.nqps; q++) {
		uint64_t *w = (uint64_t *)(rem_buf + their_z.rem + 32 * q);

		if (w[0] != theirs[q].nfaa)
			fail(T_RC_ATOMIC,
			     "QP %d FETCH_AND_ADD counter is %" PRIu64
			     " after %u increments",
			     q, w[0], theirs[q].nfaa);
		if (w[1] != theirs[q].ncas)
			fail(T_RC_ATOMIC,
			     "QP %d CAS chain word is %" PRIu64
			     " after %u swaps",
			     q, w[1], theirs[q].ncas);
	}
	{
		uint64_t total = 0, v;

		for (int q = 0; q < opt.nqps; q++)
			total += theirs[q].nshared;
		memcpy(&v, rem_buf + their_z.rem + 32 * opt.nqps, 8);
		if (v != total)
			fail(T_RC_ATOMIC,
			     "shared counter is %" PRIu64 " after %" PRIu64
			     " increments from %d QPs",
			     v, total, opt.nqps);
	}
	for (uint64_t v = 0; v < shared_total; v++)
		if (!shared_seen[v]) {
			fail(T_RC_ATOMIC,
			     "shared FETCH_AND_ADD never returned %" PRIu64, v);
			break;
		}
	/* Plain RDMA writes are only visible here. */
	for (int q = 0; q < opt.nqps; q++)
		for (uint32_t k = 0; k < theirs[q].n; k++) {
			struct msg *m = &theirs[q].m[k];

			if (m->op == OP_WRITE &&
			    check_seg(T_RC_SW, "RDMA_WRITE data",
				      rem_buf + m->rem_off, m->size,
				      msg_seed(!side, q, k), q, k))
				write_bytes += m->size;
		}
	if (compare_image(false, loc_buf, loc_exp, loc_len) &&
	    compare_image(true, rem_buf, rem_exp, rem_len))
		vnote("final images match (%zu + %zu bytes)", loc_len, rem_len);
	pass_if_undecided(T_RC_SW);
	pass_if_undecided(T_RC_READ);
	pass_if_undecided(T_RC_ORDER);
	pass_if_undecided(T_RC_ATOMIC);
	vnote("plain RDMA WRITE data verified: %" PRIu64 " bytes", write_bytes);
}

/* Tell the peer how it went and hear the same: once both are done, the
 * peer's writes and atomics are all in our memory. */
void rc_end(void)
{
	struct wire_ctl mine = { CTL_MAGIC, TAG_RC_DONE,
				 result[T_RC_ORDER] != 0, 0 };
	double deadline = now_s() + opt.phase_s;

	if (!ctl_send(&mine, sizeof(mine), deadline))
		fatal(T_RC_ORDER, "control channel: cannot report the "
				  "end of the RC phase");
	for (;;) {
		if (!poll_peer_done())
			fatal(T_RC_ORDER, "control channel: no end of "
					  "the peer's RC phase");
		if (peer_done_seen())
			break;
		if (now_s() > deadline)
			fatal(T_RC_ORDER,
			      "the peer's RC phase did not end within "
			      "%d s",
			      opt.phase_s);
		wait_fd(ctl_fd, POLLIN, deadline);
	}
	if (mine.a && peer_done.a) {
		rc_final_check();
	} else {
		/* Stop the retransmissions towards a QP in error (retry_cnt
		 * 7 retries for ever) before the UD phase shares the link. */
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		for (int q = 0; q < opt.nqps; q++)
			if (ibv_modify_qp(qp[q], &a, IBV_QP_STATE))
				note("error: RC QP %d to ERR failed", q);
		const char *who = !mine.a ? "our" : "the peer's";

		for (int t = T_RC_SW; t <= T_RC_ATOMIC; t++)
			if (result[t] < 0)
				fail(t,
				     "not fully checked: %s RC phase "
				     "failed",
				     who);
		if (!peer_done.a)
			fail(T_RC_ORDER, "the peer's RC phase failed");
	}
}
