// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The bad-input matrix (tests/guest/itest/bad_matrix.c) on the software
 * ConnectX: the same case table and the same harness, with contexts that
 * m5m_open() makes instead of ibv_open_device().  One case per run:
 *
 *	mlx5_bad_matrix CASE	(without the "matrix_" prefix)
 *	mlx5_bad_matrix -l	the case names
 *
 * The model's port is Ethernet, as Soft-RoCE's is, so the cases that need
 * a GRH mean the same on both backends.  Exit status 0 PASS, 1 FAIL, 77
 * SKIP (the reason is printed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "m5model.h"

static struct m5m_dev *bmm_dev;

static struct ibv_context *bmm_open(const char *name)
{
	(void)name;
	return m5m_open(bmm_dev);
}

static struct ibv_comp_channel *bmm_create_channel(struct ibv_context *ctx)
{
	return m5m_create_comp_channel(bmm_dev, ctx);
}

static int bmm_destroy_channel(struct ibv_comp_channel *ch)
{
	return m5m_destroy_comp_channel(bmm_dev, ch);
}

static const struct it_dev_ops bmm_ops = {
	.open = bmm_open,
	.create_channel = bmm_create_channel,
	.destroy_channel = bmm_destroy_channel,
};

static int bmm_env(struct it_env *env)
{
	struct m5m_config cfg;

	m5m_config_default(&cfg);
	cfg.link_layer = IBV_LINK_LAYER_ETHERNET;
	bmm_dev = m5m_dev_create(&cfg);
	if (!bmm_dev)
		return -1;
	it_dev_ops = &bmm_ops;
	env->ctx = it_open_device("m5model");
	if (!env->ctx || ibv_query_device(env->ctx, &env->dev) ||
	    ibv_query_port(env->ctx, env->port, &env->port_attr))
		return -1;
	/* ibv_query_gid reads sysfs, which has no model device. */
	m5m_port_gid(bmm_dev, env->port, &env->gid);
	env->pd = ibv_alloc_pd(env->ctx);
	return env->pd ? 0 : -1;
}

static const struct it_case *bmm_find(const char *name)
{
	const struct it_case *c;

	for (c = it_cases_bad_matrix; c->name; c++)
		if (!strncmp(c->name, "matrix_", 7) &&
		    !strcmp(c->name + 7, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	struct it_env env = {
		.port = 1,
		.gidx = 0, /* the model's one GID */
		.timeout_ms = 2000,
		.quiet_ms = 20,
	};
	const struct it_case *c;
	struct it_test t = { .env = &env };
	int r;

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (c = it_cases_bad_matrix; c->name; c++)
			printf("%s\n", c->name + 7);
		return 0;
	}
	c = argc == 2 ? bmm_find(argv[1]) : NULL;
	if (!c) {
		fprintf(stderr, "usage: mlx5_bad_matrix CASE | -l\n");
		return 2;
	}
	if (bmm_env(&env)) {
		fprintf(stderr, "FAIL %s: opening the model: %s\n", c->name,
			strerror(errno));
		return 1;
	}
	t.name = c->name;
	r = c->fn(&t, c->arg);
	if (r == IT_PASS && t.result != IT_PASS)
		r = t.result;
	if (it_cleanup(&t) && r == IT_PASS)
		r = IT_FAIL;
	if (r != IT_PASS && t.result == IT_PASS)
		it_fail(&t, "the case returned %d without a reason", r);
	ibv_dealloc_pd(env.pd);
	ibv_close_device(env.ctx);
	if (!m5m_violations(bmm_dev))
		m5m_dev_destroy(bmm_dev);
	else if (r == IT_PASS)
		r = it_fail(&t, "the model saw protocol violations");
	if (r == IT_PASS) {
		printf("PASS %s\n", c->name);
		return 0;
	}
	printf("%s %s: %s\n", r == IT_SKIP ? "SKIP" : "FAIL", c->name,
	       t.reason);
	return r == IT_SKIP ? 77 : 1;
}
