// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_xfer's harness: the PASS/FAIL results and progress lines, the verbs
 * objects (device, CQs, RC and UD QPs, memory regions with their expected
 * final images), the receives the peer's schedule consumes, the poll
 * helpers the phases share, and the phases around the traffic: hello
 * (parameters), set-up (QP information exchanged and connected), bye
 * (teardown) and the summary line. The program is described in xfer_main.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xfer.h"

int side; /* 0 = server (A), 1 = client (B) */
double t_start;

static const char *const test_name[T_COUNT][2] = {
	/* prefix, suffix */
	{ "twohost_setup_and_teardown_", "" },
	{ "twohost_rc_send_write_", "_all_bytes_verified" },
	{ "twohost_rc_read_", "_all_bytes_verified" },
	{ "twohost_rc_atomics_", "_exact" },
	{ "twohost_rc_completions_", "_exactly_once_in_order" },
	{ "twohost_ud_", "_intact_or_missing" },
};
int result[T_COUNT] = { -1, -1, -1, -1, -1, -1 };
static char reason[T_COUNT][256];

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void note(const char *fmt, ...)
{
	va_list ap;

	printf("  [%c %6.1fs] ", side ? 'B' : 'A', now_s() - t_start);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static unsigned n_errors;

/* Record the first failure of a test (later ones are only printed). */
void fail(int t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (result[t] != 0) {
		result[t] = 0;
		snprintf(reason[t], sizeof(reason[t]), "%s", buf);
	}
	if (++n_errors <= 20)
		note("error: %s", buf);
	else if (n_errors == 21)
		note("error: (more errors not shown)");
}

void pass_if_undecided(int t)
{
	if (result[t] < 0)
		result[t] = 1;
}

static void print_results(void)
{
	char name[160];

	for (int t = 0; t < T_COUNT; t++) {
		snprintf(name, sizeof(name), "%s%s%s", test_name[t][0],
			 opt.label, test_name[t][1]);
		if (result[t] == 1)
			printf("PASS %s\n", name);
		else
			printf("FAIL %s: %s\n", name,
			       result[t] == 0 ? reason[t]
					      : "not reached (an earlier step "
						"failed)");
	}
	fflush(stdout);
}

void __attribute__((noreturn)) finish(void)
{
	print_results();
	for (int t = 0; t < T_COUNT; t++)
		if (result[t] != 1)
			exit(1);
	exit(0);
}

/* A step every later test depends on failed: report and stop. */
void __attribute__((noreturn)) fatal(int t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fail(t, "%s", buf);
	finish();
}

/* ------------------------------------------------------------------------- */
/* Verbs state (declared in xfer.h). */

struct ibv_cq *scq, *rcq, *ud_scq, *ud_rcq;
struct ibv_qp *qp[MAX_QPS], *ud_qp;
struct ibv_mr *loc_mr, *ud_mr;
struct ibv_ah *ud_ah;
uint8_t *loc_buf, *rem_buf, *ud_buf; /* loc = own local area + receive area */
uint8_t *loc_exp, *rem_exp;	     /* expected final images */
size_t loc_len, rem_len, rcv_base;
union ibv_gid my_gid;
struct wire_info peer;
uint32_t mtu_bytes;

struct sched own[MAX_QPS], theirs[MAX_QPS];
struct sizes their_z;

/* Counters for the summary. */
uint64_t bytes_verified, wrs_done, recvs_done, op_done[OP_COUNT];
uint64_t ud_sent, ud_recv, ud_dups, ud_reordered;

/* The harness's own. */
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *chan;
static struct ibv_mr *rem_mr;
static size_t ud_len;
static struct wire_info me;
static enum ibv_mtu path_mtu;
static struct sizes own_z;

static uint32_t mtu_to_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

static void setup_verbs(void)
{
	struct ibv_device **list;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int n;

	list = ibv_get_device_list(&n);
	if (!list)
		fatal(T_SETUP, "ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), opt.dev))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fatal(T_SETUP, "cannot open device %s", opt.dev);
	if (ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &pa))
		fatal(T_SETUP, "ibv_query_device/port failed");
	if (pa.state != IBV_PORT_ACTIVE)
		fatal(T_SETUP, "port 1 of %s is not ACTIVE", opt.dev);
	if (da.atomic_cap == IBV_ATOMIC_NONE)
		fatal(T_SETUP, "%s has no atomics", opt.dev);
	path_mtu = pa.active_mtu;
	mtu_bytes = mtu_to_bytes(path_mtu);
	if (ibv_query_gid(ctx, 1, opt.gidx, &my_gid))
		fatal(T_SETUP, "ibv_query_gid(%d) failed", opt.gidx);
	pd = ibv_alloc_pd(ctx);
	chan = ibv_create_comp_channel(ctx);
	if (!pd || !chan)
		fatal(T_SETUP, "ibv_alloc_pd/create_comp_channel failed");
	fcntl(chan->fd, F_SETFL, fcntl(chan->fd, F_GETFL) | O_NONBLOCK);
	scq = ibv_create_cq(ctx, opt.nqps * WINDOW + 16, NULL, chan, 0);
	rcq = ibv_create_cq(ctx, opt.nqps * (opt.msgs + 1) + 16, NULL, chan, 0);
	ud_scq = ibv_create_cq(ctx, UD_WINDOW + 16, NULL, chan, 0);
	ud_rcq = ibv_create_cq(ctx, UD_RECVS + 16, NULL, chan, 0);
	if (!scq || !rcq || !ud_scq || !ud_rcq)
		fatal(T_SETUP, "ibv_create_cq failed: %s", strerror(errno));
}

static void setup_qps(void)
{
	uint64_t r =
		mix64(opt.seed ^ (0x5eed0000ull + side) ^ (uint64_t)getpid());

	for (int q = 0; q < opt.nqps; q++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = scq,
			.recv_cq = rcq,
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 1,
			.cap = { .max_send_wr = WINDOW,
				 .max_recv_wr = theirs[q].nrecv + 1,
				 .max_send_sge = MAX_SGE,
				 .max_recv_sge = MAX_SGE,
				 .max_inline_data = INLINE_MAX },
		};
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
					 .pkey_index = 0,
					 .port_num = 1,
					 .qp_access_flags =
						 IBV_ACCESS_REMOTE_WRITE |
						 IBV_ACCESS_REMOTE_READ |
						 IBV_ACCESS_REMOTE_ATOMIC };

		qp[q] = ibv_create_qp(pd, &ia);
		if (!qp[q])
			fatal(T_SETUP, "ibv_create_qp(RC %d) failed: %s", q,
			      strerror(errno));
		if (ibv_modify_qp(qp[q], &a,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			fatal(T_SETUP, "RC QP %d to INIT failed", q);
		me.qpn[q] = qp[q]->qp_num;
		me.psn[q] = rng_next(&r) & 0xffffff;
	}
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = ud_scq,
			.recv_cq = ud_rcq,
			.qp_type = IBV_QPT_UD,
			.sq_sig_all = 1,
			.cap = { .max_send_wr = UD_WINDOW,
				 .max_recv_wr = UD_RECVS,
				 .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
					 .pkey_index = 0,
					 .port_num = 1,
					 .qkey = 0x11111111 };

		ud_qp = ibv_create_qp(pd, &ia);
		if (!ud_qp)
			fatal(T_SETUP, "ibv_create_qp(UD) failed: %s",
			      strerror(errno));
		if (ibv_modify_qp(ud_qp, &a,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_QKEY))
			fatal(T_SETUP, "UD QP to INIT failed");
		a.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(ud_qp, &a, IBV_QP_STATE))
			fatal(T_SETUP, "UD QP to RTR failed");
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		if (ibv_modify_qp(ud_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
			fatal(T_SETUP, "UD QP to RTS failed");
	}
}

static void connect_qps(void)
{
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .sgid_index = opt.gidx, .hop_limit = 64 },
	};

	memcpy(ah.grh.dgid.raw, peer.gid, 16);
	for (int q = 0; q < opt.nqps; q++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = path_mtu,
			.dest_qp_num = peer.qpn[q],
			.rq_psn = peer.psn[q],
			.max_dest_rd_atomic = 16,
			.min_rnr_timer = 12,
			.ah_attr = ah,
		};

		if (ibv_modify_qp(qp[q], &a,
				  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
			fatal(T_SETUP, "RC QP %d to RTR failed: %s", q,
			      strerror(errno));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = opt.timeout_exp;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = me.psn[q];
		a.max_rd_atomic = 16;
		if (ibv_modify_qp(qp[q], &a,
				  IBV_QP_STATE | IBV_QP_TIMEOUT |
					  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					  IBV_QP_SQ_PSN |
					  IBV_QP_MAX_QP_RD_ATOMIC))
			fatal(T_SETUP, "RC QP %d to RTS failed: %s", q,
			      strerror(errno));
	}
	ud_ah = ibv_create_ah(pd, &ah);
	if (!ud_ah)
		fatal(T_SETUP, "ibv_create_ah failed: %s", strerror(errno));
}

