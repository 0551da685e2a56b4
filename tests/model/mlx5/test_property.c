// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Property test of the mlx5 backend on the software ConnectX: random QP
 * configurations (RC and UD, InfiniBand and RoCE v1/v2, RQ or SRQ, small
 * queues that wrap many times) and random WR lists through them.  For each
 * list the test predicts which WR is refused and why, holds every WQE the
 * backend writes to the mlx5dv reference (m5t_wq.c), lets the model run it,
 * polls both CQs (each CQE read with mlx5dv.h first, m5t_cqe.c) and
 * compares every byte of both memory regions with a shadow copy it updated
 * as the WRs should have: sends into receive buffers, writes, reads,
 * atomics.
 *
 * The second test runs the same lists through the ibv_wr_* API (m5t_wr.c),
 * one batch per list, on QPs created with random send_ops_flags: a list
 * with a WR the API refuses is refused whole.
 *
 * M5_PROPERTY_SEED=<n> replays a run (the seed is printed);
 * M5_PROPERTY_WRS=<n> sets how many WRs must be taken (default 12000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "mlx5/mlx5.h"
#include "m5m_int.h" /* the model port's MAC, for RoCE AVs */
#include "check.h"
#include "m5t_cqe.h"
#include "m5t_ref.h"
#include "m5t_verbs.h"
#include "m5t_wq.h"
#include "m5t_wr.h"

/* --- Randomness ----------------------------------------------------------- */

static uint64_t pt_state;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (pt_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* 0 .. n - 1 (0 if n is 0). */
static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/* --- Layout --------------------------------------------------------------- */

#define A_LEN	   (128 * 1024) /* sources, READ targets, atomic results */
#define B_RDMA_LEN (256 * 1024) /* WRITE/READ/atomic target */
#define B_RECV	   B_RDMA_LEN	/* receive buffers after it ... */
#define B_RECV_LEN (256 * 1024) /* ... a ring of slices */
#define B_LEN	   (B_RECV + B_RECV_LEN)
#define MAX_MSG	   4096
#define MAX_LIST   48
#define MAX_SGE	   8
#define MAX_RECV   64
#define QKEY	   0x0badcafeu
#define GRH	   40
#define SPARE_CAP  (MAX_MSG + GRH + 64)

struct pt_cfg {
	bool ud, eth, v1, srq, sig_all;
	struct ibv_qp_cap cap;
	uint32_t wr_ops; /* ibv_wr_* API: the sender's send_ops_flags */
};

/* Lists go through the ibv_wr_* API, one batch each (second test). */
static bool pt_wr_api;

#define PT_RC_OPS                                                              \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define PT_UD_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

/* A receive posted and not yet consumed. */
struct pt_recv {
	uint64_t wr_id;
	int nsge;
	struct ibv_sge sge[MAX_SGE + 1];
	uint32_t cap;
	uint16_t srq_idx;
};

/* What one accepted send WR must produce. */
struct pt_send {
	struct ibv_send_wr *wr;
	uint8_t inl[M5T_REF_BUF]; /* inline payload at post time */
	uint32_t inl_len;
	bool consumes; /* a receive WQE */
	bool dropped;  /* UD with a Q_Key the receiver does not take */
};

struct pt {
	struct pt_cfg cfg;
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *abuf, *bbuf, *ashadow, *bshadow;
	struct ibv_mr *amr, *bmr;
	struct ibv_cq *acq, *bcq;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	struct ibv_qp_cap cap; /* a's, as created */
	uint32_t recv_max;     /* receives the RQ/SRQ holds */
	uint32_t recv_gs;      /* SGEs a receive WQE holds */
	struct m5t_sq sq;
	struct m5t_rq rq;
	struct m5t_srq ssrq;
	struct m5t_ah_info ahs[4];
	struct ibv_ah_attr ah_attr[4];
	unsigned int nahs;
	uint32_t sq_out; /* send WRs posted and not yet retired */
	struct pt_recv fifo[MAX_RECV];
	unsigned int fifo_head, fifo_len;
	uint32_t recv_off; /* the receive ring's next free byte */
	uint64_t next_id;
};

/* Totals for the summary line. */
static struct {
	uint64_t wrs, taken, refused_inval, refused_nomem, lists, configs;
	uint64_t recvs, recv_refused, payload, wqe_bytes, completions;
	/* coverage */
	uint64_t ud, roce, srq, wrapped, bf, inl_max, inl, sge0, atomics;
} tot;

/* --- Opening a configuration ---------------------------------------------- */

static void pt_cfg_random(struct pt_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->ud = chance(35);
	c->eth = chance(25);
	c->v1 = c->eth && chance(35);
	c->srq = chance(25);
	c->sig_all = chance(15);
	c->cap.max_send_wr = 1 + below(12);
	c->cap.max_recv_wr = 1 + below(12);
	c->cap.max_send_sge = below(MAX_SGE - 1);
	c->cap.max_recv_sge = below(6);
	switch (below(3)) {
	case 0:
		c->cap.max_inline_data = 0;
		break;
	case 1:
		c->cap.max_inline_data = below(65);
		break;
	default:
		c->cap.max_inline_data = below(600);
		break;
	}
	/* ibv_wr_*: IBV_QP_EX_WITH_<op> is 1 << IBV_WR_<op> for these. */
	c->wr_ops = c->ud ? PT_UD_OPS : PT_RC_OPS;
	if (!c->ud && chance(30))
		c->wr_ops &= ~(1u << below(7));
}

static struct ibv_qp *pt_qp(struct pt *p, struct ibv_cq *cq, bool recv_side,
			    struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = p->cfg.ud ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = p->cfg.cap,
		.sq_sig_all = p->cfg.sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = p->pd,
	};
	struct ibv_qp *qp;

	if (recv_side && p->srq) {
		qa.srq = p->srq;
		qa.cap.max_recv_wr = qa.cap.max_recv_sge = 0;
	}
	if (!recv_side && pt_wr_api) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = p->cfg.wr_ops;
	}
	qp = ibv_create_qp_ex(p->ctx, &qa);
	*cap = qa.cap;
	return qp;
}

