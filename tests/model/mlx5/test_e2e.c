// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * End to end over the software ConnectX: the public verbs API, the mlx5
 * backend built against the model's seams, and the model as the device.
 * Strict mode is on, so any protocol slip by the backend aborts the test
 * with a decoded dump.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mlx5/mlx5.h" /* to_m5_ah: an AV written wrong on purpose */
#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"

#define BUF 4096

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
};

struct pair {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct side a, b;
};

static int side_open(struct pair *p, struct side *s)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 2,
			 .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};

	s->buf = aligned_alloc(4096, BUF);
	if (!s->buf)
		return -1;
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(p->pd, s->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	s->cq = ibv_create_cq(p->ctx, 32, NULL, p->ch, 0);
	if (!s->mr || !s->cq)
		return -1;
	qa.send_cq = qa.recv_cq = s->cq;
	s->qp = ibv_create_qp(p->pd, &qa);
	return s->qp ? 0 : -1;
}

static int pair_open_rnr(struct pair *p, bool channel, uint8_t rnr_retry)
{
	memset(p, 0, sizeof(*p));
	p->dev = m5m_dev_create(NULL);
	p->ctx = p->dev ? m5m_open(p->dev) : NULL;
	if (!p->ctx)
		return -1;
	p->pd = ibv_alloc_pd(p->ctx);
	if (channel)
		p->ch = m5m_create_comp_channel(p->dev, p->ctx);
	if (!p->pd || (channel && !p->ch) || side_open(p, &p->a) ||
	    side_open(p, &p->b))
		return -1;
	return m5t_rc_pair(p->dev, p->a.qp, p->b.qp, rnr_retry);
}

static int pair_open(struct pair *p, bool channel)
{
	return pair_open_rnr(p, channel, 7);
}

/* Destroy qp if there is one. */
static void qp_close(struct ibv_qp *qp)
{
	if (qp)
		CHECK_EQ(ibv_destroy_qp(qp), 0);
}

static void side_close(struct side *s)
{
	qp_close(s->qp);
	if (s->cq)
		CHECK_EQ(ibv_destroy_cq(s->cq), 0);
	if (s->mr)
		CHECK_EQ(ibv_dereg_mr(s->mr), 0);
	free(s->buf);
}

static void pair_close(struct pair *p)
{
	side_close(&p->a);
	side_close(&p->b);
	if (p->ch)
		CHECK_EQ(m5m_destroy_comp_channel(p->dev, p->ch), 0);
	if (p->pd)
		CHECK_EQ(ibv_dealloc_pd(p->pd), 0);
	m5t_dev_close(p->dev, p->ctx);
}

/* body on a fresh pair, on a completion channel if asked; then closed. */
static void on_pair(bool channel, void (*body)(struct pair *p))
{
	struct pair p;

	CHECK_EQ(pair_open(&p, channel), 0);
	if (!check_failed)
		body(&p);
	pair_close(&p);
}

/* The test name(void): name_on() on a fresh pair (on_pair()). */
#define PAIR_TEST(name, channel)                                               \
	static void name(void)                                                 \
	{                                                                      \
		on_pair(channel, name##_on);                                   \
	}

/* A receive on qp into s's buffer at off. */
static int post_recv_on(struct ibv_qp *qp, struct side *s, uint64_t id,
			uint32_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int post_recv(struct side *s, uint64_t id, uint32_t off, uint32_t len)
{
	return post_recv_on(s->qp, s, id, off, len);
}

static int post_wr_on(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, wr, &bad);
}

/* A signaled op on qp from s's buffer at off. */
static int post_send_on(struct ibv_qp *qp, struct side *s,
			enum ibv_wr_opcode op, uint64_t id, uint32_t off,
			uint32_t len, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};

	return post_wr_on(qp, &wr);
}

static int post_send(struct side *s, enum ibv_wr_opcode op, uint64_t id,
		     uint32_t off, uint32_t len, unsigned int flags)
{
	return post_send_on(s->qp, s, op, id, off, len, flags);
}

