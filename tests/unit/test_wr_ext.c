// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA ATOMIC WRITE and FLUSH on the rxe backend, without a device: which
 * send_ops_flags the device caps allow, the WQEs the two ibv_wr_* builders
 * write, their refusals, and where in ibv_qp_ex each libibverbs release
 * gets the builders.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rxe_fake.h"

#define ALL_CAPS                                                               \
	(RXE_DEV_ATOMIC_WRITE | RXE_DEV_FLUSH_GLOBAL | RXE_DEV_FLUSH_PERSISTENT)

typedef void flush_fn(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
		      size_t len, uint8_t type, uint8_t level);

static void send_ops_flags_follow_the_device_caps(void)
{
	uint64_t rc0 = rxe_send_ops_flags_ok(IBV_QPT_RC, 0);
	uint64_t rc = rxe_send_ops_flags_ok(IBV_QPT_RC, ALL_CAPS);

	/* Linux 6.1: neither; nothing else changes with the caps. */
	CHECK_EQ(rc0 & (RXE_QP_EX_WITH_FLUSH | RXE_QP_EX_WITH_ATOMIC_WRITE), 0);
	CHECK_EQ(rc, rc0 | RXE_QP_EX_WITH_FLUSH | RXE_QP_EX_WITH_ATOMIC_WRITE);
	CHECK_EQ(rc0 & IBV_QP_EX_WITH_TSO, 0);
	CHECK(rc0 & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	CHECK_EQ(rxe_send_ops_flags_ok(IBV_QPT_RC, RXE_DEV_ATOMIC_WRITE),
		 rc0 | RXE_QP_EX_WITH_ATOMIC_WRITE);
	/* Either placement type is enough for the opcode. */
	CHECK_EQ(rxe_send_ops_flags_ok(IBV_QPT_RC, RXE_DEV_FLUSH_GLOBAL),
		 rc0 | RXE_QP_EX_WITH_FLUSH);
	CHECK_EQ(rxe_send_ops_flags_ok(IBV_QPT_RC, RXE_DEV_FLUSH_PERSISTENT),
		 rc0 | RXE_QP_EX_WITH_FLUSH);
	/* rxe runs them on RC only. */
	CHECK_EQ(rxe_send_ops_flags_ok(IBV_QPT_UC, ALL_CAPS),
		 rxe_send_ops_flags_ok(IBV_QPT_UC, 0));
	CHECK_EQ(
		rxe_send_ops_flags_ok(IBV_QPT_UD, ALL_CAPS),
		(uint64_t)(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM));
}

static void enabled_ops_need_the_flag_and_the_cap(void)
{
	uint64_t both = RXE_QP_EX_WITH_FLUSH | RXE_QP_EX_WITH_ATOMIC_WRITE;

	CHECK_EQ(rxe_wr_ext_ops(IBV_QPT_RC, ALL_CAPS, both),
		 (1u << RXE_WR_FLUSH) | (1u << RXE_WR_ATOMIC_WRITE));
	CHECK_EQ(rxe_wr_ext_ops(IBV_QPT_RC, ALL_CAPS, IBV_QP_EX_WITH_SEND), 0);
	CHECK_EQ(rxe_wr_ext_ops(IBV_QPT_RC, 0, both), 0);
	CHECK_EQ(rxe_wr_ext_ops(IBV_QPT_RC, RXE_DEV_ATOMIC_WRITE, both),
		 1u << RXE_WR_ATOMIC_WRITE);
	CHECK_EQ(rxe_wr_ext_ops(IBV_QPT_UC, ALL_CAPS, both), 0);
}

/* A fake RC QP with the ibv_wr_* API as libibverbs @major lays it out. */
static const struct db_epoch *saved;

static void wr_qp(struct fake_qp *f, int major, uint32_t ext)
{
	saved = db_lib.epoch;
	db_lib.epoch = db_epoch_of(major);
	fake_qp_init(f, IBV_QPT_RC, 2, 64);
	f->qp.wr_ext_ops = ext;
	rxe_qp_set_wr_ops(&f->qp);
}

static void wr_qp_free(struct fake_qp *f)
{
	fake_qp_free(f);
	db_lib.epoch = saved;
}

static flush_fn *qpx_flush(struct ibv_qp_ex *qpx)
{
	flush_fn *fn;

	memcpy(&fn, (char *)qpx + DB_QPX_WR_FLUSH_OFF, sizeof(fn));
	return fn;
}

static void atomic_write_wqe_carries_the_8_bytes(void)
{
	static const uint8_t val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ibv_qp_ex *qpx;
	struct rxe_send_wqe *w;
	struct fake_qp f;

	wr_qp(&f, 65, 1u << RXE_WR_ATOMIC_WRITE);
	qpx = &f.qp.vqp.qp_ex;
	qpx->wr_start(qpx);
	qpx->wr_id = 77;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	qpx->wr_atomic_write(qpx, 0x1234, 0x10008, val);
	CHECK_EQ(qpx->wr_complete(qpx), 0);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 1);
	w = rxe_ring_slot(&f.qp.sq.ring, 0);
	CHECK_EQ(w->wr.wr_id, 77);
	CHECK_EQ(w->wr.opcode, RXE_WR_ATOMIC_WRITE);
	CHECK_EQ(w->wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(w->wr.wr.rdma.remote_addr, 0x10008);
	CHECK_EQ(w->wr.wr.rdma.rkey, 0x1234);
	CHECK_EQ(w->iova, 0x10008);
	CHECK_EQ(w->dma.length, 8);
	CHECK_EQ(w->dma.resid, 8);
	CHECK_EQ(w->dma.num_sge, 0);
	CHECK_EQ(memcmp(w->dma.atomic_wr, val, 8), 0);
	CHECK_EQ(w->status, 0);
	wr_qp_free(&f);
}

static void flush_wqe_carries_type_level_and_length(void)
{
	struct ibv_qp_ex *qpx;
	struct rxe_send_wqe *w;
	struct fake_qp f;
	flush_fn *flush;

	wr_qp(&f, 65, 1u << RXE_WR_FLUSH);
	qpx = &f.qp.vqp.qp_ex;
	flush = qpx_flush(qpx);
	CHECK(flush != NULL);
	qpx->wr_start(qpx);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	flush(qpx, 0xabc, 0x2000, 12345, RXE_FLUSH_GLOBAL, RXE_FLUSH_RANGE);
	qpx->wr_id = 6;
	flush(qpx, 0xabc, 0x2000, 0, RXE_FLUSH_GLOBAL | RXE_FLUSH_PERSISTENT,
	      RXE_FLUSH_MR);
	CHECK_EQ(qpx->wr_complete(qpx), 0);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 2);
	w = rxe_ring_slot(&f.qp.sq.ring, 0);
	CHECK_EQ(w->wr.opcode, RXE_WR_FLUSH);
	CHECK_EQ(w->wr.wr_id, 5);
	CHECK_EQ(w->wr.wr.flush.remote_addr, 0x2000);
	CHECK_EQ(w->wr.wr.flush.rkey, 0xabc);
	CHECK_EQ(w->wr.wr.flush.length, 12345);
	CHECK_EQ(w->wr.wr.flush.type, RXE_FLUSH_GLOBAL);
	CHECK_EQ(w->wr.wr.flush.level, RXE_FLUSH_RANGE);
	CHECK_EQ(w->iova, 0x2000);
	CHECK_EQ(w->dma.length, 12345);
	CHECK_EQ(w->dma.resid, 12345);
	CHECK_EQ(w->dma.num_sge, 0);
	w = rxe_ring_slot(&f.qp.sq.ring, 1);
	CHECK_EQ(w->wr.wr_id, 6);
	CHECK_EQ(w->wr.wr.flush.type, RXE_FLUSH_GLOBAL | RXE_FLUSH_PERSISTENT);
	CHECK_EQ(w->wr.wr.flush.level, RXE_FLUSH_MR);
	CHECK_EQ(w->dma.length, 0);
	wr_qp_free(&f);
}

