// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What QUERY_HCA_CAP answers for an Ethernet port, over the InfiniBand
 * function's values (cx_caps.c).  mlx5_core adds mlx5e's auxiliary device
 * only when mlx5_eth_supported() (dev.c) finds port_type Ethernet,
 * eth_net_offloads, nic_flow_table, the ETHERNET_OFFLOADS bits csum_cap,
 * max_lso_cap, vlan_cap, rss_ind_tbl_cap and a NIC receive max_ft_level
 * of at least 3; mlx5_query_hca_caps() (fw.c) reads the two extra pages
 * because of the first two bits.  These are gates: no frame moves yet, so
 * checksum, LSO and VLAN insertion are debts of the data path (issue #32).
 * roce is 1, with the ROCE page (type 4): mlx5_ib then takes its RoCE
 * profile, enables RoCE in the NIC vport context (roce_en) and writes
 * each GID the core's table gets into the device's (SET_ROCE_ADDRESS,
 * cx_eth_roce.c).  No eswitch_manager,
 * vport_group_manager, pcam_reg, mcam_reg: their commands are not here.
 * Bit offsets from Linux 6.1's mlx5_ifc.h (sim/mlx5/pci/ifc-offsets.py).
 */
#include <stddef.h>

#include "cx_eth.h"

enum {
	CAP_GENERAL = 0,
	CAP_ETHERNET_OFFLOADS = 1, /* MLX5_CAP_ETHERNET_OFFLOADS */
	CAP_ROCE = 4,		   /* MLX5_CAP_ROCE */
	CAP_FLOW_TABLE = 7,	   /* MLX5_CAP_FLOW_TABLE */
	/* roce_cap: MLX5_ROCE_L3_TYPE_IPV4_CAP | _IPV6_CAP, and
	 * MLX5_ROCE_VERSION_2_CAP only: the engine frames RoCE v2 alone
	 * (cx_roce.c), so mlx5_ib adds no RoCE v1 GID */
	ROCE_L3_TYPES = 1 << 1 | 1 << 2,
	ROCE_VERSIONS = 1 << 2,
	ROCE_UDP_PORT = 4791, /* RoCE v2's destination port (IANA) */
	/* the source ports RoCE v2 picks from, as a ConnectX's */
	ROCE_MIN_SRC_PORT = 0xc000,
	ROCE_MAX_SRC_PORT = 0xffff,
	PORT_TYPE_ETH = 1,	      /* MLX5_CAP_PORT_TYPE_ETH */
	INLINE_MODE_NOT_REQUIRED = 2, /* MLX5_CAP_INLINE_MODE_NOT_REQUIRED */
};

/* struct mlx5_ifc_cmd_hca_cap_bits */
static const struct cx_cap general[] = {
	{ 0x1a6, 0x01, false, 1 },	       /* nic_flow_table */
	{ 0x1b6, 0x02, false, PORT_TYPE_ETH }, /* port_type */
	{ 0x21c, 0x01, false, 1 },	       /* eth_net_offloads */
	{ 0x21d, 0x01, false, 1 },	       /* roce */
	/* the objects of cx_eth_tir.c, cx_eth_rq.c */
	{ 0x363, 0x05, false, CX_ETH_LOG_MAX_RQ },	 /* log_max_rq */
	{ 0x373, 0x05, false, CX_ETH_LOG_MAX_TIR },	 /* log_max_tir */
	{ 0x37b, 0x05, false, CX_ETH_LOG_MAX_TIS },	 /* log_max_tis */
	{ 0x38b, 0x05, false, CX_ETH_LOG_MAX_RQT },	 /* log_max_rqt */
	{ 0x393, 0x05, false, CX_ETH_LOG_MAX_RQT_SIZE }, /* ..rqt_size */
	{ 0x3db, 0x05, false, CX_ETH_LOG_MAX_WQ_SZ },	 /* log_max_wq_sz */
	/* the allowed lists of the NIC vport context (cx_eth_vport.c) */
	{ 0x3eb, 0x05, false,
	  CX_ETH_LOG_MAX_VLAN_LIST },			/* log_max_vlan_list */
	{ 0x3f3, 0x05, false, CX_ETH_LOG_MAX_MC_LIST }, /* ..current_mc_list */
	{ 0x3fb, 0x05, false, CX_ETH_LOG_MAX_UC_LIST }, /* ..current_uc_list */
};

/* struct mlx5_ifc_per_protocol_networking_offload_caps_bits */
static const struct cx_cap offloads[] = {
	{ 0x000, 0x01, false, 1 },  /* csum_cap */
	{ 0x001, 0x01, false, 1 },  /* vlan_cap */
	{ 0x00b, 0x05, false, 16 }, /* max_lso_cap: 64 KiB */
	/* the SQ need not hold inline headers: no MODIFY/QUERY of
	 * min_wqe_inline_mode in the NIC vport context */
	{ 0x012, 0x02, false, INLINE_MODE_NOT_REQUIRED }, /* wqe_inline_mode */
	{ 0x014, 0x04, false, 8 },			  /* rss_ind_tbl_cap */
};

/* struct mlx5_ifc_roce_cap_bits: no sw_r_roce_src_udp_port to set, no
 * APM, QP time stamps free running only (qp_ts_format 0). */
static const struct cx_cap roce[] = {
	{ 0x08c, 0x04, false, ROCE_L3_TYPES },	   /* l3_type */
	{ 0x098, 0x08, false, ROCE_VERSIONS },	   /* roce_version */
	{ 0x0b0, 0x10, false, ROCE_UDP_PORT },	   /* r_roce_dest_udp_port */
	{ 0x0c0, 0x10, false, ROCE_MAX_SRC_PORT }, /* ..max_src_udp_port */
	{ 0x0d0, 0x10, false, ROCE_MIN_SRC_PORT }, /* ..min_src_udp_port */
	{ 0x0f0, 0x10, false, CX_ETH_ROCE_GIDS },  /* ..address_table_size */
};

/*
 * struct mlx5_ifc_flow_table_nic_cap_bits: NIC receive tables only
 * (flow_table_properties_nic_receive at 0x200), which may be made the
 * root (modify_root); no chaining caps (flow_modify_en,
 * identified_miss_table_mode, flow_table_modify), so fs_core.c makes no
 * bypass, LAG, offloads or ethtool priorities; no counters, reformat,
 * decap, modify header.
 */
static const struct cx_cap flow_table[] = {
	{ 0x200, 0x01, false, 1 },			/* ft_support */
	{ 0x204, 0x01, false, 1 },			/* modify_root */
	{ 0x222, 0x06, false, CX_ETH_LOG_MAX_FT_SIZE }, /* log_max_ft_size */
	{ 0x238, 0x08, false, CX_ETH_MAX_FT_LEVEL },	/* max_ft_level */
	{ 0x278, 0x08, false, CX_ETH_LOG_MAX_FT_NUM },	/* log_max_ft_num */
	{ 0x298, 0x08, false, CX_ETH_LOG_MAX_DEST }, /* log_max_destination */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct cx_cap *cx_eth_caps(uint32_t type, unsigned int *n)
{
	switch (type) {
	case CAP_GENERAL:
		*n = N(general);
		return general;
	case CAP_ETHERNET_OFFLOADS:
		*n = N(offloads);
		return offloads;
	case CAP_ROCE:
		*n = N(roce);
		return roce;
	case CAP_FLOW_TABLE:
		*n = N(flow_table);
		return flow_table;
	}
	*n = 0;
	return NULL;
}
