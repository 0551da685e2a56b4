// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DOORBELL_* environment variables, read once per process.  They are
 * documented in doorbell(7) and the README.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/doorbell.h"

static struct db_config db_cfg;
static pthread_once_t db_cfg_once = PTHREAD_ONCE_INIT;

static int db_env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static void db_config_read(void)
{
	db_cfg.debug = db_env_flag("DOORBELL_DEBUG");
	db_cfg.single_threaded = db_env_flag("DOORBELL_SINGLE_THREADED");
	db_cfg.mlx5 = db_env_flag("DOORBELL_MLX5");
}

const struct db_config *db_config(void)
{
	pthread_once(&db_cfg_once, db_config_read);
	return &db_cfg;
}
