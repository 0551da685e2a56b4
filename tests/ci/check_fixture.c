// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A check.h program whose tests pass, skip and fail on purpose, for
 * red-runs.sh check_skip: it tests the harness, not doorbell, and is not a
 * ctest entry of its own.
 */
#include "check.h"

static void passes(void)
{
	CHECK_EQ(1 + 1, 2);
}

static void skips(void)
{
	CHECK_SKIP("on purpose");
}

static void fails_then_skips(void)
{
	CHECK_EQ(1 + 1, 3);
	CHECK_SKIP("after a failed CHECK");
}

static const struct check_test tests[] = {
	CHECK_TEST(passes),
	CHECK_TEST(skips),
	CHECK_TEST(fails_then_skips),
};

int main(int argc, char **argv)
{
	/* pass_and_skip: a whole run of the first two tests. */
	if (argc > 1 && !strcmp(argv[1], "pass_and_skip"))
		return check_main(1, argv, "ci_fixture_", tests, 2);
	return CHECK_MAIN(argc, argv, "ci_fixture_", tests);
}
