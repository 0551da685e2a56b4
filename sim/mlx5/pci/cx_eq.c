// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event queues.  CREATE_EQ gives a ring of 64-byte EQEs in guest pages, the
 * event types it takes (a 256-bit mask), a UAR for its doorbell and an
 * MSI-X vector, which several EQs may share.  An EQ is ARMED by a write of
 * (eqn << 24 | consumer counter) to its UAR at 0x40 (0x48 only moves the
 * consumer counter).  Posting an EQE to an armed EQ signals the vector
 * once and leaves the EQ FIRED: no further interrupt until the driver arms
 * it again; arming with EQEs beyond the consumer counter fires at once.
 * The owner bit of the EQE at producer counter pc is (pc >> log_size) & 1:
 * the driver initialises every EQE's owner to 1, so the first pass writes 0.
 */
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"

enum {
	EQE_SIZE = 64,
	EQE_TYPE = 1,
	EQE_SUB_TYPE = 3,
	EQE_DATA = 0x20,
	EQE_DATA_LEN = 28,
	EQE_OWNER = 63,
	EQ_ARM = 0x40,
	LOG_MAX_EQ_SZ = 13, /* cx_caps.c log_max_eq_sz */
};

void cx_eq_reset(struct cx *cx)
{
	memset(cx->eq, 0, sizeof(cx->eq));
}

static uint8_t *eqe_at(struct cx *cx, struct cx_eq *eq, uint32_t pc)
{
	uint64_t pagesz = (uint64_t)CX_PAGE << eq->log_page_size;
	uint64_t off = (uint64_t)(pc & ((1u << eq->log_size) - 1)) * EQE_SIZE +
		       eq->page_offset * EQE_SIZE;

	return cx_dma(cx, eq->pas[off / pagesz] + off % pagesz, EQE_SIZE, true);
}

static void fire(struct cx *cx, struct cx_eq *eq)
{
	eq->armed = false;
	cx->host.irq(cx->host.ctx, eq->intr);
}

/* The EQ whose event mask takes TYPE (the first one), or NULL. */
static struct cx_eq *eq_for(struct cx *cx, uint8_t type)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_EQ; i++)
		if (cx->eq[i].valid &&
		    cx->eq[i].mask[type / 64] >> (type % 64) & 1)
			return &cx->eq[i];
	return NULL;
}

bool cx_eq_takes(struct cx *cx, uint8_t type)
{
	return eq_for(cx, type) != NULL;
}

static bool post(struct cx *cx, struct cx_eq *eq, uint8_t type,
		 uint8_t sub_type, const void *data, unsigned int len)
{
	uint8_t *eqe;

	/* A full EQ (overrun) drops the event: nothing is overwritten. */
	if (((eq->pc - eq->ci) & 0xffffff) >= 1u << eq->log_size)
		return false;
	eqe = eqe_at(cx, eq, eq->pc);
	if (!eqe)
		return false;
	memset(eqe, 0, EQE_OWNER);
	eqe[EQE_TYPE] = type;
	eqe[EQE_SUB_TYPE] = sub_type;
	memcpy(eqe + EQE_DATA, data, len < EQE_DATA_LEN ? len : EQE_DATA_LEN);
	/* Release: the EQE body is visible before its owner bit flips. */
	__atomic_store_n(&eqe[EQE_OWNER], (uint8_t)(eq->pc >> eq->log_size & 1),
			 __ATOMIC_RELEASE);
	eq->pc = (eq->pc + 1) & 0xffffff;
	if (eq->armed)
		fire(cx, eq);
	return true;
}

bool cx_eq_post(struct cx *cx, uint8_t type, uint8_t sub_type, const void *data,
		unsigned int len)
{
	struct cx_eq *eq = eq_for(cx, type);

	return eq && post(cx, eq, type, sub_type, data, len);
}

bool cx_eq_post_to(struct cx *cx, uint32_t eqn, uint8_t type, uint8_t sub_type,
		   const void *data, unsigned int len)
{
	if (eqn >= CX_MAX_EQ || !cx->eq[eqn].valid)
		return false;
	return post(cx, &cx->eq[eqn], type, sub_type, data, len);
}

