// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The bad-input matrix: every verb the provider implements, given each kind
 * of invalid argument (unknown flags and comp_mask bits, bad opcodes, sizes,
 * SGE counts, states, objects of another PD or another context), must fail
 * with the expected errno and change nothing: the objects involved keep
 * their attributes and keep working.  Zero and maximum sizes that are valid
 * must work.  One case per line of the table below.  Where the kernel
 * decides and accepts the bad input (a row whose last column is 0), the
 * case checks that nothing broke and reports SKIP "accepted by the
 * kernel", not PASS.
 *
 * The man pages of rdma-core 44 promise "errno on failure" and name no
 * value; the values expected here follow libibverbs' own conventions (its
 * inline wrappers in verbs.h, ibv_cmd_*), the kernel's uverbs checks, and
 * the doorbell README: EINVAL for an invalid value or object, EOPNOTSUPP
 * for a feature or comp_mask bit this device does not have, EPERM where
 * libibverbs itself says so.  docs/reliability.md ("The bad-input
 * matrix") lists where the stock provider differs.
 *
 * Each case runs in a child process with a context of its own, so a case
 * that crashes the provider (or libibverbs) is one FAIL line.  Where the
 * kernel rather than the provider decides, its own answer (the table's
 * last column) is also taken, and noted on stderr.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

struct bm_case;
typedef int (*bm_fn)(struct it_test *t, const struct bm_case *c);

struct bm_case {
	const char *name;
	bm_fn fn;
	int arg;
	int err; /* the errno expected, 0 for success */
	int alt; /* the kernel's own answer, also taken; -1 */
};

/* Names of the errnos a verb may return. */
static const char *en(int e)
{
	static char buf[16];

	switch (e) {
	case 0:
		return "success";
	case EINVAL:
		return "EINVAL";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENOMEM:
		return "ENOMEM";
	case EFAULT:
		return "EFAULT";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EBADF:
		return "EBADF";
	case ENOENT:
		return "ENOENT";
	case EBUSY:
		return "EBUSY";
	case ENOSYS:
		return "ENOSYS";
	case EPROTO:
		return "EPROTO";
	case EIO:
		return "EIO";
	case ERANGE:
		return "ERANGE";
	case E2BIG:
		return "E2BIG";
	case ENODEV:
		return "ENODEV";
	case ENOSPC:
		return "ENOSPC";
	case ENODATA:
		return "ENODATA";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* Objects a case makes outside the harness; released after the case. */

enum bm_kind {
	K_MEM,
	K_MR,
	K_MW,
	K_AH,
	K_QP,
	K_SRQ,
	K_CQ,
	K_CHANNEL,
	K_TD,
	K_PD
};

static struct {
	enum bm_kind kind;
	void *p;
} bm_objs[256];
static int bm_nobjs;

static void keep(enum bm_kind kind, void *p)
{
	if (!p)
		return;
	if (bm_nobjs == (int)(sizeof(bm_objs) / sizeof(bm_objs[0]))) {
		fprintf(stderr, "itest: bad_matrix: too many objects\n");
		exit(2);
	}
	bm_objs[bm_nobjs].kind = kind;
	bm_objs[bm_nobjs].p = p;
	bm_nobjs++;
}

/* Forget @p (the case destroyed it itself). */
static void forget(void *p)
{
	int i;

	for (i = 0; i < bm_nobjs; i++)
		if (bm_objs[i].p == p)
			bm_objs[i].p = NULL;
}

static int destroy_obj(enum bm_kind kind, void *p)
{
	switch (kind) {
	case K_MEM:
		free(p);
		return 0;
	case K_MR:
		return ibv_dereg_mr(p);
	case K_MW:
		return ibv_dealloc_mw(p);
	case K_AH:
		return ibv_destroy_ah(p);
	case K_QP:
		return ibv_destroy_qp(p);
	case K_SRQ:
		return ibv_destroy_srq(p);
	case K_CQ:
		return ibv_destroy_cq(p);
	case K_CHANNEL:
		return it_destroy_channel(p);
	case K_TD:
		return ibv_dealloc_td(p);
	case K_PD:
		return ibv_dealloc_pd(p);
	}
	return EINVAL;
}

static int release(struct it_test *t)
{
	int bad = 0;

	while (bm_nobjs) {
		bm_nobjs--;
		if (!bm_objs[bm_nobjs].p)
			continue;
		if (destroy_obj(bm_objs[bm_nobjs].kind, bm_objs[bm_nobjs].p)) {
			it_fail(t, "destroying object %d (kind %d) failed",
				bm_nobjs, bm_objs[bm_nobjs].kind);
			bad = 1;
		}
	}
	return bad;
}

/* The device opened a second time, for objects of another context. */

static struct ibv_context *ctx2;
static struct ibv_pd *pd2;

static void close_ctx2(void)
{
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (ctx2)
		ibv_close_device(ctx2);
}

static int other_ctx(struct it_test *t)
{
	if (ctx2)
		return 0;
	ctx2 = it_open_device(t->env->ctx->device->name);
	IT_EXPECT(t, ctx2, "opening the device a second time failed");
	pd2 = ibv_alloc_pd(ctx2);
	IT_EXPECT(t, pd2, "ibv_alloc_pd on the second context: %s",
		  strerror(errno));
	atexit(close_ctx2);
	return 0;
}

/* Results */

/*
 * Set in a case's child when the kernel accepted the bad input (c->alt is
 * 0 and the verb succeeded): the case then reports SKIP, not PASS.
 */
static bool bm_accepted;

/*
 * Whether @e is what the case expects: c->err, or c->alt, which is what
 * Linux 6.1 (or libibverbs) itself answers where it decides; the latter is
 * noted on stderr.  An alt of 0 (success) is the kernel accepting the bad
 * input: taken, but the case is a SKIP (bm_accepted).
 */
static bool bm_ok(const struct it_test *t, const struct bm_case *c, int e,
		  const char *what)
{
	if (e == c->err)
		return true;
	if (e != c->alt)
		return false;
	if (!e)
		bm_accepted = true;
	fprintf(stderr,
		"itest: %s: %s gave %s, the kernel's answer (%s "
		"expected)\n",
		t->name, what, en(e), en(c->err));
	return true;
}

/* A verb returning an errno. */
static int expect_ret(struct it_test *t, const struct bm_case *c, int ret,
		      const char *what)
{
	IT_EXPECT(t, bm_ok(t, c, ret, what), "%s returned %s, expected %s%s%s",
		  what, en(ret), en(c->err), c->alt >= 0 ? " or " : "",
		  c->alt >= 0 ? en(c->alt) : "");
	return 0;
}

/* A create returning @p (NULL and errno on failure). */
static int expect_obj(struct it_test *t, const struct bm_case *c, void *p,
		      enum bm_kind kind, const char *what)
{
	int e = p ? 0 : errno;

	keep(kind, p);
	if (p && c->err)
		IT_EXPECT(t, bm_ok(t, c, 0, what), "%s succeeded, expected %s",
			  what, en(c->err));
	else if (!p)
		IT_EXPECT(t, e && bm_ok(t, c, e, what),
			  "%s failed with %s, "
			  "expected %s%s%s",
			  what, e ? en(e) : "errno 0", en(c->err),
			  c->alt >= 0 ? " or " : "",
			  c->alt >= 0 ? en(c->alt) : "");
	return 0;
}

/* A post that must be refused with c->err and *bad_wr at @wr. */
static int expect_post(struct it_test *t, const struct bm_case *c, int ret,
		       const void *bad, const void *wr, const char *what)
{
	if (expect_ret(t, c, ret, what))
		return IT_FAIL;
	if (ret)
		IT_EXPECT(t, bad == wr, "%s: *bad_wr is %s, expected the WR",
			  what, bad ? "another pointer" : "NULL");
	return 0;
}

/* Fixtures */

/* An RC pair with CQs of 16; its QPs in RTS. */
static int pair(struct it_test *t, struct it_ep *a, struct it_ep *b,
		enum ibv_qp_type type)
{
	struct it_qp_attr attr = it_qp_defaults(type);

	attr.cqe = 16;
	attr.send_wr = 16;
	attr.recv_wr = 16;
	return it_pair(t, a, b, &attr);
}

static int still_works(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	return it_pair_still_works(t, a, b, 77, 177, 5);
}

/* After a refused post: no completion for it, and the pair still works. */
static int refused_quietly(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	it_where(t, "afterwards");
	if (it_quiet(t, a->scq, "send CQ (nothing for the refused WR)") ||
	    it_quiet(t, b->rcq, "receive CQ (nothing for the refused WR)"))
		return IT_FAIL;
	return still_works(t, a, b);
}

/* The attributes of an AH to our own GID. */
static struct ibv_ah_attr self_ah_attr(const struct it_env *env)
{
	return (struct ibv_ah_attr){
		.is_global = 1,
		.dlid = env->port_attr.lid, /* InfiniBand routes by it */
		.port_num = env->port,
		.grh = { .dgid = env->gid,
			 .sgid_index = env->gidx,
			 .hop_limit = 64 },
	};
}

/* An AH to our own GID in @pd (NULL and a FAIL verdict on failure). */
static struct ibv_ah *ah_in(struct it_test *t, struct ibv_pd *pd)
{
	struct ibv_ah_attr aa = self_ah_attr(t->env);
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);

	if (!ah)
		it_fail(t, "ibv_create_ah: %s", strerror(errno));
	keep(K_AH, ah);
	return ah;
}

/* A PD of the test's context other than its own (NULL: FAIL verdict). */
static struct ibv_pd *other_pd(struct it_test *t)
{
	struct ibv_pd *pd = ibv_alloc_pd(t->env->ctx);

	if (!pd)
		it_fail(t, "ibv_alloc_pd: %s", strerror(errno));
	keep(K_PD, pd);
	return pd;
}

/* create_cq */

enum { CQ_ZERO, CQ_NEG, CQ_ABOVE_MAX, CQ_MAX, CQ_VECTOR, CQ_CHANNEL_CTX2 };

static int bm_create_cq(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_comp_channel *ch = NULL;
	int cqe = 16, vec = 0;
	struct ibv_cq *cq;

	switch (c->arg) {
	case CQ_ZERO:
		cqe = 0;
		break;
	case CQ_NEG:
		cqe = -1;
		break;
	case CQ_ABOVE_MAX:
		cqe = env->dev.max_cqe + 1;
		break;
	case CQ_MAX:
		cqe = env->dev.max_cqe;
		break;
	case CQ_VECTOR:
		vec = env->ctx->num_comp_vectors;
		break;
	case CQ_CHANNEL_CTX2:
		if (other_ctx(t))
			return IT_FAIL;
		ch = it_create_channel(ctx2);
		IT_EXPECT(t, ch, "ibv_create_comp_channel(ctx2): %s",
			  strerror(errno));
		keep(K_CHANNEL, ch);
		break;
	}
	errno = 0;
	cq = ibv_create_cq(env->ctx, cqe, NULL, ch, vec);
	if (expect_obj(t, c, cq, K_CQ, "ibv_create_cq"))
		return IT_FAIL;
	if (cq)
		IT_EXPECT(t, cq->cqe >= cqe, "cqe %d for %d asked", cq->cqe,
			  cqe);
	it_where(t, "afterwards");
	return it_cq_new(t, 16, NULL) ? 0 : IT_FAIL;
}

/* create_cq_ex */

enum {
	CQX_COMP_MASK,
	CQX_WC_FLAGS,
	CQX_WC_TIMESTAMP,
	CQX_WC_TIMESTAMP_CLOCK,
	CQX_FLAGS,
	CQX_PD_NOT_PARENT,
	CQX_PARENT_CTX2,
	CQX_ZERO,
	CQX_ABOVE_MAX,
	CQX_SINGLE_THREADED
};

static int bm_create_cq_ex(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_cq_init_attr_ex a = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cqx;

	switch (c->arg) {
	case CQX_COMP_MASK:
		a.comp_mask = 1u << 7;
		break;
	case CQX_WC_FLAGS:
		a.wc_flags |= 1ull << 40;
		break;
	case CQX_WC_TIMESTAMP:
	case CQX_WC_TIMESTAMP_CLOCK: {
		/* Taken exactly when query_device_ex advertises a clock. */
		struct ibv_device_attr_ex ex = {};
		bool clock;

		IT_EXPECT(t, !ibv_query_device_ex(env->ctx, NULL, &ex),
			  "ibv_query_device_ex: %s", strerror(errno));
		clock = ex.completion_timestamp_mask != 0;
		if (clock != (c->arg == CQX_WC_TIMESTAMP_CLOCK))
			return it_skip(t, "the device %s completion timestamps",
				       clock ? "advertises"
					     : "does not advertise");
		a.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		break;
	}
	case CQX_FLAGS:
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = 1u << 5;
		break;
	case CQX_PD_NOT_PARENT:
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
		a.parent_domain = env->pd;
		break;
	case CQX_PARENT_CTX2: {
		struct ibv_parent_domain_init_attr pa = { 0 };

		if (other_ctx(t))
			return IT_FAIL;
		pa.pd = pd2;
		a.parent_domain = ibv_alloc_parent_domain(ctx2, &pa);
		if (!a.parent_domain)
			return it_skip(t, "no parent domains (%s)", en(errno));
		keep(K_PD, a.parent_domain);
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
		break;
	}
	case CQX_ZERO:
		a.cqe = 0;
		break;
	case CQX_ABOVE_MAX:
		a.cqe = env->dev.max_cqe + 1;
		break;
	case CQX_SINGLE_THREADED:
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
		break;
	}
	errno = 0;
	cqx = ibv_create_cq_ex(env->ctx, &a);
	if (expect_obj(t, c, cqx ? ibv_cq_ex_to_cq(cqx) : NULL, K_CQ,
		       "ibv_create_cq_ex"))
		return IT_FAIL;
	it_where(t, "afterwards");
	return it_cq_new(t, 16, NULL) ? 0 : IT_FAIL;
}

/* resize_cq */

enum { RZ_ZERO, RZ_NEG, RZ_ABOVE_MAX, RZ_BELOW_PENDING, RZ_MAX };

static int bm_resize_cq(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct timespec ts = { .tv_nsec = 200 * 1000 * 1000 };
	struct ibv_send_wr wr[8], *bad;
	struct ibv_sge sge[8];
	struct ibv_wc wc[8];
	struct it_buf *lb = NULL, *rb = NULL;
	struct it_ep a, b;
	int cqe0, cqe = 0, i, ret;

	if (pair(t, &a, &b, IBV_QPT_RC))
		return IT_FAIL;
	cqe0 = a.scq->cqe;
	switch (c->arg) {
	case RZ_ZERO:
		cqe = 0;
		break;
	case RZ_NEG:
		cqe = -1;
		break;
	case RZ_ABOVE_MAX:
		cqe = env->dev.max_cqe + 1;
		break;
	case RZ_MAX:
		cqe = env->dev.max_cqe;
		break;
	case RZ_BELOW_PENDING:
		/* 8 completions waiting in the CQ: it cannot shrink to 2. */
		cqe = 2;
		lb = it_buf_new(t, 8 * 64, IT_ACCESS_ALL, it_seed(t, 1));
		rb = it_buf_new(t, 8 * 64, IT_ACCESS_ALL, 0);
		if (!lb || !rb)
			return IT_FAIL;
		for (i = 0; i < 8; i++) {
			it_wr(&wr[i], &sge[i], i, IBV_WR_RDMA_WRITE, lb, 64 * i,
			      64);
			it_wr_rdma(&wr[i], rb, 64 * i);
			wr[i].next = i < 7 ? &wr[i + 1] : NULL;
		}
		ret = ibv_post_send(a.qp, wr, &bad);
		IT_EXPECT(t, !ret, "ibv_post_send: %d", ret);
		if (it_verify_eventually(t, rb->addr, 8 * 64, it_seed(t, 1), 0,
					 "written bytes"))
			return IT_FAIL;
		nanosleep(&ts, NULL);
		break;
	}
	ret = ibv_resize_cq(a.scq, cqe);
	if (expect_ret(t, c, ret, "ibv_resize_cq"))
		return IT_FAIL;
	if (c->err)
		IT_EXPECT(t, a.scq->cqe == cqe0, "cqe went from %d to %d", cqe0,
			  a.scq->cqe);
	else
		IT_EXPECT(t, a.scq->cqe >= cqe, "cqe %d after resizing to %d",
			  a.scq->cqe, cqe);
	if (c->arg == RZ_BELOW_PENDING) {
		it_where(t, "the 8 completions");
		if (it_poll(t, a.scq, wc, 8, "completions"))
			return IT_FAIL;
		for (i = 0; i < 8; i++) {
			struct it_wc_exp e =
				it_exp_send(i, IBV_WC_RDMA_WRITE, a.qp);

			if (it_check_wc(t, &wc[i], &e, "completion"))
				return IT_FAIL;
		}
	}
	it_where(t, "afterwards");
	return still_works(t, &a, &b);
}

/* req_notify_cq: nothing is invalid; both forms must be harmless. */

enum { RN_NO_CHANNEL, RN_SOLICITED_2 };

static int bm_req_notify(struct it_test *t, const struct bm_case *c)
{
	struct it_ep a, b;
	int ret;

	if (pair(t, &a, &b, IBV_QPT_RC))
		return IT_FAIL;
	ret = ibv_req_notify_cq(c->arg == RN_NO_CHANNEL ? a.scq : b.rcq,
				c->arg == RN_SOLICITED_2 ? 2 : 0);
	if (expect_ret(t, c, ret, "ibv_req_notify_cq"))
		return IT_FAIL;
	it_where(t, "afterwards");
	return still_works(t, &a, &b);
}

/* create_qp */

enum {
	QP_SWR_ABOVE,
	QP_RWR_ABOVE,
	QP_SSGE_ABOVE,
	QP_RSGE_ABOVE,
	QP_INLINE_ABOVE,
	QP_ZERO,
	QP_SWR_0,
	QP_RWR_0,
	QP_MAX_WR,
	QP_MAX_SGE,
	QP_TYPE_99,
	QP_TYPE_RAW,
	QP_SCQ_NULL,
	QP_CQ_CTX2,
	QP_CQ_CTX2_SAME_HANDLE,
	QP_UC_SRQ,
	QP_SRQ_CTX2
};

static int bm_create_qp(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_qp_init_attr ia;
	struct ibv_cq *mine = NULL, *cq2 = NULL;
	struct ibv_srq *srq;
	struct it_ep a, b;
	struct ibv_qp *qp;
	int i;

	if (pair(t, &a, &b, IBV_QPT_RC))
		return IT_FAIL;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = a.scq;
	ia.recv_cq = a.rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	switch (c->arg) {
	case QP_SWR_ABOVE:
		ia.cap.max_send_wr = env->dev.max_qp_wr + 1;
		break;
	case QP_RWR_ABOVE:
		ia.cap.max_recv_wr = env->dev.max_qp_wr + 1;
		break;
	case QP_SSGE_ABOVE:
		ia.cap.max_send_sge = env->dev.max_sge + 1;
		break;
	case QP_RSGE_ABOVE:
		ia.cap.max_recv_sge = env->dev.max_sge + 1;
		break;
	case QP_INLINE_ABOVE:
		ia.cap.max_inline_data = 1u << 20;
		break;
	case QP_ZERO:
		memset(&ia.cap, 0, sizeof(ia.cap));
		break;
	case QP_SWR_0:
		ia.cap.max_send_wr = 0;
		break;
	case QP_RWR_0:
		ia.cap.max_recv_wr = 0;
		break;
	case QP_MAX_WR:
		ia.cap.max_send_wr = env->dev.max_qp_wr;
		ia.cap.max_recv_wr = env->dev.max_qp_wr;
		break;
	case QP_MAX_SGE:
		ia.cap.max_send_sge = env->dev.max_sge;
		ia.cap.max_recv_sge = env->dev.max_sge;
		break;
	case QP_TYPE_99:
		ia.qp_type = (enum ibv_qp_type)99;
		break;
	case QP_TYPE_RAW:
		ia.qp_type = IBV_QPT_RAW_PACKET;
		break;
	case QP_SCQ_NULL:
		ia.send_cq = NULL;
		break;
	case QP_CQ_CTX2:
	case QP_CQ_CTX2_SAME_HANDLE:
		if (other_ctx(t))
			return IT_FAIL;
		/*
		 * Handles are numbered per context.  A CQ of ours, and CQs
		 * of ctx2 until one has the same handle number (or, for
		 * QP_CQ_CTX2, one whose number names nothing of ours).
		 */
		mine = ibv_create_cq(env->ctx, 4, NULL, NULL, 0);
		IT_EXPECT(t, mine, "ibv_create_cq: %s", strerror(errno));
		keep(K_CQ, mine);
		for (i = 0; i < 128; i++) {
			cq2 = ibv_create_cq(ctx2, 4, NULL, NULL, 0);
			IT_EXPECT(t, cq2, "ibv_create_cq(ctx2): %s",
				  strerror(errno));
			keep(K_CQ, cq2);
			if (c->arg == QP_CQ_CTX2_SAME_HANDLE
				    ? cq2->handle == mine->handle
				    : cq2->handle > mine->handle + 64)
				break;
		}
		if (c->arg == QP_CQ_CTX2_SAME_HANDLE &&
		    cq2->handle != mine->handle)
			return it_skip(t, "no CQ of ctx2 got handle %u",
				       mine->handle);
		ia.send_cq = cq2;
		ia.recv_cq = cq2;
		break;
	case QP_UC_SRQ:
	case QP_SRQ_CTX2:
		if (c->arg == QP_SRQ_CTX2) {
			struct ibv_srq_init_attr sa = {
				.attr = { .max_wr = 16, .max_sge = 1 },
			};

			if (other_ctx(t))
				return IT_FAIL;
			srq = ibv_create_srq(pd2, &sa);
			IT_EXPECT(t, srq, "ibv_create_srq(ctx2): %s",
				  strerror(errno));
			keep(K_SRQ, srq);
		} else {
			srq = it_srq_new(t, 16, 1, NULL);
			if (!srq)
				return IT_FAIL;
			ia.qp_type = IBV_QPT_UC;
		}
		ia.srq = srq;
		break;
	}
	errno = 0;
	qp = ibv_create_qp(env->pd, &ia);
	if (qp && c->arg == QP_CQ_CTX2_SAME_HANDLE) {
		/* Which CQ did the kernel attach?  Ours is busy if it did. */
		int busy = ibv_destroy_cq(mine);

		if (!busy)
			forget(mine);
		keep(K_QP, qp);
		return it_fail(
			t,
			"ibv_create_qp with a CQ of another context "
			"succeeded%s",
			busy == EBUSY
				? ": the kernel bound this context's CQ with "
				  "the same handle (ibv_destroy_cq on it: "
				  "EBUSY)"
				: "");
	}
	if (expect_obj(t, c, qp, K_QP, "ibv_create_qp"))
		return IT_FAIL;
	it_where(t, "afterwards");
	return still_works(t, &a, &b);
}

/* create_qp_ex */

enum {
	QPX_COMP_MASK,
	QPX_CREATE_FLAGS,
	QPX_OPS_UD_WRITE,
	QPX_OPS_UNKNOWN,
	QPX_NO_PD,
	QPX_XRC_SEND,
	QPX_OPS_RC_ALL
};

static int bm_create_qp_ex(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_qp_init_attr_ex a;
	struct it_ep x, y;
	struct ibv_qp *qp;

	if (pair(t, &x, &y, IBV_QPT_RC))
		return IT_FAIL;
	memset(&a, 0, sizeof(a));
	a.send_cq = x.scq;
	a.recv_cq = x.rcq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = env->pd;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	switch (c->arg) {
	case QPX_COMP_MASK:
		a.comp_mask |= 1u << 20;
		break;
	case QPX_CREATE_FLAGS:
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		break;
	case QPX_OPS_UD_WRITE:
		a.qp_type = IBV_QPT_UD;
		a.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
		break;
	case QPX_OPS_UNKNOWN:
		a.send_ops_flags |= 1ull << 40;
		break;
	case QPX_NO_PD:
		a.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.pd = NULL;
		break;
	case QPX_XRC_SEND:
		a.qp_type = IBV_QPT_XRC_SEND;
		break;
	case QPX_OPS_RC_ALL:
		a.send_ops_flags =
			IBV_QP_EX_WITH_RDMA_WRITE |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_READ |
			IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW |
			IBV_QP_EX_WITH_SEND_WITH_INV;
		break;
	}
	errno = 0;
	qp = ibv_create_qp_ex(env->ctx, &a);
	if (expect_obj(t, c, qp, K_QP, "ibv_create_qp_ex"))
		return IT_FAIL;
	it_where(t, "afterwards");
	return still_works(t, &x, &y);
}

/* modify_qp */

enum {
	MQ_RTS_TO_RTR,
	MQ_RESET_TO_RTR,
	MQ_STATE_99,
	MQ_MASK_UNKNOWN,
	MQ_RTS_RNR_RETRY,
	MQ_CUR_STATE_WRONG,
	MQ_INIT_PORT_2,
	MQ_INIT_PKEY_500,
	MQ_INIT_ACCESS_UNKNOWN,
	MQ_RTR_MTU_0,
	MQ_RTR_MTU_6,
	MQ_RTR_SGID_200,
	MQ_RTR_NO_AV,
	MQ_RTR_DQPN_25_BITS,
	MQ_RTR_DEST_RD_ATOMIC_255,
	MQ_RTS_RD_ATOMIC_255,
	MQ_RTS_TIMEOUT_32,
	MQ_RTS_RETRY_8
};

/* The state the QP is in when each case runs. */
static enum ibv_qp_state mq_from(int arg)
{
	switch (arg) {
	case MQ_RESET_TO_RTR:
	case MQ_INIT_PORT_2:
	case MQ_INIT_PKEY_500:
	case MQ_INIT_ACCESS_UNKNOWN:
		return IBV_QPS_RESET;
	case MQ_RTR_MTU_0:
	case MQ_RTR_MTU_6:
	case MQ_RTR_SGID_200:
	case MQ_RTR_NO_AV:
	case MQ_RTR_DQPN_25_BITS:
	case MQ_RTR_DEST_RD_ATOMIC_255:
		return IBV_QPS_INIT;
	case MQ_RTS_RD_ATOMIC_255:
	case MQ_RTS_TIMEOUT_32:
	case MQ_RTS_RETRY_8:
		return IBV_QPS_RTR;
	default:
		return IBV_QPS_RTS;
	}
}

/* Valid attributes for the transition to @to, as the harness uses them. */
static int mq_valid(struct it_test *t, struct ibv_qp_attr *qa,
		    enum ibv_qp_state to, uint32_t dqpn, uint32_t qpn)
{
	const struct it_env *env = t->env;
	int mask = IBV_QP_STATE;

	memset(qa, 0, sizeof(*qa));
	qa->qp_state = to;
	switch (to) {
	case IBV_QPS_INIT:
		qa->port_num = env->port;
		qa->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		qa->path_mtu = env->port_attr.active_mtu;
		qa->dest_qp_num = dqpn;
		qa->rq_psn = it_psn(dqpn);
		qa->ah_attr.is_global = 1;
		qa->ah_attr.dlid = env->port_attr.lid;
		qa->ah_attr.port_num = env->port;
		qa->ah_attr.grh.dgid = env->gid;
		qa->ah_attr.grh.sgid_index = env->gidx;
		qa->ah_attr.grh.hop_limit = 64;
		qa->max_dest_rd_atomic = 1;
		qa->min_rnr_timer = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		qa->sq_psn = it_psn(qpn);
		qa->timeout = 14;
		qa->retry_cnt = 7;
		qa->rnr_retry = 7;
		qa->max_rd_atomic = 1;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		break;
	}
	return mask;
}

static int bm_modify_qp(struct it_test *t, const struct bm_case *c)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	enum ibv_qp_state from = mq_from(c->arg), to = from + 1;
	struct ibv_qp_attr qa, before, after;
	struct ibv_qp_init_attr ia;
	struct it_ep a, b;
	int mask, ret, s;

	attr.cqe = 16;
	if (it_ep_new(t, &a, &attr) || it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	if (from != IBV_QPS_RESET && it_ep_bring_up(t, &a, from, b.qp->qp_num))
		return IT_FAIL;
	if (from == IBV_QPS_RTS)
		to = IBV_QPS_RTS;
	ret = ibv_query_qp(a.qp, &before,
			   IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_RNR_RETRY |
				   IBV_QP_MAX_QP_RD_ATOMIC,
			   &ia);
	IT_EXPECT(t, !ret, "ibv_query_qp: %s", strerror(ret));
	mask = mq_valid(t, &qa, to, b.qp->qp_num, a.qp->qp_num);
	switch (c->arg) {
	case MQ_RTS_TO_RTR:
		qa.qp_state = IBV_QPS_RTR;
		mask = IBV_QP_STATE;
		break;
	case MQ_RESET_TO_RTR:
		mask = mq_valid(t, &qa, IBV_QPS_RTR, b.qp->qp_num,
				a.qp->qp_num);
		break;
	case MQ_STATE_99:
		qa.qp_state = (enum ibv_qp_state)99;
		mask = IBV_QP_STATE;
		break;
	case MQ_MASK_UNKNOWN:
		mask = IBV_QP_STATE | 1 << 29;
		break;
	case MQ_RTS_RNR_RETRY:
		qa.rnr_retry = 3;
		mask = IBV_QP_STATE | IBV_QP_RNR_RETRY;
		break;
	case MQ_CUR_STATE_WRONG:
		qa.cur_qp_state = IBV_QPS_INIT;
		mask = IBV_QP_STATE | IBV_QP_CUR_STATE;
		break;
	case MQ_INIT_PORT_2:
		qa.port_num = 2;
		break;
	case MQ_INIT_PKEY_500:
		qa.pkey_index = 500;
		break;
	case MQ_INIT_ACCESS_UNKNOWN:
		qa.qp_access_flags |= 1u << 25;
		break;
	case MQ_RTR_MTU_0:
		qa.path_mtu = (enum ibv_mtu)0;
		break;
	case MQ_RTR_MTU_6:
		qa.path_mtu = (enum ibv_mtu)6;
		break;
	case MQ_RTR_SGID_200:
		qa.ah_attr.grh.sgid_index = 200;
		break;
	case MQ_RTR_NO_AV:
		mask &= ~IBV_QP_AV;
		break;
	case MQ_RTR_DQPN_25_BITS:
		qa.dest_qp_num |= 1u << 24;
		break;
	case MQ_RTR_DEST_RD_ATOMIC_255:
		qa.max_dest_rd_atomic = 255;
		break;
	case MQ_RTS_RD_ATOMIC_255:
		qa.max_rd_atomic = 255;
		break;
	case MQ_RTS_TIMEOUT_32:
		qa.timeout = 32;
		break;
	case MQ_RTS_RETRY_8:
		qa.retry_cnt = 8;
		break;
	}
	ret = ibv_modify_qp(a.qp, &qa, mask);
	if (expect_ret(t, c, ret, "ibv_modify_qp"))
		return IT_FAIL;
	it_where(t, "afterwards");
	if (!ret && c->err) {
		/* Taken (the kernel's answer): start again from RESET. */
		struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };

		ret = ibv_modify_qp(a.qp, &r, IBV_QP_STATE);
		IT_EXPECT(t, !ret, "ibv_modify_qp(RESET): %s", strerror(ret));
		if (it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num))
			return IT_FAIL;
		return still_works(t, &a, &b);
	}
	ret = ibv_query_qp(a.qp, &after,
			   IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_RNR_RETRY |
				   IBV_QP_MAX_QP_RD_ATOMIC,
			   &ia);
	IT_EXPECT(t, !ret, "ibv_query_qp: %s", strerror(ret));
	IT_EXPECT(t, after.qp_state == from, "state %d, was %d", after.qp_state,
		  from);
	IT_EXPECT(t, a.qp->state == from, "ibv_qp.state %d, was %d",
		  a.qp->state, from);
	if (from >= IBV_QPS_RTR)
		IT_EXPECT(t, after.path_mtu == before.path_mtu,
			  "path_mtu %d, was %d", after.path_mtu,
			  before.path_mtu);
	if (from == IBV_QPS_RTS)
		IT_EXPECT(t,
			  after.rnr_retry == before.rnr_retry &&
				  after.max_rd_atomic == before.max_rd_atomic,
			  "rnr_retry %d max_rd_atomic %d, were %d and %d",
			  after.rnr_retry, after.max_rd_atomic,
			  before.rnr_retry, before.max_rd_atomic);
	for (s = from + 1; s <= IBV_QPS_RTS; s++)
		if (it_ep_modify(t, &a, s, b.qp->qp_num))
			return IT_FAIL;
	return still_works(t, &a, &b);
}

