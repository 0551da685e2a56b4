// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completion-event path of the mlx5 backend over the software
 * ConnectX, through the public verbs API (ibv_req_notify_cq,
 * ibv_get_cq_event, ibv_ack_cq_events, ibv_modify_cq, ibv_get_async_event)
 * and the model's interrupt service: arming, firing, re-arming, solicited
 * arms, the arm sequence number, shared and dedicated MSI-X vectors, EQ
 * re-arm, moderation, lost and duplicated interrupts, the model-only
 * int_period throttle, destroy after ack, and an IRQ thread feeding a
 * blocking ibv_get_cq_event.  One ctest per behaviour: mlx5_event_<name>.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"

#define BUF	 8192
#define RECV_OFF 4096

/*
 * One device, one context, one completion channel and an RC pair: a sends
 * (its CQ is scq), b receives (rcq).
 */
struct env {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *a, *b;
};

static struct ibv_qp *rc_qp(struct env *e, struct ibv_cq *cq)
{
	return m5t_rc_qp(e->pd, cq, NULL, 16, 1);
}

/* scq on completion vector svec, rcq on rvec; cfg NULL: defaults. */
static int env_open(struct env *e, const struct m5m_config *cfg, int svec,
		    int rvec)
{
	memset(e, 0, sizeof(*e));
	e->dev = m5m_dev_create(cfg);
	e->ctx = e->dev ? m5m_open(e->dev) : NULL;
	if (!e->ctx)
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	e->ch = m5m_create_comp_channel(e->dev, e->ctx);
	e->buf = aligned_alloc(4096, BUF);
	if (!e->pd || !e->ch || !e->buf)
		return -1;
	memset(e->buf, 0, BUF);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	e->scq = ibv_create_cq(e->ctx, 63, (void *)0x5c, e->ch, svec);
	e->rcq = ibv_create_cq(e->ctx, 63, (void *)0x7c, e->ch, rvec);
	if (!e->mr || !e->scq || !e->rcq)
		return -1;
	e->a = rc_qp(e, e->scq);
	e->b = rc_qp(e, e->rcq);
	if (!e->a || !e->b)
		return -1;
	return m5t_rc_pair(e->dev, e->a, e->b, 7);
}

static void env_close(struct env *e)
{
	if (e->a)
		CHECK_EQ(ibv_destroy_qp(e->a), 0);
	if (e->b)
		CHECK_EQ(ibv_destroy_qp(e->b), 0);
	if (e->scq)
		CHECK_EQ(ibv_destroy_cq(e->scq), 0);
	if (e->rcq)
		CHECK_EQ(ibv_destroy_cq(e->rcq), 0);
	if (e->mr)
		CHECK_EQ(ibv_dereg_mr(e->mr), 0);
	if (e->ch)
		CHECK_EQ(m5m_destroy_comp_channel(e->dev, e->ch), 0);
	if (e->pd)
		CHECK_EQ(ibv_dealloc_pd(e->pd), 0);
	m5t_dev_close(e->dev, e->ctx);
	free(e->buf);
}

static int post_recv(struct env *e, uint64_t id, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + RECV_OFF, len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->b, &wr, &bad);
}

static int post_send(struct env *e, enum ibv_wr_opcode op, uint32_t len,
		     unsigned int flags, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0x5e,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htobe32(0x1234),
		.wr.rdma = { (uintptr_t)e->buf + RECV_OFF, rkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(e->a, &wr, &bad);
}

/* Every completion the CQ has now. */
static int drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int n, total = 0;

	while ((n = ibv_poll_cq(cq, 16, wc)) > 0)
		total += n;
	return total;
}

/*
 * A SEND of 32 bytes from a to b (a receive posted first); the requester
 * completion on scq is polled unless keep_scq.  b's CQE stays on rcq.
 */
static void msg_keep(struct env *e, unsigned int flags, bool keep_scq)
{
	CHECK_EQ(post_recv(e, 0xb0, 64), 0);
	CHECK_EQ(post_send(e, IBV_WR_SEND, 32, flags, 0), 0);
	if (!keep_scq)
		CHECK_EQ(drain(e->scq), 1);
}

static void msg(struct env *e, unsigned int flags)
{
	msg_keep(e, flags, false);
}

/* Channel events ready now, per CQ; each read (cq_event) and acked. */
struct evs {
	int s, r, other;
};

static struct evs events(struct env *e)
{
	struct evs n = { 0 };
	struct ibv_cq *cq;
	void *cq_ctx;

