// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_wr_* API of the mlx5 backend on the software ConnectX: what
 * create_qp_ex takes, every opcode's WQE byte for byte against the mlx5dv
 * reference (m5t_ref.c), the same WQEs as ibv_post_send for the same work,
 * and the batch rules of ibv_wr_post(3): one doorbell per wr_complete, a
 * batch with an error (or a full SQ) discarded whole, wr_abort, and a QP
 * that works after each.  The random lists are in test_property.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "mlx5/mlx5.h"
#include "check.h"
#include "m5t_cqe.h"
#include "m5t_ref.h"
#include "m5t_verbs.h"
#include "m5t_wq.h"
#include "m5t_wr.h"

#define BUF	(64 * 1024)
#define QKEY	0x11112222u
#define MAX_QPS 2
#define ALL_OPS                                                                \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define UD_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

struct wt_opts {
	enum ibv_qp_type type;
	uint64_t ops; /* send_ops_flags of the senders */
	struct ibv_qp_cap cap;
	bool sig_all;
};

/* Senders a[i] (ibv_wr_* API) to receivers b[i], on one device. */
struct wt {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a[MAX_QPS], *b[MAX_QPS];
	struct ibv_qp_cap cap; /* a[0]'s, as created */
	struct m5t_sq sq[MAX_QPS];
	struct m5t_ah_info ah;
	unsigned int nah;
	uint64_t bytes;
	uint32_t recv_off;
};

static const struct wt_opts rc_opts = {
	.type = IBV_QPT_RC,
	.ops = ALL_OPS,
	.cap = { .max_send_wr = 32,
		 .max_recv_wr = 256,
		 .max_send_sge = 4,
		 .max_recv_sge = 1,
		 .max_inline_data = 200 },
};

static struct ibv_qp *wt_qp(struct wt *t, const struct wt_opts *o, bool sender,
			    struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = sender ? t->acq : t->bcq,
		.recv_cq = sender ? t->acq : t->bcq,
		.qp_type = o->type,
		.cap = o->cap,
		.sq_sig_all = o->sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = t->pd,
	};
	struct ibv_qp *qp;

	if (sender) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = o->ops;
	}
	qp = ibv_create_qp_ex(t->ctx, &qa);
	if (cap)
		*cap = qa.cap;
	return qp;
}

/* The device alone (no QPs): for the create tests. */
static int wt_dev(struct wt *t, bool atomic)
{
	struct m5m_config cfg;

	memset(t, 0, sizeof(*t));
	m5m_config_default(&cfg);
	cfg.atomic = atomic;
	t->dev = m5m_dev_create(&cfg);
	t->ctx = t->dev ? m5m_open(t->dev) : NULL;
	t->pd = t->ctx ? ibv_alloc_pd(t->ctx) : NULL;
	if (!t->pd)
		return -1;
	t->acq = ibv_create_cq(t->ctx, 512, NULL, NULL, 0);
	t->bcq = ibv_create_cq(t->ctx, 512, NULL, NULL, 0);
	return t->acq && t->bcq ? 0 : -1;
}

/* A UD AH to port 1 the reference knows the AV of (InfiniBand, no GRH). */
static int wt_ah(struct wt *t)
{
	struct ibv_ah_attr aa = { .dlid = m5m_port_lid(t->dev, 1),
				  .sl = 3,
				  .static_rate = IBV_RATE_25_GBPS,
				  .port_num = 1 };
	static const uint8_t nomac[6];

	t->ah.ah = ibv_create_ah(t->pd, &aa);
	if (!t->ah.ah)
		return -1;
	t->nah = 1;
	m5t_ref_av(&t->ah.av, &aa, false, IBV_GID_TYPE_IB, nomac, 0);
	return 0;
}

static int wt_open(struct wt *t, const struct wt_opts *o, unsigned int nqp)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	unsigned int i;

	if (wt_dev(t, true))
		return -1;
	t->abuf = aligned_alloc(4096, BUF);
	t->bbuf = aligned_alloc(4096, BUF);
	if (!t->abuf || !t->bbuf)
		return -1;
	for (i = 0; i < BUF; i++) {
		t->abuf[i] = (uint8_t)(i * 7 + (i >> 9));
		t->bbuf[i] = (uint8_t)(i * 13 + 5);
	}
	t->amr = ibv_reg_mr(t->pd, t->abuf, BUF, access);
	t->bmr = ibv_reg_mr(t->pd, t->bbuf, BUF, access);
	if (!t->amr || !t->bmr)
		return -1;
	if (o->type == IBV_QPT_UD && wt_ah(t))
		return -1;
	for (i = 0; i < nqp; i++) {
		t->a[i] = wt_qp(t, o, true, i ? NULL : &t->cap);
		t->b[i] = wt_qp(t, o, false, NULL);
		if (!t->a[i] || !t->b[i])
			return -1;
		if (o->type == IBV_QPT_RC) {
			if (m5t_rc_pair(t->dev, t->a[i], t->b[i], 7))
				return -1;
		} else if (m5t_ud_up(t->a[i], QKEY) ||
			   m5t_ud_up(t->b[i], QKEY)) {
			return -1;
		}
		m5t_sq_init(&t->sq[i], t->a[i], o->sig_all, &t->ah, t->nah);
		t->sq[i].batch_api = true;
	}
	return 0;
}

