// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-m5perf bw: streams of SEND or RDMA WRITE on several RC QP pairs
 * of the model, as ib_send_bw / ib_write_bw do: post lists of -l WRs, the
 * last one signaled, at most -t WRs in flight per QP.  Completions are
 * polled, or with -e waited for on armed CQs through the model's
 * interrupt path.  Message rate and bandwidth per virtual second (the
 * time model of m5perf.h: the port's link time per message) and per host
 * second (the CPU cost of provider + model).  Every message is checked:
 * SENDs at the receiver, WRITEs in the target buffer when their
 * completion arrives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m5perf.h"

struct bw_pair {
	struct ibv_qp *a; /* sender */
	struct ibv_qp *b; /* receiver */
	struct ibv_mr *smr;
	struct ibv_mr *rmr;
	uint64_t posted;   /* messages posted */
	uint64_t done;	   /* messages the send CQ completed */
	uint64_t received; /* messages the receiver checked (SEND) */
};

struct bw {
	struct m5p_rig r;
	const struct m5p_opts *o;
	struct m5p_pat p;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct bw_pair q[M5P_MAX_QPS];
	size_t slot;
	uint64_t iters; /* per QP */
	struct ibv_send_wr *wr;
	struct ibv_sge *sge;
	uint64_t drained; /* completions polled at the end without an event */
};

static uint8_t *bw_slot(const struct bw *w, struct ibv_mr *mr, uint64_t seq)
{
	return (uint8_t *)mr->addr + (seq % w->o->tx_depth) * w->slot;
}

static int bw_post_recv(struct bw *w, unsigned int qi, uint64_t seq)
{
	struct bw_pair *q = &w->q[qi];
	struct ibv_sge sge = { (uintptr_t)bw_slot(w, q->rmr, seq), w->o->size,
			       q->rmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)qi << 48 | seq,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(q->b, &wr, &bad);

	return ret ? m5p_err("bw QP %u: ibv_post_recv: %s", qi, strerror(ret))
		   : 0;
}

static int bw_open(struct bw *w)
{
	const struct m5p_opts *o = w->o;
	uint32_t inl = o->size <= o->inline_size ? o->inline_size : 0;
	unsigned int i, d = o->tx_depth;
	uint64_t s;

	w->slot = ((size_t)o->size + 63) & ~(size_t)63;
	w->wr = calloc(o->post_list, sizeof(*w->wr));
	w->sge = calloc(o->post_list, sizeof(*w->sge));
	if (!w->wr || !w->sge)
		return m5p_err("out of memory");
	w->scq = m5p_cq(&w->r, (int)(d * o->qps), NULL, o->events, 0,
			o->cq_count, o->cq_period);
	w->rcq = m5p_cq(&w->r, (int)(d * o->qps), NULL, o->events, 0,
			o->cq_count, o->cq_period);
	if (!w->scq || !w->rcq)
		return -1;
	for (i = 0; i < o->qps; i++) {
		w->q[i].smr = m5p_mr(&w->r, w->slot * d);
		w->q[i].rmr = m5p_mr(&w->r, w->slot * d);
		if (!w->q[i].smr || !w->q[i].rmr)
			return -1;
		w->q[i].a = m5p_qp(&w->r, w->scq, w->scq, d, 1, inl);
		w->q[i].b = m5p_qp(&w->r, w->rcq, w->rcq, 1, d, 0);
		if (!w->q[i].a || !w->q[i].b ||
		    m5p_connect(&w->r, w->q[i].a, w->q[i].b))
			return -1;
		for (s = 0; o->verb == M5P_SEND && s < d; s++)
			if (bw_post_recv(w, i, s))
				return -1;
	}
	if (o->events &&
	    (ibv_req_notify_cq(w->scq, 0) || ibv_req_notify_cq(w->rcq, 0)))
		return m5p_err("ibv_req_notify_cq failed");
	return 0;
}

static void bw_close(struct bw *w)
{
	unsigned int i;

	m5p_drain_events(&w->r);
	for (i = 0; i < M5P_MAX_QPS; i++) {
		if (w->q[i].a && ibv_destroy_qp(w->q[i].a))
			m5p_err("ibv_destroy_qp failed");
		if (w->q[i].b && ibv_destroy_qp(w->q[i].b))
			m5p_err("ibv_destroy_qp failed");
		m5p_mr_free(w->q[i].smr);
		m5p_mr_free(w->q[i].rmr);
	}
	if (w->scq && ibv_destroy_cq(w->scq))
		m5p_err("ibv_destroy_cq failed");
	if (w->rcq && ibv_destroy_cq(w->rcq))
		m5p_err("ibv_destroy_cq failed");
	free(w->wr);
	free(w->sge);
}

/* One post list on pair qi if the credits allow: 1 posted, 0 not, -1. */
static int bw_post_list(struct bw *w, unsigned int qi)
{
	const struct m5p_opts *o = w->o;
	struct bw_pair *q = &w->q[qi];
	uint64_t left = w->iters - q->posted, seq;
	unsigned int n =
		left < o->post_list ? (unsigned int)left : o->post_list;
	struct ibv_send_wr *bad;
	unsigned int i;
	int ret;

	if (!n || q->posted - q->done + n > o->tx_depth ||
	    (o->verb == M5P_SEND && q->posted - q->received + n > o->tx_depth))
		return 0;
	for (i = 0; i < n; i++) {
		seq = q->posted + i;
		m5p_pat_fill(&w->r, &w->p, bw_slot(w, q->smr, seq), seq);
		w->sge[i] =
			(struct ibv_sge){ (uintptr_t)bw_slot(w, q->smr, seq),
					  o->size, q->smr->lkey };
		w->wr[i] = (struct ibv_send_wr){
			.wr_id = (uint64_t)qi << 48 | seq,
			.next = i + 1 < n ? &w->wr[i + 1] : NULL,
			.sg_list = &w->sge[i],
			.num_sge = 1,
			.opcode = o->verb == M5P_WRITE ? IBV_WR_RDMA_WRITE
						       : IBV_WR_SEND,
			.send_flags =
				(i + 1 == n ? IBV_SEND_SIGNALED : 0) |
				(o->size <= o->inline_size ? IBV_SEND_INLINE
							   : 0),
		};
		w->wr[i].wr.rdma.remote_addr =
			(uintptr_t)bw_slot(w, q->rmr, seq);
		w->wr[i].wr.rdma.rkey = q->rmr->rkey;
	}
	/* The port is busy for n messages, then the doorbell. */
	w->r.vt_ns += n * m5p_link_ns(o, o->size);
	m5p_sync(&w->r);
	ret = ibv_post_send(q->a, w->wr, &bad);
	if (ret)
		return m5p_err("bw QP %u: ibv_post_send: %s", qi,
			       strerror(ret));
	q->posted += n;
	return 1;
}

/* A send completion: the list up to seq is done (WRITE: check it). */
static int bw_send_done(struct bw *w, const struct ibv_wc *wc)
{
	unsigned int qi = (unsigned int)(wc->wr_id >> 48);
	uint64_t seq = wc->wr_id & ((1ull << 48) - 1);
	struct bw_pair *q = &w->q[qi];
	bool write = w->o->verb == M5P_WRITE;

	if (m5p_wc_ok(wc, write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND))
		return -1;
	if (qi >= w->o->qps || seq < q->done || seq >= q->posted)
		return m5p_err("bw: send completion 0x%llx out of order",
			       (unsigned long long)wc->wr_id);
	for (; write && q->done <= seq; q->done++)
		if (m5p_pat_check(&w->r, &w->p, bw_slot(w, q->rmr, q->done),
				  q->done, "bw WRITE target"))
			return -1;
	q->done = seq + 1;
	return 0;
}

static int bw_recv_done(struct bw *w, const struct ibv_wc *wc)
{
	unsigned int qi = (unsigned int)(wc->wr_id >> 48);
	uint64_t seq = wc->wr_id & ((1ull << 48) - 1);
	struct bw_pair *q = &w->q[qi];

	if (m5p_wc_ok(wc, IBV_WC_RECV))
		return -1;
	if (qi >= w->o->qps || wc->qp_num != q->b->qp_num ||
	    seq != q->received || wc->byte_len != w->o->size)
		return m5p_err("bw: receive 0x%llx (%u bytes, QP 0x%x) is not "
			       "the next one",
			       (unsigned long long)wc->wr_id, wc->byte_len,
			       wc->qp_num);
	if (m5p_pat_check(&w->r, &w->p, bw_slot(w, q->rmr, seq), seq,
			  "bw SEND receiver"))
		return -1;
	q->received++;
	return bw_post_recv(w, qi, seq + w->o->tx_depth);
}

/* Everything cq has now; the number handled or -1. */
static int bw_drain(struct bw *w, struct ibv_cq *cq)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;

	while ((n = ibv_poll_cq(cq, 32, wc)) > 0) {
		for (i = 0; i < n; i++)
			if (cq == w->scq ? bw_send_done(w, &wc[i])
					 : bw_recv_done(w, &wc[i]))
				return -1;
		total += n;
	}
	return n < 0 ? m5p_err("ibv_poll_cq: %d", n) : total;
}

