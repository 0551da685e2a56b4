// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The mlx5 data path on queues in ordinary memory, no device and no model:
 * the WQEs post_send builds (compared with mlx5dv.h's encoders), the
 * doorbell record and doorbell it writes, what a refused WR leaves behind,
 * receive scatter lists, and what poll_cq makes of hand-written CQEs.
 * Production seams: the "UAR" is a buffer, barriers are compiler barriers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <infiniband/mlx5dv.h>

#include "m5_fake.h"
#include "check.h"

#define SQ_BBS	4 /* a 256-byte SQ: WQEs wrap often */
#define RQ_WQES 4
#define NCQE	4

struct rig {
	struct m5_context ctx;
	struct m5_cq cq;
	struct m5_qp qp;
	struct m5_bf bf;
	struct m5_ah ah;
	struct ibv_pd pd; /* the QP's and the AH's */
	uint8_t uar[M5_UAR_SIZE] __attribute__((aligned(64)));
	__be32 qp_db[2], cq_db[2];
	uint64_t sq_wrid[SQ_BBS], rq_wrid[RQ_WQES];
	uint32_t sq_head[SQ_BBS];
	uint8_t data[256];
};

static struct rig *rig_new(enum ibv_qp_type type)
{
	struct rig *r;
	size_t rq_len = RQ_WQES * 32, len = rq_len + SQ_BBS * 64;
	void *cq_buf;

	if (posix_memalign((void **)&r, 64, sizeof(*r)))
		abort();
	memset(r, 0, sizeof(*r));
	m5_fake_ctx_init(&r->ctx, r->uar);
	if (posix_memalign(&cq_buf, 4096, NCQE * 64))
		abort();
	m5_fake_cq_init(&r->cq, &r->ctx, cq_buf, NCQE, r->cq_db, 0, true);

	r->qp.buf_len = len;
	if (posix_memalign(&r->qp.buf, 4096, len))
		abort();
	memset(r->qp.buf, 0xee, len);
	m5_fake_wq_init(&r->qp.rq,
			&(struct m5_fake_wq){ .buf = r->qp.buf,
					      .wrid = r->rq_wrid,
					      .wqe_cnt = RQ_WQES,
					      .wqe_shift = 5,
					      .max_post = RQ_WQES,
					      .max_gs = 2 },
			true);
	m5_fake_wq_init(&r->qp.sq,
			&(struct m5_fake_wq){ .buf = (char *)r->qp.buf + rq_len,
					      .wrid = r->sq_wrid,
					      .wqe_head = r->sq_head,
					      .wqe_cnt = SQ_BBS,
					      .wqe_shift = M5_SEND_WQE_SHIFT,
					      .max_post = 2,
					      .max_gs = 4 },
			true);
	r->bf = (struct m5_bf){ .reg = r->uar + M5_BF_OFFSET, .uuarn = 0 };
	if (m5_fake_qp_init(&r->qp, &r->ctx, type, 0x1234, &r->cq, &r->cq, NULL,
			    r->qp_db, &r->bf))
		abort();
	r->qp.max_inline_data = 100;
	r->ah.ibv_ah.context = &r->ctx.core.vctx.context;
	r->pd.context = &r->ctx.core.vctx.context;
	r->qp.vqp.qp.pd = &r->pd;
	r->ah.ibv_ah.pd = &r->pd;
	memset(&r->ah.av, 0x5a, sizeof(r->ah.av));
	for (int i = 0; i < 256; i++)
		r->data[i] = i;
	return r;
}

static void rig_free(struct rig *r)
{
	free(r->cq.buf);
	free(r->qp.buf);
	m5_fake_ctx_fini(&r->ctx);
	free(r);
}

static void *sq_bb(struct rig *r, unsigned int i)
{
	return (char *)r->qp.sq.buf + (i % SQ_BBS) * 64;
}

/*
 * Whether the UAR/BlueFlame stores (core/mmio.h) land in this rig's plain
 * memory; on s390x they are s390_pci_mmio_write system calls, which store
 * only into a PCI mapping, and the test is skipped (the mlx5_ model tests
 * check those bytes there, through DB_MMIO_MODEL's hooks).
 */
static bool uar_stores_land_in_memory(void)
{
#if defined(__s390x__)
	CHECK_SKIP("s390x: UAR stores are s390_pci_mmio_write system calls, "
		   "which store nothing into plain memory (the mlx5_ model "
		   "tests check these bytes)");
	return false;
#else
	return true;
#endif
}

static struct ibv_send_wr wr_of(uint64_t id, enum ibv_wr_opcode op,
				struct ibv_sge *sge, int n)
{
	return (struct ibv_send_wr){ .wr_id = id,
				     .opcode = op,
				     .sg_list = sge,
				     .num_sge = n,
				     .send_flags = IBV_SEND_SIGNALED };
}

static void ctrl_ref(struct mlx5_wqe_ctrl_seg *c, uint16_t pi, uint8_t op,
		     uint8_t ds, uint8_t fm_ce_se, uint32_t imm)
{
	memset(c, 0, sizeof(*c));
	mlx5dv_set_ctrl_seg(c, pi, op, 0, 0x1234, fm_ce_se, ds, 0, imm);
}

static void rc_send_encodes_like_mlx5dv(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_sge sge = { (uintptr_t)r->data, 64, 0x77 };
	struct ibv_send_wr wr = wr_of(9, IBV_WR_SEND, &sge, 1), *bad = NULL;
	struct mlx5_wqe_ctrl_seg c;
	struct mlx5_wqe_data_seg d;
	uint64_t db;

	if (!uar_stores_land_in_memory()) {
		rig_free(r);
		return;
	}
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), 0);
	ctrl_ref(&c, 0, MLX5_OPCODE_SEND, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	mlx5dv_set_data_seg(&d, 64, 0x77, (uintptr_t)r->data);
	CHECK(!memcmp(sq_bb(r, 0), &c, 16));
	CHECK(!memcmp((char *)sq_bb(r, 0) + 16, &d, 16));
	CHECK_EQ(be32toh(r->qp_db[M5_SND_DBR]), 1);
	memcpy(&db, r->uar + M5_BF_OFFSET, 8);
	CHECK(!memcmp(&db, &c, 8));
	CHECK_EQ(r->qp.sq.cur_post, 1);
	CHECK_EQ(r->sq_wrid[0], 9);
	CHECK_EQ(r->bf.offset, 0); /* bfreg 0: no halves to alternate */
	rig_free(r);
}

