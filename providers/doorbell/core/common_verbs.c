// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Verbs that are plain uverbs commands on every device, sent through the
 * core's kernel seam (core/kcmd.h).  A backend's ops table is installed
 * over this one and may replace any of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/doorbell.h"
#include "core/kcmd.h"

static void db_format_fw_ver(char *buf, size_t len, uint64_t fw)
{
	snprintf(buf, len, "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
}

static int db_query_device_ex(struct ibv_context *ctx,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	const struct db_backend *be = to_db_ctx(ctx)->backend;
	uint64_t fw = 0;
	int ret;

	ret = db_k_query_device_ex(ctx, input, attr, attr_size, &fw);
	if (ret)
		return ret;
	(be->format_fw_ver ? be->format_fw_ver : db_format_fw_ver)(
		attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver), fw);
	db_mask_device_attr(be, attr, attr_size);
	return 0;
}

/*
 * Does the device page on demand, as it said when the context opened?  The
 * kernel refuses IBV_ACCESS_ON_DEMAND without it, but with EINVAL (Linux
 * 6.1 rxe), which says the request was wrong rather than that the device
 * lacks the feature.
 */
static bool db_has_odp(struct ibv_context *ibctx)
{
	const struct db_context *ctx = to_db_ctx(ibctx);

	if (!ctx->dev_known)
		return true; /* cannot tell: the kernel decides */
	return ctx->dev.odp_caps.general_caps & IBV_ODP_SUPPORT;
}

static struct ibv_mr *db_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t hca_va, int access)
{
	struct verbs_mr *vmr;
	int ret;

	if ((access & IBV_ACCESS_ON_DEMAND) && !db_has_odp(pd->context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = db_k_reg_mr(pd, addr, length, hca_va, access, vmr);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* Not in db_common_ops: a backend whose kernel takes dma-bufs installs it. */
struct ibv_mr *db_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				size_t length, uint64_t iova, int fd,
				int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = db_k_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int db_dereg_mr(struct verbs_mr *vmr)
{
	int ret = db_k_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

/*
 * Not in db_common_ops: a backend whose kernel re-registers installs it.
 * libibverbs has checked flags, addr, length and access against each
 * other and answers IBV_REREG_MR_ERR_CMD for any nonzero return, so the
 * errno goes in errno too.  ON_DEMAND is refused as reg_mr refuses it.
 */
int db_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd, void *addr,
		size_t length, int access)
{
	int ret;

	if ((flags & IBV_REREG_MR_CHANGE_ACCESS) &&
	    (access & IBV_ACCESS_ON_DEMAND) && !db_has_odp(vmr->ibv_mr.context))
		ret = EOPNOTSUPP;
	else
		ret = db_k_rereg_mr(vmr, flags, pd, addr, length, access);
	if (ret)
		errno = ret;
	return ret;
}

static struct ibv_mw *db_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = db_k_alloc_mw(pd, type, mw);
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int db_dealloc_mw(struct ibv_mw *mw)
{
	int ret = db_k_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

const struct verbs_context_ops db_common_ops = {
	/*
	 * ODP prefetch: the kernel command.  Where the device or its kernel
	 * has no ODP, uverbs answers EOPNOTSUPP (the method needs the
	 * driver's advise_mr, which rxe before Linux 7.2 and mlx5_ib without
	 * ODP do not register).
	 */
	.advise_mr = db_k_advise_mr,
	.alloc_mw = db_alloc_mw,
	.alloc_parent_domain = db_alloc_parent_domain,
	.alloc_pd = db_alloc_pd,
	.alloc_td = db_alloc_td,
	.attach_mcast = db_k_attach_mcast,
	.create_cq = db_create_cq,
	.create_qp = db_create_qp,
	.create_srq = db_create_srq,
	.dealloc_mw = db_dealloc_mw,
	.dealloc_pd = db_dealloc_pd,
	.dealloc_td = db_dealloc_td,
	.dereg_mr = db_dereg_mr,
	.detach_mcast = db_k_detach_mcast,
	.free_context = db_free_context,
	.query_device_ex = db_query_device_ex,
	.query_port = db_k_query_port,
	.reg_mr = db_reg_mr,
};
