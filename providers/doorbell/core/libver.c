// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The private ABI's layouts change inside PABI 34, so doorbell registers only
 * with the rdma-core release its header describes.  The release is read from
 * the real file name of the loaded libibverbs, libibverbs.so.1.14.<major>.<n>.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/doorbell.h"

/* The rdma-core major of a libibverbs path, or -1 if it has none. */
int db_libibverbs_major(const char *real_path)
{
	const char *base, *v;
	char *end;
	long f[4];
	int i;

	if (!real_path)
		return -1;
	base = strrchr(real_path, '/');
	base = base ? base + 1 : real_path;
	if (strncmp(base, "libibverbs.so.", 14) != 0)
		return -1;
	v = base + 14;
	for (i = 0; i < 4; i++) {
		if (*v < '0' || *v > '9')
			return -1;
		f[i] = strtol(v, &end, 10);
		if (i < 3 && *end != '.')
			return -1;
		v = end + 1;
	}
	if (*end != '\0' || f[2] > INT_MAX)
		return -1;
	return (int)f[2];
}

int db_check_libibverbs(void)
{
	char path[PATH_MAX];
	Dl_info info;
	int major = -1;

	if (dladdr((void *)verbs_register_driver_34, &info) && info.dli_fname &&
	    realpath(info.dli_fname, path))
		major = db_libibverbs_major(path);
	if (major == DB_RDMA_CORE_MAJOR)
		return 0;
	if (major < 0)
		db_refuse("not loaded: cannot tell the libibverbs version; "
			  "this build needs libibverbs from rdma-core %d "
			  "(libibverbs.so.1.14.%d.x)",
			  DB_RDMA_CORE_MAJOR, DB_RDMA_CORE_MAJOR);
	else
		db_refuse("not loaded: libibverbs is from rdma-core %d; this "
			  "build needs rdma-core %d (libibverbs.so.1.14.%d.x)",
			  major, DB_RDMA_CORE_MAJOR, DB_RDMA_CORE_MAJOR);
	return -1;
}