static void wt_close(struct wt *t)
{
	unsigned int i;

	for (i = 0; i < MAX_QPS; i++) {
		if (t->a[i])
			CHECK_EQ(ibv_destroy_qp(t->a[i]), 0);
		if (t->b[i])
			CHECK_EQ(ibv_destroy_qp(t->b[i]), 0);
	}
	if (t->ah.ah)
		CHECK_EQ(ibv_destroy_ah(t->ah.ah), 0);
	if (t->acq)
		CHECK_EQ(ibv_destroy_cq(t->acq), 0);
	if (t->bcq)
		CHECK_EQ(ibv_destroy_cq(t->bcq), 0);
	if (t->amr)
		CHECK_EQ(ibv_dereg_mr(t->amr), 0);
	if (t->bmr)
		CHECK_EQ(ibv_dereg_mr(t->bmr), 0);
	if (t->pd)
		CHECK_EQ(ibv_dealloc_pd(t->pd), 0);
	m5t_dev_close(t->dev, t->ctx);
	free(t->abuf);
	free(t->bbuf);
}

/* n receives of 4 KiB on b[i] (second half of B). */
static void wt_recvs(struct wt *t, unsigned int i, unsigned int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;

	while (n--) {
		sge = (struct ibv_sge){ (uintptr_t)t->bbuf + BUF / 2 +
						(t->recv_off++ % 8) * 4096,
					4096, t->bmr->lkey };
		wr = (struct ibv_recv_wr){ .wr_id = 0x5000 + t->recv_off,
					   .sg_list = &sge,
					   .num_sge = 1 };
		CHECK_EQ(ibv_post_recv(t->b[i], &wr, &bad), 0);
	}
}

/* SGE k of a WR: somewhere in A, of length len. */
static struct ibv_sge wt_sge(struct wt *t, unsigned int k, uint32_t len)
{
	return (struct ibv_sge){ (uintptr_t)t->abuf + 64 + k * 997, len,
				 t->amr->lkey };
}

/*
 * A WR of opcode op with data in style d: 0 none, 1 one SGE, 2 an SGE
 * list (one of them empty), 3 one inline buffer, 4 an inline list.
 */
static void wt_wr(struct wt *t, struct ibv_send_wr *wr, struct ibv_sge *sg,
		  enum ibv_wr_opcode op, unsigned int d, uint64_t id)
{
	static const uint32_t lens[] = { 40, 0, 100, 17 };
	bool atomic = op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		      op == IBV_WR_ATOMIC_FETCH_AND_ADD;
	/* READ and atomic results land apart from what is sent. */
	uint64_t dst = op == IBV_WR_RDMA_READ || atomic ? BUF / 2 : 0;
	unsigned int k;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->opcode = op;
	wr->sg_list = sg;
	wr->imm_data = htobe32(0xabc00000u | (uint32_t)id);
	wr->send_flags = IBV_SEND_SIGNALED | (id & 2 ? IBV_SEND_SOLICITED : 0) |
			 (id & 4 ? IBV_SEND_FENCE : 0);
	switch (d) {
	case 0:
		break;
	case 1:
	case 3:
		sg[0] = wt_sge(t, 0, atomic ? 8 : 56 + (uint32_t)id % 64);
		sg[0].addr += dst;
		wr->num_sge = 1;
		break;
	default:
		for (k = 0; k < 4; k++) {
			sg[k] = wt_sge(t, k, lens[k]);
			sg[k].addr += dst;
		}
		wr->num_sge = 4;
		break;
	}
	if (d >= 3)
		wr->send_flags |= IBV_SEND_INLINE;
	if (atomic) {
		wr->wr.atomic.remote_addr = (uintptr_t)t->bbuf + 8 * id;
		wr->wr.atomic.rkey = t->bmr->rkey;
		wr->wr.atomic.compare_add = 0x1234 + id;
		wr->wr.atomic.swap = 0xfeed0000 + id;
	} else if (t->ah.ah) { /* UD */
		wr->wr.ud.ah = t->ah.ah;
		wr->wr.ud.remote_qpn = t->b[0]->qp_num;
		wr->wr.ud.remote_qkey = QKEY;
	} else if (t->bmr) {
		wr->wr.rdma.remote_addr = (uintptr_t)t->bbuf + 1024 + 3 * id;
		wr->wr.rdma.rkey = t->bmr->rkey;
	}
}

