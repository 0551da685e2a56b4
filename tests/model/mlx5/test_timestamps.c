// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion timestamps and the raw clock on the mlx5 backend over the
 * model: each completion carries the device's internal timer at the time
 * the device wrote it, and ibv_query_rt_values_ex reads the same timer
 * from the page mlx5_ib maps (mlx5_clock.c).  The model's timer runs at
 * M5M_CORE_CLOCK_KHZ ticks a millisecond of its virtual clock.
 */
#include <errno.h>
#include <string.h>

#include "m5model.h"
#include "check.h"
#include "m5t_rig.h"

/* The timer after us microseconds of virtual time from 0. */
static uint64_t ticks(uint64_t us)
{
	return us * M5M_CORE_CLOCK_KHZ / 1000;
}

/* A rig whose b side completes on a CQ with timestamps; NULL on failure. */
static struct ibv_cq_ex *rig_with_ts_cq(struct m5t_rig *r)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_cq_ex *cqx;

	if (m5t_rig_open(r, false))
		return NULL;
	cqx = ibv_create_cq_ex(r->ctx, &a);
	CHECK(cqx != NULL);
	if (!cqx)
		return NULL;
	ibv_destroy_cq(r->bcq);
	r->bcq = ibv_cq_ex_to_cq(cqx);
	return m5t_rig_rc(r, NULL) ? NULL : cqx;
}

/* One SEND a -> b at virtual time now; the timestamp of b's completion. */
static uint64_t send_and_stamp(struct m5t_rig *r, struct ibv_cq_ex *cqx,
			       uint64_t id)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t ts = 0;
	int ret;

	CHECK_EQ(m5t_rig_recv(r, r->b, id, 0), 0);
	CHECK_EQ(m5t_rig_send(r, r->a, id, 0, IBV_SEND_SIGNALED), 0);
	m5t_expect_wc(r->acq, id, IBV_WC_SUCCESS);
	/* A started poll holds the CQ until end_poll, failed check or not. */
	ret = ibv_start_poll(cqx, &pa);
	CHECK_EQ(ret, 0);
	if (ret)
		return 0;
	CHECK_EQ(cqx->wr_id, id);
	CHECK_EQ(cqx->status, IBV_WC_SUCCESS);
	ts = ibv_wc_read_completion_ts(cqx);
	ibv_end_poll(cqx);
	return ts;
}

static void a_completion_carries_the_timer_when_the_device_wrote_it(void)
{
	struct m5t_rig r;
	struct ibv_cq_ex *cqx = rig_with_ts_cq(&r);

	CHECK(cqx != NULL);
	if (check_failed)
		goto out;
	m5m_clock_advance(r.dev, 100);
	CHECK_EQ(send_and_stamp(&r, cqx, 1), ticks(100));
	m5m_clock_advance(r.dev, 50);
	CHECK_EQ(send_and_stamp(&r, cqx, 2), ticks(150));
	/* The same instant, the same stamp: the timer, not a counter. */
	CHECK_EQ(send_and_stamp(&r, cqx, 3), ticks(150));
out:
	m5t_rig_close(&r);
}

static void query_rt_values_reads_the_timer_page(void)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	m5m_clock_advance(r.dev, 1000);
	CHECK_EQ(ibv_query_rt_values_ex(r.ctx, &v), 0);
	CHECK_EQ(v.comp_mask, IBV_VALUES_MASK_RAW_CLOCK);
	CHECK_EQ(v.raw_clock.tv_sec, 0);
	CHECK_EQ((uint64_t)v.raw_clock.tv_nsec, ticks(1000));
	/* Past a low-word wrap: the high word moves with it. */
	m5m_clock_advance(r.dev, 30000000);
	CHECK_EQ(ibv_query_rt_values_ex(r.ctx, &v), 0);
	CHECK_EQ((uint64_t)v.raw_clock.tv_nsec, ticks(30001000));
	CHECK(ticks(30001000) > UINT32_MAX);
out:
	m5t_rig_close(&r);
}

/* A value the device has not: EINVAL, nothing filled. */
static void query_rt_values_refuses_an_unknown_value(void)
{
	struct ibv_values_ex v;
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	memset(&v, 0xa5, sizeof(v));
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK | 1u << 5;
	CHECK_EQ(ibv_query_rt_values_ex(r.ctx, &v), EINVAL);
	CHECK_EQ(v.comp_mask, IBV_VALUES_MASK_RAW_CLOCK | 1u << 5);
	CHECK_EQ((uint64_t)v.raw_clock.tv_sec, 0xa5a5a5a5a5a5a5a5ull);
	v.comp_mask = 0;
	CHECK_EQ(ibv_query_rt_values_ex(r.ctx, &v), 0);
	CHECK_EQ(v.comp_mask, 0);
out:
	m5t_rig_close(&r);
}

/* The timer is free-running, not the time of day: no wall-clock CQs. */
static void a_wallclock_timestamp_cq_is_not_supported(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct m5t_rig r;

	CHECK_EQ(m5t_rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	errno = 0;
	CHECK(!ibv_create_cq_ex(r.ctx, &a));
	CHECK_EQ(errno, EOPNOTSUPP);
out:
	m5t_rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(a_completion_carries_the_timer_when_the_device_wrote_it),
	CHECK_TEST(query_rt_values_reads_the_timer_page),
	CHECK_TEST(query_rt_values_refuses_an_unknown_value),
	CHECK_TEST(a_wallclock_timestamp_cq_is_not_supported),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_timestamps_", tests);
}
