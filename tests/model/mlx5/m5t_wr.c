// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Verbs WR lists through the ibv_wr_* API (m5t_wr.h). */
#include <stdio.h>

#include "m5t_wr.h"

#define M5T_WR_MAX_BUFS 64

static bool m5t_wr_builder(struct ibv_qp_ex *qpx, const struct ibv_send_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND:
		ibv_wr_send(qpx);
		return true;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(qpx, wr->imm_data);
		return true;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(qpx, wr->wr.rdma.rkey,
				  wr->wr.rdma.remote_addr);
		return true;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(qpx, wr->wr.rdma.rkey,
				      wr->wr.rdma.remote_addr, wr->imm_data);
		return true;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qpx, wr->wr.rdma.rkey,
				 wr->wr.rdma.remote_addr);
		return true;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ibv_wr_atomic_cmp_swp(
			qpx, wr->wr.atomic.rkey, wr->wr.atomic.remote_addr,
			wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		return true;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ibv_wr_atomic_fetch_add(qpx, wr->wr.atomic.rkey,
					wr->wr.atomic.remote_addr,
					wr->wr.atomic.compare_add);
		return true;
	case IBV_WR_ATOMIC_WRITE: /* the 8 bytes at the first SGE */
		ibv_wr_atomic_write(
			qpx, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr,
			(const void *)(uintptr_t)wr->sg_list[0].addr);
		return true;
	case IBV_WR_LOCAL_INV:
		ibv_wr_local_inv(qpx, wr->invalidate_rkey);
		return true;
	case IBV_WR_SEND_WITH_INV:
		ibv_wr_send_inv(qpx, wr->invalidate_rkey);
		return true;
	case IBV_WR_BIND_MW:
		ibv_wr_bind_mw(qpx, wr->bind_mw.mw, wr->bind_mw.rkey,
			       &wr->bind_mw.bind_info);
		return true;
	case IBV_WR_TSO:
		ibv_wr_send_tso(qpx, wr->tso.hdr, wr->tso.hdr_sz, wr->tso.mss);
		return true;
	default:
		return false;
	}
}

static void m5t_wr_data(struct ibv_qp_ex *qpx, const struct ibv_send_wr *wr)
{
	struct ibv_data_buf buf[M5T_WR_MAX_BUFS];
	int i;

	if (wr->num_sge < 0) {
		ibv_wr_set_sge_list(qpx, (size_t)wr->num_sge, wr->sg_list);
	} else if (wr->send_flags & IBV_SEND_INLINE) {
		if (wr->num_sge == 1) {
			ibv_wr_set_inline_data(
				qpx, (void *)(uintptr_t)wr->sg_list[0].addr,
				wr->sg_list[0].length);
			return;
		}
		for (i = 0; i < wr->num_sge && i < M5T_WR_MAX_BUFS; i++)
			buf[i] = (struct ibv_data_buf){
				.addr = (void *)(uintptr_t)wr->sg_list[i].addr,
				.length = wr->sg_list[i].length,
			};
		ibv_wr_set_inline_data_list(qpx, (size_t)i, buf);
	} else if (wr->num_sge == 1) {
		ibv_wr_set_sge(qpx, wr->sg_list[0].lkey, wr->sg_list[0].addr,
			       wr->sg_list[0].length);
	} else if (wr->num_sge) {
		ibv_wr_set_sge_list(qpx, (size_t)wr->num_sge, wr->sg_list);
	}
}

bool m5t_wr_one(struct ibv_qp_ex *qpx, const struct ibv_send_wr *wr)
{
	bool ud = qpx->qp_base.qp_type == IBV_QPT_UD;

	qpx->wr_id = wr->wr_id;
	qpx->wr_flags = wr->send_flags;
	if (!m5t_wr_builder(qpx, wr))
		return false;
	/* The setters may come in either order: alternate. */
	if (ud && !(wr->wr_id & 1))
		ibv_wr_set_ud_addr(qpx, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				   wr->wr.ud.remote_qkey);
	m5t_wr_data(qpx, wr);
	if (ud && (wr->wr_id & 1))
		ibv_wr_set_ud_addr(qpx, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				   wr->wr.ud.remote_qkey);
	return true;
}

int m5t_wr_post(struct ibv_qp *qp, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_send_wr *w;
	int ret;

	if (!qpx) {
		printf("    QP 0x%x has no ibv_wr_* API\n", qp->qp_num);
		*bad = wr;
		return -1;
	}
	ibv_wr_start(qpx);
	for (w = wr; w; w = w->next) {
		if (!m5t_wr_one(qpx, w)) {
			printf("    opcode %d has no ibv_wr_* builder\n",
			       w->opcode);
			ibv_wr_abort(qpx);
			*bad = w;
			return -1;
		}
	}
	ret = ibv_wr_complete(qpx);
	if (ret)
		*bad = wr;
	return ret;
}