/* One bad builder call: wr_complete returns @err and posts nothing. */
static void expect_refused(struct fake_qp *f, int err)
{
	CHECK_EQ(f->qp.vqp.qp_ex.wr_complete(&f->qp.vqp.qp_ex), err);
	CHECK_EQ(fake_prod(&f->qp.sq.ring), 0);
	CHECK(fake_slot_untouched(&f->qp.sq.ring, 1));
}

static void refusals_post_nothing(void)
{
	static const uint64_t val = 1;
	struct ibv_qp_ex *qpx;
	struct fake_qp f;
	flush_fn *flush;

	/* A QP created without the send_ops_flags (or on Linux 6.1). */
	wr_qp(&f, 65, 0);
	qpx = &f.qp.vqp.qp_ex;
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_sge(qpx, 1, 0x1000, 8);
	qpx->wr_atomic_write(qpx, 1, 0x1000, &val);
	expect_refused(&f, EOPNOTSUPP);
	qpx->wr_start(qpx);
	qpx_flush(qpx)(qpx, 1, 0x1000, 8, RXE_FLUSH_GLOBAL, RXE_FLUSH_RANGE);
	expect_refused(&f, EOPNOTSUPP);
	wr_qp_free(&f);

	wr_qp(&f, 65, 1u << RXE_WR_FLUSH | 1u << RXE_WR_ATOMIC_WRITE);
	qpx = &f.qp.vqp.qp_ex;
	flush = qpx_flush(qpx);
	qpx->wr_start(qpx);
	flush(qpx, 1, 0x1000, 8, 0, RXE_FLUSH_RANGE); /* no type */
	expect_refused(&f, EINVAL);
	qpx->wr_start(qpx);
	flush(qpx, 1, 0x1000, 8, 4, RXE_FLUSH_RANGE); /* unknown type */
	expect_refused(&f, EINVAL);
	qpx->wr_start(qpx);
	flush(qpx, 1, 0x1000, 8, RXE_FLUSH_GLOBAL, 2); /* unknown level */
	expect_refused(&f, EINVAL);
	qpx->wr_start(qpx);
	flush(qpx, 1, 0x1000, RXE_MAX_MSG + 1, RXE_FLUSH_GLOBAL,
	      RXE_FLUSH_RANGE);
	expect_refused(&f, EINVAL);
	qpx->wr_start(qpx);
	qpx->wr_atomic_write(qpx, 1, 0x1000, NULL);
	expect_refused(&f, EINVAL);
	wr_qp_free(&f);
}

