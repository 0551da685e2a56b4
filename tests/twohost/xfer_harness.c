// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_xfer: RC and UD traffic between two hosts with every byte verified,
 * for the two-guest reliability tests (tests/twohost, tests/vm/run2.sh).
 * Public verbs only.
 *
 *   rdma_xfer -s [options]         host A: listens on TCP
 *   rdma_xfer -c ADDR [options]    host B: connects to A
 *
 * The two sides exchange parameters and QP information over TCP (on the same
 * link as the RDMA traffic), then both, at the same time:
 *
 *  RC, on NQPS queue pairs: each side runs its own deterministic schedule of
 *  work requests on every QP (SEND, SEND_WITH_IMM, RDMA_WRITE,
 *  RDMA_WRITE_WITH_IMM, RDMA_READ, FETCH_AND_ADD, COMPARE_AND_SWAP; 1 B to
 *  MAXSIZE, gather/scatter lists, inline data, chains of WRs) against the
 *  other side's memory. By default (-M split) QPs 0,1 mod 4 carry sends and
 *  writes, QPs 2 mod 4 READs, QPs 3 mod 4 atomics; -M mixed puts every
 *  opcode on every QP (Linux 6.1 rxe can then complete a READ or atomic on
 *  the plain ACK of a retransmitted SEND/WRITE, without its data). Each message has its own pattern, seeded by (seed,
 *  side, QP, index); destinations are poisoned with the pattern's complement
 *  and every segment is surrounded by canary bytes. Checked:
 *   - every completion (send and receive) arrives exactly once, successful,
 *     in posting order per QP, with the right opcode, byte_len, imm_data;
 *   - received sends, WRITE_WITH_IMM data and RDMA READ results are verified
 *     when their completion is polled; at the end both memory regions are
 *     compared byte for byte with their expected image (all writes, no stray
 *     bytes, sources unmodified, canaries intact);
 *   - atomics: each QP's FETCH_AND_ADD counter returns 0,1,2,... in order
 *     and ends at its number of increments; a CAS chain (compare k, swap k+1)
 *     returns k every time; a counter shared by all QPs returns each value in
 *     0..total-1 exactly once and ends at the total.
 *  UD: each side sends UDCOUNT datagrams (SEND_WITH_IMM, imm = sequence
 *  number, 1 B to the path MTU); every datagram that arrives must be intact
 *  (length, pattern, source QP, addresses); missing ones are counted.
 *
 * Every wait is bounded (-T): a stall is a FAIL, never a hang. The result is
 * PASS/FAIL lines (twohost_setup_and_teardown_LABEL,
 * twohost_rc_send_write_LABEL_all_bytes_verified,
 * twohost_rc_read_LABEL_all_bytes_verified, twohost_rc_atomics_LABEL_exact,
 * twohost_rc_completions_LABEL_exactly_once_in_order,
 * twohost_ud_LABEL_intact_or_missing) and one "twohost summary" line; the
 * exit status is 0 when everything passed.
 *
 * Options:
 *   -s | -c ADDR   role                        -p PORT     TCP port (18800)
 *   -d DEV         device ($DOORBELL_VM_IBDEV or rxe0)
 *   -g GIDX        GID index ($DOORBELL_VM_GID_INDEX or 1)
 *   -q NQPS (8)    -n MSGS per QP (48)         -m MAXSIZE (4194304)
 *   -r MAXREAD     cap on RDMA READ sizes (MAXSIZE); READ responses are
 *                  recovered only by the ACK timeout, so big READs are slow
 *                  under loss
 *   -u UDCOUNT (1000)                          -S SEED (1)
 *   -l LABEL       test-name suffix ("noloss") -T SECONDS per phase (300)
 *   -t TIMEOUT     QP local ACK timeout exponent (16: 4.096 us * 2^16 = 268 ms;
 *                  under TCG 14 (67 ms) makes rxe retransmit big messages
 *                  still queued in the guest's NIC, even without loss)
 *   -D             duplicated UD datagrams are expected (netem duplicate)
 *   -M split|mixed opcodes per QP class (split) or all on every QP (mixed)
 *   -w SECONDS     how long the client retries connecting (120)
 *   -v             progress lines
 * Both sides must be given the same -q -n -m -r -u -S -l -t -M (checked).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
static const char *const op_name[OP_COUNT] = { "SEND",
					       "SEND_WITH_IMM",
					       "RDMA_WRITE",
					       "RDMA_WRITE_WITH_IMM",
					       "RDMA_READ",
					       "FETCH_AND_ADD",
					       "COMPARE_AND_SWAP",
					       "FETCH_AND_ADD(shared)" };

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

/* ------------------------------------------------------------------------- */
static struct {
	bool server, verbose, dups_ok, mixed;
	const char *addr, *dev, *label;
	int port, gidx, nqps, msgs, udcount, phase_s, wait_s, timeout_exp;
	uint32_t maxsize, maxread;
	uint64_t seed;
} opt = {
	.port = 18800,
	.gidx = -1,
	.nqps = 8,
	.msgs = 48,
	.udcount = 1000,
	.phase_s = 300,
	.wait_s = 120,
	.timeout_exp = 16,
	.maxsize = 4u << 20,
	.seed = 1,
	.label = "noloss",
};

static int side; /* 0 = server (A), 1 = client (B) */
static double t_start;

/* Test results: -1 not decided, 0 FAIL, 1 PASS. */
enum { T_SETUP, T_RC_SW, T_RC_READ, T_RC_ATOMIC, T_RC_ORDER, T_UD, T_COUNT };
static const char *const test_name[T_COUNT][2] = {
	/* prefix, suffix */
	{ "twohost_setup_and_teardown_", "" },
	{ "twohost_rc_send_write_", "_all_bytes_verified" },
	{ "twohost_rc_read_", "_all_bytes_verified" },
	{ "twohost_rc_atomics_", "_exact" },
	{ "twohost_rc_completions_", "_exactly_once_in_order" },
	{ "twohost_ud_", "_intact_or_missing" },
};
static int result[T_COUNT] = { -1, -1, -1, -1, -1, -1 };
static char reason[T_COUNT][256];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("  [%c %6.1fs] ", side ? 'B' : 'A', now_s() - t_start);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The test a message of this opcode belongs to. */
static int test_of(uint8_t op)
{
	return op <= OP_WRITE_IMM ? T_RC_SW
	       : op == OP_READ	  ? T_RC_READ
				  : T_RC_ATOMIC;
}

#define vnote(...)                                                             \
	do {                                                                   \
		if (opt.verbose)                                               \
			note(__VA_ARGS__);                                     \
	} while (0)

/* Record the first failure of a test (later ones are only printed). */
static void fail(int t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static unsigned n_errors;

static void fail(int t, const char *fmt, ...)
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

static void pass_if_undecided(int t)
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

static void __attribute__((noreturn)) finish(void)
{
	print_results();
	for (int t = 0; t < T_COUNT; t++)
		if (result[t] != 1)
			exit(1);
	exit(0);
}

/* A step every later test depends on failed: report and stop. */
static void __attribute__((noreturn)) fatal(int t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void __attribute__((noreturn)) fatal(int t, const char *fmt, ...)
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
/* Deterministic pseudo-random numbers and patterns. */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

static uint64_t msg_seed(int init_side, int q, uint32_t k)
{
	return mix64(opt.seed ^ mix64(((uint64_t)init_side << 56) |
				      ((uint64_t)q << 32) | k));
}

/* Byte i of the pattern with seed s (xorshift64*, 8 bytes per step). */
static void pattern_fill(uint8_t *p, size_t n, uint64_t s, bool inverted)
{
	uint64_t x = mix64(s) | 1, w;
	uint8_t inv = inverted ? 0xff : 0;
	size_t i = 0;

	while (i < n) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w = x * 0x2545f4914f6cdd1dull;
		for (int b = 0; b < 8 && i < n; b++, i++)
			p[i] = (uint8_t)(w >> (8 * b)) ^ inv;
	}
}

/* Index of the first byte that differs from the pattern, or n. */
static size_t pattern_check(const uint8_t *p, size_t n, uint64_t s)
{
	uint64_t x = mix64(s) | 1, w;
	size_t i = 0;

	while (i < n) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w = x * 0x2545f4914f6cdd1dull;
		if (i + 8 <= n) {
			uint64_t v;

			memcpy(&v, p + i, 8); /* little endian (x86-64) */
			if (v == w) {
				i += 8;
				continue;
			}
		}
		for (int b = 0; b < 8 && i < n; b++, i++)
			if (p[i] != (uint8_t)(w >> (8 * b)))
				return i;
	}
	return n;
}

static void canary_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(0xa5 ^ (i * 131));
}

