// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues as the device runs them: CQE construction (requester,
 * responder, error; CQE version 1), the write itself (slot, ownership
 * parity, body before op_own, overrun), the arm state machine and per-CQ
 * moderation on the virtual clock, which turn CQEs into completion EQEs.
 * The moderation interpretation is documented in m5model.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "m5m_int.h"
#include "m5m_stamp.h"

struct m5m_cq *m5m_cq_find(struct m5m_dev *dev, uint32_t cqn)
{
	return m5m_tab_get(&dev->cqs, cqn);
}

struct m5m_cq *m5m_cq_new(struct m5m_dev *dev, uint8_t *buf, uint32_t ncqe,
			  __be32 *dbrec, unsigned int comp_vector)
{
	struct m5m_cq *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return NULL;
	cq->cqn = m5m_tab_add(&dev->cqs, cq);
	if (!cq->cqn) {
		free(cq);
		return NULL;
	}
	cq->dev = dev;
	cq->buf = buf;
	cq->ncqe = ncqe;
	cq->dbrec = dbrec;
	cq->eq = &dev->eqs[1 + comp_vector];
	cq->chan_wfd = -1;
	cq->chan_rfd = -1;
	cq->arm.st = M5M_CQ_DISARMED;
	cq->arm.period_from_cqe = dev->cfg.period_mode == M5M_PERIOD_FROM_CQE;
	cq->arm.scqe_breaks = dev->cfg.scqe_break_moderation;
	return cq;
}

void m5m_cq_free(struct m5m_cq *cq)
{
	struct m5m_dev *dev = cq->dev;
	struct m5m_delayed **pp, *d;

	/* Held-back CQEs of this CQ die with it. */
	dev->delayed_tail = &dev->delayed;
	for (pp = &dev->delayed; (d = *pp);) {
		if (d->cq == cq) {
			*pp = d->next;
			free(d);
		} else {
			pp = &d->next;
			dev->delayed_tail = &d->next;
		}
	}
	if (cq->split_pending)
		dev->splits--;
	m5m_tab_del(&dev->cqs, cq->cqn);
	free(cq);
}

/* --- Building CQEs -------------------------------------------------------- */

void m5m_cqe_req(struct m5m_qp *qp, const struct m5m_wqe *w, uint32_t byte_cnt)
{
	struct m5_cqe64 c = { 0 };

	c.sop_drop_qpn = htobe32((uint32_t)w->opcode << 24 | qp->qpn);
	c.wqe_counter = htobe16(w->idx);
	c.srqn_uidx = htobe32(qp->uidx);
	c.byte_cnt = htobe32(byte_cnt);
	c.op_own = M5_CQE_REQ << M5_CQE_OPCODE_SHIFT;
	m5m_cqe_post(qp, qp->scq, &c, false);
}

void m5m_cqe_req_err(struct m5m_qp *qp, uint16_t idx, uint8_t opcode,
		     uint8_t synd)
{
	struct m5_err_cqe e = { 0 };

	e.srqn = htobe32(qp->uidx);
	e.syndrome = synd;
	e.s_wqe_opcode_qpn = htobe32((uint32_t)opcode << 24 | qp->qpn);
	e.wqe_counter = htobe16(idx);
	e.op_own = M5_CQE_REQ_ERR << M5_CQE_OPCODE_SHIFT;
	/* An error CQE also satisfies a solicited-only arm. */
	m5m_cqe_post(qp, qp->scq, (const struct m5_cqe64 *)&e, true);
}

