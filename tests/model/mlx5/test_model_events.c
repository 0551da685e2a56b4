// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Self-tests of the software ConnectX's event machinery, with no backend:
 * the test plays the provider (it polls, arms and counts events itself)
 * against the model's CQ arm state machine, moderation, EQs, MSI-X
 * vectors, the fake kernel IRQ handler and its fault injection.
 */
#define _GNU_SOURCE /* pipe2 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "m5m_int.h"
#include "check.h"

/* A pipe standing in for a completion channel. */
struct chan {
	int rfd, wfd;
};

static struct chan chan_open(void)
{
	int p[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		abort();
	return (struct chan){ p[0], p[1] };
}

static void chan_close(struct chan c)
{
	close(c.rfd);
	close(c.wfd);
}

/* Events waiting in the channel; the handle of the last one in *last. */
static unsigned int chan_drain(struct chan c, uint64_t *last)
{
	struct ib_uverbs_comp_event_desc d;
	unsigned int n = 0;

	while (read(c.rfd, &d, sizeof(d)) == sizeof(d)) {
		if (last)
			*last = d.cq_handle;
		n++;
	}
	return n;
}

static struct m5m_dev *dev_with(unsigned int nvec, unsigned int nmsix,
				unsigned int budget, unsigned int nent)
{
	struct m5m_config cfg;

	m5m_config_default(&cfg);
	cfg.num_comp_vectors = nvec;
	cfg.num_comp_msix = nmsix;
	cfg.irq_budget = budget;
	cfg.eq_nent = nent;
	return m5m_dev_create(&cfg);
}

static uint64_t raised(struct m5m_dev *dev, unsigned int vec)
{
	struct m5m_vec_stats s;

	m5m_get_vec_stats(dev, vec, &s);
	return s.raised;
}

/* The test side of one event: read it, count it, cq_event. */
static void take_event(struct m5m_tcq *t, struct chan c)
{
	uint64_t h = 0;

	CHECK_EQ(chan_drain(c, &h), 1);
	CHECK_EQ(h, t->cq->user_handle);
	m5m_test_event(t);
}

static void an_armed_eq_fires_once_until_rearmed(void)
{
	struct m5m_dev *dev = m5m_dev_create(NULL);
	struct chan c = chan_open();
	struct m5m_tcq *t = m5m_test_cq_create(dev, 8, 0, 0xabc, c.wfd);
	unsigned int vec = m5m_comp_vector_msix(dev, 0);
	struct m5m_tcq *u;
	struct m5m_stats st;

	t->cq->chan_rfd = c.rfd; /* lets the model check arm sn */
	/* Not armed: a CQE raises nothing. */
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_DISARMED);
	CHECK_EQ(m5m_irq_service(dev), 0);
	/* Armed with a CQE after ci: it fires at once. */
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	CHECK_EQ(raised(dev, vec), 1);
	/* FIRED: another CQE makes no second event. */
	m5m_test_cqe(t, false);
	m5m_get_stats(dev, &st);
	CHECK_EQ(st.cq_events, 1);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(t, c);
	CHECK_EQ(m5m_irq_service(dev), 0);
	CHECK_EQ(m5m_test_poll(t, 8), 2);
	/* Re-armed with nothing pending: armed, and the next CQE fires. */
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_ARMED);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(t, c);
	CHECK_EQ(m5m_test_poll(t, 8), 1);
	/* Solicited arm: a plain CQE does not fire it, an SE CQE does. */
	m5m_test_arm(t, true);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_ARMED_SOL);
	m5m_test_cqe(t, true);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(t, c);
	CHECK_EQ(m5m_test_poll(t, 8), 2);
	/* Pending plain CQE: a solicited arm waits, a normal one fires. */
	m5m_test_cqe(t, false);
	m5m_test_arm(t, true);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_ARMED_SOL);
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(t, c);
	/* The EQ is FIRED after its first EQE: a second CQ's EQE on it
	 * raises no interrupt until the handler re-arms the EQ. */
	u = m5m_test_cq_create(dev, 8, 0, 0xdef, c.wfd);
	m5m_test_poll(t, 8);
	m5m_test_arm(t, false);
	m5m_test_arm(u, false);
	m5m_test_cqe(t, false);
	m5m_test_cqe(u, false);
	CHECK_EQ(raised(dev, vec), 5);
	CHECK_EQ(m5m_irq_service(dev), 1);
	CHECK_EQ(chan_drain(c, NULL), 2);
	m5m_test_event(t);
	m5m_test_event(u);
	/* A stale sn after an event was read is a provider bug. */
	m5m_set_strict(dev, false);
	m5m_set_quiet(dev, true);
	m5m_test_poll(t, 8);
	t->sn--;
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_violations(dev), 1);
	m5m_test_cq_destroy(u);
	m5m_test_cq_destroy(t);
	m5m_dev_destroy(dev);
	chan_close(c);
}

