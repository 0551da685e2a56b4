// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A CQ's arming and moderation (m5m_arm.h).  Arming: REQ_NOT takes the
 * next CQE after the armed consumer index, REQ_NOT_SOL the next solicited
 * or error one; one event, then FIRED until the next arm.  Moderation
 * (MODIFY_CQ): the event waits until cq_max_count CQEs have come since the
 * last event, or cq_period microseconds from the first of them
 * (START_FROM_EQE) or from the newest (START_FROM_CQE).  A CQE an earlier
 * event covered already (the consumer re-armed without polling it) does
 * not wait again; with scqe_breaks, a solicited CQE on a CQ armed for one
 * does not wait at all.
 */
#include "m5m_arm.h"
#include "mlx5/mlx5_hw.h"

void m5m_arm_cqe(struct m5m_arm *a, bool sol, uint64_t now)
{
	if (a->pi == a->ev_pi)
		a->win_start = now;
	a->win_last = now;
	if (sol) {
		a->has_sol = true;
		a->sol_pi = a->pi + 1;
	}
	a->pi++;
}

void m5m_arm_set(struct m5m_arm *a, bool sol_only, uint32_t ci)
{
	a->st = sol_only ? M5M_CQ_ARMED_SOL : M5M_CQ_ARMED;
	a->arm_ci = ci & M5_CQ_CI_MASK;
}

bool m5m_arm_armed(const struct m5m_arm *a)
{
	return a->st == M5M_CQ_ARMED || a->st == M5M_CQ_ARMED_SOL;
}

/* A CQE after the armed ci that the armed mode reports. */
static bool m5m_arm_match(const struct m5m_arm *a, uint32_t ncqe)
{
	uint32_t pending = (a->pi - a->arm_ci) & M5_CQ_CI_MASK;

	if (!pending || pending > ncqe)
		return false;
	if (a->st == M5M_CQ_ARMED)
		return true;
	return a->has_sol &&
	       ((a->sol_pi - 1 - a->arm_ci) & M5_CQ_CI_MASK) < pending;
}

static uint64_t m5m_arm_period_end(const struct m5m_arm *a)
{
	return (a->period_from_cqe ? a->win_last : a->win_start) +
	       a->mod_period;
}

/*
 * A matching CQE after the armed ci that an earlier event covered already
 * (the consumer re-armed without polling it): it waited out moderation
 * once and does not wait again.
 */
static bool m5m_arm_old_pending(const struct m5m_arm *a)
{
	uint32_t pending = (a->pi - a->arm_ci) & M5_CQ_CI_MASK;
	uint32_t old = (a->ev_pi - a->arm_ci) & M5_CQ_CI_MASK;

	if (!old || old > pending)
		return false;
	if (a->st == M5M_CQ_ARMED)
		return true;
	return a->has_sol &&
	       ((a->sol_pi - 1 - a->arm_ci) & M5_CQ_CI_MASK) < old;
}

static bool m5m_arm_mod_ok(const struct m5m_arm *a, uint64_t now)
{
	uint32_t win = a->pi - a->ev_pi;

	if (!a->mod_count && !a->mod_period)
		return true;
	if (!win || m5m_arm_old_pending(a))
		return true;
	if (a->st == M5M_CQ_ARMED_SOL && a->scqe_breaks && a->has_sol &&
	    a->sol_pi - 1 - a->ev_pi < win)
		return true;
	if (a->mod_count && win >= a->mod_count)
		return true;
	return a->mod_period && now >= m5m_arm_period_end(a);
}

bool m5m_arm_due(const struct m5m_arm *a, uint32_t ncqe, uint64_t now)
{
	return m5m_arm_armed(a) && m5m_arm_match(a, ncqe) &&
	       m5m_arm_mod_ok(a, now);
}

void m5m_arm_fired(struct m5m_arm *a)
{
	a->st = M5M_CQ_FIRED;
	a->ev_pi = a->pi;
}

uint64_t m5m_arm_deadline(const struct m5m_arm *a, uint32_t ncqe)
{
	if (!m5m_arm_armed(a) || !a->mod_period || a->pi == a->ev_pi ||
	    !m5m_arm_match(a, ncqe))
		return UINT64_MAX;
	return m5m_arm_period_end(a);
}
