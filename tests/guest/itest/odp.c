// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * On-demand paging (issue #14): IBV_ACCESS_ON_DEMAND MRs carrying send, RDMA
 * write, RDMA read and atomics, before and after ibv_advise_mr, every byte
 * checked; and the device's odp_caps as the kernel reports them.
 *
 * Where the kernel's rxe does not page on demand (odp_caps.general_caps
 * without IBV_ODP_SUPPORT: Linux 6.1, 6.12), each test checks instead that
 * an ON_DEMAND registration and ibv_advise_mr both answer EOPNOTSUPP, and
 * passes for that.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "harness.h"

/* ODP capability bits of Linux 7.x (ib_user_verbs.h there), absent in 6.1. */
#define ODP_SUPPORT_FLUSH	 (1u << 6)
#define ODP_SUPPORT_ATOMIC_WRITE (1u << 7)

#define ODP_RC_NEEDED                                                          \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE | \
	 IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC)

/* How a test advises its MRs between its two rounds of traffic. */
enum odp_advice {
	ADV_PREFETCH,	    /* IBV_ADVISE_MR_ADVICE_PREFETCH, async */
	ADV_PREFETCH_WRITE, /* IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, async */
	ADV_PREFETCH_FLUSH, /* PREFETCH with IBV_ADVISE_MR_FLAG_FLUSH */
	ADV_PREFETCH_WRITE_FLUSH,
};

/* What is tested, packed in the case's arg: op * 16 + advice. */
enum odp_op {
	OP_SEND,
	OP_WRITE,
	OP_READ,
	OP_CMP_SWAP,
	OP_FETCH_ADD,
};

#define ODP_ARG(op, adv) ((op)*16 + (adv))

static const char *const odp_op_name[] = { "send", "RDMA write", "RDMA read",
					   "compare-and-swap",
					   "fetch-and-add" };

static void odp_advice_of(int adv, enum ibv_advise_mr_advice *advice,
			  uint32_t *flags)
{
	*advice = adv == ADV_PREFETCH || adv == ADV_PREFETCH_FLUSH
			  ? IBV_ADVISE_MR_ADVICE_PREFETCH
			  : IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	*flags = adv >= ADV_PREFETCH_FLUSH ? IBV_ADVISE_MR_FLAG_FLUSH : 0;
}

static int odp_query(struct it_test *t, struct ibv_device_attr_ex *ex)
{
	int ret;

	memset(ex, 0, sizeof(*ex));
	ret = ibv_query_device_ex(t->env->ctx, NULL, ex);
	IT_EXPECT(t, !ret, "ibv_query_device_ex: %s", strerror(ret));
	return 0;
}

/* Does the device page on demand for RC, as these tests need it? */
static int odp_rc(struct it_test *t, bool *has)
{
	struct ibv_device_attr_ex ex;
	uint32_t rc;

	if (odp_query(t, &ex))
		return IT_FAIL;
	rc = ex.odp_caps.per_transport_caps.rc_odp_caps;
	*has = ex.odp_caps.general_caps & IBV_ODP_SUPPORT;
	/* A device that pages on demand but not for these: say so. */
	IT_EXPECT(t, !*has || (rc & ODP_RC_NEEDED) == ODP_RC_NEEDED,
		  "the device pages on demand but its RC ODP caps are 0x%x",
		  rc);
	return 0;
}

/*
 * No ODP: an ON_DEMAND registration and ibv_advise_mr with @adv (over a
 * plain MR) answer EOPNOTSUPP, and nothing is registered.
 */
static int odp_absent(struct it_test *t, int adv)
{
	enum ibv_advise_mr_advice advice;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct it_buf *b;
	uint32_t flags;
	int ret;

	b = it_buf_new(t, 8192, IT_ACCESS_ALL, 0);
	if (!b)
		return IT_FAIL;
	it_where(t, "no ODP on this kernel");
	errno = 0;
	mr = ibv_reg_mr(t->env->pd, b->addr, 4096,
			IT_ACCESS_ALL | IBV_ACCESS_ON_DEMAND);
	if (mr) {
		ibv_dereg_mr(mr);
		return it_fail(t, "ibv_reg_mr(IBV_ACCESS_ON_DEMAND) succeeded "
				  "on a device without ODP");
	}
	IT_EXPECT(t, errno == EOPNOTSUPP,
		  "ibv_reg_mr(IBV_ACCESS_ON_DEMAND): %s, expected EOPNOTSUPP",
		  strerror(errno));
	odp_advice_of(adv, &advice, &flags);
	sge.addr = (uintptr_t)b->addr;
	sge.length = 4096;
	sge.lkey = b->mr->lkey;
	ret = ibv_advise_mr(t->env->pd, advice, flags, &sge, 1);
	IT_EXPECT(t, ret == EOPNOTSUPP,
		  "ibv_advise_mr(advice %d, flags 0x%x): %s, expected "
		  "EOPNOTSUPP",
		  advice, flags, ret ? strerror(ret) : "success");
	it_where(t, "%s", "");
	return 0;
}