	while (m5t_fd_ready(e->ch->fd)) {
		cq = NULL;
		if (ibv_get_cq_event(e->ch, &cq, &cq_ctx)) {
			CHECK(!"ibv_get_cq_event failed");
			break;
		}
		if (cq == e->scq) {
			n.s++;
			CHECK(cq_ctx == (void *)0x5c);
		} else if (cq == e->rcq) {
			n.r++;
			CHECK(cq_ctx == (void *)0x7c);
		} else {
			n.other++;
		}
		if (cq)
			ibv_ack_cq_events(cq, 1);
	}
	return n;
}

static struct m5m_cq_info cq_info(struct env *e, struct ibv_cq *cq)
{
	struct m5m_cq_info i = { 0 };

	CHECK_EQ(m5m_cq_info(e->dev, cq, &i), 0);
	return i;
}

static struct m5m_vec_stats vstats(struct env *e, unsigned int vec)
{
	struct m5m_vec_stats s = { 0 };

	CHECK_EQ(m5m_get_vec_stats(e->dev, vec, &s), 0);
	return s;
}

static struct m5m_config cfg_vectors(unsigned int nvec, unsigned int nmsix)
{
	struct m5m_config cfg;

	m5m_config_default(&cfg);
	cfg.num_comp_vectors = nvec;
	cfg.num_comp_msix = nmsix;
	return cfg;
}

/* Arm rcq, one message: one interrupt, one event on rcq. */
static void arm_msg_event(struct env *e)
{
	CHECK_EQ(ibv_req_notify_cq(e->rcq, 0), 0);
	msg(e, 0);
	CHECK_EQ(m5m_irq_service(e->dev), 1);
	CHECK_EQ(events(e).r, 1);
}

#define OPEN(e, cfg, svec, rvec)                                               \
	do {                                                                   \
		CHECK_EQ(env_open(e, cfg, svec, rvec), 0);                     \
		if (check_failed)                                              \
			goto out;                                              \
	} while (0)

/* Arm, fire once, nothing more until re-armed, re-arm, fire again. */
static void an_armed_cq_fires_once_until_rearmed(void)
{
	struct m5m_stats st;
	struct evs n;
	struct env e;
	int i;

	OPEN(&e, NULL, 0, 0);
	for (i = 0; i < 6 && !check_failed; i++) {
		CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
		CHECK_EQ(cq_info(&e, e.rcq).state, 1);
		msg(&e, 0);
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		CHECK_EQ(cq_info(&e, e.rcq).state, 3);
		/* Two more CQEs on the fired CQ: no interrupt, no event. */
		msg(&e, 0);
		msg(&e, IBV_SEND_SOLICITED);
		CHECK_EQ(m5m_irq_service(e.dev), 0);
		n = events(&e);
		CHECK_EQ(n.r, 1);
		CHECK_EQ(n.s + n.other, 0);
		CHECK_EQ(drain(e.rcq), 3);
		/* Polled, not re-armed: still nothing. */
		msg(&e, 0);
		CHECK_EQ(m5m_irq_service(e.dev), 0);
		CHECK(!m5t_fd_ready(e.ch->fd));
		CHECK_EQ(drain(e.rcq), 1);
	}
	m5m_get_stats(e.dev, &st);
	CHECK_EQ(st.cq_events, 6);
	CHECK_EQ(st.channel_events, 6);
	CHECK_EQ(cq_info(&e, e.rcq).events, 6);
out:
	env_close(&e);
}

/* A CQ never armed raises nothing, however many CQEs it gets. */
static void a_cq_never_armed_raises_no_event(void)
{
	struct m5m_stats st;
	struct env e;
	unsigned int v;
	int i;

	OPEN(&e, NULL, 0, 0);
	/* 12: the RQ holds 16 and nothing is polled yet. */
	for (i = 0; i < 12; i++)
		msg(&e, i % 2 ? IBV_SEND_SOLICITED : 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	for (v = 0; v < m5m_num_vectors(e.dev); v++)
		CHECK(!m5t_fd_ready(m5m_vector_fd(e.dev, v)));
	CHECK(!m5t_fd_ready(e.ch->fd));
	CHECK_EQ(cq_info(&e, e.rcq).state, 0);
	m5m_get_stats(e.dev, &st);
	CHECK_EQ(st.cqes, 24);
	CHECK_EQ(st.cq_events, 0);
	CHECK_EQ(st.eqes, 0);
	/* Arming after everything was polled: nothing pending, no event. */
	CHECK_EQ(drain(e.rcq), 12);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 1), 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK(!m5t_fd_ready(e.ch->fd));
out:
	env_close(&e);
}