void m5m_cqe_resp(struct m5m_qp *qp, uint16_t counter, const struct m5m_resp *r)
{
	struct m5_cqe64 c = { 0 };

	c.byte_cnt = htobe32(r->byte_cnt);
	/* imm (or the invalidated rkey) as the sender wrote it; else 0 */
	if (r->opcode == M5_CQE_RESP_SEND_IMM ||
	    r->opcode == M5_CQE_RESP_WR_IMM ||
	    r->opcode == M5_CQE_RESP_SEND_INV)
		c.imm_inval_pkey = r->imm;
	/* QP1 (mlx5_imm_inval_pkey): the P_Key, which mlx5_ib looks up. */
	else if (qp->wire && qp->wire_qpn == 1)
		c.imm_inval_pkey = htobe32(r->pkey);
	c.flags_rqpn = htobe32((uint32_t)r->grh << M5_CQE_GRH_SHIFT |
			       (uint32_t)(r->sl & 0xf) << 24 |
			       (r->src_qpn & 0xffffff));
	c.slid = htobe16(r->slid);
	c.srqn_uidx = htobe32(qp->uidx);
	c.sop_drop_qpn = htobe32(qp->qpn);
	c.wqe_counter = htobe16(counter);
	c.op_own = (uint8_t)(r->opcode << M5_CQE_OPCODE_SHIFT) |
		   (r->se ? M5_CQE_SE_MASK : 0);
	m5m_cqe_post(qp, qp->rcq, &c, r->se);
}

void m5m_cqe_resp_err(struct m5m_qp *qp, uint16_t counter, uint8_t synd)
{
	m5m_cqe_resp_err_vendor(qp, counter, synd, 0);
}

void m5m_cqe_resp_err_vendor(struct m5m_qp *qp, uint16_t counter, uint8_t synd,
			     uint8_t vendor)
{
	struct m5_err_cqe e = { 0 };

	e.srqn = htobe32(qp->uidx);
	e.syndrome = synd;
	e.vendor_err_synd = vendor;
	e.s_wqe_opcode_qpn = htobe32(qp->qpn);
	e.wqe_counter = htobe16(counter);
	e.op_own = M5_CQE_RESP_ERR << M5_CQE_OPCODE_SHIFT;
	m5m_cqe_post(qp, qp->rcq, (const struct m5_cqe64 *)&e, true);
}

/* --- Writing CQEs --------------------------------------------------------- */

static void m5m_cq_put(struct m5m_cq *cq, const struct m5_cqe64 *cqe, bool sol)
{
	struct m5m_dev *dev = cq->dev;
	uint32_t ci, slot;
	uint8_t *dst, op_own;

	if (cq->split_pending)
		m5m_cq_split_finish(cq);
	ci = be32toh(cq->dbrec[M5_CQ_SET_CI]) & M5_CQ_CI_MASK;
	if (((cq->arm.pi - ci) & M5_CQ_CI_MASK) >= cq->ncqe && !cq->oi) {
		/* The CQ stops; the kernel learns it on the async EQ. */
		cq->overrun = true;
		if (!dev->quiet)
			fprintf(stderr,
				"m5model[%u]: CQ 0x%x overrun (producer 0x%x, "
				"ci 0x%x, %u CQEs): CQ_ERROR, the CQ stops\n",
				dev->id, cq->cqn, cq->arm.pi & M5_CQ_CI_MASK,
				ci, cq->ncqe);
		m5m_eqe_write(&dev->eqs[0], M5_EVENT_TYPE_CQ_ERROR, 0, cq->cqn,
			      0);
		return;
	}
	slot = cq->arm.pi & (cq->ncqe - 1);
	dst = cq->buf + (size_t)slot * M5_CQE_SIZE;
	memcpy(dst, cqe, M5_CQE_SIZE - 1);
	m5m_cqe_stamp(dst, cqe->op_own, m5m_timer(dev));
	op_own = (cqe->op_own & ~M5_CQE_OWNER_MASK) | !!(cq->arm.pi & cq->ncqe);
	/*
	 * op_own goes last, by a release store: whoever sees it sees the
	 * whole body (the split fault delays it to the next model step).
	 */
	if (m5m_fault_take(dev, M5M_FAULT_SPLIT_CQE)) {
		cq->split_pending = true;
		cq->split_slot = slot;
		cq->split_op_own = op_own;
		dev->splits++;
	} else {
		__atomic_store_n(&dst[M5_CQE_SIZE - 1], op_own,
				 __ATOMIC_RELEASE);
	}
	m5m_arm_cqe(&cq->arm, sol, dev->now);
	dev->st.cqes++;
	m5m_cq_try_fire(cq);
}

