// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_libver: the libibverbs version gate's parser, db_libibverbs_major,
 * on any string (a path as realpath() could return it).  The string is
 * allocated at its exact length, so a read past its NUL is an ASan report.
 *
 * Checked against an independent reading of the rule in libver.c: the
 * file name (after the last '/') is "libibverbs.so." and then exactly four
 * dot-separated runs of decimal digits; the result is the third number if
 * it fits an int, and -1 for anything else.
 */
#include <limits.h>

#include "core/libver.h"
#include "fuzz.h"

/* -1, or the third number of libibverbs.so.A.B.C.D. */
static long expected_major(const char *s)
{
	const char *base = strrchr(s, '/'), *p;
	unsigned long long v[4] = { 0 };
	bool big[4] = { false };
	int field;

	base = base ? base + 1 : s;
	if (strncmp(base, "libibverbs.so.", 14) != 0)
		return -1;
	p = base + 14;
	for (field = 0; field < 4; field++) {
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9') {
			if (v[field] > (unsigned long long)INT_MAX)
				big[field] = true;
			else
				v[field] = v[field] * 10 + (unsigned)(*p - '0');
			p++;
		}
		if (field < 3 && *p++ != '.')
			return -1;
	}
	if (*p != '\0')
		return -1;
	if (big[2] || v[2] > (unsigned long long)INT_MAX)
		return -1;
	return (long)v[2];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char prefix[] = "/usr/lib/x86_64-linux-gnu/libibverbs.so.";
	char *s;
	size_t off = 0, len;
	int got;
	long want;

	if (size < 1 || size > 4096)
		return 0;
	/* The first byte says whether the rest follows a real directory and
	 * "libibverbs.so." (the parser's interesting part is the numbers). */
	if (data[0] & 1)
		off = sizeof(prefix) - 1;
	len = off + size - 1;
	s = malloc(len + 1);
	FZ_ASSERT(s, "out of memory");
	memcpy(s, prefix, off);
	memcpy(s + off, data + 1, size - 1);
	s[len] = '\0';
	/* Bytes after an embedded NUL are not part of the string. */
	got = db_libibverbs_major(s);
	want = expected_major(s);
	FZ_ASSERT(got == want, "db_libibverbs_major(\"%s\") = %d, expected %ld",
		  s, got, want);
	free(s);
	FZ_ASSERT(db_libibverbs_major(NULL) == -1, "NULL path");
	return 0;
}