static int odp_advise(struct it_test *t, int adv, const struct it_buf *b,
		      const char *what)
{
	enum ibv_advise_mr_advice advice;
	struct ibv_sge sge;
	uint32_t flags;
	int ret;

	odp_advice_of(adv, &advice, &flags);
	sge.addr = (uintptr_t)b->addr;
	sge.length = (uint32_t)b->len;
	sge.lkey = b->mr->lkey;
	ret = ibv_advise_mr(t->env->pd, advice, flags, &sge, 1);
	IT_EXPECT(t, !ret, "ibv_advise_mr(%s, advice %d, flags 0x%x): %s", what,
		  advice, flags, strerror(ret));
	return 0;
}

/* The 8 bytes at @p. */
static uint64_t odp_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* @b holds @len bytes of @seed at @off, and @poison everywhere else. */
static int odp_check(struct it_test *t, const struct it_buf *b, size_t off,
		     size_t len, uint64_t seed, uint64_t poison,
		     const char *what)
{
	if (it_verify(t, b->addr, off, poison, 0, what) ||
	    it_verify(t, b->addr + off, len, seed, 0, what) ||
	    it_verify(t, b->addr + off + len, b->len - off - len, poison,
		      off + len, what))
		return IT_FAIL;
	return 0;
}

/*
 * Where the message goes: page-aligned on both sides, in one packet (the
 * path MTU less a few bytes), so that every byte the kernel copies to or
 * from an ODP MR starts at a page boundary.  Linux 7.2.13's rxe loses the
 * offset within the page there (rxe_odp.c, __rxe_odp_mr_copy: the copy
 * starts at the page's first byte, and a copy across pages restarts the
 * source each page), with the stock provider as with doorbell: messages
 * that start inside a page or span pages arrive corrupted on that kernel
 * (docs/rxe-features.md).  Remote atomics compute their offset apart and
 * are tested at the end of a page; their local result lands at a page start.
 */
#define ODP_BUF	       (64 * 1024)
#define ODP_LOFF       0
#define ODP_ROFF       4096
#define ODP_ATOMIC_OFF 4088 /* the last 8 bytes of the first page */

/*
 * One round of @op from @a's @lb to @b's @rb; @round makes its values
 * differ from the other rounds'.
 */
