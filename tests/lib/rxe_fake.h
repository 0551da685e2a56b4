/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Rings and objects that stand in for the kernel's, for device-free tests. */
#ifndef DOORBELL_TESTS_RXE_FAKE_H
#define DOORBELL_TESTS_RXE_FAKE_H

#include "rxe/rxe.h"

#define FAKE_FILL 0xa5

/* A ring of 2^log2_slots slots in ordinary memory, filled with FAKE_FILL. */
void fake_ring_init(struct rxe_ring *r, unsigned int log2_slots,
		    unsigned int log2_stride);
void fake_ring_free(struct rxe_ring *r);
/* True if every byte of slot idx still holds FAKE_FILL. */
int fake_slot_untouched(const struct rxe_ring *r, uint32_t idx);
uint32_t fake_prod(const struct rxe_ring *r);

/* A QP whose doorbell writes to /dev/null; RTS unless changed. */
struct fake_qp {
	struct ibv_context ctx;
	struct ibv_pd pd;
	struct rxe_qp qp;
};
void fake_qp_init(struct fake_qp *f, enum ibv_qp_type type, uint32_t max_sge,
		  uint32_t max_inline);
void fake_qp_free(struct fake_qp *f);

#endif /* DOORBELL_TESTS_RXE_FAKE_H */
