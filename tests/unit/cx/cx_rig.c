// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data-path rig of the cx unit tests: see cx_rig.h.  Page arithmetic
 * here is the tests' own; the layouts are mlx5_hw.h's.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cx_eth.h"
#include "cx_eth_ifc.h"
#include "cx_rig.h"

const uint64_t t_iova[2] = { 0x7f0000001800ull, 0x5500000000ull };

uint32_t t_alloc_pd(struct cx *cx)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, CX_OP_ALLOC_PD, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_OBJ_NUMBER);
}

/*
 * CREATE_MKEY of IN (INLEN bytes, its mkc filled in): the new key, with
 * the mkc's variant (mkey_7_0).
 */
uint32_t t_create_mkey(struct cx *cx, uint8_t *in, size_t inlen)
{
	uint8_t out[16];

	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_MKEY);
	CHECK_EQ(cmd(cx, in, inlen, out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	return cx_get(out, F_MKEY_INDEX) << 8 |
	       cx_get(in + B_CREATE_MKEY_IN_MKC, F_MKC_MKEY_7_0);
}

/* CREATE_MKEY in MTT mode over [iova, iova + len) with MTT's 4 pages. */
uint32_t t_mkey(struct cx *cx, uint32_t pd, uint64_t iova, uint64_t len,
		const uint64_t *mtt, int access)
{
	uint8_t in[0x110 + 4 * 8] = { 0 };
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;
	unsigned int i;

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
	return t_create_mkey(cx, in, sizeof(in));
}

/*
 * CREATE_QP of service type ST.  4 KiB pages: the RQ's page after the
 * SQ's (the list is what places them).  16 KiB pages (lps 2): the queues
 * start a quarter of the page in (page_offset 16 of 64): the RQ in its
 * second 4 KiB, the SQ in its third.
 */
uint32_t t_create_qp(struct t_rig *r, unsigned int i, uint32_t st)
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

void t_move(struct cx *cx, uint16_t op, uint32_t qpn, const uint8_t *ctx)
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
const uint8_t t_roce_gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
unsigned int t_ack_timeout;
unsigned int t_log_sra = 4;
const uint8_t *t_rmac;

void t_up(struct cx *cx, uint32_t qpn, uint32_t dest, uint32_t qkey, bool rts)
{
	uint8_t ctx[CX_QPC_BYTES] = { 0 };
	uint8_t *ads = ctx + B_QPC_PRIMARY_ADDRESS_PATH;

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
	cx_set(ctx, F_QPC_ACK_TIMEOUT, t_ack_timeout);
	cx_set(ctx, F_QPC_LOG_SRA_MAX, t_log_sra);
	cx_set(ctx, F_QPC_LOG_RRA_MAX, 4);
	/* RoCE (an Ethernet function): to its own GID, and t_rmac. */
	if (cx->eth) {
		cx_set(ads, F_ADS_HOP_LIMIT, 64);
		memcpy(ads + B_ADS_RGID_RIP, t_roce_gid, 16);
		memcpy(ads + B_ADS_RMAC, t_rmac ? t_rmac : cx->eth->mac, 6);
	}
	t_move(cx, CX_OP_RST2INIT_QP, qpn, ctx);
	t_move(cx, CX_OP_INIT2RTR_QP, qpn, ctx);
	if (rts)
		t_move(cx, CX_OP_RTR2RTS_QP, qpn, ctx);
}

/* CREATE_RMP as mlx5_ib's create_srq_split() for IB_SRQT_BASIC. */
uint32_t t_rmp(struct t_rig *r)
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
int t_tgt(struct t_rig *r, uint32_t xrcd)
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
uint32_t t_xrc_srq(struct t_rig *r, uint32_t xrcd)
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
struct t_rig *t_rig_on(uint32_t st, unsigned int lps, bool b_rtr, bool b_srq)
{
	return t_rig_with(dev_up(), st, lps, b_rtr, b_srq);
}

struct t_rig *t_rig_with(struct cx *cx, uint32_t st, unsigned int lps,
			 bool b_rtr, bool b_srq)
{
	struct t_rig *r = calloc(1, sizeof(*r));
	unsigned int i;
	int eqn;

	CHECK(r != NULL);
	r->lps = lps;
	r->cx = cx;
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

struct t_rig *t_rig(uint32_t st)
{
	return t_rig_on(st, 0, false, false);
}

void t_rig_free(struct t_rig *r)
{
	cx_destroy(r->cx);
	free(r);
}

/* Guest byte at iova of MKEY i, by the test's own page walk. */
uint8_t *t_va(struct t_rig *r, unsigned int i, uint64_t iova)
{
	uint64_t off = iova - t_iova[i] + t_iova[i] % CX_PAGE;

	return at(r->mtt[i][off / CX_PAGE] + off % CX_PAGE);
}

void t_fill(struct t_rig *r, unsigned int i, uint64_t iova, uint32_t len,
	    uint8_t seed)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		*t_va(r, i, iova + k) = (uint8_t)(seed + k * 7 + k / 251);
}

bool t_same(struct t_rig *r, unsigned int i, uint64_t iova, unsigned int j,
	    uint64_t jova, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		if (*t_va(r, i, iova + k) != *t_va(r, j, jova + k))
			return false;
	return true;
}

__be32 *t_dbr(unsigned int i)
{
	return (__be32 *)at(PG(P_DBR) + 64 * i);
}

/* A send WQE at the SQ's producer index: ctrl segment, the rest zeroed. */
uint8_t *t_wqe(struct t_rig *r, unsigned int i, uint8_t opcode, unsigned int ds)
{
	uint8_t *w = at(r->sq_at[i] + (r->sq_pi[i] % (1 << SQ_LOG)) * 64);
	struct m5_ctrl_seg *c = (struct m5_ctrl_seg *)w;

	memset(w, 0, (ds * 16 + 63) / 64 * 64);
	c->opmod_idx_opcode = htobe32((uint32_t)r->sq_pi[i] << 8 | opcode);
	c->qpn_ds = htobe32(r->qpn[i] << 8 | ds);
	c->fm_ce_se = M5_WQE_CTRL_CQ_UPDATE;
	return w + sizeof(*c);
}

void t_data(uint8_t *p, uint32_t len, uint32_t key, uint64_t addr)
{
	struct m5_data_seg *d = (struct m5_data_seg *)p;

	d->byte_count = htobe32(len);
	d->lkey = htobe32(key);
	d->addr = htobe64(addr);
}

void t_raddr(uint8_t *p, uint32_t rkey, uint64_t raddr)
{
	struct m5_raddr_seg *ra = (struct m5_raddr_seg *)p;

	ra->raddr = htobe64(raddr);
	ra->rkey = htobe32(rkey);
}

/* libmlx5's post_send: the SND dbrec, then the ctrl segment's first eight
 * bytes at the bfreg (UAR offset 0x800). */
void t_ring(struct t_rig *r, unsigned int i, unsigned int nbb)
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
void t_send(struct t_rig *r, uint32_t len, uint32_t key, uint64_t addr)
{
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 2);

	t_data(w, len, key, addr);
	t_ring(r, 0, 1);
}