/* The AHs UD WRs pick from, all to port 1 of the model. */
static int pt_ahs(struct pt *p)
{
	enum ibv_gid_type type = !p->cfg.eth ? IBV_GID_TYPE_IB
				 : p->cfg.v1 ? IBV_GID_TYPE_ROCE_V1
					     : IBV_GID_TYPE_ROCE_V2;
	struct ibv_ah_attr *aa;
	unsigned int i;
	uint16_t sport;

	for (i = 0; i < 3; i++) {
		aa = &p->ah_attr[i];
		*aa = (struct ibv_ah_attr){
			.dlid = m5m_port_lid(p->dev, 1),
			.sl = (uint8_t)below(16),
			.src_path_bits = (uint8_t)below(256),
			.static_rate = (uint8_t)below(23),
			.port_num = 1,
		};
		if (p->cfg.eth || i) {
			aa->is_global = 1;
			aa->grh.flow_label = i == 2 ? 0 : 1 + below(0xfffff);
			aa->grh.hop_limit = (uint8_t)below(256);
			aa->grh.traffic_class = (uint8_t)below(256);
			m5m_port_gid(p->dev, 1, &aa->grh.dgid);
		}
		p->ahs[i].ah = ibv_create_ah(p->pd, aa);
		if (!p->ahs[i].ah)
			return -1;
		p->nahs++;
		sport = 0;
		if (type == IBV_GID_TYPE_ROCE_V2) {
			sport = aa->grh.flow_label
					? m5t_ref_sport(aa->grh.flow_label)
					: be16toh(to_m5_ah(p->ahs[i].ah)
							  ->av.rlid);
			CHECK(sport >= 0xc000);
		}
		m5t_ref_av(&p->ahs[i].av, aa, p->cfg.eth, type, p->dev->mac,
			   sport);
	}
	return 0;
}

static int pt_open(struct pt *p)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_qp_cap bcap;
	struct m5m_config mc;
	unsigned int i;
	int ncqe;

	m5m_config_default(&mc);
	if (p->cfg.eth) {
		mc.link_layer = IBV_LINK_LAYER_ETHERNET;
		mc.roce_v1 = p->cfg.v1;
	}
	p->dev = m5m_dev_create(&mc);
	p->ctx = p->dev ? m5m_open(p->dev) : NULL;
	p->pd = p->ctx ? ibv_alloc_pd(p->ctx) : NULL;
	p->abuf = aligned_alloc(4096, A_LEN);
	p->ashadow = malloc(A_LEN);
	p->bbuf = aligned_alloc(4096, B_LEN);
	p->bshadow = malloc(B_LEN);
	if (!p->pd || !p->abuf || !p->ashadow || !p->bbuf || !p->bshadow)
		return -1;
	for (i = 0; i < A_LEN; i += 8)
		*(uint64_t *)(p->abuf + i) = rnd();
	for (i = 0; i < B_LEN; i += 8)
		*(uint64_t *)(p->bbuf + i) = rnd();
	memcpy(p->ashadow, p->abuf, A_LEN);
	memcpy(p->bshadow, p->bbuf, B_LEN);
	p->amr = ibv_reg_mr(p->pd, p->abuf, A_LEN, access);
	p->bmr = ibv_reg_mr(p->pd, p->bbuf, B_LEN, access);
	if (!p->amr || !p->bmr)
		return -1;
	if (p->cfg.srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = p->cfg.cap.max_recv_wr,
				  .max_sge = p->cfg.cap.max_recv_sge },
		};

		p->srq = ibv_create_srq(p->pd, &sa);
		if (!p->srq || m5t_srq_init(&p->ssrq, p->srq, sa.attr.max_sge))
			return -1;
		p->recv_max = sa.attr.max_wr;
		p->recv_gs = sa.attr.max_sge;
	}
	/* Small CQs that wrap often, but never overrun. */
	ncqe = 2 * (int)(p->cfg.cap.max_send_wr * 2 + 8);
	p->acq = ibv_create_cq(p->ctx, ncqe, NULL, NULL, 0);
	p->bcq = ibv_create_cq(p->ctx, 2 * MAX_RECV, NULL, NULL, 0);
	if (!p->acq || !p->bcq)
		return -1;
	p->a = pt_qp(p, p->acq, false, &p->cap);
	p->b = pt_qp(p, p->bcq, true, &bcap);
	if (!p->a || !p->b)
		return -1;
	if (!p->srq) {
		p->recv_max = bcap.max_recv_wr;
		p->recv_gs = bcap.max_recv_sge;
	}
	if (p->recv_max > MAX_RECV || p->recv_gs > MAX_SGE ||
	    p->cap.max_send_sge > MAX_SGE - 1)
		return -1;
	if (p->cfg.ud) {
		if (m5t_ud_up(p->a, QKEY) || m5t_ud_up(p->b, QKEY) || pt_ahs(p))
			return -1;
	} else if (m5t_rc_connect(p->dev, p->a, p->b->qp_num, 7) ||
		   m5t_rc_connect(p->dev, p->b, p->a->qp_num, 7)) {
		return -1;
	}
	m5t_sq_init(&p->sq, p->a, p->cfg.sig_all, p->ahs, p->nahs);
	p->sq.batch_api = pt_wr_api;
	m5t_rq_init(&p->rq, p->b, p->recv_gs);
	return 0;
}

static void pt_close(struct pt *p)
{
	struct m5m_stats st;
	unsigned int i;

	tot.wrapped += p->sq.wrapped;
	if (p->dev) {
		m5m_get_stats(p->dev, &st);
		tot.bf += st.bf_doorbells;
	}

	if (p->a)
		CHECK_EQ(ibv_destroy_qp(p->a), 0);
	if (p->b)
		CHECK_EQ(ibv_destroy_qp(p->b), 0);
	if (p->srq)
		CHECK_EQ(ibv_destroy_srq(p->srq), 0);
	m5t_srq_fini(&p->ssrq);
	for (i = 0; i < p->nahs; i++)
		CHECK_EQ(ibv_destroy_ah(p->ahs[i].ah), 0);
	if (p->acq)
		CHECK_EQ(ibv_destroy_cq(p->acq), 0);
	if (p->bcq)
		CHECK_EQ(ibv_destroy_cq(p->bcq), 0);
	if (p->amr)
		CHECK_EQ(ibv_dereg_mr(p->amr), 0);
	if (p->bmr)
		CHECK_EQ(ibv_dereg_mr(p->bmr), 0);
	if (p->pd)
		CHECK_EQ(ibv_dealloc_pd(p->pd), 0);
	m5t_dev_close(p->dev, p->ctx);
	free(p->abuf);
	free(p->bbuf);
	free(p->ashadow);
	free(p->bshadow);
}