/*
 * A solicited-only arm: plain receives, SEND_WITH_IMM and a solicited
 * RDMA WRITE (no receive CQE) leave it armed; the requester CQE of a
 * solicited SEND does not count on the sender's CQ; an SE receive fires.
 */
static void a_solicited_arm_fires_only_on_a_solicited_receive(void)
{
	struct evs n;
	struct env e;

	OPEN(&e, NULL, 0, 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 1), 0);
	CHECK_EQ(ibv_req_notify_cq(e.scq, 1), 0);
	CHECK_EQ(cq_info(&e, e.rcq).state, 2);
	msg(&e, 0);
	CHECK_EQ(post_recv(&e, 0xb1, 64), 0);
	CHECK_EQ(post_send(&e, IBV_WR_SEND_WITH_IMM, 16, 0, 0), 0);
	CHECK_EQ(post_send(&e, IBV_WR_RDMA_WRITE, 16, IBV_SEND_SOLICITED,
			   e.mr->rkey),
		 0);
	CHECK_EQ(drain(e.scq), 2);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(cq_info(&e, e.rcq).state, 2);
	/* The SE receive fires rcq; its requester CQE leaves scq armed. */
	msg_keep(&e, IBV_SEND_SOLICITED, true);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	n = events(&e);
	CHECK_EQ(n.r, 1);
	CHECK_EQ(n.s, 0);
	CHECK_EQ(cq_info(&e, e.scq).state, 2);
	CHECK_EQ(drain(e.rcq), 3);
	CHECK_EQ(drain(e.scq), 1);
	/* A normal arm after a solicited one takes a plain CQE again. */
	arm_msg_event(&e);
	CHECK_EQ(drain(e.rcq), 1);
out:
	env_close(&e);
}

/*
 * Error CQEs satisfy a solicited-only arm: a WRITE with a bad rkey gives
 * the requester an error CQE and sends the responder to ERR, which
 * flushes its receive (an error CQE too) and reports the access error as
 * an async event, on the async vector.
 */
static void error_cqes_satisfy_a_solicited_arm(void)
{
	struct ibv_async_event ev;
	struct ibv_wc wc[4];
	struct evs n;
	struct env e;

	OPEN(&e, NULL, 0, 0);
	CHECK_EQ(ibv_req_notify_cq(e.scq, 1), 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 1), 0);
	/* A plain send completes on both CQs: neither fires. */
	msg_keep(&e, 0, true);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(post_recv(&e, 0xb2, 64), 0);
	CHECK_EQ(post_send(&e, IBV_WR_RDMA_WRITE, 16, 0, e.mr->rkey ^ 0x80), 0);
	/* One interrupt on the completion vector, one on the async one. */
	CHECK_EQ(m5m_irq_service(e.dev), 2);
	n = events(&e);
	CHECK_EQ(n.s, 1);
	CHECK_EQ(n.r, 1);
	CHECK_EQ(vstats(&e, 0).handled, 1);
	CHECK(m5t_fd_ready(e.ctx->async_fd));
	if (m5t_fd_ready(e.ctx->async_fd)) {
		CHECK_EQ(ibv_get_async_event(e.ctx, &ev), 0);
		CHECK_EQ(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
		CHECK(ev.element.qp == e.b);
		ibv_ack_async_event(&ev);
	}
	CHECK(!m5t_fd_ready(e.ctx->async_fd));
	CHECK_EQ(ibv_poll_cq(e.scq, 4, wc), 2);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(ibv_poll_cq(e.rcq, 4, wc), 2);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 0xb2);
out:
	env_close(&e);
}

/* Arming over CQEs not yet polled fires at once if they match the arm. */
static void arming_over_matching_unpolled_cqes_fires_at_once(void)
{
	struct env e;

	OPEN(&e, NULL, 0, 0);
	msg(&e, 0);
	msg(&e, 0);
	msg(&e, 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(cq_info(&e, e.rcq).state, 3);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(drain(e.rcq), 3);
	/* Nothing pending after the poll: the arm waits. */
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(cq_info(&e, e.rcq).state, 1);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(drain(e.rcq), 1);
	/* A pending plain CQE does not fire a solicited arm ... */
	msg(&e, 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 1), 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(cq_info(&e, e.rcq).state, 2);
	CHECK_EQ(drain(e.rcq), 1);
	/* ... a pending SE one does, as soon as the arm lands. */
	msg(&e, IBV_SEND_SOLICITED);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 1), 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(drain(e.rcq), 2);
out:
	env_close(&e);
}

