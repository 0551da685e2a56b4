// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Arming a CQ inside a poll batch (ibv_req_notify_cq between
 * ibv_start_poll and ibv_end_poll) returns and raises its event.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlx5/mlx5.h"
#include "m5model.h"
#include "check.h"
#include "m5t_rig.h"
#include "m5t_verbs.h"

static void hung(int sig)
{
	static const char msg[] =
		"    hung: the CQ lock is held by the poll batch\n"
		"FAIL (timeout)\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* Wait for the completion event of cq on the channel, and take it. */
static void expect_event(struct m5t_rig *r, struct ibv_cq *want)
{
	struct ibv_cq *cq = NULL;
	void *cq_ctx;

	CHECK_EQ(m5m_irq_service(r->dev), 1);
	CHECK(m5t_fd_ready(r->ch->fd));
	if (!m5t_fd_ready(r->ch->fd))
		return;
	CHECK_EQ(ibv_get_cq_event(r->ch, &cq, &cq_ctx), 0);
	CHECK(cq == want);
	if (cq)
		ibv_ack_cq_events(cq, 1);
}

/*
 * ibv_req_notify_cq, and the cq_event hook (ibv_get_cq_event), between
 * ibv_start_poll and ibv_end_poll of the same CQ: both return (libmlx5
 * takes no lock there), and the arm holds: the next CQE fires an event.
 */
static void req_notify_inside_poll_batch_returns(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 32,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *cqx = NULL;
	struct ibv_cq *cq = NULL;
	struct m5t_rig r;
	int i;

	signal(SIGALRM, hung);
	alarm(20);
	CHECK_EQ(m5t_rig_open(&r, true), 0);
	if (check_failed)
		goto out;
	ca.channel = r.ch;
	cqx = ibv_create_cq_ex(r.ctx, &ca);
	CHECK(cqx);
	if (!cqx)
		goto out;
	cq = ibv_cq_ex_to_cq(cqx);
	r.a = m5t_rc_qp(r.pd, cq, NULL, 16, 1);
	r.b = m5t_rc_qp(r.pd, r.bcq, NULL, 16, 1);
	CHECK(r.a && r.b);
	if (!r.a || !r.b || m5t_rc_pair(r.dev, r.a, r.b, 7)) {
		CHECK(0);
		goto out;
	}
	for (i = 0; i < 3; i++) {
		CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb0 + i, 64 * i), 0);
		CHECK_EQ(m5t_rig_send(&r, r.a, i, 1024, IBV_SEND_SIGNALED), 0);
	}
	/* Arm inside the batch, after the first CQE is taken. */
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->wr_id, 0);
	CHECK_EQ(ibv_req_notify_cq(cq, 0), 0);
	CHECK_EQ(ibv_next_poll(cqx), 0);
	CHECK_EQ(cqx->wr_id, 1);
	ibv_end_poll(cqx);
	/* A CQE was pending after the arm's ci: the event fires. */
	expect_event(&r, cq);
	/* The event read (cq_event hook) inside a batch, then a re-arm. */
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->wr_id, 2);
	CHECK_EQ(ibv_req_notify_cq(cq, 0), 0);
	ibv_end_poll(cqx);
	CHECK_EQ(ibv_start_poll(cqx, &pa), ENOENT);
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb3, 256), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 3, 1024, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(m5m_irq_service(r.dev), 1);
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->wr_id, 3);
	{
		struct ibv_cq *ecq = NULL;
		void *ectx;

		CHECK(m5t_fd_ready(r.ch->fd));
		CHECK_EQ(ibv_get_cq_event(r.ch, &ecq, &ectx), 0);
		CHECK(ecq == cq);
		CHECK_EQ(ibv_req_notify_cq(cq, 0), 0);
		if (ecq)
			ibv_ack_cq_events(ecq, 1);
	}
	ibv_end_poll(cqx);
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb4, 320), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 4, 1024, IBV_SEND_SIGNALED), 0);
	expect_event(&r, cq);
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->wr_id, 4);
	ibv_end_poll(cqx);
out:
	alarm(0);
	if (r.a) {
		CHECK_EQ(ibv_destroy_qp(r.a), 0);
		r.a = NULL;
	}
	if (cq)
		CHECK_EQ(ibv_destroy_cq(cq), 0);
	m5t_rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(req_notify_inside_poll_batch_returns),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_arm_in_poll_", tests);
}
