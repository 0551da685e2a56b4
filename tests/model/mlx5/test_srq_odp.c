// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An ODP page fault on an SRQ receive over the model: the device's
 * page-fault CQE, the WQE reposted and cooled down intact (libmlx5 v44
 * srq.c), through both poll APIs.
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
#include "m5t_rig.h"
#include "m5t_verbs.h"

_Static_assert(M5_VENDOR_SYND_ODP_PFAULT == MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT,
	       "ODP page-fault vendor syndrome");
_Static_assert((int)M5_SYND_REMOTE_ABORTED_ERR ==
		       (int)MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR,
	       "REMOTE_ABORTED syndrome");

/* The rig with an SRQ of 4 WRs of one SGE behind r->b (check_failed). */
static struct ibv_srq *srq_rig_open(struct m5t_rig *r)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq;

	CHECK_EQ(m5t_rig_open(r, false), 0);
	if (check_failed)
		return NULL;
	srq = ibv_create_srq(r->pd, &sa);
	CHECK(srq);
	if (srq)
		CHECK_EQ(m5t_rig_rc(r, srq), 0);
	return srq;
}

static void srq_rig_close(struct m5t_rig *r, struct ibv_srq *srq)
{
	if (r->b) {
		CHECK_EQ(ibv_destroy_qp(r->b), 0);
		r->b = NULL;
	}
	if (srq)
		CHECK_EQ(ibv_destroy_srq(srq), 0);
	m5t_rig_close(r);
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
	struct m5t_rig r;

	srq = srq_rig_open(&r);
	if (check_failed)
		goto out;
	for (round = 0; round < 2 && !check_failed; round++) {
		for (i = 0; i < 4; i++)
			CHECK_EQ(m5t_rig_srq_recv(&r, srq, i, 64 * i), 0);
		/* The first message of each round faults once. */
		m5m_inject(r.dev, M5M_FAULT_ODP_PFAULT, 1);
		for (i = 0; i < 4; i++) {
			r.buf[2048 + i] = (uint8_t)(0x40 + i);
			CHECK_EQ(m5t_rig_send(&r, r.a, 10 + i, 2048 + i,
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
			m5t_expect_wc(r.acq, 10 + i, IBV_WC_SUCCESS);
		}
		m5t_expect_empty(r.bcq);
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
	m5t_expect_empty(r.acq);
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
	struct m5t_rig r;

	srq = srq_rig_open(&r);
	if (check_failed)
		goto out;
	for (i = 0; i < 4; i++)
		CHECK_EQ(m5t_rig_srq_recv(&r, srq, i, 64 * i), 0);
	srq_wqe_segs(srq, 0, posted, sizeof(posted));
	m5m_inject(r.dev, M5M_FAULT_ODP_PFAULT, 1);
	CHECK_EQ(m5t_rig_send(&r, r.a, 10, 2048, IBV_SEND_SIGNALED), 0);
	/* The retry lands in the next WQE posted, WR 1. */
	CHECK_EQ(m5t_poll_one(r.bcq, &wc), 1);
	CHECK_EQ(wc.wr_id, 1);
	m5t_expect_wc(r.acq, 10, IBV_WC_SUCCESS);
	/* Four turns of the 8-WQE free list, one receive posted per message. */
	for (i = 0; i < 32 && !check_failed; i++) {
		CHECK_EQ(m5t_rig_srq_recv(&r, srq, 100 + i, 256 + 64 * (i % 4)),
			 0);
		CHECK_EQ(m5t_rig_send(&r, r.a, 20 + i, 2048, IBV_SEND_SIGNALED),
			 0);
		CHECK_EQ(m5t_poll_one(r.bcq, &wc), 1);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		m5t_expect_wc(r.acq, 20 + i, IBV_WC_SUCCESS);
		srq_wqe_segs(srq, 0, now, sizeof(now));
		CHECK_EQ(memcmp(now, posted, sizeof(now)), 0);
	}
	m5t_expect_empty(r.bcq);
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
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
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
	CHECK_EQ(m5t_rig_srq_recv(&r, srq, 0, 0), 0);
	CHECK_EQ(m5t_rig_srq_recv(&r, srq, 1, 64), 0);
	m5m_inject(r.dev, M5M_FAULT_ODP_PFAULT, 1);
	CHECK_EQ(m5t_rig_send(&r, r.a, 10, 2048, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->status, IBV_WC_SUCCESS);
	CHECK_EQ(cqx->wr_id, 1);
	CHECK_EQ(ibv_next_poll(cqx), ENOENT);
	ibv_end_poll(cqx);
	m5t_expect_wc(r.acq, 10, IBV_WC_SUCCESS);
	/* The faulted buffer takes the next message. */
	CHECK_EQ(m5t_rig_send(&r, r.a, 11, 2048, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(ibv_start_poll(cqx, &pa), 0);
	CHECK_EQ(cqx->status, IBV_WC_SUCCESS);
	CHECK_EQ(cqx->wr_id, 0);
	ibv_end_poll(cqx);
	CHECK_EQ(ibv_start_poll(cqx, &pa), ENOENT);
	m5t_expect_wc(r.acq, 11, IBV_WC_SUCCESS);
out:
	if (r.b) {
		CHECK_EQ(ibv_destroy_qp(r.b), 0);
		r.b = NULL;
	}
	if (cqx)
		CHECK_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	if (srq)
		CHECK_EQ(ibv_destroy_srq(srq), 0);
	m5t_rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(odp_fault_on_srq_recv_is_reposted),
	CHECK_TEST(odp_fault_on_srq_recv_not_shown_by_start_poll),
	CHECK_TEST(odp_faulted_srq_wqe_cools_down_intact),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_srq_odp_", tests);
}
