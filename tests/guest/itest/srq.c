// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Shared receive queues. */
#include <string.h>

#include "harness.h"

enum { SRQ_SLOT = 2048 };

/* Post @n receives (wr_id @first + j, slot j of @rb, @nsge pieces each). */
static int post_srq_list(struct it_test *t, struct ibv_srq *srq,
			 struct it_buf *rb, int n, uint64_t first, int nsge)
{
	struct ibv_recv_wr *wr = it_alloc(t, n * sizeof(*wr)), *bad = NULL;
	struct ibv_sge *sge = it_alloc(t, n * nsge * sizeof(*sge));
	int j, k, ret;

	for (j = 0; j < n; j++) {
		uint32_t piece = SRQ_SLOT / nsge;

		for (k = 0; k < nsge; k++) {
			struct ibv_sge *s = &sge[j * nsge + k];

			s->addr = (uintptr_t)(rb->addr + SRQ_SLOT * j +
					      piece * k);
			s->length = piece;
			s->lkey = rb->mr->lkey;
		}
		wr[j].wr_id = first + j;
		wr[j].sg_list = &sge[j * nsge];
		wr[j].num_sge = nsge;
		wr[j].next = j < n - 1 ? &wr[j + 1] : NULL;
	}
	ret = ibv_post_srq_recv(srq, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_srq_recv of %d returned %d", n, ret);
	return 0;
}

/*
 * One QP on an SRQ, a list of 2-SGE receives posted at once: messages use
 * them in posting order and scatter across both pieces.
 */
static int srq_post_recv_list_is_consumed_in_order(struct it_test *t, long arg)
{
	enum { N = 12 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t poison = it_seed(t, 1);
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int i;

	srq = it_srq_new(t, 64, 2, &sa);
	if (!srq)
		return IT_FAIL;
	IT_EXPECT(t, sa.max_wr >= 64 && sa.max_sge >= 2,
		  "SRQ caps %u wr %u sge below the requested 64/2", sa.max_wr,
		  sa.max_sge);
	if (it_ep_new(t, &a, &attr))
		return IT_FAIL;
	attr.srq = srq;
	if (it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	sb = it_buf_new(t, SRQ_SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, N * SRQ_SLOT, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || post_srq_list(t, srq, rb, N, 500, 2))
		return IT_FAIL;
	for (i = 0; i < N; i++) {
		uint32_t len = 1 + 170 * i;
		uint64_t seed = it_seed(t, 10 + i);
		uint8_t *slot = rb->addr + SRQ_SLOT * i;
		struct ibv_send_wr wr;
		struct ibv_sge sge;
		struct it_wc_exp e;

		it_where(t, "message %d (%u bytes)", i, len);
		it_fill(sb->addr, len, seed, 0);
		it_wr(&wr, &sge, i, IBV_WR_SEND, sb, 0, len);
		if (it_post_send(t, a.qp, &wr))
			return IT_FAIL;
		e = it_exp_send(i, IBV_WC_SEND, a.qp);
		if (it_expect_wc(t, a.scq, &e, "send completion"))
			return IT_FAIL;
		e = it_exp_recv(500 + i, IBV_WC_RECV, b.qp, len);
		if (it_expect_wc(t, b.rcq, &e, "receive completion"))
			return IT_FAIL;
		if (it_verify(t, slot, len, seed, 0, "received bytes") ||
		    it_verify(t, slot + len, SRQ_SLOT - len, poison,
			      SRQ_SLOT * i + len, "rest of the slot"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_quiet(t, b.rcq, "receiver CQ") ||
	    it_quiet(t, a.scq, "sender CQ"))
		return IT_FAIL;
	return IT_PASS;
}

/*
 * Two QPs on one SRQ, messages to both interleaved: each message is
 * received exactly once, on the QP it was sent to, with its bytes.
 */
static int srq_shared_by_two_qps_delivers_each_message_once(struct it_test *t,
							    long arg)
{
	enum { N = 16, PER = N / 2 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr wr[N], *bad;
	struct ibv_sge sge[N];
	struct ibv_wc wc[N];
	bool seen[N] = { false };
	struct ibv_srq *srq;
	struct it_buf *sb, *rb;
	struct it_ep a[2], b[2];
	int i, k, ret;

	srq = it_srq_new(t, 64, 1, NULL);
	if (!srq)
		return IT_FAIL;
	for (k = 0; k < 2; k++) {
		attr.srq = NULL;
		if (it_ep_new(t, &a[k], &attr))
			return IT_FAIL;
		attr.srq = srq;
		if (it_ep_new(t, &b[k], &attr) ||
		    it_ep_bring_up(t, &a[k], IBV_QPS_RTS, b[k].qp->qp_num) ||
		    it_ep_bring_up(t, &b[k], IBV_QPS_RTS, a[k].qp->qp_num))
			return IT_FAIL;
	}
	sb = it_buf_new(t, N * SRQ_SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, N * SRQ_SLOT, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || post_srq_list(t, srq, rb, N, 700, 1))
		return IT_FAIL;
	/* Message i goes from a[i % 2] and is 100 + 97 * i bytes long. */
	for (i = 0; i < N; i++) {
		it_fill(sb->addr + SRQ_SLOT * i, 100 + 97 * i,
			it_seed(t, 10 + i), 0);
		it_wr(&wr[i], &sge[i], i, IBV_WR_SEND, sb, SRQ_SLOT * i,
		      100 + 97 * i);
	}
	for (i = 0; i < PER; i++) {
		for (k = 0; k < 2; k++) {
			ret = ibv_post_send(a[k].qp, &wr[2 * i + k], &bad);
			IT_EXPECT(t, !ret,
				  "ibv_post_send of message %d "
				  "returned %d",
				  2 * i + k, ret);
		}
	}
	for (k = 0; k < 2; k++) {
		it_where(t, "QP %d", k);
		if (it_poll(t, a[k].scq, wc, PER, "send completions"))
			return IT_FAIL;
		for (i = 0; i < PER; i++) {
			struct it_wc_exp e =
				it_exp_send(2 * i + k, IBV_WC_SEND, a[k].qp);

			if (it_check_wc(t, &wc[i], &e, "send completion"))
				return IT_FAIL;
		}
		if (it_poll(t, b[k].rcq, wc, PER, "receive completions"))
			return IT_FAIL;
		for (i = 0; i < PER; i++) {
			/* Which message it is shows in the length. */
			int m = ((int)wc[i].byte_len - 100) / 97;
			uint64_t j = wc[i].wr_id - 700;
			struct it_wc_exp e;

			IT_EXPECT(t,
				  m >= 0 && m < N && m % 2 == k &&
					  wc[i].byte_len == 100u + 97 * m,
				  "receive of %u bytes matches no message "
				  "sent to this QP",
				  wc[i].byte_len);
			e = it_exp_recv(wc[i].wr_id, IBV_WC_RECV, b[k].qp,
					100 + 97 * m);
			if (it_check_wc(t, &wc[i], &e, "receive completion"))
				return IT_FAIL;
			IT_EXPECT(t, j < N && !seen[j],
				  "receive wr_id %llu used twice or unknown",
				  (unsigned long long)wc[i].wr_id);
			seen[j] = true;
			if (it_verify(t, rb->addr + SRQ_SLOT * j, 100 + 97 * m,
				      it_seed(t, 10 + m), 0, "received bytes"))
				return IT_FAIL;
		}
		if (it_quiet(t, b[k].rcq, "receive CQ") ||
		    it_quiet(t, a[k].scq, "send CQ"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return IT_PASS;
}

const struct it_case it_cases_srq[] = {
	{ "srq_post_recv_list_is_consumed_in_order",
	  srq_post_recv_list_is_consumed_in_order, 0 },
	{ "srq_shared_by_two_qps_delivers_each_message_once",
	  srq_shared_by_two_qps_delivers_each_message_once, 0 },
	{ NULL, NULL, 0 },
};
