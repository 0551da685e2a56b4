// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-m5perf's rig: a model device with a context, PD and completion
 * channel; MRs, CQs and RC QPs on it; the virtual clock (m5perf.h says how
 * time advances); waiting for completions and events through the model's
 * IRQ handler; message patterns, statistics and error reports.
 */
#define _GNU_SOURCE
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "m5perf.h"
#include "m5t_verbs.h"

int m5p_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "doorbell-m5perf: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

uint64_t m5p_host_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: small, seedable, good enough for traffic and patterns. */
uint64_t m5p_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double m5p_exp(uint64_t *state, double mean)
{
	/* uniform in (0, 1]: never log(0) */
	double u = ((double)(m5p_rand(state) >> 11) + 1.0) / 9007199254740992.0;

	return -log(u) * mean;
}

/* --- The rig -------------------------------------------------------------- */

int m5p_rig_open(struct m5p_rig *r, const struct m5p_opts *o,
		 unsigned int ncomp, unsigned int nmsix, bool channel)
{
	struct m5m_config cfg;
	unsigned int v;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->rng = o->seed ^ 0x6d35706572660000ull;
	m5m_config_default(&cfg);
	cfg.num_comp_vectors = ncomp;
	cfg.num_comp_msix = nmsix ? nmsix : ncomp;
	cfg.period_mode =
		o->period_cqe ? M5M_PERIOD_FROM_CQE : M5M_PERIOD_FROM_EQE;
	r->dev = m5m_dev_create(&cfg);
	if (!r->dev)
		return m5p_err("cannot create the model device: %m");
	r->ctx = m5m_open(r->dev);
	if (!r->ctx)
		return m5p_err("cannot open a context on the model: %m");
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd)
		return m5p_err("ibv_alloc_pd: %m");
	if (channel) {
		r->ch = m5m_create_comp_channel(r->dev, r->ctx);
		if (!r->ch)
			return m5p_err("cannot create a completion channel");
	}
	/* Model-only (not mlx5 behaviour): every completion vector. */
	for (v = 1; o->int_period && v < m5m_num_vectors(r->dev); v++)
		m5m_set_int_period(r->dev, v, o->int_period);
	return 0;
}

int m5p_rig_close(struct m5p_rig *r)
{
	uint64_t viol;
	int ret = 0;

	if (r->ch && m5m_destroy_comp_channel(r->dev, r->ch))
		ret = m5p_err("completion channel still busy");
	if (r->pd && ibv_dealloc_pd(r->pd))
		ret = m5p_err("ibv_dealloc_pd failed");
	if (r->ctx && ibv_close_device(r->ctx))
		ret = m5p_err("ibv_close_device failed");
	if (r->dev) {
		viol = m5m_violations(r->dev);
		if (viol)
			ret = m5p_err("the model saw %llu protocol violations",
				      (unsigned long long)viol);
		m5m_dev_destroy(r->dev);
	}
	memset(r, 0, sizeof(*r));
	return ret;
}

uint64_t m5p_irqs(struct m5p_rig *r, uint64_t *per_vec)
{
	struct m5m_vec_stats vs;
	unsigned int v;
	uint64_t sum = 0;

	for (v = 1; v < m5m_num_vectors(r->dev); v++) {
		if (m5m_get_vec_stats(r->dev, v, &vs))
			memset(&vs, 0, sizeof(vs));
		sum += vs.handled;
		if (per_vec)
			per_vec[v - 1] = vs.handled;
	}
	return sum;
}

struct ibv_mr *m5p_mr(struct m5p_rig *r, size_t len)
{
	size_t alloc = (len + 4095) & ~(size_t)4095;
	struct ibv_mr *mr;
	void *buf;

	buf = aligned_alloc(4096, alloc ? alloc : 4096);
	if (!buf) {
		m5p_err("out of memory for a %zu-byte buffer", len);
		return NULL;
	}
	memset(buf, 0, alloc ? alloc : 4096);
	mr = ibv_reg_mr(r->pd, buf, alloc ? alloc : 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ);
	if (!mr) {
		m5p_err("ibv_reg_mr (%zu bytes): %m", len);
		free(buf);
	}
	return mr;
}

void m5p_mr_free(struct ibv_mr *mr)
{
	void *buf;

	if (!mr)
		return;
	buf = mr->addr;
	if (ibv_dereg_mr(mr))
		m5p_err("ibv_dereg_mr failed");
	free(buf);
}

