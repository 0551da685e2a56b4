// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DOORBELL_* environment variables, documented in doorbell(7) and the
 * README.  The core's own are read once per process; a backend's opt-in
 * variable is read when a device of its driver is matched.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/doorbell.h"

static struct db_config db_cfg;
static pthread_once_t db_cfg_once = PTHREAD_ONCE_INIT;

bool db_env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static void db_config_read(void)
{
	db_cfg.debug = db_env_flag("DOORBELL_DEBUG");
	db_cfg.single_threaded = db_env_flag("DOORBELL_SINGLE_THREADED");
}

const struct db_config *db_config(void)
{
	pthread_once(&db_cfg_once, db_config_read);
	return &db_cfg;
}
