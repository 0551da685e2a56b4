// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-removal: an application that keeps RC traffic going through a
 * device while the device is removed (tests/guest/device-removal.sh runs
 * `rdma link delete` beside it), then tears everything down.
 *
 *   doorbell-removal [-d DEV] [-g GIDX] [-t SECS] [-w MS]
 *
 * Traffic: QP a sends numbered 256-byte messages to QP b (a window of 8 in
 * flight); b's receive CQ is driven by a completion channel, a's send CQ is
 * polled.  Every send completion and every received message is checked: in
 * order, once, with the bytes that were sent.  Every wait is bounded.
 *
 * The application watches for removal two ways: IBV_EVENT_DEVICE_FATAL on
 * the async fd, and the device leaving ibv_get_device_list.  Once either
 * happens it keeps the traffic going for -w MS (default 3000) more, or
 * stops at once on DEVICE_FATAL or a failed post/poll; then it drains what
 * is in flight, moves b to ERR so its receives flush, and destroys every
 * QP, CQ, MR, the channel, the PD, and closes the context.
 *
 * It prints "READY" once traffic runs, one informational "removal:" line,
 * then one line per check:
 *   device_removal_traffic_exactly_once
 *   device_removal_noticed_by_app
 *   device_removal_delivers_device_fatal
 *   device_removal_app_destroys_everything_and_closes
 * Exit status 0 if nothing FAILed, 1 otherwise, 2 on a setup error.  A
 * watchdog (-t + 30 s) turns a hang into a FAIL line and exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "test_ibdev.h"

enum {
	MSG = 256,
	WINDOW = 8,	 /* sends in flight */
	NRECV = 16,	 /* receives posted at b */
	STALL_MS = 5000, /* no progress for this long: stalled */
};

struct app {
	const char *dev;
	int gidx;
	unsigned int secs, grace_ms;

	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq_a, *scq_b, *rcq_b;
	struct ibv_qp *a, *b;
	struct ibv_mr *smr, *rmr;
	uint8_t *sbuf, *rbuf;
	union ibv_gid gid;
	struct ibv_port_attr port;

	/* traffic */
	uint64_t sent, send_done, recv_posted, recv_done;
	unsigned int send_err, recv_err; /* error completions */
	char traffic_fail[256];
	bool stop_posting;

	/* removal */
	int fatal_events, port_err_events, other_events;
	char events[256];
	uint64_t t_start, t_gone, t_fatal;
	int post_fail, poll_fail;
};

static char watchdog_msg[] = "FAIL device_removal_app_destroys_everything_"
			     "and_closes: watchdog: the application hung\n";

