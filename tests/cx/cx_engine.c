// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The model's WQE/CQE engine on guest memory (cx_engine.h): the seam's
 * answers (m5m_eng.h) for a ConnectX PCI function.  Every address the
 * engine gets is checked against guest memory first; a key, page or
 * range that does not translate is an error the engine turns into its
 * syndrome, never an access outside the buffer.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cx_engine.h"

#define cxe_of(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))

void *cxe_gpa(const struct cxe *e, uint64_t gpa, uint64_t len)
{
	if (gpa > e->mem_len || len > e->mem_len - gpa)
		return NULL;
	return e->mem + gpa;
}

/* Byte off of a buffer on pages pas: host address, *run bytes in its page. */
static uint8_t *cxe_pages(const struct cxe *e, const uint64_t *pas,
			  unsigned int npages, uint64_t off, uint64_t *run)
{
	uint64_t in = off % CXE_PAGE;

	if (off / CXE_PAGE >= npages)
		return NULL;
	*run = CXE_PAGE - in;
	return cxe_gpa(e, pas[off / CXE_PAGE] + in, *run);
}

static const struct cxe_mkey *cxe_mkey_find(const struct cxe *e, uint32_t key)
{
	unsigned int i;

	for (i = 0; i < CXE_MAX_OBJS; i++)
		if (e->mkeys[i] && e->mkeys[i]->key == key)
			return e->mkeys[i];
	return NULL;
}

static int cxe_xlate(void *arg, const struct m5m_pd *pd, uint32_t key,
		     uint64_t addr, uint64_t len, int access, uint8_t **host,
		     uint64_t *run)
{
	const struct cxe *e = arg;
	const struct cxe_mkey *mk = cxe_mkey_find(e, key);
	uint64_t off, pg;

	if (!mk || mk->pdn != pd->pdn || (mk->access & access) != access ||
	    addr < mk->iova || len > mk->len || addr - mk->iova > mk->len - len)
		return -1;
	off = addr - mk->iova + mk->iova % CXE_PAGE;
	/* A page past the table or outside guest memory: no translation
	 * (all of the range's pages, so that a failed check copies nothing). */
	if ((off + len + CXE_PAGE - 1) / CXE_PAGE > mk->npages)
		return -1;
	for (pg = off / CXE_PAGE; pg * CXE_PAGE < off + len; pg++)
		if (!cxe_gpa(e, mk->mtt[pg], CXE_PAGE))
			return -1;
	*host = cxe_pages(e, mk->mtt, mk->npages, off, run);
	if (!*host)
		return -1;
	if (*run > len)
		*run = len;
	return 0;
}

static uint8_t *cxe_qp_buf(void *arg, const struct m5m_qp *m, size_t off)
{
	const struct cxe_qp *qp = cxe_of(m, struct cxe_qp, m);
	uint64_t run;

	return cxe_pages(arg, qp->pas, qp->npages, off, &run);
}

static uint8_t *cxe_srq_buf(void *arg, const struct m5m_srq *srq, size_t off)
{
	(void)arg;
	(void)srq;
	(void)off;
	return NULL; /* no SRQ yet */
}

/* The CQE at the producer index, body first, op_own with its owner bit. */
static void cxe_cqe(void *arg, struct m5m_cq *m, const struct m5_cqe64 *cqe,
		    bool sol)
{
	struct cxe_cq *cq = cxe_of(m, struct cxe_cq, m);
	uint64_t run;
	uint8_t *dst;

	(void)sol;
	dst = cxe_pages(arg, cq->pas, cq->npages,
			(uint64_t)(cq->pi & (cq->ncqe - 1)) * M5_CQE_SIZE,
			&run);
	if (!dst)
		return;
	memcpy(dst, cqe, M5_CQE_SIZE - 1);
	__atomic_store_n(&dst[M5_CQE_SIZE - 1],
			 (uint8_t)((cqe->op_own & ~M5_CQE_OWNER_MASK) |
				   !!(cq->pi & cq->ncqe)),
			 __ATOMIC_RELEASE);
	cq->pi++;
}

static void cxe_event(void *arg, uint8_t type, uint32_t num, uint8_t res_type)
{
	struct cxe *e = arg;

	(void)num;
	(void)res_type;
	e->events++;
	e->last_event = type;
}

static struct m5m_qp *cxe_qp_find(void *arg, uint32_t qpn)
{
	struct cxe *e = arg;
	unsigned int i;

	for (i = 0; i < CXE_MAX_OBJS; i++)
		if (e->qps[i] && e->qps[i]->m.qpn == qpn)
			return &e->qps[i]->m;
	return NULL;
}

static const struct m5m_eng_ops cxe_ops = {
	.xlate = cxe_xlate,
	.qp_buf = cxe_qp_buf,
	.srq_buf = cxe_srq_buf,
	.cqe = cxe_cqe,
	.event = cxe_event,
	.qp_find = cxe_qp_find,
};