void cx_eq_doorbell(struct cx *cx, uint32_t uar, uint32_t off, uint32_t val)
{
	uint32_t eqn = val >> 24;
	struct cx_eq *eq;

	if (eqn >= CX_MAX_EQ || !cx->eq[eqn].valid || cx->eq[eqn].uar != uar)
		return;
	eq = &cx->eq[eqn];
	eq->ci = val & 0xffffff;
	if (off != EQ_ARM)
		return;
	eq->armed = true;
	if (eq->pc != eq->ci)
		fire(cx, eq);
}

static int create_eq(struct cx *cx, struct cx_cmd *c)
{
	int st;
	const uint8_t *eqc = c->in + B_CREATE_EQ_IN_EQ_CONTEXT_ENTRY;
	struct cx_eq *eq = NULL;
	uint32_t log_size = cx_get(eqc, F_EQC_LOG_EQ_SIZE);
	uint32_t lps = cx_get(eqc, F_EQC_LOG_PAGE_SIZE);
	uint32_t uar = cx_get(eqc, F_EQC_UAR_PAGE);
	uint32_t intr = cx_get(eqc, F_EQC_INTR);
	uint32_t off = cx_get(eqc, F_EQC_PAGE_OFFSET);
	uint64_t bytes, pagesz;
	unsigned int i, npas;

	st = cx_cmd_need(cx, c, B_CREATE_EQ_IN_PAS, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	for (i = 0; i < CX_MAX_EQ && !eq; i++)
		if (!cx->eq[i].valid)
			eq = &cx->eq[i];
	if (!eq)
		return CX_NO_RES;
	if (log_size > LOG_MAX_EQ_SZ || lps > 20 || intr >= cx->host.vectors ||
	    uar >= CX_MAX_UAR || !cx->uar_used[uar])
		return CX_BAD_PARAM;
	pagesz = (uint64_t)CX_PAGE << lps;
	bytes = ((uint64_t)off + (1u << log_size)) * EQE_SIZE;
	npas = (bytes + pagesz - 1) / pagesz;
	if (npas > CX_EQ_MAX_PAS)
		return CX_BAD_PARAM;
	if (c->inlen < B_CREATE_EQ_IN_PAS + npas * 8)
		return CX_BAD_INP_LEN;
	memset(eq, 0, sizeof(*eq));
	for (i = 0; i < npas; i++) {
		eq->pas[i] = cx_get64(c->in, B_CREATE_EQ_IN_PAS + i * 8);
		/* Every page must be guest memory the device may write. */
		if (eq->pas[i] % pagesz ||
		    !cx_dma(cx, eq->pas[i], pagesz, true))
			return CX_BAD_PARAM;
	}
	for (i = 0; i < 4; i++)
		eq->mask[i] =
			cx_get64(c->in, B_CREATE_EQ_IN_EVENT_BITMASK + i * 8);
	eq->eqn = eq - cx->eq;
	eq->npas = npas;
	eq->log_size = log_size;
	eq->log_page_size = lps;
	eq->page_offset = off;
	eq->uar = uar;
	eq->intr = intr;
	eq->pc = cx_get(eqc, F_EQC_PRODUCER_COUNTER);
	eq->ci = cx_get(eqc, F_EQC_CONSUMER_COUNTER);
	eq->armed = false; /* mlx5_core arms it right after CREATE_EQ */
	eq->valid = true;
	cx_set(c->out, F_CREATE_EQ_OUT_EQ_NUMBER, eq->eqn);
	return CX_OK;
}

int cx_eq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	int st;
	uint32_t eqn;

	if (opcode == CX_OP_CREATE_EQ)
		return create_eq(cx, c);
	st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	eqn = cx_get(c->in, F_DESTROY_EQ_IN_EQ_NUMBER);
	if (eqn >= CX_MAX_EQ || !cx->eq[eqn].valid)
		return CX_BAD_RES;
	memset(&cx->eq[eqn], 0, sizeof(cx->eq[eqn]));
	return CX_OK;
}
