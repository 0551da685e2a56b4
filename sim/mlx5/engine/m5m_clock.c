// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The virtual clock: time moves only when a test advances it, and every
 * timer that falls due on the way (CQ moderation periods, RNR retries,
 * the model-only int_period throttle) runs at its own deadline, in order.
 * Also the "model step" that finishes deferred device writes.
 */
#include "m5m_int.h"

/* More timer firings than this in one advance means a timer that never
 * clears: a model bug, reported rather than spun on. */
#define M5M_MAX_FIRINGS 10000000u

void m5m_step_locked(struct m5m_dev *dev)
{
	struct m5m_cq *cq;
	uint32_t i;

	if (!dev->splits)
		return;
	for (i = 0; i < dev->cqs.cap && dev->splits; i++) {
		cq = dev->cqs.slot[i];
		if (cq && cq->split_pending)
			m5m_cq_split_finish(cq);
	}
}

void m5m_step_all(void)
{
	struct m5m_dev *dev;

	for (dev = m5m_devices(); dev; dev = dev->next)
		m5m_step_locked(dev);
}

void m5m_step(struct m5m_dev *dev)
{
	m5m_lock();
	m5m_step_locked(dev);
	m5m_unlock();
}

static uint64_t m5m_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t m5m_deadline_locked(struct m5m_dev *dev)
{
	uint64_t d = UINT64_MAX;
	struct m5m_qp *qp;
	uint32_t i;

	for (i = 0; i < dev->cqs.cap; i++)
		if (dev->cqs.slot[i])
			d = m5m_min(d, m5m_cq_deadline(dev->cqs.slot[i]));
	for (i = 0; i < dev->qps.cap; i++) {
		qp = dev->qps.slot[i];
		if (qp && qp->parked)
			d = m5m_min(d, qp->park_until);
	}
	for (i = 0; i < dev->nvecs; i++)
		d = m5m_min(d, m5m_vec_deadline(&dev->vecs[i]));
	return d;
}

uint64_t m5m_next_deadline(struct m5m_dev *dev)
{
	uint64_t d;

	m5m_lock();
	d = m5m_deadline_locked(dev);
	m5m_unlock();
	return d;
}

/* Run everything due at dev->now. */
static void m5m_run_due(struct m5m_dev *dev)
{
	struct m5m_qp *qp;
	struct m5m_cq *cq;
	uint32_t i;

	for (i = 0; i < dev->cqs.cap; i++) {
		cq = dev->cqs.slot[i];
		if (cq && m5m_cq_deadline(cq) <= dev->now)
			m5m_cq_try_fire(cq);
	}
	for (i = 0; i < dev->qps.cap; i++) {
		qp = dev->qps.slot[i];
		if (qp && qp->parked && qp->park_until <= dev->now)
			m5m_rnr_expire(qp);
	}
	for (i = 0; i < dev->nvecs; i++)
		if (m5m_vec_deadline(&dev->vecs[i]) <= dev->now)
			m5m_vec_timer(dev, &dev->vecs[i]);
}

uint64_t m5m_timer(const struct m5m_dev *dev)
{
	return dev->now * (M5M_CORE_CLOCK_KHZ / 1000) +
	       dev->now * (M5M_CORE_CLOCK_KHZ % 1000) / 1000;
}

void m5m_clock_advance(struct m5m_dev *dev, uint64_t us)
{
	uint64_t target, d;
	unsigned int n = 0;

	m5m_lock();
	m5m_step_locked(dev);
	target = dev->now + us;
	/* Delayed CQEs become visible as soon as time moves. */
	if (us)
		m5m_cq_flush_delayed(dev);
	for (;;) {
		d = m5m_deadline_locked(dev);
		if (d > target)
			break;
		if (d > dev->now)
			dev->now = d;
		m5m_run_due(dev);
		if (++n > M5M_MAX_FIRINGS) {
			m5m_violation(dev, NULL, "a timer never clears");
			break;
		}
	}
	dev->now = target;
	m5m_unlock();
}