/* --- What the verbs say about a WR ---------------------------------------- */

static bool pt_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static bool pt_consumes(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static bool pt_carries_data(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static uint64_t pt_sum(const struct ibv_sge *sg, int n)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += sg[i].length;
	return len;
}

/*
 * 0 if the backend must take the WR, else EINVAL: an opcode it does not
 * have (or not on this QP type), a flag libibverbs does not define, a
 * negative SGE count, an atomic without an 8-byte first SGE or on an
 * unaligned address, a UD WR without an AH of this context and PD, inline
 * data on an opcode that carries none.  ENOMEM for too many SGEs and for
 * more inline data than max_inline_data (libmlx5's answers).
 * IBV_SEND_IP_CSUM is ignored on RC and UD, as by libmlx5.  Both APIs
 * check a WR with the same code, in the same order, but for the first
 * three ibv_wr_* rules below.
 */
static int pt_check(const struct pt *p, const struct ibv_send_wr *wr)
{
	const unsigned int known = IBV_SEND_FENCE | IBV_SEND_SIGNALED |
				   IBV_SEND_SOLICITED | IBV_SEND_INLINE |
				   IBV_SEND_IP_CSUM;
	bool ud = p->cfg.ud;

	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		if (ud)
			return EINVAL;
		break;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
	case IBV_WR_TSO:
	case IBV_WR_ATOMIC_WRITE:
		return EOPNOTSUPP; /* opcodes the backend lacks */
	default:
		return EINVAL;
	}
	/* ibv_wr_*: a builder the QP was not created for. */
	if (pt_wr_api && !(p->cfg.wr_ops & (1u << wr->opcode)))
		return EINVAL;
	/* ibv_wr_set_sge_list takes a size_t: a negative count is too many. */
	if (wr->num_sge < 0)
		return pt_wr_api ? ENOMEM : EINVAL;
	/* ibv_wr_*: inline data is a list of buffers, not of SGEs. */
	if ((uint32_t)wr->num_sge > p->cap.max_send_sge &&
	    !(pt_wr_api && (wr->send_flags & IBV_SEND_INLINE)))
		return ENOMEM;
	if (wr->send_flags & ~known)
		return EINVAL;
	if (pt_atomic(wr->opcode) &&
	    (wr->num_sge < 1 || wr->sg_list[0].length < 8 ||
	     (wr->wr.atomic.remote_addr & 7)))
		return EINVAL;
	if (ud && (!wr->wr.ud.ah || wr->wr.ud.ah->context != p->ctx))
		return EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) && !pt_carries_data(wr->opcode))
		return EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    pt_sum(wr->sg_list, wr->num_sge) > p->cap.max_inline_data)
		return ENOMEM;
	return 0;
}

/* --- Generating WRs ------------------------------------------------------- */

/* A random SGE length: often 0 or small, sometimes large. */
static uint32_t pt_len(uint32_t max)
{
	switch (below(8)) {
	case 0:
	case 1:
		return 0;
	case 2:
	case 3:
	case 4:
		return below(max < 64 ? max + 1 : 65);
	case 5:
	case 6:
		return below(max < 1024 ? max + 1 : 1025);
	default:
		return below(max + 1);
	}
}

/* n lengths summing to exactly total (some of them 0). */
static void pt_split(uint32_t *len, int n, uint32_t total)
{
	int i;

	for (i = 0; i < n; i++)
		len[i] = 0;
	for (i = 0; i + 1 < n && total; i++) {
		len[i] = chance(30) ? 0 : below(total + 1);
		total -= len[i];
	}
	if (n)
		len[n - 1] += total;
}

/* An SGE of len bytes somewhere in A (8-aligned if asked). */
static struct ibv_sge pt_sge_a(struct pt *p, uint32_t len, bool align8)
{
	uint64_t off = below(A_LEN - len + 1);

	if (align8)
		off &= ~7ull;
	return (struct ibv_sge){ (uintptr_t)p->abuf + off, len, p->amr->lkey };
}

static enum ibv_wr_opcode pt_opcode(const struct pt *p)
{
	static const enum ibv_wr_opcode rc[] = {
		IBV_WR_SEND,
		IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM,
		IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ,
		IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD,
	};

	if (p->cfg.ud)
		return chance(70) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM;
	return rc[below(sizeof(rc) / sizeof(rc[0]))];
}

/*
 * A WR the backend should take, its payload at most limit bytes (a
 * receive's room).  The SGEs go in sg (MAX_SGE + 3 entries).
 */
