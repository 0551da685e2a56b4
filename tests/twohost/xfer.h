/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the parts of rdma_xfer, the two-host traffic program, share (the
 * program is described in xfer_main.c): the message schedule and wire
 * formats, the options, the test results and the harness's reporting,
 * control channel, verbs state and poll helpers (xfer_harness.c, xfer_ctl.c,
 * xfer_sched.c), and the phases main() runs (xfer_rc.c, xfer_rc_check.c,
 * xfer_ud.c).
 */
#ifndef DOORBELL_TWOHOST_XFER_H
#define DOORBELL_TWOHOST_XFER_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_QPS	      64
#define GAP	      64 /* canary bytes after every segment */
#define WINDOW	      16 /* outstanding WRs per RC QP */
#define MAX_SGE	      2
#define INLINE_MAX    64
#define UD_RECVS      512
#define UD_WINDOW     16
#define GRH_LEN	      40
#define CTL_MAGIC     0x64627868u /* "dbxh" */
#define PROTO_VERSION 3

enum op {
	OP_SEND,
	OP_SEND_IMM,
	OP_WRITE,
	OP_WRITE_IMM,
	OP_READ,
	OP_FAA,
	OP_CAS,
	OP_FAA_SHARED,
	OP_COUNT
};
extern const char *const op_name[OP_COUNT];

struct msg {
	uint8_t op;
	uint8_t nsge;  /* initiator's SGEs (data ops) */
	uint8_t inl;   /* posted with IBV_SEND_INLINE */
	uint32_t size; /* data bytes; 8 for atomics */
	uint64_t
		loc_off; /* initiator's local buffer: source, READ dest, atomic result */
	uint64_t
		rem_off; /* target's remote buffer: WRITE dest, READ source, atomic word */
	uint64_t rcv_off; /* target's receive area: SEND dest */
	int32_t recv_idx; /* index of the receive it consumes at the target, or -1 */
	uint64_t expect; /* FAA (per QP) and CAS: value returned */
};

struct sched {
	struct msg *m;
	uint32_t n, nrecv, nfaa, ncas, nshared;
};

/* Sizes of the buffers a schedule set needs (see layout()). */
struct sizes {
	uint64_t loc; /* initiator's local area */
	uint64_t rcv; /* target's receive area */
	uint64_t rem; /* target's remote area, without the atomic words */
};

struct wire_hello {
	uint32_t magic, version, nqps, msgs, maxsize, udcount, side;
	uint32_t mixed, maxread, timeout_exp, pad;
	uint64_t seed;
	char label[64];
};

struct wire_info {
	uint32_t magic, nqps, ud_qpn, mtu;
	uint64_t rem_addr;
	uint32_t rem_rkey, pad;
	uint8_t gid[16];
	uint32_t qpn[MAX_QPS], psn[MAX_QPS];
};

struct wire_ctl {
	uint32_t magic, tag;
	uint64_t a, b;
};

enum {
	TAG_READY = 1,
	TAG_RC_DONE,
	TAG_UD_READY,
	TAG_UD_SENT,
	TAG_UD_DONE,
	TAG_BYE
};

/* Options (xfer_main.c): both sides must run the same test. */
struct xfer_opt {
	bool server, verbose, dups_ok, mixed;
	const char *addr, *dev, *label;
	int port, gidx, nqps, msgs, udcount, phase_s, wait_s, timeout_exp;
	uint32_t maxsize, maxread;
	uint64_t seed;
};
extern struct xfer_opt opt;

/* ------------------------------------------------------------------------- */
/* Reporting (xfer_harness.c). */

extern int side; /* 0 = server (A), 1 = client (B) */
extern double t_start;

/* Test results: -1 not decided, 0 FAIL, 1 PASS. */
enum { T_SETUP, T_RC_SW, T_RC_READ, T_RC_ATOMIC, T_RC_ORDER, T_UD, T_COUNT };
extern int result[T_COUNT];

