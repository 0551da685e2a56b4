// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-m5perf: the command line.  Parses perftest-like options and
 * runs lat, bw or the moderation experiment (or a comma list of them) on
 * the software ConnectX; exits non-zero if any run failed a check.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m5perf.h"

#define M5P_DEFAULT_SETTINGS "0/0,2/0,4/0,16/0,0/8,0/32,2/32,4/32,8/32"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: doorbell-m5perf MODE[,MODE...] [options]\n"
		"Perftest-shaped loops over the software ConnectX (the mlx5 "
		"model of\nsim/mlx5/model): the doorbell provider's "
		"mlx5 "
		"backend, through the\nverbs API, against a device model. "
		"No hardware is involved; virtual\ntimes follow from the time "
		"model below and the model's moderation timers.\n\n"
		"MODE: lat | bw | moderation\n"
		"  -s, --size B          message bytes (lat 2, bw 65536, "
		"moderation 64)\n"
		"  -n, --iters N         iterations (bw: per QP; lat 1000, "
		"bw 5000)\n"
		"  -v, --verb V[,V]      send | write (default send)\n"
		"  -e, --events          wait with ibv_req_notify_cq + "
		"ibv_get_cq_event through\n"
		"                        the model's IRQ handler (perftest "
		"-e)\n"
		"  -I, --inline-size B   largest inline message (default 236 "
		"send, 220 write)\n"
		"  -q, --qps N           bw: QP pairs (default 1)\n"
		"  -l, --post-list N     bw: WRs per ibv_post_send (default "
		"1)\n"
		"  -t, --tx-depth N      bw: WRs in flight per QP (default "
		"128)\n"
		"      --cq-count N      lat, bw: ibv_modify_cq cq_count "
		"(cq_max_count) on every CQ\n"
		"      --cq-period US    lat, bw: ibv_modify_cq cq_period on "
		"every CQ\n"
		"      --period-mode M   eqe (START_FROM_EQE, default) or cqe\n"
		"      --int-period US   MODEL-ONLY interrupt throttle per "
		"MSI-X vector; NOT mlx5\n"
		"                        behaviour (mlx5 EQs have no "
		"moderation); default off\n"
		"time model (virtual time; m5perf.h):\n"
		"      --wire-ns NS      fixed one-way delay (default 1000)\n"
		"      --msg-ns NS       port time per message (default 10)\n"
		"      --gbps G          link rate for size x 8 / G (default "
		"100)\n"
		"      --jitter-ns NS    mean exponential extra one-way delay "
		"(default 0)\n"
		"      --seed N          traffic, jitter and payload seed "
		"(default 1)\n"
		"moderation:\n"
		"      --settings LIST   cq_max_count/cq_period pairs (default "
		"%s)\n"
		"                        each is run with 1 shared MSI-X "
		"vector and one per CQ\n"
		"      --cqs N           QPs, each with a receive CQ on its "
		"own EQ (default 4)\n"
		"      --duration US     virtual us of traffic (default "
		"20000)\n"
		"      --interval US     mean gap between a QP's messages "
		"(default 8)\n"
		"      --fixed           fixed gaps instead of Poisson "
		"arrivals\n"
		"      --rx-depth N      receives posted per QP (default "
		"512)\n"
		"      --csv FILE        also write the results as CSV\n"
		"      --check           assert: larger cq_max_count -> fewer "
		"interrupts per\n"
		"                        completion and more latency; shared "
		"<= dedicated\n"
		"      --test NAME       end with \"PASS NAME\" or \"FAIL "
		"NAME\"\n",
		M5P_DEFAULT_SETTINGS);
}

enum {
	OPT_CQ_COUNT = 256,
	OPT_CQ_PERIOD,
	OPT_PERIOD_MODE,
	OPT_INT_PERIOD,
	OPT_WIRE,
	OPT_MSG,
	OPT_GBPS,
	OPT_JITTER,
	OPT_SEED,
	OPT_SETTINGS,
	OPT_CQS,
	OPT_DURATION,
	OPT_INTERVAL,
	OPT_FIXED,
	OPT_RX_DEPTH,
	OPT_CSV,
	OPT_CHECK,
	OPT_TEST,
};

