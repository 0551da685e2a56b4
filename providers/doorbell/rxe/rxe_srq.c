// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Shared receive queues of the rxe backend. */
#include <errno.h>
#include <stdlib.h>

#include "core/attr.h"
#include "rxe/rxe.h"

static size_t rxe_srq_slot_min(uint32_t max_sge)
{
	return sizeof(struct rxe_recv_wqe) +
	       (size_t)max_sge * sizeof(struct rxe_sge);
}

struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ibctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_create_xsrq cmd = {};
	struct rxe_cmd_create_srq_resp resp = {};
	struct rxe_srq *srq;
	int ret;

	ret = db_srq_attr_check(ibctx, attr);
	if (ret)
		goto err;
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		ret = ENOMEM;
		goto err;
	}
	ret = db_lib.ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd,
					   sizeof(cmd), &resp.ibv,
					   sizeof(resp));
	if (ret)
		goto err_free;
	ret = rxe_ring_map(&srq->rq.ring, ibctx->cmd_fd, &resp.drv.mi,
			   rxe_srq_slot_min(attr->attr.max_sge), true);
	if (ret)
		goto err_destroy;
	srq->rq.max_sge = attr->attr.max_sge;
	srq->srq_num = resp.drv.srq_num;
	db_lock_init(&srq->rq.lock, db_need_lock(attr->pd));
	return &srq->vsrq.srq;

err_destroy:
	db_lib.ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
err:
	errno = ret;
	return NULL;
}

/*
 * Resizing makes the kernel copy the posted WQEs to a new ring and write its
 * mmap info to the address in the command's driver data.
 */
int rxe_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct rxe_srq *srq = to_rxe_srq(ibsrq);
	struct rxe_cmd_modify_srq cmd = {};
	struct mminfo mi = {};
	struct rxe_ring ring = {};
	int ret;

	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	cmd.drv.mmap_info_addr = (uintptr_t)&mi;
	db_lock(&srq->rq.lock);
	ret = db_lib.ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd.ibv,
					sizeof(cmd));
	if (ret || !(mask & IBV_SRQ_MAX_WR))
		goto out;
	ret = rxe_ring_map(&ring, ibsrq->context->cmd_fd, &mi,
			   rxe_srq_slot_min(srq->rq.max_sge), true);
	if (ret)
		goto out;
	rxe_ring_unmap(&srq->rq.ring);
	srq->rq.ring = ring;
	srq->rq.room = 0;
out:
	db_unlock(&srq->rq.lock);
	return ret;
}

int rxe_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return db_lib.ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int rxe_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rxe_srq *srq = to_rxe_srq(ibsrq);
	int ret;

	ret = db_lib.ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	rxe_ring_unmap(&srq->rq.ring);
	free(srq);
	return 0;
}
