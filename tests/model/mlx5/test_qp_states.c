// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Posting outside RTS on the mlx5 backend over the model, as libmlx5 v44
 * does it: the drain after ERR, SQD, SQE, ERR reached from a query, and
 * before the first RTS.
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

/*
 * The drain idiom: modify_qp(ERR), then a marker WR, and wait for its
 * flush.  Every WQE posted in ERR gets one flush completion in order,
 * signalled or not; receives posted in ERR are flushed too.
 */
static void drain_after_err_flushes_marker(void)
{
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	CHECK_EQ(m5t_rig_rc(&r, NULL), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(m5t_rig_recv(&r, r.a, 0xa0, 0), 0);
	CHECK_EQ(m5t_set_state(r.a, IBV_QPS_ERR), 0);
	m5t_expect_wc(r.acq, 0xa0, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(m5t_rig_send(&r, r.a, 1, 0, 0), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 2, 0, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(m5t_rig_recv(&r, r.a, 0xa1, 64), 0);
	m5t_expect_wc(r.acq, 1, IBV_WC_WR_FLUSH_ERR);
	m5t_expect_wc(r.acq, 2, IBV_WC_WR_FLUSH_ERR);
	m5t_expect_wc(r.acq, 0xa1, IBV_WC_WR_FLUSH_ERR);
	m5t_expect_empty(r.acq);
	/* The SQ drained: its slots are free again. */
	CHECK_EQ(m5t_rig_send(&r, r.a, 3, 0, IBV_SEND_SIGNALED), 0);
	m5t_expect_wc(r.acq, 3, IBV_WC_WR_FLUSH_ERR);
	m5t_expect_empty(r.bcq);
out:
	m5t_rig_close(&r);
}

/*
 * An error moves both QPs to ERR; the application queries the state (which
 * rewrites ibqp->state) and posts on: the WR is flushed, not refused.
 */
static void send_after_query_err_is_flushed(void)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 0x77,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_async_event ev;
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	CHECK_EQ(m5t_rig_rc(&r, NULL), 0);
	if (check_failed)
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)r.buf, 32, r.mr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)r.buf + 1024;
	wr.wr.rdma.rkey = r.mr->rkey ^ 0x80; /* no such key */
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	m5t_expect_wc(r.acq, 0x77, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(m5t_query_state(r.a), IBV_QPS_ERR);
	CHECK_EQ(r.a->state, IBV_QPS_ERR);
	CHECK_EQ(m5t_rig_send(&r, r.a, 0x78, 0, IBV_SEND_SIGNALED), 0);
	m5t_expect_wc(r.acq, 0x78, IBV_WC_WR_FLUSH_ERR);
	/* The responder's side too. */
	CHECK_EQ(m5t_query_state(r.b), IBV_QPS_ERR);
	CHECK_EQ(m5t_rig_send(&r, r.b, 0x79, 0, 0), 0);
	m5t_expect_wc(r.bcq, 0x79, IBV_WC_WR_FLUSH_ERR);
	m5t_expect_empty(r.acq);
	m5t_expect_empty(r.bcq);
	CHECK_EQ(m5m_irq_service(r.dev), 1);
	CHECK_EQ(ibv_get_async_event(r.ctx, &ev), 0);
	ibv_ack_async_event(&ev);
out:
	m5t_rig_close(&r);
}

/*
 * SQD: a WR posted while the SQ is drained is taken; the device holds it
 * until the QP is back in RTS, then it runs.
 */
static void send_in_sqd_runs_after_rts(void)
{
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	CHECK_EQ(m5t_rig_rc(&r, NULL), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb0, 512), 0);
	CHECK_EQ(m5t_set_state(r.a, IBV_QPS_SQD), 0);
	CHECK_EQ(m5t_query_state(r.a), IBV_QPS_SQD);
	r.buf[0] = 0x5d;
	CHECK_EQ(m5t_rig_send(&r, r.a, 1, 0, IBV_SEND_SIGNALED), 0);
	m5t_expect_empty(r.acq);
	m5t_expect_empty(r.bcq);
	CHECK_EQ(m5t_set_state(r.a, IBV_QPS_RTS), 0);
	m5t_expect_wc(r.acq, 1, IBV_WC_SUCCESS);
	m5t_expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
	CHECK_EQ(r.buf[512], 0x5d);
out:
	m5t_rig_close(&r);
}

/*
 * SQE: a UD send that fails locally (an lkey of no MR) stops the SQ only.
 * A WR posted in SQE is flushed, receives go on, and SQE -> RTS resumes.
 */
