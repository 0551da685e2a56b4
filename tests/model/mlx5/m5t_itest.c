// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * doorbell-itest's cases on the in-process software ConnectX (m5t_itest.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "m5t_itest.h"

static struct m5m_dev *m5t_dev;

static struct ibv_context *m5t_open(const char *name)
{
	(void)name;
	return m5m_open(m5t_dev);
}

static struct ibv_comp_channel *m5t_create_channel(struct ibv_context *ctx)
{
	return m5m_create_comp_channel(m5t_dev, ctx);
}

static int m5t_destroy_channel(struct ibv_comp_channel *ch)
{
	return m5m_destroy_comp_channel(m5t_dev, ch);
}

static const struct it_dev_ops m5t_ops = {
	.open = m5t_open,
	.create_channel = m5t_create_channel,
	.destroy_channel = m5t_destroy_channel,
};

static int m5t_env(struct it_env *env, struct m5m_config *cfg)
{
	cfg->link_layer = IBV_LINK_LAYER_ETHERNET;
	m5t_dev = m5m_dev_create(cfg);
	if (!m5t_dev)
		return -1;
	it_dev_ops = &m5t_ops;
	env->ctx = it_open_device("m5model");
	if (!env->ctx || ibv_query_device(env->ctx, &env->dev) ||
	    ibv_query_port(env->ctx, env->port, &env->port_attr))
		return -1;
	/* ibv_query_gid reads sysfs, which has no model device. */
	m5m_port_gid(m5t_dev, env->port, &env->gid);
	env->pd = ibv_alloc_pd(env->ctx);
	return env->pd ? 0 : -1;
}

const struct it_case *m5t_itest_find(const struct it_case *cases,
				     const char *prefix, const char *name)
{
	size_t n = strlen(prefix);

	for (; cases->name; cases++)
		if (!strncmp(cases->name, prefix, n) &&
		    !strcmp(cases->name + n, name))
			return cases;
	return NULL;
}

int m5t_itest_run(const struct it_case *c, struct m5m_config *cfg,
		  const char *must_fail)
{
	struct it_env env = {
		.port = 1,
		.gidx = 0, /* the model's one GID */
		.timeout_ms = 2000,
		.quiet_ms = 20,
	};
	struct it_test t = { .env = &env, .name = c->name };
	int r;

	if (m5t_env(&env, cfg)) {
		fprintf(stderr, "FAIL %s: opening the model: %s\n", c->name,
			strerror(errno));
		return 1;
	}
	r = c->fn(&t, c->arg);
	if (r == IT_PASS && t.result != IT_PASS)
		r = t.result;
	if (it_cleanup(&t) && r == IT_PASS)
		r = IT_FAIL;
	if (r != IT_PASS && t.result == IT_PASS)
		it_fail(&t, "the case returned %d without a reason", r);
	ibv_dealloc_pd(env.pd);
	ibv_close_device(env.ctx);
	if (!m5m_violations(m5t_dev))
		m5m_dev_destroy(m5t_dev);
	else if (r == IT_PASS)
		r = it_fail(&t, "the model saw protocol violations");
	if (must_fail && r == IT_FAIL) {
		printf("PASS %s: %s\n", must_fail, t.reason);
		return 0;
	}
	if (must_fail) {
		printf("FAIL %s: %s %s\n", must_fail, c->name,
		       r == IT_PASS ? "passed" : "skipped");
		return 1;
	}
	if (r == IT_PASS) {
		printf("PASS %s\n", c->name);
		return 0;
	}
	printf("%s %s: %s\n", r == IT_SKIP ? "SKIP" : "FAIL", c->name,
	       t.reason);
	return r == IT_SKIP ? 77 : 1;
}
