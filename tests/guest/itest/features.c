// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Features of rxe newer than Linux 6.1: RDMA ATOMIC WRITE (6.2) and RDMA
 * FLUSH (6.2), through the ibv_wr_* API.  Where the device's
 * device_cap_flags_ex has them, every byte they move is checked; where it
 * does not (Linux 6.1), asking for them must answer EOPNOTSUPP, and that
 * is the test.
 *
 * The binary may be built against rdma-core 44's headers and run on a
 * newer libibverbs: FLUSH's names (rdma-core 45) are defined here, and
 * ibv_qp_ex.wr_flush is read at its offset when the running libibverbs
 * has it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "harness.h"

/* The values of rdma-core 45's verbs.h (and the kernel uAPI). */
enum {
	FT_WR_FLUSH = 14,
	FT_WC_FLUSH = 8,
	FT_QP_EX_WITH_FLUSH = 1 << 11,
	FT_ACCESS_FLUSH_GLOBAL = 1 << 8,
	FT_ACCESS_FLUSH_PERSISTENT = 1 << 9,
	FT_FLUSH_GLOBAL = 1, /* placement type */
	FT_FLUSH_PERSISTENT = 2,
	FT_FLUSH_RANGE = 0, /* selectivity level */
	FT_FLUSH_MR = 1,
};

#define FT_CAP_FLUSH_GLOBAL	(1ULL << 38)
#define FT_CAP_FLUSH_PERSISTENT (1ULL << 39)
#define FT_CAP_ATOMIC_WRITE	(1ULL << 40)

/* ibv_qp_ex.wr_flush, rdma-core 45 and later */
#define FT_QPX_WR_FLUSH_OFF 352
typedef void ft_wr_flush_fn(struct ibv_qp_ex *qpx, uint32_t rkey,
			    uint64_t remote_addr, size_t len, uint8_t type,
			    uint8_t level);

static uint64_t ft_caps(struct it_test *t)
{
	struct ibv_device_attr_ex attr = {};

	if (ibv_query_device_ex(t->env->ctx, NULL, &attr))
		return 0;
	return attr.device_cap_flags_ex;
}

/* The running kernel's release as major * 1000 + minor. */
static int ft_kernel(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj * 1000 + min;
}

/* The running libibverbs' rdma-core release, from its file name. */
static int ft_libibverbs_major(void)
{
	char path[PATH_MAX];
	const char *base;
	Dl_info info;
	int a, b, major;

	if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, path))
		return 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (sscanf(base, "libibverbs.so.%d.%d.%d", &a, &b, &major) != 3)
		return 0;
	return major;
}

/*
 * Does the device have the feature?  The kernels the project targets past
 * 6.1 (6.12, 7.x) all have them on rxe: there a missing bit is a failure,
 * not a reason to test only the refusal.
 */
static int ft_has(struct it_test *t, uint64_t cap, bool *has)
{
	*has = (ft_caps(t) & cap) != 0;
	if (!*has && ft_kernel() >= 6012 && it_backend(t->env) != IT_MLX5)
		return it_fail(t,
			       "Linux %d.%d's rxe should report "
			       "device_cap_flags_ex bit %d",
			       ft_kernel() / 1000, ft_kernel() % 1000,
			       __builtin_ctzll(cap));
	return 0;
}

/* Without the feature: an RC QP asking for @ops must get EOPNOTSUPP. */
static int ft_expect_refused(struct it_test *t, uint64_t ops)
{
	struct ibv_cq *cq = it_cq_new(t, 16, NULL);
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = t->env->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | ops,
	};
	struct ibv_qp *qp;

	if (!cq)
		return IT_FAIL;
	errno = 0;
	qp = ibv_create_qp_ex(t->env->ctx, &a);
	if (qp) {
		ibv_destroy_qp(qp);
		return it_fail(t,
			       "ibv_create_qp_ex with send_ops_flags 0x%llx "
			       "succeeded on a device without the feature",
			       (unsigned long long)ops);
	}
	IT_EXPECT(t, errno == EOPNOTSUPP,
		  "ibv_create_qp_ex with send_ops_flags 0x%llx: %s, expected "
		  "EOPNOTSUPP",
		  (unsigned long long)ops, strerror(errno));
	return 0;
}