double now_s(void);
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define vnote(...)                                                             \
	do {                                                                   \
		if (opt.verbose)                                               \
			note(__VA_ARGS__);                                     \
	} while (0)

/* Record the first failure of a test (later ones are only printed). */
void fail(int t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pass_if_undecided(int t);
/* Print the PASS/FAIL lines and exit: 0 when every test passed. */
void __attribute__((noreturn)) finish(void);
/* A step every later test depends on failed: report and stop. */
void __attribute__((noreturn)) fatal(int t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------------- */
/* Patterns, schedules and buffer layout (xfer_sched.c). */

uint64_t mix64(uint64_t x);
uint64_t rng_next(uint64_t *s);
uint64_t msg_seed(int init_side, int q, uint32_t k);
void pattern_fill(uint8_t *p, size_t n, uint64_t s, bool inverted);
size_t pattern_check(const uint8_t *p, size_t n, uint64_t s);
void canary_fill(uint8_t *p, size_t n);
uint64_t align_up(uint64_t x, uint64_t a);
void build_sched(struct sched *s, int init_side, int q);
void layout(struct sched *s, struct sizes *z);
uint64_t atomic_area(void);

/* ------------------------------------------------------------------------- */
/* TCP control channel (xfer_ctl.c): every call is bounded by a deadline. */

extern int ctl_fd;

int wait_fd(int fd, short ev, double deadline);
bool ctl_send(const void *buf, size_t n, double deadline);
bool ctl_recv(void *buf, size_t n, double deadline);
bool ctl_sync(uint32_t tag, uint64_t a, uint64_t b, struct wire_ctl *reply,
	      double secs);
void ctl_connect(void);

/* ------------------------------------------------------------------------- */
/* Verbs state (xfer_harness.c). */

extern struct ibv_cq *scq, *rcq, *ud_scq, *ud_rcq;
extern struct ibv_qp *qp[MAX_QPS], *ud_qp;
extern struct ibv_mr *loc_mr, *ud_mr;
extern struct ibv_ah *ud_ah;
extern uint8_t *loc_buf, *rem_buf,
	*ud_buf;		   /* loc = own local area + receive area */
extern uint8_t *loc_exp, *rem_exp; /* expected final images */
extern size_t loc_len, rem_len, rcv_base;
extern union ibv_gid my_gid;
extern struct wire_info peer;
extern uint32_t mtu_bytes;

extern struct sched own[MAX_QPS], theirs[MAX_QPS];
extern struct sizes their_z;

/* Counters for the summary. */
extern uint64_t bytes_verified, wrs_done, recvs_done, op_done[OP_COUNT];
extern uint64_t ud_sent, ud_recv, ud_dups, ud_reordered;

/* Poll helpers: drain a CQ into FN, sleep until a completion event. */
int drain(struct ibv_cq *cq, void (*fn)(const struct ibv_wc *));
void wait_event(struct ibv_cq *a, struct ibv_cq *b, int extra_fd,
		int timeout_ms);
bool arm(struct ibv_cq *cq);

/* ------------------------------------------------------------------------- */
/* The phases main() runs, in order (xfer_main.c's table). */

void xfer_hello(void);	 /* control channel, same parameters on both sides */
void xfer_setup(void);	 /* verbs objects, memory, QPs connected, receives */
void rc_phase(void);	 /* RC traffic, every completion checked */
void rc_end(void);	 /* both RC phases over: final memory images */
void ud_phase(void);	 /* UD datagrams */
void xfer_bye(void);	 /* final sync, teardown */
void xfer_summary(void); /* the "twohost summary" line */

/* Shared by the RC phase and its final check (xfer_rc.c). */
extern uint8_t *shared_seen; /* values returned by the shared FAA */
extern uint64_t shared_total;
extern struct wire_ctl peer_done;
bool peer_done_seen(void);
bool poll_peer_done(void);
bool check_seg(int t, const char *what, const uint8_t *p, uint32_t n,
	       uint64_t s, int q, uint32_t k);

#endif /* DOORBELL_TWOHOST_XFER_H */
