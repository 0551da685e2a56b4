// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Threads: QPs and CQs of separate thread domains, each driven by its own
 * thread (no locks taken), and default (locked) QPs and CQs shared by
 * threads that post and poll at the same time; the life cycle of thread and
 * parent domains.
 *
 * The harness is not thread-safe: every thread records its failure in its
 * own struct it_test, which the test copies after joining.  All harness
 * resources (it_buf_new) are made by the test's own thread; what the worker
 * threads create, and whatever lives in a parent domain, is kept in a
 * struct th_objs and destroyed by the test in reverse order before the
 * harness cleans up.  A failing thread sets the shared stop flag, and every
 * thread waits with a deadline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* What a thread returns when the shared stop flag ended it. */
#define TH_STOPPED 3

/* Objects the harness does not track, destroyed in reverse. */

enum th_kind {
	TH_PD, /* a PD or a parent domain */
	TH_TD,
	TH_CQ,
	TH_SRQ,
	TH_QP,
};

enum { TH_MAX_OBJS = 16 };

struct th_objs {
	struct {
		enum th_kind kind;
		void *p; /* NULL once destroyed by the test */
	} o[TH_MAX_OBJS];
	int n;
};

static void th_keep(struct th_objs *s, enum th_kind kind, void *p)
{
	if (s->n == TH_MAX_OBJS) {
		fprintf(stderr, "itest: more than %d objects in a th_objs\n",
			TH_MAX_OBJS);
		exit(2);
	}
	s->o[s->n].kind = kind;
	s->o[s->n].p = p;
	s->n++;
}

/* The test destroyed @p itself. */
static void th_forget(struct th_objs *s, void *p)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->o[i].p == p)
			s->o[i].p = NULL;
}

static int th_destroy(enum th_kind kind, void *p, const char **what)
{
	switch (kind) {
	case TH_PD:
		*what = "ibv_dealloc_pd";
		return ibv_dealloc_pd(p);
	case TH_TD:
		*what = "ibv_dealloc_td";
		return ibv_dealloc_td(p);
	case TH_CQ:
		*what = "ibv_destroy_cq";
		return ibv_destroy_cq(p);
	case TH_SRQ:
		*what = "ibv_destroy_srq";
		return ibv_destroy_srq(p);
	case TH_QP:
		*what = "ibv_destroy_qp";
		return ibv_destroy_qp(p);
	}
	*what = "?";
	return EINVAL;
}

/* Destroy everything in reverse; a failure fails the test. */
static void th_release(struct it_test *t, struct th_objs *s)
{
	while (s->n) {
		const char *what;
		int ret;

		s->n--;
		if (!s->o[s->n].p)
			continue;
		ret = th_destroy(s->o[s->n].kind, s->o[s->n].p, &what);
		if (ret)
			it_fail(t, "cleanup: %s returned %d", what, ret);
	}
}

/* Threads */

static bool th_stopped(atomic_bool *stop)
{
	return atomic_load_explicit(stop, memory_order_relaxed);
}

/* A thread's own record, named after the test. */
static void th_init_test(struct it_test *w, const struct it_test *t)
{
	memset(w, 0, sizeof(*w));
	w->env = t->env;
	w->name = t->name;
}

/* Everything a test's threads do must be over by then. */
static uint64_t th_deadline(const struct it_test *t)
{
	return it_now_ms() + 30000 + 2 * t->env->timeout_ms;
}

static int th_timedjoin(pthread_t id, uint64_t deadline)
{
	uint64_t now = it_now_ms(), left = deadline > now ? deadline - now : 0;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += left / 1000;
	ts.tv_nsec += (left % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return pthread_timedjoin_np(id, NULL, &ts);
}

/*
 * Join @id by @deadline; past it, stop the threads and give this one the
 * wait deadline more to notice.  Returns 1 if it never ended: what it uses
 * must then be left alone.
 */
static int th_join(struct it_test *t, pthread_t id, const char *who,
		   atomic_bool *stop, uint64_t deadline)
{
	if (!th_timedjoin(id, deadline))
		return 0;
	atomic_store(stop, true);
	it_fail(t, "%s still running at the deadline; stopping the threads",
		who);
	if (!th_timedjoin(id, it_now_ms() + t->env->timeout_ms + 1000))
		return 0;
	it_fail(t, "%s never ended", who);
	return 1;
}

/* Copy a thread's failure (pass IT_FAIL first, then IT_SKIP). */
static void th_collect(struct it_test *t, const struct it_test *w,
		       const char *who, int result)
{
	if (w->result != result)
		return;
	if (result == IT_FAIL)
		it_fail(t, "%s: %s", who, w->reason);
	else
		it_skip(t, "%s: %s", who, w->reason);
}

/* Take up to @want of the credits in @c; how many were taken. */
static int th_take(atomic_int *c, int want)
{
	int have = atomic_load(c);

	while (have > 0) {
		int n = have < want ? have : want;

		if (atomic_compare_exchange_weak(c, &have, have - n))
			return n;
	}
	return 0;
}

/* Verbs objects outside the harness */

static struct ibv_cq_ex *th_cq_ex(struct it_test *t, struct th_objs *s, int cqe,
				  uint32_t comp_mask, uint32_t flags,
				  struct ibv_pd *parent)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
		.comp_mask = comp_mask,
		.flags = flags,
		.parent_domain = parent,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(t->env->ctx, &a);

	if (!cq) {
		it_fail(t,
			"ibv_create_cq_ex(%d, comp_mask 0x%x, flags 0x%x): "
			"%s",
			cqe, comp_mask, flags, strerror(errno));
		return NULL;
	}
	th_keep(s, TH_CQ, ibv_cq_ex_to_cq(cq));
	return cq;
}

/* An RC QP in @pd on the given CQs (and SRQ), left in RESET. */
static int th_qp(struct it_test *t, struct th_objs *s, struct it_ep *ep,
		 struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
		 struct ibv_srq *srq, uint32_t depth)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = srq ? 0 : depth,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	memset(ep, 0, sizeof(*ep));
	ep->type = IBV_QPT_RC;
	ep->scq = scq;
	ep->rcq = rcq;
	ep->qp = ibv_create_qp(pd, &ia);
	if (!ep->qp)
		return it_fail(t, "ibv_create_qp(RC, depth %u%s): %s", depth,
			       srq ? ", SRQ" : "", strerror(errno));
	th_keep(s, TH_QP, ep->qp);
	ep->cap = ia.cap;
	IT_EXPECT(t,
		  ia.cap.max_send_wr >= depth &&
			  (srq || ia.cap.max_recv_wr >= depth),
		  "QP depth %u/%u below the requested %u", ia.cap.max_send_wr,
		  ia.cap.max_recv_wr, depth);
	return 0;
}

