// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-m5perf lat: RC ping-pong between two QPs on the model, as
 * ib_send_lat / ib_write_lat do it.  SEND: each side waits for its receive
 * completion (polling, or with -e an armed CQ, the model's interrupt and
 * ibv_get_cq_event).  WRITE: each side writes into the other's buffer and
 * the other "polls memory" for it.  Latency is half the round trip in
 * virtual time (m5perf.h); every message is checked on arrival.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m5perf.h"

#define LAT_RX 16 /* receives kept posted on each side */

struct lat_side {
	const char *name;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr; /* slot 0: send; 1..LAT_RX: receive / write target */
	uint8_t *buf;
	size_t slot;	 /* bytes per slot */
	uint64_t expect; /* next message seq to arrive */
};

static uint8_t *lat_slot(struct lat_side *s, unsigned int i)
{
	return s->buf + i * s->slot;
}

static int lat_post_recv(struct lat_side *s, unsigned int slot, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)lat_slot(s, slot), len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(s->qp, &wr, &bad);

	return ret ? m5p_err("%s: ibv_post_recv: %s", s->name, strerror(ret))
		   : 0;
}

static int lat_open(struct m5p_rig *r, struct lat_side *s, const char *name)
{
	const struct m5p_opts *o = r->o;

	s->name = name;
	s->slot = ((size_t)o->size + 63) & ~(size_t)63;
	s->mr = m5p_mr(r, s->slot * (LAT_RX + 1));
	if (!s->mr)
		return -1;
	s->buf = s->mr->addr;
	s->scq = m5p_cq(r, 16, s, false, 0, 0, 0);
	s->rcq = m5p_cq(r, 2 * LAT_RX, s, o->events, 0, o->cq_count,
			o->cq_period);
	if (!s->scq || !s->rcq)
		return -1;
	s->qp = m5p_qp(r, s->scq, s->rcq, 16, LAT_RX,
		       o->size <= o->inline_size ? o->inline_size : 0);
	return s->qp ? 0 : -1;
}

/* Receives go on a QP past RESET. */
static int lat_post_all(struct m5p_rig *r, struct lat_side *s)
{
	unsigned int i;

	for (i = 1; r->o->verb == M5P_SEND && i <= LAT_RX; i++)
		if (lat_post_recv(s, i, r->o->size))
			return -1;
	return 0;
}

static void lat_close(struct lat_side *s)
{
	if (s->qp && ibv_destroy_qp(s->qp))
		m5p_err("%s: ibv_destroy_qp failed", s->name);
	if (s->rcq && ibv_destroy_cq(s->rcq))
		m5p_err("%s: ibv_destroy_cq failed", s->name);
	if (s->scq && ibv_destroy_cq(s->scq))
		m5p_err("%s: ibv_destroy_cq failed", s->name);
	m5p_mr_free(s->mr);
}

/* from sends message seq to to: the wire time passes, then the doorbell. */
static int lat_send(struct m5p_rig *r, const struct m5p_pat *p,
		    struct lat_side *from, struct lat_side *to, uint64_t seq)
{
	const struct m5p_opts *o = r->o;
	struct ibv_sge sge = { (uintptr_t)lat_slot(from, 0), o->size,
			       from->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode =
			o->verb == M5P_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED |
			      (o->size <= o->inline_size ? IBV_SEND_INLINE : 0),
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	if (o->verb == M5P_WRITE) {
		wr.wr.rdma.remote_addr = (uintptr_t)lat_slot(to, 1);
		wr.wr.rdma.rkey = to->mr->rkey;
	}
	m5p_pat_fill(r, p, lat_slot(from, 0), seq);
	r->vt_ns += m5p_oneway_ns(r, o->size);
	m5p_sync(r);
	ret = ibv_post_send(from->qp, &wr, &bad);
	if (ret)
		return m5p_err("%s: ibv_post_send: %s", from->name,
			       strerror(ret));
	if (m5p_poll_wait(r, from->scq, &wc, 1) < 0 ||
	    m5p_wc_ok(&wc,
		      o->verb == M5P_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_SEND))
		return -1;
	if (wc.wr_id != seq)
		return m5p_err("%s: send completion for %llu, expected %llu",
			       from->name, (unsigned long long)wc.wr_id,
			       (unsigned long long)seq);
	return 0;
}

/* -e: the receive CQ's event, then poll, re-arm, poll again. */
static int lat_recv_event(struct m5p_rig *r, struct lat_side *s,
			  struct ibv_wc *wc)
{
	struct ibv_cq *cq;
	int n;

