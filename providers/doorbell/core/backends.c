// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The list of backends this build carries.  A new backend is a folder with
 * its descriptor, one line here, one in core/backends.h and one CMake list;
 * register.c builds the match table and the ABI range from this list.
 */
#include "core/backends.h"

const struct db_backend *const db_backends[] = {
	&db_rxe_backend,
	&db_mlx5_backend,
};

const size_t db_num_backends = sizeof(db_backends) / sizeof(db_backends[0]);
