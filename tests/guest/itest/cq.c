// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: events on a channel (one CQ, several CQs, destroying a
 * CQ with events outstanding), resize, ring wrap-around.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "harness.h"

/* Wait up to @ms for the channel fd to become readable: 1, 0, or -1. */
static int channel_ready(struct ibv_comp_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	int ret;

	do {
		ret = poll(&p, 1, ms);
	} while (ret < 0 && errno == EINTR);
	return ret;
}

/* Read one event: it must name @cq; acknowledge it at once. */
static int get_event(struct it_test *t, struct ibv_comp_channel *ch,
		     struct ibv_cq *cq, const char *what)
{
	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx = NULL;
	int ret;

	ret = channel_ready(ch, t->env->timeout_ms);
	IT_EXPECT(t, ret == 1,
		  "%s: no event on the channel after %u ms "
		  "(poll %d)",
		  what, t->env->timeout_ms, ret);
	ret = ibv_get_cq_event(ch, &ev_cq, &ev_ctx);
	IT_EXPECT(t, !ret, "%s: ibv_get_cq_event returned %d (errno %d)", what,
		  ret, errno);
	ibv_ack_cq_events(ev_cq, 1);
	IT_EXPECT(t, ev_cq == cq, "%s: the event names CQ %p, expected %p",
		  what, (void *)ev_cq, (void *)cq);
	IT_EXPECT(t, ev_ctx == cq->cq_context,
		  "%s: event context %p, "
		  "expected %p",
		  what, ev_ctx, cq->cq_context);
	return 0;
}

static int no_event(struct it_test *t, struct ibv_comp_channel *ch,
		    const char *what)
{
	int ret = channel_ready(ch, t->env->quiet_ms);

	IT_EXPECT(t, ret == 0, "%s: the channel became readable (poll %d)",
		  what, ret);
	return 0;
}

/* Send @len bytes with @flags from a to b and check the receive. */
static int one_message(struct it_test *t, struct it_ep *a, struct it_ep *b,
		       struct it_buf *sb, struct it_buf *rb, uint64_t id,
		       unsigned int flags)
{
	uint64_t seed = it_seed(t, 100 + id);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp e;

	if (it_post_recv(t, b->qp, 100 + id, rb, 0, rb->len))
		return IT_FAIL;
	it_fill(sb->addr, 200, seed, 0);
	it_wr(&wr, &sge, id, IBV_WR_SEND, sb, 0, 200);
	wr.send_flags |= flags;
	if (it_post_send(t, a->qp, &wr))
		return IT_FAIL;
	e = it_exp_send(id, IBV_WC_SEND, a->qp);
	if (it_expect_wc(t, a->scq, &e, "send completion"))
		return IT_FAIL;
	return 0;
}

static int recv_done(struct it_test *t, struct it_ep *b, struct it_buf *rb,
		     uint64_t id)
{
	struct it_wc_exp e = it_exp_recv(100 + id, IBV_WC_RECV, b->qp, 200);

	if (it_expect_wc(t, b->rcq, &e, "receive completion") ||
	    it_verify(t, rb->addr, 200, it_seed(t, 100 + id), 0,
		      "received bytes"))
		return IT_FAIL;
	return 0;
}

/* A channel whose reads do not block: a missing event cannot hang a test. */
static struct ibv_comp_channel *nonblocking_channel(struct it_test *t)
{
	struct ibv_comp_channel *ch = it_channel_new(t);
	int fl;

	if (!ch)
		return NULL;
	fl = fcntl(ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK)) {
		it_fail(t, "fcntl(O_NONBLOCK) on the channel: %s",
			strerror(errno));
		return NULL;
	}
	return ch;
}

static int channel_pair(struct it_test *t, struct it_ep *a, struct it_ep *b,
			struct ibv_comp_channel **ch, struct it_buf **sb,
			struct it_buf **rb)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);

	*ch = nonblocking_channel(t);
	if (!*ch)
		return IT_FAIL;
	attr.channel = *ch;
	if (it_pair(t, a, b, &attr))
		return IT_FAIL;
	*sb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	*rb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!*sb || !*rb)
		return IT_FAIL;
	return 0;
}

/*
 * No event before arming; one event per arming (naming the CQ), then
 * nothing until armed again.
 */
