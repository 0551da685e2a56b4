// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What register.c gives libibverbs, built from the backend descriptors at
 * load time: the match table, the ABI range and the per-device choice.
 */
#include <stdlib.h>

#include "core/backends.h"
#include "core/doorbell.h"
#include "check.h"

static size_t match_entries(void)
{
	const struct verbs_match_ent *m = db_device_ops.match_table;
	size_t n = 0;

	while (m && m[n].kind)
		n++;
	return n;
}

static void match_table_has_one_driver_id_entry_per_backend(void)
{
	const struct verbs_match_ent *m = db_device_ops.match_table;
	size_t i;

	CHECK(m != NULL);
	CHECK_EQ(match_entries(), db_num_backends);
	for (i = 0; m && i < db_num_backends && m[i].kind; i++) {
		CHECK_EQ(m[i].kind, VERBS_MATCH_DRIVER_ID);
		CHECK_EQ(m[i].u.driver_id, db_backends[i]->driver_id);
		CHECK(m[i].driver_data == db_backends[i]);
	}
}

static void abi_range_is_the_union_of_the_backends_ranges(void)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t i;

	for (i = 0; i < db_num_backends; i++) {
		CHECK(db_backends[i]->kabi_min <= db_backends[i]->kabi_max);
		if (db_backends[i]->kabi_min < lo)
			lo = db_backends[i]->kabi_min;
		if (db_backends[i]->kabi_max > hi)
			hi = db_backends[i]->kabi_max;
	}
	CHECK_EQ(db_device_ops.match_min_abi_version, lo);
	CHECK_EQ(db_device_ops.match_max_abi_version, hi);
}

/* A device of backend i, as libibverbs hands it to match_device. */
static struct verbs_sysfs_dev *sysfs_of(size_t i, uint32_t abi_ver)
{
	struct verbs_sysfs_dev *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->match = &db_device_ops.match_table[i];
	s->driver_id = db_backends[i]->driver_id;
	s->abi_ver = abi_ver;
	strcpy(s->ibdev_name, "unit0");
	return s;
}

static bool matches(size_t i, uint32_t abi_ver)
{
	struct verbs_sysfs_dev *s = sysfs_of(i, abi_ver);
	bool ret = db_device_ops.match_device(s);

	free(s);
	return ret;
}

static void opt_in_backend_serves_devices_only_with_its_variable_set(void)
{
	const struct db_backend *be;
	size_t i, seen = 0;

	for (i = 0; i < match_entries(); i++) {
		be = db_backends[i];
		if (!be->opt_in_env)
			continue;
		seen++;
		CHECK(be->native_provider != NULL);
		unsetenv(be->opt_in_env);
		CHECK(!matches(i, be->kabi_min));
		setenv(be->opt_in_env, "0", 1);
		CHECK(!matches(i, be->kabi_min));
		setenv(be->opt_in_env, "1", 1);
		CHECK(matches(i, be->kabi_min));
		unsetenv(be->opt_in_env);
	}
	CHECK(seen > 0);
}

static void always_on_backend_serves_devices_without_a_variable(void)
{
	size_t i, seen = 0;

	for (i = 0; i < match_entries(); i++) {
		if (db_backends[i]->opt_in_env)
			continue;
		seen++;
		CHECK(matches(i, db_backends[i]->kabi_max));
	}
	CHECK(seen > 0);
}

static void device_with_a_kernel_abi_its_backend_lacks_is_not_claimed(void)
{
	const struct db_backend *be;
	size_t i;

	for (i = 0; i < match_entries(); i++) {
		be = db_backends[i];
		if (be->opt_in_env)
			setenv(be->opt_in_env, "1", 1);
		CHECK(matches(i, be->kabi_min));
		CHECK(!matches(i, be->kabi_max + 1));
		if (be->kabi_min)
			CHECK(!matches(i, be->kabi_min - 1));
		if (be->opt_in_env)
			unsetenv(be->opt_in_env);
	}
}

static void mlx5_firmware_version_has_four_subminor_digits(void)
{
	char buf[64] = "";

	CHECK(db_mlx5_backend.format_fw_ver != NULL);
	if (!db_mlx5_backend.format_fw_ver)
		return;
	db_mlx5_backend.format_fw_ver(buf, sizeof(buf),
				      (uint64_t)16 << 32 | 35 << 16 | 12);
	CHECK(strcmp(buf, "16.35.0012") == 0);
}

static const struct check_test tests[] = {
	CHECK_TEST(match_table_has_one_driver_id_entry_per_backend),
	CHECK_TEST(abi_range_is_the_union_of_the_backends_ranges),
	CHECK_TEST(opt_in_backend_serves_devices_only_with_its_variable_set),
	CHECK_TEST(always_on_backend_serves_devices_without_a_variable),
	CHECK_TEST(device_with_a_kernel_abi_its_backend_lacks_is_not_claimed),
	CHECK_TEST(mlx5_firmware_version_has_four_subminor_digits),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_register_", tests);
}