static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "iters", required_argument, NULL, 'n' },
	{ "verb", required_argument, NULL, 'v' },
	{ "events", no_argument, NULL, 'e' },
	{ "inline-size", required_argument, NULL, 'I' },
	{ "qps", required_argument, NULL, 'q' },
	{ "post-list", required_argument, NULL, 'l' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "cq-count", required_argument, NULL, OPT_CQ_COUNT },
	{ "cq-period", required_argument, NULL, OPT_CQ_PERIOD },
	{ "period-mode", required_argument, NULL, OPT_PERIOD_MODE },
	{ "int-period", required_argument, NULL, OPT_INT_PERIOD },
	{ "wire-ns", required_argument, NULL, OPT_WIRE },
	{ "msg-ns", required_argument, NULL, OPT_MSG },
	{ "gbps", required_argument, NULL, OPT_GBPS },
	{ "jitter-ns", required_argument, NULL, OPT_JITTER },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "settings", required_argument, NULL, OPT_SETTINGS },
	{ "cqs", required_argument, NULL, OPT_CQS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "fixed", no_argument, NULL, OPT_FIXED },
	{ "rx-depth", required_argument, NULL, OPT_RX_DEPTH },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

struct cli {
	struct m5p_opts o;
	const char *modes;
	const char *verbs;
	const char *test;
	bool size_set, inline_set;
};

static int num(const char *s, const char *what, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	v = strtoull(s, &end, 0);
	if (!*s || *end || *s == '-' || v > max)
		return m5p_err("%s: '%s' is not a number in 0..%llu", what, s,
			       (unsigned long long)max);
	*out = v;
	return 0;
}

static int real(const char *s, const char *what, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0))
		return m5p_err("%s: '%s' is not a number >= 0", what, s);
	*out = v;
	return 0;
}

static int parse_settings(struct m5p_opts *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int c, p;
	char extra;

	o->nset = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "off")) {
			c = p = 0;
		} else if (sscanf(tok, "%u/%u%c", &c, &p, &extra) != 2 ||
			   c > 65535 || p > 4095) {
			free(copy);
			return m5p_err("--settings: '%s' is not count/period "
				       "(count <= 65535, period <= 4095 us)",
				       tok);
		}
		if (o->nset == M5P_MAX_SETTINGS) {
			free(copy);
			return m5p_err("--settings: at most %d settings",
				       M5P_MAX_SETTINGS);
		}
		o->set[o->nset++] =
			(struct m5p_setting){ (uint16_t)c, (uint16_t)p };
	}
	free(copy);
	return o->nset ? 0 : m5p_err("--settings: empty list");
}

static int parse_opt(struct cli *c, int opt, const char *arg)
{
	struct m5p_opts *o = &c->o;
	uint64_t v = 0;
	int ret = 0;

	switch (opt) {
	case 's':
		ret = num(arg, "--size", M5P_MAX_SIZE, &v);
		o->size = (uint32_t)v;
		c->size_set = true;
		break;
	case 'n':
		ret = num(arg, "--iters", 1ull << 40, &v);
		o->iters = v;
		break;
	case 'v':
		c->verbs = arg;
		break;
	case 'e':
		o->events = true;
		break;
	case 'I':
		ret = num(arg, "--inline-size", 512, &v);
		o->inline_size = (uint32_t)v;
		c->inline_set = true;
		break;
	case 'q':
		ret = num(arg, "--qps", M5P_MAX_QPS, &v);
		o->qps = (unsigned int)v;
		break;
	case 'l':
		ret = num(arg, "--post-list", 4096, &v);
		o->post_list = (unsigned int)v;
		break;
	case 't':
		ret = num(arg, "--tx-depth", 8192, &v);
		o->tx_depth = (unsigned int)v;
		break;
	case OPT_CQ_COUNT:
		ret = num(arg, "--cq-count", 65535, &v);
		o->cq_count = (uint16_t)v;
		break;
	case OPT_CQ_PERIOD:
		ret = num(arg, "--cq-period", 4095, &v);
		o->cq_period = (uint16_t)v;
		break;
	case OPT_PERIOD_MODE:
		if (strcmp(arg, "eqe") && strcmp(arg, "cqe"))
			return m5p_err("--period-mode: eqe or cqe");
		o->period_cqe = !strcmp(arg, "cqe");
		break;
	case OPT_INT_PERIOD:
		ret = num(arg, "--int-period", 1000000, &v);
		o->int_period = (uint32_t)v;
		break;
	case OPT_WIRE:
		ret = num(arg, "--wire-ns", 1000000000, &o->wire_ns);
		break;
	case OPT_MSG:
		ret = num(arg, "--msg-ns", 1000000000, &o->msg_ns);
		break;
	case OPT_GBPS:
		ret = real(arg, "--gbps", &o->gbps);
		if (!ret && o->gbps <= 0)
			ret = m5p_err("--gbps must be > 0");
		break;
	case OPT_JITTER:
		ret = real(arg, "--jitter-ns", &o->jitter_ns);
		break;
	case OPT_SEED:
		ret = num(arg, "--seed", UINT64_MAX, &o->seed);
		break;
	case OPT_SETTINGS:
		ret = parse_settings(o, arg);
		break;
	case OPT_CQS:
		ret = num(arg, "--cqs", M5P_MAX_CQS, &v);
		o->cqs = (unsigned int)v;
		if (!ret && !v)
			ret = m5p_err("--cqs must be >= 1");
		break;
	case OPT_DURATION:
		ret = num(arg, "--duration", 100000000, &o->duration_us);
		break;
	case OPT_INTERVAL:
		ret = real(arg, "--interval", &o->interval_us);
		if (!ret && o->interval_us <= 0)
			ret = m5p_err("--interval must be > 0");
		break;
	case OPT_FIXED:
		o->fixed = true;
		break;
	case OPT_RX_DEPTH:
		ret = num(arg, "--rx-depth", 8192, &v);
		o->rx_depth = (unsigned int)v;
		if (!ret && !v)
			ret = m5p_err("--rx-depth must be >= 1");
		break;
	case OPT_CSV:
		o->csv = arg;
		break;
	case OPT_CHECK:
		o->check = true;
		break;
	case OPT_TEST:
		c->test = arg;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	default:
		usage(stderr);
		return -1;
	}
	return ret;
}

