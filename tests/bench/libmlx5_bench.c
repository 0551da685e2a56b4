// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Stock libmlx5's real post_send and poll_cq on plain memory, counted the
 * way tests/bench/insn-guard.sh --mlx5 counts the doorbell mlx5 backend, for
 * tests/bench/mlx5-vs-libmlx5.sh.
 *
 * It dlopen()s the installed libmlx5 (Debian 12: ibverbs-providers), checks
 * that it is a build whose layouts and function offsets libmlx5_v44.h
 * records, and builds libmlx5's own context, QP, CQ and BlueFlame register
 * in ordinary memory as mlx5_create_qp / mlx5_create_cq would leave them for
 * the QP of tests/bench/post_poll.c (BENCH_MODEL): RC, max_send_wr 64, one SGE,
 * max_inline_data 64, a CQ of 256 64-byte CQEs with CQE version 1, a
 * dedicated BlueFlame register without a lock, MLX5_SHUT_UP_BF unset, and
 * ctx->prefer_bf as v44.0's providers/mlx5/mlx5.c get_always_bf() sets it
 * from MLX5_POST_SEND_PREFER_BF: 1 (BlueFlame for every single-WQE post)
 * unless the variable is "0".  The UAR and the doorbell records are
 * ordinary memory.
 *
 * The measured calls go through the same named noinline wrappers as the
 * doorbell bench (bench_post_inline64 ... bench_poll_16), each calling the
 * public inline ibv_post_send() / ibv_poll_cq().  Outside them a "device"
 * checks every WQE libmlx5 wrote (ctrl, raddr, data or inline segment, the
 * doorbell record, the 8-byte doorbell or the BlueFlame copy) and writes
 * the success CQE a ConnectX writes for it; every completion is checked.
 *
 * Usage: libmlx5-bench [-l LIB] [-n ITERS] [-t] [-p]
 *   -l  the libmlx5 to load (default: the Debian 12 provider path)
 *   -t  locks elided (need_lock 0: parent domain with a thread domain and
 *       single-threaded CQ), the counterpart of doorbell-mlx5-bench -t
 *   -p  probe only: print what LIB is, exit 0 if it is a known build,
 *       3 if not (the caller then falls back to recorded figures)
 * Prints "ops <wrapper> <calls> <units>" per wrapper.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <endian.h>
#include <getopt.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "libmlx5_v44.h"

#define DEFAULT_LIB "/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so"
#define BUFSZ	    (64 * 1024)
#define SRC_OFF	    0
#define DST_OFF	    (32 * 1024)
#define BIG	    4096
#define BATCH	    16
#define NCQE	    256
#define UIDX	    1
#define QPN	    0x1234
#define LKEY	    0x100
#define RKEY	    0x200

