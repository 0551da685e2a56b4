// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Posting receives into the rxe RQ ring. */
#include <errno.h>
#include <stdint.h>

#include "rxe_fake.h"
#include "check.h"

static void recv_wqe_lists_the_sges_and_total_length(void)
{
	struct fake_qp f;
	struct ibv_sge sge[2] = { { 0x1000, 10, 5 }, { 0x2000, 20, 6 } };
	struct ibv_recv_wr wr = { .wr_id = 77, .sg_list = sge, .num_sge = 2 };
	struct ibv_recv_wr *bad = NULL;
	struct rxe_recv_wqe *w;

	fake_qp_init(&f, IBV_QPT_RC, 2, 0);
	CHECK_EQ(rxe_post_recv(&f.qp.vqp.qp, &wr, &bad), 0);
	w = rxe_ring_slot(&f.qp.rq.ring, 0);
	CHECK_EQ(w->wr_id, 77);
	CHECK_EQ(w->dma.length, 30);
	CHECK_EQ(w->dma.resid, 30);
	CHECK_EQ(w->dma.num_sge, 2);
	CHECK_EQ(w->dma.sge[1].addr, 0x2000);
	CHECK_EQ(w->dma.sge[1].lkey, 6);
	CHECK_EQ(fake_prod(&f.qp.rq.ring), 1);
	fake_qp_free(&f);
}

/*
 * Linux's responder scatters a SEND straight into the RQ slot, resuming at
 * dma.cur_sge/sge_offset with dma.resid bytes left, and completes the
 * receive with length - resid: none of them may keep the slot's old bytes.
 */
static void recv_wqe_scatter_state_starts_at_the_first_byte(void)
{
	struct fake_qp f;
	struct ibv_sge sge[2] = { { 0x1000, 128, 5 }, { 0x2000, 129, 6 } };
	struct ibv_recv_wr wr = { .wr_id = 3, .sg_list = sge, .num_sge = 2 };
	struct ibv_recv_wr *bad = NULL;
	struct rxe_recv_wqe *w;

	fake_qp_init(&f, IBV_QPT_RC, 2, 0);
	w = rxe_ring_slot(&f.qp.rq.ring, 0);
	CHECK_EQ(w->dma.cur_sge, 0xa5a5a5a5); /* a used slot's leftovers */
	CHECK_EQ(rxe_post_recv(&f.qp.vqp.qp, &wr, &bad), 0);
	CHECK_EQ(w->dma.length, 257);
	CHECK_EQ(w->dma.resid, 257);
	CHECK_EQ(w->dma.cur_sge, 0);
	CHECK_EQ(w->dma.sge_offset, 0);
	CHECK_EQ(w->dma.num_sge, 2);
	CHECK_EQ(w->dma.sge[0].length, 128);
	CHECK_EQ(w->dma.sge[1].length, 129);
	fake_qp_free(&f);
}

static void too_many_recv_sges_are_refused_with_bad_wr(void)
{
	struct fake_qp f;
	struct ibv_sge sge[3] = {};
	struct ibv_recv_wr w2 = { .wr_id = 2, .sg_list = sge, .num_sge = 3 };
	struct ibv_recv_wr w1 = {
		.wr_id = 1, .sg_list = sge, .num_sge = 1, .next = &w2
	};
	struct ibv_recv_wr *bad = NULL;

	fake_qp_init(&f, IBV_QPT_RC, 2, 0);
	CHECK_EQ(rxe_post_recv(&f.qp.vqp.qp, &w1, &bad), EINVAL);
	CHECK(bad == &w2);
	CHECK_EQ(fake_prod(&f.qp.rq.ring), 1);
	CHECK(fake_slot_untouched(&f.qp.rq.ring, 1));
	fake_qp_free(&f);
}

static void a_full_rq_returns_ENOMEM(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { 0x1000, 8, 1 };
	struct ibv_recv_wr w[9], *bad = NULL;
	int i;

	fake_qp_init(&f, IBV_QPT_RC, 2, 0);
	for (i = 0; i < 9; i++) {
		w[i] = (struct ibv_recv_wr){ .wr_id = i,
					     .sg_list = &sge,
					     .num_sge = 1 };
		w[i].next = i < 8 ? &w[i + 1] : NULL;
	}
	CHECK_EQ(rxe_post_recv(&f.qp.vqp.qp, w, &bad), ENOMEM);
	CHECK(bad == &w[7]);
	CHECK_EQ(fake_prod(&f.qp.rq.ring), 7);
	fake_qp_free(&f);
}

static void receives_on_a_reset_qp_are_refused(void)
{
	struct fake_qp f;
	struct ibv_sge sge = { 0x1000, 8, 1 };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	fake_qp_init(&f, IBV_QPT_RC, 2, 0);
	f.qp.vqp.qp.state = IBV_QPS_RESET;
	CHECK_EQ(rxe_post_recv(&f.qp.vqp.qp, &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	CHECK(fake_slot_untouched(&f.qp.rq.ring, 0));
	f.qp.vqp.qp.state = IBV_QPS_INIT;
	CHECK_EQ(rxe_post_recv(&f.qp.vqp.qp, &wr, &bad), 0);
	fake_qp_free(&f);
}

static const struct check_test tests[] = {
	CHECK_TEST(recv_wqe_lists_the_sges_and_total_length),
	CHECK_TEST(recv_wqe_scatter_state_starts_at_the_first_byte),
	CHECK_TEST(too_many_recv_sges_are_refused_with_bad_wr),
	CHECK_TEST(a_full_rq_returns_ENOMEM),
	CHECK_TEST(receives_on_a_reset_qp_are_refused),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_recv_", tests);
}