/* Two connected RC QPs with the ibv_wr_* API and these send ops. */
static int ft_pair(struct it_test *t, struct it_ep *a, struct it_ep *b,
		   uint64_t ops)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);

	attr.send_ops_flags =
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ | ops;
	/*
	 * rxe's responder also wants the placement types of a FLUSH in its
	 * QP's access flags (else: a NAK, IBV_WC_REM_INV_REQ_ERR).
	 */
	if (ops & FT_QP_EX_WITH_FLUSH)
		attr.qp_access = FT_ACCESS_FLUSH_GLOBAL |
				 ((ft_caps(t) & FT_CAP_FLUSH_PERSISTENT)
					  ? FT_ACCESS_FLUSH_PERSISTENT
					  : 0);
	if (it_pair(t, a, b, &attr))
		return IT_FAIL;
	IT_EXPECT(t, ibv_qp_to_qp_ex(a->qp), "ibv_qp_to_qp_ex returned NULL");
	return 0;
}

/* Check bytes [0, len) of @b: @seed at [off, off + n), @poison elsewhere. */
static int ft_check_target(struct it_test *t, const struct it_buf *b,
			   size_t off, size_t n, uint64_t seed, uint64_t poison)
{
	if (it_verify(t, b->addr, off, poison, 0, "bytes before the target") ||
	    it_verify(t, b->addr + off, n, seed, 0, "target bytes") ||
	    it_verify(t, b->addr + off + n, b->len - off - n, poison, off + n,
		      "bytes after the target"))
		return IT_FAIL;
	return 0;
}

/* One ATOMIC WRITE of the 8 bytes at @src to @raddr; complete the batch. */
static int ft_atomic_write(struct it_test *t, struct ibv_qp_ex *qpx,
			   uint64_t wr_id, uint32_t rkey, uint64_t raddr,
			   const void *src)
{
	int ret;

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, rkey, raddr, src);
	ret = ibv_wr_complete(qpx);
	IT_EXPECT(t, !ret, "ibv_wr_complete after ibv_wr_atomic_write: %s",
		  strerror(ret));
	return 0;
}

/* 8 bytes at aligned offsets: they land, nothing else moves. */
static int feature_atomic_write_aligned(struct it_test *t, long arg)
{
	static const size_t offs[] = { 0, 8, 2048, 4088 };
	uint64_t poison = it_seed(t, 1);
	struct it_buf *rb, *sb;
	struct it_wc_exp e;
	struct it_ep a, b;
	struct ibv_qp_ex *qpx;
	size_t i;
	bool has;

	if (ft_has(t, FT_CAP_ATOMIC_WRITE, &has))
		return IT_FAIL;
	if (!has)
		return ft_expect_refused(t, IBV_QP_EX_WITH_ATOMIC_WRITE);
	if (ft_pair(t, &a, &b, IBV_QP_EX_WITH_ATOMIC_WRITE))
		return IT_FAIL;
	qpx = ibv_qp_to_qp_ex(a.qp);
	sb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		uint64_t seed = it_seed(t, 10 + i);

		it_where(t, "offset %zu", offs[i]);
		it_fill(sb->addr, 8, seed, 0);
		if (ft_atomic_write(t, qpx, 1 + i, rb->mr->rkey,
				    (uintptr_t)(rb->addr + offs[i]), sb->addr))
			return IT_FAIL;
		/* The value is in the WQE: the source may change at once. */
		memset(sb->addr, 0, 8);
		e = it_exp_send(1 + i, IBV_WC_ATOMIC_WRITE, a.qp);
		if (it_expect_wc(t, a.scq, &e, "atomic write completion"))
			return IT_FAIL;
		if (ft_check_target(t, rb, offs[i], 8, seed, poison))
			return IT_FAIL;
		/* Leave the target as poison again for the next round. */
		it_fill(rb->addr + offs[i], 8, poison, offs[i]);
	}
	it_where(t, "%s", "");
	return it_quiet(t, a.scq, "sender CQ") || it_quiet(t, b.rcq, "peer CQ");
}

