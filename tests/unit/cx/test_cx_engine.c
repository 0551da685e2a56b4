// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path (cx_engine.c) driven as mlx5_ib and libmlx5 drive it:
 * PD, MTT MKEYs, CQs and QPs made by commands, QPs moved to RTS by their
 * state commands, WQEs written into the QP's guest pages, the doorbell
 * record, then the doorbell at UAR offset 0x800.  The bytes that arrived
 * and the CQEs in the guest's CQ rings are checked against the mlx5_hw.h
 * layouts; page arithmetic here is the test's own.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cx_engine.h"
#include "cx_ifc.h"
#include "cx_test.h"
#include "m5m_int.h"

#define PG(n) ((uint64_t)MEM_BASE + (uint64_t)(n)*CX_PAGE)

enum {
	RQ_LOG = 6, /* 64 receive WQEs of 64 bytes: the RQ is one page */
	SQ_LOG = 3, /* 8 WQEBBs */
	CQ_LOG = 4,
	P_DBR = 0x2e, /* QP doorbell records, 64 bytes apart */
	P_CQDBR = 0x2f,
	P_CQ = 0x30,   /* A's CQ, then B's */
	P_QP = 0x34,   /* A: RQ 0x35, SQ 0x34; B: RQ 0x37, SQ 0x36 */
	P_BIG = 0x38,  /* 16 KiB QP pages: A 0x38-0x3b, B 0x3c-0x3f */
	P_DATA = 0x40, /* A's pages 0x40-0x43, B's 0x50-0x53 */
	P_EQ = 0x90,
	P_AEQ = 0xa0,
	P_SRQ = 0xb0, /* B's RMP: 16 WQEs of 64 bytes */
	SRQ_LOG = 4,
	VEC = 1,
	CQE_INVALID = 0xf, /* make_cq's opcode */
};

#define ACC_ALL                                                                \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* A's MKEY starts 0x800 into a page: four pages for three pages' length. */
static const uint64_t t_iova[2] = { 0x7f0000001800ull, 0x5500000000ull };

struct t_rig {
	struct cx *cx;
	uint32_t uar, pd, eqn;
	uint32_t cqn[2], key[2], qpn[2];
	uint64_t mtt[2][4];
	uint16_t sq_pi[2], rq_pi[2];
	uint64_t rq_at[2], sq_at[2]; /* guest addresses of the queues */
	unsigned int lps;	     /* QP pages: 4 KiB << lps */
	uint32_t srqn;		     /* B's receives come from this RMP */
	uint32_t xrcd, xsrqn;	     /* XRC: A is an INI, B a TGT */
};

static uint32_t t_alloc_pd(struct cx *cx)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, CX_OP_ALLOC_PD, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_OBJ_NUMBER);
}

/* CREATE_MKEY in MTT mode over [iova, iova + len) with MTT's 4 pages. */
static uint32_t t_mkey(struct cx *cx, uint32_t pd, uint64_t iova, uint64_t len,
		       const uint64_t *mtt, int access)
{
	uint8_t in[0x110 + 4 * 8] = { 0 }, out[16];
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;
	unsigned int i;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_MKEY);
	cx_set(mkc, F_MKC_ACCESS_MODE_1_0, 1);
	cx_set(mkc, F_MKC_PD, pd);
	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_LW, !!(access & IBV_ACCESS_LOCAL_WRITE));
	cx_set(mkc, F_MKC_RW, !!(access & IBV_ACCESS_REMOTE_WRITE));
	cx_set(mkc, F_MKC_RR, !!(access & IBV_ACCESS_REMOTE_READ));
	cx_set(mkc, F_MKC_A, !!(access & IBV_ACCESS_REMOTE_ATOMIC));
	cx_set(mkc, F_MKC_MKEY_7_0, 0x5c);
	cx_set64(mkc, B_MKC_START_ADDR, iova);
	cx_set64(mkc, B_MKC_LEN, len);
	cx_set(mkc, F_MKC_LOG_PAGE_SIZE, 12);
	cx_set(in, F_CREATE_MKEY_IN_TRANSLATIONS_ACTUAL, 2);
	for (i = 0; i < 4; i++)
		/* mlx5_ib's MTT entries carry read/write flags in bits 0-1 */
		cx_set64(in, B_CREATE_MKEY_IN_MTT + i * 8, mtt[i] | 3);
	CHECK_EQ(cmd(cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_MKEY_INDEX) << 8 | 0x5c;
}

/*
 * CREATE_QP of service type ST.  4 KiB pages: the RQ's page after the
 * SQ's (the list is what places them).  16 KiB pages (lps 2): the queues
 * start a quarter of the page in (page_offset 16 of 64): the RQ in its
 * second 4 KiB, the SQ in its third.
 */
static uint32_t t_create_qp(struct t_rig *r, unsigned int i, uint32_t st)
{
	uint8_t in[0x110 + 2 * 8] = { 0 }, out[16];
	uint8_t *qpc = in + B_QPC;
	uint64_t pas[2];

	if (r->lps) {
		pas[0] = PG(P_BIG + 4 * i);
		pas[1] = 0;
		r->rq_at[i] = pas[0] + CX_PAGE;
		r->sq_at[i] = pas[0] + 2 * CX_PAGE;
		cx_set(qpc, F_QPC_LOG_PAGE_SIZE, 2);
		cx_set(qpc, F_QPC_PAGE_OFFSET, 16);
	} else {
		pas[0] = PG(P_QP + 2 * i + 1);
		pas[1] = PG(P_QP + 2 * i);
		r->rq_at[i] = pas[0];
		r->sq_at[i] = pas[1];
	}

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_QP);
	cx_set(qpc, F_QPC_ST, st);
	cx_set(qpc, F_QPC_PD, r->pd);
	cx_set(qpc, F_QPC_UAR_PAGE, r->uar);
	cx_set(qpc, F_QPC_LOG_RQ_SIZE, RQ_LOG);
	cx_set(qpc, F_QPC_LOG_RQ_STRIDE, 2); /* 16 << 2 */
	cx_set(qpc, F_QPC_LOG_SQ_SIZE, SQ_LOG);
	cx_set(qpc, F_QPC_CQN_SND, r->cqn[i]);
	cx_set(qpc, F_QPC_CQN_RCV, r->cqn[i]);
	cx_set(qpc, F_QPC_USER_INDEX, 0x100 + i);
	if (i == 1 && r->srqn) {
		cx_set(qpc, F_QPC_RQ_TYPE, 1); /* MLX5_SRQ_RQ */
		cx_set(qpc, F_QPC_SRQN_RMPN_XRQN, r->srqn);
	}
	/* XRC INI (create_qp_common): no RQ, the driver's SRQ and XRCD. */
	if (st == CX_ST_XRC) {
		cx_set(qpc, F_QPC_LOG_RQ_SIZE, 0);
		cx_set(qpc, F_QPC_LOG_RQ_STRIDE, 0);
		cx_set(qpc, F_QPC_RQ_TYPE, 1);
		cx_set(qpc, F_QPC_SRQN_RMPN_XRQN, r->xsrqn);
		cx_set(qpc, F_QPC_XRCD, r->xrcd);
		r->sq_at[i] = pas[0];
	}
	cx_set64(qpc, B_QPC_DBR_ADDR, PG(P_DBR) + 64 * i);
	cx_set64(in, B_CREATE_QP_IN_PAS, pas[0]);
	cx_set64(in, B_CREATE_QP_IN_PAS + 8, pas[1]);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_QPN);
}

static void t_move(struct cx *cx, uint16_t op, uint32_t qpn, const uint8_t *ctx)
{
	uint8_t in[0x110] = { 0 }, out[16];

	cx_set(in, F_IN_OPCODE, op);
	cx_set(in, F_QPN, qpn);
	memcpy(in + B_QPC, ctx, CX_QPC_BYTES);
	CHECK_EQ(cmd(cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
}

/* RST2INIT, INIT2RTR, then RTR2RTS if RTS: peer (RC), Q_Key (UD),
 * responder access. */
static void t_up(struct cx *cx, uint32_t qpn, uint32_t dest, uint32_t qkey,
		 bool rts)
{
	uint8_t ctx[CX_QPC_BYTES] = { 0 };

	cx_set(ctx, F_QPC_Q_KEY, qkey);
	cx_set(ctx, F_QPC_RRE, 1);
	cx_set(ctx, F_QPC_RWE, 1);
	cx_set(ctx, F_QPC_RAE, 1);
	cx_set(ctx, F_QPC_MTU, IBV_MTU_4096);
	cx_set(ctx, F_QPC_LOG_MSG_MAX, 30);
	cx_set(ctx, F_QPC_REMOTE_QPN, dest);
	cx_set(ctx, F_QPC_RNR_RETRY, 7);
	cx_set(ctx, F_QPC_RETRY_COUNT, 7);
	cx_set(ctx, F_QPC_VHCA_PORT_NUM, 1);
	t_move(cx, CX_OP_RST2INIT_QP, qpn, ctx);
	t_move(cx, CX_OP_INIT2RTR_QP, qpn, ctx);
	if (rts)
		t_move(cx, CX_OP_RTR2RTS_QP, qpn, ctx);
}

/* CREATE_RMP as mlx5_ib's create_srq_split() for IB_SRQT_BASIC. */
static uint32_t t_rmp(struct t_rig *r)
{
	uint8_t in[0x110 + 8] = { 0 }, out[16];
	uint8_t *wq = in + B_RMP_CONTEXT + B_RMPC_WQ;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_RMP);
	cx_set(in + B_RMP_CONTEXT, F_RMPC_STATE, 1);
	cx_set(wq, F_WQ_LOG_WQ_STRIDE, 6);
	cx_set(wq, F_WQ_LOG_WQ_SZ, SRQ_LOG);
	cx_set(wq, F_WQ_PD, r->pd);
	cx_set64(wq, B_WQ_DBR_ADDR, PG(P_DBR) + 0x100);
	cx_set64(in, B_SRQ_PAS, PG(P_SRQ));
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_SRQN);
}