static void
rc_send_delivers_the_bytes_and_one_completion_each_side_on(struct pair *p)
{
	struct ibv_wc wc;
	struct m5m_stats st;
	int i;

	for (i = 0; i < 256; i++)
		p->a.buf[i] = (uint8_t)(i * 7 + 1);
	CHECK_EQ(post_recv(&p->b, 0xb1, 1024, 1024), 0);
	CHECK_EQ(post_send(&p->a, IBV_WR_SEND, 0xa1, 0, 256, 0), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 0xa1);
	CHECK_EQ(wc.opcode, IBV_WC_SEND);
	CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 0xb1);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, 256);
	CHECK_EQ(wc.qp_num, p->b.qp->qp_num);
	CHECK_EQ(wc.src_qp, p->a.qp->qp_num);
	CHECK(!memcmp(p->b.buf + 1024, p->a.buf, 256));
	/* 64 bytes inline, one WR: the BlueFlame path. */
	for (i = 0; i < 64; i++)
		p->a.buf[512 + i] = (uint8_t)(0xf0 ^ i);
	CHECK_EQ(post_recv(&p->b, 0xb2, 2048, 1024), 0);
	CHECK_EQ(post_send(&p->a, IBV_WR_SEND, 0xa2, 512, 64, IBV_SEND_INLINE),
		 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.wr_id, 0xa2);
	CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
	CHECK_EQ(wc.byte_len, 64);
	CHECK(!memcmp(p->b.buf + 2048, p->a.buf + 512, 64));
	m5m_get_stats(p->dev, &st);
	CHECK_EQ(st.wqes, 2);
	CHECK_EQ(st.cqes, 4);
	CHECK(st.bf_doorbells >= 1);
}
PAIR_TEST(rc_send_delivers_the_bytes_and_one_completion_each_side, false)

static int post_wr(struct side *s, struct ibv_send_wr *wr)
{
	return post_wr_on(s->qp, wr);
}

/*
 * One async event of type waiting on ctx now, read into ev and
 * acknowledged; false if none was there.
 */
static bool expect_async(struct ibv_context *ctx, enum ibv_event_type type,
			 struct ibv_async_event *ev)
{
	CHECK(m5t_fd_ready(ctx->async_fd));
	if (!m5t_fd_ready(ctx->async_fd))
		return false;
	CHECK_EQ(ibv_get_async_event(ctx, ev), 0);
	CHECK_EQ(ev->event_type, type);
	ibv_ack_async_event(ev);
	return true;
}

/* One completion event for cq on the channel, acknowledged. */
static void expect_event(struct pair *p, struct ibv_cq *want)
{
	struct ibv_cq *cq = NULL;
	void *cq_ctx;

	CHECK(m5t_fd_ready(p->ch->fd));
	if (!m5t_fd_ready(p->ch->fd))
		return;
	CHECK_EQ(ibv_get_cq_event(p->ch, &cq, &cq_ctx), 0);
	CHECK(cq == want);
	if (cq)
		ibv_ack_cq_events(cq, 1);
}

/* A message from a to b, both completions polled. */
static void ping(struct pair *p, uint64_t id, unsigned int flags)
{
	struct ibv_wc wc;

	CHECK_EQ(post_recv(&p->b, id, 0, 64), 0);
	CHECK_EQ(post_send(&p->a, IBV_WR_SEND, id, 0, 32, flags), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
}

static void
cq_events_fire_once_per_arm_for_solicited_and_moderated_cqs_on(struct pair *p)
{
	struct ibv_modify_cq_attr ma = { .attr_mask = IBV_CQ_ATTR_MODERATE };
	struct ibv_wc wc[4];
	struct m5m_stats st;
	int i;

	/* Arm, fire, read (cq_event advances sn), ack, poll, re-arm. */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ibv_req_notify_cq(p->b.cq, 0), 0);
		ping(p, i, 0);
		CHECK_EQ(m5m_irq_service(p->dev), 1);
		expect_event(p, p->b.cq);
		CHECK_EQ(m5t_poll_one(p->b.cq, wc), 1);
		CHECK_EQ(wc[0].wr_id, i);
	}
	/* Solicited only: a plain send does not fire, a solicited one does. */
	CHECK_EQ(ibv_req_notify_cq(p->b.cq, 1), 0);
	ping(p, 10, 0);
	CHECK_EQ(m5m_irq_service(p->dev), 0);
	ping(p, 11, IBV_SEND_SOLICITED);
	CHECK_EQ(m5m_irq_service(p->dev), 1);
	expect_event(p, p->b.cq);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 4, wc), 2);
	/* Moderation by count through ibv_modify_cq. */
	ma.moderate.cq_count = 2;
	CHECK_EQ(ibv_modify_cq(p->b.cq, &ma), 0);
	CHECK_EQ(ibv_req_notify_cq(p->b.cq, 0), 0);
	ping(p, 20, 0);
	CHECK_EQ(m5m_irq_service(p->dev), 0);
	ping(p, 21, 0);
	CHECK_EQ(m5m_irq_service(p->dev), 1);
	expect_event(p, p->b.cq);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 4, wc), 2);
	/* ... and by period, on the virtual clock. */
	ma.moderate.cq_count = 0;
	ma.moderate.cq_period = 20;
	CHECK_EQ(ibv_modify_cq(p->b.cq, &ma), 0);
	CHECK_EQ(ibv_req_notify_cq(p->b.cq, 0), 0);
	m5m_reset_stats(p->dev);
	ping(p, 30, 0);
	m5m_clock_advance(p->dev, 19);
	CHECK_EQ(m5m_irq_service(p->dev), 0);
	m5m_clock_advance(p->dev, 1);
	CHECK_EQ(m5m_irq_service(p->dev), 1);
	expect_event(p, p->b.cq);
	m5m_get_stats(p->dev, &st);
	CHECK_EQ(st.lat_max, 20);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 4, wc), 1);
	ma.moderate.cq_period = 5000;
	CHECK(ibv_modify_cq(p->b.cq, &ma) != 0);
}
PAIR_TEST(cq_events_fire_once_per_arm_for_solicited_and_moderated_cqs, true)