static int odp_round(struct it_test *t, int op, struct it_ep *a,
		     struct it_ep *b, struct it_buf *lb, struct it_buf *rb,
		     int round)
{
	uint64_t lp = it_seed(t, 100 + round), rp = it_seed(t, 200 + round);
	uint64_t seed = it_seed(t, 300 + round), v0 = it_seed(t, 400 + round);
	uint64_t arg = it_seed(t, 500 + round), old, now;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp e;
	uint8_t expect[8];
	uint32_t len = it_mtu_bytes(t->env) - 13;

	it_fill(lb->addr, lb->len, lp, 0);
	it_fill(rb->addr, rb->len, rp, 0);
	memset(&wr, 0, sizeof(wr));
	switch (op) {
	case OP_SEND:
		if (it_post_recv(t, b->qp, 50 + round, rb, ODP_ROFF, len))
			return IT_FAIL;
		it_fill(lb->addr + ODP_LOFF, len, seed, 0);
		it_wr(&wr, &sge, round, IBV_WR_SEND, lb, ODP_LOFF, len);
		if (it_post_send(t, a->qp, &wr))
			return IT_FAIL;
		e = it_exp_send(round, IBV_WC_SEND, a->qp);
		if (it_expect_wc(t, a->scq, &e, "send completion"))
			return IT_FAIL;
		e = it_exp_recv(50 + round, IBV_WC_RECV, b->qp, len);
		if (it_expect_wc(t, b->rcq, &e, "receive completion"))
			return IT_FAIL;
		return odp_check(t, rb, ODP_ROFF, len, seed, rp,
				 "the receive buffer");
	case OP_WRITE:
		it_fill(lb->addr + ODP_LOFF, len, seed, 0);
		it_wr(&wr, &sge, round, IBV_WR_RDMA_WRITE, lb, ODP_LOFF, len);
		it_wr_rdma(&wr, rb, ODP_ROFF);
		if (it_post_send(t, a->qp, &wr))
			return IT_FAIL;
		e = it_exp_send(round, IBV_WC_RDMA_WRITE, a->qp);
		if (it_expect_wc(t, a->scq, &e, "write completion"))
			return IT_FAIL;
		return odp_check(t, rb, ODP_ROFF, len, seed, rp,
				 "the written buffer");
	case OP_READ:
		it_fill(rb->addr + ODP_ROFF, len, seed, 0);
		it_wr(&wr, &sge, round, IBV_WR_RDMA_READ, lb, ODP_LOFF, len);
		it_wr_rdma(&wr, rb, ODP_ROFF);
		if (it_post_send(t, a->qp, &wr))
			return IT_FAIL;
		e = it_exp_send(round, IBV_WC_RDMA_READ, a->qp);
		e.byte_len = len;
		if (it_expect_wc(t, a->scq, &e, "read completion"))
			return IT_FAIL;
		if (odp_check(t, lb, ODP_LOFF, len, seed, lp,
			      "the read-into buffer"))
			return IT_FAIL;
		return odp_check(t, rb, ODP_ROFF, len, seed, rp,
				 "the read buffer (must not change)");
	default:
		break;
	}
	/* Atomics: the old value comes back, the new one is in place. */
	memcpy(rb->addr + ODP_ATOMIC_OFF, &v0, 8);
	it_wr(&wr, &sge, round,
	      op == OP_CMP_SWAP ? IBV_WR_ATOMIC_CMP_AND_SWP
				: IBV_WR_ATOMIC_FETCH_AND_ADD,
	      lb, ODP_LOFF, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)(rb->addr + ODP_ATOMIC_OFF);
	wr.wr.atomic.rkey = rb->mr->rkey;
	wr.wr.atomic.compare_add = op == OP_CMP_SWAP ? v0 : arg;
	wr.wr.atomic.swap = op == OP_CMP_SWAP ? arg : 0;
	now = op == OP_CMP_SWAP ? arg : v0 + arg;
	if (it_post_send(t, a->qp, &wr))
		return IT_FAIL;
	e = it_exp_send(round,
			op == OP_CMP_SWAP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD,
			a->qp);
	e.byte_len = 8;
	if (it_expect_wc(t, a->scq, &e, "atomic completion"))
		return IT_FAIL;
	old = odp_load64(lb->addr + ODP_LOFF);
	IT_EXPECT(t, old == v0, "the returned old value is 0x%llx, not 0x%llx",
		  (unsigned long long)old, (unsigned long long)v0);
	memcpy(expect, &now, 8);
	IT_EXPECT(t, !memcmp(rb->addr + ODP_ATOMIC_OFF, expect, 8),
		  "the remote value is 0x%llx, not 0x%llx",
		  (unsigned long long)odp_load64(rb->addr + ODP_ATOMIC_OFF),
		  (unsigned long long)now);
	/* Every other byte of both buffers: untouched. */
	memcpy(rb->addr + ODP_ATOMIC_OFF, &v0, 8);
	if (it_verify(t, rb->addr, ODP_ATOMIC_OFF, rp, 0,
		      "the remote buffer") ||
	    it_verify(t, rb->addr + ODP_ATOMIC_OFF + 8,
		      rb->len - ODP_ATOMIC_OFF - 8, rp, ODP_ATOMIC_OFF + 8,
		      "the remote buffer") ||
	    it_verify(t, lb->addr, ODP_LOFF, lp, 0, "the local buffer") ||
	    it_verify(t, lb->addr + ODP_LOFF + 8, lb->len - ODP_LOFF - 8, lp,
		      ODP_LOFF + 8, "the local buffer"))
		return IT_FAIL;
	return 0;
}

/*
 * @op between two ODP MRs: first with no page mapped for the device,
 * then after ibv_advise_mr over both MRs, then after the pages were
 * dropped (MADV_DONTNEED) and must fault back in.
 */
