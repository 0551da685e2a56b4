// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The model's WQE/CQE engine on guest memory (cx_engine.c): WQEs written
 * into a buffer that stands for guest memory, on QP buffers and MKEYs
 * whose pages are scattered (out of order) in it, executed by the engine;
 * the bytes that arrived and the CQEs in the guest's CQ rings are checked
 * against the mlx5_hw.h layouts.  Page arithmetic here is the test's own.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cx_engine.h"

#define PG(n)	  ((uint64_t)(n)*CXE_PAGE)
#define MEM_PAGES 64
#define RQ_CNT	  64 /* 64-byte receive WQEs: the RQ is the first page */
#define SQ_BBS	  8

struct t_qp {
	struct cxe_qp *qp;
	uint64_t pas[2]; /* RQ page, SQ page */
	uint64_t dbr;
	uint16_t sq_pi, rq_pi;
};

struct t_rig {
	struct cxe e;
	uint8_t *mem;
	struct cxe_cq cq[2]; /* A's, B's */
	uint64_t cq_pas[2][1];
	struct cxe_mkey mk[2];
	uint64_t mtt[2][4];
	struct t_qp q[2];
};

/* A's MKEY starts 0x800 into a page: four pages for three pages' length. */
static const uint64_t t_iova[2] = { 0x7f0000001800ull, 0x5500000000ull };

static void t_cq(struct t_rig *r, unsigned int i, unsigned int page)
{
	unsigned int k;

	r->cq_pas[i][0] = PG(page);
	cxe_cq_init(&r->e, &r->cq[i], 16, r->cq_pas[i], 1);
	/* What mlx5_ib does to a new CQ: invalid opcode, owner 1. */
	for (k = 0; k < 16; k++)
		r->mem[PG(page) + k * 64 + 63] = 0xf1;
}

static void t_qp(struct t_rig *r, unsigned int i, enum ibv_qp_type type,
		 uint32_t qpn, unsigned int rq_page, unsigned int sq_page)
{
	struct cxe_qp_attr a = {
		.qpn = qpn,
		.type = type,
		.pdn = 1,
		.scq = &r->cq[i],
		.rcq = &r->cq[i],
		.rq_cnt = RQ_CNT,
		.rq_shift = 6,
		.sq_bbs = SQ_BBS,
		.dbr = PG(1) + 64 * i,
		.pas = r->q[i].pas,
		.npages = 2,
	};

	r->q[i].pas[0] = PG(rq_page);
	r->q[i].pas[1] = PG(sq_page);
	r->q[i].dbr = a.dbr;
	r->q[i].qp = cxe_qp_create(&r->e, &a);
	CHECK(r->q[i].qp != NULL);
}

static struct t_rig *t_rig(enum ibv_qp_type type)
{
	struct t_rig *r = calloc(1, sizeof(*r));
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;
	unsigned int i;

	CHECK(r != NULL);
	r->mem = calloc(MEM_PAGES, CXE_PAGE);
	CHECK(r->mem != NULL);
	CHECK_EQ(cxe_init(&r->e, r->mem, PG(MEM_PAGES)), 0);
	t_cq(r, 0, 2);
	t_cq(r, 1, 3);
	for (i = 0; i < 2; i++) {
		/* Data pages out of order: 23, 21, 22, 20 and 33, 31, ... */
		r->mtt[i][0] = PG(23 + 10 * i);
		r->mtt[i][1] = PG(21 + 10 * i);
		r->mtt[i][2] = PG(22 + 10 * i);
		r->mtt[i][3] = PG(20 + 10 * i);
		r->mk[i] = (struct cxe_mkey){
			.key = 0x1100 + 0x100 * i,
			.pdn = 1,
			.iova = t_iova[i],
			.len = PG(3),
			.access = acc,
			.npages = 4,
			.mtt = r->mtt[i],
		};
		CHECK_EQ(cxe_mkey_add(&r->e, &r->mk[i]), 0);
	}
	/* QP buffers: RQ and SQ pages apart and backwards. */
	t_qp(r, 0, type, 0x48, 11, 10);
	t_qp(r, 1, type, 0x49, 13, 12);
	cxe_qp_rts(r->q[0].qp, 0x49, 0x1234, acc);
	cxe_qp_rts(r->q[1].qp, 0x48, 0x1234, acc);
	return r;
}

static void t_rig_free(struct t_rig *r)
{
	CHECK_EQ(m5m_violations(r->e.dev), 0);
	cxe_qp_destroy(&r->e, r->q[0].qp);
	cxe_qp_destroy(&r->e, r->q[1].qp);
	cxe_fini(&r->e);
	free(r->mem);
	free(r);
}

