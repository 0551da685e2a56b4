// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device and port queries, protection domains and memory regions of the
 * mlx5 backend: plain kernel commands through the kernel seam.
 */
#include <errno.h>
#include <stdlib.h>

#include "mlx5/mlx5.h"

int m5_query_device_ex(struct ibv_context *ctx,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	return m5k_query_device_ex(ctx, input, attr, attr_size);
}

int m5_query_port(struct ibv_context *ctx, uint8_t port,
		  struct ibv_port_attr *attr)
{
	return m5k_query_port(ctx, port, attr);
}

/*
 * A PD is a core struct db_pd, so that the core's parent domains (which
 * wrap one and share its handle) work unchanged over it.
 */
struct ibv_pd *m5_alloc_pd(struct ibv_context *ctx)
{
	struct mlx5_ib_alloc_pd_resp resp = {};
	struct db_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = m5k_alloc_pd(ctx, &pd->ibv_pd, &resp);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/* Parent domains are the core's; real PDs go back through the seam. */
int m5_dealloc_pd(struct ibv_pd *pd)
{
	return db_dealloc_pd_via(pd, m5k_dealloc_pd);
}

struct ibv_mr *m5_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			 uint64_t hca_va, int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = m5k_reg_mr(pd, addr, len, hca_va, access, vmr);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

struct ibv_mr *m5_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
				uint64_t iova, int fd, int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = m5k_reg_dmabuf_mr(pd, offset, len, iova, fd, access, vmr);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int m5_dereg_mr(struct verbs_mr *vmr)
{
	int ret = m5k_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

/*
 * Binding a window needs a UMR WQE, which this backend does not build.  A
 * type that no device has is EINVAL, as the kernel answers rxe.
 */
struct ibv_mw *m5_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	errno = type == IBV_MW_TYPE_1 || type == IBV_MW_TYPE_2 ? EOPNOTSUPP :
								 EINVAL;
	return NULL;
}
