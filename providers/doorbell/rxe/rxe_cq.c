// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues of the rxe backend: create, resize, destroy; the
 * kernel produces the CQEs and rxe_poll.c polls them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr.h"
#include "rxe/rxe.h"

static int rxe_cq_init(struct ibv_context *ibctx, struct rxe_cq *cq,
		       struct ibv_cq_init_attr_ex *attr, bool single_threaded)
{
	struct ibv_create_cq_ex cmd = {};
	struct rxe_cmd_create_cq_ex_resp resp = {};
	int ret;

	ret = db_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				  &resp.ibv, sizeof(resp), 0);
	if (ret)
		return ret;
	ret = rxe_ring_map(&cq->ring, ibctx->cmd_fd, &resp.drv.mi,
			   sizeof(struct ib_uverbs_wc), false);
	if (ret) {
		db_lib.ibv_cmd_destroy_cq(&cq->vcq.cq);
		return ret;
	}
	/* single_threaded already counts DOORBELL_SINGLE_THREADED. */
	db_lock_init(&cq->lock, !single_threaded);
	return 0;
}

/* A CQ as the kernel sees @attr; NULL with errno set on failure. */
static struct rxe_cq *rxe_cq_new(struct ibv_context *ibctx,
				 struct ibv_cq_init_attr_ex *attr,
				 bool single_threaded)
{
	struct rxe_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rxe_cq_init(ibctx, cq, attr, single_threaded);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return cq;
}

/*
 * The old ring stays mapped until the new one is in place, so a resize the
 * kernel refuses leaves the CQ exactly as it was.
 */
int rxe_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);
	struct rxe_cmd_resize_cq cmd = {};
	struct rxe_cmd_resize_cq_resp resp = {};
	struct rxe_ring ring = {};
	int ret;

	if (cqe <= 0)
		return EINVAL;
	db_lock(&cq->lock);
	ret = db_lib.ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv, sizeof(cmd),
				       &resp.ibv, sizeof(resp));
	if (ret)
		goto out;
	ret = rxe_ring_map(&ring, ibcq->context->cmd_fd, &resp.drv.mi,
			   sizeof(struct ib_uverbs_wc), false);
	if (ret) {
		/*
		 * The kernel moved the CQEs to a ring we could not map (say,
		 * out of address space).  Polls report an error and try the
		 * mapping again: it is still pending in the kernel unless
		 * the kernel itself refused it.
		 */
		cq->lost_mi = resp.drv.mi;
		atomic_store_explicit(&cq->broken, true, memory_order_relaxed);
		goto out;
	}
	rxe_ring_unmap(&cq->ring);
	cq->ring = ring;
out:
	db_unlock(&cq->lock);
	return ret;
}

int rxe_destroy_cq(struct ibv_cq *ibcq)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);
	int ret;

	ret = db_lib.ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	rxe_ring_unmap(&cq->ring);
	free(cq);
	return 0;
}

/*
 * The attributes are checked once for every backend (core/attr.c); single
 * threaded use and parent domains are userspace notions the kernel never
 * sees.
 */
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ibctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_init_attr_ex kattr = *attr;
	struct rxe_cq *cq;
	bool single;
	int ret;

	ret = db_cq_attr_check(ibctx, attr, &single);
	if (ret) {
		errno = ret;
		return NULL;
	}
	kattr.comp_mask = 0;
	kattr.flags = 0;
	kattr.parent_domain = NULL;
	cq = rxe_cq_new(ibctx, &kattr, single);
	if (!cq)
		return NULL;
	rxe_cq_set_ex_ops(cq, attr->wc_flags);
	return &cq->vcq.cq_ex;
}
