/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A CQ's arming and completion-event moderation, as a ConnectX keeps them
 * (the CQ context's st, arm_ci, last_solicit_index, cq_max_count,
 * cq_period, cq_period_mode): the one rule the in-process model
 * (m5m_cq.c) and the PCI function (sim/mlx5/pci/cx_cq.c) both run.  It
 * knows nothing of rings, EQs or clocks: its user reports each CQE, each
 * arm and the time (microseconds), asks whether the event is due, and
 * raises it.
 */
#ifndef DOORBELL_SIM_M5M_ARM_H
#define DOORBELL_SIM_M5M_ARM_H

#include <stdbool.h>
#include <stdint.h>

enum m5m_cq_state {
	M5M_CQ_DISARMED,
	M5M_CQ_ARMED,
	M5M_CQ_ARMED_SOL,
	M5M_CQ_FIRED,
};

struct m5m_arm {
	enum m5m_cq_state st;
	uint32_t pi;	 /* CQEs written, free-running */
	bool has_sol;	 /* a solicited (or error) CQE was written */
	uint32_t sol_pi; /* pi just after the last such CQE */
	uint32_t arm_ci; /* the consumer index the last arm named (24 bits) */
	uint32_t ev_pi;	 /* pi at the last event */
	/* moderation: an event waits for mod_count CQEs or mod_period us */
	uint16_t mod_count;
	uint16_t mod_period;
	uint64_t win_start;   /* first CQE after the last event */
	uint64_t win_last;    /* newest CQE */
	bool period_from_cqe; /* cq_period_mode START_FROM_CQE, not _EQE */
	bool scqe_breaks;     /* a solicited CQE ends an armed-for-it wait */
};

/* A CQE was written at pi (sol: it satisfies a solicited-only arm). */
void m5m_arm_cqe(struct m5m_arm *a, bool sol, uint64_t now);
/* An arm doorbell: REQ_NOT_SOL (sol_only) or REQ_NOT, at consumer ci. */
void m5m_arm_set(struct m5m_arm *a, bool sol_only, uint32_t ci);
/* Whether the completion event of a CQ of ncqe entries is due now. */
bool m5m_arm_due(const struct m5m_arm *a, uint32_t ncqe, uint64_t now);
/* The event went out: the CQ is FIRED until armed again. */
void m5m_arm_fired(struct m5m_arm *a);
/* When moderation's period makes the event due, or UINT64_MAX. */
uint64_t m5m_arm_deadline(const struct m5m_arm *a, uint32_t ncqe);
/* The CQ is armed (for any CQE, or for solicited ones). */
bool m5m_arm_armed(const struct m5m_arm *a);

#endif /* DOORBELL_SIM_M5M_ARM_H */
