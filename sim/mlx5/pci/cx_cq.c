// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues.  CREATE_CQ gives a ring of 64- or 128-byte CQEs in
 * guest pages (PAS), the EQ its completion events go to (c_eqn), a UAR
 * page, a doorbell record (dbr_addr: the consumer index the driver polled
 * to at +0, its last arm at +4) and interrupt moderation (cq_period in
 * microseconds, cq_max_count CQEs).  The driver arms the CQ with a 64-bit
 * write at 0x20 of a UAR page (Linux's mlx5_cq_arm(): sn << 28 | cmd | ci,
 * then the cqn); cmd 1 << 24 arms for solicited and error CQEs only.  An
 * armed CQ that gets a CQE it is armed for raises one completion EQE
 * (MLX5_EVENT_TYPE_COMP with the cqn) on its EQ and is FIRED until armed
 * again; arming while CQEs beyond the doorbell's ci wait fires at once.
 * The arm doorbell is held to rules (arm_checked()): its UAR page, its
 * doorbell record, its command bits and its sequence number.
 * Which CQE fires, and when moderation lets it (cq_max_count CQEs or
 * cq_period, cq_period_mode, scqe_break_moderation_en), is the engine's
 * rule (sim/mlx5/engine/m5m_arm.c), the one the in-process model runs.  The owner bit of the CQE at producer counter pc is
 * (pc >> log_cq_size) & 1: the driver's initial owner bits are 0 with an
 * invalid opcode, so the first pass writes 0.
 */
#include <stdlib.h>
#include <string.h>

#include "cx_engine.h"
#include "cx_ifc.h"
#include "cx_int.h"
#include "m5m_stamp.h"

enum {
	CQE_SIZE = 64,
	CQE_OWNER = 63,
	LOG_MAX_CQ_SZ = 16, /* cx_caps.c log_max_cq_sz */
	CQE_SZ_128 = 1,
	DB_SOLICITED = 1 << 24, /* MLX5_CQ_DB_REQ_NOT_SOL */
	DB_SN_SHIFT = 28,
	MODIFY_PERIOD = 1 << 0, /* MLX5_CQ_MODIFY_PERIOD */
	MODIFY_COUNT = 1 << 1,
	MODIFY_OVERRUN = 1 << 2,
	CQ_ERR_OVERRUN = 0x1, /* MLX5_CQ_ERROR_SYNDROME_CQ_OVERRUN */
	OPMOD_RESIZE = 1,     /* MLX5_CQ_OPMOD_RESIZE */
	RESIZE_ALL = 0x7, /* MLX5_MODIFY_CQ_MASK_LOG_SIZE|PG_OFFSET|PG_SIZE */
	CQE_RESIZE = 0x5, /* MLX5_CQE_RESIZE_CQ */
	EQE_CQN = 24,	  /* mlx5_eqe_comp.cqn, mlx5_eqe_cq_err at 0 */
	EQE_CQ_ERR_SYNDROME = 11,
	CQ_PERIOD_FROM_CQE = 1, /* MLX5_CQ_PERIOD_MODE_START_FROM_CQE */
};

void cx_cq_reset(struct cx *cx)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_CQ; i++)
		free(cx->cq[i].pas);
	memset(cx->cq, 0, sizeof(cx->cq));
	memset(cx->cq_db_hi, 0, sizeof(cx->cq_db_hi));
}

struct cx_cq *cx_cq_get(struct cx *cx, uint32_t cqn)
{
	if (!cqn || cqn >= CX_MAX_CQ || !cx->cq[cqn].valid)
		return NULL;
	return &cx->cq[cqn];
}

static uint32_t stride(const struct cx_cq *cq)
{
	return CQE_SIZE << cq->cqe_sz;
}

/* The 64-byte CQE of slot PC (the second half of a 128-byte one). */
static uint8_t *cqe_at(struct cx *cx, struct cx_cq *cq, uint32_t pc)
{
	uint64_t off =
		(uint64_t)(pc & ((1u << cq->log_size) - 1)) * stride(cq) +
		stride(cq) - CQE_SIZE;

	return cx_queue_at(cx, cq->pas, cq->npas, cq->log_page_size,
			   cq->page_offset, off, CQE_SIZE, true);
}

/* The consumer index in the doorbell record; false if it is unreadable. */
static bool dbr_ci(struct cx *cx, struct cx_cq *cq, uint32_t *ci)
{
	const uint8_t *rec = cx_dma(cx, cq->dbr, 8, false);

	if (!rec)
		return false;
	*ci = cx_get(rec, 0, 32) & 0xffffff;
	return true;
}