/* A target not 8-byte aligned: an error completion, the bytes untouched. */
static int feature_atomic_write_misaligned(struct it_test *t, long arg)
{
	uint64_t poison = it_seed(t, 1);
	struct it_buf *rb, *sb;
	struct ibv_wc wc;
	struct it_ep a, b;
	bool has;

	if (ft_has(t, FT_CAP_ATOMIC_WRITE, &has))
		return IT_FAIL;
	if (!has)
		return ft_expect_refused(t, IBV_QP_EX_WITH_ATOMIC_WRITE);
	if (ft_pair(t, &a, &b, IBV_QP_EX_WITH_ATOMIC_WRITE))
		return IT_FAIL;
	sb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, it_seed(t, 2));
	rb = it_buf_new(t, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			poison);
	if (!sb || !rb)
		return IT_FAIL;
	if (ft_atomic_write(t, ibv_qp_to_qp_ex(a.qp), 5, rb->mr->rkey,
			    (uintptr_t)(rb->addr + 4), sb->addr))
		return IT_FAIL;
	if (it_poll(t, a.scq, &wc, 1, "atomic write completion"))
		return IT_FAIL;
	IT_EXPECT(t, wc.wr_id == 5, "wr_id %llu, expected 5",
		  (unsigned long long)wc.wr_id);
	/* The responder refuses it: a NAK for an invalid request. */
	IT_EXPECT(t, wc.status == IBV_WC_REM_INV_REQ_ERR,
		  "status %s (%d), expected %s", ibv_wc_status_str(wc.status),
		  wc.status, ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR));
	return it_verify(t, rb->addr, rb->len, poison, 0,
			 "target after a refused atomic write");
}

static ft_wr_flush_fn *ft_wr_flush(struct ibv_qp_ex *qpx)
{
	ft_wr_flush_fn *fn;

	memcpy(&fn, (char *)qpx + FT_QPX_WR_FLUSH_OFF, sizeof(fn));
	return fn;
}

/*
 * FLUSH case: arg = placement type | level << 4 | (access type) << 8.
 * Writes of pattern bytes, then a FLUSH, posted in one batch: every write
 * completes before the FLUSH, and the bytes are there when it completes.
 */
#define FT_FLUSH_ARG(type, level, mr_type)                                     \
	((type) | (level) << 4 | (mr_type) << 8)

static int ft_flush_caps(struct it_test *t, bool *has, int type)
{
	uint64_t need = type == FT_FLUSH_PERSISTENT ? FT_CAP_FLUSH_PERSISTENT
						    : FT_CAP_FLUSH_GLOBAL;

	if (ft_has(t, need, has))
		return IT_FAIL;
	if (*has && ft_libibverbs_major() < 45)
		return it_skip(t,
			       "libibverbs from rdma-core %d has no "
			       "ibv_wr_flush (45+)",
			       ft_libibverbs_major());
	return 0;
}

static int ft_mr_access(int mr_type)
{
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	       IBV_ACCESS_REMOTE_READ |
	       (mr_type & FT_FLUSH_GLOBAL ? FT_ACCESS_FLUSH_GLOBAL : 0) |
	       (mr_type & FT_FLUSH_PERSISTENT ? FT_ACCESS_FLUSH_PERSISTENT : 0);
}

/*
 * rxe registers an MR for persistent flushes only over persistent memory
 * pages (rxe_mr.c), which the test guest has none of: ordinary memory is
 * refused with EINVAL, and those cases cannot run.
 */
static int ft_persistent_mr_ok(struct it_test *t)
{
	struct ibv_mr *mr;
	void *p;
	int err;

	if (posix_memalign(&p, 4096, 4096))
		return it_fail(t, "out of memory");
	errno = 0;
	mr = ibv_reg_mr(t->env->pd, p, 4096, ft_mr_access(FT_FLUSH_PERSISTENT));
	err = errno;
	if (mr) {
		ibv_dereg_mr(mr);
		free(p);
		return 0;
	}
	free(p);
	if (err == EINVAL)
		return it_skip(t,
			       "rxe registers IBV_ACCESS_FLUSH_PERSISTENT only "
			       "over persistent memory, and this memory is "
			       "not (ibv_reg_mr: EINVAL)");
	return it_fail(t, "ibv_reg_mr with IBV_ACCESS_FLUSH_PERSISTENT: %s",
		       strerror(err));
}

