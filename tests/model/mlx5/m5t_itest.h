/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * doorbell-itest's cases (tests/guest/itest) on the in-process software
 * ConnectX: the same harness, with contexts that m5m_open() makes instead
 * of ibv_open_device().
 */
#ifndef M5T_ITEST_H
#define M5T_ITEST_H

#include "harness.h"
#include "m5model.h"

/*
 * Run case @c on a model device made with @cfg (its port Ethernet, as
 * Soft-RoCE's is) and print "PASS|FAIL|SKIP NAME".  Returns the exit
 * status: 0 PASS, 1 FAIL, 77 SKIP.  With @must_fail, the case must FAIL
 * (the model broke something on purpose): then "PASS @must_fail" with the
 * case's reason, and "FAIL @must_fail" if it passed or skipped.
 */
int m5t_itest_run(const struct it_case *c, struct m5m_config *cfg,
		  const char *must_fail);

/* The case of @cases named @prefix + @name, or NULL. */
const struct it_case *m5t_itest_find(const struct it_case *cases,
				     const char *prefix, const char *name);

#endif
