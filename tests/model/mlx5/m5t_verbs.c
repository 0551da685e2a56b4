// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Verbs plumbing the mlx5 model tests share (m5t_verbs.h). */
#include <poll.h>
#include <string.h>

#include "check.h"
#include "m5t_verbs.h"

int m5t_rc_up(struct m5m_dev *dev, struct ibv_qp *qp, uint32_t dest,
	      const struct m5t_rc_cfg *c)
{
	struct ibv_port_attr pa;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = c->access,
	};

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS) ||
	    ibv_query_port(qp->context, 1, &pa))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = c->mtu,
		.dest_qp_num = dest,
		.rq_psn = c->rq_psn,
		.max_dest_rd_atomic = c->no_dest_rd_atomic ? 0 : 1,
		.min_rnr_timer = 1,
		.ah_attr = { .dlid = m5m_port_lid(dev, 1), .port_num = 1 },
	};
	/* RoCE: the path is a GRH to the port's own GID. */
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.hop_limit = 64;
		m5m_port_gid(dev, 1, &a.ah_attr.grh.dgid);
	}
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.sq_psn = c->sq_psn,
		.timeout = c->own_retry ? c->timeout : 14,
		.retry_cnt = c->own_retry ? c->retry_cnt : 7,
		.rnr_retry = c->rnr_retry,
		.max_rd_atomic = 1,
	};
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int m5t_rc_connect(struct m5m_dev *dev, struct ibv_qp *qp, uint32_t dest,
		   uint8_t rnr_retry)
{
	struct m5t_rc_cfg c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.mtu = IBV_MTU_1024,
		.rnr_retry = rnr_retry,
	};

	return m5t_rc_up(dev, qp, dest, &c);
}

int m5t_rc_pair(struct m5m_dev *dev, struct ibv_qp *a, struct ibv_qp *b,
		uint8_t rnr_retry)
{
	if (m5t_rc_connect(dev, a, b->qp_num, rnr_retry) ||
	    m5t_rc_connect(dev, b, a->qp_num, rnr_retry))
		return -1;
	return 0;
}

struct ibv_qp *m5t_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			 struct ibv_srq *srq, uint32_t wrs, uint32_t sges)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wrs,
			 .max_recv_wr = srq ? 0 : wrs,
			 .max_send_sge = sges,
			 .max_recv_sge = srq ? 0 : sges },
	};

	return ibv_create_qp(pd, &qa);
}

bool m5t_fd_ready(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

int m5t_ud_up(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qkey = qkey };

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

int m5t_poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i, n = 0;

	for (i = 0; i < 10; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
	}
	return n;
}

void m5t_dev_close(struct m5m_dev *dev, struct ibv_context *ctx)
{
	if (ctx)
		CHECK_EQ(ibv_close_device(ctx), 0);
	if (dev) {
		CHECK_EQ(m5m_violations(dev), 0);
		m5m_dev_destroy(dev);
	}
}