/* query_qp: the mask is a hint; odd masks must still answer. */

enum { QQ_MASK_0, QQ_MASK_UNKNOWN };

static int bm_query_qp(struct it_test *t, const struct bm_case *c)
{
	struct ibv_qp_attr qa, full;
	struct ibv_qp_init_attr ia, fia;
	struct it_ep a, b;
	int ret;

	struct ibv_qp_attr before;
	struct ibv_qp_init_attr bia;

	if (pair(t, &a, &b, IBV_QPT_RC))
		return IT_FAIL;
	ret = ibv_query_qp(a.qp, &before, IBV_QP_STATE | IBV_QP_CAP, &bia);
	IT_EXPECT(t, !ret, "ibv_query_qp: %s", strerror(ret));
	ret = ibv_query_qp(a.qp, &qa, c->arg == QQ_MASK_0 ? 0 : 1 << 29, &ia);
	if (expect_ret(t, c, ret, "ibv_query_qp"))
		return IT_FAIL;
	it_where(t, "afterwards");
	ret = ibv_query_qp(a.qp, &full, IBV_QP_STATE | IBV_QP_CAP, &fia);
	IT_EXPECT(t, !ret, "ibv_query_qp: %s", strerror(ret));
	IT_EXPECT(t,
		  full.qp_state == IBV_QPS_RTS &&
			  full.qp_state == before.qp_state &&
			  fia.cap.max_send_wr == bia.cap.max_send_wr &&
			  fia.cap.max_recv_wr == bia.cap.max_recv_wr,
		  "state %d max_send_wr %u max_recv_wr %u after the odd "
		  "query, %d %u %u before",
		  full.qp_state, fia.cap.max_send_wr, fia.cap.max_recv_wr,
		  before.qp_state, bia.cap.max_send_wr, bia.cap.max_recv_wr);
	return still_works(t, &a, &b);
}