struct ibv_cq *m5p_cq(struct m5p_rig *r, int cqe, void *cq_ctx, bool channel,
		      int vector, uint16_t count, uint16_t period)
{
	struct ibv_modify_cq_attr ma = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = count, .cq_period = period },
	};
	struct ibv_cq *cq;
	int ret;

	cq = ibv_create_cq(r->ctx, cqe, cq_ctx, channel ? r->ch : NULL, vector);
	if (!cq) {
		m5p_err("ibv_create_cq (%d entries, vector %d): %m", cqe,
			vector);
		return NULL;
	}
	if (!count && !period)
		return cq;
	ret = ibv_modify_cq(cq, &ma);
	if (ret) {
		m5p_err("ibv_modify_cq (cq_count %u, cq_period %u): %s", count,
			period, strerror(ret));
		ibv_destroy_cq(cq);
		return NULL;
	}
	return cq;
}

struct ibv_qp *m5p_qp(struct m5p_rig *r, struct ibv_cq *scq, struct ibv_cq *rcq,
		      uint32_t sq, uint32_t rq, uint32_t inl)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sq,
			 .max_recv_wr = rq,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = inl },
	};
	struct ibv_qp *qp = ibv_create_qp(r->pd, &qa);

	if (!qp)
		m5p_err("ibv_create_qp (sq %u, rq %u, inline %u): %m", sq, rq,
			inl);
	return qp;
}

static int m5p_rts(struct m5p_rig *r, struct ibv_qp *qp, uint32_t dest)
{
	static const struct m5t_rc_cfg c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.mtu = IBV_MTU_4096,
		.rnr_retry = 7,
	};

	return m5t_rc_up(r->dev, qp, dest, &c);
}

int m5p_connect(struct m5p_rig *r, struct ibv_qp *a, struct ibv_qp *b)
{
	if (m5p_rts(r, a, b->qp_num) || m5p_rts(r, b, a->qp_num))
		return m5p_err("cannot bring QPs 0x%x and 0x%x to RTS",
			       a->qp_num, b->qp_num);
	return 0;
}

/* --- Virtual time --------------------------------------------------------- */

uint64_t m5p_link_ns(const struct m5p_opts *o, uint32_t size)
{
	return o->msg_ns + (uint64_t)ceil((double)size * 8.0 / o->gbps);
}

uint64_t m5p_oneway_ns(struct m5p_rig *r, uint32_t size)
{
	uint64_t t = r->o->wire_ns + m5p_link_ns(r->o, size);

	if (r->o->jitter_ns > 0)
		t += (uint64_t)m5p_exp(&r->rng, r->o->jitter_ns);
	return t;
}

void m5p_sync(struct m5p_rig *r)
{
	uint64_t now = m5m_now(r->dev), want = r->vt_ns / 1000;

	if (want > now)
		m5m_clock_advance(r->dev, want - now);
}

int m5p_next_timer(struct m5p_rig *r, const char *waiting_for)
{
	uint64_t d = m5m_next_deadline(r->dev), now = m5m_now(r->dev);

	if (d == UINT64_MAX)
		return m5p_err("waiting for %s, but no event is queued and the "
			       "model has no timer pending: it would wait for "
			       "ever (a cq_max_count this traffic never "
			       "reaches, with no cq_period?)",
			       waiting_for);
	m5m_clock_advance(r->dev, d > now ? d - now : 0);
	if (r->vt_ns < d * 1000)
		r->vt_ns = d * 1000;
	return 0;
}

int m5p_poll_wait(struct m5p_rig *r, struct ibv_cq *cq, struct ibv_wc *wc,
		  int n)
{
	int got, spins;

	for (spins = 0; spins < 100000; spins++) {
		got = ibv_poll_cq(cq, n, wc);
		if (got < 0)
			return m5p_err("ibv_poll_cq: %d", got);
		if (got)
			return got;
		/* Nothing yet: a deferred device write, then a timer. */
		m5m_step(r->dev);
		got = ibv_poll_cq(cq, n, wc);
		if (got)
			return got < 0 ? m5p_err("ibv_poll_cq: %d", got) : got;
		if (m5p_next_timer(r, "a completion"))
			return -1;
	}
	return m5p_err("no completion after 100000 model timers");
}

