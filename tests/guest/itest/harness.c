// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Integration test harness: resources tracked per test, loopback QP setup,
 * completion polling with a deadline, and reproducible byte patterns.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static struct ibv_context *it_ibv_open(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list, **d;

	list = ibv_get_device_list(NULL);
	if (!list)
		return NULL;
	for (d = list; *d; d++)
		if (!strcmp(ibv_get_device_name(*d), name))
			break;
	if (*d)
		ctx = ibv_open_device(*d);
	else
		errno = ENODEV;
	ibv_free_device_list(list);
	return ctx;
}

static const struct it_dev_ops it_ibv_ops = {
	.open = it_ibv_open,
	.create_channel = ibv_create_comp_channel,
	.destroy_channel = ibv_destroy_comp_channel,
};

const struct it_dev_ops *it_dev_ops = &it_ibv_ops;

struct ibv_context *it_open_device(const char *name)
{
	return it_dev_ops->open(name);
}

struct ibv_comp_channel *it_create_channel(struct ibv_context *ctx)
{
	return it_dev_ops->create_channel(ctx);
}

int it_destroy_channel(struct ibv_comp_channel *ch)
{
	return it_dev_ops->destroy_channel(ch);
}

/* PCI vendor id of Mellanox (NVIDIA networking): every ConnectX. */
#define IT_VENDOR_MELLANOX 0x02c9

enum it_backend it_backend(const struct it_env *env)
{
	return env->dev.vendor_id == IT_VENDOR_MELLANOX ? IT_MLX5 : IT_RXE;
}

int it_send_refusal(const struct it_env *env)
{
	return it_backend(env) == IT_MLX5 ? ENOMEM : EINVAL;
}

/* Results */

/* printf-like, so that -Wformat-nonliteral checks the callers' formats. */
static void it_vrecord(struct it_test *t, int result, const char *fmt,
		       va_list ap) __attribute__((format(printf, 3, 0)));

static void it_vrecord(struct it_test *t, int result, const char *fmt,
		       va_list ap)
{
	size_t n = 0;

	if (t->result != IT_PASS)
		return; /* the first reason is the one kept */
	t->result = result;
	if (t->where[0])
		n = snprintf(t->reason, sizeof(t->reason), "[%s] ", t->where);
	if (n < sizeof(t->reason))
		vsnprintf(t->reason + n, sizeof(t->reason) - n, fmt, ap);
}

int it_fail(struct it_test *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	it_vrecord(t, IT_FAIL, fmt, ap);
	va_end(ap);
	return IT_FAIL;
}

int it_skip(struct it_test *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	it_vrecord(t, IT_SKIP, fmt, ap);
	va_end(ap);
	return IT_SKIP;
}

void it_where(struct it_test *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->where, sizeof(t->where), fmt, ap);
	va_end(ap);
}

/* Resources */

enum it_res_kind {
	IT_RES_MEM,
	IT_RES_MR,
	IT_RES_CQ,
	IT_RES_QP,
	IT_RES_SRQ,
	IT_RES_AH,
	IT_RES_CHANNEL,
	IT_RES_FD,
};

struct it_res {
	enum it_res_kind kind;
	void *p;
};

static void it_track(struct it_test *t, enum it_res_kind kind, void *p)
{
	if (t->nres == t->capres) {
		size_t cap = t->capres ? 2 * t->capres : 32;
		struct it_res *r = realloc(t->res, cap * sizeof(*r));

		if (!r) {
			fprintf(stderr, "itest: out of memory\n");
			exit(2);
		}
		t->res = r;
		t->capres = cap;
	}
	t->res[t->nres].kind = kind;
	t->res[t->nres].p = p;
	t->nres++;
}

static int it_destroy(struct it_res *r)
{
	switch (r->kind) {
	case IT_RES_MEM:
		free(r->p);
		return 0;
	case IT_RES_MR:
		return ibv_dereg_mr(r->p);
	case IT_RES_CQ:
		return ibv_destroy_cq(r->p);
	case IT_RES_QP:
		return ibv_destroy_qp(r->p);
	case IT_RES_SRQ:
		return ibv_destroy_srq(r->p);
	case IT_RES_AH:
		return ibv_destroy_ah(r->p);
	case IT_RES_CHANNEL:
		return it_destroy_channel(r->p);
	case IT_RES_FD:
		return close((int)(intptr_t)r->p);
	}
	return EINVAL;
}