static bool bw_finished(const struct bw *w, bool *sent)
{
	unsigned int i;
	bool all = true;

	*sent = true;
	for (i = 0; i < w->o->qps; i++) {
		if (w->q[i].done < w->iters)
			*sent = false;
		if (w->q[i].done < w->iters ||
		    (w->o->verb == M5P_SEND && w->q[i].received < w->iters))
			all = false;
	}
	return all;
}

/*
 * -e: one event through the model's IRQ handler, then that CQ polled,
 * re-armed and polled again.  Once everything is sent, receive CQEs that
 * moderation will never report (a count not reached, no period) are
 * polled without an event and counted.
 */
static int bw_event(struct bw *w, bool sent)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	int n;

	m5m_irq_service(w->r.dev);
	if (!m5p_event_ready(&w->r)) {
		if (m5m_next_deadline(w->r.dev) != UINT64_MAX || !sent)
			return m5p_next_timer(&w->r, "a completion event");
		n = bw_drain(w, w->rcq);
		w->drained += n > 0 ? (uint64_t)n : 0;
		return n > 0 ? 0 : m5p_err("bw: receives missing at the end");
	}
	if (ibv_get_cq_event(w->r.ch, &cq, &cq_ctx))
		return m5p_err("ibv_get_cq_event: %m");
	ibv_ack_cq_events(cq, 1);
	w->r.events++;
	if (bw_drain(w, cq) < 0)
		return -1;
	if (ibv_req_notify_cq(cq, 0))
		return m5p_err("ibv_req_notify_cq failed");
	return bw_drain(w, cq) < 0 ? -1 : 0;
}