static void defaults(struct m5p_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->qps = 1;
	o->post_list = 1;
	o->tx_depth = 128;
	o->wire_ns = 1000;
	o->msg_ns = 10;
	o->gbps = 100;
	o->seed = 1;
	o->cqs = 4;
	o->duration_us = 20000;
	o->interval_us = 8;
	o->rx_depth = 512;
	parse_settings(o, M5P_DEFAULT_SETTINGS);
}

/* One mode with one verb; the mode's defaults filled in. */
static int run_one(const struct cli *c, const char *mode, const char *verb)
{
	struct m5p_opts o = c->o;

	if (!strcmp(verb, "write"))
		o.verb = M5P_WRITE;
	else if (strcmp(verb, "send"))
		return m5p_err("--verb: '%s' is not send or write", verb);
	if (!c->inline_set)
		o.inline_size = o.verb == M5P_WRITE ? 220 : 236;
	if (!strcmp(mode, "lat")) {
		if (!c->size_set)
			o.size = 2;
		return o.size ? m5p_lat(&o) : m5p_err("--size must be >= 1");
	}
	if (!strcmp(mode, "bw")) {
		if (!c->size_set)
			o.size = 65536;
		return o.size ? m5p_bw(&o) : m5p_err("--size must be >= 1");
	}
	if (!strcmp(mode, "moderation")) {
		if (!c->size_set)
			o.size = 64;
		if (o.verb != M5P_SEND)
			return m5p_err("moderation runs SENDs only");
		return o.size ? m5p_moderation(&o)
			      : m5p_err("--size must be >= 1");
	}
	return m5p_err("'%s' is not a mode: lat, bw or moderation", mode);
}

/* Every mode of the list with every verb of the list. */
static int run_all(const struct cli *c)
{
	char *modes = strdup(c->modes), *verbs, *m, *v, *sm = NULL, *sv;
	int ret = 0;

	for (m = strtok_r(modes, ",", &sm); m; m = strtok_r(NULL, ",", &sm)) {
		verbs = strdup(c->verbs);
		sv = NULL;
		for (v = strtok_r(verbs, ",", &sv); v;
		     v = strtok_r(NULL, ",", &sv)) {
			if (!strcmp(m, "moderation") && !strcmp(v, "write"))
				continue;
			if (run_one(c, m, v))
				ret = -1;
		}
		free(verbs);
	}
	free(modes);
	return ret;
}

int main(int argc, char **argv)
{
	struct cli c = { .verbs = "send" };
	int opt, ret;

	defaults(&c.o);
	while ((opt = getopt_long(argc, argv, "s:n:v:eI:q:l:t:h", long_opts,
				  NULL)) != -1)
		if (parse_opt(&c, opt, optarg))
			return 2;
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	c.modes = argv[optind];
	ret = run_all(&c);
	if (c.test)
		printf("%s %s\n", ret ? "FAIL" : "PASS", c.test);
	return ret ? 1 : 0;
}