static void fire(struct cx *cx, struct cx_cq *cq)
{
	uint8_t data[28] = { 0 };
	uint32_t cqn = cq - cx->cq;

	cx_set(data, EQE_CQN * 8, 32, cqn);
	m5m_arm_fired(&cq->arm);
	cq->events++;
	cx_eq_post_to(cx, cq->eqn, CX_EVENT_COMP, 0, data, sizeof(data));
}

/* The arm and moderation rule's clock: microseconds. */
static uint64_t now_us(void)
{
	return cx_now_ns() / 1000;
}

/* Raise the completion event if the engine's rule says it is due. */
static void fire_if_due(struct cx *cx, struct cx_cq *cq)
{
	if (m5m_arm_due(&cq->arm, 1u << cq->log_size, now_us()))
		fire(cx, cq);
}

int64_t cx_cq_timers(struct cx *cx)
{
	uint64_t now = now_us(), due;
	int64_t next = -1;
	unsigned int i;

	for (i = 1; i < CX_MAX_CQ; i++) {
		struct cx_cq *cq = &cx->cq[i];

		if (!cq->valid)
			continue;
		due = m5m_arm_deadline(&cq->arm, 1u << cq->log_size);
		if (due == UINT64_MAX)
			continue;
		if (now >= due)
			fire_if_due(cx, cq);
		else if (next < 0 || (due - now) * 1000 < (uint64_t)next)
			next = (int64_t)((due - now) * 1000);
	}
	return next;
}

int cx_cq_push(struct cx *cx, uint32_t cqn, const uint8_t *cqe, bool solicited)
{
	struct cx_cq *cq = cx_cq_get(cx, cqn);
	uint8_t *slot, data[28] = { 0 };
	uint32_t ci;

	if (!cq)
		return CX_BAD_RES;
	if (cq->overrun)
		return CX_LIM;
	if (!cq->oi && (!dbr_ci(cx, cq, &ci) ||
			((cq->pc - ci) & 0xffffff) >= 1u << cq->log_size)) {
		cq->overrun = true;
		cx_set(data, 0, 32, cqn);
		data[EQE_CQ_ERR_SYNDROME] = CQ_ERR_OVERRUN;
		cx_eq_post(cx, CX_EVENT_CQ_ERROR, 0, data, sizeof(data));
		return CX_LIM;
	}
	slot = cqe_at(cx, cq, cq->pc);
	if (!slot)
		return CX_LIM;
	memcpy(slot, cqe, CQE_OWNER);
	/* The internal timer, as the init segment shows it. */
	m5m_cqe_stamp(slot, cqe[CQE_OWNER], cx_timer(cx));
	/* Release: the CQE body is visible before its owner bit flips. */
	__atomic_store_n(&slot[CQE_OWNER],
			 (uint8_t)((cqe[CQE_OWNER] & ~1u) |
				   (cq->pc >> cq->log_size & 1)),
			 __ATOMIC_RELEASE);
	cq->pc = (cq->pc + 1) & 0xffffff;
	m5m_arm_cqe(&cq->arm, solicited, now_us());
	fire_if_due(cx, cq);
	return CX_OK;
}

/*
 * The arm doorbell's rules, each counted as the engine's (cx_eng_stats):
 *  - it is rung on the UAR page the CQC names, else it is dropped;
 *  - the doorbell's arm word is the one in the doorbell record (+4), which
 *    libmlx5 (mlx5_arm_cq) and Linux (mlx5_cq_arm) store before ringing,
 *    or a later arm's: MMIO writes are posted, so the driver may arm again
 *    (a later sn, or the same sn with a later ci) before this doorbell
 *    arrives, as mlx5e does from NAPI (dbrec_holds).  The device arms on
 *    every doorbell, so doorbells still on their way with one sn may each
 *    raise an event, and the driver may take them all before the last
 *    arrives: the record's sn may be three on when the device raised
 *    that many events past this doorbell's sn;
 *  - no command bits but REQ_NOT_SOL, nothing above sn;
 *  - sn counts the events the driver took (libmlx5's mlx5_cq_event, Linux's
 *    mlx5_eq_comp_int), which the device raised: the sum of its steps
 *    ((sn - last sn) & 3, from 0) never exceeds the events raised.  A step
 *    that would is counted and not added.
 * Only the first drops the doorbell: a ConnectX arms on what the doorbell
 * says.
 */
/* Arm word bits: cmd bits other than REQ_NOT_SOL, and the two above sn. */
#define DB_UNKNOWN 0xce000000u

/*
 * Whether dbrec word REC is arm word HI or a later arm's (above); SPARE:
 * the events raised that HI's sn does not account for.
 */