int bench_post_inline64(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad);
int bench_post_send64(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad);
int bench_post_send4k(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad);
int bench_post_write4k(struct ibv_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad);
int bench_poll_1(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int bench_poll_16(struct ibv_cq *cq, int n, struct ibv_wc *wc);

#define POST_WRAPPER(name)                                                     \
	__attribute__((noinline)) int name(struct ibv_qp *qp,                  \
					   struct ibv_send_wr *wr,             \
					   struct ibv_send_wr **bad)           \
	{                                                                      \
		return ibv_post_send(qp, wr, bad);                             \
	}
POST_WRAPPER(bench_post_inline64)
POST_WRAPPER(bench_post_send64)
POST_WRAPPER(bench_post_send4k)
POST_WRAPPER(bench_post_write4k)

#define POLL_WRAPPER(name)                                                     \
	__attribute__((noinline)) int name(struct ibv_cq *cq, int n,           \
					   struct ibv_wc *wc)                  \
	{                                                                      \
		return ibv_poll_cq(cq, n, wc);                                 \
	}
POLL_WRAPPER(bench_poll_1)
POLL_WRAPPER(bench_poll_16)

typedef int (*post_fn)(struct ibv_qp *, struct ibv_send_wr *,
		       struct ibv_send_wr **);
typedef int (*poll_fn)(struct ibv_cq *, int, struct ibv_wc *);

struct rig {
	struct lm5_context *ctx;
	struct lm5_qp *qp;
	struct lm5_cq *cq;
	struct lm5_bf *bf;
	__be32 *sq_dbrec;
	uint8_t *cqes;
	uint8_t *buf;
	unsigned int cq_pi; /* CQEs the device has written */
	unsigned int sq_ci; /* next basic block the device runs */
};

static void die(const char *what, int i)
{
	fprintf(stderr, "libmlx5-bench: %s (iteration %d)\n", what, i);
	exit(1);
}

/* Every block zmem gave, freed by zmem_free_all at the end of the run. */
static void *zmem_blocks[32];
static unsigned int zmem_n;

static void *zmem(size_t align, size_t size)
{
	void *p = aligned_alloc(align, (size + align - 1) / align * align);

	if (!p || zmem_n == sizeof(zmem_blocks) / sizeof(zmem_blocks[0])) {
		fprintf(stderr, "libmlx5-bench: out of memory\n");
		exit(2);
	}
	memset(p, 0, size);
	zmem_blocks[zmem_n++] = p;
	return p;
}

static void zmem_free_all(void)
{
	while (zmem_n)
		free(zmem_blocks[--zmem_n]);
}

/* The GNU build-id of the loaded object, as lowercase hex. */
static bool build_id(const struct link_map *lm, const ElfW(Ehdr) * eh,
		     char *hex, size_t len)
{
	const ElfW(Phdr) *ph = (const void *)((const char *)eh + eh->e_phoff);
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		const char *p = (const char *)lm->l_addr + ph[i].p_vaddr;
		const char *end = p + ph[i].p_memsz;

		if (ph[i].p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const unsigned char *desc =
				(const void *)(name +
					       ((n->n_namesz + 3) & ~3u));
			unsigned int k;

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && 2 * n->n_descsz < len) {
				for (k = 0; k < n->n_descsz; k++)
					sprintf(hex + 2 * k, "%02x", desc[k]);
				return true;
			}
			p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return false;
}

/*
 * The known build LIB is, with its two functions checked against its own
 * ops tables; NULL (and why on stderr) if LIB is not one.
 */
static const struct lm5_build *identify(void *h, uintptr_t *base)
{
	const struct link_map *lm;
	char hex[2 * 64 + 1] = "", real[4096];
	size_t i;

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm))
		return NULL;
	*base = lm->l_addr;
	if (!realpath(lm->l_name, real))
		snprintf(real, sizeof(real), "%s", lm->l_name);
	if (!build_id(lm, (const void *)lm->l_addr, hex, sizeof(hex))) {
		fprintf(stderr, "libmlx5-bench: %s: no GNU build-id\n", real);
		return NULL;
	}
	for (i = 0; i < sizeof(lm5_builds) / sizeof(lm5_builds[0]); i++) {
		const struct lm5_build *b = &lm5_builds[i];
		void *const *common = (void *)(*base + b->common_ops);
		void *const *cqev1 = (void *)(*base + b->cqev1_ops);

		if (strcmp(hex, b->build_id))
			continue;
		void *post = (void *)(*base + b->post_send);
		void *poll = (void *)(*base + b->poll_cq_v1);

		if (common[LM5_OPS_POST_SEND] != post ||
		    cqev1[LM5_OPS_POLL_CQ] != poll) {
			fprintf(stderr,
				"libmlx5-bench: %s: ops tables disagree with "
				"the recorded offsets\n",
				real);
			return NULL;
		}
		printf("libmlx5 %s build-id %s: %s (layouts of rdma-core "
		       "v44.0)\n",
		       real, hex, b->what);
		return b;
	}
	fprintf(stderr,
		"libmlx5-bench: %s (build-id %s) is not a build whose layouts "
		"tests/bench/libmlx5_v44.h records\n",
		real, hex);
	return NULL;
}

static void lock_init(struct lm5_spinlock *l, bool need)
{
	pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
	l->in_use = 0;
	l->need_lock = need;
}