static int comp_channel_delivers_one_event_per_req_notify(struct it_test *t,
							  long arg)
{
	struct ibv_comp_channel *ch;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int ret;

	if (channel_pair(t, &a, &b, &ch, &sb, &rb))
		return IT_FAIL;

	it_where(t, "not armed");
	if (one_message(t, &a, &b, sb, rb, 1, 0) || recv_done(t, &b, rb, 1) ||
	    no_event(t, ch, "completion without req_notify"))
		return IT_FAIL;

	it_where(t, "armed");
	ret = ibv_req_notify_cq(b.rcq, 0);
	IT_EXPECT(t, !ret, "ibv_req_notify_cq returned %d", ret);
	if (one_message(t, &a, &b, sb, rb, 2, 0) ||
	    get_event(t, ch, b.rcq, "completion after req_notify") ||
	    recv_done(t, &b, rb, 2))
		return IT_FAIL;

	it_where(t, "after the event, not re-armed");
	if (one_message(t, &a, &b, sb, rb, 3, 0) || recv_done(t, &b, rb, 3) ||
	    no_event(t, ch, "second completion"))
		return IT_FAIL;

	it_where(t, "re-armed");
	ret = ibv_req_notify_cq(b.rcq, 0);
	IT_EXPECT(t, !ret, "ibv_req_notify_cq returned %d", ret);
	if (one_message(t, &a, &b, sb, rb, 4, 0) ||
	    get_event(t, ch, b.rcq, "completion after re-arming") ||
	    recv_done(t, &b, rb, 4))
		return IT_FAIL;
	it_where(t, "%s", "");
	return it_quiet(t, b.rcq, "receiver CQ");
}

/* Armed for solicited only: a plain send does not wake, a solicited does. */
static int comp_channel_solicited_only_wakes_on_solicited(struct it_test *t,
							  long arg)
{
	struct ibv_comp_channel *ch;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int ret;

	if (channel_pair(t, &a, &b, &ch, &sb, &rb))
		return IT_FAIL;
	ret = ibv_req_notify_cq(b.rcq, 1);
	IT_EXPECT(t, !ret, "ibv_req_notify_cq(solicited) returned %d", ret);
	it_where(t, "unsolicited send");
	if (one_message(t, &a, &b, sb, rb, 1, 0) || recv_done(t, &b, rb, 1) ||
	    no_event(t, ch, "unsolicited completion"))
		return IT_FAIL;
	it_where(t, "solicited send");
	if (one_message(t, &a, &b, sb, rb, 2, IBV_SEND_SOLICITED) ||
	    get_event(t, ch, b.rcq, "solicited completion") ||
	    recv_done(t, &b, rb, 2))
		return IT_FAIL;
	it_where(t, "%s", "");
	return it_quiet(t, b.rcq, "receiver CQ");
}

enum { MC_PAIRS = 3 };

/* Several receive CQs on one channel, each with its own cq_context. */
struct multi_cq {
	struct ibv_comp_channel *ch;
	struct it_ep a[MC_PAIRS], b[MC_PAIRS];
	struct ibv_cq *cq[MC_PAIRS];
	struct it_buf *sb, *rb[MC_PAIRS];
	char ctx[MC_PAIRS]; /* the cq_context of CQ i is &ctx[i] */
};

static int multi_cq_new(struct it_test *t, struct multi_cq *m)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	int i;

	m->ch = nonblocking_channel(t);
	if (!m->ch)
		return IT_FAIL;
	attr.channel = m->ch;
	m->sb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!m->sb)
		return IT_FAIL;
	for (i = 0; i < MC_PAIRS; i++) {
		if (it_pair(t, &m->a[i], &m->b[i], &attr))
			return IT_FAIL;
		m->rb[i] = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
		if (!m->rb[i])
			return IT_FAIL;
		m->cq[i] = m->b[i].rcq;
		m->cq[i]->cq_context = &m->ctx[i];
	}
	return 0;
}

/* One message into each CQ (ids @id, @id + 1, ...), every byte checked. */
static int multi_cq_messages(struct it_test *t, struct multi_cq *m, uint64_t id)
{
	int i;

	for (i = 0; i < MC_PAIRS; i++)
		if (one_message(t, &m->a[i], &m->b[i], m->sb, m->rb[i], id + i,
				0) ||
		    recv_done(t, &m->b[i], m->rb[i], id + i))
			return IT_FAIL;
	return 0;
}