	if (m5p_event_wait(r, &cq))
		return -1;
	if (cq != s->rcq)
		return m5p_err("%s: an event for another CQ", s->name);
	n = ibv_poll_cq(s->rcq, 1, wc);
	if (n != 1)
		return m5p_err("%s: an event, then %d completions", s->name, n);
	if (ibv_req_notify_cq(s->rcq, 0))
		return m5p_err("%s: ibv_req_notify_cq failed", s->name);
	n = ibv_poll_cq(s->rcq, 1, wc + 1);
	return n ? m5p_err("%s: an unexpected completion", s->name) : 0;
}

/* Message seq arrives at s: wait for it, check it, give the slot back. */
static int lat_recv(struct m5p_rig *r, const struct m5p_pat *p,
		    struct lat_side *s, uint64_t seq)
{
	struct ibv_wc wc[2];

	if (r->o->verb == M5P_WRITE)
		return m5p_pat_check(r, p, lat_slot(s, 1), seq, s->name);
	if (r->o->events ? lat_recv_event(r, s, wc)
			 : m5p_poll_wait(r, s->rcq, wc, 1) < 0)
		return -1;
	if (m5p_wc_ok(wc, IBV_WC_RECV))
		return -1;
	if (wc->byte_len != r->o->size || wc->qp_num != s->qp->qp_num)
		return m5p_err("%s: %u bytes on QP 0x%x, expected %u on 0x%x",
			       s->name, wc->byte_len, wc->qp_num, r->o->size,
			       s->qp->qp_num);
	if (wc->wr_id != 1 + s->expect % LAT_RX)
		return m5p_err("%s: receive slot %llu out of order", s->name,
			       (unsigned long long)wc->wr_id);
	s->expect++;
	if (m5p_pat_check(r, p, lat_slot(s, (unsigned int)wc->wr_id), seq,
			  s->name))
		return -1;
	return lat_post_recv(s, (unsigned int)wc->wr_id, r->o->size);
}

static void lat_report(const struct m5p_opts *o, uint64_t *samples, uint64_t n,
		       uint64_t host_ns, uint64_t events, uint64_t irqs)
{
	static const char *const line =
		"-------------------------------------------------------------"
		"--------------------------";
	struct m5p_dist d;

	m5p_dist(samples, n, &d);
	printf("%s\n", line);
	printf(" doorbell-m5perf lat: RC %s ping-pong on the software "
	       "ConnectX (model), %s\n",
	       o->verb == M5P_WRITE ? "RDMA WRITE" : "SEND",
	       o->events ? "events (-e: req_notify_cq + get_cq_event)"
			 : "polling");
	printf(" time model: one-way = wire %llu ns + per message %llu ns + "
	       "size x 8 / %g Gb/s",
	       (unsigned long long)o->wire_ns, (unsigned long long)o->msg_ns,
	       o->gbps);
	if (o->jitter_ns > 0)
		printf(" + Exp(%g ns) jitter (seed %llu)", o->jitter_ns,
		       (unsigned long long)o->seed);
	printf("; latency = round trip / 2\n");
	if (o->cq_count || o->cq_period)
		printf(" CQ moderation: cq_max_count %u, cq_period %u us\n",
		       o->cq_count, o->cq_period);
	if (o->int_period)
		printf(" MODEL-ONLY int_period %u us per vector: NOT mlx5 "
		       "behaviour\n",
		       o->int_period);
	printf("%s\n", line);
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  "
	       "t_typical[usec]    t_avg[usec]    t_stdev[usec]   99%% "
	       "percentile[usec]   99.9%% percentile[usec]\n");
	printf(" %-7u %-10llu    %-7.2f        %-7.2f      %-7.2f          "
	       "%-7.2f        %-7.2f          %-7.2f                 %-7.2f\n",
	       o->size, (unsigned long long)n, d.min / 1000, d.max / 1000,
	       d.p50 / 1000, d.avg / 1000, d.stdev / 1000, d.p99 / 1000,
	       d.p999 / 1000);
	printf(" (virtual usec of the model's clock: they follow from the "
	       "time model above, not from hardware)\n");
	printf(" host: %.0f ns per iteration (host-CPU time of provider + "
	       "model for one round trip, m5perf's own data fills and checks "
	       "excluded; not hardware)\n",
	       (double)host_ns / (double)n);
	if (o->events)
		printf(" events: %llu completion events through the model's "
		       "IRQ handler, %llu interrupts handled\n",
		       (unsigned long long)events, (unsigned long long)irqs);
	printf(" checked: %llu messages arrived as sent\n",
	       (unsigned long long)(2 * n));
	printf("%s\n", line);
}

