// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path (cx_engine.h): the seam of the model's WQE/CQE engine
 * (m5m_eng.h) answered from the device's objects.  Every guest address
 * the engine gets comes from cx_dma(); a key, page or range that does not
 * translate is an error the engine turns into its syndrome, and a queue
 * page that went away reads as zeros (a bad WQE), never as a pointer
 * outside guest memory.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cx_engine.h"
#include "cx_eth.h"
#include "cx_ifc.h"
#include "cx_int.h"
#include "m5m_int.h"

#define of(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))

enum {
	RQ_SRQ = 0x1,	      /* MLX5_SRQ_RQ */
	RQ_REGULAR = 0x0,     /* MLX5_NON_ZERO_RQ */
	BF_OFFSET = 0x800,    /* MLX5_BF_OFFSET: the first bfreg */
	BF_HALF = CX_BF_HALF, /* a BlueFlame buffer: log_bf_reg_size 9 / 2 */
	CTRL_FM_CE_SE = 11,   /* mlx5_wqe_ctrl_seg.fm_ce_se */
	CTRL_CQ_UPDATE = 0x8, /* MLX5_WQE_CTRL_CQ_UPDATE */
	OPCODE_NOP = 0x00,    /* MLX5_OPCODE_NOP */
	EQE_RES_TYPE = 20,    /* mlx5_eqe_qp_srq.type */
	EQE_QP_SRQ_N = 24,    /* mlx5_eqe_qp_srq.qp_srq_n */
	SCRATCH = 1024,	      /* the largest WQE the engine reads in one go */
	ERR_POLL_US = 2000,   /* receive dbrec of a QP in ERR looked at */
	SLOW_TICK_US = 50,    /* the slow device's tick (m5m_slow.c) */
};

struct cx_eng_qp {
	struct m5m_qp m;
	uint32_t n;	 /* the device's QPN */
	uint16_t db_end; /* the last send doorbell's WQE index + WQEBBs */
	bool rung;	 /* a send doorbell ran the SQ */
};

struct cx_eng_srq {
	struct m5m_srq m;
};

struct cx_eng {
	struct m5m_dev *dev;
	struct cx_eng_qp *qp[CX_MAX_QP];
	struct m5m_cq *cq[CX_MAX_CQ];
	struct cx_eng_srq *srq[CX_MAX_SRQ];
	struct m5m_pd *pd[CX_OBJ_MAX];
	struct cx_eng_stats st;
	uint64_t slow_tick; /* the slow device's next tick, engine µs */
	uint8_t scratch[SCRATCH];
	uint8_t bf[BF_HALF]; /* the WQEBBs a BlueFlame payload runs as */
};

/* Host address of guest [gpa, gpa + len), or zeros the engine may read. */
static uint8_t *guest_or_zeros(struct cx *cx, uint64_t gpa, uint64_t len)
{
	uint8_t *p = cx_dma(cx, gpa, len, false);

	if (p)
		return p;
	memset(cx->eng->scratch, 0, sizeof(cx->eng->scratch));
	return cx->eng->scratch;
}

/* Byte OFF of a queue on pages PAS of 4 KiB << LPS starting at POFF. */
static uint8_t *queue_byte(struct cx *cx, const uint64_t *pas, uint32_t npas,
			   uint8_t lps, uint8_t poff, uint64_t off,
			   uint64_t len)
{
	uint8_t *p = NULL;

	if (len <= SCRATCH)
		p = cx_queue_at(cx, pas, npas, lps, poff, off, len, false);
	return p ? p : guest_or_zeros(cx, UINT64_MAX, 0);
}

static int ibv_to_mkey(int access)
{
	return (access & IBV_ACCESS_LOCAL_WRITE ? CX_MKEY_LW : 0) |
	       (access & IBV_ACCESS_REMOTE_WRITE ? CX_MKEY_RW : 0) |
	       (access & IBV_ACCESS_REMOTE_READ ? CX_MKEY_RR : 0) |
	       (access & IBV_ACCESS_REMOTE_ATOMIC ? CX_MKEY_A : 0);
}

static int xlate(struct cx *cx, const struct m5m_pd *pd, uint32_t key,
		 uint64_t addr, uint64_t len, int access, uint8_t **host,
		 uint64_t *run)
{
	bool write =
		access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_ATOMIC);

	return cx_mkey_xlate(cx, pd->pdn, key, addr, len,
			     ibv_to_mkey(access) | CX_MKEY_LR, write, host,
			     run);
}

/* Every refused translation is named in the trace (the error CQE's cause). */
static int eng_xlate(void *arg, const struct m5m_pd *pd, uint32_t key,
		     uint64_t addr, uint64_t len, int access, uint8_t **host,
		     uint64_t *run)
{
	struct cx *cx = arg;
	const struct cx_mkey *k = &cx->mkey[(key >> 8) % CX_MAX_MKEY];
	int r = xlate(cx, pd, key, addr, len, access, host, run);

	if (r)
		cx_trace(cx,
			 "xlate refused: key 0x%x pd %u addr 0x%llx len 0x%llx "
			 "access 0x%x; mkey valid %u free %u pd %u mode %u "
			 "access 0x%x start 0x%llx len 0x%llx length64 %u "
			 "log_page_size %u nmtt %u",
			 key, pd->pdn, (unsigned long long)addr,
			 (unsigned long long)len, access, k->valid, k->free,
			 k->pd, k->mode, k->access,
			 (unsigned long long)k->start,
			 (unsigned long long)k->len, k->length64,
			 k->log_page_size, k->nmtt);
	return r;
}