/*
 * Read events, unacknowledged, until @want[i] arrived for each CQ i (each
 * naming one of the channel's CQs and its cq_context), then wait the quiet
 * period for any more.
 */
static int multi_cq_events(struct it_test *t, struct multi_cq *m,
			   const int *want)
{
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	int got[MC_PAIRS] = { 0 }, n = 0, total = 0, i;

	for (i = 0; i < MC_PAIRS; i++)
		total += want[i];
	while (n < total) {
		struct ibv_cq *ev_cq = NULL;
		void *ev_ctx = NULL;
		uint64_t now = it_now_ms();

		IT_EXPECT(t, now < deadline,
			  "%d of %d events after %u ms (per CQ: %d %d %d)", n,
			  total, t->env->timeout_ms, got[0], got[1], got[2]);
		if (channel_ready(m->ch, (int)(deadline - now)) != 1)
			continue;
		if (ibv_get_cq_event(m->ch, &ev_cq, &ev_ctx)) {
			IT_EXPECT(t, errno == EAGAIN,
				  "ibv_get_cq_event: %s after %d events",
				  strerror(errno), n);
			continue;
		}
		for (i = 0; i < MC_PAIRS && ev_cq != m->cq[i]; i++)
			;
		IT_EXPECT(t, i < MC_PAIRS,
			  "event %d names CQ %p, none of the channel's", n,
			  (void *)ev_cq);
		IT_EXPECT(t, ev_ctx == &m->ctx[i],
			  "event %d for CQ %d: context %p, expected %p", n, i,
			  ev_ctx, (void *)&m->ctx[i]);
		got[i]++;
		IT_EXPECT(t, got[i] <= want[i],
			  "CQ %d: event %d, expected %d (armed %s)", i, got[i],
			  want[i], want[i] ? "once" : "never");
		n++;
	}
	return no_event(t, m->ch, "after the expected events");
}

/* CQ i has @done[i] events acknowledged, as libibverbs counts them. */
static int multi_cq_acked(struct it_test *t, struct multi_cq *m,
			  const unsigned int *done)
{
	int i;

	for (i = 0; i < MC_PAIRS; i++)
		IT_EXPECT(t, m->cq[i]->comp_events_completed == done[i],
			  "CQ %d: comp_events_completed %u, expected %u", i,
			  m->cq[i]->comp_events_completed, done[i]);
	return 0;
}

static int arm(struct it_test *t, struct ibv_cq *cq, const char *what)
{
	int ret = ibv_req_notify_cq(cq, 0);

	IT_EXPECT(t, !ret, "ibv_req_notify_cq(%s) returned %d", what, ret);
	return 0;
}

/*
 * Three CQs on one channel: an event comes for each armed CQ that got a
 * completion (one per arming, even when armed twice), naming that CQ and
 * its context, and none for the unarmed one; acknowledgements count per
 * CQ, one at a time or several in one call; destroying the CQs (cleanup)
 * does not block, since every event read was acknowledged.
 */
