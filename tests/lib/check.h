/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one test harness of the C suites that need no device (tests/unit,
 * tests/model): each test is a function named by the behaviour it checks;
 * CHECK records a failure and the test goes on.  check_main() runs one test
 * by name (one ctest entry per test, see tests/lib/CMakeLists.txt), every
 * test, or lists them.
 */
#ifndef DOORBELL_TESTS_CHECK_H
#define DOORBELL_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

struct check_test {
	const char *name;
	void (*fn)(void);
};

/* Set by a failed CHECK; reset before each test. */
extern int check_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__,      \
			       __LINE__, #cond);                               \
			check_failed = 1;                                      \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		long long _a = (long long)(a), _b = (long long)(b);            \
		if (_a != _b) {                                                \
			printf("    %s:%d: %s == %lld, expected %s == %lld\n", \
			       __FILE__, __LINE__, #a, _a, #b, _b);            \
			check_failed = 1;                                      \
		}                                                              \
	} while (0)

/*
 * The test cannot run on this build (an architecture without what it
 * checks): it says why and returns; check_main prints "SKIP name: why".
 */
extern const char *check_skip_reason;
#define CHECK_SKIP(why) (check_skip_reason = (why))

#define CHECK_TEST(fn)                                                         \
	{                                                                      \
#fn, fn                                                        \
	}

#define CHECK_MAIN(argc, argv, prefix, tests)                                  \
	check_main(argc, argv, prefix, tests, sizeof(tests) / sizeof(tests[0]))

/*
 * With no argument, runs every test; with a name (with or without the
 * prefix), that test only; with --list, prints <prefix><name> for each test,
 * one a line (the ctest names, see tests/lib/CMakeLists.txt).  Prints "PASS|FAIL <prefix><name>"
 * (or "SKIP <prefix><name>: why") per test (the form scripts/test.sh
 * counts).  Returns 0 if every test run passed, 1 otherwise or when the name
 * matches no test, 77 when the one test named was skipped.
 */
int check_main(int argc, char **argv, const char *prefix,
	       const struct check_test *tests, int n);

#endif /* DOORBELL_TESTS_CHECK_H */