/* create_srq, create_srq_ex */

enum {
	SRQ_WR_0,
	SRQ_WR_ABOVE,
	SRQ_SGE_ABOVE,
	SRQ_SGE_0,
	SRQ_MAX,
	SRQ_LIMIT_ABOVE_WR,
	SRQX_COMP_MASK,
	SRQX_TYPE_XRC,
	SRQX_TYPE_TM,
	SRQX_TYPE_99,
	SRQX_NO_PD
};

static int bm_create_srq(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_srq_init_attr_ex a;
	struct ibv_srq *srq;
	bool ex = c->arg >= SRQX_COMP_MASK;

	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 16;
	a.attr.max_sge = 1;
	a.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	a.pd = env->pd;
	a.srq_type = IBV_SRQT_BASIC;
	switch (c->arg) {
	case SRQ_WR_0:
		a.attr.max_wr = 0;
		break;
	case SRQ_WR_ABOVE:
		a.attr.max_wr = env->dev.max_srq_wr + 1;
		break;
	case SRQ_SGE_ABOVE:
		a.attr.max_sge = env->dev.max_srq_sge + 1;
		break;
	case SRQ_SGE_0:
		a.attr.max_sge = 0;
		break;
	case SRQ_MAX:
		a.attr.max_wr = env->dev.max_srq_wr;
		a.attr.max_sge = env->dev.max_srq_sge;
		break;
	case SRQ_LIMIT_ABOVE_WR:
		a.attr.srq_limit = 1000;
		break;
	case SRQX_COMP_MASK:
		a.comp_mask |= 1u << 10;
		break;
	case SRQX_TYPE_XRC:
		a.srq_type = IBV_SRQT_XRC;
		break;
	case SRQX_TYPE_TM:
		a.srq_type = IBV_SRQT_TM;
		break;
	case SRQX_TYPE_99:
		a.srq_type = (enum ibv_srq_type)99;
		break;
	case SRQX_NO_PD:
		a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
		a.pd = NULL;
		break;
	}
	errno = 0;
	if (ex) {
		srq = ibv_create_srq_ex(env->ctx, &a);
	} else {
		struct ibv_srq_init_attr sa = { .attr = a.attr };

		srq = ibv_create_srq(env->pd, &sa);
	}
	if (expect_obj(t, c, srq, K_SRQ,
		       ex ? "ibv_create_srq_ex" : "ibv_create_srq"))
		return IT_FAIL;
	it_where(t, "afterwards");
	return it_srq_new(t, 16, 1, NULL) ? 0 : IT_FAIL;
}