/*
 * Each event read (ibv_get_cq_event -> cq_event) advances the sn the next
 * arm carries, mod 4; arming again without an event keeps it.  The model
 * checks every arm's sn (lenient here, so a slip is counted, not fatal).
 */
static void each_cq_event_read_advances_the_arm_sn(void)
{
	struct m5m_cq_info ci;
	struct env e;
	int i;

	OPEN(&e, NULL, 0, 0);
	m5m_set_strict(e.dev, false);
	for (i = 0; i < 9 && !check_failed; i++) {
		CHECK_EQ(ibv_req_notify_cq(e.rcq, i % 3 == 2), 0);
		ci = cq_info(&e, e.rcq);
		CHECK_EQ(ci.arm_sn, i & 3);
		/* A second arm before any event: the same sn. */
		if (i % 2) {
			CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
			CHECK_EQ(cq_info(&e, e.rcq).arm_sn, i & 3);
		}
		msg(&e, IBV_SEND_SOLICITED);
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		CHECK_EQ(events(&e).r, 1);
		CHECK_EQ(drain(e.rcq), 1);
	}
	CHECK_EQ(m5m_violations(e.dev), 0);
	/*
	 * Re-armed while its event is still unread (the CQE polled first):
	 * no new event, and the one in the channel still advances the sn.
	 */
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	CHECK_EQ(drain(e.rcq), 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(cq_info(&e, e.rcq).arm_sn, 9 & 3);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(cq_info(&e, e.rcq).arm_sn, 10 & 3);
	/*
	 * Re-armed with the event unread and the CQE not polled: it fires
	 * again at once, so two events are read before the next arm.
	 */
	msg(&e, 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 2);
	CHECK_EQ(drain(e.rcq), 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(cq_info(&e, e.rcq).arm_sn, 12 & 3);
	CHECK_EQ(m5m_violations(e.dev), 0);
out:
	env_close(&e);
}

/*
 * Two CQs whose EQs share one MSI-X vector: both fire before the handler
 * runs, one interrupt is taken, every EQ on the vector is walked and both
 * CQs get their event.
 */
static void cqs_sharing_a_vector_get_their_events_from_one_interrupt(void)
{
	struct m5m_config cfg = cfg_vectors(2, 1);
	struct m5m_vec_stats vs;
	unsigned int vec;
	struct evs n;
	struct env e;
	int i;

	OPEN(&e, &cfg, 0, 1);
	vec = m5m_comp_vector_msix(e.dev, 0);
	CHECK_EQ(m5m_comp_vector_msix(e.dev, 1), vec);
	CHECK_EQ(m5m_num_vectors(e.dev), 2);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ibv_req_notify_cq(e.scq, 0), 0);
		CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
		msg_keep(&e, 0, true);
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		CHECK_EQ(m5m_irq_service(e.dev), 0);
		n = events(&e);
		CHECK_EQ(n.s, 1);
		CHECK_EQ(n.r, 1);
		CHECK_EQ(drain(e.scq), 1);
		CHECK_EQ(drain(e.rcq), 1);
	}
	vs = vstats(&e, vec);
	CHECK_EQ(vs.raised, 6);
	CHECK_EQ(vs.handled, 3);
	CHECK_EQ(vs.spurious, 0);
out:
	env_close(&e);
}

