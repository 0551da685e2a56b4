// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_mlx5_cqe: the fuzzer plays a ConnectX and writes 64-byte CQEs into
 * the CQ of a fake mlx5 context (tests/lib/m5_fake.c) with up to four RC
 * and UD QPs, some on an SRQ, some with a CQ other than the one polled.
 * WRs are posted with the production m5_post_send, m5_post_recv and
 * m5_post_srq_recv; the CQ is polled with m5_poll_cq (nwc -2 to 17) and
 * with start/next/end_poll as m5_cq_set_ex_ops installs them (the ops
 * m5_create_cq_ex gives a CQ; creating one needs the kernel); a QP can be
 * destroyed (m5_cq_clean, user index freed, its memory freed).
 *
 * A sane device writes only the next slot, with the owner parity of its
 * pass, when the CI doorbell record says there is room, and completes what
 * is outstanding: the SQ's signaled WRs in order (wqe_counter of the WQE's
 * first WQEBB), the RQ in order, SRQ WQEs in any order (wqe_counter the
 * WQE index), with successes and error syndromes.  An insane device writes
 * anything anywhere in the ring: raw bytes, owner bits, opcodes, formats,
 * syndromes, unknown user indexes, the SRQ's, wqe_counters of stale or
 * never-posted WQEs.
 *
 * Checked (FZ_ASSERT, and ASan: the ring, each wc array, every queue, wrid
 * and wqe_head array are allocated at their exact size, and a destroyed
 * QP's memory is freed):
 * - poll_cq returns min(nwc, CQEs software owns), and the consumer index
 *   moves by exactly the number handed out (poll_cq, start/next_poll), the
 *   CI doorbell record equals it (24 bits) after every call that consumed
 *   (end_poll always); a poll writes nothing into the ring;
 * - every wc is IBV_WC_GENERAL_ERR or names a WR that was outstanding on
 *   the queue of the QP its CQE names (SQ for a requester CQE, RQ or SRQ
 *   for a responder one), a QP that uses this CQ for it; not retired
 *   before, named by no other wc; SQ and RQ WRs are named in order;
 * - SQ and RQ tails only move forward, never past their heads, and every
 *   WR a wc named is behind the tail afterwards; the SRQ free list is a
 *   list from head to tail, no WQE twice, every WQE on it once it is free,
 *   no outstanding WQE on it, and only outstanding WQEs are added to it;
 * - m5_cq_clean removes exactly the CQEs of the QP, keeps the others in
 *   order and software-owned, moves the consumer index by what it removed;
 * - the CQ, SQ, RQ and SRQ locks are free after each call, and the CQ lock
 *   is held between start_poll and end_poll;
 * - sane device: every CQE comes out once, in the order written, as the
 *   wc the device meant (wr_id, status, opcode, lengths, flags, immediate,
 *   source); at the end the device completes everything outstanding and
 *   every signaled SQ WR and every RQ and SRQ WR has come out exactly
 *   once, unsignaled ones were retired silently, the SRQ is whole again.
 *
 * Input, consumed from the front (tests/fuzz/make-seeds.py writes seeds):
 * mode (bit 0 sane, bit 1 CQ lock, bit 2 QP locks), CQ size, consumer
 * index start, SRQ, QP count, per QP three bytes (and a start index), then
 * operations until the input ends; see setup() and run_op().
 */
#include <errno.h>

#include "fuzz.h"
#include "m5_fake.h"

#define FZ_MAX_QPS   4
#define FZ_MAX_POSTS 160 /* WRs recorded per queue; later posts are skipped */
#define FZ_MAX_OPS   160
#define FZ_MAX_NCQE  256
#define FZ_SRQ_OWNER 7
#define FZ_WRID_TAG  0xdb5ull

/* -DFZ_M5_TRACE: print what happens, to read a crash input. */
#ifdef FZ_M5_TRACE
#define TRACE(...) fprintf(stderr, __VA_ARGS__)
#else
#define TRACE(...) ((void)0)
#endif

enum { Q_SQ, Q_RQ, Q_SRQ };

/* A posted WR as the harness saw it go in. */
struct rec {
	uint32_t idx;	/* SQ, RQ: WR index (head); SRQ: WQE index */
	uint32_t bb;	/* SQ: counter of the WQE's first WQEBB */
	uint32_t len;	/* bytes in its SGEs */
	uint8_t opcode; /* SQ: IBV_WR_* */
	bool signaled;	/* SQ */
	bool dev;	/* the sane device wrote its CQE */
	bool retired;	/* the backend gave it back (tail, free list) */
	bool reported;	/* a wc other than GENERAL_ERR named it */
	bool cleaned;	/* its CQE was removed by m5_cq_clean */
};

struct fq {
	struct rec rec[FZ_MAX_POSTS];
	uint32_t n;    /* records */
	uint32_t base; /* SQ, RQ: WR index of rec[0] */
	uint32_t dev;  /* SQ, RQ: the sane device's next record */
};

struct fqp {
	struct m5_qp *qp; /* NULL once destroyed */
	void *sq_buf, *rq_buf;
	uint64_t *sq_wrid, *rq_wrid;
	uint32_t *sq_head;
	__be32 *dbrec;
	uint32_t uidx, qpn;
	bool srq, send_main, recv_main;
	struct fq sq, rq;
};

/* A CQE the sane device wrote: the wc it must become. */
struct exp {
	struct ibv_wc wc;
	uint32_t uidx;
	uint8_t owner, q;
	uint16_t k;
};

struct st {
	bool sane;
	uint32_t ncqe;
	struct m5_cq *cq, *other;
	__be32 *cq_db, *other_db;
	uint8_t *snap;	/* the ring as the last device write left it */
	uint32_t dprod; /* sane device: index of the next CQE */
	unsigned int nqp;
	struct fqp q[FZ_MAX_QPS];
	struct m5_srq *srq;
	__be32 *srq_db;
	uint64_t *srq_wrid;
	struct fq srqq;
	int16_t srq_cur[16]; /* WQE -> record, -1 when free */
	uint8_t srq_free[16];
	struct m5_ah ah;
	struct exp exp[FZ_MAX_NCQE];
	uint32_t exp_first, exp_n;
	uint8_t inl[1024]; /* inline payloads are copied from here */
};

/* Per poll call: where the queues stood when it began. */
struct pre {
	uint32_t ci, db;
	uint32_t sq_t[FZ_MAX_QPS], rq_t[FZ_MAX_QPS];
	uint32_t sq_next[FZ_MAX_QPS], rq_next[FZ_MAX_QPS];
	uint8_t srq_free[16];
	unsigned int nnamed;
	struct rec *named[2 * FZ_MAX_NCQE + 64];
};

static struct {
	struct m5_context ctx;
	struct ibv_pd pd; /* of every QP and of the UD AH */
	uint8_t *uar;
} g;

static struct st S;

/* --- Small helpers ------------------------------------------------------ */

static uint64_t mk_wrid(unsigned int owner, unsigned int q, uint32_t k)
{
	return FZ_WRID_TAG << 52 | (uint64_t)owner << 44 | (uint64_t)q << 40 |
	       k;
}

static struct fq *fq_of(struct st *s, unsigned int owner, unsigned int q)
{
	if (owner == FZ_SRQ_OWNER && q == Q_SRQ)
		return s->srq ? &s->srqq : NULL;
	if (owner >= s->nqp || q > Q_RQ)
		return NULL;
	return q == Q_SQ ? &s->q[owner].sq : &s->q[owner].rq;
}

static struct m5_cqe64 *cqe_at(struct st *s, uint32_t n)
{
	return (struct m5_cqe64 *)s->cq->buf + (n & (s->ncqe - 1));
}

/* Our own reading of ownership: opcode not INVALID, owner bit = parity. */
static bool sw_owned(struct st *s, uint32_t n)
{
	uint8_t own = cqe_at(s, n)->op_own;

	return (own >> 4) != M5_CQE_INVALID && (own & 1) == !!(n & s->ncqe);
}

static uint32_t sw_run(struct st *s, uint32_t from)
{
	uint32_t k = 0;

	while (k < s->ncqe && sw_owned(s, from + k))
		k++;
	return k;
}

static void snap(struct st *s)
{
	memcpy(s->snap, s->cq->buf, (size_t)s->ncqe * M5_CQE_SIZE);
}

static uint32_t ci_db(__be32 *db)
{
	return be32toh(db[M5_CQ_SET_CI]);
}

static struct m5_srq_next_seg *srq_wqe(struct st *s, uint32_t i)
{
	return (struct m5_srq_next_seg *)((char *)s->srq->wq.buf +
					  ((size_t)i << s->srq->wq.wqe_shift));
}

/* The SRQ free list from head to tail: a list, each WQE at most once. */
static unsigned int srq_walk(struct st *s, uint8_t *on)
{
	struct m5_wq *wq = &s->srq->wq;
	uint32_t cnt = wq->wqe_cnt, i = wq->head, n = 0;
	uint32_t tail = atomic_load(&wq->tail);

	memset(on, 0, cnt);
	for (;;) {
		FZ_ASSERT(i < cnt, "SRQ free list reaches WQE %u of %u", i,
			  cnt);
		FZ_ASSERT(!on[i], "SRQ free list passes WQE %u twice", i);
		on[i] = 1;
		n++;
		if (i == tail)
			return n;
		i = be16toh(srq_wqe(s, i)->next_wqe_index);
	}
}

static bool locks_free(struct st *s)
{
	unsigned int i;

	if (!fz_lock_free(&s->cq->lock) || !fz_lock_free(&s->other->lock))
		return false;
	if (s->srq && !fz_lock_free(&s->srq->wq.lock))
		return false;
	for (i = 0; i < s->nqp; i++)
		if (s->q[i].qp && (!fz_lock_free(&s->q[i].qp->sq.lock) ||
				   !fz_lock_free(&s->q[i].qp->rq.lock)))
			return false;
	return true;
}

/* --- The poll checks ------------------------------------------------------ */

static void pre_call(struct st *s, struct pre *p)
{
	unsigned int i;

	p->ci = s->cq->cons_index;
	p->db = ci_db(s->cq_db);
	p->nnamed = 0;
	for (i = 0; i < s->nqp; i++) {
		if (!s->q[i].qp)
			continue;
		p->sq_t[i] = p->sq_next[i] = atomic_load(&s->q[i].qp->sq.tail);
		p->rq_t[i] = p->rq_next[i] = atomic_load(&s->q[i].qp->rq.tail);
	}
	if (s->srq)
		memcpy(p->srq_free, s->srq_free, sizeof(p->srq_free));
	snap(s);
}

/* A wc the sane device meant: compare with what it wrote, in order. */
static void check_expected(struct st *s, const struct ibv_wc *wc)
{
	const struct exp *e;
	const struct ibv_wc *w;

	FZ_ASSERT(s->exp_n, "wc %#llx (status %d) from a CQE nobody wrote",
		  (unsigned long long)wc->wr_id, wc->status);
	e = &s->exp[s->exp_first];
	w = &e->wc;
	FZ_ASSERT(wc->wr_id == w->wr_id && wc->status == w->status &&
			  wc->qp_num == w->qp_num,
		  "wc wr_id %#llx status %d qp %#x, device wrote %#llx %d %#x",
		  (unsigned long long)wc->wr_id, wc->status, wc->qp_num,
		  (unsigned long long)w->wr_id, w->status, w->qp_num);
	FZ_ASSERT(wc->opcode == w->opcode && wc->byte_len == w->byte_len &&
			  wc->wc_flags == w->wc_flags &&
			  wc->vendor_err == w->vendor_err,
		  "wc %#llx: opcode %d len %u flags %#x vendor %#x, expected "
		  "%d %u %#x %#x",
		  (unsigned long long)wc->wr_id, wc->opcode, wc->byte_len,
		  wc->wc_flags, wc->vendor_err, w->opcode, w->byte_len,
		  w->wc_flags, w->vendor_err);
	if (w->opcode & IBV_WC_RECV && w->status == IBV_WC_SUCCESS)
		FZ_ASSERT(wc->imm_data == w->imm_data &&
				  wc->src_qp == w->src_qp && wc->sl == w->sl &&
				  wc->slid == w->slid &&
				  wc->dlid_path_bits == w->dlid_path_bits,
			  "receive wc %#llx: imm/src_qp/sl/slid/path bits",
			  (unsigned long long)wc->wr_id);
	s->exp_first = (s->exp_first + 1) % FZ_MAX_NCQE;
	s->exp_n--;
}

/* The live QP whose user index a CQE carries, or -1. */
static int qp_of_cqe(struct st *s, const struct m5_cqe64 *cqe)
{
	uint32_t u = be32toh(cqe->srqn_uidx) & 0xffffff;
	unsigned int i;

	for (i = 0; i < s->nqp; i++)
		if (s->q[i].qp && s->q[i].uidx == u)
			return i;
	return -1;
}

/* A wc, and the CQE it was made of. */
static void check_wc(struct st *s, struct pre *p, const struct ibv_wc *wc,
		     const struct m5_cqe64 *cqe)
{
	unsigned int owner = (wc->wr_id >> 44) & 0xff,
		     q = (wc->wr_id >> 40) & 15;
	uint32_t k = wc->wr_id & 0xffffffffffull;
	uint8_t opcode = cqe->op_own >> M5_CQE_OPCODE_SHIFT;
	int qi = qp_of_cqe(s, cqe);
	struct fq *f;
	struct rec *r;

	if (s->sane)
		check_expected(s, wc);
	if (wc->status == IBV_WC_GENERAL_ERR)
		return;
	f = fq_of(s, owner, q);
	FZ_ASSERT(wc->wr_id >> 52 == FZ_WRID_TAG && f && k < f->n,
		  "wc status %d names wr_id %#llx, which no WR had", wc->status,
		  (unsigned long long)wc->wr_id);
	r = &f->rec[k];
	/* A WR of the QP the CQE names, on the queue its opcode names. */
	FZ_ASSERT(qi >= 0,
		  "wc %#llx (status %d) from a CQE of user index "
		  "%u, which no QP has",
		  (unsigned long long)wc->wr_id, wc->status,
		  be32toh(cqe->srqn_uidx) & 0xffffff);
	FZ_ASSERT(opcode == M5_CQE_REQ || opcode == M5_CQE_REQ_ERR
			  ? q == Q_SQ && owner == (unsigned int)qi
			  : (q == Q_RQ && owner == (unsigned int)qi) ||
				    (q == Q_SRQ && s->q[qi].srq),
		  "wc %#llx from a CQE (opcode %u) of QP %d names a WR of "
		  "another queue",
		  (unsigned long long)wc->wr_id, opcode, qi);
	FZ_ASSERT(!r->reported, "wr_id %#llx reported twice (status %d)",
		  (unsigned long long)wc->wr_id, wc->status);
	FZ_ASSERT(!r->retired,
		  "wr_id %#llx was no longer outstanding (status %d)",
		  (unsigned long long)wc->wr_id, wc->status);
	if (q == Q_SQ) {
		FZ_ASSERT(s->q[owner].send_main, "SQ wc of a QP of another CQ");
		FZ_ASSERT(r->idx - p->sq_t[owner] >=
				  p->sq_next[owner] - p->sq_t[owner],
			  "SQ WR %u named after WR %u", r->idx,
			  p->sq_next[owner] - 1);
		p->sq_next[owner] = r->idx + 1;
	} else if (q == Q_RQ) {
		FZ_ASSERT(s->q[owner].recv_main, "RQ wc of a QP of another CQ");
		FZ_ASSERT(r->idx - p->rq_t[owner] >=
				  p->rq_next[owner] - p->rq_t[owner],
			  "RQ WR %u named after WR %u", r->idx,
			  p->rq_next[owner] - 1);
		p->rq_next[owner] = r->idx + 1;
	} else {
		FZ_ASSERT(s->srq_cur[r->idx] == (int16_t)k,
			  "SRQ wc names WQE %u, which holds another WR",
			  r->idx);
	}
	r->reported = true;
	p->named[p->nnamed++] = r;
}

/* Mark WRs [from, to) of a queue retired: the tail passed them. */
static void retire_range(struct fq *f, uint32_t from, uint32_t to)
{
	for (; from != to; from++)
		f->rec[from - f->base].retired = true;
}

/* After a call: the tails, the SRQ free list, the locks. */
static void post_call(struct st *s, struct pre *p)
{
	uint8_t on[16];
	unsigned int i, nfree, outstanding = 0;

	FZ_ASSERT(locks_free(s), "a lock is held after the call");
	for (i = 0; i < s->nqp; i++) {
		struct m5_qp *qp = s->q[i].qp;
		uint32_t t, h;

		if (!qp)
			continue;
		t = atomic_load(&qp->sq.tail);
		h = qp->sq.head;
		FZ_ASSERT(t - p->sq_t[i] <= h - p->sq_t[i],
			  "QP %u: SQ tail moved from %u to %u, head %u", i,
			  p->sq_t[i], t, h);
		retire_range(&s->q[i].sq, p->sq_t[i], t);
		t = atomic_load(&qp->rq.tail);
		h = qp->rq.head;
		FZ_ASSERT(t - p->rq_t[i] <= h - p->rq_t[i],
			  "QP %u: RQ tail moved from %u to %u, head %u", i,
			  p->rq_t[i], t, h);
		retire_range(&s->q[i].rq, p->rq_t[i], t);
	}
	if (s->srq) {
		nfree = srq_walk(s, on);
		for (i = 0; i < s->srq->wq.wqe_cnt; i++) {
			FZ_ASSERT(on[i] || !p->srq_free[i],
				  "free SRQ WQE %u left the free list", i);
			if (on[i] && !p->srq_free[i]) {
				FZ_ASSERT(s->srq_cur[i] >= 0,
					  "SRQ WQE %u freed, not outstanding",
					  i);
				s->srqq.rec[s->srq_cur[i]].retired = true;
				s->srq_cur[i] = -1;
			}
			outstanding += s->srq_cur[i] >= 0;
		}
		FZ_ASSERT(nfree + outstanding == s->srq->wq.wqe_cnt,
			  "SRQ: %u free and %u outstanding of %u WQEs", nfree,
			  outstanding, s->srq->wq.wqe_cnt);
		memcpy(s->srq_free, on, sizeof(on));
	}
	for (i = 0; i < p->nnamed; i++)
		FZ_ASSERT(p->named[i]->retired,
			  "a WR named by a wc is still outstanding");
}

/* --- The device --------------------------------------------------------- */

static const uint8_t synd[] = {
	M5_SYND_LOCAL_LENGTH_ERR,
	M5_SYND_LOCAL_QP_OP_ERR,
	M5_SYND_LOCAL_PROT_ERR,
	M5_SYND_WR_FLUSH_ERR,
	M5_SYND_MW_BIND_ERR,
	M5_SYND_BAD_RESP_ERR,
	M5_SYND_LOCAL_ACCESS_ERR,
	M5_SYND_REMOTE_INVAL_REQ_ERR,
	M5_SYND_REMOTE_ACCESS_ERR,
	M5_SYND_REMOTE_OP_ERR,
	M5_SYND_TRANSPORT_RETRY_EXC_ERR,
	M5_SYND_RNR_RETRY_EXC_ERR,
	M5_SYND_REMOTE_ABORTED_ERR,
};
static const enum ibv_wc_status synd_status[] = {
	IBV_WC_LOC_LEN_ERR,    IBV_WC_LOC_QP_OP_ERR,   IBV_WC_LOC_PROT_ERR,
	IBV_WC_WR_FLUSH_ERR,   IBV_WC_MW_BIND_ERR,     IBV_WC_BAD_RESP_ERR,
	IBV_WC_LOC_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_ACCESS_ERR,
	IBV_WC_REM_OP_ERR,     IBV_WC_RETRY_EXC_ERR,   IBV_WC_RNR_RETRY_EXC_ERR,
	IBV_WC_REM_ABORT_ERR,
};

/* IBV_WR_* -> mlx5 send opcode, and the wc opcode of a success. */
static const uint8_t wr_m5op[] = {
	[IBV_WR_RDMA_WRITE] = M5_OPCODE_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = M5_OPCODE_RDMA_WRITE_IMM,
	[IBV_WR_SEND] = M5_OPCODE_SEND,
	[IBV_WR_SEND_WITH_IMM] = M5_OPCODE_SEND_IMM,
	[IBV_WR_RDMA_READ] = M5_OPCODE_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = M5_OPCODE_ATOMIC_CS,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = M5_OPCODE_ATOMIC_FA,
};
static const enum ibv_wc_opcode wr_wcop[] = {
	[IBV_WR_RDMA_WRITE] = IBV_WC_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = IBV_WC_RDMA_WRITE,
	[IBV_WR_SEND] = IBV_WC_SEND,
	[IBV_WR_SEND_WITH_IMM] = IBV_WC_SEND,
	[IBV_WR_RDMA_READ] = IBV_WC_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = IBV_WC_COMP_SWAP,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = IBV_WC_FETCH_ADD,
};

/* The CI doorbell record says the CQ has room for one more CQE. */
static bool dev_room(struct st *s)
{
	return ((s->dprod - ci_db(s->cq_db)) & M5_CQ_CI_MASK) < s->ncqe;
}

/* The next CQE slot, cleared (only when dev_room). */
static struct m5_cqe64 *dev_next(struct st *s)
{
	struct m5_cqe64 *cqe = cqe_at(s, s->dprod);

	memset(cqe, 0, sizeof(*cqe));
	return cqe;
}

/* The owner byte last, with this pass's parity; the wc it must become. */
static void dev_commit(struct st *s, struct m5_cqe64 *cqe, uint8_t opcode,
		       const struct exp *e)
{
	TRACE("  device: CQE %u opcode %u uidx %u ctr %u: wr_id %#llx\n",
	      s->dprod, opcode, e->uidx, be16toh(cqe->wqe_counter),
	      (unsigned long long)e->wc.wr_id);
	cqe->op_own = opcode << M5_CQE_OPCODE_SHIFT | !!(s->dprod & s->ncqe);
	s->dprod++;
	FZ_ASSERT(s->exp_n < FZ_MAX_NCQE, "more CQEs pending than slots");
	s->exp[(s->exp_first + s->exp_n++) % FZ_MAX_NCQE] = *e;
	snap(s);
}

/* An error CQE: syndrome and vendor syndrome; the wc's status. */
static enum ibv_wc_status dev_err(struct m5_cqe64 *cqe, struct fz *in,
				  struct exp *e)
{
	struct m5_err_cqe *ecqe = (struct m5_err_cqe *)cqe;
	unsigned int i = fz_u8(in) % sizeof(synd);

	ecqe->syndrome = synd[i];
	ecqe->vendor_err_synd = fz_u8(in);
	e->wc.vendor_err = ecqe->vendor_err_synd;
	return synd_status[i];
}

/* Complete the SQ's next signaled WR (and the unsignaled ones before it). */
static bool dev_sq(struct st *s, unsigned int qi, struct fz *in)
{
	struct fqp *f = &s->q[qi];
	struct m5_cqe64 *cqe;
	struct exp e = { 0 };
	uint32_t k;
	struct rec *r;
	bool err;

	if (!f->qp || !f->send_main)
		return false;
	for (k = f->sq.dev; k < f->sq.n && !f->sq.rec[k].signaled; k++)
		;
	if (k == f->sq.n || !dev_room(s))
		return false;
	cqe = dev_next(s);
	r = &f->sq.rec[k];
	err = (fz_u8(in) & 7) == 7;
	cqe->wqe_counter = htobe16(r->bb);
	cqe->srqn_uidx = htobe32(f->uidx);
	cqe->sop_drop_qpn =
		htobe32((uint32_t)wr_m5op[r->opcode] << 24 | f->qpn);
	e.wc.wr_id = mk_wrid(qi, Q_SQ, k);
	e.wc.qp_num = f->qpn;
	e.wc.opcode = wr_wcop[r->opcode];
	e.uidx = f->uidx;
	e.owner = qi;
	e.q = Q_SQ;
	e.k = k;
	if (err) {
		e.wc.status = dev_err(cqe, in, &e);
	} else {
		if (r->opcode == IBV_WR_RDMA_READ) {
			cqe->byte_cnt = htobe32(r->len);
			e.wc.byte_len = r->len;
		}
		if (r->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    r->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			e.wc.byte_len = 8;
		if (r->opcode == IBV_WR_SEND_WITH_IMM ||
		    r->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
			e.wc.wc_flags = IBV_WC_WITH_IMM;
	}
	dev_commit(s, cqe, err ? M5_CQE_REQ_ERR : M5_CQE_REQ, &e);
	f->sq.dev = k + 1;
	return true;
}

/* A receive CQE for WQE ctr of QP qi: success of some kind, or an error. */
static void dev_resp(struct st *s, unsigned int qi, uint16_t ctr, uint32_t len,
		     struct fz *in, struct exp *e)
{
	struct fqp *f = &s->q[qi];
	struct m5_cqe64 *cqe = dev_next(s);
	uint8_t sel = fz_u8(in), opcode;
	uint32_t word = fz_u32(in), src = fz_u32(in);

	cqe->wqe_counter = htobe16(ctr);
	cqe->srqn_uidx = htobe32(f->uidx);
	cqe->sop_drop_qpn = htobe32(f->qpn);
	e->wc.qp_num = f->qpn;
	e->wc.opcode = IBV_WC_RECV;
	e->uidx = f->uidx;
	if ((sel & 7) == 7) {
		struct m5_err_cqe *ecqe = (struct m5_err_cqe *)cqe;

		e->wc.status = dev_err(cqe, in, e);
		/*
		 * On an SRQ, REMOTE_ABORTED with vendor syndrome ODP_PFAULT is
		 * an ODP page fault, not a completion: the WQE goes back to
		 * the SRQ (mlx5_poll.c's m5_odp_srq_fault, checked by the
		 * model's test_srq_odp.c).  This device means an error CQE.
		 */
		if (f->srq && ecqe->syndrome == M5_SYND_REMOTE_ABORTED_ERR &&
		    ecqe->vendor_err_synd == M5_VENDOR_SYND_ODP_PFAULT)
			e->wc.vendor_err = ++ecqe->vendor_err_synd;
		dev_commit(s, cqe, M5_CQE_RESP_ERR, e);
		return;
	}
	len = len ? word % (len + 1) : 0;
	cqe->byte_cnt = htobe32(len);
	cqe->flags_rqpn = htobe32(src);
	cqe->slid = htobe16(word >> 8);
	cqe->ml_path = word >> 24;
	cqe->imm_inval_pkey = htobe32(word);
	e->wc.byte_len = len;
	e->wc.src_qp = src & 0xffffff;
	e->wc.sl = (src >> 24) & 15;
	e->wc.slid = (uint16_t)(word >> 8);
	e->wc.dlid_path_bits = (word >> 24) & 0x7f;
	e->wc.wc_flags = (src >> M5_CQE_GRH_SHIFT) & 3 ? IBV_WC_GRH : 0;
	switch ((sel >> 3) & 3) {
	case 0:
		opcode = M5_CQE_RESP_SEND;
		break;
	case 1:
		opcode = M5_CQE_RESP_SEND_IMM;
		e->wc.wc_flags |= IBV_WC_WITH_IMM;
		e->wc.imm_data = htobe32(word);
		break;
	case 2:
		opcode = M5_CQE_RESP_WR_IMM;
		e->wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		e->wc.wc_flags |= IBV_WC_WITH_IMM;
		e->wc.imm_data = htobe32(word);
		break;
	default:
		opcode = M5_CQE_RESP_SEND_INV;
		e->wc.wc_flags |= IBV_WC_WITH_INV;
		e->wc.invalidated_rkey = word;
		break;
	}
	dev_commit(s, cqe, opcode, e);
}

static bool dev_rq(struct st *s, unsigned int qi, struct fz *in)
{
	struct fqp *f = &s->q[qi];
	struct exp e = { 0 };
	struct rec *r;

	if (!f->qp || !f->recv_main || f->srq || f->rq.dev == f->rq.n ||
	    !dev_room(s))
		return false;
	r = &f->rq.rec[f->rq.dev];
	e.wc.wr_id = mk_wrid(qi, Q_RQ, f->rq.dev);
	e.owner = qi;
	e.q = Q_RQ;
	e.k = f->rq.dev;
	dev_resp(s, qi, r->idx & (f->qp->rq.wqe_cnt - 1), r->len, in, &e);
	f->rq.dev++;
	return true;
}

/* An SRQ WQE the device has not completed, through a QP on the SRQ. */
static bool dev_srq(struct st *s, unsigned int qi, struct fz *in)
{
	struct fqp *f;
	struct exp e = { 0 };
	uint32_t k, cand = 0, pick = fz_u8(in);
	unsigned int i;

	if (!s->srq || !dev_room(s))
		return false;
	for (i = 0; i < s->nqp; i++, qi++) {
		f = &s->q[qi % s->nqp];
		if (f->qp && f->srq && f->recv_main)
			break;
	}
	if (i == s->nqp)
		return false;
	qi %= s->nqp;
	for (k = 0; k < s->srqq.n; k++)
		cand += !s->srqq.rec[k].retired && !s->srqq.rec[k].dev;
	if (!cand)
		return false;
	pick %= cand;
	for (k = 0;; k++)
		if (!s->srqq.rec[k].retired && !s->srqq.rec[k].dev && !pick--)
			break;
	e.wc.wr_id = mk_wrid(FZ_SRQ_OWNER, Q_SRQ, k);
	e.owner = FZ_SRQ_OWNER;
	e.q = Q_SRQ;
	e.k = k;
	s->srqq.rec[k].dev = true;
	dev_resp(s, qi, s->srqq.rec[k].idx, s->srqq.rec[k].len, in, &e);
	return true;
}

static void sane_device(struct st *s, struct fz *in)
{
	uint8_t which = fz_u8(in), qi = fz_u8(in) % s->nqp;
	unsigned int n = 1 + fz_u8(in) % 4;

	while (n--) {
		switch (which % 3) {
		case Q_SQ:
			dev_sq(s, qi, in);
			break;
		case Q_RQ:
			dev_rq(s, qi, in);
			break;
		default:
			dev_srq(s, qi, in);
			break;
		}
	}
}

/* A user index: a QP's (live or destroyed), the SRQ's, or anything. */
static uint32_t any_uidx(struct st *s, struct fz *in)
{
	uint8_t sel = fz_u8(in);
	uint32_t u = s->q[(sel >> 3) % s->nqp].uidx;

	switch (sel % 6) {
	case 0:
	case 1:
		return u;
	case 2:
		return s->srq ? s->srq->rsc.uidx : u + 1;
	case 3:
		return u | (uint32_t)fz_u8(in) << 24; /* noise above 24 bits */
	case 4:
		return u + 1 + fz_u8(in) % 8; /* never allocated, or freed */
	default:
		return fz_u32(in);
	}
}

/* A wqe_counter: a WQE's (outstanding, retired, never posted) or anything. */
static uint16_t any_ctr(struct st *s, struct fz *in)
{
	uint8_t sel = fz_u8(in), pick = fz_u8(in);
	struct fq *f = &s->q[(sel >> 3) % s->nqp].sq;

	switch (sel % 6) {
	case 0:
	case 1:
		return f->n ? f->rec[pick % f->n].bb + (sel >> 6) : pick;
	case 2:
		return s->srqq.n ? s->srqq.rec[pick % s->srqq.n].idx : pick;
	case 3:
		return pick & 15;
	default:
		return fz_u16(in);
	}
}

static const uint8_t cqe_ops[] = {
	M5_CQE_REQ,	      M5_CQE_RESP_WR_IMM,   M5_CQE_RESP_SEND,
	M5_CQE_RESP_SEND_IMM, M5_CQE_RESP_SEND_INV, M5_CQE_REQ_ERR,
	M5_CQE_RESP_ERR,
};
static const uint8_t send_ops[] = {
	M5_OPCODE_SEND,		  M5_OPCODE_SEND_IMM,  M5_OPCODE_RDMA_WRITE,
	M5_OPCODE_RDMA_WRITE_IMM, M5_OPCODE_RDMA_READ, M5_OPCODE_ATOMIC_CS,
	M5_OPCODE_ATOMIC_FA,	  M5_OPCODE_NOP,       M5_OPCODE_SEND_INVAL,
};

/* Anything anywhere: raw bytes, an owner byte, or a CQE with any fields. */
static void insane_device(struct st *s, struct fz *in)
{
	uint8_t kind = fz_u8(in), sel = fz_u8(in), v;
	uint32_t n = (sel & 0x80) ? s->cq->cons_index + (fz_u8(in) % s->ncqe)
				  : fz_u16(in);
	struct m5_cqe64 *cqe = cqe_at(s, n);
	struct m5_err_cqe *ecqe = (struct m5_err_cqe *)cqe;
	uint8_t owner = (sel & 0x80) ? !!(n & s->ncqe) : sel & 1;

	TRACE("  device: writes slot of CQE %u (kind %u)\n", n, kind % 4);
	switch (kind % 4) {
	case 0:
		fz_fill(in, cqe, sizeof(*cqe), 0);
		break;
	case 1:
		cqe->op_own = fz_u8(in);
		break;
	default:
		cqe->srqn_uidx = htobe32(any_uidx(s, in));
		cqe->wqe_counter = htobe16(any_ctr(s, in));
		v = fz_u8(in);
		cqe->sop_drop_qpn = htobe32(
			(uint32_t)(v < 0xe0 ? send_ops[v % sizeof(send_ops)]
					    : v)
				<< 24 |
			s->q[v % s->nqp].qpn);
		ecqe->syndrome = fz_u8(in);
		ecqe->vendor_err_synd = fz_u8(in);
		cqe->byte_cnt = htobe32(fz_u32(in));
		v = fz_u8(in);
		cqe->op_own = (v < 0xc0 ? cqe_ops[v % sizeof(cqe_ops)] : v & 15)
				      << M5_CQE_OPCODE_SHIFT |
			      ((sel & 0x60) == 0x60 ? (sel >> 1) & 3 : 0)
				      << M5_CQE_FORMAT_SHIFT |
			      owner;
		break;
	}
	snap(s);
}

static void device(struct st *s, struct fz *in)
{
	if (s->sane)
		sane_device(s, in);
	else
		insane_device(s, in);
}

/* --- Posting ------------------------------------------------------------- */

static void post_send(struct st *s, struct fz *in)
{
	unsigned int qi = fz_u8(in) % s->nqp, n = 1 + fz_u8(in) % 3, i, j;
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_sge sge[3][16];
	struct fqp *f = &s->q[qi];
	struct m5_qp *qp = f->qp;
	uint32_t ops[7], nops = 0, head0, bb, posted;
	int ret;

	if (!qp || !qp->sq.wqe_cnt || f->sq.n + n > FZ_MAX_POSTS)
		return;
	for (i = 0; i < 7; i++)
		if (qp->opcode_mask & (1u << i))
			ops[nops++] = i;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		uint8_t flags = fz_u8(in);
		uint32_t op = ops[fz_u8(in) % nops], total = 0;
		uint32_t nsge = fz_u8(in) % (qp->sq.max_gs + 1);
		bool inl = (flags & 2) && op != IBV_WR_RDMA_READ &&
			   op != IBV_WR_ATOMIC_CMP_AND_SWP &&
			   op != IBV_WR_ATOMIC_FETCH_AND_ADD;
		bool atomic = op == IBV_WR_ATOMIC_CMP_AND_SWP ||
			      op == IBV_WR_ATOMIC_FETCH_AND_ADD;

		if (atomic && !nsge)
			nsge = 1;
		for (j = 0; j < nsge; j++) {
			uint32_t len = fz_u8(in);

			if (inl && total + len > qp->max_inline_data)
				len = qp->max_inline_data - total;
			if (atomic && j == 0 && len < 8)
				len = 8;
			sge[i][j] = (struct ibv_sge){
				.addr = inl ? (uintptr_t)s->inl + total
					    : 0x10000 + 0x100 * j,
				.length = len,
				.lkey = 0x77,
			};
			total += len;
		}
		wr[i] = (struct ibv_send_wr){
			.wr_id = mk_wrid(qi, Q_SQ, f->sq.n + i),
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.sg_list = nsge ? sge[i] : NULL,
			.num_sge = nsge,
			.opcode = op,
			.send_flags = (flags & 1 ? IBV_SEND_SIGNALED : 0) |
				      (inl ? IBV_SEND_INLINE : 0) |
				      (flags & 4 ? IBV_SEND_SOLICITED : 0) |
				      (flags & 8 ? IBV_SEND_FENCE : 0),
			.imm_data = htobe32(0xabc),
		};
		if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
			wr[i].wr.ud.ah = &s->ah.ibv_ah;
			wr[i].wr.ud.remote_qpn = 0x42;
			wr[i].wr.ud.remote_qkey = 0x1111;
		} else if (atomic) {
			wr[i].wr.atomic.remote_addr = 0x8000;
			wr[i].wr.atomic.rkey = 5;
		} else {
			wr[i].wr.rdma.remote_addr = 0x9000;
			wr[i].wr.rdma.rkey = 6;
		}
		f->sq.rec[f->sq.n + i] = (struct rec){
			.opcode = op,
			.len = total,
			.signaled = (flags & 1) || qp->sq_signal_bits,
		};
	}
	head0 = qp->sq.head;
	bb = qp->sq.cur_post;
	ret = m5_post_send(&qp->vqp.qp, wr, &bad);
	posted = qp->sq.head - head0;
	FZ_ASSERT(posted <= n && (ret ? ret == ENOMEM && bad == &wr[posted]
				      : posted == n),
		  "post_send of %u valid WRs: %d, %u posted", n, ret, posted);
	/* Where each WQE went, as a device would read the SQ. */
	for (i = 0; i < posted; i++) {
		const struct m5_ctrl_seg *c =
			(const void *)((char *)qp->sq.buf +
				       ((size_t)(bb & (qp->sq.wqe_cnt - 1))
					<< M5_SEND_WQE_SHIFT));
		uint32_t ds = be32toh(c->qpn_ds) & 0x3f;

		FZ_ASSERT(((be32toh(c->opmod_idx_opcode) >> 8) & 0xffff) ==
				  (bb & 0xffff),
			  "WQE at WQEBB %u has index %u", bb,
			  (be32toh(c->opmod_idx_opcode) >> 8) & 0xffff);
		f->sq.rec[f->sq.n + i].idx = head0 + i;
		f->sq.rec[f->sq.n + i].bb = bb;
		bb += (ds + 3) / 4;
	}
	FZ_ASSERT(bb == qp->sq.cur_post, "WQEs end at %u, cur_post %u", bb,
		  qp->sq.cur_post);
	f->sq.n += posted;
	TRACE("  post_send on QP %u: %u of %u posted (%d)\n", qi, posted, n,
	      ret);
	FZ_ASSERT(locks_free(s), "a lock is held after post_send");
}

/* Receive WRs: the scatter lists are never touched by the harness's device. */
static unsigned int recv_wrs(struct fz *in, struct ibv_recv_wr *wr,
			     struct ibv_sge (*sge)[4], uint32_t max_gs,
			     uint64_t (*id)(unsigned int), uint32_t *len)
{
	unsigned int n = 1 + fz_u8(in) % 3, i, j;

	for (i = 0; i < n; i++) {
		uint32_t nsge = fz_u8(in) % (max_gs + 1);

		len[i] = 0;
		for (j = 0; j < nsge; j++) {
			sge[i][j] = (struct ibv_sge){
				.addr = 0x20000,
				.length = 16 * fz_u8(in),
				.lkey = 9,
			};
			len[i] += sge[i][j].length;
		}
		wr[i] = (struct ibv_recv_wr){
			.wr_id = id(i),
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.sg_list = nsge ? sge[i] : NULL,
			.num_sge = nsge,
		};
	}
	return n;
}

static uint64_t cur_base;

static uint64_t id_at(unsigned int i)
{
	return cur_base + i;
}

static void post_recv(struct st *s, struct fz *in)
{
	unsigned int qi = fz_u8(in) % s->nqp, n, i;
	struct ibv_recv_wr wr[3], *bad = NULL;
	struct ibv_sge sge[3][4];
	struct fqp *f = &s->q[qi];
	uint32_t len[3], head0, posted;
	int ret;

	if (!f->qp || !f->qp->rq.wqe_cnt || f->rq.n + 3 > FZ_MAX_POSTS)
		return;
	cur_base = mk_wrid(qi, Q_RQ, f->rq.n);
	n = recv_wrs(in, wr, sge, f->qp->rq.max_gs, id_at, len);
	head0 = f->qp->rq.head;
	ret = m5_post_recv(&f->qp->vqp.qp, wr, &bad);
	posted = f->qp->rq.head - head0;
	FZ_ASSERT(posted <= n && (ret ? ret == ENOMEM && bad == &wr[posted]
				      : posted == n),
		  "post_recv of %u valid WRs: %d, %u posted", n, ret, posted);
	for (i = 0; i < posted; i++)
		f->rq.rec[f->rq.n + i] =
			(struct rec){ .idx = head0 + i, .len = len[i] };
	f->rq.n += posted;
	TRACE("  post_recv on QP %u: %u of %u posted (%d)\n", qi, posted, n,
	      ret);
	FZ_ASSERT(locks_free(s), "a lock is held after post_recv");
}

static void post_srq(struct st *s, struct fz *in)
{
	struct ibv_recv_wr wr[3], *bad = NULL;
	struct ibv_sge sge[3][4];
	uint32_t len[3], took[3], i, n, posted, w;
	struct m5_wq *wq;
	int ret;

	if (!s->srq || s->srqq.n + 3 > FZ_MAX_POSTS)
		return;
	wq = &s->srq->wq;
	cur_base = mk_wrid(FZ_SRQ_OWNER, Q_SRQ, s->srqq.n);
	n = recv_wrs(in, wr, sge, wq->max_gs, id_at, len);
	/* The WQEs the poster must take: the free list from its head. */
	w = wq->head;
	for (i = 0; i < n && w != atomic_load(&wq->tail); i++) {
		took[i] = w;
		w = be16toh(srq_wqe(s, w)->next_wqe_index);
	}
	ret = m5_post_srq_recv(&s->srq->vsrq.srq, wr, &bad);
	posted = ret ? (uint32_t)(bad - wr) : n;
	FZ_ASSERT(posted == i && (ret == 0 || ret == ENOMEM),
		  "post_srq_recv of %u valid WRs with %u free: %d, %u posted",
		  n, i, ret, posted);
	for (i = 0; i < posted; i++) {
		FZ_ASSERT(s->srq_cur[took[i]] < 0,
			  "post_srq_recv took WQE %u, which is outstanding",
			  took[i]);
		s->srq_cur[took[i]] = s->srqq.n;
		s->srq_free[took[i]] = 0;
		s->srqq.rec[s->srqq.n++] =
			(struct rec){ .idx = took[i], .len = len[i] };
	}
	TRACE("  post_srq_recv: %u of %u posted (%d)\n", posted, n, ret);
	FZ_ASSERT(locks_free(s), "a lock is held after post_srq_recv");
}

/* --- Polling ------------------------------------------------------------ */

static void do_poll(struct st *s, int nwc)
{
	struct ibv_wc *wc;
	struct pre p;
	uint32_t avail;
	int n, i, want;

	/* Exactly nwc entries: ASan sees a write past the last one. */
	wc = malloc(nwc > 0 ? (size_t)nwc * sizeof(*wc) : 1);
	FZ_ASSERT(wc, "out of memory");
	pre_call(s, &p);
	avail = sw_run(s, p.ci);
	n = m5_poll_cq(&s->cq->vcq.cq, nwc, wc);
	TRACE("  poll_cq(%d): %d of %u\n", nwc, n, avail);
	for (i = 0; i < n; i++)
		TRACE("    wr_id %#llx status %d opcode %d\n",
		      (unsigned long long)wc[i].wr_id, wc[i].status,
		      wc[i].opcode);
	want = nwc > 0 ? ((uint32_t)nwc < avail ? nwc : (int)avail) : 0;
	FZ_ASSERT(n == want, "poll_cq(%d) returned %d with %u CQEs owned", nwc,
		  n, avail);
	FZ_ASSERT(s->cq->cons_index == p.ci + (uint32_t)n,
		  "consumer index moved from %u to %u for %d CQEs", p.ci,
		  s->cq->cons_index, n);
	FZ_ASSERT(ci_db(s->cq_db) == (n ? (p.ci + n) & M5_CQ_CI_MASK : p.db),
		  "CI record %#x, consumer index %#x", ci_db(s->cq_db),
		  s->cq->cons_index);
	FZ_ASSERT(!memcmp(s->snap, s->cq->buf, (size_t)s->ncqe * M5_CQE_SIZE),
		  "poll_cq wrote into the CQ ring");
	for (i = 0; i < n; i++)
		check_wc(s, &p, &wc[i],
			 (const struct m5_cqe64 *)s->snap +
				 ((p.ci + i) & (s->ncqe - 1)));
	post_call(s, &p);
	free(wc);
}

/* The completion start_poll/next_poll show, through the cq_ex readers. */
static void check_shown(struct st *s, struct pre *p)
{
	struct ibv_cq_ex *cqx = &s->cq->vcq.cq_ex;
	struct ibv_wc wc = {
		.wr_id = cqx->wr_id,
		.status = cqx->status,
		.opcode = cqx->read_opcode(cqx),
		.vendor_err = cqx->read_vendor_err(cqx),
		.byte_len = cqx->read_byte_len(cqx),
		.imm_data = cqx->read_imm_data(cqx),
		.qp_num = cqx->read_qp_num(cqx),
		.src_qp = cqx->read_src_qp(cqx),
		.wc_flags = cqx->read_wc_flags(cqx),
		.slid = cqx->read_slid(cqx),
		.sl = cqx->read_sl(cqx),
		.dlid_path_bits = cqx->read_dlid_path_bits(cqx),
	};

	TRACE("    cq_ex shows wr_id %#llx status %d opcode %d\n",
	      (unsigned long long)wc.wr_id, wc.status, wc.opcode);
	check_wc(s, p, &wc, cqe_at(s, s->cq->cons_index - 1));
}

static void do_poll_ex(struct st *s, struct fz *in)
{
	struct ibv_cq_ex *cqx = &s->cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	uint32_t avail, shown;
	struct pre p;
	int ret, steps;

	if ((fz_u8(in) & 15) == 0)
		attr.comp_mask = 1 + fz_u8(in);
	pre_call(s, &p);
	avail = sw_run(s, p.ci);
	ret = cqx->start_poll(cqx, &attr);
	if (attr.comp_mask || !avail) {
		FZ_ASSERT(ret == (attr.comp_mask ? EINVAL : ENOENT),
			  "start_poll returned %d (comp_mask %u, %u owned)",
			  ret, attr.comp_mask, avail);
		FZ_ASSERT(s->cq->cons_index == p.ci && ci_db(s->cq_db) == p.db,
			  "a start_poll that showed nothing consumed");
		post_call(s, &p);
		return;
	}
	FZ_ASSERT(ret == 0, "start_poll returned %d with %u CQEs owned", ret,
		  avail);
	FZ_ASSERT(!s->cq->lock.need || !fz_lock_free(&s->cq->lock),
		  "start_poll returned without the CQ lock");
	check_shown(s, &p);
	shown = 1;
	for (steps = 0; steps < 40; steps++) {
		uint8_t op = fz_u8(in) % 4;
		bool owned;

		if (op == 0)
			break;
		if (op == 1) {
			/* The device writes while we poll. */
			device(s, in);
			continue;
		}
		owned = sw_owned(s, s->cq->cons_index);
		ret = cqx->next_poll(cqx);
		FZ_ASSERT(ret == (owned ? 0 : ENOENT),
			  "next_poll returned %d, CQE at %u %sowned", ret,
			  s->cq->cons_index, owned ? "" : "not ");
		if (ret)
			break;
		check_shown(s, &p);
		shown++;
	}
	cqx->end_poll(cqx);
	FZ_ASSERT(s->cq->cons_index == p.ci + shown,
		  "cq_ex consumed %u CQEs, showed %u", s->cq->cons_index - p.ci,
		  shown);
	FZ_ASSERT(ci_db(s->cq_db) == (s->cq->cons_index & M5_CQ_CI_MASK),
		  "end_poll left CI record %#x, consumer index %#x",
		  ci_db(s->cq_db), s->cq->cons_index);
	FZ_ASSERT(!memcmp(s->snap, s->cq->buf, (size_t)s->ncqe * M5_CQE_SIZE),
		  "cq_ex polling wrote into the CQ ring");
	post_call(s, &p);
}

/* --- Destroying a QP: m5_cq_clean, then the memory goes ------------------ */

static void free_qp(struct fqp *f)
{
	free(f->sq_buf);
	free(f->rq_buf);
	free(f->sq_wrid);
	free(f->rq_wrid);
	free(f->sq_head);
	free(f->dbrec);
	free(f->qp);
	f->qp = NULL;
}

static void destroy_qp(struct st *s, struct fz *in)
{
	unsigned int qi = fz_u8(in) % s->nqp;
	struct fqp *f = &s->q[qi];
	static struct m5_cqe64 kept[FZ_MAX_NCQE];
	struct m5_srq *srq = f->srq ? s->srq : NULL;
	struct ibv_qp *ibqp;
	uint32_t run, nkept = 0, ci, db, i, k, exp_n;
	struct pre p;

	if (!f->qp)
		return;
	TRACE("  destroy QP %u (uidx %u)\n", qi, f->uidx);
	ibqp = &f->qp->vqp.qp;
	pre_call(s, &p);
	ci = p.ci;
	db = p.db;
	run = sw_run(s, ci);
	/* m5_cq_clean runs on the polled CQ only if the QP uses it. */
	for (i = 0; i < run; i++)
		if ((be32toh(cqe_at(s, ci + i)->srqn_uidx) & 0xffffff) !=
			    f->uidx ||
		    (!f->send_main && !f->recv_main))
			kept[nkept++] = *cqe_at(s, ci + i);
	/* As m5_destroy_qp: the receive CQ (with the SRQ), then the send CQ. */
	m5_cq_clean(to_m5_cq(ibqp->recv_cq), f->uidx, srq);
	if (ibqp->send_cq != ibqp->recv_cq)
		m5_cq_clean(to_m5_cq(ibqp->send_cq), f->uidx, NULL);
	FZ_ASSERT(s->cq->cons_index == ci + (run - nkept),
		  "clean moved the consumer index by %u, removed %u",
		  s->cq->cons_index - ci, run - nkept);
	FZ_ASSERT(
		ci_db(s->cq_db) ==
			(run - nkept ? s->cq->cons_index & M5_CQ_CI_MASK : db),
		"clean left CI record %#x, consumer index %#x", ci_db(s->cq_db),
		s->cq->cons_index);
	for (i = 0; i < nkept; i++) {
		uint32_t n = s->cq->cons_index + i;
		const struct m5_cqe64 *c = cqe_at(s, n);

		FZ_ASSERT(sw_owned(s, n) &&
				  !memcmp(c, &kept[i], M5_CQE_SIZE - 1) &&
				  (c->op_own & ~1) == (kept[i].op_own & ~1),
			  "clean lost or changed kept CQE %u of %u", i, nkept);
	}
	snap(s);
	if (s->sane) {
		/* The device's record of what it wrote, minus this QP's. */
		exp_n = s->exp_n;
		s->exp_n = 0;
		for (i = 0; i < exp_n; i++) {
			struct exp e = s->exp[(s->exp_first + i) % FZ_MAX_NCQE];

			if (e.uidx != f->uidx) {
				s->exp[(s->exp_first + s->exp_n++) %
				       FZ_MAX_NCQE] = e;
				continue;
			}
			if (e.q == Q_SRQ)
				s->srqq.rec[e.k].cleaned = true;
		}
	}
	post_call(s, &p);
	if (s->sane && s->srq) {
		/* Exactly the SRQ WQEs of the removed CQEs came back. */
		for (k = 0; k < s->srqq.n; k++)
			FZ_ASSERT(s->srqq.rec[k].cleaned ==
					  (s->srqq.rec[k].retired &&
					   !s->srqq.rec[k].reported),
				  "SRQ WR %u: cleaned %d, retired %d", k,
				  s->srqq.rec[k].cleaned,
				  s->srqq.rec[k].retired);
	}
	/* Gone: its WRs with it. */
	m5_uidx_free(&g.ctx, f->uidx);
	free_qp(f);
	for (k = 0; k < f->sq.n; k++)
		f->sq.rec[k].retired = true;
	for (k = 0; k < f->rq.n; k++)
		f->rq.rec[k].retired = true;
}

/* --- Set-up, the operations, the end ------------------------------------ */

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	FZ_ASSERT(p, "out of memory");
	return p;
}