/*
 * An XRC TGT as create_xrc_tgt_qp() makes it in XRCD: no SQ, no UAR page,
 * no doorbell record, the driver's SRQ, A's CQ (not the XRC SRQ's), a PD
 * of its own (the driver's, not the keys'): the qpn or minus the status.
 */
static int t_tgt(struct t_rig *r, uint32_t xrcd)
{
	uint8_t in[0x110] = { 0 }, out[16];
	uint8_t *qpc = in + B_QPC;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_QP);
	cx_set(qpc, F_QPC_ST, CX_ST_XRC);
	cx_set(qpc, F_QPC_PD, t_alloc_pd(r->cx));
	cx_set(qpc, F_QPC_RQ_TYPE, 1);
	cx_set(qpc, F_QPC_NO_SQ, 1);
	cx_set(qpc, F_QPC_CQN_RCV, r->cqn[0]);
	cx_set(qpc, F_QPC_CQN_SND, r->cqn[0]);
	cx_set(qpc, F_QPC_SRQN_RMPN_XRQN, r->xsrqn);
	cx_set(qpc, F_QPC_XRCD, xrcd);
	cx_set(qpc, F_QPC_USER_INDEX, 0x101);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	if (cx_get(out, F_OUT_STATUS))
		return -(int)cx_get(out, F_OUT_STATUS);
	return cx_get(out, F_QPN);
}

/* CREATE_XRC_SRQ in XRCD with CQ B's: 16 WQEs of 64 bytes at P_SRQ. */
static uint32_t t_xrc_srq(struct t_rig *r, uint32_t xrcd)
{
	uint8_t in[0x110 + 8] = { 0 }, out[16];
	uint8_t *sc = in + B_XRC_SRQ_CONTEXT;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_XRC_SRQ);
	cx_set(sc, F_SRQC_LOG_RQ_STRIDE, 2); /* 16 << 2 */
	cx_set(sc, F_SRQC_LOG_SRQ_SIZE, SRQ_LOG);
	cx_set(sc, F_SRQC_PD, r->pd);
	cx_set(sc, F_SRQC_XRCD, xrcd);
	cx_set(sc, F_SRQC_CQN, r->cqn[1]);
	cx_set(sc, F_XRC_SRQC_USER_INDEX, 0x200);
	cx_set64(sc, B_SRQC_DBR_ADDR, PG(P_DBR) + 0x100);
	cx_set64(in, B_SRQ_PAS, PG(P_SRQ));
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_SRQN);
}

/* Two QPs of type ST on pages of 4 KiB << LPS; B stays in RTR if B_RTR,
 * takes its receives from an RMP if B_SRQ.  XRC: A is an INI, B a TGT,
 * both in one XRCD with an XRC SRQ on B's CQ. */
static struct t_rig *t_rig_on(uint32_t st, unsigned int lps, bool b_rtr,
			      bool b_srq)
{
	struct t_rig *r = calloc(1, sizeof(*r));
	unsigned int i;
	int eqn;

	CHECK(r != NULL);
	r->lps = lps;
	r->cx = dev_up();
	eqn = make_eq_for(r->cx, 4, VEC, &r->uar, PG(P_EQ), 0xff);
	CHECK(eqn >= 0);
	r->eqn = eqn;
	r->pd = t_alloc_pd(r->cx);
	if (b_srq)
		r->srqn = t_rmp(r);
	for (i = 0; i < 2; i++) {
		struct cq_args a = { .log = CQ_LOG,
				     .eqn = r->eqn,
				     .uar = r->uar,
				     .pages = PG(P_CQ + i),
				     .dbr = PG(P_CQDBR) + 64 * i };
		int cqn = make_cq(r->cx, &a);

		CHECK(cqn > 0);
		r->cqn[i] = cqn;
		/* Data pages out of order: 0x43, 0x41, 0x42, 0x40 and 0x53.. */
		r->mtt[i][0] = PG(P_DATA + 0x10 * i + 3);
		r->mtt[i][1] = PG(P_DATA + 0x10 * i + 1);
		r->mtt[i][2] = PG(P_DATA + 0x10 * i + 2);
		r->mtt[i][3] = PG(P_DATA + 0x10 * i);
		r->key[i] = t_mkey(r->cx, r->pd, t_iova[i], 3 * CX_PAGE,
				   r->mtt[i], ACC_ALL);
	}
	if (st == CX_ST_XRC) {
		uint8_t out[16];

		CHECK_EQ(simple(r->cx, CX_OP_ALLOC_XRCD, 0, out, sizeof(out)),
			 CX_OK);
		r->xrcd = cx_get(out, F_OBJ_NUMBER);
		r->xsrqn = t_xrc_srq(r, r->xrcd);
	}
	for (i = 0; i < 2; i++)
		r->qpn[i] = st == CX_ST_XRC && i ? (uint32_t)t_tgt(r, r->xrcd)
						 : t_create_qp(r, i, st);
	CHECK(r->qpn[1] >= 2 && r->qpn[1] < CX_MAX_QP);
	t_up(r->cx, r->qpn[0], r->qpn[1], 0x1234, true);
	t_up(r->cx, r->qpn[1], r->qpn[0], 0x1234, !b_rtr);
	return r;
}

static struct t_rig *t_rig(uint32_t st)
{
	return t_rig_on(st, 0, false, false);
}

static void t_rig_free(struct t_rig *r)
{
	cx_destroy(r->cx);
	free(r);
}

/* Guest byte at iova of MKEY i, by the test's own page walk. */
static uint8_t *t_va(struct t_rig *r, unsigned int i, uint64_t iova)
{
	uint64_t off = iova - t_iova[i] + t_iova[i] % CX_PAGE;

	return at(r->mtt[i][off / CX_PAGE] + off % CX_PAGE);
}

static void t_fill(struct t_rig *r, unsigned int i, uint64_t iova, uint32_t len,
		   uint8_t seed)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		*t_va(r, i, iova + k) = (uint8_t)(seed + k * 7 + k / 251);
}

static bool t_same(struct t_rig *r, unsigned int i, uint64_t iova,
		   unsigned int j, uint64_t jova, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		if (*t_va(r, i, iova + k) != *t_va(r, j, jova + k))
			return false;
	return true;
}

static __be32 *t_dbr(unsigned int i)
{
	return (__be32 *)at(PG(P_DBR) + 64 * i);
}

/* A send WQE at the SQ's producer index: ctrl segment, the rest zeroed. */
static uint8_t *t_wqe(struct t_rig *r, unsigned int i, uint8_t opcode,
		      unsigned int ds)
{
	uint8_t *w = at(r->sq_at[i] + (r->sq_pi[i] % (1 << SQ_LOG)) * 64);
	struct m5_ctrl_seg *c = (struct m5_ctrl_seg *)w;

	memset(w, 0, (ds * 16 + 63) / 64 * 64);
	c->opmod_idx_opcode = htobe32((uint32_t)r->sq_pi[i] << 8 | opcode);
	c->qpn_ds = htobe32(r->qpn[i] << 8 | ds);
	c->fm_ce_se = M5_WQE_CTRL_CQ_UPDATE;
	return w + sizeof(*c);
}

static void t_data(uint8_t *p, uint32_t len, uint32_t key, uint64_t addr)
{
	struct m5_data_seg *d = (struct m5_data_seg *)p;

	d->byte_count = htobe32(len);
	d->lkey = htobe32(key);
	d->addr = htobe64(addr);
}

static void t_raddr(uint8_t *p, uint32_t rkey, uint64_t raddr)
{
	struct m5_raddr_seg *ra = (struct m5_raddr_seg *)p;

	ra->raddr = htobe64(raddr);
	ra->rkey = htobe32(rkey);
}

/* libmlx5's post_send: the SND dbrec, then the ctrl segment's first eight
 * bytes at the bfreg (UAR offset 0x800). */
static void t_ring(struct t_rig *r, unsigned int i, unsigned int nbb)
{
	const uint8_t *ctrl =
		at(r->sq_at[i] + (r->sq_pi[i] % (1 << SQ_LOG)) * 64);

	r->sq_pi[i] += nbb;
	t_dbr(i)[M5_SND_DBR] = htobe32(r->sq_pi[i]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, ctrl,
			      8),
		 0);
}

/* A SEND from QP 0 of one data segment (len bytes at addr under key), rung. */
static void t_send(struct t_rig *r, uint32_t len, uint32_t key, uint64_t addr)
{
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 2);

	t_data(w, len, key, addr);
	t_ring(r, 0, 1);
}

/*
 * An RDMA WRITE from QP 0 to raddr under rkey, of one data segment (len
 * bytes at addr under key), rung.
 */
static void t_write(struct t_rig *r, uint32_t rkey, uint64_t raddr,
		    uint32_t len, uint32_t key, uint64_t addr)
{
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);

	t_raddr(w, rkey, raddr);
	t_data(w + 16, len, key, addr);
	t_ring(r, 0, 1);
}

