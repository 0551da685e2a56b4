// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device's clock through ibv_query_rt_values_ex (issue #31): on a
 * device that advertises one (completion_timestamp_mask and hca_core_clock
 * in ibv_query_device_ex), the raw clock is its free-running timer, in
 * cycles of hca_core_clock kHz, given as tv_nsec with tv_sec 0, as libmlx5
 * gives it.  A device that advertises none is skipped.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "harness.h"

enum { CLOCK_SLEEP_MS = 20 };

/* The raw clock in *cycles, or a failure. */
static int clock_read(struct it_test *t, uint64_t *cycles)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int ret = ibv_query_rt_values_ex(t->env->ctx, &v);

	IT_EXPECT(t, !ret, "ibv_query_rt_values_ex: %s", strerror(ret));
	IT_EXPECT(t, v.comp_mask == IBV_VALUES_MASK_RAW_CLOCK,
		  "comp_mask 0x%x, not RAW_CLOCK", v.comp_mask);
	IT_EXPECT(t, v.raw_clock.tv_sec == 0,
		  "raw_clock.tv_sec %lld, not 0: cycles go in tv_nsec",
		  (long long)v.raw_clock.tv_sec);
	*cycles = (uint64_t)v.raw_clock.tv_nsec;
	return IT_PASS;
}

/*
 * Two reads CLOCK_SLEEP_MS apart: the second is later, by at least half
 * the cycles hca_core_clock promises for the sleep (a timer that stands
 * still, or runs far slower than advertised, fails).
 */
static int clock_raw_clock_advances(struct it_test *t, long arg)
{
	struct ibv_device_attr_ex ex = {};
	struct timespec nap = { 0, CLOCK_SLEEP_MS * 1000000L };
	uint64_t t0, t1, want;

	(void)arg;
	IT_EXPECT(t, !ibv_query_device_ex(t->env->ctx, NULL, &ex),
		  "ibv_query_device_ex: %s", strerror(errno));
	if (!ex.completion_timestamp_mask || !ex.hca_core_clock)
		return it_skip(t, "the device advertises no clock");
	if (clock_read(t, &t0))
		return IT_FAIL;
	nanosleep(&nap, NULL);
	if (clock_read(t, &t1))
		return IT_FAIL;
	want = ex.hca_core_clock * CLOCK_SLEEP_MS / 2;
	IT_EXPECT(t, t1 > t0 && t1 - t0 >= want,
		  "raw clock %llu then %llu after %d ms: want at least %llu "
		  "more (hca_core_clock %llu kHz)",
		  (unsigned long long)t0, (unsigned long long)t1,
		  CLOCK_SLEEP_MS, (unsigned long long)want,
		  (unsigned long long)ex.hca_core_clock);
	return IT_PASS;
}

const struct it_case it_cases_clock[] = {
	{ "clock_raw_clock_advances_at_hca_core_clock",
	  clock_raw_clock_advances, 0 },
	{ NULL, NULL, 0 },
};