/* The signaled WRs of a batch complete, in order, successfully. */
static void wt_wcs(struct wt *t, const uint64_t *ids, unsigned int n)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		CHECK_EQ(m5t_cqe_poll(t->acq, &wc, NULL), 1);
		CHECK_EQ(wc.wr_id, ids[i]);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	}
	CHECK_EQ(m5t_cqe_poll(t->acq, &wc, NULL), 0);
	/* The receiver's side: drained, whatever it holds. */
	while (ibv_poll_cq(t->bcq, 1, &wc) > 0)
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
}

/* --- create_qp_ex ------------------------------------------------------ */

static int wt_create_errno(struct wt *t, enum ibv_qp_type type, uint64_t ops)
{
	struct wt_opts o = rc_opts;
	struct ibv_qp *qp;

	o.type = type;
	o.ops = ops;
	errno = 0;
	qp = wt_qp(t, &o, true, NULL);
	if (qp) {
		CHECK_EQ(ibv_destroy_qp(qp), 0);
		return 0;
	}
	return errno;
}

static void create_refuses_what_the_backend_lacks(void)
{
	static const uint64_t lacks[] = {
		IBV_QP_EX_WITH_LOCAL_INV,
		IBV_QP_EX_WITH_BIND_MW,
		IBV_QP_EX_WITH_TSO,
		1ull << 11, /* IBV_QP_EX_WITH_FLUSH */
		IBV_QP_EX_WITH_ATOMIC_WRITE,
		1ull << 40,
	};
	struct wt_opts o = rc_opts;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	unsigned int i;
	struct wt t;

	CHECK_EQ(wt_dev(&t, true), 0);
	if (check_failed)
		goto out;
	for (i = 0; i < sizeof(lacks) / sizeof(lacks[0]); i++) {
		CHECK_EQ(wt_create_errno(&t, IBV_QPT_RC, ALL_OPS | lacks[i]),
			 EOPNOTSUPP);
		CHECK_EQ(wt_create_errno(&t, IBV_QPT_UD, lacks[i]), EOPNOTSUPP);
	}
	/* Not on UD: RDMA and atomics. */
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE),
		 EOPNOTSUPP);
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_UD,
				 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD),
		 EOPNOTSUPP);
	/* An XRC initiator takes an RC requester's opcodes. */
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_XRC_SEND, IBV_QP_EX_WITH_SEND), 0);
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_UD, IBV_QP_EX_WITH_SEND_WITH_INV),
		 EOPNOTSUPP);
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_RC,
				 ALL_OPS | IBV_QP_EX_WITH_SEND_WITH_INV),
		 0);
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_UD, UD_OPS), 0);
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_RC, ALL_OPS), 0);
	CHECK_EQ(wt_create_errno(&t, IBV_QPT_RC, 0), 0);
	/* The API is there with send_ops_flags, and only then. */
	qp = wt_qp(&t, &o, true, NULL);
	CHECK(qp);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	CHECK(qpx && qpx->wr_start && qpx->wr_complete && qpx->wr_abort &&
	      qpx->wr_send && qpx->wr_rdma_read && qpx->wr_set_sge_list &&
	      qpx->wr_set_inline_data_list && qpx->wr_bind_mw &&
	      qpx->wr_local_inv && qpx->wr_send_inv && qpx->wr_send_tso);
	if (qp)
		CHECK_EQ(ibv_destroy_qp(qp), 0);
	qp = wt_qp(&t, &o, false, NULL);
	CHECK(qp && !ibv_qp_to_qp_ex(qp));
	if (qp)
		CHECK_EQ(ibv_destroy_qp(qp), 0);
out:
	wt_close(&t);
	/* A device without atomics: none through the API either. */
	CHECK_EQ(wt_dev(&t, false), 0);
	if (!check_failed) {
		CHECK_EQ(wt_create_errno(&t, IBV_QPT_RC,
					 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP),
			 EOPNOTSUPP);
		CHECK_EQ(wt_create_errno(&t, IBV_QPT_RC,
					 IBV_QP_EX_WITH_RDMA_READ),
			 0);
	}
	wt_close(&t);
}

/* --- WQEs -------------------------------------------------------------- */

static const enum ibv_wr_opcode rc_ops[] = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
};

/* The data styles an opcode may have (wt_wr). */
static bool wt_style_ok(enum ibv_wr_opcode op, unsigned int d)
{
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD)
		return d == 1;
	if (op == IBV_WR_RDMA_READ)
		return d <= 2;
	return true;
}