/* One receive WQE: a data segment and the terminator, then the dbrec. */
static void t_recv(struct t_rig *r, unsigned int i, uint32_t len, uint64_t addr)
{
	uint8_t *w = at(r->rq_at[i] + (r->rq_pi[i] % (1 << RQ_LOG)) * 64);

	memset(w, 0, 64);
	t_data(w, len, r->key[i], addr);
	t_data(w + 16, 0, M5_INVALID_LKEY, 0);
	r->rq_pi[i]++;
	t_dbr(i)[M5_RCV_DBR] = htobe32(r->rq_pi[i]);
}

static const struct m5_cqe64 *t_cqe(unsigned int i, unsigned int n)
{
	return (const struct m5_cqe64 *)at(PG(P_CQ + i) + n * 64);
}

/* A requester CQE (first pass: owner 0) for WQE 0 of QP i. */
static void t_check_req(struct t_rig *r, unsigned int i, uint8_t opcode,
			uint32_t byte_cnt)
{
	const struct m5_cqe64 *c = t_cqe(i, 0);

	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(be32toh(c->sop_drop_qpn), (uint32_t)opcode << 24 | r->qpn[i]);
	CHECK_EQ(be32toh(c->byte_cnt), byte_cnt);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	/* cqe_version 1: the QP's user index */
	CHECK_EQ(be32toh(c->srqn_uidx) & 0xffffff, 0x100 + i);
}

static void rc_send_across_pages_lands_and_completes_both_sides(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;
	const struct m5_cqe64 *c;

	t_fill(r, 0, src, 6000, 3);
	t_recv(r, 1, 8000, dst);
	t_send(r, 6000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 6000));
	t_check_req(r, 0, M5_OPCODE_SEND, 6000);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(be32toh(c->byte_cnt), 6000);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	CHECK_EQ(be32toh(c->sop_drop_qpn) & 0xffffff, r->qpn[1]);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, r->qpn[0]);
	/* One CQE each: the next slots are still the driver's. */
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * An inline segment (a 12-byte header, padded to 16) followed by a data
 * segment, as UCX's ud_mlx5 and rc_mlx5 post a header and its payload: the
 * receiver gets the inline bytes, then the data segment's.
 */
static void rc_send_of_inline_bytes_then_a_data_segment_lands_in_order(void)
{
	static const uint8_t hdr[12] = "header bytes";
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x200, dst = t_iova[1] + 0x40;
	struct m5_inline_seg *inl;
	uint8_t *w;

	t_fill(r, 0, src, 100, 9);
	t_recv(r, 1, 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 3);
	inl = (struct m5_inline_seg *)w;
	inl->byte_count = htobe32(sizeof(hdr) | M5_INLINE_SEG);
	memcpy(w + sizeof(*inl), hdr, sizeof(hdr));
	t_data(w + 16, 100, r->key[0], src);
	t_ring(r, 0, 1);
	CHECK(!memcmp(t_va(r, 1, dst), hdr, sizeof(hdr)));
	CHECK(t_same(r, 0, src, 1, dst + sizeof(hdr), 100));
	t_check_req(r, 0, M5_OPCODE_SEND, sizeof(hdr) + 100);
	CHECK_EQ(be32toh(t_cqe(1, 0)->byte_cnt), sizeof(hdr) + 100);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/* An inline length past the end of ds is a violation, and no byte lands. */
static void inline_segment_overrunning_its_ds_is_a_violation(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	struct m5_inline_seg *inl;
	uint8_t *w;

	t_fill(r, 1, t_iova[1], 64, 5);
	t_recv(r, 1, 256, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	inl = (struct m5_inline_seg *)w;
	inl->byte_count = htobe32(13 | M5_INLINE_SEG); /* 4 + 13 > 16 */
	t_ring(r, 0, 1);
	CHECK(cx_eng_stats(r->cx)->violations >= 1);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(*t_va(r, 1, t_iova[1]), 5);
	t_rig_free(r);
}

/* QP i's state, as QUERY_QP reports it. */
static uint32_t t_qp_state(struct t_rig *r, unsigned int i)
{
	uint8_t in[16] = { 0 }, out[0x110];

	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_QP);
	cx_set(in, F_QPN, r->qpn[i]);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	return cx_get(out + B_QPC, F_QPC_STATE);
}

/* UC: SEND and RDMA WRITE land as on RC, with one CQE each side. */
static void uc_send_and_rdma_write_land(void)
{
	struct t_rig *r = t_rig(CX_ST_UC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x80;

	t_fill(r, 0, src, 3000, 1);
	t_recv(r, 1, 4096, dst);
	t_send(r, 3000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 3000));
	t_check_req(r, 0, M5_OPCODE_SEND, 3000);
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(t_cqe(1, 0)->byte_cnt), 3000);

	t_fill(r, 0, src, 5000, 2);
	t_write(r, r->key[1], dst + 16, 5000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst + 16, 5000));
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/*
 * UC has no acknowledgement: a SEND with no receive WQE posted, and an
 * RDMA WRITE with a key the responder does not have, are dropped there;
 * the requester completes them without error, the responder writes no
 * CQE and stays in RTS (a SEND after them lands).
 */
static void uc_messages_the_responder_cannot_take_are_dropped(void)
{
	struct t_rig *r = t_rig(CX_ST_UC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1];

	t_fill(r, 0, src, 64, 4);
	t_fill(r, 1, dst, 256, 8);
	t_send(r, 64, r->key[0], src);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_write(r, r->key[1] ^ 0x100, dst, 64, r->key[0], src);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(*t_va(r, 1, dst), (uint8_t)8);
	CHECK_EQ(t_qp_state(r, 1), CX_QP_RTS);

	t_recv(r, 1, 256, dst + 128);
	t_send(r, 64, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst + 128, 64));
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/* RDMA READ is not a UC operation: the WQE completes in error. */
static void uc_rdma_read_completes_in_error(void)
{
	struct t_rig *r = t_rig(CX_ST_UC);
	uint8_t *w;

	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 3);
	t_raddr(w, r->key[1], t_iova[1]);
	t_data(w + 16, 64, r->key[0], t_iova[0]);
	t_ring(r, 0, 1);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	t_rig_free(r);
}

static void queues_on_large_pages_start_at_their_page_offset(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 1, false, false);
	uint64_t src = t_iova[0], dst = t_iova[1];

	t_fill(r, 0, src, 300, 4);
	t_recv(r, 1, 300, dst);
	t_send(r, 300, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 300));
	t_check_req(r, 0, M5_OPCODE_SEND, 300);
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

static void send_to_a_qp_on_an_rmp_takes_the_srqs_head_wqe(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, false, true);
	uint64_t src = t_iova[0] + 0x20, dst = t_iova[1] + 0x300;
	uint8_t *w = at(PG(P_SRQ)), *w1 = at(PG(P_SRQ) + 64);
	const struct m5_cqe64 *c;

	/* libmlx5's free list: WQE i links to i + 1, the device starts at
	 * the head, WQE 0; the doorbell record counts the posted WQEs. */
	memset(w, 0, 128);
	((struct m5_srq_next_seg *)w)->next_wqe_index = htobe16(1);
	((struct m5_srq_next_seg *)w1)->next_wqe_index = htobe16(2);
	t_data(w + 16, 500, r->key[1], dst);
	t_data(w + 32, 0, M5_INVALID_LKEY, 0);
	*(__be32 *)at(PG(P_DBR) + 0x100) = htobe32(1);
	t_fill(r, 0, src, 400, 8);
	t_send(r, 400, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 400));
	t_check_req(r, 0, M5_OPCODE_SEND, 400);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c->byte_cnt), 400);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	/* cqe_version 1: the QP's user index names the receiver */
	CHECK_EQ(be32toh(c->srqn_uidx) & 0xffffff, 0x101);
	/* A second send finds no posted SRQ WQE: RNR, nothing lands. */
	t_send(r, 10, r->key[0], src);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void rdma_write_lands_with_one_requester_cqe(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0xf00, dst = t_iova[1] + 0x123;

	t_fill(r, 0, src, 5000, 9);
	t_write(r, r->key[1], dst, 5000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 5000);
	/* No receive consumed, no responder CQE. */
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void rdma_read_fetches_the_remote_bytes(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t dst = t_iova[0] + 0x10, src = t_iova[1] + 0xff0;
	uint8_t *w;

	t_fill(r, 1, src, 5000, 77);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 4);
	t_raddr(w, r->key[1], src);
	/* Two local segments: 3000 bytes, then the other 2000. */
	t_data(w + 16, 3000, r->key[0], dst);
	t_data(w + 32, 2000, r->key[0], dst + 3000);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, dst, 1, src, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_READ, 5000);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void ud_send_lands_after_the_grh_area(void)
{
	struct t_rig *r = t_rig(CX_ST_UD);
	uint64_t src = t_iova[0] + 0xfc0, dst = t_iova[1];
	const struct m5_cqe64 *c;
	struct m5_av *av;
	uint8_t *w;

	t_fill(r, 0, src, 100, 5);
	t_recv(r, 1, 40 + 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5); /* ctrl, 48-byte AV, data */
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x1234);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
	av->rlid = htobe16(CX_PORT_LID);
	t_data(w + sizeof(*av), 100, r->key[0], src);
	t_ring(r, 0, 2);
	CHECK(t_same(r, 0, src, 1, dst + 40, 100));
	t_check_req(r, 0, M5_OPCODE_SEND, 100);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	/* The 40 bytes of GRH area count, whether or not a GRH came. */
	CHECK_EQ(be32toh(c->byte_cnt), 140);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, r->qpn[0]);
	t_rig_free(r);
}