/* The same flow with the model's IRQ thread servicing the vectors. */
static void an_irq_thread_wakes_a_blocked_get_cq_event_on(struct pair *p)
{
	struct ibv_cq *cq = NULL;
	struct ibv_wc wc;
	void *cq_ctx;
	int i;

	CHECK_EQ(m5m_irq_thread_start(p->dev), 0);
	for (i = 0; i < 50 && !check_failed; i++) {
		CHECK_EQ(ibv_req_notify_cq(p->b.cq, 0), 0);
		ping(p, i, 0);
		/* Blocks until the IRQ thread writes the event. */
		CHECK_EQ(ibv_get_cq_event(p->ch, &cq, &cq_ctx), 0);
		CHECK(cq == p->b.cq);
		ibv_ack_cq_events(cq, 1);
		CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
		CHECK_EQ(wc.wr_id, i);
	}
	m5m_irq_thread_stop(p->dev);
}
PAIR_TEST(an_irq_thread_wakes_a_blocked_get_cq_event, true)

static void rdma_write_read_and_atomics_move_the_right_bytes_on(struct pair *p)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	uint64_t *target, *result;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 128; i++)
		p->a.buf[i] = (uint8_t)(i ^ 0x5a);
	/* RDMA WRITE. */
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf, 128, p->a.mr->lkey };
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)p->b.buf + 256;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	CHECK(!memcmp(p->b.buf + 256, p->a.buf, 128));
	CHECK_EQ(ibv_poll_cq(p->b.cq, 1, &wc), 0);
	/* RDMA WRITE with immediate: it takes a receive WQE. */
	CHECK_EQ(post_recv(&p->b, 0xb0, 0, 16), 0);
	sge.length = 16;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0x1234);
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM);
	CHECK_EQ(wc.imm_data, htobe32(0x1234));
	CHECK_EQ(wc.byte_len, 16);
	/* RDMA READ. */
	for (i = 0; i < 64; i++)
		p->b.buf[512 + i] = (uint8_t)(i * 3);
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf + 1024, 64, p->a.mr->lkey };
	wr.opcode = IBV_WR_RDMA_READ;
	wr.imm_data = 0;
	wr.wr.rdma.remote_addr = (uintptr_t)p->b.buf + 512;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.opcode, IBV_WC_RDMA_READ);
	CHECK_EQ(wc.byte_len, 64);
	CHECK(!memcmp(p->a.buf + 1024, p->b.buf + 512, 64));
	/* Compare and swap, then fetch and add, on a host-endian u64. */
	target = (uint64_t *)(p->b.buf + 2048);
	result = (uint64_t *)(p->a.buf + 3072);
	*target = 5;
	sge = (struct ibv_sge){ (uintptr_t)result, 8, p->a.mr->lkey };
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = p->b.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 9;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.opcode, IBV_WC_COMP_SWAP);
	CHECK_EQ(*result, 5);
	CHECK_EQ(*target, 9);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 3;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.opcode, IBV_WC_FETCH_ADD);
	CHECK_EQ(*result, 9);
	CHECK_EQ(*target, 12);
}
PAIR_TEST(rdma_write_read_and_atomics_move_the_right_bytes, false)

