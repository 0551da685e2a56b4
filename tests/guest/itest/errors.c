// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Error semantics: a QP driven into error completes every WR it was given
 * exactly once and in order, with its error or IBV_WC_WR_FLUSH_ERR;
 * nothing twice, nothing lost.  A CQ overrun raises IBV_EVENT_CQ_ERR and
 * corrupts nothing of ours.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { EQ_MAX = 32 };

/* What one queue (a CQ fed by one QP's SQ or RQ) must deliver, in order. */
struct eq {
	const char *name;
	struct ibv_cq *cq;
	uint32_t qpn;
	int n;
	uint64_t id[EQ_MAX];
	int status[EQ_MAX];
	int alt[EQ_MAX];    /* another status allowed, or -1 */
	int opcode[EQ_MAX]; /* checked on success only */
};

/* WRs whose single completion was checked, for the count at exit. */
static unsigned long eq_checked;
static int eq_atexit_done;

static void eq_report(void)
{
	fprintf(stderr,
		"itest: errors: %lu work requests completed exactly "
		"once, in order\n",
		eq_checked);
}

static void eq_init(struct eq *q, const char *name, struct ibv_cq *cq,
		    const struct ibv_qp *qp)
{
	memset(q, 0, sizeof(*q));
	q->name = name;
	q->cq = cq;
	q->qpn = qp->qp_num;
	if (!eq_atexit_done) {
		eq_atexit_done = 1;
		atexit(eq_report);
	}
}

static void eq_add(struct eq *q, uint64_t id, int status, int opcode)
{
	if (q->n == EQ_MAX) {
		fprintf(stderr, "itest: errors.c: more than %d WRs\n", EQ_MAX);
		exit(2);
	}
	q->id[q->n] = id;
	q->status[q->n] = status;
	q->alt[q->n] = -1;
	q->opcode[q->n] = opcode;
	q->n++;
}

static const char *st(int s)
{
	return ibv_wc_status_str((enum ibv_wc_status)s);
}

/*
 * Poll every expected completion (deadline), compare them one by one in
 * order, then a quiet period: nothing may follow.  Empties the list.
 */
static int eq_expect(struct it_test *t, struct eq *q)
{
	struct ibv_wc wc[EQ_MAX];
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	int got = 0, i;

	while (got < q->n) {
		int r = ibv_poll_cq(q->cq, q->n - got, wc + got);

		IT_EXPECT(t, r >= 0, "%s: ibv_poll_cq returned %d", q->name, r);
		got += r;
		if (got < q->n && it_now_ms() > deadline)
			break;
		if (!r)
			it_pause();
	}
	for (i = 0; i < got; i++) {
		const struct ibv_wc *w = &wc[i];

		IT_EXPECT(t,
			  w->wr_id == q->id[i] &&
				  ((int)w->status == q->status[i] ||
				   (int)w->status == q->alt[i]),
			  "%s: completion %d of "
			  "%d is wr_id %llu status %s, expected wr_id %llu "
			  "status %s%s%s",
			  q->name, i, q->n, (unsigned long long)w->wr_id,
			  st(w->status), (unsigned long long)q->id[i],
			  st(q->status[i]), q->alt[i] >= 0 ? " or " : "",
			  q->alt[i] >= 0 ? st(q->alt[i]) : "");
		IT_EXPECT(t, w->qp_num == q->qpn,
			  "%s: wr_id %llu has qp_num "
			  "0x%x, expected 0x%x",
			  q->name, (unsigned long long)w->wr_id, w->qp_num,
			  q->qpn);
		IT_EXPECT(t,
			  w->status != IBV_WC_SUCCESS || q->opcode[i] < 0 ||
				  (int)w->opcode == q->opcode[i],
			  "%s: wr_id %llu has "
			  "opcode %d, expected %d",
			  q->name, (unsigned long long)w->wr_id, w->opcode,
			  q->opcode[i]);
	}
	IT_EXPECT(t, got == q->n,
		  "%s: %d of %d completions after %u ms; "
		  "next expected wr_id %llu status %s",
		  q->name, got, q->n, t->env->timeout_ms,
		  (unsigned long long)q->id[got], st(q->status[got]));
	if (it_quiet(t, q->cq, q->name))
		return IT_FAIL;
	eq_checked += q->n;
	q->n = 0;
	return 0;
}

/* Connect @ep to @dqpn with its own RNR and retry settings. */
struct rc_opts {
	uint8_t min_rnr_timer;
	uint8_t rnr_retry;
	uint8_t retry_cnt;
	uint8_t timeout;
};

static const struct rc_opts rc_default = {
	.min_rnr_timer = 1,
	.rnr_retry = 7,
	.retry_cnt = 7,
	.timeout = 14,
};