static const char *const it_res_names[] = {
	[IT_RES_MEM] = "free",
	[IT_RES_MR] = "ibv_dereg_mr",
	[IT_RES_CQ] = "ibv_destroy_cq",
	[IT_RES_QP] = "ibv_destroy_qp",
	[IT_RES_SRQ] = "ibv_destroy_srq",
	[IT_RES_AH] = "ibv_destroy_ah",
	[IT_RES_CHANNEL] = "ibv_destroy_comp_channel",
	[IT_RES_FD] = "close",
};

void it_track_mr(struct it_test *t, struct ibv_mr *mr)
{
	it_track(t, IT_RES_MR, mr);
}

void it_track_fd(struct it_test *t, int fd)
{
	it_track(t, IT_RES_FD, (void *)(intptr_t)fd);
}

void it_forget(struct it_test *t, const void *p)
{
	size_t i;

	for (i = t->nres; i-- > 0;) {
		if (t->res[i].p != p)
			continue;
		memmove(&t->res[i], &t->res[i + 1],
			(t->nres - i - 1) * sizeof(t->res[0]));
		t->nres--;
		return;
	}
}

int it_cleanup(struct it_test *t)
{
	int bad = 0;

	it_where(t, "cleanup");
	while (t->nres) {
		struct it_res *r = &t->res[--t->nres];
		int ret = it_destroy(r);

		if (ret) {
			it_fail(t, "%s returned %d (errno %d)",
				it_res_names[r->kind], ret, errno);
			bad = 1;
		}
	}
	free(t->res);
	t->res = NULL;
	t->capres = 0;
	return bad;
}

void *it_alloc(struct it_test *t, size_t len)
{
	void *p = calloc(1, len ? len : 1);

	if (!p) {
		fprintf(stderr, "itest: out of memory\n");
		exit(2);
	}
	it_track(t, IT_RES_MEM, p);
	return p;
}

struct it_buf *it_buf_new(struct it_test *t, size_t len, int access,
			  uint64_t poison)
{
	struct it_buf *b = it_alloc(t, sizeof(*b));
	void *p;

	if (posix_memalign(&p, 4096, len ? len : 1)) {
		fprintf(stderr, "itest: out of memory\n");
		exit(2);
	}
	it_track(t, IT_RES_MEM, p);
	b->addr = p;
	b->len = len;
	it_fill(b->addr, len, poison, 0);
	b->mr = ibv_reg_mr(t->env->pd, p, len ? len : 1, access);
	if (!b->mr) {
		it_fail(t, "ibv_reg_mr(%zu bytes): %s", len, strerror(errno));
		return NULL;
	}
	it_track(t, IT_RES_MR, b->mr);
	return b;
}

struct ibv_cq *it_cq_new(struct it_test *t, int cqe,
			 struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq = ibv_create_cq(t->env->ctx, cqe, NULL, ch, 0);

	if (!cq) {
		it_fail(t, "ibv_create_cq(%d): %s", cqe, strerror(errno));
		return NULL;
	}
	it_track(t, IT_RES_CQ, cq);
	return cq;
}

struct ibv_srq *it_srq_new(struct it_test *t, uint32_t max_wr, uint32_t max_sge,
			   struct ibv_srq_attr *got)
{
	struct ibv_srq_init_attr ia = {
		.attr = { .max_wr = max_wr, .max_sge = max_sge },
	};
	struct ibv_srq *srq = ibv_create_srq(t->env->pd, &ia);

	if (!srq) {
		it_fail(t, "ibv_create_srq(%u wr, %u sge): %s", max_wr, max_sge,
			strerror(errno));
		return NULL;
	}
	it_track(t, IT_RES_SRQ, srq);
	if (got)
		*got = ia.attr;
	return srq;
}

struct ibv_comp_channel *it_channel_new(struct it_test *t)
{
	struct ibv_comp_channel *ch = it_create_channel(t->env->ctx);