/*
 * A UD send whose AV asks for a GRH (IB: grh bit 30): the receive's first
 * 40 bytes are that GRH, its SGID the port's GID as the driver reads it
 * (fe80::port GUID), its DGID the AV's; the CQE says a GRH came.
 */
/* The GRH also carries the AV's traffic class and flow label. */
static void ud_send_with_grh_carries_the_port_gid(void)
{
	static const uint8_t rgid[16] = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9,
					  0x03, 0x00, 0x00,	  0x63, 0x79 };
	struct t_rig *r = t_rig(CX_ST_UD);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1];
	uint8_t sgid[16] = { 0xfe, 0x80 }, grh[40];
	const struct m5_cqe64 *c;
	struct m5_av *av;
	uint8_t *w;
	unsigned int k;

	for (k = 0; k < 8; k++)
		sgid[8 + k] = (uint8_t)(CX_PORT_GUID >> (56 - 8 * k));
	t_fill(r, 0, src, 64, 9);
	t_recv(r, 1, 40 + 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5);
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x1234);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
	av->rlid = htobe16(CX_PORT_LID);
	av->grh_gid_fl = htobe32(1u << 30 | 0xabcde);
	av->tclass = 0x5c;
	av->hop_limit = 64;
	memcpy(av->rgid, rgid, sizeof(rgid));
	t_data(w + sizeof(*av), 64, r->key[0], src);
	t_ring(r, 0, 2);
	for (k = 0; k < sizeof(grh); k++)
		grh[k] = *t_va(r, 1, dst + k);
	CHECK_EQ(grh[0] >> 4, 6);
	CHECK_EQ((grh[0] << 4 | grh[1] >> 4) & 0xff, 0x5c);
	CHECK_EQ((grh[1] & 0xf) << 16 | grh[2] << 8 | grh[3], 0xabcde);
	CHECK_EQ(grh[7], 64);
	CHECK(!memcmp(grh + 8, sgid, 16));
	CHECK(!memcmp(grh + 24, rgid, 16));
	CHECK(t_same(r, 0, src, 1, dst + 40, 64));
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK((be32toh(c->flags_rqpn) >> M5_CQE_GRH_SHIFT) & 3);
	t_rig_free(r);
}

static void ud_send_with_a_wrong_qkey_is_dropped(void)
{
	struct t_rig *r = t_rig(CX_ST_UD);
	struct m5_av *av;
	uint8_t *w;

	t_recv(r, 1, 40 + 256, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5);
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x4321);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
	av->rlid = htobe16(CX_PORT_LID);
	t_data(w + sizeof(*av), 100, r->key[0], t_iova[0]);
	t_ring(r, 0, 2);
	/* UD: the sender completes, the receiver sees nothing. */
	t_check_req(r, 0, M5_OPCODE_SEND, 100);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/* The error CQE of WQE 0 of QP 0: REQ_ERR, syndrome, the QP in ERR. */
static void t_check_req_err(struct t_rig *r, uint8_t opcode, uint8_t synd)
{
	const struct m5_err_cqe *e = (const void *)t_cqe(0, 0);
	uint8_t in[16] = { 0 }, out[0x110];

	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(e->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(e->syndrome, synd);
	CHECK_EQ(be32toh(e->s_wqe_opcode_qpn),
		 (uint32_t)opcode << 24 | r->qpn[0]);
	CHECK_EQ(be16toh(e->wqe_counter), 0);
	/* QUERY_QP says what the data path did to the QP. */
	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_QP);
	cx_set(in, F_QPN, r->qpn[0]);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out + B_QPC, F_QPC_STATE), CX_QP_ERR);
}

/* One receive WQE of LEN bytes at ADDR (B's key) at the head of the SRQ
 * at P_SRQ, linked to WQE 1; its doorbell record counts one. */
static void t_srq_post(struct t_rig *r, uint32_t len, uint64_t addr)
{
	uint8_t *w = at(PG(P_SRQ));

	memset(w, 0, 64);
	((struct m5_srq_next_seg *)w)->next_wqe_index = htobe16(1);
	t_data(w + 16, len, r->key[1], addr);
	t_data(w + 32, 0, M5_INVALID_LKEY, 0);
	*(__be32 *)at(PG(P_DBR) + 0x100) = htobe32(1);
}

/* An XRC INI SEND of LEN bytes from A's SRC for XRC SRQ SRQN. */
static void t_xrc_send(struct t_rig *r, uint32_t srqn, uint64_t src,
		       uint32_t len)
{
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 3);

	((struct m5_xrc_seg *)w)->xrc_srqn = htobe32(srqn);
	t_data(w + 16, len, r->key[0], src);
	t_ring(r, 0, 1);
}

static void xrc_send_lands_in_the_named_srq_and_completes_on_its_cq(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);
	uint64_t src = t_iova[0] + 0x80, dst = t_iova[1] + 0x200;
	const struct m5_cqe64 *c;

	t_srq_post(r, 700, dst);
	t_fill(r, 0, src, 600, 21);
	t_xrc_send(r, r->xsrqn, src, 600);
	CHECK(t_same(r, 0, src, 1, dst, 600));
	t_check_req(r, 0, M5_OPCODE_SEND, 600);
	/* The XRC SRQ's CQ (B's), not the TGT's (A's): after the
	 * requester's CQE, A's CQ has nothing more. */
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c->byte_cnt), 600);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	/* cqe_version 1: the SRQ's user index (libmlx5 finds the SRQ by
	 * it), the TGT's QPN, the INI's as the source. */
	CHECK_EQ(be32toh(c->srqn_uidx) & 0xffffff, 0x200);
	CHECK_EQ(be32toh(c->sop_drop_qpn) & 0xffffff, r->qpn[1]);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, r->qpn[0]);
	t_rig_free(r);
}

static void xrc_send_for_an_srq_not_of_the_tgts_xrcd_is_an_invalid_request(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);
	uint8_t out[16];
	uint32_t other;

	/* An XRC SRQ of another XRCD, posted to: the TGT must refuse it. */
	CHECK_EQ(simple(r->cx, CX_OP_ALLOC_XRCD, 0, out, sizeof(out)), CX_OK);
	other = t_xrc_srq(r, cx_get(out, F_OBJ_NUMBER));
	t_srq_post(r, 64, t_iova[1]);
	t_xrc_send(r, other, t_iova[0], 64);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_REMOTE_INVAL_REQ_ERR);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void xrc_send_for_no_srq_is_an_invalid_request(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);

	t_srq_post(r, 64, t_iova[1]);
	t_xrc_send(r, r->xsrqn + 1, t_iova[0], 64);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_REMOTE_INVAL_REQ_ERR);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void xrc_rdma_write_lands_with_the_srqs_pd(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);
	uint64_t src = t_iova[0] + 0x10, dst = t_iova[1] + 0x999;
	uint8_t *w;

	t_fill(r, 0, src, 3000, 5);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 4);
	((struct m5_xrc_seg *)w)->xrc_srqn = htobe32(r->xsrqn);
	t_raddr(w + 16, r->key[1], dst);
	t_data(w + 32, 3000, r->key[0], src);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, src, 1, dst, 3000));
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 3000);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void xrc_tgt_in_an_unallocated_xrcd_is_refused(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);

	CHECK_EQ(t_tgt(r, r->xrcd + 1), -CX_BAD_RES);
	CHECK(t_tgt(r, r->xrcd) >= 2);
	t_rig_free(r);
}

static void unknown_lkey_is_a_local_protection_error_cqe(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);

	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, 0xdead00, t_iova[0]);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_LOCAL_PROT_ERR);
	/* Nothing reached the responder. */
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void mtt_page_outside_guest_memory_is_a_protection_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t mtt[4] = { PG(0x60), PG(0x61), PG(0x62), PG(MEM_SIZE / 4096) };
	uint32_t key = t_mkey(r->cx, r->pd, 0x10000, 4 * CX_PAGE, mtt, ACC_ALL);

	/* The MKEY's last page lies past guest memory. */
	t_write(r, r->key[1], t_iova[1], 0x200, key,
		0x10000 + 3 * CX_PAGE - 0x100);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_LOCAL_PROT_ERR);
	t_rig_free(r);
}

static void rdma_write_to_a_key_without_remote_write_is_refused(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t ro = t_mkey(r->cx, r->pd, t_iova[1], 3 * CX_PAGE, r->mtt[1],
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);

	t_fill(r, 1, t_iova[1], 64, 1);
	t_fill(r, 0, t_iova[0], 64, 2);
	t_write(r, ro, t_iova[1], 64, r->key[0], t_iova[0]);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	CHECK(!t_same(r, 0, t_iova[0], 1, t_iova[1], 64));
	t_rig_free(r);
}

/*
 * The UMR QP as mlx5_ib makes it (service type REG_UMR, no RQ), its CQ on
 * page 0x32 and its SQ on page 0x33, in RTS.
 */
