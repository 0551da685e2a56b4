/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fields of the Ethernet port's commands (cx_eth*.c), as cx_ifc.h: (bit
 * offset, width) from Linux 6.1's mlx5_ifc.h by ifc-offsets.py; B_ are
 * byte offsets.  The flow-table commands share their header: table_type,
 * other_vport, vport_number, table_id at the same places.
 */
#ifndef DOORBELL_TESTS_CX_ETH_IFC_H
#define DOORBELL_TESTS_CX_ETH_IFC_H

/* create/destroy/modify_flow_table_in, set_flow_table_root_in,
 * create/destroy_flow_group_in, set_fte_in, delete_fte_in */
#define F_FT_IN_OTHER_VPORT  0x40, 0x1
#define F_FT_IN_VPORT_NUMBER 0x50, 0x10
#define F_FT_IN_TABLE_TYPE   0x80, 0x8
#define F_FT_IN_TABLE_ID     0xa8, 0x18 /* not in create_flow_table_in */
#define FT_IN_BYTES	     0x40	/* the shortest of them */

/* create_flow_table_in.flow_table_context (and modify_flow_table_in's) */
#define F_FTC_REFORMAT_EN			   0xc0, 0x1
#define F_FTC_DECAP_EN				   0xc1, 0x1
#define F_FTC_TERMINATION_TABLE			   0xc3, 0x1
#define F_FTC_TABLE_MISS_ACTION			   0xc4, 0x4
#define F_FTC_LEVEL				   0xc8, 0x8
#define F_FTC_LOG_SIZE				   0xd8, 0x8
#define F_FTC_TABLE_MISS_ID			   0xe8, 0x18
#define F_CREATE_FLOW_TABLE_OUT_TABLE_ID	   0x48, 0x18
#define F_MODIFY_FLOW_TABLE_IN_MODIFY_FIELD_SELECT 0x70, 0x10
#define F_SET_FLOW_TABLE_ROOT_IN_UNDERLAY_QPN	   0xc8, 0x18

/* create_flow_group_in, destroy_flow_group_in */
#define F_CREATE_FLOW_GROUP_IN_START_FLOW_INDEX	     0xe0, 0x20
#define F_CREATE_FLOW_GROUP_IN_END_FLOW_INDEX	     0x120, 0x20
#define F_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA_ENABLE 0x1f8, 0x8
#define CREATE_FLOW_GROUP_IN_BYTES		     0x400
#define F_CREATE_FLOW_GROUP_OUT_GROUP_ID	     0x48, 0x18
#define F_DESTROY_FLOW_GROUP_IN_GROUP_ID	     0xc0, 0x20

/* set_fte_in (flow_context at 0x200), delete_fte_in */
#define F_FTE_IN_FLOW_INDEX	     0x100, 0x20
#define F_FTE_GROUP_ID		     0x220, 0x20
#define F_FTE_ACTION		     0x270, 0x10
#define F_FTE_DESTINATION_LIST_SIZE  0x288, 0x18
#define F_FTE_FLOW_COUNTER_LIST_SIZE 0x2a8, 0x18
#define B_SET_FTE_IN_DESTINATION     0x340 /* dest_format_struct[] */
#define DEST_BYTES		     8
#define F_DEST_TYPE		     0x0, 0x8
#define F_DEST_ID		     0x8, 0x18

/* query/modify_nic_vport_context_in and nic_vport_context */
#define F_VPORT_IN_OTHER_VPORT		       0x40, 0x1
#define F_VPORT_IN_VPORT_NUMBER		       0x50, 0x10
#define F_QUERY_NIC_VPORT_IN_ALLOWED_LIST_TYPE 0x65, 0x3
#define F_MODIFY_NIC_VPORT_IN_FIELD_SELECT     0x60, 0x20
#define B_QUERY_NIC_VPORT_OUT_CONTEXT	       0x10
#define B_MODIFY_NIC_VPORT_IN_CONTEXT	       0x100
#define NIC_VPORT_CONTEXT_BYTES		       0x100 /* then the list */
#define F_NVC_ROCE_EN			       0x1f, 0x1
#define F_NVC_MTU			       0x130, 0x10
#define B_NVC_SYSTEM_IMAGE_GUID		       0x28
#define B_NVC_PORT_GUID			       0x30
#define B_NVC_NODE_GUID			       0x38
#define F_NVC_PROMISC_UC		       0x780, 0x1
#define F_NVC_PROMISC_MC		       0x781, 0x1
#define F_NVC_PROMISC_ALL		       0x782, 0x1
#define F_NVC_ALLOWED_LIST_TYPE		       0x785, 0x3
#define F_NVC_ALLOWED_LIST_SIZE		       0x794, 0xc
#define B_NVC_PERMANENT_ADDRESS		       0xf6 /* mac_address_layout + 2 */
#define LIST_ENTRY_BYTES		       8    /* mac/vlan_layout */