static int rc_up(struct it_test *t, struct it_ep *ep, uint32_t dqpn,
		 const struct rc_opts *o)
{
	const struct it_env *env = t->env;
	struct ibv_qp_attr qa;
	int ret;

	if (it_ep_modify(t, ep, IBV_QPS_INIT, dqpn))
		return IT_FAIL;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = env->port_attr.active_mtu;
	qa.dest_qp_num = dqpn;
	qa.rq_psn = it_psn(dqpn);
	qa.ah_attr.dlid = env->port_attr.lid; /* InfiniBand; 0 on RoCE */
	qa.ah_attr.is_global = 1;
	qa.ah_attr.port_num = env->port;
	qa.ah_attr.grh.dgid = env->gid;
	qa.ah_attr.grh.sgid_index = env->gidx;
	qa.ah_attr.grh.hop_limit = 64;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = o->min_rnr_timer;
	ret = ibv_modify_qp(ep->qp, &qa,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	IT_EXPECT(t, !ret, "ibv_modify_qp(-> RTR): %s", strerror(ret));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = it_psn(ep->qp->qp_num);
	qa.timeout = o->timeout;
	qa.retry_cnt = o->retry_cnt;
	qa.rnr_retry = o->rnr_retry;
	qa.max_rd_atomic = 1;
	ret = ibv_modify_qp(ep->qp, &qa,
			    IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_MAX_QP_RD_ATOMIC);
	IT_EXPECT(t, !ret, "ibv_modify_qp(-> RTS): %s", strerror(ret));
	return 0;
}

static int rc_pair_opts(struct it_test *t, struct it_ep *a, struct it_ep *b,
			const struct rc_opts *oa, const struct rc_opts *ob)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);

	if (it_ep_new(t, a, &attr) || it_ep_new(t, b, &attr))
		return IT_FAIL;
	if (rc_up(t, a, b->qp->qp_num, oa) || rc_up(t, b, a->qp->qp_num, ob))
		return IT_FAIL;
	return 0;
}

static int qp_state(struct it_test *t, struct ibv_qp *qp, enum ibv_qp_state *s)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	int ret = ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia);

	IT_EXPECT(t, !ret, "ibv_query_qp(QP 0x%x): %s", qp->qp_num,
		  strerror(ret));
	*s = qa.qp_state;
	return 0;
}

static int expect_state(struct it_test *t, struct ibv_qp *qp,
			enum ibv_qp_state want, const char *who)
{
	enum ibv_qp_state s = IBV_QPS_UNKNOWN;

	if (qp_state(t, qp, &s))
		return IT_FAIL;
	IT_EXPECT(t, s == want,
		  "ibv_query_qp(%s) reports state %d, expected "
		  "%d",
		  who, s, want);
	return 0;
}

/* One signaled WR of @op over @len bytes at @off of @lb (remote: @rb). */
static void mk_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t id,
		  enum ibv_wr_opcode op, struct it_buf *lb, size_t off,
		  uint32_t len, struct it_buf *rb, size_t roff)
{
	it_wr(wr, sge, id, op, lb, off, len);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr->wr.atomic.remote_addr = (uintptr_t)(rb->addr + roff);
		wr->wr.atomic.rkey = rb->mr->rkey;
		wr->wr.atomic.compare_add = 1;
	} else if (rb) {
		it_wr_rdma(wr, rb, roff);
	}
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr->imm_data = htobe32(0x1234);
}

static void chain(struct ibv_send_wr *wr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		wr[i].next = i < n - 1 ? &wr[i + 1] : NULL;
}

static int post_list(struct it_test *t, struct ibv_qp *qp,
		     struct ibv_send_wr *wr, int n)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	chain(wr, n);
	ret = ibv_post_send(qp, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_send(%d WRs) returned %d (*bad_wr %s)", n,
		  ret, bad ? "set" : "NULL");
	return 0;
}

static int post_recvs(struct it_test *t, struct ibv_qp *qp, struct eq *q,
		      uint64_t first, int n, struct it_buf *b, uint32_t slot,
		      int status)
{
	int i;

	for (i = 0; i < n; i++) {
		if (it_post_recv(t, qp, first + i, b, (size_t)slot * i, slot))
			return IT_FAIL;
		if (q)
			eq_add(q, first + i, status, IBV_WC_RECV);
	}
	return 0;
}

/*
 * Wait up to @ms for @n completions on @cq; the number that came.  Used to
 * find out when rxe flushes receives posted after the error.
 */
static int wait_some(struct ibv_cq *cq, struct ibv_wc *wc, int n,
		     unsigned int ms)
{
	uint64_t deadline = it_now_ms() + ms;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
		if (it_now_ms() > deadline)
			break;
		if (!r)
			it_pause();
	}
	return got;
}

