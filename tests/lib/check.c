// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Runs the tests of one test program; prints PASS/FAIL per test. */
#include <stdlib.h>

#include "check.h"

int check_failed;

int check_main(int argc, char **argv, const char *prefix,
	       const struct check_test *tests, int n)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int i, ran = 0, failed = 0;

	if (only && !strcmp(only, "--list")) {
		for (i = 0; i < n; i++)
			printf("%s\n", tests[i].name);
		return EXIT_SUCCESS;
	}
	for (i = 0; i < n; i++) {
		if (only && strcmp(only, tests[i].name))
			continue;
		check_failed = 0;
		tests[i].fn();
		printf("%s %s%s\n", check_failed ? "FAIL" : "PASS", prefix,
		       tests[i].name);
		failed += check_failed;
		ran++;
	}
	if (!ran) {
		printf("FAIL %s%s: no such test\n", prefix, only ? only : "");
		return EXIT_FAILURE;
	}
	if (!only)
		printf("%d passed, %d failed\n", ran - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