static uint32_t t_umr_qp(struct t_rig *r, uint32_t *cqn)
{
	struct cq_args a = { .log = CQ_LOG,
			     .eqn = r->eqn,
			     .uar = r->uar,
			     .pages = PG(0x32),
			     .dbr = PG(P_CQDBR) + 128 };
	uint8_t in[0x110 + 8] = { 0 }, out[16];
	uint8_t *qpc = in + B_QPC;
	int n = make_cq(r->cx, &a);
	uint32_t qpn;

	CHECK(n > 0);
	*cqn = n;
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_QP);
	cx_set(qpc, F_QPC_ST, CX_ST_REG_UMR);
	cx_set(qpc, F_QPC_PD, r->pd);
	cx_set(qpc, F_QPC_UAR_PAGE, r->uar);
	cx_set(qpc, F_QPC_RQ_TYPE, 3); /* MLX5_ZERO_LEN_RQ */
	cx_set(qpc, F_QPC_LOG_SQ_SIZE, SQ_LOG);
	cx_set(qpc, F_QPC_CQN_SND, *cqn);
	cx_set(qpc, F_QPC_CQN_RCV, *cqn);
	cx_set64(qpc, B_QPC_DBR_ADDR, PG(P_DBR) + 0x200);
	cx_set64(in, B_CREATE_QP_IN_PAS, PG(0x33));
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	qpn = cx_get(out, F_QPN);
	t_up(r->cx, qpn, 0, 0, true);
	return qpn;
}

/*
 * UMR WQE N on the UMR QP as umr.c's mlx5r_umr_post_send() writes it:
 * ctrl segment (the mkey in its immediate, DS 16-byte units), UMR ctrl
 * segment (FLAGS, MASK, XLT octowords), mkey segment giving access ACCESS,
 * PD and (for a translation) start t_iova[1], three pages of 4 KiB, free 0.
 */
static uint8_t *t_umr_wqe(struct t_rig *r, uint32_t qpn, uint16_t n,
			  uint32_t key, uint8_t flags, uint64_t mask,
			  uint16_t xlt, int access, unsigned int ds)
{
	uint8_t *w = at(PG(0x33) + (n % (1 << SQ_LOG)) * 64);
	uint8_t *mkc = w + 64;

	memset(w, 0, ds * 16);
	cx_set(w, 0, 32, (uint32_t)n << 8 | 0x25); /* MLX5_OPCODE_UMR */
	cx_set(w, 32, 32, qpn << 8 | ds);
	w[11] = M5_WQE_CTRL_CQ_UPDATE;
	cx_set(w, 96, 32, key);
	w[16] = flags;
	cx_set(w + 16, 32, 16, xlt);
	cx_set64(w + 16, 8, mask);
	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_LW, !!(access & IBV_ACCESS_LOCAL_WRITE));
	cx_set(mkc, F_MKC_RW, !!(access & IBV_ACCESS_REMOTE_WRITE));
	cx_set(mkc, F_MKC_RR, !!(access & IBV_ACCESS_REMOTE_READ));
	cx_set(mkc, F_MKC_PD, r->pd);
	cx_set(mkc, F_MKC_QPN, 0xffffff);
	cx_set(mkc, F_MKC_MKEY_7_0, key & 0xff);
	cx_set64(mkc, B_MKC_START_ADDR, t_iova[1]);
	cx_set64(mkc, B_MKC_LEN, 3 * CX_PAGE);
	cx_set(mkc, F_MKC_LOG_PAGE_SIZE, 12);
	return w;
}

/* The doorbell record after WQE N of NBB basic blocks, and the doorbell. */
static void t_umr_ring(struct t_rig *r, const uint8_t *w, uint16_t n,
		       unsigned int nbb)
{
	((__be32 *)at(PG(P_DBR) + 0x200))[M5_SND_DBR] = htobe32(n + nbb);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, w, 8),
		 0);
}

/* An inline UMR WQE (128 bytes) changing the fields MASK names. */
static void t_umr(struct t_rig *r, uint32_t qpn, uint16_t n, uint32_t key,
		  uint64_t mask, int access)
{
	/* MLX5_UMR_INLINE | MLX5_UMR_CHECK_FREE */
	t_umr_ring(r,
		   t_umr_wqe(r, qpn, n, key, 0x80 | 0x40, mask, 0, access, 8),
		   n, 2);
}

/* mkey_mask of mlx5r_umr_rereg_pd_access(): LR LW RR RW A, and PD. */
#define UMR_ACCESS_PD_MASK                                                     \
	((1ull << 17) | (1ull << 18) | (1ull << 19) | (1ull << 20) |           \
	 (1ull << 21) | (1ull << 7))
/* The last WQE of mlx5r_umr_update_mr_pas(MLX5_IB_UPD_XLT_ENABLE): also
 * KEY and FREE (enable), LEN, PAGE_SIZE and START_ADDR (translation). */
#define UMR_ENABLE_MASK                                                        \
	(UMR_ACCESS_PD_MASK | (1ull << 13) | (1ull << 29) | (1ull << 0) |      \
	 (1ull << 1) | (1ull << 6))

/*
 * ibv_rereg_mr(IBV_REREG_MR_CHANGE_ACCESS) through mlx5_ib's fast path: a
 * UMR WQE gives a key remote write; it completes with a requester CQE of
 * opcode UMR, and an RDMA WRITE to the key lands.  A mask bit the device
 * does not take (here EN_RINVAL) completes in error.
 */
static void umr_wqe_gives_a_key_remote_write_and_completes(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t ro = t_mkey(r->cx, r->pd, t_iova[1], 3 * CX_PAGE, r->mtt[1],
			     IBV_ACCESS_LOCAL_WRITE);
	uint32_t cqn, umr = t_umr_qp(r, &cqn);
	const struct m5_cqe64 *c = (const void *)at(PG(0x32));
	const struct m5_err_cqe *e = (const void *)at(PG(0x32) + 64);

	t_umr(r, umr, 0, ro, UMR_ACCESS_PD_MASK, ACC_ALL);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(be32toh(c->sop_drop_qpn), 0x25u << 24 | umr);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	t_fill(r, 1, t_iova[1], 64, 1);
	t_fill(r, 0, t_iova[0], 64, 2);
	t_write(r, ro, t_iova[1], 64, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1], 64));

	t_umr(r, umr, 2, ro, UMR_ACCESS_PD_MASK | 1ull << 8, ACC_ALL);
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(be16toh(e->wqe_counter), 2);
	t_rig_free(r);
}

/*
 * A key as mlx5_ib's mkey cache makes it: MTT mode, free, umr_en, room
 * for OCTW octowords of translation and none given.
 */
static uint32_t t_free_mkey(struct t_rig *r, uint32_t octw)
{
	uint8_t in[0x110] = { 0 }, out[16];
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_MKEY);
	cx_set(mkc, F_MKC_ACCESS_MODE_1_0, 1);
	cx_set(mkc, F_MKC_FREE, 1);
	cx_set(mkc, F_MKC_UMR_EN, 1);
	cx_set(mkc, F_MKC_PD, r->pd);
	cx_set(mkc, F_MKC_MKEY_7_0, 0x33);
	cx_set(mkc, F_MKC_TRANSLATIONS_OCTWORD_SIZE, octw);
	cx_set(mkc, F_MKC_LOG_PAGE_SIZE, 12);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_MKEY_INDEX) << 8 | 0x33;
}

/* The DMA MR of ib_alloc_pd() (mlx5_ib_get_dma_mr): PA, length64, LW. */
static uint32_t t_dma_mkey(struct t_rig *r)
{
	uint8_t in[0x110] = { 0 }, out[16];
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_MKEY);
	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_LW, 1);
	cx_set(mkc, F_MKC_LENGTH64, 1);
	cx_set(mkc, F_MKC_PD, r->pd);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_MKEY_INDEX) << 8;
}

/*
 * mlx5r_umr_update_mr_pas() on a free key of the cache, in one WQE (144
 * bytes, DS 9): flags CHECK_NOT_FREE (and TRANSLATION_OFFSET_EN with
 * octoword offset OFF), 4 octowords (64 bytes, the UMR unit) of MTT
 * entries (B's four pages, present, then zeros) in a buffer at ADDR named
 * by the DMA MR's lkey in the data segment after the mkey segment, the
 * enable mask.
 */
static void t_umr_load(struct t_rig *r, uint32_t umr, uint16_t n, uint32_t key,
		       uint32_t lkey, uint64_t addr, uint32_t off)
{
	uint8_t *w = t_umr_wqe(r, umr, n, key, off ? 0x20 | 0x10 : 0x20,
			       UMR_ENABLE_MASK, 4, ACC_ALL, 9);
	uint8_t *xlt = at(PG(0x70));
	unsigned int i;

	memset(xlt, 0, 64);
	for (i = 0; i < 4; i++)
		cx_set64(xlt, i * 8, r->mtt[1][i] | 3);
	cx_set(w + 16, 48, 16, off & 0xffff);
	cx_set(w + 16, 128, 32, off >> 16);
	cx_set(w + 128, 0, 32, 64);
	cx_set(w + 128, 32, 32, lkey);
	cx_set64(w + 128, 8, addr);
	t_umr_ring(r, w, n, 3);
}

/*
 * The translation a UMR WQE loads is the one the data path uses: a free
 * key gets B's pages, is enabled, and an RDMA WRITE through it lands in
 * them; the UMR completes with a requester CQE.
 */
