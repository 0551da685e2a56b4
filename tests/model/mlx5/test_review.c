// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The behaviours a review of the mlx5 backend against libmlx5 (rdma-core
 * v44) found missing, over the software ConnectX: posting outside RTS
 * (SQD, SQE, ERR and before the first RTS), the drain after ERR, the ODP
 * page-fault CQE of an SRQ receive, and arming a CQ inside a poll batch.
 * Each case failed on the backend before its fix (the commit that added it
 * says how it was checked).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "mlx5/mlx5.h"
#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"

_Static_assert(M5_VENDOR_SYND_ODP_PFAULT == MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT,
	       "ODP page-fault vendor syndrome");
_Static_assert((int)M5_SYND_REMOTE_ABORTED_ERR ==
		       (int)MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR,
	       "REMOTE_ABORTED syndrome");

#define BUF 4096

struct rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static int rig_open(struct rig *r, bool channel)
{
	memset(r, 0, sizeof(*r));
	r->dev = m5m_dev_create(NULL);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	if (!r->ctx)
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	if (channel)
		r->ch = m5m_create_comp_channel(r->dev, r->ctx);
	r->buf = aligned_alloc(4096, BUF);
	if (!r->pd || (channel && !r->ch) || !r->buf)
		return -1;
	memset(r->buf, 0, BUF);
	r->mr = ibv_reg_mr(r->pd, r->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	r->acq = ibv_create_cq(r->ctx, 64, NULL, r->ch, 0);
	r->bcq = ibv_create_cq(r->ctx, 64, NULL, r->ch, 0);
	return r->mr && r->acq && r->bcq ? 0 : -1;
}

/* An RC pair a -> b, a on acq, b on bcq (b's receives from srq if any). */
static int rig_rc(struct rig *r, struct ibv_srq *srq)
{
	r->a = m5t_rc_qp(r->pd, r->acq, NULL, 16, 1);
	r->b = m5t_rc_qp(r->pd, r->bcq, srq, 16, 1);
	if (!r->a || !r->b)
		return -1;
	return m5t_rc_pair(r->dev, r->a, r->b, 7);
}

static void rig_close(struct rig *r)
{
	if (r->a)
		CHECK_EQ(ibv_destroy_qp(r->a), 0);
	if (r->b)
		CHECK_EQ(ibv_destroy_qp(r->b), 0);
	if (r->acq)
		CHECK_EQ(ibv_destroy_cq(r->acq), 0);
	if (r->bcq)
		CHECK_EQ(ibv_destroy_cq(r->bcq), 0);
	if (r->mr)
		CHECK_EQ(ibv_dereg_mr(r->mr), 0);
	if (r->ch)
		CHECK_EQ(m5m_destroy_comp_channel(r->dev, r->ch), 0);
	if (r->pd)
		CHECK_EQ(ibv_dealloc_pd(r->pd), 0);
	if (r->ctx)
		CHECK_EQ(ibv_close_device(r->ctx), 0);
	if (r->dev) {
		CHECK_EQ(m5m_violations(r->dev), 0);
		m5m_dev_destroy(r->dev);
	}
	free(r->buf);
}

/* A SEND of 16 bytes from the buffer at off; flags added to none. */
static int send_on(struct rig *r, struct ibv_qp *qp, uint64_t id, uint32_t off,
		   unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + off, 16, r->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = flags };
	struct ibv_send_wr *bad = NULL;
	int ret;

	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		CHECK(bad == &wr);
	return ret;
}

static int recv_on(struct rig *r, struct ibv_qp *qp, uint64_t id, uint32_t off)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + off, 64, r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int srq_recv(struct rig *r, struct ibv_srq *srq, uint64_t id,
		    uint32_t off)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + off, 64, r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int set_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* The state ibv_query_qp reports (it also rewrites qp->state). */
static int query_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

/* The next completion on cq must be wr_id id with status st. */
static void expect_wc(struct ibv_cq *cq, uint64_t id, enum ibv_wc_status st)
{
	struct ibv_wc wc = { 0 };

	CHECK_EQ(m5t_poll_one(cq, &wc), 1);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.status, st);
}

static void expect_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 0);
}