/* Guest byte at iova of MKEY i, by the test's own page walk. */
static uint8_t *t_va(struct t_rig *r, unsigned int i, uint64_t iova)
{
	uint64_t off = iova - t_iova[i] + t_iova[i] % CXE_PAGE;

	return r->mem + r->mtt[i][off / CXE_PAGE] + off % CXE_PAGE;
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

static __be32 *t_dbr(struct t_rig *r, unsigned int i)
{
	return (__be32 *)(r->mem + r->q[i].dbr);
}

/* A send WQE at the SQ's producer index: ctrl segment, the rest zeroed. */
static uint8_t *t_wqe(struct t_rig *r, unsigned int i, uint8_t opcode,
		      unsigned int ds)
{
	struct t_qp *q = &r->q[i];
	uint8_t *w = r->mem + q->pas[1] + (q->sq_pi % SQ_BBS) * 64;
	struct m5_ctrl_seg *c = (struct m5_ctrl_seg *)w;

	memset(w, 0, (ds * 16 + 63) / 64 * 64);
	c->opmod_idx_opcode = htobe32((uint32_t)q->sq_pi << 8 | opcode);
	c->qpn_ds = htobe32(q->qp->m.qpn << 8 | ds);
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

/* SND dbrec, then the doorbell. */
static void t_ring(struct t_rig *r, unsigned int i, unsigned int nbb)
{
	r->q[i].sq_pi += nbb;
	t_dbr(r, i)[M5_SND_DBR] = htobe32(r->q[i].sq_pi);
	cxe_sq_doorbell(&r->e, r->q[i].qp);
}

/* One receive WQE: a data segment and the terminator. */
static void t_recv(struct t_rig *r, unsigned int i, uint32_t len, uint64_t addr)
{
	struct t_qp *q = &r->q[i];
	uint8_t *w = r->mem + q->pas[0] + (q->rq_pi % RQ_CNT) * 64;

	memset(w, 0, 64);
	t_data(w, len, r->mk[i].key, addr);
	t_data(w + 16, 0, M5_INVALID_LKEY, 0);
	q->rq_pi++;
	t_dbr(r, i)[M5_RCV_DBR] = htobe32(q->rq_pi);
}

static const struct m5_cqe64 *t_cqe(struct t_rig *r, unsigned int i,
				    unsigned int n)
{
	return (const struct m5_cqe64 *)(r->mem + r->cq_pas[i][0] + n * 64);
}

/* A requester CQE (first pass: owner 0) for WQE 0 of QP i. */
static void t_check_req(struct t_rig *r, unsigned int i, uint8_t opcode,
			uint32_t byte_cnt)
{
	const struct m5_cqe64 *c = t_cqe(r, i, 0);

	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(be32toh(c->sop_drop_qpn),
		 (uint32_t)opcode << 24 | r->q[i].qp->m.qpn);
	CHECK_EQ(be32toh(c->byte_cnt), byte_cnt);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
}

static void rc_send_across_pages_lands_and_completes_both_sides(void)
{
	struct t_rig *r = t_rig(IBV_QPT_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;
	const struct m5_cqe64 *c;
	uint8_t *w;

	t_fill(r, 0, src, 6000, 3);
	t_recv(r, 1, 8000, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 6000, r->mk[0].key, src);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, src, 1, dst, 6000));
	t_check_req(r, 0, M5_OPCODE_SEND, 6000);
	c = t_cqe(r, 1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(be32toh(c->byte_cnt), 6000);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	CHECK_EQ(be32toh(c->sop_drop_qpn) & 0xffffff, 0x49);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, 0x48);
	CHECK_EQ(r->cq[0].pi, 1);
	CHECK_EQ(r->cq[1].pi, 1);
	t_rig_free(r);
}

static void rdma_write_lands_with_one_requester_cqe(void)
{
	struct t_rig *r = t_rig(IBV_QPT_RC);
	uint64_t src = t_iova[0] + 0xf00, dst = t_iova[1] + 0x123;
	uint8_t *w;

	t_fill(r, 0, src, 5000, 9);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	t_raddr(w, r->mk[1].key, dst);
	t_data(w + 16, 5000, r->mk[0].key, src);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, src, 1, dst, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 5000);
	/* No receive consumed, no responder CQE. */
	CHECK_EQ(t_cqe(r, 1, 0)->op_own, 0xf1);
	CHECK_EQ(r->cq[1].pi, 0);
	t_rig_free(r);
}

static void rdma_read_fetches_the_remote_bytes(void)
{
	struct t_rig *r = t_rig(IBV_QPT_RC);
	uint64_t dst = t_iova[0] + 0x10, src = t_iova[1] + 0xff0;
	uint8_t *w;

	t_fill(r, 1, src, 5000, 77);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 4);
	t_raddr(w, r->mk[1].key, src);
	/* Two local segments: 3000 bytes, then the other 2000. */
	t_data(w + 16, 3000, r->mk[0].key, dst);
	t_data(w + 32, 2000, r->mk[0].key, dst + 3000);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, dst, 1, src, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_READ, 5000);
	CHECK_EQ(r->cq[1].pi, 0);
	t_rig_free(r);
}

