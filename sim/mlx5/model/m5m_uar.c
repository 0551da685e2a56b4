// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Seam 2, the device-memory side: every barrier and register store of
 * core/mmio.h (db_mmio_model_*) and every doorbell-record store and
 * BlueFlame copy of mlx5_seam.h (m5_seam_*) the backend makes lands here.  Addresses
 * are decoded to UAR/bfreg/CQ-doorbell or to the object owning a dbrec;
 * the order of events on each thread is checked against the protocol
 * (send: TO_DEVICE, SND dbrec, WC_START, MMIO/BF, WC_FLUSH; receive:
 * TO_DEVICE, RCV dbrec; arm: ARM dbrec, WC_START, MMIO at +0x20).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/mlx5_user_ioctl_verbs.h>

#include "m5m_front.h"

/* --- Doorbell-record registry --------------------------------------------- */

#define M5M_DBR_BUCKETS 1024

struct m5m_dbr {
	struct m5m_dbr *next;
	const __be32 *rec;
	int kind;
	void *obj;
};

static struct m5m_dbr *m5m_dbr_tab[M5M_DBR_BUCKETS];

static unsigned int m5m_dbr_hash(const void *p)
{
	return (unsigned int)(((uintptr_t)p >> 3) * 2654435761u) %
	       M5M_DBR_BUCKETS;
}

void m5m_dbrec_register(__be32 *rec, int kind, void *obj)
{
	struct m5m_dbr *d = calloc(1, sizeof(*d));
	unsigned int h = m5m_dbr_hash(rec);

	if (!d)
		return;
	d->rec = rec;
	d->kind = kind;
	d->obj = obj;
	d->next = m5m_dbr_tab[h];
	m5m_dbr_tab[h] = d;
}

void m5m_dbrec_unregister(__be32 *rec)
{
	struct m5m_dbr **pp, *d;

	for (pp = &m5m_dbr_tab[m5m_dbr_hash(rec)]; (d = *pp); pp = &d->next)
		if (d->rec == rec) {
			*pp = d->next;
			free(d);
			return;
		}
}

/* The record holding word p, and which word of it p is. */
static struct m5m_dbr *m5m_dbr_find(const __be32 *p, unsigned int *word)
{
	const __be32 *base = (const __be32 *)((uintptr_t)p & ~(uintptr_t)7);
	struct m5m_dbr *d;

	for (d = m5m_dbr_tab[m5m_dbr_hash(base)]; d; d = d->next)
		if (d->rec == base) {
			*word = (unsigned int)(p - base);
			return d;
		}
	return NULL;
}

/* --- UAR pages ------------------------------------------------------------ */

struct m5m_ctx *m5m_uar_owner(const void *addr, unsigned int *page, size_t *off,
			      struct m5m_uobj **uobj)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	struct m5m_dev *dev;
	struct m5m_uobj *u;
	struct m5m_ctx *c;
	unsigned int i;
	const uint8_t *a = addr, *p;

	*uobj = NULL;
	for (dev = m5m_devices(); dev; dev = dev->next)
		for (c = dev->ctxs; c; c = c->next) {
			for (u = c->uobjs; u; u = u->next) {
				p = u->page;
				if (u->maps && a >= p && a < p + psz) {
					*uobj = u;
					*page = u->page_id;
					*off = (size_t)(a - p);
					return c;
				}
			}
			for (i = 0; i < c->num_sys_pages; i++) {
				p = c->page[i];
				if (c->maps[i] && a >= p && a < p + psz) {
					*page = i;
					*off = (size_t)(a - p);
					return c;
				}
			}
		}
	return NULL;
}

/* --- Per-thread protocol state -------------------------------------------- */

enum m5m_seq {
	SEQ_IDLE,
	SEQ_TO_DEV,  /* a TO_DEVICE barrier was the last event */
	SEQ_SND,     /* SND dbrec stored */
	SEQ_SND_WCS, /* ... then WC_START */
	SEQ_DB,	     /* send doorbell written, WC_FLUSH due */
	SEQ_ARM,     /* ARM dbrec stored */
	SEQ_ARM_WCS, /* ... then WC_START */
};