/* The first @n of @wc are the first @n expected of @q: check, drop them. */
static int eq_consume(struct it_test *t, struct eq *q, const struct ibv_wc *wc,
		      int n)
{
	int i;

	for (i = 0; i < n; i++)
		IT_EXPECT(t,
			  wc[i].wr_id == q->id[i] &&
				  (int)wc[i].status == q->status[i],
			  "%s: completion %d is wr_id %llu status %s, expected "
			  "wr_id %llu status %s",
			  q->name, i, (unsigned long long)wc[i].wr_id,
			  st(wc[i].status), (unsigned long long)q->id[i],
			  st(q->status[i]));
	q->n -= n;
	memmove(q->id, q->id + n, q->n * sizeof(q->id[0]));
	memmove(q->status, q->status + n, q->n * sizeof(q->status[0]));
	memmove(q->alt, q->alt + n, q->n * sizeof(q->alt[0]));
	memmove(q->opcode, q->opcode + n, q->n * sizeof(q->opcode[0]));
	eq_checked += n;
	return 0;
}

/*
 * The QP is in error: query says so; sends posted now complete with
 * FLUSH_ERR, in order, once each (the doorbell runs the kernel's requester,
 * which flushes).  Receives posted now: libibverbs' post_recv makes no
 * system call and rxe 6.1's responder flushes its queue only when it runs
 * (a packet arrives, or the QP is modified to ERR); the doorbell of the
 * sends runs the requester only.  So they stay posted until the
 * application modifies the QP to ERR once more, which flushes each of them
 * once, in order.  ITEST_ERRORS_VERBOSE=1 prints how many flushed before.
 */
static int after_error(struct it_test *t, struct it_ep *ep, const char *who,
		       uint64_t base)
{
	struct it_buf *b = it_buf_new(t, 4096, IT_ACCESS_ALL, 0);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	bool verbose = getenv("ITEST_ERRORS_VERBOSE") != NULL;
	struct ibv_send_wr wr[4];
	struct ibv_sge sge[4];
	struct ibv_wc wc[4];
	struct eq qs, qr;
	int n, ret;

	if (!b)
		return IT_FAIL;
	it_where(t, "%s after the error", who);
	if (expect_state(t, ep->qp, IBV_QPS_ERR, who))
		return IT_FAIL;
	eq_init(&qr, "receives posted after the error", ep->rcq, ep->qp);
	if (post_recvs(t, ep->qp, &qr, base + 10, 3, b, 512,
		       IBV_WC_WR_FLUSH_ERR))
		return IT_FAIL;

	eq_init(&qs, "sends posted after the error", ep->scq, ep->qp);
	mk_wr(&wr[0], &sge[0], base + 0, IBV_WR_SEND, b, 0, 64, NULL, 0);
	mk_wr(&wr[1], &sge[1], base + 1, IBV_WR_RDMA_WRITE, b, 64, 64, b, 1024);
	mk_wr(&wr[2], &sge[2], base + 2, IBV_WR_RDMA_READ, b, 128, 64, b, 2048);
	mk_wr(&wr[3], &sge[3], base + 3, IBV_WR_SEND_WITH_IMM, b, 192, 8, NULL,
	      0);
	for (n = 0; n < 4; n++)
		eq_add(&qs, base + n, IBV_WC_WR_FLUSH_ERR, -1);
	if (post_list(t, ep->qp, wr, 2) || post_list(t, ep->qp, wr + 2, 2) ||
	    eq_expect(t, &qs))
		return IT_FAIL;

	n = wait_some(ep->rcq, wc, 3, verbose ? 2000 : t->env->quiet_ms);
	IT_EXPECT(t, n >= 0, "ibv_poll_cq returned %d", n);
	if (verbose)
		fprintf(stderr,
			"itest: errors: %s: %s: %d of 3 receives posted "
			"after the error flushed before modify_qp(ERR)\n",
			t->name, who, n);
	if (eq_consume(t, &qr, wc, n))
		return IT_FAIL;
	ret = ibv_modify_qp(ep->qp, &qa, IBV_QP_STATE);
	IT_EXPECT(t, !ret, "ibv_modify_qp(ERR -> ERR): %s", strerror(ret));
	if (qr.n && eq_expect(t, &qr))
		return IT_FAIL;
	if (expect_state(t, ep->qp, IBV_QPS_ERR, who))
		return IT_FAIL;
	it_where(t, "%s", "");
	return 0;
}

/*
 * a: [WRITE ok, SEND ok, WRITE to a bad rkey (arg 0) or past the end of
 * the MR (arg 1), SEND, WRITE, READ, SEND_WITH_IMM, FETCH_ADD], receives
 * posted on a as well.  The bad WRITE completes with REM_ACCESS_ERR, every
 * WR after it and every receive of a with FLUSH_ERR; nothing of the
 * flushed WRs reaches b.
 */