/* ------------------------------------------------------------------------- */
/* Schedules and buffer layout. */

static const uint32_t small_sizes[] = {
	1,    2,    3,	  4,	5,     7,     8,     9,	    15,
	16,   17,   31,	  32,	33,    63,    64,    65,    127,
	128,  129,  255,  256,	257,   511,   512,   513,   1000,
	1023, 1024, 1025, 1500, 2047,  2048,  2049,  4095,  4096,
	4097, 8191, 8192, 8193, 12288, 16384, 32768, 65535, 65536
};
#define N_SMALL (sizeof(small_sizes) / sizeof(small_sizes[0]))

/* Large messages, at fixed places: (QP, index, op, size), placed where the
 * QP's class allows the op; sizes above MAXSIZE are capped to it. */
static const struct {
	int q;
	uint32_t k;
	uint8_t op;
	uint32_t size;
} bigs[] = {
	{ 0, 9, OP_WRITE, 4u << 20 },	  { 1, 10, OP_SEND, 4u << 20 },
	{ 2, 11, OP_READ, 4u << 20 },	  { 4, 12, OP_WRITE_IMM, 1u << 20 },
	{ 5, 13, OP_SEND_IMM, 1u << 20 }, { 6, 14, OP_READ, 1u << 20 },
	{ 7, 15, OP_READ, 256u << 10 },	 /* mixed mode only */
	{ 3, 16, OP_WRITE, 128u << 10 }, /* mixed mode only */
};

/* Opcodes a QP carries. Split mode (default): QPs 0,1 mod 4 carry SEND,
 * SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM; QPs 2 mod 4 RDMA_READ;
 * QPs 3 mod 4 the atomics. Mixed mode: every QP carries every opcode (on
 * Linux 6.1 rxe a retransmitted SEND/WRITE can then complete a later READ or
 * atomic without its data, see docs/reliability.md, "What Linux 6.1's rxe
 * gets wrong under retransmission"). */