int cxe_init(struct cxe *e, uint8_t *mem, uint64_t mem_len)
{
	struct m5m_config cfg;

	memset(e, 0, sizeof(*e));
	m5m_config_default(&cfg);
	/* Bad guest input is counted, never fatal. */
	cfg.strict = false;
	e->dev = m5m_dev_create(&cfg);
	if (!e->dev)
		return -1;
	m5m_set_quiet(e->dev, true);
	m5m_eng_set_ops(e->dev, &cxe_ops, e);
	e->mem = mem;
	e->mem_len = mem_len;
	return 0;
}

void cxe_fini(struct cxe *e)
{
	m5m_dev_destroy(e->dev);
	e->dev = NULL;
}

int cxe_mkey_add(struct cxe *e, const struct cxe_mkey *mk)
{
	unsigned int i;

	for (i = 0; i < CXE_MAX_OBJS; i++) {
		if (!e->mkeys[i]) {
			e->mkeys[i] = mk;
			return 0;
		}
	}
	return -1;
}

void cxe_cq_init(struct cxe *e, struct cxe_cq *cq, uint32_t ncqe,
		 const uint64_t *pas, unsigned int npages)
{
	memset(cq, 0, sizeof(*cq));
	cq->m.dev = e->dev;
	cq->ncqe = ncqe;
	cq->pas = pas;
	cq->npages = npages;
}

static struct m5m_pd *cxe_pd(struct cxe *e, uint32_t pdn)
{
	unsigned int i;

	for (i = 0; i < e->npds; i++)
		if (e->pds[i].pdn == pdn)
			return &e->pds[i];
	if (e->npds == CXE_MAX_OBJS)
		return NULL;
	e->pds[e->npds].pdn = pdn;
	e->pds[e->npds].dev = e->dev;
	return &e->pds[e->npds++];
}

/* Every page inside guest memory, and enough of them for len bytes. */
static bool cxe_pas_ok(const struct cxe *e, const uint64_t *pas,
		       unsigned int npages, uint64_t len)
{
	unsigned int i;

	if ((len + CXE_PAGE - 1) / CXE_PAGE > npages)
		return false;
	for (i = 0; i < npages; i++)
		if (!cxe_gpa(e, pas[i], CXE_PAGE))
			return false;
	return true;
}

struct cxe_qp *cxe_qp_create(struct cxe *e, const struct cxe_qp_attr *a)
{
	uint64_t len = ((uint64_t)a->rq_cnt << a->rq_shift) +
		       (uint64_t)a->sq_bbs * M5_SEND_WQE_BB;
	struct cxe_qp *qp;
	unsigned int i;

	for (i = 0; i < CXE_MAX_OBJS && e->qps[i]; i++)
		;
	/* The engine reads WQEs wherever the page list says: check it now. */
	if (i == CXE_MAX_OBJS || !cxe_gpa(e, a->dbr, 8) ||
	    !cxe_pas_ok(e, a->pas, a->npages, len))
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->m.qpn = a->qpn;
	qp->m.dev = e->dev;
	qp->m.pd = cxe_pd(e, a->pdn);
	qp->m.type = a->type;
	qp->m.state = IBV_QPS_RESET;
	qp->m.scq = &a->scq->m;
	qp->m.rcq = &a->rcq->m;
	qp->m.dbrec = cxe_gpa(e, a->dbr, 8);
	qp->m.rq_cnt = a->rq_cnt;
	qp->m.rq_shift = a->rq_cnt ? a->rq_shift : 0;
	qp->m.sq_bbs = a->sq_bbs;
	qp->m.uidx = 0xffffff;
	qp->m.port = 1;
	qp->pas = a->pas;
	qp->npages = a->npages;
	if (!qp->m.pd) {
		free(qp);
		return NULL;
	}
	e->qps[i] = qp;
	return qp;
}

void cxe_qp_destroy(struct cxe *e, struct cxe_qp *qp)
{
	unsigned int i;

	for (i = 0; i < CXE_MAX_OBJS; i++)
		if (e->qps[i] == qp)
			e->qps[i] = NULL;
	free(qp);
}

void cxe_qp_rts(struct cxe_qp *qp, uint32_t dest_qpn, uint32_t qkey, int access)
{
	qp->m.dest_qpn = dest_qpn;
	qp->m.qkey = qkey;
	qp->m.access = access;
	qp->m.rnr_retry = 7;
	qp->m.state = IBV_QPS_RTS;
}

void cxe_sq_doorbell(struct cxe *e, struct cxe_qp *qp)
{
	(void)e;
	m5m_lock();
	qp->m.db_pi = m5m_snd_dbrec(&qp->m);
	m5m_sq_run(&qp->m);
	m5m_unlock();
}
