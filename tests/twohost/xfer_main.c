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
 *
 * This file: the options and main(), which runs the table of phases below
 * in order (a new phase is a row). The rest: xfer.h (what the parts share),
 * xfer_harness.c (results, verbs objects, memory, poll helpers, the hello,
 * set-up, bye and summary phases), xfer_ctl.c (the TCP control channel),
 * xfer_sched.c (patterns, schedules, buffer layout), xfer_rc.c (the RC
 * traffic), xfer_rc_check.c (the end of the RC phase, final images),
 * xfer_ud.c (the UD phase).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ibdev.h"
#include "xfer.h"

struct xfer_opt opt = {
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

static void usage(void)
{
	fprintf(stderr, "usage: rdma_xfer -s | -c ADDR [-p PORT] [-d DEV] [-g "
			"GIDX] [-q NQPS] "
			"[-n MSGS] [-m MAXSIZE] [-r MAXREAD] [-u UDCOUNT] [-S "
			"SEED] [-l LABEL] [-T SECS] [-t EXP] "
			"[-w SECS] [-D] [-M split|mixed] [-v]\n");
	exit(2);
}

static void parse_opts(int argc, char **argv)
{
	const char *e;
	int c;

	opt.dev = test_ibdev();
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
	    opt.phase_s < 1 ||
	    strlen(opt.label) >= sizeof(((struct wire_hello *)NULL)->label) ||
	    optind != argc)
		usage();
	if (opt.gidx < 0)
		opt.gidx = 1;
	side = opt.server ? 0 : 1;
}

/* The phases, in order; a failed step every later one depends on stops the
 * program with its PASS/FAIL lines (fatal()). The names are for the reader:
 * nothing prints them. */
static const struct phase {
	const char *name;
	void (*run)(void);
} phases[] = {
	{ "hello", xfer_hello },     /* same parameters on both sides */
	{ "setup", xfer_setup },     /* verbs objects, QPs connected */
	{ "rc", rc_phase },	     /* RC traffic, every completion checked */
	{ "rc_end", rc_end },	     /* both sides done: final images */
	{ "ud", ud_phase },	     /* UD datagrams */
	{ "bye", xfer_bye },	     /* final sync, teardown */
	{ "summary", xfer_summary }, /* the "twohost summary" line */
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now_s();
	parse_opts(argc, argv);
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++)
		phases[i].run();
	finish();
}