static int th_connect(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	if (it_ep_bring_up(t, a, IBV_QPS_RTS, b->qp->qp_num) ||
	    it_ep_bring_up(t, b, IBV_QPS_RTS, a->qp->qp_num))
		return IT_FAIL;
	return 0;
}

/* Stock providers have no thread domains: EOPNOTSUPP is a SKIP. */
static int th_td_supported(struct it_test *t)
{
	struct ibv_td_init_attr tda = { .comp_mask = 0 };
	struct ibv_td *td = ibv_alloc_td(t->env->ctx, &tda);
	int err = errno, ret;

	if (!td) {
		if (err == EOPNOTSUPP)
			return it_skip(t, "ibv_alloc_td: %s", strerror(err));
		return it_fail(t, "ibv_alloc_td: %s", strerror(err));
	}
	ret = ibv_dealloc_td(td);
	IT_EXPECT(t, !ret, "ibv_dealloc_td of an unused TD returned %d", ret);
	return 0;
}

/*
 * 1. One thread per QP pair, each pair in its own parent domain with its
 * own thread domain, on CQs made single-threaded, so no lock is taken
 * anywhere.  Thread 1 receives through an SRQ of its parent domain; thread
 * 2's CQs are single-threaded through the parent domain instead of the
 * flag.  Each thread sends TD_MSGS messages of varied sizes and checks every
 * completion (the send CQ with ibv_poll_cq, the receive CQ with the
 * extended API), in order, and every byte.
 */

enum {
	TD_THREADS = 3,
	TD_MSGS = 500,		   /* per thread */
	TD_MAXLEN = 4096,	   /* longest message, send slot */
	TD_RSLOT = TD_MAXLEN + 64, /* receive slot: the rest stays poison */
	TD_WIN = 16,		   /* messages in flight per thread */
	TD_DEPTH = 32,		   /* SQ, RQ and SRQ depth */
	TD_RECV_ID = 1 << 20,	   /* receive i has wr_id TD_RECV_ID + i */
};

struct td_worker {
	struct it_test t; /* this thread's result */
	int k;
	atomic_bool *stop;
	struct th_objs objs;
	struct it_buf *sb, *rb; /* TD_WIN slots each */
	uint64_t seed, poison;
	pthread_t id;
};

static uint32_t td_len(int k, unsigned int i)
{
	if (i % 61 == 7)
		return TD_MAXLEN;
	return 1 + (i * 389u + k * 1031u) % TD_MAXLEN;
}

static int td_post_recv(struct td_worker *w, struct it_ep *b,
			struct ibv_srq *srq, unsigned int i)
{
	size_t off = (size_t)TD_RSLOT * (i % TD_WIN);

	it_fill(w->rb->addr + off, TD_RSLOT, w->poison, 0);
	if (srq)
		return it_post_srq_recv(&w->t, srq, TD_RECV_ID + i, w->rb, off,
					TD_RSLOT);
	return it_post_recv(&w->t, b->qp, TD_RECV_ID + i, w->rb, off, TD_RSLOT);
}

static int td_post_send(struct td_worker *w, struct it_ep *a, unsigned int i)
{
	size_t off = (size_t)TD_MAXLEN * (i % TD_WIN);
	uint32_t len = td_len(w->k, i);
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	int ret;

	it_fill(w->sb->addr + off, len, w->seed, (size_t)i * TD_MAXLEN);
	it_wr(&wr, &sge, i, IBV_WR_SEND, w->sb, off, len);
	ret = ibv_post_send(a->qp, &wr, &bad);
	IT_EXPECT(&w->t, !ret,
		  "ibv_post_send of message %u (%u bytes) "
		  "returned %d",
		  i, len, ret);
	return 0;
}