/* modify_srq */

enum {
	MS_LIMIT_ABOVE_WR,
	MS_WR_ABOVE_MAX,
	MS_WR_BELOW_POSTED,
	MS_MASK_UNKNOWN,
	MS_WR_0,
	MS_LIMIT_0
};

static int bm_modify_srq(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_srq_attr before, sa, after;
	struct ibv_srq *srq;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	int i, mask = 0, ret;

	srq = it_srq_new(t, 16, 1, &before);
	if (!srq)
		return IT_FAIL;
	attr.cqe = 16;
	if (it_ep_new(t, &a, &attr))
		return IT_FAIL;
	attr.srq = srq;
	if (it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	rb = it_buf_new(t, 4 * 64, IBV_ACCESS_LOCAL_WRITE, 0);
	sb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!rb || !sb)
		return IT_FAIL;
	for (i = 0; i < 4; i++)
		if (it_post_srq_recv(t, srq, 100 + i, rb, 64 * i, 64))
			return IT_FAIL;
	ret = ibv_query_srq(srq, &before);
	IT_EXPECT(t, !ret, "ibv_query_srq: %s", strerror(ret));
	sa = before;
	switch (c->arg) {
	case MS_LIMIT_ABOVE_WR:
		sa.srq_limit = before.max_wr + 1;
		mask = IBV_SRQ_LIMIT;
		break;
	case MS_WR_ABOVE_MAX:
		sa.max_wr = env->dev.max_srq_wr + 1;
		mask = IBV_SRQ_MAX_WR;
		break;
	case MS_WR_BELOW_POSTED:
		sa.max_wr = 2;
		mask = IBV_SRQ_MAX_WR;
		break;
	case MS_MASK_UNKNOWN:
		sa.srq_limit = 1;
		mask = IBV_SRQ_LIMIT | (1 << 5);
		break;
	case MS_WR_0:
		sa.max_wr = 0;
		mask = IBV_SRQ_MAX_WR;
		break;
	case MS_LIMIT_0:
		sa.srq_limit = 0;
		mask = IBV_SRQ_LIMIT;
		break;
	}
	ret = ibv_modify_srq(srq, &sa, mask);
	if (expect_ret(t, c, ret, "ibv_modify_srq"))
		return IT_FAIL;
	it_where(t, "afterwards");
	ret = ibv_query_srq(srq, &after);
	IT_EXPECT(t, !ret, "ibv_query_srq: %s", strerror(ret));
	IT_EXPECT(t,
		  after.max_wr == before.max_wr &&
			  after.srq_limit == before.srq_limit,
		  "max_wr %u srq_limit %u, were %u and %u", after.max_wr,
		  after.srq_limit, before.max_wr, before.srq_limit);
	/* The 4 receives posted before are still there, in order. */
	for (i = 0; i < 4; i++) {
		uint64_t seed = it_seed(t, 10 + i);
		struct ibv_send_wr wr;
		struct ibv_sge sge;
		struct it_wc_exp e;

		it_where(t, "receive %d posted before", i);
		it_fill(sb->addr, 50 + i, seed, 0);
		it_wr(&wr, &sge, i, IBV_WR_SEND, sb, 0, 50 + i);
		if (it_post_send(t, a.qp, &wr))
			return IT_FAIL;
		e = it_exp_send(i, IBV_WC_SEND, a.qp);
		if (it_expect_wc(t, a.scq, &e, "send completion"))
			return IT_FAIL;
		e = it_exp_recv(100 + i, IBV_WC_RECV, b.qp, 50 + i);
		if (it_expect_wc(t, b.rcq, &e, "receive completion") ||
		    it_verify(t, rb->addr + 64 * i, 50 + i, seed, 0,
			      "received bytes"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return it_quiet(t, b.rcq, "receive CQ");
}

/* post_send */

enum {
	PS_FLAGS_UNKNOWN,
	PS_NUM_SGE_NEG,
	PS_LEN_ABOVE_2G,
	PS_ATOMIC_LEN_4,
	PS_INLINE_READ,
	PS_UD_NULL_AH,
	PS_UD_AH_OTHER_PD,
	PS_UD_AH_CTX2,
	PS_SEND_INV_UD,
	PS_LOCAL_INV_UC,
	PS_BIND_MW_NULL,
	PS_OPCODE_NEG,
	PS_NUM_SGE_0_SEND,
	PS_RDMA_READ_INLINE_0
};

static int bm_post_send(struct it_test *t, const struct bm_case *c)
{
	enum ibv_qp_type type = IBV_QPT_RC;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge[2];
	struct it_buf *lb, *rb;
	struct ibv_pd *pd = NULL;
	struct it_ep a, b;
	int ret;

	if (c->arg >= PS_UD_NULL_AH && c->arg <= PS_SEND_INV_UD)
		type = IBV_QPT_UD;
	if (c->arg == PS_LOCAL_INV_UC)
		type = IBV_QPT_UC;
	if (pair(t, &a, &b, type))
		return IT_FAIL;
	lb = it_buf_new(t, 4096, IT_ACCESS_ALL, 0);
	rb = it_buf_new(t, 4096, IT_ACCESS_ALL, 0);
	if (!lb || !rb)
		return IT_FAIL;
	it_wr(&wr, &sge[0], 9, IBV_WR_SEND, lb, 0, 64);
	it_wr_dest(&wr, &a, &b);
	switch (c->arg) {
	case PS_FLAGS_UNKNOWN:
		wr.send_flags |= 1u << 20;
		break;
	case PS_NUM_SGE_NEG:
		wr.num_sge = -1;
		break;
	case PS_LEN_ABOVE_2G:
		sge[0].length = 0x80000000u;
		sge[1] = sge[0];
		sge[1].length = 1;
		wr.num_sge = 2;
		break;
	case PS_ATOMIC_LEN_4:
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		sge[0].length = 4;
		wr.wr.atomic.remote_addr = (uintptr_t)rb->addr;
		wr.wr.atomic.rkey = rb->mr->rkey;
		break;
	case PS_INLINE_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags |= IBV_SEND_INLINE;
		sge[0].length = 8;
		it_wr_rdma(&wr, rb, 0);
		break;
	case PS_UD_NULL_AH:
		wr.wr.ud.ah = NULL;
		break;
	case PS_UD_AH_OTHER_PD:
	case PS_UD_AH_CTX2:
		if (c->arg == PS_UD_AH_CTX2) {
			if (other_ctx(t))
				return IT_FAIL;
			pd = pd2;
		} else {
			pd = other_pd(t);
		}
		wr.wr.ud.ah = pd ? ah_in(t, pd) : NULL;
		if (!wr.wr.ud.ah)
			return IT_FAIL;
		break;
	case PS_SEND_INV_UD:
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.invalidate_rkey = rb->mr->rkey;
		break;
	case PS_LOCAL_INV_UC:
		wr.opcode = IBV_WR_LOCAL_INV;
		wr.invalidate_rkey = rb->mr->rkey;
		break;
	case PS_BIND_MW_NULL:
		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = NULL;
		break;
	case PS_OPCODE_NEG:
		wr.opcode = (enum ibv_wr_opcode) - 1;
		break;
	case PS_NUM_SGE_0_SEND:
	case PS_RDMA_READ_INLINE_0:
		break;
	}
	ret = ibv_post_send(a.qp, &wr, &bad);
	if (!ret && c->err) {
		/* Taken: say what the kernel made of it. */
		struct ibv_wc wc;
		int n = 0;
		uint64_t end = it_now_ms() + t->env->timeout_ms;

		while (!n && it_now_ms() < end)
			n = ibv_poll_cq(a.scq, 1, &wc);
		return it_fail(t,
			       "ibv_post_send returned success, expected "
			       "%s; the WR then completed with %s",
			       en(c->err),
			       n == 1 ? ibv_wc_status_str(wc.status)
				      : "nothing");
	}
	if (expect_post(t, c, ret, bad, &wr, "ibv_post_send"))
		return IT_FAIL;
	return refused_quietly(t, &a, &b);
}

/*
 * ibv_wr_*: the same bad parts as ibv_post_send's, through the builders
 * and setters.  The batch's one WR is refused at ibv_wr_complete with the
 * errno ibv_post_send gives the same WR; nothing is posted.
 */
enum {
	WRS_LEN_ABOVE_2G,
	WRS_UD_AH_OTHER_PD,
	WRS_SGES_ABOVE_MAX,
	WRS_INLINE_ABOVE_MAX
};

static int bm_wr_send(struct it_test *t, const struct bm_case *c)
{
	struct it_qp_attr attr;
	struct ibv_qp_ex *qpx;
	struct ibv_ah *ah = NULL;
	struct ibv_sge *sge;
	struct it_buf *lb;
	struct it_ep a, b;
	uint32_t i, n;
	char *inl;

	attr = it_qp_defaults(c->arg == WRS_UD_AH_OTHER_PD ? IBV_QPT_UD
							   : IBV_QPT_RC);
	attr.cqe = 16;
	attr.send_wr = 16;
	attr.recv_wr = 16;
	attr.send_ops_flags = IBV_QP_EX_WITH_SEND;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	qpx = ibv_qp_to_qp_ex(a.qp);
	IT_EXPECT(t, qpx, "ibv_qp_to_qp_ex: NULL");
	lb = it_buf_new(t, 4096, IT_ACCESS_ALL, 0);
	n = a.cap.max_send_sge + 1;
	sge = it_alloc(t, n * sizeof(*sge));
	inl = it_alloc(t, a.cap.max_inline_data + 1);
	if (!lb || !sge || !inl)
		return IT_FAIL;
	for (i = 0; i < n; i++)
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)lb->addr,
					   .length = 8,
					   .lkey = lb->mr->lkey };
	if (c->arg == WRS_UD_AH_OTHER_PD) {
		struct ibv_pd *pd = other_pd(t);

		ah = pd ? ah_in(t, pd) : NULL;
		if (!ah)
			return IT_FAIL;
	}
	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	switch (c->arg) {
	case WRS_LEN_ABOVE_2G:
		sge[0].length = 0x80000000u;
		sge[1].length = 1;
		ibv_wr_set_sge_list(qpx, 2, sge);
		break;
	case WRS_UD_AH_OTHER_PD:
		ibv_wr_set_ud_addr(qpx, ah, b.qp->qp_num, IT_QKEY);
		ibv_wr_set_sge_list(qpx, 1, sge);
		break;
	case WRS_SGES_ABOVE_MAX:
		ibv_wr_set_sge_list(qpx, n, sge);
		break;
	case WRS_INLINE_ABOVE_MAX:
		ibv_wr_set_inline_data(qpx, inl, a.cap.max_inline_data + 1);
		break;
	}
	if (expect_ret(t, c, ibv_wr_complete(qpx), "ibv_wr_complete"))
		return IT_FAIL;
	return refused_quietly(t, &a, &b);
}

/* post_recv, post_srq_recv */

enum {
	PR_NUM_SGE_NEG,
	PR_LEN_ABOVE_4G,
	PR_ON_SRQ_QP,
	PR_ZERO_SGES,
	PSR_NUM_SGE_NEG,
	PSR_LEN_ABOVE_4G,
	PSR_ZERO_SGES
};

static int bm_post_recv(struct it_test *t, const struct bm_case *c)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	bool on_srq = c->arg >= PSR_NUM_SGE_NEG || c->arg == PR_ON_SRQ_QP;
	bool zero = c->arg == PR_ZERO_SGES || c->arg == PSR_ZERO_SGES;
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_send_wr swr;
	struct ibv_sge sge[2], ssge;
	struct ibv_srq *srq = NULL;
	struct it_wc_exp e;
	struct it_buf *rb, *sb;
	struct it_ep a, b;
	int ret;

	attr.cqe = 16;
	if (on_srq) {
		srq = it_srq_new(t, 16, 2, NULL);
		if (!srq)
			return IT_FAIL;
	}
	if (it_ep_new(t, &a, &attr))
		return IT_FAIL;
	attr.srq = srq;
	attr.recv_sge = 2;
	if (it_ep_new(t, &b, &attr) ||
	    it_ep_bring_up(t, &a, IBV_QPS_RTS, b.qp->qp_num) ||
	    it_ep_bring_up(t, &b, IBV_QPS_RTS, a.qp->qp_num))
		return IT_FAIL;
	rb = it_buf_new(t, 4096, IBV_ACCESS_LOCAL_WRITE, 0);
	sb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!rb || !sb)
		return IT_FAIL;
	memset(&wr, 0, sizeof(wr));
	sge[0].addr = (uintptr_t)rb->addr;
	sge[0].length = 256;
	sge[0].lkey = rb->mr->lkey;
	wr.wr_id = 5;
	wr.sg_list = sge;
	wr.num_sge = 1;
	switch (c->arg) {
	case PR_NUM_SGE_NEG:
	case PSR_NUM_SGE_NEG:
		wr.num_sge = -1;
		break;
	case PR_LEN_ABOVE_4G:
	case PSR_LEN_ABOVE_4G:
		sge[0].length = 0xffffffffu;
		sge[1] = sge[0];
		sge[1].length = 2;
		wr.num_sge = 2;
		break;
	case PR_ZERO_SGES:
	case PSR_ZERO_SGES:
		wr.num_sge = 0;
		break;
	case PR_ON_SRQ_QP:
		break;
	}
	if (srq && c->arg != PR_ON_SRQ_QP)
		ret = ibv_post_srq_recv(srq, &wr, &bad);
	else
		ret = ibv_post_recv(b.qp, &wr, &bad);
	if (expect_post(t, c, ret, bad, &wr,
			srq && c->arg != PR_ON_SRQ_QP ? "ibv_post_srq_recv"
						      : "ibv_post_recv"))
		return IT_FAIL;
	it_where(t, "afterwards");
	if (zero) {
		/* A zero-SGE receive takes a zero-byte send. */
		it_wr(&swr, &ssge, 1, IBV_WR_SEND, sb, 0, 0);
		if (it_post_send(t, a.qp, &swr))
			return IT_FAIL;
		e = it_exp_send(1, IBV_WC_SEND, a.qp);
		if (it_expect_wc(t, a.scq, &e, "send completion"))
			return IT_FAIL;
		e = it_exp_recv(5, IBV_WC_RECV, b.qp, 0);
		if (it_expect_wc(t, b.rcq, &e, "receive completion"))
			return IT_FAIL;
	}
	if (srq) {
		uint64_t poison = it_seed(t, 3);
		struct it_buf *rb2 =
			it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, poison);

		if (!rb2 || it_post_srq_recv(t, srq, 177, rb2, 0, 256))
			return IT_FAIL;
		if (it_send_check(t, &a, &b, 77, 177, sb, rb2, 200,
				  it_seed(t, 4), poison) ||
		    it_quiet(t, a.scq, "send CQ") ||
		    it_quiet(t, b.rcq, "receive CQ"))
			return IT_FAIL;
		return 0;
	}
	return still_works(t, &a, &b);
}