/* Buffers and their expected final images (see layout()). */
static void setup_memory(void)
{
	rcv_base = own_z.loc;
	loc_len = own_z.loc + their_z.rcv;
	rem_len = their_z.rem + atomic_area();
	ud_len = (size_t)(UD_RECVS + UD_WINDOW) * (GRH_LEN + mtu_bytes);
	loc_buf = aligned_alloc(4096, align_up(loc_len, 4096));
	rem_buf = aligned_alloc(4096, align_up(rem_len, 4096));
	ud_buf = aligned_alloc(4096, align_up(ud_len, 4096));
	loc_exp = malloc(loc_len);
	rem_exp = malloc(rem_len);
	if (!loc_buf || !rem_buf || !ud_buf || !loc_exp || !rem_exp)
		fatal(T_SETUP, "out of memory (%zu + %zu bytes)", loc_len,
		      rem_len);
	canary_fill(loc_buf, loc_len);
	canary_fill(rem_buf, rem_len);
	memset(rem_buf + their_z.rem, 0, atomic_area());
	for (int q = 0; q < opt.nqps; q++) {
		for (uint32_t k = 0; k < own[q].n; k++) { /* as initiator */
			struct msg *m = &own[q].m[k];
			uint64_t s = msg_seed(side, q, k);

			if (m->op <= OP_WRITE_IMM)
				pattern_fill(loc_buf + m->loc_off, m->size, s,
					     false);
			else if (m->op == OP_READ)
				pattern_fill(loc_buf + m->loc_off, m->size, s,
					     true);
			else
				memset(loc_buf + m->loc_off, 0xee, 8);
		}
		for (uint32_t k = 0; k < theirs[q].n; k++) { /* as target */
			struct msg *m = &theirs[q].m[k];
			uint64_t s = msg_seed(!side, q, k);

			if (m->op == OP_SEND || m->op == OP_SEND_IMM)
				pattern_fill(loc_buf + rcv_base + m->rcv_off,
					     m->size, s, true);
			else if (m->op == OP_WRITE || m->op == OP_WRITE_IMM)
				pattern_fill(rem_buf + m->rem_off, m->size, s,
					     true);
			else if (m->op == OP_READ)
				pattern_fill(rem_buf + m->rem_off, m->size, s,
					     false);
		}
	}
	/* Expected images: every data segment holds its pattern. */
	memcpy(loc_exp, loc_buf, loc_len);
	memcpy(rem_exp, rem_buf, rem_len);
	for (int q = 0; q < opt.nqps; q++) {
		uint64_t *aw = (uint64_t *)(rem_exp + their_z.rem + 32 * q);

		for (uint32_t k = 0; k < own[q].n; k++) {
			struct msg *m = &own[q].m[k];

			if (m->op == OP_READ)
				pattern_fill(loc_exp + m->loc_off, m->size,
					     msg_seed(side, q, k), false);
			else if (m->op == OP_FAA || m->op == OP_CAS)
				memcpy(loc_exp + m->loc_off, &m->expect, 8);
			/* shared FAA results: filled in when checked */
		}
		for (uint32_t k = 0; k < theirs[q].n; k++) {
			struct msg *m = &theirs[q].m[k];
			uint64_t s = msg_seed(!side, q, k);

			if (m->op == OP_SEND || m->op == OP_SEND_IMM)
				pattern_fill(loc_exp + rcv_base + m->rcv_off,
					     m->size, s, false);
			else if (m->op == OP_WRITE || m->op == OP_WRITE_IMM)
				pattern_fill(rem_exp + m->rem_off, m->size, s,
					     false);
		}
		aw[0] = theirs[q].nfaa;
		aw[1] = theirs[q].ncas;
	}
	{
		uint64_t total = 0;

		for (int q = 0; q < opt.nqps; q++)
			total += theirs[q].nshared;
		memcpy(rem_exp + their_z.rem + 32 * opt.nqps, &total, 8);
	}
	loc_mr = ibv_reg_mr(pd, loc_buf, loc_len, IBV_ACCESS_LOCAL_WRITE);
	rem_mr = ibv_reg_mr(pd, rem_buf, rem_len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC);
	ud_mr = ibv_reg_mr(pd, ud_buf, ud_len, IBV_ACCESS_LOCAL_WRITE);
	if (!loc_mr || !rem_mr || !ud_mr)
		fatal(T_SETUP, "ibv_reg_mr failed: %s", strerror(errno));
}

