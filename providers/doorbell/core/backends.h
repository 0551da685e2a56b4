/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The backends this build carries: one descriptor per folder, each defined
 * in its backend's *_context.c.  core/backends.c and the unit tests include
 * this.
 */
#ifndef DOORBELL_CORE_BACKENDS_H
#define DOORBELL_CORE_BACKENDS_H

#include "core/doorbell.h"

extern const struct db_backend db_rxe_backend;
extern const struct db_backend db_mlx5_backend;

#endif /* DOORBELL_CORE_BACKENDS_H */