/* The same with a vector per EQ: two interrupts, one event each. */
static void cqs_on_their_own_vectors_take_one_interrupt_each(void)
{
	struct m5m_config cfg = cfg_vectors(2, 2);
	unsigned int vs, vr;
	struct evs n;
	struct env e;

	OPEN(&e, &cfg, 0, 1);
	vs = m5m_comp_vector_msix(e.dev, 0);
	vr = m5m_comp_vector_msix(e.dev, 1);
	CHECK(vs != vr);
	CHECK_EQ(m5m_num_vectors(e.dev), 3);
	CHECK_EQ(ibv_req_notify_cq(e.scq, 0), 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg_keep(&e, 0, true);
	CHECK(m5t_fd_ready(m5m_vector_fd(e.dev, vs)));
	CHECK(m5t_fd_ready(m5m_vector_fd(e.dev, vr)));
	CHECK_EQ(m5m_irq_service(e.dev), 2);
	n = events(&e);
	CHECK_EQ(n.s, 1);
	CHECK_EQ(n.r, 1);
	CHECK_EQ(vstats(&e, vs).handled, 1);
	CHECK_EQ(vstats(&e, vr).handled, 1);
	CHECK_EQ(vstats(&e, vs).raised, 1);
	CHECK_EQ(vstats(&e, vr).raised, 1);
	/* Only rcq armed: only its vector rings. */
	CHECK_EQ(drain(e.scq), 1);
	CHECK_EQ(drain(e.rcq), 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	CHECK(!m5t_fd_ready(m5m_vector_fd(e.dev, vs)));
	CHECK(m5t_fd_ready(m5m_vector_fd(e.dev, vr)));
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
out:
	env_close(&e);
}

/*
 * The kernel handler re-arms the EQ when it is done: with a budget of one
 * EQE per interrupt, two EQEs take two interrupts (the re-arm over a
 * pending EQE interrupts again at once), and a later CQE interrupts again.
 */
static void an_eq_rearmed_over_a_pending_eqe_interrupts_again(void)
{
	struct m5m_config cfg;
	struct evs n;
	struct env e;
	int i;

	m5m_config_default(&cfg);
	cfg.irq_budget = 1;
	OPEN(&e, &cfg, 0, 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ibv_req_notify_cq(e.scq, 0), 0);
		CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
		msg_keep(&e, 0, true);
		/* The responder's CQE came first: its event first. */
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		n = events(&e);
		CHECK_EQ(n.r, 1);
		CHECK_EQ(n.s, 0);
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		n = events(&e);
		CHECK_EQ(n.r, 0);
		CHECK_EQ(n.s, 1);
		CHECK_EQ(m5m_irq_service(e.dev), 0);
		CHECK_EQ(drain(e.scq), 1);
		CHECK_EQ(drain(e.rcq), 1);
	}
	CHECK_EQ(vstats(&e, m5m_comp_vector_msix(e.dev, 0)).handled, 6);
	/* Armed again after the last pass: a new completion interrupts. */
	arm_msg_event(&e);
out:
	env_close(&e);
}

static int modify(struct ibv_cq *cq, uint32_t mask, uint16_t count,
		  uint16_t period)
{
	struct ibv_modify_cq_attr ma = {
		.attr_mask = mask,
		.moderate = { .cq_count = count, .cq_period = period },
	};

	return ibv_modify_cq(cq, &ma);
}

/* cq_count through ibv_modify_cq: the event waits for the Nth CQE. */
static void a_moderated_cq_fires_at_the_nth_cqe(void)
{
	struct m5m_cq_info ci;
	struct env e;
	int i, r;

	OPEN(&e, NULL, 0, 0);
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 4, 0), 0);
	ci = cq_info(&e, e.rcq);
	CHECK_EQ(ci.cq_max_count, 4);
	CHECK_EQ(ci.cq_period, 0);
	for (r = 0; r < 3; r++) {
		CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
		for (i = 0; i < 3; i++) {
			msg(&e, 0);
			/* The clock runs: no period, so no timer fires. */
			m5m_clock_advance(e.dev, 1000);
			CHECK_EQ(m5m_irq_service(e.dev), 0);
		}
		msg(&e, 0);
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		CHECK_EQ(events(&e).r, 1);
		CHECK_EQ(drain(e.rcq), 4);
	}
	/* Back to no moderation: the first CQE fires. */
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 0, 0), 0);
	arm_msg_event(&e);
out:
	env_close(&e);
}

struct lat {
	unsigned int n;
	uint64_t last;
};

static void lat_hook(void *arg, const struct m5m_event_info *ev)
{
	struct lat *l = arg;

	l->n++;
	l->last = ev->latency;
}

/*
 * cq_period through ibv_modify_cq: with fewer CQEs than cq_count the
 * event comes when the period runs out on the virtual clock.
 */
static void a_moderated_cq_fires_when_the_period_runs_out(void)
{
	struct lat l = { 0 };
	struct env e;

	OPEN(&e, NULL, 0, 0);
	m5m_set_event_hook(e.dev, lat_hook, &l);
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 8, 50), 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	m5m_clock_advance(e.dev, 10);
	msg(&e, 0);
	CHECK_EQ(m5m_next_deadline(e.dev), m5m_now(e.dev) + 40);
	m5m_clock_advance(e.dev, 39);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	m5m_clock_advance(e.dev, 1);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(l.last, 50);
	CHECK_EQ(drain(e.rcq), 2);
	/* The count still fires before the period when it is reached. */
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 2, 4000), 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	CHECK_EQ(drain(e.rcq), 2);
	/* A period that ran out while disarmed fires at the arm. */
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 0, 30), 0);
	msg(&e, 0);
	m5m_clock_advance(e.dev, 100);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
out:
	env_close(&e);
}