/* Post every receive the peer's schedule will consume, in order. A SEND
 * lands in its segment of the receive area (posted 32 bytes longer than the
 * message, maybe split over two SGEs); a WRITE_WITH_IMM needs no buffer. */
static void post_rc_recvs(void)
{
	for (int q = 0; q < opt.nqps; q++) {
		for (uint32_t k = 0; k < theirs[q].n; k++) {
			struct msg *m = &theirs[q].m[k];
			struct ibv_sge sg[2];
			struct ibv_recv_wr wr = { .sg_list = sg }, *bad;

			if (m->recv_idx < 0)
				continue;
			wr.wr_id = ((uint64_t)q << 32) | (uint32_t)m->recv_idx;
			if (m->op != OP_WRITE_IMM) {
				uint64_t a = (uintptr_t)loc_buf + rcv_base +
					     m->rcv_off;
				uint32_t len = m->size + 32, cut = m->size / 3;

				if (m->recv_idx % 2 && cut) {
					sg[0] = (struct ibv_sge){
						a, cut, loc_mr->lkey
					};
					sg[1] = (struct ibv_sge){
						a + cut, len - cut, loc_mr->lkey
					};
					wr.num_sge = 2;
				} else {
					sg[0] = (struct ibv_sge){
						a, len, loc_mr->lkey
					};
					wr.num_sge = 1;
				}
			}
			if (ibv_post_recv(qp[q], &wr, &bad))
				fatal(T_SETUP,
				      "ibv_post_recv(QP %d, recv %d) failed", q,
				      m->recv_idx);
		}
	}
}