static int eng_rinval(void *arg, const struct m5m_pd *pd, uint32_t key)
{
	struct cx *cx = arg;
	int r = cx_mkey_rinval(cx, pd->pdn, key);

	if (r)
		cx_trace(cx, "send-with-invalidate refused: key 0x%x pd %u",
			 key, pd->pdn);
	return r;
}

static int eng_umr(void *arg, const struct m5m_qp *m, const struct m5m_wqe *w)
{
	struct cx *cx = arg;
	const struct cx_eng_qp *e = of(m, struct cx_eng_qp, m);
	int r = cx_mw_umr(cx, e->n, m->pd->pdn, w->raw, w->ds);

	if (r)
		cx_trace(cx, "qp 0x%x: UMR WQE %u refused, syndrome 0x%x", e->n,
			 w->idx, r);
	return r;
}

static uint8_t *eng_qp_buf(void *arg, const struct m5m_qp *m, size_t off)
{
	struct cx *cx = arg;
	const struct cx_eng_qp *e = of(m, struct cx_eng_qp, m);
	const struct cx_qp *q = &cx->qp[e->n];
	size_t rq = (size_t)m->rq_cnt << m->rq_shift;
	uint64_t len = off < rq ? 1u << m->rq_shift : M5_SEND_WQE_BB;

	return queue_byte(cx, q->pas, q->npas, q->log_page_size, q->page_offset,
			  off, len);
}

static uint8_t *eng_srq_buf(void *arg, const struct m5m_srq *m, size_t off)
{
	struct cx *cx = arg;
	const struct cx_srq *s = &cx->srq[m->srqn];

	return queue_byte(cx, s->pas, s->npas, s->log_page_size, s->page_offset,
			  off, 1u << m->shift);
}

static void eng_cqe(void *arg, struct m5m_cq *cq, const struct m5_cqe64 *cqe,
		    bool sol)
{
	struct cx *cx = arg;

	if (cx_cq_push(cx, cq->cqn, (const uint8_t *)cqe, sol) != CX_OK)
		cx->eng->st.cqe_lost++;
}

static void eng_event(void *arg, uint8_t type, uint32_t num, uint8_t res_type)
{
	struct cx *cx = arg;
	uint8_t data[28] = { 0 };

	data[EQE_RES_TYPE] = res_type;
	cx_set(data, EQE_QP_SRQ_N * 8, 32, num & 0xffffff);
	cx->eng->st.events++;
	cx_eq_post(cx, type, 0, data, sizeof(data));
}

/* The doorbell record's current host address (guest memory may move). */
static void refresh_dbrec(struct cx *cx, struct cx_eng_qp *e)
{
	static __be32 none[2];

	e->m.dbrec = cx_dma(cx, cx->qp[e->n].dbr, 8, true);
	if (!e->m.dbrec) {
		memset(none, 0, sizeof(none));
		e->m.dbrec = none;
	}
	if (e->m.srq) {
		__be32 *r = cx_dma(cx, cx->srq[e->m.srq->srqn].dbr, 4, true);

		e->m.srq->dbrec = r ? r : none;
	}
}

/* IB's special QP numbers name the function's QP0 and QP1. */
/*
 * WQEs posted (the SND dbrec) beyond the last send doorbell, when the QP
 * stops sending (2ERR, 2RST, DESTROY_QP): no doorbell named them.  The
 * dbrec is still pinned then (mlx5_ib unpins it after the command).
 */
static void stranded(struct cx *cx, struct cx_eng_qp *e)
{
	if (!e->rung)
		return;
	refresh_dbrec(cx, e);
	if (m5m_snd_dbrec(&e->m) != e->db_end) {
		cx_trace(cx,
			 "violation: qp 0x%x: SND dbrec %u, last doorbell ends "
			 "at %u",
			 e->n, m5m_snd_dbrec(&e->m), e->db_end);
		cx->eng->st.db_not_last++;
	}
	e->rung = false;
}

static struct cx_eng_qp *find_qp(struct cx *cx, uint32_t qpn)
{
	uint32_t i, st = qpn == 0 ? CX_ST_QP0 : CX_ST_QP1;

	if (qpn <= 1) {
		for (i = 0; i < CX_MAX_QP; i++)
			if (cx->eng->qp[i] && cx->qp[i].st == st)
				return cx->eng->qp[i];
		return NULL;
	}
	return qpn < CX_MAX_QP ? cx->eng->qp[qpn] : NULL;
}

static struct m5m_qp *eng_qp_find(void *arg, uint32_t qpn)
{
	struct cx *cx = arg;
	struct cx_eng_qp *e = find_qp(cx, qpn);

	if (!e)
		return NULL;
	refresh_dbrec(cx, e);
	return &e->m;
}