/* The receive completion @cq shows must be message @i, whole. */
static int td_check_recv(struct td_worker *w, struct ibv_cq_ex *cq,
			 const struct it_ep *b, unsigned int i)
{
	struct it_test *t = &w->t;
	uint32_t len = td_len(w->k, i), got;
	const uint8_t *slot = w->rb->addr + (size_t)TD_RSLOT * (i % TD_WIN);

	it_where(t, "receive %u (%u bytes)", i, len);
	IT_EXPECT(t, cq->status == IBV_WC_SUCCESS,
		  "status %s (%d) "
		  "vendor_err 0x%x",
		  ibv_wc_status_str(cq->status), cq->status,
		  ibv_wc_read_vendor_err(cq));
	IT_EXPECT(t, cq->wr_id == TD_RECV_ID + i, "wr_id %llu, expected %llu",
		  (unsigned long long)cq->wr_id,
		  (unsigned long long)TD_RECV_ID + i);
	IT_EXPECT(t, ibv_wc_read_opcode(cq) == IBV_WC_RECV, "opcode %d",
		  (int)ibv_wc_read_opcode(cq));
	IT_EXPECT(t, ibv_wc_read_qp_num(cq) == b->qp->qp_num,
		  "qp_num 0x%x, expected 0x%x", ibv_wc_read_qp_num(cq),
		  b->qp->qp_num);
	IT_EXPECT(t, !(ibv_wc_read_wc_flags(cq) & IBV_WC_WITH_IMM),
		  "wc_flags 0x%x", ibv_wc_read_wc_flags(cq));
	got = ibv_wc_read_byte_len(cq);
	IT_EXPECT(t, got == len, "byte_len %u", got);
	if (it_verify(t, slot, len, w->seed, (size_t)i * TD_MAXLEN,
		      "received bytes") ||
	    it_verify(t, slot + len, TD_RSLOT - len, w->poison, len,
		      "bytes after the message"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return 0;
}

static int td_traffic(struct td_worker *w, struct it_ep *a, struct it_ep *b,
		      struct ibv_cq_ex *scq, struct ibv_cq_ex *rcq,
		      struct ibv_srq *srq)
{
	struct it_test *t = &w->t;
	unsigned int nrecv = 0, nsend = 0, sdone = 0, rdone = 0;
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	struct ibv_wc wc[16];

	while (sdone < TD_MSGS || rdone < TD_MSGS) {
		struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
		bool progress = false;
		int n, i, ret;

		if (th_stopped(w->stop))
			return TH_STOPPED;
		/* Receives first: no send waits for one (no RNR). */
		while (nrecv < TD_MSGS && nrecv - rdone < TD_WIN) {
			if (td_post_recv(w, b, srq, nrecv))
				return IT_FAIL;
			nrecv++;
			progress = true;
		}
		while (nsend < nrecv && nsend - sdone < TD_WIN) {
			if (td_post_send(w, a, nsend))
				return IT_FAIL;
			nsend++;
			progress = true;
		}
		n = ibv_poll_cq(ibv_cq_ex_to_cq(scq), 16, wc);
		IT_EXPECT(t, n >= 0, "send CQ: ibv_poll_cq returned %d", n);
		for (i = 0; i < n; i++, sdone++) {
			struct it_wc_exp e =
				it_exp_send(sdone, IBV_WC_SEND, a->qp);

			if (it_check_wc(t, &wc[i], &e, "send completion"))
				return IT_FAIL;
			progress = true;
		}
		ret = ibv_start_poll(rcq, &pa);
		if (!ret) {
			do {
				if (td_check_recv(w, rcq, b, rdone)) {
					ibv_end_poll(rcq);
					return IT_FAIL;
				}
				rdone++;
			} while (!(ret = ibv_next_poll(rcq)));
			ibv_end_poll(rcq);
			progress = true;
		}
		IT_EXPECT(t, ret == ENOENT,
			  "receive CQ: ibv_start_poll or "
			  "ibv_next_poll returned %d",
			  ret);
		if (progress) {
			deadline = it_now_ms() + t->env->timeout_ms;
		} else if (it_now_ms() > deadline) {
			return it_fail(t,
				       "nothing for %u ms: %u sends posted, "
				       "%u completed; %u receives posted, %u "
				       "completed",
				       t->env->timeout_ms, nsend, sdone, nrecv,
				       rdone);
		} else {
			it_pause();
		}
	}
	if (it_quiet(t, ibv_cq_ex_to_cq(scq), "send CQ") ||
	    it_quiet(t, ibv_cq_ex_to_cq(rcq), "receive CQ"))
		return IT_FAIL;
	return 0;
}

/* Thread 2's CQs are single-threaded through the parent domain's TD. */
static struct ibv_cq_ex *td_cq(struct td_worker *w, struct ibv_pd *pad)
{
	if (w->k == 2)
		return th_cq_ex(&w->t, &w->objs, 2 * TD_DEPTH,
				IBV_CQ_INIT_ATTR_MASK_PD, 0, pad);
	return th_cq_ex(&w->t, &w->objs, 2 * TD_DEPTH,
			IBV_CQ_INIT_ATTR_MASK_FLAGS,
			IBV_CREATE_CQ_ATTR_SINGLE_THREADED, NULL);
}

static int td_worker_run(struct td_worker *w)
{
	struct it_test *t = &w->t;
	const struct it_env *env = t->env;
	struct ibv_td_init_attr tda = { .comp_mask = 0 };
	struct ibv_parent_domain_init_attr pda = { .pd = env->pd };
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = TD_DEPTH, .max_sge = 1 },
	};
	struct ibv_cq_ex *scq, *rcq;
	struct ibv_srq *srq = NULL;
	struct ibv_td *td;
	struct ibv_pd *pad;
	struct it_ep a, b;

	it_where(t, "setup");
	td = ibv_alloc_td(env->ctx, &tda);
	if (!td) {
		int err = errno;

		if (err == EOPNOTSUPP)
			return it_skip(t, "ibv_alloc_td: %s", strerror(err));
		return it_fail(t, "ibv_alloc_td: %s", strerror(err));
	}
	th_keep(&w->objs, TH_TD, td);
	pda.td = td;
	pad = ibv_alloc_parent_domain(env->ctx, &pda);
	IT_EXPECT(t, pad, "ibv_alloc_parent_domain: %s", strerror(errno));
	th_keep(&w->objs, TH_PD, pad);
	scq = td_cq(w, pad);
	rcq = scq ? td_cq(w, pad) : NULL;
	if (!rcq)
		return IT_FAIL;
	if (w->k == 1) {
		srq = ibv_create_srq(pad, &sa);
		IT_EXPECT(t, srq, "ibv_create_srq in the parent domain: %s",
			  strerror(errno));
		th_keep(&w->objs, TH_SRQ, srq);
	}
	if (th_qp(t, &w->objs, &a, pad, ibv_cq_ex_to_cq(scq),
		  ibv_cq_ex_to_cq(rcq), NULL, TD_DEPTH) ||
	    th_qp(t, &w->objs, &b, pad, ibv_cq_ex_to_cq(scq),
		  ibv_cq_ex_to_cq(rcq), srq, TD_DEPTH) ||
	    th_connect(t, &a, &b))
		return IT_FAIL;
	it_where(t, "%s", "");
	return td_traffic(w, &a, &b, scq, rcq, srq);
}

static void *td_worker_main(void *arg)
{
	struct td_worker *w = arg;

	if (td_worker_run(w) == IT_FAIL || w->t.result == IT_FAIL)
		atomic_store(w->stop, true);
	return NULL;
}

static int threads_on_separate_td_qps_each_deliver_all_bytes(struct it_test *t,
							     long arg)
{
	struct td_worker w[TD_THREADS];
	atomic_bool stop;
	uint64_t deadline;
	int k, n, stuck = 0;

	if (th_td_supported(t))
		return t->result;
	atomic_init(&stop, false);
	memset(w, 0, sizeof(w));
	for (k = 0; k < TD_THREADS; k++) {
		th_init_test(&w[k].t, t);
		w[k].k = k;
		w[k].stop = &stop;
		w[k].seed = it_seed(t, 100 + k);
		w[k].poison = it_seed(t, 200 + k);
		w[k].sb = it_buf_new(t, TD_WIN * TD_MAXLEN,
				     IBV_ACCESS_LOCAL_WRITE, 0);
		w[k].rb = it_buf_new(t, TD_WIN * TD_RSLOT,
				     IBV_ACCESS_LOCAL_WRITE, w[k].poison);
		if (!w[k].sb || !w[k].rb)
			return IT_FAIL;
	}
	for (n = 0; n < TD_THREADS; n++) {
		int ret = pthread_create(&w[n].id, NULL, td_worker_main, &w[n]);

		if (ret) {
			it_fail(t, "pthread_create: %s", strerror(ret));
			atomic_store(&stop, true);
			break;
		}
	}
	deadline = th_deadline(t);
	for (k = 0; k < n; k++) {
		char who[32];

		snprintf(who, sizeof(who), "thread %d", k);
		stuck += th_join(t, w[k].id, who, &stop, deadline);
	}
	for (k = 0; k < n; k++) {
		char who[32];

		snprintf(who, sizeof(who), "thread %d", k);
		th_collect(t, &w[k].t, who, IT_FAIL);
	}
	for (k = 0; k < n; k++)
		th_collect(t, &w[k].t, "thread", IT_SKIP);
	if (stuck)
		return IT_FAIL; /* their objects stay: they may be in use */
	for (k = TD_THREADS - 1; k >= 0; k--)
		th_release(t, &w[k].objs);
	return t->result;
}

/*
 * 2. One RC QP pair of default (locked) objects.  Two threads post sends on
 * the same QP at once (thread 0 one WR at a time, thread 1 lists of two),
 * more than the SQ holds; a third thread polls both CQs and posts the
 * receives.  A credit counter keeps the SQ from overflowing; ENOMEM would
 * be retried from *bad_wr.  Each message carries its wr_id in its first 8
 * bytes: every wr_id completes once, in its sender's order, and arrives
 * with the right bytes.
 */