	if (!ch) {
		it_fail(t, "ibv_create_comp_channel: %s", strerror(errno));
		return NULL;
	}
	it_track(t, IT_RES_CHANNEL, ch);
	return ch;
}

/* Patterns */

static uint64_t it_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t it_seed(const struct it_test *t, uint64_t salt)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *s;

	for (s = t->name; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return it_mix(h ^ it_mix(salt));
}

static uint64_t it_word(uint64_t seed, size_t blk)
{
	return it_mix(seed ^ ((uint64_t)blk << 1));
}

uint8_t it_pattern_byte(uint64_t seed, size_t off)
{
	return it_word(seed, off / 8) >> (8 * (off % 8));
}

void it_fill(void *buf, size_t len, uint64_t seed, size_t off)
{
	uint8_t *p = buf;
	size_t i = 0;

	while (i < len) {
		size_t o = off + i;
		uint64_t w = it_word(seed, o / 8);
		unsigned int k;

		for (k = o % 8; k < 8 && i < len; k++, i++)
			p[i] = w >> (8 * k);
	}
}

int it_verify(struct it_test *t, const void *buf, size_t len, uint64_t seed,
	      size_t off, const char *what)
{
	const uint8_t *p = buf;
	size_t i = 0, first = 0, nbad = 0;
	uint8_t want = 0;

	while (i < len) {
		size_t o = off + i;
		uint64_t w = it_word(seed, o / 8);
		unsigned int k;

		for (k = o % 8; k < 8 && i < len; k++, i++) {
			uint8_t e = w >> (8 * k);

			if (p[i] != e && !nbad++) {
				first = i;
				want = e;
			}
		}
	}
	if (!nbad)
		return 0;
	return it_fail(t,
		       "%s: byte %zu of %zu is 0x%02x, expected 0x%02x "
		       "(%zu bytes differ)",
		       what, first, len, p[first], want, nbad);
}

int it_verify_eventually(struct it_test *t, const void *buf, size_t len,
			 uint64_t seed, size_t off, const char *what)
{
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	const uint8_t *p = buf;
	size_t i;

	for (;;) {
		for (i = 0; i < len; i++)
			if (p[i] != it_pattern_byte(seed, off + i))
				break;
		if (i == len)
			return 0;
		if (it_now_ms() > deadline)
			return it_verify(t, buf, len, seed, off, what);
		it_pause();
	}
}

/* QPs */

struct it_qp_attr it_qp_defaults(enum ibv_qp_type type)
{
	struct it_qp_attr a = {
		.type = type,
		.send_wr = 64,
		.recv_wr = 64,
		.send_sge = 4,
		.recv_sge = 4,
		.sig_all = 1,
		.cqe = 256,
	};

	return a;
}

uint32_t it_psn(uint32_t qpn)
{
	return (qpn * 2654435761u) & 0xffffff;
}

uint32_t it_mtu_bytes(const struct it_env *env)
{
	return 128u << env->port_attr.active_mtu;
}

static const char *it_qpt_name(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return "RC";
	case IBV_QPT_UC:
		return "UC";
	case IBV_QPT_UD:
		return "UD";
	default:
		return "?";
	}
}

