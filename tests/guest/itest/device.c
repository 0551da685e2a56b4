// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Device, port and QP queries. */
#include <string.h>

#include "harness.h"

static int query_device_reports_sane_limits(struct it_test *t, long arg)
{
	struct ibv_device_attr a;
	int ret;

	ret = ibv_query_device(t->env->ctx, &a);
	IT_EXPECT(t, !ret, "ibv_query_device returned %d", ret);
	IT_EXPECT(t, a.phys_port_cnt >= 1, "phys_port_cnt %u", a.phys_port_cnt);
	IT_EXPECT(t, a.max_qp > 0, "max_qp %d", a.max_qp);
	IT_EXPECT(t, a.max_qp_wr > 0, "max_qp_wr %d", a.max_qp_wr);
	IT_EXPECT(t, a.max_sge > 0, "max_sge %d", a.max_sge);
	IT_EXPECT(t, a.max_cq > 0 && a.max_cqe > 0, "max_cq %d max_cqe %d",
		  a.max_cq, a.max_cqe);
	IT_EXPECT(t, a.max_mr > 0 && a.max_pd > 0, "max_mr %d max_pd %d",
		  a.max_mr, a.max_pd);
	IT_EXPECT(t, a.max_srq > 0 && a.max_srq_wr > 0 && a.max_srq_sge > 0,
		  "max_srq %d max_srq_wr %d max_srq_sge %d", a.max_srq,
		  a.max_srq_wr, a.max_srq_sge);
	IT_EXPECT(t, a.max_qp_rd_atom > 0, "max_qp_rd_atom %d",
		  a.max_qp_rd_atom);
	IT_EXPECT(t, a.atomic_cap != IBV_ATOMIC_NONE,
		  "atomic_cap is IBV_ATOMIC_NONE");
	IT_EXPECT(t,
		  a.fw_ver[sizeof(a.fw_ver) - 1] == '\0' &&
			  strlen(a.fw_ver) > 0,
		  "fw_ver is not a string");
	IT_EXPECT(t, a.max_qp_wr == t->env->dev.max_qp_wr,
		  "max_qp_wr changed between queries: %d, then %d",
		  t->env->dev.max_qp_wr, a.max_qp_wr);
	return IT_PASS;
}

static int query_port_reports_active_port_of_its_link_layer(struct it_test *t,
							    long arg)
{
	struct ibv_port_attr p;
	int ret;

	ret = ibv_query_port(t->env->ctx, t->env->port, &p);
	IT_EXPECT(t, !ret, "ibv_query_port returned %d", ret);
	IT_EXPECT(t, p.state == IBV_PORT_ACTIVE, "port state %s (%d)",
		  ibv_port_state_str(p.state), p.state);
	/* rxe runs over Ethernet; a ConnectX port is InfiniBand or Ethernet. */
	IT_EXPECT(t,
		  p.link_layer == IBV_LINK_LAYER_ETHERNET ||
			  (it_backend(t->env) == IT_MLX5 &&
			   p.link_layer == IBV_LINK_LAYER_INFINIBAND),
		  "link_layer %u, expected Ethernet%s", p.link_layer,
		  it_backend(t->env) == IT_MLX5 ? " or InfiniBand" : "");
	IT_EXPECT(t,
		  p.active_mtu >= IBV_MTU_256 && p.active_mtu <= IBV_MTU_4096 &&
			  p.active_mtu <= p.max_mtu,
		  "active_mtu %d max_mtu %d", p.active_mtu, p.max_mtu);
	IT_EXPECT(t, p.gid_tbl_len > t->env->gidx,
		  "gid_tbl_len %d does not cover GID index %d", p.gid_tbl_len,
		  t->env->gidx);
	IT_EXPECT(t, p.pkey_tbl_len >= 1, "pkey_tbl_len %u", p.pkey_tbl_len);
	IT_EXPECT(t, p.max_msg_sz >= (1u << 20), "max_msg_sz %u", p.max_msg_sz);
	return IT_PASS;
}

static int query_gid_at_index_is_set(struct it_test *t, long arg)
{
	static const union ibv_gid zero;
	union ibv_gid g;
	int ret;

	ret = ibv_query_gid(t->env->ctx, t->env->port, t->env->gidx, &g);
	IT_EXPECT(t, !ret, "ibv_query_gid(%d) returned %d", t->env->gidx, ret);
	IT_EXPECT(t, memcmp(&g, &zero, sizeof(g)), "GID index %d is all zero",
		  t->env->gidx);
	return IT_PASS;
}

static int check_caps(struct it_test *t, const struct ibv_qp_cap *got,
		      const struct it_qp_attr *want, const char *what)
{
	IT_EXPECT(t,
		  got->max_send_wr >= want->send_wr &&
			  got->max_recv_wr >= want->recv_wr &&
			  got->max_send_sge >= want->send_sge &&
			  got->max_recv_sge >= want->recv_sge &&
			  got->max_inline_data >= want->inline_data,
		  "%s caps %u/%u wr %u/%u sge %u inline below the requested "
		  "%u/%u wr %u/%u sge %u inline",
		  what, got->max_send_wr, got->max_recv_wr, got->max_send_sge,
		  got->max_recv_sge, got->max_inline_data, want->send_wr,
		  want->recv_wr, want->send_sge, want->recv_sge,
		  want->inline_data);
	return IT_PASS;
}