enum {
	SQ_SENDERS = 2,
	SQ_MSGS = 1000,	  /* per sender */
	SQ_MAXLEN = 2048, /* longest message, send slot */
	SQ_SLOTS = 24,	  /* send slots per sender */
	SQ_RSLOT = SQ_MAXLEN + 64,
	SQ_RSLOTS = 48, /* receives posted ahead */
	SQ_DEPTH = 32,	/* less than the senders' slots */
};

struct sq_shared {
	atomic_bool stop;
	struct it_ep a, b;
	struct it_buf *sb[SQ_SENDERS], *rb;
	uint64_t seed[SQ_SENDERS], poison;
	atomic_int sq_credits;	       /* free SQ slots */
	atomic_int rq_credits;	       /* receives no send has claimed */
	atomic_uint sdone[SQ_SENDERS]; /* completed sends of each sender */
};

struct sq_thread {
	struct it_test t;
	struct sq_shared *s;
	int k;		     /* a sender, or SQ_SENDERS: the poller */
	unsigned int posted; /* a sender's messages posted */
	pthread_t id;
};

static uint64_t sq_id(int k, unsigned int j)
{
	return (uint64_t)(k + 1) << 32 | j;
}

/* Mostly short, so that the senders spend their time posting. */
static uint32_t sq_len(int k, unsigned int j)
{
	if ((j + k) % 8 == 5)
		return 8 + (j * 131u + k * 977u) % (SQ_MAXLEN - 7);
	return 8 + (j * 37u + k * 11u) % 120;
}

/* Fill sender @k's slot for message @j and describe it in @wr. */
static void sq_build(struct sq_shared *s, int k, unsigned int j,
		     struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	size_t off = (size_t)SQ_MAXLEN * (j % SQ_SLOTS);
	uint8_t *p = s->sb[k]->addr + off;
	uint64_t id = sq_id(k, j);
	uint32_t len = sq_len(k, j);

	memcpy(p, &id, sizeof(id));
	it_fill(p + 8, len - 8, s->seed[k], (size_t)j * SQ_MAXLEN + 8);
	it_wr(wr, sge, id, IBV_WR_SEND, s->sb[k], off, len);
}

static int sq_send_run(struct sq_thread *me)
{
	struct sq_shared *s = me->s;
	struct it_test *t = &me->t;
	const int k = me->k, list = k == 1 ? 2 : 1;
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	unsigned int j = 0;

	while (j < SQ_MSGS) {
		struct ibv_send_wr wr[2], *first, *bad;
		struct ibv_sge sge[2];
		unsigned int done = atomic_load(&s->sdone[k]);
		int want = list, n = 0, m = 0, i, ret;

		if (th_stopped(&s->stop))
			return TH_STOPPED;
		/* Slot j % SQ_SLOTS is free once message j - SQ_SLOTS is. */
		if (want > (int)(SQ_MSGS - j))
			want = SQ_MSGS - j;
		if (want > (int)(SQ_SLOTS - (j - done)))
			want = SQ_SLOTS - (j - done);
		if (want > 0)
			n = th_take(&s->sq_credits, want);
		if (n)
			m = th_take(&s->rq_credits, n);
		if (m < n)
			atomic_fetch_add(&s->sq_credits, n - m);
		if (!m) {
			if (it_now_ms() > deadline)
				return it_fail(t,
					       "no room for message %u for "
					       "%u ms (%u of this sender's "
					       "sends completed)",
					       j, t->env->timeout_ms, done);
			it_pause();
			continue;
		}
		for (i = 0; i < m; i++) {
			sq_build(s, k, j + i, &wr[i], &sge[i]);
			wr[i].next = i + 1 < m ? &wr[i + 1] : NULL;
		}
		first = wr;
		for (;;) {
			bad = NULL;
			ret = ibv_post_send(s->a.qp, first, &bad);
			if (!ret)
				break;
			IT_EXPECT(t, ret == ENOMEM,
				  "ibv_post_send of "
				  "messages %u..%u returned %d",
				  j, j + m - 1, ret);
			for (i = first - wr; i < m && bad != &wr[i]; i++)
				;
			IT_EXPECT(t, i < m,
				  "ENOMEM with *bad_wr %p outside "
				  "the list posted",
				  (void *)bad);
			/* Those before *bad_wr are in; retry the rest. */
			first = bad;
			if (th_stopped(&s->stop))
				return TH_STOPPED;
			if (it_now_ms() > deadline)
				return it_fail(t,
					       "ENOMEM for %u ms posting "
					       "message %u",
					       t->env->timeout_ms, j + i);
			it_pause();
		}
		j += m;
		me->posted = j;
		deadline = it_now_ms() + t->env->timeout_ms;
	}
	return 0;
}

static int sq_post_recv(struct sq_thread *me, unsigned int i)
{
	struct sq_shared *s = me->s;
	size_t off = (size_t)SQ_RSLOT * (i % SQ_RSLOTS);

	it_fill(s->rb->addr + off, SQ_RSLOT, s->poison, 0);
	if (it_post_recv(&me->t, s->b.qp, i, s->rb, off, SQ_RSLOT))
		return IT_FAIL;
	atomic_fetch_add(&s->rq_credits, 1);
	return 0;
}

/* Send completion of one of the senders' wr_ids, next in its order. */
static int sq_check_send(struct sq_thread *me, const struct ibv_wc *wc,
			 unsigned int *next)
{
	struct sq_shared *s = me->s;
	struct it_test *t = &me->t;
	unsigned int k = (wc->wr_id >> 32) - 1, j = (uint32_t)wc->wr_id;
	struct it_wc_exp e = it_exp_send(wc->wr_id, IBV_WC_SEND, s->a.qp);

	if (it_check_wc(t, wc, &e, "send completion"))
		return IT_FAIL;
	IT_EXPECT(t, k < SQ_SENDERS && j < SQ_MSGS,
		  "send completion of "
		  "unknown wr_id 0x%llx",
		  (unsigned long long)wc->wr_id);
	IT_EXPECT(t, j == next[k],
		  "send completion of sender %u message %u, "
		  "expected message %u (lost, repeated or reordered)",
		  k, j, next[k]);
	next[k]++;
	atomic_store(&s->sdone[k], next[k]);
	atomic_fetch_add(&s->sq_credits, 1);
	return 0;
}

