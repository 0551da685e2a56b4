// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The instruction-count benchmark: an RC loopback pair driven through the
 * public verbs API.  Each measured call goes through a named noinline
 * wrapper, so that callgrind --toggle-collect counts exactly it
 * (tests/bench/insn-guard.sh):
 *
 *   bench_post_inline64  ibv_post_send, one 64-byte inline RC SEND
 *   bench_post_send64    ibv_post_send, one 64-byte RC SEND, 1 SGE
 *   bench_post_send4k    ibv_post_send, one 4 KiB RC SEND, 1 SGE
 *   bench_post_write4k   ibv_post_send, one 4 KiB RDMA WRITE, 1 SGE
 *   bench_poll_1         ibv_poll_cq returning one send completion
 *   bench_poll_16        ibv_poll_cq returning a batch of 16
 *
 * One program, built twice:
 *
 * - bench_post_poll (tests/bench): on a real device through whichever
 *   provider serves it (RDMAV_DRIVERS), Soft-RoCE in the guest.  It runs
 *   post_send64 and, in the same loop, poll_1 on that SEND's completion;
 *   a completion channel tells when the CQE is there, so every measured
 *   poll returns exactly one completion and the counts are deterministic.
 * - doorbell-mlx5-bench (tests/model/mlx5, BENCH_MODEL): on the software
 *   ConnectX, linked with the backend as production compiles it (no
 *   DOORBELL_MLX5_MODEL: real doorbell-record, UAR and BlueFlame stores,
 *   which land in model-owned memory and do nothing), the model as the
 *   kernel.  The posted WQEs run when the bench calls
 *   m5m_doorbell_recovery(), outside the measured calls, so the counts are
 *   the provider's and libibverbs' instructions only, never the model's.
 *   It runs every figure; poll_1 and poll_16 on RDMA WRITE completions.
 *
 * Every completion and every byte moved is checked.
 *
 * Usage: bench_post_poll [-d DEV] [-g GID_INDEX] [-n ITERS] [-t]
 *        doorbell-mlx5-bench [-n ITERS] [-t]
 *   -d  the device (default $DOORBELL_VM_IBDEV, else rxe0: test_ibdev.h)
 *   -t  thread domain + parent domain for the QPs, single-threaded CQs
 * Prints "ops <wrapper> <calls> <units>" per wrapper run (units: WRs posted
 * or completions returned).
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#ifdef BENCH_MODEL
#include "m5model.h"
#else
#include "test_ibdev.h"
#endif

#define BUFSZ	(64 * 1024)
#define SRC_OFF 0
#define DST_OFF (32 * 1024)
#define BIG	4096
#define BATCH	16