static void an_eq_handler_takes_at_most_its_budget_of_eqes(void)
{
	struct m5m_dev *dev = dev_with(1, 1, 4, 64);
	struct chan c = chan_open();
	struct m5m_tcq *t[200];
	unsigned int i, irqs = 0, n;
	__be32 db;

	for (i = 0; i < 10; i++) {
		t[i] = m5m_test_cq_create(dev, 4, 0, i, c.wfd);
		m5m_test_arm(t[i], false);
		m5m_test_cqe(t[i], false);
	}
	/* 10 EQEs, one interrupt; 4 per pass, each re-arm interrupts again. */
	CHECK_EQ(raised(dev, 1), 1);
	while ((n = m5m_irq_service(dev)))
		irqs += n;
	CHECK_EQ(irqs, 3);
	CHECK_EQ(chan_drain(c, NULL), 10);
	for (i = 0; i < 10; i++)
		m5m_test_cq_destroy(t[i]);
	m5m_dev_destroy(dev);

	/* No budget: one pass, an update-only doorbell every 128 EQEs. */
	dev = dev_with(1, 1, 0, 256);
	for (i = 0; i < 200; i++) {
		t[i] = m5m_test_cq_create(dev, 4, 0, i, c.wfd);
		m5m_test_arm(t[i], false);
		m5m_test_cqe(t[i], false);
	}
	CHECK_EQ(m5m_irq_service(dev), 1);
	CHECK_EQ(m5m_irq_service(dev), 0);
	CHECK_EQ(chan_drain(c, NULL), 200);
	memcpy(&db, &dev->kuar[M5_EQ_DOORBELL_NOARM], 4);
	CHECK_EQ(be32toh(db), 1u << 24 | 128);
	memcpy(&db, &dev->kuar[M5_EQ_DOORBELL_ARM], 4);
	CHECK_EQ(be32toh(db), 1u << 24 | 200);
	CHECK_EQ(m5m_violations(dev), 0);
	for (i = 0; i < 200; i++)
		m5m_test_cq_destroy(t[i]);
	m5m_dev_destroy(dev);
	chan_close(c);
}

/* One CQE on each of four CQs, one per completion EQ. */
static unsigned int four_eqs(struct m5m_dev *dev, struct chan c,
			     unsigned int *irqs)
{
	struct m5m_tcq *t[4];
	unsigned int i, n;

	for (i = 0; i < 4; i++) {
		t[i] = m5m_test_cq_create(dev, 4, i, i, c.wfd);
		m5m_test_arm(t[i], false);
		m5m_test_cqe(t[i], false);
	}
	*irqs = 0;
	while ((n = m5m_irq_service(dev)))
		*irqs += n;
	for (i = 0; i < 4; i++)
		m5m_test_cq_destroy(t[i]);
	return chan_drain(c, NULL);
}