static bool op_allowed(int q, uint8_t op)
{
	if (opt.mixed)
		return true;
	switch (q % 4) {
	case 0:
	case 1:
		return op <= OP_WRITE_IMM;
	case 2:
		return op == OP_READ;
	default:
		return op >= OP_FAA;
	}
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* The schedule side init_side runs on QP q: first every allowed opcode once
 * (rotated by q), then random ones; big messages at fixed places. */
static void build_sched(struct sched *s, int init_side, int q)
{
	uint64_t r = mix64(opt.seed * 1000003 + (uint64_t)init_side * 7919 + q);
	uint8_t allowed[OP_COUNT], na = 0;

	for (int o = 0; o < OP_COUNT; o++)
		if (op_allowed(q, o))
			allowed[na++] = o;
	s->n = opt.msgs;
	s->m = calloc(s->n, sizeof(*s->m));
	if (!s->m)
		fatal(T_SETUP, "out of memory");
	for (uint32_t k = 0; k < s->n; k++) {
		struct msg *m = &s->m[k];
		uint64_t x = rng_next(&r);

		if (k < na) {
			m->op = allowed[(k + q) % na];
		} else {
			/* weights: send 16, send_imm 10, write 16, write_imm 10,
			 * read 20, faa 12, cas 8, faa_shared 8 */
			static const uint8_t w[] = { 16, 10, 16, 10,
						     20, 12, 8,	 8 };
			unsigned tot = 0, v, acc = 0;

			for (int i = 0; i < na; i++)
				tot += w[allowed[i]];
			v = x % tot;
			for (int i = 0; i < na; i++) {
				acc += w[allowed[i]];
				if (v < acc) {
					m->op = allowed[i];
					break;
				}
			}
		}
		m->size = small_sizes[(x >> 8) % N_SMALL];
		if (m->op == OP_WRITE_IMM && (x >> 20) % 8 == 0)
			m->size = 0; /* zero-length WRITE_WITH_IMM */
		for (size_t b = 0; b < sizeof(bigs) / sizeof(bigs[0]); b++)
			if (bigs[b].q == q && bigs[b].k == k &&
			    op_allowed(q, bigs[b].op)) {
				m->op = bigs[b].op;
				m->size = bigs[b].size;
			}
		if (m->size > opt.maxsize)
			m->size = opt.maxsize;
		if (m->op == OP_READ && opt.maxread && m->size > opt.maxread)
			m->size = opt.maxread;
		if (m->op >= OP_FAA)
			m->size = 8;
		m->nsge =
			(m->op <= OP_READ && m->size >= 2 && (x >> 32) % 3 == 0)
				? 2
				: 1;
		m->inl = (m->op == OP_SEND || m->op == OP_SEND_IMM ||
			  m->op == OP_WRITE) &&
			 m->size <= INLINE_MAX && m->nsge == 1 &&
			 (x >> 40) % 2 == 0;
		m->recv_idx = -1;
		if (m->op == OP_SEND || m->op == OP_SEND_IMM ||
		    m->op == OP_WRITE_IMM)
			m->recv_idx = s->nrecv++;
		if (m->op == OP_FAA)
			m->expect = s->nfaa++;
		else if (m->op == OP_CAS)
			m->expect = s->ncas++;
		else if (m->op == OP_FAA_SHARED)
			s->nshared++;
	}
}

/* Offsets of the messages of the schedules (one per QP) of one initiator:
 * local area (sources, READ destinations, atomic results), the target's
 * receive area (SEND destinations) and the target's remote area (WRITE
 * destinations, READ sources). Segments start at varied alignments and are
 * followed by GAP canary bytes. The target's atomic words come after its
 * remote area: QP q's FAA word at +32*q, its CAS word at +32*q+8, the shared
 * counter at +32*nqps. */
static void layout(struct sched *s, struct sizes *z)
{
	uint64_t loc = GAP, rcv = GAP, rem = GAP;

	for (int q = 0; q < opt.nqps; q++)
		for (uint32_t k = 0; k < s[q].n; k++) {
			struct msg *m = &s[q].m[k];
			uint64_t mis = m->op >= OP_FAA ? 0 : (k * 3 + q) % 8;

			loc = align_up(loc, 8) + mis;
			m->loc_off = loc;
			loc += m->size + GAP;
			if (m->op == OP_SEND || m->op == OP_SEND_IMM) {
				rcv = align_up(rcv, 8) + (k + q) % 8;
				m->rcv_off = rcv;
				rcv += m->size + GAP;
			}
			if (m->op == OP_WRITE || m->op == OP_WRITE_IMM ||
			    m->op == OP_READ) {
				rem = align_up(rem, 8) + (k * 5 + q) % 8;
				m->rem_off = rem;
				rem += m->size + GAP;
			}
		}
	z->loc = align_up(loc, 64);
	z->rcv = align_up(rcv, 64);
	z->rem = align_up(rem, 64);
	for (int q = 0; q < opt.nqps; q++)
		for (uint32_t k = 0; k < s[q].n; k++) {
			struct msg *m = &s[q].m[k];

			if (m->op == OP_FAA)
				m->rem_off = z->rem + 32 * q;
			else if (m->op == OP_CAS)
				m->rem_off = z->rem + 32 * q + 8;
			else if (m->op == OP_FAA_SHARED)
				m->rem_off = z->rem + 32 * opt.nqps;
		}
}

static uint64_t atomic_area(void)
{
	return 32 * (opt.nqps + 1);
}

/* ------------------------------------------------------------------------- */
/* TCP control channel: every call is bounded by a deadline. */

static int ctl_fd = -1;

static int wait_fd(int fd, short ev, double deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	double left = deadline - now_s();
	int rc;

	if (left <= 0)
		return 0;
	rc = poll(&p, 1, (int)(left * 1000) + 1);
	return rc < 0 && errno == EINTR ? 0 : rc;
}

static bool ctl_send(const void *buf, size_t n, double deadline)
{
	const char *p = buf;

	while (n) {
		ssize_t w = send(ctl_fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w > 0) {
			p += w;
			n -= w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (wait_fd(ctl_fd, POLLOUT, deadline) <= 0 &&
		    now_s() >= deadline)
			return false;
	}
	return true;
}

static bool ctl_recv(void *buf, size_t n, double deadline)
{
	char *p = buf;

	while (n) {
		ssize_t r = recv(ctl_fd, p, n, MSG_DONTWAIT);

		if (r > 0) {
			p += r;
			n -= r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			return false;
		if (wait_fd(ctl_fd, POLLIN, deadline) <= 0 &&
		    now_s() >= deadline)
			return false;
	}
	return true;
}

/* Both sides send TAG with their values, then read the peer's. */
static bool ctl_sync(uint32_t tag, uint64_t a, uint64_t b,
		     struct wire_ctl *peer, double secs)
{
	struct wire_ctl mine = { CTL_MAGIC, tag, a, b }, tmp;
	double deadline = now_s() + secs;

	if (!peer)
		peer = &tmp;
	if (!ctl_send(&mine, sizeof(mine), deadline) ||
	    !ctl_recv(peer, sizeof(*peer), deadline))
		return false;
	return peer->magic == CTL_MAGIC && peer->tag == tag;
}

static void ctl_connect(void)
{
	double deadline = now_s() + opt.wait_s;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(opt.port) };
	int one = 1;

	if (opt.server) {
		int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (ls < 0)
			fatal(T_SETUP, "socket: %s", strerror(errno));
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(ls, 1))
			fatal(T_SETUP, "bind/listen on port %d: %s", opt.port,
			      strerror(errno));
		if (wait_fd(ls, POLLIN, deadline) <= 0)
			fatal(T_SETUP, "no client connected within %d s",
			      opt.wait_s);
		ctl_fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (ctl_fd < 0)
			fatal(T_SETUP, "accept: %s", strerror(errno));
		close(ls);
	} else {
		if (inet_pton(AF_INET, opt.addr, &sa.sin_addr) != 1)
			fatal(T_SETUP, "bad IPv4 address '%s'", opt.addr);
		for (;;) {
			int fd = socket(
				AF_INET,
				SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			int err = 0;
			socklen_t len = sizeof(err);

			if (fd < 0)
				fatal(T_SETUP, "socket: %s", strerror(errno));
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ==
				    0 ||
			    (errno == EINPROGRESS &&
			     wait_fd(fd, POLLOUT,
				     now_s() + 5 < deadline ? now_s() + 5
							    : deadline) > 0 &&
			     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) ==
				     0 &&
			     err == 0)) {
				ctl_fd = fd;
				break;
			}
			close(fd);
			if (now_s() + 0.5 >= deadline)
				fatal(T_SETUP,
				      "cannot connect to %s:%d within %d s",
				      opt.addr, opt.port, opt.wait_s);
			usleep(500000);
		}
	}
	setsockopt(ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(ctl_fd, F_SETFL, fcntl(ctl_fd, F_GETFL) | O_NONBLOCK);
}

/* ------------------------------------------------------------------------- */
/* Verbs state. */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *chan;
static struct ibv_cq *scq, *rcq, *ud_scq, *ud_rcq;
static struct ibv_qp *qp[MAX_QPS], *ud_qp;
static struct ibv_mr *loc_mr, *rem_mr, *ud_mr;
static struct ibv_ah *ud_ah;
static uint8_t *loc_buf, *rem_buf,
	*ud_buf;		   /* loc = own local area + receive area */
static uint8_t *loc_exp, *rem_exp; /* expected final images */
static size_t loc_len, rem_len, ud_len, rcv_base;
static union ibv_gid my_gid;
static struct wire_info me, peer;
static uint32_t mtu_bytes;
static enum ibv_mtu path_mtu;

static struct sched own[MAX_QPS], theirs[MAX_QPS];
static struct sizes own_z, their_z;

/* Counters for the summary. */
static uint64_t bytes_verified, wrs_done, recvs_done, op_done[OP_COUNT];
static uint64_t ud_sent, ud_recv, ud_dups, ud_reordered;

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
/* RC phase. */

static uint32_t next_post[MAX_QPS], next_done[MAX_QPS], next_recv[MAX_QPS];
static int32_t *recv_to_msg[MAX_QPS]; /* peer's recv index -> message index */
static uint8_t *shared_seen;	      /* values returned by the shared FAA */
static uint64_t shared_total;

static uint32_t imm_of(int init_side, int q, uint32_t k)
{
	return (uint32_t)mix64(((uint64_t)init_side << 40) ^
			       ((uint64_t)q << 20) ^ k ^ opt.seed);
}

static void build_wr(int q, uint32_t k, struct ibv_send_wr *wr,
		     struct ibv_sge *sg)
{
	struct msg *m = &own[q].m[k];
	uint64_t la = (uintptr_t)loc_buf + m->loc_off;
	uint64_t ra = peer.rem_addr + m->rem_off;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ((uint64_t)q << 32) | k;
	wr->sg_list = sg;
	wr->num_sge = m->nsge;
	if (m->nsge == 2) {
		uint32_t cut = m->size / 2 + (k % 3);

		if (cut >= m->size)
			cut = m->size - 1;
		sg[0] = (struct ibv_sge){ la, cut, loc_mr->lkey };
		sg[1] = (struct ibv_sge){ la + cut, m->size - cut,
					  loc_mr->lkey };
	} else {
		sg[0] = (struct ibv_sge){ la, m->size, loc_mr->lkey };
	}
	if (m->size == 0)
		wr->num_sge = 0;
	if (m->inl)
		wr->send_flags |= IBV_SEND_INLINE;
	switch (m->op) {
	case OP_SEND:
		wr->opcode = IBV_WR_SEND;
		break;
	case OP_SEND_IMM:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(imm_of(side, q, k));
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		wr->opcode = m->op == OP_WRITE ? IBV_WR_RDMA_WRITE
					       : IBV_WR_RDMA_WRITE_WITH_IMM;
		if (m->op == OP_WRITE_IMM)
			wr->imm_data = htonl(imm_of(side, q, k));
		wr->wr.rdma.remote_addr = ra;
		wr->wr.rdma.rkey = peer.rem_rkey;
		break;
	case OP_READ:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = ra;
		wr->wr.rdma.rkey = peer.rem_rkey;
		break;
	case OP_FAA:
	case OP_FAA_SHARED:
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.remote_addr = ra;
		wr->wr.atomic.rkey = peer.rem_rkey;
		wr->wr.atomic.compare_add = 1;
		break;
	case OP_CAS:
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = ra;
		wr->wr.atomic.rkey = peer.rem_rkey;
		wr->wr.atomic.compare_add = m->expect;
		wr->wr.atomic.swap = m->expect + 1;
		break;
	}
}

/* Post the next WRs of every QP, in chains of 1-4, up to WINDOW outstanding. */
static bool post_more(uint64_t *rs)
{
	bool any = false;

	for (int q = 0; q < opt.nqps; q++) {
		struct ibv_send_wr wr[4], *bad;
		struct ibv_sge sg[4][MAX_SGE];
		uint32_t room = WINDOW - (next_post[q] - next_done[q]);
		uint32_t left = own[q].n - next_post[q];
		uint32_t c = 1 + rng_next(rs) % 4;

		if (c > room)
			c = room;
		if (c > left)
			c = left;
		if (!c)
			continue;
		for (uint32_t i = 0; i < c; i++) {
			build_wr(q, next_post[q] + i, &wr[i], sg[i]);
			wr[i].next = i + 1 < c ? &wr[i + 1] : NULL;
		}
		if (ibv_post_send(qp[q], wr, &bad)) {
			fail(T_RC_ORDER,
			     "ibv_post_send(QP %d, WR %u, chain of %u) failed: "
			     "%s",
			     q, next_post[q], c, strerror(errno));
			return false;
		}
		next_post[q] += c;
		any = true;
	}
	return any;
}

static enum ibv_wc_opcode wc_opcode_of(uint8_t op)
{
	switch (op) {
	case OP_SEND:
	case OP_SEND_IMM:
		return IBV_WC_SEND;
	case OP_WRITE:
	case OP_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
		return IBV_WC_RDMA_READ;
	case OP_CAS:
		return IBV_WC_COMP_SWAP;
	default:
		return IBV_WC_FETCH_ADD;
	}
}

static int qp_index(uint32_t qpn)
{
	for (int q = 0; q < opt.nqps; q++)
		if (qp[q]->qp_num == qpn)
			return q;
	return -1;
}

/* Check a segment against its pattern; count the bytes on success. */
static bool check_seg(int t, const char *what, const uint8_t *p, uint32_t n,
		      uint64_t s, int q, uint32_t k)
{
	size_t bad = pattern_check(p, n, s);

	if (bad != n) {
		fail(t,
		     "%s QP %d msg %u (%u bytes): byte %zu is 0x%02x, not the "
		     "pattern "
		     "(first %zu bytes good)",
		     what, q, k, n, bad, p[bad], bad);
		return false;
	}
	bytes_verified += n;
	return true;
}

/* One completion of a WR this side posted. */
static void on_send_wc(const struct ibv_wc *wc)
{
	int q = (int)(wc->wr_id >> 32);
	uint32_t k = (uint32_t)wc->wr_id;
	struct msg *m;

	if (q < 0 || q >= opt.nqps || k >= own[q].n) {
		fail(T_RC_ORDER,
		     "send completion with unknown wr_id 0x%" PRIx64
		     " (status %s)",
		     wc->wr_id, ibv_wc_status_str(wc->status));
		return;
	}
	m = &own[q].m[k];
	if (wc->status != IBV_WC_SUCCESS) {
		fail(T_RC_ORDER,
		     "QP %d WR %u (%s, %u bytes): status %s (vendor_err 0x%x)",
		     q, k, op_name[m->op], m->size,
		     ibv_wc_status_str(wc->status), wc->vendor_err);
		next_done[q]++;
		return;
	}
	if (k != next_done[q] || k >= next_post[q]) {
		fail(T_RC_ORDER,
		     "QP %d: completion for WR %u, expected WR %u (%u posted)",
		     q, k, next_done[q], next_post[q]);
		if (k < next_done[q])
			return; /* a second completion: ignore */
	}
	next_done[q] = k + 1;
	wrs_done++;
	op_done[m->op]++;
	if (wc->qp_num != qp[q]->qp_num)
		fail(T_RC_ORDER, "QP %d WR %u: wc.qp_num 0x%x, QP is 0x%x", q,
		     k, wc->qp_num, qp[q]->qp_num);
	if (wc->opcode != wc_opcode_of(m->op))
		fail(T_RC_ORDER, "QP %d WR %u (%s): wc.opcode %d, expected %d",
		     q, k, op_name[m->op], wc->opcode, wc_opcode_of(m->op));
	if (m->op == OP_READ) {
		if (wc->byte_len != m->size)
			fail(T_RC_READ,
			     "QP %d WR %u RDMA_READ: byte_len %u, expected %u",
			     q, k, wc->byte_len, m->size);
		check_seg(T_RC_READ, "RDMA_READ result", loc_buf + m->loc_off,
			  m->size, msg_seed(side, q, k), q, k);
	} else if (m->op >= OP_FAA) {
		uint64_t v;

		memcpy(&v, loc_buf + m->loc_off, 8);
		if (wc->byte_len != 8)
			fail(T_RC_ATOMIC,
			     "QP %d WR %u %s: byte_len %u, expected 8", q, k,
			     op_name[m->op], wc->byte_len);
		if (m->op == OP_FAA_SHARED) {
			if (v >= shared_total || shared_seen[v])
				fail(T_RC_ATOMIC,
				     "QP %d WR %u shared FETCH_AND_ADD "
				     "returned %" PRIu64 " (%s; %" PRIu64
				     " increments in all)",
				     q, k, v,
				     v >= shared_total ? "out of range"
						       : "returned twice",
				     shared_total);
			else
				shared_seen[v] = 1;
			memcpy(loc_exp + m->loc_off, &v, 8);
		} else if (v != m->expect) {
			fail(T_RC_ATOMIC,
			     "QP %d WR %u %s returned %" PRIu64
			     ", expected %" PRIu64,
			     q, k, op_name[m->op], v, m->expect);
		}
	}
}

/* One receive completion (a SEND or WRITE_WITH_IMM of the peer). */
static void on_recv_wc(const struct ibv_wc *wc)
{
	int q = (int)(wc->wr_id >> 32);
	uint32_t j = (uint32_t)wc->wr_id, k;
	struct msg *m;
	uint64_t s;

	if (q < 0 || q >= opt.nqps || j >= theirs[q].nrecv) {
		fail(T_RC_ORDER,
		     "receive completion with unknown wr_id 0x%" PRIx64
		     " (status %s)",
		     wc->wr_id, ibv_wc_status_str(wc->status));
		return;
	}
	k = recv_to_msg[q][j];
	m = &theirs[q].m[k];
	if (wc->status != IBV_WC_SUCCESS) {
		fail(T_RC_ORDER,
		     "QP %d receive %u (peer's %s, %u bytes): status %s", q, j,
		     op_name[m->op], m->size, ibv_wc_status_str(wc->status));
		next_recv[q]++;
		return;
	}
	if (j != next_recv[q]) {
		fail(T_RC_ORDER, "QP %d: receive completion %u, expected %u", q,
		     j, next_recv[q]);
		if (j < next_recv[q])
			return;
	}
	next_recv[q] = j + 1;
	recvs_done++;
	if (qp_index(wc->qp_num) != q)
		fail(T_RC_ORDER, "QP %d receive %u: wc.qp_num 0x%x", q, j,
		     wc->qp_num);
	if (wc->byte_len != m->size)
		fail(T_RC_SW,
		     "QP %d receive %u (peer's %s): byte_len %u, sent %u", q, j,
		     op_name[m->op], wc->byte_len, m->size);
	if (m->op == OP_WRITE_IMM ? wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM
				  : wc->opcode != IBV_WC_RECV)
		fail(T_RC_ORDER, "QP %d receive %u (peer's %s): wc.opcode %d",
		     q, j, op_name[m->op], wc->opcode);
	if (m->op == OP_SEND) {
		if (wc->wc_flags & IBV_WC_WITH_IMM)
			fail(T_RC_ORDER,
			     "QP %d receive %u: SEND completed WITH_IMM", q, j);
	} else if (!(wc->wc_flags & IBV_WC_WITH_IMM) ||
		   ntohl(wc->imm_data) != imm_of(!side, q, k)) {
		fail(T_RC_SW,
		     "QP %d receive %u (peer's %s): imm_data 0x%08x%s, sent "
		     "0x%08x",
		     q, j, op_name[m->op], ntohl(wc->imm_data),
		     wc->wc_flags & IBV_WC_WITH_IMM ? ""
						    : " (no WITH_IMM flag)",
		     imm_of(!side, q, k));
	}
	s = msg_seed(!side, q, k);
	if (m->op == OP_WRITE_IMM)
		check_seg(T_RC_SW, "RDMA_WRITE_WITH_IMM data",
			  rem_buf + m->rem_off, m->size, s, q, k);
	else
		check_seg(T_RC_SW, "received SEND",
			  loc_buf + rcv_base + m->rcv_off, m->size, s, q, k);
}

static int drain(struct ibv_cq *cq, void (*fn)(const struct ibv_wc *))
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
static void wait_event(struct ibv_cq *a, struct ibv_cq *b, int extra_fd,
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

static bool arm(struct ibv_cq *cq)
{
	if (ibv_req_notify_cq(cq, 0)) {
		fail(T_RC_ORDER, "ibv_req_notify_cq failed");
		return false;
	}
	return true;
}

static bool rc_all_done(void)
{
	for (int q = 0; q < opt.nqps; q++)
		if (next_done[q] < own[q].n || next_recv[q] < theirs[q].nrecv)
			return false;
	return true;
}

/* The peer's TAG_RC_DONE (a = its RC phase went well), read without blocking
 * while our own RC phase runs. */
static struct wire_ctl peer_done;
static size_t peer_done_got;

static bool peer_done_seen(void)
{
	return peer_done_got == sizeof(peer_done);
}

/* Read what has arrived of it; false if the control channel broke. */
static bool poll_peer_done(void)
{
	while (!peer_done_seen()) {
		ssize_t r =
			recv(ctl_fd, (char *)&peer_done + peer_done_got,
			     sizeof(peer_done) - peer_done_got, MSG_DONTWAIT);

		if (r > 0) {
			peer_done_got += r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		return false;
	}
	return peer_done.magic == CTL_MAGIC && peer_done.tag == TAG_RC_DONE;
}

static void rc_phase(void)
{
	double t0 = now_s(), deadline = t0 + opt.phase_s, last_note = t0,
	       give_up = 0;
	uint64_t rs = mix64(opt.seed + 77 + side);

	for (int q = 0; q < opt.nqps; q++) {
		recv_to_msg[q] = calloc(theirs[q].nrecv + 1, sizeof(int32_t));
		for (uint32_t k = 0; k < theirs[q].n; k++)
			if (theirs[q].m[k].recv_idx >= 0)
				recv_to_msg[q][theirs[q].m[k].recv_idx] = k;
		shared_total += own[q].nshared;
	}
	shared_seen = calloc(shared_total + 1, 1);
	for (;;) {
		int a, b;
		bool posted = post_more(&rs);

		a = drain(scq, on_send_wc);
		b = drain(rcq, on_recv_wc);
		if (a < 0 || b < 0 || result[T_RC_ORDER] == 0)
			break; /* a WR failed: its QP is in error, the rest would time out */
		if (rc_all_done())
			break;
		if (!poll_peer_done()) {
			fail(T_RC_ORDER,
			     "control channel broke during the RC phase");
			break;
		}
		/* A peer that failed (a QP in error) answers no more: stop soon. */
		if (peer_done_seen() && !peer_done.a) {
			if (!give_up)
				give_up = now_s() + 5;
			else if (now_s() > give_up) {
				fail(T_RC_ORDER, "the peer's RC phase failed; "
						 "stopped waiting for our "
						 "remaining completions");
				break;
			}
		}
		if (now_s() > deadline) {
			uint32_t pd_ = 0, rd = 0, pe = 0, re = 0;

			for (int q = 0; q < opt.nqps; q++) {
				pd_ += next_done[q];
				pe += own[q].n;
				rd += next_recv[q];
				re += theirs[q].nrecv;
			}
			fail(T_RC_ORDER,
			     "RC phase not finished after %d s: %u of %u own "
			     "WRs "
			     "completed, %u of %u receives",
			     opt.phase_s, pd_, pe, rd, re);
			break;
		}
		if (opt.verbose && now_s() - last_note > 10) {
			last_note = now_s();
			note("RC: %" PRIu64 " WRs and %" PRIu64
			     " receives completed, %" PRIu64 " bytes verified",
			     wrs_done, recvs_done, bytes_verified);
		}
		if (posted || a || b)
			continue;
		if (!arm(scq) || !arm(rcq))
			break;
		a = drain(scq, on_send_wc);
		b = drain(rcq, on_recv_wc);
		if (a || b)
			continue;
		wait_event(scq, rcq, peer_done_seen() ? -1 : ctl_fd, 200);
	}
	note("RC phase: %" PRIu64 " WRs, %" PRIu64 " receives, %" PRIu64
	     " bytes verified in %.1f s",
	     wrs_done, recvs_done, bytes_verified, now_s() - t0);
}

/* The message whose segment (with its trailing canary gap) holds byte OFF
 * of the local buffer (is_rem false) or the remote one; NULL if none. */
static const struct msg *owner_of(bool is_rem, uint64_t off, int *qo,
				  uint32_t *ko, bool *mine)
{
	for (int q = 0; q < opt.nqps; q++) {
		for (uint32_t k = 0; k < own[q].n && !is_rem; k++) {
			const struct msg *m = &own[q].m[k];

			if (off >= m->loc_off &&
			    off < m->loc_off + m->size + GAP) {
				*qo = q, *ko = k, *mine = true;
				return m;
			}
		}
		for (uint32_t k = 0; k < theirs[q].n; k++) {
			const struct msg *m = &theirs[q].m[k];
			bool in_rcv =
				!is_rem &&
				(m->op == OP_SEND || m->op == OP_SEND_IMM) &&
				off >= rcv_base + m->rcv_off &&
				off < rcv_base + m->rcv_off + m->size + GAP;
			bool in_rem = is_rem && m->op <= OP_READ &&
				      m->op >= OP_WRITE && off >= m->rem_off &&
				      off < m->rem_off + m->size + GAP;

			if (in_rcv || in_rem) {
				*qo = q, *ko = k, *mine = false;
				return m;
			}
		}
	}
	return NULL;
}

/* Compare a whole buffer with its expected image; blame the first
 * difference on the test of the message it belongs to. */
static bool compare_image(bool is_rem, const uint8_t *buf, const uint8_t *exp,
			  size_t len)
{
	const struct msg *m;
	bool mine = false;
	uint32_t k = 0;
	size_t i;
	int q = 0;

	if (!memcmp(buf, exp, len))
		return true;
	for (i = 0; i < len && buf[i] == exp[i]; i++)
		;
	m = owner_of(is_rem, i, &q, &k, &mine);
	if (m)
		fail(test_of(m->op),
		     "final %s buffer: byte %zu is 0x%02x, expected 0x%02x: in "
		     "%s of %s %s QP %d msg %u (%u bytes)",
		     is_rem ? "remote" : "local", i, buf[i], exp[i],
		     i - (mine	   ? m->loc_off
			  : is_rem ? m->rem_off
				   : rcv_base + m->rcv_off) <
				     m->size
			     ? "the data"
			     : "the canary after the data",
		     mine ? "our" : "the peer's", op_name[m->op], q, k,
		     m->size);
	else
		fail(is_rem && i >= their_z.rem ? T_RC_ATOMIC : T_RC_SW,
		     "final %s buffer: byte %zu of %zu is 0x%02x, expected "
		     "0x%02x (%s)",
		     is_rem ? "remote" : "local", i, len, buf[i], exp[i],
		     is_rem && i >= their_z.rem ? "atomic words"
						: "canary outside any message");
	return false;
}

static void rc_final_check(void)
{
	uint64_t write_bytes = 0;

	/* Atomic words: per-QP counters, CAS chains, shared counter. */
	for (int q = 0; q < opt.nqps; q++) {
		uint64_t *w = (uint64_t *)(rem_buf + their_z.rem + 32 * q);

		if (w[0] != theirs[q].nfaa)
			fail(T_RC_ATOMIC,
			     "QP %d FETCH_AND_ADD counter is %" PRIu64
			     " after %u increments",
			     q, w[0], theirs[q].nfaa);
		if (w[1] != theirs[q].ncas)
			fail(T_RC_ATOMIC,
			     "QP %d CAS chain word is %" PRIu64
			     " after %u swaps",
			     q, w[1], theirs[q].ncas);
	}
	{
		uint64_t total = 0, v;

		for (int q = 0; q < opt.nqps; q++)
			total += theirs[q].nshared;
		memcpy(&v, rem_buf + their_z.rem + 32 * opt.nqps, 8);
		if (v != total)
			fail(T_RC_ATOMIC,
			     "shared counter is %" PRIu64 " after %" PRIu64
			     " increments from %d QPs",
			     v, total, opt.nqps);
	}
	for (uint64_t v = 0; v < shared_total; v++)
		if (!shared_seen[v]) {
			fail(T_RC_ATOMIC,
			     "shared FETCH_AND_ADD never returned %" PRIu64, v);
			break;
		}
	/* Plain RDMA writes are only visible here. */
	for (int q = 0; q < opt.nqps; q++)
		for (uint32_t k = 0; k < theirs[q].n; k++) {
			struct msg *m = &theirs[q].m[k];

			if (m->op == OP_WRITE &&
			    check_seg(T_RC_SW, "RDMA_WRITE data",
				      rem_buf + m->rem_off, m->size,
				      msg_seed(!side, q, k), q, k))
				write_bytes += m->size;
		}
	if (compare_image(false, loc_buf, loc_exp, loc_len) &&
	    compare_image(true, rem_buf, rem_exp, rem_len))
		vnote("final images match (%zu + %zu bytes)", loc_len, rem_len);
	pass_if_undecided(T_RC_SW);
	pass_if_undecided(T_RC_READ);
	pass_if_undecided(T_RC_ORDER);
	pass_if_undecided(T_RC_ATOMIC);
	vnote("plain RDMA WRITE data verified: %" PRIu64 " bytes", write_bytes);
}

/* ------------------------------------------------------------------------- */
/* UD phase. */

static uint32_t ud_size(int init_side, uint32_t seq, uint32_t mtu)
{
	return 1 + (uint32_t)(mix64(opt.seed ^ ((uint64_t)init_side << 48) ^
				    (seq * 2654435761u)) %
			      mtu);
}

static uint8_t *ud_slot(uint32_t i)
{
	return ud_buf + (size_t)i * (GRH_LEN + mtu_bytes);
}

static bool ud_post_recv(uint32_t slot)
{
	struct ibv_sge sg = { (uintptr_t)ud_slot(slot), GRH_LEN + mtu_bytes,
			      ud_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sg, .num_sge = 1 },
			   *bad;

	memset(ud_slot(slot), 0xdb, GRH_LEN + mtu_bytes);
	if (ibv_post_recv(ud_qp, &wr, &bad)) {
		fail(T_UD, "UD ibv_post_recv failed");
		return false;
	}
	return true;
}

static uint8_t *ud_seen;
static uint32_t ud_mtu, ud_last_seq;

static void on_ud_recv(const struct ibv_wc *wc)
{
	uint32_t slot = (uint32_t)wc->wr_id, seq, n;
	const uint8_t *p = ud_slot(slot);

	if (wc->status != IBV_WC_SUCCESS) {
		fail(T_UD, "UD receive: status %s",
		     ibv_wc_status_str(wc->status));
		return;
	}
	if (wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    !(wc->wc_flags & IBV_WC_GRH)) {
		fail(T_UD,
		     "UD receive: opcode %d flags 0x%x (want RECV, WITH_IMM, "
		     "GRH)",
		     wc->opcode, wc->wc_flags);
		goto repost;
	}
	seq = ntohl(wc->imm_data);
	if (seq >= (uint32_t)opt.udcount) {
		fail(T_UD,
		     "UD receive: sequence number %u out of range (corrupted "
		     "imm_data?)",
		     seq);
		goto repost;
	}
	n = ud_size(!side, seq, ud_mtu);
	if (wc->byte_len != GRH_LEN + n) {
		fail(T_UD, "UD datagram %u: byte_len %u, sent %u + %d GRH", seq,
		     wc->byte_len, n, GRH_LEN);
		goto repost;
	}
	if (wc->src_qp != peer.ud_qpn)
		fail(T_UD, "UD datagram %u: src_qp 0x%x, peer's UD QP is 0x%x",
		     seq, wc->src_qp, peer.ud_qpn);
	/* RoCE v2 over IPv4: the IPv4 header is in the last 20 bytes of the GRH. */
	if ((p[20] >> 4) == 4) {
		if (memcmp(p + 20 + 12, peer.gid + 12, 4) ||
		    memcmp(p + 20 + 16, my_gid.raw + 12, 4))
			fail(T_UD,
			     "UD datagram %u: IPv4 header addresses are not "
			     "the peer's and ours",
			     seq);
	} else if (memcmp(p + 8, peer.gid, 16)) {
		fail(T_UD, "UD datagram %u: GRH source GID is not the peer's",
		     seq);
	}
	if (pattern_check(p + GRH_LEN, n, msg_seed(!side, MAX_QPS + 1, seq)) !=
	    n) {
		fail(T_UD, "UD datagram %u (%u bytes): payload corrupted", seq,
		     n);
		goto repost;
	}
	if (n < mtu_bytes && p[GRH_LEN + n] != 0xdb)
		fail(T_UD, "UD datagram %u: bytes written past its %u bytes",
		     seq, n);
	if (ud_seen[seq]) {
		ud_dups++;
		if (!opt.dups_ok)
			fail(T_UD,
			     "UD datagram %u delivered twice (no duplication "
			     "configured)",
			     seq);
	} else {
		ud_seen[seq] = 1;
		ud_recv++;
		bytes_verified += n;
	}
	if (seq < ud_last_seq)
		ud_reordered++;
	ud_last_seq = seq;
repost:
	ud_post_recv(slot);
}

static uint32_t ud_sent_done;

static void on_ud_send(const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS)
		fail(T_UD, "UD send %" PRIu64 ": status %s", wc->wr_id,
		     ibv_wc_status_str(wc->status));
	ud_sent_done++;
}

static void ud_phase(void)
{
	double t0 = now_s(), deadline = t0 + opt.phase_s, idle_since = 0;
	struct wire_ctl pc, mine;
	size_t got = 0;
	uint32_t next = 0, peer_sent = UINT32_MAX;
	bool sent_msg = false;
	uint32_t src_slot = UD_RECVS;

	ud_mtu = mtu_bytes < peer.mtu ? mtu_bytes : peer.mtu;
	ud_seen = calloc(opt.udcount + 1, 1);
	for (uint32_t i = 0; i < UD_RECVS; i++)
		if (!ud_post_recv(i))
			return;
	if (!ctl_sync(TAG_UD_READY, 0, 0, NULL, 60)) {
		fail(T_UD, "control channel: UD ready sync failed");
		return;
	}
	for (;;) {
		int a, b;
		bool progress = false;

		/* Send: up to UD_WINDOW outstanding, from rotating source slots. */
		while (next < (uint32_t)opt.udcount &&
		       next - ud_sent_done < UD_WINDOW) {
			uint32_t n = ud_size(side, next, ud_mtu);
			uint8_t *src = ud_slot(src_slot + next % UD_WINDOW);
			struct ibv_sge sg = { (uintptr_t)src, n, ud_mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = next, .sg_list = &sg, .num_sge = 1,
				.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htonl(next),
				.wr.ud = { .ah = ud_ah, .remote_qpn = peer.ud_qpn,
					   .remote_qkey = 0x11111111 },
			}, *bad;

			pattern_fill(src, n, msg_seed(side, MAX_QPS + 1, next),
				     false);
			if (ibv_post_send(ud_qp, &wr, &bad)) {
				fail(T_UD, "UD ibv_post_send(%u) failed: %s",
				     next, strerror(errno));
				return;
			}
			next++;
			ud_sent++;
			progress = true;
			/* Pace a little: the receiver has UD_RECVS buffers. */
			if (next % 64 == 0)
				break;
		}
		a = drain(ud_scq, on_ud_send);
		b = drain(ud_rcq, on_ud_recv);
		if (a < 0 || b < 0)
			return;
		if (a || b)
			progress = true;
		if (!sent_msg && ud_sent_done == (uint32_t)opt.udcount) {
			mine = (struct wire_ctl){ CTL_MAGIC, TAG_UD_SENT,
						  ud_sent, 0 };
			if (!ctl_send(&mine, sizeof(mine), now_s() + 30)) {
				fail(T_UD,
				     "control channel: cannot report UD sends");
				return;
			}
			sent_msg = true;
		}
		if (peer_sent == UINT32_MAX) {
			ssize_t r = recv(ctl_fd, (char *)&pc + got,
					 sizeof(pc) - got, MSG_DONTWAIT);

			if (r > 0)
				got += r;
			else if (r == 0 ||
				 (errno != EAGAIN && errno != EINTR)) {
				fail(T_UD,
				     "control channel closed during UD phase");
				return;
			}
			if (got == sizeof(pc)) {
				if (pc.magic != CTL_MAGIC ||
				    pc.tag != TAG_UD_SENT) {
					fail(T_UD,
					     "control channel: unexpected "
					     "message in UD phase");
					return;
				}
				peer_sent = (uint32_t)pc.a;
				idle_since = now_s();
			}
		}
		if (sent_msg && peer_sent != UINT32_MAX) {
			if (ud_recv >= peer_sent)
				break;
			if (progress)
				idle_since = now_s();
			else if (now_s() - idle_since > 3)
				break; /* the rest is lost */
		}
		if (now_s() > deadline) {
			fail(T_UD,
			     "UD phase not finished after %d s (%" PRIu64
			     " of %d sends completed)",
			     opt.phase_s, (uint64_t)ud_sent_done, opt.udcount);
			return;
		}
		if (progress)
			continue;
		if (!arm(ud_scq) || !arm(ud_rcq))
			return;
		a = drain(ud_scq, on_ud_send);
		b = drain(ud_rcq, on_ud_recv);
		if (a || b)
			continue;
		wait_event(ud_scq, ud_rcq,
			   peer_sent == UINT32_MAX ? ctl_fd : -1, 100);
	}
	if (ud_recv == 0)
		fail(T_UD, "no UD datagram arrived (%u sent)", peer_sent);
	note("UD phase: sent %" PRIu64 ", received %" PRIu64
	     " of %u intact (%.2f%% missing), "
	     "%" PRIu64 " duplicates, %" PRIu64 " out of order, %.1f s",
	     ud_sent, ud_recv, peer_sent,
	     peer_sent ? 100.0 * (peer_sent - ud_recv) / peer_sent : 0.0,
	     ud_dups, ud_reordered, now_s() - t0);
	pass_if_undecided(T_UD);
}

/* ------------------------------------------------------------------------- */

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

static void usage(void)
{
	fprintf(stderr, "usage: rdma_xfer -s | -c ADDR [-p PORT] [-d DEV] [-g "
			"GIDX] [-q NQPS] "
			"[-n MSGS] [-m MAXSIZE] [-r MAXREAD] [-u UDCOUNT] [-S "
			"SEED] [-l LABEL] [-T SECS] [-t EXP] "
			"[-w SECS] [-D] [-M split|mixed] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct wire_hello hm = { 0 }, hp;
	const char *e;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now_s();
	opt.dev = (e = getenv("DOORBELL_VM_IBDEV")) && *e ? e : "rxe0";
	if ((e = getenv("DOORBELL_VM_GID_INDEX")) && *e)
		opt.gidx = atoi(e);
	while ((c = getopt(argc, argv, "sc:p:d:g:q:n:m:r:u:S:l:T:t:w:DM:v")) !=
	       -1) {
		switch (c) {
		case 's':
			opt.server = true;
			break;
		case 'c':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 'd':
			opt.dev = optarg;
			break;
		case 'g':
			opt.gidx = atoi(optarg);
			break;
		case 'q':
			opt.nqps = atoi(optarg);
			break;
		case 'n':
			opt.msgs = atoi(optarg);
			break;
		case 'm':
			opt.maxsize = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			opt.maxread = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			opt.udcount = atoi(optarg);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			opt.label = optarg;
			break;
		case 'T':
			opt.phase_s = atoi(optarg);
			break;
		case 't':
			opt.timeout_exp = atoi(optarg);
			break;
		case 'w':
			opt.wait_s = atoi(optarg);
			break;
		case 'D':
			opt.dups_ok = true;
			break;
		case 'M':
			if (strcmp(optarg, "mixed") && strcmp(optarg, "split"))
				usage();
			opt.mixed = !strcmp(optarg, "mixed");
			break;
		case 'v':
			opt.verbose = true;
			break;
		default:
			usage();
		}
	}
	if (opt.server == !!opt.addr || opt.nqps < 1 || opt.nqps > MAX_QPS ||
	    opt.msgs < OP_COUNT || opt.udcount < 1 || opt.maxsize < 1 ||
	    opt.phase_s < 1 || strlen(opt.label) >= sizeof(hm.label) ||
	    optind != argc)
		usage();
	if (opt.gidx < 0)
		opt.gidx = 1;
	side = opt.server ? 0 : 1;

	/* Parameters: both sides must run the same test. */
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

	rc_phase();
	/* Tell the peer how it went and hear the same: once both are done, the
	 * peer's writes and atomics are all in our memory. */
	{
		struct wire_ctl mine = { CTL_MAGIC, TAG_RC_DONE,
					 result[T_RC_ORDER] != 0, 0 };
		double deadline = now_s() + opt.phase_s;

		if (!ctl_send(&mine, sizeof(mine), deadline))
			fatal(T_RC_ORDER, "control channel: cannot report the "
					  "end of the RC phase");
		for (;;) {
			if (!poll_peer_done())
				fatal(T_RC_ORDER, "control channel: no end of "
						  "the peer's RC phase");
			if (peer_done_seen())
				break;
			if (now_s() > deadline)
				fatal(T_RC_ORDER,
				      "the peer's RC phase did not end within "
				      "%d s",
				      opt.phase_s);
			wait_fd(ctl_fd, POLLIN, deadline);
		}
		if (mine.a && peer_done.a) {
			rc_final_check();
		} else {
			/* Stop the retransmissions towards a QP in error (retry_cnt
			 * 7 retries for ever) before the UD phase shares the link. */
			struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

			for (int q = 0; q < opt.nqps; q++)
				if (ibv_modify_qp(qp[q], &a, IBV_QP_STATE))
					note("error: RC QP %d to ERR failed",
					     q);
			const char *who = !mine.a ? "our" : "the peer's";

			for (int t = T_RC_SW; t <= T_RC_ATOMIC; t++)
				if (result[t] < 0)
					fail(t,
					     "not fully checked: %s RC phase "
					     "failed",
					     who);
			if (!peer_done.a)
				fail(T_RC_ORDER, "the peer's RC phase failed");
		}
	}
	ud_phase();
	if (!ctl_sync(TAG_BYE, 0, 0, NULL, 60))
		fail(T_SETUP, "control channel: final sync failed");
	teardown();
	pass_if_undecided(T_SETUP);
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
	finish();
}
