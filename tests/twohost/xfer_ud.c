// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_xfer's UD phase: each side sends UDCOUNT datagrams (SEND_WITH_IMM,
 * imm = sequence number, 1 B to the path MTU) to the peer's UD QP; every
 * datagram that arrives must be intact (length, pattern, source QP, GRH or
 * IPv4 addresses), duplicates only when -D says so; missing ones are
 * counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "xfer.h"

static uint32_t ud_size(int init_side, uint32_t seq, uint32_t mtu)
{
	return 1 + (uint32_t)(mix64(opt.seed ^ ((uint64_t)init_side << 48) ^
				    (seq * 2654435761u)) %
			      mtu);
}

static uint8_t *ud_slot(uint32_t i)
{
	return ud_buf + (size_t)i * (GRH_LEN + mtu_bytes);
}

static bool ud_post_recv(uint32_t slot)
{
	struct ibv_sge sg = { (uintptr_t)ud_slot(slot), GRH_LEN + mtu_bytes,
			      ud_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sg, .num_sge = 1 },
			   *bad;

	memset(ud_slot(slot), 0xdb, GRH_LEN + mtu_bytes);
	if (ibv_post_recv(ud_qp, &wr, &bad)) {
		fail(T_UD, "UD ibv_post_recv failed");
		return false;
	}
	return true;
}

static uint8_t *ud_seen;
static uint32_t ud_mtu, ud_last_seq;

static void on_ud_recv(const struct ibv_wc *wc)
{
	uint32_t slot = (uint32_t)wc->wr_id, seq, n;
	const uint8_t *p = ud_slot(slot);

	if (wc->status != IBV_WC_SUCCESS) {
		fail(T_UD, "UD receive: status %s",
		     ibv_wc_status_str(wc->status));
		return;
	}
	if (wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    !(wc->wc_flags & IBV_WC_GRH)) {
		fail(T_UD,
		     "UD receive: opcode %d flags 0x%x (want RECV, WITH_IMM, "
		     "GRH)",
		     wc->opcode, wc->wc_flags);
		goto repost;
	}
	seq = ntohl(wc->imm_data);
	if (seq >= (uint32_t)opt.udcount) {
		fail(T_UD,
		     "UD receive: sequence number %u out of range (corrupted "
		     "imm_data?)",
		     seq);
		goto repost;
	}
	n = ud_size(!side, seq, ud_mtu);
	if (wc->byte_len != GRH_LEN + n) {
		fail(T_UD, "UD datagram %u: byte_len %u, sent %u + %d GRH", seq,
		     wc->byte_len, n, GRH_LEN);
		goto repost;
	}
	if (wc->src_qp != peer.ud_qpn)
		fail(T_UD, "UD datagram %u: src_qp 0x%x, peer's UD QP is 0x%x",
		     seq, wc->src_qp, peer.ud_qpn);
	/* RoCE v2 over IPv4: the IPv4 header is in the last 20 bytes of the GRH. */
	if ((p[20] >> 4) == 4) {
		if (memcmp(p + 20 + 12, peer.gid + 12, 4) ||
		    memcmp(p + 20 + 16, my_gid.raw + 12, 4))
			fail(T_UD,
			     "UD datagram %u: IPv4 header addresses are not "
			     "the peer's and ours",
			     seq);
	} else if (memcmp(p + 8, peer.gid, 16)) {
		fail(T_UD, "UD datagram %u: GRH source GID is not the peer's",
		     seq);
	}
	if (pattern_check(p + GRH_LEN, n, msg_seed(!side, MAX_QPS + 1, seq)) !=
	    n) {
		fail(T_UD, "UD datagram %u (%u bytes): payload corrupted", seq,
		     n);
		goto repost;
	}
	if (n < mtu_bytes && p[GRH_LEN + n] != 0xdb)
		fail(T_UD, "UD datagram %u: bytes written past its %u bytes",
		     seq, n);
	if (ud_seen[seq]) {
		ud_dups++;
		if (!opt.dups_ok)
			fail(T_UD,
			     "UD datagram %u delivered twice (no duplication "
			     "configured)",
			     seq);
	} else {
		ud_seen[seq] = 1;
		ud_recv++;
		bytes_verified += n;
	}
	if (seq < ud_last_seq)
		ud_reordered++;
	ud_last_seq = seq;
repost:
	ud_post_recv(slot);
}

static uint32_t ud_sent_done;

static void on_ud_send(const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS)
		fail(T_UD, "UD send %" PRIu64 ": status %s", wc->wr_id,
		     ibv_wc_status_str(wc->status));
	ud_sent_done++;
}