/* set_roce_address_in, query_roce_address_in/out; roce_addr_layout */
#define F_ROCE_ADDRESS_IN_INDEX	      0x40, 0x10
#define F_ROCE_ADDRESS_IN_VHCA_PORT   0x5c, 0x4
#define B_SET_ROCE_ADDRESS_IN_ADDR    0x10
#define B_QUERY_ROCE_ADDRESS_OUT_ADDR 0x10
#define ROCE_ADDR_BYTES		      0x20
#define B_ROCE_ADDR_GID		      0x0
#define F_ROCE_ADDR_VLAN_VALID	      0x83, 0x1
#define F_ROCE_ADDR_VLAN_ID	      0x84, 0xc
#define B_ROCE_ADDR_MAC		      0x12 /* source_mac_47_32, _31_0 */
#define F_ROCE_ADDR_L3_TYPE	      0xd4, 0x4
#define F_ROCE_ADDR_VERSION	      0xd8, 0x8

/* ads (a QPC's primary_address_path at B_QPC_PRIMARY_ADDRESS_PATH): the
 * RoCE fields INIT2RTR sets */
#define F_ADS_SRC_ADDR_INDEX 0x48, 0x8
#define F_ADS_HOP_LIMIT	     0x58, 0x8
#define F_ADS_TCLASS	     0x64, 0x8
#define F_ADS_FLOW_LABEL     0x6c, 0x14
#define B_ADS_RGID_RIP	     0x10
#define F_ADS_UDP_SPORT	     0x110, 0x10
#define B_ADS_RMAC	     0x26 /* rmac_47_32, rmac_31_0 */

/* query_hca_vport_pkey_in/out: pkey[] (0x20 bits each) at 0x10 */
#define F_QUERY_HCA_VPORT_PKEY_IN_PORT_NUM   0x4c, 0x4
#define F_QUERY_HCA_VPORT_PKEY_IN_PKEY_INDEX 0x70, 0x10
#define B_QUERY_HCA_VPORT_PKEY_OUT_PKEY	     0x10

/* query_vport_state_in/out */
#define F_QUERY_VPORT_STATE_IN_OTHER_VPORT  0x40, 0x1
#define F_QUERY_VPORT_STATE_OUT_ADMIN_STATE 0x78, 0x4
#define F_QUERY_VPORT_STATE_OUT_STATE	    0x7c, 0x4

/* access registers: pmtu_reg, ptys_reg, paos_reg (local_port at 0x8) */
#define F_REG_LOCAL_PORT	    0x8, 0x8
#define F_PMTU_MAX_MTU		    0x20, 0x10
#define F_PMTU_ADMIN_MTU	    0x40, 0x10
#define F_PMTU_OPER_MTU		    0x60, 0x10
#define F_PTYS_PROTO_MASK	    0x1d, 0x3
#define F_PTYS_ETH_PROTO_CAPABILITY 0x60, 0x20
#define F_PTYS_ETH_PROTO_ADMIN	    0xc0, 0x20
#define F_PTYS_ETH_PROTO_OPER	    0x120, 0x20
#define F_PAOS_ADMIN_STATUS	    0x14, 0x4
#define F_PAOS_OPER_STATUS	    0x1c, 0x4
#define F_PAOS_ASE		    0x20, 0x1

/* Every object command's number: create_*_out.{tisn,tirn,rqtn,rqn},
 * destroy_*_in, modify_*_in; the context at 0x20 (tisc, tirc, rqtc, rqc). */
#define F_OBJ_OUT_NUMBER       0x48, 0x18
#define F_OBJ_IN_NUMBER	       0x48, 0x18
#define B_OBJ_IN_CTX	       0x20
#define OBJ_IN_BYTES	       0x110 /* create_*_in, no list */
#define CREATE_TIS_IN_BYTES    0xc0
#define F_MODIFY_IN_BITMASK_HI 0x80, 0x20 /* modify_*_in.bitmask */
#define F_MODIFY_IN_BITMASK_LO 0xa0, 0x20