int it_ep_new(struct it_test *t, struct it_ep *ep, const struct it_qp_attr *a)
{
	const struct it_env *env = t->env;
	struct ibv_qp_init_attr ia = {
		.srq = a->srq,
		.cap = {
			.max_send_wr = a->send_wr,
			.max_recv_wr = a->srq ? 0 : a->recv_wr,
			.max_send_sge = a->send_sge,
			.max_recv_sge = a->srq ? 0 : a->recv_sge,
			.max_inline_data = a->inline_data,
		},
		.qp_type = a->type,
		.sq_sig_all = a->sig_all,
	};

	memset(ep, 0, sizeof(*ep));
	ep->type = a->type;
	ep->qp_access = a->qp_access;
	ep->scq = it_cq_new(t, a->cqe, NULL);
	if (!ep->scq)
		return IT_FAIL;
	ep->rcq = it_cq_new(t, a->cqe, a->channel);
	if (!ep->rcq)
		return IT_FAIL;
	ia.send_cq = ep->scq;
	ia.recv_cq = ep->rcq;
	if (a->send_ops_flags) {
		struct ibv_qp_init_attr_ex iax = {
			.send_cq = ia.send_cq,
			.recv_cq = ia.recv_cq,
			.srq = ia.srq,
			.cap = ia.cap,
			.qp_type = ia.qp_type,
			.sq_sig_all = ia.sq_sig_all,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = env->pd,
			.send_ops_flags = a->send_ops_flags,
		};

		ep->qp = ibv_create_qp_ex(env->ctx, &iax);
		ia.cap = iax.cap;
	} else {
		ep->qp = ibv_create_qp(env->pd, &ia);
	}
	if (!ep->qp)
		return it_fail(t,
			       "ibv_create_qp(%s, %u/%u wr, %u/%u sge, %u "
			       "inline): %s",
			       it_qpt_name(a->type), a->send_wr, a->recv_wr,
			       a->send_sge, a->recv_sge, a->inline_data,
			       strerror(errno));
	it_track(t, IT_RES_QP, ep->qp);
	ep->cap = ia.cap;
	if (a->type == IBV_QPT_UD) {
		struct ibv_ah_attr aa = {
			.dlid = env->port_attr.lid, /* InfiniBand; 0 on RoCE */
			.is_global = 1,
			.port_num = env->port,
			.grh = {
				.dgid = env->gid,
				.flow_label = IT_UD_FLOW_LABEL,
				.sgid_index = env->gidx,
				.hop_limit = 64,
				.traffic_class = IT_UD_TCLASS,
			},
		};

		ep->ah = ibv_create_ah(env->pd, &aa);
		if (!ep->ah)
			return it_fail(t, "ibv_create_ah(gid index %d): %s",
				       env->gidx, strerror(errno));
		it_track(t, IT_RES_AH, ep->ah);
	}
	return 0;
}

static const char *it_state_name(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return "RESET";
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	default:
		return "?";
	}
}

static int it_rd_atomic(const struct it_env *env)
{
	int n = 16;

	if (env->dev.max_qp_rd_atom < n)
		n = env->dev.max_qp_rd_atom;
	if (env->dev.max_qp_init_rd_atom < n)
		n = env->dev.max_qp_init_rd_atom;
	return n > 0 ? n : 1;
}

int it_ep_modify(struct it_test *t, struct it_ep *ep, enum ibv_qp_state to,
		 uint32_t dqpn)
{
	const struct it_env *env = t->env;
	struct ibv_qp_attr qa = { .qp_state = to };
	int mask = IBV_QP_STATE;
	int ret;

	switch (to) {
	case IBV_QPS_INIT:
		qa.pkey_index = 0;
		qa.port_num = env->port;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ep->type == IBV_QPT_UD) {
			qa.qkey = IT_QKEY;
			mask |= IBV_QP_QKEY;
		} else {
			qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
			if (ep->type == IBV_QPT_RC)
				qa.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
						      IBV_ACCESS_REMOTE_ATOMIC;
			qa.qp_access_flags |= ep->qp_access;
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		break;
	case IBV_QPS_RTR:
		if (ep->type == IBV_QPT_UD)
			break;
		qa.path_mtu = env->port_attr.active_mtu;
		qa.dest_qp_num = dqpn;
		qa.rq_psn = it_psn(dqpn);
		qa.ah_attr.dlid = env->port_attr.lid; /* 0 on RoCE */
		qa.ah_attr.is_global = 1;
		qa.ah_attr.port_num = env->port;
		qa.ah_attr.grh.dgid = env->gid;
		qa.ah_attr.grh.sgid_index = env->gidx;
		qa.ah_attr.grh.hop_limit = 64;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (ep->type == IBV_QPT_RC) {
			qa.max_dest_rd_atomic = it_rd_atomic(env);
			qa.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		qa.sq_psn = it_psn(ep->qp->qp_num);
		mask |= IBV_QP_SQ_PSN;
		if (ep->type == IBV_QPT_RC) {
			qa.timeout = 14;
			qa.retry_cnt = 7;
			qa.rnr_retry = 7;
			qa.max_rd_atomic = it_rd_atomic(env);
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	ret = ibv_modify_qp(ep->qp, &qa, mask);
	if (ret)
		return it_fail(t, "ibv_modify_qp(%s QP 0x%x -> %s): %s",
			       it_qpt_name(ep->type), ep->qp->qp_num,
			       it_state_name(to), strerror(ret));
	return 0;
}

int it_ep_bring_up(struct it_test *t, struct it_ep *ep, enum ibv_qp_state to,
		   uint32_t dqpn)
{
	static const enum ibv_qp_state steps[] = {
		IBV_QPS_INIT,
		IBV_QPS_RTR,
		IBV_QPS_RTS,
	};
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (it_ep_modify(t, ep, steps[i], dqpn))
			return IT_FAIL;
		if (steps[i] == to)
			break;
	}
	return 0;
}

int it_pair(struct it_test *t, struct it_ep *a, struct it_ep *b,
	    const struct it_qp_attr *attr)
{
	if (it_ep_new(t, a, attr) || it_ep_new(t, b, attr))
		return IT_FAIL;
	if (it_ep_bring_up(t, a, IBV_QPS_RTS, b->qp->qp_num) ||
	    it_ep_bring_up(t, b, IBV_QPS_RTS, a->qp->qp_num))
		return IT_FAIL;
	return 0;
}

/* Work requests */

void it_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t wr_id,
	   enum ibv_wr_opcode opcode, const struct it_buf *b, size_t off,
	   uint32_t len)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)(b->addr + off);
	sge->length = len;
	sge->lkey = b->mr->lkey;
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = opcode;
	wr->send_flags = IBV_SEND_SIGNALED;
}