/* The SRQ an XRC segment names: an XRC SRQ of the device, or NULL. */
static struct m5m_srq *eng_srq_find(void *arg, uint32_t srqn)
{
	static __be32 none;
	struct cx *cx = arg;
	struct cx_eng_srq *e;

	if (srqn >= CX_MAX_SRQ || !cx->srq[srqn].valid || !cx->srq[srqn].xrc)
		return NULL;
	e = cx->eng->srq[srqn];
	if (!e)
		return NULL;
	e->m.dbrec = cx_dma(cx, cx->srq[srqn].dbr, 4, true);
	if (!e->m.dbrec) {
		none = 0;
		e->m.dbrec = &none;
	}
	return &e->m;
}

/*
 * A packet of a QP on the wire: RoCE v2 to the QP's address path, or a
 * UD WQE's AV (for RoCE libmlx5 puts the UDP source port in rlid).
 */
static void eng_wire_tx(void *arg, const struct m5m_qp *m,
			const struct m5_av *av, const uint8_t *pkt, size_t len)
{
	struct cx_roce_addr a = { 0 };

	if (av) {
		a.sgid_index = (uint8_t)m5m_av_sgid_index(av);
		memcpy(a.dmac, av->rmac, 6);
		memcpy(a.dgid, av->rgid, 16);
		a.hop_limit = av->hop_limit;
		a.tclass = av->tclass;
		a.flow_label = be32toh(av->grh_gid_fl) & 0xfffff;
		a.udp_sport = be16toh(av->rlid);
	} else {
		cx_roce_qp_addr(arg, of(m, struct cx_eng_qp, m)->n, &a);
	}
	cx_roce_tx(arg, &a, pkt, len);
}

static const struct m5m_eng_ops eng_ops = {
	.xlate = eng_xlate,
	.rinval = eng_rinval,
	.umr = eng_umr,
	.qp_buf = eng_qp_buf,
	.srq_buf = eng_srq_buf,
	.cqe = eng_cqe,
	.event = eng_event,
	.qp_find = eng_qp_find,
	.srq_find = eng_srq_find,
	.wire_tx = eng_wire_tx,
};

/* The engine's QP, and what it holds, freed. */
static void qp_free(struct cx_eng_qp *e)
{
	if (!e)
		return;
	m5m_fly_drop(&e->m);
	m5m_wire_free(&e->m);
	free(e);
}

static void states_back(struct cx *cx);

/*
 * The slow device's tick: each QP completes what it executed at the last
 * one and executes the next few WQEs (m5m_sq_tick).
 */
static void cx_slow_tick(struct cx *cx)
{
	struct cx_eng *g = cx->eng;
	struct cx_eng_qp *e;
	unsigned int i;
	uint64_t v, rw;

	for (i = 0; i < CX_MAX_QP; i++) {
		e = g->qp[i];
		if (!e || !e->m.sq_bbs || e->m.state == IBV_QPS_RESET)
			continue;
		refresh_dbrec(cx, e);
		v = g->dev->violations;
		rw = g->dev->st.wqe_rewritten;
		m5m_sq_tick(&e->m);
		g->st.send_violations += g->dev->violations - v -
					 (g->dev->st.wqe_rewritten - rw);
	}
	g->st.wqe_rewritten = g->dev->st.wqe_rewritten;
	states_back(cx);
	g->slow_tick = g->dev->now + SLOW_TICK_US;
}

/*
 * The engine keeps its QPs here, not in the model's table, so the model's
 * own timer walk (m5m_clock_advance) never sees them: the RNR retries are
 * run from here.
 */
int64_t cx_eng_timers(struct cx *cx)
{
	struct cx_eng *g = cx->eng;
	uint64_t now_us, due = UINT64_MAX;
	bool err_qps = false;
	struct cx_eng_qp *e;
	unsigned int i;

	if (!g)
		return -1;
	now_us = (cx_now_ns() - cx->t0_ns) / 1000;
	m5m_lock();
	if (now_us > g->dev->now)
		g->dev->now = now_us;
	if (g->dev->slow && now_us >= g->slow_tick)
		cx_slow_tick(cx);
	for (i = 0; i < CX_MAX_QP; i++) {
		e = g->qp[i];
		/*
		 * A receive posted in ERR is only a doorbell record: flushed
		 * all the same (the kernel's ib_drain_rq waits for that).
		 */
		if (e && e->m.state == IBV_QPS_ERR && !e->m.srq) {
			refresh_dbrec(cx, e);
			if (m5m_rcv_dbrec(&e->m) != e->m.rq_seen)
				m5m_rq_posted(&e->m);
			err_qps = true;
		}
		if (e && e->m.parked && e->m.park_until <= g->dev->now)
			m5m_rnr_expire(&e->m); /* parks again if still RNR */
		if (e && e->m.wire_due && e->m.wire_due <= g->dev->now) {
			refresh_dbrec(cx, e);
			m5m_wire_timer(&e->m);
		}
		if (e && e->m.wire_due && e->m.wire_due < due)
			due = e->m.wire_due;
		if (e && e->m.parked && e->m.park_until < due)
			due = e->m.park_until;
		if (e && g->dev->slow && m5m_sq_busy(&e->m) &&
		    g->slow_tick < due)
			due = g->slow_tick;
	}
	m5m_unlock();
	states_back(cx);      /* a retry exhausted moved a QP to ERR */
	cx_roce_loop_run(cx); /* what the resends looped back */
	/* A QP in ERR: its receive dbrec is looked at every ERR_POLL_US. */
	if (err_qps && due > now_us + ERR_POLL_US)
		due = now_us + ERR_POLL_US;
	if (due == UINT64_MAX)
		return -1;
	return due > now_us ? (int64_t)(due - now_us) * 1000 : 0;
}