static void pt_gen_valid(struct pt *p, struct ibv_send_wr *wr,
			 struct ibv_sge *sg, enum ibv_wr_opcode op,
			 uint32_t limit)
{
	uint32_t max_gs = p->cap.max_send_sge, max_inl, len[MAX_SGE] = { 0 };
	uint32_t total;
	int n, i;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = p->next_id++;
	wr->opcode = op;
	wr->sg_list = sg;
	wr->send_flags = (chance(55) ? IBV_SEND_SIGNALED : 0) |
			 (chance(20) ? IBV_SEND_SOLICITED : 0) |
			 (chance(15) ? IBV_SEND_FENCE : 0);
	/* Ignored unless the opcode carries immediate data. */
	wr->imm_data = (__be32)rnd();
	max_inl =
		p->cap.max_inline_data < limit ? p->cap.max_inline_data : limit;
	if (pt_atomic(op)) {
		n = 1 + (int)below(max_gs);
		sg[0] = pt_sge_a(p, chance(80) ? 8 : 9 + below(24), chance(80));
		for (i = 1; i < n; i++)
			sg[i] = pt_sge_a(p, pt_len(64), false);
		wr->num_sge = n;
		wr->wr.atomic.remote_addr =
			(uintptr_t)p->bbuf + (below(B_RDMA_LEN / 8) * 8);
		wr->wr.atomic.rkey = p->bmr->rkey;
		wr->wr.atomic.compare_add = chance(50) ? rnd() : below(4);
		wr->wr.atomic.swap = rnd();
		return;
	}
	if (pt_carries_data(op) && (max_inl || chance(10)) && chance(35)) {
		/* Inline: around the max, or anything up to it. */
		static const int pick[] = { 0, 1, 2, 3, 4, 4, 4 };

		wr->send_flags |= IBV_SEND_INLINE;
		switch (pick[below(7)]) {
		case 0:
			total = 0;
			break;
		case 1:
			total = max_inl ? 1 : 0;
			break;
		case 2:
			total = max_inl ? max_inl - 1 : 0;
			break;
		case 3:
			total = max_inl;
			break;
		default:
			total = below(max_inl + 1);
			break;
		}
		if (!max_gs)
			total = 0;
		n = total ? 1 + (int)below(max_gs) : (int)below(max_gs + 1);
		pt_split(len, n, total);
	} else {
		n = (int)below(max_gs + 1);
		for (total = 0, i = 0; i < n; i++) {
			len[i] = pt_len(limit - total < MAX_MSG / 2
						? limit - total
						: MAX_MSG / 2);
			total += len[i];
		}
	}
	for (i = 0; i < n; i++)
		sg[i] = pt_sge_a(p, len[i], false);
	wr->num_sge = n;
	total = (uint32_t)pt_sum(sg, n);
	if (op != IBV_WR_SEND && op != IBV_WR_SEND_WITH_IMM) {
		wr->wr.rdma.remote_addr =
			(uintptr_t)p->bbuf + below(B_RDMA_LEN - total + 1);
		wr->wr.rdma.rkey = p->bmr->rkey;
	}
	if (p->cfg.ud) {
		wr->wr.ud.ah = p->ahs[below(p->nahs)].ah;
		wr->wr.ud.remote_qpn = p->b->qp_num;
		switch (below(20)) {
		case 0: /* the sender's own Q_Key, which is the right one */
			wr->wr.ud.remote_qkey = 0x80000000u | (uint32_t)rnd();
			break;
		case 1: /* a wrong one: the datagram is dropped */
			wr->wr.ud.remote_qkey = QKEY ^ (1 + below(0x7fff));
			break;
		default:
			wr->wr.ud.remote_qkey = QKEY;
			break;
		}
	}
}

/* Make a valid WR one the backend must refuse, one way or another. */
static void pt_spoil(struct pt *p, struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	static const enum ibv_wr_opcode bad_ops[] = {
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV,
		IBV_WR_TSO,	  IBV_WR_DRIVER1, (enum ibv_wr_opcode)77,
	};
	int i;

	unsigned int k = below(8);

	/*
	 * ibv_wr_*: an opcode without a builder cannot be described; an
	 * opcode the QP was not created for is refused instead, if any.
	 */
	if (pt_wr_api && (k == 1 || (k == 7 && !p->cfg.ud))) {
		uint32_t miss = PT_RC_OPS & ~p->cfg.wr_ops;

		if (!miss) {
			wr->num_sge = -1;
			return;
		}
		do
			wr->opcode = (enum ibv_wr_opcode)below(7);
		while (!(miss & (1u << wr->opcode)));
		return;
	}
	switch (k) {
	case 0: /* too many SGEs */
		for (i = wr->num_sge; i < (int)p->cap.max_send_sge + 3; i++)
			sg[i] = pt_sge_a(p, pt_len(64), false);
		wr->num_sge = (int)p->cap.max_send_sge + 1 + (int)below(2);
		break;
	case 1:
		wr->opcode = bad_ops[below(6)];
		/* SEND_WITH_INV is bad on UD only (on RC and UC it is taken,
		 * and fails at the responder: no key allows invalidation). */
		if (wr->opcode == IBV_WR_SEND_WITH_INV && !p->cfg.ud)
			wr->opcode = IBV_WR_ATOMIC_WRITE;
		break;
	case 2: /* unknown flag */
		wr->send_flags |= chance(50) ? IBV_SEND_IP_CSUM : 1u << 12;
		break;
	case 3: /* inline past the max */
		if (!pt_carries_data(wr->opcode) || !p->cap.max_send_sge) {
			wr->num_sge = -1;
			break;
		}
		wr->send_flags |= IBV_SEND_INLINE;
		wr->num_sge = 1;
		sg[0] = pt_sge_a(p, p->cap.max_inline_data + 1 + below(40),
				 false);
		break;
	case 4: /* inline on something that carries no data */
		if (p->cfg.ud) {
			wr->wr.ud.ah = NULL;
			break;
		}
		wr->opcode = chance(50) ? IBV_WR_RDMA_READ
					: IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->send_flags |= IBV_SEND_INLINE;
		wr->wr.rdma.remote_addr &= ~7ull;
		break;
	case 5: /* an atomic without a proper result SGE, or unaligned */
		if (p->cfg.ud) {
			wr->opcode = chance(50) ? IBV_WR_RDMA_WRITE
						: IBV_WR_ATOMIC_CMP_AND_SWP;
			break;
		}
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = (uintptr_t)p->bbuf + 8;
		if (below(3) == 0)
			wr->wr.atomic.remote_addr += 1 + below(7);
		else if (below(2) || !wr->num_sge)
			wr->num_sge = 0;
		else
			sg[0].length = below(8);
		break;
	case 6:
		wr->num_sge = -1 - (int)below(3);
		break;
	default:
		if (p->cfg.ud)
			wr->wr.ud.ah = NULL;
		else
			wr->opcode = IBV_WR_LOCAL_INV;
		break;
	}
}

/* --- Receives ------------------------------------------------------------- */

static uint64_t pt_recv_addr(struct pt *p, uint32_t len)
{
	uint64_t off;

	if (p->recv_off + len > B_RECV_LEN)
		p->recv_off = 0;
	off = p->recv_off;
	p->recv_off += len + below(17);
	return (uintptr_t)p->bbuf + B_RECV + off;
}

