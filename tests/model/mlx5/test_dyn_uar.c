// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Dynamic UARs on the model (providers/doorbell/mlx5/mlx5_dyn_uar.c): which
 * UAR each QP, thread domain and CQ gets, that every doorbell lands on it
 * (the model checks each write against the UAR the QP or CQ was created
 * on), the fake kernel's refusals, and the static regime when the kernel
 * has no dynamic UARs.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/mlx5_user_ioctl_verbs.h>

#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"
#include "mlx5/mlx5.h"

/* A model device, a context, a PD and a CQ; optionally the old kernel. */
struct rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static int rig_open_cfg(struct rig *r, const struct m5m_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->dev = m5m_dev_create(cfg);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	r->pd = r->ctx ? ibv_alloc_pd(r->ctx) : NULL;
	r->cq = r->pd ? ibv_create_cq(r->ctx, 256, NULL, NULL, 0) : NULL;
	r->buf = calloc(1, 4096);
	r->mr = r->cq && r->buf ? ibv_reg_mr(r->pd, r->buf, 4096,
					     IBV_ACCESS_LOCAL_WRITE)
				: NULL;
	return r->mr ? 0 : -1;
}

static int rig_open(struct rig *r, bool no_dyn_uar)
{
	struct m5m_config cfg;

	m5m_config_default(&cfg);
	cfg.no_dyn_uar = no_dyn_uar;
	return rig_open_cfg(r, &cfg);
}

static int rig_pair(struct rig *r, struct ibv_qp *a, struct ibv_qp *b)
{
	return m5t_rc_pair(r->dev, a, b, 7);
}

static void rig_close_unchecked(struct rig *r)
{
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	if (r->dev)
		m5m_dev_destroy(r->dev);
	free(r->buf);
}

/* Close, and no device-protocol violation may have been seen. */
static void rig_close(struct rig *r)
{
	if (r->dev)
		CHECK_EQ(m5m_violations(r->dev), 0);
	rig_close_unchecked(r);
}

/* A thread domain and a parent domain over the rig's PD. */
struct domain {
	struct ibv_td *td;
	struct ibv_pd *parent;
};

static int domain_open(struct rig *r, struct domain *d)
{
	struct ibv_td_init_attr ta = {};
	struct ibv_parent_domain_init_attr pa = {};

	d->td = ibv_alloc_td(r->ctx, &ta);
	pa.pd = r->pd;
	pa.td = d->td;
	d->parent = d->td ? ibv_alloc_parent_domain(r->ctx, &pa) : NULL;
	return d->parent ? 0 : -1;
}

static void domain_close(struct domain *d)
{
	if (d->parent)
		CHECK_EQ(ibv_dealloc_pd(d->parent), 0);
	if (d->td)
		CHECK_EQ(ibv_dealloc_td(d->td), 0);
}

/* Destroy qp if there is one (its result not checked). */
static void qp_close(struct ibv_qp *qp)
{
	if (qp)
		ibv_destroy_qp(qp);
}

/* The end of a test on one domain and the QPs a and b. */
static void test_close(struct rig *r, struct domain *d, struct ibv_qp *a,
		       struct ibv_qp *b)
{
	qp_close(a);
	qp_close(b);
	domain_close(d);
	rig_close(r);
}

/* An RC QP on the rig's CQ that takes 64 bytes inline. */
static struct ibv_qp *qp_in(struct rig *r, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &qa);
}

/*
 * a sends b one message of len bytes (inline: by BlueFlame) and both
 * completions arrive; the model checked every doorbell on the way.
 */