/* Receive @i: whose message it holds shows in its first 8 bytes. */
static int sq_check_recv(struct sq_thread *me, const struct ibv_wc *wc,
			 unsigned int i, unsigned int *next)
{
	struct sq_shared *s = me->s;
	struct it_test *t = &me->t;
	const uint8_t *slot = s->rb->addr + (size_t)SQ_RSLOT * (i % SQ_RSLOTS);
	unsigned int k, j;
	struct it_wc_exp e;
	uint32_t len;
	uint64_t id;

	it_where(t, "receive %u", i);
	IT_EXPECT(t, wc->status == IBV_WC_SUCCESS,
		  "status %s (%d) vendor_err "
		  "0x%x",
		  ibv_wc_status_str(wc->status), wc->status, wc->vendor_err);
	IT_EXPECT(t, wc->wr_id == i, "wr_id %llu, expected %u",
		  (unsigned long long)wc->wr_id, i);
	IT_EXPECT(t, wc->byte_len >= 8, "byte_len %u", wc->byte_len);
	memcpy(&id, slot, sizeof(id));
	k = (id >> 32) - 1;
	j = (uint32_t)id;
	IT_EXPECT(t, k < SQ_SENDERS && j < SQ_MSGS,
		  "payload names unknown "
		  "wr_id 0x%llx",
		  (unsigned long long)id);
	IT_EXPECT(t, j == next[k],
		  "holds sender %u message %u, expected "
		  "message %u (lost, repeated or reordered)",
		  k, j, next[k]);
	len = sq_len(k, j);
	e = it_exp_recv(i, IBV_WC_RECV, s->b.qp, len);
	it_where(t, "receive %u: sender %u message %u (%u bytes)", i, k, j,
		 len);
	if (it_check_wc(t, wc, &e, "receive completion") ||
	    it_verify(t, slot + 8, len - 8, s->seed[k],
		      (size_t)j * SQ_MAXLEN + 8, "received bytes") ||
	    it_verify(t, slot + len, SQ_RSLOT - len, s->poison, len,
		      "bytes after the message"))
		return IT_FAIL;
	it_where(t, "%s", "");
	next[k]++;
	return 0;
}

static int sq_poll_run(struct sq_thread *me)
{
	const unsigned int total = SQ_SENDERS * SQ_MSGS;
	unsigned int snext[SQ_SENDERS] = { 0 }, rnext[SQ_SENDERS] = { 0 };
	unsigned int sdone = 0, rdone = 0, rposted = 0;
	struct sq_shared *s = me->s;
	struct it_test *t = &me->t;
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	struct ibv_wc wc[16];

	/* Receives first: a send is posted only against one. */
	for (; rposted < SQ_RSLOTS && rposted < total; rposted++)
		if (sq_post_recv(me, rposted))
			return IT_FAIL;
	while (sdone < total || rdone < total) {
		int n, i;

		if (th_stopped(&s->stop))
			return TH_STOPPED;
		n = ibv_poll_cq(s->a.scq, 16, wc);
		IT_EXPECT(t, n >= 0, "send CQ: ibv_poll_cq returned %d", n);
		for (i = 0; i < n; i++, sdone++)
			if (sq_check_send(me, &wc[i], snext))
				return IT_FAIL;
		if (n)
			deadline = it_now_ms() + t->env->timeout_ms;
		n = ibv_poll_cq(s->b.rcq, 16, wc);
		IT_EXPECT(t, n >= 0, "receive CQ: ibv_poll_cq returned %d", n);
		for (i = 0; i < n; i++, rdone++) {
			if (sq_check_recv(me, &wc[i], rdone, rnext))
				return IT_FAIL;
			/* Its slot is free: the receive SQ_RSLOTS on. */
			if (rposted < total && sq_post_recv(me, rposted++))
				return IT_FAIL;
		}
		if (n)
			deadline = it_now_ms() + t->env->timeout_ms;
		if (it_now_ms() > deadline)
			return it_fail(t,
				       "nothing for %u ms: %u of %u sends "
				       "and %u of %u receives completed",
				       t->env->timeout_ms, sdone, total, rdone,
				       total);
		it_pause();
	}
	return 0;
}

static void *sq_thread_main(void *arg)
{
	struct sq_thread *me = arg;
	int ret = me->k < SQ_SENDERS ? sq_send_run(me) : sq_poll_run(me);

	if (ret == IT_FAIL || me->t.result == IT_FAIL)
		atomic_store(&me->s->stop, true);
	return NULL;
}

static int
threads_sharing_one_qp_post_without_loss_or_duplicates(struct it_test *t,
						       long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct sq_thread th[SQ_SENDERS + 1];
	struct sq_shared *s = it_alloc(t, sizeof(*s));
	uint64_t deadline;
	int k, n, stuck = 0;

	attr.send_wr = SQ_DEPTH;
	attr.recv_wr = SQ_RSLOTS;
	if (it_pair(t, &s->a, &s->b, &attr))
		return IT_FAIL;
	IT_EXPECT(t, s->b.cap.max_recv_wr >= SQ_RSLOTS, "max_recv_wr %u",
		  s->b.cap.max_recv_wr);
	atomic_init(&s->stop, false);
	atomic_init(&s->sq_credits, (int)s->a.cap.max_send_wr);
	atomic_init(&s->rq_credits, 0);
	s->poison = it_seed(t, 1);
	s->rb = it_buf_new(t, (size_t)SQ_RSLOTS * SQ_RSLOT,
			   IBV_ACCESS_LOCAL_WRITE, s->poison);
	if (!s->rb)
		return IT_FAIL;
	for (k = 0; k < SQ_SENDERS; k++) {
		atomic_init(&s->sdone[k], 0);
		s->seed[k] = it_seed(t, 100 + k);
		s->sb[k] = it_buf_new(t, (size_t)SQ_SLOTS * SQ_MAXLEN,
				      IBV_ACCESS_LOCAL_WRITE, 0);
		if (!s->sb[k])
			return IT_FAIL;
	}
	memset(th, 0, sizeof(th));
	/* The poller (index SQ_SENDERS) starts first: it posts receives. */
	for (n = 0; n <= SQ_SENDERS; n++) {
		int i = SQ_SENDERS - n, ret;

		th_init_test(&th[i].t, t);
		th[i].s = s;
		th[i].k = i;
		ret = pthread_create(&th[i].id, NULL, sq_thread_main, &th[i]);
		if (ret) {
			it_fail(t, "pthread_create: %s", strerror(ret));
			atomic_store(&s->stop, true);
			break;
		}
	}
	deadline = th_deadline(t);
	for (k = 0; k < n; k++) {
		int i = SQ_SENDERS - k;
		char who[32];

		if (i == SQ_SENDERS)
			snprintf(who, sizeof(who), "poller");
		else
			snprintf(who, sizeof(who), "sender %d", i);
		stuck += th_join(t, th[i].id, who, &s->stop, deadline);
		th_collect(t, &th[i].t, who, IT_FAIL);
	}
	if (stuck || t->result != IT_PASS)
		return IT_FAIL;
	for (k = 0; k < SQ_SENDERS; k++)
		IT_EXPECT(t, th[k].posted == SQ_MSGS,
			  "sender %d posted %u of "
			  "%u",
			  k, th[k].posted, (unsigned int)SQ_MSGS);
	if (it_quiet(t, s->a.scq, "send CQ") ||
	    it_quiet(t, s->b.rcq, "receive CQ") ||
	    it_quiet(t, s->a.rcq, "sender's receive CQ") ||
	    it_quiet(t, s->b.scq, "receiver's send CQ"))
		return IT_FAIL;
	return IT_PASS;
}

