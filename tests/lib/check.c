// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Runs the tests of one unit-test program; prints PASS/FAIL per test. */
#include <stdlib.h>

#include "check.h"

int unit_failed;

int unit_main(int argc, char **argv, const struct unit_test *tests, int n)
{
	int i, passed = 0, failed = 0;

	for (i = 0; i < n; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		unit_failed = 0;
		tests[i].fn();
		printf("%s %s\n", unit_failed ? "FAIL" : "PASS", tests[i].name);
		if (unit_failed)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