static int
comp_channel_serves_several_cqs_one_event_per_armed_cq(struct it_test *t,
						       long arg)
{
	static const int first[] = { 1, 1, 0 }, all[] = { 1, 1, 1 },
			 only0[] = { 1, 0, 0 };
	static const unsigned int acked0[] = { 0, 0, 0 },
				  acked1[] = { 1, 1, 0 },
				  acked2[] = { 2, 2, 1 },
				  acked3[] = { 4, 2, 1 };
	struct multi_cq m;
	int i;

	if (multi_cq_new(t, &m))
		return IT_FAIL;

	it_where(t, "CQ 0 armed twice, CQ 1 once, CQ 2 not");
	if (arm(t, m.cq[0], "CQ 0") || arm(t, m.cq[0], "CQ 0 again") ||
	    arm(t, m.cq[1], "CQ 1") || multi_cq_messages(t, &m, 10) ||
	    multi_cq_events(t, &m, first) || multi_cq_acked(t, &m, acked0))
		return IT_FAIL;
	ibv_ack_cq_events(m.cq[0], 1);
	ibv_ack_cq_events(m.cq[1], 1);
	if (multi_cq_acked(t, &m, acked1))
		return IT_FAIL;

	it_where(t, "all three armed");
	for (i = 0; i < MC_PAIRS; i++)
		if (arm(t, m.cq[i], "each CQ"))
			return IT_FAIL;
	if (multi_cq_messages(t, &m, 20) || multi_cq_events(t, &m, all))
		return IT_FAIL;
	for (i = 0; i < MC_PAIRS; i++)
		ibv_ack_cq_events(m.cq[i], 1);
	if (multi_cq_acked(t, &m, acked2))
		return IT_FAIL;

	it_where(t, "two events on CQ 0, acknowledged in one call");
	for (i = 0; i < 2; i++)
		if (arm(t, m.cq[0], "CQ 0") ||
		    one_message(t, &m.a[0], &m.b[0], m.sb, m.rb[0], 30 + i,
				0) ||
		    recv_done(t, &m.b[0], m.rb[0], 30 + i) ||
		    multi_cq_events(t, &m, only0))
			return IT_FAIL;
	ibv_ack_cq_events(m.cq[0], 2);
	if (multi_cq_acked(t, &m, acked3))
		return IT_FAIL;

	it_where(t, "no traffic");
	for (i = 0; i < MC_PAIRS; i++)
		if (it_quiet(t, m.cq[i], "receiver CQ"))
			return IT_FAIL;
	it_where(t, "%s", "");
	return no_event(t, m.ch, "quiet channel");
}

/* ibv_destroy_cq in a second thread, so that the test can see it block. */
struct cq_destroyer {
	pthread_t thread;
	struct ibv_cq *cq;
	int ret, err;
	atomic_int done;
};

static void *cq_destroyer_run(void *arg)
{
	struct cq_destroyer *d = arg;

	d->ret = ibv_destroy_cq(d->cq);
	d->err = errno;
	atomic_store(&d->done, 1);
	return NULL;
}

/* Wait up to @ms for the destroyer to finish: 1 (joined) or 0. */
static int cq_destroyer_wait(struct cq_destroyer *d, unsigned int ms)
{
	uint64_t deadline = it_now_ms() + ms;

	while (!atomic_load(&d->done) && it_now_ms() < deadline)
		it_pause();
	if (!atomic_load(&d->done))
		return 0;
	pthread_join(d->thread, NULL);
	return 1;
}

/*
 * An event on @b's receive CQ: armed, one message, the channel readable.
 * Then both QPs and @a's receive CQ (never armed, also on the channel) are
 * destroyed, so that @b's receive CQ is the only one left on the channel;
 * it is the test's to destroy (no longer tracked).
 */
static int event_then_lone_cq(struct it_test *t, struct it_ep *a,
			      struct it_ep *b, struct ibv_comp_channel **ch)
{
	struct it_buf *sb, *rb;
	int ret;

	if (channel_pair(t, a, b, ch, &sb, &rb) ||
	    arm(t, b->rcq, "receiver CQ") ||
	    one_message(t, a, b, sb, rb, 1, 0) || recv_done(t, b, rb, 1))
		return IT_FAIL;
	IT_EXPECT(t, channel_ready(*ch, t->env->timeout_ms) == 1,
		  "no event on the channel after %u ms", t->env->timeout_ms);
	it_forget(t, a->qp);
	ret = ibv_destroy_qp(a->qp);
	IT_EXPECT(t, !ret, "ibv_destroy_qp (sender) returned %d", ret);
	it_forget(t, b->qp);
	ret = ibv_destroy_qp(b->qp);
	IT_EXPECT(t, !ret, "ibv_destroy_qp (receiver) returned %d", ret);
	it_forget(t, a->rcq);
	ret = ibv_destroy_cq(a->rcq);
	IT_EXPECT(t, !ret, "ibv_destroy_cq (the sender's unarmed) returned %d",
		  ret);
	it_forget(t, b->rcq);
	return 0;
}

/*
 * ibv_destroy_cq with an event read but not acknowledged waits for the
 * acknowledgement (libibverbs compares comp_events_completed with the
 * count the kernel reports); meanwhile the channel is busy.  After
 * ibv_ack_cq_events it returns 0 and the channel can be destroyed.
 */
