// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-itest's CQ cases (tests/guest/itest/cq.c) on the in-process
 * software ConnectX:
 *
 *	mlx5_itest_cq CASE
 *
 * Exit status 0 PASS, 1 FAIL, 77 SKIP; the PASS/FAIL/SKIP line is printed.
 */
#include <stdio.h>

#include "m5t_itest.h"

int main(int argc, char **argv)
{
	const struct it_case *c;
	struct m5m_config cfg;

	c = argc == 2 ? m5t_itest_find(it_cases_cq, "", argv[1]) : NULL;
	if (!c) {
		fprintf(stderr, "usage: mlx5_itest_cq CASE\n");
		return 2;
	}
	m5m_config_default(&cfg);
	return m5t_itest_run(c, &cfg, NULL);
}
