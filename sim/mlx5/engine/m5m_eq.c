// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event queues and interrupts, both sides of them: the device writes EQEs
 * and raises MSI-X vectors (eventfds) from ARMED EQs; a small fake kernel
 * (the handler mlx5_eq_comp_int/mlx5_eq_async_int would be) consumes EQEs
 * from every EQ on a signalled vector, writes the EQ doorbells on its own
 * UAR, and turns EQEs into completion-channel and async events.  Also the
 * completion channels themselves and the model-only int_period throttle.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "m5m_int.h"

static struct m5m_eq *m5m_eq_by_num(struct m5m_dev *dev, unsigned int eqn)
{
	return eqn < dev->neqs ? &dev->eqs[eqn] : NULL;
}

static int m5m_eq_alloc(struct m5m_dev *dev, struct m5m_eq *eq,
			unsigned int eqn, unsigned int vec, uint32_t nent)
{
	uint32_t i;

	eq->dev = dev;
	eq->eqn = eqn;
	eq->vec = vec;
	eq->nent = nent;
	eq->ring = aligned_alloc(64, (size_t)nent * sizeof(struct m5_eqe));
	if (!eq->ring)
		return ENOMEM;
	memset(eq->ring, 0, (size_t)nent * sizeof(struct m5_eqe));
	/* The kernel initialises every owner bit to 1 (hardware writes 0
	 * on the first pass). */
	for (i = 0; i < nent; i++)
		eq->ring[i].owner = M5_EQ_OWNER_INIT;
	eq->st = M5M_EQ_FIRED;
	return 0;
}

int m5m_eq_init(struct m5m_dev *dev)
{
	const struct m5m_config *c = &dev->cfg;
	unsigned int i;
	int ret;

	dev->neqs = 1 + c->num_comp_vectors;
	dev->nvecs = 1 + c->num_comp_msix;
	dev->eqs = calloc(dev->neqs, sizeof(*dev->eqs));
	dev->vecs = calloc(dev->nvecs, sizeof(*dev->vecs));
	dev->irq_stop_fd = -1;
	if (!dev->eqs || !dev->vecs)
		goto nomem;
	for (i = 0; i < dev->nvecs; i++)
		dev->vecs[i].efd = -1;
	for (i = 0; i < dev->nvecs; i++) {
		dev->vecs[i].efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (dev->vecs[i].efd < 0) {
			ret = errno;
			goto err;
		}
	}
	ret = m5m_eq_alloc(dev, &dev->eqs[0], 0, 0, c->async_eq_nent);
	for (i = 0; !ret && i < c->num_comp_vectors; i++)
		ret = m5m_eq_alloc(dev, &dev->eqs[1 + i], 1 + i,
				   1 + i % c->num_comp_msix, c->eq_nent);
	if (ret)
		goto err;
	/* The kernel arms each EQ once when it enables it. */
	for (i = 0; i < dev->neqs; i++)
		m5m_kuar_write32(dev, M5_EQ_DOORBELL_ARM, i << 24);
	return 0;
nomem:
	ret = ENOMEM;
err:
	m5m_eq_fini(dev);
	return ret;
}

void m5m_eq_fini(struct m5m_dev *dev)
{
	unsigned int i;

	for (i = 0; dev->eqs && i < dev->neqs; i++)
		free(dev->eqs[i].ring);
	for (i = 0; dev->vecs && i < dev->nvecs; i++)
		if (dev->vecs[i].efd >= 0)
			close(dev->vecs[i].efd);
	free(dev->eqs);
	free(dev->vecs);
	dev->eqs = NULL;
	dev->vecs = NULL;
}

/* --- Device side: MSI-X --------------------------------------------------- */

static void m5m_vec_deliver(struct m5m_dev *dev, struct m5m_vec *v)
{
	uint64_t one = 1;

	if (write(v->efd, &one, sizeof(one)) != sizeof(one))
		m5m_violation(dev, NULL, "eventfd write failed");
	v->st.raised++;
	v->last_irq = dev->now;
	v->ever = true;
	v->held = false;
	if (m5m_fault_take(dev, M5M_FAULT_DUP_IRQ)) {
		v->dup_pending = true;
		v->st.duplicated++;
	}
}

/* An MSI-X message for vector vec. */
static void m5m_msix(struct m5m_dev *dev, unsigned int vec)
{
	struct m5m_vec *v = &dev->vecs[vec];

	if (m5m_fault_take(dev, M5M_FAULT_LOSE_IRQ)) {
		v->st.lost++;
		return;
	}
	/* Model-only throttle: at most one interrupt per int_period. */
	if (v->int_period && v->ever &&
	    dev->now < v->last_irq + v->int_period) {
		if (v->held)
			v->st.throttled++;
		v->held = true;
		return;
	}
	m5m_vec_deliver(dev, v);
}