static __thread enum m5m_seq m5m_seq;
static __thread void *m5m_seq_obj;
static __thread struct m5m_dev *m5m_seq_dev;

static void m5m_seq_set(enum m5m_seq s, void *obj, struct m5m_dev *dev)
{
	m5m_seq = s;
	m5m_seq_obj = obj;
	m5m_seq_dev = dev;
}

void m5m_seq_forget(struct m5m_dev *dev)
{
	if (m5m_seq_dev == dev)
		m5m_seq_set(SEQ_IDLE, NULL, NULL);
}

/* Any device, to report a problem no address pins to one. */
static struct m5m_dev *m5m_some_dev(void)
{
	return m5m_seq_dev ? m5m_seq_dev : m5m_devices();
}

/* Every event but WC_FLUSH after a send doorbell is a missing flush. */
static void m5m_seq_enter(bool flush)
{
	if (m5m_seq == SEQ_DB && !flush && m5m_seq_dev)
		m5m_violation(m5m_seq_dev, NULL,
			      "no WC_FLUSH barrier after the send doorbell");
	if (m5m_seq == SEQ_DB)
		m5m_seq = SEQ_IDLE;
}

void db_mmio_model_barrier(enum db_mmio_barrier b)
{
	static const char *const name[] = {
		[DB_BAR_TO_DEVICE] = "barrier TO_DEVICE",
		[DB_BAR_FROM_DEVICE] = "barrier FROM_DEVICE",
		[DB_BAR_WC_START] = "barrier WC_START",
		[DB_BAR_WC_FLUSH] = "barrier WC_FLUSH",
	};

	m5m_lock();
	m5m_log_event(b <= DB_BAR_WC_FLUSH ? name[b] : "barrier ?", NULL, b);
	m5m_step_all();
	m5m_seq_enter(b == DB_BAR_WC_FLUSH);
	switch (b) {
	case DB_BAR_TO_DEVICE:
		m5m_seq = SEQ_TO_DEV;
		break;
	case DB_BAR_WC_START:
		if (m5m_seq == SEQ_SND)
			m5m_seq = SEQ_SND_WCS;
		else if (m5m_seq == SEQ_ARM)
			m5m_seq = SEQ_ARM_WCS;
		else
			m5m_seq = SEQ_IDLE;
		break;
	case DB_BAR_WC_FLUSH:
		m5m_seq = SEQ_IDLE;
		break;
	default:
		/* FROM_DEVICE orders reads; it leaves the store protocol. */
		break;
	}
	m5m_unlock();
}

/* --- Doorbell records ----------------------------------------------------- */

/* The WQEs between the last SND dbrec and this one must be complete. */
static void m5m_snd_new_wqes(struct m5m_qp *qp, uint16_t val)
{
	struct m5m_dev *dev = qp->ctx->dev;
	const struct m5_ctrl_seg *c;
	uint16_t i = qp->snd_seen;
	uint32_t v, ds;

	m5m_check(dev, (uint16_t)(val - qp->sq_hw) <= qp->sq_bbs,
		  "QP 0x%x: SND dbrec 0x%04x is more than %u WQEBBs ahead "
		  "of the device (0x%04x): unread WQEs were overwritten",
		  qp->qpn, val, qp->sq_bbs, qp->sq_hw);
	while (i != val && (uint16_t)(val - i) <= qp->sq_bbs) {
		c = m5m_sq_slot(qp, i);
		v = be32toh(c->opmod_idx_opcode);
		ds = be32toh(c->qpn_ds) & 0x3f;
		if (!m5m_check(dev,
			       (uint16_t)(v >> 8) == i && ds &&
				       be32toh(c->qpn_ds) >> 8 == qp->qpn,
			       "QP 0x%x: WQE 0x%04x was not written before "
			       "the SND dbrec (ctrl 0x%08x 0x%08x)",
			       qp->qpn, i, v, be32toh(c->qpn_ds)))
			break;
		i += (uint16_t)((ds * M5_DS_UNIT + 63) / 64);
	}
	qp->snd_seen = val;
}