static int feature_odp_traffic(struct it_test *t, long arg)
{
	int op = (int)(arg / 16), adv = (int)(arg % 16);
	struct it_qp_attr qa = it_qp_defaults(IBV_QPT_RC);
	struct it_buf *lb, *rb;
	struct it_ep a, b;
	bool has;

	if (odp_rc(t, &has))
		return IT_FAIL;
	if (!has)
		return odp_absent(t, adv);
	if (it_pair(t, &a, &b, &qa))
		return IT_FAIL;
	lb = it_buf_new(t, ODP_BUF, IT_ACCESS_ALL | IBV_ACCESS_ON_DEMAND, 0);
	rb = it_buf_new(t, ODP_BUF, IT_ACCESS_ALL | IBV_ACCESS_ON_DEMAND, 0);
	if (!lb || !rb)
		return IT_FAIL;
	it_where(t, "%s before ibv_advise_mr", odp_op_name[op]);
	if (odp_round(t, op, &a, &b, lb, rb, 1))
		return IT_FAIL;
	it_where(t, "ibv_advise_mr");
	if (odp_advise(t, adv, lb, "local MR") ||
	    odp_advise(t, adv, rb, "remote MR"))
		return IT_FAIL;
	it_where(t, "%s after ibv_advise_mr", odp_op_name[op]);
	if (odp_round(t, op, &a, &b, lb, rb, 2))
		return IT_FAIL;
	it_where(t, "%s after MADV_DONTNEED", odp_op_name[op]);
	IT_EXPECT(t,
		  !madvise(lb->addr, lb->len, MADV_DONTNEED) &&
			  !madvise(rb->addr, rb->len, MADV_DONTNEED),
		  "madvise(MADV_DONTNEED): %s", strerror(errno));
	if (odp_round(t, op, &a, &b, lb, rb, 3))
		return IT_FAIL;
	it_where(t, "%s", "");
	if (it_quiet(t, a.scq, "sender CQ") ||
	    it_quiet(t, b.rcq, "receiver CQ"))
		return IT_FAIL;
	return 0;
}

/*
 * The raw EX_QUERY_DEVICE response of the kernel, written to the context's
 * command file: what the device's odp_caps are before any library.
 */
static int odp_kernel_caps(struct it_test *t, struct ib_uverbs_odp_caps *caps)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_query_device cmd;
	} req;
	struct ib_uverbs_ex_query_device_resp resp;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
			  IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	req.hdr.in_words = sizeof(req.cmd) / 8;
	req.hdr.out_words = sizeof(resp) / 8;
	req.ex.response = (uintptr_t)&resp;
	n = write(t->env->ctx->cmd_fd, &req, sizeof(req));
	IT_EXPECT(t, n == (ssize_t)sizeof(req),
		  "EX_QUERY_DEVICE on the command file: %s",
		  n < 0 ? strerror(errno) : "short write");
	IT_EXPECT(t,
		  resp.response_length >=
			  offsetof(struct ib_uverbs_ex_query_device_resp,
				   odp_caps) +
				  sizeof(resp.odp_caps),
		  "EX_QUERY_DEVICE answered %u bytes, without odp_caps",
		  resp.response_length);
	*caps = resp.odp_caps;
	return 0;
}

/*
 * ibv_query_device_ex's odp_caps are the kernel's, bit for bit: among them
 * the ODP bits of Linux 7.x for flush and atomic write.
 */