void m5m_cq_write(struct m5m_cq *cq, const struct m5_cqe64 *cqe, bool sol)
{
	struct m5m_dev *dev = cq->dev;
	struct m5m_delayed *d;

	if (cq->overrun)
		return;
	/* Once one CQE is held back, later ones queue behind it. */
	if (dev->delayed || m5m_fault_take(dev, M5M_FAULT_DELAY_CQE)) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return;
		d->cq = cq;
		d->cqn = cq->cqn;
		d->sol = sol;
		d->cqe = *cqe;
		*dev->delayed_tail = d;
		dev->delayed_tail = &d->next;
		return;
	}
	m5m_cq_put(cq, cqe, sol);
}

void m5m_cq_flush_delayed(struct m5m_dev *dev)
{
	struct m5m_delayed *d = dev->delayed;
	struct m5m_delayed *next;

	dev->delayed = NULL;
	dev->delayed_tail = &dev->delayed;
	for (; d; d = next) {
		next = d->next;
		if (!d->cq->overrun)
			m5m_cq_put(d->cq, &d->cqe, d->sol);
		free(d);
	}
}

void m5m_cq_split_finish(struct m5m_cq *cq)
{
	uint8_t *dst = cq->buf + (size_t)cq->split_slot * M5_CQE_SIZE;

	__atomic_store_n(&dst[M5_CQE_SIZE - 1], cq->split_op_own,
			 __ATOMIC_RELEASE);
	cq->split_pending = false;
	cq->dev->splits--;
}

/* --- Resize --------------------------------------------------------------- */

/* Opcode 9: no mlx5 CQE has it (M5M_FAULT_BAD_RESIZE_CQE). */
#define M5M_CQE_UNDEFINED 9

/*
 * As a ConnectX does MODIFY_CQ's resize (mlx5_ib_resize_cq on a user CQ):
 * the RESIZE CQE goes at the producer counter p of the old ring, with the
 * owner bit of that pass, and CQE p + 1 on go to the new ring at their
 * counters.  The device never copies: the CQEs the consumer has not polled
 * stay in the old ring for it to move (libmlx5's
 * mlx5_cq_resize_copy_cqes).  Refused, as the PCI function (sim/mlx5/pci) does, when
 * those CQEs and the RESIZE CQE do not fit in the old or the new ring.
 */
int m5m_cq_resize(struct m5m_cq *cq, uint8_t *buf, uint32_t ncqe)
{
	struct m5m_dev *dev = cq->dev;
	uint32_t ci, unpolled;
	uint8_t *dst, op = M5_CQE_RESIZE_CQ;

	if (cq->split_pending)
		m5m_cq_split_finish(cq);
	ci = be32toh(cq->dbrec[M5_CQ_SET_CI]) & M5_CQ_CI_MASK;
	unpolled = (cq->arm.pi - ci) & M5_CQ_CI_MASK;
	if (unpolled >= cq->ncqe || unpolled + 1 > ncqe)
		return EINVAL;
	dst = cq->buf + (size_t)(cq->arm.pi & (cq->ncqe - 1)) * M5_CQE_SIZE;
	if (m5m_fault_take(dev, M5M_FAULT_BAD_RESIZE_CQE))
		op = M5M_CQE_UNDEFINED;
	if (!m5m_fault_take(dev, M5M_FAULT_NO_RESIZE_CQE)) {
		memset(dst, 0, M5_CQE_SIZE - 1);
		/* Release: the zeroed body before the owner byte. */
		__atomic_store_n(&dst[M5_CQE_SIZE - 1],
				 (uint8_t)(op << M5_CQE_OPCODE_SHIFT |
					   !!(cq->arm.pi & cq->ncqe)),
				 __ATOMIC_RELEASE);
	}
	cq->arm.pi++;
	cq->buf = buf;
	cq->ncqe = ncqe;
	return 0;
}

/* --- Arming, moderation, events ------------------------------------------- */

