/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The few helpers the mlx5 model tests share: CHECK macros that count
 * failures and go on, and a main() that runs the test named on the command
 * line (one ctest per behaviour, one executable per file).
 */
#ifndef DOORBELL_TESTS_M5T_H
#define DOORBELL_TESTS_M5T_H

#include <stdio.h>
#include <string.h>

extern int m5t_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__,      \
			       __LINE__, #cond);                               \
			m5t_failed = 1;                                        \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		long long _a = (long long)(a), _b = (long long)(b);            \
		if (_a != _b) {                                                \
			printf("    %s:%d: %s == %lld, expected %s == %lld\n", \
			       __FILE__, __LINE__, #a, _a, #b, _b);            \
			m5t_failed = 1;                                        \
		}                                                              \
	} while (0)

struct m5t_test {
	const char *name;
	void (*fn)(void);
};

#define M5T(fn)                                                                \
	{                                                                      \
#fn, fn                                                        \
	}

/*
 * Run argv[1] (or every test); prints "PASS|FAIL <prefix><name>" per test
 * (the form scripts/test.sh counts); 0 if all passed, 1 otherwise.
 */
static inline int m5t_main(int argc, char **argv, const char *prefix,
			   const struct m5t_test *t, int n)
{
	int i, ran = 0, failed = 0;

	for (i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], t[i].name))
			continue;
		m5t_failed = 0;
		t[i].fn();
		printf("%s %s%s\n", m5t_failed ? "FAIL" : "PASS", prefix,
		       t[i].name);
		failed |= m5t_failed;
		ran++;
	}
	if (!ran) {
		printf("FAIL %s%s: no such test\n", prefix,
		       argc > 1 ? argv[1] : "");
		return 1;
	}
	return failed;
}

#endif /* DOORBELL_TESTS_M5T_H */
