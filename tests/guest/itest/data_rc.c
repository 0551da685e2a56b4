// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* RC data path: send, inline, immediate, RDMA write/read, atomics, lists. */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static int rc_pair(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);

	return it_pair(t, a, b, &attr);
}

static int quiet_all(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	if (it_quiet(t, a->scq, "sender send CQ") ||
	    it_quiet(t, a->rcq, "sender receive CQ") ||
	    it_quiet(t, b->scq, "receiver send CQ") ||
	    it_quiet(t, b->rcq, "receiver receive CQ"))
		return IT_FAIL;
	return 0;
}

/* Send @arg bytes, receive them into a larger buffer, check every byte. */
static int rc_send_size(struct it_test *t, long arg)
{
	uint32_t len = arg;
	uint64_t poison = it_seed(t, 1);
	struct it_buf *sb, *rb;
	struct it_ep a, b;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, len, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, len + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	if (it_post_recv(t, b.qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	if (it_send_check(t, &a, &b, 1, 100, sb, rb, len, it_seed(t, 2),
			  poison))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

static int rc_send_zero_bytes(struct it_test *t, long arg)
{
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr wr = {
		.wr_id = 7,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct it_wc_exp e;
	struct it_buf *rb;
	struct it_ep a, b;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	rb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!rb || it_post_recv(t, b.qp, 70, rb, 0, rb->len))
		return IT_FAIL;
	e = it_exp_recv(70, IBV_WC_RECV, b.qp, 0);
	if (it_send_and_verify(t, &a, &b, &wr, 7, &e, rb, 0, 0, poison))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

/* Three separate source pieces arrive as one contiguous message. */
static int rc_send_gathers_3_sges(struct it_test *t, long arg)
{
	static const size_t off[3] = { 0, 2048 + 5, 4096 + 7 };
	static const uint32_t len[3] = { 1000, 3, 2500 };
	uint32_t total = len[0] + len[1] + len[2];
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_sge sge[3];
	struct ibv_send_wr wr;
	struct it_wc_exp e;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	size_t i, s = 0;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, 8192, IBV_ACCESS_LOCAL_WRITE, it_seed(t, 3));
	rb = it_buf_new(t, total + 100, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	it_wr(&wr, &sge[0], 1, IBV_WR_SEND, sb, 0, 0);
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)(sb->addr + off[i]);
		sge[i].length = len[i];
		sge[i].lkey = sb->mr->lkey;
		it_fill(sb->addr + off[i], len[i], seed, s);
		s += len[i];
	}
	wr.num_sge = 3;
	if (it_post_recv(t, b.qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, total);
	if (it_send_and_verify(t, &a, &b, &wr, 1, &e, rb, total, seed, poison))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

/* One source piece lands in three receive pieces, the gaps untouched. */
static int rc_send_scatters_into_3_recv_sges(struct it_test *t, long arg)
{
	static const size_t roff[3] = { 0, 1024, 2048 };
	static const uint32_t rlen[3] = { 700, 1, 2400 };
	const uint32_t total = 3000;
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_recv_wr rwr = { .wr_id = 100, .num_sge = 3 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_sge rsge[3], sge;
	struct ibv_send_wr wr;
	struct it_wc_exp e;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	size_t i, s = 0;
	int ret;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, total, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, 4608, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < 3; i++) {
		rsge[i].addr = (uintptr_t)(rb->addr + roff[i]);
		rsge[i].length = rlen[i];
		rsge[i].lkey = rb->mr->lkey;
	}
	rwr.sg_list = rsge;
	ret = ibv_post_recv(b.qp, &rwr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_recv with 3 SGEs returned %d", ret);
	it_wr(&wr, &sge, 1, IBV_WR_SEND, sb, 0, total);
	if (it_post_expect(t, &a, &wr, 1, IBV_WC_SEND, -1, "send completion"))
		return IT_FAIL;
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, total);
	if (it_expect_wc(t, b.rcq, &e, "receive completion"))
		return IT_FAIL;
	for (i = 0; i < 3; i++) {
		size_t n = total - s < rlen[i] ? total - s : rlen[i];
		size_t gap = roff[i] + n;
		size_t next = i < 2 ? roff[i + 1] : rb->len;

		it_where(t, "receive SGE %zu", i);
		if (it_verify(t, rb->addr + roff[i], n, seed, s,
			      "received bytes") ||
		    it_verify(t, rb->addr + gap, next - gap, poison, gap,
			      "bytes after the piece"))
			return IT_FAIL;
		s += n;
	}
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/*
 * A send with exactly max_send_sge pieces into a receive with exactly
 * max_recv_sge pieces (the caps the QPs returned), all of odd sizes.
 */
static int rc_send_with_max_sges_on_both_sides(struct it_test *t, long arg)
{
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_recv_wr rwr = { .wr_id = 100 }, *rbad = NULL;
	struct ibv_send_wr wr;
	struct ibv_sge *ssge, *rsge;
	struct it_wc_exp e;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	uint32_t ns, nr, i, total = 0, piece, slot, s = 0;
	int ret;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	ns = a.cap.max_send_sge;
	nr = b.cap.max_recv_sge;
	IT_EXPECT(t, ns >= 1 && nr >= 1, "max_send_sge %u max_recv_sge %u", ns,
		  nr);
	for (i = 0; i < ns; i++)
		total += 1 + 37 * i;
	piece = total / nr + 1;
	slot = piece + 64;
	ssge = it_alloc(t, ns * sizeof(*ssge));
	rsge = it_alloc(t, nr * sizeof(*rsge));
	sb = it_buf_new(t, 128 + ns * (37 * ns + 64), IBV_ACCESS_LOCAL_WRITE,
			it_seed(t, 3));
	rb = it_buf_new(t, nr * slot, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < ns; i++) {
		uint8_t *p = sb->addr + (37 * ns + 64) * i + i % 3;

		ssge[i].addr = (uintptr_t)p;
		ssge[i].length = 1 + 37 * i;
		ssge[i].lkey = sb->mr->lkey;
		it_fill(p, ssge[i].length, seed, s);
		s += ssge[i].length;
	}
	for (i = 0; i < nr; i++) {
		rsge[i].addr = (uintptr_t)(rb->addr + slot * i);
		rsge[i].length = piece;
		rsge[i].lkey = rb->mr->lkey;
	}
	rwr.sg_list = rsge;
	rwr.num_sge = nr;
	ret = ibv_post_recv(b.qp, &rwr, &rbad);
	IT_EXPECT(t, !ret, "ibv_post_recv with %u SGEs returned %d", nr, ret);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = ssge;
	wr.num_sge = ns;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (it_post_expect(t, &a, &wr, 1, IBV_WC_SEND, -1, "send completion"))
		return IT_FAIL;
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, total);
	if (it_expect_wc(t, b.rcq, &e, "receive completion"))
		return IT_FAIL;
	for (s = 0, i = 0; i < nr; i++) {
		uint32_t n = total - s < piece ? total - s : piece;

		it_where(t, "%u send SGEs, %u receive SGEs: piece %u", ns, nr,
			 i);
		if (it_verify(t, rb->addr + slot * i, n, seed, s,
			      "received bytes") ||
		    it_verify(t, rb->addr + slot * i + n, slot - n, poison,
			      slot * i + n, "bytes after the piece"))
			return IT_FAIL;
		s += n;
	}
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/*
 * Inline sends come from unregistered memory (lkey 0) that is overwritten
 * as soon as ibv_post_send returns: the bytes must be the ones at post time.
 */
static int rc_send_inline_copies_at_post(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t poison = it_seed(t, 1);
	uint32_t sizes[4], max;
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_buf *rb;
	struct it_ep a, b;
	uint8_t *src;
	size_t k;

	attr.inline_data = 256;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	max = a.cap.max_inline_data;
	if (!max)
		return it_skip(t, "the QP reports max_inline_data 0");
	sizes[0] = 1;
	sizes[1] = max < 61 ? max : 61;
	sizes[2] = max / 2 + 1;
	sizes[3] = max;
	src = it_alloc(t, max);
	rb = it_buf_new(t, max + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!rb)
		return IT_FAIL;
	for (k = 0; k < 4; k++) {
		uint32_t len = sizes[k];
		uint64_t seed = it_seed(t, 10 + k);

		it_where(t, "%u inline bytes", len);
		it_fill(rb->addr, rb->len, poison, 0);
		if (it_post_recv(t, b.qp, 100 + k, rb, 0, rb->len))
			return IT_FAIL;
		it_fill(src, len, seed, 0);
		sge.addr = (uintptr_t)src;
		sge.length = len;
		sge.lkey = 0;
		if (it_post_inline(t, &a, &b, k, &sge, 1))
			return IT_FAIL;
		it_fill(src, max, it_seed(t, 99), 0);
		e = it_exp_recv(100 + k, IBV_WC_RECV, b.qp, len);
		if (it_send_and_verify(t, &a, &b, NULL, k, &e, rb, len, seed,
				       poison))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/* Inline data gathered from three unregistered pieces, max_inline total. */
static int rc_send_inline_gathers_3_sges(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_sge sge[3];
	uint32_t len[3], max, s = 0;
	struct it_wc_exp e;
	struct it_buf *rb;
	struct it_ep a, b;
	uint8_t *src[3];
	int i;

	attr.inline_data = 256;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	max = a.cap.max_inline_data;
	if (max < 3 || a.cap.max_send_sge < 3)
		return it_skip(t, "max_inline_data %u, max_send_sge %u", max,
			       a.cap.max_send_sge);
	len[0] = max / 3;
	len[1] = 1;
	len[2] = max - len[0] - len[1];
	for (i = 0; i < 3; i++) {
		src[i] = it_alloc(t, len[i]);
		it_fill(src[i], len[i], seed, s);
		s += len[i];
		sge[i].addr = (uintptr_t)src[i];
		sge[i].length = len[i];
		sge[i].lkey = 0;
	}
	rb = it_buf_new(t, max + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!rb || it_post_recv(t, b.qp, 100, rb, 0, rb->len) ||
	    it_post_inline(t, &a, &b, 5, sge, 3))
		return IT_FAIL;
	for (i = 0; i < 3; i++)
		memset(src[i], 0xa5, len[i]);
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, max);
	if (it_send_and_verify(t, &a, &b, NULL, 5, &e, rb, max, seed, poison))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

/* SEND_WITH_IMM (with and without payload), then a plain SEND without. */
static int rc_send_with_imm_delivers_imm(struct it_test *t, long arg)
{
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	uint32_t imm = htonl(0x5e000000u ^ (uint32_t)seed);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_buf *sb, *rb, *rb2;
	struct it_ep a, b;
	int k;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, poison);
	rb2 = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || !rb2)
		return IT_FAIL;
	for (k = 0; k < 2; k++) {
		uint32_t len = k ? 0 : 1500;

		it_where(t, "%u bytes with immediate", len);
		it_fill(rb->addr, rb->len, poison, 0);
		if (it_post_recv(t, b.qp, 100 + k, rb, 0, rb->len))
			return IT_FAIL;
		it_wr(&wr, &sge, k, IBV_WR_SEND_WITH_IMM, sb, 0, len);
		wr.num_sge = len ? 1 : 0;
		wr.imm_data = imm + htonl(k);
		e = it_exp_recv(100 + k, IBV_WC_RECV, b.qp, len);
		e.imm = 1;
		e.imm_data = imm + htonl(k);
		if (it_send_and_verify(t, &a, &b, &wr, k, &e, rb, len, seed,
				       poison))
			return IT_FAIL;
	}
	it_where(t, "plain send afterwards");
	if (it_post_recv(t, b.qp, 102, rb2, 0, rb2->len) ||
	    it_send_check(t, &a, &b, 2, 102, sb, rb2, 999, it_seed(t, 3),
			  poison))
		return IT_FAIL;
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/* One completion of @cq: @wr_id with status IBV_WC_REM_INV_REQ_ERR. */
static int expect_inv_req_err(struct it_test *t, struct ibv_cq *cq,
			      uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;

	if (it_poll(t, cq, &wc, 1, what))
		return IT_FAIL;
	IT_EXPECT(t, wc.wr_id == wr_id && wc.status == IBV_WC_REM_INV_REQ_ERR,
		  "%s: wr_id %llu status %s, expected %llu %s", what,
		  (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		  (unsigned long long)wr_id,
		  ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR));
	return 0;
}

/*
 * SEND_WITH_INV naming an ibv_reg_mr rkey, on a ConnectX: mlx5_ib creates
 * user MRs without en_rinval (only type-2 memory windows get it), so the
 * responder will not invalidate the key: the receive and the send both
 * complete with REM_INV_REQ_ERR, through libmlx5 and through doorbell.
 * arg 0: ibv_post_send; 1: ibv_wr_send_inv.
 */
static int rc_send_with_inv_of_an_mr_rkey_is_refused(struct it_test *t,
						     long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_send_wr wr;
	struct ibv_qp_ex *qpx;
	struct ibv_sge sge;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int ret;

	if (it_backend(t->env) != IT_MLX5)
		return it_skip(t, "the rule checked is the ConnectX's "
				  "(mkc en_rinval); rdma_rxe has its own");
	if (arg)
		attr.send_ops_flags = IBV_QP_EX_WITH_SEND_WITH_INV;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	sb = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, it_seed(t, 2));
	rb = it_buf_new(t, 4096, IT_ACCESS_ALL, it_seed(t, 1));
	if (!sb || !rb)
		return IT_FAIL;
	if (it_post_recv(t, b.qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	it_wr(&wr, &sge, 1, IBV_WR_SEND_WITH_INV, sb, 0, 512);
	wr.invalidate_rkey = rb->mr->rkey;
	if (!arg) {
		if (it_post_send(t, a.qp, &wr))
			return IT_FAIL;
	} else {
		qpx = ibv_qp_to_qp_ex(a.qp);
		IT_EXPECT(t, qpx, "ibv_qp_to_qp_ex: NULL");
		ibv_wr_start(qpx);
		qpx->wr_id = wr.wr_id;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_inv(qpx, wr.invalidate_rkey);
		ibv_wr_set_sge(qpx, sge.lkey, sge.addr, sge.length);
		ret = ibv_wr_complete(qpx);
		IT_EXPECT(t, !ret, "ibv_wr_complete: %s", strerror(ret));
	}
	if (expect_inv_req_err(t, b.rcq, 100, "the receive") ||
	    expect_inv_req_err(t, a.scq, 1, "the send"))
		return IT_FAIL;
	return 0;
}

/* A send posted before its receive is delivered once the receive exists. */
static int rc_send_before_recv_arrives_after_rnr_retry(struct it_test *t,
						       long arg)
{
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct timespec ts = { .tv_nsec = 30 * 1000 * 1000 };
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct it_wc_exp e;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int n;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, 500, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, 600, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	it_wr(&wr, &sge, 1, IBV_WR_SEND, sb, 0, 500);
	if (it_post_send(t, a.qp, &wr))
		return IT_FAIL;
	nanosleep(&ts, NULL);
	n = ibv_poll_cq(a.scq, 1, &wc);
	IT_EXPECT(t, n == 0,
		  "the send completed (poll %d, status %s) before "
		  "any receive was posted",
		  n, n > 0 ? ibv_wc_status_str(wc.status) : "-");
	if (it_post_recv(t, b.qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, 500);
	if (it_send_and_verify(t, &a, &b, NULL, 1, &e, rb, 500, seed, poison))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

/* Receives posted in INIT and RTR are kept and used in order. */
static int rc_post_recv_in_init_and_rtr_is_kept(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t poison = it_seed(t, 1);
	struct it_buf *sb, *rb[2];
	struct it_ep a, b;
	int k;

	if (it_ep_new(t, &a, &attr) || it_ep_new(t, &b, &attr))
		return IT_FAIL;
	sb = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, 0);
	rb[0] = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, poison);
	rb[1] = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb[0] || !rb[1])
		return IT_FAIL;
	if (it_ep_modify(t, &b, IBV_QPS_INIT, a.qp->qp_num) ||
	    it_post_recv(t, b.qp, 100, rb[0], 0, rb[0]->len) ||
	    it_ep_modify(t, &b, IBV_QPS_RTR, a.qp->qp_num) ||
	    it_post_recv(t, b.qp, 101, rb[1], 0, rb[1]->len) ||
	    it_ep_modify(t, &b, IBV_QPS_RTS, a.qp->qp_num) ||
	    it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num))
		return IT_FAIL;
	for (k = 0; k < 2; k++) {
		it_where(t, "receive posted in %s", k ? "RTR" : "INIT");
		if (it_send_check(t, &a, &b, k, 100 + k, sb, rb[k],
				  1000 + 1000 * k, it_seed(t, 10 + k), poison))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

static const uint32_t rdma_sizes[] = {
	1, 63, 4096, 2 * 4096 + 1, 65536 + 3, 1 << 20,
};

#define RDMA_NSIZES (sizeof(rdma_sizes) / sizeof(rdma_sizes[0]))
/* Remote and local offsets: neither page nor word aligned. */
#define RDMA_ROFF (4096 + 13)
#define RDMA_LOFF 7

/* Check @b: poison before @off, the stream after @off for @len, poison on. */
static int check_window(struct it_test *t, const struct it_buf *b, size_t off,
			size_t len, uint64_t seed, size_t soff, uint64_t poison)
{
	if (it_verify(t, b->addr + off, len, seed, soff, "transferred bytes") ||
	    it_verify(t, b->addr, off, poison, 0, "bytes before the target") ||
	    it_verify(t, b->addr + off + len, b->len - off - len, poison,
		      off + len, "bytes after the target"))
		return IT_FAIL;
	return 0;
}

/*
 * RDMA writes of several sizes (some spanning many packets) land at a
 * remote offset with every byte right and nothing around them touched;
 * they consume no receive.
 */
static int rc_rdma_write_delivers_every_byte(struct it_test *t, long arg)
{
	uint64_t poison = it_seed(t, 1);
	struct it_buf *sb, *rb, *sb2, *rb2;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_ep a, b;
	size_t k;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, (1 << 20) + 64, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, (1 << 20) + 8192, IT_ACCESS_ALL, poison);
	sb2 = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	rb2 = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || !sb2 || !rb2)
		return IT_FAIL;
	if (it_post_recv(t, b.qp, 100, rb2, 0, rb2->len))
		return IT_FAIL;
	for (k = 0; k < RDMA_NSIZES; k++) {
		uint32_t len = rdma_sizes[k];
		uint64_t seed = it_seed(t, 10 + k);

		it_where(t, "%u bytes", len);
		it_fill(rb->addr, rb->len, poison, 0);
		it_fill(sb->addr + RDMA_LOFF, len, seed, 0);
		it_wr(&wr, &sge, k, IBV_WR_RDMA_WRITE, sb, RDMA_LOFF, len);
		it_wr_rdma(&wr, rb, RDMA_ROFF);
		if (it_post_expect(t, &a, &wr, k, IBV_WC_RDMA_WRITE, -1,
				   "write completion"))
			return IT_FAIL;
		if (check_window(t, rb, RDMA_ROFF, len, seed, 0, poison))
			return IT_FAIL;
	}
	it_where(t, "the receive posted before the writes");
	if (it_quiet(t, b.rcq, "receiver CQ after writes") ||
	    it_send_check(t, &a, &b, 50, 100, sb2, rb2, 200, it_seed(t, 3),
			  poison))
		return IT_FAIL;
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/* WRITE_WITH_IMM consumes a receive that reports imm and the length. */
static int rc_rdma_write_with_imm_consumes_recv(struct it_test *t, long arg)
{
	static const uint32_t sizes[] = { 0, 1, 5000 };
	uint64_t poison = it_seed(t, 1);
	struct it_buf *sb, *rb, *nb;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_ep a, b;
	size_t k;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, 8192, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, 16384, IT_ACCESS_ALL, poison);
	nb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || !nb)
		return IT_FAIL;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t len = sizes[k];
		uint64_t seed = it_seed(t, 10 + k);
		uint32_t imm = htonl(0xabc00000u + k);

		it_where(t, "%u bytes", len);
		it_fill(rb->addr, rb->len, poison, 0);
		if (it_post_recv(t, b.qp, 100 + k, nb, 0, nb->len))
			return IT_FAIL;
		it_fill(sb->addr + RDMA_LOFF, len, seed, 0);
		it_wr(&wr, &sge, k, IBV_WR_RDMA_WRITE_WITH_IMM, sb, RDMA_LOFF,
		      len);
		wr.num_sge = len ? 1 : 0;
		wr.imm_data = imm;
		it_wr_rdma(&wr, rb, RDMA_ROFF);
		if (it_post_expect(t, &a, &wr, k, IBV_WC_RDMA_WRITE, -1,
				   "write completion"))
			return IT_FAIL;
		e = it_exp_recv(100 + k, IBV_WC_RECV_RDMA_WITH_IMM, b.qp, len);
		e.imm = 1;
		e.imm_data = imm;
		if (it_expect_wc(t, b.rcq, &e, "receive completion"))
			return IT_FAIL;
		if (check_window(t, rb, RDMA_ROFF, len, seed, 0, poison) ||
		    it_verify(t, nb->addr, nb->len, poison, 0,
			      "the receive buffer (must stay untouched)"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/* RDMA reads of several sizes bring back every byte of the remote window. */
static int rc_rdma_read_returns_every_byte(struct it_test *t, long arg)
{
	uint64_t poison = it_seed(t, 1), seed = it_seed(t, 2);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_buf *lb, *rb;
	struct it_ep a, b;
	size_t k;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	lb = it_buf_new(t, (1 << 20) + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	rb = it_buf_new(t, (1 << 20) + 8192, IT_ACCESS_ALL, seed);
	if (!lb || !rb)
		return IT_FAIL;
	for (k = 0; k < RDMA_NSIZES; k++) {
		uint32_t len = rdma_sizes[k];

		it_where(t, "%u bytes", len);
		it_fill(lb->addr, lb->len, poison, 0);
		it_wr(&wr, &sge, k, IBV_WR_RDMA_READ, lb, RDMA_LOFF, len);
		it_wr_rdma(&wr, rb, RDMA_ROFF);
		if (it_post_expect(t, &a, &wr, k, IBV_WC_RDMA_READ, len,
				   "read completion"))
			return IT_FAIL;
		if (check_window(t, lb, RDMA_LOFF, len, seed, RDMA_ROFF,
				 poison))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_verify(t, rb->addr, rb->len, seed, 0, "the remote buffer"))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void store64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void it_wr_atomic(struct ibv_send_wr *wr, const struct it_buf *rb,
			 size_t off, uint64_t compare_add, uint64_t swap)
{
	wr->wr.atomic.remote_addr = (uintptr_t)(rb->addr + off);
	wr->wr.atomic.rkey = rb->mr->rkey;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

/* Check the 8 bytes at @off of @b hold @v and everything else is poison. */
static int check_u64(struct it_test *t, const struct it_buf *b, size_t off,
		     uint64_t v, uint64_t poison, const char *what)
{
	IT_EXPECT(t, load64(b->addr + off) == v,
		  "%s is 0x%llx, expected "
		  "0x%llx",
		  what, (unsigned long long)load64(b->addr + off),
		  (unsigned long long)v);
	if (it_verify(t, b->addr, off, poison, 0, what) ||
	    it_verify(t, b->addr + off + 8, b->len - off - 8, poison, off + 8,
		      what))
		return IT_FAIL;
	return 0;
}

/* A compare-and-swap that matches swaps; one that does not leaves it. */
static int rc_atomic_cmp_swap_success_and_failure(struct it_test *t, long arg)
{
	uint64_t rp = it_seed(t, 1), lp = it_seed(t, 2);
	uint64_t va = it_seed(t, 10), vb = it_seed(t, 11), vc = it_seed(t, 12);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_buf *lb, *rb;
	struct it_ep a, b;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	lb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, lp);
	rb = it_buf_new(t, 64, IT_ACCESS_ALL, rp);
	if (!lb || !rb)
		return IT_FAIL;
	store64(rb->addr + 24, va);

	it_where(t, "matching compare");
	it_wr(&wr, &sge, 1, IBV_WR_ATOMIC_CMP_AND_SWP, lb, 8, 8);
	it_wr_atomic(&wr, rb, 24, va, vb);
	if (it_post_expect(t, &a, &wr, 1, IBV_WC_COMP_SWAP, 8, "completion") ||
	    check_u64(t, lb, 8, va, lp, "the returned old value") ||
	    check_u64(t, rb, 24, vb, rp, "the remote value"))
		return IT_FAIL;

	it_where(t, "compare that does not match");
	store64(lb->addr + 8, load64(lb->addr + 8) ^ ~0ull);
	it_wr(&wr, &sge, 2, IBV_WR_ATOMIC_CMP_AND_SWP, lb, 8, 8);
	it_wr_atomic(&wr, rb, 24, vc, va);
	if (it_post_expect(t, &a, &wr, 2, IBV_WC_COMP_SWAP, 8, "completion") ||
	    check_u64(t, lb, 8, vb, lp, "the returned old value") ||
	    check_u64(t, rb, 24, vb, rp, "the remote value"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/* A list of fetch-and-adds returns the running sums, one after another. */
static int rc_atomic_fetch_add_sequence(struct it_test *t, long arg)
{
	uint64_t adds[6] = {
		1, 0x100, 0, 0xffffffff00000001ull, 7, 0,
	};
	uint64_t rp = it_seed(t, 1), lp = it_seed(t, 2), v;
	struct ibv_send_wr wr[6], *bad = NULL;
	struct ibv_sge sge[6];
	struct ibv_wc wc[6];
	struct it_buf *lb, *rb;
	struct it_ep a, b;
	int i, ret;

	adds[2] = it_seed(t, 3);
	adds[5] = -it_seed(t, 4);
	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	lb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, lp);
	rb = it_buf_new(t, 64, IT_ACCESS_ALL, rp);
	if (!lb || !rb)
		return IT_FAIL;
	v = it_seed(t, 10);
	store64(rb->addr + 40, v);
	for (i = 0; i < 6; i++) {
		it_wr(&wr[i], &sge[i], 10 + i, IBV_WR_ATOMIC_FETCH_AND_ADD, lb,
		      8 * i, 8);
		it_wr_atomic(&wr[i], rb, 40, adds[i], 0);
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_send(a.qp, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_send of 6 fetch-and-adds returned %d",
		  ret);
	if (it_poll(t, a.scq, wc, 6, "fetch-and-add completions"))
		return IT_FAIL;
	for (i = 0; i < 6; i++) {
		struct it_wc_exp e =
			it_exp_send(10 + i, IBV_WC_FETCH_ADD, a.qp);

		it_where(t, "fetch-and-add %d", i);
		e.byte_len = 8;
		if (it_check_wc(t, &wc[i], &e, "completion"))
			return IT_FAIL;
		IT_EXPECT(t, load64(lb->addr + 8 * i) == v,
			  "returned 0x%llx, expected 0x%llx",
			  (unsigned long long)load64(lb->addr + 8 * i),
			  (unsigned long long)v);
		v += adds[i];
	}
	it_where(t, "%s", "");
	if (check_u64(t, rb, 40, v, rp, "the remote sum"))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

/* Ten sends in one list, ten receives in one list: all in order. */
static int rc_post_list_of_10_sends_completes_in_order(struct it_test *t,
						       long arg)
{
	enum { N = 10, SLOT = 2048 };
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr swr[N], *sbad = NULL;
	struct ibv_recv_wr rwr[N], *rbad = NULL;
	struct ibv_sge ssge[N], rsge[N];
	struct ibv_wc wc[N];
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int i, ret;

	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, N * SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, N * SLOT, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < N; i++) {
		uint32_t len = 1 + 150 * i;

		rsge[i].addr = (uintptr_t)(rb->addr + SLOT * i);
		rsge[i].length = SLOT;
		rsge[i].lkey = rb->mr->lkey;
		memset(&rwr[i], 0, sizeof(rwr[i]));
		rwr[i].wr_id = 200 + i;
		rwr[i].sg_list = &rsge[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i < N - 1 ? &rwr[i + 1] : NULL;
		it_fill(sb->addr + SLOT * i, len, it_seed(t, 10 + i), 0);
		it_wr(&swr[i], &ssge[i], 1000 + i, IBV_WR_SEND, sb, SLOT * i,
		      len);
		swr[i].next = i < N - 1 ? &swr[i + 1] : NULL;
	}
	ret = ibv_post_recv(b.qp, rwr, &rbad);
	IT_EXPECT(t, !ret, "ibv_post_recv of %d returned %d", N, ret);
	ret = ibv_post_send(a.qp, swr, &sbad);
	IT_EXPECT(t, !ret, "ibv_post_send of %d returned %d", N, ret);
	if (it_poll(t, a.scq, wc, N, "send completions"))
		return IT_FAIL;
	for (i = 0; i < N; i++) {
		struct it_wc_exp e = it_exp_send(1000 + i, IBV_WC_SEND, a.qp);

		it_where(t, "send %d", i);
		if (it_check_wc(t, &wc[i], &e, "send completion"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_poll(t, b.rcq, wc, N, "receive completions"))
		return IT_FAIL;
	for (i = 0; i < N; i++) {
		uint32_t len = 1 + 150 * i;
		struct it_wc_exp e =
			it_exp_recv(200 + i, IBV_WC_RECV, b.qp, len);

		it_where(t, "receive %d", i);
		if (it_check_wc(t, &wc[i], &e, "receive completion") ||
		    it_verify(t, rb->addr + SLOT * i, len, it_seed(t, 10 + i),
			      0, "received bytes") ||
		    it_verify(t, rb->addr + SLOT * i + len, SLOT - len, poison,
			      SLOT * i + len, "bytes after the message"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_all(t, &a, &b);
}

/*
 * Offsets of the mixed-list test.  WRITE, READ and WRITE_WITH_IMM use the
 * same offset locally and remotely; FAA is the remote counter and the local
 * result; the two sends come from local buffers only.
 */
enum {
	MX_WRITE = 0,
	MX_READ = 1024,
	MX_WIMM = 2048,
	MX_SEND = 3072,
	MX_SEND2 = 3584,
	MX_FAA = 4096,
	MX_LEN = 8192,
};

/* One list of six different opcodes completes in order, each correctly. */
static int rc_post_list_of_mixed_opcodes_completes_in_order(struct it_test *t,
							    long arg)
{
	static const int sop[6] = {
		IBV_WC_RDMA_WRITE, IBV_WC_SEND, IBV_WC_RDMA_READ,
		IBV_WC_FETCH_ADD,  IBV_WC_SEND, IBV_WC_RDMA_WRITE,
	};
	uint64_t lp = it_seed(t, 1), rp = it_seed(t, 2), np = it_seed(t, 3);
	uint64_t s[6], v = it_seed(t, 4);
	uint32_t imm2 = htonl(0x22222222), imm6 = htonl(0x66666666);
	struct ibv_send_wr wr[6], *bad = NULL;
	struct ibv_sge sge[6];
	struct ibv_wc wc[6];
	struct it_wc_exp e;
	struct it_buf *lb, *rb, *nb;
	struct it_ep a, b;
	int i, ret;

	for (i = 0; i < 6; i++)
		s[i] = it_seed(t, 10 + i);
	if (rc_pair(t, &a, &b))
		return IT_FAIL;
	lb = it_buf_new(t, MX_LEN, IBV_ACCESS_LOCAL_WRITE, lp);
	rb = it_buf_new(t, MX_LEN, IT_ACCESS_ALL, rp);
	nb = it_buf_new(t, 3 * 1024, IBV_ACCESS_LOCAL_WRITE, np);
	if (!lb || !rb || !nb)
		return IT_FAIL;
	for (i = 0; i < 3; i++)
		if (it_post_recv(t, b.qp, 300 + i, nb, 1024 * i, 1024))
			return IT_FAIL;
	it_fill(lb->addr + MX_WRITE, 1000, s[0], 0);
	it_fill(lb->addr + MX_SEND, 500, s[1], 0);
	it_fill(rb->addr + MX_READ, 500, s[2], 0);
	store64(rb->addr + MX_FAA, v);
	it_fill(lb->addr + MX_SEND2, 300, s[4], 0);
	it_fill(lb->addr + MX_WIMM, 800, s[5], 0);

	it_wr(&wr[0], &sge[0], 1, IBV_WR_RDMA_WRITE, lb, MX_WRITE, 1000);
	it_wr_rdma(&wr[0], rb, MX_WRITE);
	it_wr(&wr[1], &sge[1], 2, IBV_WR_SEND_WITH_IMM, lb, MX_SEND, 500);
	wr[1].imm_data = imm2;
	it_wr(&wr[2], &sge[2], 3, IBV_WR_RDMA_READ, lb, MX_READ, 500);
	it_wr_rdma(&wr[2], rb, MX_READ);
	it_wr(&wr[3], &sge[3], 4, IBV_WR_ATOMIC_FETCH_AND_ADD, lb, MX_FAA, 8);
	it_wr_atomic(&wr[3], rb, MX_FAA, 5, 0);
	it_wr(&wr[4], &sge[4], 5, IBV_WR_SEND, lb, MX_SEND2, 300);
	it_wr(&wr[5], &sge[5], 6, IBV_WR_RDMA_WRITE_WITH_IMM, lb, MX_WIMM, 800);
	wr[5].imm_data = imm6;
	it_wr_rdma(&wr[5], rb, MX_WIMM);
	for (i = 0; i < 5; i++)
		wr[i].next = &wr[i + 1];
	ret = ibv_post_send(a.qp, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_send of the list returned %d", ret);

	if (it_poll(t, a.scq, wc, 6, "send completions"))
		return IT_FAIL;
	for (i = 0; i < 6; i++) {
		it_where(t, "WR %d", i + 1);
		e = it_exp_send(i + 1, sop[i], a.qp);
		if (it_check_wc(t, &wc[i], &e, "send completion"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_poll(t, b.rcq, wc, 3, "receive completions"))
		return IT_FAIL;
	e = it_exp_recv(300, IBV_WC_RECV, b.qp, 500);
	e.imm = 1;
	e.imm_data = imm2;
	if (it_check_wc(t, &wc[0], &e, "SEND_WITH_IMM receive"))
		return IT_FAIL;
	e = it_exp_recv(301, IBV_WC_RECV, b.qp, 300);
	if (it_check_wc(t, &wc[1], &e, "SEND receive"))
		return IT_FAIL;
	e = it_exp_recv(302, IBV_WC_RECV_RDMA_WITH_IMM, b.qp, 800);
	e.imm = 1;
	e.imm_data = imm6;
	if (it_check_wc(t, &wc[2], &e, "WRITE_WITH_IMM receive"))
		return IT_FAIL;

	if (it_verify(t, rb->addr + MX_WRITE, 1000, s[0], 0, "WRITE data") ||
	    it_verify(t, nb->addr, 500, s[1], 0, "SEND_WITH_IMM data") ||
	    it_verify(t, lb->addr + MX_READ, 500, s[2], 0, "READ data") ||
	    it_verify(t, nb->addr + 1024, 300, s[4], 0, "SEND data") ||
	    it_verify(t, rb->addr + MX_WIMM, 800, s[5], 0,
		      "WRITE_WITH_IMM data") ||
	    it_verify(t, nb->addr + 2048, 1024, np, 2048,
		      "WRITE_WITH_IMM receive buffer (must stay untouched)"))
		return IT_FAIL;
	IT_EXPECT(t, load64(lb->addr + MX_FAA) == v,
		  "fetch-and-add returned 0x%llx, expected 0x%llx",
		  (unsigned long long)load64(lb->addr + MX_FAA),
		  (unsigned long long)v);
	IT_EXPECT(t, load64(rb->addr + MX_FAA) == v + 5,
		  "remote counter 0x%llx, expected 0x%llx",
		  (unsigned long long)load64(rb->addr + MX_FAA),
		  (unsigned long long)(v + 5));
	return quiet_all(t, &a, &b);
}

/*
 * 1000 RDMA writes through a 16-deep SQ, only every 8th signaled, without
 * polling the CQ before the end: slots must come back on their own.
 */
static int
rc_unsignaled_writes_reuse_sq_slots_without_polling(struct it_test *t, long arg)
{
	enum { N = 1000, EVERY = 8, NSIG = N / EVERY };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_wc wc[NSIG];
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int i;

	/*
	 * The verbs rule is that a WR's slot comes back once a later
	 * completion is polled; rxe frees it as its kernel consumes it, but
	 * libmlx5 and doorbell's mlx5 backend only when the CQE is polled.
	 */
	if (it_backend(t->env) == IT_MLX5)
		return it_skip(t, "a ConnectX SQ slot comes back only through "
				  "a polled completion");
	attr.send_wr = 16;
	attr.sig_all = 0;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	sb = it_buf_new(t, 8 * N, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, 8 * N + 64, IT_ACCESS_ALL, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < N; i++) {
		struct timespec ts0, ts;
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sge;
		int ret;

		it_wr(&wr, &sge, i, IBV_WR_RDMA_WRITE, sb, 8 * i, 8);
		wr.send_flags = i % EVERY == EVERY - 1 ? IBV_SEND_SIGNALED : 0;
		it_wr_rdma(&wr, rb, 8 * i);
		clock_gettime(CLOCK_MONOTONIC, &ts0);
		while ((ret = ibv_post_send(a.qp, &wr, &bad)) == ENOMEM) {
			sched_yield();
			clock_gettime(CLOCK_MONOTONIC, &ts);
			IT_EXPECT(t,
				  (ts.tv_sec - ts0.tv_sec) * 1000 +
						  (ts.tv_nsec - ts0.tv_nsec) /
							  1000000 <
					  t->env->timeout_ms,
				  "WR %d: the SQ stayed full for %u ms", i,
				  t->env->timeout_ms);
		}
		IT_EXPECT(t, !ret, "WR %d: ibv_post_send returned %d", i, ret);
	}
	if (it_poll(t, a.scq, wc, NSIG, "signaled completions"))
		return IT_FAIL;
	for (i = 0; i < NSIG; i++) {
		struct it_wc_exp e = it_exp_send(EVERY * i + EVERY - 1,
						 IBV_WC_RDMA_WRITE, a.qp);

		it_where(t, "signaled completion %d", i);
		if (it_check_wc(t, &wc[i], &e, "completion"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_verify(t, rb->addr, 8 * N, seed, 0, "written bytes") ||
	    it_verify(t, rb->addr + 8 * N, 64, poison, 8 * N,
		      "bytes after the last write"))
		return IT_FAIL;
	return quiet_all(t, &a, &b);
}

const struct it_case it_cases_data_rc[] = {
	{ "rc_send_delivers_every_byte_1B", rc_send_size, 1 },
	{ "rc_send_delivers_every_byte_63B", rc_send_size, 63 },
	{ "rc_send_delivers_every_byte_64B", rc_send_size, 64 },
	{ "rc_send_delivers_every_byte_4095B", rc_send_size, 4095 },
	{ "rc_send_delivers_every_byte_4096B", rc_send_size, 4096 },
	{ "rc_send_delivers_every_byte_64KiB", rc_send_size, 65536 },
	{ "rc_send_delivers_every_byte_1MiB", rc_send_size, 1 << 20 },
	{ "rc_send_zero_bytes_completes_with_byte_len_0", rc_send_zero_bytes,
	  0 },
	{ "rc_send_gathers_3_sges_into_one_recv", rc_send_gathers_3_sges, 0 },
	{ "rc_send_scatters_into_3_recv_sges",
	  rc_send_scatters_into_3_recv_sges, 0 },
	{ "rc_send_with_max_send_sge_into_max_recv_sge",
	  rc_send_with_max_sges_on_both_sides, 0 },
	{ "rc_send_inline_copies_data_at_post_up_to_max_inline",
	  rc_send_inline_copies_at_post, 0 },
	{ "rc_send_inline_gathers_3_sges", rc_send_inline_gathers_3_sges, 0 },
	{ "rc_send_with_inv_of_an_mr_rkey_is_refused",
	  rc_send_with_inv_of_an_mr_rkey_is_refused, 0 },
	{ "rc_send_with_inv_wr_api_of_an_mr_rkey_is_refused",
	  rc_send_with_inv_of_an_mr_rkey_is_refused, 1 },
	{ "rc_send_with_imm_delivers_imm_and_flag",
	  rc_send_with_imm_delivers_imm, 0 },
	{ "rc_send_before_recv_arrives_after_rnr_retry",
	  rc_send_before_recv_arrives_after_rnr_retry, 0 },
	{ "rc_post_recv_in_init_and_rtr_is_kept",
	  rc_post_recv_in_init_and_rtr_is_kept, 0 },
	{ "rc_rdma_write_delivers_every_byte_at_remote_offset",
	  rc_rdma_write_delivers_every_byte, 0 },
	{ "rc_rdma_write_with_imm_consumes_recv_with_imm_and_len",
	  rc_rdma_write_with_imm_consumes_recv, 0 },
	{ "rc_rdma_read_returns_every_byte_from_remote_offset",
	  rc_rdma_read_returns_every_byte, 0 },
	{ "rc_atomic_cmp_swap_success_and_failure",
	  rc_atomic_cmp_swap_success_and_failure, 0 },
	{ "rc_atomic_fetch_add_list_returns_running_sums",
	  rc_atomic_fetch_add_sequence, 0 },
	{ "rc_post_list_of_10_sends_completes_in_order",
	  rc_post_list_of_10_sends_completes_in_order, 0 },
	{ "rc_post_list_of_mixed_opcodes_completes_in_order",
	  rc_post_list_of_mixed_opcodes_completes_in_order, 0 },
	{ "rc_unsignaled_writes_reuse_sq_slots_without_polling",
	  rc_unsignaled_writes_reuse_sq_slots_without_polling, 0 },
	{ NULL, NULL, 0 },
};