bool m5p_event_ready(struct m5p_rig *r)
{
	struct pollfd pfd = { .fd = r->ch->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

void m5p_drain_events(struct m5p_rig *r)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	while (r->ch && m5p_event_ready(r) &&
	       !ibv_get_cq_event(r->ch, &cq, &cq_ctx))
		ibv_ack_cq_events(cq, 1);
}

int m5p_event_wait(struct m5p_rig *r, struct ibv_cq **cq)
{
	void *cq_ctx;
	int spins;

	for (spins = 0; spins < 100000; spins++) {
		/* The fake kernel's interrupt handler, for every vector. */
		m5m_irq_service(r->dev);
		if (m5p_event_ready(r)) {
			if (ibv_get_cq_event(r->ch, cq, &cq_ctx))
				return m5p_err("ibv_get_cq_event: %m");
			ibv_ack_cq_events(*cq, 1);
			r->events++;
			return 0;
		}
		if (m5p_next_timer(r, "a completion event"))
			return -1;
	}
	return m5p_err("no completion event after 100000 model timers");
}

int m5p_wc_ok(const struct ibv_wc *wc, enum ibv_wc_opcode op)
{
	if (wc->status != IBV_WC_SUCCESS)
		return m5p_err("completion wr_id 0x%llx: %s (vendor_err 0x%x)",
			       (unsigned long long)wc->wr_id,
			       ibv_wc_status_str(wc->status), wc->vendor_err);
	if (wc->opcode != op)
		return m5p_err("completion wr_id 0x%llx: opcode %d, expected "
			       "%d",
			       (unsigned long long)wc->wr_id, wc->opcode, op);
	return 0;
}

/* --- Message patterns ----------------------------------------------------- */

int m5p_pat_init(struct m5p_pat *p, uint32_t size, uint64_t seed)
{
	uint64_t s = seed ^ 0x7061747465726eull;
	uint32_t i;

	p->size = size;
	p->ref = malloc((size_t)size + 256);
	if (!p->ref)
		return m5p_err("out of memory for the message pattern");
	for (i = 0; i < size + 256; i++)
		p->ref[i] = (uint8_t)m5p_rand(&s);
	return 0;
}

void m5p_pat_free(struct m5p_pat *p)
{
	free(p->ref);
	p->ref = NULL;
}

static void m5p_pat_head(uint8_t *h, uint32_t size, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < size && i < 8; i++)
		h[i] = (uint8_t)(seq >> (8 * i));
}

void m5p_pat_fill(struct m5p_rig *r, const struct m5p_pat *p, uint8_t *dst,
		  uint64_t seq)
{
	uint64_t t0 = m5p_host_ns();

	m5p_pat_head(dst, p->size, seq);
	if (p->size > 8)
		memcpy(dst + 8, p->ref + (seq & 255) + 8, p->size - 8);
	r->data_ns += m5p_host_ns() - t0;
}

int m5p_pat_check(struct m5p_rig *r, const struct m5p_pat *p,
		  const uint8_t *buf, uint64_t seq, const char *what)
{
	uint64_t t0 = m5p_host_ns();
	uint8_t h[8] = { 0 };
	uint32_t n = p->size < 8 ? p->size : 8, i;
	int ret = 0;

	m5p_pat_head(h, p->size, seq);
	if (memcmp(buf, h, n))
		ret = m5p_err("%s: message %llu: the header does not match "
			      "(another message's bytes?)",
			      what, (unsigned long long)seq);
	else if (p->size > 8 &&
		 memcmp(buf + 8, p->ref + (seq & 255) + 8, p->size - 8)) {
		for (i = 8; buf[i] == p->ref[(seq & 255) + i]; i++)
			;
		ret = m5p_err("%s: message %llu: byte %u is 0x%02x, sent "
			      "0x%02x",
			      what, (unsigned long long)seq, i, buf[i],
			      p->ref[(seq & 255) + i]);
	}
	r->data_ns += m5p_host_ns() - t0;
	return ret;
}

/* --- Statistics ----------------------------------------------------------- */

static int m5p_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as perftest's percentiles. */
static double m5p_rank(const uint64_t *v, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n);

	return (double)v[i ? i - 1 : 0];
}

void m5p_dist(uint64_t *v, size_t n, struct m5p_dist *d)
{
	double sum = 0, sq = 0;
	size_t i;

	qsort(v, n, sizeof(*v), m5p_cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)v[i];
	d->avg = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += ((double)v[i] - d->avg) * ((double)v[i] - d->avg);
	d->stdev = sqrt(sq / (double)n);
	d->min = (double)v[0];
	d->max = (double)v[n - 1];
	d->p50 = m5p_rank(v, n, 0.5);
	d->p99 = m5p_rank(v, n, 0.99);
	d->p999 = m5p_rank(v, n, 0.999);
}