/* Bad ibv_modify_cq requests: EINVAL, and the moderation is unchanged. */
static void bad_modify_cq_requests_get_einval_and_change_nothing(void)
{
	static const uint32_t bad_mask[] = {
		0,
		IBV_CQ_ATTR_RESERVED,
		IBV_CQ_ATTR_MODERATE | IBV_CQ_ATTR_RESERVED,
		1u << 7,
	};
	struct m5m_cq_info ci;
	struct env e;
	unsigned int i;

	OPEN(&e, NULL, 0, 0);
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 3, 700), 0);
	for (i = 0; i < sizeof(bad_mask) / sizeof(bad_mask[0]); i++)
		CHECK_EQ(modify(e.rcq, bad_mask[i], 9, 9), EINVAL);
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 9, 4096), EINVAL);
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 9, 0xffff), EINVAL);
	ci = cq_info(&e, e.rcq);
	CHECK_EQ(ci.cq_max_count, 3);
	CHECK_EQ(ci.cq_period, 700);
	/* ... and still in force: the third CQE fires, not the first. */
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(events(&e).r, 1);
	/* The limits themselves are accepted. */
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 0xffff, 4095), 0);
	ci = cq_info(&e, e.rcq);
	CHECK_EQ(ci.cq_max_count, 0xffff);
	CHECK_EQ(ci.cq_period, 4095);
out:
	env_close(&e);
}

/*
 * A lost MSI-X message: no event, and the EQ stays fired, so another CQ's
 * completion on it raises nothing either; the kernel's recovery poll of
 * the vector delivers exactly one event per CQ and re-arms the EQ.
 */
