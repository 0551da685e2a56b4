// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_resize_cq on the mlx5 backend over the software ConnectX, whose fake
 * kernel plays mlx5_ib_resize_cq and whose device ends the old ring with a
 * RESIZE CQE and goes on in the new one (device/m5m_cq.c, m5m_cq_resize):
 * an empty CQ; CQEs not yet polled, which must all come out of the new
 * ring once each and in order, over many wraps of both rings; a ring too
 * small for them (EINVAL, nothing changed); bad sizes; and devices that
 * break the protocol (no RESIZE CQE, or another opcode in its place),
 * which must end in EIO at once, not a loop or an overrun.
 *
 * The completions are those of signalled RDMA WRITEs from QP a to QP b,
 * on a's CQ only, each with its sequence number as wr_id.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"

#define BUF 4096

struct rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq, *bcq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t posted, polled; /* wr_ids: the next to post, to poll */
	bool lenient;		 /* the model's checks may fail */
};

static int rig_up(struct rig *r, int cqe, bool single_threaded)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = cqe,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = single_threaded ? IBV_CREATE_CQ_ATTR_SINGLE_THREADED
					 : 0,
	};
	struct m5m_config cfg;
	struct ibv_cq_ex *cq;

	*r = (struct rig){ 0 };
	m5m_config_default(&cfg);
	r->dev = m5m_dev_create(&cfg);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	r->pd = r->ctx ? ibv_alloc_pd(r->ctx) : NULL;
	if (!r->pd)
		return -1;
	cq = ibv_create_cq_ex(r->ctx, &ca);
	r->cq = cq ? ibv_cq_ex_to_cq(cq) : NULL;
	r->bcq = ibv_create_cq(r->ctx, 16, NULL, NULL, 0);
	r->buf = aligned_alloc(4096, BUF);
	if (!r->cq || !r->bcq || !r->buf)
		return -1;
	r->mr = ibv_reg_mr(r->pd, r->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	r->a = m5t_rc_qp(r->pd, r->cq, NULL, 256, 1);
	r->b = m5t_rc_qp(r->pd, r->bcq, NULL, 16, 1);
	if (!r->mr || !r->a || !r->b)
		return -1;
	return m5t_rc_pair(r->dev, r->a, r->b, 7);
}

static void rig_down(struct rig *r)
{
	if (r->a)
		ibv_destroy_qp(r->a);
	if (r->b)
		ibv_destroy_qp(r->b);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->cq)
		CHECK_EQ(ibv_destroy_cq(r->cq), 0);
	if (r->bcq)
		ibv_destroy_cq(r->bcq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	if (r->dev) {
		if (!r->lenient)
			CHECK_EQ(m5m_violations(r->dev), 0);
		m5m_dev_destroy(r->dev);
	}
	free(r->buf);
}

/* n signalled 8-byte RDMA WRITEs, one post each: n CQEs on r->cq. */
static void post_writes(struct rig *r, unsigned int n)
{
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf,
			       .length = 8,
			       .lkey = r->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)r->buf + 64,
			     .rkey = r->mr->rkey },
	};
	struct ibv_send_wr *bad;

	while (n--) {
		wr.wr_id = r->posted++;
		CHECK_EQ(ibv_post_send(r->a, &wr, &bad), 0);
	}
}

/*
 * Poll n completions, a few at a time: each must be the next wr_id, a
 * success; false at the first that is not (one CHECK says which).
 */
static bool poll_in_order(struct rig *r, unsigned int n)
{
	struct ibv_wc wc[3];
	int i, got;

	while (n) {
		got = ibv_poll_cq(r->cq, n < 3 ? (int)n : 3, wc);
		if (got <= 0) {
			CHECK_EQ(got, 1); /* a completion is missing */
			return false;
		}
		for (i = 0; i < got; i++) {
			if (wc[i].wr_id != r->polled ||
			    wc[i].status != IBV_WC_SUCCESS) {
				CHECK_EQ(wc[i].wr_id, r->polled);
				CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
				return false;
			}
			r->polled++;
		}
		n -= (unsigned int)got;
	}
	return true;
}

/* Nothing more to poll: no completion duplicated or left over. */
static void check_empty(struct rig *r)
{
	struct ibv_wc wc;

	CHECK_EQ(ibv_poll_cq(r->cq, 1, &wc), 0);
}

static uint32_t model_ncqe(struct rig *r)
{
	struct m5m_cq_info ci;

	return m5m_cq_info(r->dev, r->cq, &ci) ? 0 : ci.ncqe;
}

static uint64_t resizes(struct rig *r)
{
	struct m5m_stats st;

	m5m_get_stats(r->dev, &st);
	return st.cq_resizes;
}