/* The bfreg of every QP: bfreg 0 of UAR 0, no BlueFlame. */
static struct m5_bf fz_bf;

static uint32_t start_index(struct fz *in, uint8_t sel)
{
	switch (sel & 3) {
	case 0:
		return 0;
	case 1:
		return 0u - 1 - (sel >> 2); /* wraps soon */
	case 2:
		return fz_u32(in);
	default:
		return 0x10000 - 1 - (sel >> 2); /* 16-bit counters wrap */
	}
}

/*
 * An SQ that has run: head and tail at wr, cur_post at bb, every slot
 * holding a retired one-WQEBB WQE of the lap before (a new SQ is all 0).
 */
static void sq_prefill(struct m5_qp *qp, uint32_t wr, uint32_t bb)
{
	uint32_t cnt = qp->sq.wqe_cnt, b;

	qp->sq.head = wr;
	atomic_store(&qp->sq.tail, wr);
	qp->sq.cur_post = bb;
	for (b = bb - cnt; b != bb; b++) {
		uint32_t i = b & (cnt - 1);
		struct m5_ctrl_seg *c =
			(struct m5_ctrl_seg *)((char *)qp->sq.buf +
					       ((size_t)i
						<< M5_SEND_WQE_SHIFT));

		c->opmod_idx_opcode =
			htobe32((b & 0xffff) << 8 | M5_OPCODE_SEND);
		c->qpn_ds = htobe32(1);
		qp->sq.wqe_head[i] = wr - (bb - b);
		qp->sq.wrid[i] = 0xdeadull << 48 | b;
	}
}

