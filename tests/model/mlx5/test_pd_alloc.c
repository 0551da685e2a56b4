// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Parent-domain allocators on the mlx5 backend: the queue buffers of CQs,
 * QPs and SRQs created through a parent domain with
 * IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS come from the user's alloc, with
 * mlx5dv's resource type, the parent domain, its pd_context and page
 * alignment, as libmlx5 asks for them; they go back through free at
 * destroy; IBV_ALLOCATOR_USE_DEFAULT falls back to the provider's own
 * memory; a failing alloc fails the create with ENOMEM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"
#include "mlx5/mlx5.h"

enum pa_mode { PA_GIVE, PA_USE_DEFAULT, PA_FAIL };

#define PA_MAX 16

/* Every call the allocators saw. */
struct pa_log {
	enum pa_mode mode;
	int nalloc, nfree;
	struct {
		struct ibv_pd *pd;
		void *pd_context;
		size_t size, align;
		uint64_t type;
		void *ptr; /* what alloc gave, NULL for the other answers */
	} a[PA_MAX];
	struct {
		struct ibv_pd *pd;
		void *pd_context, *ptr;
		uint64_t type;
	} f[PA_MAX];
};

static void *pa_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t align, uint64_t type)
{
	struct pa_log *l = pd_context;
	int i = l->nalloc++;
	void *p = NULL;

	if (i >= PA_MAX)
		return NULL;
	l->a[i].pd = pd;
	l->a[i].pd_context = pd_context;
	l->a[i].size = size;
	l->a[i].align = align;
	l->a[i].type = type;
	if (l->mode == PA_USE_DEFAULT)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (l->mode == PA_FAIL || posix_memalign(&p, align, size))
		return NULL;
	/* Not zeroed: the provider must not rely on the user's memory. */
	memset(p, 0xa5, size);
	l->a[i].ptr = p;
	return p;
}

static void pa_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		    uint64_t type)
{
	struct pa_log *l = pd_context;
	int i = l->nfree++;

	if (i < PA_MAX) {
		l->f[i].pd = pd;
		l->f[i].pd_context = pd_context;
		l->f[i].ptr = ptr;
		l->f[i].type = type;
	}
	free(ptr);
}

struct pa_rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *parent;
	struct pa_log log;
};

static void pa_close(struct pa_rig *r)
{
	if (r->parent)
		CHECK_EQ(ibv_dealloc_pd(r->parent), 0);
	if (r->pd)
		CHECK_EQ(ibv_dealloc_pd(r->pd), 0);
	m5t_dev_close(r->dev, r->ctx);
}

/* The rig, its allocator in mode; 0, or -1 (a failed check, the rig closed). */
static int pa_open(struct pa_rig *r, enum pa_mode mode)
{
	struct ibv_parent_domain_init_attr pa = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = pa_alloc,
		.free = pa_free,
		.pd_context = &r->log,
	};

	memset(r, 0, sizeof(*r));
	r->log.mode = mode;
	r->dev = m5m_dev_create(NULL);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	r->pd = r->ctx ? ibv_alloc_pd(r->ctx) : NULL;
	if (r->pd) {
		pa.pd = r->pd;
		r->parent = ibv_alloc_parent_domain(r->ctx, &pa);
	}
	if (r->parent)
		return 0;
	CHECK(0);
	pa_close(r);
	return -1;
}

/* Destroy whichever of a, b, srq and cq there are, in that order. */
static void pa_destroy(struct ibv_qp *a, struct ibv_qp *b, struct ibv_srq *srq,
		       struct ibv_cq *cq)
{
	if (a)
		CHECK_EQ(ibv_destroy_qp(a), 0);
	if (b)
		CHECK_EQ(ibv_destroy_qp(b), 0);
	if (srq)
		CHECK_EQ(ibv_destroy_srq(srq), 0);
	if (cq)
		CHECK_EQ(ibv_destroy_cq(cq), 0);
}

/* A CQ of 15 entries (16 CQEs of 64 bytes) in the parent domain. */
static struct ibv_cq *pa_cq(struct pa_rig *r)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 15,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = r->parent,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(r->ctx, &a);

	return cq ? ibv_cq_ex_to_cq(cq) : NULL;
}

/*
 * An SRQ of 15 WRs of one SGE in the parent domain: 16 WQEs of 32 bytes,
 * and as many again for the wait queue (libmlx5's 2 * max_wr + 1, rounded
 * up to a power of two).
 */
static struct ibv_srq *pa_srq(struct pa_rig *r)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 15, .max_sge = 1 } };

	return ibv_create_srq(r->parent, &a);
}

/* Allocator call i was for a buffer of type and size, as libmlx5 asks. */
static void pa_check_alloc(const struct pa_rig *r, int i, uint64_t type,
			   size_t size)
{
	CHECK(i < r->log.nalloc);
	if (i >= r->log.nalloc)
		return;
	CHECK_EQ(r->log.a[i].type, type);
	CHECK_EQ(r->log.a[i].size, size);
	CHECK_EQ(r->log.a[i].align, sysconf(_SC_PAGESIZE));
	CHECK(r->log.a[i].pd == r->parent);
	CHECK(r->log.a[i].pd_context == &r->log);
}