/*
 * 3. Two QP pairs whose senders share one send CQ and whose receivers
 * share one receive CQ (default, locked).  The test's thread posts on both
 * pairs; two threads poll both CQs at once, one with ibv_poll_cq, the other
 * with the extended API (start_poll holds the CQ until end_poll).  Every
 * completion is seen exactly once across the two, and every byte arrives.
 */

enum {
	CQ_PAIRS = 2,
	CQ_MSGS = 300, /* per pair */
	CQ_MAXLEN = 1024,
	CQ_RSLOT = CQ_MAXLEN + 64,
	CQ_DEPTH = 32,
	CQ_POLLERS = 2,
	CQ_SEND_TAG = 1, /* wr_id: tag << 24 | pair << 16 | n */
	CQ_RECV_TAG = 2,
};

struct cq_shared {
	atomic_bool stop;
	struct ibv_cq_ex *scq, *rcq;
	struct it_ep a[CQ_PAIRS], b[CQ_PAIRS];
	struct it_buf *sb, *rb; /* one slot per message */
	uint64_t seed[CQ_PAIRS], poison;
	atomic_uint sdone[CQ_PAIRS], rdone[CQ_PAIRS];
	atomic_uint nseen; /* completions seen, both CQs */
	atomic_uchar seen[2][CQ_PAIRS][CQ_MSGS]; /* send, receive */
};

struct cq_poller {
	struct it_test t;
	struct cq_shared *s;
	int k; /* 0: ibv_poll_cq, 1: start_poll */
	pthread_t id;
};

static uint32_t cq_len(int q, unsigned int n)
{
	return 1 + (n * 97u + q * 500u) % CQ_MAXLEN;
}

static uint64_t cq_id(int tag, int q, unsigned int n)
{
	return (uint64_t)tag << 24 | (uint64_t)q << 16 | n;
}

static size_t cq_slot(int q, unsigned int n)
{
	return (size_t)q * CQ_MSGS + n;
}

/* One completion, whichever poller found it. */
static int cq_seen(struct cq_poller *me, uint64_t wr_id,
		   enum ibv_wc_status status, enum ibv_wc_opcode opcode,
		   uint32_t qp_num, uint32_t byte_len, unsigned int flags)
{
	struct cq_shared *s = me->s;
	struct it_test *t = &me->t;
	unsigned int tag = wr_id >> 24, q = (wr_id >> 16) & 0xff;
	unsigned int n = wr_id & 0xffff;
	bool recv = tag == CQ_RECV_TAG;
	const struct it_ep *ep;

	IT_EXPECT(t, status == IBV_WC_SUCCESS, "wr_id 0x%llx status %s (%d)",
		  (unsigned long long)wr_id, ibv_wc_status_str(status), status);
	IT_EXPECT(t,
		  (tag == CQ_SEND_TAG || recv) && q < CQ_PAIRS && n < CQ_MSGS &&
			  wr_id == cq_id(tag, q, n),
		  "completion of unknown wr_id 0x%llx",
		  (unsigned long long)wr_id);
	it_where(t, "%s %u of pair %u", recv ? "receive" : "send", n, q);
	ep = recv ? &s->b[q] : &s->a[q];
	IT_EXPECT(t, opcode == (recv ? IBV_WC_RECV : IBV_WC_SEND), "opcode %d",
		  (int)opcode);
	IT_EXPECT(t, qp_num == ep->qp->qp_num, "qp_num 0x%x, expected 0x%x",
		  qp_num, ep->qp->qp_num);
	if (recv) {
		const uint8_t *slot = s->rb->addr + CQ_RSLOT * cq_slot(q, n);
		uint32_t len = cq_len(q, n);

		IT_EXPECT(t, !(flags & IBV_WC_WITH_IMM), "wc_flags 0x%x",
			  flags);
		IT_EXPECT(t, byte_len == len, "byte_len %u, expected %u",
			  byte_len, len);
		if (it_verify(t, slot, len, s->seed[q], (size_t)n * CQ_MAXLEN,
			      "received bytes") ||
		    it_verify(t, slot + len, CQ_RSLOT - len, s->poison,
			      CQ_RSLOT * cq_slot(q, n) + len,
			      "bytes after the message"))
			return IT_FAIL;
	}
	IT_EXPECT(t, !atomic_fetch_add(&s->seen[recv][q][n], 1),
		  "seen a second time");
	it_where(t, "%s", "");
	atomic_fetch_add(recv ? &s->rdone[q] : &s->sdone[q], 1);
	atomic_fetch_add(&s->nseen, 1);
	return 0;
}

/* Up to @max completions of @cq; how many, or -1. */
static int cq_poll_some(struct cq_poller *me, struct ibv_cq_ex *cq, int max)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct ibv_wc wc[4];
	int n = 0, i, ret;

	if (me->k == 0) {
		n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), max, wc);
		if (n < 0) {
			it_fail(&me->t, "ibv_poll_cq returned %d", n);
			return -1;
		}
		for (i = 0; i < n; i++)
			if (cq_seen(me, wc[i].wr_id, wc[i].status, wc[i].opcode,
				    wc[i].qp_num, wc[i].byte_len,
				    wc[i].wc_flags))
				return -1;
		return n;
	}
	ret = ibv_start_poll(cq, &pa);
	if (ret == ENOENT)
		return 0;
	if (ret) {
		it_fail(&me->t, "ibv_start_poll returned %d", ret);
		return -1;
	}
	do {
		if (cq_seen(me, cq->wr_id, cq->status, ibv_wc_read_opcode(cq),
			    ibv_wc_read_qp_num(cq), ibv_wc_read_byte_len(cq),
			    ibv_wc_read_wc_flags(cq))) {
			ibv_end_poll(cq);
			return -1;
		}
	} while (++n < max && !(ret = ibv_next_poll(cq)));
	ibv_end_poll(cq);
	if (ret && ret != ENOENT) {
		it_fail(&me->t, "ibv_next_poll returned %d", ret);
		return -1;
	}
	return n;
}