static void umr_wqe_loads_mtt_into_a_free_key_and_rdma_write_lands(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t cqn, umr = t_umr_qp(r, &cqn);
	uint32_t key = t_free_mkey(r, 2), dma = t_dma_mkey(r);
	const struct m5_cqe64 *c = (const void *)at(PG(0x32));

	t_umr_load(r, umr, 0, key, dma, PG(0x70), 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	t_fill(r, 1, t_iova[1], 3 * CX_PAGE, 1);
	t_fill(r, 0, t_iova[0], 3 * CX_PAGE, 2);
	t_write(r, key, t_iova[1] + 0x100, 2 * CX_PAGE, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 2 * CX_PAGE);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1] + 0x100, 2 * CX_PAGE));
	t_rig_free(r);
}

/*
 * A UMR WQE whose translation is outside guest memory, or past the room
 * the key was made for (2 octowords, rounded up to the 64-byte UMR unit of
 * 4: a load at octoword 4 is past it), completes in error and leaves the key free: an RDMA
 * WRITE through it is refused.
 */
static void umr_wqe_with_a_bad_translation_completes_in_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t cqn, umr = t_umr_qp(r, &cqn);
	uint32_t key = t_free_mkey(r, 2), dma = t_dma_mkey(r), second;
	const struct m5_err_cqe *e = (const void *)at(PG(0x32));

	t_umr_load(r, umr, 0, key, dma, MEM_BASE + MEM_SIZE - 16, 0);
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(e->syndrome, M5_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(be16toh(e->wqe_counter), 0);
	t_write(r, key, t_iova[1], 64, r->key[0], t_iova[0]);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	t_rig_free(r);

	r = t_rig(CX_ST_RC);
	umr = t_umr_qp(r, &cqn);
	second = t_free_mkey(r, 2);
	dma = t_dma_mkey(r);
	e = (const void *)at(PG(0x32));
	t_umr_load(r, umr, 0, second, dma, PG(0x70), 4);
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(e->syndrome, M5_SYND_LOCAL_PROT_ERR);
	t_rig_free(r);
}

static void completion_on_an_armed_cq_raises_one_eqe_and_interrupt(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t db[8];
	const uint8_t *eqe = at(PG(P_EQ));

	/* mlx5_cq_arm(): sn 0, ci 0, cqn; then arm the EQ (ci 0). */
	cx_set(db, 0, 32, 0);
	cx_set(db, 32, 32, r->cqn[1]);
	cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x20, db, 8);
	w32(r->cx, r->uar * CX_PAGE + 0x40, r->eqn << 24);
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(irqs[VEC], 1);
	CHECK_EQ(eqe[1], CX_EVENT_COMP);
	CHECK_EQ(cx_get(eqe, (0x20 + 24) * 8, 32), r->cqn[1]);
	/* A's CQ was not armed: its CQE raised nothing. */
	CHECK_EQ(eqe[64 + 63] & 1, 1);
	t_rig_free(r);
}

static void first_message_on_an_rtr_qp_raises_comm_est_on_the_async_eq(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, true, false);
	const uint8_t *eqe = at(PG(P_AEQ));
	uint32_t uar;

	/* mlx5_core's async EQ takes MLX5_EVENT_TYPE_COMM_EST (0x02). */
	CHECK(make_eq_for(r->cx, 2, 2, &uar, PG(P_AEQ), 0x02) >= 0);
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	/* mlx5_eqe_qp_srq: type 0 (a QP) at 20, the QPN at 24 */
	CHECK_EQ(eqe[1], 0x02);
	CHECK_EQ(eqe[0x20 + 20], 0);
	CHECK_EQ(cx_get(eqe, (0x20 + 24) * 8, 32), r->qpn[1]);
	CHECK_EQ(eqe[63] & 1, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->events, 1);
	t_rig_free(r);
}

/*
 * A send that finds no receive WQE is RNR-NAKed and parked.  The receive
 * posted then is only a doorbell record (no write reaches the device): the
 * retry must fall due on the clock, in cx_timers() as the server runs it
 * between messages; then the send lands and completes.
 */
static void rnr_retry_falls_due_in_cx_timers_once_a_recv_is_posted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	bool pending = false;
	struct timespec ts;
	int64_t ns;
	int i;

	t_fill(r, 0, t_iova[0], 64, 5);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	t_recv(r, 1, 64, t_iova[1]);
	/* min_rnr_timer 0: 655.36 ms (IBTA's encoding); give it 3 s. */
	for (i = 0; i < 300 && t_cqe(0, 0)->op_own >> 4 == CQE_INVALID; i++) {
		ns = cx_timers(r->cx);
		if (ns < 0)
			break;
		pending = true;
		ts.tv_sec = 0;
		ts.tv_nsec = ns < 10000000 ? ns : 10000000;
		nanosleep(&ts, NULL);
	}
	CHECK(pending); /* the retry's deadline was asked for */
	t_check_req(r, 0, M5_OPCODE_SEND, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1], 64));
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

/*
 * A receive posted to a QP in ERR writes only the doorbell record; the
 * device flushes it all the same (ib_drain_rq's marker), found by
 * cx_timers() as the server runs it between messages.
 */
static void recv_posted_in_err_is_flushed_in_cx_timers(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t ctx[CX_QPC_BYTES] = { 0 };
	const struct m5_err_cqe *e = (const void *)t_cqe(1, 0);

	t_move(r->cx, CX_OP_2ERR_QP, r->qpn[1], ctx);
	CHECK_EQ(e->op_own >> 4, CQE_INVALID);
	t_recv(r, 1, 64, t_iova[1]);
	CHECK(cx_timers(r->cx) >= 0); /* it looks again while a QP is in ERR */
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_ERR);
	CHECK_EQ(e->syndrome, M5_SYND_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(e->wqe_counter), 0);
	t_rig_free(r);
}

static void doorbell_for_no_qp_is_ignored_and_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t db[8] = { 0 };

	cx_set(db, 32, 32, 0x3ff << 8 | 1); /* a QPN never made */
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, db, 8),
		 0);
	cx_set(db, 32, 32, r->qpn[0] << 8 | 1);
	/* A BlueFlame copy's later bytes are no doorbell. */
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x840, db, 8),
		 0);
	CHECK_EQ(cx_eng_stats(r->cx)->stray_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/*
 * The engine's receive checks run at each send doorbell of the QP that
 * rang (the device sees no dbrec store): a provider that posts more
 * receives than the RQ holds is caught, and counted per rule.
 */
static void rq_over_posting_is_a_recv_violation(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	unsigned int i;

	for (i = 0; i <= 1u << RQ_LOG; i++)
		t_recv(r, 0, 64, t_iova[0] + 0x1000);
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(cx_eng_stats(r->cx)->recv_violations, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->send_violations, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 1);
	t_rig_free(r);
}

/* A receive WQE whose dbrec was stored before its data segment. */
static void recv_wqe_written_after_its_dbrec_is_a_recv_violation(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);

	t_recv(r, 0, 64, t_iova[0] + 0x1000);
	memset(at(r->rq_at[0]), 0, 64); /* the WQE is not there yet */
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK(cx_eng_stats(r->cx)->recv_violations >= 1);
	t_rig_free(r);
}

/* An SRQ whose dbrec counts every slot: the free list's tail was taken. */
static void srq_over_posting_is_a_recv_violation(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, false, true);
	unsigned int i, n = 1u << SRQ_LOG;
	uint8_t *w;

	for (i = 0; i < n; i++) {
		w = at(PG(P_SRQ) + 64 * i);
		memset(w, 0, 64);
		((struct m5_srq_next_seg *)w)->next_wqe_index =
			htobe16((i + 1) % n);
		t_data(w + 16, 64, r->key[1], t_iova[1]);
		t_data(w + 32, 0, M5_INVALID_LKEY, 0);
	}
	*(__be32 *)at(PG(P_DBR) + 0x100) = htobe32(n);
	t_recv(r, 0, 64, t_iova[0]);
	w = t_wqe(r, 1, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[1], t_iova[1] + 0x100);
	t_ring(r, 1, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->recv_violations, 1);
	t_rig_free(r);
}

/*
 * Two SENDs posted on A (the SND dbrec past both), the doorbell rung with
 * the first one's ctrl segment; the first WQE's ctrl segment.
 */
static const uint8_t *t_two_sends_first_rung(struct t_rig *r)
{
	const uint8_t *first;
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	t_recv(r, 1, 64, t_iova[1] + 0x100);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	first = w - sizeof(struct m5_ctrl_seg);
	r->sq_pi[0]++;
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	r->sq_pi[0]++;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, first,
			      8),
		 0);
	return first;
}

/*
 * Only the first runs (a ConnectX takes the producer index from the
 * doorbell); a dbrec ahead of the doorbell is not counted (MMIO writes are
 * posted: the second WQE's doorbell may still be on its way), and once
 * the second WQE's doorbell ran it, stopping the QP counts nothing.
 */
static void doorbell_naming_an_earlier_wqe_runs_only_up_to_it(void)
{
	uint8_t qpc[CX_QPC_BYTES] = { 0 };
	struct t_rig *r = t_rig(CX_ST_RC);
	const uint8_t *first = t_two_sends_first_rung(r);

	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 0);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800,
			      first + 64, 8),
		 0);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_move(r->cx, CX_OP_2ERR_QP, r->qpn[0], qpc);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * A WQE posted (the SND dbrec) that no doorbell named: counted when the QP
 * stops sending, by 2ERR or DESTROY_QP.
 */
