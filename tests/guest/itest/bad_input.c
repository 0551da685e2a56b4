// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Bad input to post_send/post_recv/post_srq_recv: the positive errno, *bad_wr
 * at the first WR not posted, the WRs before it posted and completed,
 * nothing posted for the bad one, and the QP still working afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *errname(int ret)
{
	static char buf[32];

	switch (ret) {
	case 0:
		return "0";
	case EINVAL:
		return "EINVAL";
	case ENOMEM:
		return "ENOMEM";
	default:
		snprintf(buf, sizeof(buf), "%d", ret);
		return buf;
	}
}

/* Where *bad_wr points, for a message: index in @list or something else. */
static const char *which(const void *bad, const void *list, size_t size, int n)
{
	static char buf[48];
	int i;

	if (!bad)
		return "NULL";
	for (i = 0; i < n; i++)
		if (bad == (const char *)list + i * size) {
			snprintf(buf, sizeof(buf), "WR %d", i);
			return buf;
		}
	return "not a WR of the list";
}

#define EXPECT_POST(t, ret, err, bad, list, n, idx)                            \
	do {                                                                   \
		IT_EXPECT(t, (ret) == (err), "returned %s, expected %s",       \
			  errname(ret), errname(err));                         \
		IT_EXPECT(t, (void *)(bad) == (void *)&(list)[idx],            \
			  "*bad_wr is %s, expected WR %d",                     \
			  which(bad, list, sizeof((list)[0]), n), idx);        \
	} while (0)

static int quiet_both(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	if (it_quiet(t, a->scq, "sender CQ (nothing for the rejected WR)") ||
	    it_quiet(t, b->rcq, "receiver CQ (nothing for the rejected WR)"))
		return IT_FAIL;
	return 0;
}

/*
 * Post [good SEND, @bad] on a; the good one must arrive at b, the bad one
 * must be refused with @err; then the pair must still work.
 */
static int good_then_bad(struct it_test *t, struct it_ep *a, struct it_ep *b,
			 struct ibv_send_wr *bad, int err)
{
	uint32_t hdr = b->type == IBV_QPT_UD ? IT_GRH : 0;
	uint64_t poison = it_seed(t, 1), seed = it_seed(t, 2);
	struct ibv_send_wr wr[2], *bad_wr = NULL;
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_buf *sb, *rb;
	int ret;

	sb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, hdr + 256, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || it_post_recv(t, b->qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	it_fill(sb->addr, 100, seed, 0);
	it_wr(&wr[0], &sge, 1, IBV_WR_SEND, sb, 0, 100);
	it_wr_dest(&wr[0], a, b);
	wr[1] = *bad;
	wr[0].next = &wr[1];
	wr[1].next = NULL;
	ret = ibv_post_send(a->qp, wr, &bad_wr);
	EXPECT_POST(t, ret, err, bad_wr, wr, 2, 1);

	it_where(t, "the good WR before the bad one");
	e = it_exp_send(1, IBV_WC_SEND, a->qp);
	if (it_expect_wc(t, a->scq, &e, "send completion"))
		return IT_FAIL;
	e = it_exp_recv(100, IBV_WC_RECV, b->qp, hdr + 100);
	if (hdr) {
		e.grh = 1;
		e.src_qp = a->qp->qp_num;
	}
	if (it_expect_wc(t, b->rcq, &e, "receive completion") ||
	    it_verify(t, rb->addr + hdr, 100, seed, 0, "received bytes") ||
	    quiet_both(t, a, b))
		return IT_FAIL;
	return it_pair_still_works(t, a, b, 3, 101, 9);
}

static int pair_of(struct it_test *t, enum ibv_qp_type type, struct it_ep *a,
		   struct it_ep *b)
{
	struct it_qp_attr attr = it_qp_defaults(type);