static void setup(struct rig *r, void *post_send, void *poll_cq, bool td,
		  bool prefer_bf)
{
	struct lm5_context *ctx = zmem(64, sizeof(*ctx));
	struct lm5_qp *qp = zmem(64, sizeof(*qp));
	struct lm5_cq *cq = zmem(64, sizeof(*cq));
	struct lm5_bf *bf = zmem(64, sizeof(*bf));
	struct lm5_uidx_entry *ue;
	uint8_t *sq;
	int i;

	r->ctx = ctx, r->qp = qp, r->cq = cq, r->bf = bf;
	/* mlx5_ctx_common_ops + mlx5_ctx_cqev1_ops, as mlx5_set_context does */
	ctx->ibv_ctx.context.ops.post_send = post_send;
	ctx->ibv_ctx.context.ops.poll_cq = poll_cq;
	ctx->cqe_version = LM5_CQE_VERSION_V1;
	ctx->bf_reg_size = 512;
	ctx->prefer_bf = prefer_bf;
	ctx->shut_up_bf = 0;
	ctx->dbg_fp = stderr;

	/* A dedicated BlueFlame register in a 4 KiB "UAR". */
	bf->reg = (uint8_t *)zmem(4096, 4096) + LM5_BF_OFFSET;
	bf->buf_size = ctx->bf_reg_size / 2;
	bf->uuarn = 1;
	bf->need_lock = 0;
	lock_init(&bf->lock, false);

	r->cqes = zmem(4096, NCQE * 64);
	for (i = 0; i < NCQE; i++)
		((struct mlx5_cqe64 *)(r->cqes + i * 64))->op_own =
			MLX5_CQE_INVALID << 4;
	cq->cq.context = &ctx->ibv_ctx.context;
	cq->cq.cqe = NCQE - 1;
	cq->buf_a.buf = r->cqes;
	cq->buf_a.length = NCQE * 64;
	cq->active_buf = &cq->buf_a;
	cq->active_cqes = NCQE;
	cq->cqe_sz = 64;
	cq->cqn = 0x55;
	cq->dbrec = zmem(64, 64);
	cq->arm_sn = 1;
	lock_init(&cq->lock, !td);

	/* The QP after modify to RTS, sq_sig_all 0. */
	qp->rsc_type = LM5_RSC_TYPE_QP;
	qp->rsc_rsn = UIDX;
	qp->qp.context = &ctx->ibv_ctx.context;
	qp->qp.qp_num = QPN;
	qp->qp.qp_type = IBV_QPT_RC;
	qp->qp.state = IBV_QPS_RTS;
	qp->qp.send_cq = &cq->cq;
	qp->qp.recv_cq = &cq->cq;
	qp->ibv_qp = &qp->qp;
	qp->max_inline_data = LM5_SQ_MAX_INLINE;
	qp->bf = bf;
	qp->atomics_enabled = 1;
	sq = zmem(4096, LM5_SQ_WQE_CNT * MLX5_SEND_WQE_BB);
	qp->sq_start = sq;
	qp->sq.qend = sq + LM5_SQ_WQE_CNT * MLX5_SEND_WQE_BB;
	qp->sq.wqe_cnt = LM5_SQ_WQE_CNT;
	qp->sq.max_post = LM5_SQ_MAX_POST;
	qp->sq.wqe_shift = MLX5_SEND_WQE_SHIFT;
	qp->sq.max_gs = 1;
	qp->sq.qp_state_max_gs = 1;
	qp->sq.wrid = zmem(64, LM5_SQ_WQE_CNT * sizeof(uint64_t));
	qp->sq.wqe_head = zmem(64, LM5_SQ_WQE_CNT * sizeof(unsigned int));
	qp->sq.wr_data = zmem(64, LM5_SQ_WQE_CNT * sizeof(uint32_t));
	lock_init(&qp->sq.lock, !td);
	r->sq_dbrec = zmem(64, 64);
	qp->db = r->sq_dbrec;

	/* The user index, as mlx5_store_uidx files it. */
	ue = &ctx->uidx_table[UIDX >> LM5_UIDX_TABLE_SHIFT];
	ue->refcnt = 1;
	ue->table = zmem(64, (LM5_UIDX_TABLE_MASK + 1) * sizeof(void *));
	ue->table[UIDX & LM5_UIDX_TABLE_MASK] = qp;

	r->buf = zmem(4096, BUFSZ);
}