static int cq_poll_run(struct cq_poller *me)
{
	const unsigned int total = 2 * CQ_PAIRS * CQ_MSGS;
	struct cq_shared *s = me->s;
	struct it_test *t = &me->t;
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	unsigned int last = 0, round = 0, seen;

	while ((seen = atomic_load(&s->nseen)) < total) {
		int max = 1 + round++ % 4, a, b;

		if (th_stopped(&s->stop))
			return TH_STOPPED;
		a = cq_poll_some(me, s->scq, max);
		if (a < 0)
			return IT_FAIL;
		b = cq_poll_some(me, s->rcq, max);
		if (b < 0)
			return IT_FAIL;
		/* Progress is anyone's: the other poller may take all. */
		if (seen != last) {
			last = seen;
			deadline = it_now_ms() + t->env->timeout_ms;
		} else if (it_now_ms() > deadline) {
			return it_fail(t,
				       "nothing for %u ms: %u of %u "
				       "completions seen",
				       t->env->timeout_ms, seen, total);
		}
		if (!a && !b)
			it_pause();
	}
	return 0;
}

static void *cq_poller_main(void *arg)
{
	struct cq_poller *me = arg;

	if (cq_poll_run(me) == IT_FAIL || me->t.result == IT_FAIL)
		atomic_store(&me->s->stop, true);
	return NULL;
}

/* The test's thread posts receives ahead and sends, both pairs in turn. */
static int cq_post_all(struct it_test *t, struct cq_shared *s)
{
	unsigned int rposted[CQ_PAIRS] = { 0 }, sposted[CQ_PAIRS] = { 0 };
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	int q, left = CQ_PAIRS;

	while (left) {
		bool progress = false;

		if (th_stopped(&s->stop))
			return TH_STOPPED;
		for (left = 0, q = 0; q < CQ_PAIRS; q++) {
			unsigned int rd = atomic_load(&s->rdone[q]);
			unsigned int sd = atomic_load(&s->sdone[q]);
			int burst;

			for (burst = 0; burst < 4 && rposted[q] < CQ_MSGS &&
					rposted[q] - rd < CQ_DEPTH;
			     burst++) {
				unsigned int n = rposted[q]++;

				if (it_post_recv(
					    t, s->b[q].qp,
					    cq_id(CQ_RECV_TAG, q, n), s->rb,
					    CQ_RSLOT * cq_slot(q, n), CQ_RSLOT))
					return IT_FAIL;
				progress = true;
			}
			for (burst = 0; burst < 4 && sposted[q] < rposted[q] &&
					sposted[q] - sd < CQ_DEPTH;
			     burst++) {
				unsigned int n = sposted[q]++;
				struct ibv_send_wr wr;
				struct ibv_sge sge;

				it_wr(&wr, &sge, cq_id(CQ_SEND_TAG, q, n),
				      IBV_WR_SEND, s->sb,
				      CQ_MAXLEN * cq_slot(q, n), cq_len(q, n));
				if (it_post_send(t, s->a[q].qp, &wr))
					return IT_FAIL;
				progress = true;
			}
			if (sposted[q] < CQ_MSGS)
				left++;
		}
		if (progress) {
			deadline = it_now_ms() + t->env->timeout_ms;
		} else if (it_now_ms() > deadline) {
			return it_fail(t,
				       "no room to post for %u ms: pair 0 "
				       "%u/%u sends/receives posted, pair 1 "
				       "%u/%u",
				       t->env->timeout_ms, sposted[0],
				       rposted[0], sposted[1], rposted[1]);
		} else {
			it_pause();
		}
	}
	return 0;
}

static int cq_run(struct it_test *t, struct cq_shared *s, struct th_objs *objs)
{
	struct cq_poller p[CQ_POLLERS];
	uint64_t deadline;
	int q, n, k, i, ret, stuck = 0;

	s->scq = th_cq_ex(t, objs, 4 * CQ_DEPTH, 0, 0, NULL);
	s->rcq = s->scq ? th_cq_ex(t, objs, 4 * CQ_DEPTH, 0, 0, NULL) : NULL;
	if (!s->rcq)
		return IT_FAIL;
	for (q = 0; q < CQ_PAIRS; q++) {
		if (th_qp(t, objs, &s->a[q], t->env->pd,
			  ibv_cq_ex_to_cq(s->scq), ibv_cq_ex_to_cq(s->rcq),
			  NULL, CQ_DEPTH) ||
		    th_qp(t, objs, &s->b[q], t->env->pd,
			  ibv_cq_ex_to_cq(s->scq), ibv_cq_ex_to_cq(s->rcq),
			  NULL, CQ_DEPTH) ||
		    th_connect(t, &s->a[q], &s->b[q]))
			return IT_FAIL;
		s->seed[q] = it_seed(t, 100 + q);
		for (i = 0; i < CQ_MSGS; i++)
			it_fill(s->sb->addr + CQ_MAXLEN * cq_slot(q, i),
				cq_len(q, i), s->seed[q],
				(size_t)i * CQ_MAXLEN);
	}
	memset(p, 0, sizeof(p));
	for (n = 0; n < CQ_POLLERS; n++) {
		th_init_test(&p[n].t, t);
		p[n].s = s;
		p[n].k = n;
		ret = pthread_create(&p[n].id, NULL, cq_poller_main, &p[n]);
		if (ret) {
			it_fail(t, "pthread_create: %s", strerror(ret));
			atomic_store(&s->stop, true);
			break;
		}
	}
	if (n == CQ_POLLERS && cq_post_all(t, s) == IT_FAIL)
		atomic_store(&s->stop, true);
	deadline = th_deadline(t);
	for (k = 0; k < n; k++) {
		char who[32];

		snprintf(who, sizeof(who), "poller %d", k);
		stuck += th_join(t, p[k].id, who, &s->stop, deadline);
		th_collect(t, &p[k].t, who, IT_FAIL);
	}
	if (stuck)
		return -1;
	if (t->result != IT_PASS)
		return IT_FAIL;
	for (k = 0; k < 2; k++)
		for (q = 0; q < CQ_PAIRS; q++)
			for (i = 0; i < CQ_MSGS; i++)
				IT_EXPECT(t,
					  atomic_load(&s->seen[k][q][i]) == 1,
					  "%s %d of pair %d seen %d times",
					  k ? "receive" : "send", i, q,
					  atomic_load(&s->seen[k][q][i]));
	if (it_quiet(t, ibv_cq_ex_to_cq(s->scq), "send CQ") ||
	    it_quiet(t, ibv_cq_ex_to_cq(s->rcq), "receive CQ"))
		return IT_FAIL;
	return 0;
}