static bool dbrec_holds(uint32_t rec, uint32_t hi, uint64_t spare)
{
	uint8_t dsn = ((rec >> DB_SN_SHIFT) - (hi >> DB_SN_SHIFT)) & 3;
	uint32_t dci = (rec - hi) & 0xffffff;

	if (rec == hi)
		return true;
	/* sn one or two events on, three if raised; or the same sn, ci
	 * moved on (by less than half its range: behind is a record never
	 * written). */
	return dsn == 1 || dsn == 2 || (dsn == 3 && spare >= 3) ||
	       (dsn == 0 && dci && dci < 0x800000);
}

static bool arm_checked(struct cx *cx, struct cx_cq *cq, uint32_t uar,
			uint32_t hi)
{
	const uint8_t *rec = cx_dma(cx, cq->dbr, 8, false);
	uint32_t word = rec ? cx_get(rec, 32, 32) : ~hi;
	uint8_t sn = hi >> DB_SN_SHIFT & 3;
	uint8_t step = (sn - cq->arm_sn) & 3;
	bool ahead = cq->sn_advance + step > cq->events;
	uint64_t spare = ahead ? 0 : cq->events - (cq->sn_advance + step);
	bool held = rec && dbrec_holds(word, hi, spare);

	if (uar != cq->uar || !held || (hi & DB_UNKNOWN) || ahead)
		cx_trace(
			cx,
			"violation: cq arm cqn %u uar %u (cqc %u) hi 0x%08x "
			"dbrec 0x%08x sn %u after %u, advance %llu events %llu",
			(unsigned int)(cq - cx->cq), uar, cq->uar, hi, word, sn,
			cq->arm_sn, (unsigned long long)cq->sn_advance,
			(unsigned long long)cq->events);
	if (uar != cq->uar) {
		cx_eng_arm_violation(cx, CX_ARM_WRONG_UAR);
		return false;
	}
	if (!held)
		cx_eng_arm_violation(cx, CX_ARM_NOT_DBREC);
	if (hi & DB_UNKNOWN)
		cx_eng_arm_violation(cx, CX_ARM_BAD_CMD);
	if (ahead)
		cx_eng_arm_violation(cx, CX_ARM_SN_AHEAD);
	else
		cq->sn_advance += step;
	cq->arm_sn = sn;
	return true;
}

void cx_cq_doorbell(struct cx *cx, uint32_t uar, uint32_t hi, uint32_t lo)
{
	struct cx_cq *cq = cx_cq_get(cx, lo & 0xffffff);
	uint32_t ci = hi & 0xffffff;

	if (!cq || !arm_checked(cx, cq, uar, hi))
		return;
	/* CQEs it is armed for may wait beyond ci already: then it fires. */
	m5m_arm_set(&cq->arm, hi & DB_SOLICITED, ci);
	fire_if_due(cx, cq);
}