/* A receive with room for at least need bytes (SGEs 0..recv_gs). */
static void pt_gen_recv(struct pt *p, struct pt_recv *r, uint32_t need)
{
	uint32_t len[MAX_SGE], total = 0;
	int n, i;

	n = need ? 1 + (int)below(p->recv_gs) : (int)below(p->recv_gs + 1);
	for (i = 0; i < n; i++) {
		len[i] = chance(25) ? 0 : below(need + 1);
		total += len[i];
	}
	if (total < need) {
		i = (int)below((uint32_t)n);
		len[i] += need - total;
	}
	if (n && chance(30))
		len[below((uint32_t)n)] += below(64);
	r->wr_id = p->next_id++;
	r->nsge = n;
	r->cap = 0;
	for (i = 0; i < n; i++) {
		r->sge[i] = (struct ibv_sge){ pt_recv_addr(p, len[i]), len[i],
					      p->bmr->lkey };
		r->cap += len[i];
	}
}

/*
 * Post the receives planned (all must be taken), then perhaps some spare
 * ones, perhaps one too many (ENOMEM) or one with too many SGEs (EINVAL).
 */
static void pt_post_recvs(struct pt *p, struct pt_recv *plan, unsigned int n)
{
	struct ibv_recv_wr wr[MAX_RECV + 2];
	struct pt_recv extra[MAX_RECV + 2];
	unsigned int i, total = n, ok, room;
	uint16_t idx[MAX_RECV + 2];
	int ret = 0;
	bool good;

	room = p->recv_max - p->fifo_len - n;
	memcpy(extra, plan, n * sizeof(*plan));
	/* Spare receives, big enough for anything, for later lists. */
	if (room && chance(30)) {
		unsigned int k = 1 + below(room);

		while (k--)
			pt_gen_recv(p, &extra[total++], SPARE_CAP);
	}
	ok = total;
	if (chance(8)) {
		/* One more than fits, or one with too many SGEs. */
		pt_gen_recv(p, &extra[total], 1);
		if (p->fifo_len + total >= p->recv_max) {
			ret = ENOMEM;
		} else {
			extra[total].nsge = (int)p->recv_gs + 1;
			extra[total].sge[p->recv_gs] = extra[total].sge[0];
			ret = EINVAL;
		}
		total++;
	}
	if (!total)
		return;
	for (i = 0; i < total; i++)
		wr[i] = (struct ibv_recv_wr){
			.wr_id = extra[i].wr_id,
			.sg_list = extra[i].sge,
			.num_sge = extra[i].nsge,
			.next = i + 1 < total ? &wr[i + 1] : NULL,
		};
	if (p->srq)
		good = m5t_srq_post(&p->ssrq, wr, ret, ok, idx, &tot.wqe_bytes);
	else
		good = m5t_rq_post(&p->rq, wr, ret, ok, &tot.wqe_bytes);
	CHECK(good);
	for (i = 0; i < ok; i++) {
		extra[i].srq_idx = p->srq ? idx[i] : 0;
		p->fifo[(p->fifo_head + p->fifo_len++) % MAX_RECV] = extra[i];
	}
	tot.recvs += ok;
	tot.recv_refused += total - ok;
}

/* --- Running a list ------------------------------------------------------- */