static int bw_loop(struct bw *w)
{
	unsigned int i;
	int got, progress;
	bool sent;

	while (!bw_finished(w, &sent)) {
		progress = 0;
		for (i = 0; i < w->o->qps; i++) {
			while ((got = bw_post_list(w, i)) > 0)
				progress = 1;
			if (got < 0)
				return -1;
		}
		if (w->o->events) {
			if (bw_event(w, sent))
				return -1;
			continue;
		}
		got = bw_drain(w, w->scq);
		if (got < 0)
			return -1;
		progress |= got;
		got = w->o->verb == M5P_SEND ? bw_drain(w, w->rcq) : 0;
		if (got < 0)
			return -1;
		if (!(progress | got) && m5p_next_timer(&w->r, "a completion"))
			return -1;
	}
	return 0;
}

static void bw_report(struct bw *w, uint64_t host_ns)
{
	static const char *const line =
		"-------------------------------------------------------------"
		"--------------------------";
	const struct m5p_opts *o = w->o;
	double msgs = (double)w->iters * o->qps;
	double vs = (double)w->r.vt_ns / 1e9, hs = (double)host_ns / 1e9;

	printf("%s\n", line);
	printf(" doorbell-m5perf bw: RC %s, %u QP pair(s), post list %u, "
	       "tx depth %u, on the software ConnectX (model), %s\n",
	       o->verb == M5P_WRITE ? "RDMA WRITE" : "SEND", o->qps,
	       o->post_list, o->tx_depth,
	       o->events ? "events (-e: req_notify_cq + get_cq_event)"
			 : "polling");
	printf(" time model: the port is busy per message %llu ns + size x "
	       "8 / %g Gb/s; all QPs share it\n",
	       (unsigned long long)o->msg_ns, o->gbps);
	if (o->cq_count || o->cq_period)
		printf(" CQ moderation: cq_max_count %u, cq_period %u us\n",
		       o->cq_count, o->cq_period);
	if (o->int_period)
		printf(" MODEL-ONLY int_period %u us per vector: NOT mlx5 "
		       "behaviour\n",
		       o->int_period);
	printf("%s\n", line);
	printf(" #bytes     #iterations  clock               BW "
	       "average[Gb/sec]  BW average[MB/sec]  MsgRate[Mpps]\n");
	printf(" %-10u %-12llu virtual (model)     %-20.2f %-19.2f %.6f\n",
	       o->size, (unsigned long long)w->iters,
	       msgs * o->size * 8 / vs / 1e9, msgs * o->size / vs / 1048576,
	       msgs / vs / 1e6);
	printf(" %-10u %-12llu host CPU            %-20.2f %-19.2f %.6f\n",
	       o->size, (unsigned long long)w->iters,
	       msgs * o->size * 8 / hs / 1e9, msgs * o->size / hs / 1048576,
	       msgs / hs / 1e6);
	printf(" virtual: per second of the model's clock (%.1f us for the "
	       "run), from the time model above, not from hardware\n",
	       (double)w->r.vt_ns / 1000);
	printf(" host CPU: per second of host time spent in provider + "
	       "model (%.3f ms, m5perf's own data fills and checks "
	       "excluded); not hardware\n",
	       (double)host_ns / 1e6);
	if (o->events)
		printf(" events: %llu completion events through the model's "
		       "IRQ handler, %llu interrupts handled, %llu receive "
		       "completions polled at the end without an event\n",
		       (unsigned long long)w->r.events,
		       (unsigned long long)m5p_irqs(&w->r, NULL),
		       (unsigned long long)w->drained);
	printf(" checked: %.0f messages arrived as sent\n", msgs);
	printf("%s\n", line);
}