/* Free call i gave back what alloc call j gave. */
static void pa_check_free(const struct pa_rig *r, int i, int j)
{
	CHECK(i < r->log.nfree && j < r->log.nalloc);
	if (i >= r->log.nfree || j >= r->log.nalloc)
		return;
	CHECK(r->log.f[i].ptr == r->log.a[j].ptr);
	CHECK_EQ(r->log.f[i].type, r->log.a[j].type);
	CHECK(r->log.f[i].pd == r->parent);
	CHECK(r->log.f[i].pd_context == &r->log);
}

/* A send from a to b (receive from b's RQ or SRQ) that must complete. */
static void pa_send(struct ibv_pd *pd, struct ibv_qp *a, struct ibv_qp *b,
		    struct ibv_srq *srq, struct ibv_cq *cq)
{
	static char buf[128];
	struct ibv_mr *mr =
		ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge ss = { (uintptr_t)buf, 16, 0 };
	struct ibv_sge rs = { (uintptr_t)buf + 64, 64, 0 };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr swr = { .wr_id = 1,
				   .sg_list = &ss,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_wc wc;

	CHECK(mr);
	if (!mr)
		return;
	ss.lkey = rs.lkey = mr->lkey;
	memset(buf, 0x3c, 16);
	memset(buf + 64, 0, 64);
	if (srq)
		CHECK_EQ(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	else
		CHECK_EQ(ibv_post_recv(b, &rwr, &rbad), 0);
	CHECK_EQ(ibv_post_send(a, &swr, &sbad), 0);
	CHECK_EQ(m5t_poll_one(cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(m5t_poll_one(cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK(!memcmp(buf, buf + 64, 16));
	CHECK_EQ(ibv_dereg_mr(mr), 0);
}

/*
 * CQ, SRQ and two QPs in the parent domain: each queue buffer is the
 * memory alloc gave (type, size, parent domain, pd_context, page aligned),
 * and traffic runs through it.
 */
static void allocators_give_the_queue_buffers(void)
{
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_cq *cq = NULL;
	struct pa_rig r;

	if (pa_open(&r, PA_GIVE))
		return;
	cq = pa_cq(&r);
	CHECK(cq);
	if (!cq)
		goto out;
	pa_check_alloc(&r, 0, MLX5DV_RES_TYPE_CQ, 16 * 64);
	CHECK(to_m5_cq(cq)->buf == r.log.a[0].ptr);
	srq = pa_srq(&r);
	CHECK(srq);
	if (!srq)
		goto out;
	pa_check_alloc(&r, 1, MLX5DV_RES_TYPE_SRQ, 2 * 16 * 32);
	CHECK(to_m5_srq(srq)->wq.buf == r.log.a[1].ptr);
	a = m5t_rc_qp(r.parent, cq, NULL, 8, 1);
	b = m5t_rc_qp(r.parent, cq, srq, 8, 1);
	CHECK(a && b);
	if (!a || !b)
		goto out;
	pa_check_alloc(&r, 2, MLX5DV_RES_TYPE_QP, to_m5_qp(a)->buf_len);
	CHECK(to_m5_qp(a)->buf == r.log.a[2].ptr);
	pa_check_alloc(&r, 3, MLX5DV_RES_TYPE_QP, to_m5_qp(b)->buf_len);
	CHECK(to_m5_qp(b)->buf == r.log.a[3].ptr);
	CHECK_EQ(r.log.nalloc, 4);
	CHECK_EQ(m5t_rc_pair(r.dev, a, b, 7), 0);
	pa_send(r.pd, a, b, srq, cq);
	pa_send(r.pd, b, a, NULL, cq);
out:
	pa_destroy(a, b, srq, cq);
	pa_close(&r);
}

/*
 * Destroying each object hands its buffer to free, once, with its type;
 * until then the parent domain cannot be deallocated (EBUSY).
 */
static void free_is_called_at_destroy(void)
{
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct pa_rig r;

	if (pa_open(&r, PA_GIVE))
		return;
	cq = pa_cq(&r);
	srq = pa_srq(&r);
	qp = cq && srq ? m5t_rc_qp(r.parent, cq, NULL, 8, 1) : NULL;
	CHECK(qp);
	if (!qp) {
		pa_close(&r);
		return;
	}
	CHECK_EQ(ibv_dealloc_pd(r.parent), EBUSY);
	CHECK_EQ(r.log.nfree, 0);
	CHECK_EQ(ibv_destroy_qp(qp), 0);
	CHECK_EQ(r.log.nfree, 1);
	pa_check_free(&r, 0, 2);
	CHECK_EQ(ibv_destroy_srq(srq), 0);
	CHECK_EQ(r.log.nfree, 2);
	pa_check_free(&r, 1, 1);
	CHECK_EQ(ibv_dealloc_pd(r.parent), EBUSY);
	CHECK_EQ(ibv_destroy_cq(cq), 0);
	CHECK_EQ(r.log.nfree, 3);
	pa_check_free(&r, 2, 0);
	pa_close(&r);
}

/*
 * ibv_resize_cq takes the new ring from the allocator that gave the old
 * one and gives the old one back to it; an allocator that fails makes it
 * ENOMEM with the CQ as it was.
 */
static void resize_cq_takes_the_new_ring_from_the_allocator(void)
{
	struct ibv_cq *cq;
	struct pa_rig r;

	if (pa_open(&r, PA_GIVE))
		return;
	cq = pa_cq(&r);
	if (!cq) {
		CHECK(0);
		pa_close(&r);
		return;
	}
	CHECK_EQ(ibv_resize_cq(cq, 63), 0);
	CHECK_EQ(cq->cqe, 63);
	CHECK_EQ(r.log.nalloc, 2);
	pa_check_alloc(&r, 1, MLX5DV_RES_TYPE_CQ, 64 * 64);
	CHECK_EQ(r.log.nfree, 1);
	pa_check_free(&r, 0, 0);
	r.log.mode = PA_FAIL;
	CHECK_EQ(ibv_resize_cq(cq, 3), ENOMEM);
	CHECK_EQ(cq->cqe, 63);
	CHECK_EQ(r.log.nfree, 1);
	CHECK_EQ(ibv_destroy_cq(cq), 0);
	CHECK_EQ(r.log.nfree, 2);
	pa_check_free(&r, 1, 1);
	pa_close(&r);
}

/*
 * An allocator that answers IBV_ALLOCATOR_USE_DEFAULT is asked, then the
 * provider's own memory is used and free is never called for it.
 */
static void use_default_falls_back_to_the_provider(void)
{
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_cq *cq = NULL;
	struct pa_rig r;

	if (pa_open(&r, PA_USE_DEFAULT))
		return;
	cq = pa_cq(&r);
	srq = cq ? pa_srq(&r) : NULL;
	a = srq ? m5t_rc_qp(r.parent, cq, NULL, 8, 1) : NULL;
	b = a ? m5t_rc_qp(r.parent, cq, srq, 8, 1) : NULL;
	CHECK(b);
	if (!b)
		goto out;
	CHECK_EQ(r.log.nalloc, 4);
	pa_check_alloc(&r, 0, MLX5DV_RES_TYPE_CQ, 16 * 64);
	pa_check_alloc(&r, 1, MLX5DV_RES_TYPE_SRQ, 2 * 16 * 32);
	pa_check_alloc(&r, 2, MLX5DV_RES_TYPE_QP, to_m5_qp(a)->buf_len);
	CHECK(to_m5_cq(cq)->buf && to_m5_qp(a)->buf && to_m5_srq(srq)->wq.buf);
	CHECK_EQ(m5t_rc_pair(r.dev, a, b, 7), 0);
	pa_send(r.pd, a, b, srq, cq);
out:
	pa_destroy(a, b, srq, cq);
	CHECK_EQ(r.log.nfree, 0);
	pa_close(&r);
}

/*
 * An allocator that fails makes each create fail with ENOMEM, and leaves
 * nothing behind: no free is called, the parent domain and the PD are
 * free to go (the model would refuse a PD a leaked kernel object still
 * uses), and the same creates work once the allocator gives memory.
 */
static void a_failing_allocator_fails_the_create_with_enomem(void)
{
	struct ibv_cq *plain = NULL, *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct pa_rig r;

	if (pa_open(&r, PA_FAIL))
		return;
	errno = 0;
	CHECK(!pa_cq(&r));
	CHECK_EQ(errno, ENOMEM);
	errno = 0;
	CHECK(!pa_srq(&r));
	CHECK_EQ(errno, ENOMEM);
	plain = ibv_create_cq(r.ctx, 15, NULL, NULL, 0);
	CHECK(plain);
	errno = 0;
	qp = plain ? m5t_rc_qp(r.parent, plain, NULL, 8, 1) : NULL;
	CHECK(!qp);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(r.log.nalloc, 3);
	CHECK_EQ(r.log.nfree, 0);
	r.log.mode = PA_GIVE;
	cq = pa_cq(&r);
	srq = pa_srq(&r);
	qp = plain ? m5t_rc_qp(r.parent, plain, NULL, 8, 1) : NULL;
	CHECK(cq && srq && qp);
	pa_destroy(qp, NULL, srq, cq);
	if (plain)
		CHECK_EQ(ibv_destroy_cq(plain), 0);
	CHECK_EQ(r.log.nfree, 3);
	pa_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(allocators_give_the_queue_buffers),
	CHECK_TEST(free_is_called_at_destroy),
	CHECK_TEST(resize_cq_takes_the_new_ring_from_the_allocator),
	CHECK_TEST(use_default_falls_back_to_the_provider),
	CHECK_TEST(a_failing_allocator_fails_the_create_with_enomem),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_pd_alloc_", tests);
}