/* The bytes of an SGE list, from the shadow of A. */
static uint32_t pt_gather(struct pt *p, const struct ibv_send_wr *wr,
			  uint8_t *out)
{
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		memcpy(out + len,
		       p->ashadow + (wr->sg_list[i].addr - (uintptr_t)p->abuf),
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	return len;
}

/* Scatter len bytes at offset off of a receive's SGE list (B shadow). */
static void pt_scatter(struct pt *p, const struct pt_recv *r, uint32_t off,
		       const uint8_t *data, uint32_t len)
{
	uint32_t n;
	int i;

	for (i = 0; i < r->nsge && len; i++) {
		if (off >= r->sge[i].length) {
			off -= r->sge[i].length;
			continue;
		}
		n = r->sge[i].length - off;
		if (n > len)
			n = len;
		memcpy(p->bshadow + (r->sge[i].addr - (uintptr_t)p->bbuf) + off,
		       data, n);
		data += n;
		len -= n;
		off = 0;
	}
}

/* Read GRH bytes back from the real receive buffer. */
static void pt_grh_real(struct pt *p, const struct pt_recv *r, uint8_t *grh)
{
	uint32_t off = 0, n;
	int i;

	for (i = 0; i < r->nsge && off < GRH; i++) {
		n = r->sge[i].length < GRH - off ? r->sge[i].length : GRH - off;
		memcpy(grh + off, (void *)(uintptr_t)r->sge[i].addr, n);
		off += n;
	}
}

struct pt_want {
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	bool imm;
	__be32 imm_data;
	bool se;
	bool grh;
	uint8_t sl;
	const struct pt_recv *recv; /* receives: the buffer */
	const uint8_t *dgid;
};

struct pt_run {
	struct pt_want sends[MAX_LIST];
	unsigned int nsends;
	struct pt_want recvs[MAX_LIST];
	struct pt_recv used[MAX_LIST];
	unsigned int nrecvs;
	int last_signaled; /* index among the taken WRs, -1 if none */
};

static const struct m5t_av_info *pt_av(const struct pt *p,
				       const struct ibv_ah *ah, unsigned int *i)
{
	for (*i = 0; *i < p->nahs; (*i)++)
		if (p->ahs[*i].ah == ah)
			return &p->ahs[*i].av;
	return NULL;
}

/* What a taken WR does to the shadows and the CQs. */
static void pt_apply(struct pt *p, struct pt_send *s, struct pt_run *run)
{
	static uint8_t msg[MAX_MSG + M5T_REF_BUF];
	const struct ibv_send_wr *wr = s->wr;
	uint8_t *bsh = p->bshadow;
	uint32_t len, hdr = p->cfg.ud ? GRH : 0;
	struct pt_want *w;
	uint64_t v, orig;
	unsigned int ai = 0;
	int i;

	len = wr->send_flags & IBV_SEND_INLINE ? s->inl_len
					       : pt_gather(p, wr, msg);
	if (wr->send_flags & IBV_SEND_INLINE)
		memcpy(msg, s->inl, len);
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		memcpy(bsh + (wr->wr.rdma.remote_addr - (uintptr_t)p->bbuf),
		       msg, len);
		tot.payload += len;
		break;
	case IBV_WR_RDMA_READ:
		v = wr->wr.rdma.remote_addr - (uintptr_t)p->bbuf;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p->ashadow + (wr->sg_list[i].addr -
					     (uintptr_t)p->abuf),
			       bsh + v, wr->sg_list[i].length);
			v += wr->sg_list[i].length;
		}
		tot.payload += len;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		v = wr->wr.atomic.remote_addr - (uintptr_t)p->bbuf;
		memcpy(&orig, bsh + v, 8);
		if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			orig += wr->wr.atomic.compare_add;
		else if (orig == wr->wr.atomic.compare_add)
			orig = wr->wr.atomic.swap;
		memcpy(msg, bsh + v, 8); /* the original, to the requester */
		memcpy(bsh + v, &orig, 8);
		memcpy(p->ashadow + (wr->sg_list[0].addr - (uintptr_t)p->abuf),
		       msg, 8);
		len = 8;
		tot.payload += 16;
		break;
	default:
		break;
	}
	if (s->consumes && !s->dropped) {
		const struct m5t_av_info *av = NULL;
		struct pt_recv *r = &run->used[run->nrecvs];

		*r = p->fifo[p->fifo_head];
		p->fifo_head = (p->fifo_head + 1) % MAX_RECV;
		p->fifo_len--;
		w = &run->recvs[run->nrecvs++];
		memset(w, 0, sizeof(*w));
		w->wr_id = r->wr_id;
		w->recv = r;
		w->se = !!(wr->send_flags & IBV_SEND_SOLICITED);
		w->imm = wr->opcode != IBV_WR_SEND;
		w->imm_data = wr->imm_data;
		if (p->cfg.ud)
			av = pt_av(p, wr->wr.ud.ah, &ai);
		w->grh = p->cfg.eth || (av && p->ah_attr[ai].is_global);
		w->dgid = av ? av->rgid : NULL;
		/* UD: the AV's SL (3 bits on RoCE); RC: the path's, 0. */
		if (av)
			w->sl = p->ah_attr[ai].sl & (p->cfg.eth ? 7 : 15);
		if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
			w->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
			w->byte_len = len;
		} else {
			w->opcode = IBV_WC_RECV;
			w->byte_len = len + hdr;
			pt_scatter(p, r, hdr, msg, len);
			tot.payload += len;
		}
	}
	if (p->cfg.sig_all || (wr->send_flags & IBV_SEND_SIGNALED)) {
		w = &run->sends[run->nsends++];
		memset(w, 0, sizeof(*w));
		w->wr_id = wr->wr_id;
		switch (wr->opcode) {
		case IBV_WR_SEND:
		case IBV_WR_SEND_WITH_IMM:
			w->opcode = IBV_WC_SEND;
			break;
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			w->opcode = IBV_WC_RDMA_WRITE;
			break;
		case IBV_WR_RDMA_READ:
			w->opcode = IBV_WC_RDMA_READ;
			w->byte_len = len;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			w->opcode = IBV_WC_COMP_SWAP;
			w->byte_len = 8;
			break;
		default:
			w->opcode = IBV_WC_FETCH_ADD;
			w->byte_len = 8;
			break;
		}
	}
}

/* Poll the send CQ: exactly the signaled WRs, in order. */
static void pt_poll_sends(struct pt *p, const struct pt_run *run)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < run->nsends && !check_failed; i++) {
		const struct pt_want *w = &run->sends[i];

		CHECK_EQ(m5t_cqe_poll(p->acq, &wc, NULL), 1);
		CHECK_EQ(wc.wr_id, w->wr_id);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.opcode, w->opcode);
		CHECK_EQ(wc.qp_num, p->a->qp_num);
		if (w->opcode == IBV_WC_RDMA_READ ||
		    w->opcode == IBV_WC_COMP_SWAP ||
		    w->opcode == IBV_WC_FETCH_ADD)
			CHECK_EQ(wc.byte_len, w->byte_len);
		tot.completions++;
	}
	CHECK_EQ(m5t_cqe_poll(p->acq, &wc, NULL), 0);
}

/* Poll the receive CQ: one per receive consumed, in order. */
static void pt_poll_recvs(struct pt *p, const struct pt_run *run)
{
	struct m5t_cqe_seen seen;
	uint8_t grh[GRH];
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < run->nrecvs && !check_failed; i++) {
		const struct pt_want *w = &run->recvs[i];

		CHECK_EQ(m5t_cqe_poll(p->bcq, &wc, &seen), 1);
		CHECK_EQ(wc.wr_id, w->wr_id);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.opcode, w->opcode);
		CHECK_EQ(wc.byte_len, w->byte_len);
		CHECK_EQ(wc.qp_num, p->b->qp_num);
		CHECK_EQ(wc.src_qp, p->a->qp_num);
		CHECK_EQ(!!(wc.wc_flags & IBV_WC_WITH_IMM), w->imm);
		if (w->imm)
			CHECK_EQ(wc.imm_data, w->imm_data);
		CHECK_EQ(!!(wc.wc_flags & IBV_WC_GRH), w->grh);
		CHECK_EQ(seen.se, w->se);
		CHECK_EQ(wc.slid, m5m_port_lid(p->dev, 1));
		CHECK_EQ(wc.sl, w->sl);
		if (p->srq) {
			CHECK_EQ(seen.wqe_counter, w->recv->srq_idx);
			m5t_srq_done(&p->ssrq, w->recv->srq_idx);
		}
		/* The GRH area: the destination GID (the rest: the model's). */
		if (w->grh && p->cfg.ud && w->opcode == IBV_WC_RECV) {
			pt_grh_real(p, w->recv, grh);
			CHECK(!w->dgid || !memcmp(grh + 24, w->dgid, 16));
			pt_scatter(p, w->recv, 0, grh, GRH);
		}
		tot.completions++;
	}
	CHECK_EQ(m5t_cqe_poll(p->bcq, &wc, NULL), 0);
}