/* tisc (at B_OBJ_IN_CTX) */
#define F_TISC_STRICT_LAG_TX_PORT_AFFINITY 0x0, 0x1
#define F_TISC_TLS_EN			   0x1, 0x1
#define F_TISC_TRANSPORT_DOMAIN		   0x128, 0x18

/* tirc */
#define F_TIRC_DISP_TYPE	   0x20, 0x4
#define F_TIRC_TLS_EN		   0x24, 0x1
#define F_TIRC_PACKET_MERGE_MASK   0x94, 0x4
#define F_TIRC_INLINE_RQN	   0xe8, 0x18
#define F_TIRC_TUNNELED_OFFLOAD_EN 0x102, 0x1
#define F_TIRC_INDIRECT_TABLE	   0x108, 0x18
#define F_TIRC_RX_HASH_FN	   0x120, 0x4
#define F_TIRC_RX_HASH_SYMMETRIC   0x100, 0x1
#define B_TIRC_RX_HASH_KEY	   0x28 /* rx_hash_toeplitz_key, 40 bytes */
#define F_TIRC_RX_HASH_SEL_OUTER   0x280, 0x20 /* rx_hash_field_select */
#define F_TIRC_SELF_LB_BLOCK	   0x126, 0x2
#define F_TIRC_TRANSPORT_DOMAIN	   0x128, 0x18

/* rqtc: rq_num[] (a dword each, the RQ in its low 24 bits) at 0xf0 */
#define F_RQTC_RQT_MAX_SIZE    0xb0, 0x10
#define F_RQTC_RQT_ACTUAL_SIZE 0xd0, 0x10
#define B_RQTC_RQ_NUM	       0xf0

/* fte_match_param (create_flow_group_in.match_criteria at byte 0x40,
 * flow_context.match_value at set_fte_in byte 0x80): outer_headers
 * (fte_match_set_lyr_2_4) first, misc_parameters at byte 0x40 */
#define B_CREATE_FLOW_GROUP_IN_MATCH 0x40
#define B_SET_FTE_IN_MATCH_VALUE     0x80
#define B_MATCH_SMAC		     0x0
#define B_MATCH_ETHERTYPE	     0x6
#define B_MATCH_DMAC		     0x8
#define B_MATCH_FIRST_VLAN	     0xe /* prio, cfi, vid: the TCI */
#define B_MATCH_IP_PROTOCOL	     0x10
#define B_MATCH_IP_DSCP_ECN	     0x11
#define F_MATCH_CVLAN_TAG	     0x90, 0x1
#define F_MATCH_FRAG		     0x92, 0x1
#define F_MATCH_IP_VERSION	     0x93, 0x4
#define F_MATCH_TCP_FLAGS	     0x97, 0x9
#define B_MATCH_TCP_SPORT	     0x14 /* and dport at 0x16 */
#define B_MATCH_TTL_HOPLIMIT	     0x1b
#define B_MATCH_UDP_SPORT	     0x1c /* and dport at 0x1e */
#define B_MATCH_SRC_IP		     0x20 /* 16 bytes; IPv4 in the last 4 */
#define B_MATCH_DST_IP		     0x30

/* rqc; the page list (pas) at create_rq_in + 0x110 */
#define F_RQC_VSD		0x3, 0x1
#define F_RQC_MEM_RQ_TYPE	0x4, 0x4
#define F_RQC_STATE		0x8, 0x4
#define F_RQC_CQN		0x48, 0x18
#define F_RQC_COUNTER_SET_ID	0x60, 0x8
#define B_RQC_WQ		0x30 /* struct mlx5_ifc_wq_bits: cx_ifc.h F_WQ_* */
#define B_CREATE_RQ_IN_PAS	0x110
#define F_MODIFY_RQ_IN_RQ_STATE 0x40, 0x4

/* query_q_counter_in/out, query_vport_counter_out, ppcnt_reg */
#define F_QUERY_Q_COUNTER_IN_SET_ID	    0xf8, 0x8
#define F_QUERY_Q_COUNTER_IN_CLEAR	    0xc0, 0x1
#define F_QUERY_Q_COUNTER_OUT_OUT_OF_BUFFER 0x180, 0x20
#define QUERY_Q_COUNTER_OUT_BYTES	    0x100
#define QUERY_VPORT_COUNTER_OUT_BYTES	    0x210
#define F_PPCNT_GRP			    0x1a, 0x6
#define PPCNT_BYTES			    0x100

/* alloc_q_counter_out, dealloc_q_counter_in */
#define F_Q_COUNTER_SET_ID 0x58, 0x8

#endif