static int rc_remote_access_error_flushes_rest_once(struct it_test *t, long arg)
{
	uint64_t seed = it_seed(t, 1), poison = it_seed(t, 2);
	struct ibv_send_wr wr[8];
	struct ibv_sge sge[8];
	struct it_buf *lb, *rb, *ar, *br;
	struct it_ep a, b;
	struct eq qs, qr, qb;
	enum ibv_qp_state bs = IBV_QPS_UNKNOWN;

	if (rc_pair_opts(t, &a, &b, &rc_default, &rc_default))
		return IT_FAIL;
	lb = it_buf_new(t, 4096, IT_ACCESS_ALL, seed);
	rb = it_buf_new(t, 4096, IT_ACCESS_ALL, poison);
	ar = it_buf_new(t, 4 * 256, IBV_ACCESS_LOCAL_WRITE, 0);
	br = it_buf_new(t, 4 * 256, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!lb || !rb || !ar || !br)
		return IT_FAIL;
	eq_init(&qs, "a's send queue", a.scq, a.qp);
	eq_init(&qr, "a's receive queue", a.rcq, a.qp);
	eq_init(&qb, "b's receive queue", b.rcq, b.qp);
	if (post_recvs(t, a.qp, &qr, 100, 4, ar, 256, IBV_WC_WR_FLUSH_ERR))
		return IT_FAIL;
	/* b: one receive for the good SEND, three for the flushed ones. */
	if (post_recvs(t, b.qp, NULL, 200, 4, br, 256, 0))
		return IT_FAIL;
	eq_add(&qb, 200, IBV_WC_SUCCESS, IBV_WC_RECV);

	mk_wr(&wr[0], &sge[0], 0, IBV_WR_RDMA_WRITE, lb, 0, 256, rb, 0);
	mk_wr(&wr[1], &sge[1], 1, IBV_WR_SEND, lb, 256, 100, NULL, 0);
	mk_wr(&wr[2], &sge[2], 2, IBV_WR_RDMA_WRITE, lb, 512, 256, rb, 512);
	if (arg)
		wr[2].wr.rdma.remote_addr = (uintptr_t)rb->addr + rb->len - 128;
	else
		wr[2].wr.rdma.rkey ^= 0x5a5a00;
	mk_wr(&wr[3], &sge[3], 3, IBV_WR_SEND, lb, 768, 100, NULL, 0);
	mk_wr(&wr[4], &sge[4], 4, IBV_WR_RDMA_WRITE, lb, 1024, 256, rb, 1024);
	mk_wr(&wr[5], &sge[5], 5, IBV_WR_RDMA_READ, lb, 1280, 256, rb, 1280);
	mk_wr(&wr[6], &sge[6], 6, IBV_WR_SEND_WITH_IMM, lb, 1536, 100, NULL, 0);
	mk_wr(&wr[7], &sge[7], 7, IBV_WR_ATOMIC_FETCH_AND_ADD, lb, 1792, 8, rb,
	      1792);
	eq_add(&qs, 0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	eq_add(&qs, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	eq_add(&qs, 2, IBV_WC_REM_ACCESS_ERR, -1);
	for (int i = 3; i < 8; i++)
		eq_add(&qs, i, IBV_WC_WR_FLUSH_ERR, -1);
	if (post_list(t, a.qp, wr, 8))
		return IT_FAIL;
	if (eq_expect(t, &qs) || eq_expect(t, &qr))
		return IT_FAIL;
	/*
	 * b NAKed the write; rxe's responder treats it as a class C error
	 * and moves b to ERR too (IBA 9.9.3.1.2), so b's other receives
	 * flush.  Whichever state b is in, it must say so consistently.
	 */
	if (qp_state(t, b.qp, &bs))
		return IT_FAIL;
	for (int i = 1; i < 4 && bs == IBV_QPS_ERR; i++)
		eq_add(&qb, 200 + i, IBV_WC_WR_FLUSH_ERR, -1);
	if (getenv("ITEST_ERRORS_VERBOSE"))
		fprintf(stderr, "itest: errors: %s: b is in state %d\n",
			t->name, bs);
	it_where(t, "b");
	if (eq_expect(t, &qb))
		return IT_FAIL;
	it_where(t, "bytes at b");
	if (it_verify(t, rb->addr, 256, seed, 0, "the good write") ||
	    it_verify(t, rb->addr + 256, rb->len - 256, poison, 256,
		      "memory after the good write (bad and flushed WRs)") ||
	    it_verify(t, br->addr, 100, seed, 256, "the good send") ||
	    it_verify(t, br->addr + 100, br->len - 100, poison, 100,
		      "receive buffers of the flushed sends"))
		return IT_FAIL;
	it_where(t, "%s", "");
	if (after_error(t, &a, "a", 1000))
		return IT_FAIL;
	if (bs == IBV_QPS_ERR && after_error(t, &b, "b", 2000))
		return IT_FAIL;
	return 0;
}

/*
 * rnr_retry 0 and no receive at b: the SEND ends with RNR_RETRY_EXC_ERR
 * after the WRITE before it succeeded; the WRs after it and a's receives
 * flush; b (which only sent RNR NAKs) stays in RTS and completes nothing.
 */
static int rc_rnr_retry_exceeded_flushes_rest_once(struct it_test *t, long arg)
{
	struct rc_opts oa = rc_default;
	uint64_t seed = it_seed(t, 1), poison = it_seed(t, 2);
	struct ibv_send_wr wr[6];
	struct ibv_sge sge[6];
	struct it_buf *lb, *rb, *ar;
	struct it_ep a, b;
	struct eq qs, qr;

	oa.rnr_retry = 0;
	if (rc_pair_opts(t, &a, &b, &oa, &rc_default))
		return IT_FAIL;
	lb = it_buf_new(t, 4096, IT_ACCESS_ALL, seed);
	rb = it_buf_new(t, 4096, IT_ACCESS_ALL, poison);
	ar = it_buf_new(t, 3 * 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!lb || !rb || !ar)
		return IT_FAIL;
	eq_init(&qs, "a's send queue", a.scq, a.qp);
	eq_init(&qr, "a's receive queue", a.rcq, a.qp);
	if (post_recvs(t, a.qp, &qr, 100, 3, ar, 256, IBV_WC_WR_FLUSH_ERR))
		return IT_FAIL;
	mk_wr(&wr[0], &sge[0], 0, IBV_WR_RDMA_WRITE, lb, 0, 256, rb, 0);
	mk_wr(&wr[1], &sge[1], 1, IBV_WR_SEND, lb, 256, 100, NULL, 0);
	mk_wr(&wr[2], &sge[2], 2, IBV_WR_RDMA_WRITE, lb, 512, 256, rb, 512);
	mk_wr(&wr[3], &sge[3], 3, IBV_WR_SEND_WITH_IMM, lb, 768, 10, NULL, 0);
	mk_wr(&wr[4], &sge[4], 4, IBV_WR_RDMA_READ, lb, 1024, 256, rb, 1024);
	mk_wr(&wr[5], &sge[5], 5, IBV_WR_SEND, lb, 1280, 0, NULL, 0);
	eq_add(&qs, 0, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	eq_add(&qs, 1, IBV_WC_RNR_RETRY_EXC_ERR, -1);
	for (int i = 2; i < 6; i++)
		eq_add(&qs, i, IBV_WC_WR_FLUSH_ERR, -1);
	if (post_list(t, a.qp, wr, 6) || eq_expect(t, &qs) || eq_expect(t, &qr))
		return IT_FAIL;
	it_where(t, "b");
	if (it_quiet(t, b.rcq, "b's receive queue") ||
	    it_quiet(t, b.scq, "b's send queue") ||
	    expect_state(t, b.qp, IBV_QPS_RTS, "b"))
		return IT_FAIL;
	it_where(t, "bytes at b");
	if (it_verify(t, rb->addr, 256, seed, 0, "the good write") ||
	    it_verify(t, rb->addr + 256, rb->len - 256, poison, 256,
		      "memory after the good write (flushed WRs)"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return after_error(t, &a, "a", 1000);
}

/*
 * b's first receive is 16 bytes, a sends 64: b completes that receive with
 * LOC_LEN_ERR and goes to ERR, flushing its other receives; a sees
 * REM_INV_REQ_ERR for the send and flushes the rest.  Linux 6.1 rxe
 * reports the pair of a malformed WQE instead, LOC_QP_OP_ERR at b and
 * REM_OP_ERR at a (the CQE status is the kernel's; the stock provider
 * shows the same); both pairs are accepted.  Nothing is written past the
 * 16 bytes.
 */
static int rc_local_length_error_flushes_rest_once(struct it_test *t, long arg)
{
	uint64_t seed = it_seed(t, 1), poison = it_seed(t, 2);
	struct ibv_send_wr wr[5];
	struct ibv_sge sge[5];
	struct it_buf *lb, *br, *ar;
	struct it_ep a, b;
	struct eq qs, qr, qb;

	if (rc_pair_opts(t, &a, &b, &rc_default, &rc_default))
		return IT_FAIL;
	lb = it_buf_new(t, 4096, IT_ACCESS_ALL, seed);
	br = it_buf_new(t, 5 * 256, IBV_ACCESS_LOCAL_WRITE, poison);
	ar = it_buf_new(t, 2 * 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!lb || !br || !ar)
		return IT_FAIL;
	eq_init(&qs, "a's send queue", a.scq, a.qp);
	eq_init(&qr, "a's receive queue", a.rcq, a.qp);
	eq_init(&qb, "b's receive queue", b.rcq, b.qp);
	if (post_recvs(t, a.qp, &qr, 100, 2, ar, 256, IBV_WC_WR_FLUSH_ERR))
		return IT_FAIL;
	if (it_post_recv(t, b.qp, 200, br, 0, 16))
		return IT_FAIL;
	/* The man page's status; Linux 6.1 rxe reports LOC_QP_OP_ERR. */
	eq_add(&qb, 200, IBV_WC_LOC_LEN_ERR, -1);
	qb.alt[0] = IBV_WC_LOC_QP_OP_ERR;
	for (int i = 1; i < 5; i++) {
		if (it_post_recv(t, b.qp, 200 + i, br, 256 * i, 256))
			return IT_FAIL;
		eq_add(&qb, 200 + i, IBV_WC_WR_FLUSH_ERR, -1);
	}
	mk_wr(&wr[0], &sge[0], 0, IBV_WR_SEND, lb, 0, 64, NULL, 0);
	mk_wr(&wr[1], &sge[1], 1, IBV_WR_SEND, lb, 256, 100, NULL, 0);
	mk_wr(&wr[2], &sge[2], 2, IBV_WR_SEND_WITH_IMM, lb, 512, 10, NULL, 0);
	mk_wr(&wr[3], &sge[3], 3, IBV_WR_SEND, lb, 768, 8, NULL, 0);
	mk_wr(&wr[4], &sge[4], 4, IBV_WR_SEND, lb, 1024, 1, NULL, 0);
	/* IBA's NAK for it is Invalid Request; rxe 6.1 NAKs Remote Operational
	 * Error, as for any malformed receive WQE. */
	eq_add(&qs, 0, IBV_WC_REM_INV_REQ_ERR, -1);
	qs.alt[0] = IBV_WC_REM_OP_ERR;
	for (int i = 1; i < 5; i++)
		eq_add(&qs, i, IBV_WC_WR_FLUSH_ERR, -1);
	if (post_list(t, a.qp, wr, 5))
		return IT_FAIL;
	it_where(t, "b");
	if (eq_expect(t, &qb))
		return IT_FAIL;
	it_where(t, "a");
	if (eq_expect(t, &qs) || eq_expect(t, &qr))
		return IT_FAIL;
	it_where(t, "bytes at b");
	if (it_verify(t, br->addr + 16, br->len - 16, poison, 16,
		      "memory after the 16-byte receive"))
		return IT_FAIL;
	it_where(t, "%s", "");
	if (after_error(t, &b, "b", 2000) || after_error(t, &a, "a", 1000))
		return IT_FAIL;
	return 0;
}

/*
 * modify_qp(ERR) by the application: every receive posted and every send
 * still queued behind an RNR wait flush once, in order.
 */
static int rc_modify_to_err_flushes_everything_once(struct it_test *t, long arg)
{
	struct rc_opts ob = rc_default;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_send_wr wr[4];
	struct ibv_sge sge[4];
	struct it_buf *lb, *ar;
	struct it_ep a, b;
	struct eq qs, qr;
	int ret;

	/* b's RNR timer at its largest (655 ms): a's sends wait on it. */
	ob.min_rnr_timer = 0;
	if (rc_pair_opts(t, &a, &b, &rc_default, &ob))
		return IT_FAIL;
	lb = it_buf_new(t, 4096, IT_ACCESS_ALL, 0);
	ar = it_buf_new(t, 6 * 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!lb || !ar)
		return IT_FAIL;
	eq_init(&qs, "a's send queue", a.scq, a.qp);
	eq_init(&qr, "a's receive queue", a.rcq, a.qp);
	if (post_recvs(t, a.qp, &qr, 100, 6, ar, 256, IBV_WC_WR_FLUSH_ERR))
		return IT_FAIL;
	for (int i = 0; i < 4; i++) {
		mk_wr(&wr[i], &sge[i], i, IBV_WR_SEND, lb, 256 * i, 32, NULL,
		      0);
		eq_add(&qs, i, IBV_WC_WR_FLUSH_ERR, -1);
	}
	if (post_list(t, a.qp, wr, 4))
		return IT_FAIL;
	ret = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE);
	IT_EXPECT(t, !ret, "ibv_modify_qp(RTS -> ERR): %s", strerror(ret));
	if (eq_expect(t, &qs) || eq_expect(t, &qr))
		return IT_FAIL;
	return after_error(t, &a, "a", 1000);
}

/*
 * A QP in ERR with receives posted after the error, never flushed: destroy
 * succeeds at once and nothing ever completes for the destroyed QP.
 */
static int rc_destroy_with_unflushed_receives(struct it_test *t, long arg)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct it_buf *b = it_buf_new(t, 8 * 64, IBV_ACCESS_LOCAL_WRITE, 0);
	struct ibv_cq *cq = it_cq_new(t, 16, NULL);
	struct eq q;
	struct ibv_qp *qp;
	uint64_t t0;
	int ret;

	if (!b || !cq)
		return IT_FAIL;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = ibv_create_qp(t->env->pd, &ia);
	IT_EXPECT(t, qp, "ibv_create_qp: %s", strerror(errno));
	{
		struct it_ep ep = {
			.qp = qp, .scq = cq, .rcq = cq, .type = IBV_QPT_RC
		};

		if (it_ep_modify(t, &ep, IBV_QPS_INIT, 0)) {
			ibv_destroy_qp(qp);
			return IT_FAIL;
		}
	}
	eq_init(&q, "receives posted before the error", cq, qp);
	ret = post_recvs(t, qp, &q, 1, 4, b, 64, IBV_WC_WR_FLUSH_ERR) ||
	      ibv_modify_qp(qp, &qa, IBV_QP_STATE) || eq_expect(t, &q) ||
	      post_recvs(t, qp, NULL, 11, 4, b, 64, 0);
	if (ret) {
		ibv_destroy_qp(qp);
		return it_fail(t, "setting up the QP in ERR failed");
	}
	t0 = it_now_ms();
	ret = ibv_destroy_qp(qp);
	IT_EXPECT(t, !ret, "ibv_destroy_qp with 4 receives never flushed: %s",
		  strerror(ret));
	IT_EXPECT(t, it_now_ms() - t0 < t->env->timeout_ms,
		  "ibv_destroy_qp took %llu ms",
		  (unsigned long long)(it_now_ms() - t0));
	return it_quiet(t, cq, "the CQ of the destroyed QP");
}

/* Async events */

/* Wait up to @ms for an async event; 1 read (and acked), 0 none, -1 err. */
static int async_next(struct ibv_context *ctx, struct ibv_async_event *ev,
		      int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int ret;

	do {
		ret = poll(&p, 1, ms);
	} while (ret < 0 && errno == EINTR);
	if (ret <= 0)
		return ret;
	if (ibv_get_async_event(ctx, ev))
		return -1;
	ibv_ack_async_event(ev);
	return 1;
}

enum { GUARD = 64 };

/* wc slots with guard entries on both sides, filled with a pattern. */
struct wc_guarded {
	uint8_t before[GUARD * sizeof(struct ibv_wc)];
	struct ibv_wc wc[EQ_MAX];
	uint8_t after[GUARD * sizeof(struct ibv_wc)];
};

static int guards_intact(const struct wc_guarded *g)
{
	size_t i;

	for (i = 0; i < sizeof(g->before); i++)
		if (g->before[i] != 0xa5 || g->after[i] != 0xa5)
			return 0;
	return 1;
}

/*
 * A CQ of 4 entries (rxe makes it 2^k - 1 slots) gets 24 completions
 * nobody polls: IBV_EVENT_CQ_ERR names it on the async fd; the CQ then
 * holds at most its capacity (cap), each a WR we posted, none twice; our memory
 * around the poll array and the RDMA target is untouched; the QP, the CQ
 * and everything else are destroyed normally.
 */
static int cq_overrun_raises_cq_err_and_corrupts_nothing(struct it_test *t,
							 long arg)
{
	enum { N = 24 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t seed = it_seed(t, 1), poison = it_seed(t, 2);
	struct ibv_send_wr wr[N];
	struct ibv_sge sge[N];
	struct wc_guarded *g;
	struct ibv_async_event ev;
	struct it_buf *lb, *rb;
	struct it_ep a, b;
	uint8_t seen[N] = { 0 };
	uint64_t deadline;
	int i, got = 0, r, cq_err = 0, other = 0, cap;

	attr.cqe = 4;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	IT_EXPECT(t, a.scq->cqe >= 4 && a.scq->cqe < N,
		  "the CQ of 4 has %d entries; the test needs fewer than %d",
		  a.scq->cqe, N);
	/*
	 * What it can hold: cqe on rxe; on a ConnectX cqe + 1, the ring's
	 * power of two (mlx5_ib reports one entry less than it allocates).
	 */
	cap = a.scq->cqe + (it_backend(t->env) == IT_MLX5 ? 1 : 0);
	g = it_alloc(t, sizeof(*g));
	memset(g, 0xa5, sizeof(*g));
	/* The target: N slots of 64 bytes, poison on both sides. */
	lb = it_buf_new(t, N * 64, IT_ACCESS_ALL, seed);
	rb = it_buf_new(t, 4096 + N * 64 + 4096, IT_ACCESS_ALL, poison);
	if (!lb || !rb)
		return IT_FAIL;
	for (i = 0; i < N; i++)
		mk_wr(&wr[i], &sge[i], 0x5000 + i, IBV_WR_RDMA_WRITE, lb,
		      64 * i, 64, rb, 4096 + 64 * i);
	if (post_list(t, a.qp, wr, N))
		return IT_FAIL;

	it_where(t, "async events");
	deadline = it_now_ms() + t->env->timeout_ms;
	while (!cq_err && it_now_ms() < deadline) {
		r = async_next(t->env->ctx, &ev, 50);
		IT_EXPECT(t, r >= 0, "ibv_get_async_event: %s",
			  strerror(errno));
		if (r == 1 && ev.event_type == IBV_EVENT_CQ_ERR &&
		    ev.element.cq == a.scq)
			cq_err++;
		else if (r == 1)
			other++;
	}
	IT_EXPECT(t, cq_err,
		  "no IBV_EVENT_CQ_ERR for the overrun CQ after "
		  "%u ms (%d other events)",
		  t->env->timeout_ms, other);
	/* Further CQ_ERR events (one per lost CQE) are read and acked. */
	while ((r = async_next(t->env->ctx, &ev, t->env->quiet_ms)) == 1) {
		if (ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == a.scq)
			cq_err++;
		else
			other++;
	}

	it_where(t, "polling the overrun CQ");
	for (;;) {
		r = ibv_poll_cq(a.scq, EQ_MAX, g->wc);
		IT_EXPECT(t, guards_intact(g),
			  "ibv_poll_cq(%d) wrote outside "
			  "the array (returned %d)",
			  EQ_MAX, r);
		if (r <= 0)
			break;
		for (i = 0; i < r; i++) {
			uint64_t id = g->wc[i].wr_id;

			IT_EXPECT(t, id >= 0x5000 && id < 0x5000 + N,
				  "completion with wr_id 0x%llx, not one we "
				  "posted",
				  (unsigned long long)id);
			IT_EXPECT(t, !seen[id - 0x5000],
				  "wr_id 0x%llx "
				  "completed twice",
				  (unsigned long long)id);
			IT_EXPECT(t, g->wc[i].qp_num == a.qp->qp_num,
				  "wr_id 0x%llx: qp_num 0x%x",
				  (unsigned long long)id, g->wc[i].qp_num);
			seen[id - 0x5000] = 1;
		}
		got += r;
		IT_EXPECT(t, got <= cap, "%d completions from a CQ of %d", got,
			  a.scq->cqe);
	}
	IT_EXPECT(t, r == 0, "ibv_poll_cq returned %d", r);
	IT_EXPECT(t, got > 0, "the overrun CQ holds no completion");
	if (getenv("ITEST_ERRORS_VERBOSE")) {
		/* Is the CQ in error now (IBA), or does it go on (rxe)? */
		struct ibv_wc wc;
		enum ibv_qp_state qs = IBV_QPS_UNKNOWN;
		int n;

		mk_wr(&wr[0], &sge[0], 0x6000, IBV_WR_RDMA_WRITE, lb, 0, 64, rb,
		      4096);
		if (post_list(t, a.qp, wr, 1))
			return IT_FAIL;
		n = wait_some(a.scq, &wc, 1, t->env->timeout_ms);
		qp_state(t, a.qp, &qs);
		fprintf(stderr,
			"itest: errors: overrun: cqe %d, %d of %d "
			"completions kept, %d CQ_ERR events, %d others; a "
			"write afterwards: %s; QP state %d\n",
			a.scq->cqe, got, N, cq_err, other,
			n == 1 ? ibv_wc_status_str(wc.status) : "no completion",
			qs);
	}
	it_where(t, "memory");
	IT_EXPECT(t, guards_intact(g),
		  "guard entries around the wc array "
		  "changed");
	/* Every write was executed (the CQE, not the data, is lost). */
	if (it_verify_eventually(t, rb->addr + 4096, N * 64, seed, 0,
				 "written bytes") ||
	    it_verify(t, rb->addr, 4096, poison, 0,
		      "memory before the "
		      "target") ||
	    it_verify(t, rb->addr + 4096 + N * 64, 4096, poison, 4096 + N * 64,
		      "memory after the target"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return 0;
}

const struct it_case it_cases_errors[] = {
	{ "error_rc_remote_access_bad_rkey_flushes_rest_exactly_once",
	  rc_remote_access_error_flushes_rest_once, 0 },
	{ "error_rc_remote_access_past_mr_end_flushes_rest_exactly_once",
	  rc_remote_access_error_flushes_rest_once, 1 },
	{ "error_rc_rnr_retry_exceeded_flushes_rest_exactly_once",
	  rc_rnr_retry_exceeded_flushes_rest_once, 0 },
	{ "error_rc_local_length_flushes_rest_exactly_once",
	  rc_local_length_error_flushes_rest_once, 0 },
	{ "error_rc_modify_to_err_flushes_everything_exactly_once",
	  rc_modify_to_err_flushes_everything_once, 0 },
	{ "error_rc_destroy_with_unflushed_receives_leaves_cq_quiet",
	  rc_destroy_with_unflushed_receives, 0 },
	{ "error_cq_overrun_raises_cq_err_and_corrupts_nothing",
	  cq_overrun_raises_cq_err_and_corrupts_nothing, 0 },
	{ NULL, NULL, 0 },
};