static int threads_sharing_one_cq_poll_each_completion_once(struct it_test *t,
							    long arg)
{
	struct cq_shared *s = it_alloc(t, sizeof(*s));
	struct th_objs objs = { .n = 0 };
	int q, i, k, ret;

	atomic_init(&s->stop, false);
	atomic_init(&s->nseen, 0);
	for (q = 0; q < CQ_PAIRS; q++) {
		atomic_init(&s->sdone[q], 0);
		atomic_init(&s->rdone[q], 0);
		for (k = 0; k < 2; k++)
			for (i = 0; i < CQ_MSGS; i++)
				atomic_init(&s->seen[k][q][i], 0);
	}
	s->poison = it_seed(t, 1);
	s->sb = it_buf_new(t, (size_t)CQ_PAIRS * CQ_MSGS * CQ_MAXLEN,
			   IBV_ACCESS_LOCAL_WRITE, 0);
	s->rb = it_buf_new(t, (size_t)CQ_PAIRS * CQ_MSGS * CQ_RSLOT,
			   IBV_ACCESS_LOCAL_WRITE, s->poison);
	if (!s->sb || !s->rb)
		return IT_FAIL;
	ret = cq_run(t, s, &objs);
	if (ret < 0)
		return IT_FAIL; /* a poller may still use the objects */
	th_release(t, &objs);
	return t->result;
}

/*
 * 4. Thread and parent domains: bad arguments, EBUSY while in use, and
 * everything deallocated with 0 in the right order.
 */
static int td_life_cycle_steps(struct it_test *t, struct th_objs *objs,
			       struct ibv_td *td)
{
	struct ibv_context *ctx = t->env->ctx;
	struct ibv_td_init_attr tda = { .comp_mask = 1 };
	struct ibv_parent_domain_init_attr pda = { .pd = NULL };
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_td *td2;
	struct ibv_pd *pd, *pad, *bad;
	struct ibv_cq_ex *cq;
	struct it_ep ep;
	int ret, err;

	it_where(t, "ibv_alloc_td with comp_mask 1");
	errno = 0;
	td2 = ibv_alloc_td(ctx, &tda);
	err = errno;
	if (td2)
		th_keep(objs, TH_TD, td2);
	IT_EXPECT(t, !td2 && err == EINVAL,
		  "returned %p, errno %d (%s), "
		  "expected NULL and EINVAL",
		  (void *)td2, err, strerror(err));

	it_where(t, "setup");
	pd = ibv_alloc_pd(ctx);
	IT_EXPECT(t, pd, "ibv_alloc_pd: %s", strerror(errno));
	th_keep(objs, TH_PD, pd);
	pda.pd = pd;
	pda.td = td;
	pad = ibv_alloc_parent_domain(ctx, &pda);
	IT_EXPECT(t, pad, "ibv_alloc_parent_domain: %s", strerror(errno));
	th_keep(objs, TH_PD, pad);

	it_where(t, "in use by a parent domain");
	ret = ibv_dealloc_td(td);
	if (!ret)
		th_forget(objs, td);
	IT_EXPECT(t, ret == EBUSY,
		  "ibv_dealloc_td returned %d, expected "
		  "EBUSY",
		  ret);
	ret = ibv_dealloc_pd(pd);
	if (!ret)
		th_forget(objs, pd);
	IT_EXPECT(t, ret == EBUSY,
		  "ibv_dealloc_pd of the wrapped PD "
		  "returned %d, expected EBUSY",
		  ret);

	it_where(t, "ibv_alloc_parent_domain with a NULL pd");
	pda.pd = NULL;
	errno = 0;
	bad = ibv_alloc_parent_domain(ctx, &pda);
	err = errno;
	if (bad)
		th_keep(objs, TH_PD, bad);
	IT_EXPECT(t, !bad && err == EINVAL,
		  "returned %p, errno %d (%s), "
		  "expected NULL and EINVAL",
		  (void *)bad, err, strerror(err));

	it_where(t, "ibv_create_cq_ex with a plain PD as parent domain");
	ca.parent_domain = pd;
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &ca);
	err = errno;
	if (cq)
		th_keep(objs, TH_CQ, ibv_cq_ex_to_cq(cq));
	IT_EXPECT(t, !cq && err == EINVAL,
		  "returned %p, errno %d (%s), "
		  "expected NULL and EINVAL",
		  (void *)cq, err, strerror(err));

	/* Objects in the parent domain, then everything in order. */
	it_where(t, "a CQ and a QP in the parent domain");
	ca.parent_domain = pad;
	cq = ibv_create_cq_ex(ctx, &ca);
	IT_EXPECT(t, cq, "ibv_create_cq_ex: %s", strerror(errno));
	th_keep(objs, TH_CQ, ibv_cq_ex_to_cq(cq));
	if (th_qp(t, objs, &ep, pad, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq),
		  NULL, 8) ||
	    it_ep_bring_up(t, &ep, IBV_QPS_INIT, 0))
		return IT_FAIL;

	it_where(t, "destroying in order");
	ret = ibv_destroy_qp(ep.qp);
	IT_EXPECT(t, !ret, "ibv_destroy_qp returned %d", ret);
	th_forget(objs, ep.qp);
	ret = ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	IT_EXPECT(t, !ret, "ibv_destroy_cq returned %d", ret);
	th_forget(objs, ibv_cq_ex_to_cq(cq));
	ret = ibv_dealloc_pd(pad);
	IT_EXPECT(t, !ret, "ibv_dealloc_pd of the parent domain returned %d",
		  ret);
	th_forget(objs, pad);
	ret = ibv_dealloc_td(td);
	IT_EXPECT(t, !ret, "ibv_dealloc_td returned %d", ret);
	th_forget(objs, td);
	ret = ibv_dealloc_pd(pd);
	IT_EXPECT(t, !ret, "ibv_dealloc_pd returned %d", ret);
	th_forget(objs, pd);
	it_where(t, "%s", "");
	return 0;
}

static int td_and_parent_domain_life_cycle(struct it_test *t, long arg)
{
	struct ibv_td_init_attr tda = { .comp_mask = 0 };
	struct th_objs objs = { .n = 0 };
	struct ibv_td *td;
	int err;

	td = ibv_alloc_td(t->env->ctx, &tda);
	err = errno;
	if (!td) {
		if (err == EOPNOTSUPP)
			return it_skip(t, "ibv_alloc_td: %s", strerror(err));
		return it_fail(t, "ibv_alloc_td: %s", strerror(err));
	}
	th_keep(&objs, TH_TD, td);
	td_life_cycle_steps(t, &objs, td);
	it_where(t, "%s", "");
	th_release(t, &objs);
	return t->result;
}

const struct it_case it_cases_threads[] = {
	{ "threads_on_separate_td_qps_each_deliver_all_bytes",
	  threads_on_separate_td_qps_each_deliver_all_bytes, 0 },
	{ "threads_sharing_one_qp_post_without_loss_or_duplicates",
	  threads_sharing_one_qp_post_without_loss_or_duplicates, 0 },
	{ "threads_sharing_one_cq_poll_each_completion_once",
	  threads_sharing_one_cq_poll_each_completion_once, 0 },
	{ "td_and_parent_domain_life_cycle", td_and_parent_domain_life_cycle,
	  0 },
	{ NULL, NULL, 0 },
};