static void
a_remote_access_error_flushes_the_rest_of_both_qps_on(struct pair *p)
{
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_qp_attr qa;
	struct ibv_wc wc[8];
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED,
				  .opcode = IBV_WR_RDMA_WRITE };
	int n;

	CHECK_EQ(post_recv(&p->a, 0xa0, 0, 64), 0);
	CHECK_EQ(post_recv(&p->a, 0xa1, 64, 64), 0);
	CHECK_EQ(post_recv(&p->b, 0xb0, 0, 64), 0);
	/* A bad rkey: remote access error, both QPs go to ERR. */
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf, 32, p->a.mr->lkey };
	wr.wr_id = 0x77;
	wr.wr.rdma.remote_addr = (uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey ^ 0x80;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	n = ibv_poll_cq(p->a.cq, 8, wc);
	CHECK_EQ(n, 3);
	CHECK_EQ(wc[0].wr_id, 0x77);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 0xa0);
	CHECK_EQ(wc[2].wr_id, 0xa1);
	/* Later sends are flushed, unsignaled or not. */
	wr.wr_id = 0x78;
	wr.send_flags = 0;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(ibv_poll_cq(p->a.cq, 8, wc), 1);
	CHECK_EQ(wc[0].wr_id, 0x78);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 8, wc), 1);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(ibv_query_qp(p->a.qp, &qa, IBV_QP_STATE, &init), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);
	/* The responder hears of it on the async EQ. */
	CHECK_EQ(m5m_irq_service(p->dev), 1);
	if (expect_async(p->ctx, IBV_EVENT_QP_ACCESS_ERR, &ev))
		CHECK(ev.element.qp == p->b.qp);
}
PAIR_TEST(a_remote_access_error_flushes_the_rest_of_both_qps, false)