static void eqs_sharing_a_vector_are_all_walked_on_one_interrupt(void)
{
	struct m5m_dev *dev = dev_with(4, 1, 128, 1024);
	struct chan c = chan_open();
	struct m5m_vec_stats s;
	unsigned int i, irqs;

	for (i = 0; i < 4; i++)
		CHECK_EQ(m5m_comp_vector_msix(dev, i), 1);
	CHECK_EQ(m5m_num_vectors(dev), 2);
	/* Four EQs raise four messages on one eventfd: one interrupt, and
	 * the handler walks every EQ on the vector. */
	CHECK_EQ(four_eqs(dev, c, &irqs), 4);
	CHECK_EQ(irqs, 1);
	m5m_get_vec_stats(dev, 1, &s);
	CHECK_EQ(s.raised, 4);
	CHECK_EQ(s.handled, 1);
	m5m_dev_destroy(dev);

	/* Dedicated vectors: one interrupt each. */
	dev = dev_with(4, 4, 128, 1024);
	for (i = 0; i < 4; i++)
		CHECK_EQ(m5m_comp_vector_msix(dev, i), 1 + i);
	CHECK_EQ(four_eqs(dev, c, &irqs), 4);
	CHECK_EQ(irqs, 4);
	for (i = 1; i <= 4; i++) {
		m5m_get_vec_stats(dev, i, &s);
		CHECK_EQ(s.handled, 1);
	}
	m5m_dev_destroy(dev);
	chan_close(c);
}

static void cq_moderation_by_count_holds_the_event_until_the_nth_cqe(void)
{
	struct m5m_dev *dev = m5m_dev_create(NULL);
	struct chan c = chan_open();
	struct m5m_tcq *t = m5m_test_cq_create(dev, 16, 0, 1, c.wfd);
	struct m5m_stats st;
	int i;

	m5m_test_modify(t, 4, 0);
	m5m_test_arm(t, false);
	for (i = 0; i < 3; i++) {
		m5m_test_cqe(t, false);
		m5m_clock_advance(dev, 10);
	}
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_ARMED);
	/* No period: nothing fires by time. */
	CHECK_EQ(m5m_next_deadline(dev), UINT64_MAX);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(t, c);
	m5m_get_stats(dev, &st);
	CHECK_EQ(st.lat_max, 30); /* from the first CQE of the four */
	/* Re-armed behind the event's CQEs: they fire again at once. */
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_irq_service(dev);
	take_event(t, c);
	/* Covered CQEs plus a new one: no waiting for the count again. */
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_irq_service(dev);
	take_event(t, c);
	m5m_test_cqe(t, false);
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_irq_service(dev);
	take_event(t, c);
	/* Consumed: counting starts over; a lower count fires at once. */
	CHECK_EQ(m5m_test_poll(t, 16), 5);
	m5m_test_arm(t, false);
	for (i = 0; i < 3; i++)
		m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_ARMED);
	m5m_test_modify(t, 3, 0);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_irq_service(dev);
	take_event(t, c);
	/* Count 1 is no moderation. */
	m5m_test_poll(t, 16);
	m5m_test_modify(t, 1, 0);
	m5m_test_arm(t, false);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_test_cq_destroy(t);
	m5m_dev_destroy(dev);
	chan_close(c);
}

static void period_stream(enum m5m_period_mode mode, uint64_t expect)
{
	struct m5m_config cfg;
	struct m5m_dev *dev;
	struct chan c = chan_open();
	struct m5m_tcq *t;
	struct m5m_stats st;

	m5m_config_default(&cfg);
	cfg.period_mode = mode;
	dev = m5m_dev_create(&cfg);
	t = m5m_test_cq_create(dev, 16, 0, 1, c.wfd);
	m5m_test_modify(t, 0, 10);
	m5m_test_arm(t, false);
	/* CQEs at 0, 5 and 8 µs. */
	m5m_test_cqe(t, false);
	m5m_clock_advance(dev, 5);
	m5m_test_cqe(t, false);
	m5m_clock_advance(dev, 3);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_next_deadline(dev), expect);
	m5m_clock_advance(dev, expect - 8 - 1);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_ARMED);
	m5m_clock_advance(dev, 1);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_irq_service(dev);
	take_event(t, c);
	m5m_get_stats(dev, &st);
	CHECK_EQ(st.lat_max, expect);
	m5m_test_cq_destroy(t);
	m5m_dev_destroy(dev);
	chan_close(c);
}

