// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The libibverbs version gate that protects the PABI 34 layouts. */
#include "core/doorbell.h"
#include "check.h"

static void major_is_read_from_the_real_file_name(void)
{
	CHECK_EQ(db_libibverbs_major(
			 "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
		 44);
	CHECK_EQ(db_libibverbs_major("libibverbs.so.1.14.50.0"), 50);
	CHECK_EQ(db_libibverbs_major("/opt/x/libibverbs.so.1.14.39.7"), 39);
}

static void unversioned_or_foreign_names_have_no_major(void)
{
	CHECK_EQ(db_libibverbs_major(NULL), -1);
	CHECK_EQ(db_libibverbs_major("/usr/lib/libibverbs.so.1"), -1);
	CHECK_EQ(db_libibverbs_major("/usr/lib/libibverbs.so.1.14.44"), -1);
	CHECK_EQ(db_libibverbs_major("/usr/lib/libmlx5.so.1.24.44.0"), -1);
	CHECK_EQ(db_libibverbs_major("libibverbs.so.1.14.44.0x"), -1);
	CHECK_EQ(db_libibverbs_major("libibverbs.so.1.14.x.0"), -1);
}

static void the_system_libibverbs_is_accepted(void)
{
	/* The unit tests are built against the library they run with. */
	CHECK_EQ(db_check_libibverbs(), 0);
}

static const struct check_test tests[] = {
	CHECK_TEST(major_is_read_from_the_real_file_name),
	CHECK_TEST(unversioned_or_foreign_names_have_no_major),
	CHECK_TEST(the_system_libibverbs_is_accepted),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_libver_", tests);
}
