// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The integration test runner: opens the device, runs every test (or those
 * whose name contains the filter) and prints one line per test.
 *
 *   doorbell-itest [-d DEV] [-g GIDX] [-k FILTER] [-x FILTER]... [-t SECS] [-l]
 *
 * Exit status: 0 if nothing failed, 1 if a test failed, 2 on a setup error.
 * A -k or -x that leaves no test to run (a typo) is a FAIL line and exit 1,
 * before the device is opened.
 * A test that hangs inside a verb (every wait of the tests themselves has a
 * deadline) is reported as FAIL by a watchdog, which then ends the run.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "test_ibdev.h"

static const struct it_case *const it_tables[] = {
	it_cases_device,   it_cases_data_rc, it_cases_data_ud_uc,
	it_cases_srq,	   it_cases_cq,	     it_cases_bad_input,
	it_cases_threads,  it_cases_errors,  it_cases_bad_matrix,
	it_cases_features, it_cases_odp,     it_cases_dmabuf,
	it_cases_clock,	   it_cases_xrc,
};

#define IT_NTABLES (sizeof(it_tables) / sizeof(it_tables[0]))

/* What the watchdog prints: "FAIL <name>: ...", built before arming it. */
static char it_watchdog_msg[256];
static size_t it_watchdog_len;

static void it_watchdog(int sig)
{
	ssize_t n = write(STDOUT_FILENO, it_watchdog_msg, it_watchdog_len);

	(void)sig;
	(void)n;
	_exit(1);
}

static void it_watchdog_arm(const char *name, unsigned int secs)
{
	int n = snprintf(it_watchdog_msg, sizeof(it_watchdog_msg),
			 "FAIL %s: watchdog: still running after %u s (a verb "
			 "hung?)\n",
			 name, secs);

	it_watchdog_len = n < (int)sizeof(it_watchdog_msg)
				  ? (size_t)n
				  : sizeof(it_watchdog_msg) - 1;
	alarm(secs);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: doorbell-itest [-d DEV] [-g GIDX] [-k FILTER] "
		"[-x FILTER] [-t SECS] [-l]\n"
		"  -d DEV     device (default $DOORBELL_VM_IBDEV, else rxe0)\n"
		"  -g GIDX    GID index of the loopback address (default 1)\n"
		"  -k FILTER  run only tests whose name contains FILTER\n"
		"  -x FILTER  skip tests whose name contains FILTER (or\n"
		"             any of several, -x repeated)\n"
		"  -t SECS    deadline of each wait (default 5)\n"
		"  -l         list the test names and exit\n");
}

/* A test left out by -k FILTER or one of the -x filters. */
static bool left_out(const struct it_case *c, const char *filter,
		     const char *const *exclude, unsigned int nexclude)
{
	unsigned int j;

	if (filter && !strstr(c->name, filter))
		return true;
	for (j = 0; j < nexclude; j++)
		if (strstr(c->name, exclude[j]))
			return true;
	return false;
}

/* The number of tests the filters leave to run. */
static unsigned int count_selected(const char *filter,
				   const char *const *exclude,
				   unsigned int nexclude)
{
	const struct it_case *c;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < IT_NTABLES; i++)
		for (c = it_tables[i]; c->name; c++)
			n += !left_out(c, filter, exclude, nexclude);
	return n;
}

static int it_open(struct it_env *env, const char *name)
{
	int ret;

	env->ctx = it_open_device(name);
	if (!env->ctx) {
		fprintf(stderr, "itest: opening %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	ret = ibv_query_device(env->ctx, &env->dev);
	if (!ret)
		ret = ibv_query_port(env->ctx, env->port, &env->port_attr);
	if (!ret)
		ret = ibv_query_gid(env->ctx, env->port, env->gidx, &env->gid);
	if (ret) {
		fprintf(stderr, "itest: querying %s: %s\n", name,
			strerror(ret > 0 ? ret : errno));
		return -1;
	}
	env->pd = ibv_alloc_pd(env->ctx);
	if (!env->pd) {
		fprintf(stderr, "itest: ibv_alloc_pd: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int it_run(const struct it_env *env, const struct it_case *c)
{
	struct it_test t = { .env = env, .name = c->name };
	int r;

	/* Generous: the slowest test waits a few deadlines in a row. */
	it_watchdog_arm(c->name, 60 + 12 * env->timeout_ms / 1000);
	r = c->fn(&t, c->arg);
	if (r != IT_PASS && t.result == IT_PASS)
		it_fail(&t, "test returned %d without a reason", r);
	if (r == IT_PASS && t.result != IT_PASS)
		r = t.result; /* a helper failed but the test went on */
	if (it_cleanup(&t) && r == IT_PASS)
		r = IT_FAIL;
	if (r == IT_PASS)
		printf("PASS %s\n", c->name);
	else if (t.result == IT_SKIP)
		printf("SKIP %s: %s\n", c->name, t.reason);
	else
		printf("FAIL %s: %s\n", c->name, t.reason);
	fflush(stdout);
	alarm(0);
	return r == IT_PASS ? IT_PASS : t.result;
}

int main(int argc, char **argv)
{
	struct it_env env = {
		.port = 1,
		.gidx = 1,
		.timeout_ms = 5000,
		.quiet_ms = 100,
	};
	const char *dev = test_ibdev(), *filter = NULL, *exclude[8];
	unsigned int npass = 0, nfail = 0, nskip = 0, nexclude = 0;
	bool list = false;
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "d:g:k:x:t:lh")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			env.gidx = atoi(optarg);
			break;
		case 'k':
			filter = optarg;
			break;
		case 'x':
			if (nexclude == sizeof(exclude) / sizeof(*exclude)) {
				usage(stderr);
				return 2;
			}
			exclude[nexclude++] = optarg;
			break;
		case 't':
			env.timeout_ms = 1000 * (unsigned int)atoi(optarg);
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || env.gidx < 0 || !env.timeout_ms) {
		usage(stderr);
		return 2;
	}
	if ((filter || nexclude) &&
	    !count_selected(filter, exclude, nexclude)) {
		printf("FAIL itest_filters_select_a_test: -k %s with %u -x "
		       "filters matches no test\n",
		       filter ? filter : "(none)", nexclude);
		return 1;
	}
	if (!list && it_open(&env, dev))
		return 2;
	signal(SIGALRM, it_watchdog);
	for (i = 0; i < IT_NTABLES; i++) {
		const struct it_case *c;

		for (c = it_tables[i]; c->name; c++) {
			if (left_out(c, filter, exclude, nexclude))
				continue;
			if (list) {
				printf("%s\n", c->name);
				continue;
			}
			switch (it_run(&env, c)) {
			case IT_PASS:
				npass++;
				break;
			case IT_SKIP:
				nskip++;
				break;
			default:
				nfail++;
				break;
			}
		}
	}
	if (list)
		return 0;
	fprintf(stderr, "itest: %u passed, %u failed, %u skipped\n", npass,
		nfail, nskip);
	ibv_dealloc_pd(env.pd);
	ibv_close_device(env.ctx);
	return nfail ? 1 : 0;
}