static void cq_moderation_by_period_fires_on_the_virtual_clock(void)
{
	struct m5m_dev *dev = m5m_dev_create(NULL);
	struct chan c = chan_open();
	struct m5m_tcq *t = m5m_test_cq_create(dev, 16, 0, 1, c.wfd);

	/* EQE mode: the timer runs from the first CQE after the event. */
	period_stream(M5M_PERIOD_FROM_EQE, 10);
	/* CQE mode: every CQE restarts it. */
	period_stream(M5M_PERIOD_FROM_CQE, 18);
	/* Count and period: whichever comes first. */
	m5m_test_modify(t, 3, 100);
	m5m_test_arm(t, false);
	m5m_test_cqe(t, false);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_next_deadline(dev), 100);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	m5m_irq_service(dev);
	take_event(t, c);
	/* The period ran out while disarmed: arming fires at once. */
	m5m_test_poll(t, 16);
	m5m_test_cqe(t, false);
	m5m_clock_advance(dev, 500);
	CHECK_EQ(m5m_irq_service(dev), 0);
	m5m_test_arm(t, false);
	CHECK_EQ(m5m_test_cq_state(t), M5M_CQ_FIRED);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(t, c);
	CHECK_EQ(m5m_violations(dev), 0);
	m5m_test_cq_destroy(t);
	m5m_dev_destroy(dev);
	chan_close(c);
}

struct lat_log {
	unsigned int n;
	uint64_t lat[8];
};

static void lat_hook(void *arg, const struct m5m_event_info *ev)
{
	struct lat_log *l = arg;

	if (l->n < 8)
		l->lat[l->n++] = ev->latency;
}

static void int_period_holds_and_merges_interrupts(void)
{
	struct m5m_dev *dev = dev_with(4, 1, 128, 1024);
	struct chan c = chan_open();
	struct m5m_tcq *a = m5m_test_cq_create(dev, 8, 0, 1, c.wfd);
	struct m5m_tcq *b = m5m_test_cq_create(dev, 8, 1, 2, c.wfd);
	struct lat_log log = { 0 };
	struct m5m_vec_stats s;

	m5m_set_event_hook(dev, lat_hook, &log);
	/* Off by default: every EQ interrupt goes out at once. */
	m5m_test_arm(a, false);
	m5m_test_cqe(a, false);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(a, c);
	/* At most one interrupt per 50 µs on the vector (model-only). */
	m5m_set_int_period(dev, 1, 50);
	m5m_test_poll(a, 8);
	m5m_test_arm(a, false);
	m5m_test_arm(b, false);
	m5m_clock_advance(dev, 10);
	m5m_test_cqe(a, false); /* inside the window: held */
	CHECK_EQ(m5m_irq_service(dev), 0);
	m5m_clock_advance(dev, 10);
	m5m_test_cqe(b, false); /* merged into the held one */
	CHECK_EQ(m5m_next_deadline(dev), 50);
	m5m_clock_advance(dev, 29);
	CHECK_EQ(m5m_irq_service(dev), 0);
	m5m_clock_advance(dev, 1);
	CHECK_EQ(m5m_irq_service(dev), 1);
	CHECK_EQ(chan_drain(c, NULL), 2);
	m5m_test_event(a);
	m5m_test_event(b);
	CHECK_EQ(log.n, 3);
	CHECK_EQ(log.lat[1], 40);
	CHECK_EQ(log.lat[2], 30);
	m5m_get_vec_stats(dev, 1, &s);
	CHECK_EQ(s.raised, 2);
	CHECK_EQ(s.throttled, 1);
	/* After the window an interrupt goes out at once again. */
	m5m_test_poll(a, 8);
	m5m_test_arm(a, false);
	m5m_clock_advance(dev, 100);
	m5m_test_cqe(a, false);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(a, c);
	m5m_test_cq_destroy(a);
	m5m_test_cq_destroy(b);
	m5m_dev_destroy(dev);
	chan_close(c);
}