static void rnr_retry_gives_up_after_its_count_or_waits_for_a_receive(void)
{
	struct m5m_stats st;
	struct ibv_wc wc;
	struct pair p;

	/* rnr_retry 1, min_rnr_timer 1 (10 µs): one retry, then the error. */
	CHECK_EQ(pair_open_rnr(&p, false, 1), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(post_send(&p.a, IBV_WR_SEND, 1, 0, 32, 0), 0);
	CHECK_EQ(ibv_poll_cq(p.a.cq, 1, &wc), 0);
	m5m_clock_advance(p.dev, 10);
	CHECK_EQ(m5t_poll_one(p.a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	m5m_get_stats(p.dev, &st);
	CHECK_EQ(st.rnr_naks, 2);
	pair_close(&p);

	/* rnr_retry 7 waits for ever; a receive WQE releases the message. */
	CHECK_EQ(pair_open(&p, false), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(post_send(&p.a, IBV_WR_SEND, 2, 0, 32, 0), 0);
	m5m_clock_advance(p.dev, 100000);
	CHECK_EQ(ibv_poll_cq(p.a.cq, 1, &wc), 0);
	CHECK_EQ(post_recv(&p.b, 3, 0, 64), 0);
	CHECK_EQ(m5t_poll_one(p.a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(m5t_poll_one(p.b.cq, &wc), 1);
	CHECK_EQ(wc.wr_id, 3);
	/* A forced RNR: the same, by fault injection. */
	m5m_inject(p.dev, M5M_FAULT_RNR, 1);
	CHECK_EQ(post_recv(&p.b, 4, 0, 64), 0);
	CHECK_EQ(post_send(&p.a, IBV_WR_SEND, 5, 0, 32, 0), 0);
	CHECK_EQ(ibv_poll_cq(p.a.cq, 1, &wc), 0);
	m5m_clock_advance(p.dev, 10);
	CHECK_EQ(m5t_poll_one(p.a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
out:
	pair_close(&p);
}

/* Two UD QPs, a on side a's CQ and b on side b's, up with Q_Key 0x1111. */
static bool ud_qps_up(struct pair *p, struct ibv_qp **ua, struct ibv_qp **ub)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	qa.send_cq = qa.recv_cq = p->a.cq;
	*ua = ibv_create_qp(p->pd, &qa);
	qa.send_cq = qa.recv_cq = p->b.cq;
	*ub = ibv_create_qp(p->pd, &qa);
	CHECK(*ua && *ub);
	if (!*ua || !*ub)
		return false;
	CHECK_EQ(m5t_ud_up(*ua, 0x1111), 0);
	CHECK_EQ(m5t_ud_up(*ub, 0x1111), 0);
	return true;
}

static void ud_send_delivers_the_grh_and_the_payload_on(struct pair *p)
{
	struct ibv_ah_attr aa = { .port_num = 1 };
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_qp *ua = NULL, *ub = NULL;
	struct m5m_stats st;
	struct ibv_ah *ah = NULL, *gah;
	struct ibv_wc wc;
	int i;

	if (!ud_qps_up(p, &ua, &ub))
		goto out;
	aa.dlid = m5m_port_lid(p->dev, 1);
	ah = ibv_create_ah(p->pd, &aa);
	CHECK(ah);
	if (!ah)
		goto out;
	for (i = 0; i < 100; i++)
		p->a.buf[i] = (uint8_t)(i + 100);
	CHECK_EQ(post_recv_on(ub, &p->b, 9, 0, 40 + 128), 0);
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf, 100, p->a.mr->lkey };
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ub->qp_num;
	wr.wr.ud.remote_qkey = 0x1111;
	CHECK_EQ(post_wr_on(ua, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, 140);
	CHECK_EQ(wc.src_qp, ua->qp_num);
	CHECK(!(wc.wc_flags & IBV_WC_GRH));
	CHECK(!memcmp(p->b.buf + 40, p->a.buf, 100));
	/* A wrong Q_Key: the datagram is dropped, the sender never knows. */
	wr.wr.ud.remote_qkey = 0x2222;
	CHECK_EQ(post_wr_on(ua, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 1, &wc), 0);
	m5m_get_stats(p->dev, &st);
	CHECK_EQ(st.ud_dropped, 1);
	/* With a GRH: the 40 bytes before the payload carry it. */
	aa.is_global = 1;
	m5m_port_gid(p->dev, 1, &aa.grh.dgid);
	aa.grh.hop_limit = 64;
	gah = ibv_create_ah(p->pd, &aa);
	CHECK(gah);
	if (!gah)
		goto out;
	CHECK_EQ(post_recv_on(ub, &p->b, 10, 0, 40 + 128), 0);
	wr.wr.ud.ah = gah;
	wr.wr.ud.remote_qkey = 0x1111;
	CHECK_EQ(post_wr_on(ua, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
	CHECK_EQ(wc.byte_len, 140);
	CHECK(wc.wc_flags & IBV_WC_GRH);
	CHECK(!memcmp(p->b.buf + 24, aa.grh.dgid.raw, 16));
	CHECK(!memcmp(p->b.buf + 40, p->a.buf, 100));
	CHECK_EQ(ibv_destroy_ah(gah), 0);
out:
	qp_close(ub);
	qp_close(ua);
	if (ah)
		CHECK_EQ(ibv_destroy_ah(ah), 0);
}
PAIR_TEST(ud_send_delivers_the_grh_and_the_payload, false)

/*
 * The device's rule: a UD WQE whose AV names a source GID past the port's
 * table (two GIDs) sends nothing and fails with LOCAL_QP_OP_ERR.  The AH is
 * made with index 1, then its AV is rewritten to index 2, as a provider
 * that wrote the index wrong would.
 */
static void
ud_wqe_naming_a_source_gid_the_port_lacks_fails_and_sends_nothing_on(
	struct pair *p)
{
	struct ibv_ah_attr aa = { .port_num = 1, .is_global = 1 };
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_qp *ua = NULL, *ub = NULL;
	struct ibv_ah *ah = NULL;
	struct m5_av *av;
	struct ibv_wc wc;

	if (!ud_qps_up(p, &ua, &ub))
		goto out;
	aa.dlid = m5m_port_lid(p->dev, 1);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	m5m_port_gid(p->dev, 1, &aa.grh.dgid);
	ah = ibv_create_ah(p->pd, &aa);
	CHECK(ah);
	if (!ah)
		goto out;
	CHECK_EQ(post_recv_on(ub, &p->b, 9, 0, 40 + 128), 0);
	av = &to_m5_ah(ah)->av;
	av->grh_gid_fl =
		htobe32((be32toh(av->grh_gid_fl) & ~(0xffu << 20)) | 2u << 20);
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf, 100, p->a.mr->lkey };
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ub->qp_num;
	wr.wr.ud.remote_qkey = 0x1111;
	CHECK_EQ(post_wr_on(ua, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_LOC_QP_OP_ERR);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 1, &wc), 0);
out:
	qp_close(ub);
	qp_close(ua);
	if (ah)
		CHECK_EQ(ibv_destroy_ah(ah), 0);
}
PAIR_TEST(ud_wqe_naming_a_source_gid_the_port_lacks_fails_and_sends_nothing,
	  false)

/* Many WRs through small queues: SQ, RQ and CQ wrap many times. */
static void
queues_that_wrap_many_times_lose_and_repeat_nothing_on(struct pair *p)
{
	struct ibv_wc wc[4];
	uint32_t len;
	unsigned int flags;
	int i, j, n;

	for (i = 0; i < 3000 && !check_failed; i++) {
		len = 1 + (uint32_t)(i * 37) % 200;
		for (j = 0; j < (int)len; j++)
			p->a.buf[j] = (uint8_t)(i + j);
		/* Every third inline (when it fits); 3 of 4 unsignaled. */
		flags = i % 3 == 0 && len <= 64 ? IBV_SEND_INLINE : 0;
		CHECK_EQ(post_recv(&p->b, i, 1024, 256), 0);
		if (i % 4 == 3) {
			CHECK_EQ(
				post_send(&p->a, IBV_WR_SEND, i, 0, len, flags),
				0);
			CHECK_EQ(m5t_poll_one(p->a.cq, wc), 1);
			CHECK_EQ(wc[0].wr_id, i);
		} else {
			struct ibv_sge sge = { (uintptr_t)p->a.buf, len,
					       p->a.mr->lkey };
			struct ibv_send_wr wr = { .wr_id = i,
						  .sg_list = &sge,
						  .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = flags };

			CHECK_EQ(post_wr(&p->a, &wr), 0);
		}
		n = m5t_poll_one(p->b.cq, wc);
		CHECK_EQ(n, 1);
		CHECK_EQ(wc[0].wr_id, i);
		CHECK_EQ(wc[0].byte_len, len);
		CHECK(!memcmp(p->b.buf + 1024, p->a.buf, len));
	}
}
PAIR_TEST(queues_that_wrap_many_times_lose_and_repeat_nothing, false)

static void a_dropped_doorbell_is_run_by_the_next_one_on(struct pair *p)
{
	struct ibv_wc wc[4];
	struct m5m_stats st;

	CHECK_EQ(post_recv(&p->b, 1, 0, 64), 0);
	CHECK_EQ(post_recv(&p->b, 2, 64, 64), 0);
	m5m_inject(p->dev, M5M_FAULT_DROP_DOORBELL, 1);
	CHECK_EQ(post_send(&p->a, IBV_WR_SEND, 1, 0, 16, 0), 0);
	CHECK_EQ(ibv_poll_cq(p->a.cq, 4, wc), 0);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 4, wc), 0);
	/* The next doorbell runs both, from the SND dbrec. */
	CHECK_EQ(post_send(&p->a, IBV_WR_SEND, 2, 0, 16, 0), 0);
	CHECK_EQ(ibv_poll_cq(p->a.cq, 4, wc), 2);
	CHECK_EQ(ibv_poll_cq(p->b.cq, 4, wc), 2);
	m5m_get_stats(p->dev, &st);
	CHECK_EQ(st.dropped_doorbells, 1);
}
PAIR_TEST(a_dropped_doorbell_is_run_by_the_next_one, false)

static void a_dmabuf_mr_serves_an_rdma_write_on(struct pair *p)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_mr *mr = NULL;
	struct ibv_wc wc;
	uint8_t *view = MAP_FAILED;
	int fd, i;

	fd = memfd_create("m5m-dmabuf", MFD_CLOEXEC);
	CHECK(fd >= 0 && !ftruncate(fd, 8192));
	if (check_failed)
		goto out;
	/* The model accepts any mmappable fd as a dmabuf. */
	mr = ibv_reg_dmabuf_mr(p->pd, 4096, 4096, 0x10000, fd,
			       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr);
	view = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (!mr || view == MAP_FAILED)
		goto out;
	for (i = 0; i < 64; i++)
		p->a.buf[i] = (uint8_t)(200 - i);
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf, 64, p->a.mr->lkey };
	/* a's QP talks to b's, which is in the same PD as the dmabuf MR. */
	wr.wr.rdma.remote_addr = 0x10000 + 100;
	wr.wr.rdma.rkey = mr->rkey;
	CHECK_EQ(post_wr(&p->a, &wr), 0);
	CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK(!memcmp(view + 4096 + 100, p->a.buf, 64));
out:
	if (view != MAP_FAILED)
		munmap(view, 8192);
	if (mr)
		CHECK_EQ(ibv_dereg_mr(mr), 0);
	if (fd >= 0)
		close(fd);
}
PAIR_TEST(a_dmabuf_mr_serves_an_rdma_write, false)

/* An RC QP on cq (with srq if given), connected to dest later. */
static struct ibv_qp *rc_qp(struct pair *p, struct ibv_cq *cq,
			    struct ibv_srq *srq)
{
	return m5t_rc_qp(p->pd, cq, srq, 16, 1);
}

static int srq_post(struct ibv_srq *srq, struct side *s, uint64_t id,
		    uint32_t off)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, 64, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static void srq_receives_complete_out_of_posting_order_on(struct pair *p)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq_attr lim = { .srq_limit = 2 };
	struct ibv_qp *c = NULL, *d = NULL;
	struct ibv_async_event ev;
	struct ibv_srq *srq = NULL;
	struct ibv_wc wc;
	int i;

	srq = ibv_create_srq(p->pd, &sa);
	CHECK(srq);
	if (!srq) {
		return;
	}
	c = rc_qp(p, p->b.cq, srq);
	d = rc_qp(p, p->a.cq, NULL);
	CHECK(c && d);
	if (!c || !d)
		goto out;
	CHECK_EQ(m5t_rc_pair(p->dev, c, d, 7), 0);
	/* Receives come off the free list, out of posting order later. */
	for (i = 0; i < 40 && !check_failed; i++) {
		CHECK_EQ(srq_post(srq, &p->b, 100 + i, 64 * (i % 8)), 0);
		p->a.buf[0] = (uint8_t)i;
		CHECK_EQ(post_send_on(d, &p->a, IBV_WR_SEND, i, 0, 16, 0), 0);
		CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
		CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.wr_id, 100 + i);
		CHECK_EQ(wc.qp_num, c->qp_num);
		CHECK_EQ(p->b.buf[64 * (i % 8)], (uint8_t)i);
	}
	/* The SRQ limit: armed at 2, it fires when fewer are left. */
	for (i = 0; i < 3; i++)
		CHECK_EQ(srq_post(srq, &p->b, 200 + i, 64 * i), 0);
	CHECK_EQ(ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT), 0);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(post_send_on(d, &p->a, IBV_WR_SEND, i, 0, 16, 0), 0);
		CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
		CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
	}
	CHECK_EQ(m5m_irq_service(p->dev), 1);
	if (expect_async(p->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, &ev))
		CHECK(ev.element.srq == srq);