static void pt_mem_same(const char *what, const uint8_t *got,
			const uint8_t *want, size_t len)
{
	size_t i;

	if (!memcmp(got, want, len))
		return;
	for (i = 0; i < len && got[i] == want[i]; i++)
		;
	printf("    %s byte 0x%zx is 0x%02x, expected 0x%02x\n", what, i,
	       got[i], want[i]);
	check_failed = 1;
}

/* A list being generated, and what the test predicts of it. */
struct pt_gen {
	unsigned int n;	       /* WRs in the list */
	unsigned int ok;       /* WRs the backend must take */
	int ret;	       /* and what it must return */
	int last_sig;	       /* the last signaled WR taken; -1: none */
	unsigned int consumed; /* receives the taken WRs consume */
	unsigned int nplan;    /* receives to post for them */
	struct pt_recv plan[MAX_RECV];
};

/*
 * The payload limit of a WR of opcode *op: the room of the receive it will
 * consume.  With no room left for another receive, RC takes a WRITE
 * instead; UD ends the list (false).
 */
static bool pt_limit(struct pt *p, const struct pt_gen *g,
		     enum ibv_wr_opcode *op, uint32_t *limit)
{
	uint32_t hdr = p->cfg.ud ? GRH : 0;
	const struct pt_recv *r;

	*limit = MAX_MSG;
	if (!pt_consumes(*op) || g->ret)
		return true;
	if (g->consumed < p->fifo_len) {
		r = &p->fifo[(p->fifo_head + g->consumed) % MAX_RECV];
		if (r->cap < hdr)
			*limit = 0;
		else if (r->cap - hdr < *limit)
			*limit = r->cap - hdr;
		return true;
	}
	if (p->fifo_len + g->nplan < p->recv_max)
		return true;
	if (p->cfg.ud)
		return false;
	*op = IBV_WR_RDMA_WRITE;
	return true;
}

/* A WR the backend takes: its receive, its inline payload as posted. */
static void pt_take(struct pt *p, struct pt_gen *g, struct ibv_send_wr *wr,
		    struct pt_send *s)
{
	uint32_t need = (uint32_t)pt_sum(wr->sg_list, wr->num_sge);
	int i;

	s->wr = wr;
	s->consumes = pt_consumes(wr->opcode);
	s->dropped = p->cfg.ud && wr->wr.ud.remote_qkey != QKEY &&
		     !(wr->wr.ud.remote_qkey & 0x80000000u);
	/* UD receives start with the 40-byte GRH area; WRITE_IMM needs 0. */
	if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		need = 0;
	else if (p->cfg.ud)
		need += GRH;
	if (s->consumes && !s->dropped && g->consumed++ >= p->fifo_len)
		pt_gen_recv(p, &g->plan[g->nplan++], need);
	s->inl_len = 0;
	if (wr->send_flags & IBV_SEND_INLINE) {
		s->inl_len = pt_gather(p, wr, s->inl);
		tot.inl++;
		tot.inl_max += s->inl_len == p->cap.max_inline_data;
	}
	for (i = 0; i < wr->num_sge; i++)
		tot.sge0 += !wr->sg_list[i].length;
	tot.atomics += pt_atomic(wr->opcode);
	if (p->cfg.sig_all || (wr->send_flags & IBV_SEND_SIGNALED))
		g->last_sig = (int)g->ok;
	g->ok++;
}

/*
 * Generate a list and predict it: the first WR the verbs say is wrong
 * (EINVAL) or that finds the SQ full (ENOMEM) is refused with those after
 * it; the ones before it are taken.
 */
static void pt_gen_list(struct pt *p, struct pt_gen *g, struct ibv_send_wr *wrs,
			struct pt_send *sends)
{
	static struct ibv_sge sges[MAX_LIST][MAX_SGE + 3];
	uint32_t max_post = p->cap.max_send_wr, limit;
	enum ibv_wr_opcode op;
	unsigned int n, j;
	int err;

	uint64_t cov[4] = { tot.inl, tot.inl_max, tot.sge0, tot.atomics };

	memset(g, 0, sizeof(*g));
	g->last_sig = -1;
	/* Mostly lists that fit the SQ; sometimes ones that overflow it. */
	if (chance(85) && p->sq_out < max_post)
		n = 1 + below(max_post - p->sq_out);
	else
		n = 1 +
		    below(max_post + 3 < MAX_LIST ? max_post + 3 : MAX_LIST);
	for (j = 0; j < n; j++) {
		op = pt_opcode(p);
		if (pt_atomic(op) && !p->cap.max_send_sge)
			op = IBV_WR_RDMA_WRITE;
		if (!pt_limit(p, g, &op, &limit))
			break;
		pt_gen_valid(p, &wrs[j], sges[j], op, limit);
		/* The WR that fills the SQ is signaled, or it stays full. */
		if (p->sq_out + g->ok + 1 >= max_post)
			wrs[j].send_flags |= IBV_SEND_SIGNALED;
		if (chance(3))
			pt_spoil(p, &wrs[j], sges[j]);
		wrs[j].next = NULL;
		if (j)
			wrs[j - 1].next = &wrs[j];
		if (g->ret)
			continue;
		err = pt_check(p, &wrs[j]);
		if (!err && p->sq_out + g->ok >= max_post)
			err = ENOMEM;
		if (err)
			g->ret = err;
		else
			pt_take(p, g, &wrs[j], &sends[g->ok]);
	}
	g->n = j;
	/* ibv_wr_*: a batch with an error is refused whole. */
	if (pt_wr_api && g->ret) {
		tot.inl = cov[0];
		tot.inl_max = cov[1];
		tot.sge0 = cov[2];
		tot.atomics = cov[3];
		g->ok = 0;
		g->last_sig = -1;
		g->consumed = 0;
		g->nplan = 0;
	}
}

