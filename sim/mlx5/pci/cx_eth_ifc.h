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

#endif