/* Global, so that callgrind finds them by name. */
int bench_post_inline64(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad);
int bench_post_send64(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad);
int bench_post_send4k(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad);
int bench_post_write4k(struct ibv_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad);
int bench_poll_1(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int bench_poll_16(struct ibv_cq *cq, int n, struct ibv_wc *wc);

__attribute__((noinline)) int bench_post_inline64(struct ibv_qp *qp,
						  struct ibv_send_wr *wr,
						  struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

__attribute__((noinline)) int bench_post_send64(struct ibv_qp *qp,
						struct ibv_send_wr *wr,
						struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

__attribute__((noinline)) int bench_post_send4k(struct ibv_qp *qp,
						struct ibv_send_wr *wr,
						struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

__attribute__((noinline)) int bench_post_write4k(struct ibv_qp *qp,
						 struct ibv_send_wr *wr,
						 struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

__attribute__((noinline)) int bench_poll_1(struct ibv_cq *cq, int n,
					   struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

__attribute__((noinline)) int bench_poll_16(struct ibv_cq *cq, int n,
					    struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

typedef int (*post_fn)(struct ibv_qp *, struct ibv_send_wr *,
		       struct ibv_send_wr **);
typedef int (*poll_fn)(struct ibv_cq *, int, struct ibv_wc *);

struct bench {
#ifdef BENCH_MODEL
	struct m5m_dev *dev;
#else
	const char *devname;
	union ibv_gid gid;
	int gidx;
	enum ibv_mtu mtu;
#endif
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch; /* the device's send CQ only */
	struct ibv_pd *pd, *qp_pd;
	struct ibv_td *td;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void fail(const char *what, int i)
{
	fprintf(stderr, "bench: %s (iteration %d)\n", what, i);
	exit(1);
}

/*
 * The two devices.  The model runs posted WQEs when asked and completes
 * them at once; the device runs them on its own, and the send CQ's
 * completion channel tells when the send's CQE is there.
 */
#ifdef BENCH_MODEL
enum { BENCH_CQE = 255, BENCH_MAX_INLINE = 64, BENCH_ASYNC = 0 };

static void bench_open(struct bench *b)
{
	b->dev = m5m_dev_create(NULL);
	b->ctx = b->dev ? m5m_open(b->dev) : NULL;
	if (!b->ctx)
		die("open the model device");
}

static struct ibv_comp_channel *bench_channel(struct bench *b)
{
	return NULL;
}

static void bench_av(struct bench *b, struct ibv_qp_attr *a)
{
	a->path_mtu = IBV_MTU_4096;
	a->ah_attr.dlid = m5m_port_lid(b->dev, 1);
	a->ah_attr.port_num = 1;
}

/* The n WQEs posted since the last call run and complete. */
static void bench_run(struct bench *b, unsigned int n, int i)
{
	if (m5m_doorbell_recovery(b->dev) != n)
		fail("the WQEs did not run", i);
}

static void bench_close(struct bench *b)
{
	if (m5m_violations(b->dev))
		fail("the model reported violations", -1);
	m5m_dev_destroy(b->dev);
}
#else
enum { BENCH_CQE = 256, BENCH_MAX_INLINE = 0, BENCH_ASYNC = 1 };

static void bench_open(struct bench *b)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr port;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), b->devname))
			b->ctx = ibv_open_device(list[i]);
	if (!b->ctx)
		die("open device");
	ibv_free_device_list(list);
	if (ibv_query_port(b->ctx, 1, &port) ||
	    ibv_query_gid(b->ctx, 1, b->gidx, &b->gid))
		die("query port");
	b->mtu = port.active_mtu;
}

static struct ibv_comp_channel *bench_channel(struct bench *b)
{
	b->ch = ibv_create_comp_channel(b->ctx);
	if (!b->ch)
		die("create_comp_channel");
	return b->ch;
}

static void bench_av(struct bench *b, struct ibv_qp_attr *a)
{
	a->path_mtu = b->mtu;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.dgid = b->gid;
	a->ah_attr.grh.sgid_index = b->gidx;
	a->ah_attr.grh.hop_limit = 1;
	a->ah_attr.port_num = 1;
}

/* The send CQ has the send's completion (one at a time); rearmed. */
static void bench_run(struct bench *b, unsigned int n, int i)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(b->ch, &cq, &cq_ctx))
		die("get_cq_event");
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(b->scq, 0))
		die("req_notify_cq");
}

static void bench_close(struct bench *b)
{
}
#endif

static struct ibv_cq *make_cq(struct bench *b, struct ibv_comp_channel *ch,
			      bool single)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = BENCH_CQE,
		.channel = ch,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};
	struct ibv_cq_ex *cq;

	if (!single)
		return ibv_create_cq(b->ctx, BENCH_CQE, NULL, ch, 0);
	cq = ibv_create_cq_ex(b->ctx, &attr);
	return cq ? ibv_cq_ex_to_cq(cq) : NULL;
}

static struct ibv_qp *make_qp(struct bench *b)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = b->scq,
		.recv_cq = b->rcq,
		.cap = { .max_send_wr = 64,
			 .max_recv_wr = 64,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = BENCH_MAX_INLINE },
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

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("INIT");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.dest_qp_num = dqpn,
		.rq_psn = 1,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
	};
	bench_av(b, &a);
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = 1,
		.max_rd_atomic = 1,
	};
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

static void setup(struct bench *b, bool td)
{
	struct ibv_comp_channel *ch;

	bench_open(b);
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
	ch = bench_channel(b);
	b->scq = make_cq(b, ch, td);
	b->rcq = make_cq(b, NULL, td);
	if (!b->scq || !b->rcq)
		die("create_cq");
	if (ch && ibv_req_notify_cq(b->scq, 0))
		die("req_notify_cq");
	b->buf = aligned_alloc(4096, BUFSZ);
	if (!b->buf)
		die("buffer");
	memset(b->buf, 0, BUFSZ);
	b->mr = ibv_reg_mr(b->pd, b->buf, BUFSZ,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!b->mr)
		die("reg_mr");
	b->a = make_qp(b);
	b->b = make_qp(b);
	connect_qp(b, b->a, b->b->qp_num);
	connect_qp(b, b->b, b->a->qp_num);
}

static void teardown(struct bench *b)
{
	if (ibv_destroy_qp(b->a) || ibv_destroy_qp(b->b) ||
	    ibv_dereg_mr(b->mr) || ibv_destroy_cq(b->scq) ||
	    ibv_destroy_cq(b->rcq) ||
	    (b->ch && ibv_destroy_comp_channel(b->ch)) ||
	    (b->qp_pd != b->pd && ibv_dealloc_pd(b->qp_pd)) ||
	    (b->td && ibv_dealloc_td(b->td)) || ibv_dealloc_pd(b->pd) ||
	    ibv_close_device(b->ctx))
		die("teardown");
	bench_close(b);
	free(b->buf);
}

static void post_recv(struct bench *b, uint32_t len, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)b->buf + DST_OFF, len, b->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(b->b, &wr, &bad))
		die("post_recv");
}

/*
 * Exactly one completion on cq, wr_id id, success (not measured).  A
 * device may deliver the receive after the send completed: wait for it.
 */
