// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The bad-input matrix (tests/guest/itest/bad_matrix.c) on the software
 * ConnectX: the same case table and the same harness, with contexts that
 * m5m_open() makes instead of ibv_open_device() (m5t_itest.c).  One case
 * per run:
 *
 *	mlx5_bad_matrix CASE	(without the "matrix_" prefix)
 *	mlx5_bad_matrix -l	the case names
 *
 * The model's port is Ethernet, as Soft-RoCE's is, so the cases that need
 * a GRH mean the same on both backends.  Exit status 0 PASS, 1 FAIL, 77
 * SKIP (the reason is printed).
 */
#include <stdio.h>
#include <string.h>

#include "m5t_itest.h"

int main(int argc, char **argv)
{
	const struct it_case *c;
	struct m5m_config cfg;

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (c = it_cases_bad_matrix; c->name; c++)
			printf("%s\n", c->name + 7);
		return 0;
	}
	c = argc == 2 ? m5t_itest_find(it_cases_bad_matrix, "matrix_", argv[1])
		      : NULL;
	if (!c) {
		fprintf(stderr, "usage: mlx5_bad_matrix CASE | -l\n");
		return 2;
	}
	m5m_config_default(&cfg);
	return m5t_itest_run(c, &cfg, NULL);
}