int m5p_bw(const struct m5p_opts *o)
{
	struct bw *w = calloc(1, sizeof(*w));
	uint64_t host;
	int ret = -1;

	if (!w)
		return m5p_err("out of memory");
	w->o = o;
	w->iters = o->iters ? o->iters : 5000;
	if (o->qps < 1 || o->qps > M5P_MAX_QPS || o->post_list < 1 ||
	    o->post_list > o->tx_depth) {
		free(w);
		return m5p_err("bw needs 1..%d QPs and 1 <= post list <= tx "
			       "depth",
			       M5P_MAX_QPS);
	}
	if (m5p_pat_init(&w->p, o->size, o->seed) ||
	    m5p_rig_open(&w->r, o, 1, 1, o->events) || bw_open(w))
		goto out;
	m5m_reset_stats(w->r.dev);
	host = m5p_host_ns();
	if (bw_loop(w))
		goto out;
	host = m5p_host_ns() - host - w->r.data_ns;
	if (o->events && !w->r.events) {
		m5p_err("bw -e: no completion event was read");
		goto out;
	}
	bw_report(w, host);
	ret = 0;
out:
	bw_close(w);
	if (w->r.dev && m5p_rig_close(&w->r))
		ret = -1;
	m5p_pat_free(&w->p);
	free(w);
	return ret;
}