static int feature_flush(struct it_test *t, long arg)
{
	int type = arg & 15, level = (arg >> 4) & 15, mr_type = arg >> 8;
	enum { NW = 4, PIECE = 3000 };
	uint64_t poison = it_seed(t, 1), seed = it_seed(t, 2);
	struct ibv_wc wc[NW + 1];
	struct it_buf *rb, *sb;
	struct ibv_qp_ex *qpx;
	ft_wr_flush_fn *flush;
	struct it_ep a, b;
	size_t len = NW * PIECE;
	int i, ret;
	bool has;

	ret = ft_flush_caps(t, &has, type);
	if (ret)
		return ret;
	if (!has)
		return ft_expect_refused(t, FT_QP_EX_WITH_FLUSH);
	if (mr_type & FT_FLUSH_PERSISTENT) {
		ret = ft_persistent_mr_ok(t);
		if (ret)
			return ret;
	}
	if (ft_pair(t, &a, &b, FT_QP_EX_WITH_FLUSH))
		return IT_FAIL;
	qpx = ibv_qp_to_qp_ex(a.qp);
	flush = ft_wr_flush(qpx);
	IT_EXPECT(t, flush, "ibv_qp_ex.wr_flush is NULL");
	sb = it_buf_new(t, len, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, 4 * 4096, ft_mr_access(mr_type), poison);
	if (!sb || !rb)
		return IT_FAIL;
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < NW; i++) {
		qpx->wr_id = 10 + i;
		ibv_wr_rdma_write(qpx, rb->mr->rkey,
				  (uintptr_t)(rb->addr + 100 + i * PIECE));
		ibv_wr_set_sge(qpx, sb->mr->lkey,
			       (uintptr_t)(sb->addr + i * PIECE), PIECE);
	}
	qpx->wr_id = 99;
	/* RANGE: the written bytes; MR: the whole MR from its start. */
	if (level == FT_FLUSH_RANGE)
		flush(qpx, rb->mr->rkey, (uintptr_t)(rb->addr + 100), len, type,
		      level);
	else
		flush(qpx, rb->mr->rkey, (uintptr_t)rb->addr, 0, type, level);
	ret = ibv_wr_complete(qpx);
	IT_EXPECT(t, !ret, "ibv_wr_complete of %d writes and a flush: %s", NW,
		  strerror(ret));
	if (it_poll(t, a.scq, wc, NW + 1, "write and flush completions"))
		return IT_FAIL;
	if (!(type & ~mr_type)) {
		for (i = 0; i < NW; i++) {
			struct it_wc_exp e =
				it_exp_send(10 + i, IBV_WC_RDMA_WRITE, a.qp);

			it_where(t, "write %d", i);
			if (it_check_wc(t, &wc[i], &e, "write completion"))
				return IT_FAIL;
		}
		it_where(t, "flush");
		{
			struct it_wc_exp e = it_exp_send(
				99, (enum ibv_wc_opcode)FT_WC_FLUSH, a.qp);

			if (it_check_wc(t, &wc[NW], &e,
					"flush completion (after the writes)"))
				return IT_FAIL;
		}
		it_where(t, "%s", "");
		/* Completed flush: the bytes are there now, not eventually. */
		if (ft_check_target(t, rb, 100, len, seed, poison))
			return IT_FAIL;
		return it_quiet(t, a.scq, "sender CQ");
	}
	/*
	 * The MR does not allow this placement type: the writes land, the
	 * flush is refused by the responder with a remote access error.
	 */
	for (i = 0; i < NW; i++)
		IT_EXPECT(t,
			  wc[i].status == IBV_WC_SUCCESS &&
				  wc[i].wr_id == 10 + (uint64_t)i,
			  "write %d: wr_id %llu status %s", i,
			  (unsigned long long)wc[i].wr_id,
			  ibv_wc_status_str(wc[i].status));
	IT_EXPECT(
		t, wc[NW].wr_id == 99 && wc[NW].status == IBV_WC_REM_ACCESS_ERR,
		"flush of a type the MR lacks: wr_id %llu status %s, expected "
		"%s",
		(unsigned long long)wc[NW].wr_id,
		ibv_wc_status_str(wc[NW].status),
		ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	return ft_check_target(t, rb, 100, len, seed, poison);
}