/*
 * An RDMA WRITE from QP 0 to raddr under rkey, of one data segment (len
 * bytes at addr under key), rung.
 */
void t_write(struct t_rig *r, uint32_t rkey, uint64_t raddr, uint32_t len,
	     uint32_t key, uint64_t addr)
{
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);

	t_raddr(w, rkey, raddr);
	t_data(w + 16, len, key, addr);
	t_ring(r, 0, 1);
}

/* One receive WQE: a data segment and the terminator, then the dbrec. */
void t_recv(struct t_rig *r, unsigned int i, uint32_t len, uint64_t addr)
{
	uint8_t *w = at(r->rq_at[i] + (r->rq_pi[i] % (1 << RQ_LOG)) * 64);

	memset(w, 0, 64);
	t_data(w, len, r->key[i], addr);
	t_data(w + 16, 0, M5_INVALID_LKEY, 0);
	r->rq_pi[i]++;
	t_dbr(i)[M5_RCV_DBR] = htobe32(r->rq_pi[i]);
}

const struct m5_cqe64 *t_cqe(unsigned int i, unsigned int n)
{
	return (const struct m5_cqe64 *)at(PG(P_CQ + i) + n * 64);
}

/* A requester CQE (first pass: owner 0) for WQE 0 of QP i. */
void t_check_req(struct t_rig *r, unsigned int i, uint8_t opcode,
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

/* The error CQE of WQE 0 of QP 0: REQ_ERR, syndrome, the QP in ERR. */
void t_check_req_err(struct t_rig *r, uint8_t opcode, uint8_t synd)
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
