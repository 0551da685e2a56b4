// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rxe backend's two send APIs give one answer for one WR: each bad WR
 * of the bad-input matrix's ibv_wr_* rows (tests/guest/itest/bad_matrix.c,
 * wr_send_*) is posted through ibv_post_send and described through the
 * ibv_wr_* builders and setters, on a ring in ordinary memory; both must
 * refuse it with the same errno and publish nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rxe_fake.h"

static uint8_t buf[4096];

/* The WR described through ibv_wr_*: its opcode, address and data. */
static int wr_api(struct fake_qp *f, const struct ibv_send_wr *wr)
{
	struct ibv_qp_ex *qpx = &f->qp.vqp.qp_ex;
	struct ibv_data_buf inl[8];
	int i;

	qpx->wr_start(qpx);
	qpx->wr_id = wr->wr_id;
	qpx->wr_flags = wr->send_flags;
	switch (wr->opcode) {
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		qpx->wr_atomic_fetch_add(qpx, wr->wr.atomic.rkey,
					 wr->wr.atomic.remote_addr,
					 wr->wr.atomic.compare_add);
		break;
	default:
		qpx->wr_send(qpx);
		break;
	}
	if (f->qp.vqp.qp.qp_type == IBV_QPT_UD)
		qpx->wr_set_ud_addr(qpx, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				    wr->wr.ud.remote_qkey);
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++)
			inl[i] = (struct ibv_data_buf){
				.addr = (void *)(uintptr_t)wr->sg_list[i].addr,
				.length = wr->sg_list[i].length
			};
		qpx->wr_set_inline_data_list(qpx, wr->num_sge, inl);
	} else {
		qpx->wr_set_sge_list(qpx, wr->num_sge, wr->sg_list);
	}
	return qpx->wr_complete(qpx);
}

/* The same errno from both APIs, and nothing published by either. */
static void both_refuse(enum ibv_qp_type type, struct ibv_send_wr *wr, int err)
{
	const struct db_epoch *saved = db_lib.epoch;
	struct ibv_send_wr *bad = NULL;
	struct fake_qp f;

	/* ibv_qp_ex as the libibverbs of rdma-core 44 lays it out. */
	db_lib.epoch = db_epoch_of(44);
	fake_qp_init(&f, type, 2, 64);
	rxe_qp_set_wr_ops(&f.qp);
	if (type == IBV_QPT_UD)
		wr->wr.ud.ah->context = &f.ctx;
	CHECK_EQ(rxe_post_send(&f.qp.vqp.qp, wr, &bad), err);
	CHECK(bad == wr);
	CHECK_EQ(wr_api(&f, wr), err);
	CHECK_EQ(fake_prod(&f.qp.sq.ring), 0);
	fake_qp_free(&f);
	db_lib.epoch = saved;
}

static struct ibv_send_wr send_wr(struct ibv_sge *sge, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)buf, 8, 1 };
	return (struct ibv_send_wr){ .wr_id = 1,
				     .sg_list = sge,
				     .num_sge = n,
				     .opcode = IBV_WR_SEND,
				     .send_flags = IBV_SEND_SIGNALED };
}

static void sges_above_2GiB_refused_by_both_apis(void)
{
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = send_wr(sge, 2);

	sge[0].length = 0x80000000u;
	sge[1].length = 1;
	both_refuse(IBV_QPT_RC, &wr, EINVAL);
}

static void ud_ah_of_other_pd_refused_by_both_apis(void)
{
	struct ibv_pd other = { .handle = 2 };
	struct rxe_ah ah = { .ah_num = 7 };
	struct ibv_sge sge[1];
	struct ibv_send_wr wr = send_wr(sge, 1);

	ah.ibv_ah.pd = &other;
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x11;
	both_refuse(IBV_QPT_UD, &wr, EINVAL);
}

static void sges_above_max_refused_by_both_apis(void)
{
	struct ibv_sge sge[3];
	struct ibv_send_wr wr = send_wr(sge, 3);

	both_refuse(IBV_QPT_RC, &wr, EINVAL);
}

static void inline_above_max_refused_by_both_apis(void)
{
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = send_wr(sge, 2);

	/* 65 bytes in two buffers, max_inline 64. */
	sge[0].length = 32;
	sge[1].length = 33;
	wr.send_flags |= IBV_SEND_INLINE;
	both_refuse(IBV_QPT_RC, &wr, EINVAL);
}

static void atomic_of_4_bytes_refused_by_both_apis(void)
{
	struct ibv_sge sge[1];
	struct ibv_send_wr wr = send_wr(sge, 1);

	sge[0].length = 4;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x1000;
	wr.wr.atomic.rkey = 5;
	both_refuse(IBV_QPT_RC, &wr, EINVAL);
}

static void atomic_without_result_buffer_refused_by_both_apis(void)
{
	struct ibv_sge sge[1];
	struct ibv_send_wr wr = send_wr(sge, 0);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x1000;
	both_refuse(IBV_QPT_RC, &wr, EINVAL);
}

static const struct check_test tests[] = {
	CHECK_TEST(sges_above_2GiB_refused_by_both_apis),
	CHECK_TEST(ud_ah_of_other_pd_refused_by_both_apis),
	CHECK_TEST(sges_above_max_refused_by_both_apis),
	CHECK_TEST(inline_above_max_refused_by_both_apis),
	CHECK_TEST(atomic_of_4_bytes_refused_by_both_apis),
	CHECK_TEST(atomic_without_result_buffer_refused_by_both_apis),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_wr_checks_", tests);
}