static int query_qp(struct it_test *t, struct it_ep *ep, struct ibv_qp_attr *qa,
		    struct ibv_qp_init_attr *ia)
{
	int mask = IBV_QP_STATE | IBV_QP_CAP | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN |
		   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	int ret;

	memset(qa, 0, sizeof(*qa));
	memset(ia, 0, sizeof(*ia));
	ret = ibv_query_qp(ep->qp, qa, mask, ia);
	IT_EXPECT(t, !ret, "ibv_query_qp returned %d", ret);
	return IT_PASS;
}

static int query_qp_reports_state_and_caps(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct it_ep a, b;

	attr.send_wr = 33;
	attr.recv_wr = 17;
	attr.send_sge = 3;
	attr.recv_sge = 2;
	attr.inline_data = 100;
	if (it_ep_new(t, &a, &attr) || it_ep_new(t, &b, &attr))
		return IT_FAIL;
	if (check_caps(t, &a.cap, &attr, "created"))
		return IT_FAIL;

	it_where(t, "RESET");
	if (query_qp(t, &a, &qa, &ia))
		return IT_FAIL;
	IT_EXPECT(t, qa.qp_state == IBV_QPS_RESET, "qp_state %d", qa.qp_state);
	IT_EXPECT(t, a.qp->state == IBV_QPS_RESET, "qp->state %d", a.qp->state);

	if (it_ep_bring_up(t, &a, IBV_QPS_INIT, b.qp->qp_num))
		return IT_FAIL;
	it_where(t, "INIT");
	if (query_qp(t, &a, &qa, &ia))
		return IT_FAIL;
	IT_EXPECT(t, qa.qp_state == IBV_QPS_INIT, "qp_state %d", qa.qp_state);
	IT_EXPECT(t, qa.port_num == t->env->port, "port_num %u", qa.port_num);

	if (it_ep_modify(t, &a, IBV_QPS_RTR, b.qp->qp_num) ||
	    it_ep_modify(t, &a, IBV_QPS_RTS, b.qp->qp_num))
		return IT_FAIL;
	it_where(t, "RTS");
	if (query_qp(t, &a, &qa, &ia))
		return IT_FAIL;
	IT_EXPECT(t, qa.qp_state == IBV_QPS_RTS, "qp_state %d", qa.qp_state);
	IT_EXPECT(t, a.qp->state == IBV_QPS_RTS, "qp->state %d", a.qp->state);
	IT_EXPECT(t, qa.path_mtu == t->env->port_attr.active_mtu,
		  "path_mtu %d, expected %d", qa.path_mtu,
		  t->env->port_attr.active_mtu);
	IT_EXPECT(t, qa.dest_qp_num == b.qp->qp_num,
		  "dest_qp_num 0x%x, expected 0x%x", qa.dest_qp_num,
		  b.qp->qp_num);
	IT_EXPECT(t, qa.sq_psn == it_psn(a.qp->qp_num),
		  "sq_psn 0x%x, expected 0x%x", qa.sq_psn,
		  it_psn(a.qp->qp_num));
	IT_EXPECT(t, qa.rq_psn == it_psn(b.qp->qp_num),
		  "rq_psn 0x%x, expected 0x%x", qa.rq_psn,
		  it_psn(b.qp->qp_num));
	IT_EXPECT(t, qa.qp_access_flags & IBV_ACCESS_REMOTE_WRITE,
		  "qp_access_flags 0x%x lack REMOTE_WRITE", qa.qp_access_flags);
	if (check_caps(t, &qa.cap, &attr, "queried") ||
	    check_caps(t, &ia.cap, &attr, "queried init_attr"))
		return IT_FAIL;
	IT_EXPECT(t, ia.qp_type == IBV_QPT_RC, "init_attr.qp_type %d",
		  ia.qp_type);
	IT_EXPECT(t, ia.send_cq == a.scq && ia.recv_cq == a.rcq,
		  "init_attr CQs are not the QP's");
	IT_EXPECT(t, ia.sq_sig_all == 1, "init_attr.sq_sig_all %d",
		  ia.sq_sig_all);
	return IT_PASS;
}

const struct it_case it_cases_device[] = {
	{ "query_device_reports_sane_limits", query_device_reports_sane_limits,
	  0 },
	{ "query_port_reports_active_port_of_its_link_layer",
	  query_port_reports_active_port_of_its_link_layer, 0 },
	{ "query_gid_at_index_is_set", query_gid_at_index_is_set, 0 },
	{ "query_qp_reports_state_and_caps", query_qp_reports_state_and_caps,
	  0 },
	{ NULL, NULL, 0 },
};
