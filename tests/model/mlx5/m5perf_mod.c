// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-m5perf moderation: the interrupt-moderation experiment.  For
 * every (cq_max_count, cq_period) setting, with the completion EQs on one
 * shared MSI-X vector and then on one vector each, the same seeded
 * traffic runs on the virtual clock: QP i sends to its peer, whose
 * receive CQ is alone on completion EQ i, at Poisson (or fixed) times.
 * One consumer waits on a single completion channel; on each event it
 * polls that CQ empty (checking every message), re-arms it and polls
 * again.  The fake kernel's IRQ handler runs once per virtual µs.
 * Reported per run: completions, channel events, interrupts handled
 * (per vector), and for every completion the time from its CQE to the
 * event the consumer read before polling it.  A markdown table, and a
 * CSV with --csv.  --check asserts what the experiment is for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m5perf.h"

struct mod_q {
	struct ibv_qp *a; /* sender */
	struct ibv_qp *b; /* receiver */
	struct ibv_cq *rcq;
	struct ibv_mr *smr;
	struct ibv_mr *rmr;
	uint64_t sent;
	uint64_t got;
	double next_ns;	   /* the next arrival, virtual ns */
	uint64_t rng;	   /* this QP's arrival stream */
	uint64_t *sent_at; /* per receive slot: the µs its message was sent */
};

struct mod_res {
	struct m5p_setting s;
	unsigned int msix;
	uint64_t completions, via_events, stranded;
	uint64_t events, irqs, raised, spurious, throttled;
	uint64_t per_vec[M5P_MAX_CQS];
	struct m5p_dist lat; /* per completion, µs */
	uint64_t host_ns;
	uint64_t end_us;
};

struct mod {
	struct m5p_rig r;
	const struct m5p_opts *o;
	struct m5p_pat p;
	struct ibv_cq *scq;
	struct mod_q q[M5P_MAX_CQS];
	size_t slot;
	uint64_t *lat;
	size_t nlat, cap;
	uint64_t hook_n; /* events the model wrote to the channel */
};

static void mod_hook(void *arg, const struct m5m_event_info *ev)
{
	struct mod *m = arg;

	(void)ev;
	m->hook_n++;
}

static uint8_t *mod_slot(struct mod *m, struct ibv_mr *mr, uint64_t seq)
{
	return (uint8_t *)mr->addr + (seq % m->o->rx_depth) * m->slot;
}