static void send_one(struct rig *r, struct ibv_qp *a, struct ibv_qp *b,
		     uint32_t len, bool inl)
{
	struct ibv_sge rs = { (uintptr_t)r->buf + 2048, 1024, r->mr->lkey };
	struct ibv_sge ss = { (uintptr_t)r->buf, len, r->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1 };
	struct ibv_recv_wr *bad_r;
	struct ibv_send_wr *bad_s;
	struct ibv_wc wc;

	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	CHECK_EQ(ibv_post_recv(b, &rwr, &bad_r), 0);
	CHECK_EQ(ibv_post_send(a, &swr, &bad_s), 0);
	CHECK_EQ(m5t_poll_one(r->cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(m5t_poll_one(r->cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
}

static void td_qp_rings_its_own_uar_without_lock(void)
{
	struct ibv_qp *a = NULL, *b = NULL;
	struct m5m_stats st;
	struct domain d = {};
	struct m5_bf *bf;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	CHECK_EQ(domain_open(&r, &d), 0);
	if (check_failed)
		goto out;
	a = qp_in(&r, d.parent);
	b = qp_in(&r, r.pd);
	CHECK(a && b);
	if (!a || !b || rig_pair(&r, a, b))
		goto out;
	bf = to_m5_qp(a)->bf;
	/* Its TD's own BlueFlame register: no lock, on the TD's UAR. */
	CHECK_EQ(bf->kind, M5_BF_TD);
	CHECK(!bf->need_lock && !bf->lock.need);
	CHECK(!to_m5_qp(a)->sq.lock.need);
	CHECK(bf->buf_size != 0);
	CHECK_EQ(m5m_qp_uar_page(r.dev, a->qp_num), bf->page_id);
	CHECK_EQ(m5m_uar_type(r.dev, r.ctx, bf->page_id),
		 MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF);
	CHECK(m5m_qp_uar_page(r.dev, b->qp_num) !=
	      m5m_qp_uar_page(r.dev, a->qp_num));
	m5m_reset_stats(r.dev);
	send_one(&r, a, b, 16, true);
	send_one(&r, a, b, 512, false);
	send_one(&r, b, a, 16, true);
	/* A single WR of more than one segment goes by BlueFlame. */
	m5m_get_stats(r.dev, &st);
	CHECK_EQ(st.bf_doorbells, 3);
out:
	test_close(&r, &d, a, b);
}

/*
 * Two thread domains get two bfregs of one UAR (libmlx5 v44 verbs.c,
 * mlx5_attach_dedicated_uar: two per 4 KB UAR), each rung without a lock.
 */
static void two_tds_share_a_uar_on_their_own_bfregs(void)
{
	struct ibv_qp *q[2] = {}, *peer = NULL;
	struct domain d[2] = {};
	unsigned int base, i;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	/* The non-cached UAR for CQ arms is the context's first. */
	base = m5m_live_uars(r.dev, r.ctx);
	CHECK_EQ(base, 1);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(domain_open(&r, &d[i]), 0);
		q[i] = d[i].parent ? qp_in(&r, d[i].parent) : NULL;
		CHECK(q[i]);
	}
	if (check_failed)
		goto out;
	/* One UAR for both (a 4 KB UAR has 2 bfregs, a 64 KB page 32). */
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), base + 1);
	CHECK(to_m5_qp(q[0])->bf != to_m5_qp(q[1])->bf);
	CHECK(to_m5_qp(q[0])->bf->obj == to_m5_qp(q[1])->bf->obj);
	CHECK(!to_m5_qp(q[0])->bf->need_lock && !to_m5_qp(q[1])->bf->need_lock);
	peer = qp_in(&r, r.pd);
	if (check_failed || !peer)
		goto out;
	for (i = 0; i < 2 && !check_failed; i++) {
		CHECK_EQ(rig_pair(&r, q[i], peer), 0);
		send_one(&r, q[i], peer, 64, true);
		send_one(&r, q[i], peer, 64, false);
		CHECK_EQ(ibv_modify_qp(peer,
				       &(struct ibv_qp_attr){
					       .qp_state = IBV_QPS_RESET },
				       IBV_QP_STATE),
			 0);
	}
out:
	for (i = 0; i < 2; i++)
		qp_close(q[i]);
	qp_close(peer);
	for (i = 0; i < 2; i++)
		domain_close(&d[i]);
	rig_close(&r);
}

#define NQ (M5_TOTAL_BFREGS + 1)

static void qps_without_td_share_bfregs(void)
{
	unsigned int per_uar, ded = 0, shr = 0, locked = 0, i, uars;
	struct ibv_qp *q[NQ] = {}, *again = NULL;
	struct m5_bf *first;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	for (i = 0; i < NQ; i++) {
		q[i] = qp_in(&r, r.pd);
		CHECK(q[i]);
		if (!q[i])
			goto out;
	}
	/* libmlx5's classes: 4 dedicated, 12 shared, then the least used. */
	for (i = 0; i < NQ; i++) {
		struct m5_bf *bf = to_m5_qp(q[i])->bf;

		ded += bf->kind == M5_BF_QP_DEDICATED;
		shr += bf->kind == M5_BF_QP_SHARED;
		locked += bf->need_lock;
		CHECK_EQ(m5m_qp_uar_page(r.dev, q[i]->qp_num), bf->page_id);
	}
	per_uar = (unsigned int)sysconf(_SC_PAGESIZE) / M5_UAR_SIZE *
		  M5_NON_FP_BFREGS_PER_UAR;
	CHECK(ded >= M5_LOW_LAT_BFREGS && ded <= M5_LOW_LAT_BFREGS + per_uar);
	CHECK_EQ(ded + shr, NQ);
	CHECK_EQ(locked, shr);
	CHECK_EQ(to_m5_qp(q[NQ - 1])->bf->kind, M5_BF_QP_SHARED);
	CHECK_EQ(to_m5_qp(q[NQ - 1])->bf->users, 2);
	/* Two QPs on one shared bfreg ring it in turn; halves alternate. */
	for (i = 0; i < NQ - 1; i++)
		if (to_m5_qp(q[i])->bf == to_m5_qp(q[NQ - 1])->bf)
			break;
	CHECK(i < NQ - 1);
	if (check_failed)
		goto out;
	CHECK_EQ(rig_pair(&r, q[i], q[NQ - 1]), 0);
	send_one(&r, q[i], q[NQ - 1], 64, true);
	send_one(&r, q[NQ - 1], q[i], 64, true);
	send_one(&r, q[i], q[NQ - 1], 64, true);
	/* Destroy gives the bfreg back; the next QP takes it, no new UAR. */
	uars = m5m_live_uars(r.dev, r.ctx);
	first = to_m5_qp(q[0])->bf;
	CHECK_EQ(ibv_destroy_qp(q[0]), 0);
	q[0] = NULL;
	CHECK_EQ(first->users, 0);
	again = qp_in(&r, r.pd);
	CHECK(again && to_m5_qp(again)->bf == first);
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), uars);
out:
	qp_close(again);
	for (i = 0; i < NQ; i++)
		qp_close(q[i]);
	rig_close(&r);
}

