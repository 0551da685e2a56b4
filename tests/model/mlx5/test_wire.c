// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The connection's attributes on the wire (the engine's m5m_on_the_wire,
 * sim/mlx5/engine/m5m_send.c), through the mlx5 backend on the model: an
 * RC message takes one PSN per packet at both ends; a requester whose PSN
 * its peer does not expect, or whose packets are longer than its peer's
 * path MTU, ends with a transport retry error, as on a ConnectX.  A peer
 * with no read or atomic resources (max_dest_rd_atomic 0) refuses READs.
 */
#include <stdlib.h>
#include <string.h>

#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"

#define LEN 8192

struct rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a, *b;
	uint8_t *src, *dst;
	struct ibv_mr *smr, *dmr;
};

static const struct m5t_rc_cfg rc_1k = {
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	.mtu = IBV_MTU_1024,
	.rnr_retry = 7,
};

/* a towards b with ca, b towards a with cb; 0 or -1. */
static int rig_open(struct rig *r, const struct m5t_rc_cfg *ca,
		    const struct m5t_rc_cfg *cb)
{
	struct m5m_config cfg;
	int i;

	memset(r, 0, sizeof(*r));
	m5m_config_default(&cfg);
	r->dev = m5m_dev_create(&cfg);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	r->pd = r->ctx ? ibv_alloc_pd(r->ctx) : NULL;
	r->acq = r->pd ? ibv_create_cq(r->ctx, 64, NULL, NULL, 0) : NULL;
	r->bcq = r->acq ? ibv_create_cq(r->ctx, 64, NULL, NULL, 0) : NULL;
	r->a = r->bcq ? m5t_rc_qp(r->pd, r->acq, NULL, 16, 1) : NULL;
	r->b = r->a ? m5t_rc_qp(r->pd, r->bcq, NULL, 16, 1) : NULL;
	r->src = calloc(1, LEN);
	r->dst = calloc(1, LEN);
	if (!r->b || !r->src || !r->dst ||
	    m5t_rc_up(r->dev, r->a, r->b->qp_num, ca) ||
	    m5t_rc_up(r->dev, r->b, r->a->qp_num, cb))
		return -1;
	for (i = 0; i < LEN; i++)
		r->src[i] = (uint8_t)(i * 13 + 1);
	r->smr = ibv_reg_mr(r->pd, r->src, LEN, IBV_ACCESS_LOCAL_WRITE);
	r->dmr = ibv_reg_mr(r->pd, r->dst, LEN,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ);
	return r->smr && r->dmr ? 0 : -1;
}

static void rig_close(struct rig *r)
{
	if (r->dmr)
		ibv_dereg_mr(r->dmr);
	if (r->smr)
		ibv_dereg_mr(r->smr);
	if (r->b)
		ibv_destroy_qp(r->b);
	if (r->a)
		ibv_destroy_qp(r->a);
	if (r->bcq)
		ibv_destroy_cq(r->bcq);
	if (r->acq)
		ibv_destroy_cq(r->acq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	if (r->dev)
		m5m_dev_destroy(r->dev);
	free(r->src);
	free(r->dst);
}

/* b's receive of LEN bytes at dst. */
static int post_recv(struct rig *r)
{
	struct ibv_sge sge = { .addr = (uintptr_t)r->dst,
			       .length = LEN,
			       .lkey = r->dmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	return ibv_post_recv(r->b, &wr, &bad);
}

/* One WR of a of len bytes from src, then its completion's status. */
static int a_posts(struct rig *r, enum ibv_wr_opcode op, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)r->src,
			       .length = len,
			       .lkey = r->smr->lkey };
	struct ibv_send_wr wr = { .wr_id = op,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;

	/* WRITE: src to dst; READ: dst back into src. */
	if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = (uintptr_t)r->dst;
		wr.wr.rdma.rkey = r->dmr->rkey;
	}
	if (ibv_post_send(r->a, &wr, &bad))
		return -1;
	if (m5t_poll_one(r->acq, &wc) != 1)
		return -1;
	return wc.status;
}

/* b's receive completion, if any: its status, or -1. */
static int b_received(struct rig *r)
{
	struct ibv_wc wc;

	if (m5t_poll_one(r->bcq, &wc) != 1 || wc.wr_id != 9)
		return -1;
	return wc.status;
}