static void watchdog(int sig)
{
	ssize_t n =
		write(STDOUT_FILENO, watchdog_msg, sizeof(watchdog_msg) - 1);

	(void)sig;
	(void)n;
	_exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void traffic_fail(struct app *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void traffic_fail(struct app *p, const char *fmt, ...)
{
	va_list ap;

	if (p->traffic_fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(p->traffic_fail, sizeof(p->traffic_fail), fmt, ap);
	va_end(ap);
	p->stop_posting = true;
}

/* Removal was seen: errors are allowed from now on, not duplicates. */
static bool removal_seen(const struct app *p)
{
	return p->t_gone || p->t_fatal;
}

/* Message @seq: its number, then bytes derived from it. */
static void fill_msg(uint8_t *m, uint64_t seq)
{
	uint64_t x = seq * 0x9e3779b97f4a7c15ull + 1;
	int i;

	memcpy(m, &seq, 8);
	for (i = 8; i < MSG; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		m[i] = (uint8_t)x;
	}
}

static int check_msg(const uint8_t *m, uint64_t seq)
{
	uint8_t want[MSG];

	fill_msg(want, seq);
	return memcmp(m, want, MSG);
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *qa, int mask,
		  const char *what)
{
	int ret = ibv_modify_qp(qp, qa, mask);

	if (ret)
		fprintf(stderr, "removal: ibv_modify_qp(%s): %s\n", what,
			strerror(ret));
	return ret;
}

static int connect_qp(struct app *p, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (modify(qp, &qa,
		   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   IBV_QP_ACCESS_FLAGS,
		   "INIT"))
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = p->port.active_mtu;
	qa.dest_qp_num = dqpn;
	qa.rq_psn = dqpn & 0xffffff;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 1;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.port_num = 1;
	qa.ah_attr.grh.dgid = p->gid;
	qa.ah_attr.grh.sgid_index = p->gidx;
	qa.ah_attr.grh.hop_limit = 64;
	if (modify(qp, &qa,
		   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   "RTR"))
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = qp->qp_num & 0xffffff;
	qa.timeout = 12;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	return modify(qp, &qa,
		      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			      IBV_QP_MAX_QP_RD_ATOMIC,
		      "RTS");
}

static int open_dev(struct app *p)
{
	struct ibv_device **list, **d;

	list = ibv_get_device_list(NULL);
	if (!list) {
		fprintf(stderr, "removal: ibv_get_device_list: %s\n",
			strerror(errno));
		return -1;
	}
	for (d = list; *d; d++)
		if (!strcmp(ibv_get_device_name(*d), p->dev))
			break;
	if (*d)
		p->ctx = ibv_open_device(*d);
	ibv_free_device_list(list);
	if (!p->ctx) {
		fprintf(stderr, "removal: cannot open %s\n", p->dev);
		return -1;
	}
	return 0;
}

static struct ibv_qp *make_qp(struct app *p, struct ibv_cq *scq,
			      struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = { .max_send_wr = 2 * WINDOW,
			 .max_recv_wr = NRECV,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	return ibv_create_qp(p->pd, &ia);
}

static int setup(struct app *p)
{
	int fl;

	if (open_dev(p))
		return -1;
	if (ibv_query_port(p->ctx, 1, &p->port) ||
	    ibv_query_gid(p->ctx, 1, p->gidx, &p->gid)) {
		fprintf(stderr, "removal: query port/gid failed\n");
		return -1;
	}
	fl = fcntl(p->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(p->ctx->async_fd, F_SETFL, fl | O_NONBLOCK)) {
		perror("removal: fcntl(async_fd)");
		return -1;
	}
	p->pd = ibv_alloc_pd(p->ctx);
	p->ch = p->pd ? ibv_create_comp_channel(p->ctx) : NULL;
	if (!p->ch) {
		perror("removal: PD / channel");
		return -1;
	}
	fl = fcntl(p->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(p->ch->fd, F_SETFL, fl | O_NONBLOCK)) {
		perror("removal: fcntl(channel)");
		return -1;
	}
	p->cq_a = ibv_create_cq(p->ctx, 64, NULL, NULL, 0);
	p->scq_b = ibv_create_cq(p->ctx, 64, NULL, NULL, 0);
	p->rcq_b = ibv_create_cq(p->ctx, 64, NULL, p->ch, 0);
	if (!p->cq_a || !p->scq_b || !p->rcq_b) {
		perror("removal: ibv_create_cq");
		return -1;
	}
	p->a = make_qp(p, p->cq_a, p->cq_a);
	p->b = p->a ? make_qp(p, p->scq_b, p->rcq_b) : NULL;
	if (!p->b) {
		perror("removal: ibv_create_qp");
		return -1;
	}
	p->sbuf = calloc(WINDOW, MSG);
	p->rbuf = calloc(NRECV, MSG);
	if (!p->sbuf || !p->rbuf)
		return -1;
	p->smr = ibv_reg_mr(p->pd, p->sbuf, WINDOW * MSG, 0);
	p->rmr = p->smr ? ibv_reg_mr(p->pd, p->rbuf, NRECV * MSG,
				     IBV_ACCESS_LOCAL_WRITE)
			: NULL;
	if (!p->rmr) {
		perror("removal: ibv_reg_mr");
		return -1;
	}
	if (connect_qp(p, p->a, p->b->qp_num) ||
	    connect_qp(p, p->b, p->a->qp_num))
		return -1;
	if (ibv_req_notify_cq(p->rcq_b, 0)) {
		fprintf(stderr, "removal: ibv_req_notify_cq failed\n");
		return -1;
	}
	return 0;
}

/* Receive @k is slot k % NRECV; its wr_id is k. */
static int post_recv(struct app *p, uint64_t k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->rbuf + (k % NRECV) * MSG),
		.length = MSG,
		.lkey = p->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(p->b, &wr, &bad);

	if (ret) {
		p->post_fail++;
		if (!removal_seen(p))
			traffic_fail(p,
				     "ibv_post_recv(%llu) returned %d "
				     "before any sign of removal",
				     (unsigned long long)k, ret);
		p->stop_posting = true;
		return ret;
	}
	p->recv_posted++;
	return 0;
}

static int post_send(struct app *p)
{
	uint64_t seq = p->sent;
	uint8_t *m = p->sbuf + (seq % WINDOW) * MSG;
	struct ibv_sge sge = {
		.addr = (uintptr_t)m,
		.length = MSG,
		.lkey = p->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int ret;

	fill_msg(m, seq);
	ret = ibv_post_send(p->a, &wr, &bad);
	if (ret) {
		p->post_fail++;
		if (!removal_seen(p))
			traffic_fail(p,
				     "ibv_post_send(%llu) returned %d "
				     "before any sign of removal",
				     (unsigned long long)seq, ret);
		p->stop_posting = true;
		return ret;
	}
	p->sent++;
	return 0;
}

/* Send completions: in order, once; errors only once removal was seen. */
static int reap_sends(struct app *p)
{
	struct ibv_wc wc[WINDOW];
	int n, i;

	n = ibv_poll_cq(p->cq_a, WINDOW, wc);
	if (n < 0) {
		p->poll_fail++;
		if (!removal_seen(p))
			traffic_fail(p, "ibv_poll_cq(a) returned %d", n);
		p->stop_posting = true;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id != p->send_done) {
			traffic_fail(p,
				     "send completion for %llu, expected "
				     "%llu (lost or duplicated)",
				     (unsigned long long)wc[i].wr_id,
				     (unsigned long long)p->send_done);
			return n;
		}
		p->send_done++;
		if (wc[i].status != IBV_WC_SUCCESS) {
			p->send_err++;
			p->stop_posting = true;
			if (!removal_seen(p))
				traffic_fail(p,
					     "send %llu: %s before any "
					     "sign of removal",
					     (unsigned long long)wc[i].wr_id,
					     ibv_wc_status_str(wc[i].status));
		}
	}
	return n;
}

/* Receive completions: in order, once, the right bytes; repost. */
static int reap_recvs(struct app *p, bool repost)
{
	struct ibv_wc wc[NRECV];
	int n, i;

	n = ibv_poll_cq(p->rcq_b, NRECV, wc);
	if (n < 0) {
		p->poll_fail++;
		if (!removal_seen(p))
			traffic_fail(p, "ibv_poll_cq(b) returned %d", n);
		p->stop_posting = true;
		return 0;
	}
	for (i = 0; i < n; i++) {
		uint64_t k = wc[i].wr_id;

		if (k != p->recv_done) {
			traffic_fail(p,
				     "receive completion %llu, expected "
				     "%llu (lost or duplicated)",
				     (unsigned long long)k,
				     (unsigned long long)p->recv_done);
			return n;
		}
		p->recv_done++;
		if (wc[i].status != IBV_WC_SUCCESS) {
			p->recv_err++;
			p->stop_posting = true;
			if (!removal_seen(p) &&
			    wc[i].status != IBV_WC_WR_FLUSH_ERR)
				traffic_fail(p, "receive %llu: %s",
					     (unsigned long long)k,
					     ibv_wc_status_str(wc[i].status));
			continue;
		}
		if (wc[i].byte_len != MSG ||
		    check_msg(p->rbuf + (k % NRECV) * MSG, k)) {
			traffic_fail(p,
				     "message %llu: %u bytes, or not the "
				     "bytes sent",
				     (unsigned long long)k, wc[i].byte_len);
			return n;
		}
		if (repost && !p->stop_posting)
			post_recv(p, k + NRECV);
	}
	return n;
}

/* Wait up to @ms on the channel; on an event, ack and re-arm. */
static void wait_channel(struct app *p, int ms)
{
	struct pollfd pf = { .fd = p->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	if (poll(&pf, 1, ms) <= 0)
		return;
	if (ibv_get_cq_event(p->ch, &cq, &cq_ctx))
		return;
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		p->poll_fail++;
}

static void note_event(struct app *p, const char *name)
{
	size_t n = strlen(p->events);

	if (n + strlen(name) + 2 < sizeof(p->events))
		snprintf(p->events + n, sizeof(p->events) - n, "%s%s",
			 n ? "," : "", name);
}

static void read_async(struct app *p)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(p->ctx, &ev)) {
		note_event(p, ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL) {
			p->fatal_events++;
			if (!p->t_fatal)
				p->t_fatal = now_ms();
			p->stop_posting = true;
		} else if (ev.event_type == IBV_EVENT_PORT_ERR) {
			p->port_err_events++;
		} else {
			p->other_events++;
		}
		ibv_ack_async_event(&ev);
	}
}

static bool device_listed(const char *name)
{
	struct ibv_device **list;
	bool found = false;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return false;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			found = true;
	ibv_free_device_list(list);
	return found;
}

static void traffic(struct app *p)
{
	uint64_t end = p->t_start + 1000ull * p->secs, last_progress, t_check;
	uint64_t k;
	bool ready = false;

	for (k = 0; k < NRECV; k++)
		if (post_recv(p, k))
			return;
	last_progress = t_check = now_ms();
	for (;;) {
		uint64_t now = now_ms();
		int prog = 0;

		while (!p->stop_posting && p->sent - p->send_done < WINDOW &&
		       p->sent < p->recv_done + NRECV)
			if (post_send(p))
				break;
		prog += reap_sends(p);
		wait_channel(p, 20);
		prog += reap_recvs(p, true);
		if (prog)
			last_progress = now;
		if (!ready && p->recv_done >= 20) {
			ready = true;
			printf("READY\n");
			fflush(stdout);
		}
		if (now - t_check >= 100) {
			t_check = now;
			read_async(p);
			if (!p->t_gone && !device_listed(p->dev))
				p->t_gone = now;
		}
		if (p->traffic_fail[0] || p->t_fatal)
			break;
		if (p->stop_posting && p->send_done == p->sent)
			break;
		if (removal_seen(p) &&
		    now > (p->t_gone ? p->t_gone : p->t_fatal) + p->grace_ms)
			break;
		if (now > end)
			break;
		if (now - last_progress > STALL_MS) {
			if (!removal_seen(p))
				traffic_fail(p,
					     "no completion for %d ms "
					     "(%llu sent, %llu send "
					     "completions, %llu received)",
					     STALL_MS,
					     (unsigned long long)p->sent,
					     (unsigned long long)p->send_done,
					     (unsigned long long)p->recv_done);
			break;
		}
	}
	read_async(p);
}

/*
 * Stop posting; let what is in flight complete (bounded); then b to ERR so
 * the receives left flush, each once and in order, and nothing after them.
 */
static void drain(struct app *p)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	uint64_t end = now_ms() + STALL_MS;
	struct ibv_wc wc;
	int ret;

	p->stop_posting = true;
	while (p->send_done < p->sent && now_ms() < end) {
		reap_sends(p);
		wait_channel(p, 10);
		reap_recvs(p, false);
	}
	if (p->send_done < p->sent && !p->t_fatal)
		traffic_fail(p, "%llu of %llu sends never completed",
			     (unsigned long long)(p->sent - p->send_done),
			     (unsigned long long)p->sent);
	ret = ibv_modify_qp(p->b, &qa, IBV_QP_STATE);
	if (ret && !p->t_fatal)
		traffic_fail(p, "ibv_modify_qp(b -> ERR): %s", strerror(ret));
	end = now_ms() + STALL_MS;
	while (p->recv_done < p->recv_posted && now_ms() < end &&
	       !p->traffic_fail[0])
		if (!reap_recvs(p, false))
			usleep(1000);
	if (p->recv_done < p->recv_posted && !p->t_fatal)
		traffic_fail(
			p,
			"%llu of %llu receives never completed (not "
			"flushed by modify_qp(ERR))",
			(unsigned long long)(p->recv_posted - p->recv_done),
			(unsigned long long)p->recv_posted);
	usleep(100 * 1000);
	if (ibv_poll_cq(p->rcq_b, 1, &wc) > 0 ||
	    ibv_poll_cq(p->cq_a, 1, &wc) > 0)
		traffic_fail(p,
			     "a completion after all were accounted for: "
			     "wr_id %llu status %s",
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
}

static int teardown(struct app *p, char *why, size_t len)
{
	int bad = 0, ret;

#define DESTROY(expr, name)                                                    \
	do {                                                                   \
		ret = (expr);                                                  \
		if (ret) {                                                     \
			size_t n_ = strlen(why);                               \
			snprintf(why + n_, len - n_, "%s%s returned %d",       \
				 bad ? "; " : "", name, ret);                  \
			bad = 1;                                               \
		}                                                              \
	} while (0)
	read_async(p);
	DESTROY(ibv_destroy_qp(p->a), "ibv_destroy_qp(a)");
	DESTROY(ibv_destroy_qp(p->b), "ibv_destroy_qp(b)");
	DESTROY(ibv_destroy_cq(p->cq_a), "ibv_destroy_cq(a)");
	DESTROY(ibv_destroy_cq(p->scq_b), "ibv_destroy_cq(b send)");
	DESTROY(ibv_destroy_cq(p->rcq_b), "ibv_destroy_cq(b recv)");
	DESTROY(ibv_destroy_comp_channel(p->ch), "ibv_destroy_comp_channel");
	DESTROY(ibv_dereg_mr(p->smr), "ibv_dereg_mr(send)");
	DESTROY(ibv_dereg_mr(p->rmr), "ibv_dereg_mr(recv)");
	DESTROY(ibv_dealloc_pd(p->pd), "ibv_dealloc_pd");
	DESTROY(ibv_close_device(p->ctx), "ibv_close_device");
#undef DESTROY
	free(p->sbuf);
	free(p->rbuf);
	return bad;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: doorbell-removal [-d DEV] [-g GIDX] [-t SECS] "
		   "[-w GRACE_MS]\n");
}

int main(int argc, char **argv)
{
	struct app p = {
		.dev = test_ibdev(),
		.gidx = 1,
		.secs = 30,
		.grace_ms = 3000,
	};
	char why[512] = "";
	int opt, nfail = 0;

	while ((opt = getopt(argc, argv, "d:g:t:w:h")) != -1) {
		switch (opt) {
		case 'd':
			p.dev = optarg;
			break;
		case 'g':
			p.gidx = atoi(optarg);
			break;
		case 't':
			p.secs = (unsigned int)atoi(optarg);
			break;
		case 'w':
			p.grace_ms = (unsigned int)atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	signal(SIGALRM, watchdog);
	alarm(p.secs + 30);
	if (setup(&p))
		return 2;
	p.t_start = now_ms();
	traffic(&p);
	drain(&p);

	printf("removal: %llu messages sent, %llu send completions (%u "
	       "errors), %llu receive completions (%u errors); device left "
	       "the list %s%lld ms after start; async events: %s; failed "
	       "posts %d, polls %d\n",
	       (unsigned long long)p.sent, (unsigned long long)p.send_done,
	       p.send_err, (unsigned long long)p.recv_done, p.recv_err,
	       p.t_gone ? "" : "never (",
	       p.t_gone ? (long long)(p.t_gone - p.t_start) : -1LL,
	       p.events[0] ? p.events : "none", p.post_fail, p.poll_fail);

	if (p.traffic_fail[0]) {
		printf("FAIL device_removal_traffic_exactly_once: %s\n",
		       p.traffic_fail);
		nfail++;
	} else {
		printf("PASS device_removal_traffic_exactly_once\n");
	}
	if (removal_seen(&p)) {
		printf("PASS device_removal_noticed_by_app\n");
	} else {
		printf("FAIL device_removal_noticed_by_app: neither "
		       "DEVICE_FATAL nor the device leaving the list in %u "
		       "s\n",
		       p.secs);
		nfail++;
	}
	if (p.fatal_events)
		printf("PASS device_removal_delivers_device_fatal\n");
	else if (p.t_gone)
		printf("SKIP device_removal_delivers_device_fatal: none in %u "
		       "ms after %s left the device list (events: %s). "
		       "Linux 6.1 rxe has no disassociate_ucontext: "
		       "unregistration waits for every open context to "
		       "close and sends no event\n",
		       p.grace_ms, p.dev, p.events[0] ? p.events : "none");
	else
		printf("FAIL device_removal_delivers_device_fatal: no event "
		       "and the device never left the list\n");
	fflush(stdout);
	if (teardown(&p, why, sizeof(why))) {
		printf("FAIL device_removal_app_destroys_everything_and_closes"
		       ": %s\n",
		       why);
		nfail++;
	} else {
		printf("PASS device_removal_app_destroys_everything_and_"
		       "closes\n");
	}
	fflush(stdout);
	return nfail ? 1 : 0;
}
