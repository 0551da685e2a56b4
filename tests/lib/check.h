/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one test harness of the C suites that need no device (tests/unit,
 * tests/model): each test is a function named by the behaviour it checks;
 * CHECK records a failure and the test goes on; CHECK_SKIP ends a test
 * that cannot run on this build.  check_main() runs one test by name (one
 * ctest entry per test, see tests/lib/CMakeLists.txt), every test, or lists
 * them.
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
/* Set by CHECK_SKIP to the reason; reset before each test. */
extern const char *check_skipped;

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
 * CHECK_FAILF(fmt, ...): a failure that no single condition states (a
 * setup step that went wrong, a loop that found a bad entry): records it
 * with the message, formatted as printf's, and the test goes on.
 */
#define CHECK_FAILF(...)                                                       \
	do {                                                                   \
		printf("    %s:%d: ", __FILE__, __LINE__);                     \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		check_failed = 1;                                              \
	} while (0)

/*
 * CHECK_SKIP(why): the test cannot run on this build (its code is compiled
 * out on this architecture, say): it returns at once and prints
 * "SKIP <name>: why" (FAIL if a CHECK failed before).  For a test function
 * only, which returns void.
 */
#define CHECK_SKIP(why)                                                        \
	do {                                                                   \
		check_skipped = (why);                                         \
		return;                                                        \
	} while (0)

/* The exit status of a run in which every test skipped (ctest's
 * SKIP_RETURN_CODE, set on every entry by doorbell_check_tests). */
#define CHECK_EXIT_SKIP 77

/* The test function fn, listed under its own name. */
#define CHECK_TEST(fn) CHECK_TEST_AS(fn, fn)
/* fn listed under name: e.g. a stand-in that skips where the test named
 * name is compiled out, so that every build lists the same tests. */
#define CHECK_TEST_AS(name, fn)                                                \
	{                                                                      \
#name, fn                                                      \
	}

#define CHECK_MAIN(argc, argv, prefix, tests)                                  \
	check_main(argc, argv, prefix, tests, sizeof(tests) / sizeof(tests[0]))

/*
 * With no argument, runs every test; with a name (with or without the
 * prefix), that test only; with --list, prints <prefix><name> for each test,
 * one a line (the ctest names, see tests/lib/CMakeLists.txt).  Prints
 * "PASS|FAIL|SKIP <prefix><name>" per test (the form scripts/test.sh
 * counts).  Returns 1 if a test failed or the name matches no test,
 * CHECK_EXIT_SKIP if every test run skipped, 0 otherwise.
 */
int check_main(int argc, char **argv, const char *prefix,
	       const struct check_test *tests, int n);

#endif /* DOORBELL_TESTS_CHECK_H */