uint64_t m5m_cq_deadline(const struct m5m_cq *cq)
{
	return m5m_arm_deadline(&cq->arm, cq->ncqe);
}

void m5m_cq_try_fire(struct m5m_cq *cq)
{
	struct m5m_dev *dev = cq->dev;
	uint64_t ref;

	if (cq->overrun || !m5m_arm_due(&cq->arm, cq->ncqe, dev->now))
		return;
	/* Latency runs from the first CQE this event is the first for. */
	ref = cq->arm.pi != cq->arm.ev_pi ? cq->arm.win_start : cq->arm_time;
	m5m_arm_fired(&cq->arm);
	cq->fired_since_arm = true;
	cq->events++;
	dev->st.cq_events++;
	if (cq->fire_head - cq->fire_tail == M5M_FIRE_FIFO)
		cq->fire_tail++;
	cq->fire_ref[cq->fire_head++ % M5M_FIRE_FIFO] = ref;
	m5m_eqe_write(cq->eq, M5_EVENT_TYPE_COMP, cq->cqn, 0, 0);
}

/*
 * The sn a new arm must carry.  The provider's cq_event advances it once
 * per event read, from 0 at create, so once the channel is empty it is the
 * count of events reported, mod 4 (more than one may be read between two
 * arms: an arm over an unread event can fire again).  -1 when the model
 * cannot tell (events still in the channel).  With no channel the model
 * can see (self-test CQs), it is unchanged unless the CQ fired and an
 * event went out since the last arm.
 */
static int m5m_cq_expected_sn(const struct m5m_cq *cq)
{
	int avail = 0;

	if (!cq->armed_once)
		return -1;
	if (cq->chan_rfd < 0) {
		if (!cq->fired_since_arm || cq->comp_reported == cq->chan_base)
			return (int)cq->arm_sn;
		return -1;
	}
	if (ioctl(cq->chan_rfd, FIONREAD, &avail) || avail)
		return -1;
	return (int)(cq->comp_reported & 3);
}

void m5m_cq_arm(struct m5m_cq *cq, uint32_t val)
{
	struct m5m_dev *dev = cq->dev;
	uint32_t sn = (val >> M5_CQ_SN_SHIFT) & 3, ci = val & M5_CQ_CI_MASK;
	uint32_t cmd = val & ~(3u << M5_CQ_SN_SHIFT) & ~M5_CQ_CI_MASK;
	int expect = m5m_cq_expected_sn(cq);
	/* A failed check shows the newest CQE, what the arm is about. */
	struct m5m_dump d = {
		.cqe = (const void *)(cq->buf + (size_t)((cq->arm.pi - 1) &
							 (cq->ncqe - 1)) *
							M5_CQE_SIZE),
	};

	if (!(cmd == M5_CQ_DB_REQ_NOT || cmd == M5_CQ_DB_REQ_NOT_SOL))
		m5m_violation(dev, &d, "CQ 0x%x arm: command bits 0x%08x",
			      cq->cqn, cmd);
	if (((cq->arm.pi - ci) & M5_CQ_CI_MASK) > cq->ncqe) {
		m5m_violation(dev, &d,
			      "CQ 0x%x arm: ci 0x%x is ahead of producer 0x%x",
			      cq->cqn, ci, cq->arm.pi & M5_CQ_CI_MASK);
		return;
	}
	if (expect >= 0 && (uint32_t)expect != sn)
		m5m_violation(dev, &d,
			      "CQ 0x%x arm: sn %u, expected %d (cq_event must "
			      "advance arm_sn once per event read)",
			      cq->cqn, sn, expect);
	cq->arm_sn = sn;
	cq->armed_once = true;
	cq->fired_since_arm = false;
	cq->chan_base = cq->comp_reported;
	m5m_arm_set(&cq->arm, cmd != 0, ci);
	cq->arm_time = dev->now;
	m5m_cq_try_fire(cq);
}

/* --- Self-test API -------------------------------------------------------- */

