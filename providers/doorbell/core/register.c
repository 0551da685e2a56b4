// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * How libibverbs meets doorbell: the match table, the device object, a
 * context's life, and the registration that runs when libibverbs dlopens us.
 * Nothing here names a backend: all of it comes from db_backends[].
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/doorbell.h"
#include "core/kcmd.h"
#include "core/libver.h"

/* One entry per backend, then the terminator; filled at load time. */
static struct verbs_match_ent *db_match_table;

static const struct db_backend *db_backend_of(const struct verbs_match_ent *m)
{
	return m ? m->driver_data : NULL;
}

/* A backend this build lacks: say why once per process, not per device. */
static void db_refuse_once(const struct db_backend *be)
{
	static atomic_ulong said; /* bit i: db_backends[i] was reported */
	unsigned long bit = 0;
	size_t i;

	for (i = 0; i < db_num_backends; i++)
		if (db_backends[i] == be)
			bit = 1UL << (i % (8 * sizeof(bit)));
	if (atomic_fetch_or(&said, bit) & bit)
		return;
	db_refuse("%s; %s devices are left to %s", be->absent_reason, be->name,
		  be->native_provider);
}

/*
 * Called for every device after the table match.  A backend with an opt-in
 * variable serves its devices only when it is set: otherwise libibverbs
 * goes on to the provider that usually serves them.
 */
static bool db_match_device(struct verbs_sysfs_dev *sysfs)
{
	const struct db_backend *be = db_backend_of(sysfs->match);
	uint32_t abi_ver;

	if (!be)
		return false;
	if (be->opt_in_env && !db_env_flag(be->opt_in_env)) {
		db_debug("%s: left to %s (%s=1 opts in)", sysfs->ibdev_name,
			 be->native_provider, be->opt_in_env);
		return false;
	}
	if (be->absent_reason) {
		db_refuse_once(be);
		return false;
	}
	/* abi_ver moved in rdma-core 35: read it where this release has it. */
	abi_ver = db_sysfs_abi_ver(sysfs);
	if (abi_ver < be->kabi_min || abi_ver > be->kabi_max) {
		db_refuse("%s: not claimed: kernel ABI %u, %s knows %u to %u",
			  sysfs->ibdev_name, abi_ver, be->name, be->kabi_min,
			  be->kabi_max);
		return false;
	}
	return true;
}

static struct verbs_device *db_alloc_device(struct verbs_sysfs_dev *sysfs)
{
	const struct db_backend *be = db_backend_of(sysfs->match);
	struct db_device *dev;

	if (!be)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->backend = be;
	return &dev->vdev;
}

static void db_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct db_device, vdev));
}

/* Our ops that the running libibverbs has no slot for: said once. */
static void db_say_dropped(const struct verbs_context_ops *ops)
{
	static atomic_bool said;
	const char *names[8];
	size_t i, n;

	if (!db_config()->debug || atomic_exchange(&said, true))
		return;
	n = db_ops_dropped(ops, names, 8);
	for (i = 0; i < n && i < 8; i++)
		db_debug("rdma-core %d has no %s op: not offered", db_lib.major,
			 names[i]);
}

/* A context whose verbs_context libibverbs sized as its release does. */
static bool db_vctx_size_ok(struct db_context *ctx)
{
	static atomic_bool said;

	if (ctx->vctx.sz == db_lib.epoch->vctx_size)
		return true;
	if (!atomic_exchange(&said, true))
		db_refuse("no context: libibverbs from rdma-core %d made a "
			  "%zu-byte verbs_context, expected %u",
			  db_lib.major, ctx->vctx.sz, db_lib.epoch->vctx_size);
	return false;
}