static int mod_post_recv(struct mod *m, unsigned int qi, uint64_t seq)
{
	struct mod_q *q = &m->q[qi];
	struct ibv_sge sge = { (uintptr_t)mod_slot(m, q->rmr, seq), m->o->size,
			       q->rmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = seq, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(q->b, &wr, &bad);

	return ret ? m5p_err("QP %u: ibv_post_recv: %s", qi, strerror(ret)) : 0;
}

static int mod_open_q(struct mod *m, unsigned int i, struct m5p_setting s)
{
	const struct m5p_opts *o = m->o;
	struct mod_q *q = &m->q[i];
	uint64_t k;

	q->rng = o->seed * 0x100000001b3ull + i;
	q->next_ns = o->fixed ? o->interval_us * 1000 * i / o->cqs
			      : m5p_exp(&q->rng, o->interval_us * 1000);
	q->sent_at = calloc(o->rx_depth, sizeof(*q->sent_at));
	q->smr = m5p_mr(&m->r, m->slot);
	q->rmr = m5p_mr(&m->r, m->slot * o->rx_depth);
	q->rcq = m5p_cq(&m->r, (int)(2 * o->rx_depth), (void *)(uintptr_t)i,
			true, (int)i, s.count, s.period);
	if (!q->sent_at || !q->smr || !q->rmr || !q->rcq)
		return m5p_err("cannot set up QP %u", i);
	q->a = m5p_qp(&m->r, m->scq, m->scq, 16, 1,
		      o->size <= o->inline_size ? o->inline_size : 0);
	q->b = m5p_qp(&m->r, q->rcq, q->rcq, 1, o->rx_depth, 0);
	if (!q->a || !q->b || m5p_connect(&m->r, q->a, q->b))
		return -1;
	for (k = 0; k < o->rx_depth; k++)
		if (mod_post_recv(m, i, k))
			return -1;
	if (ibv_req_notify_cq(q->rcq, 0))
		return m5p_err("ibv_req_notify_cq failed");
	return 0;
}

static int mod_open(struct mod *m, struct m5p_setting s, unsigned int msix)
{
	const struct m5p_opts *o = m->o;
	unsigned int i;

	if (m5p_rig_open(&m->r, o, o->cqs, msix, true))
		return -1;
	m5m_set_event_hook(m->r.dev, mod_hook, m);
	m->scq = m5p_cq(&m->r, (int)(o->cqs * 64), NULL, false, 0, 0, 0);
	if (!m->scq)
		return -1;
	for (i = 0; i < o->cqs; i++)
		if (mod_open_q(m, i, s))
			return -1;
	return 0;
}

static int mod_close(struct mod *m)
{
	unsigned int i;
	int ret = 0;

	m5p_drain_events(&m->r);
	for (i = 0; i < M5P_MAX_CQS; i++) {
		struct mod_q *q = &m->q[i];

		if ((q->a && ibv_destroy_qp(q->a)) ||
		    (q->b && ibv_destroy_qp(q->b)) ||
		    (q->rcq && ibv_destroy_cq(q->rcq)))
			ret = m5p_err("cannot destroy QP %u's objects", i);
		m5p_mr_free(q->smr);
		m5p_mr_free(q->rmr);
		free(q->sent_at);
	}
	if (m->scq && ibv_destroy_cq(m->scq))
		ret = m5p_err("cannot destroy the send CQ");
	if (m->r.dev) {
		m5m_set_event_hook(m->r.dev, NULL, NULL);
		if (m5p_rig_close(&m->r))
			ret = -1;
	}
	memset(m->q, 0, sizeof(m->q));
	m->scq = NULL;
	return ret;
}

/* Message q->sent from QP qi, at virtual µs now. */
static int mod_send(struct mod *m, unsigned int qi, uint64_t now)
{
	struct mod_q *q = &m->q[qi];
	const struct m5p_opts *o = m->o;
	struct ibv_sge sge = { (uintptr_t)q->smr->addr, o->size, q->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = q->sent,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED |
			      (o->size <= o->inline_size ? IBV_SEND_INLINE : 0),
	};
	struct ibv_send_wr *bad;
	int ret;

	if (q->sent - q->got >= o->rx_depth)
		return m5p_err("QP %u: %u messages and no event to consume "
			       "them: the receive queue would run dry "
			       "(moderation that never fires, e.g. a "
			       "START_FROM_CQE period longer than the gap "
			       "between messages?  Or raise --rx-depth)",
			       qi, o->rx_depth);
	m5p_pat_fill(&m->r, &m->p, q->smr->addr, q->sent);
	q->sent_at[q->sent % o->rx_depth] = now;
	ret = ibv_post_send(q->a, &wr, &bad);
	if (ret)
		return m5p_err("QP %u: ibv_post_send: %s", qi, strerror(ret));
	q->sent++;
	return 0;
}

static int mod_arrivals(struct mod *m, uint64_t now)
{
	const struct m5p_opts *o = m->o;
	double end = (double)(now + 1) * 1000;
	unsigned int i;

	for (i = 0; i < o->cqs; i++) {
		while (m->q[i].next_ns < end) {
			if (mod_send(m, i, now))
				return -1;
			m->q[i].next_ns +=
				o->fixed ? o->interval_us * 1000
					 : m5p_exp(&m->q[i].rng,
						   o->interval_us * 1000);
		}
	}
	return 0;
}

static int mod_send_cqes(struct mod *m)
{
	struct ibv_wc wc[32];
	int n, i;

	while ((n = ibv_poll_cq(m->scq, 32, wc)) > 0)
		for (i = 0; i < n; i++)
			if (m5p_wc_ok(&wc[i], IBV_WC_SEND))
				return -1;
	return n < 0 ? m5p_err("ibv_poll_cq: %d", n) : 0;
}

static int mod_keep_lat(struct mod *m, uint64_t v)
{
	uint64_t *n;

	if (m->nlat == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 4096;
		n = realloc(m->lat, m->cap * sizeof(*n));
		if (!n)
			return m5p_err("out of memory");
		m->lat = n;
	}
	m->lat[m->nlat++] = v;
	return 0;
}

/* Poll QP qi's CQ empty; latency samples against now unless stranded. */
static int mod_consume(struct mod *m, unsigned int qi, uint64_t now,
		       struct mod_res *res, bool stranded)
{
	struct mod_q *q = &m->q[qi];
	struct ibv_wc wc[32];
	uint64_t seq;
	int n, i;

	while ((n = ibv_poll_cq(q->rcq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			seq = wc[i].wr_id;
			if (m5p_wc_ok(&wc[i], IBV_WC_RECV))
				return -1;
			if (seq != q->got || wc[i].byte_len != m->o->size)
				return m5p_err("QP %u: receive %llu (%u bytes) "
					       "is not the next one",
					       qi, (unsigned long long)seq,
					       wc[i].byte_len);
			if (m5p_pat_check(&m->r, &m->p,
					  mod_slot(m, q->rmr, seq), seq,
					  "moderation receiver"))
				return -1;
			if (stranded)
				res->stranded++;
			else if (mod_keep_lat(m,
					      now - q->sent_at[seq %
							       m->o->rx_depth]))
				return -1;
			q->got++;
			res->completions++;
			if (mod_post_recv(m, qi, seq + m->o->rx_depth))
				return -1;
		}
	}
	return n < 0 ? m5p_err("ibv_poll_cq: %d", n) : 0;
}

/* Every event the IRQ handler queued: poll, re-arm, poll again. */
static int mod_events(struct mod *m, uint64_t now, struct mod_res *res)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	unsigned int qi;

	while (m5p_event_ready(&m->r)) {
		if (ibv_get_cq_event(m->r.ch, &cq, &cq_ctx))
			return m5p_err("ibv_get_cq_event: %m");
		ibv_ack_cq_events(cq, 1);
		res->events++;
		qi = (unsigned int)(uintptr_t)cq_ctx;
		if (qi >= m->o->cqs || m->q[qi].rcq != cq)
			return m5p_err("an event for an unknown CQ");
		if (mod_consume(m, qi, now, res, false))
			return -1;
		if (ibv_req_notify_cq(cq, 0))
			return m5p_err("ibv_req_notify_cq failed");
		if (mod_consume(m, qi, now, res, false))
			return -1;
	}
	return 0;
}

static bool mod_all_got(const struct mod *m)
{
	unsigned int i;

	for (i = 0; i < m->o->cqs; i++)
		if (m->q[i].got != m->q[i].sent)
			return false;
	return true;
}

/* The traffic, tick by tick (1 virtual µs), then what is left. */
static int mod_traffic(struct mod *m, struct mod_res *res)
{
	const struct m5p_opts *o = m->o;
	uint64_t now, limit = o->duration_us + 1000000;
	unsigned int i;

	for (;;) {
		now = m5m_now(m->r.dev);
		if (now < o->duration_us && mod_arrivals(m, now))
			return -1;
		if (mod_send_cqes(m))
			return -1;
		m5m_irq_service(m->r.dev);
		if (mod_events(m, now, res))
			return -1;
		if (now + 1 >= o->duration_us &&
		    (mod_all_got(m) ||
		     m5m_next_deadline(m->r.dev) == UINT64_MAX))
			break;
		if (now > limit)
			return m5p_err("traffic did not drain by %llu us",
				       (unsigned long long)limit);
		m5m_clock_advance(m->r.dev, 1);
	}
	res->end_us = m5m_now(m->r.dev);
	/* Below cq_max_count with no period: no event will ever come. */
	for (i = 0; i < o->cqs; i++)
		if (mod_consume(m, i, res->end_us, res, true))
			return -1;
	if (!mod_all_got(m))
		return m5p_err("messages were sent but never arrived");
	return 0;
}

static int mod_run(struct mod *m, struct m5p_setting s, unsigned int msix,
		   struct mod_res *res)
{
	struct m5m_vec_stats vs;
	uint64_t host = m5p_host_ns();
	unsigned int v;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->s = s;
	res->msix = msix;
	m->nlat = 0;
	m->hook_n = 0;
	if (mod_open(m, s, msix))
		goto out;
	m5m_reset_stats(m->r.dev);
	if (mod_traffic(m, res))
		goto out;
	res->irqs = m5p_irqs(&m->r, res->per_vec);
	for (v = 1; v < m5m_num_vectors(m->r.dev); v++) {
		if (m5m_get_vec_stats(m->r.dev, v, &vs))
			continue;
		res->raised += vs.raised;
		res->spurious += vs.spurious;
		res->throttled += vs.throttled;
	}
	res->via_events = m->nlat;
	if (m->nlat)
		m5p_dist(m->lat, m->nlat, &res->lat);
	if (m->hook_n == res->events)
		ret = 0;
	else
		m5p_err("the model wrote %llu events, the consumer read %llu",
			(unsigned long long)m->hook_n,
			(unsigned long long)res->events);
out:
	if (mod_close(m))
		ret = -1;
	res->host_ns = m5p_host_ns() - host;
	return ret;
}

/* --- Output --------------------------------------------------------------- */

static void mod_label(const struct m5p_setting *s, char *buf, size_t len)
{
	if (!s->count && !s->period)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%u/%uus", s->count, s->period);
}

static void mod_per_vec(const struct mod_res *x, char *buf, size_t len,
			char sep)
{
	size_t off = 0;
	unsigned int v;

	buf[0] = 0;
	for (v = 0; v < x->msix && off < len; v++)
		off += (size_t)snprintf(buf + off, len - off, "%s%llu",
					v ? (char[]){ sep, 0 } : "",
					(unsigned long long)x->per_vec[v]);
}

static double mod_per_k(const struct mod_res *x)
{
	return x->completions
		       ? 1000.0 * (double)x->irqs / (double)x->completions
		       : 0;
}

static void mod_header(const struct m5p_opts *o)
{
	printf("## doorbell-m5perf moderation: virtual-clock figures of the "
	       "model, not hardware\n\n");
	printf("Traffic: %u RC QPs, each SENDing %u-byte messages to its "
	       "own receive CQ (CQ i on completion EQ i), %s arrivals "
	       "%g us apart on average per QP, for %llu virtual us "
	       "(seed %llu); the same traffic for every row.  cq_period "
	       "mode: %s.  One consumer on one completion channel: per "
	       "event it polls the CQ empty, re-arms, polls again.  The "
	       "fake kernel's IRQ handler runs once per virtual us; the "
	       "model charges no time for an interrupt itself.\n\n",
	       o->cqs, o->size, o->fixed ? "fixed-interval" : "Poisson",
	       o->interval_us, (unsigned long long)o->duration_us,
	       (unsigned long long)o->seed,
	       o->period_cqe ? "START_FROM_CQE" : "START_FROM_EQE");
	if (o->int_period)
		printf("**MODEL-ONLY int_period = %u us per MSI-X vector is "
		       "ON: this throttle is NOT mlx5 behaviour (mlx5 EQs "
		       "have no moderation); it is a model option.**\n\n",
		       o->int_period);
	printf("| cq_max_count / cq_period | MSI-X vectors | completions | "
	       "channel events | interrupts (per vector) | interrupts per "
	       "1000 completions | completions per interrupt | latency avg "
	       "(us) | p50 | p99 | max |\n");
	printf("|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|\n");
}

static void mod_row(const struct m5p_opts *o, const struct mod_res *x)
{
	char label[32], vec[512], left[48] = "";

	mod_label(&x->s, label, sizeof(label));
	mod_per_vec(x, vec, sizeof(vec), '/');
	if (x->stranded)
		snprintf(left, sizeof(left), " (%llu without event)",
			 (unsigned long long)x->stranded);
	printf("| %s | %u %s | %llu%s | %llu | %llu (%s) | %.1f | %.2f | "
	       "%.2f | %.0f | %.0f | %.0f |\n",
	       label, x->msix,
	       x->msix == 1 && o->cqs > 1 ? "shared" : "dedicated",
	       (unsigned long long)x->completions, left,
	       (unsigned long long)x->events, (unsigned long long)x->irqs, vec,
	       mod_per_k(x),
	       x->irqs ? (double)x->completions / (double)x->irqs : 0,
	       x->lat.avg, x->lat.p50, x->lat.p99, x->lat.max);
}

static int mod_csv(const struct m5p_opts *o, const struct mod_res *res,
		   unsigned int n)
{
	FILE *f = fopen(o->csv, "w");
	char label[32], vec[512];
	unsigned int i;

	if (!f)
		return m5p_err("cannot write %s: %s", o->csv, strerror(errno));
	fprintf(f, "label,cq_max_count,cq_period_us,period_mode,msix_vectors,"
		   "sharing,int_period_us_model_only,completions,"
		   "completions_via_events,completions_stranded,"
		   "channel_events,interrupts,interrupts_per_vector,"
		   "interrupts_raised,interrupts_spurious,"
		   "interrupts_per_1000_completions,completions_per_interrupt,"
		   "lat_avg_us,lat_p50_us,lat_p99_us,lat_max_us,"
		   "virtual_end_us,host_ms,cqs,size,arrivals,"
		   "interval_us,duration_us,seed\n");
	for (i = 0; i < n; i++) {
		const struct mod_res *x = &res[i];

		mod_label(&x->s, label, sizeof(label));
		mod_per_vec(x, vec, sizeof(vec), ';');
		fprintf(f,
			"%s,%u,%u,%s,%u,%s,%u,%llu,%llu,%llu,%llu,%llu,%s,"
			"%llu,%llu,%.3f,%.3f,%.3f,%.0f,%.0f,%.0f,%llu,%.3f,"
			"%u,%u,%s,%g,%llu,%llu\n",
			label, x->s.count, x->s.period,
			o->period_cqe ? "cqe" : "eqe", x->msix,
			x->msix == 1 && o->cqs > 1 ? "shared" : "dedicated",
			o->int_period, (unsigned long long)x->completions,
			(unsigned long long)x->via_events,
			(unsigned long long)x->stranded,
			(unsigned long long)x->events,
			(unsigned long long)x->irqs, vec,
			(unsigned long long)x->raised,
			(unsigned long long)x->spurious, mod_per_k(x),
			x->irqs ? (double)x->completions / (double)x->irqs : 0,
			x->lat.avg, x->lat.p50, x->lat.p99, x->lat.max,
			(unsigned long long)x->end_us, (double)x->host_ns / 1e6,
			o->cqs, o->size, o->fixed ? "fixed" : "poisson",
			o->interval_us, (unsigned long long)o->duration_us,
			(unsigned long long)o->seed);
	}
	if (fclose(f))
		return m5p_err("cannot write %s", o->csv);
	return 0;
}

/* --- --check -------------------------------------------------------------- */

/* Same period, more count: the count is the only difference. */
static bool mod_comparable(const struct m5p_setting *a,
			   const struct m5p_setting *b)
{
	return a->period == b->period && a->count < b->count &&
	       (a->count || !a->period);
}

static int mod_check(const struct mod_res *res, unsigned int n)
{
	const struct mod_res *a, *b;
	unsigned int i, j, pairs = 0, strict = 0;
	int ret = 0;

	for (i = 0; i + 1 < n; i += 2)
		if (res[i].irqs > res[i + 1].irqs)
			ret = m5p_err("check: %u/%u: a shared vector took %llu "
				      "interrupts, dedicated ones %llu",
				      res[i].s.count, res[i].s.period,
				      (unsigned long long)res[i].irqs,
				      (unsigned long long)res[i + 1].irqs);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			a = &res[i];
			b = &res[j];
			if (a->msix != b->msix || !mod_comparable(&a->s, &b->s))
				continue;
			pairs++;
			if (mod_per_k(b) > mod_per_k(a) ||
			    b->lat.avg < a->lat.avg)
				ret = m5p_err("check: cq_max_count %u -> %u "
					      "(cq_period %u, %u vectors): "
					      "%.1f -> %.1f interrupts per "
					      "1000, latency %.2f -> %.2f us",
					      a->s.count, b->s.count,
					      a->s.period, a->msix,
					      mod_per_k(a), mod_per_k(b),
					      a->lat.avg, b->lat.avg);
			if (mod_per_k(b) < mod_per_k(a) &&
			    b->lat.avg > a->lat.avg)
				strict++;
		}
	if (!pairs || !strict)
		ret = m5p_err("check: no two settings differ only in a larger "
			      "cq_max_count with strictly fewer interrupts and "
			      "more latency");
	if (!ret)
		printf("\ncheck: a larger cq_max_count never gave more "
		       "interrupts per completion or less latency (%u pairs, "
		       "%u strictly); a shared vector never took more "
		       "interrupts than dedicated ones (%u settings)\n",
		       pairs, strict, n / 2);
	return ret;
}

