// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The instruction-count benchmark: a loopback RC pair on one device, N
 * 64-byte sends with one SGE.  Each ibv_post_send call goes through
 * bench_post() and each ibv_poll_cq call that returns a completion through
 * bench_poll(), so that callgrind --toggle-collect counts exactly those.
 * A completion channel tells when the CQE is there, so every measured poll
 * returns exactly one completion and the counts are deterministic.
 *
 * Usage: bench_post_poll [-d DEV] [-g GID_INDEX] [-n ITERS] [-t]
 *   -t  thread domain + parent domain for the QP, single-threaded CQ
 * Works through whichever provider serves the device.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define MSG 64

struct bench {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *qp_pd;
	struct ibv_td *td;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	char *buf;
	union ibv_gid gid;
	int gidx;
	enum ibv_mtu mtu;
};

/* Global, so that callgrind finds them by name. */
int bench_post(struct ibv_qp *qp, struct ibv_send_wr *wr,
	       struct ibv_send_wr **bad);
int bench_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc);

__attribute__((noinline)) int bench_post(struct ibv_qp *qp,
					 struct ibv_send_wr *wr,
					 struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

__attribute__((noinline)) int bench_poll(struct ibv_cq *cq, int n,
					 struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

static void die(const char *what)
{
	fprintf(stderr, "bench_post_poll: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct ibv_cq *make_cq(struct bench *b, struct ibv_comp_channel *ch,
			      int single)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 256,
		.channel = ch,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};
	struct ibv_cq_ex *cq;

	if (!single)
		return ibv_create_cq(b->ctx, 256, NULL, ch, 0);
	cq = ibv_create_cq_ex(b->ctx, &attr);
	return cq ? ibv_cq_ex_to_cq(cq) : NULL;
}

static struct ibv_qp *make_qp(struct bench *b)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = b->scq,
		.recv_cq = b->rcq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = b->qp_pd,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(b->ctx, &attr);

	if (!qp)
		die("create_qp");
	return qp;
}

static void connect_qp(struct bench *b, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = b->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = b->gid;
	a.ah_attr.grh.sgid_index = b->gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 1;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

static void setup(struct bench *b, const char *dev, int td)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr port;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			b->ctx = ibv_open_device(list[i]);
	if (!b->ctx)
		die("open device");
	ibv_free_device_list(list);
	if (ibv_query_port(b->ctx, 1, &port) ||
	    ibv_query_gid(b->ctx, 1, b->gidx, &b->gid))
		die("query port");
	b->mtu = port.active_mtu;
	b->pd = b->qp_pd = ibv_alloc_pd(b->ctx);
	if (!b->pd)
		die("alloc_pd");
	if (td) {
		struct ibv_td_init_attr ta = {};
		struct ibv_parent_domain_init_attr pa = { .pd = b->pd };

		b->td = ibv_alloc_td(b->ctx, &ta);
		if (!b->td)
			die("alloc_td");
		pa.td = b->td;
		b->qp_pd = ibv_alloc_parent_domain(b->ctx, &pa);
		if (!b->qp_pd)
			die("alloc_parent_domain");
	}
	b->ch = ibv_create_comp_channel(b->ctx);
	b->scq = make_cq(b, b->ch, td);
	b->rcq = make_cq(b, NULL, td);
	if (!b->ch || !b->scq || !b->rcq)
		die("create_cq");
	b->buf = calloc(2, 4096);
	b->mr = ibv_reg_mr(b->pd, b->buf, 8192, IBV_ACCESS_LOCAL_WRITE |
						   IBV_ACCESS_REMOTE_WRITE);
	if (!b->mr)
		die("reg_mr");
	b->a = make_qp(b);
	b->b = make_qp(b);
	connect_qp(b, b->a, b->b->qp_num);
	connect_qp(b, b->b, b->a->qp_num);
}

static void wait_send_completion(struct bench *b)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(b->ch, &cq, &cq_ctx))
		die("get_cq_event");
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(b->scq, 0))
		die("req_notify_cq");
}

int main(int argc, char **argv)
{
	struct bench b = { .gidx = 1 };
	const char *dev = "rxe0";
	int iters = 1000, td = 0, opt, i, n;
	struct ibv_sge ssge, rsge;
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_wc wc;

	while ((opt = getopt(argc, argv, "d:g:n:t")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': b.gidx = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 't': td = 1; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-g GIDX] [-n N] [-t]\n",
				argv[0]);
			return 2;
		}
	}
	setup(&b, dev, td);
	ssge = (struct ibv_sge){ (uintptr_t)b.buf, MSG, b.mr->lkey };
	rsge = (struct ibv_sge){ (uintptr_t)b.buf + 4096, MSG, b.mr->lkey };
	swr.sg_list = &ssge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	if (ibv_req_notify_cq(b.scq, 0))
		die("req_notify_cq");
	for (i = 0; i < iters; i++) {
		rwr.wr_id = i;
		if (ibv_post_recv(b.b, &rwr, &rbad))
			die("post_recv");
		swr.wr_id = i;
		memset(b.buf, i & 0xff, MSG);
		if (bench_post(b.a, &swr, &sbad))
			die("post_send");
		wait_send_completion(&b);
		n = bench_poll(b.scq, 1, &wc);
		if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i) {
			fprintf(stderr, "bench_post_poll: bad send completion %d\n", i);
			return 1;
		}
		do {
			n = ibv_poll_cq(b.rcq, 1, &wc);
		} while (n == 0);
		if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.byte_len != MSG ||
		    memcmp(b.buf, b.buf + 4096, MSG)) {
			fprintf(stderr, "bench_post_poll: bad receive %d\n", i);
			return 1;
		}
	}
	printf("bench_post_poll: %d posts, %d polled completions, %s\n", iters,
	       iters, td ? "thread domain" : "default");
	return 0;
}
