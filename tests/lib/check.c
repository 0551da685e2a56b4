// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Runs the tests of one test program; prints PASS/FAIL per test. */
#include <stdlib.h>

#include "check.h"

int check_failed;
const char *check_skip_reason;

/* name, or prefix + name: ctest passes the latter (see --list). */
static int check_is(const char *arg, const char *prefix, const char *name)
{
	size_t n = strlen(prefix);

	if (!strncmp(arg, prefix, n) && !strcmp(arg + n, name))
		return 1;
	return !strcmp(arg, name);
}

int check_main(int argc, char **argv, const char *prefix,
	       const struct check_test *tests, int n)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int i, ran = 0, failed = 0, skipped = 0;

	if (only && !strcmp(only, "--list")) {
		for (i = 0; i < n; i++)
			printf("%s%s\n", prefix, tests[i].name);
		return EXIT_SUCCESS;
	}
	for (i = 0; i < n; i++) {
		if (only && !check_is(only, prefix, tests[i].name))
			continue;
		check_failed = 0;
		check_skip_reason = NULL;
		tests[i].fn();
		ran++;
		if (check_skip_reason && !check_failed) {
			printf("SKIP %s%s: %s\n", prefix, tests[i].name,
			       check_skip_reason);
			skipped++;
			continue;
		}
		printf("%s %s%s\n", check_failed ? "FAIL" : "PASS", prefix,
		       tests[i].name);
		failed += check_failed;
	}
	if (!ran) {
		printf("FAIL %s%s: no such test\n", prefix, only ? only : "");
		return EXIT_FAILURE;
	}
	if (!only)
		printf("%d passed, %d failed, %d skipped\n",
		       ran - failed - skipped, failed, skipped);
	if (failed)
		return EXIT_FAILURE;
	return only && skipped ? 77 : EXIT_SUCCESS;
}
