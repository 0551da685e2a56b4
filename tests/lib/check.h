/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A minimal unit-test harness: each test is a function named by the
 * behaviour it checks; CHECK records a failure and the test goes on.
 */
#ifndef DOORBELL_TESTS_CHECK_H
#define DOORBELL_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern int unit_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__,      \
			       __LINE__, #cond);                               \
			unit_failed = 1;                                       \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		long long _a = (long long)(a), _b = (long long)(b);            \
		if (_a != _b) {                                                \
			printf("    %s:%d: %s == %lld, expected %s == %lld\n", \
			       __FILE__, __LINE__, #a, _a, #b, _b);            \
			unit_failed = 1;                                       \
		}                                                              \
	} while (0)

#define UNIT_TEST(fn) { #fn, fn }

int unit_main(int argc, char **argv, const struct unit_test *tests, int n);

#endif /* DOORBELL_TESTS_CHECK_H */