/*
 * Per QP: cfg (bit 0 UD, bit 1 on the SRQ, bit 2 send CQ other, bit 3
 * receive CQ other, bit 4 sq_sig_all, bits 5-6 log2 WQEBBs per WQE, bit 7
 * no SQ), SQ
 * (bits 0-1 log2 max_post, bits 2-7: 0 new, else a start selector and a
 * 16-bit WQEBB counter: an SQ that has run), RQ (bits 0-1 log2 WQEs, bit
 * 2 two SGEs, bits 3-7 start selector; 0xff: no RQ).
 */
static void setup_qp(struct st *s, unsigned int qi, struct fz *in, bool lock)
{
	uint8_t cfg = fz_u8(in), sqc = fz_u8(in), rqc = fz_u8(in);
	struct fqp *f = &s->q[qi];
	uint32_t bbs = 1u << ((cfg >> 5) & 3);
	uint32_t over, cnt, stride, start;
	bool ud = cfg & 1;
	struct m5_qp *qp;

	if (bbs > 4)
		bbs = 4;
	if (ud && bbs < 2)
		bbs = 2;
	f->qp = qp = zalloc(sizeof(*qp));
	f->srq = s->srq && (cfg & 2);
	f->send_main = !(cfg & 4);
	f->recv_main = !(cfg & 8);
	f->qpn = 0x100 + qi;
	f->dbrec = zalloc(2 * sizeof(__be32));
	/* SQ: sized as m5_size_sq would for this WQE size. */
	over = sizeof(struct m5_ctrl_seg) +
	       (ud ? sizeof(struct m5_av)
		   : sizeof(struct m5_raddr_seg) +
				sizeof(struct m5_atomic_seg));
	cnt = (cfg & 0x80) ? 0 : bbs << (sqc & 3); /* 0: a receive-only QP */
	f->sq_buf = zalloc((size_t)cnt * M5_SEND_WQE_BB);
	f->sq_wrid = zalloc(cnt * sizeof(uint64_t));
	f->sq_head = zalloc(cnt * sizeof(uint32_t));
	m5_fake_wq_init(&qp->sq,
			&(struct m5_fake_wq){
				.buf = f->sq_buf,
				.wrid = f->sq_wrid,
				.wqe_head = f->sq_head,
				.wqe_cnt = cnt,
				.wqe_shift = M5_SEND_WQE_SHIFT,
				.max_post = cnt / bbs,
				.max_gs = cnt ? (bbs * 64 - over) / 16 : 0 },
			lock);
	qp->max_inline_data = bbs * 64 - over - sizeof(struct m5_inline_seg);
	if (cnt && (sqc >> 2)) {
		start = start_index(in, sqc >> 2);
		sq_prefill(qp, start, fz_u16(in));
	}
	f->sq.base = qp->sq.head;
	/* RQ, unless on the SRQ or none (0xff): one WQEBB at least. */
	if (!f->srq && rqc != 0xff) {
		stride = 16u << ((rqc >> 2) & 1);
		cnt = 1u << (rqc & 3);
		if (cnt * stride < 64)
			cnt = 64 / stride;
		f->rq_buf = zalloc((size_t)cnt * stride);
		f->rq_wrid = zalloc(cnt * sizeof(uint64_t));
		m5_fake_wq_init(
			&qp->rq,
			&(struct m5_fake_wq){ .buf = f->rq_buf,
					      .wrid = f->rq_wrid,
					      .wqe_cnt = cnt,
					      .wqe_shift = stride == 16 ? 4 : 5,
					      .max_post = cnt,
					      .max_gs = stride / 16 },
			lock);
		start = start_index(in, rqc >> 3);
		qp->rq.head = start;
		atomic_store(&qp->rq.tail, start);
		f->rq.base = start;
	} else {
		db_lock_init(&qp->rq.lock, lock);
	}
	FZ_ASSERT(!m5_fake_qp_init(qp, &g.ctx, ud ? IBV_QPT_UD : IBV_QPT_RC,
				   f->qpn, f->send_main ? s->cq : s->other,
				   f->recv_main ? s->cq : s->other,
				   f->srq ? s->srq : NULL, f->dbrec, &fz_bf),
		  "no user index");
	qp->vqp.qp.pd = &g.pd;
	qp->sq_signal_bits = (cfg & 16) ? M5_WQE_CTRL_CQ_UPDATE : 0;
	f->uidx = qp->rsc.uidx;
}