int cx_eng_init(struct cx *cx)
{
	struct m5m_config cfg;

	cx->eng = calloc(1, sizeof(*cx->eng));
	if (!cx->eng)
		return -1;
	m5m_config_default(&cfg);
	cfg.strict = false; /* bad guest input is counted, never fatal */
	cfg.lid = CX_PORT_LID;
	/* The GRH of a UD receive carries the GID the driver reads. */
	cfg.node_guid = CX_NODE_GUID;
	_Static_assert(CX_PORT_GUID == M5M_PORT_GUID(CX_NODE_GUID, 1, 0),
		       "port 1's GUID");
	/* Test only: corrupt the Nth data write (m5m_config.corrupt_write). */
	if (getenv("DOORBELL_CX_CORRUPT_WRITE"))
		cfg.corrupt_write =
			strtoull(getenv("DOORBELL_CX_CORRUPT_WRITE"), NULL, 0);
	cx->eng->dev = m5m_dev_create(&cfg);
	if (!cx->eng->dev) {
		free(cx->eng);
		cx->eng = NULL;
		return -1;
	}
	/* The engine names each bad WQE on stderr: the server log. */
	m5m_set_quiet(cx->eng->dev, !cx->host.trace);
	m5m_eng_set_ops(cx->eng->dev, &eng_ops, cx);
	cx->eng->dev->slow = cx->host.slow;
	return 0;
}

void cx_eng_reset(struct cx *cx)
{
	struct cx_eng *g = cx->eng;
	unsigned int i;

	if (!g)
		return;
	for (i = 0; i < CX_MAX_QP; i++)
		qp_free(g->qp[i]);
	for (i = 0; i < CX_MAX_CQ; i++)
		free(g->cq[i]);
	for (i = 0; i < CX_MAX_SRQ; i++)
		free(g->srq[i]);
	for (i = 0; i < CX_OBJ_MAX; i++)
		free(g->pd[i]);
	memset(g->qp, 0, sizeof(g->qp));
	memset(g->cq, 0, sizeof(g->cq));
	memset(g->srq, 0, sizeof(g->srq));
	memset(g->pd, 0, sizeof(g->pd));
	/*
	 * g->st is kept: the counts are the referee's verdict on the whole
	 * boot, not the function's state, and a guest resets the function
	 * (mlx5_core's teardown, a reboot) before the server reports them.
	 */
}

void cx_eng_fini(struct cx *cx)
{
	if (!cx->eng)
		return;
	cx_eng_reset(cx);
	m5m_dev_destroy(cx->eng->dev);
	free(cx->eng);
	cx->eng = NULL;
}

const struct cx_eng_stats *cx_eng_stats(const struct cx *cx)
{
	cx->eng->st.violations = m5m_violations(cx->eng->dev);
	cx->eng->st.slow_late = cx->eng->dev->st.slow_late;
	cx->eng->st.ack_timeouts = cx->eng->dev->st.ack_timeouts;
	cx->eng->st.slow_held = cx->eng->dev->st.slow_held;
	cx->eng->st.wire_packets = cx->eng->dev->st.wire_packets;
	cx->eng->st.wire_received = cx->eng->dev->st.wire_received;
	cx->eng->st.wire_resends = cx->eng->dev->st.wire_resends;
	return &cx->eng->st;
}

void cx_eng_bf_note(struct cx *cx, enum cx_bf_rule rule)
{
	struct cx_eng_stats *st = cx->eng ? &cx->eng->st : NULL;

	if (st && rule == CX_BF_HALF_REUSED)
		st->bf_half_reused++;
	else if (st && rule == CX_BF_PARTIAL)
		st->bf_partial++;
}

void cx_eng_arm_violation(struct cx *cx, enum cx_arm_rule rule)
{
	struct cx_eng_stats *st = cx->eng ? &cx->eng->st : NULL;

	if (!st)
		return;
	switch (rule) {
	case CX_ARM_WRONG_UAR:
		st->arm_wrong_uar++;
		break;
	case CX_ARM_NOT_DBREC:
		st->arm_not_dbrec++;
		break;
	case CX_ARM_BAD_CMD:
		st->arm_bad_cmd++;
		break;
	case CX_ARM_SN_AHEAD:
		st->arm_sn_ahead++;
		break;
	}
}

/*
 * The verdict counts the rules below (recv_dbrec, the send doorbell's
 * rules, send_wqe, the CQ arm's rules); the engine's other checks (receive WQE parse at delivery,
 * the ERR poll, CQ and SRQ list checks) are printed as engine_other and
 * named by the engine's own "m5model" lines, but do not fail the run:
 * they include the send WQEs the bad-input matrix makes bad on purpose
 * (an RDMA READ with inline data, an opcode invalid on the QP), which a
 * ConnectX answers with an error CQE.
 */