static void m5m_dbrec_qp(struct m5m_qp *qp, unsigned int word, __be32 val)
{
	struct m5m_dev *dev = qp->ctx->dev;

	/* Zeroing the records around a reset is outside the protocol. */
	if (qp->state == IBV_QPS_RESET) {
		if (word == M5_SND_DBR)
			qp->snd_seen = (uint16_t)be32toh(val);
		m5m_seq_set(SEQ_IDLE, NULL, dev);
		return;
	}
	m5m_check(dev, m5m_seq == SEQ_TO_DEV,
		  "QP 0x%x: %s dbrec store without a TO_DEVICE barrier "
		  "right before it",
		  qp->qpn, word == M5_SND_DBR ? "SND" : "RCV");
	if (word == M5_SND_DBR) {
		m5m_seq_set(SEQ_SND, qp, dev);
		m5m_snd_new_wqes(qp, (uint16_t)be32toh(val));
	} else {
		m5m_seq_set(SEQ_IDLE, NULL, dev);
		m5m_rq_posted(qp);
	}
}

static void m5m_dbrec_cq(struct m5m_cq *cq, unsigned int word, __be32 val)
{
	struct m5m_dev *dev = cq->dev;
	uint32_t v = be32toh(val) & M5_CQ_CI_MASK;

	if (word == M5_CQ_ARM_DB) {
		m5m_seq_set(SEQ_ARM, cq, dev);
		return;
	}
	m5m_check(dev, ((cq->arm.pi - v) & M5_CQ_CI_MASK) <= cq->ncqe,
		  "CQ 0x%x: consumer index 0x%x is ahead of producer 0x%x",
		  cq->cqn, v, cq->arm.pi & M5_CQ_CI_MASK);
	if (m5m_seq != SEQ_SND && m5m_seq != SEQ_SND_WCS)
		m5m_seq_set(SEQ_IDLE, NULL, dev);
}

/* For the seam log: what a dbrec store was. */
static const char *m5m_dbr_name(const struct m5m_dbr *d, unsigned int word)
{
	if (!d)
		return "dbrec (unknown)";
	switch (d->kind) {
	case M5M_DBR_QP:
		return word ? "dbrec QP SND" : "dbrec QP RCV";
	case M5M_DBR_CQ:
		return word ? "dbrec CQ ARM" : "dbrec CQ CI";
	default:
		return "dbrec SRQ";
	}
}

void m5_seam_dbrec(__be32 *rec, __be32 val)
{
	struct m5m_dbr *d;
	unsigned int word = 0;

	m5m_lock();
	d = m5m_dbr_find(rec, &word);
	m5m_log_event(m5m_dbr_name(d, word), rec, be32toh(val));
	m5m_step_all();
	m5m_seq_enter(false);
	/* One aligned 32-bit store, as the production seam does. */
	__atomic_store_n(rec, val, __ATOMIC_RELEASE);
	if (!d) {
		if (m5m_some_dev())
			m5m_violation(m5m_some_dev(), NULL,
				      "dbrec store to %p, which no object "
				      "registered",
				      (void *)rec);
		m5m_unlock();
		return;
	}
	switch (d->kind) {
	case M5M_DBR_QP:
		m5m_dbrec_qp(d->obj, word, val);
		break;
	case M5M_DBR_CQ:
		m5m_dbrec_cq(d->obj, word, val);
		break;
	default: {
		struct m5m_srq *srq = d->obj;

		m5m_check(srq->ctx->dev, word == 0 && m5m_seq == SEQ_TO_DEV,
			  "SRQ 0x%x: dbrec store without a TO_DEVICE "
			  "barrier right before it",
			  srq->srqn);
		m5m_seq_set(SEQ_IDLE, NULL, srq->ctx->dev);
		m5m_srq_posted(srq);
		break;
	}
	}
	m5m_unlock();
}

/* --- UAR writes ----------------------------------------------------------- */