void it_wr_dest(struct ibv_send_wr *wr, const struct it_ep *src,
		const struct it_ep *dst)
{
	if (src->type != IBV_QPT_UD)
		return;
	wr->wr.ud.ah = src->ah;
	wr->wr.ud.remote_qpn = dst->qp->qp_num;
	wr->wr.ud.remote_qkey = IT_QKEY;
}

void it_wr_rdma(struct ibv_send_wr *wr, const struct it_buf *rb, size_t off)
{
	wr->wr.rdma.remote_addr = (uintptr_t)(rb->addr + off);
	wr->wr.rdma.rkey = rb->mr->rkey;
}

int it_post_send(struct it_test *t, struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int ret = ibv_post_send(qp, wr, &bad);

	if (ret)
		return it_fail(t,
			       "ibv_post_send(wr_id %llu, opcode %d) "
			       "returned %d",
			       (unsigned long long)wr->wr_id, (int)wr->opcode,
			       ret);
	return 0;
}

int it_post_recv(struct it_test *t, struct ibv_qp *qp, uint64_t wr_id,
		 const struct it_buf *b, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(b->addr + off),
		.length = len,
		.lkey = b->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad = NULL;
	int ret = ibv_post_recv(qp, &wr, &bad);

	if (ret)
		return it_fail(t, "ibv_post_recv(wr_id %llu) returned %d",
			       (unsigned long long)wr_id, ret);
	return 0;
}

int it_post_srq_recv(struct it_test *t, struct ibv_srq *srq, uint64_t wr_id,
		     const struct it_buf *b, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(b->addr + off),
		.length = len,
		.lkey = b->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad = NULL;
	int ret = ibv_post_srq_recv(srq, &wr, &bad);

	if (ret)
		return it_fail(t, "ibv_post_srq_recv(wr_id %llu) returned %d",
			       (unsigned long long)wr_id, ret);
	return 0;
}

/* Completions */

uint64_t it_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void it_pause(void)
{
	struct timespec ts = { .tv_nsec = 20000 };

	nanosleep(&ts, NULL);
}

int it_poll(struct it_test *t, struct ibv_cq *cq, struct ibv_wc *wc, int n,
	    const char *what)
{
	uint64_t deadline = it_now_ms() + t->env->timeout_ms;
	int got = 0;

	for (;;) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return it_fail(t, "%s: ibv_poll_cq returned %d", what,
				       r);
		if (r > n - got)
			return it_fail(t,
				       "%s: ibv_poll_cq returned %d for "
				       "%d entries",
				       what, r, n - got);
		got += r;
		if (got == n)
			return 0;
		if (it_now_ms() > deadline)
			return it_fail(t,
				       "%s: %d of %d completions after %u "
				       "ms",
				       what, got, n, t->env->timeout_ms);
		if (!r)
			it_pause();
	}
}