static void cq_arms_go_to_the_nc_uar(void)
{
	struct ibv_comp_channel *ch = NULL;
	struct ibv_cq *cq = NULL, *ev_cq;
	struct ibv_qp *a = NULL, *b = NULL;
	struct m5_context *ctx;
	void *ev_ctx;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	ctx = to_m5_ctx(r.ctx);
	CHECK(ctx->dyn_uar);
	CHECK_EQ(m5m_uar_type(r.dev, r.ctx, ctx->cq_uar_page),
		 MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC);
	CHECK_EQ(m5m_cq_uar_page(r.dev, r.cq), ctx->cq_uar_page);
	ch = m5m_create_comp_channel(r.dev, r.ctx);
	cq = ch ? ibv_create_cq(r.ctx, 16, NULL, ch, 0) : NULL;
	CHECK(cq);
	if (!cq)
		goto out;
	CHECK((char *)to_m5_cq(cq)->arm_reg ==
	      (char *)ctx->cq_uar + M5_CQ_DOORBELL);
	a = m5t_rc_qp(r.pd, r.cq, NULL, 16, 1);
	b = m5t_rc_qp(r.pd, cq, NULL, 16, 1);
	if (!a || !b || m5t_rc_pair(r.dev, a, b, 7))
		goto out;
	/* The model checks the arm doorbell against the CQ's UAR page. */
	CHECK_EQ(ibv_req_notify_cq(cq, 0), 0);
	{
		struct ibv_sge rs = { (uintptr_t)r.buf + 2048, 64, r.mr->lkey };
		struct ibv_sge ss = { (uintptr_t)r.buf, 64, r.mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 };
		struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1 };
		struct ibv_recv_wr *bad_r;
		struct ibv_send_wr *bad_s;
		struct ibv_wc wc;

		swr.opcode = IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		CHECK_EQ(ibv_post_recv(b, &rwr, &bad_r), 0);
		CHECK_EQ(ibv_post_send(a, &swr, &bad_s), 0);
		CHECK_EQ(m5t_poll_one(r.cq, &wc), 1);
		m5m_irq_service(r.dev);
		CHECK_EQ(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
		CHECK(ev_cq == cq);
		ibv_ack_cq_events(cq, 1);
		CHECK_EQ(m5t_poll_one(cq, &wc), 1);
	}
out:
	qp_close(a);
	qp_close(b);
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		m5m_destroy_comp_channel(r.dev, ch);
	rig_close(&r);
}