static void rdma_and_atomic_segments(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_sge sge = { (uintptr_t)r->data, 16, 0x77 };
	struct ibv_send_wr wr = wr_of(1, IBV_WR_RDMA_WRITE_WITH_IMM, &sge, 1);
	struct ibv_send_wr *bad;
	struct mlx5_wqe_ctrl_seg c;
	struct mlx5_wqe_raddr_seg ra = {};
	struct mlx5_wqe_atomic_seg at = {};
	struct mlx5_wqe_data_seg d;

	wr.imm_data = htobe32(0xabcd);
	wr.send_flags |= IBV_SEND_SOLICITED | IBV_SEND_FENCE;
	wr.wr.rdma.remote_addr = 0x1122334455667788ull;
	wr.wr.rdma.rkey = 0x99;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), 0);
	ctrl_ref(&c, 0, MLX5_OPCODE_RDMA_WRITE_IMM, 3,
		 MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED |
			 MLX5_WQE_CTRL_FENCE,
		 htobe32(0xabcd));
	ra.raddr = htobe64(0x1122334455667788ull);
	ra.rkey = htobe32(0x99);
	mlx5dv_set_data_seg(&d, 16, 0x77, (uintptr_t)r->data);
	CHECK(!memcmp(sq_bb(r, 0), &c, 16));
	CHECK(!memcmp((char *)sq_bb(r, 0) + 16, &ra, 16));
	CHECK(!memcmp((char *)sq_bb(r, 0) + 32, &d, 16));

	wr = wr_of(2, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 1);
	wr.wr.atomic.remote_addr = 0x1000;
	wr.wr.atomic.rkey = 0x42;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 6;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), 0);
	ctrl_ref(&c, 1, MLX5_OPCODE_ATOMIC_CS, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ra.raddr = htobe64(0x1000);
	ra.rkey = htobe32(0x42);
	at.swap_add = htobe64(6);
	at.compare = htobe64(5);
	mlx5dv_set_data_seg(&d, 8, 0x77, (uintptr_t)r->data);
	CHECK(!memcmp(sq_bb(r, 1), &c, 16));
	CHECK(!memcmp((char *)sq_bb(r, 1) + 16, &ra, 16));
	CHECK(!memcmp((char *)sq_bb(r, 1) + 32, &at, 16));
	CHECK(!memcmp((char *)sq_bb(r, 1) + 48, &d, 16));

	/* Misaligned atomic: refused, nothing written. */
	wr.wr.atomic.remote_addr = 0x1004;
	r->qp.sq.tail = 2;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	CHECK_EQ(r->qp.sq.cur_post, 2);
	rig_free(r);
}