int it_quiet(struct it_test *t, struct ibv_cq *cq, const char *what)
{
	uint64_t end = it_now_ms() + t->env->quiet_ms;
	struct ibv_wc wc;

	do {
		int r = ibv_poll_cq(cq, 1, &wc);

		if (r < 0)
			return it_fail(t, "%s: ibv_poll_cq returned %d", what,
				       r);
		if (r)
			return it_fail(t,
				       "%s: unexpected completion wr_id "
				       "%llu status %s opcode %d byte_len %u",
				       what, (unsigned long long)wc.wr_id,
				       ibv_wc_status_str(wc.status),
				       (int)wc.opcode, wc.byte_len);
		it_pause();
	} while (it_now_ms() < end);
	return 0;
}

struct it_wc_exp it_exp_send(uint64_t wr_id, enum ibv_wc_opcode op,
			     const struct ibv_qp *qp)
{
	struct it_wc_exp e = {
		.wr_id = wr_id,
		.opcode = op,
		.byte_len = -1,
		.qp_num = qp->qp_num,
		.imm = -1,
		.grh = -1,
		.src_qp = -1,
	};

	return e;
}

struct it_wc_exp it_exp_recv(uint64_t wr_id, enum ibv_wc_opcode op,
			     const struct ibv_qp *qp, int64_t len)
{
	struct it_wc_exp e = {
		.wr_id = wr_id,
		.opcode = op,
		.byte_len = len,
		.qp_num = qp->qp_num,
		.imm = 0,
		.grh = -1,
		.src_qp = -1,
	};

	return e;
}

int it_check_wc(struct it_test *t, const struct ibv_wc *wc,
		const struct it_wc_exp *e, const char *what)
{
	unsigned int allowed = IBV_WC_GRH | IBV_WC_WITH_IMM;

	if (wc->status != IBV_WC_SUCCESS)
		return it_fail(t,
			       "%s: wr_id %llu status %s (%d) vendor_err "
			       "0x%x",
			       what, (unsigned long long)wc->wr_id,
			       ibv_wc_status_str(wc->status), wc->status,
			       wc->vendor_err);
	if (wc->wr_id != e->wr_id)
		return it_fail(t, "%s: wr_id %llu, expected %llu", what,
			       (unsigned long long)wc->wr_id,
			       (unsigned long long)e->wr_id);
	if (e->opcode >= 0 && (int)wc->opcode != e->opcode)
		return it_fail(t, "%s: opcode %d, expected %d", what,
			       (int)wc->opcode, e->opcode);
	if (wc->qp_num != e->qp_num)
		return it_fail(t, "%s: qp_num 0x%x, expected 0x%x", what,
			       wc->qp_num, e->qp_num);
	if (e->byte_len >= 0 && wc->byte_len != e->byte_len)
		return it_fail(t, "%s: byte_len %u, expected %lld", what,
			       wc->byte_len, (long long)e->byte_len);
	if (e->imm == 1) {
		if (!(wc->wc_flags & IBV_WC_WITH_IMM))
			return it_fail(t,
				       "%s: IBV_WC_WITH_IMM not set "
				       "(wc_flags 0x%x)",
				       what, wc->wc_flags);
		if (wc->imm_data != e->imm_data)
			return it_fail(t,
				       "%s: imm_data 0x%08x, expected "
				       "0x%08x",
				       what, wc->imm_data, e->imm_data);
	} else if (e->imm == 0 && (wc->wc_flags & IBV_WC_WITH_IMM)) {
		return it_fail(t,
			       "%s: IBV_WC_WITH_IMM set without immediate "
			       "(wc_flags 0x%x)",
			       what, wc->wc_flags);
	}
	if (e->imm >= 0 && (wc->wc_flags & ~allowed))
		return it_fail(t, "%s: unexpected wc_flags 0x%x", what,
			       wc->wc_flags);
	if (e->grh >= 0 && !!(wc->wc_flags & IBV_WC_GRH) != e->grh)
		return it_fail(t, "%s: IBV_WC_GRH is %d, expected %d", what,
			       !!(wc->wc_flags & IBV_WC_GRH), e->grh);
	if (e->src_qp >= 0 && wc->src_qp != e->src_qp)
		return it_fail(t, "%s: src_qp 0x%x, expected 0x%llx", what,
			       wc->src_qp, (long long)e->src_qp);
	return 0;
}