static void expect_one(struct ibv_cq *cq, uint64_t id, uint32_t len, int i)
{
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, &wc);
	} while (n == 0 && BENCH_ASYNC);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != id ||
	    (len && wc.byte_len != len))
		fail("bad completion", i);
	if (ibv_poll_cq(cq, 1, &wc) != 0)
		fail("extra completion", i);
}

/*
 * iters single-WR posts through fn; each one run and checked.  The send
 * completion is polled through poll (counted) when given.
 */
static void run_post(struct bench *b, post_fn fn, enum ibv_wr_opcode op,
		     uint32_t len, bool inl, int iters, poll_fn poll)
{
	struct ibv_sge sge = { (uintptr_t)b->buf + SRC_OFF, len, b->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0),
		.wr.rdma = { (uintptr_t)b->buf + DST_OFF, b->mr->rkey },
	};
	struct ibv_send_wr *bad;
	bool recv = op == IBV_WR_SEND;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < iters; i++) {
		memset(b->buf + SRC_OFF, i & 0xff, len);
		b->buf[SRC_OFF + len - 1] = (uint8_t)(i * 7);
		if (recv)
			post_recv(b, len, (uint64_t)i);
		wr.wr_id = (uint64_t)i;
		if (fn(b->a, &wr, &bad))
			fail("post_send", i);
		bench_run(b, 1, i);
		if (!poll)
			expect_one(b->scq, (uint64_t)i, 0, i);
		else if (poll(b->scq, 1, &wc) != 1 ||
			 wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i)
			fail("bad send completion", i);
		if (recv)
			expect_one(b->rcq, (uint64_t)i, len, i);
		if (memcmp(b->buf + SRC_OFF, b->buf + DST_OFF, len))
			fail("data", i);
	}
}

#ifdef BENCH_MODEL
/* iters polls of n send completions each through fn. */
static void run_poll(struct bench *b, poll_fn fn, int n, int iters)
{
	struct ibv_sge sge = { (uintptr_t)b->buf + SRC_OFF, 64, b->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)b->buf + DST_OFF, b->mr->rkey },
	};
	struct ibv_wc wc[BATCH];
	struct ibv_send_wr *bad;
	int i, j;

	for (i = 0; i < iters; i++) {
		for (j = 0; j < n; j++) {
			wr.wr_id = (uint64_t)i * BATCH + j;
			if (ibv_post_send(b->a, &wr, &bad))
				fail("post_send", i);
		}
		bench_run(b, (unsigned int)n, i);
		if (fn(b->scq, n, wc) != n)
			fail("poll_cq", i);
		for (j = 0; j < n; j++)
			if (wc[j].status != IBV_WC_SUCCESS ||
			    wc[j].wr_id != (uint64_t)i * BATCH + j ||
			    wc[j].opcode != IBV_WC_RDMA_WRITE)
				fail("bad completion", i);
	}
}
#endif

static void ops(const char *wrapper, int calls, int units)
{
	printf("ops %s %d %d\n", wrapper, calls, units);
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	int iters = 2000, opt;
	bool td = false;
#ifdef BENCH_MODEL
	const char *optstr = "n:t";
	int batches;
#else
	const char *optstr = "d:g:n:t";

	b.devname = test_ibdev();
	b.gidx = 1;
#endif

	while ((opt = getopt(argc, argv, optstr)) != -1) {
		switch (opt) {
#ifndef BENCH_MODEL
		case 'd':
			b.devname = optarg;
			break;
		case 'g':
			b.gidx = atoi(optarg);
			break;
#endif
		case 'n':
			iters = atoi(optarg);
			break;
		case 't':
			td = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-%s]\n", argv[0], optstr);
			return 2;
		}
	}
	if (iters < 1)
		iters = 1;
	setup(&b, td);
#ifdef BENCH_MODEL
	batches = iters / BATCH ? iters / BATCH : 1;
	run_post(&b, bench_post_inline64, IBV_WR_SEND, 64, true, iters, NULL);
	run_post(&b, bench_post_send64, IBV_WR_SEND, 64, false, iters, NULL);
	run_post(&b, bench_post_send4k, IBV_WR_SEND, BIG, false, iters, NULL);
	run_post(&b, bench_post_write4k, IBV_WR_RDMA_WRITE, BIG, false, iters,
		 NULL);
	run_poll(&b, bench_poll_1, 1, iters);
	run_poll(&b, bench_poll_16, BATCH, batches);
	teardown(&b);
	ops("bench_post_inline64", iters, iters);
	ops("bench_post_send64", iters, iters);
	ops("bench_post_send4k", iters, iters);
	ops("bench_post_write4k", iters, iters);
	ops("bench_poll_1", iters, iters);
	ops("bench_poll_16", batches, batches * BATCH);
#else
	run_post(&b, bench_post_send64, IBV_WR_SEND, 64, false, iters,
		 bench_poll_1);
	teardown(&b);
	ops("bench_post_send64", iters, iters);
	ops("bench_poll_1", iters, iters);
#endif
	printf("bench: %s, every completion checked\n",
	       td ? "thread domain" : "default");
	return 0;
}
