/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Integration test harness: one process, one device, QPs connected to each
 * other through loopback on the device's own GID.  Every test reports one
 * line (PASS, FAIL with a reason, or SKIP) and every wait has a deadline.
 */
#ifndef ITEST_HARNESS_H
#define ITEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

enum it_result {
	IT_PASS = 0,
	IT_FAIL = 1,
	IT_SKIP = 2,
};

/* The Q_Key of every UD QP the harness creates. */
#define IT_QKEY 0x11111111u
/* Bytes of GRH in front of every UD receive. */
#define IT_GRH 40u
/* The GRH fields of the UD address handle it_qp() makes, which an
 * IPv6-style GRH carries to the receiver (data_ud_uc.c: check_grh). */
#define IT_UD_TCLASS	 0x28
#define IT_UD_FLOW_LABEL 0x5a5a5

/* What every test shares: the device, a PD, and what was queried at start. */
struct it_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr dev;
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
	uint8_t port;
	int gidx;
	unsigned int timeout_ms; /* deadline of every wait */
	unsigned int quiet_ms;	 /* wait for "nothing more" */
};

struct it_res;

/* One running test. */
struct it_test {
	const struct it_env *env;
	const char *name;
	int result; /* IT_FAIL or IT_SKIP once decided */
	char reason[512];
	char where[96];	    /* context of a failure */
	struct it_res *res; /* resources, destroyed in reverse */
	size_t nres, capres;
};

struct it_case {
	const char *name;
	int (*fn)(struct it_test *t, long arg);
	long arg;
};

/* The test tables, one per topic file, each ending with { NULL }. */
extern const struct it_case it_cases_device[];
extern const struct it_case it_cases_data_rc[];
extern const struct it_case it_cases_data_ud_uc[];
extern const struct it_case it_cases_srq[];
extern const struct it_case it_cases_cq[];
extern const struct it_case it_cases_bad_input[];
extern const struct it_case it_cases_threads[];
extern const struct it_case it_cases_errors[];
extern const struct it_case it_cases_bad_matrix[];
extern const struct it_case it_cases_features[];
extern const struct it_case it_cases_odp[];
extern const struct it_case it_cases_dmabuf[];
extern const struct it_case it_cases_clock[];
extern const struct it_case it_cases_xrc[];

/* The device */

/*
 * How tests open the device by name and make completion channels: through
 * libibverbs unless a driver installs other ops first (tests/model/mlx5/
 * test_bad_matrix.c runs the bad-input matrix on the software ConnectX).
 */
struct it_dev_ops {
	struct ibv_context *(*open)(const char *name);
	struct ibv_comp_channel *(*create_channel)(struct ibv_context *ctx);
	int (*destroy_channel)(struct ibv_comp_channel *ch);
};
extern const struct it_dev_ops *it_dev_ops;

/* The device @name opened (NULL with errno set), through it_dev_ops. */
struct ibv_context *it_open_device(const char *name);
struct ibv_comp_channel *it_create_channel(struct ibv_context *ctx);
int it_destroy_channel(struct ibv_comp_channel *ch);

/*
 * The backend the device is for, where the suite's expectations differ
 * (docs/new-backend.md): known from the device's vendor, so the cases
 * hold whichever provider serves it.
 */
enum it_backend {
	IT_RXE,	 /* Soft-RoCE */
	IT_MLX5, /* a ConnectX */
};
enum it_backend it_backend(const struct it_env *env);

/*
 * ibv_post_send's errno for a WR the QP cannot take: more SGEs or inline
 * bytes than its caps, or a QP not yet in RTS.  EINVAL on rxe (librxe's),
 * ENOMEM on a ConnectX (libmlx5's; docs/mlx5-model.md).  bad_matrix.c's
 * bm_mlx5 rows give its wr_send_* cases the same answer.
 */
int it_send_refusal(const struct it_env *env);

/* Results */