static int destroy_cq_waits_until_its_events_are_acked(struct it_test *t,
						       long arg)
{
	struct cq_destroyer d = { 0 };
	struct ibv_comp_channel *ch;
	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx = NULL;
	struct it_ep a, b;
	int ret, ch_ret;

	if (event_then_lone_cq(t, &a, &b, &ch))
		return IT_FAIL;
	ret = ibv_get_cq_event(ch, &ev_cq, &ev_ctx);
	IT_EXPECT(t, !ret && ev_cq == b.rcq,
		  "ibv_get_cq_event returned %d, CQ %p, expected %p", ret,
		  (void *)ev_cq, (void *)b.rcq);

	it_where(t, "destroy with the event unacknowledged");
	d.cq = b.rcq;
	ret = pthread_create(&d.thread, NULL, cq_destroyer_run, &d);
	IT_EXPECT(t, !ret, "pthread_create: %s", strerror(ret));
	if (cq_destroyer_wait(&d, t->env->quiet_ms))
		/* The CQ is gone: acknowledging now would touch freed memory. */
		return it_fail(t,
			       "ibv_destroy_cq returned %d (errno %d) with "
			       "the event unacknowledged",
			       d.ret, d.err);
	/* Expected EBUSY: the CQ is still on it. */
	ch_ret = it_destroy_channel(ch);
	if (!ch_ret)
		it_forget(t, ch);

	it_where(t, "after ibv_ack_cq_events");
	ibv_ack_cq_events(b.rcq, 1);
	if (!cq_destroyer_wait(&d, t->env->timeout_ms)) {
		pthread_detach(d.thread);
		return it_fail(t, "ibv_destroy_cq still blocked %u ms later",
			       t->env->timeout_ms);
	}
	IT_EXPECT(t, ch_ret == EBUSY,
		  "ibv_destroy_comp_channel while ibv_destroy_cq waited "
		  "returned %d, expected EBUSY",
		  ch_ret);
	IT_EXPECT(t, d.ret == 0, "ibv_destroy_cq returned %d (errno %d)", d.ret,
		  d.err);
	it_forget(t, ch);
	ret = it_destroy_channel(ch);
	IT_EXPECT(t, !ret, "ibv_destroy_comp_channel returned %d", ret);
	it_where(t, "%s", "");
	return it_quiet(t, a.scq, "sender CQ");
}

/*
 * An event the kernel queued but nobody read does not hold up
 * ibv_destroy_cq (the kernel drops it with the CQ): it returns 0 at once,
 * the channel is no longer readable, and it can be destroyed.
 */
static int destroy_cq_with_an_unread_event_returns_at_once(struct it_test *t,
							   long arg)
{
	struct cq_destroyer d = { 0 };
	struct ibv_comp_channel *ch;
	struct it_ep a, b;
	int ret;

	if (event_then_lone_cq(t, &a, &b, &ch))
		return IT_FAIL;
	d.cq = b.rcq;
	ret = pthread_create(&d.thread, NULL, cq_destroyer_run, &d);
	IT_EXPECT(t, !ret, "pthread_create: %s", strerror(ret));
	if (!cq_destroyer_wait(&d, t->env->timeout_ms)) {
		pthread_detach(d.thread);
		return it_fail(t, "ibv_destroy_cq still blocked after %u ms",
			       t->env->timeout_ms);
	}
	IT_EXPECT(t, d.ret == 0, "ibv_destroy_cq returned %d (errno %d)", d.ret,
		  d.err);
	if (no_event(t, ch, "the destroyed CQ's unread event"))
		return IT_FAIL;
	it_forget(t, ch);
	ret = it_destroy_channel(ch);
	IT_EXPECT(t, !ret, "ibv_destroy_comp_channel returned %d", ret);
	return it_quiet(t, a.scq, "sender CQ");
}

enum { RZ_SLOT = 64 };

/*
 * Post @n receives and @n sends (ids @first...), wait for the send
 * completions, so that @n receive completions are pending on b's CQ.
 */
static int make_pending(struct it_test *t, struct it_ep *a, struct it_ep *b,
			struct it_buf *sb, struct it_buf *rb, int first, int n)
{
	struct ibv_send_wr *wr = it_alloc(t, n * sizeof(*wr)), *bad = NULL;
	struct ibv_sge *sge = it_alloc(t, n * sizeof(*sge));
	struct ibv_wc wc[64];
	int i, ret;

