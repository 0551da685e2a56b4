// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RC requests no responder acknowledges: a ConnectX drops a packet for a
 * QP that does not exist or is not yet in RTR, and the requester sends it
 * again after its local ACK timeout (4.096 us << timeout), retry_cnt times
 * (sim/mlx5/engine/m5m_send.c, m5m_no_ack).  ibv_xsrq_pingpong relies on
 * it: its server sends before the client's QP reaches RTR.
 */
#include <string.h>

#include "m5model.h"
#include "check.h"
#include "m5t_rig.h"
#include "m5t_verbs.h"

/* 4.096 us << 14 */
#define ACK_TIMEOUT_14_US 67108

/*
 * a to RTS towards b with timeout and retry_cnt; b stays in RESET.  The
 * QPs are the rig's.
 */
static int rig_half_open(struct m5t_rig *r, uint8_t timeout, uint8_t retry_cnt)
{
	struct m5t_rc_cfg c = {
		.access = IBV_ACCESS_REMOTE_WRITE,
		.mtu = IBV_MTU_1024,
		.rnr_retry = 7,
		.own_retry = true,
		.timeout = timeout,
		.retry_cnt = retry_cnt,
	};

	if (m5t_rig_open(r, false))
		return -1;
	r->a = m5t_rc_qp(r->pd, r->acq, NULL, 16, 1);
	r->b = m5t_rc_qp(r->pd, r->bcq, NULL, 16, 1);
	if (!r->a || !r->b)
		return -1;
	return m5t_rc_up(r->dev, r->a, r->b->qp_num, &c);
}

static uint64_t ack_timeouts(struct m5t_rig *r)
{
	struct m5m_stats st;

	m5m_get_stats(r->dev, &st);
	return st.ack_timeouts;
}

/*
 * The first send finds b in RESET and waits; b reaches RTR and posts a
 * receive, which does not wake the send (only its timer does); after one
 * ACK timeout the send lands, once.
 */
static void a_send_to_a_peer_not_yet_in_rtr_lands_after_the_ack_timeout(void)
{
	struct m5t_rig r;

	CHECK_EQ(rig_half_open(&r, 14, 7), 0);
	if (check_failed)
		goto out;
	memcpy(r.buf, "sent before RTR", 16);
	CHECK_EQ(m5t_rig_send(&r, r.a, 1, 0, IBV_SEND_SIGNALED), 0);
	m5t_expect_empty(r.acq);
	CHECK_EQ(ack_timeouts(&r), 1);
	CHECK_EQ(m5t_rc_connect(r.dev, r.b, r.a->qp_num, 7), 0);
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb0, 256), 0);
	m5t_expect_empty(r.acq);
	m5t_expect_empty(r.bcq);
	m5m_clock_advance(r.dev, ACK_TIMEOUT_14_US - 1);
	m5t_expect_empty(r.acq);
	m5m_clock_advance(r.dev, 1);
	m5t_expect_wc(r.acq, 1, IBV_WC_SUCCESS);
	m5t_expect_wc(r.bcq, 0xb0, IBV_WC_SUCCESS);
	CHECK(memcmp(r.buf + 256, "sent before RTR", 16) == 0);
	m5t_expect_empty(r.acq);
	m5t_expect_empty(r.bcq);
	CHECK_EQ(ack_timeouts(&r), 1);
out:
	m5t_rig_close(&r);
}

/*
 * retry_cnt 2 and timeout 1 (8 us): the first try and two retries go
 * unanswered, then the WQE fails with RETRY_EXC_ERR and the QP is in ERR.
 */
static void a_send_no_responder_takes_fails_after_retry_cnt_retries(void)
{
	struct m5t_rig r;
	int i;

	CHECK_EQ(rig_half_open(&r, 1, 2), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(m5t_rig_send(&r, r.a, 1, 0, 0), 0);
	CHECK_EQ(m5t_rig_send(&r, r.a, 2, 0, IBV_SEND_SIGNALED), 0);
	for (i = 0; i < 2; i++) {
		m5t_expect_empty(r.acq);
		m5m_clock_advance(r.dev, 8);
	}
	m5t_expect_wc(r.acq, 1, IBV_WC_RETRY_EXC_ERR);
	m5t_expect_wc(r.acq, 2, IBV_WC_WR_FLUSH_ERR);
	m5t_expect_empty(r.acq);
	CHECK_EQ(ack_timeouts(&r), 3);
	CHECK_EQ(m5t_query_state(r.a), IBV_QPS_ERR);
out:
	m5t_rig_close(&r);
}

/* Timeout 0 is infinite: a request no responder took is never sent again. */
static void timeout_0_waits_for_ever(void)
{
	struct m5t_rig r;

	CHECK_EQ(rig_half_open(&r, 0, 7), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(m5t_rig_send(&r, r.a, 1, 0, IBV_SEND_SIGNALED), 0);
	CHECK_EQ(m5t_rc_connect(r.dev, r.b, r.a->qp_num, 7), 0);
	CHECK_EQ(m5t_rig_recv(&r, r.b, 0xb0, 256), 0);
	m5m_clock_advance(r.dev, 10 * 1000 * 1000);
	m5t_expect_empty(r.acq);
	m5t_expect_empty(r.bcq);
	CHECK_EQ(ack_timeouts(&r), 1);
out:
	m5t_rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(a_send_to_a_peer_not_yet_in_rtr_lands_after_the_ack_timeout),
	CHECK_TEST(a_send_no_responder_takes_fails_after_retry_cnt_retries),
	CHECK_TEST(timeout_0_waits_for_ever),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_ack_timeout_", tests);
}
