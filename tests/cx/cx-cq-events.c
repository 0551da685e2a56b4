// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion events as an application sees them, for the interrupt checks
 * of the software ConnectX (tests/cx/check-interrupts.sh) or any device
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
 * With -i, the lines of /proc/interrupts that name mlx5 vectors just
 * before the first message and just after the last completion, each after
 * "before: " or "after: ": the interrupts of the receive phase alone,
 * without those of the commands that set it up.
 *
 * and exits 0, or prints why and exits 1; every wait ends after 10 s.
 *
 * Usage: cx-cq-events [-d DEV] [-n MSGS] [-g GAP] [-m COUNT:PERIOD]
 *                     [-c VECTOR] [-i]   (-c: the receive CQ's vector)
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

enum {
	SRQ_WRS = 1024,
	MSG = 64,
	WAIT_MS = 10000,
	LIMIT_MSGS = 8, /* sent after the SRQ limit is set */
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

/* Send N messages, GAP microseconds apart, each completion polled. */
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

static void *sender(void *arg)
{
	(void)arg;
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

/*
 * Take N receive completions by events, as ibv_rc_pingpong -e does: the CQ
 * was armed before the first message; wait for the event, arm again, poll
 * everything.  Returns the events taken.
 */
static unsigned int receive(struct ibv_comp_channel *ch, unsigned int n)
{
	unsigned int got = 0, events = 0;
	struct ibv_wc wc[16];
	struct ibv_cq *cq;
	void *cqctx;
	int k, i;

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
		if (ibv_req_notify_cq(rx.cq, 0))
			die("ibv_req_notify_cq");
		while ((k = ibv_poll_cq(rx.cq, 16, wc)) > 0)
			for (i = 0; i < k; i++, got++)
				if (wc[i].status != IBV_WC_SUCCESS)
					die("a receive completed in error");
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
	while ((c = getopt(argc, argv, "d:n:g:m:c:i")) != -1) {
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
	if (ibv_req_notify_cq(rx.cq, 0))
		die("ibv_req_notify_cq");
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
			"[-m COUNT:PERIOD] [-c VECTOR] [-i]\n");
	return 2;
}