/*
 * The drain idiom: modify_qp(ERR), then a marker WR, and wait for its
 * flush.  Every WQE posted in ERR gets one flush completion in order,
 * signalled or not; receives posted in ERR are flushed too.
 */
static void drain_after_err_flushes_marker(void)
{
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	CHECK_EQ(rig_rc(&r, NULL), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(recv_on(&r, r.a, 0xa0, 0), 0);
	CHECK_EQ(set_state(r.a, IBV_QPS_ERR), 0);
	expect_wc(r.acq, 0xa0, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(send_on(&r, r.a, 1, 0, 0), 0);
	CHECK_EQ(send_on(&r, r.a, 2, 0, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(recv_on(&r, r.a, 0xa1, 64), 0);
	expect_wc(r.acq, 1, IBV_WC_WR_FLUSH_ERR);
	expect_wc(r.acq, 2, IBV_WC_WR_FLUSH_ERR);
	expect_wc(r.acq, 0xa1, IBV_WC_WR_FLUSH_ERR);
	expect_empty(r.acq);
	/* The SQ drained: its slots are free again. */
	CHECK_EQ(send_on(&r, r.a, 3, 0, IBV_SEND_SIGNALED), 0);
	expect_wc(r.acq, 3, IBV_WC_WR_FLUSH_ERR);
	expect_empty(r.bcq);
out:
	rig_close(&r);
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
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	CHECK_EQ(rig_rc(&r, NULL), 0);
	if (check_failed)
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)r.buf, 32, r.mr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)r.buf + 1024;
	wr.wr.rdma.rkey = r.mr->rkey ^ 0x80; /* no such key */
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	expect_wc(r.acq, 0x77, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(query_state(r.a), IBV_QPS_ERR);
	CHECK_EQ(r.a->state, IBV_QPS_ERR);
	CHECK_EQ(send_on(&r, r.a, 0x78, 0, IBV_SEND_SIGNALED), 0);
	expect_wc(r.acq, 0x78, IBV_WC_WR_FLUSH_ERR);
	/* The responder's side too. */
	CHECK_EQ(query_state(r.b), IBV_QPS_ERR);
	CHECK_EQ(send_on(&r, r.b, 0x79, 0, 0), 0);
	expect_wc(r.bcq, 0x79, IBV_WC_WR_FLUSH_ERR);
	expect_empty(r.acq);
	expect_empty(r.bcq);
	CHECK_EQ(m5m_irq_service(r.dev), 1);
	CHECK_EQ(ibv_get_async_event(r.ctx, &ev), 0);
	ibv_ack_async_event(&ev);
out:
	rig_close(&r);
}

/*
 * SQD: a WR posted while the SQ is drained is taken; the device holds it
 * until the QP is back in RTS, then it runs.
 */
static void send_in_sqd_runs_after_rts(void)
{
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	CHECK_EQ(rig_rc(&r, NULL), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(recv_on(&r, r.b, 0xb0, 512), 0);
	CHECK_EQ(set_state(r.a, IBV_QPS_SQD), 0);
	CHECK_EQ(query_state(r.a), IBV_QPS_SQD);
	r.buf[0] = 0x5d;
	CHECK_EQ(send_on(&r, r.a, 1, 0, IBV_SEND_SIGNALED), 0);
	expect_empty(r.acq);
	expect_empty(r.bcq);
	CHECK_EQ(set_state(r.a, IBV_QPS_RTS), 0);
	expect_wc(r.acq, 1, IBV_WC_SUCCESS);
	expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
	CHECK_EQ(r.buf[512], 0x5d);
out:
	rig_close(&r);
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
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
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
	expect_wc(r.acq, 1, IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(query_state(r.a), IBV_QPS_SQE);
	sge.lkey = r.mr->lkey;
	wr.wr_id = 2;
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	expect_wc(r.acq, 2, IBV_WC_WR_FLUSH_ERR);
	/* Its receive side still works: b sends to a. */
	CHECK_EQ(recv_on(&r, r.a, 0xa0, 1024), 0);
	wr.wr.ud.remote_qpn = r.a->qp_num;
	wr.wr_id = 3;
	CHECK_EQ(ibv_post_send(r.b, &wr, &bad), 0);
	expect_wc(r.bcq, 3, IBV_WC_SUCCESS);
	expect_wc(r.acq, 0xa0, IBV_WC_SUCCESS);
	/* SQE -> RTS: a sends again. */
	CHECK_EQ(set_state(r.a, IBV_QPS_RTS), 0);
	wr.wr.ud.remote_qpn = r.b->qp_num;
	wr.wr_id = 4;
	CHECK_EQ(recv_on(&r, r.b, 0xb0, 2048), 0);
	CHECK_EQ(ibv_post_send(r.a, &wr, &bad), 0);
	expect_wc(r.acq, 4, IBV_WC_SUCCESS);
	expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
out:
	if (ah)
		CHECK_EQ(ibv_destroy_ah(ah), 0);
	rig_close(&r);
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
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
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
	CHECK_EQ(send_on(&r, u, 1, 0, IBV_SEND_SIGNALED), ENOMEM);
	CHECK_EQ(ibv_modify_qp(u, &ua,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_QKEY),
		 0);
	CHECK_EQ(send_on(&r, u, 2, 0, IBV_SEND_SIGNALED), ENOMEM);
	CHECK_EQ(set_state(u, IBV_QPS_RTR), 0);
	CHECK_EQ(send_on(&r, u, 3, 0, IBV_SEND_SIGNALED), ENOMEM);
	/* RC: INIT refuses; after RTS a send runs; RESET closes again. */
	CHECK_EQ(rc_init(r.a), 0);
	CHECK_EQ(send_on(&r, r.a, 4, 0, IBV_SEND_SIGNALED), ENOMEM);
	CHECK_EQ(set_state(r.a, IBV_QPS_RESET), 0);
	CHECK_EQ(m5t_rc_pair(r.dev, r.a, r.b, 7), 0);
	CHECK_EQ(recv_on(&r, r.b, 0xb0, 512), 0);
	CHECK_EQ(send_on(&r, r.a, 5, 0, IBV_SEND_SIGNALED), 0);
	expect_wc(r.acq, 5, IBV_WC_SUCCESS);
	expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
	CHECK_EQ(set_state(r.a, IBV_QPS_RESET), 0);
	CHECK_EQ(send_on(&r, r.a, 6, 0, IBV_SEND_SIGNALED), ENOMEM);
	/* ERR straight from INIT: never in RTS, still refused. */
	CHECK_EQ(rc_init(c), 0);
	CHECK_EQ(set_state(c, IBV_QPS_ERR), 0);
	CHECK_EQ(query_state(c), IBV_QPS_ERR);
	CHECK_EQ(send_on(&r, c, 7, 0, IBV_SEND_SIGNALED), ENOMEM);
	m5m_get_stats(r.dev, &st);
	CHECK_EQ(st.wqes, 1);
	expect_empty(r.acq);
out:
	if (c)
		CHECK_EQ(ibv_destroy_qp(c), 0);
	if (u)
		CHECK_EQ(ibv_destroy_qp(u), 0);
	rig_close(&r);
}

/* The rig with an SRQ of 4 WRs of one SGE behind r->b (check_failed). */
static struct ibv_srq *srq_rig_open(struct rig *r)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq;

	CHECK_EQ(rig_open(r, false), 0);
	if (check_failed)
		return NULL;
	srq = ibv_create_srq(r->pd, &sa);
	CHECK(srq);
	if (srq)
		CHECK_EQ(rig_rc(r, srq), 0);
	return srq;
}

static void srq_rig_close(struct rig *r, struct ibv_srq *srq)
{
	if (r->b) {
		CHECK_EQ(ibv_destroy_qp(r->b), 0);
		r->b = NULL;
	}
	if (srq)
		CHECK_EQ(ibv_destroy_srq(srq), 0);
	rig_close(r);
}

/*
 * An ODP page fault on an SRQ receive: the device takes the WQE, writes
 * an error CQE (REMOTE_ABORTED, vendor syndrome 0x93) and NAKs; the
 * provider posts the buffer again and shows no completion for it.  Every
 * message still completes exactly once, and the buffer is used again.
 */
static void odp_fault_on_srq_recv_is_reposted(void)
{
	unsigned int seen[8] = { 0 }, i, round;
	struct ibv_srq *srq = NULL;
	struct m5m_stats st;
	struct ibv_wc wc;
	struct rig r;

	srq = srq_rig_open(&r);
	if (check_failed)
		goto out;
	for (round = 0; round < 2 && !check_failed; round++) {
		for (i = 0; i < 4; i++)
			CHECK_EQ(srq_recv(&r, srq, i, 64 * i), 0);
		/* The first message of each round faults once. */
		m5m_inject(r.dev, M5M_FAULT_ODP_PFAULT, 1);
		for (i = 0; i < 4; i++) {
			r.buf[2048 + i] = (uint8_t)(0x40 + i);
			CHECK_EQ(send_on(&r, r.a, 10 + i, 2048 + i,
					 IBV_SEND_SIGNALED),
				 0);
			/* The faulted buffer is posted again from here. */
			CHECK_EQ(m5t_poll_one(r.bcq, &wc), 1);
			CHECK_EQ(wc.status, IBV_WC_SUCCESS);
			CHECK_EQ(wc.opcode, IBV_WC_RECV);
			CHECK_EQ(wc.byte_len, 16);
			if (wc.wr_id < 4) {
				seen[wc.wr_id + 4 * round]++;
				CHECK_EQ(r.buf[64 * wc.wr_id], 0x40 + i);
			} else {
				CHECK(0);
			}
			expect_wc(r.acq, 10 + i, IBV_WC_SUCCESS);
		}
		expect_empty(r.bcq);
	}
	/* Each buffer exactly once per round: none lost, none twice. */
	for (i = 0; i < 8; i++)
		CHECK_EQ(seen[i], 1);
	m5m_get_stats(r.dev, &st);
	CHECK_EQ(st.rnr_naks, 2);
	/*
	 * mlx5_ib's page-fault handler read each faulted WQE after the
	 * provider had reposted it, and could map it: it was left intact.
	 */
	CHECK_EQ(st.odp_pfaults_handled, 2);
	CHECK_EQ(st.odp_resume_errors, 0);
	expect_empty(r.acq);
out:
	srq_rig_close(&r, srq);
}

/* SRQ WQE idx's scatter list, as the device and mlx5_ib read it. */
static void srq_wqe_segs(struct ibv_srq *srq, uint16_t idx, void *out,
			 size_t len)
{
	const struct m5_wq *wq = &to_m5_srq(srq)->wq;

	memcpy(out,
	       (const char *)wq->buf + ((size_t)idx << wq->wqe_shift) +
		       sizeof(struct m5_srq_next_seg),
	       len);
}

/*
 * A faulted SRQ WQE cools down in the wait queue (libmlx5 v44 srq.c):
 * while the application keeps receiving and posting again, well past a
 * full turn of the free list, nothing in it is written, so a late
 * page-fault handler still reads the buffer that faulted.
 */
static void odp_faulted_srq_wqe_cools_down_intact(void)
{
	uint8_t posted[16], now[16];
	struct ibv_srq *srq = NULL;
	struct ibv_wc wc;
	unsigned int i;
	struct rig r;

	srq = srq_rig_open(&r);
	if (check_failed)
		goto out;
	for (i = 0; i < 4; i++)
		CHECK_EQ(srq_recv(&r, srq, i, 64 * i), 0);
	srq_wqe_segs(srq, 0, posted, sizeof(posted));
	m5m_inject(r.dev, M5M_FAULT_ODP_PFAULT, 1);
	CHECK_EQ(send_on(&r, r.a, 10, 2048, IBV_SEND_SIGNALED), 0);
	/* The retry lands in the next WQE posted, WR 1. */
	CHECK_EQ(m5t_poll_one(r.bcq, &wc), 1);
	CHECK_EQ(wc.wr_id, 1);
	expect_wc(r.acq, 10, IBV_WC_SUCCESS);
	/* Four turns of the 8-WQE free list, one receive posted per message. */
	for (i = 0; i < 32 && !check_failed; i++) {
		CHECK_EQ(srq_recv(&r, srq, 100 + i, 256 + 64 * (i % 4)), 0);
		CHECK_EQ(send_on(&r, r.a, 20 + i, 2048, IBV_SEND_SIGNALED), 0);
		CHECK_EQ(m5t_poll_one(r.bcq, &wc), 1);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		expect_wc(r.acq, 20 + i, IBV_WC_SUCCESS);
		srq_wqe_segs(srq, 0, now, sizeof(now));
		CHECK_EQ(memcmp(now, posted, sizeof(now)), 0);
	}
	expect_empty(r.bcq);
out:
	srq_rig_close(&r, srq);
}

/*
 * The same through the ibv_cq_ex API: ibv_start_poll passes over the
 * page-fault CQE and shows the completion of the retried message.
 */
static void odp_fault_on_srq_recv_not_shown_by_start_poll(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 32,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *cqx = NULL;
	struct ibv_srq *srq = NULL;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	srq = ibv_create_srq(r.pd, &sa);
	cqx = ibv_create_cq_ex(r.ctx, &ca);
	CHECK(srq && cqx);
	if (!srq || !cqx)
		goto out;
	r.a = m5t_rc_qp(r.pd, r.acq, NULL, 16, 1);
	r.b = m5t_rc_qp(r.pd, ibv_cq_ex_to_cq(cqx), srq, 16, 1);
	if (!r.a || !r.b || m5t_rc_pair(r.dev, r.a, r.b, 7)) {
		CHECK(0);
		goto out;
	}
	CHECK_EQ(srq_recv(&r, srq, 0, 0), 0);
	CHECK_EQ(srq_recv(&r, srq, 1, 64), 0);
	m5m_inject(r.dev, M5M_FAULT_ODP_PFAULT, 1);
	CHECK_EQ(send_on(&r, r.a, 10, 2048, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->status, IBV_WC_SUCCESS);
	CHECK_EQ(cqx->wr_id, 1);
	CHECK_EQ(ibv_next_poll(cqx), ENOENT);
	ibv_end_poll(cqx);
	expect_wc(r.acq, 10, IBV_WC_SUCCESS);
	/* The faulted buffer takes the next message. */
	CHECK_EQ(send_on(&r, r.a, 11, 2048, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->status, IBV_WC_SUCCESS);
	CHECK_EQ(cqx->wr_id, 0);
	ibv_end_poll(cqx);
	CHECK_EQ(ibv_start_poll(cqx, &pa), ENOENT);
	expect_wc(r.acq, 11, IBV_WC_SUCCESS);
out:
	if (r.b) {
		CHECK_EQ(ibv_destroy_qp(r.b), 0);
		r.b = NULL;
	}
	if (cqx)
		CHECK_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	if (srq)
		CHECK_EQ(ibv_destroy_srq(srq), 0);
	rig_close(&r);
}

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
static void expect_event(struct rig *r, struct ibv_cq *want)
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
	struct rig r;
	int i;

	signal(SIGALRM, hung);
	alarm(20);
	CHECK_EQ(rig_open(&r, true), 0);
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
		CHECK_EQ(recv_on(&r, r.b, 0xb0 + i, 64 * i), 0);
		CHECK_EQ(send_on(&r, r.a, i, 1024, IBV_SEND_SIGNALED), 0);
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
	CHECK_EQ(recv_on(&r, r.b, 0xb3, 256), 0);
	CHECK_EQ(send_on(&r, r.a, 3, 1024, IBV_SEND_SIGNALED), 0);
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
	CHECK_EQ(recv_on(&r, r.b, 0xb4, 320), 0);
	CHECK_EQ(send_on(&r, r.a, 4, 1024, IBV_SEND_SIGNALED), 0);
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
	rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(drain_after_err_flushes_marker),
	CHECK_TEST(send_after_query_err_is_flushed),
	CHECK_TEST(send_in_sqd_runs_after_rts),
	CHECK_TEST(send_in_sqe_is_flushed),
	CHECK_TEST(send_before_first_rts_refused_enomem),
	CHECK_TEST(odp_fault_on_srq_recv_is_reposted),
	CHECK_TEST(odp_fault_on_srq_recv_not_shown_by_start_poll),
	CHECK_TEST(odp_faulted_srq_wqe_cools_down_intact),
	CHECK_TEST(req_notify_inside_poll_batch_returns),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_review_", tests);
}