static void send_in_sqe_is_flushed(void)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_ah_attr aa = { .port_num = 1 };
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_ah *ah = NULL;
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	qa.send_cq = qa.recv_cq = r.acq;
	r.a = ibv_create_qp(r.pd, &qa);
	qa.send_cq = qa.recv_cq = r.bcq;
	r.b = ibv_create_qp(r.pd, &qa);
	aa.dlid = m5m_port_lid(r.dev, 1);
	ah = ibv_create_ah(r.pd, &aa);
	CHECK(r.a && r.b && ah);
	if (!r.a || !r.b || !ah)
		goto out;
	CHECK_EQ(m5t_ud_up(r.a, 0x1111), 0);
	CHECK_EQ(m5t_ud_up(r.b, 0x1111), 0);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = r.b->qp_num;
	wr.wr.ud.remote_qkey = 0x1111;
	sge = (struct ibv_sge){ (uintptr_t)r.buf, 16, r.mr->lkey ^ 0x80 };
	wr.wr_id = 1;
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	m5t_expect_wc(r.acq, 1, IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(m5t_query_state(r.a), IBV_QPS_SQE);
	sge.lkey = r.mr->lkey;
	wr.wr_id = 2;
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	m5t_expect_wc(r.acq, 2, IBV_WC_WR_FLUSH_ERR);
	/* Its receive side still works: b sends to a. */
	CHECK_EQ(m5t_rig_recv(&r, r.a, 0xa0, 1024), 0);
	wr.wr.ud.remote_qpn = r.a->qp_num;
	wr.wr_id = 3;
	CHECK_EQ(ibv_post_send(r.b, &wr, &bad), 0);
	m5t_expect_wc(r.bcq, 3, IBV_WC_SUCCESS);
	m5t_expect_wc(r.acq, 0xa0, IBV_WC_SUCCESS);
	/* SQE -> RTS: a sends again. */
	CHECK_EQ(m5t_set_state(r.a, IBV_QPS_RTS), 0);
	wr.wr.ud.remote_qpn = r.b->qp_num;
	wr.wr_id = 4;
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb0, 2048), 0);
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	m5t_expect_wc(r.acq, 4, IBV_WC_SUCCESS);
	m5t_expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
out:
	if (ah)
		CHECK_EQ(ibv_destroy_ah(ah), 0);
	m5t_rig_close(&r);
}

/* RESET -> INIT of an RC QP on port 1. */
static int rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

/*
 * Before its first RTS (RESET, INIT, RTR, and ERR reached from INIT) a QP
 * takes no send, with libmlx5's errno, ENOMEM; nothing reaches the device.
 * RESET closes the gate again until the next RTS.
 */
static void send_before_first_rts_refused_enomem(void)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ibv_qp_attr ua = { .qp_state = IBV_QPS_INIT,
				  .port_num = 1,
				  .qkey = 0x1111 };
	struct ibv_qp *c = NULL, *u = NULL;
	struct m5m_stats st;
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	qa.send_cq = qa.recv_cq = r.acq;
	r.a = m5t_rc_qp(r.pd, r.acq, NULL, 16, 1);
	r.b = m5t_rc_qp(r.pd, r.bcq, NULL, 16, 1);
	c = m5t_rc_qp(r.pd, r.acq, NULL, 16, 1);
	u = ibv_create_qp(r.pd, &qa);
	CHECK(r.a && r.b && c && u);
	if (check_failed)
		goto out;
	/* UD: RESET, INIT, RTR refuse; RTS takes it. */
	CHECK_EQ(m5t_rig_send(&r, u, 1, 0, IBV_SEND_SIGNALED), ENOMEM);
	CHECK_EQ(ibv_modify_qp(u, &ua,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_QKEY),
		 0);
	CHECK_EQ(m5t_rig_send(&r, u, 2, 0, IBV_SEND_SIGNALED), ENOMEM);
	CHECK_EQ(m5t_set_state(u, IBV_QPS_RTR), 0);
	CHECK_EQ(m5t_rig_send(&r, u, 3, 0, IBV_SEND_SIGNALED), ENOMEM);
	/* RC: INIT refuses; after RTS a send runs; RESET closes again. */
	CHECK_EQ(rc_init(r.a), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 4, 0, IBV_SEND_SIGNALED), ENOMEM);
	CHECK_EQ(m5t_set_state(r.a, IBV_QPS_RESET), 0);
	CHECK_EQ(m5t_rc_pair(r.dev, r.a, r.b, 7), 0);
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb0, 512), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 5, 0, IBV_SEND_SIGNALED), 0);
	m5t_expect_wc(r.acq, 5, IBV_WC_SUCCESS);
	m5t_expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
	CHECK_EQ(m5t_set_state(r.a, IBV_QPS_RESET), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 6, 0, IBV_SEND_SIGNALED), ENOMEM);
	/* ERR straight from INIT: never in RTS, still refused. */
	CHECK_EQ(rc_init(c), 0);
	CHECK_EQ(m5t_set_state(c, IBV_QPS_ERR), 0);
	CHECK_EQ(m5t_query_state(c), IBV_QPS_ERR);
	CHECK_EQ(m5t_rig_send(&r, c, 7, 0, IBV_SEND_SIGNALED), ENOMEM);
	m5m_get_stats(r.dev, &st);
	CHECK_EQ(st.wqes, 1);
	m5t_expect_empty(r.acq);
out:
	if (c)
		CHECK_EQ(ibv_destroy_qp(c), 0);
	if (u)
		CHECK_EQ(ibv_destroy_qp(u), 0);
	m5t_rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(drain_after_err_flushes_marker),
	CHECK_TEST(send_after_query_err_is_flushed),
	CHECK_TEST(send_in_sqd_runs_after_rts),
	CHECK_TEST(send_in_sqe_is_flushed),
	CHECK_TEST(send_before_first_rts_refused_enomem),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_qp_states_", tests);
}