/* Each opcode, each data style, alone and then all in one batch. */
static void wt_every_opcode(const struct wt_opts *o, unsigned int nops)
{
	static struct ibv_send_wr wrs[64];
	static struct ibv_sge sgs[64][4];
	uint64_t ids[64], id = 0;
	unsigned int i, d, n = 0;
	struct wt t;

	CHECK_EQ(wt_open(&t, o, 1), 0);
	if (check_failed)
		goto out;
	wt_recvs(&t, 0, 128);
	for (i = 0; i < nops; i++) {
		for (d = 0; d < 5 && !check_failed; d++) {
			if (!wt_style_ok(rc_ops[i], d))
				continue;
			wt_wr(&t, &wrs[n], sgs[n], rc_ops[i], d, ++id);
			CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, &wrs[n],
					       0, 1, &t.bytes));
			ids[0] = id;
			wt_wcs(&t, ids, 1);
			n++;
		}
	}
	/* The same WRs again, as one batch. */
	for (i = 0; i < n; i++) {
		wrs[i].wr_id = ids[i] = ++id;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	CHECK(n <= t.cap.max_send_wr);
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, wrs, 0, n, &t.bytes));
	wt_wcs(&t, ids, n);
	printf("    %u WRs, %llu WQE bytes held to mlx5dv\n", 2 * n,
	       (unsigned long long)t.bytes);
out:
	wt_close(&t);
}

static void rc_every_opcode_matches_mlx5dv(void)
{
	wt_every_opcode(&rc_opts, sizeof(rc_ops) / sizeof(rc_ops[0]));
}

static void ud_send_matches_mlx5dv(void)
{
	struct wt_opts o = rc_opts;

	o.type = IBV_QPT_UD;
	o.ops = UD_OPS;
	wt_every_opcode(&o, 2);
}

/*
 * The WQEs from WQEBB from to the producer index, out of the SQ ring, with
 * the QP number (ctrl bytes 4..6) zeroed; *len their length.
 */