static void rc_messages_of_many_packets_keep_both_ends_psns_in_step(void)
{
	struct m5t_rc_cfg ca = rc_1k, cb = rc_1k;
	struct rig r;

	ca.sq_psn = 0xfffffe; /* wraps within the first message */
	cb.rq_psn = 0xfffffe;
	ca.rq_psn = 77;
	cb.sq_psn = 77;
	CHECK_EQ(rig_open(&r, &ca, &cb), 0);
	CHECK_EQ(post_recv(&r), 0);
	CHECK_EQ(a_posts(&r, IBV_WR_SEND, 5000), IBV_WC_SUCCESS);
	CHECK_EQ(b_received(&r), IBV_WC_SUCCESS);
	CHECK(!memcmp(r.src, r.dst, 5000));
	CHECK_EQ(a_posts(&r, IBV_WR_RDMA_WRITE, 3000), IBV_WC_SUCCESS);
	CHECK_EQ(a_posts(&r, IBV_WR_RDMA_READ, 4096), IBV_WC_SUCCESS);
	CHECK_EQ(post_recv(&r), 0);
	CHECK_EQ(a_posts(&r, IBV_WR_SEND, 10), IBV_WC_SUCCESS);
	CHECK_EQ(b_received(&r), IBV_WC_SUCCESS);
	rig_close(&r);
}

static void rc_send_at_a_psn_its_peer_does_not_expect_ends_in_retry_error(void)
{
	struct m5t_rc_cfg ca = rc_1k, cb = rc_1k;
	struct rig r;

	ca.sq_psn = 5; /* b expects 0 */
	CHECK_EQ(rig_open(&r, &ca, &cb), 0);
	CHECK_EQ(post_recv(&r), 0);
	CHECK_EQ(a_posts(&r, IBV_WR_SEND, 100), IBV_WC_RETRY_EXC_ERR);
	CHECK(r.dst[0] == 0);
	rig_close(&r);
}

static void rc_packets_longer_than_the_peers_path_mtu_end_in_retry_error(void)
{
	struct m5t_rc_cfg ca = rc_1k, cb = rc_1k;
	struct rig r;

	ca.mtu = IBV_MTU_4096; /* b takes 1024-byte packets */
	CHECK_EQ(rig_open(&r, &ca, &cb), 0);
	CHECK_EQ(post_recv(&r), 0);
	CHECK_EQ(a_posts(&r, IBV_WR_SEND, 1024), IBV_WC_SUCCESS);
	CHECK_EQ(b_received(&r), IBV_WC_SUCCESS);
	CHECK_EQ(post_recv(&r), 0);
	CHECK_EQ(a_posts(&r, IBV_WR_SEND, 2000), IBV_WC_RETRY_EXC_ERR);
	rig_close(&r);
}

/* mlx5_ib clears remote read and atomic on such a responder's QP. */
static void rc_read_from_a_peer_without_read_resources_is_refused(void)
{
	struct m5t_rc_cfg ca = rc_1k, cb = rc_1k;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	struct rig r;

	cb.no_dest_rd_atomic = true;
	CHECK_EQ(rig_open(&r, &ca, &cb), 0);
	CHECK_EQ(ibv_query_qp(r.b, &qa, IBV_QP_ACCESS_FLAGS, &ia), 0);
	CHECK_EQ(qa.qp_access_flags, IBV_ACCESS_REMOTE_WRITE);
	CHECK_EQ(a_posts(&r, IBV_WR_RDMA_WRITE, 100), IBV_WC_SUCCESS);
	CHECK_EQ(a_posts(&r, IBV_WR_RDMA_READ, 100), IBV_WC_REM_ACCESS_ERR);
	rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(rc_messages_of_many_packets_keep_both_ends_psns_in_step),
	CHECK_TEST(
		rc_send_at_a_psn_its_peer_does_not_expect_ends_in_retry_error),
	CHECK_TEST(
		rc_packets_longer_than_the_peers_path_mtu_end_in_retry_error),
	CHECK_TEST(rc_read_from_a_peer_without_read_resources_is_refused),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_wire_", tests);
}