/* Bytes 344..359 of the QP as rxe_qp_set_wr_ops leaves them. */
static void slots_after_set_wr_ops(int major, uint8_t out[16])
{
	struct fake_qp f;

	saved = db_lib.epoch;
	db_lib.epoch = db_epoch_of(major);
	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	memset((char *)&f.qp.vqp + DB_QPX_WR_ATOMIC_WRITE_OFF, 0xee, 16);
	rxe_qp_set_wr_ops(&f.qp);
	memcpy(out, (char *)&f.qp.vqp + DB_QPX_WR_ATOMIC_WRITE_OFF, 16);
	fake_qp_free(&f);
	db_lib.epoch = saved;
}

static bool all_ee(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++ != 0xee)
			return false;
	return true;
}

static void builders_go_only_where_the_release_has_the_member(void)
{
	uint8_t b[16];

	/* 43: verbs_qp.comp_mask and .xrcd live there, libibverbs' own. */
	slots_after_set_wr_ops(43, b);
	CHECK(all_ee(b, 16));
	/* 44: wr_atomic_write only; 352 is comp_mask. */
	slots_after_set_wr_ops(44, b);
	CHECK(!all_ee(b, 8));
	CHECK(all_ee(b + 8, 8));
	/* 45 and later: both. */
	slots_after_set_wr_ops(45, b);
	CHECK(!all_ee(b, 8));
	CHECK(!all_ee(b + 8, 8));
	slots_after_set_wr_ops(65, b);
	CHECK(!all_ee(b + 8, 8));
}

static const struct check_test tests[] = {
	CHECK_TEST(send_ops_flags_follow_the_device_caps),
	CHECK_TEST(enabled_ops_need_the_flag_and_the_cap),
	CHECK_TEST(atomic_write_wqe_carries_the_8_bytes),
	CHECK_TEST(flush_wqe_carries_type_level_and_length),
	CHECK_TEST(refusals_post_nothing),
	CHECK_TEST(builders_go_only_where_the_release_has_the_member),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_wr_ext_", tests);
}