static uint8_t *wt_wqes_no_qpn(struct ibv_qp *ibqp, uint32_t from, size_t *len)
{
	struct m5_qp *qp = to_m5_qp(ibqp);
	size_t ring = (size_t)qp->sq.wqe_cnt * MLX5_SEND_WQE_BB;
	uint32_t bb, ds;
	uint8_t *r;

	*len = (size_t)(qp->sq.cur_post - from) * MLX5_SEND_WQE_BB;
	r = malloc(*len ? *len : 1);
	if (!r)
		return NULL;
	m5t_ring_get(r, qp->sq.buf, ring,
		     (size_t)(from & (qp->sq.wqe_cnt - 1)) * MLX5_SEND_WQE_BB,
		     *len);
	for (bb = 0; bb < qp->sq.cur_post - from;) {
		uint8_t *c = r + (size_t)bb * MLX5_SEND_WQE_BB;

		ds = c[7] & 0x3f;
		memset(c + 4, 0, 3);
		bb += ds ? (ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB
			 : 1;
	}
	return r;
}

/*
 * The same lists on two QPs of one device, with the same buffers and
 * keys: by ibv_post_send on one, by ibv_wr_* on the other.  The rings,
 * producer indexes and dbrecs must be the same but for the QP numbers.
 */
static void same_wqes_as_post_send(void)
{
	static struct ibv_send_wr wrs[16];
	static struct ibv_sge sgs[16][4];
	struct ibv_send_wr *bad;
	struct m5_qp *p, *w;
	uint64_t ids[16], id = 0;
	unsigned int i, n, round;
	uint8_t *rp, *rw;
	size_t lp, lw;
	uint32_t from;
	struct wt t;

	CHECK_EQ(wt_open(&t, &rc_opts, 2), 0);
	if (check_failed)
		goto out;
	p = to_m5_qp(t.a[0]);
	w = to_m5_qp(t.a[1]);
	/* Both rings start from the same bytes. */
	memset(p->sq.buf, 0xa5, (size_t)p->sq.wqe_cnt * MLX5_SEND_WQE_BB);
	memset(w->sq.buf, 0xa5, (size_t)w->sq.wqe_cnt * MLX5_SEND_WQE_BB);
	CHECK_EQ(p->sq.wqe_cnt, w->sq.wqe_cnt);
	wt_recvs(&t, 0, 250);
	wt_recvs(&t, 1, 250);
	for (round = 0; round < 40 && !check_failed; round++) {
		n = 1 + round % 7;
		for (i = 0; i < n; i++) {
			enum ibv_wr_opcode op = rc_ops[(round + i) % 7];
			unsigned int d = (round * 3 + i) % 5;

			while (!wt_style_ok(op, d))
				d = (d + 1) % 5;
			wt_wr(&t, &wrs[i], sgs[i], op, d, ++id);
			ids[i] = id;
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		}
		from = p->sq.cur_post;
		CHECK_EQ(from, w->sq.cur_post);
		CHECK_EQ(ibv_post_send(t.a[0], wrs, &bad), 0);
		wt_wcs(&t, ids, n);
		CHECK_EQ(m5t_wr_post(t.a[1], wrs, &bad), 0);
		wt_wcs(&t, ids, n);
		CHECK_EQ(p->sq.cur_post, w->sq.cur_post);
		CHECK_EQ(p->dbrec[MLX5_SND_DBR], w->dbrec[MLX5_SND_DBR]);
		rp = wt_wqes_no_qpn(t.a[0], from, &lp);
		rw = wt_wqes_no_qpn(t.a[1], from, &lw);
		CHECK(rp && rw && lp == lw && lp);
		if (rp && rw && lp == lw)
			CHECK(m5t_ring_same("WQEs (ibv_wr_* vs ibv_post_send)",
					    rw, rp, lp));
		free(rp);
		free(rw);
	}
	printf("    %llu WRs each way, the SQ wrapped %u times\n",
	       (unsigned long long)id / 2, p->sq.cur_post / p->sq.wqe_cnt);
out:
	wt_close(&t);
}

/* --- Batches ----------------------------------------------------------- */

/* What the device can see of a QP's SQ. */
struct wt_seen {
	uint32_t cur_post, head;
	__be32 dbrec;
	uint8_t reg[8];
	struct m5m_stats st;
};

static void wt_seen(struct wt *t, unsigned int i, struct wt_seen *s)
{
	struct m5_qp *qp = to_m5_qp(t->a[i]);

	s->cur_post = qp->sq.cur_post;
	s->head = qp->sq.head;
	s->dbrec = qp->dbrec[MLX5_SND_DBR];
	memcpy(s->reg, (uint8_t *)qp->bf->reg + qp->bf->offset, 8);
	m5m_get_stats(t->dev, &s->st);
}

/* Nothing rung: neither the dbrec nor the doorbell moved. */
static void wt_nothing_rung(struct wt *t, unsigned int i,
			    const struct wt_seen *before)
{
	struct wt_seen now;

	wt_seen(t, i, &now);
	CHECK_EQ(now.cur_post, before->cur_post);
	CHECK_EQ(now.head, before->head);
	CHECK_EQ(now.dbrec, before->dbrec);
	CHECK(!memcmp(now.reg, before->reg, 8));
	CHECK_EQ(now.st.doorbells, before->st.doorbells);
	CHECK_EQ(now.st.wqes, before->st.wqes);
}

/* ... and nothing completes. */
static void wt_nothing_seen(struct wt *t, unsigned int i,
			    const struct wt_seen *before)
{
	struct ibv_wc wc;

	wt_nothing_rung(t, i, before);
	CHECK_EQ(ibv_poll_cq(t->acq, 1, &wc), 0);
}

/* A good batch of n WRs right after: taken, rung once, completed. */
static void wt_next_batch_works(struct wt *t, unsigned int n, uint64_t *id)
{
	static struct ibv_send_wr wrs[16];
	static struct ibv_sge sgs[16][4];
	struct wt_seen before, after;
	uint64_t ids[16];
	unsigned int i;

	for (i = 0; i < n; i++) {
		wt_wr(t, &wrs[i], sgs[i], rc_ops[i % 7], 1, ++*id);
		ids[i] = *id;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	wt_seen(t, 0, &before);
	CHECK(m5t_sq_post_with(&t->sq[0], m5t_wr_post, wrs, 0, n, &t->bytes));
	wt_seen(t, 0, &after);
	CHECK_EQ(after.st.doorbells - before.st.doorbells, 1);
	CHECK_EQ(after.st.wqes - before.st.wqes, n);
	wt_wcs(t, ids, n);
}

static void abort_leaves_nothing_visible(void)
{
	struct ibv_qp_ex *qpx;
	struct wt_seen before;
	struct ibv_sge sg[4];
	struct ibv_send_wr wr;
	uint64_t id = 0;
	unsigned int j, k;
	struct wt t;

	CHECK_EQ(wt_open(&t, &rc_opts, 1), 0);
	if (check_failed)
		goto out;
	wt_recvs(&t, 0, 64);
	qpx = ibv_qp_to_qp_ex(t.a[0]);
	for (k = 0; k < 3 && !check_failed; k++) {
		wt_seen(&t, 0, &before);
		ibv_wr_start(qpx);
		/* Nothing, two WRs, four WRs: then abort. */
		for (j = 0; j < 2 * k; j++) {
			wt_wr(&t, &wr, sg, rc_ops[j % 7], 1, ++id);
			CHECK(m5t_wr_one(qpx, &wr));
		}
		ibv_wr_abort(qpx);
		wt_nothing_seen(&t, 0, &before);
		/* The lock is free again and the QP as it was. */
		wt_next_batch_works(&t, 1 + k, &id);
	}
	/* An empty batch completes with nothing rung. */
	wt_seen(&t, 0, &before);
	ibv_wr_start(qpx);
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	wt_nothing_seen(&t, 0, &before);
out:
	wt_close(&t);
}

/*
 * A batch of good WRs with a bad one at position bad_at: wr_complete
 * returns err, nothing is seen, and the next batch works.
 */
static void wt_bad_batch(const struct wt_opts *o,
			 void (*spoil)(struct wt *, struct ibv_send_wr *,
				       struct ibv_sge *),
			 int err)
{
	static struct ibv_send_wr wrs[8];
	static struct ibv_sge sgs[8][8];
	struct wt_seen before;
	unsigned int i, n = 5, bad_at;
	uint64_t id = 0;
	struct wt t;

	CHECK_EQ(wt_open(&t, o, 1), 0);
	if (check_failed)
		goto out;
	wt_recvs(&t, 0, 64);
	for (bad_at = 0; bad_at < n && !check_failed; bad_at++) {
		for (i = 0; i < n; i++) {
			wt_wr(&t, &wrs[i], sgs[i], rc_ops[(i + 1) % 3], 1,
			      ++id);
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		}
		spoil(&t, &wrs[bad_at], sgs[bad_at]);
		wt_seen(&t, 0, &before);
		CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, wrs, err, 0,
				       &t.bytes));
		wt_nothing_seen(&t, 0, &before);
		wt_next_batch_works(&t, 1 + bad_at % 3, &id);
	}
out:
	wt_close(&t);
}

