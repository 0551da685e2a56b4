// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * WR lists posted through the verbs API, the backend's rings and doorbell
 * records held to the mlx5dv reference (m5t_wq.h).  The backend's structs
 * give where its rings are and how big; what must be in them comes from
 * m5t_ref.c alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "mlx5/mlx5.h"
#include "m5t_wq.h"

/* Both rings and a scratch WQE; NULL rings if out of memory. */
struct m5t_rings {
	uint8_t *before;
	uint8_t *want;
	size_t len;
};

static bool m5t_rings_get(struct m5t_rings *r, const void *ring, size_t len)
{
	r->len = len;
	r->before = malloc(len);
	r->want = malloc(len);
	if (!r->before || !r->want) {
		printf("    out of memory\n");
		free(r->before);
		free(r->want);
		return false;
	}
	memcpy(r->before, ring, len);
	memcpy(r->want, ring, len);
	return true;
}

static void m5t_rings_put(struct m5t_rings *r)
{
	free(r->before);
	free(r->want);
}

/* What every post has to show: its return value and bad_wr. */
static bool m5t_ret_ok(const char *what, int got, int ret, const void *bad,
		       const void *want_bad)
{
	if (got != ret) {
		printf("    %s returned %d, expected %d\n", what, got, ret);
		return false;
	}
	if (ret && bad != want_bad) {
		printf("    %s: bad_wr %p, expected %p\n", what, bad, want_bad);
		return false;
	}
	return true;
}

static bool m5t_dbrec_ok(const char *what, const __be32 *rec, uint32_t want)
{
	if (*rec == htobe32(want))
		return true;
	printf("    %s dbrec 0x%08x, expected 0x%08x\n", what, be32toh(*rec),
	       want);
	return false;
}

void m5t_sq_init(struct m5t_sq *s, struct ibv_qp *qp, bool sig_all,
		 const struct m5t_ah_info *ahs, unsigned int nahs)
{
	memset(s, 0, sizeof(*s));
	s->qp = qp;
	s->info.qpn = qp->qp_num;
	s->info.ud = qp->qp_type == IBV_QPT_UD;
	s->info.sig_all = sig_all;
	s->info.ahs = ahs;
	s->info.nahs = nahs;
}