/* create_ah */

enum { AH_PORT_0, AH_PORT_2, AH_NO_GRH, AH_SGID_PAST_TABLE, AH_SGID_EMPTY };

static int bm_create_ah(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_ah_attr aa = self_ah_attr(env);
	struct ibv_ah *ah;
	struct it_ep a, b;

	if (pair(t, &a, &b, IBV_QPT_UD))
		return IT_FAIL;
	switch (c->arg) {
	case AH_PORT_0:
		aa.port_num = 0;
		break;
	case AH_PORT_2:
		aa.port_num = 2;
		break;
	case AH_NO_GRH:
		if (env->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET &&
		    !(env->port_attr.flags & IBV_QPF_GRH_REQUIRED))
			return it_skip(t, "an InfiniBand port takes an AH "
					  "without a GRH");
		aa.is_global = 0;
		break;
	case AH_SGID_PAST_TABLE:
		aa.grh.sgid_index = env->port_attr.gid_tbl_len;
		break;
	case AH_SGID_EMPTY:
		/*
		 * The last entry is empty unless it is the only one, on
		 * RoCE; an InfiniBand port's entries are its GUIDs.
		 */
		if (env->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET)
			return it_skip(t, "an InfiniBand port's GID table "
					  "holds its GUIDs: none is empty");
		if (env->port_attr.gid_tbl_len < 2)
			return it_skip(t, "the GID table has one entry, in "
					  "use: none is empty");
		aa.grh.sgid_index = env->port_attr.gid_tbl_len - 1;
		break;
	}
	errno = 0;
	ah = ibv_create_ah(env->pd, &aa);
	if (expect_obj(t, c, ah, K_AH, "ibv_create_ah"))
		return IT_FAIL;
	it_where(t, "afterwards");
	return still_works(t, &a, &b);
}

/* reg_mr */

enum {
	MR_REMOTE_WRITE_ONLY,
	MR_REMOTE_ATOMIC_ONLY,
	MR_ACCESS_UNKNOWN,
	MR_LEN_0,
	MR_NULL_ADDR,
	MR_UNMAPPED,
	MR_ON_DEMAND
};