int it_expect_wc(struct it_test *t, struct ibv_cq *cq,
		 const struct it_wc_exp *e, const char *what)
{
	struct ibv_wc wc;

	if (it_poll(t, cq, &wc, 1, what))
		return IT_FAIL;
	return it_check_wc(t, &wc, e, what);
}

/* Compound steps */

int it_send_and_verify(struct it_test *t, struct it_ep *a, struct it_ep *b,
		       struct ibv_send_wr *wr, uint64_t wr_id,
		       const struct it_wc_exp *er, const struct it_buf *rb,
		       uint32_t len, uint64_t seed, uint64_t poison)
{
	uint32_t hdr = b->type == IBV_QPT_UD ? IT_GRH : 0;
	struct it_wc_exp es = it_exp_send(wr_id, IBV_WC_SEND, a->qp);
	struct it_wc_exp r = *er;

	if (wr && it_post_send(t, a->qp, wr))
		return IT_FAIL;
	if (hdr) {
		r.grh = 1;
		r.src_qp = a->qp->qp_num;
	}
	if (it_expect_wc(t, a->scq, &es, "send completion") ||
	    it_expect_wc(t, b->rcq, &r, "receive completion"))
		return IT_FAIL;
	if (it_verify(t, rb->addr + hdr, len, seed, 0, "received bytes") ||
	    it_verify(t, rb->addr + hdr + len, rb->len - hdr - len, poison,
		      hdr + len, "bytes after the message"))
		return IT_FAIL;
	return 0;
}

int it_post_expect(struct it_test *t, struct it_ep *a, struct ibv_send_wr *wr,
		   uint64_t wr_id, enum ibv_wc_opcode op, int64_t len,
		   const char *what)
{
	struct it_wc_exp e = it_exp_send(wr_id, op, a->qp);

	if (it_post_send(t, a->qp, wr))
		return IT_FAIL;
	e.byte_len = len;
	return it_expect_wc(t, a->scq, &e, what);
}

int it_post_inline(struct it_test *t, struct it_ep *a, struct it_ep *b,
		   uint64_t wr_id, struct ibv_sge *sge, int n)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = n,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
	};

	it_wr_dest(&wr, a, b);
	return it_post_send(t, a->qp, &wr);
}

int it_send_check(struct it_test *t, struct it_ep *a, struct it_ep *b,
		  uint64_t wr_id, uint64_t rwr_id, struct it_buf *sb,
		  struct it_buf *rb, uint32_t len, uint64_t seed,
		  uint64_t poison)
{
	uint32_t hdr = b->type == IBV_QPT_UD ? IT_GRH : 0;
	struct it_wc_exp er =
		it_exp_recv(rwr_id, IBV_WC_RECV, b->qp, hdr + len);
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	it_fill(sb->addr, len, seed, 0);
	it_wr(&wr, &sge, wr_id, IBV_WR_SEND, sb, 0, len);
	it_wr_dest(&wr, a, b);
	return it_send_and_verify(t, a, b, &wr, wr_id, &er, rb, len, seed,
				  poison);
}

int it_pair_still_works(struct it_test *t, struct it_ep *a, struct it_ep *b,
			uint64_t wr_id, uint64_t rwr_id, uint64_t salt)
{
	uint64_t poison = it_seed(t, salt ^ 0x501u);
	struct it_buf *sb, *rb;

	it_where(t, "good send afterwards");
	sb = it_buf_new(t, 256, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, IT_GRH + 256, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	if (it_post_recv(t, b->qp, rwr_id, rb, 0, rb->len))
		return IT_FAIL;
	if (it_send_check(t, a, b, wr_id, rwr_id, sb, rb, 200, it_seed(t, salt),
			  poison))
		return IT_FAIL;
	if (it_quiet(t, a->scq, "sender CQ") ||
	    it_quiet(t, b->rcq, "receiver CQ"))
		return IT_FAIL;
	it_where(t, "%s", "");
	return 0;
}