/*
 * N thread domains use ceil(N / bfregs per UAR) UARs, as libmlx5's
 * shared pool of TD bfregs (2 per 4 KB UAR, 32 per 64 KB page).
 */
static void n_tds_use_libmlx5s_number_of_uars(void)
{
	struct domain d[5] = {};
	unsigned int base, i, per;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	base = m5m_live_uars(r.dev, r.ctx);
	for (i = 0; i < 5 && !check_failed; i++) {
		CHECK_EQ(domain_open(&r, &d[i]), 0);
		if (check_failed)
			break;
		per = ((struct m5_td *)d[i].td)->bf->obj->nbf;
		CHECK_EQ(per, sysconf(_SC_PAGESIZE) / M5_UAR_SIZE *
				      M5_NON_FP_BFREGS_PER_UAR);
		CHECK_EQ(m5m_live_uars(r.dev, r.ctx),
			 base + (i + 1 + per - 1) / per);
	}
out:
	for (i = 0; i < 5; i++)
		domain_close(&d[i]);
	rig_close(&r);
}

/*
 * A freed TD's bfreg goes to the next thread domain; its UAR stays until
 * the context closes (libmlx5's mlx5_detach_dedicated_uar).
 */
static void dealloc_td_gives_its_bfreg_to_the_next_td(void)
{
	struct m5_bf *bf = NULL;
	struct ibv_qp *q = NULL;
	struct domain d = {};
	unsigned int base;
	struct rig r;

	CHECK_EQ(rig_open(&r, false), 0);
	if (check_failed)
		goto out;
	base = m5m_live_uars(r.dev, r.ctx);
	CHECK_EQ(domain_open(&r, &d), 0);
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), base + 1);
	q = d.parent ? qp_in(&r, d.parent) : NULL;
	CHECK(q);
	if (!q)
		goto out;
	/* The parent domain may go; the TD's bfreg is still the QP's. */
	CHECK_EQ(ibv_dealloc_pd(d.parent), 0);
	d.parent = NULL;
	CHECK_EQ(ibv_dealloc_td(d.td), EBUSY);
	CHECK_EQ(ibv_destroy_qp(q), 0);
	q = NULL;
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), base + 1);
	bf = ((struct m5_td *)d.td)->bf;
	CHECK_EQ(ibv_dealloc_td(d.td), 0);
	d.td = NULL;
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), base + 1);
	CHECK_EQ(domain_open(&r, &d), 0);
	CHECK(d.td && ((struct m5_td *)d.td)->bf == bf);
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), base + 1);
out:
	qp_close(q);
	domain_close(&d);
	rig_close(&r);
}

/*
 * A context on static UARs (from a kernel without dynamic ones, or asked
 * for): no UAR object, the CQ and QPs (a thread domain's too) on the
 * static bfregs, traffic both ways.
 */