	return it_pair(t, a, b, &attr);
}

/* A WR of @opcode with one valid 64-byte SGE, aimed at a valid window. */
static int opcode_wr(struct it_test *t, struct ibv_send_wr *wr,
		     struct ibv_sge *sge, struct it_ep *a, struct it_ep *b,
		     int opcode)
{
	struct it_buf *lb = it_buf_new(t, 64, IT_ACCESS_ALL, 0);
	struct it_buf *rb = it_buf_new(t, 64, IT_ACCESS_ALL, 0);

	if (!lb || !rb)
		return IT_FAIL;
	it_wr(wr, sge, 2, IBV_WR_SEND, lb, 0, 8);
	wr->opcode = (enum ibv_wr_opcode)opcode;
	if (a->type == IBV_QPT_UD) {
		it_wr_dest(wr, a, b);
	} else if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		   opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr->wr.atomic.remote_addr = (uintptr_t)rb->addr;
		wr->wr.atomic.rkey = rb->mr->rkey;
	} else {
		it_wr_rdma(wr, rb, 0);
	}
	return 0;
}

/*
 * Opcode @arg & 0xffff on a QP of type @arg >> 16 is refused: EINVAL, or
 * EOPNOTSUPP for 14 and 15.
 */
static int post_send_bad_opcode(struct it_test *t, long arg)
{
	enum ibv_qp_type type = arg >> 16;
	int op = arg & 0xffff;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_ep a, b;

	if (pair_of(t, type, &a, &b) || opcode_wr(t, &wr, &sge, &a, &b, op))
		return IT_FAIL;
	/*
	 * ATOMIC WRITE (15) and FLUSH (14) have no ibv_send_wr form: rxe
	 * runs them through ibv_wr_* only (features.c), a ConnectX not at all.
	 */
	return good_then_bad(t, &a, &b, &wr,
			     op == 14 || op == 15 ? EOPNOTSUPP : EINVAL);
}

#define OPC(type, op) (((long)(type) << 16) | (op))

/* One SGE more than the QP's max_send_sge. */
static int post_send_num_sge_above_cap(struct it_test *t, long arg)
{
	struct ibv_send_wr wr;
	struct ibv_sge *sge;
	struct it_buf *lb;
	struct it_ep a, b;
	uint32_t i, n;

	if (pair_of(t, IBV_QPT_RC, &a, &b))
		return IT_FAIL;
	n = a.cap.max_send_sge + 1;
	sge = it_alloc(t, n * sizeof(*sge));
	lb = it_buf_new(t, n, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!lb)
		return IT_FAIL;
	it_wr(&wr, sge, 2, IBV_WR_SEND, lb, 0, 1);
	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)(lb->addr + i);
		sge[i].length = 1;
		sge[i].lkey = lb->mr->lkey;
	}
	wr.num_sge = n;
	return good_then_bad(t, &a, &b, &wr, it_send_refusal(t->env));
}

/* One inline byte more than the QP's max_inline_data. */
static int post_send_inline_above_cap(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_ep a, b;
	uint8_t *src;

	attr.inline_data = 64;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	src = it_alloc(t, a.cap.max_inline_data + 1);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)src;
	sge.length = a.cap.max_inline_data + 1;
	sge.lkey = 0;
	wr.wr_id = 2;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	return good_then_bad(t, &a, &b, &wr, it_send_refusal(t->env));
}

/* A fetch-and-add at a remote address that is not 8-byte aligned. */
static int post_send_atomic_unaligned(struct it_test *t, long arg)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_ep a, b;

	if (pair_of(t, IBV_QPT_RC, &a, &b) ||
	    opcode_wr(t, &wr, &sge, &a, &b, IBV_WR_ATOMIC_FETCH_AND_ADD))
		return IT_FAIL;
	wr.wr.atomic.remote_addr += 4;
	return good_then_bad(t, &a, &b, &wr, EINVAL);
}