out:
	qp_close(c);
	qp_close(d);
	if (srq)
		CHECK_EQ(ibv_destroy_srq(srq), 0);
}
PAIR_TEST(srq_receives_complete_out_of_posting_order, false)

/* A CQ the consumer does not keep up with stops and says so. */
static void
a_cq_the_consumer_does_not_keep_up_with_stops_and_says_so_on(struct pair *p)
{
	struct ibv_qp *c = NULL, *d = NULL;
	struct ibv_async_event ev;
	struct ibv_cq *small = NULL;
	struct ibv_wc wc;
	int i;

	small = ibv_create_cq(p->ctx, 1, NULL, NULL, 0);
	CHECK(small && small->cqe == 1);
	c = small ? rc_qp(p, small, NULL) : NULL;
	d = rc_qp(p, p->a.cq, NULL);
	CHECK(c && d);
	if (!c || !d)
		goto out;
	CHECK_EQ(m5t_rc_pair(p->dev, c, d, 7), 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(post_recv_on(c, &p->b, i, 0, 64), 0);
		CHECK_EQ(post_send_on(d, &p->a, IBV_WR_SEND, i, 0, 8, 0), 0);
		CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
	}
	/* Two CQEs fit; the third overran the CQ, which stopped. */
	CHECK_EQ(m5m_irq_service(p->dev), 1);
	if (expect_async(p->ctx, IBV_EVENT_CQ_ERR, &ev))
		CHECK(ev.element.cq == small);
	CHECK_EQ(ibv_poll_cq(small, 1, &wc), 1);
	CHECK_EQ(ibv_poll_cq(small, 1, &wc), 1);
	CHECK_EQ(ibv_poll_cq(small, 1, &wc), 0);
out:
	qp_close(c);
	qp_close(d);
	if (small)
		CHECK_EQ(ibv_destroy_cq(small), 0);
}
PAIR_TEST(a_cq_the_consumer_does_not_keep_up_with_stops_and_says_so, false)