/* Does the device offer on-demand paging for RC (ibv_query_device_ex)? */
static bool bm_device_has_odp(const struct it_env *env)
{
	struct ibv_device_attr_ex ex;

	memset(&ex, 0, sizeof(ex));
	if (ibv_query_device_ex(env->ctx, NULL, &ex))
		return false;
	return (ex.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (ex.odp_caps.per_transport_caps.rc_odp_caps &
		IBV_ODP_SUPPORT_SEND);
}

static int bm_reg_mr(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct it_buf *b = it_buf_new(t, 8192, IBV_ACCESS_LOCAL_WRITE, 0);
	void *addr;
	size_t len = 4096;
	int access = IBV_ACCESS_LOCAL_WRITE;
	struct ibv_mr *mr;

	if (!b)
		return IT_FAIL;
	addr = b->addr;
	switch (c->arg) {
	case MR_REMOTE_WRITE_ONLY:
		access = IBV_ACCESS_REMOTE_WRITE;
		break;
	case MR_REMOTE_ATOMIC_ONLY:
		access = IBV_ACCESS_REMOTE_ATOMIC;
		break;
	case MR_ACCESS_UNKNOWN:
		access |= 1 << 18;
		break;
	case MR_LEN_0:
		len = 0;
		break;
	case MR_NULL_ADDR:
		addr = NULL;
		break;
	case MR_UNMAPPED:
		addr = (void *)(uintptr_t)0x7ff000000000ull;
		break;
	case MR_ON_DEMAND:
		access |= IBV_ACCESS_ON_DEMAND;
		break;
	}
	errno = 0;
	mr = ibv_reg_mr(env->pd, addr, len, access);
	if (c->arg == MR_ON_DEMAND && bm_device_has_odp(env)) {
		/* Linux 7.x rxe pages on demand: the MR is a real one. */
		IT_EXPECT(t, mr != NULL,
			  "ibv_reg_mr failed with %s on a device with ODP",
			  en(errno));
		keep(K_MR, mr);
	} else if (expect_obj(t, c, mr, K_MR, "ibv_reg_mr")) {
		return IT_FAIL;
	}
	it_where(t, "afterwards");
	mr = ibv_reg_mr(env->pd, b->addr, 4096, IT_ACCESS_ALL);
	keep(K_MR, mr);
	IT_EXPECT(t, mr, "a good ibv_reg_mr failed: %s", strerror(errno));
	return 0;
}

/* alloc_mw, bind_mw */

enum {
	MW_TYPE_0,
	MW_TYPE_3,
	BM_TYPE_2,
	BM_MW_CTX2,
	BM_FLAGS_UNKNOWN,
	BM_QP_RESET,
	BM_MR_NULL_WITH_LENGTH,
	BM_MR_OTHER_PD
};

static int bm_mw(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_mw_bind bind;
	struct ibv_mw *mw;
	struct ibv_mr *mr = NULL;
	struct ibv_qp *qp;
	struct it_buf *b;
	struct it_ep x, y, r;
	struct ibv_wc wc;
	uint32_t rkey0;
	int ret;

	if (c->arg <= MW_TYPE_3) {
		errno = 0;
		mw = ibv_alloc_mw(env->pd, c->arg == MW_TYPE_0
						   ? (enum ibv_mw_type)0
						   : (enum ibv_mw_type)3);
		if (expect_obj(t, c, mw, K_MW, "ibv_alloc_mw"))
			return IT_FAIL;
		it_where(t, "afterwards");
		mw = ibv_alloc_mw(env->pd, IBV_MW_TYPE_1);
		keep(K_MW, mw);
		/* BM_NO_MW: there, a good one is refused as unsupported. */
		if (it_backend(env) == IT_MLX5) {
			IT_EXPECT(t, !mw && errno == EOPNOTSUPP,
				  "a good ibv_alloc_mw: %s, not EOPNOTSUPP",
				  mw ? "created" : strerror(errno));
			return 0;
		}
		IT_EXPECT(t, mw, "a good ibv_alloc_mw failed: %s",
			  strerror(errno));
		return 0;
	}
	if (pair(t, &x, &y, IBV_QPT_RC))
		return IT_FAIL;
	b = it_buf_new(t, 4096, IT_ACCESS_ALL | IBV_ACCESS_MW_BIND, 0);
	if (!b)
		return IT_FAIL;
	mw = ibv_alloc_mw(env->pd,
			  c->arg == BM_TYPE_2 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1);
	IT_EXPECT(t, mw, "ibv_alloc_mw: %s", strerror(errno));
	keep(K_MW, mw);
	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 1;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mr = b->mr;
	bind.bind_info.addr = (uintptr_t)b->addr;
	bind.bind_info.length = 4096;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	qp = x.qp;
	switch (c->arg) {
	case BM_MW_CTX2: {
		struct ibv_mr *mr2;

		if (other_ctx(t))
			return IT_FAIL;
		mw = ibv_alloc_mw(pd2, IBV_MW_TYPE_1);
		IT_EXPECT(t, mw, "ibv_alloc_mw(ctx2): %s", strerror(errno));
		keep(K_MW, mw);
		mr2 = ibv_reg_mr(pd2, b->addr, 4096,
				 IT_ACCESS_ALL | IBV_ACCESS_MW_BIND);
		IT_EXPECT(t, mr2, "ibv_reg_mr(ctx2): %s", strerror(errno));
		keep(K_MR, mr2);
		bind.bind_info.mr = mr2;
		break;
	}
	case BM_FLAGS_UNKNOWN:
		bind.send_flags |= 1u << 20;
		break;
	case BM_QP_RESET: {
		struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);

		attr.cqe = 16;
		if (it_ep_new(t, &r, &attr))
			return IT_FAIL;
		qp = r.qp;
		break;
	}
	case BM_MR_NULL_WITH_LENGTH:
		bind.bind_info.mr = NULL;
		break;
	case BM_MR_OTHER_PD: {
		struct ibv_pd *pd = ibv_alloc_pd(env->ctx);

		IT_EXPECT(t, pd, "ibv_alloc_pd: %s", strerror(errno));
		keep(K_PD, pd);
		mr = ibv_reg_mr(pd, b->addr, 4096,
				IT_ACCESS_ALL | IBV_ACCESS_MW_BIND);
		IT_EXPECT(t, mr, "ibv_reg_mr: %s", strerror(errno));
		keep(K_MR, mr);
		bind.bind_info.mr = mr;
		break;
	}
	}
	rkey0 = mw->rkey;
	ret = ibv_bind_mw(qp, mw, &bind);
	if (expect_ret(t, c, ret, "ibv_bind_mw"))
		return IT_FAIL;
	it_where(t, "afterwards");
	IT_EXPECT(t, mw->rkey == rkey0,
		  "the MW's rkey changed from 0x%x to "
		  "0x%x",
		  rkey0, mw->rkey);
	if (it_quiet(t, x.scq, "send CQ (nothing for the refused bind)"))
		return IT_FAIL;
	if (c->arg != BM_MW_CTX2 && mw->type == IBV_MW_TYPE_1) {
		/* The same bind, made valid, works on the same QP. */
		bind.send_flags = IBV_SEND_SIGNALED;
		bind.bind_info.mr = b->mr;
		ret = ibv_bind_mw(x.qp, mw, &bind);
		IT_EXPECT(t, !ret, "a good ibv_bind_mw returned %s", en(ret));
		if (it_poll(t, x.scq, &wc, 1, "bind completion"))
			return IT_FAIL;
		IT_EXPECT(t, wc.status == IBV_WC_SUCCESS && wc.wr_id == 1,
			  "bind completion: wr_id %llu status %s",
			  (unsigned long long)wc.wr_id,
			  ibv_wc_status_str(wc.status));
	}
	return still_works(t, &x, &y);
}

/* alloc_td, alloc_parent_domain */

enum {
	TD_COMP_MASK,
	PAD_COMP_MASK,
	PAD_PD_NULL,
	PAD_PD_CTX2,
	PAD_TD_CTX2,
	PAD_PD_IS_PARENT
};

static int bm_domains(struct it_test *t, const struct bm_case *c)
{
	const struct it_env *env = t->env;
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_parent_domain_init_attr pa = { .pd = env->pd };
	struct ibv_td *td;
	struct ibv_pd *p;

	td = ibv_alloc_td(env->ctx, &ta);
	if (!td)
		return it_skip(t, "no thread domains (ibv_alloc_td: %s)",
			       en(errno));
	keep(K_TD, td);
	switch (c->arg) {
	case TD_COMP_MASK:
		ta.comp_mask = 1;
		errno = 0;
		td = ibv_alloc_td(env->ctx, &ta);
		if (expect_obj(t, c, td, K_TD, "ibv_alloc_td"))
			return IT_FAIL;
		ta.comp_mask = 0;
		it_where(t, "afterwards");
		td = ibv_alloc_td(env->ctx, &ta);
		keep(K_TD, td);
		IT_EXPECT(t, td, "a good ibv_alloc_td failed: %s",
			  strerror(errno));
		return 0;
	case PAD_COMP_MASK:
		pa.comp_mask = 1u << 5;
		break;
	case PAD_PD_NULL:
		pa.pd = NULL;
		break;
	case PAD_PD_CTX2:
		if (other_ctx(t))
			return IT_FAIL;
		pa.pd = pd2;
		break;
	case PAD_TD_CTX2:
		if (other_ctx(t))
			return IT_FAIL;
		pa.td = ibv_alloc_td(ctx2, &ta);
		IT_EXPECT(t, pa.td, "ibv_alloc_td(ctx2): %s", strerror(errno));
		keep(K_TD, pa.td);
		break;
	case PAD_PD_IS_PARENT:
		pa.pd = ibv_alloc_parent_domain(env->ctx, &pa);
		IT_EXPECT(t, pa.pd, "ibv_alloc_parent_domain: %s",
			  strerror(errno));
		keep(K_PD, pa.pd);
		break;
	}
	errno = 0;
	p = ibv_alloc_parent_domain(env->ctx, &pa);
	if (expect_obj(t, c, p, K_PD, "ibv_alloc_parent_domain"))
		return IT_FAIL;
	it_where(t, "afterwards");
	memset(&pa, 0, sizeof(pa));
	pa.pd = env->pd;
	pa.td = td;
	p = ibv_alloc_parent_domain(env->ctx, &pa);
	keep(K_PD, p);
	IT_EXPECT(t, p, "a good ibv_alloc_parent_domain failed: %s",
		  strerror(errno));
	return 0;
}

/* The table */