static void ud_inline_wraps_and_goes_by_blueflame(void)
{
	struct rig *r = rig_new(IBV_QPT_UD);
	struct ibv_sge sge[2] = { { (uintptr_t)r->data, 60, 1 },
				  { (uintptr_t)r->data + 60, 40, 2 } };
	struct ibv_send_wr wr = wr_of(3, IBV_WR_SEND, sge, 2), *bad;
	uint8_t *p, bf[256];
	struct mlx5_wqe_ctrl_seg c;

	if (!uar_stores_land_in_memory()) {
		rig_free(r);
		return;
	}
	r->bf.uuarn = 2;
	r->bf.buf_size = 256;
	/* Start in the last WQEBB: the datagram segment ends at qend. */
	r->qp.sq.cur_post = 3;
	r->qp.sq.head = 7;
	r->qp.sq.tail = 7; /* _Atomic: clang refuses a chained assignment */
	wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.ud.ah = &r->ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x55;
	wr.wr.ud.remote_qkey = 0x11111111;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), 0);
	/* ctrl 1 + av 3 + inline (4 + 100 -> 112 bytes) 7 = 11: 3 WQEBBs. */
	ctrl_ref(&c, 3, MLX5_OPCODE_SEND, 11, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CHECK(!memcmp(sq_bb(r, 3), &c, 16));
	p = (uint8_t *)sq_bb(r, 3) + 16;
	CHECK_EQ(be32toh(((struct m5_av *)p)->dqp_dct), 0x80000055);
	CHECK_EQ(be32toh(((struct m5_av *)p)->key.qkey.qkey), 0x11111111);
	CHECK_EQ(p[12], 0x5a);
	p = sq_bb(r, 0);
	CHECK_EQ(be32toh(*(__be32 *)p), 100 | MLX5_INLINE_SEG);
	CHECK(!memcmp(p + 4, r->data, 100));
	CHECK_EQ(p[104], 0);
	CHECK_EQ(p[111], 0);
	CHECK_EQ(r->qp.sq.cur_post, 6);
	CHECK_EQ(r->sq_head[3], 7);
	/* BlueFlame: the WQE copied whole, its source wrapping at qend. */
	memcpy(bf, sq_bb(r, 3), 64);
	memcpy(bf + 64, sq_bb(r, 0), 128);
	CHECK(!memcmp(r->uar + M5_BF_OFFSET, bf, 192));
	CHECK_EQ(r->bf.offset, 256);

	/* An AH of another context is refused. */
	r->ah.ibv_ah.context = NULL;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), EINVAL);
	rig_free(r);
}

static void refused_wr_posts_the_ones_before(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_sge sge = { (uintptr_t)r->data, 8, 1 };
	struct ibv_send_wr w[3], *bad = NULL;
	int i;

	for (i = 0; i < 3; i++)
		w[i] = wr_of(i, IBV_WR_SEND, &sge, 1);
	w[0].next = &w[1];
	w[1].next = &w[2];
	w[1].num_sge = 5; /* over max_gs: ENOMEM, as libmlx5 */
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &w[0], &bad), ENOMEM);
	CHECK(bad == &w[1]);
	CHECK_EQ(r->qp.sq.cur_post, 1);
	CHECK_EQ(be32toh(r->qp_db[M5_SND_DBR]), 1);
	CHECK_EQ(r->qp.sq.head, 1);

	/* max_post is 2: the third outstanding WR does not fit. */
	w[1].num_sge = 1;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &w[1], &bad), ENOMEM);
	CHECK(bad == &w[2]);
	CHECK_EQ(r->qp.sq.head, 2);

	/* Not yet in RTS since RESET (the gate m5_modify_qp keeps). */
	r->qp.sq.open_gs = 0;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &w[2], &bad), ENOMEM);
	rig_free(r);
}

static void recv_scatter_and_terminator(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_sge sge[2] = { { (uintptr_t)r->data, 0, 1 },
				  { (uintptr_t)r->data, 32, 2 } };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = sge, .num_sge = 2 };
	struct ibv_recv_wr *bad;
	struct mlx5_wqe_data_seg d[2];

	CHECK_EQ(m5_post_recv(&r->qp.vqp.qp, &wr, &bad), 0);
	mlx5dv_set_data_seg(&d[0], 32, 2, (uintptr_t)r->data);
	mlx5dv_set_data_seg(&d[1], 0, MLX5_INVALID_LKEY, 0);
	CHECK(!memcmp(r->qp.rq.buf, d, 32));
	CHECK_EQ(be32toh(r->qp_db[M5_RCV_DBR]), 1);
	CHECK_EQ(r->rq_wrid[0], 7);
	wr.num_sge = 3;
	CHECK_EQ(m5_post_recv(&r->qp.vqp.qp, &wr, &bad), EINVAL);
	rig_free(r);
}