/* The fake kernel refuses what mlx5_ib and uverbs refuse. */
static void
the_model_kernel_refuses_what_mlx5_ib_and_uverbs_refuse_on(struct pair *p)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTR };
	struct ibv_qp_init_attr init;
	struct ibv_device_attr_ex dx;
	struct ibv_port_attr pa;
	struct ibv_qp *qp;

	CHECK_EQ(p->ctx->num_comp_vectors, 4);
	CHECK(p->ctx->async_fd >= 0);
	CHECK_EQ(ibv_query_device_ex(p->ctx, NULL, &dx), 0);
	CHECK_EQ(dx.orig_attr.vendor_part_id, 4115);
	CHECK_EQ(dx.cq_mod_caps.max_cq_period, 4095);
	CHECK_EQ(ibv_query_port(p->ctx, 1, &pa), 0);
	CHECK_EQ(pa.lid, m5m_port_lid(p->dev, 1));
	CHECK(ibv_query_port(p->ctx, 2, &pa) != 0);
	/* A comp_vector the context does not have. */
	CHECK(!ibv_create_cq(p->ctx, 4, NULL, NULL, 4));
	/* The PD still has MRs, CQs aside: busy. */
	CHECK_EQ(ibv_dealloc_pd(p->pd), EBUSY);
	/* RESET to RTR skips INIT. */
	qp = rc_qp(p, p->a.cq, NULL);
	CHECK(qp);
	if (!qp)
		return;
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE) != 0);
	/* INIT without its required attributes. */
	qa.qp_state = IBV_QPS_INIT;
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE) != 0);
	CHECK_EQ(ibv_query_qp(qp, &qa, IBV_QP_STATE, &init), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_RESET);
	CHECK_EQ(ibv_query_qp(p->a.qp, &qa, IBV_QP_STATE | IBV_QP_DEST_QPN,
			      &init),
		 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_RTS);
	CHECK_EQ(qa.dest_qp_num, p->b.qp->qp_num);
	CHECK_EQ(ibv_destroy_qp(qp), 0);
}
PAIR_TEST(the_model_kernel_refuses_what_mlx5_ib_and_uverbs_refuse, false)