struct m5m_tcq *m5m_test_cq_create(struct m5m_dev *dev, uint32_t ncqe,
				   unsigned int vec, uint64_t handle,
				   int chan_wfd)
{
	size_t len = ((size_t)ncqe * M5_CQE_SIZE + 4095) & ~(size_t)4095;
	struct m5m_tcq *t = calloc(1, sizeof(*t));
	uint8_t *buf = aligned_alloc(4096, len);
	__be32 *db = aligned_alloc(64, 64);
	uint32_t i;

	if (!t || !buf || !db || vec >= dev->cfg.num_comp_vectors)
		goto err;
	memset(db, 0, 64);
	memset(buf, 0, (size_t)ncqe * M5_CQE_SIZE);
	for (i = 0; i < ncqe; i++)
		buf[(size_t)i * M5_CQE_SIZE + 63] = M5_CQE_OP_OWN_INIT;
	m5m_lock();
	t->cq = m5m_cq_new(dev, buf, ncqe, db, vec);
	if (t->cq) {
		t->cq->user_handle = handle;
		t->cq->chan_wfd = chan_wfd;
	}
	m5m_unlock();
	if (t->cq)
		return t;
err:
	free(t);
	free(buf);
	free(db);
	errno = EINVAL;
	return NULL;
}

void m5m_test_cq_destroy(struct m5m_tcq *t)
{
	uint8_t *buf = t->cq->buf;
	__be32 *db = t->cq->dbrec;

	m5m_lock();
	m5m_cq_free(t->cq);
	m5m_unlock();
	free(buf);
	free(db);
	free(t);
}

void m5m_test_cqe(struct m5m_tcq *t, bool solicited)
{
	struct m5_cqe64 c = { 0 };

	c.byte_cnt = htobe32(64);
	c.sop_drop_qpn = htobe32(0x123);
	c.op_own = (uint8_t)(M5_CQE_RESP_SEND << M5_CQE_OPCODE_SHIFT) |
		   (solicited ? M5_CQE_SE_MASK : 0);
	m5m_lock();
	m5m_step_locked(t->cq->dev);
	m5m_cq_write(t->cq, &c, solicited);
	m5m_unlock();
}

unsigned int m5m_test_poll(struct m5m_tcq *t, unsigned int n)
{
	struct m5m_cq *cq = t->cq;
	unsigned int got = 0;
	const uint8_t *cqe;
	uint8_t op_own;

	for (; got < n; got++) {
		cqe = cq->buf + (size_t)(t->ci & (cq->ncqe - 1)) * M5_CQE_SIZE;
		op_own = __atomic_load_n(&cqe[M5_CQE_SIZE - 1],
					 __ATOMIC_ACQUIRE);
		if (op_own >> M5_CQE_OPCODE_SHIFT == M5_CQE_INVALID ||
		    (op_own & M5_CQE_OWNER_MASK) != !!(t->ci & cq->ncqe))
			break;
		t->ci++;
	}
	cq->dbrec[M5_CQ_SET_CI] = htobe32(t->ci & M5_CQ_CI_MASK);
	return got;
}

void m5m_test_arm(struct m5m_tcq *t, bool solicited)
{
	uint32_t val = (t->sn & 3) << M5_CQ_SN_SHIFT |
		       (solicited ? M5_CQ_DB_REQ_NOT_SOL : M5_CQ_DB_REQ_NOT) |
		       (t->ci & M5_CQ_CI_MASK);

	m5m_lock();
	t->cq->dbrec[M5_CQ_ARM_DB] = htobe32(val);
	m5m_cq_arm(t->cq, val);
	m5m_unlock();
}

void m5m_test_event(struct m5m_tcq *t)
{
	t->sn++;
}

void m5m_test_modify(struct m5m_tcq *t, uint16_t count, uint16_t period)
{
	m5m_lock();
	t->cq->arm.mod_count = count;
	t->cq->arm.mod_period = period;
	m5m_cq_try_fire(t->cq);
	m5m_unlock();
}

int m5m_test_cq_state(struct m5m_tcq *t)
{
	return t->cq->arm.st;
}