int m5p_moderation(const struct m5p_opts *o)
{
	struct mod_res *res = calloc(2 * o->nset, sizeof(*res));
	struct mod *m = calloc(1, sizeof(*m));
	unsigned int i, n = 0, msix[2] = { 1, o->cqs };
	uint64_t host = m5p_host_ns(), total = 0;
	int ret = -1;

	if (!res || !m || m5p_pat_init(&m->p, o->size, o->seed))
		goto out;
	m->o = o;
	m->slot = ((size_t)o->size + 63) & ~(size_t)63;
	mod_header(o);
	for (i = 0; i < 2 * o->nset; i++, n++) {
		if (mod_run(m, o->set[i / 2], msix[i % 2], &res[i]))
			goto out;
		mod_row(o, &res[i]);
		fflush(stdout);
		total += res[i].completions;
	}
	printf("\nlatency: per completion, from its CQE to the channel event "
	       "the consumer read before polling it, in virtual us (whole "
	       "us: the model's clock).  \"off\" = cq_max_count 0 and "
	       "cq_period 0.  \"without event\": CQEs below cq_max_count "
	       "when the traffic stopped (no period to fire them), polled "
	       "at the end and left out of the latency.  Every one of the %llu "
	       "messages was checked: "
	       "bytes arrived as sent.  Host time for the sweep: %.2f s.\n",
	       (unsigned long long)total, (double)(m5p_host_ns() - host) / 1e9);
	ret = 0;
	if (o->csv && mod_csv(o, res, n))
		ret = -1;
	if (o->check && mod_check(res, n))
		ret = -1;
out:
	if (m) {
		m5p_pat_free(&m->p);
		free(m->lat);
	}
	free(m);
	free(res);
	return ret;
}
