// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The mlx5 backend's descriptor where it cannot be built: core/mmio.h has
 * no device-register stores for this architecture (DB_HAVE_MMIO is 0, as
 * on every 32-bit host).  ConnectX devices still match, so that the core
 * can say once why doorbell leaves them to libmlx5 when DOORBELL_MLX5=1
 * asked for them; nothing is served.
 */
#include "core/doorbell.h"
#include "core/mmio.h"

_Static_assert(!DB_HAVE_MMIO, "mlx5_absent.c is built only without MMIO");

#if defined(__i386__)
#define M5_ARCH "i386"
#elif defined(__arm__)
#define M5_ARCH "32-bit arm"
#elif defined(__powerpc__)
#define M5_ARCH "32-bit powerpc"
#elif defined(__mips__)
#define M5_ARCH "mips"
#else
#define M5_ARCH "this architecture"
#endif

const struct db_backend db_mlx5_backend = {
	.name = "mlx5",
	.driver_id = RDMA_DRIVER_MLX5,
	.kabi_min = 1,
	.kabi_max = 1,
	.opt_in_env = "DOORBELL_MLX5",
	.native_provider = "libmlx5",
	.native_soname = "libmlx5.so.1",
	.absent_reason = "the mlx5 backend is not built for " M5_ARCH,
};