#define BM_CASES(X)                                                            \
	X(create_cq_cqe_0, bm_create_cq, CQ_ZERO, EINVAL, -1)                  \
	X(create_cq_cqe_negative, bm_create_cq, CQ_NEG, EINVAL, -1)            \
	X(create_cq_cqe_above_max_cqe, bm_create_cq, CQ_ABOVE_MAX, EINVAL, -1) \
	X(create_cq_cqe_max_cqe, bm_create_cq, CQ_MAX, 0, -1)                  \
	X(create_cq_comp_vector_out_of_range, bm_create_cq, CQ_VECTOR, EINVAL, \
	  -1)                                                                  \
	X(create_cq_channel_of_other_context, bm_create_cq, CQ_CHANNEL_CTX2,   \
	  EINVAL, EBADF)                                                       \
	X(create_cq_ex_unknown_comp_mask, bm_create_cq_ex, CQX_COMP_MASK,      \
	  EOPNOTSUPP, -1)                                                      \
	X(create_cq_ex_unknown_wc_flags, bm_create_cq_ex, CQX_WC_FLAGS,        \
	  EOPNOTSUPP, -1)                                                      \
	X(create_cq_ex_completion_timestamp, bm_create_cq_ex,                  \
	  CQX_WC_TIMESTAMP, EOPNOTSUPP, -1)                                    \
	X(create_cq_ex_completion_timestamp_of_a_device_with_a_clock,          \
	  bm_create_cq_ex, CQX_WC_TIMESTAMP_CLOCK, 0, -1)                      \
	X(create_cq_ex_unknown_create_flags, bm_create_cq_ex, CQX_FLAGS,       \
	  EOPNOTSUPP, -1)                                                      \
	X(create_cq_ex_parent_domain_is_plain_pd, bm_create_cq_ex,             \
	  CQX_PD_NOT_PARENT, EINVAL, -1)                                       \
	X(create_cq_ex_parent_domain_of_other_context, bm_create_cq_ex,        \
	  CQX_PARENT_CTX2, EINVAL, -1)                                         \
	X(create_cq_ex_cqe_0, bm_create_cq_ex, CQX_ZERO, EINVAL, -1)           \
	X(create_cq_ex_cqe_above_max_cqe, bm_create_cq_ex, CQX_ABOVE_MAX,      \
	  EINVAL, -1)                                                          \
	X(create_cq_ex_single_threaded_flag, bm_create_cq_ex,                  \
	  CQX_SINGLE_THREADED, 0, -1)                                          \
	X(resize_cq_to_0, bm_resize_cq, RZ_ZERO, EINVAL, -1)                   \
	X(resize_cq_to_negative, bm_resize_cq, RZ_NEG, EINVAL, -1)             \
	X(resize_cq_above_max_cqe, bm_resize_cq, RZ_ABOVE_MAX, EINVAL, -1)     \
	X(resize_cq_below_pending_completions, bm_resize_cq, RZ_BELOW_PENDING, \
	  EINVAL, -1)                                                          \
	X(resize_cq_to_max_cqe, bm_resize_cq, RZ_MAX, 0, -1)                   \
	X(req_notify_cq_without_channel, bm_req_notify, RN_NO_CHANNEL, 0, -1)  \
	X(req_notify_cq_solicited_only_2, bm_req_notify, RN_SOLICITED_2, 0,    \
	  -1)                                                                  \
	X(create_qp_max_send_wr_above_max, bm_create_qp, QP_SWR_ABOVE, EINVAL, \
	  -1)                                                                  \
	X(create_qp_max_recv_wr_above_max, bm_create_qp, QP_RWR_ABOVE, EINVAL, \
	  -1)                                                                  \
	X(create_qp_max_send_sge_above_max, bm_create_qp, QP_SSGE_ABOVE,       \
	  EINVAL, -1)                                                          \
	X(create_qp_max_recv_sge_above_max, bm_create_qp, QP_RSGE_ABOVE,       \
	  EINVAL, -1)                                                          \
	X(create_qp_max_inline_1MiB, bm_create_qp, QP_INLINE_ABOVE, EINVAL,    \
	  -1)                                                                  \
	X(create_qp_all_caps_0, bm_create_qp, QP_ZERO, 0, -1)                  \
	X(create_qp_max_send_wr_0, bm_create_qp, QP_SWR_0, 0, -1)              \
	X(create_qp_max_recv_wr_0, bm_create_qp, QP_RWR_0, 0, -1)              \
	X(create_qp_wr_at_device_max, bm_create_qp, QP_MAX_WR, 0, -1)          \
	X(create_qp_sge_at_device_max, bm_create_qp, QP_MAX_SGE, 0, -1)        \
	X(create_qp_type_99, bm_create_qp, QP_TYPE_99, EINVAL, -1)             \
	X(create_qp_type_raw_packet, bm_create_qp, QP_TYPE_RAW, EOPNOTSUPP,    \
	  -1)                                                                  \
	X(create_qp_send_cq_null, bm_create_qp, QP_SCQ_NULL, EINVAL, -1)       \
	X(create_qp_cq_of_other_context, bm_create_qp, QP_CQ_CTX2, EINVAL,     \
	  ENOENT)                                                              \
	X(create_qp_cq_of_other_context_same_handle, bm_create_qp,             \
	  QP_CQ_CTX2_SAME_HANDLE, EINVAL, ENOENT)                              \
	X(create_qp_uc_with_srq, bm_create_qp, QP_UC_SRQ, EINVAL, 0)           \
	X(create_qp_srq_of_other_context, bm_create_qp, QP_SRQ_CTX2, EINVAL,   \
	  -1)                                                                  \
	X(create_qp_ex_unknown_comp_mask, bm_create_qp_ex, QPX_COMP_MASK,      \
	  EOPNOTSUPP, -1)                                                      \
	X(create_qp_ex_create_flags, bm_create_qp_ex, QPX_CREATE_FLAGS,        \
	  EOPNOTSUPP, -1)                                                      \
	X(create_qp_ex_rdma_write_ops_on_ud, bm_create_qp_ex,                  \
	  QPX_OPS_UD_WRITE, EOPNOTSUPP, -1)                                    \
	X(create_qp_ex_unknown_send_ops, bm_create_qp_ex, QPX_OPS_UNKNOWN,     \
	  EOPNOTSUPP, -1)                                                      \
	X(create_qp_ex_without_pd, bm_create_qp_ex, QPX_NO_PD, EINVAL, -1)     \
	X(create_qp_ex_xrc_send, bm_create_qp_ex, QPX_XRC_SEND, EOPNOTSUPP,    \
	  -1)                                                                  \
	X(create_qp_ex_every_rc_send_op, bm_create_qp_ex, QPX_OPS_RC_ALL, 0,   \
	  -1)                                                                  \
	X(modify_qp_rts_to_rtr, bm_modify_qp, MQ_RTS_TO_RTR, EINVAL, -1)       \
	X(modify_qp_reset_to_rtr, bm_modify_qp, MQ_RESET_TO_RTR, EINVAL, -1)   \
	X(modify_qp_state_99, bm_modify_qp, MQ_STATE_99, EINVAL, -1)           \
	X(modify_qp_unknown_attr_mask_bit, bm_modify_qp, MQ_MASK_UNKNOWN,      \
	  EOPNOTSUPP, -1)                                                      \
	X(modify_qp_rts_to_rts_rnr_retry, bm_modify_qp, MQ_RTS_RNR_RETRY,      \
	  EINVAL, -1)                                                          \
	X(modify_qp_wrong_cur_state, bm_modify_qp, MQ_CUR_STATE_WRONG, EINVAL, \
	  -1)                                                                  \
	X(modify_qp_init_port_2, bm_modify_qp, MQ_INIT_PORT_2, EINVAL, -1)     \
	X(modify_qp_init_pkey_index_500, bm_modify_qp, MQ_INIT_PKEY_500,       \
	  EINVAL, 0)                                                           \
	X(modify_qp_init_unknown_access_flag, bm_modify_qp,                    \
	  MQ_INIT_ACCESS_UNKNOWN, EINVAL, 0)                                   \
	X(modify_qp_rtr_path_mtu_0, bm_modify_qp, MQ_RTR_MTU_0, EINVAL, 0)     \
	X(modify_qp_rtr_path_mtu_6, bm_modify_qp, MQ_RTR_MTU_6, EINVAL, -1)    \
	X(modify_qp_rtr_sgid_index_200, bm_modify_qp, MQ_RTR_SGID_200, EINVAL, \
	  ENODATA)                                                             \
	X(modify_qp_rtr_without_av, bm_modify_qp, MQ_RTR_NO_AV, EINVAL, -1)    \
	X(modify_qp_rtr_dest_qpn_above_24_bits, bm_modify_qp,                  \
	  MQ_RTR_DQPN_25_BITS, EINVAL, 0)                                      \
	X(modify_qp_rtr_max_dest_rd_atomic_255, bm_modify_qp,                  \
	  MQ_RTR_DEST_RD_ATOMIC_255, EINVAL, 0)                                \
	X(modify_qp_rts_max_rd_atomic_255, bm_modify_qp, MQ_RTS_RD_ATOMIC_255, \
	  EINVAL, -1)                                                          \
	X(modify_qp_rts_timeout_32, bm_modify_qp, MQ_RTS_TIMEOUT_32, EINVAL,   \
	  -1)                                                                  \
	X(modify_qp_rts_retry_cnt_8, bm_modify_qp, MQ_RTS_RETRY_8, EINVAL, 0)  \
	X(query_qp_attr_mask_0, bm_query_qp, QQ_MASK_0, 0, -1)                 \
	X(query_qp_unknown_attr_mask_bit, bm_query_qp, QQ_MASK_UNKNOWN,        \
	  EOPNOTSUPP, -1)                                                      \
	X(create_srq_max_wr_0, bm_create_srq, SRQ_WR_0, EINVAL, -1)            \
	X(create_srq_max_wr_above_max, bm_create_srq, SRQ_WR_ABOVE, EINVAL,    \
	  -1)                                                                  \
	X(create_srq_max_sge_above_max, bm_create_srq, SRQ_SGE_ABOVE, EINVAL,  \
	  -1)                                                                  \
	X(create_srq_max_sge_0, bm_create_srq, SRQ_SGE_0, 0, -1)               \
	X(create_srq_at_device_max, bm_create_srq, SRQ_MAX, 0, -1)             \
	X(create_srq_limit_above_max_wr_is_ignored, bm_create_srq,             \
	  SRQ_LIMIT_ABOVE_WR, 0, -1)                                           \
	X(create_srq_ex_unknown_comp_mask, bm_create_srq, SRQX_COMP_MASK,      \
	  EOPNOTSUPP, -1)                                                      \
	X(create_srq_ex_type_xrc, bm_create_srq, SRQX_TYPE_XRC, EOPNOTSUPP,    \
	  -1)                                                                  \
	X(create_srq_ex_type_tm, bm_create_srq, SRQX_TYPE_TM, EOPNOTSUPP, -1)  \
	X(create_srq_ex_type_99, bm_create_srq, SRQX_TYPE_99, EINVAL, -1)      \
	X(create_srq_ex_without_pd, bm_create_srq, SRQX_NO_PD, EINVAL, -1)     \
	X(modify_srq_limit_above_max_wr, bm_modify_srq, MS_LIMIT_ABOVE_WR,     \
	  EINVAL, -1)                                                          \
	X(modify_srq_max_wr_above_max, bm_modify_srq, MS_WR_ABOVE_MAX, EINVAL, \
	  -1)                                                                  \
	X(modify_srq_max_wr_below_posted, bm_modify_srq, MS_WR_BELOW_POSTED,   \
	  EINVAL, -1)                                                          \
	X(modify_srq_unknown_attr_mask_bit, bm_modify_srq, MS_MASK_UNKNOWN,    \
	  EINVAL, -1)                                                          \
	X(modify_srq_max_wr_0, bm_modify_srq, MS_WR_0, EINVAL, -1)             \
	X(post_send_unknown_send_flag, bm_post_send, PS_FLAGS_UNKNOWN, EINVAL, \
	  -1)                                                                  \
	X(post_send_num_sge_negative, bm_post_send, PS_NUM_SGE_NEG, EINVAL,    \
	  -1)                                                                  \
	X(post_send_length_above_2GiB, bm_post_send, PS_LEN_ABOVE_2G, EINVAL,  \
	  -1)                                                                  \
	X(post_send_atomic_of_4_bytes, bm_post_send, PS_ATOMIC_LEN_4, EINVAL,  \
	  -1)                                                                  \
	X(post_send_inline_rdma_read, bm_post_send, PS_INLINE_READ, EINVAL,    \
	  -1)                                                                  \
	X(post_send_opcode_negative, bm_post_send, PS_OPCODE_NEG, EINVAL, -1)  \
	X(post_send_ud_null_ah, bm_post_send, PS_UD_NULL_AH, EINVAL, -1)       \
	X(post_send_ud_ah_of_other_pd, bm_post_send, PS_UD_AH_OTHER_PD,        \
	  EINVAL, -1)                                                          \
	X(post_send_ud_ah_of_other_context, bm_post_send, PS_UD_AH_CTX2,       \
	  EINVAL, -1)                                                          \
	X(post_send_send_with_inv_on_ud, bm_post_send, PS_SEND_INV_UD, EINVAL, \
	  -1)                                                                  \
	X(post_send_local_inv_on_uc, bm_post_send, PS_LOCAL_INV_UC, EINVAL,    \
	  -1)                                                                  \
	X(post_send_bind_mw_null_mw, bm_post_send, PS_BIND_MW_NULL, EINVAL,    \
	  -1)                                                                  \
	X(wr_send_length_above_2GiB, bm_wr_send, WRS_LEN_ABOVE_2G, EINVAL, -1) \
	X(wr_send_ud_ah_of_other_pd, bm_wr_send, WRS_UD_AH_OTHER_PD, EINVAL,   \
	  -1)                                                                  \
	X(wr_send_sges_above_max, bm_wr_send, WRS_SGES_ABOVE_MAX, EINVAL, -1)  \
	X(wr_send_inline_above_max, bm_wr_send, WRS_INLINE_ABOVE_MAX, EINVAL,  \
	  -1)                                                                  \
	X(post_recv_num_sge_negative, bm_post_recv, PR_NUM_SGE_NEG, EINVAL,    \
	  -1)                                                                  \
	X(post_recv_length_above_4GiB, bm_post_recv, PR_LEN_ABOVE_4G, EINVAL,  \
	  -1)                                                                  \
	X(post_recv_on_qp_with_srq, bm_post_recv, PR_ON_SRQ_QP, EINVAL, -1)    \
	X(post_recv_zero_sges_takes_zero_byte_send, bm_post_recv,              \
	  PR_ZERO_SGES, 0, -1)                                                 \
	X(post_srq_recv_num_sge_negative, bm_post_recv, PSR_NUM_SGE_NEG,       \
	  EINVAL, -1)                                                          \
	X(post_srq_recv_length_above_4GiB, bm_post_recv, PSR_LEN_ABOVE_4G,     \
	  EINVAL, -1)                                                          \
	X(post_srq_recv_zero_sges_takes_zero_byte_send, bm_post_recv,          \
	  PSR_ZERO_SGES, 0, -1)                                                \
	X(create_ah_port_0, bm_create_ah, AH_PORT_0, EINVAL, -1)               \
	X(create_ah_port_2, bm_create_ah, AH_PORT_2, EINVAL, -1)               \
	X(create_ah_without_grh_on_roce, bm_create_ah, AH_NO_GRH, EINVAL, -1)  \
	X(create_ah_sgid_index_past_table, bm_create_ah, AH_SGID_PAST_TABLE,   \
	  EINVAL, -1)                                                          \
	X(create_ah_sgid_index_of_empty_entry, bm_create_ah, AH_SGID_EMPTY,    \
	  EINVAL, ENODATA)                                                     \
	X(reg_mr_remote_write_without_local_write, bm_reg_mr,                  \
	  MR_REMOTE_WRITE_ONLY, EINVAL, -1)                                    \
	X(reg_mr_remote_atomic_without_local_write, bm_reg_mr,                 \
	  MR_REMOTE_ATOMIC_ONLY, EINVAL, -1)                                   \
	X(reg_mr_unknown_access_flag, bm_reg_mr, MR_ACCESS_UNKNOWN, EINVAL,    \
	  -1)                                                                  \
	X(reg_mr_length_0, bm_reg_mr, MR_LEN_0, EINVAL, -1)                    \
	X(reg_mr_null_address, bm_reg_mr, MR_NULL_ADDR, EFAULT, -1)            \
	X(reg_mr_unmapped_address, bm_reg_mr, MR_UNMAPPED, EFAULT, -1)         \
	X(reg_mr_on_demand_paging, bm_reg_mr, MR_ON_DEMAND, EOPNOTSUPP,        \
	  EINVAL)                                                              \
	X(alloc_mw_type_0, bm_mw, MW_TYPE_0, EINVAL, -1)                       \
	X(alloc_mw_type_3, bm_mw, MW_TYPE_3, EINVAL, -1)                       \
	X(bind_mw_type_2_window, bm_mw, BM_TYPE_2, EINVAL, -1)                 \
	X(bind_mw_window_of_other_context, bm_mw, BM_MW_CTX2, EINVAL, -1)      \
	X(bind_mw_unknown_send_flag, bm_mw, BM_FLAGS_UNKNOWN, EINVAL, -1)      \
	X(bind_mw_qp_in_reset, bm_mw, BM_QP_RESET, EINVAL, -1)                 \
	X(bind_mw_null_mr_with_length, bm_mw, BM_MR_NULL_WITH_LENGTH, EINVAL,  \
	  -1)                                                                  \
	X(bind_mw_mr_of_other_pd, bm_mw, BM_MR_OTHER_PD, EPERM, -1)            \
	X(alloc_td_unknown_comp_mask, bm_domains, TD_COMP_MASK, EINVAL, -1)    \
	X(alloc_parent_domain_unknown_comp_mask, bm_domains, PAD_COMP_MASK,    \
	  EOPNOTSUPP, -1)                                                      \
	X(alloc_parent_domain_null_pd, bm_domains, PAD_PD_NULL, EINVAL, -1)    \
	X(alloc_parent_domain_pd_of_other_context, bm_domains, PAD_PD_CTX2,    \
	  EINVAL, -1)                                                          \
	X(alloc_parent_domain_td_of_other_context, bm_domains, PAD_TD_CTX2,    \
	  EINVAL, -1)                                                          \
	X(alloc_parent_domain_of_a_parent_domain, bm_domains,                  \
	  PAD_PD_IS_PARENT, EINVAL, -1)