static void resize_of_an_empty_cq_grows_and_shrinks_it(void)
{
	struct rig r;

	if (rig_up(&r, 3, false)) {
		CHECK(!"rig");
		goto out;
	}
	CHECK_EQ(r.cq->cqe, 3);
	CHECK_EQ(ibv_resize_cq(r.cq, 100), 0);
	CHECK_EQ(r.cq->cqe, 127);
	CHECK_EQ(model_ncqe(&r), 128);
	CHECK_EQ(resizes(&r), 1);
	/* The size it has: nothing to do, no command (as libmlx5). */
	CHECK_EQ(ibv_resize_cq(r.cq, 127), 0);
	CHECK_EQ(ibv_resize_cq(r.cq, 64), 0);
	CHECK_EQ(resizes(&r), 1);
	post_writes(&r, 100);
	CHECK(poll_in_order(&r, 100));
	CHECK_EQ(ibv_resize_cq(r.cq, 1), 0);
	CHECK_EQ(r.cq->cqe, 1);
	CHECK_EQ(model_ncqe(&r), 2);
	CHECK_EQ(resizes(&r), 2);
	post_writes(&r, 2);
	CHECK(poll_in_order(&r, 2));
	check_empty(&r);
out:
	rig_down(&r);
}

static uint32_t ring_of(int cqe)
{
	uint32_t n = 1;

	while (n < (uint32_t)cqe + 1)
		n <<= 1;
	return n;
}

/*
 * Rounds of: post some (the ring full now and then), poll all but a few,
 * resize with those few unpolled (to any size that holds them and the
 * RESIZE CQE), post more into the new ring, then poll them all: every
 * wr_id must come once, in order.  The free-running counters wrap the
 * small rings hundreds of times, before and after the resizes.
 */
static void unpolled_cqes_come_out_once_in_order(bool single)
{
	static const int sizes[] = { 3, 15, 7, 1, 31, 3, 63, 7, 15, 2, 255 };
	unsigned int round, j = 0, cap, post, left, more;
	struct rig r;
	int want;

	if (rig_up(&r, 3, single)) {
		CHECK(!"rig");
		goto out;
	}
	for (round = 0; round < 500 && !check_failed; round++) {
		cap = (unsigned int)r.cq->cqe + 1;
		post = round % 5 == 0 ? cap : 1 + round * 7 % cap;
		post_writes(&r, post);
		/* At most 63: some ring other than this one holds them. */
		left = round * 3 % (post < cap ? post + 1 : cap) % 64;
		CHECK(poll_in_order(&r, post - left));
		do
			want = sizes[j++ % 11];
		while (ring_of(want) < left + 1 || ring_of(want) == cap);
		CHECK_EQ(ibv_resize_cq(r.cq, want), 0);
		CHECK_EQ(r.cq->cqe, (int)ring_of(want) - 1);
		CHECK_EQ(model_ncqe(&r), ring_of(want));
		more = round % (ring_of(want) - left + 1);
		post_writes(&r, more);
		CHECK(poll_in_order(&r, left + more));
		check_empty(&r);
	}
	CHECK_EQ(resizes(&r), 500);
	CHECK(r.polled > 5000);
out:
	rig_down(&r);
}

static void unpolled_cqes_come_out_once_in_order_across_wraps(void)
{
	unpolled_cqes_come_out_once_in_order(false);
}

static void single_threaded_cq_resizes_the_same(void)
{
	unpolled_cqes_come_out_once_in_order(true);
}

/*
 * Unpolled CQEs that fill the new ring but for the slot the RESIZE CQE
 * freed: the device has room for exactly one more (the consumer index the
 * provider reports counts the RESIZE CQE as consumed), and all come out.
 */
static void resize_to_a_ring_the_unpolled_cqes_fill(void)
{
	struct rig r;
	struct m5m_cq_info ci;

	if (rig_up(&r, 15, false)) {
		CHECK(!"rig");
		goto out;
	}
	post_writes(&r, 9);
	CHECK(poll_in_order(&r, 2));
	CHECK_EQ(ibv_resize_cq(r.cq, 7), 0); /* 8 slots, 7 unpolled */
	CHECK_EQ(r.cq->cqe, 7);
	post_writes(&r, 1);
	CHECK(!m5m_cq_info(r.dev, r.cq, &ci) && !ci.overrun);
	CHECK(poll_in_order(&r, 8));
	check_empty(&r);
out:
	rig_down(&r);
}

/*
 * More unpolled CQEs than the new ring holds: the kernel's EINVAL
 * (MODIFY_CQ's BAD_PARAM), and the CQ as it was, every CQE still there.
 */