/* ------------------------------------------------------------------------- */
/* Poll helpers. */

int drain(struct ibv_cq *cq, void (*fn)(const struct ibv_wc *))
{
	struct ibv_wc wc[32];
	int n, total = 0;

	while ((n = ibv_poll_cq(cq, 32, wc)) > 0) {
		for (int i = 0; i < n; i++)
			fn(&wc[i]);
		total += n;
	}
	if (n < 0) {
		fail(T_RC_ORDER, "ibv_poll_cq failed (%d)", n);
		return -1;
	}
	return total;
}

/* Sleep until a completion event (or TIMEOUT_MS), re-arming both CQs. */
void wait_event(struct ibv_cq *a, struct ibv_cq *b, int extra_fd,
		int timeout_ms)
{
	struct pollfd p[2] = { { .fd = chan->fd, .events = POLLIN },
			       { .fd = extra_fd, .events = POLLIN } };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (poll(p, extra_fd >= 0 ? 2 : 1, timeout_ms) > 0 &&
	    (p[0].revents & POLLIN))
		while (ibv_get_cq_event(chan, &ev_cq, &ev_ctx) == 0)
			ibv_ack_cq_events(ev_cq, 1);
}

bool arm(struct ibv_cq *cq)
{
	if (ibv_req_notify_cq(cq, 0)) {
		fail(T_RC_ORDER, "ibv_req_notify_cq failed");
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------------- */
/* The phases around the traffic. */

static void teardown(void)
{
	int rc = 0;

	for (int q = 0; q < opt.nqps; q++)
		rc |= qp[q] ? ibv_destroy_qp(qp[q]) : 0;
	rc |= ud_qp ? ibv_destroy_qp(ud_qp) : 0;
	rc |= ud_ah ? ibv_destroy_ah(ud_ah) : 0;
	rc |= scq ? ibv_destroy_cq(scq) : 0;
	rc |= rcq ? ibv_destroy_cq(rcq) : 0;
	rc |= ud_scq ? ibv_destroy_cq(ud_scq) : 0;
	rc |= ud_rcq ? ibv_destroy_cq(ud_rcq) : 0;
	rc |= loc_mr ? ibv_dereg_mr(loc_mr) : 0;
	rc |= rem_mr ? ibv_dereg_mr(rem_mr) : 0;
	rc |= ud_mr ? ibv_dereg_mr(ud_mr) : 0;
	rc |= chan ? ibv_destroy_comp_channel(chan) : 0;
	rc |= pd ? ibv_dealloc_pd(pd) : 0;
	rc |= ctx ? ibv_close_device(ctx) : 0;
	if (rc)
		fail(T_SETUP, "destroying the verbs objects failed");
}

/* Parameters: both sides must run the same test. */
void xfer_hello(void)
{
	struct wire_hello hm = { 0 }, hp;

	ctl_connect();
	hm = (struct wire_hello){
		CTL_MAGIC,   PROTO_VERSION,   opt.nqps, opt.msgs,
		opt.maxsize, opt.udcount,     side,	opt.mixed,
		opt.maxread, opt.timeout_exp, 0,	opt.seed,
		{ 0 }
	};
	snprintf(hm.label, sizeof(hm.label), "%s", opt.label);
	if (!ctl_send(&hm, sizeof(hm), now_s() + 60) ||
	    !ctl_recv(&hp, sizeof(hp), now_s() + 60))
		fatal(T_SETUP, "control channel: hello exchange failed");
	if (hp.magic != CTL_MAGIC || hp.version != PROTO_VERSION ||
	    hp.nqps != hm.nqps || hp.msgs != hm.msgs ||
	    hp.maxsize != hm.maxsize || hp.udcount != hm.udcount ||
	    hp.seed != hm.seed || hp.side == hm.side || hp.mixed != hm.mixed ||
	    hp.maxread != hm.maxread || hp.timeout_exp != hm.timeout_exp ||
	    strncmp(hp.label, hm.label, sizeof(hm.label)))
		fatal(T_SETUP,
		      "the peer runs other parameters (label '%.63s', %u QPs, "
		      "%u msgs, "
		      "max %u, %u UD, seed %" PRIu64 ", %s)",
		      hp.label, hp.nqps, hp.msgs, hp.maxsize, hp.udcount,
		      hp.seed, hp.mixed ? "mixed" : "split");
}

/* Schedules, verbs objects and memory; QP information exchanged with the
 * peer, QPs connected, receives posted; both sides ready. */
void xfer_setup(void)
{
	for (int q = 0; q < opt.nqps; q++) {
		build_sched(&own[q], side, q);
		build_sched(&theirs[q], !side, q);
	}
	layout(own, &own_z);
	layout(theirs, &their_z);
	setup_verbs();
	setup_memory();
	setup_qps();

	me.magic = CTL_MAGIC;
	me.nqps = opt.nqps;
	me.ud_qpn = ud_qp->qp_num;
	me.mtu = mtu_bytes;
	me.rem_addr = (uintptr_t)rem_buf;
	me.rem_rkey = rem_mr->rkey;
	memcpy(me.gid, my_gid.raw, 16);
	if (!ctl_send(&me, sizeof(me), now_s() + 60) ||
	    !ctl_recv(&peer, sizeof(peer), now_s() + 60) ||
	    peer.magic != CTL_MAGIC || peer.nqps != me.nqps)
		fatal(T_SETUP,
		      "control channel: QP information exchange failed");
	connect_qps();
	post_rc_recvs();
	{
		uint64_t vol = 0, n = 0;

		for (int q = 0; q < opt.nqps; q++)
			for (uint32_t k = 0; k < own[q].n; k++, n++)
				vol += own[q].m[k].size;
		note("%s %s gid %d, MTU %u, %d RC QPs (%s) x %d WRs (%" PRIu64
		     " bytes), %d UD "
		     "datagrams; label %s",
		     opt.server ? "server" : "client", opt.dev, opt.gidx,
		     mtu_bytes, opt.nqps,
		     opt.mixed ? "every opcode on every QP"
			       : "send/write, read, atomic QPs",
		     opt.msgs, vol, opt.udcount, opt.label);
	}
	if (!ctl_sync(TAG_READY, 0, 0, NULL, 60))
		fatal(T_SETUP, "control channel: ready sync failed");
	pass_if_undecided(T_SETUP);
}

/* Both sides done: final sync, every verbs object destroyed. */
void xfer_bye(void)
{
	if (!ctl_sync(TAG_BYE, 0, 0, NULL, 60))
		fail(T_SETUP, "control channel: final sync failed");
	teardown();
	pass_if_undecided(T_SETUP);
}

void xfer_summary(void)
{
	printf("twohost summary %s side %s: %" PRIu64
	       " bytes verified, %" PRIu64 " WRs completed "
	       "(send %" PRIu64 ", send_imm %" PRIu64 ", write %" PRIu64
	       ", write_imm %" PRIu64 ", read %" PRIu64 ", faa %" PRIu64
	       ", cas %" PRIu64 ", shared faa %" PRIu64 "), %" PRIu64
	       " receives; UD %" PRIu64 " sent, %" PRIu64
	       " received intact, %" PRIu64 " duplicates;"
	       " %.1f s\n",
	       opt.label, side ? "B" : "A", bytes_verified, wrs_done,
	       op_done[OP_SEND], op_done[OP_SEND_IMM], op_done[OP_WRITE],
	       op_done[OP_WRITE_IMM], op_done[OP_READ], op_done[OP_FAA],
	       op_done[OP_CAS], op_done[OP_FAA_SHARED], recvs_done, ud_sent,
	       ud_recv, ud_dups, now_s() - t_start);
}