#define BM_ROW(n, f, a, e, alt) { "matrix_" #n, f, a, e, alt },
static const struct bm_case bm_cases[] = { BM_CASES(BM_ROW) };

enum {
#define BM_IDX(n, f, a, e, alt) BM_I_##n,
	BM_CASES(BM_IDX)
#undef BM_IDX
};

/*
 * Where a ConnectX (the mlx5 backend, on hardware or on the software
 * ConnectX of tests/model/mlx5) answers otherwise than the table, and why: a
 * feature that rxe has and the mlx5 backend does not.  BM_NA: the case
 * cannot even be set up there; it is reported SKIP with the reason, and
 * the row named in the reason checks the EOPNOTSUPP that stops it.  Every
 * case not listed expects the same answer from both backends.
 */
#define BM_NA (-2)
#define BM_NO_MW                                                               \
	"the mlx5 backend has no memory windows (alloc_mw answers "            \
	"EOPNOTSUPP: no UMR WQEs)"

static const struct bm_other {
	const char *name; /* without "matrix_" */
	int err, alt;
	const char *why;
} bm_mlx5[] = {
	{ "create_qp_uc_with_srq", 0, -1,
	  "mlx5_ib creates a UC QP on an SRQ (libmlx5 too); rdma_rxe refuses "
	  "it" },
	{ "create_srq_max_wr_0", 0, -1,
	  "libmlx5 and mlx5_ib take max_wr 0: one WQE that holds no WR" },
	{ "create_qp_ex_xrc_send", 0, -1,
	  "the mlx5 backend serves XRC: an XRC initiator takes a PD and a "
	  "send CQ (libmlx5 creates it too)" },
	{ "create_srq_ex_type_xrc", EINVAL, -1,
	  "the mlx5 backend serves XRC SRQs; this one names no XRC domain "
	  "and no CQ" },
	{ "create_qp_ex_every_rc_send_op", EOPNOTSUPP, -1,
	  "LOCAL_INV and BIND_MW are not served on mlx5" },
	{ "wr_send_sges_above_max", ENOMEM, -1,
	  "libmlx5's answer to too many SGEs, in both send APIs" },
	{ "wr_send_inline_above_max", ENOMEM, -1,
	  "libmlx5's answer to too much inline data, in both send APIs" },
	{ "post_send_local_inv_on_uc", EOPNOTSUPP, -1,
	  "the mlx5 backend lacks LOCAL_INV on every QP type" },
	{ "post_send_bind_mw_null_mw", EOPNOTSUPP, -1, BM_NO_MW },
	{ "bind_mw_type_2_window", BM_NA, -1, BM_NO_MW },
	{ "bind_mw_window_of_other_context", BM_NA, -1, BM_NO_MW },
	{ "bind_mw_unknown_send_flag", BM_NA, -1, BM_NO_MW },
	{ "bind_mw_qp_in_reset", BM_NA, -1, BM_NO_MW },
	{ "bind_mw_null_mr_with_length", BM_NA, -1, BM_NO_MW },
	{ "bind_mw_mr_of_other_pd", BM_NA, -1, BM_NO_MW },
};

/* The mlx5 row of case @c, or NULL. */
static const struct bm_other *bm_other(const struct it_env *env,
				       const struct bm_case *c)
{
	size_t i;

	if (it_backend(env) != IT_MLX5)
		return NULL;
	for (i = 0; i < sizeof(bm_mlx5) / sizeof(bm_mlx5[0]); i++)
		if (!strcmp(c->name + strlen("matrix_"), bm_mlx5[i].name))
			return &bm_mlx5[i];
	return NULL;
}

/* What a case's child process reports to the test. */
struct bm_report {
	int result;
	char reason[512];
};

/* Open the device again, for a child that must not share our context. */
static int open_own(struct it_env *env)
{
	env->ctx = it_open_device(env->ctx->device->name);
	if (!env->ctx)
		return -1;
	env->pd = ibv_alloc_pd(env->ctx);
	return env->pd ? 0 : -1;
}

static void bm_child(const struct it_test *t, const struct bm_case *c, int fd)
{
	struct it_env env = *t->env;
	struct it_test t2 = { .env = &env, .name = t->name };
	struct bm_report rep = { 0 };
	ssize_t n;
	int r;

	if (open_own(&env)) {
		r = it_fail(&t2, "opening the device in the child: %s",
			    strerror(errno));
	} else {
		r = c->fn(&t2, c);
		if (release(&t2) && r == IT_PASS)
			r = IT_FAIL;
	}
	if (r == IT_PASS && t2.result != IT_PASS)
		r = t2.result;
	if (r == IT_PASS && bm_accepted)
		r = it_skip(&t2, "accepted by the kernel");
	if (it_cleanup(&t2) && r == IT_PASS)
		r = IT_FAIL;
	if (r != IT_PASS && t2.result == IT_PASS)
		it_fail(&t2, "the case returned %d without a reason", r);
	close_ctx2();
	if (env.pd)
		ibv_dealloc_pd(env.pd);
	if (env.ctx)
		ibv_close_device(env.ctx);
	rep.result = r == IT_PASS ? IT_PASS : t2.result;
	memcpy(rep.reason, t2.reason, sizeof(rep.reason));
	n = write(fd, &rep, sizeof(rep));
	_exit(n == (ssize_t)sizeof(rep) ? 0 : 3);
}

/*
 * Each case runs in a child process with a context of its own: a case that
 * crashes the provider (or libibverbs) is one FAIL line, and the rest of
 * the run goes on.  The child's verdict comes back through a pipe.
 */
static int bm_run(struct it_test *t, long i)
{
	const struct bm_other *o = bm_other(t->env, &bm_cases[i]);
	struct bm_case mc = bm_cases[i];
	const struct bm_case *c = &mc;
	uint64_t deadline = it_now_ms() + 12ull * t->env->timeout_ms;
	struct bm_report rep;
	int fds[2], st = 0;
	ssize_t n;
	pid_t pid;

	if (o && o->err == BM_NA)
		return it_skip(t, "mlx5: %s", o->why);
	if (o) {
		fprintf(stderr, "itest: %s: mlx5 expects %s: %s\n", t->name,
			en(o->err), o->why);
		mc.err = o->err;
		mc.alt = o->alt;
	}

	IT_EXPECT(t, !pipe(fds), "pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	IT_EXPECT(t, pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(fds[0]);
		bm_child(t, c, fds[1]);
	}
	close(fds[1]);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (it_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			close(fds[0]);
			return it_fail(t,
				       "the case hung (killed after %llu "
				       "ms)",
				       12ull * t->env->timeout_ms);
		}
		usleep(2000);
	}
	n = read(fds[0], &rep, sizeof(rep));
	close(fds[0]);
	if (WIFSIGNALED(st))
		return it_fail(t, "the case crashed: %s",
			       strsignal(WTERMSIG(st)));
	IT_EXPECT(t,
		  n == (ssize_t)sizeof(rep) && WIFEXITED(st) &&
			  !WEXITSTATUS(st),
		  "the case's process ended with status "
		  "0x%x and no verdict",
		  st);
	rep.reason[sizeof(rep.reason) - 1] = 0;
	if (rep.result == IT_SKIP)
		return it_skip(t, "%s", rep.reason);
	if (rep.result != IT_PASS)
		return it_fail(t, "%s", rep.reason);
	return IT_PASS;
}

#define BM_IT(n, f, a, e, alt) { "matrix_" #n, bm_run, BM_I_##n },
const struct it_case it_cases_bad_matrix[] = {
	BM_CASES(BM_IT){ NULL, NULL, 0 },
};
