/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The in-process front end's own part: the doorbell device m5m_open()
 * makes, and the fake kernel's calls between its files.  The engine
 * (sim/mlx5/engine) sees none of this; only the front end knows the
 * provider's structures.
 */
#ifndef DOORBELL_SIM_M5M_FRONT_H
#define DOORBELL_SIM_M5M_FRONT_H

#include "mlx5/mlx5.h"
#include "m5m_int.h"

/* The doorbell device m5m_open() makes; db first (libibverbs frees it). */
#define M5M_IBDEV_MAGIC 0x4d354d44u
struct m5m_ibdev {
	struct db_device db;
	uint32_t magic;
	struct m5m_dev *dev;
	struct m5m_ibdev *next;
};

/*
 * Where the internal timer's high word is in its page: mlx5_ib's
 * internal_timer_h is at 0x1000 of the init segment, 0 in its page.
 */
#define M5M_CLOCK_OFFSET 0u

/* The model device and context behind a libibverbs context. */
struct m5m_dev *m5m_dev_of(struct ibv_context *ibctx);
struct m5m_ctx *m5m_ctx_of(struct ibv_context *ibctx);

/* m5m_kctx.c: the live UAR object of c with page id pg, or NULL. */
struct m5m_uobj *m5m_uobj_by_page(struct m5m_ctx *c, uint32_t pg);
void m5m_uobjs_free(struct m5m_ctx *c);
/* m5m_kctx.c: the timer word at reg (true) if reg is in a timer page. */
bool m5m_clock_word(const void *reg, __be32 *val);
/* m5m_kxrcd.c: the domain of an xrcd of this device, or NULL (locked). */
struct m5m_xrcd *m5m_xrcd_of(struct ibv_xrcd *xrcd);
/* The device goes: its contexts, dbrecs and doorbell devices go too. */
void m5m_kernel_fini(struct m5m_dev *dev);

#endif