static uint64_t cx_eng_report_stats(const struct cx_eng_stats *st, FILE *f)
{
	const struct {
		const char *rule;
		uint64_t n;
	} rules[] = {
		{ "recv_dbrec", st->recv_violations },
		{ "doorbell_not_its_wqe", st->db_not_wqe },
		{ "doorbell_not_last_wqe", st->db_not_last },
		{ "doorbell_wrong_uar", st->db_wrong_uar },
		{ "send_wqe", st->send_violations },
		{ "wqe_rewritten", st->wqe_rewritten },
		{ "cq_arm_wrong_uar", st->arm_wrong_uar },
		{ "cq_arm_not_dbrec", st->arm_not_dbrec },
		{ "cq_arm_bad_cmd", st->arm_bad_cmd },
		{ "cq_arm_sn_ahead", st->arm_sn_ahead },
		{ "bf_payload_not_wqe", st->bf_payload_not_wqe },
		{ "bf_half_reused", st->bf_half_reused },
		{ "bf_partial", st->bf_partial },
	};
	uint64_t ruled = 0, engine = st->recv_violations + st->send_violations +
				     st->wqe_rewritten;
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		ruled += rules[i].n;
	if (!f)
		return ruled;
	fprintf(f, "violations: %llu\n", (unsigned long long)ruled);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].n)
			fprintf(f, "violations: %s %llu\n", rules[i].rule,
				(unsigned long long)rules[i].n);
	if (st->violations > engine)
		fprintf(f, "violations: engine_other %llu (not failing)\n",
			(unsigned long long)(st->violations - engine));
	/* Statistics, not rules: scripts/lib.sh db_stat reads them. */
	fprintf(f, "stat: bf_doorbells %llu\n",
		(unsigned long long)st->bf_doorbells);
	fprintf(f, "stat: ack_timeouts %llu\n",
		(unsigned long long)st->ack_timeouts);
	if (st->wire_packets || st->wire_received)
		fprintf(f,
			"stat: roce_packets %llu sent, %llu taken, %llu "
			"resends\n",
			(unsigned long long)st->wire_packets,
			(unsigned long long)st->wire_received,
			(unsigned long long)st->wire_resends);
	return ruled;
}

uint64_t cx_eng_report(const struct cx *cx, FILE *f)
{
	/* f NULL: the total only, without a line. */
	uint64_t n = cx->eng ? cx_eng_report_stats(cx_eng_stats(cx), f) : 0;

	if (f && cx->eth)
		cx_eth_report(cx, f);
	return n;
}

/*
 * The send doorbell is the first 8 bytes of the last posted WQE's ctrl
 * segment (opmod_idx_opcode, qpn_ds): the SQ's producer index is that
 * WQE's index plus its WQEBBs, bounded by the SND dbrec.  A doorbell that
 * is not the WQE it names is counted.  One that names an earlier WQE than
 * the dbrec is not, yet: MMIO writes are posted, so the provider may have
 * posted the next WQE and its dbrec before this doorbell arrives, and
 * that WQE's own doorbell follows.  What no doorbell ever named is
 * counted when the QP leaves its sending states (stranded()).
 */
static uint16_t send_db_pi(struct cx_eng *g, struct cx_eng_qp *e,
			   const uint8_t *b)
{
	uint16_t idx = (uint16_t)cx_get(b, 8, 16);
	uint16_t nbb = (uint16_t)((cx_get(b, 58, 6) + 3) / 4);
	uint16_t pi = idx + nbb, dbrec = m5m_snd_dbrec(&e->m);
	uint16_t hw = e->m.sq_hw;

	if (memcmp(b, m5m_sq_slot(&e->m, idx), 8))
		g->st.db_not_wqe++;
	e->db_end = pi;
	e->rung = true;
	return (uint16_t)(pi - hw) <= (uint16_t)(dbrec - hw) ? pi : dbrec;
}

/*
 * Is payload P the WQE W with CQ_UPDATE added to a NOP?  The kernels'
 * write-combining probes (mlx5_ib's in 6.1, mlx5_core's wc.c after it)
 * post NOPs without a CQE and copy each with CQ_UPDATE set, so that only
 * a device that runs the payload completes one before the last: that
 * difference is their question, not a provider's fault.
 */
static bool probe_nop(const uint8_t *w, const uint8_t *p, uint32_t len)
{
	uint8_t ctrl[16];

	if (len < sizeof(ctrl) || p[3] != OPCODE_NOP)
		return false;
	memcpy(ctrl, w, sizeof(ctrl));
	ctrl[CTRL_FM_CE_SE] |= CTRL_CQ_UPDATE;
	return !memcmp(ctrl, p, sizeof(ctrl)) &&
	       !memcmp(w + sizeof(ctrl), p + sizeof(ctrl), len - sizeof(ctrl));
}

/*
 * A BlueFlame copy of LEN bytes (ds * 16, at most a half; cx_bf.c): the
 * WQE it names runs from the payload, as a ConnectX's does, the rest of its
 * last WQEBB (and any WQEBB past the half) from memory.  A payload that is
 * not the WQE in memory is counted.
 */