/* Legacy ibv_post_send has no form of either: EOPNOTSUPP, bad_wr set. */
static int feature_post_send_refused(struct it_test *t, long arg)
{
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct it_buf *b;
	struct ibv_sge sge;
	struct it_ep a, c;
	int ret;

	if (it_pair(t, &a, &c, &attr))
		return IT_FAIL;
	b = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		       0);
	if (!b)
		return IT_FAIL;
	it_wr(&wr, &sge, 1, (enum ibv_wr_opcode)arg, b, 0, 8);
	it_wr_rdma(&wr, b, 0);
	ret = ibv_post_send(a.qp, &wr, &bad);
	IT_EXPECT(t, ret == EOPNOTSUPP && bad == &wr,
		  "ibv_post_send opcode %ld: %d (%s), bad_wr %s; expected "
		  "EOPNOTSUPP and bad_wr set",
		  arg, ret, strerror(ret), bad == &wr ? "set" : "not set");
	return it_quiet(t, a.scq, "sender CQ");
}

/* A QP made without the send_ops flag: the builder fails the batch. */
static int feature_atomic_write_needs_send_ops_flag(struct it_test *t, long arg)
{
	struct it_buf *rb;
	struct ibv_qp_ex *qpx;
	struct it_ep a, b;
	uint64_t v = 1;
	int ret;

	if (ft_libibverbs_major() < 44)
		return it_skip(t, "libibverbs %d has no wr_atomic_write",
			       ft_libibverbs_major());
	if (ft_pair(t, &a, &b, 0))
		return IT_FAIL;
	qpx = ibv_qp_to_qp_ex(a.qp);
	rb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			0);
	if (!rb)
		return IT_FAIL;
	IT_EXPECT(t, qpx->wr_atomic_write, "wr_atomic_write is NULL");
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, rb->mr->rkey, (uintptr_t)rb->addr, &v);
	ret = ibv_wr_complete(qpx);
	IT_EXPECT(t, ret == EOPNOTSUPP,
		  "ibv_wr_complete: %d (%s), expected EOPNOTSUPP", ret,
		  strerror(ret));
	return it_quiet(t, a.scq, "sender CQ");
}

const struct it_case it_cases_features[] = {
	{ "feature_atomic_write_8_bytes_aligned_land_with_atomic_write_wc",
	  feature_atomic_write_aligned, 0 },
	{ "feature_atomic_write_misaligned_completes_rem_inv_req_err",
	  feature_atomic_write_misaligned, 0 },
	{ "feature_atomic_write_without_send_ops_flag_fails_the_batch",
	  feature_atomic_write_needs_send_ops_flag, 0 },
	{ "feature_atomic_write_post_send_returns_EOPNOTSUPP",
	  feature_post_send_refused, IBV_WR_ATOMIC_WRITE },
	{ "feature_flush_global_range_after_writes", feature_flush,
	  FT_FLUSH_ARG(FT_FLUSH_GLOBAL, FT_FLUSH_RANGE, FT_FLUSH_GLOBAL) },
	{ "feature_flush_global_whole_mr_after_writes", feature_flush,
	  FT_FLUSH_ARG(FT_FLUSH_GLOBAL, FT_FLUSH_MR, FT_FLUSH_GLOBAL) },
	{ "feature_flush_persistent_range_after_writes", feature_flush,
	  FT_FLUSH_ARG(FT_FLUSH_PERSISTENT, FT_FLUSH_RANGE,
		       FT_FLUSH_PERSISTENT) },
	{ "feature_flush_persistent_whole_mr_after_writes", feature_flush,
	  FT_FLUSH_ARG(FT_FLUSH_PERSISTENT, FT_FLUSH_MR, FT_FLUSH_PERSISTENT) },
	{ "feature_flush_persistent_on_global_only_mr_rem_access_err",
	  feature_flush,
	  FT_FLUSH_ARG(FT_FLUSH_PERSISTENT, FT_FLUSH_RANGE, FT_FLUSH_GLOBAL) },
	{ "feature_flush_post_send_returns_EOPNOTSUPP",
	  feature_post_send_refused, FT_WR_FLUSH },
	{ NULL, NULL, 0 },
};