static void wt_too_many_sges(struct wt *t, struct ibv_send_wr *wr,
			     struct ibv_sge *sg)
{
	unsigned int k;

	for (k = 0; k < t->cap.max_send_sge + 1; k++)
		sg[k] = wt_sge(t, k % 4, 8);
	wr->num_sge = (int)t->cap.max_send_sge + 1;
}

static void bad_sge_count_discards_batch(void)
{
	wt_bad_batch(&rc_opts, wt_too_many_sges, ENOMEM);
}

static void wt_too_much_inline(struct wt *t, struct ibv_send_wr *wr,
			       struct ibv_sge *sg)
{
	/* max_inline_data + 1 in two buffers. */
	sg[0] = wt_sge(t, 0, t->cap.max_inline_data / 2);
	sg[1] = wt_sge(t, 1, t->cap.max_inline_data - sg[0].length + 1);
	wr->num_sge = 2;
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void too_much_inline_discards_batch(void)
{
	/* ENOMEM, as libmlx5 v44 (qp.c, set_data_inl_seg) and post_send. */
	wt_bad_batch(&rc_opts, wt_too_much_inline, ENOMEM);
}

static void wt_read_op(struct wt *t, struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_RDMA_READ;
}

/* A QP created without RDMA READ in send_ops_flags. */
static void op_not_in_send_ops_discards_batch(void)
{
	struct wt_opts o = rc_opts;

	o.ops &= ~(uint64_t)IBV_QP_EX_WITH_RDMA_READ;
	wt_bad_batch(&o, wt_read_op, EINVAL);
}

static void wt_atomic_write_op(struct wt *t, struct ibv_send_wr *wr,
			       struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_ATOMIC_WRITE;
}

/* The ConnectX has no ATOMIC WRITE: its builder fails the batch. */
static void atomic_write_discards_batch_eopnotsupp(void)
{
	wt_bad_batch(&rc_opts, wt_atomic_write_op, EOPNOTSUPP);
}

static void wt_local_inv_op(struct wt *t, struct ibv_send_wr *wr,
			    struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_LOCAL_INV;
	wr->invalidate_rkey = t->bmr->rkey;
}

static void wt_send_inv_op(struct wt *t, struct ibv_send_wr *wr,
			   struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_SEND_WITH_INV;
	wr->invalidate_rkey = t->bmr->rkey;
}

static void wt_bind_mw_op(struct wt *t, struct ibv_send_wr *wr,
			  struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_BIND_MW;
	wr->bind_mw.mw = NULL;
	wr->bind_mw.bind_info.mr = t->bmr;
}

static void wt_tso_op(struct wt *t, struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_TSO;
	wr->tso.hdr = t->bbuf;
	wr->tso.hdr_sz = 64;
	wr->tso.mss = 1024;
}

/*
 * LOCAL_INV, BIND_MW and TSO: ConnectX opcodes this backend lacks
 * (query_device does not advertise them): their builders fail the
 * batch with EOPNOTSUPP, as post_send answers (core/attr.h's policy).
 */
static void local_inv_discards_batch_eopnotsupp(void)
{
	wt_bad_batch(&rc_opts, wt_local_inv_op, EOPNOTSUPP);
}

/*
 * wr_send_inv: libmlx5's WQE (SEND_INVAL, the rkey in imm; checked against
 * the mlx5dv reference).  The responder will not invalidate an ibv_reg_mr
 * key (mlx5_ib creates those without en_rinval): the receive and the
 * requester both complete with REM_INV_REQ_ERR.
 */
static void send_inv_posts_libmlx5s_wqe_and_an_mr_key_is_refused(void)
{
	struct wt_opts o = rc_opts;
	struct ibv_send_wr wr;
	struct ibv_sge sg[8];
	struct ibv_wc wc;
	struct wt t;

	o.ops |= IBV_QP_EX_WITH_SEND_WITH_INV;
	CHECK_EQ(wt_open(&t, &o, 1), 0);
	if (check_failed)
		goto out;
	wt_recvs(&t, 0, 1);
	wt_wr(&t, &wr, sg, IBV_WR_SEND, 1, 7);
	wt_send_inv_op(&t, &wr, sg);
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, &wr, 0, 1, &t.bytes));
	CHECK_EQ(m5t_cqe_poll(t.bcq, &wc, NULL), 1);
	CHECK_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR);
	CHECK_EQ(m5t_cqe_poll(t.acq, &wc, NULL), 1);
	CHECK_EQ(wc.wr_id, 7);
	CHECK_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR);
