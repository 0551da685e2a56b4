// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The backends this build carries, looked up by kernel driver id. */
#include "core/doorbell.h"
#include "mlx5/mlx5.h"
#include "rxe/rxe.h"

static const struct db_backend *const db_backends[] = {
	&db_rxe_backend,
	&db_mlx5_backend,
};

const struct db_backend *db_backend_for_driver(uint32_t driver_id)
{
	size_t i;

	for (i = 0; i < sizeof(db_backends) / sizeof(db_backends[0]); i++)
		if (db_backends[i]->driver_id == driver_id)
			return db_backends[i];
	return NULL;
}