static void a_lost_interrupt_is_recovered_with_one_event_per_cq(void)
{
	unsigned int vec;
	struct evs n;
	struct env e;

	OPEN(&e, NULL, 0, 0);
	vec = m5m_comp_vector_msix(e.dev, 0);
	CHECK_EQ(m5m_irq_recover(e.dev, vec), 0);
	m5m_inject(e.dev, M5M_FAULT_LOSE_IRQ, 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK(!m5t_fd_ready(e.ch->fd));
	CHECK_EQ(cq_info(&e, e.rcq).state, 3);
	CHECK_EQ(ibv_req_notify_cq(e.scq, 0), 0);
	msg_keep(&e, 0, true);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK(!m5t_fd_ready(e.ch->fd));
	CHECK_EQ(vstats(&e, vec).lost, 1);
	CHECK_EQ(m5m_irq_recover(e.dev, vec), 2);
	n = events(&e);
	CHECK_EQ(n.r, 1);
	CHECK_EQ(n.s, 1);
	CHECK_EQ(m5m_irq_recover(e.dev, vec), 0);
	CHECK(!m5t_fd_ready(e.ch->fd));
	CHECK_EQ(drain(e.rcq), 2);
	CHECK_EQ(drain(e.scq), 1);
	/* The EQ is armed again: the next completion interrupts. */
	arm_msg_event(&e);
out:
	env_close(&e);
}

/* A duplicated MSI-X message: the second interrupt finds no EQE. */
static void a_duplicated_interrupt_finds_no_eqe(void)
{
	struct m5m_vec_stats vs;
	unsigned int vec;
	struct env e;

	OPEN(&e, NULL, 0, 0);
	vec = m5m_comp_vector_msix(e.dev, 0);
	m5m_inject(e.dev, M5M_FAULT_DUP_IRQ, 1);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	msg(&e, 0);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(events(&e).r, 1);
	CHECK(!m5t_fd_ready(e.ch->fd));
	vs = vstats(&e, vec);
	CHECK_EQ(vs.duplicated, 1);
	CHECK_EQ(vs.handled, 2);
	CHECK_EQ(vs.spurious, 1);
	/* The spurious pass re-armed the EQ harmlessly: one event per arm. */
	CHECK_EQ(drain(e.rcq), 1);
	arm_msg_event(&e);
out:
	env_close(&e);
}

/*
 * The model-only int_period throttle: off by default (back-to-back
 * interrupts on a vector both go out); on, requests inside the window are
 * held and merged into one interrupt at its end.
 */
static void int_period_merges_interrupts_inside_its_window(void)
{
	struct m5m_config cfg = cfg_vectors(2, 1);
	struct m5m_vec_stats vs;
	struct lat l = { 0 };
	unsigned int vec;
	struct evs n;
	struct env e;

	OPEN(&e, &cfg, 0, 1);
	vec = m5m_comp_vector_msix(e.dev, 0);
	m5m_set_event_hook(e.dev, lat_hook, &l);
	/* Default: two interrupts at the same virtual time. */
	arm_msg_event(&e);
	CHECK_EQ(drain(e.rcq), 1);
	arm_msg_event(&e);
	CHECK_EQ(drain(e.rcq), 1);
	vs = vstats(&e, vec);
	CHECK_EQ(vs.raised, 2);
	CHECK_EQ(vs.throttled, 0);
	CHECK_EQ(m5m_next_deadline(e.dev), UINT64_MAX);
	/* 100 µs throttle: the next two requests wait and go out as one. */
	m5m_set_int_period(e.dev, vec, 100);
	m5m_clock_advance(e.dev, 30);
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	CHECK_EQ(ibv_req_notify_cq(e.scq, 0), 0);
	msg_keep(&e, 0, true);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK_EQ(m5m_next_deadline(e.dev), 100);
	m5m_clock_advance(e.dev, 69);
	CHECK_EQ(m5m_irq_service(e.dev), 0);
	CHECK(!m5t_fd_ready(e.ch->fd));
	m5m_clock_advance(e.dev, 1);
	CHECK_EQ(m5m_irq_service(e.dev), 1);
	n = events(&e);
	CHECK_EQ(n.r, 1);
	CHECK_EQ(n.s, 1);
	CHECK_EQ(l.last, 70);
	vs = vstats(&e, vec);
	CHECK_EQ(vs.raised, 3);
	CHECK_EQ(vs.handled, 3);
	CHECK_EQ(vs.throttled, 1);
	/* Off again: at once. */
	m5m_set_int_period(e.dev, vec, 0);
	CHECK_EQ(drain(e.rcq), 1);
	CHECK_EQ(drain(e.scq), 1);
	arm_msg_event(&e);
out:
	env_close(&e);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Events read but acknowledged together at the end: ibv_destroy_cq then
 * goes through at once (the fake kernel waits, as uverbs does, for every
 * event it reported to be acked).  The channel is busy until then.
 */
static void destroy_cq_goes_through_once_every_event_is_acked(void)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	double t0;
	struct env e;
	int i;

	OPEN(&e, NULL, 0, 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
		msg(&e, 0);
		CHECK_EQ(m5m_irq_service(e.dev), 1);
		CHECK(m5t_fd_ready(e.ch->fd));
		if (!m5t_fd_ready(e.ch->fd))
			goto out;
		CHECK_EQ(ibv_get_cq_event(e.ch, &cq, &cq_ctx), 0);
		CHECK(cq == e.rcq);
		CHECK_EQ(drain(e.rcq), 1);
	}
	CHECK_EQ(e.rcq->comp_events_completed, 0);
	ibv_ack_cq_events(e.rcq, 3);
	CHECK_EQ(e.rcq->comp_events_completed, 3);
	CHECK_EQ(ibv_destroy_qp(e.b), 0);
	e.b = NULL;
	CHECK_EQ(m5m_destroy_comp_channel(e.dev, e.ch), EBUSY);
	t0 = now_s();
	CHECK_EQ(ibv_destroy_cq(e.rcq), 0);
	CHECK(now_s() - t0 < 1.0);
	e.rcq = NULL;
	CHECK_EQ(m5m_violations(e.dev), 0);
	CHECK_EQ(m5m_destroy_comp_channel(e.dev, e.ch), EBUSY);
	CHECK_EQ(ibv_destroy_qp(e.a), 0);
	e.a = NULL;
	CHECK_EQ(ibv_destroy_cq(e.scq), 0);
	e.scq = NULL;
	CHECK_EQ(m5m_destroy_comp_channel(e.dev, e.ch), 0);
	e.ch = NULL;
out:
	env_close(&e);
}

/* --- An IRQ thread and a blocking ibv_get_cq_event ---------------------- */

/* SIGUSR1 interrupts a blocked read (no SA_RESTART). */
static void on_usr1(int sig)
{
	(void)sig;
}

struct watchdog {
	pthread_t target, thr;
	unsigned int ms;
	atomic_bool done;
};

/* After ms, poke the target thread until it says it is done. */
static void *watchdog_fn(void *arg)
{
	struct watchdog *w = arg;
	unsigned int waited = 0;

	while (!atomic_load(&w->done) && waited < w->ms) {
		usleep(1000);
		waited++;
	}
	while (!atomic_load(&w->done)) {
		pthread_kill(w->target, SIGUSR1);
		usleep(10000);
	}
	return NULL;
}

/* ibv_get_cq_event, blocking, but for at most about ms; 0 or -1. */
static int get_event_within(struct ibv_comp_channel *ch, unsigned int ms,
			    struct ibv_cq **cq)
{
	struct watchdog w = { .target = pthread_self(), .ms = ms };
	void *cq_ctx;
	int ret;

	atomic_init(&w.done, false);
	if (pthread_create(&w.thr, NULL, watchdog_fn, &w))
		return -1;
	*cq = NULL;
	ret = ibv_get_cq_event(ch, cq, &cq_ctx);
	atomic_store(&w.done, true);
	pthread_join(w.thr, NULL);
	return ret;
}

/* Another thread's work, a little after the test thread blocks. */
struct later {
	struct env *e;
	int what; /* 0: a message; 1: advance the clock 30 µs */
	pthread_t thr;
};

static void *later_fn(void *arg)
{
	struct later *l = arg;
	struct ibv_wc wc;

	usleep(5000);
	if (l->what == 1) {
		m5m_clock_advance(l->e->dev, 30);
		return NULL;
	}
	if (post_recv(l->e, 0xb0, 64) || post_send(l->e, IBV_WR_SEND, 32, 0, 0))
		return (void *)1;
	while (ibv_poll_cq(l->e->scq, 1, &wc) == 0)
		;
	return NULL;
}

static bool later_start(struct later *l, struct env *e, int what)
{
	l->e = e;
	l->what = what;
	return !pthread_create(&l->thr, NULL, later_fn, l);
}

static void later_join(struct later *l)
{
	void *ret = NULL;

	pthread_join(l->thr, &ret);
	CHECK(ret == NULL);
}

static void get_cq_event_blocks_until_the_irq_thread_delivers(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct ibv_cq *cq;
	struct later l;
	struct env e;
	double t0;
	int i;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	OPEN(&e, NULL, 0, 0);
	CHECK_EQ(m5m_irq_thread_start(e.dev), 0);
	/* The completion comes from another thread while this one waits. */
	for (i = 0; i < 20 && !check_failed; i++) {
		CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
		CHECK(later_start(&l, &e, 0));
		CHECK_EQ(get_event_within(e.ch, 5000, &cq), 0);
		CHECK(cq == e.rcq);
		if (cq)
			ibv_ack_cq_events(cq, 1);
		later_join(&l);
		CHECK_EQ(drain(e.rcq), 1);
	}
	/* Armed, nothing happens: the wait ends by the timeout, no event. */
	CHECK_EQ(ibv_req_notify_cq(e.rcq, 0), 0);
	t0 = now_s();
	CHECK_EQ(get_event_within(e.ch, 100, &cq), -1);
	CHECK(now_s() - t0 < 3.0);
	/* The same arm still works; here the moderation timer fires it. */
	CHECK_EQ(modify(e.rcq, IBV_CQ_ATTR_MODERATE, 4, 30), 0);
	msg(&e, 0);
	CHECK(later_start(&l, &e, 1));
	CHECK_EQ(get_event_within(e.ch, 5000, &cq), 0);
	CHECK(cq == e.rcq);
	if (cq)
		ibv_ack_cq_events(cq, 1);
	later_join(&l);
	CHECK_EQ(drain(e.rcq), 1);
	m5m_irq_thread_stop(e.dev);
out:
	env_close(&e);
}

static const struct check_test tests[] = {
	CHECK_TEST(an_armed_cq_fires_once_until_rearmed),
	CHECK_TEST(a_cq_never_armed_raises_no_event),
	CHECK_TEST(a_solicited_arm_fires_only_on_a_solicited_receive),
	CHECK_TEST(error_cqes_satisfy_a_solicited_arm),
	CHECK_TEST(arming_over_matching_unpolled_cqes_fires_at_once),
	CHECK_TEST(each_cq_event_read_advances_the_arm_sn),
	CHECK_TEST(cqs_sharing_a_vector_get_their_events_from_one_interrupt),
	CHECK_TEST(cqs_on_their_own_vectors_take_one_interrupt_each),
	CHECK_TEST(an_eq_rearmed_over_a_pending_eqe_interrupts_again),
	CHECK_TEST(a_moderated_cq_fires_at_the_nth_cqe),
	CHECK_TEST(a_moderated_cq_fires_when_the_period_runs_out),
	CHECK_TEST(bad_modify_cq_requests_get_einval_and_change_nothing),
	CHECK_TEST(a_lost_interrupt_is_recovered_with_one_event_per_cq),
	CHECK_TEST(a_duplicated_interrupt_finds_no_eqe),
	CHECK_TEST(int_period_merges_interrupts_inside_its_window),
	CHECK_TEST(destroy_cq_goes_through_once_every_event_is_acked),
	CHECK_TEST(get_cq_event_blocks_until_the_irq_thread_delivers),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_event_", tests);
}