static int feature_odp_caps_as_the_kernel_reports(struct it_test *t, long arg)
{
	struct ib_uverbs_odp_caps k = {};
	struct ibv_device_attr_ex ex;
	const struct ibv_odp_caps *o = &ex.odp_caps;

	(void)arg;
	if (odp_query(t, &ex) || odp_kernel_caps(t, &k))
		return IT_FAIL;
	fprintf(stderr,
		"itest: odp_caps general 0x%llx rc 0x%x uc 0x%x ud 0x%x "
		"(rc flush %d, atomic write %d)\n",
		(unsigned long long)o->general_caps,
		o->per_transport_caps.rc_odp_caps,
		o->per_transport_caps.uc_odp_caps,
		o->per_transport_caps.ud_odp_caps,
		!!(o->per_transport_caps.rc_odp_caps & ODP_SUPPORT_FLUSH),
		!!(o->per_transport_caps.rc_odp_caps &
		   ODP_SUPPORT_ATOMIC_WRITE));
	IT_EXPECT(t, o->general_caps == k.general_caps,
		  "general_caps 0x%llx, the kernel's 0x%llx",
		  (unsigned long long)o->general_caps,
		  (unsigned long long)k.general_caps);
	IT_EXPECT(t,
		  o->per_transport_caps.rc_odp_caps ==
				  k.per_transport_caps.rc_odp_caps &&
			  o->per_transport_caps.uc_odp_caps ==
				  k.per_transport_caps.uc_odp_caps &&
			  o->per_transport_caps.ud_odp_caps ==
				  k.per_transport_caps.ud_odp_caps,
		  "rc/uc/ud caps 0x%x/0x%x/0x%x, the kernel's 0x%x/0x%x/0x%x",
		  o->per_transport_caps.rc_odp_caps,
		  o->per_transport_caps.uc_odp_caps,
		  o->per_transport_caps.ud_odp_caps,
		  k.per_transport_caps.rc_odp_caps,
		  k.per_transport_caps.uc_odp_caps,
		  k.per_transport_caps.ud_odp_caps);
	/* Per-transport bits without ODP itself would be nonsense. */
	IT_EXPECT(t,
		  (o->general_caps & IBV_ODP_SUPPORT) ||
			  !(o->per_transport_caps.rc_odp_caps |
			    o->per_transport_caps.uc_odp_caps |
			    o->per_transport_caps.ud_odp_caps),
		  "transport ODP caps without IBV_ODP_SUPPORT");
	return 0;
}

#define ODP_CASE(name, op, adv)                                                \
	{                                                                      \
		"feature_odp_rc_" name, feature_odp_traffic, ODP_ARG(op, adv)  \
	}

const struct it_case it_cases_odp[] = {
	{ "feature_odp_caps_as_the_kernel_reports",
	  feature_odp_caps_as_the_kernel_reports, 0 },
	ODP_CASE("send_prefetch", OP_SEND, ADV_PREFETCH),
	ODP_CASE("send_prefetch_write", OP_SEND, ADV_PREFETCH_WRITE),
	ODP_CASE("send_prefetch_flush", OP_SEND, ADV_PREFETCH_FLUSH),
	ODP_CASE("send_prefetch_write_flush", OP_SEND,
		 ADV_PREFETCH_WRITE_FLUSH),
	ODP_CASE("rdma_write_prefetch", OP_WRITE, ADV_PREFETCH),
	ODP_CASE("rdma_write_prefetch_write", OP_WRITE, ADV_PREFETCH_WRITE),
	ODP_CASE("rdma_write_prefetch_flush", OP_WRITE, ADV_PREFETCH_FLUSH),
	ODP_CASE("rdma_write_prefetch_write_flush", OP_WRITE,
		 ADV_PREFETCH_WRITE_FLUSH),
	ODP_CASE("rdma_read_prefetch", OP_READ, ADV_PREFETCH),
	ODP_CASE("rdma_read_prefetch_write", OP_READ, ADV_PREFETCH_WRITE),
	ODP_CASE("rdma_read_prefetch_flush", OP_READ, ADV_PREFETCH_FLUSH),
	ODP_CASE("rdma_read_prefetch_write_flush", OP_READ,
		 ADV_PREFETCH_WRITE_FLUSH),
	ODP_CASE("atomic_cmp_swap_prefetch", OP_CMP_SWAP, ADV_PREFETCH),
	ODP_CASE("atomic_cmp_swap_prefetch_write", OP_CMP_SWAP,
		 ADV_PREFETCH_WRITE),
	ODP_CASE("atomic_cmp_swap_prefetch_flush", OP_CMP_SWAP,
		 ADV_PREFETCH_FLUSH),
	ODP_CASE("atomic_cmp_swap_prefetch_write_flush", OP_CMP_SWAP,
		 ADV_PREFETCH_WRITE_FLUSH),
	ODP_CASE("atomic_fetch_add_prefetch", OP_FETCH_ADD, ADV_PREFETCH),
	ODP_CASE("atomic_fetch_add_prefetch_write", OP_FETCH_ADD,
		 ADV_PREFETCH_WRITE),
	ODP_CASE("atomic_fetch_add_prefetch_flush", OP_FETCH_ADD,
		 ADV_PREFETCH_FLUSH),
	ODP_CASE("atomic_fetch_add_prefetch_write_flush", OP_FETCH_ADD,
		 ADV_PREFETCH_WRITE_FLUSH),
	{ NULL, NULL, 0 },
};