static void static_uars_carry_traffic(bool no_dyn_uar)
{
	struct ibv_qp *a = NULL, *b = NULL;
	struct domain d = {};
	struct rig r;

	CHECK_EQ(rig_open(&r, no_dyn_uar), 0);
	CHECK_EQ(domain_open(&r, &d), 0);
	if (check_failed)
		goto out;
	CHECK(!to_m5_ctx(r.ctx)->dyn_uar);
	CHECK_EQ(to_m5_ctx(r.ctx)->tot_bfregs, M5_TOTAL_BFREGS);
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), 0);
	CHECK_EQ(m5m_cq_uar_page(r.dev, r.cq), -1);
	a = qp_in(&r, d.parent);
	b = qp_in(&r, r.pd);
	if (!a || !b || rig_pair(&r, a, b))
		goto out;
	CHECK_EQ(m5m_qp_uar_page(r.dev, a->qp_num), -1);
	CHECK_EQ(to_m5_qp(a)->bf->kind, M5_BF_STATIC);
	send_one(&r, a, b, 16, true);
	send_one(&r, b, a, 512, false);
out:
	test_close(&r, &d, a, b);
}

static void static_uars_without_kernel_dyn_uar(void)
{
	static_uars_carry_traffic(true);
}

/*
 * DOORBELL_MLX5_STATIC_UARS=1 on a kernel that has dynamic UARs: the
 * context asks for static ones only and gets them.
 */
static void static_uars_env_asks_for_static_uars(void)
{
	setenv("DOORBELL_MLX5_STATIC_UARS", "1", 1);
	static_uars_carry_traffic(false);
	unsetenv("DOORBELL_MLX5_STATIC_UARS");
}

/*
 * Without write combining (bf_reg_size 0) the kernel refuses BlueFlame
 * UARs: every QP, a thread domain's too, rings the non-cached UAR with
 * plain doorbells, as libmlx5 does.
 */
static void no_write_combining_rings_the_nc_uar(void)
{
	struct ibv_qp *a = NULL, *b = NULL;
	struct m5m_config cfg;
	struct m5m_stats st;
	struct domain d = {};
	struct m5_context *ctx;
	struct rig r;

	m5m_config_default(&cfg);
	cfg.bf_reg_size = 0;
	CHECK_EQ(rig_open_cfg(&r, &cfg), 0);
	CHECK_EQ(domain_open(&r, &d), 0);
	if (check_failed)
		goto out;
	ctx = to_m5_ctx(r.ctx);
	CHECK(ctx->dyn_uar);
	CHECK_EQ(m5m_live_uars(r.dev, r.ctx), 1);
	a = qp_in(&r, d.parent);
	b = qp_in(&r, r.pd);
	if (!a || !b || rig_pair(&r, a, b))
		goto out;
	CHECK(to_m5_qp(a)->bf == &ctx->nc_uar->bf[0]);
	CHECK(to_m5_qp(b)->bf == &ctx->nc_uar->bf[0]);
	CHECK(!to_m5_qp(a)->bf->need_lock && !to_m5_qp(a)->bf->buf_size);
	CHECK_EQ(m5m_qp_uar_page(r.dev, a->qp_num), ctx->cq_uar_page);
	m5m_reset_stats(r.dev);
	send_one(&r, a, b, 16, true);
	send_one(&r, b, a, 512, false);
	m5m_get_stats(r.dev, &st);
	CHECK_EQ(st.bf_doorbells, 0);
	CHECK_EQ(st.doorbells, 2);
out:
	test_close(&r, &d, a, b);
}

/*
 * The fake kernel refuses what mlx5_ib refuses: an unknown UAR type, a
 * destroyed or unknown handle, an mmap at an offset it never gave, a QP on
 * a UAR that was destroyed or is another context's; and the model device
 * flags a doorbell on a UAR that is not the QP's.
 */