uint64_t m5m_vec_deadline(const struct m5m_vec *v)
{
	return v->held ? v->last_irq + v->int_period : UINT64_MAX;
}

void m5m_vec_timer(struct m5m_dev *dev, struct m5m_vec *v)
{
	if (v->held && dev->now >= m5m_vec_deadline(v))
		m5m_vec_deliver(dev, v);
}

/* --- Device side: EQEs and EQ doorbells ----------------------------------- */

void m5m_eqe_write(struct m5m_eq *eq, uint8_t type, uint32_t data6,
		   uint32_t data0, uint8_t res_type)
{
	struct m5m_dev *dev = eq->dev;
	struct m5_eqe *e;

	if (eq->pi - eq->ci >= eq->nent) {
		eq->overrun = true;
		m5m_violation(dev, NULL,
			      "EQ %u overrun: producer %u, doorbell ci %u, "
			      "%u entries",
			      eq->eqn, eq->pi, eq->ci, eq->nent);
		return;
	}
	e = &eq->ring[eq->pi & (eq->nent - 1)];
	memset(e, 0, offsetof(struct m5_eqe, owner));
	e->type = type;
	e->data[0] = htobe32(data0);
	e->data[6] = htobe32(data6);
	((uint8_t *)e->data)[20] = res_type;
	/* Release: the body is visible before the owner bit validating it. */
	__atomic_store_n(&e->owner, !!(eq->pi & eq->nent), __ATOMIC_RELEASE);
	eq->pi++;
	dev->st.eqes++;
	if (eq->st == M5M_EQ_ARMED) {
		eq->st = M5M_EQ_FIRED;
		m5m_msix(dev, eq->vec);
	}
}

void m5m_kuar_write32(struct m5m_dev *dev, unsigned int off, uint32_t val)
{
	struct m5m_eq *eq = m5m_eq_by_num(dev, val >> 24);
	uint32_t ci24 = val & 0xffffff, ahead;

	memcpy(&dev->kuar[off & (M5_UAR_SIZE - 4)], &(__be32){ htobe32(val) },
	       4);
	if (!eq) {
		m5m_violation(dev, NULL, "EQ doorbell for unknown EQ %u",
			      val >> 24);
		return;
	}
	ahead = (eq->pi - ci24) & 0xffffff;
	if (!m5m_check(dev, ahead <= eq->nent,
		       "EQ %u doorbell ci %u is not within the %u EQEs "
		       "before producer %u",
		       eq->eqn, ci24, eq->nent, eq->pi))
		return;
	eq->ci = eq->pi - ahead;
	if (off == M5_EQ_DOORBELL_NOARM)
		return;
	if (off != M5_EQ_DOORBELL_ARM) {
		m5m_violation(dev, NULL, "kernel UAR write at 0x%x", off);
		return;
	}
	eq->st = M5M_EQ_ARMED;
	/* Armed with EQEs still after ci: interrupt again at once. */
	if (eq->pi != eq->ci) {
		eq->st = M5M_EQ_FIRED;
		m5m_msix(dev, eq->vec);
	}
}

/* --- Kernel side: the IRQ handler ----------------------------------------- */

void m5m_async_write(struct m5m_ctx *c, uint64_t element, uint32_t type)
{
	struct ib_uverbs_async_event_desc d = {
		.element = element,
		.event_type = type,
	};

	if (!c || c->async_wfd < 0)
		return;
	if (!m5m_fd_write(c->async_wfd, &d, sizeof(d)))
		c->dev->st.async_events++;
}

static void m5m_comp_event(struct m5m_dev *dev, struct m5m_eq *eq,
			   struct m5m_cq *cq)
{
	struct ib_uverbs_comp_event_desc d = { .cq_handle = cq->user_handle };
	struct m5m_event_info ev = {
		.cq_handle = cq->user_handle,
		.cqn = cq->cqn,
		.eqn = eq->eqn,
		.vector = eq->vec,
		.now = dev->now,
	};
	uint64_t ref = dev->now;

	if (cq->fire_tail != cq->fire_head)
		ref = cq->fire_ref[cq->fire_tail++ % M5M_FIRE_FIFO];
	if (cq->chan_wfd < 0)
		return;
	if (m5m_fd_write(cq->chan_wfd, &d, sizeof(d))) {
		m5m_violation(dev, NULL, "CQ 0x%x: channel write failed",
			      cq->cqn);
		return;
	}
	cq->comp_reported++;
	ev.latency = dev->now - ref;
	dev->st.channel_events++;
	dev->st.lat_count++;
	dev->st.lat_sum += ev.latency;
	if (ev.latency > dev->st.lat_max)
		dev->st.lat_max = ev.latency;
	if (dev->hook)
		dev->hook(dev->hook_arg, &ev);
}