	for (i = 0; i < n; i++) {
		int id = first + i;
		uint32_t len = 1 + id % RZ_SLOT;

		if (it_post_recv(t, b->qp, 1000 + id, rb, RZ_SLOT * id,
				 RZ_SLOT))
			return IT_FAIL;
		it_fill(sb->addr + RZ_SLOT * id, len, it_seed(t, id), 0);
		it_wr(&wr[i], &sge[i], id, IBV_WR_SEND, sb, RZ_SLOT * id, len);
		wr[i].next = i < n - 1 ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_send(a->qp, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_send of %d returned %d", n, ret);
	/* An RC send completes after its receive completion was written. */
	return it_poll(t, a->scq, wc, n, "send completions");
}

/* Poll @n receive completions and check they are ids @first... in order. */
static int take_in_order(struct it_test *t, struct it_ep *b, struct it_buf *rb,
			 int first, int n)
{
	struct ibv_wc wc[64];
	int i;

	if (it_poll(t, b->rcq, wc, n, "receive completions"))
		return IT_FAIL;
	for (i = 0; i < n; i++) {
		int id = first + i;
		uint32_t len = 1 + id % RZ_SLOT;
		struct it_wc_exp e =
			it_exp_recv(1000 + id, IBV_WC_RECV, b->qp, len);

		if (it_check_wc(t, &wc[i], &e, "receive completion") ||
		    it_verify(t, rb->addr + RZ_SLOT * id, len, it_seed(t, id),
			      0, "received bytes"))
			return IT_FAIL;
	}
	return 0;
}

static int resize_pair(struct it_test *t, struct it_ep *a, struct it_ep *b,
		       struct it_buf **sb, struct it_buf **rb)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);