static struct m5_cqe64 *cqe_put(struct rig *r, uint32_t n, uint8_t opcode,
				uint16_t ctr, uint32_t uidx)
{
	struct m5_cqe64 *cqe = (struct m5_cqe64 *)r->cq.buf + (n % NCQE);

	memset(cqe, 0, sizeof(*cqe));
	cqe->srqn_uidx = htobe32(uidx);
	cqe->wqe_counter = htobe16(ctr);
	cqe->op_own = opcode << 4 | !!(n & NCQE);
	return cqe;
}

static void poll_maps_cqes_to_wrs(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_sge sge = { (uintptr_t)r->data, 8, 1 };
	struct ibv_send_wr w[2], *bad;
	struct ibv_recv_wr rw = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct m5_cqe64 *cqe;
	struct ibv_wc wc[4];
	uint32_t uidx = r->qp.rsc.uidx;
	int i;

	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 4, wc), 0);
	for (i = 0; i < 2; i++)
		w[i] = wr_of(10 + i, IBV_WR_RDMA_READ, &sge, 1);
	w[0].send_flags = 0; /* unsignaled: retired by w[1]'s CQE */
	w[0].next = &w[1];
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, w, &bad), 0);
	CHECK_EQ(m5_post_recv(&r->qp.vqp.qp, &rw, &rbad), 0);

	cqe = cqe_put(r, 0, M5_CQE_REQ, 1, uidx);
	cqe->sop_drop_qpn = htobe32(M5_OPCODE_RDMA_READ << 24 | 0x1234);
	cqe->byte_cnt = htobe32(8);
	cqe = cqe_put(r, 1, M5_CQE_RESP_SEND_IMM, 0, uidx);
	cqe->byte_cnt = htobe32(5);
	cqe->imm_inval_pkey = htobe32(0xfeed);
	cqe->flags_rqpn = htobe32(1u << 28 | 3u << 24 | 0x4321);
	cqe->slid = htobe16(0x10);
	cqe_put(r, 2, M5_CQE_REQ, 1, 0x777); /* unknown uidx */
	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 4, wc), 3);
	CHECK_EQ(wc[0].wr_id, 11);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_RDMA_READ);
	CHECK_EQ(wc[0].byte_len, 8);
	CHECK_EQ(wc[0].qp_num, 0x1234);
	CHECK_EQ(r->qp.sq.tail, 2);
	CHECK_EQ(wc[1].wr_id, 77);
	CHECK_EQ(wc[1].opcode, IBV_WC_RECV);
	CHECK_EQ(wc[1].wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(be32toh(wc[1].imm_data), 0xfeed);
	CHECK_EQ(wc[1].src_qp, 0x4321);
	CHECK_EQ(wc[1].sl, 3);
	CHECK_EQ(wc[1].slid, 0x10);
	CHECK_EQ(wc[1].byte_len, 5);
	CHECK_EQ(r->qp.rq.tail, 1);
	CHECK_EQ(wc[2].status, IBV_WC_GENERAL_ERR);
	CHECK_EQ(be32toh(r->cq_db[M5_CQ_SET_CI]), 3);

	/* Past the wrap the owner bit flips: slot 0 now needs owner 1. */
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &w[1], &bad), 0);
	cqe = cqe_put(r, 3, M5_CQE_REQ_ERR, 2, uidx);
	((struct m5_err_cqe *)cqe)->syndrome = M5_SYND_REMOTE_ACCESS_ERR;
	((struct m5_err_cqe *)cqe)->vendor_err_synd = 0x88;
	cqe = cqe_put(r, 4, M5_CQE_REQ, 2, uidx);
	cqe->op_own &= ~1; /* still the last pass's: not ours */
	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 4, wc), 1);
	CHECK_EQ(wc[0].wr_id, 11);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].vendor_err, 0x88);
	/* A counter naming nothing outstanding is the device's error. */
	cqe_put(r, 4, M5_CQE_REQ, 2, uidx);
	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 4, wc), 1);
	CHECK_EQ(wc[0].status, IBV_WC_GENERAL_ERR);
	CHECK_EQ(r->qp.sq.tail, 3);
	CHECK_EQ(be32toh(r->cq_db[M5_CQ_SET_CI]), 5);
	rig_free(r);
}