static void setup(struct st *s, struct fz *in)
{
	uint8_t mode = fz_u8(in), cqsel = fz_u8(in), cisel = fz_u8(in);
	uint8_t srqc = fz_u8(in);
	uint32_t ci, cnt, shift, i;
	void *buf;

	s->sane = mode & 1;
	s->ncqe = 2u << (cqsel % 8);
	ci = start_index(in, cisel);
	if ((cisel & 3) == 3)
		ci = 0x1000000 - 1 - (cisel >> 2); /* the 24-bit record wraps */
	buf = zalloc((size_t)s->ncqe * M5_CQE_SIZE);
	s->cq = zalloc(sizeof(*s->cq));
	s->cq_db = zalloc(2 * sizeof(__be32));
	m5_fake_cq_init(s->cq, &g.ctx, buf, s->ncqe, s->cq_db, ci, mode & 2);
	m5_cq_set_ex_ops(s->cq, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	s->snap = zalloc((size_t)s->ncqe * M5_CQE_SIZE);
	s->dprod = ci;
	buf = zalloc(2 * M5_CQE_SIZE);
	s->other = zalloc(sizeof(*s->other));
	s->other_db = zalloc(2 * sizeof(__be32));
	m5_fake_cq_init(s->other, &g.ctx, buf, 2, s->other_db, 0, mode & 2);
	memset(s->srq_cur, 0xff, sizeof(s->srq_cur));
	if (srqc & 1) {
		cnt = 2u << ((srqc >> 1) & 3);
		shift = (srqc & 8) ? 6 : 5;
		s->srq = zalloc(sizeof(*s->srq));
		s->srq_wrid = zalloc(cnt * sizeof(uint64_t));
		s->srq_db = zalloc(sizeof(__be32));
		m5_fake_wq_init(&s->srq->wq,
				&(struct m5_fake_wq){
					.buf = zalloc((size_t)cnt << shift),
					.wrid = s->srq_wrid,
					.wqe_cnt = cnt,
					.wqe_shift = shift,
					.max_post = cnt - 1,
					.max_gs = ((1u << shift) - 16) / 16 },
				mode & 4);
		FZ_ASSERT(!m5_fake_srq_init(s->srq, &g.ctx, s->srq_db),
			  "no user index");
		memset(s->srq_free, 1, cnt);
	}
	s->ah.ibv_ah.context = &g.ctx.core.vctx.context;
	s->ah.ibv_ah.pd = &g.pd;
	memset(&s->ah.av, 0x5a, sizeof(s->ah.av));
	s->nqp = 1 + fz_u8(in) % FZ_MAX_QPS;
	fz_bf = (struct m5_bf){ .reg = g.uar + M5_BF_OFFSET };
	for (i = 0; i < s->nqp; i++)
		setup_qp(s, i, in, mode & 4);
	snap(s);
}

static void teardown(struct st *s)
{
	unsigned int i;

	for (i = 0; i < s->nqp; i++) {
		if (!s->q[i].qp)
			continue;
		m5_uidx_free(&g.ctx, s->q[i].uidx);
		free_qp(&s->q[i]);
	}
	if (s->srq) {
		m5_uidx_free(&g.ctx, s->srq->rsc.uidx);
		free(s->srq->wq.buf);
		free(s->srq->busy);
		free(s->srq_wrid);
		free(s->srq_db);
		free(s->srq);
	}
	free(s->cq->buf);
	free(s->cq);
	free(s->cq_db);
	free(s->other->buf);
	free(s->other);
	free(s->other_db);
	free(s->snap);
}

/* Sane device, at the end: complete everything, poll it all, account. */
static void drain(struct st *s)
{
	struct fz none = { NULL, 0 };
	unsigned int i, round;
	bool srq_qp = false;
	uint32_t k, last;

	for (round = 0; round < 8 * FZ_MAX_POSTS; round++) {
		bool wrote = false;

		for (i = 0; i < s->nqp; i++) {
			while (dev_sq(s, i, &none))
				wrote = true;
			while (dev_rq(s, i, &none))
				wrote = true;
			while (dev_srq(s, i, &none))
				wrote = true;
		}
		if (!wrote && !sw_run(s, s->cq->cons_index))
			break;
		do_poll(s, (int)s->ncqe);
	}
	FZ_ASSERT(!s->exp_n && !sw_run(s, s->cq->cons_index),
		  "%u CQEs never came out", s->exp_n);
	for (i = 0; i < s->nqp; i++) {
		struct fqp *f = &s->q[i];

		if (!f->qp)
			continue;
		srq_qp |= f->srq && f->recv_main;
		if (f->send_main) {
			for (last = k = 0; k < f->sq.n; k++)
				if (f->sq.rec[k].signaled)
					last = k + 1;
			for (k = 0; k < f->sq.n; k++)
				FZ_ASSERT(
					f->sq.rec[k].reported ==
							f->sq.rec[k].signaled &&
						f->sq.rec[k].retired ==
							(k < last),
					"QP %u SQ WR %u (signaled %d): "
					"reported %d, retired %d",
					i, k, f->sq.rec[k].signaled,
					f->sq.rec[k].reported,
					f->sq.rec[k].retired);
		}
		if (f->recv_main && !f->srq)
			for (k = 0; k < f->rq.n; k++)
				FZ_ASSERT(f->rq.rec[k].reported,
					  "QP %u RQ WR %u never came out", i,
					  k);
	}
	if (srq_qp) {
		for (k = 0; k < s->srqq.n; k++)
			FZ_ASSERT(s->srqq.rec[k].retired &&
					  s->srqq.rec[k].reported !=
						  s->srqq.rec[k].cleaned,
				  "SRQ WR %u: retired %d reported %d "
				  "cleaned %d",
				  k, s->srqq.rec[k].retired,
				  s->srqq.rec[k].reported,
				  s->srqq.rec[k].cleaned);
	}
}

/*
 * Operations: a byte, then its arguments.  Below 0xf8: post_send,
 * post_recv, post_srq_recv, the device (twice as likely), poll_cq, a
 * cq_ex session; from 0xf8: destroy a QP.
 */
static void run_op(struct st *s, struct fz *in)
{
	uint8_t op = fz_u8(in);

	if (op >= 0xf8) {
		destroy_qp(s, in);
		return;
	}
	switch (op % 7) {
	case 0:
		post_send(s, in);
		break;
	case 1:
		post_recv(s, in);
		break;
	case 2:
		post_srq(s, in);
		break;
	case 3:
	case 4:
		device(s, in);
		break;
	case 5:
		do_poll(s, (int)(fz_u8(in) % 20) - 2);
		break;
	default:
		do_poll_ex(s, in);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	struct st *s = &S;
	unsigned int ops;

	if (!g.uar) {
		g.uar = zalloc(M5_UAR_SIZE);
		m5_fake_ctx_init(&g.ctx, g.uar);
	}
	memset(s, 0, sizeof(*s));
	setup(s, &in);
	for (ops = 0; ops < FZ_MAX_OPS && in.n; ops++)
		run_op(s, &in);
	if (s->sane)
		drain(s);
	teardown(s);
	return 0;
}