	attr.cqe = 64;
	if (it_pair(t, a, b, &attr))
		return IT_FAIL;
	*sb = it_buf_new(t, 128 * RZ_SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	*rb = it_buf_new(t, 128 * RZ_SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	return *sb && *rb ? 0 : IT_FAIL;
}

/*
 * 40 receive completions pending, 15 polled, the CQ grown: the other 25
 * come out once each, in order; then it shrinks (empty) and still works.
 */
static int resize_cq_keeps_pending_completions_in_order(struct it_test *t,
							long arg)
{
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int ret;

	if (resize_pair(t, &a, &b, &sb, &rb) ||
	    make_pending(t, &a, &b, sb, rb, 0, 40))
		return IT_FAIL;
	it_where(t, "before the resize");
	if (take_in_order(t, &b, rb, 0, 15))
		return IT_FAIL;
	it_where(t, "grow to 256 with 25 pending");
	ret = ibv_resize_cq(b.rcq, 256);
	IT_EXPECT(t, !ret, "ibv_resize_cq(256) returned %d", ret);
	IT_EXPECT(t, b.rcq->cqe >= 256, "cqe %d after resize to 256",
		  b.rcq->cqe);
	if (take_in_order(t, &b, rb, 15, 25) ||
	    it_quiet(t, b.rcq, "receiver CQ (duplicates?)"))
		return IT_FAIL;
	it_where(t, "traffic after growing");
	if (make_pending(t, &a, &b, sb, rb, 40, 30) ||
	    take_in_order(t, &b, rb, 40, 30))
		return IT_FAIL;
	it_where(t, "shrink to 20 when empty");
	ret = ibv_resize_cq(b.rcq, 20);
	IT_EXPECT(t, !ret, "ibv_resize_cq(20) returned %d", ret);
	IT_EXPECT(t, b.rcq->cqe >= 20, "cqe %d after resize to 20", b.rcq->cqe);
	it_where(t, "traffic after shrinking");
	if (make_pending(t, &a, &b, sb, rb, 70, 20) ||
	    take_in_order(t, &b, rb, 70, 20) ||
	    it_quiet(t, b.rcq, "receiver CQ"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return it_quiet(t, a.scq, "sender CQ");
}

/* Shrinking below the pending count fails and loses nothing. */
static int
resize_cq_below_pending_count_fails_and_cq_keeps_working(struct it_test *t,
							 long arg)
{
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int ret, cqe;

	if (resize_pair(t, &a, &b, &sb, &rb) ||
	    make_pending(t, &a, &b, sb, rb, 0, 40))
		return IT_FAIL;
	cqe = b.rcq->cqe;
	ret = ibv_resize_cq(b.rcq, 8);
	IT_EXPECT(t, ret != 0, "ibv_resize_cq(8) with 40 pending succeeded");
	IT_EXPECT(t, b.rcq->cqe == cqe,
		  "cqe changed from %d to %d by a "
		  "failed resize",
		  cqe, b.rcq->cqe);
	it_where(t, "after the failed resize");
	if (take_in_order(t, &b, rb, 0, 40) ||
	    it_quiet(t, b.rcq, "receiver CQ (duplicates?)"))
		return IT_FAIL;
	if (make_pending(t, &a, &b, sb, rb, 40, 10) ||
	    take_in_order(t, &b, rb, 40, 10) ||
	    it_quiet(t, b.rcq, "receiver CQ"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return it_quiet(t, a.scq, "sender CQ");
}

/*
 * 200 messages through CQs of 15: the rings wrap a dozen times, polled
 * with batch sizes from 1 to 11 (often more than is there).
 */
static int poll_cq_keeps_order_across_cq_ring_wrap(struct it_test *t, long arg)
{
	enum { N = 200, BATCH = 8 };
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	struct ibv_wc wc[16];
	int first, nwc = 0;

	attr.cqe = 15;
	attr.send_wr = BATCH;
	attr.recv_wr = BATCH;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	sb = it_buf_new(t, N * RZ_SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, N * RZ_SLOT, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!sb || !rb)
		return IT_FAIL;
	for (first = 0; first < N; first += BATCH) {
		uint64_t deadline;
		int got = 0;

		it_where(t, "messages %d..%d", first, first + BATCH - 1);
		if (make_pending(t, &a, &b, sb, rb, first, BATCH))
			return IT_FAIL;
		deadline = it_now_ms() + t->env->timeout_ms;
		while (got < BATCH) {
			int want = 1 + nwc++ % 11, n, i;

			n = ibv_poll_cq(b.rcq, want, wc);
			IT_EXPECT(t, n >= 0 && n <= want && got + n <= BATCH,
				  "ibv_poll_cq(%d) returned %d with %d of %d "
				  "taken",
				  want, n, got, BATCH);
			for (i = 0; i < n; i++) {
				int id = first + got + i;
				struct it_wc_exp e =
					it_exp_recv(1000 + id, IBV_WC_RECV,
						    b.qp, 1 + id % RZ_SLOT);

				if (it_check_wc(t, &wc[i], &e,
						"receive completion") ||
				    it_verify(t, rb->addr + RZ_SLOT * id,
					      1 + id % RZ_SLOT, it_seed(t, id),
					      0, "received bytes"))
					return IT_FAIL;
			}
			got += n;
			IT_EXPECT(t, n || it_now_ms() < deadline,
				  "%d of %d receive completions after %u ms",
				  got, BATCH, t->env->timeout_ms);
			if (!n)
				it_pause();
		}
	}
	it_where(t, "%s", "");
	if (it_quiet(t, b.rcq, "receiver CQ") ||
	    it_quiet(t, a.scq, "sender CQ"))
		return IT_FAIL;
	return IT_PASS;
}

const struct it_case it_cases_cq[] = {
	{ "comp_channel_delivers_one_event_per_req_notify",
	  comp_channel_delivers_one_event_per_req_notify, 0 },
	{ "comp_channel_solicited_only_wakes_on_solicited_send",
	  comp_channel_solicited_only_wakes_on_solicited, 0 },
	{ "comp_channel_serves_several_cqs_one_event_per_armed_cq",
	  comp_channel_serves_several_cqs_one_event_per_armed_cq, 0 },
	{ "destroy_cq_waits_until_its_events_are_acked",
	  destroy_cq_waits_until_its_events_are_acked, 0 },
	{ "destroy_cq_with_an_unread_event_returns_at_once",
	  destroy_cq_with_an_unread_event_returns_at_once, 0 },
	{ "resize_cq_keeps_pending_completions_in_order",
	  resize_cq_keeps_pending_completions_in_order, 0 },
	{ "resize_cq_below_pending_count_fails_and_cq_keeps_working",
	  resize_cq_below_pending_count_fails_and_cq_keeps_working, 0 },
	{ "poll_cq_keeps_order_across_cq_ring_wrap",
	  poll_cq_keeps_order_across_cq_ring_wrap, 0 },
	{ NULL, NULL, 0 },
};
