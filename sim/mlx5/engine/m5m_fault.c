// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Checking and fault injection: the violation report with its decoded dump
 * (WQE per 16-byte segment, CQE fields, this thread's seam events), strict
 * versus lenient mode, the fault counters, and a SIGPIPE-safe fd write.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "m5m_int.h"

struct m5m_log_ent {
	uint64_t seq;
	const char *what;
	const void *addr;
	uint64_t val;
};

/* The seam events of the calling thread, newest last. */
static __thread struct m5m_log_ent m5m_log[M5M_LOG_LEN];
static __thread unsigned int m5m_log_n;
static uint64_t m5m_log_seq;

void m5m_log_event(const char *what, const void *addr, uint64_t val)
{
	struct m5m_log_ent *e = &m5m_log[m5m_log_n++ % M5M_LOG_LEN];

	e->seq = __atomic_add_fetch(&m5m_log_seq, 1, __ATOMIC_RELAXED);
	e->what = what;
	e->addr = addr;
	e->val = val;
}

static void m5m_dump_log(void)
{
	unsigned int n = m5m_log_n < M5M_LOG_LEN ? m5m_log_n : M5M_LOG_LEN;
	unsigned int i;
	const struct m5m_log_ent *e;

	fprintf(stderr, "  seam events of this thread, oldest first:\n");
	for (i = m5m_log_n - n; i != m5m_log_n; i++) {
		e = &m5m_log[i % M5M_LOG_LEN];
		fprintf(stderr, "    #%-6llu %-22s %p 0x%llx\n",
			(unsigned long long)e->seq, e->what, e->addr,
			(unsigned long long)e->val);
	}
}

void m5m_dump_wqe(const struct m5m_wqe *w)
{
	unsigned int seg, i, nseg;

	fprintf(stderr,
		"  WQE idx 0x%04x opcode 0x%02x opmod %u qpn 0x%06x ds %u "
		"fm_ce_se 0x%02x imm 0x%08x\n",
		w->idx, w->opcode, w->opmod, w->qpn, w->ds, w->fm_ce_se,
		be32toh(w->imm));
	nseg = w->ds ? w->ds : 1;
	if (nseg > M5_MAX_DS)
		nseg = M5_MAX_DS;
	for (seg = 0; seg < nseg; seg++) {
		fprintf(stderr, "    seg %2u:", seg);
		for (i = 0; i < M5_DS_UNIT; i++)
			fprintf(stderr, " %02x", w->raw[seg * M5_DS_UNIT + i]);
		fprintf(stderr, "\n");
	}
}

void m5m_dump_cqe(const struct m5_cqe64 *c)
{
	const struct m5_err_cqe *e = (const void *)c;
	uint8_t op = c->op_own >> M5_CQE_OPCODE_SHIFT;

	fprintf(stderr,
		"  CQE opcode %u owner %u se %u format %u byte_cnt %u "
		"sop_drop_qpn 0x%08x wqe_counter 0x%04x srqn_uidx 0x%06x "
		"imm 0x%08x flags_rqpn 0x%08x slid %u",
		op, c->op_own & M5_CQE_OWNER_MASK,
		!!(c->op_own & M5_CQE_SE_MASK),
		(c->op_own & M5_CQE_FORMAT_MASK) >> M5_CQE_FORMAT_SHIFT,
		be32toh(c->byte_cnt), be32toh(c->sop_drop_qpn),
		be16toh(c->wqe_counter), be32toh(c->srqn_uidx) & 0xffffff,
		be32toh(c->imm_inval_pkey), be32toh(c->flags_rqpn),
		be16toh(c->slid));
	if (op == M5_CQE_REQ_ERR || op == M5_CQE_RESP_ERR)
		fprintf(stderr, " syndrome 0x%02x vendor 0x%02x", e->syndrome,
			e->vendor_err_synd);
	fprintf(stderr, "\n");
}

void m5m_violation(struct m5m_dev *dev, const struct m5m_dump *d,
		   const char *fmt, ...)
{
	va_list ap;

	dev->violations++;
	if (!dev->strict && dev->quiet)
		return;
	fprintf(stderr, "m5model[%u]: %s: ", dev->id,
		dev->strict ? "CHECK FAILED" : "violation");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (d && d->wqe)
		m5m_dump_wqe(d->wqe);
	if (d && d->cqe)
		m5m_dump_cqe(d->cqe);
	m5m_dump_log();
	if (dev->strict) {
		fprintf(stderr, "m5model: strict mode, aborting\n");
		abort();
	}
}

bool m5m_fault_take(struct m5m_dev *dev, enum m5m_fault f)
{
	if (!dev->fault[f])
		return false;
	dev->fault[f]--;
	return true;
}

int m5m_fd_write(int fd, const void *buf, size_t len)
{
	static const struct timespec zero;
	sigset_t pipe_set, old, pending;
	bool was_pending;
	ssize_t n;
	int err = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	/* A reader that closed must not kill the test with SIGPIPE. */
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	n = write(fd, buf, len);
	if (n < 0) {
		err = errno;
		if (err == EPIPE && !was_pending)
			sigtimedwait(&pipe_set, NULL, &zero);
	} else if ((size_t)n != len) {
		err = EIO;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}