static void bf_payload(struct cx_eng *g, struct cx_eng_qp *e, const uint8_t *b,
		       uint32_t len)
{
	uint16_t idx = (uint16_t)cx_get(b, 8, 16);
	uint16_t i, nbb = (uint16_t)((len + 63) / 64);

	for (i = 0; i < nbb; i++)
		memcpy(g->bf + i * 64, m5m_sq_slot(&e->m, (uint16_t)(idx + i)),
		       64);
	if (memcmp(g->bf, b, len) && !probe_nop(g->bf, b, len))
		g->st.bf_payload_not_wqe++;
	memcpy(g->bf, b, len);
	g->st.bf_doorbells++;
	e->m.bf_wqe = g->bf;
	e->m.bf_idx = idx;
	e->m.bf_nbb = nbb;
}

/*
 * The receive queues of the QP that rang, looked at as the in-process
 * model looks at each RCV/SRQ dbrec store (m5m_rq_posted, m5m_srq_posted):
 * no more posted than the ring holds, and each new WQE already written
 * (a WQE written after its dbrec store reads as a bad one).  The device
 * sees no dbrec store, so it samples at each send doorbell of the QP.
 */
static void recv_checks(struct cx_eng *g, struct cx_eng_qp *e)
{
	uint64_t v = g->dev->violations;

	if (e->m.srq)
		m5m_srq_posted(e->m.srq);
	else if (e->m.rq_cnt && m5m_rcv_dbrec(&e->m) != e->m.rq_seen)
		m5m_rq_posted(&e->m);
	g->st.recv_violations += g->dev->violations - v;
}

static struct m5m_pd *pd_of(struct cx *cx, uint32_t pdn)
{
	struct cx_eng *g = cx->eng;

	if (pdn >= CX_OBJ_MAX)
		return NULL;
	if (!g->pd[pdn]) {
		g->pd[pdn] = calloc(1, sizeof(*g->pd[pdn]));
		if (!g->pd[pdn])
			return NULL;
		g->pd[pdn]->pdn = pdn;
		g->pd[pdn]->dev = g->dev;
	}
	return g->pd[pdn];
}

static struct m5m_cq *cq_of(struct cx *cx, uint32_t cqn)
{
	struct cx_eng *g = cx->eng;

	if (!cx_cq_get(cx, cqn))
		return NULL;
	if (!g->cq[cqn]) {
		g->cq[cqn] = calloc(1, sizeof(*g->cq[cqn]));
		if (!g->cq[cqn])
			return NULL;
		g->cq[cqn]->cqn = cqn;
		g->cq[cqn]->dev = g->dev;
	}
	return g->cq[cqn];
}

void cx_eng_srq_made(struct cx *cx, uint32_t srqn)
{
	struct cx_eng *g = cx->eng;
	const struct cx_srq *s = &cx->srq[srqn];
	struct cx_eng_srq *e;

	if (!g)
		return;
	free(g->srq[srqn]);
	g->srq[srqn] = e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->m.srqn = srqn;
	e->m.dev = g->dev;
	e->m.pd = pd_of(cx, s->pd);
	e->m.nwqe = 1u << s->log_size;
	e->m.shift = s->log_stride;
	e->m.max_sge = ((1u << s->log_stride) - 16) / 16;
	e->m.uidx = s->user_index;
	e->m.limit = s->lwm;
	e->m.limit_armed = s->lwm != 0;
	if (s->xrc) {
		e->m.xrcd = s->xrcd;
		e->m.cq = cq_of(cx, s->cqn);
	}
}

/* An SRQ went: so do the engine's QPs on it (their doorbells are stray). */
void cx_eng_srq_gone(struct cx *cx, uint32_t srqn)
{
	struct cx_eng *g = cx->eng;
	unsigned int i;

	if (!g || !g->srq[srqn])
		return;
	for (i = 0; i < CX_MAX_QP; i++) {
		if (g->qp[i] && g->qp[i]->m.srq == &g->srq[srqn]->m) {
			qp_free(g->qp[i]);
			g->qp[i] = NULL;
		}
	}
	free(g->srq[srqn]);
	g->srq[srqn] = NULL;
}

static enum ibv_qp_type qp_type(const struct cx_qp *q)
{
	switch (q->st) {
	case CX_ST_RC:
		return IBV_QPT_RC;
	case CX_ST_XRC:
		return q->no_sq ? IBV_QPT_XRC_RECV : IBV_QPT_XRC_SEND;
	case CX_ST_UC:
		return IBV_QPT_UC;
	default:
		return IBV_QPT_UD;
	}
}

static enum ibv_qp_state ibv_state(uint8_t state)
{
	switch (state) {
	case CX_QP_INIT:
		return IBV_QPS_INIT;
	case CX_QP_RTR:
		return IBV_QPS_RTR;
	case CX_QP_RTS:
		return IBV_QPS_RTS;
	case CX_QP_SQER:
		return IBV_QPS_SQE;
	case CX_QP_ERR:
		return IBV_QPS_ERR;
	default:
		return IBV_QPS_RESET;
	}
}

