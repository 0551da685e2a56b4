// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Polling the rxe CQ ring: translation, indices, and what we never trust. */
#include <errno.h>
#include <stdint.h>

#include "rxe_fake.h"
#include "check.h"

struct fake_cq {
	struct rxe_cq cq;
	uint32_t kprod;
};

static void fake_cq_init(struct fake_cq *f)
{
	memset(f, 0, sizeof(*f));
	fake_ring_init(&f->cq.ring, 3, 7);
	db_lock_init(&f->cq.lock, true);
}

/* The kernel side: write a CQE and publish it. */
static void kernel_post(struct fake_cq *f, uint64_t wr_id, uint32_t opcode,
			uint32_t kflags)
{
	struct ib_uverbs_wc *c = rxe_ring_slot(&f->cq.ring, f->kprod);

	memset(c, 0, sizeof(*c));
	c->wr_id = wr_id;
	c->opcode = opcode;
	c->wc_flags = kflags;
	c->byte_len = 100 + (uint32_t)wr_id;
	c->qp_num = 0x33;
	f->kprod = (f->kprod + 1) & f->cq.ring.mask;
	f->cq.ring.buf->producer_index = f->kprod;
}

static void completions_come_out_in_order_and_once(void)
{
	struct fake_cq f;
	struct ibv_wc wc[4];
	int i, round, n, seen = 0;

	fake_cq_init(&f);
	/* 40 completions through an 8-slot ring: five wraps. */
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 4; i++)
			kernel_post(&f, round * 4 + i, IBV_WC_SEND, 0);
		n = rxe_poll_cq(&f.cq.vcq.cq, 3, wc);
		CHECK_EQ(n, 3);
		n += rxe_poll_cq(&f.cq.vcq.cq, 4, wc + 3);
		CHECK_EQ(n, 4);
		for (i = 0; i < n; i++) {
			CHECK_EQ(wc[i].wr_id, (uint64_t)seen);
			CHECK_EQ(wc[i].byte_len, 100 + seen);
			seen++;
		}
		CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, 4, wc), 0);
		CHECK_EQ(f.cq.ring.buf->consumer_index, f.kprod);
	}
	CHECK_EQ(seen, 40);
	fake_ring_free(&f.cq.ring);
}

static void kernel_invalidate_bit_becomes_ibv_wc_with_inv(void)
{
	struct fake_cq f;
	struct ibv_wc wc;

	fake_cq_init(&f);
	/* rxe sets IB_WC_GRH and IB_WC_WITH_INVALIDATE (bit 2) on receives. */
	kernel_post(&f, 1, IBV_WC_RECV, RXE_KWC_GRH | RXE_KWC_WITH_INVALIDATE);
	CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, 1, &wc), 1);
	CHECK_EQ(wc.wc_flags, IBV_WC_GRH | IBV_WC_WITH_INV);
	CHECK(!(wc.wc_flags & IBV_WC_IP_CSUM_OK));
	kernel_post(&f, 2, IBV_WC_RECV_RDMA_WITH_IMM, RXE_KWC_WITH_IMM);
	CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, 1, &wc), 1);
	CHECK_EQ(wc.wc_flags, IBV_WC_WITH_IMM);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	fake_ring_free(&f.cq.ring);
}

static void a_wild_producer_index_is_masked_into_the_ring(void)
{
	struct fake_cq f;
	struct ibv_wc wc[16];

	fake_cq_init(&f);
	kernel_post(&f, 1, IBV_WC_SEND, 0);
	/* Garbage in the high bits must not walk us out of the ring. */
	f.cq.ring.buf->producer_index = 0xffff0001;
	CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, 16, wc), 1);
	CHECK_EQ(f.cq.ring.buf->consumer_index, 1);
	fake_ring_free(&f.cq.ring);
}

static void polling_zero_or_negative_entries_consumes_nothing(void)
{
	struct fake_cq f;
	struct ibv_wc wc;

	fake_cq_init(&f);
	kernel_post(&f, 1, IBV_WC_SEND, 0);
	CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, 0, &wc), 0);
	CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, -1, &wc), 0);
	CHECK_EQ(f.cq.ring.buf->consumer_index, 0);
	fake_ring_free(&f.cq.ring);
}

static void a_cq_that_lost_its_ring_reports_an_error(void)
{
	struct ibv_context ctx = { .cmd_fd = -1 };
	struct fake_cq f;
	struct ibv_wc wc;

	fake_cq_init(&f);
	/* A resize left a ring that cannot be mapped (here: a bad fd). */
	f.cq.vcq.cq.context = &ctx;
	f.cq.broken = true;
	f.cq.lost_mi.size = 4096;
	CHECK_EQ(rxe_poll_cq(&f.cq.vcq.cq, 1, &wc), -EIO);
	CHECK(f.cq.broken);
	fake_ring_free(&f.cq.ring);
}

static void ring_geometry_from_the_kernel_is_checked(void)
{
	size_t len = 384 + 8 * 128;

	CHECK_EQ(rxe_ring_check(7, 7, len, 48), 0);
	CHECK_EQ(rxe_ring_check(7, 15, len, 48), EPROTO); /* too many slots */
	CHECK_EQ(rxe_ring_check(7, 6, len, 48), EPROTO);  /* not 2^n - 1 */
	CHECK_EQ(rxe_ring_check(5, 7, len, 16), EPROTO);  /* under a line */
	CHECK_EQ(rxe_ring_check(7, 7, len, 256), EPROTO); /* slot too small */
	CHECK_EQ(rxe_ring_check(40, 7, len, 48), EPROTO);
	CHECK_EQ(rxe_ring_check(7, 0, len, 48), 0); /* one slot: no room */
	CHECK_EQ(rxe_ring_check(7, 7, 100, 48), EPROTO);
}

static const struct check_test tests[] = {
	CHECK_TEST(completions_come_out_in_order_and_once),
	CHECK_TEST(kernel_invalidate_bit_becomes_ibv_wc_with_inv),
	CHECK_TEST(a_wild_producer_index_is_masked_into_the_ring),
	CHECK_TEST(polling_zero_or_negative_entries_consumes_nothing),
	CHECK_TEST(a_cq_that_lost_its_ring_reports_an_error),
	CHECK_TEST(ring_geometry_from_the_kernel_is_checked),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cq_", tests);
}
