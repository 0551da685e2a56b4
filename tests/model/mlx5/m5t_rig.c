// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The shared rig of the model's QP-state, SRQ/ODP and arm tests (m5t_rig.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "m5t_rig.h"
#include "m5t_verbs.h"

int m5t_rig_open(struct m5t_rig *r, bool channel)
{
	memset(r, 0, sizeof(*r));
	r->dev = m5m_dev_create(NULL);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	if (!r->ctx)
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	if (channel)
		r->ch = m5m_create_comp_channel(r->dev, r->ctx);
	r->buf = aligned_alloc(4096, M5T_RIG_BUF);
	if (!r->pd || (channel && !r->ch) || !r->buf)
		return -1;
	memset(r->buf, 0, M5T_RIG_BUF);
	r->mr = ibv_reg_mr(r->pd, r->buf, M5T_RIG_BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	r->acq = ibv_create_cq(r->ctx, 64, NULL, r->ch, 0);
	r->bcq = ibv_create_cq(r->ctx, 64, NULL, r->ch, 0);
	return r->mr && r->acq && r->bcq ? 0 : -1;
}

/* An RC pair a -> b, a on acq, b on bcq (b's receives from srq if any). */
int m5t_rig_rc(struct m5t_rig *r, struct ibv_srq *srq)
{
	r->a = m5t_rc_qp(r->pd, r->acq, NULL, 16, 1);
	r->b = m5t_rc_qp(r->pd, r->bcq, srq, 16, 1);
	if (!r->a || !r->b)
		return -1;
	return m5t_rc_pair(r->dev, r->a, r->b, 7);
}

void m5t_rig_close(struct m5t_rig *r)
{
	if (r->a)
		CHECK_EQ(ibv_destroy_qp(r->a), 0);
	if (r->b)
		CHECK_EQ(ibv_destroy_qp(r->b), 0);
	if (r->acq)
		CHECK_EQ(ibv_destroy_cq(r->acq), 0);
	if (r->bcq)
		CHECK_EQ(ibv_destroy_cq(r->bcq), 0);
	if (r->mr)
		CHECK_EQ(ibv_dereg_mr(r->mr), 0);
	if (r->ch)
		CHECK_EQ(m5m_destroy_comp_channel(r->dev, r->ch), 0);
	if (r->pd)
		CHECK_EQ(ibv_dealloc_pd(r->pd), 0);
	m5t_dev_close(r->dev, r->ctx);
	free(r->buf);
}

/* A SEND of 16 bytes from the buffer at off; flags added to none. */
int m5t_rig_send(struct m5t_rig *r, struct ibv_qp *qp, uint64_t id,
		 uint32_t off, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + off, 16, r->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = flags };
	struct ibv_send_wr *bad = NULL;
	int ret;

	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		CHECK(bad == &wr);
	return ret;
}

int m5t_rig_recv(struct m5t_rig *r, struct ibv_qp *qp, uint64_t id,
		 uint32_t off)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + off, 64, r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

int m5t_rig_srq_recv(struct m5t_rig *r, struct ibv_srq *srq, uint64_t id,
		     uint32_t off)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + off, 64, r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

int m5t_set_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* The state ibv_query_qp reports (it also rewrites qp->state). */
int m5t_query_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

/* The next completion on cq must be wr_id id with status st. */
void m5t_expect_wc(struct ibv_cq *cq, uint64_t id, enum ibv_wc_status st)
{
	struct ibv_wc wc = { 0 };

	CHECK_EQ(m5t_poll_one(cq, &wc), 1);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.status, st);
}

void m5t_expect_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 0);
}