static void wqe_no_doorbell_named_is_counted_when_the_qp_stops(void)
{
	uint8_t qpc[CX_QPC_BYTES] = { 0 }, in[0x10] = { 0 }, out[16];
	int i;

	for (i = 0; i < 2; i++) {
		struct t_rig *r = t_rig(CX_ST_RC);

		t_two_sends_first_rung(r);
		CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
		if (i == 0) {
			t_move(r->cx, CX_OP_2ERR_QP, r->qpn[0], qpc);
		} else {
			cx_set(in, F_IN_OPCODE, CX_OP_DESTROY_QP);
			cx_set(in, F_QPN, r->qpn[0]);
			CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)),
				 0);
		}
		CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 1);
		t_rig_free(r);
	}
}

/* A doorbell whose bytes are not the WQE it names (here: its ds). */
static void doorbell_differing_from_its_wqe_is_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t db[8];
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	memcpy(db, w - sizeof(struct m5_ctrl_seg), 8);
	db[7] = 3; /* ds 3, still one WQEBB */
	r->sq_pi[0]++;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, db, 8),
		 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * A send doorbell rung on a UAR page the driver owns but the QPC does not
 * name is dropped (the SQ does not run) and counted; rung again on the
 * QP's own page, the WQE runs.
 */
static void doorbell_on_another_uar_is_dropped_and_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t other = alloc_uar(r->cx);
	const uint8_t *db;
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, r->key[0], t_iova[0]);
	db = w - sizeof(struct m5_ctrl_seg);
	r->sq_pi[0]++;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)other * CX_PAGE + 0x800, db, 8),
		 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->db_wrong_uar, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 0);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x900, db, 8),
		 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(cx_eng_stats(r->cx)->db_wrong_uar, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * A BlueFlame copy as libmlx5's mlx5_bf_copy writes it: the SND dbrec,
 * then LEN bytes of P at UAR offset OFF in writes of PIECE bytes.  The
 * server holds a half's writes for the rest of the copy (bf_wait_ns).
 */
static void t_bf(struct t_rig *r, unsigned int nbb, uint32_t off,
		 const uint8_t *p, uint32_t len, uint32_t piece)
{
	uint32_t k;

	r->cx->host.bf_wait_ns = 1000000000;
	r->sq_pi[0] += nbb;
	t_dbr(0)[M5_SND_DBR] = htobe32(r->sq_pi[0]);
	for (k = 0; k < len; k += piece)
		CHECK_EQ(cx_bar_write(r->cx,
				      (uint64_t)r->uar * CX_PAGE + off + k,
				      p + k, piece),
			 0);
}

/*
 * The device runs a complete copy, not the WQE in memory: the SEND the
 * payload describes (other bytes, other length) is what lands, and the
 * difference is counted.
 */
static void bf_copy_runs_its_payload_not_the_wqe_in_memory(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t a = t_iova[0] + 0x100, b = t_iova[0] + 0x800;
	uint64_t dst = t_iova[1] + 0x40;
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	uint8_t copy[64];

	t_fill(r, 0, a, 300, 3);
	t_fill(r, 0, b, 200, 9);
	t_recv(r, 1, 1000, dst);
	t_data(w, 300, r->key[0], a);
	memcpy(copy, w - 16, 64);
	t_data(copy + 16, 200, r->key[0], b); /* the payload's own segment */
	t_bf(r, 1, 0xa00, copy, 64, 8);
	CHECK(t_same(r, 0, b, 1, dst, 200));
	t_check_req(r, 0, M5_OPCODE_SEND, 200);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 1);
	t_rig_free(r);
}

/*
 * The kernels' write-combining probe: a NOP without CQ_UPDATE in memory,
 * copied with it.  The payload's CQE comes, and it is not counted.
 */
static void bf_probe_nop_completes_from_its_payload_uncounted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_NOP, 1);
	uint8_t copy[64];

	((struct m5_ctrl_seg *)(w - 16))->fm_ce_se = 0;
	memcpy(copy, w - 16, 64);
	((struct m5_ctrl_seg *)copy)->fm_ce_se = M5_WQE_CTRL_CQ_UPDATE;
	t_bf(r, 1, 0xa00, copy, 64, 8);
	t_check_req(r, 0, M5_OPCODE_NOP, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 0);
	t_rig_free(r);
}

/* Halves alternate: a copy on the half its bfreg rang last is counted. */
static void bf_copy_on_the_half_rung_last_is_counted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	unsigned int n;

	for (n = 0; n < 3; n++) {
		uint8_t *w = t_wqe(r, 0, M5_OPCODE_NOP, 1);

		/* the second and third on the same half */
		t_bf(r, 1, n ? 0xb00 : 0xa00, w - 16, 64, 16);
	}
	CHECK_EQ(t_cqe(0, 2)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 3);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_half_reused, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 0);
	t_rig_free(r);
}

/*
 * A copy torn by a write at its bfreg's other half (16 of the 48 bytes
 * its ds says) is counted and does not ring; the write that tore it (a
 * doorbell for no QP here) is held, then taken for a doorbell once its
 * wait is over.
 */
static void bf_copy_torn_by_the_other_half_is_counted_not_run(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 3);
	uint8_t db[8] = { 0 };

	t_fill(r, 0, t_iova[0], 64, 5);
	t_recv(r, 1, 1000, t_iova[1]);
	t_data(w, 64, r->key[0], t_iova[0]);
	t_bf(r, 1, 0xa00, w - 16, 16, 8);
	cx_set(db, 32, 32, 0x3ff << 8 | 1); /* a QPN never made */
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0xb00, db, 8),
		 0);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_partial, 1);
	CHECK(cx_timers(r->cx) > 0); /* the held doorbell's wait */
	CHECK_EQ(cx_eng_stats(r->cx)->stray_doorbells, 0);
	r->cx->host.bf_wait_ns = 0;
	cx_timers(r->cx); /* over: 8 bytes are a doorbell */
	CHECK_EQ(cx_eng_stats(r->cx)->stray_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 0);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/*
 * A copy of a WQE that wraps the SQ's end (its second WQEBB is slot 0):
 * the payload is compared with the WQE as the ring holds it, wrapped, and
 * runs; 60 inline bytes land.
 */
static void bf_copy_of_a_wqe_wrapping_the_sq_end_runs(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t copy[128], *w;
	struct m5_inline_seg *inl;
	unsigned int n;

	for (n = 0; n < 7; n++) {
		t_wqe(r, 0, M5_OPCODE_NOP, 1);
		t_ring(r, 0, 1);
	}
	t_recv(r, 1, 256, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5); /* 80 bytes from slot 7 */
	memcpy(copy, w - 16, 64);
	inl = (struct m5_inline_seg *)(copy + 16);
	inl->byte_count = htobe32(60 | M5_INLINE_SEG);
	for (n = 0; n < 60; n++)
		copy[20 + n] = (uint8_t)(n * 3 + 1);
	memcpy(w, copy + 16, 48);		/* slot 7's rest */
	memcpy(at(r->sq_at[0]), copy + 64, 64); /* slot 0: the wrap */
	t_bf(r, 2, 0xa00, copy, 128, 8);
	CHECK(!memcmp(t_va(r, 1, t_iova[1]), copy + 20, 60));
	CHECK_EQ(be32toh(t_cqe(1, 0)->byte_cnt), 60);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->bf_payload_not_wqe, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/* --- The slow device (cx_host.slow, m5m_slow.c) ---------------------------- */

static struct t_rig *t_slow_rig(unsigned int per_tick, bool b_rtr)
{
	struct t_rig *r;

	dev_slow = per_tick;
	r = t_rig_on(CX_ST_RC, 0, b_rtr, false);
	dev_slow = 0;
	return r;
}

/* One tick: cx_timers() after the tick period (50 µs) has passed. */
static void t_tick(struct t_rig *r)
{
	struct timespec ts = { 0, 60000 };

	nanosleep(&ts, NULL);
	cx_timers(r->cx);
}

static unsigned int t_cqes(unsigned int i)
{
	unsigned int n = 0;

	while (n < 1u << CQ_LOG && t_cqe(i, n)->op_own >> 4 != CQE_INVALID)
		n++;
	return n;
}

static void slow_device_runs_two_wqes_per_tick_and_completes_at_the_next(void)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x200;
	unsigned int k;

	t_fill(r, 0, src, 8 * 64, 3);
	for (k = 0; k < 8; k++)
		t_write(r, r->key[1], dst + 64 * k, 64, r->key[0],
			src + 64 * k);
	/* The doorbells only recorded the producer index. */
	CHECK_EQ(t_cqes(0), 0);
	CHECK(!t_same(r, 0, src, 1, dst, 64));
	t_tick(r);
	CHECK(t_same(r, 0, src, 1, dst, 2 * 64));
	CHECK(!t_same(r, 0, src + 2 * 64, 1, dst + 2 * 64, 64));
	CHECK_EQ(t_cqes(0), 0);
	for (k = 2; k <= 5; k++) {
		t_tick(r);
		CHECK_EQ(t_cqes(0), 2 * (k - 1));
	}
	CHECK(t_same(r, 0, src, 1, dst, 8 * 64));
	for (k = 0; k < 8; k++)
		CHECK_EQ(be16toh(t_cqe(0, k)->wqe_counter), k);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 0);
	t_rig_free(r);
}

/*
 * A READ into L, then a WRITE of L to the peer: without a fence the WRITE
 * gathers L before the READ's response lands; with one it waits for it.
 */