/*
 * More QPs than dedicated bfregs: the later ones share the medium bfregs
 * (locked, BlueFlame halves alternating per bfreg, not per QP).
 */
static void
qps_beyond_the_dedicated_bfregs_share_the_medium_ones_on(struct pair *p)
{
	struct ibv_qp *q[16] = { NULL };
	struct m5m_stats st;
	struct ibv_wc wc;
	int i, j;

	for (i = 0; i < 16; i++) {
		q[i] = rc_qp(p, i % 2 ? p->b.cq : p->a.cq, NULL);
		CHECK(q[i]);
		if (!q[i])
			goto out;
	}
	for (i = 0; i < 16; i += 2)
		CHECK_EQ(m5t_rc_pair(p->dev, q[i], q[i + 1], 7), 0);
	for (j = 0; j < 5; j++)
		for (i = 0; i < 16; i += 2) {
			CHECK_EQ(post_recv_on(q[i + 1], &p->b, j, 0, 64), 0);
			/* Inline: one WR with ds > 1 takes BlueFlame. */
			CHECK_EQ(post_send_on(q[i], &p->a, IBV_WR_SEND, j, 0, 8,
					      j % 2 ? IBV_SEND_INLINE : 0),
				 0);
			CHECK_EQ(m5t_poll_one(p->a.cq, &wc), 1);
			CHECK_EQ(m5t_poll_one(p->b.cq, &wc), 1);
			CHECK_EQ(wc.qp_num, q[i + 1]->qp_num);
		}
	/* Every one a single WR of ds 2 on a bfreg other than 0. */
	m5m_get_stats(p->dev, &st);
	CHECK_EQ(st.bf_doorbells, 40);
out:
	for (i = 0; i < 16; i++)
		qp_close(q[i]);
}
PAIR_TEST(qps_beyond_the_dedicated_bfregs_share_the_medium_ones, false)

static const struct check_test tests[] = {
	CHECK_TEST(rc_send_delivers_the_bytes_and_one_completion_each_side),
	CHECK_TEST(cq_events_fire_once_per_arm_for_solicited_and_moderated_cqs),
	CHECK_TEST(an_irq_thread_wakes_a_blocked_get_cq_event),
	CHECK_TEST(rdma_write_read_and_atomics_move_the_right_bytes),
	CHECK_TEST(a_remote_access_error_flushes_the_rest_of_both_qps),
	CHECK_TEST(rnr_retry_gives_up_after_its_count_or_waits_for_a_receive),
	CHECK_TEST(ud_send_delivers_the_grh_and_the_payload),
	CHECK_TEST(
		ud_wqe_naming_a_source_gid_the_port_lacks_fails_and_sends_nothing),
	CHECK_TEST(queues_that_wrap_many_times_lose_and_repeat_nothing),
	CHECK_TEST(a_dropped_doorbell_is_run_by_the_next_one),
	CHECK_TEST(a_dmabuf_mr_serves_an_rdma_write),
	CHECK_TEST(a_cq_the_consumer_does_not_keep_up_with_stops_and_says_so),
	CHECK_TEST(the_model_kernel_refuses_what_mlx5_ib_and_uverbs_refuse),
	CHECK_TEST(qps_beyond_the_dedicated_bfregs_share_the_medium_ones),
	CHECK_TEST(srq_receives_complete_out_of_posting_order),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_e2e_", tests);
}