out:
	wt_close(&t);
}

static void bind_mw_discards_batch_eopnotsupp(void)
{
	wt_bad_batch(&rc_opts, wt_bind_mw_op, EOPNOTSUPP);
}

static void tso_discards_batch_eopnotsupp(void)
{
	wt_bad_batch(&rc_opts, wt_tso_op, EOPNOTSUPP);
}

static void wt_bad_flag(struct wt *t, struct ibv_send_wr *wr,
			struct ibv_sge *sg)
{
	/* A bit libibverbs defines no flag for (IP_CSUM is taken, ignored). */
	wr->send_flags |= 1u << 20;
}

static void unknown_wr_flags_discard_batch(void)
{
	wt_bad_batch(&rc_opts, wt_bad_flag, EINVAL);
}

static void wt_short_atomic(struct wt *t, struct ibv_send_wr *wr,
			    struct ibv_sge *sg)
{
	wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr->wr.atomic.remote_addr = (uintptr_t)t->bbuf + 64;
	wr->wr.atomic.rkey = t->bmr->rkey;
	sg[0].length = 4;
}

static void short_atomic_sge_discards_batch(void)
{
	wt_bad_batch(&rc_opts, wt_short_atomic, EINVAL);
}

/*
 * max_post WRs fit; one more in the same batch is ENOMEM for all of
 * them; and so is any batch while the SQ is full, until the CQ is polled.
 */
static void sq_full_enomem_discards_batch(void)
{
	static struct ibv_send_wr wrs[80];
	static struct ibv_sge sgs[80][4];
	struct wt_opts o = rc_opts;
	struct wt_seen before;
	uint64_t ids[80], id = 0;
	unsigned int i, max;
	struct wt t;

	o.cap.max_send_wr = 8;
	CHECK_EQ(wt_open(&t, &o, 1), 0);
	if (check_failed)
		goto out;
	wt_recvs(&t, 0, 16);
	max = to_m5_qp(t.a[0])->sq.max_post;
	CHECK(max >= 8 && max < 80);
	if (check_failed)
		goto out;
	for (i = 0; i <= max; i++) {
		wt_wr(&t, &wrs[i], sgs[i], IBV_WR_RDMA_WRITE, 1, ++id);
		ids[i] = id;
		wrs[i].next = i < max ? &wrs[i + 1] : NULL;
	}
	wt_seen(&t, 0, &before);
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, wrs, ENOMEM, 0,
			       &t.bytes));
	wt_nothing_seen(&t, 0, &before);
	/* Exactly max_post: taken. */
	wrs[max - 1].next = NULL;
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, wrs, 0, max, &t.bytes));
	/* Full until polled. */
	wt_seen(&t, 0, &before);
	wrs[max].next = NULL;
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, &wrs[max], ENOMEM, 0,
			       &t.bytes));
	wt_nothing_rung(&t, 0, &before);
	wt_wcs(&t, ids, max);
	wt_next_batch_works(&t, 3, &id);
out:
	wt_close(&t);
}

/*
 * A UD QP without SGEs or inline data: its 64-byte WQE slot is all
 * control and datagram segments, so there is no room for inline data
 * (max_inline_data 0, not 0 - 4 wrapped).  Inline data is refused by
 * wr_complete (ENOMEM: too long) and by ibv_post_send (ENOMEM: its SGE is
 * one too many), with nothing rung, rather than built as
 * a 2-WQEBB WQE in the 1-WQEBB SQ; a WR without data is taken, and a
 * second one in the same batch finds the SQ full.
 */