static void kernel_refuses_stale_and_foreign_uars(void)
{
	struct ibv_qp *q = NULL, *peer = NULL;
	struct domain d = {}, d2 = {};
	struct m5_context *ctx;
	struct m5k_uar k = {};
	struct rig r, r2;
	uint32_t stale;
	struct m5_bf *bf, *saved;

	memset(&r2, 0, sizeof(r2));

	CHECK_EQ(rig_open(&r, false), 0);
	CHECK_EQ(rig_open(&r2, false), 0);
	if (check_failed)
		goto out;
	ctx = to_m5_ctx(r.ctx);
	CHECK_EQ(m5k_alloc_uar(ctx, 7, &k), EOPNOTSUPP);
	CHECK_EQ(m5k_alloc_uar(ctx, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF, &k), 0);
	CHECK_EQ(k.length, (uint32_t)sysconf(_SC_PAGESIZE));
	CHECK(m5k_mmap_uar(ctx, (off_t)k.mmap_offset + k.length, k.length) ==
	      MAP_FAILED);
	CHECK(m5k_mmap_uar(to_m5_ctx(r2.ctx), (off_t)k.mmap_offset, k.length) ==
	      MAP_FAILED);
	CHECK_EQ(m5k_destroy_uar(to_m5_ctx(r2.ctx), k.handle), EINVAL);
	CHECK_EQ(m5k_destroy_uar(ctx, k.handle), 0);
	CHECK_EQ(m5k_destroy_uar(ctx, k.handle), EINVAL);
	CHECK(m5k_mmap_uar(ctx, (off_t)k.mmap_offset, k.length) == MAP_FAILED);
	stale = k.page_id;
	/* A TD whose bfreg names a destroyed UAR, then another context's. */
	CHECK_EQ(domain_open(&r, &d), 0);
	CHECK_EQ(domain_open(&r2, &d2), 0);
	if (check_failed)
		goto out;
	bf = ((struct m5_td *)d.td)->bf;
	saved = bf;
	bf->page_id = stale;
	CHECK(!qp_in(&r, d.parent));
	CHECK_EQ(errno, EINVAL);
	bf->page_id = ((struct m5_td *)d2.td)->bf->page_id;
	CHECK(!qp_in(&r, d.parent));
	CHECK_EQ(errno, EINVAL);
	bf->page_id = ((struct m5_td *)d.td)->bf->obj->k.page_id;
	/* The TD holds it; no QP yet. */
	CHECK_EQ(bf->users, 1);
	/* A doorbell on a UAR not the QP's: the device says so. */
	q = qp_in(&r, d.parent);
	peer = qp_in(&r, r.pd);
	if (!q || !peer || rig_pair(&r, q, peer))
		goto out;
	m5m_set_strict(r.dev, false);
	m5m_set_quiet(r.dev, true);
	to_m5_qp(q)->bf = to_m5_qp(peer)->bf;
	{
		struct ibv_sge ss = { (uintptr_t)r.buf, 8, r.mr->lkey };
		struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1 };
		struct ibv_send_wr *bad_s;

		swr.opcode = IBV_WR_SEND;
		CHECK_EQ(ibv_post_send(q, &swr, &bad_s), 0);
	}
	to_m5_qp(q)->bf = saved;
	CHECK(m5m_violations(r.dev) >= 1);
	/* Destroying a UAR a QP was created on is flagged too. */
	{
		uint64_t v = m5m_violations(r.dev);
		uint32_t h = ((struct m5_td *)d.td)->bf->obj->k.handle;

		CHECK_EQ(m5k_destroy_uar(ctx, h), 0);
		CHECK_EQ(m5m_violations(r.dev), v + 1);
	}
out:
	qp_close(q);
	qp_close(peer);
	/* The context's own destroy of the UAR now answers EINVAL: ignored. */
	domain_close(&d);
	domain_close(&d2);
	rig_close(&r2);
	/* r saw the violations forced above. */
	rig_close_unchecked(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(td_qp_rings_its_own_uar_without_lock),
	CHECK_TEST(two_tds_share_a_uar_on_their_own_bfregs),
	CHECK_TEST(n_tds_use_libmlx5s_number_of_uars),
	CHECK_TEST(qps_without_td_share_bfregs),
	CHECK_TEST(cq_arms_go_to_the_nc_uar),
	CHECK_TEST(dealloc_td_gives_its_bfreg_to_the_next_td),
	CHECK_TEST(static_uars_without_kernel_dyn_uar),
	CHECK_TEST(static_uars_env_asks_for_static_uars),
	CHECK_TEST(no_write_combining_rings_the_nc_uar),
	CHECK_TEST(kernel_refuses_stale_and_foreign_uars),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_dyn_uar_", tests);
}