/* Record why the test failed (the first reason wins); returns IT_FAIL. */
int it_fail(struct it_test *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record why the test cannot run here; returns IT_SKIP. */
int it_skip(struct it_test *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Set the context printed in front of the next failure ("" clears it). */
void it_where(struct it_test *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define IT_EXPECT(t, cond, ...)                                                \
	do {                                                                   \
		if (!(cond))                                                   \
			return it_fail((t), __VA_ARGS__);                      \
	} while (0)

/* Release everything the test created; nonzero if a destroy failed. */
int it_cleanup(struct it_test *t);

/* Patterns */

/* A seed derived from the test's name and a salt. */
uint64_t it_seed(const struct it_test *t, uint64_t salt);
/* Byte @off of the pattern stream @seed. */
uint8_t it_pattern_byte(uint64_t seed, size_t off);
/* Fill @buf with bytes [@off, @off + @len) of the pattern stream @seed. */
void it_fill(void *buf, size_t len, uint64_t seed, size_t off);
/* Check @buf against the stream; names the first wrong byte on failure. */
int it_verify(struct it_test *t, const void *buf, size_t len, uint64_t seed,
	      size_t off, const char *what);

/* it_verify, retried until the bytes match or the deadline passes. */
int it_verify_eventually(struct it_test *t, const void *buf, size_t len,
			 uint64_t seed, size_t off, const char *what);

/* Resources */

/* Registered memory, page aligned, tracked by the test. */
struct it_buf {
	uint8_t *addr;
	size_t len;
	struct ibv_mr *mr;
};

#define IT_ACCESS_ALL                                                          \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* Allocate and register @len bytes (filled with @poison) or fail. */
struct it_buf *it_buf_new(struct it_test *t, size_t len, int access,
			  uint64_t poison);
/* Plain memory freed with the test. */
void *it_alloc(struct it_test *t, size_t len);

struct ibv_cq *it_cq_new(struct it_test *t, int cqe,
			 struct ibv_comp_channel *ch);
struct ibv_srq *it_srq_new(struct it_test *t, uint32_t max_wr, uint32_t max_sge,
			   struct ibv_srq_attr *got);
struct ibv_comp_channel *it_channel_new(struct it_test *t);
/* Destroy @mr, close @fd, with the test's other resources. */
void it_track_mr(struct it_test *t, struct ibv_mr *mr);
void it_track_fd(struct it_test *t, int fd);
/* Stop tracking @p: the test destroys it itself (or leaks it on purpose). */
void it_forget(struct it_test *t, const void *p);

/* QPs */

struct it_qp_attr {
	enum ibv_qp_type type;
	uint32_t send_wr, recv_wr;
	uint32_t send_sge, recv_sge;
	uint32_t inline_data;
	int sig_all;
	int cqe; /* of each of the two CQs */
	struct ibv_srq *srq;
	struct ibv_comp_channel *channel; /* for the receive CQ */
	/* Nonzero: ibv_create_qp_ex with these IBV_QP_EX_WITH_* flags. */
	uint64_t send_ops_flags;
	/* RC/UC: qp_access_flags to add to the harness's (FLUSH's, say). */
	int qp_access;
};

/* A QP with its own send and receive CQs (and its AH for UD). */
struct it_ep {
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp_cap cap; /* as returned by create */
	enum ibv_qp_type type;
	struct ibv_ah *ah; /* UD: to our own GID */
	int qp_access;	   /* it_qp_attr.qp_access */
};

/* Defaults: depth 64, 4 SGEs, signal all, CQs of 256. */
struct it_qp_attr it_qp_defaults(enum ibv_qp_type type);
/* Create the CQs and the QP, which stays in RESET. */
int it_ep_new(struct it_test *t, struct it_ep *ep, const struct it_qp_attr *a);
/* One state transition, RESET->INIT->RTR->RTS, towards peer @dqpn. */
int it_ep_modify(struct it_test *t, struct it_ep *ep, enum ibv_qp_state to,
		 uint32_t dqpn);
/* All transitions up to @to. */
int it_ep_bring_up(struct it_test *t, struct it_ep *ep, enum ibv_qp_state to,
		   uint32_t dqpn);
/* Two endpoints connected to each other, both in RTS. */
int it_pair(struct it_test *t, struct it_ep *a, struct it_ep *b,
	    const struct it_qp_attr *attr);
/* The PSN a QP starts its send queue at (the peer's expected PSN). */
uint32_t it_psn(uint32_t qpn);
/* The path MTU in bytes. */
uint32_t it_mtu_bytes(const struct it_env *env);

/* Work requests */

/* One-SGE WR of @opcode over @len bytes at @off of @b (lkey of @b). */
void it_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t wr_id,
	   enum ibv_wr_opcode opcode, const struct it_buf *b, size_t off,
	   uint32_t len);
/* Address a send on @src at @dst (UD: AH, QPN, Q_Key; no-op otherwise). */
void it_wr_dest(struct ibv_send_wr *wr, const struct it_ep *src,
		const struct it_ep *dst);
/* Remote address for READ/WRITE: @off bytes into @rb. */
void it_wr_rdma(struct ibv_send_wr *wr, const struct it_buf *rb, size_t off);

/* ibv_post_send that must succeed. */
int it_post_send(struct it_test *t, struct ibv_qp *qp, struct ibv_send_wr *wr);
/* A one-SGE receive of @len bytes at @off of @b that must be accepted. */
int it_post_recv(struct it_test *t, struct ibv_qp *qp, uint64_t wr_id,
		 const struct it_buf *b, size_t off, uint32_t len);
int it_post_srq_recv(struct it_test *t, struct ibv_srq *srq, uint64_t wr_id,
		     const struct it_buf *b, size_t off, uint32_t len);

/* Monotonic milliseconds, and a short sleep for polling loops. */
uint64_t it_now_ms(void);
void it_pause(void);

/* Completions */

/* Poll until @n completions arrived or the deadline passed. */
int it_poll(struct it_test *t, struct ibv_cq *cq, struct ibv_wc *wc, int n,
	    const char *what);
/* Poll for the quiet period; any completion is a failure. */
int it_quiet(struct it_test *t, struct ibv_cq *cq, const char *what);

/* What a completion must say; fields < 0 are not checked. */
struct it_wc_exp {
	uint64_t wr_id;
	int opcode; /* enum ibv_wc_opcode */
	int64_t byte_len;
	uint32_t qp_num;
	int imm;	   /* recv: 1 WITH_IMM, 0 none */
	uint32_t imm_data; /* as posted (network order) */
	int grh;	   /* recv: IBV_WC_GRH must be 1 / 0 */
	int64_t src_qp;
};

/* A successful send-side completion. */
struct it_wc_exp it_exp_send(uint64_t wr_id, enum ibv_wc_opcode op,
			     const struct ibv_qp *qp);
/* A successful receive completion of @len bytes, no immediate. */
struct it_wc_exp it_exp_recv(uint64_t wr_id, enum ibv_wc_opcode op,
			     const struct ibv_qp *qp, int64_t len);
int it_check_wc(struct it_test *t, const struct ibv_wc *wc,
		const struct it_wc_exp *e, const char *what);
/* Poll one completion and check it. */
int it_expect_wc(struct it_test *t, struct ibv_cq *cq,
		 const struct it_wc_exp *e, const char *what);

/* Compound steps */

/*
 * The rest of one message from @a to @b: post @wr (NULL: the caller has
 * posted it), expect @a's send completion of @wr_id and @b's receive
 * completion @er (UD: with a GRH from @a), then check that @rb holds @len
 * pattern bytes (@seed) after the GRH on UD and keeps @poison after them.
 * The receive on @rb was posted at offset 0.
 */
int it_send_and_verify(struct it_test *t, struct it_ep *a, struct it_ep *b,
		       struct ibv_send_wr *wr, uint64_t wr_id,
		       const struct it_wc_exp *er, const struct it_buf *rb,
		       uint32_t len, uint64_t seed, uint64_t poison);
/*
 * Post @wr on @a and expect its successful completion on @a's send CQ:
 * @wr_id, opcode @op, @len bytes (-1: not checked); @what names it in a
 * failure.
 */
int it_post_expect(struct it_test *t, struct it_ep *a, struct ibv_send_wr *wr,
		   uint64_t wr_id, enum ibv_wc_opcode op, int64_t len,
		   const char *what);
/*
 * Post a signaled inline SEND @wr_id from @a to @b of the @n pieces in
 * @sge (unregistered memory, lkey 0): the caller may overwrite them once
 * this returns, then finish with it_send_and_verify(wr NULL).
 */
int it_post_inline(struct it_test *t, struct it_ep *a, struct it_ep *b,
		   uint64_t wr_id, struct ibv_sge *sge, int n);
/*
 * Send @len pattern bytes (@seed) from @a to @b, where a receive @rwr_id on
 * @rb at offset 0 is already posted; check both completions and every byte
 * (UD: after the GRH), and that the rest of @rb keeps @poison.
 */
int it_send_check(struct it_test *t, struct it_ep *a, struct it_ep *b,
		  uint64_t wr_id, uint64_t rwr_id, struct it_buf *sb,
		  struct it_buf *rb, uint32_t len, uint64_t seed,
		  uint64_t poison);
/* Post a receive and then it_send_check: proves the pair still works. */
int it_pair_still_works(struct it_test *t, struct it_ep *a, struct it_ep *b,
			uint64_t wr_id, uint64_t rwr_id, uint64_t salt);

#endif /* ITEST_HARNESS_H */