static void no_inline_room_refuses_inline_data(void)
{
	struct wt_opts o = {
		.type = IBV_QPT_UD,
		.ops = UD_OPS,
		.cap = { .max_send_wr = 1,
			 .max_recv_wr = 16,
			 .max_send_sge = 0,
			 .max_recv_sge = 1,
			 .max_inline_data = 0 },
	};
	struct ibv_send_wr wr[2], *bad;
	struct ibv_qp_ex *qpx;
	struct wt_seen before;
	struct ibv_sge sg[4];
	uint64_t id = 2;
	struct wt t;

	CHECK_EQ(wt_open(&t, &o, 1), 0);
	if (check_failed)
		goto out;
	CHECK_EQ(t.cap.max_send_wr, 1);
	CHECK_EQ(t.cap.max_inline_data, 0);
	CHECK_EQ(to_m5_qp(t.a[0])->sq.wqe_cnt, 1);
	if (check_failed)
		goto out;
	wt_recvs(&t, 0, 4);
	qpx = ibv_qp_to_qp_ex(t.a[0]);
	/* One inline buffer of 57 bytes. */
	wt_wr(&t, &wr[0], sg, IBV_WR_SEND, 3, 1);
	wt_seen(&t, 0, &before);
	ibv_wr_start(qpx);
	CHECK(m5t_wr_one(qpx, &wr[0]));
	CHECK_EQ(ibv_wr_complete(qpx), ENOMEM);
	wt_nothing_seen(&t, 0, &before);
	/* Its one SGE is more than max_send_sge 0: ENOMEM, as libmlx5. */
	CHECK_EQ(ibv_post_send(t.a[0], &wr[0], &bad), ENOMEM);
	CHECK(bad == &wr[0]);
	wt_nothing_seen(&t, 0, &before);
	/* Two WRs without data: the second finds the SQ full. */
	wt_wr(&t, &wr[0], sg, IBV_WR_SEND, 0, 2);
	wt_wr(&t, &wr[1], sg, IBV_WR_SEND_WITH_IMM, 0, 3);
	wr[0].next = &wr[1];
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, wr, ENOMEM, 0, &t.bytes));
	wt_nothing_seen(&t, 0, &before);
	/* One is taken and completes. */
	wr[0].next = NULL;
	CHECK(m5t_sq_post_with(&t.sq[0], m5t_wr_post, wr, 0, 1, &t.bytes));
	wt_wcs(&t, &id, 1);
out:
	wt_close(&t);
}

/*
 * Before the first RTS the batch is refused with EINVAL, as libmlx5 v44's
 * wr_complete refuses it (qp.c, mlx5_send_wr_complete_error, installed
 * until the first RTS); its ibv_post_send says ENOMEM (no SGE fits).
 */
static void batch_before_first_rts_refused_einval(void)
{
	struct wt_opts o = rc_opts;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_ex *qpx;
	struct wt_seen before;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sg[4];
	struct ibv_qp *qp;
	struct wt t;

	CHECK_EQ(wt_dev(&t, true), 0);
	if (check_failed)
		goto out;
	t.abuf = aligned_alloc(4096, BUF);
	t.amr = t.abuf ? ibv_reg_mr(t.pd, t.abuf, BUF, IBV_ACCESS_LOCAL_WRITE)
		       : NULL;
	qp = t.a[0] = wt_qp(&t, &o, true, &t.cap);
	CHECK(qp && t.amr);
	if (check_failed)
		goto out;
	CHECK_EQ(ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS),
		 0);
	qpx = ibv_qp_to_qp_ex(qp);
	wt_seen(&t, 0, &before);
	wt_wr(&t, &wr, sg, IBV_WR_SEND, 1, 1);
	ibv_wr_start(qpx);
	CHECK(m5t_wr_one(qpx, &wr));
	CHECK_EQ(ibv_wr_complete(qpx), EINVAL);
	wt_nothing_seen(&t, 0, &before);
	CHECK_EQ(ibv_post_send(qp, &wr, &bad), ENOMEM);
	wt_nothing_seen(&t, 0, &before);
out:
	wt_close(&t);
}

static const struct check_test tests[] = {
	CHECK_TEST(create_refuses_what_the_backend_lacks),
	CHECK_TEST(rc_every_opcode_matches_mlx5dv),
	CHECK_TEST(ud_send_matches_mlx5dv),
	CHECK_TEST(same_wqes_as_post_send),
	CHECK_TEST(abort_leaves_nothing_visible),
	CHECK_TEST(bad_sge_count_discards_batch),
	CHECK_TEST(too_much_inline_discards_batch),
	CHECK_TEST(op_not_in_send_ops_discards_batch),
	CHECK_TEST(atomic_write_discards_batch_eopnotsupp),
	CHECK_TEST(local_inv_discards_batch_eopnotsupp),
	CHECK_TEST(send_inv_posts_libmlx5s_wqe_and_an_mr_key_is_refused),
	CHECK_TEST(bind_mw_discards_batch_eopnotsupp),
	CHECK_TEST(tso_discards_batch_eopnotsupp),
	CHECK_TEST(unknown_wr_flags_discard_batch),
	CHECK_TEST(short_atomic_sge_discards_batch),
	CHECK_TEST(sq_full_enomem_discards_batch),
	CHECK_TEST(no_inline_room_refuses_inline_data),
	CHECK_TEST(batch_before_first_rts_refused_einval),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_wr_api_", tests);
}
