// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The backends this build carries, looked up by kernel driver id. */
#include <stdatomic.h>

#include "core/doorbell.h"
#include "core/mmio.h"
#include "rxe/rxe.h"
#if DB_HAVE_MMIO
#include "mlx5/mlx5.h"
#endif

static const struct db_backend *const db_backends[] = {
	&db_rxe_backend,
#if DB_HAVE_MMIO
	&db_mlx5_backend,
#endif
};

const struct db_backend *db_backend_for_driver(uint32_t driver_id)
{
	size_t i;

	for (i = 0; i < sizeof(db_backends) / sizeof(db_backends[0]); i++)
		if (db_backends[i]->driver_id == driver_id)
			return db_backends[i];
	return NULL;
}

#if defined(__i386__)
#define DB_ARCH "i386"
#elif defined(__arm__)
#define DB_ARCH "32-bit arm"
#elif defined(__mips__)
#define DB_ARCH "mips"
#elif defined(__loongarch__)
#define DB_ARCH "loongarch"
#elif defined(__powerpc__)
#define DB_ARCH "32-bit powerpc"
#else
#define DB_ARCH "this architecture"
#endif

void db_backend_not_built(uint32_t driver_id)
{
	static atomic_bool said;

	/* Only the mlx5 backend is left out, where core/mmio.h cannot drive
	 * device registers (every 32-bit host among them). */
	if (driver_id != RDMA_DRIVER_MLX5 || atomic_exchange(&said, true))
		return;
	db_refuse("the mlx5 backend is not built for " DB_ARCH
		  "; ConnectX devices are left to libmlx5");
}