/* What the SQ and RQ hold after the completions were polled. */
static void pt_queues_check(struct pt *p, const struct pt_gen *g)
{
	struct m5_qp *a = to_m5_qp(p->a), *b = to_m5_qp(p->b);

	/* Unsignaled WRs are retired with the next signaled one. */
	p->sq_out = g->last_sig < 0 ? p->sq_out + g->ok
				    : g->ok - 1 - (uint32_t)g->last_sig;
	CHECK_EQ(a->sq.head - atomic_load(&a->sq.tail), p->sq_out);
	if (!p->srq)
		CHECK_EQ(b->rq.head - atomic_load(&b->rq.tail), p->fifo_len);
}

/* One random WR list: generate, predict, post, run, poll, compare. */
static void pt_list(struct pt *p)
{
	static struct ibv_send_wr wrs[MAX_LIST];
	static struct pt_send sends[MAX_LIST];
	static struct pt_run run;
	static struct pt_gen g;
	unsigned int j;

	pt_gen_list(p, &g, wrs, sends);
	if (!g.n)
		return;
	pt_post_recvs(p, g.plan, g.nplan);
	tot.wrs += g.n;
	tot.taken += g.ok;
	tot.refused_inval += g.ret == EINVAL;
	tot.refused_nomem += g.ret == ENOMEM;
	if (pt_wr_api)
		CHECK(m5t_sq_post_with(&p->sq, m5t_wr_post, wrs, g.ret, g.ok,
				       &tot.wqe_bytes));
	else
		CHECK(m5t_sq_post(&p->sq, wrs, g.ret, g.ok, &tot.wqe_bytes));
	/* The model ran the WRs at the doorbell: now what it should have. */
	memset(&run, 0, sizeof(run));
	for (j = 0; j < g.ok; j++)
		pt_apply(p, &sends[j], &run);
	pt_poll_sends(p, &run);
	pt_poll_recvs(p, &run);
	pt_queues_check(p, &g);
	pt_mem_same("A", p->abuf, p->ashadow, A_LEN);
	pt_mem_same("B", p->bbuf, p->bshadow, B_LEN);
	tot.lists++;
}

static uint64_t pt_env(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static void pt_run_all(void)
{
	uint64_t seed, want;
	struct pt p;
	unsigned int lists;

	seed = pt_env("M5_PROPERTY_SEED",
		      (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
	want = pt_env("M5_PROPERTY_WRS", 12000);
	pt_state = seed;
	printf("    seed %llu (M5_PROPERTY_SEED=%llu replays this run)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	memset(&tot, 0, sizeof(tot));
	while (tot.taken < want && !check_failed) {
		memset(&p, 0, sizeof(p));
		pt_cfg_random(&p.cfg);
		tot.configs++;
		tot.ud += p.cfg.ud;
		tot.roce += p.cfg.eth;
		tot.srq += p.cfg.srq;
		if (pt_open(&p)) {
			printf("    configuration %llu (%s%s%s, cap "
			       "%u/%u/%u/%u/"
			       "%u) did not open\n",
			       (unsigned long long)tot.configs,
			       p.cfg.ud ? "UD" : "RC",
			       p.cfg.eth ? (p.cfg.v1 ? " RoCEv1" : " RoCEv2")
					 : " IB",
			       p.cfg.srq ? " SRQ" : "", p.cfg.cap.max_send_wr,
			       p.cfg.cap.max_recv_wr, p.cfg.cap.max_send_sge,
			       p.cfg.cap.max_recv_sge,
			       p.cfg.cap.max_inline_data);
			check_failed = 1;
		}
		for (lists = 20 + below(60); lists && !check_failed; lists--)
			pt_list(&p);
		if (check_failed)
			printf("    in configuration %llu: %s%s%s%s, cap "
			       "%u/%u/%u/%u/%u\n",
			       (unsigned long long)tot.configs,
			       p.cfg.ud ? "UD" : "RC",
			       p.cfg.eth ? (p.cfg.v1 ? " RoCEv1" : " RoCEv2")
					 : " IB",
			       p.cfg.srq ? " SRQ" : "",
			       p.cfg.sig_all ? " sq_sig_all" : "",
			       p.cfg.cap.max_send_wr, p.cfg.cap.max_recv_wr,
			       p.cfg.cap.max_send_sge, p.cfg.cap.max_recv_sge,
			       p.cfg.cap.max_inline_data);
		pt_close(&p);
	}
	printf("    %llu WRs in %llu lists over %llu QP configurations: %llu "
	       "taken, %llu lists refused a WR (%llu EINVAL, %llu ENOMEM); "
	       "%llu receives (%llu refused); %llu completions; %llu payload "
	       "and %llu WQE bytes verified; seed %llu\n",
	       (unsigned long long)tot.wrs, (unsigned long long)tot.lists,
	       (unsigned long long)tot.configs, (unsigned long long)tot.taken,
	       (unsigned long long)(tot.refused_inval + tot.refused_nomem),
	       (unsigned long long)tot.refused_inval,
	       (unsigned long long)tot.refused_nomem,
	       (unsigned long long)tot.recvs,
	       (unsigned long long)tot.recv_refused,
	       (unsigned long long)tot.completions,
	       (unsigned long long)tot.payload,
	       (unsigned long long)tot.wqe_bytes, (unsigned long long)seed);
	printf("    coverage: %llu UD, %llu RoCE, %llu SRQ configurations; "
	       "%llu WQEs across the SQ end, %llu BlueFlame doorbells, "
	       "%llu inline WRs (%llu at max_inline_data), %llu atomics, "
	       "%llu zero-length SGEs\n",
	       (unsigned long long)tot.ud, (unsigned long long)tot.roce,
	       (unsigned long long)tot.srq, (unsigned long long)tot.wrapped,
	       (unsigned long long)tot.bf, (unsigned long long)tot.inl,
	       (unsigned long long)tot.inl_max, (unsigned long long)tot.atomics,
	       (unsigned long long)tot.sge0);
}

static void random_wr_lists_complete_and_match_mlx5dv(void)
{
	pt_wr_api = false;
	pt_run_all();
}

static void random_wr_api_batches_complete_and_match_mlx5dv(void)
{
	pt_wr_api = true;
	pt_run_all();
}

static const struct check_test tests[] = {
	CHECK_TEST(random_wr_lists_complete_and_match_mlx5dv),
	CHECK_TEST(random_wr_api_batches_complete_and_match_mlx5dv),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_property_", tests);
}