static void resize_below_the_unpolled_cqes_is_EINVAL_and_changes_nothing(void)
{
	struct rig r;

	if (rig_up(&r, 15, false)) {
		CHECK(!"rig");
		goto out;
	}
	post_writes(&r, 9);
	CHECK(poll_in_order(&r, 1));
	CHECK_EQ(ibv_resize_cq(r.cq, 3), EINVAL); /* 8 unpolled, 4 slots */
	CHECK_EQ(ibv_resize_cq(r.cq, 7), EINVAL); /* 8 slots: none for RESIZE */
	CHECK_EQ(r.cq->cqe, 15);
	CHECK_EQ(model_ncqe(&r), 16);
	CHECK_EQ(resizes(&r), 0);
	post_writes(&r, 3);
	CHECK(poll_in_order(&r, 11));
	check_empty(&r);
	CHECK_EQ(ibv_resize_cq(r.cq, 3), 0);
	CHECK_EQ(r.cq->cqe, 3);
out:
	rig_down(&r);
}

/* cqe 0, negative, past max_cqe, INT_MAX: EINVAL, no command, no change. */
static void resize_to_a_bad_size_is_EINVAL_and_changes_nothing(void)
{
	struct ibv_device_attr attr;
	struct rig r;

	if (rig_up(&r, 7, false) || ibv_query_device(r.ctx, &attr)) {
		CHECK(!"rig");
		goto out;
	}
	post_writes(&r, 2);
	CHECK_EQ(ibv_resize_cq(r.cq, 0), EINVAL);
	CHECK_EQ(ibv_resize_cq(r.cq, -1), EINVAL);
	CHECK_EQ(ibv_resize_cq(r.cq, attr.max_cqe + 1), EINVAL);
	CHECK_EQ(ibv_resize_cq(r.cq, INT_MAX), EINVAL);
	CHECK_EQ(r.cq->cqe, 7);
	CHECK_EQ(model_ncqe(&r), 8);
	CHECK_EQ(resizes(&r), 0);
	CHECK(poll_in_order(&r, 2));
	check_empty(&r);
out:
	rig_down(&r);
}

/*
 * A device that moves the CQ without the RESIZE CQE: EIO at once (the
 * walk stops at the first CQE hardware owns), the CQ on its new ring.
 */
static void a_missing_resize_cqe_is_EIO_not_a_hang(void)
{
	struct rig r;

	if (rig_up(&r, 7, false)) {
		CHECK(!"rig");
		goto out;
	}
	post_writes(&r, 3);
	m5m_inject(r.dev, M5M_FAULT_NO_RESIZE_CQE, 1);
	CHECK_EQ(ibv_resize_cq(r.cq, 31), EIO);
	CHECK_EQ(r.cq->cqe, 31);
	CHECK_EQ(model_ncqe(&r), 32);
	CHECK_EQ(resizes(&r), 1);
out:
	rig_down(&r);
}

/*
 * A device that writes another opcode where the RESIZE CQE belongs, at
 * the end of a full ring: every CQE of the old ring is software's and
 * none is RESIZE.  The walk stops after one ring's worth: EIO, no loop,
 * nothing written past the new ring.
 */
static void a_bad_resize_cqe_in_a_full_ring_is_EIO_after_one_ring(void)
{
	struct rig r;

	if (rig_up(&r, 7, false)) {
		CHECK(!"rig");
		goto out;
	}
	/*
	 * The bogus CQE is moved too, past the device's producer counter:
	 * once the provider consumes it (m5_cq_clean at the QP's destroy),
	 * the model sees a consumer index ahead of the producer.  The CQ is
	 * broken, as EIO says.
	 */
	r.lenient = true;
	m5m_set_strict(r.dev, false);
	m5m_set_quiet(r.dev, true);
	post_writes(&r, 7); /* 7 unpolled + the CQE in the RESIZE slot */
	m5m_inject(r.dev, M5M_FAULT_BAD_RESIZE_CQE, 1);
	CHECK_EQ(ibv_resize_cq(r.cq, 15), EIO);
	CHECK_EQ(r.cq->cqe, 15);
	CHECK_EQ(resizes(&r), 1);
	/* The seven real ones were moved before the walk gave up. */
	CHECK(poll_in_order(&r, 7));
out:
	rig_down(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(resize_of_an_empty_cq_grows_and_shrinks_it),
	CHECK_TEST(unpolled_cqes_come_out_once_in_order_across_wraps),
	CHECK_TEST(single_threaded_cq_resizes_the_same),
	CHECK_TEST(resize_to_a_ring_the_unpolled_cqes_fill),
	CHECK_TEST(
		resize_below_the_unpolled_cqes_is_EINVAL_and_changes_nothing),
	CHECK_TEST(resize_to_a_bad_size_is_EINVAL_and_changes_nothing),
	CHECK_TEST(a_missing_resize_cqe_is_EIO_not_a_hang),
	CHECK_TEST(a_bad_resize_cqe_in_a_full_ring_is_EIO_after_one_ring),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_resize_", tests);
}