static uint8_t cx_state(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_INIT:
		return CX_QP_INIT;
	case IBV_QPS_RTR:
		return CX_QP_RTR;
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
		return CX_QP_RTS;
	case IBV_QPS_SQE:
		return CX_QP_SQER;
	case IBV_QPS_ERR:
		return CX_QP_ERR;
	default:
		return CX_QP_RST;
	}
}

/* A QP in RST: the engine's view, its counters at zero. */
void cx_eng_qp_made(struct cx *cx, uint32_t qpn)
{
	struct cx_eng *g = cx->eng;
	const struct cx_qp *q = &cx->qp[qpn];
	struct cx_eng_qp *e;

	if (!g)
		return;
	if (g->qp[qpn])
		stranded(cx, g->qp[qpn]); /* 2RST */
	qp_free(g->qp[qpn]);
	g->qp[qpn] = NULL;
	/* The UMR QP's WQEs are cx_umr.c's, not the engine's. */
	if (q->st == CX_ST_REG_UMR) {
		cx->qp[qpn].umr_ci = 0;
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->n = qpn;
	e->m.qpn = qpn;
	/* On the wire the special QPs go by their IB numbers. */
	e->m.wire_qpn = q->st == CX_ST_QP1 ? 1 : q->st == CX_ST_QP0 ? 0 : qpn;
	e->m.dev = g->dev;
	e->m.pd = pd_of(cx, q->pd);
	e->m.type = qp_type(q);
	e->m.xrcd = q->xrcd;
	e->m.state = IBV_QPS_RESET;
	e->m.scq = cq_of(cx, q->cqn_snd);
	e->m.rcq = cq_of(cx, q->cqn_rcv);
	if (q->rq_type == RQ_SRQ && q->srqn < CX_MAX_SRQ)
		e->m.srq = &g->srq[q->srqn]->m;
	if (q->rq_type == RQ_REGULAR) {
		e->m.rq_cnt = 1u << q->log_rq_size;
		e->m.rq_shift = q->log_rq_stride;
	}
	e->m.sq_bbs = q->no_sq ? 0 : 1u << q->log_sq_size;
	e->m.uidx = q->user_index;
	e->m.port = 1;
	if (!e->m.pd || !e->m.scq || !e->m.rcq ||
	    (q->rq_type == RQ_SRQ && !g->srq[q->srqn]) ||
	    (q->rq_type == RQ_SRQ && !e->m.srq)) {
		free(e);
		return;
	}
	g->qp[qpn] = e;
	cx_trace(cx,
		 "engine qp 0x%x: st 0x%x rq %u x %u B, sq %u BBs, %u pages "
		 "of 4 KiB << %u, page_offset %u, dbr 0x%llx",
		 qpn, q->st, e->m.rq_cnt, 1u << e->m.rq_shift, e->m.sq_bbs,
		 q->npas, q->log_page_size, q->page_offset,
		 (unsigned long long)q->dbr);
}

/* A state command moved QPN: the engine takes the state and attributes. */
void cx_eng_qp_moved(struct cx *cx, uint32_t qpn)
{
	const struct cx_qp *q = &cx->qp[qpn];
	struct cx_eng_qp *e = cx->eng ? cx->eng->qp[qpn] : NULL;
	const uint8_t *c = q->qpc;
	enum ibv_qp_state to = ibv_state(q->state);

	if (!e)
		return;
	e->m.dest_qpn = cx_get(c, F_QPC_REMOTE_QPN);
	e->m.qkey = cx_get(c, F_QPC_Q_KEY);
	e->m.access = (cx_get(c, F_QPC_RRE) ? IBV_ACCESS_REMOTE_READ : 0) |
		      (cx_get(c, F_QPC_RWE) ? IBV_ACCESS_REMOTE_WRITE : 0) |
		      (cx_get(c, F_QPC_RAE) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	e->m.mtu = cx_get(c, F_QPC_MTU);
	e->m.rnr_retry = cx_get(c, F_QPC_RNR_RETRY);
	e->m.retry_cnt = cx_get(c, F_QPC_RETRY_COUNT);
	e->m.timeout = cx_get(c, F_QPC_ACK_TIMEOUT);
	e->m.max_rd_atomic = (uint8_t)(1u << cx_get(c, F_QPC_LOG_SRA_MAX));
	e->m.min_rnr_timer = cx_get(c, F_QPC_MIN_RNR_NAK);
	/*
	 * The PSNs are the QP's live state: the QPC's are taken only at the
	 * transition that sets them (INIT2RTR, RTR2RTS).  A message can land
	 * between RTR and RTS; RTR2RTS must not move the receive PSN back.
	 */
	if (e->m.state == IBV_QPS_INIT && to == IBV_QPS_RTR)
		e->m.rq_psn = cx_get(c, F_QPC_NEXT_RCV_PSN);
	if (e->m.state == IBV_QPS_RTR && to == IBV_QPS_RTS)
		e->m.sq_psn = cx_get(c, F_QPC_NEXT_SEND_PSN);
	e->m.pkey_index = cx_get(c, F_QPC_PKEY_INDEX);
	/* On an Ethernet port a connected QP's messages cross the wire. */
	e->m.wire =
		cx->eth && (e->m.type == IBV_QPT_RC ||
			    e->m.type == IBV_QPT_UC || e->m.type == IBV_QPT_UD);
	if (to == IBV_QPS_ERR) /* 2RST is cx_eng_qp_made's */
		stranded(cx, e);
	refresh_dbrec(cx, e);
	if (to == IBV_QPS_ERR && e->m.state != IBV_QPS_ERR) {
		m5m_lock();
		m5m_qp_to_err(&e->m); /* flushes what is posted */
		m5m_unlock();
	}
	e->m.state = to;
}

/* The engine moved QPs to ERR or SQE: QUERY_QP says so too. */
static void states_back(struct cx *cx)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_QP; i++)
		if (cx->eng->qp[i] && cx->qp[i].valid)
			cx->qp[i].state = cx_state(cx->eng->qp[i]->m.state);
}