static void t_read_then_write(bool fence)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t l = t_iova[0] + 0x40, src = t_iova[1] + 0x400;
	uint64_t dst = t_iova[1] + 0x800;
	uint8_t *w;

	t_fill(r, 0, l, 256, 11);
	t_fill(r, 1, src, 256, 99);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 3);
	t_raddr(w, r->key[1], src);
	t_data(w + 16, 256, r->key[0], l);
	t_ring(r, 0, 1);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	if (fence)
		w[-16 + 11] |= M5_WQE_CTRL_FENCE; /* fm_ce_se */
	t_raddr(w, r->key[1], dst);
	t_data(w + 16, 256, r->key[0], l);
	t_ring(r, 0, 1);
	t_tick(r);
	t_tick(r);
	t_tick(r);
	CHECK(t_same(r, 0, l, 1, src, 256)); /* the READ landed */
	CHECK(t_same(r, 1, dst, 1, src, 256) == fence);
	/* Completions in SQ order all the same. */
	CHECK_EQ(t_cqes(0), 2);
	CHECK_EQ(be32toh(t_cqe(0, 0)->sop_drop_qpn) >> 24, M5_OPCODE_RDMA_READ);
	CHECK_EQ(be16toh(t_cqe(0, 1)->wqe_counter), 1);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 0);
	t_rig_free(r);
}

static void slow_read_lands_after_a_later_unfenced_write_gathered(void)
{
	t_read_then_write(false);
}

static void slow_fenced_write_waits_for_the_earlier_read(void)
{
	t_read_then_write(true);
}

/*
 * A FETCH_ADD into L, then a WRITE of L: the atomic's original value lands
 * at its completion, after the unfenced WRITE gathered L.
 */
static void t_fetch_add_then_write(bool fence)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t l = t_iova[0] + 0x80, ctr = t_iova[1] + 0x1000;
	uint64_t dst = t_iova[1] + 0x1100, v = 5, got;
	uint8_t *w;

	t_fill(r, 0, l, 8, 1);
	memcpy(t_va(r, 1, ctr), &v, 8);
	w = t_wqe(r, 0, M5_OPCODE_ATOMIC_FA, 4);
	t_raddr(w, r->key[1], ctr);
	((struct m5_atomic_seg *)(w + 16))->swap_add = htobe64(3);
	t_data(w + 32, 8, r->key[0], l);
	t_ring(r, 0, 1);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	if (fence)
		w[-16 + 11] |= M5_WQE_CTRL_FENCE; /* fm_ce_se */
	t_raddr(w, r->key[1], dst);
	t_data(w + 16, 8, r->key[0], l);
	t_ring(r, 0, 1);
	t_tick(r);
	t_tick(r);
	t_tick(r);
	memcpy(&got, t_va(r, 1, ctr), 8);
	CHECK_EQ(got, 8);
	memcpy(&got, t_va(r, 0, l), 8);
	CHECK_EQ(got, 5);
	memcpy(&got, t_va(r, 1, dst), 8);
	CHECK_EQ(got == 5, fence);
	CHECK_EQ(t_cqes(0), 2);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 0);
	t_rig_free(r);
}

static void slow_atomic_result_lands_after_a_later_unfenced_write(void)
{
	t_fetch_add_then_write(false);
}

static void slow_fenced_write_waits_for_the_earlier_atomic(void)
{
	t_fetch_add_then_write(true);
}

/* rdma-core's test_qp_ex_rc_rdma_read_zero_size: no data, no R_Key. */
static void slow_zero_length_read_completes_without_a_key(void)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint8_t *w;

	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 2);
	t_raddr(w, 0, 0);
	t_ring(r, 0, 1);
	t_tick(r);
	t_tick(r);
	t_check_req(r, 0, M5_OPCODE_RDMA_READ, 0);
	t_rig_free(r);
}

static void slow_wqe_rewritten_before_its_completion_is_counted(void)
{
	struct t_rig *r = t_slow_rig(2, false);
	uint64_t src = t_iova[0], dst = t_iova[1];
	uint8_t *w;

	t_write(r, r->key[1], dst, 64, r->key[0], src);
	t_tick(r); /* executed */
	t_tick(r); /* completed, as read */
	CHECK_EQ(cx_eng_stats(r->cx)->wqe_rewritten, 0);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	t_raddr(w, r->key[1], dst);
	t_data(w + 16, 64, r->key[0], src);
	t_ring(r, 0, 1);
	t_tick(r);
	/* The provider reuses the slot before the CQE: a wrong length. */
	((struct m5_data_seg *)(w + 16))->byte_count = htobe32(32);
	t_tick(r);
	CHECK_EQ(t_cqes(0), 2);
	CHECK_EQ(cx_eng_stats(r->cx)->wqe_rewritten, 1);
	CHECK_EQ(cx_eng_report(r->cx, NULL), 1);
	t_rig_free(r);
}

static void slow_receive_posted_after_the_send_doorbell_is_taken(void)
{
	struct t_rig *r = t_slow_rig(2, false);

	t_fill(r, 0, t_iova[0], 64, 5);
	t_send(r, 64, r->key[0], t_iova[0]);
	/* Read when the SEND executes, not at its doorbell: no RNR. */
	t_recv(r, 1, 64, t_iova[1]);
	t_tick(r);
	t_tick(r);
	t_check_req(r, 0, M5_OPCODE_SEND, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1], 64));
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

static const struct check_test tests[] = {
	CHECK_TEST(bf_copy_runs_its_payload_not_the_wqe_in_memory),
	CHECK_TEST(bf_copy_of_a_wqe_wrapping_the_sq_end_runs),
	CHECK_TEST(bf_probe_nop_completes_from_its_payload_uncounted),
	CHECK_TEST(bf_copy_on_the_half_rung_last_is_counted),
	CHECK_TEST(bf_copy_torn_by_the_other_half_is_counted_not_run),
	CHECK_TEST(rc_send_across_pages_lands_and_completes_both_sides),
	CHECK_TEST(rnr_retry_falls_due_in_cx_timers_once_a_recv_is_posted),
	CHECK_TEST(recv_posted_in_err_is_flushed_in_cx_timers),
	CHECK_TEST(rc_send_of_inline_bytes_then_a_data_segment_lands_in_order),
	CHECK_TEST(inline_segment_overrunning_its_ds_is_a_violation),
	CHECK_TEST(uc_send_and_rdma_write_land),
	CHECK_TEST(uc_messages_the_responder_cannot_take_are_dropped),
	CHECK_TEST(uc_rdma_read_completes_in_error),
	CHECK_TEST(queues_on_large_pages_start_at_their_page_offset),
	CHECK_TEST(send_to_a_qp_on_an_rmp_takes_the_srqs_head_wqe),
	CHECK_TEST(rdma_write_lands_with_one_requester_cqe),
	CHECK_TEST(rdma_read_fetches_the_remote_bytes),
	CHECK_TEST(ud_send_lands_after_the_grh_area),
	CHECK_TEST(ud_send_with_grh_carries_the_port_gid),
	CHECK_TEST(ud_send_with_a_wrong_qkey_is_dropped),
	CHECK_TEST(unknown_lkey_is_a_local_protection_error_cqe),
	CHECK_TEST(mtt_page_outside_guest_memory_is_a_protection_error),
	CHECK_TEST(rdma_write_to_a_key_without_remote_write_is_refused),
	CHECK_TEST(umr_wqe_gives_a_key_remote_write_and_completes),
	CHECK_TEST(umr_wqe_loads_mtt_into_a_free_key_and_rdma_write_lands),
	CHECK_TEST(umr_wqe_with_a_bad_translation_completes_in_error),
	CHECK_TEST(completion_on_an_armed_cq_raises_one_eqe_and_interrupt),
	CHECK_TEST(first_message_on_an_rtr_qp_raises_comm_est_on_the_async_eq),
	CHECK_TEST(doorbell_for_no_qp_is_ignored_and_counted),
	CHECK_TEST(rq_over_posting_is_a_recv_violation),
	CHECK_TEST(doorbell_naming_an_earlier_wqe_runs_only_up_to_it),
	CHECK_TEST(wqe_no_doorbell_named_is_counted_when_the_qp_stops),
	CHECK_TEST(doorbell_differing_from_its_wqe_is_counted),
	CHECK_TEST(doorbell_on_another_uar_is_dropped_and_counted),
	CHECK_TEST(recv_wqe_written_after_its_dbrec_is_a_recv_violation),
	CHECK_TEST(srq_over_posting_is_a_recv_violation),
	CHECK_TEST(xrc_send_lands_in_the_named_srq_and_completes_on_its_cq),
	CHECK_TEST(
		xrc_send_for_an_srq_not_of_the_tgts_xrcd_is_an_invalid_request),
	CHECK_TEST(xrc_send_for_no_srq_is_an_invalid_request),
	CHECK_TEST(xrc_rdma_write_lands_with_the_srqs_pd),
	CHECK_TEST(xrc_tgt_in_an_unallocated_xrcd_is_refused),
	CHECK_TEST(
		slow_device_runs_two_wqes_per_tick_and_completes_at_the_next),
	CHECK_TEST(slow_read_lands_after_a_later_unfenced_write_gathered),
	CHECK_TEST(slow_fenced_write_waits_for_the_earlier_read),
	CHECK_TEST(slow_atomic_result_lands_after_a_later_unfenced_write),
	CHECK_TEST(slow_fenced_write_waits_for_the_earlier_atomic),
	CHECK_TEST(slow_wqe_rewritten_before_its_completion_is_counted),
	CHECK_TEST(slow_zero_length_read_completes_without_a_key),
	CHECK_TEST(slow_receive_posted_after_the_send_doorbell_is_taken),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cx_engine_", tests);
}