/*
 * A CQE naming the second WQEBB of a two-WQEBB WQE retires nothing, even
 * when the payload there looks like a control segment of that counter.
 */
static void poll_refuses_a_cqe_naming_a_wqes_second_wqebb(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_sge sge = { (uintptr_t)r->data, 100, 1 };
	struct ibv_send_wr wr = wr_of(42, IBV_WR_SEND, &sge, 1), *bad;
	uint32_t uidx = r->qp.rsc.uidx;
	__be32 fake = htobe32(1u << 8 | M5_OPCODE_SEND);
	struct m5_cqe64 *cqe;
	struct ibv_wc wc;

	/* Inline bytes 44..47 land at WQE offset 64: the second WQEBB. */
	memcpy(r->data + 44, &fake, sizeof(fake));
	wr.send_flags |= IBV_SEND_INLINE;
	CHECK_EQ(m5_post_send(&r->qp.vqp.qp, &wr, &bad), 0);
	CHECK_EQ(r->qp.sq.cur_post, 2);
	CHECK(!memcmp(sq_bb(r, 1), &fake, sizeof(fake)));
	cqe = cqe_put(r, 0, M5_CQE_REQ, 1, uidx);
	cqe->sop_drop_qpn = htobe32(M5_OPCODE_SEND << 24 | 0x1234);
	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 1, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_GENERAL_ERR);
	CHECK_EQ(r->qp.sq.tail, 0);
	/* The WQE's own counter completes it. */
	cqe = cqe_put(r, 1, M5_CQE_REQ, 0, uidx);
	cqe->sop_drop_qpn = htobe32(M5_OPCODE_SEND << 24 | 0x1234);
	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 1, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 42);
	CHECK_EQ(r->qp.sq.tail, 1);
	rig_free(r);
}

static void clean_removes_one_qps_cqes(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	struct ibv_wc wc[4];

	cqe_put(r, 0, M5_CQE_REQ, 0, 0x50)->byte_cnt = htobe32(1);
	cqe_put(r, 1, M5_CQE_REQ, 0, 0x60);
	cqe_put(r, 2, M5_CQE_REQ, 0, 0x50)->byte_cnt = htobe32(2);
	m5_cq_clean(&r->cq, 0x60, NULL);
	CHECK_EQ(r->cq.cons_index, 1);
	CHECK_EQ(be32toh(r->cq_db[M5_CQ_SET_CI]), 1);
	CHECK_EQ(be32toh(((struct m5_cqe64 *)r->cq.buf)[1].byte_cnt), 1);
	CHECK_EQ(be32toh(((struct m5_cqe64 *)r->cq.buf)[2].byte_cnt), 2);
	/* Both left are unknown to this rig: reported, consumed. */
	CHECK_EQ(m5_poll_cq(&r->cq.vcq.cq, 4, wc), 2);
	rig_free(r);
}

static void arm_writes_dbrec_then_uar(void)
{
	struct rig *r = rig_new(IBV_QPT_RC);
	uint64_t v;

	if (!uar_stores_land_in_memory()) {
		rig_free(r);
		return;
	}
	r->cq.cons_index = 0x1000005;
	m5_cq_event(&r->cq.vcq.cq);
	CHECK_EQ(m5_req_notify_cq(&r->cq.vcq.cq, 1), 0);
	CHECK_EQ(be32toh(r->cq_db[M5_CQ_ARM_DB]), 1u << 28 | 1u << 24 | 5);
	memcpy(&v, r->uar + M5_CQ_DOORBELL, 8);
	CHECK_EQ(be64toh(v), (uint64_t)(1u << 28 | 1u << 24 | 5) << 32 | 0x33);
	rig_free(r);
}

int main(int argc, char **argv)
{
	static const struct check_test tests[] = {
		CHECK_TEST(rc_send_encodes_like_mlx5dv),
		CHECK_TEST(rdma_and_atomic_segments),
		CHECK_TEST(ud_inline_wraps_and_goes_by_blueflame),
		CHECK_TEST(refused_wr_posts_the_ones_before),
		CHECK_TEST(recv_scatter_and_terminator),
		CHECK_TEST(poll_maps_cqes_to_wrs),
		CHECK_TEST(poll_refuses_a_cqe_naming_a_wqes_second_wqebb),
		CHECK_TEST(clean_removes_one_qps_cqes),
		CHECK_TEST(arm_writes_dbrec_then_uar),
	};

	return CHECK_MAIN(argc, argv, "unit_mlx5_datapath_", tests);
}
