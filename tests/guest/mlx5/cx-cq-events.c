// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion events as an application sees them, for the interrupt checks
 * of the software ConnectX (tests/guest/mlx5/check-interrupts.sh) or any device
 * with a port in loopback.  Two RC QPs of one process, connected to each
 * other through the port's LID: a thread sends MSGS messages, one every
 * GAP microseconds; the main thread takes them from a receive CQ on a
 * completion channel (arm, wait for the event, poll everything, again),
 * optionally moderated with ibv_modify_cq (-m COUNT:PERIOD, cq_count
 * CQEs or cq_period microseconds).  Then the receive queue's SRQ gets a
 * limit and the messages that take it below the limit: the asynchronous
 * event SRQ_LIMIT_REACHED must come.  Prints
 *
 *	messages M events E srq_limit_event 1
 *
 * and exits 0, or prints why and exits 1; every wait ends after 10 s.
 *
 * With -i, the lines of /proc/interrupts that name mlx5 vectors just
 * before the first message and just after the last completion, each after
 * "before: " or "after: ": the interrupts of the receive phase alone,
 * without those of the commands that set it up.
 *
 * With -b BATCH, lockstep: the sender posts BATCH messages in one list,
 * then waits until the receiver has taken their completions and armed the
 * CQ again before it sends the next batch; the receiver polls the CQ
 * empty before it arms (ci past every CQE), so no arm finds a CQE waiting.
 * Each batch then raises exactly one event, whatever the timing, when
 * one event is what the batch asks for: unmoderated with BATCH 1,
 * cq_count BATCH with a cq_period longer than the batch takes, or BATCH 1
 * with a cq_count above 1 (cq_period raises each event).  GAP is then
 * the pause between batches.  With -s the CQ is armed for solicited
 * completions only and the last message of each batch (every message
 * without -b) is sent with IBV_SEND_SOLICITED: one event per batch with
 * no moderation.  In lockstep the batch's other messages go first and
 * the solicited one SOL_PAUSE_US later, so an arm for every completion
 * would show as an extra event.  Every event is acknowledged (ibv_ack_cq_events) and the
 * CQ armed again after it, so the arm's sequence number advances once per
 * event.
 *
 * Usage: cx-cq-events [-d DEV] [-n MSGS] [-g GAP] [-m COUNT:PERIOD]
 *                     [-c VECTOR] [-i] [-b BATCH] [-s]
 *   (-c: the receive CQ's vector)
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

enum {
	SRQ_WRS = 1024,
	MSG = 64,
	WAIT_MS = 10000,
	LIMIT_MSGS = 8, /* sent after the SRQ limit is set */
	MAX_BATCH = 16, /* the send queue's depth */
	SOL_PAUSE_US = 2000,
};

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t buf[2 * MSG];
static struct side tx, rx;
static struct ibv_srq *srq;
static unsigned int gap_us;
static int comp_vector;
static const char *failed;
static bool show_irqs;
static unsigned int batch; /* lockstep batch (-b); 0: paced by GAP */
static bool solicited;	   /* -s: solicited-only arms */
static unsigned int taken; /* lockstep: completions taken and re-armed */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t taken_cond = PTHREAD_COND_INITIALIZER;

/* The mlx5 lines of /proc/interrupts, after TAG. */
static void show_interrupts(const char *tag)
{
	FILE *f = show_irqs ? fopen("/proc/interrupts", "r") : NULL;
	char line[1024];

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "mlx5_"))
			printf("%s: %s", tag, line);
	if (f)
		fclose(f);
}