void cx_eng_qp_gone(struct cx *cx, uint32_t qpn)
{
	if (!cx->eng)
		return;
	if (cx->eng->qp[qpn])
		stranded(cx, cx->eng->qp[qpn]);
	qp_free(cx->eng->qp[qpn]);
	cx->eng->qp[qpn] = NULL;
}

void cx_eng_qp_psns(struct cx *cx, uint32_t qpn, uint8_t *qpc)
{
	struct cx_eng_qp *e = cx->eng ? cx->eng->qp[qpn] : NULL;

	if (!e)
		return;
	/* Each was the QPC's until its transition; then the engine moves it. */
	if (e->m.state >= IBV_QPS_RTR)
		cx_set(qpc, F_QPC_NEXT_RCV_PSN, e->m.rq_psn);
	if (e->m.state >= IBV_QPS_RTS)
		cx_set(qpc, F_QPC_NEXT_SEND_PSN, e->m.sq_psn);
}

void cx_eng_srq_limit(struct cx *cx, uint32_t srqn)
{
	struct cx_eng_srq *e = cx->eng ? cx->eng->srq[srqn] : NULL;

	if (e) {
		e->m.limit = cx->srq[srqn].lwm;
		e->m.limit_armed = cx->srq[srqn].lwm != 0;
	}
}

void cx_eng_send_doorbell(struct cx *cx, uint32_t uar, uint32_t off,
			  const uint8_t *b, uint32_t len)
{
	struct cx_eng *g = cx->eng;
	struct cx_eng_qp *e;
	uint32_t qpn;
	uint64_t v;

	if (!g || off < BF_OFFSET || off % BF_HALF || len < 8 || len > BF_HALF)
		return;
	/* ctrl segment: opmod_idx_opcode, then qpn_ds */
	qpn = cx_get(b, 32, 24);
	/*
	 * Rung on a UAR page other than the one its QPC names: dropped.  A
	 * QP without an SQ (an XRC TGT) names no UAR and rings nothing.
	 */
	if (qpn < CX_MAX_QP && cx->qp[qpn].valid && !cx->qp[qpn].no_sq &&
	    cx->qp[qpn].uar != uar) {
		cx_trace(cx,
			 "violation: send doorbell qpn %u on uar %u (qpc %u)",
			 qpn, uar, cx->qp[qpn].uar);
		g->st.db_wrong_uar++;
		return;
	}
	if (qpn < CX_MAX_QP && cx->qp[qpn].valid &&
	    cx->qp[qpn].st == CX_ST_REG_UMR) {
		cx_umr_doorbell(cx, qpn);
		return;
	}
	e = qpn < CX_MAX_QP && cx->qp[qpn].valid ? g->qp[qpn] : NULL;
	if (!e || (e->m.state != IBV_QPS_RTS && e->m.state != IBV_QPS_SQD &&
		   e->m.state != IBV_QPS_SQE && e->m.state != IBV_QPS_ERR)) {
		g->st.stray_doorbells++;
		return;
	}
	g->st.doorbells++;
	refresh_dbrec(cx, e);
	m5m_lock();
	recv_checks(g, e);
	v = g->dev->violations;
	e->m.db_pi = send_db_pi(g, e, b);
	if (len > 8)
		bf_payload(g, e, b, len);
	m5m_sq_run(&e->m);
	e->m.bf_wqe = NULL;
	g->st.send_violations += g->dev->violations - v;
	m5m_unlock();
	states_back(cx);
	cx_roce_loop_run(cx); /* the packets looped back */
}

void cx_eng_wire_rx(struct cx *cx, uint32_t n, const uint8_t *pkt, size_t len,
		    const uint8_t *grh)
{
	struct cx_eng_qp *e = cx->eng && n < CX_MAX_QP ? cx->eng->qp[n] : NULL;
	uint64_t now_us = (cx_now_ns() - cx->t0_ns) / 1000;

	if (!e || !e->m.wire)
		return;
	refresh_dbrec(cx, e);
	m5m_lock();
	if (now_us > e->m.dev->now)
		e->m.dev->now = now_us; /* the timers the packet starts */
	m5m_wire_rx(&e->m, pkt, len, grh);
	m5m_unlock();
	states_back(cx);
	cx_roce_loop_run(cx); /* the answers looped back */
}

int cx_eng_wire_qp(struct cx *cx, uint32_t qpn)
{
	struct cx_eng_qp *e = cx->eng ? find_qp(cx, qpn) : NULL;

	return e && e->m.wire ? (int)e->n : -1;
}