static void ud_send_lands_after_the_grh_area(void)
{
	struct t_rig *r = t_rig(IBV_QPT_UD);
	uint64_t src = t_iova[0] + 0xfc0, dst = t_iova[1];
	const struct m5_cqe64 *c;
	struct m5_av *av;
	uint8_t *w;

	t_fill(r, 0, src, 100, 5);
	t_recv(r, 1, 40 + 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5); /* ctrl, 48-byte AV, data */
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x1234);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | 0x49);
	av->rlid = htobe16(m5m_port_lid(r->e.dev, 1));
	t_data(w + sizeof(*av), 100, r->mk[0].key, src);
	t_ring(r, 0, 2);
	CHECK(t_same(r, 0, src, 1, dst + 40, 100));
	t_check_req(r, 0, M5_OPCODE_SEND, 100);
	c = t_cqe(r, 1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	/* The 40 bytes of GRH area count, whether or not a GRH came. */
	CHECK_EQ(be32toh(c->byte_cnt), 140);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, 0x48);
	t_rig_free(r);
}

/* The error CQE of WQE 0 of QP 0: REQ_ERR, syndrome, the QP in ERR. */
static void t_check_req_err(struct t_rig *r, uint8_t opcode, uint8_t synd)
{
	const struct m5_err_cqe *e = (const void *)t_cqe(r, 0, 0);

	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(e->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(e->syndrome, synd);
	CHECK_EQ(be32toh(e->s_wqe_opcode_qpn), (uint32_t)opcode << 24 | 0x48);
	CHECK_EQ(be16toh(e->wqe_counter), 0);
	CHECK_EQ(r->q[0].qp->m.state, IBV_QPS_ERR);
}

static void unknown_lkey_is_a_local_protection_error_cqe(void)
{
	struct t_rig *r = t_rig(IBV_QPT_RC);
	uint8_t *w;

	t_recv(r, 1, 64, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	t_data(w, 64, 0xdead00, t_iova[0]);
	t_ring(r, 0, 1);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(r->cq[0].pi, 1);
	/* Nothing reached the responder. */
	CHECK_EQ(r->cq[1].pi, 0);
	t_rig_free(r);
}

static void mtt_page_outside_guest_memory_is_a_protection_error(void)
{
	struct t_rig *r = t_rig(IBV_QPT_RC);
	uint8_t *w;

	/* The MKEY's last page lies past guest memory. */
	r->mtt[0][3] = PG(MEM_PAGES);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 3);
	t_raddr(w, r->mk[1].key, t_iova[1]);
	t_data(w + 16, 64, r->mk[0].key, t_iova[0] + PG(3) - 0x100);
	t_ring(r, 0, 1);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_LOCAL_PROT_ERR);
	t_rig_free(r);
}

static void qp_on_pages_outside_guest_memory_is_refused(void)
{
	struct t_rig *r = t_rig(IBV_QPT_RC);
	uint64_t pas[2] = { PG(40), PG(MEM_PAGES) };
	struct cxe_qp *qp;
	struct cxe_qp_attr a = {
		.qpn = 0x50,
		.type = IBV_QPT_RC,
		.pdn = 1,
		.scq = &r->cq[0],
		.rcq = &r->cq[0],
		.rq_cnt = RQ_CNT,
		.rq_shift = 6,
		.sq_bbs = SQ_BBS,
		.dbr = PG(1) + 256,
		.pas = pas,
		.npages = 2,
	};

	CHECK(cxe_qp_create(&r->e, &a) == NULL);
	/* One page for two pages of queues: refused too. */
	pas[1] = PG(41);
	a.npages = 1;
	CHECK(cxe_qp_create(&r->e, &a) == NULL);
	a.npages = 2;
	a.dbr = PG(MEM_PAGES) - 4;
	CHECK(cxe_qp_create(&r->e, &a) == NULL);
	a.dbr = PG(1) + 256;
	qp = cxe_qp_create(&r->e, &a);
	CHECK(qp != NULL);
	cxe_qp_destroy(&r->e, qp);
	t_rig_free(r);
}

static const struct check_test tests[] = {
	CHECK_TEST(rc_send_across_pages_lands_and_completes_both_sides),
	CHECK_TEST(rdma_write_lands_with_one_requester_cqe),
	CHECK_TEST(rdma_read_fetches_the_remote_bytes),
	CHECK_TEST(ud_send_lands_after_the_grh_area),
	CHECK_TEST(unknown_lkey_is_a_local_protection_error_cqe),
	CHECK_TEST(mtt_page_outside_guest_memory_is_a_protection_error),
	CHECK_TEST(qp_on_pages_outside_guest_memory_is_refused),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cx_engine_", tests);
}