void ud_phase(void)
{
	double t0 = now_s(), deadline = t0 + opt.phase_s, idle_since = 0;
	struct wire_ctl pc, mine;
	size_t got = 0;
	uint32_t next = 0, peer_sent = UINT32_MAX;
	bool sent_msg = false;
	uint32_t src_slot = UD_RECVS;

	ud_mtu = mtu_bytes < peer.mtu ? mtu_bytes : peer.mtu;
	ud_seen = calloc(opt.udcount + 1, 1);
	for (uint32_t i = 0; i < UD_RECVS; i++)
		if (!ud_post_recv(i))
			return;
	if (!ctl_sync(TAG_UD_READY, 0, 0, NULL, 60)) {
		fail(T_UD, "control channel: UD ready sync failed");
		return;
	}
	for (;;) {
		int a, b;
		bool progress = false;

		/* Send: up to UD_WINDOW outstanding, from rotating source slots. */
		while (next < (uint32_t)opt.udcount &&
		       next - ud_sent_done < UD_WINDOW) {
			uint32_t n = ud_size(side, next, ud_mtu);
			uint8_t *src = ud_slot(src_slot + next % UD_WINDOW);
			struct ibv_sge sg = { (uintptr_t)src, n, ud_mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = next, .sg_list = &sg, .num_sge = 1,
				.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htonl(next),
				.wr.ud = { .ah = ud_ah, .remote_qpn = peer.ud_qpn,
					   .remote_qkey = 0x11111111 },
			}, *bad;

			pattern_fill(src, n, msg_seed(side, MAX_QPS + 1, next),
				     false);
			if (ibv_post_send(ud_qp, &wr, &bad)) {
				fail(T_UD, "UD ibv_post_send(%u) failed: %s",
				     next, strerror(errno));
				return;
			}
			next++;
			ud_sent++;
			progress = true;
			/* Pace a little: the receiver has UD_RECVS buffers. */
			if (next % 64 == 0)
				break;
		}
		a = drain(ud_scq, on_ud_send);
		b = drain(ud_rcq, on_ud_recv);
		if (a < 0 || b < 0)
			return;
		if (a || b)
			progress = true;
		if (!sent_msg && ud_sent_done == (uint32_t)opt.udcount) {
			mine = (struct wire_ctl){ CTL_MAGIC, TAG_UD_SENT,
						  ud_sent, 0 };
			if (!ctl_send(&mine, sizeof(mine), now_s() + 30)) {
				fail(T_UD,
				     "control channel: cannot report UD sends");
				return;
			}
			sent_msg = true;
		}
		if (peer_sent == UINT32_MAX) {
			ssize_t r = recv(ctl_fd, (char *)&pc + got,
					 sizeof(pc) - got, MSG_DONTWAIT);

			if (r > 0)
				got += r;
			else if (r == 0 ||
				 (errno != EAGAIN && errno != EINTR)) {
				fail(T_UD,
				     "control channel closed during UD phase");
				return;
			}
			if (got == sizeof(pc)) {
				if (pc.magic != CTL_MAGIC ||
				    pc.tag != TAG_UD_SENT) {
					fail(T_UD,
					     "control channel: unexpected "
					     "message in UD phase");
					return;
				}
				peer_sent = (uint32_t)pc.a;
				idle_since = now_s();
			}
		}
		if (sent_msg && peer_sent != UINT32_MAX) {
			if (ud_recv >= peer_sent)
				break;
			if (progress)
				idle_since = now_s();
			else if (now_s() - idle_since > 3)
				break; /* the rest is lost */
		}
		if (now_s() > deadline) {
			fail(T_UD,
			     "UD phase not finished after %d s (%" PRIu64
			     " of %d sends completed)",
			     opt.phase_s, (uint64_t)ud_sent_done, opt.udcount);
			return;
		}
		if (progress)
			continue;
		if (!arm(ud_scq) || !arm(ud_rcq))
			return;
		a = drain(ud_scq, on_ud_send);
		b = drain(ud_rcq, on_ud_recv);
		if (a || b)
			continue;
		wait_event(ud_scq, ud_rcq,
			   peer_sent == UINT32_MAX ? ctl_fd : -1, 100);
	}
	if (ud_recv == 0)
		fail(T_UD, "no UD datagram arrived (%u sent)", peer_sent);
	note("UD phase: sent %" PRIu64 ", received %" PRIu64
	     " of %u intact (%.2f%% missing), "
	     "%" PRIu64 " duplicates, %" PRIu64 " out of order, %.1f s",
	     ud_sent, ud_recv, peer_sent,
	     peer_sent ? 100.0 * (peer_sent - ud_recv) / peer_sent : 0.0,
	     ud_dups, ud_reordered, now_s() - t0);
	pass_if_undecided(T_UD);
}