static int lat_loop(struct m5p_rig *r, const struct m5p_pat *p,
		    struct lat_side *a, struct lat_side *b, uint64_t *samples,
		    uint64_t n)
{
	uint64_t i, t0;

	for (i = 0; i < n; i++) {
		t0 = r->vt_ns;
		if (lat_send(r, p, a, b, 2 * i) || lat_recv(r, p, b, 2 * i) ||
		    lat_send(r, p, b, a, 2 * i + 1) ||
		    lat_recv(r, p, a, 2 * i + 1))
			return -1;
		samples[i] = (r->vt_ns - t0) / 2;
	}
	return 0;
}

int m5p_lat(const struct m5p_opts *o)
{
	struct lat_side a = { 0 }, b = { 0 };
	uint64_t n = o->iters ? o->iters : 1000, host, *samples;
	struct m5p_pat p = { 0 };
	struct m5p_rig r;
	int ret = -1;

	if (o->events && o->verb == M5P_WRITE)
		return m5p_err("lat -e needs SEND: an RDMA WRITE gives the "
			       "responder no completion to wait for");
	samples = calloc(n, sizeof(*samples));
	if (!samples || m5p_pat_init(&p, o->size, o->seed))
		goto out_free;
	if (m5p_rig_open(&r, o, 1, 1, o->events))
		goto out;
	if (lat_open(&r, &a, "lat side A") || lat_open(&r, &b, "lat side B") ||
	    m5p_connect(&r, a.qp, b.qp) || lat_post_all(&r, &a) ||
	    lat_post_all(&r, &b))
		goto out;
	if (o->events &&
	    (ibv_req_notify_cq(a.rcq, 0) || ibv_req_notify_cq(b.rcq, 0))) {
		m5p_err("ibv_req_notify_cq failed");
		goto out;
	}
	m5m_reset_stats(r.dev);
	host = m5p_host_ns();
	if (lat_loop(&r, &p, &a, &b, samples, n))
		goto out;
	host = m5p_host_ns() - host - r.data_ns;
	if (o->events && r.events != 2 * n) {
		m5p_err("%llu events for %llu messages",
			(unsigned long long)r.events,
			(unsigned long long)(2 * n));
		goto out;
	}
	lat_report(o, samples, n, host, r.events, m5p_irqs(&r, NULL));
	ret = 0;
out:
	m5p_drain_events(&r);
	lat_close(&a);
	lat_close(&b);
	if (m5p_rig_close(&r))
		ret = -1;
out_free:
	m5p_pat_free(&p);
	free(samples);
	return ret;
}