static void lost_and_duplicated_interrupts_are_recovered(void)
{
	struct m5m_dev *dev = m5m_dev_create(NULL);
	struct chan c = chan_open();
	struct m5m_tcq *a = m5m_test_cq_create(dev, 8, 0, 1, c.wfd);
	struct m5m_tcq *b = m5m_test_cq_create(dev, 8, 0, 2, c.wfd);
	unsigned int vec = m5m_comp_vector_msix(dev, 0);
	struct m5m_vec_stats s;

	/* A lost MSI-X leaves the EQ FIRED: nothing more is delivered. */
	m5m_inject(dev, M5M_FAULT_LOSE_IRQ, 1);
	m5m_test_arm(a, false);
	m5m_test_cqe(a, false);
	CHECK_EQ(m5m_irq_service(dev), 0);
	m5m_test_arm(b, false);
	m5m_test_cqe(b, false);
	CHECK_EQ(m5m_irq_service(dev), 0);
	CHECK_EQ(chan_drain(c, NULL), 0);
	/* The kernel's EQ recovery polls it and re-arms it. */
	CHECK_EQ(m5m_irq_recover(dev, vec), 2);
	CHECK_EQ(chan_drain(c, NULL), 2);
	m5m_test_event(a);
	m5m_test_event(b);
	m5m_get_vec_stats(dev, vec, &s);
	CHECK_EQ(s.lost, 1);
	m5m_test_poll(a, 8);
	m5m_test_arm(a, false);
	m5m_test_cqe(a, false);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(a, c);
	/* A duplicated MSI-X: a second, empty interrupt; no second event. */
	m5m_inject(dev, M5M_FAULT_DUP_IRQ, 1);
	m5m_test_poll(a, 8);
	m5m_test_arm(a, false);
	m5m_test_cqe(a, false);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(a, c);
	CHECK_EQ(m5m_irq_service(dev), 1);
	CHECK_EQ(chan_drain(c, NULL), 0);
	m5m_get_vec_stats(dev, vec, &s);
	CHECK_EQ(s.duplicated, 1);
	CHECK_EQ(s.spurious, 1);
	/* The EQ is armed as it should be afterwards. */
	m5m_test_poll(a, 8);
	m5m_test_arm(a, false);
	m5m_test_cqe(a, false);
	CHECK_EQ(m5m_irq_service(dev), 1);
	take_event(a, c);
	CHECK_EQ(m5m_violations(dev), 0);
	m5m_test_cq_destroy(a);
	m5m_test_cq_destroy(b);
	m5m_dev_destroy(dev);
	chan_close(c);
}

/* CQE faults: held back until time moves; body before owner. */
static void faulted_cqes_are_held_back_until_time_moves(void)
{
	struct m5m_dev *dev = m5m_dev_create(NULL);
	struct chan c = chan_open();
	struct m5m_tcq *t = m5m_test_cq_create(dev, 4, 0, 1, c.wfd);
	unsigned int i;

	m5m_inject(dev, M5M_FAULT_DELAY_CQE, 1);
	m5m_test_cqe(t, false);
	m5m_test_cqe(t, false); /* queues behind the first */
	CHECK_EQ(m5m_test_poll(t, 4), 0);
	m5m_clock_advance(dev, 1);
	CHECK_EQ(m5m_test_poll(t, 4), 2);
	m5m_inject(dev, M5M_FAULT_SPLIT_CQE, 1);
	m5m_test_cqe(t, false);
	CHECK_EQ(m5m_test_poll(t, 4), 0); /* body there, owner not */
	m5m_step(dev);
	CHECK_EQ(m5m_test_poll(t, 4), 1);
	/* Ownership over many wraps of a 4-entry CQ. */
	for (i = 0; i < 64; i++) {
		m5m_test_cqe(t, false);
		CHECK_EQ(m5m_test_poll(t, 4), 1);
	}
	/* Overrun: a full CQ stops (the async event has no context here). */
	for (i = 0; i < 5; i++)
		m5m_test_cqe(t, false);
	CHECK(t->cq->overrun);
	m5m_test_cq_destroy(t);
	m5m_dev_destroy(dev);
	chan_close(c);
}

static const struct check_test tests[] = {
	CHECK_TEST(an_armed_eq_fires_once_until_rearmed),
	CHECK_TEST(an_eq_handler_takes_at_most_its_budget_of_eqes),
	CHECK_TEST(eqs_sharing_a_vector_are_all_walked_on_one_interrupt),
	CHECK_TEST(cq_moderation_by_count_holds_the_event_until_the_nth_cqe),
	CHECK_TEST(cq_moderation_by_period_fires_on_the_virtual_clock),
	CHECK_TEST(int_period_holds_and_merges_interrupts),
	CHECK_TEST(lost_and_duplicated_interrupts_are_recovered),
	CHECK_TEST(faulted_cqes_are_held_back_until_time_moves),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_model_", tests);
}