static struct verbs_context *db_alloc_context(struct ibv_device *ibdev,
					      int cmd_fd, void *private_data)
{
	const struct db_backend *be = to_db_dev(ibdev)->backend;
	struct db_context *ctx;
	int ret;

	(void)private_data;
	ctx = db_init_and_alloc_context(
		ibdev, cmd_fd, be->context_size,
		offsetof(struct db_context, vctx.context), be->driver_id);
	if (!ctx)
		return NULL;
	ctx->backend = be;
	if (!db_vctx_size_ok(ctx)) {
		ret = EPROTO;
		goto err;
	}
	/* The backend's table goes over the common one: it wins where both. */
	db_set_ops(&ctx->vctx, &db_common_ops);
	db_set_ops(&ctx->vctx, be->ops);
	db_say_dropped(be->ops);
	ret = be->get_context(ctx);
	if (ret)
		goto err;
	/* One query serves the whole context: later verbs read ctx->dev. */
	ctx->dev_known = !db_k_query_device_ex(
		&ctx->vctx.context, NULL, &ctx->dev, sizeof(ctx->dev), NULL);
	if (!ctx->dev_known)
		memset(&ctx->dev, 0, sizeof(ctx->dev));
	ret = be->init_context ? be->init_context(ctx) : 0;
	if (ret)
		goto err;
	db_debug("%s: serving the device with the %s backend", ibdev->name,
		 be->name);
	/* libibverbs' pointer: it may start before ours (core/pabi.h). */
	return db_lib_vctx(&ctx->vctx);

err:
	db_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}

void db_free_context(struct ibv_context *ibctx)
{
	struct db_context *ctx = to_db_ctx(ibctx);

	db_debug("%s: closing context", ibctx->device->name);
	if (ctx->backend->uninit_context)
		ctx->backend->uninit_context(ctx);
	db_uninit_context(&ctx->vctx);
	free(ctx);
}

/* The match table and ABI range are completed by db_build_match(). */
struct verbs_device_ops db_device_ops = {
	.name = DB_NAME,
	.match_device = db_match_device,
	.alloc_device = db_alloc_device,
	.uninit_device = db_uninit_device,
	.alloc_context = db_alloc_context,
};

/*
 * One driver-id entry per backend, pointing back at it, and the ABI range
 * that covers them all (db_match_device then checks each backend's own).
 */
static int db_build_match(void)
{
	const struct db_backend *be;
	size_t i;

	db_match_table = calloc(db_num_backends + 1, sizeof(*db_match_table));
	if (!db_match_table)
		return -1;
	db_device_ops.match_min_abi_version = UINT32_MAX;
	for (i = 0; i < db_num_backends; i++) {
		be = db_backends[i];
		db_match_table[i].driver_data = (void *)be;
		db_match_table[i].u.driver_id = be->driver_id;
		db_match_table[i].kind = VERBS_MATCH_DRIVER_ID;
		if (be->kabi_min < db_device_ops.match_min_abi_version)
			db_device_ops.match_min_abi_version = be->kabi_min;
		if (be->kabi_max > db_device_ops.match_max_abi_version)
			db_device_ops.match_max_abi_version = be->kabi_max;
	}
	db_device_ops.match_table = db_match_table;
	return 0;
}

/*
 * A backend the user opted in whose native provider is loaded already:
 * libibverbs tries drivers in the order they registered, so that provider
 * serves the devices and the opt-in cannot take effect.  Said in one line,
 * with the way out: preloading doorbell registers it first, unless the
 * program links the native provider (ld.so then starts that one first).
 */
static void db_say_native_first(void)
{
	const struct db_backend *be;
	const char *self = "libdoorbell";
	Dl_info info;
	void *h;
	size_t i;

	if (dladdr((void *)&db_device_ops, &info) && info.dli_fname)
		self = info.dli_fname;
	for (i = 0; i < db_num_backends; i++) {
		be = db_backends[i];
		if (!be->opt_in_env || !be->native_soname ||
		    be->absent_reason || !db_env_flag(be->opt_in_env))
			continue;
		h = dlopen(be->native_soname, RTLD_NOLOAD | RTLD_LAZY);
		if (!h)
			continue;
		dlclose(h);
		db_refuse("%s was loaded before doorbell in this process and "
			  "serves %s devices first: %s=1 has no effect here "
			  "(doorbell must load first: LD_PRELOAD=%s, unless "
			  "the program links %s; doorbell(7))",
			  be->native_soname, be->name, be->opt_in_env, self,
			  be->native_provider);
	}
}

static void __attribute__((constructor)) db_register(void)
{
	if (db_check_libibverbs())
		return;
	if (db_build_match()) {
		db_refuse("not loaded: out of memory for the match table");
		return;
	}
	db_lib.verbs_register_driver(&db_device_ops);
	db_say_native_first();
	db_debug("registered with libibverbs (rdma-core %d, "
		 "IBVERBS_PRIVATE_%d)",
		 db_lib.major, db_lib.epoch->pabi);
}