static void m5m_cq_doorbell(struct m5m_ctx *c, const struct m5m_db *db,
			    uint64_t v)
{
	unsigned int uar = db->uar;
	struct m5m_dev *dev = c->dev;
	uint32_t hi = (uint32_t)(v >> 32);
	struct m5m_cq *cq = m5m_cq_find(dev, (uint32_t)v & 0xffffff);

	if (!m5m_check(dev, cq && cq->ctx == c,
		       "CQ doorbell for CQ 0x%x, not one of this context",
		       (uint32_t)v & 0xffffff))
		return;
	if (cq->uobj)
		m5m_check(dev, db->uobj == cq->uobj && uar == cq->uar_page,
			  "CQ 0x%x armed through UAR page 0x%x; it was "
			  "created on page 0x%x",
			  cq->cqn, uar, cq->uar_page);
	else
		m5m_check(dev, !db->uobj && uar == 0,
			  "CQ 0x%x armed through UAR %u; its UAR is 0", cq->cqn,
			  uar);
	m5m_check(dev, m5m_seq == SEQ_ARM_WCS && m5m_seq_obj == cq,
		  "CQ 0x%x arm doorbell without the ARM dbrec store and a "
		  "WC_START barrier before it",
		  cq->cqn);
	m5m_check(dev, be32toh(cq->dbrec[M5_CQ_ARM_DB]) == hi,
		  "CQ 0x%x: arm dbrec 0x%08x differs from the doorbell's "
		  "0x%08x",
		  cq->cqn, be32toh(cq->dbrec[M5_CQ_ARM_DB]), hi);
	m5m_seq_set(SEQ_IDLE, NULL, dev);
	m5m_cq_arm(cq, hi);
}

/*
 * Where a write landed: the context, its UAR (static: the index in the
 * context; dynamic: the device page id) and the offset in it.
 */
static struct m5m_ctx *m5m_uar_decode(const void *reg, struct m5m_db *db)
{
	struct m5m_ctx *c;
	unsigned int page;
	size_t off;

	c = m5m_uar_owner(reg, &page, &off, &db->uobj);
	if (!c) {
		if (m5m_some_dev())
			m5m_violation(m5m_some_dev(), NULL,
				      "UAR write to %p, which is no mapped UAR",
				      reg);
		return NULL;
	}
	db->sub = (unsigned int)(off / M5_UAR_SIZE);
	db->reg = (unsigned int)(off % M5_UAR_SIZE);
	if (db->uobj) {
		db->uar = page + db->sub;
		m5m_check(c->dev, !db->uobj->destroyed,
			  "write to UAR page 0x%x after it was destroyed",
			  db->uar);
	} else {
		db->uar = page * c->uars_per_page + db->sub;
	}
	return c;
}

static bool m5m_is_bfreg(const struct m5m_ctx *c, unsigned int r)
{
	if (r < M5_BF_OFFSET)
		return false;
	if (!c->bf_reg_size)
		return r == M5_BF_OFFSET;
	return r < M5_BF_OFFSET + M5_NON_FP_BFREGS_PER_UAR * c->bf_reg_size &&
	       (r - M5_BF_OFFSET) % (c->bf_reg_size / 2) == 0;
}

static void m5m_send_db(struct m5m_db *db)
{
	struct m5m_dev *dev = db->c->dev;
	uint32_t qpn = be32toh(*(const __be32 *)(db->bytes + 4)) >> 8;

	db->qp = m5m_qp_find(dev, qpn);
	if (!m5m_check(dev, db->qp && db->qp->ctx == db->c,
		       "send doorbell for QP 0x%x, not one of this context",
		       qpn))
		return;
	m5m_check(dev, m5m_seq == SEQ_SND_WCS && m5m_seq_obj == db->qp,
		  "QP 0x%x send doorbell without its SND dbrec store and a "
		  "WC_START barrier before it",
		  qpn);
	m5m_seq_set(SEQ_DB, db->qp, dev);
	m5m_send_doorbell(db);
}