/* [good, good, bad, good]: two posted and completed, the rest not. */
static int post_send_list_good_good_bad_good(struct it_test *t, long arg)
{
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr wr[4], *bad = NULL;
	struct ibv_sge sge[4], many[8];
	struct ibv_wc wc[2];
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int i, ret;

	if (pair_of(t, IBV_QPT_RC, &a, &b))
		return IT_FAIL;
	IT_EXPECT(t, a.cap.max_send_sge < 8,
		  "max_send_sge %u, the test "
		  "needs it below 8",
		  a.cap.max_send_sge);
	sb = it_buf_new(t, 4 * 256, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, 2 * 256, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < 2; i++)
		if (it_post_recv(t, b.qp, 100 + i, rb, 256 * i, 256))
			return IT_FAIL;
	for (i = 0; i < 4; i++) {
		it_fill(sb->addr + 256 * i, 50 + i, it_seed(t, 10 + i), 0);
		it_wr(&wr[i], &sge[i], 1 + i, IBV_WR_SEND, sb, 256 * i, 50 + i);
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	for (i = 0; i < 8; i++)
		many[i] = sge[2];
	wr[2].sg_list = many;
	wr[2].num_sge = a.cap.max_send_sge + 1;
	ret = ibv_post_send(a.qp, wr, &bad);
	EXPECT_POST(t, ret, it_send_refusal(t->env), bad, wr, 4, 2);
	if (it_poll(t, a.scq, wc, 2, "send completions"))
		return IT_FAIL;
	for (i = 0; i < 2; i++) {
		struct it_wc_exp e = it_exp_send(1 + i, IBV_WC_SEND, a.qp);

		it_where(t, "WR %d", i);
		if (it_check_wc(t, &wc[i], &e, "send completion"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_poll(t, b.rcq, wc, 2, "receive completions"))
		return IT_FAIL;
	for (i = 0; i < 2; i++) {
		struct it_wc_exp e =
			it_exp_recv(100 + i, IBV_WC_RECV, b.qp, 50 + i);

		it_where(t, "WR %d", i);
		if (it_check_wc(t, &wc[i], &e, "receive completion") ||
		    it_verify(t, rb->addr + 256 * i, 50 + i, it_seed(t, 10 + i),
			      0, "received bytes"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (quiet_both(t, &a, &b))
		return IT_FAIL;
	return it_pair_still_works(t, &a, &b, 7, 107, 9);
}

/* A list longer than the SQ: what fits is posted, the rest ENOMEM. */
static int post_send_full_sq_returns_ENOMEM(struct it_test *t, long arg)
{
	enum { N = 256 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_send_wr *wr = it_alloc(t, N * sizeof(*wr)), *bad = NULL;
	struct ibv_sge *sge = it_alloc(t, N * sizeof(*sge));
	struct ibv_wc *wc = it_alloc(t, N * sizeof(*wc));
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int i, k, ret;

	attr.send_wr = 16;
	attr.cqe = 2 * N;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	sb = it_buf_new(t, 8 * N, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, 8 * N, IT_ACCESS_ALL, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < N; i++) {
		it_wr(&wr[i], &sge[i], i, IBV_WR_RDMA_WRITE, sb, 8 * i, 8);
		it_wr_rdma(&wr[i], rb, 8 * i);
		wr[i].next = i < N - 1 ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_send(a.qp, wr, &bad);
	IT_EXPECT(t, ret == ENOMEM,
		  "a list of %d on a %u-deep SQ returned "
		  "%s, expected ENOMEM",
		  N, a.cap.max_send_wr, errname(ret));
	k = bad ? (int)(bad - wr) : -1;
	IT_EXPECT(t, k >= (int)a.cap.max_send_wr && k < N,
		  "*bad_wr is %s; max_send_wr is %u",
		  which(bad, wr, sizeof(*wr), N), a.cap.max_send_wr);
	it_where(t, "the %d posted", k);
	if (it_poll(t, a.scq, wc, k, "completions"))
		return IT_FAIL;
	for (i = 0; i < k; i++) {
		struct it_wc_exp e = it_exp_send(i, IBV_WC_RDMA_WRITE, a.qp);

		if (it_check_wc(t, &wc[i], &e, "completion"))
			return IT_FAIL;
	}
	if (it_verify(t, rb->addr, 8 * k, seed, 0, "written bytes") ||
	    it_verify(t, rb->addr + 8 * k, 8 * (N - k), poison, 8 * k,
		      "bytes of the WRs not posted") ||
	    quiet_both(t, &a, &b))
		return IT_FAIL;
	return it_pair_still_works(t, &a, &b, 1000, 100, 9);
}

/* Build a list of @n receives (@first...), one slot of @rb each. */
static void recv_list(struct ibv_recv_wr *wr, struct ibv_sge *sge, int n,
		      uint64_t first, struct it_buf *rb, uint32_t slot)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)(rb->addr + slot * i);
		sge[i].length = slot;
		sge[i].lkey = rb->mr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = first + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i < n - 1 ? &wr[i + 1] : NULL;
	}
}

/* ibv_post_srq_recv on @srq if there is one, else ibv_post_recv on @qp. */
static int post_rq(struct ibv_qp *qp, struct ibv_srq *srq,
		   struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	*bad = NULL;
	return srq ? ibv_post_srq_recv(srq, wr, bad)
		   : ibv_post_recv(qp, wr, bad);
}

/* Send @n messages a -> b one by one; receives @first... in slots of rb. */
static int send_n(struct it_test *t, struct it_ep *a, struct it_ep *b, int n,
		  uint64_t first, struct it_buf *rb, uint32_t slot)
{
	struct it_buf *sb = it_buf_new(t, slot, IBV_ACCESS_LOCAL_WRITE, 0);
	int i;

	if (!sb)
		return IT_FAIL;
	for (i = 0; i < n; i++) {
		uint32_t len = 1 + (17 * i) % slot;
		uint64_t seed = it_seed(t, 1000 + i);
		struct ibv_send_wr wr;
		struct ibv_sge sge;
		struct it_wc_exp e;

		it_where(t, "message %d", i);
		it_fill(sb->addr, len, seed, 0);
		it_wr(&wr, &sge, 5000 + i, IBV_WR_SEND, sb, 0, len);
		if (it_post_send(t, a->qp, &wr))
			return IT_FAIL;
		e = it_exp_send(5000 + i, IBV_WC_SEND, a->qp);
		if (it_expect_wc(t, a->scq, &e, "send completion"))
			return IT_FAIL;
		e = it_exp_recv(first + i, IBV_WC_RECV, b->qp, len);
		if (it_expect_wc(t, b->rcq, &e, "receive completion") ||
		    it_verify(t, rb->addr + slot * i, len, seed, 0,
			      "received bytes"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return 0;
}

/* A receive list longer than the RQ (or SRQ): what fits, then ENOMEM. */
static int post_recv_full_returns_ENOMEM(struct it_test *t, long use_srq)
{
	enum { N = 256, SLOT = 64 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_recv_wr *wr = it_alloc(t, N * sizeof(*wr)), *bad, one;
	struct ibv_sge *sge = it_alloc(t, N * sizeof(*sge));
	struct ibv_srq_attr sa = { 0 };
	struct ibv_srq *srq = NULL;
	struct it_buf *rb;
	struct it_ep a, b;
	uint32_t depth;
	int k, ret;

	if (use_srq) {
		srq = it_srq_new(t, 16, 1, &sa);
		if (!srq)
			return IT_FAIL;
	}
	attr.recv_wr = 16;
	if (it_ep_new(t, &a, &attr))
		return IT_FAIL;
	attr.srq = srq;
	if (it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	depth = srq ? sa.max_wr : b.cap.max_recv_wr;
	rb = it_buf_new(t, N * SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!rb)
		return IT_FAIL;
	recv_list(wr, sge, N, 0, rb, SLOT);
	ret = post_rq(b.qp, srq, wr, &bad);
	IT_EXPECT(t, ret == ENOMEM,
		  "a list of %d on a %u-deep queue returned "
		  "%s, expected ENOMEM",
		  N, depth, errname(ret));
	k = bad ? (int)(bad - wr) : -1;
	IT_EXPECT(t, k >= (int)depth && k < N,
		  "*bad_wr is %s; the queue depth is %u",
		  which(bad, wr, sizeof(*wr), N), depth);

	it_where(t, "a single receive on the full queue");
	recv_list(&one, sge, 1, 9999, rb, SLOT);
	ret = post_rq(b.qp, srq, &one, &bad);
	IT_EXPECT(t, ret == ENOMEM && bad == &one,
		  "returned %s with *bad_wr "
		  "%s, expected ENOMEM and the WR",
		  errname(ret), bad == &one ? "the WR" : "something else");
	it_where(t, "%s", "");
	if (send_n(t, &a, &b, k, 0, rb, SLOT) || quiet_both(t, &a, &b))
		return IT_FAIL;
	if (!srq)
		return it_pair_still_works(t, &a, &b, 3000, 3000, 9);
	/* The SRQ is empty now: one more receive, one more message. */
	recv_list(wr, sge, 1, 3000, rb, SLOT);
	ret = post_rq(b.qp, srq, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_srq_recv after draining returned %s",
		  errname(ret));
	if (send_n(t, &a, &b, 1, 3000, rb, SLOT))
		return IT_FAIL;
	return quiet_both(t, &a, &b);
}

/* [good, bad (num_sge above the cap), good, ...] receive lists. */
static int post_recv_num_sge_above_cap(struct it_test *t, long use_srq)
{
	enum { SLOT = 256 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_recv_wr wr[4], *bad;
	struct ibv_sge sge[4], many[64];
	struct ibv_srq_attr sa = { 0 };
	struct ibv_srq *srq = NULL;
	struct it_buf *rb;
	struct it_ep a, b;
	uint32_t max;
	int i, ret;

	if (use_srq) {
		srq = it_srq_new(t, 64, 2, &sa);
		if (!srq)
			return IT_FAIL;
	}
	if (it_ep_new(t, &a, &attr))
		return IT_FAIL;
	attr.srq = srq;
	if (it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	max = srq ? sa.max_sge : b.cap.max_recv_sge;
	IT_EXPECT(t, max < 64, "max_sge %u, the test needs it below 64", max);
	rb = it_buf_new(t, 4 * SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!rb)
		return IT_FAIL;
	/* [good 0, good 1, bad 2, good 3]: only 0 and 1 may be posted. */
	recv_list(wr, sge, 4, 0, rb, SLOT);
	for (i = 0; i < 64; i++)
		many[i] = sge[2];
	wr[2].sg_list = many;
	wr[2].num_sge = max + 1;
	ret = post_rq(b.qp, srq, wr, &bad);
	EXPECT_POST(t, ret, EINVAL, bad, wr, 4, 2);
	if (send_n(t, &a, &b, 2, 0, rb, SLOT) || quiet_both(t, &a, &b))
		return IT_FAIL;
	if (!srq)
		return it_pair_still_works(t, &a, &b, 3000, 3000, 9);
	recv_list(wr, sge, 1, 3000, rb, SLOT);
	ret = post_rq(b.qp, srq, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_srq_recv afterwards returned %s",
		  errname(ret));
	if (send_n(t, &a, &b, 1, 3000, rb, SLOT))
		return IT_FAIL;
	return quiet_both(t, &a, &b);
}

/*
 * A send on a QP in RESET, INIT or RTR is refused (it_send_refusal) and leaves
 * nothing behind: once in RTS, only new WRs are executed.
 */
static int post_send_before_rts(struct it_test *t, long state)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_send_wr wr[1], *bad = NULL;
	struct ibv_sge sge;
	struct it_buf *sb;
	struct it_ep a, b;
	int s, ret;

	if (it_ep_new(t, &a, &attr) || it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	if (state != IBV_QPS_RESET &&
	    it_ep_bring_up(t, &a, state, b.qp->qp_num))
		return IT_FAIL;
	sb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!sb)
		return IT_FAIL;
	it_wr(&wr[0], &sge, 1, IBV_WR_SEND, sb, 0, 64);
	ret = ibv_post_send(a.qp, wr, &bad);
	EXPECT_POST(t, ret, it_send_refusal(t->env), bad, wr, 1, 0);
	for (s = state + 1; s <= IBV_QPS_RTS; s++)
		if (it_ep_modify(t, &a, s, b.qp->qp_num))
			return IT_FAIL;
	if (quiet_both(t, &a, &b))
		return IT_FAIL;
	return it_pair_still_works(t, &a, &b, 3, 101, 9);
}

/* A receive on a QP in RESET is refused with EINVAL and not kept. */
static int post_recv_in_reset(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_recv_wr wr[1], *bad;
	struct ibv_sge sge;
	struct it_buf *rb;
	struct it_ep a, b;
	int ret;

	if (it_ep_new(t, &a, &attr) || it_ep_new(t, &b, &attr))
		return IT_FAIL;
	rb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!rb)
		return IT_FAIL;
	recv_list(wr, &sge, 1, 1, rb, 256);
	ret = post_rq(a.qp, NULL, wr, &bad);
	EXPECT_POST(t, ret, EINVAL, bad, wr, 1, 0);
	if (it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	/* b sends to a: the message must land in the receive posted now. */
	return it_pair_still_works(t, &b, &a, 3, 101, 9);
}

const struct it_case it_cases_bad_input[] = {
	{ "post_send_opcode_0x20_reg_mr_returns_EINVAL_and_sets_bad_wr",
	  post_send_bad_opcode, OPC(IBV_QPT_RC, 0x20) },
	{ "post_send_opcode_200_returns_EINVAL_and_sets_bad_wr",
	  post_send_bad_opcode, OPC(IBV_QPT_RC, 200) },
	{ "post_send_atomic_write_returns_EOPNOTSUPP_and_sets_bad_wr",
	  post_send_bad_opcode, OPC(IBV_QPT_RC, IBV_WR_ATOMIC_WRITE) },
	{ "post_send_flush_returns_EOPNOTSUPP_and_sets_bad_wr",
	  post_send_bad_opcode, OPC(IBV_QPT_RC, 14) },
	{ "post_send_rdma_read_on_uc_returns_EINVAL", post_send_bad_opcode,
	  OPC(IBV_QPT_UC, IBV_WR_RDMA_READ) },
	{ "post_send_cmp_swap_on_uc_returns_EINVAL", post_send_bad_opcode,
	  OPC(IBV_QPT_UC, IBV_WR_ATOMIC_CMP_AND_SWP) },
	{ "post_send_rdma_write_on_ud_returns_EINVAL", post_send_bad_opcode,
	  OPC(IBV_QPT_UD, IBV_WR_RDMA_WRITE) },
	{ "post_send_rdma_read_on_ud_returns_EINVAL", post_send_bad_opcode,
	  OPC(IBV_QPT_UD, IBV_WR_RDMA_READ) },
	{ "post_send_atomic_unaligned_remote_addr_returns_EINVAL",
	  post_send_atomic_unaligned, 0 },
	{ "post_send_num_sge_above_cap_is_refused", post_send_num_sge_above_cap,
	  0 },
	{ "post_send_inline_above_cap_is_refused", post_send_inline_above_cap,
	  0 },
	{ "post_send_list_good_good_bad_good_posts_exactly_two",
	  post_send_list_good_good_bad_good, 0 },
	{ "post_send_full_sq_returns_ENOMEM_after_posting_what_fits",
	  post_send_full_sq_returns_ENOMEM, 0 },
	{ "post_recv_full_rq_returns_ENOMEM_after_posting_what_fits",
	  post_recv_full_returns_ENOMEM, 0 },
	{ "post_srq_recv_full_srq_returns_ENOMEM_after_posting_what_fits",
	  post_recv_full_returns_ENOMEM, 1 },
	{ "post_recv_num_sge_above_cap_returns_EINVAL",
	  post_recv_num_sge_above_cap, 0 },
	{ "post_srq_recv_num_sge_above_cap_returns_EINVAL",
	  post_recv_num_sge_above_cap, 1 },
	{ "post_send_in_reset_is_refused", post_send_before_rts,
	  IBV_QPS_RESET },
	{ "post_send_in_init_is_refused", post_send_before_rts, IBV_QPS_INIT },
	{ "post_send_in_rtr_is_refused", post_send_before_rts, IBV_QPS_RTR },
	{ "post_recv_in_reset_returns_EINVAL", post_recv_in_reset, 0 },
	{ NULL, NULL, 0 },
};
