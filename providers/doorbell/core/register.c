// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * How libibverbs meets doorbell: the match table, the device object, opening
 * a context, and the registration that runs when libibverbs dlopens us.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/doorbell.h"

static const struct verbs_match_ent db_match_table[] = {
	{ .u.driver_id = RDMA_DRIVER_RXE, .kind = VERBS_MATCH_DRIVER_ID },
	{ .u.driver_id = RDMA_DRIVER_MLX5, .kind = VERBS_MATCH_DRIVER_ID },
	{}
};

/*
 * Called for every device after the table match.  ConnectX devices are
 * opt-in (DOORBELL_MLX5=1): otherwise libibverbs goes on to libmlx5.
 */
static bool db_match_device(struct verbs_sysfs_dev *sysfs)
{
	if (!sysfs->match)
		return false;
	if (sysfs->match->u.driver_id == RDMA_DRIVER_MLX5 &&
	    !db_config()->mlx5) {
		db_debug("%s: left to libmlx5 (DOORBELL_MLX5=1 opts in)",
			 sysfs->ibdev_name);
		return false;
	}
	if (!db_backend_for_driver(sysfs->match->u.driver_id)) {
		db_backend_not_built(sysfs->match->u.driver_id);
		return false;
	}
	return true;
}

static struct verbs_device *db_alloc_device(struct verbs_sysfs_dev *sysfs)
{
	const struct db_backend *be = db_backend_for_driver(sysfs->driver_id);
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

static struct verbs_context *db_alloc_context(struct ibv_device *ibdev,
					      int cmd_fd, void *private_data)
{
	const struct db_backend *be = to_db_dev(ibdev)->backend;
	struct db_context *ctx;
	int ret;

	(void)private_data;
	ctx = _verbs_init_and_alloc_context(
		ibdev, cmd_fd, be->context_size,
		&((struct db_context *)NULL)->vctx, be->driver_id);
	if (!ctx)
		return NULL;
	ctx->backend = be;
	/* The backend's table goes over the common one: it wins where both. */
	verbs_set_ops(&ctx->vctx, &db_common_ops);
	verbs_set_ops(&ctx->vctx, be->ops);
	ret = be->init_context(ctx);
	if (ret) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}
	db_debug("%s: serving the device with the %s backend", ibdev->name,
		 be->name);
	return &ctx->vctx;
}

const struct verbs_device_ops db_device_ops = {
	.name = DB_NAME,
	/*
	 * rxe reports uverbs ABI 2 (64-bit layouts are the same from 1);
	 * mlx5_ib reports 1.
	 */
	.match_min_abi_version = 1,
	.match_max_abi_version = 2,
	.match_table = db_match_table,
	.match_device = db_match_device,
	.alloc_device = db_alloc_device,
	.uninit_device = db_uninit_device,
	.alloc_context = db_alloc_context,
};

static void __attribute__((constructor)) db_register(void)
{
	if (db_check_libibverbs())
		return;
	verbs_register_driver_34(&db_device_ops);
	db_debug("registered with libibverbs (rdma-core %d)",
		 DB_RDMA_CORE_MAJOR);
}
