// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Verbs plumbing the mlx5 model tests share (m5t_verbs.h). */
#include <string.h>

#include "m5t_verbs.h"

static int m5t_rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

int m5t_rc_connect(struct m5m_dev *dev, struct ibv_qp *qp, uint32_t dest,
		   uint8_t rnr_retry)
{
	struct ibv_port_attr pa;
	struct ibv_qp_attr a;

	if (m5t_rc_init(qp) || ibv_query_port(qp->context, 1, &pa))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest,
		.max_dest_rd_atomic = 1,
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
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = rnr_retry,
		.max_rd_atomic = 1,
	};
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
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
