// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-itest's RC and UC data-path cases (tests/guest/itest/data_rc.c
 * and data_ud_uc.c, every byte that arrived compared) on the in-process
 * software ConnectX, and
 * with the model told to flip one byte of received data
 * (m5m_config.corrupt_write), where the same check must say FAIL:
 *
 *	mlx5_itest_data CASE [CORRUPT_WRITE]
 *
 * Exit status 0 PASS, 1 FAIL, 77 SKIP; the PASS/FAIL/SKIP line is printed.
 * With CORRUPT_WRITE the case must fail: then the line is
 * "PASS mlx5_itest_data_CASE_fails_on_a_flipped_byte: <the case's reason>".
 */
#include <stdio.h>
#include <stdlib.h>

#include "m5t_itest.h"

int main(int argc, char **argv)
{
	const struct it_case *c;
	struct m5m_config cfg;
	char name[160];

	c = argc >= 2 ? m5t_itest_find(it_cases_data_rc, "", argv[1]) : NULL;
	if (!c && argc >= 2)
		c = m5t_itest_find(it_cases_data_ud_uc, "", argv[1]);
	if (!c || argc > 3) {
		fprintf(stderr,
			"usage: mlx5_itest_data CASE [CORRUPT_WRITE]\n");
		return 2;
	}
	m5m_config_default(&cfg);
	if (argc == 2)
		return m5t_itest_run(c, &cfg, NULL);
	cfg.corrupt_write = strtoull(argv[2], NULL, 0);
	snprintf(name, sizeof(name),
		 "mlx5_itest_data_%s_fails_on_a_flipped_byte", c->name);
	return m5t_itest_run(c, &cfg, name);
}
