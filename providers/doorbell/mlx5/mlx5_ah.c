// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD address handles: the address vector a UD send WQE carries, built
 * here.  InfiniBand needs no kernel command; RoCE asks the kernel for the
 * destination MAC.  post_send fills in the remote QPN and Q_Key per WR.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5/mlx5.h"

/* The device's static-rate codes (IBTA 1.3 table 224, best effort). */
static uint8_t m5_rate(enum ibv_rate rate)
{
	switch (rate) {
	case IBV_RATE_2_5_GBPS:
		return 7;
	case IBV_RATE_10_GBPS:
		return 8;
	case IBV_RATE_25_GBPS:
	case IBV_RATE_28_GBPS:
	case IBV_RATE_30_GBPS:
		return 9;
	case IBV_RATE_5_GBPS:
		return 10;
	case IBV_RATE_14_GBPS:
	case IBV_RATE_20_GBPS:
		return 11;
	case IBV_RATE_40_GBPS:
		return 12;
	case IBV_RATE_50_GBPS:
	case IBV_RATE_56_GBPS:
	case IBV_RATE_60_GBPS:
		return 13;
	case IBV_RATE_80_GBPS:
		return 14;
	case IBV_RATE_100_GBPS:
	case IBV_RATE_112_GBPS:
	case IBV_RATE_120_GBPS:
		return 15;
	default:
		return 0; /* no limit */
	}
}

/*
 * Link layer, GRH requirement and GID table length of a port, cached at
 * open for 1 and 2.
 */
static int m5_ah_port(struct m5_context *ctx, uint8_t port, bool *is_eth,
		      bool *grh_req, int *gids)
{
	union db_port_attr pattr = {}; /* 56 bytes from rdma-core 49 */
	int ret;

	if (port < 1 || port > ctx->num_ports)
		return EINVAL;
	if (port <= 2 && ctx->link_layer[port - 1]) {
		*is_eth = ctx->link_layer[port - 1] == IBV_LINK_LAYER_ETHERNET;
		*grh_req = ctx->port_flags[port - 1] & IBV_QPF_GRH_REQUIRED;
		*gids = ctx->gid_tbl_len[port - 1];
		return 0;
	}
	ret = db_k_query_port(&ctx->core.vctx.context, port, &pattr.attr);
	if (ret)
		return ret;
	*is_eth = pattr.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	*grh_req = pattr.attr.flags & IBV_QPF_GRH_REQUIRED;
	*gids = pattr.attr.gid_tbl_len;
	return 0;
}

static void m5_av_ib(struct m5_av *av, const struct ibv_ah_attr *attr,
		     uint8_t rate)
{
	av->fl_mlid = attr->src_path_bits & 0x7f;
	av->rlid = htobe16(attr->dlid);
	av->stat_rate_sl = rate << 4 | (attr->sl & 0xf);
}

/*
 * RoCE v2 carries a UDP source port where IB has the LID: from the flow
 * label when there is one, else any port of the RoCE range.
 */
/*
 * RoCE v2 UDP source ports for AHs without a flow label: spread over the
 * 14 bits ECMP hashes on, from a counter of our own (not random(), whose
 * stream belongs to the application).
 */
static uint16_t m5_next_sport(void)
{
	static atomic_uint next;

	return atomic_fetch_add_explicit(&next, 0x9e37, memory_order_relaxed) &
	       0x3fff;
}

static int m5_av_roce(struct ibv_context *ibctx, struct m5_av *av,
		      const struct ibv_ah_attr *attr, uint8_t rate)
{
	uint32_t fl = attr->grh.flow_label & IB_GRH_FLOWLABEL_MASK;
	enum ibv_gid_type type;
	uint16_t sport;
	int ret;

	ret = m5k_query_gid_type(ibctx, attr->port_num, attr->grh.sgid_index,
				 &type);
	if (ret)
		return ret;
	if (type == IBV_GID_TYPE_ROCE_V2) {
		sport = fl ? ibv_flow_label_to_udp_sport(fl)
			   : (uint16_t)(IB_ROCE_UDP_ENCAP_VALID_PORT_MIN |
					m5_next_sport());
		av->rlid = htobe16(sport);
	}
	av->stat_rate_sl = rate << 4 | (attr->sl & 0x7) << 1;
	return 0;
}

/* RoCE packets always carry a GRH, so its AV bit stays clear there. */
static void m5_av_grh(struct m5_av *av, const struct ibv_ah_attr *attr,
		      bool is_eth)
{
	av->tclass = attr->grh.traffic_class;
	av->hop_limit = attr->grh.hop_limit;
	av->grh_gid_fl = htobe32(
		(uint32_t)!is_eth << 30 | (uint32_t)attr->grh.sgid_index << 20 |
		(attr->grh.flow_label & IB_GRH_FLOWLABEL_MASK));
	memcpy(av->rgid, attr->grh.dgid.raw, sizeof(av->rgid));
}

static int m5_ah_roce_kernel(struct ibv_pd *pd, struct m5_ah *ah,
			     struct ibv_ah_attr *attr)
{
	struct mlx5_ib_create_ah_resp resp = {};
	int ret;

	ret = m5k_create_ah(pd, &ah->ibv_ah, attr, &resp);
	if (ret)
		return ret;
	memcpy(ah->av.rmac, resp.dmac, sizeof(ah->av.rmac));
	ah->kern_ah = true;
	return 0;
}

struct ibv_ah *m5_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct m5_context *ctx = to_m5_ctx(pd->context);
	bool is_eth, grh_req;
	struct m5_ah *ah;
	uint8_t rate;
	int gids, ret;

	ret = m5_ah_port(ctx, attr->port_num, &is_eth, &grh_req, &gids);
	if (!ret && !attr->is_global && (is_eth || grh_req))
		ret = EINVAL;
	/* An IB AH asks the kernel nothing: the source GID is checked here. */
	if (!ret && attr->is_global && attr->grh.sgid_index >= gids)
		ret = EINVAL;
	/* Without the kernel's answer there is no destination MAC. */
	if (!ret && is_eth &&
	    !(ctx->cmds_supp_uhw & MLX5_USER_CMDS_SUPP_UHW_CREATE_AH))
		ret = EOPNOTSUPP;
	if (ret)
		goto err;
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		ret = ENOMEM;
		goto err;
	}
	/* libibverbs sets these too; an IB AH has no command that would. */
	ah->ibv_ah.context = pd->context;
	ah->ibv_ah.pd = pd;
	rate = m5_rate(attr->static_rate);
	if (is_eth)
		ret = m5_av_roce(pd->context, &ah->av, attr, rate);
	else
		m5_av_ib(&ah->av, attr, rate);
	if (attr->is_global)
		m5_av_grh(&ah->av, attr, is_eth);
	if (!ret && is_eth)
		ret = m5_ah_roce_kernel(pd, ah, attr);
	if (ret) {
		free(ah);
		goto err;
	}
	return &ah->ibv_ah;
err:
	errno = ret;
	return NULL;
}

int m5_destroy_ah(struct ibv_ah *ibah)
{
	struct m5_ah *ah = to_m5_ah(ibah);
	int ret;

	if (ah->kern_ah) {
		ret = m5k_destroy_ah(ibah);
		if (ret)
			return ret;
	}
	free(ah);
	return 0;
}