void db_mmio_model_write64(void *reg, __be64 val)
{
	struct m5m_db db = { 0 };
	uint8_t bytes[8];

	m5m_lock();
	db.c = m5m_uar_decode(reg, &db);
	m5m_log_event(db.reg == M5_CQ_DOORBELL ? "mmio64 CQ arm"
					       : "mmio64 send",
		      reg, be64toh(val));
	m5m_step_all();
	m5m_seq_enter(false);
	if (!db.c)
		goto out;
	/* The UAR is model memory: keep what was written. */
	__atomic_store_n((uint64_t *)reg, (uint64_t)val, __ATOMIC_RELAXED);
	memcpy(bytes, &val, 8);
	if (db.reg == M5_CQ_DOORBELL) {
		m5m_cq_doorbell(db.c, &db, be64toh(val));
	} else if (m5m_is_bfreg(db.c, db.reg)) {
		db.bytes = bytes;
		db.len = 8;
		m5m_send_db(&db);
	} else {
		m5m_violation(db.c->dev, NULL,
			      "64-bit write at UAR %u offset 0x%x", db.uar,
			      db.reg);
	}
out:
	m5m_unlock();
}

void m5_seam_bf_copy(void *reg, const void *wqe, unsigned int len,
		     const void *sq_start, const void *sq_end)
{
	static uint8_t bytes[M5M_MAX_WQE_BYTES + 64];
	struct m5m_db db = { 0 };
	const uint8_t *src = wqe;
	unsigned int i;

	m5m_lock();
	m5m_log_event("bf_copy", reg, len);
	m5m_step_all();
	m5m_seq_enter(false);
	db.c = m5m_uar_decode(reg, &db);
	if (!db.c)
		goto out;
	if (!m5m_check(db.c->dev,
		       m5m_is_bfreg(db.c, db.reg) && db.c->bf_reg_size && len &&
			       !(len % M5_SEND_WQE_BB) &&
			       len <= db.c->bf_reg_size / 2,
		       "BlueFlame copy of %u bytes at UAR %u offset 0x%x", len,
		       db.uar, db.reg))
		goto out;
	m5m_check(db.c->dev,
		  !db.uobj || db.uobj->type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF,
		  "BlueFlame copy into non-cached UAR page 0x%x", db.uar);
	/* Ascending 64-byte chunks, the source wrapping at the SQ end. */
	for (i = 0; i < len; i += M5_SEND_WQE_BB) {
		memcpy(bytes + i, src, M5_SEND_WQE_BB);
		src += M5_SEND_WQE_BB;
		if ((const void *)src == sq_end)
			src = sq_start;
	}
	memcpy(reg, bytes, len);
	db.bytes = bytes;
	db.len = len;
	db.bf = true;
	db.src = wqe;
	db.sq_start = sq_start;
	db.sq_end = sq_end;
	m5m_send_db(&db);
out:
	m5m_unlock();
}

/* The backend writes no 32-bit register and copies only through bf_copy. */
void db_mmio_model_write32(void *reg, __be32 val)
{
	m5m_lock();
	if (m5m_some_dev())
		m5m_violation(m5m_some_dev(), NULL,
			      "32-bit register write of 0x%08x at %p",
			      be32toh(val), reg);
	m5m_unlock();
}

/* The backend reads only the internal timer (mlx5_clock.c). */
__be32 db_mmio_model_read32(const void *reg)
{
	__be32 val = 0;

	m5m_lock();
	if (!m5m_clock_word(reg, &val) && m5m_some_dev())
		m5m_violation(m5m_some_dev(), NULL,
			      "32-bit register read at %p outside the timer",
			      reg);
	m5m_unlock();
	return val;
}

void db_mmio_model_memcpy_x64(void *reg, const void *src, size_t len)
{
	(void)src;
	m5m_lock();
	if (m5m_some_dev())
		m5m_violation(m5m_some_dev(), NULL,
			      "%zu-byte register copy at %p outside the "
			      "BlueFlame path",
			      len, reg);
	m5m_unlock();
}