/* Lay the reference WQEs of the first n_ok WRs over r->want. */
static bool m5t_sq_refs(struct m5t_sq *s, struct m5t_rings *r,
			struct ibv_send_wr *wr, unsigned int n_ok,
			uint8_t *last, struct ibv_send_wr **next,
			uint64_t *bytes)
{
	uint8_t ref[M5T_REF_BUF] __attribute__((aligned(64)));
	uint32_t nbb = (uint32_t)(r->len / MLX5_SEND_WQE_BB);
	unsigned int i, n;
	bool ok = true;

	s->nds = 0;
	for (i = 0; wr && i < n_ok; i++, wr = wr->next) {
		ok &= m5t_ref_send_both(ref, &n, &s->info, s->pi, wr);
		if (!n || n > r->len) {
			printf("    WR %u (0x%llx): no reference WQE\n", i,
			       (unsigned long long)wr->wr_id);
			return false;
		}
		m5t_ring_put(r->want, r->len,
			     (size_t)(s->pi & (nbb - 1)) * MLX5_SEND_WQE_BB,
			     ref, n);
		if (s->nds < sizeof(s->ds)) {
			s->ds[s->nds] = (uint8_t)(n / 16);
			s->wqe_pi[s->nds++] = s->pi;
		}
		memcpy(last, ref, 8);
		if ((s->pi & (nbb - 1)) * MLX5_SEND_WQE_BB + n > r->len)
			s->wrapped++;
		s->pi += (n + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
		*bytes += n;
	}
	*next = wr;
	return ok && i == n_ok;
}

/*
 * Take over what the SQ holds in its free part: from producer index pi,
 * the slots of the WRs that may still be posted (max_post less those
 * outstanding), each a max_post-th of the ring.
 */
static void m5t_sq_free_part(const struct m5_qp *qp, uint8_t *want, size_t len,
			     uint16_t pi)
{
	uint32_t out = qp->sq.head - atomic_load(&qp->sq.tail);
	size_t off = (size_t)(pi & (qp->sq.wqe_cnt - 1)) * MLX5_SEND_WQE_BB;
	size_t n = (qp->sq.max_post - out) * (len / qp->sq.max_post);
	uint8_t *tmp = malloc(n ? n : 1);

	if (!tmp)
		return;
	m5t_ring_get(tmp, qp->sq.buf, len, off, n);
	m5t_ring_put(want, len, off, tmp, n);
	free(tmp);
}

static int m5t_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

bool m5t_sq_post(struct m5t_sq *s, struct ibv_send_wr *wr, int ret,
		 unsigned int n_ok, uint64_t *bytes)
{
	return m5t_sq_post_with(s, m5t_post_send, wr, ret, n_ok, bytes);
}

bool m5t_sq_post_with(struct m5t_sq *s, m5t_post_fn *post,
		      struct ibv_send_wr *wr, int ret, unsigned int n_ok,
		      uint64_t *bytes)
{
	struct m5_qp *qp = to_m5_qp(s->qp);
	struct ibv_send_wr *bad = NULL, *want_bad = NULL;
	uint8_t last[8] = { 0 }, db_before[8];
	struct m5t_rings r;
	uint16_t pi0 = s->pi;
	uint8_t *reg;
	bool ok;
	int got;

	if (!m5t_rings_get(&r, qp->sq.buf,
			   (size_t)qp->sq.wqe_cnt * MLX5_SEND_WQE_BB))
		return false;
	ok = m5t_sq_refs(s, &r, wr, n_ok, last, &want_bad, bytes);
	reg = (uint8_t *)qp->bf->reg + qp->bf->offset;
	memcpy(db_before, reg, 8);
	got = post(s->qp, wr, &bad);
	if (s->batch_api && got)
		m5t_sq_free_part(qp, r.want, r.len, s->pi);
	ok &= m5t_ret_ok(post == m5t_post_send ? "ibv_post_send" : "post", got,
			 ret, bad, want_bad);
	ok &= m5t_ring_same("SQ", qp->sq.buf, r.want, r.len);
	if ((uint16_t)qp->sq.cur_post != s->pi) {
		printf("    SQ producer 0x%04x, the reference's 0x%04x\n",
		       (uint16_t)qp->sq.cur_post, s->pi);
		ok = false;
	}
	ok &= m5t_dbrec_ok("SND", &qp->dbrec[MLX5_SND_DBR], s->pi);
	/* The doorbell: the last WQE's first 8 bytes (also by BlueFlame). */
	if (memcmp(reg, n_ok ? last : db_before, 8)) {
		printf("    doorbell register holds %016llx after WQEs "
		       "0x%04x..0x%04x\n",
		       (unsigned long long)be64toh(*(__be64 *)reg), pi0, s->pi);
		ok = false;
	}
	m5t_rings_put(&r);
	return ok;
}

void m5t_rq_init(struct m5t_rq *r, struct ibv_qp *qp, unsigned int max_gs)
{
	r->qp = qp;
	r->max_gs = max_gs;
	r->head = 0;
}

bool m5t_rq_post(struct m5t_rq *rq, struct ibv_recv_wr *wr, int ret,
		 unsigned int n_ok, uint64_t *bytes)
{
	uint8_t ref[M5T_REF_BUF] __attribute__((aligned(64)));
	struct m5_qp *qp = to_m5_qp(rq->qp);
	struct ibv_recv_wr *w = wr, *bad = NULL;
	size_t stride = (size_t)1 << qp->rq.wqe_shift;
	struct m5t_rings r;
	unsigned int i, n;
	bool ok = true;
	int got;

	if (!m5t_rings_get(&r, qp->rq.buf, qp->rq.wqe_cnt * stride))
		return false;
	for (i = 0; w && i < n_ok; i++, w = w->next) {
		ok &= m5t_ref_recv_both(ref, &n, w, rq->max_gs);
		if (n > stride) {
			printf("    receive WR %u: %u bytes in a %zu-byte "
			       "WQE\n",
			       i, n, stride);
			ok = false;
			n = (unsigned int)stride;
		}
		m5t_ring_put(r.want, r.len,
			     ((rq->head + i) & (qp->rq.wqe_cnt - 1)) * stride,
			     ref, n);
		*bytes += n;
	}
	got = ibv_post_recv(rq->qp, wr, &bad);
	ok &= m5t_ret_ok("ibv_post_recv", got, ret, bad, w);
	ok &= m5t_ring_same("RQ", qp->rq.buf, r.want, r.len);
	rq->head += i;
	ok &= m5t_dbrec_ok("RCV", &qp->dbrec[MLX5_RCV_DBR], rq->head & 0xffff);
	m5t_rings_put(&r);
	return ok;
}

int m5t_srq_init(struct m5t_srq *s, struct ibv_srq *srq, unsigned int max_gs)
{
	struct m5_srq *m = to_m5_srq(srq);
	uint32_t i, nfree = m->wq.max_post + 1;

	memset(s, 0, sizeof(*s));
	s->srq = srq;
	s->max_gs = max_gs;
	s->cnt = m->wq.wqe_cnt;
	s->next = calloc(s->cnt, sizeof(*s->next));
	if (!s->next)
		return -1;
	/*
	 * A new SRQ's free list runs 0 -> 1 -> ... -> max_wr, the tail; the
	 * wait queue after it (libmlx5's mlx5_alloc_srq_buf) takes no post.
	 */
	for (i = 0; i + 1 < nfree; i++)
		s->next[i] = (uint16_t)(i + 1);
	s->tail = (uint16_t)(nfree - 1);
	return 0;
}

void m5t_srq_fini(struct m5t_srq *s)
{
	free(s->next);
	s->next = NULL;
}

void m5t_srq_done(struct m5t_srq *s, uint16_t idx)
{
	s->next[s->tail] = idx;
	s->tail = idx;
}

bool m5t_srq_post(struct m5t_srq *s, struct ibv_recv_wr *wr, int ret,
		  unsigned int n_ok, uint16_t *idx, uint64_t *bytes)
{
	uint8_t ref[M5T_REF_BUF] __attribute__((aligned(64)));
	struct m5_srq *m = to_m5_srq(s->srq);
	size_t stride = (size_t)1 << m->wq.wqe_shift;
	struct ibv_recv_wr *w = wr, *bad = NULL;
	struct m5t_rings r;
	unsigned int i, n;
	bool ok = true;
	int got;

	if (!m5t_rings_get(&r, m->wq.buf, s->cnt * stride))
		return false;
	for (i = 0; w && i < n_ok; i++, w = w->next) {
		if (s->head == s->tail) {
			printf("    SRQ full at WR %u, yet expected taken\n",
			       i);
			ok = false;
			break;
		}
		idx[i] = s->head;
		/* The next segment links the WQE where the list says. */
		m5t_ref_srq_next(ref, s->next[s->head]);
		ok &= m5t_ring_same("SRQ next segment",
				    r.before + s->head * stride, ref, 16);
		s->head = s->next[s->head];
		ok &= m5t_ref_recv_both(ref, &n, w, s->max_gs);
		if (16 + n > stride) {
			printf("    SRQ WR %u: %u bytes in a %zu-byte WQE\n", i,
			       n, stride);
			ok = false;
			n = (unsigned int)stride - 16;
		}
		m5t_ring_put(r.want, r.len, idx[i] * stride + 16, ref, n);
		*bytes += 16 + n;
	}
	got = ibv_post_srq_recv(s->srq, wr, &bad);
	ok &= m5t_ret_ok("ibv_post_srq_recv", got, ret, bad, w);
	ok &= m5t_ring_same("SRQ", m->wq.buf, r.want, r.len);
	s->posted += (uint16_t)i;
	ok &= m5t_dbrec_ok("SRQ", &m->dbrec[0], s->posted);
	m5t_rings_put(&r);
	return ok;
}