static uint32_t m5m_qp_event_type(uint8_t type)
{
	switch (type) {
	case M5M_EVENT_COMM_EST:
		return IBV_EVENT_COMM_EST;
	case M5M_EVENT_WQ_INVAL_REQ:
		return IBV_EVENT_QP_REQ_ERR;
	case M5M_EVENT_WQ_ACCESS:
		return IBV_EVENT_QP_ACCESS_ERR;
	case M5M_EVENT_SRQ_LAST_WQE:
		return IBV_EVENT_QP_LAST_WQE_REACHED;
	default:
		return IBV_EVENT_QP_FATAL;
	}
}

static void m5m_eqe_handle(struct m5m_dev *dev, struct m5m_eq *eq,
			   const struct m5_eqe *e)
{
	uint32_t n6 = be32toh(e->data[6]) & 0xffffff;
	struct m5m_srq *srq;
	struct m5m_qp *qp;
	struct m5m_cq *cq;

	switch (e->type) {
	case M5_EVENT_TYPE_COMP:
		cq = m5m_cq_find(dev, n6);
		if (cq)
			m5m_comp_event(dev, eq, cq);
		break;
	case M5_EVENT_TYPE_CQ_ERROR:
		cq = m5m_cq_find(dev, be32toh(e->data[0]) & 0xffffff);
		if (cq && cq->ctx) {
			cq->async_reported++;
			m5m_async_write(cq->ctx, cq->user_handle,
					IBV_EVENT_CQ_ERR);
		}
		break;
	case M5M_EVENT_SRQ_LIMIT:
		srq = m5m_tab_get(&dev->srqs, n6);
		if (srq) {
			srq->async_reported++;
			m5m_async_write(srq->ctx, (uintptr_t)srq->ibsrq,
					IBV_EVENT_SRQ_LIMIT_REACHED);
		}
		break;
	default:
		qp = m5m_qp_find(dev, n6);
		if (qp) {
			qp->async_reported++;
			m5m_async_write(qp->ctx, (uintptr_t)qp->ibqp,
					m5m_qp_event_type(e->type));
		}
		break;
	}
}

/* mlx5_eq_comp_int for one EQ: consume, update, re-arm. */
static unsigned int m5m_eq_poll(struct m5m_dev *dev, struct m5m_eq *eq)
{
	unsigned int budget = dev->cfg.irq_budget, n = 0, since_db = 0;
	const struct m5_eqe *e;

	for (;;) {
		e = &eq->ring[eq->kci & (eq->nent - 1)];
		/* Acquire: the owner bit is read before the body. */
		if ((__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) & 1) !=
		    !!(eq->kci & eq->nent))
			break;
		m5m_eqe_handle(dev, eq, e);
		eq->kci++;
		n++;
		dev->st.eqes_consumed++;
		if (budget && n >= budget)
			break;
		/* Going on past 128: tell the device, or it sees an overrun. */
		if (++since_db >= M5M_EQ_UPDATE_EVERY) {
			m5m_kuar_write32(dev, M5_EQ_DOORBELL_NOARM,
					 eq->eqn << 24 | (eq->kci & 0xffffff));
			since_db = 0;
		}
	}
	m5m_kuar_write32(dev, M5_EQ_DOORBELL_ARM,
			 eq->eqn << 24 | (eq->kci & 0xffffff));
	return n;
}

static unsigned int m5m_vec_poll(struct m5m_dev *dev, unsigned int vec)
{
	unsigned int i, n = 0;

	/* The notifier chain: every EQ attached to this vector. */
	for (i = 0; i < dev->neqs; i++)
		if (dev->eqs[i].vec == vec)
			n += m5m_eq_poll(dev, &dev->eqs[i]);
	return n;
}

unsigned int m5m_irq_service(struct m5m_dev *dev)
{
	unsigned int i, n = 0;
	struct m5m_vec *v;
	uint64_t cnt, one = 1;

	m5m_lock();
	m5m_step_locked(dev);
	for (i = 0; i < dev->nvecs; i++) {
		v = &dev->vecs[i];
		if (read(v->efd, &cnt, sizeof(cnt)) != sizeof(cnt))
			continue;
		n++;
		v->st.handled++;
		if (!m5m_vec_poll(dev, i))
			v->st.spurious++;
		/* A duplicated message lands after the handler ran. */
		if (v->dup_pending) {
			v->dup_pending = false;
			if (write(v->efd, &one, sizeof(one)) != sizeof(one))
				m5m_violation(dev, NULL, "eventfd write");
		}
	}
	m5m_unlock();
	return n;
}

