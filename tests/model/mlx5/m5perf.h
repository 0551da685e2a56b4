/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * doorbell-m5perf: perftest-shaped loops over the software ConnectX (the
 * model).  What its files share: the options, the rig (one model device,
 * a context, a PD, a completion channel), the virtual-time model, message
 * patterns and statistics.
 *
 * Virtual time.  The model executes a WQE when its doorbell is rung and
 * has no timing of its own; its clock moves only when it is told to.
 * m5perf keeps a virtual time in ns (rig.vt_ns) and charges every message
 * a fixed cost from the options:
 *	link time  = msg_ns + size * 8 / gbps		(the port is busy)
 *	one-way    = wire_ns + link time [+ exponential jitter]
 * It moves vt_ns forward by the one-way time (lat) or the link time (bw)
 * before ringing the doorbell, and the model's clock (whole µs) to
 * vt_ns / 1000, so the CQEs carry the message's arrival time.  When an
 * event or a completion is not there, the model's next timer deadline
 * (CQ moderation period, RNR, the model-only int_period) is where time
 * goes next.  Virtual figures therefore follow from these parameters and
 * from the model's moderation timers; they say nothing about hardware.
 */
#ifndef DOORBELL_TESTS_M5PERF_H
#define DOORBELL_TESTS_M5PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "m5model.h"

enum m5p_verb { M5P_SEND, M5P_WRITE };

#define M5P_MAX_SETTINGS 32
#define M5P_MAX_QPS	 64
#define M5P_MAX_CQS	 64
#define M5P_MAX_SIZE	 (1u << 20)

struct m5p_setting {
	uint16_t count;	 /* cq_max_count */
	uint16_t period; /* cq_period, µs */
};

struct m5p_opts {
	enum m5p_verb verb;
	bool events;	  /* -e: wait by ibv_get_cq_event */
	uint32_t size;	  /* message bytes */
	uint64_t iters;	  /* per QP; 0: the mode's default */
	unsigned int qps; /* bw */
	unsigned int post_list;
	unsigned int tx_depth;
	uint32_t inline_size;
	uint16_t cq_count; /* ibv_modify_cq on every CQ (lat, bw) */
	uint16_t cq_period;
	bool period_cqe;     /* cq_period_mode START_FROM_CQE */
	uint32_t int_period; /* model-only interrupt throttle, µs; 0 off */
	/* the time model */
	uint64_t wire_ns;
	uint64_t msg_ns;
	double gbps;
	double jitter_ns;
	uint64_t seed;
	/* moderation */
	struct m5p_setting set[M5P_MAX_SETTINGS];
	unsigned int nset;
	unsigned int cqs;
	uint64_t duration_us;
	double interval_us;
	bool fixed; /* fixed inter-arrival instead of Poisson */
	unsigned int rx_depth;
	bool check;
	const char *csv;
};

/* --- The rig: one model device and what every mode needs on it ------------ */
struct m5p_rig {
	const struct m5p_opts *o;
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	uint64_t vt_ns;	  /* virtual time, ns */
	uint64_t events;  /* channel events read */
	uint64_t data_ns; /* host time of m5perf's own fills and checks */
	uint64_t rng;
};

int m5p_rig_open(struct m5p_rig *r, const struct m5p_opts *o,
		 unsigned int ncomp, unsigned int nmsix, bool channel);
/* 0, or -1 after saying what went wrong (model violations included). */
int m5p_rig_close(struct m5p_rig *r);

/*
 * Interrupts the fake kernel handled on the completion vectors (vector 0,
 * async, left out); per_vec (may be NULL) gets one count per vector.
 */
uint64_t m5p_irqs(struct m5p_rig *r, uint64_t *per_vec);

/* A zeroed, page-aligned buffer of len bytes, registered for everything. */
struct ibv_mr *m5p_mr(struct m5p_rig *r, size_t len);
void m5p_mr_free(struct ibv_mr *mr);
/* A CQ (on the channel if asked) with the options' moderation. */
struct ibv_cq *m5p_cq(struct m5p_rig *r, int cqe, void *cq_ctx, bool channel,
		      int vector, uint16_t count, uint16_t period);
struct ibv_qp *m5p_qp(struct m5p_rig *r, struct ibv_cq *scq, struct ibv_cq *rcq,
		      uint32_t sq, uint32_t rq, uint32_t inl);
/* a and b connected to each other, both in RTS. */
int m5p_connect(struct m5p_rig *r, struct ibv_qp *a, struct ibv_qp *b);

/* --- Virtual time --------------------------------------------------------- */
uint64_t m5p_link_ns(const struct m5p_opts *o, uint32_t size);
uint64_t m5p_oneway_ns(struct m5p_rig *r, uint32_t size);
/* The model's clock forward to vt_ns (whole µs); its timers run. */
void m5p_sync(struct m5p_rig *r);
/*
 * Move to the model's next timer deadline (vt_ns with it).  -1 with the
 * reason printed if there is none: nothing will ever happen.
 */
int m5p_next_timer(struct m5p_rig *r, const char *waiting_for);
/* Up to n completions from cq, at least one, timers run as needed. */
int m5p_poll_wait(struct m5p_rig *r, struct ibv_cq *cq, struct ibv_wc *wc,
		  int n);
/* One completion-channel event through the model's IRQ handler, acked. */
int m5p_event_wait(struct m5p_rig *r, struct ibv_cq **cq);
/* An event is ready on the channel right now. */
bool m5p_event_ready(struct m5p_rig *r);
/* Read and ack what the channel holds (before destroying CQs). */
void m5p_drain_events(struct m5p_rig *r);
/* A completion is fine: status and opcode.  -1 with the reason if not. */
int m5p_wc_ok(const struct ibv_wc *wc, enum ibv_wc_opcode op);

/* --- Message contents: every message distinct, checkable ------------------ */
struct m5p_pat {
	uint8_t *ref; /* size + 256 seeded bytes */
	uint32_t size;
};

int m5p_pat_init(struct m5p_pat *p, uint32_t size, uint64_t seed);
void m5p_pat_free(struct m5p_pat *p);
/* Message seq: the first (up to) 8 bytes are seq, the rest seeded bytes. */
void m5p_pat_fill(struct m5p_rig *r, const struct m5p_pat *p, uint8_t *dst,
		  uint64_t seq);
/* -1 (and says where) unless buf holds message seq exactly. */
int m5p_pat_check(struct m5p_rig *r, const struct m5p_pat *p,
		  const uint8_t *buf, uint64_t seq, const char *what);

/* --- Helpers -------------------------------------------------------------- */
uint64_t m5p_host_ns(void);
uint64_t m5p_rand(uint64_t *state);
double m5p_exp(uint64_t *state, double mean);
/* Prints "doorbell-m5perf: error: ..." and returns -1. */
int m5p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct m5p_dist {
	double min, max, avg, stdev, p50, p99, p999;
};
/* Sorts v (n > 0) and fills d, in the units of v. */
void m5p_dist(uint64_t *v, size_t n, struct m5p_dist *d);

/* --- The modes ------------------------------------------------------------ */
int m5p_lat(const struct m5p_opts *o);
int m5p_bw(const struct m5p_opts *o);
int m5p_moderation(const struct m5p_opts *o);

#endif /* DOORBELL_TESTS_M5PERF_H */