/* ds (16-byte units) the WQE for WR must have, after checking its segments */
static unsigned int check_segs(const uint8_t *seg, const uint8_t *ctrl,
			       const struct ibv_send_wr *wr, uint8_t opc, int i)
{
	const struct ibv_sge *sge = wr->sg_list;

	if (wr->opcode == IBV_WR_RDMA_WRITE) {
		const struct mlx5_wqe_raddr_seg *ra = (const void *)seg;

		if (opc != MLX5_OPCODE_RDMA_WRITE ||
		    be64toh(ra->raddr) != wr->wr.rdma.remote_addr ||
		    be32toh(ra->rkey) != wr->wr.rdma.rkey)
			die("WQE remote address segment", i);
		seg += sizeof(*ra);
	} else if (opc != MLX5_OPCODE_SEND) {
		die("WQE opcode", i);
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		const struct mlx5_wqe_inl_data_seg *il = (const void *)seg;
		uint32_t bc = be32toh(il->byte_count);

		if (bc != (MLX5_INLINE_SEG | sge->length) ||
		    memcmp(il + 1, (void *)(uintptr_t)sge->addr, sge->length))
			die("WQE inline data", i);
		return (seg - ctrl) / 16 + (sge->length + 4 + 15) / 16;
	}
	const struct mlx5_wqe_data_seg *d = (const void *)seg;

	if (be32toh(d->byte_count) != sge->length ||
	    be32toh(d->lkey) != sge->lkey || be64toh(d->addr) != sge->addr)
		die("WQE data segment", i);
	return (seg - ctrl) / 16 + 1;
}

/* Run the WQEs posted since the last call; one success CQE for each. */
static void device_run(struct rig *r, const struct ibv_send_wr *wr,
		       unsigned int nposted, int i)
{
	unsigned int n = 0, dbr = be32toh(r->sq_dbrec[MLX5_SND_DBR]);

	if (dbr != (r->qp->sq.cur_post & 0xffff))
		die("the SQ doorbell record", i);
	while ((r->sq_ci & 0xffff) != dbr) {
		uint8_t *wqe =
			(uint8_t *)r->qp->sq_start +
			((r->sq_ci & (LM5_SQ_WQE_CNT - 1)) * MLX5_SEND_WQE_BB);
		struct mlx5_wqe_ctrl_seg *c = (void *)wqe;
		uint32_t oio = be32toh(c->opmod_idx_opcode);
		uint32_t qds = be32toh(c->qpn_ds);
		unsigned int slot = r->cq_pi & (NCQE - 1);
		struct mlx5_cqe64 *cqe = (void *)(r->cqes + slot * 64);

		if (((oio >> 8) & 0xffff) != (r->sq_ci & 0xffff) ||
		    (qds >> 8) != QPN)
			die("WQE index or QPN", i);
		if ((qds & 0x3f) !=
		    check_segs(wqe + sizeof(*c), wqe, wr, oio & 0xff, i))
			die("WQE ds", i);
		if (!(c->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE))
			die("WQE not signaled", i);
		memset(cqe, 0, sizeof(*cqe));
		cqe->srqn_uidx = htobe32(UIDX);
		cqe->byte_cnt = htobe32(wr->sg_list[0].length);
		cqe->sop_drop_qpn = htobe32((oio & 0xff) << 24 | QPN);
		cqe->wqe_counter = htobe16(r->sq_ci & 0xffff);
		/* The CQE body before its owner byte, as the device DMAs it. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		cqe->op_own = MLX5_CQE_REQ << 4 |
			      ((r->cq_pi & NCQE) ? MLX5_CQE_OWNER_MASK : 0);
		r->cq_pi++;
		r->sq_ci += ((qds & 0x3f) * 16 + MLX5_SEND_WQE_BB - 1) /
			    MLX5_SEND_WQE_BB;
		n++;
	}
	if (n != nposted)
		die("WQE count", i);
}

/* The 8-byte doorbell or the 64-byte BlueFlame copy of the WQE at BB. */
static void check_doorbell(struct rig *r, unsigned int bb, bool bf, int i)
{
	/* libmlx5 flips bf->offset after each write */
	const uint8_t *reg =
		(uint8_t *)r->bf->reg + (r->bf->offset ^ r->bf->buf_size);
	const uint8_t *wqe = (uint8_t *)r->qp->sq_start +
			     (bb & (LM5_SQ_WQE_CNT - 1)) * MLX5_SEND_WQE_BB;

	if (memcmp(reg, wqe, bf ? 64 : 8))
		die("the doorbell or BlueFlame write", i);
}

static void check_wc(const struct ibv_wc *wc, int n, uint64_t id0,
		     enum ibv_wc_opcode op, int i)
{
	int j;

	for (j = 0; j < n; j++)
		if (wc[j].status != IBV_WC_SUCCESS || wc[j].wr_id != id0 + j ||
		    wc[j].opcode != op || wc[j].qp_num != QPN)
			die("completion", i);
}

static void run_post(struct rig *r, post_fn fn, enum ibv_wr_opcode op,
		     uint32_t len, bool inl, bool prefer_bf, int iters)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + SRC_OFF, len, LKEY };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0),
		.wr.rdma = { (uintptr_t)r->buf + DST_OFF, RKEY },
	};
	enum ibv_wc_opcode wop =
		op == IBV_WR_SEND ? IBV_WC_SEND : IBV_WC_RDMA_WRITE;
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < iters; i++) {
		unsigned int bb = r->qp->sq.cur_post;

		memset(r->buf + SRC_OFF, i & 0xff, len);
		r->buf[SRC_OFF + len - 1] = (uint8_t)(i * 7);
		wr.wr_id = (uint64_t)i;
		if (fn(&r->qp->qp, &wr, &bad))
			die("post_send", i);
		check_doorbell(r, bb, inl || prefer_bf, i);
		device_run(r, &wr, 1, i);
		if (ibv_poll_cq(&r->cq->cq, 1, &wc) != 1)
			die("poll_cq", i);
		check_wc(&wc, 1, (uint64_t)i, wop, i);
		if (ibv_poll_cq(&r->cq->cq, 1, &wc) != 0)
			die("an extra completion", i);
	}
}