static int die(const char *what)
{
	fprintf(stderr, "cx-cq-events: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void post_recvs(unsigned int n)
{
	struct ibv_sge sge = { (uintptr_t)buf + MSG, MSG, mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	while (n--)
		if (ibv_post_srq_recv(srq, &wr, &bad))
			die("ibv_post_srq_recv");
}

/* Send N messages, GAP microseconds apart, each completion polled; with
 * -s each is solicited. */
static void send_msgs(unsigned int n)
{
	struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;
	int k;

	if (solicited)
		wr.send_flags |= IBV_SEND_SOLICITED;
	while (n--) {
		if (ibv_post_send(tx.qp, &wr, &bad)) {
			failed = "ibv_post_send";
			return;
		}
		do
			k = ibv_poll_cq(tx.cq, 1, &wc);
		while (!k);
		if (k < 0 || wc.status != IBV_WC_SUCCESS) {
			failed = "a send completed in error";
			return;
		}
		if (gap_us)
			usleep(gap_us);
	}
}

static unsigned int nmsgs;

/* Post N messages in one list (the last solicited if SOL), poll theirs. */
static bool send_batch(unsigned int n, bool sol)
{
	struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
	struct ibv_send_wr wr[MAX_BATCH], *bad;
	struct ibv_wc wc[MAX_BATCH];
	unsigned int i, got;
	int k;

	for (i = 0; i < n; i++)
		wr[i] = (struct ibv_send_wr){
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags =
				IBV_SEND_SIGNALED |
				(sol && i + 1 == n ? IBV_SEND_SOLICITED : 0),
		};
	if (ibv_post_send(tx.qp, wr, &bad)) {
		failed = "ibv_post_send";
		return false;
	}
	for (got = 0; got < n; got += k) {
		k = ibv_poll_cq(tx.cq, MAX_BATCH, wc);
		for (i = 0; k > 0 && i < (unsigned int)k; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				k = -1;
		if (k < 0) {
			failed = "a send completed in error";
			return false;
		}
	}
	return true;
}

/* Lockstep: a batch, then wait until the receiver took it and re-armed. */
static void send_lockstep(void)
{
	struct timespec end;
	unsigned int sent = 0, n;

	while (sent < nmsgs) {
		n = nmsgs - sent < batch ? nmsgs - sent : batch;
		/* -s: the unsolicited messages first, then a pause in which
		 * an arm that is not solicited-only would raise an event. */
		if (solicited && n > 1) {
			if (!send_batch(n - 1, false))
				return;
			usleep(SOL_PAUSE_US);
		}
		if (!send_batch(solicited && n > 1 ? 1 : n, solicited))
			return;
		sent += n;
		clock_gettime(CLOCK_REALTIME, &end);
		end.tv_sec += WAIT_MS / 1000;
		pthread_mutex_lock(&lock);
		while (taken < sent && !failed)
			if (pthread_cond_timedwait(&taken_cond, &lock, &end)) {
				failed = "the receiver did not take a batch";
				break;
			}
		pthread_mutex_unlock(&lock);
		if (failed)
			return;
		if (gap_us)
			usleep(gap_us);
	}
}

static void *sender(void *arg)
{
	(void)arg;
	if (batch)
		send_lockstep();
	else
		send_msgs(nmsgs);
	return NULL;
}

static void make_qp(struct side *s, struct ibv_comp_channel *ch)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	s->cq = ibv_create_cq(ctx, SRQ_WRS, NULL, ch, ch ? comp_vector : 0);
	if (!s->cq)
		die("ibv_create_cq");
	qa.send_cq = qa.recv_cq = s->cq;
	qa.srq = ch ? srq : NULL;
	s->qp = ibv_create_qp(pd, &qa);
	if (!s->qp)
		die("ibv_create_qp");
}

/* INIT, RTR to REMOTE through LID, RTS. */
static void connect_qp(struct ibv_qp *qp, uint32_t remote, uint16_t lid)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("ibv_modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("ibv_modify_qp RTS");
}

static int wait_fd(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, WAIT_MS);
}

static void arm(void)
{
	if (ibv_req_notify_cq(rx.cq, solicited))
		die("ibv_req_notify_cq");
}

/* Poll the receive CQ empty; the completions taken. */
static unsigned int poll_all(void)
{
	struct ibv_wc wc[16];
	unsigned int got = 0;
	int k, i;

	while ((k = ibv_poll_cq(rx.cq, 16, wc)) > 0)
		for (i = 0; i < k; i++, got++)
			if (wc[i].status != IBV_WC_SUCCESS)
				die("a receive completed in error");
	return got;
}

/*
 * Take N receive completions by events.  Paced (no -b), as ibv_rc_pingpong
 * -e does: the CQ was armed before the first message; wait for the event,
 * arm again, poll everything.  Lockstep: wait for the event, poll
 * everything, arm, then tell the sender.  Returns the events taken.
 */
static unsigned int receive(struct ibv_comp_channel *ch, unsigned int n)
{
	unsigned int got = 0, events = 0;
	struct ibv_cq *cq;
	void *cqctx;

	while (got < n) {
		if (wait_fd(ch->fd) <= 0) {
			fprintf(stderr,
				"cx-cq-events: no completion event in %d ms "
				"(%u of %u messages, %u events)\n",
				WAIT_MS, got, n, events);
			exit(1);
		}
		if (ibv_get_cq_event(ch, &cq, &cqctx))
			die("ibv_get_cq_event");
		ibv_ack_cq_events(cq, 1);
		events++;
		if (!batch) {
			arm();
			got += poll_all();
			continue;
		}
		got += poll_all();
		arm();
		pthread_mutex_lock(&lock);
		taken = got;
		pthread_cond_signal(&taken_cond);
		pthread_mutex_unlock(&lock);
	}
	return events;
}

/* Set the SRQ's limit below what it holds, take it below: the event. */
static void srq_limit_event(void)
{
	struct ibv_srq_attr sa = { .srq_limit = LIMIT_MSGS / 2 };
	struct ibv_async_event ev;
	struct ibv_wc wc[LIMIT_MSGS];
	unsigned int got = 0;
	int k;

	/* The SRQ holds LIMIT_MSGS receives: the limit is half of them. */
	if (ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT))
		die("ibv_modify_srq limit");
	send_msgs(LIMIT_MSGS);
	while (got < LIMIT_MSGS &&
	       (k = ibv_poll_cq(rx.cq, LIMIT_MSGS, wc)) >= 0)
		got += k;
	if (failed) {
		fprintf(stderr, "cx-cq-events: %s\n", failed);
		exit(1);
	}
	if (wait_fd(ctx->async_fd) <= 0) {
		fprintf(stderr, "cx-cq-events: no SRQ limit event in %d ms\n",
			WAIT_MS);
		exit(1);
	}
	if (ibv_get_async_event(ctx, &ev))
		die("ibv_get_async_event");
	if (ev.event_type != IBV_EVENT_SRQ_LIMIT_REACHED) {
		fprintf(stderr, "cx-cq-events: async event %s, not %s\n",
			ibv_event_type_str(ev.event_type),
			ibv_event_type_str(IBV_EVENT_SRQ_LIMIT_REACHED));
		exit(1);
	}
	ibv_ack_async_event(&ev);
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = SRQ_WRS,
						  .max_sge = 1 } };
	struct ibv_modify_cq_attr mod = { 0 };
	struct ibv_comp_channel *ch;
	struct ibv_device **list;
	struct ibv_port_attr port;
	const char *dev = "mlx5_0";
	unsigned int events, count, period;
	pthread_t thr;
	int c, i, n;

	nmsgs = 200;
	while ((c = getopt(argc, argv, "d:n:g:m:c:ib:s")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			nmsgs = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			show_irqs = true;
			break;
		case 'b':
			batch = strtoul(optarg, NULL, 0);
			if (!batch || batch > MAX_BATCH)
				goto usage;
			break;
		case 's':
			solicited = true;
			break;
		case 'c':
			comp_vector = atoi(optarg);
			break;
		case 'g':
			gap_us = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			if (sscanf(optarg, "%u:%u", &count, &period) != 2)
				goto usage;
			mod.attr_mask = IBV_CQ_ATTR_MODERATE;
			mod.moderate.cq_count = count;
			mod.moderate.cq_period = period;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || !nmsgs || nmsgs + LIMIT_MSGS * 2 > SRQ_WRS)
		goto usage;
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list); /* an open context outlives it */
	if (!ctx)
		die(dev);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE)
		: NULL;
	if (!mr)
		die("ibv_reg_mr");
	if (ibv_query_port(ctx, 1, &port))
		die("ibv_query_port");
	srq = ibv_create_srq(pd, &si);
	ch = ibv_create_comp_channel(ctx);
	if (!srq || !ch)
		die("ibv_create_srq/comp_channel");
	make_qp(&tx, NULL);
	make_qp(&rx, ch);
	if (mod.attr_mask && ibv_modify_cq(rx.cq, &mod))
		die("ibv_modify_cq (moderation)");
	connect_qp(tx.qp, rx.qp->qp_num, port.lid);
	connect_qp(rx.qp, tx.qp->qp_num, port.lid);
	/* Enough for the messages, then LIMIT_MSGS above the limit run. */
	post_recvs(nmsgs + LIMIT_MSGS);
	/* Armed before the first message: with -n 1 and a cq_count above 1,
	 * only the device's cq_period timer raises the event. */
	arm();
	show_interrupts("before");
	if (pthread_create(&thr, NULL, sender, NULL))
		die("pthread_create");
	events = receive(ch, nmsgs);
	pthread_join(thr, NULL);
	show_interrupts("after");
	if (failed) {
		fprintf(stderr, "cx-cq-events: %s\n", failed);
		return 1;
	}
	srq_limit_event();
	printf("messages %u events %u srq_limit_event 1\n", nmsgs, events);
	return 0;
usage:
	fprintf(stderr, "usage: cx-cq-events [-d DEV] [-n MSGS] [-g GAP] "
			"[-m COUNT:PERIOD] [-c VECTOR] [-i] [-b BATCH] [-s]\n");
	return 2;
}