unsigned int m5m_irq_recover(struct m5m_dev *dev, unsigned int vec)
{
	unsigned int n = 0;

	m5m_lock();
	if (vec < dev->nvecs)
		n = m5m_vec_poll(dev, vec);
	m5m_unlock();
	return n;
}

unsigned int m5m_num_vectors(struct m5m_dev *dev)
{
	return dev->nvecs;
}

int m5m_vector_fd(struct m5m_dev *dev, unsigned int vec)
{
	return vec < dev->nvecs ? dev->vecs[vec].efd : -1;
}

unsigned int m5m_comp_vector_msix(struct m5m_dev *dev, unsigned int comp_vector)
{
	if (comp_vector >= dev->cfg.num_comp_vectors)
		return 0;
	return dev->eqs[1 + comp_vector].vec;
}

void m5m_set_int_period(struct m5m_dev *dev, unsigned int vec, uint32_t us)
{
	m5m_lock();
	if (vec < dev->nvecs) {
		dev->vecs[vec].int_period = us;
		/* Turning the throttle off releases a held interrupt. */
		if (!us && dev->vecs[vec].held)
			m5m_vec_deliver(dev, &dev->vecs[vec]);
	}
	m5m_unlock();
}

static void *m5m_irq_thread(void *arg)
{
	struct m5m_dev *dev = arg;
	struct pollfd pfd[1 + 1 + M5M_MAX_COMP_VECTORS];
	unsigned int i, n = dev->nvecs;
	uint64_t cnt;

	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = dev->vecs[i].efd,
					  .events = POLLIN };
	pfd[n] = (struct pollfd){ .fd = dev->irq_stop_fd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, n + 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd[n].revents) {
			if (read(dev->irq_stop_fd, &cnt, sizeof(cnt)) < 0)
				break;
			break;
		}
		m5m_irq_service(dev);
	}
	return NULL;
}

int m5m_irq_thread_start(struct m5m_dev *dev)
{
	int ret;

	if (dev->irq_thread_on)
		return EBUSY;
	dev->irq_stop_fd = eventfd(0, EFD_CLOEXEC);
	if (dev->irq_stop_fd < 0)
		return errno;
	ret = pthread_create(&dev->irq_thread, NULL, m5m_irq_thread, dev);
	if (ret) {
		close(dev->irq_stop_fd);
		dev->irq_stop_fd = -1;
		return ret;
	}
	dev->irq_thread_on = true;
	return 0;
}

void m5m_irq_thread_stop(struct m5m_dev *dev)
{
	uint64_t one = 1;

	if (!dev->irq_thread_on)
		return;
	if (write(dev->irq_stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(dev->irq_thread, NULL);
	close(dev->irq_stop_fd);
	dev->irq_stop_fd = -1;
	dev->irq_thread_on = false;
}

/* --- Completion channels -------------------------------------------------- */

struct ibv_comp_channel *m5m_create_comp_channel(struct m5m_dev *dev,
						 struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch;
	struct m5m_chan *mc;
	int p[2];

	ch = calloc(1, sizeof(*ch));
	mc = calloc(1, sizeof(*mc));
	if (!ch || !mc || pipe2(p, O_CLOEXEC)) {
		free(ch);
		free(mc);
		errno = ENOMEM;
		return NULL;
	}
	/* The kernel never blocks on a full event queue; neither do we. */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	ch->context = ctx;
	ch->fd = p[0];
	ch->refcnt = 0;
	mc->ch = ch;
	mc->wfd = p[1];
	m5m_lock();
	mc->next = dev->chans;
	dev->chans = mc;
	m5m_unlock();
	return ch;
}

int m5m_destroy_comp_channel(struct m5m_dev *dev,
			     struct ibv_comp_channel *channel)
{
	struct m5m_chan **pp, *mc;
	int ret = ENOENT;

	m5m_lock();
	for (pp = &dev->chans; *pp; pp = &(*pp)->next) {
		mc = *pp;
		if (mc->ch != channel)
			continue;
		if (mc->users || channel->refcnt) {
			ret = EBUSY;
			break;
		}
		*pp = mc->next;
		close(mc->wfd);
		close(channel->fd);
		free(channel);
		free(mc);
		ret = 0;
		break;
	}
	m5m_unlock();
	return ret;
}

struct m5m_chan *m5m_chan_find(struct m5m_dev *dev,
			       const struct ibv_comp_channel *ch)
{
	struct m5m_chan *mc;

	for (mc = dev->chans; mc; mc = mc->next)
		if (mc->ch == ch)
			return mc;
	return NULL;
}