static void run_poll(struct rig *r, poll_fn fn, int n, int iters)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + SRC_OFF, 64, LKEY };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)r->buf + DST_OFF, RKEY },
	};
	struct ibv_wc wc[BATCH];
	struct ibv_send_wr *bad;
	int i, j;

	for (i = 0; i < iters; i++) {
		for (j = 0; j < n; j++) {
			wr.wr_id = (uint64_t)i * BATCH + j;
			if (ibv_post_send(&r->qp->qp, &wr, &bad))
				die("post_send", i);
		}
		device_run(r, &wr, n, i);
		if (fn(&r->cq->cq, n, wc) != n)
			die("poll_cq", i);
		check_wc(wc, n, (uint64_t)i * BATCH, IBV_WC_RDMA_WRITE, i);
	}
}

int main(int argc, char **argv)
{
	const char *lib = DEFAULT_LIB;
	const char *env = getenv("MLX5_POST_SEND_PREFER_BF");
	bool td = false, probe = false, prefer_bf = !env || strcmp(env, "0");
	const struct lm5_build *b;
	struct rig r = { 0 };
	int iters = 2000, opt;
	uintptr_t base;
	void *h;

	while ((opt = getopt(argc, argv, "l:n:tp")) != -1) {
		switch (opt) {
		case 'l':
			lib = optarg;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 't':
			td = true;
			break;
		case 'p':
			probe = true;
			break;
		default:
			fprintf(stderr, "usage: libmlx5-bench [-l LIB] [-n N] "
					"[-t] [-p]\n");
			return 2;
		}
	}
	if (iters < BATCH)
		iters = BATCH;
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "libmlx5-bench: %s\n", dlerror());
		return 3;
	}
	b = identify(h, &base);
	if (!b)
		return 3;
	if (probe)
		return 0;
	setup(&r, (void *)(base + b->post_send), (void *)(base + b->poll_cq_v1),
	      td, prefer_bf);
	run_post(&r, bench_post_inline64, IBV_WR_SEND, 64, true, prefer_bf,
		 iters);
	run_post(&r, bench_post_send64, IBV_WR_SEND, 64, false, prefer_bf,
		 iters);
	run_post(&r, bench_post_send4k, IBV_WR_SEND, BIG, false, prefer_bf,
		 iters);
	run_post(&r, bench_post_write4k, IBV_WR_RDMA_WRITE, BIG, false,
		 prefer_bf, iters);
	run_poll(&r, bench_poll_1, 1, iters);
	run_poll(&r, bench_poll_16, BATCH, iters / BATCH);
	printf("ops bench_post_inline64 %d %d\n", iters, iters);
	printf("ops bench_post_send64 %d %d\n", iters, iters);
	printf("ops bench_post_send4k %d %d\n", iters, iters);
	printf("ops bench_post_write4k %d %d\n", iters, iters);
	printf("ops bench_poll_1 %d %d\n", iters, iters);
	printf("ops bench_poll_16 %d %d\n", iters / BATCH,
	       iters / BATCH * BATCH);
	printf("libmlx5-bench: %s, prefer_bf %d; every WQE and completion "
	       "checked\n",
	       td ? "locks elided" : "default locks", prefer_bf);
	zmem_free_all();
	return 0;
}