static int create_cq(struct cx *cx, struct cx_cmd *c)
{
	const uint8_t *cqc = c->in + B_CQ_CONTEXT;
	uint32_t log_size = cx_get(cqc, F_CQC_LOG_CQ_SIZE);
	uint32_t lps = cx_get(cqc, F_CQC_LOG_PAGE_SIZE);
	uint32_t uar = cx_get(cqc, F_CQC_UAR_PAGE);
	uint32_t eqn = cx_get(cqc, F_CQC_C_EQN);
	uint32_t cqe_sz = cx_get(cqc, F_CQC_CQE_SZ);
	uint32_t off = cx_get(cqc, F_CQC_PAGE_OFFSET);
	uint64_t dbr = cx_get64(cqc, B_CQC_DBR_ADDR);
	struct cx_queue_geo geo = { .write = true };
	struct cx_cq *cq = NULL;
	unsigned int i;
	int st;

	st = cx_cmd_need(cx, c, B_CREATE_CQ_IN_PAS, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	/* No umem (DEVX), no CQE compression: the capabilities say none. */
	if (cx_get(c->in, F_CREATE_CQ_IN_CQ_UMEM_VALID) ||
	    cx_get(cqc, F_CQC_DBR_UMEM_VALID) || cx_get(cqc, F_CQC_CQE_COMP_EN))
		return CX_BAD_PARAM;
	if (log_size > LOG_MAX_CQ_SZ || cqe_sz > CQE_SZ_128 || lps > 20 ||
	    uar >= CX_MAX_UAR || !cx->uar_used[uar])
		return CX_BAD_PARAM;
	if (eqn >= CX_MAX_EQ || !cx->eq[eqn].valid)
		return CX_BAD_RES;
	/* The doorbell record: 8 aligned bytes of guest memory. */
	if (dbr % 8 || !cx_dma(cx, dbr, 8, true))
		return CX_BAD_PARAM;
	for (i = 1; i < CX_MAX_CQ && !cq; i++)
		if (!cx->cq[i].valid)
			cq = &cx->cq[i];
	if (!cq)
		return CX_NO_RES;
	memset(cq, 0, sizeof(*cq));
	/* Every page must be guest memory the device may write. */
	geo.bytes = (uint64_t)CQE_SIZE << cqe_sz << log_size;
	geo.lps = lps;
	geo.page_offset = off;
	st = cx_take_pas(cx, c, B_CREATE_CQ_IN_PAS, &geo, &cq->pas, &cq->npas);
	if (st)
		return st;
	cq->log_size = log_size;
	cq->log_page_size = lps;
	cq->page_offset = off;
	cq->cqe_sz = cqe_sz;
	cq->uar = uar;
	cq->eqn = eqn;
	cq->dbr = dbr;
	cq->oi = cx_get(cqc, F_CQC_OI);
	cq->cc = cx_get(cqc, F_CQC_CC);
	cq->period_mode = cx_get(cqc, F_CQC_CQ_PERIOD_MODE);
	memset(&cq->arm, 0, sizeof(cq->arm));
	cq->arm.mod_period = cx_get(cqc, F_CQC_CQ_PERIOD);
	cq->arm.mod_count = cx_get(cqc, F_CQC_CQ_MAX_COUNT);
	cq->arm.period_from_cqe = cq->period_mode == CQ_PERIOD_FROM_CQE;
	cq->arm.scqe_breaks = cx_get(cqc, F_CQC_SCQE_BREAK_MODERATION_EN);
	/* Not armed until the first arm doorbell: FIRED, to QUERY_CQ. */
	cq->arm.st = M5M_CQ_FIRED;
	cq->valid = true;
	cx_set(c->out, F_CQN, cq - cx->cq);
	return CX_OK;
}

static int query_cq(struct cx *cx, struct cx_cmd *c, struct cx_cq *cq)
{
	uint8_t *cqc = c->out + B_CQ_CONTEXT;
	uint32_t ci = 0;

	if (c->outlen < B_CQ_CONTEXT + 64)
		return CX_BAD_OUTP_LEN;
	dbr_ci(cx, cq, &ci);
	cx_set(cqc, F_CQC_STATUS, cq->overrun ? CQ_ERR_OVERRUN : 0);
	cx_set(cqc, F_CQC_CQE_SZ, cq->cqe_sz);
	cx_set(cqc, F_CQC_CC, cq->cc);
	cx_set(cqc, F_CQC_OI, cq->oi);
	cx_set(cqc, F_CQC_CQ_PERIOD_MODE, cq->period_mode);
	cx_set(cqc, F_CQC_ST,
	       m5m_arm_armed(&cq->arm) ? CX_CQ_ARMED : CX_CQ_FIRED);
	cx_set(cqc, F_CQC_PAGE_OFFSET, cq->page_offset);
	cx_set(cqc, F_CQC_LOG_CQ_SIZE, cq->log_size);
	cx_set(cqc, F_CQC_UAR_PAGE, cq->uar);
	cx_set(cqc, F_CQC_CQ_PERIOD, cq->arm.mod_period);
	cx_set(cqc, F_CQC_CQ_MAX_COUNT, cq->arm.mod_count);
	cx_set(cqc, F_CQC_C_EQN, cq->eqn);
	cx_set(cqc, F_CQC_LOG_PAGE_SIZE, cq->log_page_size);
	cx_set(cqc, F_CQC_LAST_NOTIFIED_INDEX, cq->arm.ev_pi & 0xffffff);
	cx_set(cqc, F_CQC_LAST_SOLICIT_INDEX, cq->arm.sol_pi & 0xffffff);
	cx_set(cqc, F_CQC_CONSUMER_COUNTER, ci);
	cx_set(cqc, F_CQC_PRODUCER_COUNTER, cq->pc);
	cx_set64(cqc, B_CQC_DBR_ADDR, cq->dbr);
	return CX_OK;
}

/*
 * MODIFY_CQ op_mod 1 (mlx5_ib_resize_cq()): the CQ moves to new pages of
 * a new size.  The device ends the old ring with a RESIZE CQE at the
 * producer counter (its owner bit that pass's), then writes from the next
 * counter on into the new ring: libmlx5 (mlx5_cq_resize_copy_cqes) copies
 * the CQEs it has not polled, from its consumer index up to that CQE,
 * into the new ring one slot further on and consumes the RESIZE CQE.
 * Refused (BAD_PARAM, EINVAL) when the unpolled CQEs and the RESIZE CQE
 * do not fit in the old or the new ring.
 */
static int resize_cq(struct cx *cx, struct cx_cmd *c, struct cx_cq *cq)
{
	const uint8_t *cqc = c->in + B_CQ_CONTEXT;
	uint32_t log_size = cx_get(cqc, F_CQC_LOG_CQ_SIZE);
	uint32_t lps = cx_get(cqc, F_CQC_LOG_PAGE_SIZE);
	uint32_t cqe_sz = cx_get(cqc, F_CQC_CQE_SZ);
	uint32_t off = cx_get(cqc, F_CQC_PAGE_OFFSET);
	struct cx_queue_geo geo = { .write = true };
	uint32_t ci, unpolled, npas;
	uint64_t *pas;
	uint8_t *slot;
	int st;

	if (cx_get(c->in, F_MODIFY_CQ_IN_FIELD_SELECT) != RESIZE_ALL ||
	    log_size > LOG_MAX_CQ_SZ || cqe_sz > CQE_SZ_128 || lps > 20)
		return CX_BAD_PARAM;
	if (!dbr_ci(cx, cq, &ci))
		return CX_BAD_PARAM;
	unpolled = (cq->pc - ci) & 0xffffff;
	if (unpolled >= 1u << cq->log_size || unpolled + 1 > 1u << log_size)
		return CX_BAD_PARAM;
	slot = cqe_at(cx, cq, cq->pc);
	if (!slot)
		return CX_BAD_PARAM;
	geo.bytes = (uint64_t)CQE_SIZE << cqe_sz << log_size;
	geo.lps = lps;
	geo.page_offset = off;
	st = cx_take_pas(cx, c, B_CREATE_CQ_IN_PAS, &geo, &pas, &npas);
	if (st)
		return st;
	memset(slot, 0, CQE_OWNER);
	__atomic_store_n(
		&slot[CQE_OWNER],
		(uint8_t)(CQE_RESIZE << 4 | (cq->pc >> cq->log_size & 1)),
		__ATOMIC_RELEASE);
	cq->pc = (cq->pc + 1) & 0xffffff;
	cq->arm.pi++; /* the RESIZE CQE takes a counter, and no event */
	free(cq->pas);
	cq->pas = pas;
	cq->npas = npas;
	cq->log_size = log_size;
	cq->log_page_size = lps;
	cq->page_offset = off;
	cq->cqe_sz = cqe_sz;
	return CX_OK;
}

/* op_mod 0: moderation and overrun-ignore; op_mod 1: resize_cq(). */
static int modify_cq(struct cx *cx, struct cx_cmd *c, struct cx_cq *cq)
{
	const uint8_t *cqc = c->in + B_CQ_CONTEXT;
	uint32_t sel = cx_get(c->in, F_MODIFY_CQ_IN_FIELD_SELECT);

	if (c->inlen < B_CQ_CONTEXT + 64)
		return CX_BAD_INP_LEN;
	if (cx_get(c->in, F_IN_OP_MOD) == OPMOD_RESIZE)
		return resize_cq(cx, c, cq);
	if (cx_get(c->in, F_IN_OP_MOD) != 0 ||
	    sel & ~(MODIFY_PERIOD | MODIFY_COUNT | MODIFY_OVERRUN))
		return CX_BAD_PARAM;
	if (sel & MODIFY_PERIOD)
		cq->arm.mod_period = cx_get(cqc, F_CQC_CQ_PERIOD);
	if (sel & MODIFY_COUNT)
		cq->arm.mod_count = cx_get(cqc, F_CQC_CQ_MAX_COUNT);
	if (sel & MODIFY_OVERRUN)
		cq->oi = cx_get(cqc, F_CQC_OI);
	return CX_OK;
}

int cx_cq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	struct cx_cq *cq;
	int st;

	if (opcode == CX_OP_CREATE_CQ)
		return create_cq(cx, c);
	st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	cq = cx_cq_get(cx, cx_get(c->in, F_CQN));
	if (!cq)
		return CX_BAD_RES;
	switch (opcode) {
	case CX_OP_DESTROY_CQ:
		free(cq->pas);
		memset(cq, 0, sizeof(*cq));
		return CX_OK;
	case CX_OP_QUERY_CQ:
		return query_cq(cx, c, cq);
	case CX_OP_MODIFY_CQ:
		return modify_cq(cx, c, cq);
	}
	return CX_BAD_OP;
}
