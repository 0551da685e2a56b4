/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion timestamps, as a ConnectX writes them: the one rule the
 * in-process model (m5m_cq.c) and the PCI function (sim/mlx5/pci/cx_cq.c)
 * both run.  Each keeps its own internal timer; this knows none of them.
 */
#ifndef DOORBELL_SIM_M5M_STAMP_H
#define DOORBELL_SIM_M5M_STAMP_H

#include <stdint.h>

/*
 * Write timer into the timestamp of the 64-byte CQE at cqe if op_own (the
 * byte the writer stores last) names a completion; an error CQE keeps its
 * syndromes there.
 */
void m5m_cqe_stamp(uint8_t *cqe, uint8_t op_own, uint64_t timer);

#endif
