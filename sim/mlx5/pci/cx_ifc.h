/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fields of the command and context layouts the device reads or writes, as
 * (bit offset, width) pairs into big-endian buffers, with the numbering of
 * Linux's include/linux/mlx5/mlx5_ifc.h (bit 0 = the most significant bit
 * of the first dword).  The numbers were printed by
 *	sim/mlx5/pci/ifc-offsets.py HEADERS... STRUCT.FIELD...
 * from Linux 6.1's headers; the F_ name is the mlx5_ifc.h STRUCT_FIELD.
 * Widths above 32 bits are whole 64-bit words (cx_get64/cx_set64).
 */
#ifndef DOORBELL_TESTS_CX_IFC_H
#define DOORBELL_TESTS_CX_IFC_H

#include <stdint.h>

/* Every command: the *_in and *_out headers. */
#define F_IN_OPCODE    0x0, 0x10
#define F_IN_OP_MOD    0x30, 0x10
#define F_OUT_STATUS   0x0, 0x8
#define F_OUT_SYNDROME 0x20, 0x20

#define F_ENABLE_HCA_IN_FUNCTION_ID	      0x50, 0x10
#define F_QUERY_ISSI_OUT_CURRENT_ISSI	      0x50, 0x10
#define F_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0   0x360, 0x20
#define F_SET_ISSI_IN_CURRENT_ISSI	      0x50, 0x10
#define F_TEARDOWN_HCA_IN_PROFILE	      0x50, 0x10
#define F_QUERY_PAGES_IN_FUNCTION_ID	      0x50, 0x10
#define F_QUERY_PAGES_OUT_FUNCTION_ID	      0x50, 0x10
#define F_QUERY_PAGES_OUT_NUM_PAGES	      0x60, 0x20
#define F_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES   0x60, 0x20
#define F_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES 0x40, 0x20
/* Byte offsets (B_) of the nested structs and arrays. */
#define B_QUERY_HCA_CAP_OUT_CAPABILITY 0x10 /* 0x1000 bytes */
#define B_SET_HCA_CAP_IN_CAPABILITY    0x10
#define F_ALLOC_UAR_OUT_UAR	       0x48, 0x18
#define F_DEALLOC_UAR_IN_UAR	       0x48, 0x18
/* alloc_pd_out.pd, dealloc_pd_in.pd; the same for xrcd, transport_domain */
#define F_OBJ_NUMBER 0x48, 0x18

/* CREATE_EQ / DESTROY_EQ and struct mlx5_ifc_eqc_bits. */
#define B_CREATE_EQ_IN_EQ_CONTEXT_ENTRY 0x10  /* 0x40 bytes */
#define B_CREATE_EQ_IN_EVENT_BITMASK	0x58  /* 4 x be64, type t: word t/64 */
#define B_CREATE_EQ_IN_PAS		0x110 /* be64 page addresses */
#define F_CREATE_EQ_OUT_EQ_NUMBER	0x58, 0x8
#define F_DESTROY_EQ_IN_EQ_NUMBER	0x58, 0x8
#define F_EQC_STATUS			0x0, 0x4
#define F_EQC_EC			0xd, 0x1
#define F_EQC_OI			0xe, 0x1
#define F_EQC_ST			0x14, 0x4
#define F_EQC_PAGE_OFFSET		0x54, 0x6
#define F_EQC_LOG_EQ_SIZE		0x63, 0x5
#define F_EQC_UAR_PAGE			0x68, 0x18
#define F_EQC_INTR			0xb4, 0xc
#define F_EQC_LOG_PAGE_SIZE		0xc3, 0x5
#define F_EQC_CONSUMER_COUNTER		0x148, 0x18
#define F_EQC_PRODUCER_COUNTER		0x168, 0x18

/* CREATE_CQ .. MODIFY_CQ and struct mlx5_ifc_cqc_bits. */
#define B_CQ_CONTEXT		     0x10 /* create/modify_cq_in, query_cq_out */
#define B_CREATE_CQ_IN_PAS	     0x110 /* be64 page addresses */
#define F_CREATE_CQ_IN_CQ_UMEM_VALID 0x2e0, 0x1
/* create_cq_out.cqn, destroy_cq_in.cqn, query_cq_in.cqn, modify_cq_in.cqn */
#define F_CQN			    0x48, 0x18
#define F_MODIFY_CQ_IN_FIELD_SELECT 0x60, 0x20
#define F_CQC_STATUS		    0x0, 0x4
#define F_CQC_DBR_UMEM_VALID	    0x6, 0x1
#define F_CQC_CQE_SZ		    0x8, 0x3
#define F_CQC_CC		    0xb, 0x1
#define F_CQC_OI		    0xe, 0x1
#define F_CQC_CQ_PERIOD_MODE	    0xf, 0x2
#define F_CQC_CQE_COMP_EN	    0x11, 0x1
#define F_CQC_ST		    0x14, 0x4
#define F_CQC_PAGE_OFFSET	    0x54, 0x6
#define F_CQC_LOG_CQ_SIZE	    0x63, 0x5
#define F_CQC_UAR_PAGE		    0x68, 0x18
#define F_CQC_CQ_PERIOD		    0x84, 0xc
#define F_CQC_CQ_MAX_COUNT	    0x90, 0x10
#define F_CQC_C_EQN		    0xa0, 0x20 /* c_eqn_or_apu_element */
#define F_CQC_LOG_PAGE_SIZE	    0xc3, 0x5
#define F_CQC_LAST_NOTIFIED_INDEX   0x108, 0x18
#define F_CQC_LAST_SOLICIT_INDEX    0x128, 0x18
#define F_CQC_CONSUMER_COUNTER	    0x148, 0x18
#define F_CQC_PRODUCER_COUNTER	    0x168, 0x18
/* A solicited CQE ends the moderation of a CQ armed for it. */
#define F_CQC_SCQE_BREAK_MODERATION_EN 0xd, 0x1
#define B_CQC_DBR_ADDR		       0x38

/*
 * CREATE_XRC_SRQ .. ARM_XRC_SRQ (mlx5_ib fills xrc_srqc with the
 * struct mlx5_ifc_srqc_bits layout), CREATE_RMP .. QUERY_RMP and struct
 * mlx5_ifc_rmpc_bits with its struct mlx5_ifc_wq_bits.
 */
#define B_XRC_SRQ_CONTEXT	       0x10 /* create_xrc_srq_in, query_xrc_srq_out */
#define B_SRQ_PAS		       0x110 /* create_xrc_srq_in.pas, rmpc.wq.pas */
#define F_CREATE_XRC_SRQ_IN_UMEM_VALID 0x2e0, 0x1
/* xrc_srqn and rmpn of every command of the two families */
#define F_SRQN			  0x48, 0x18
#define F_ARM_XRC_SRQ_IN_LWM	  0x70, 0x10
#define F_SRQC_STATE		  0x0, 0x4
#define F_SRQC_LOG_SRQ_SIZE	  0x4, 0x4
#define F_SRQC_WQ_SIGNATURE	  0x20, 0x1
#define F_SRQC_LOG_RQ_STRIDE	  0x25, 0x3
#define F_SRQC_XRCD		  0x28, 0x18
#define F_SRQC_PAGE_OFFSET	  0x40, 0x6
#define F_SRQC_DBR_UMEM_VALID	  0x47, 0x1
#define F_SRQC_CQN		  0x48, 0x18
#define F_SRQC_LOG_PAGE_SIZE	  0x82, 0x6
#define F_XRC_SRQC_USER_INDEX	  0x88, 0x18
#define F_SRQC_PD		  0xc8, 0x18
#define F_SRQC_LWM		  0xe0, 0x10
#define B_SRQC_DBR_ADDR		  0x28
#define B_RMP_CONTEXT		  0x20 /* create/modify_rmp_in, query_rmp_out */
#define F_MODIFY_RMP_IN_RMP_STATE 0x40, 0x4
#define B_MODIFY_RMP_IN_BITMASK	  0x10 /* be64; rmp_bitmask.lwm is bit 0 */
#define F_RMPC_STATE		  0x8, 0x4
#define B_RMPC_WQ		  0x30
#define F_WQ_WQ_TYPE		  0x0, 0x4
#define F_WQ_WQ_SIGNATURE	  0x4, 0x1
#define F_WQ_PAGE_OFFSET	  0x2b, 0x5
#define F_WQ_LWM		  0x30, 0x10
#define F_WQ_PD			  0x48, 0x18
#define B_WQ_DBR_ADDR		  0x10
#define F_WQ_LOG_WQ_STRIDE	  0x10c, 0x4
#define F_WQ_LOG_WQ_PG_SZ	  0x113, 0x5
#define F_WQ_LOG_WQ_SZ		  0x11b, 0x5
#define F_WQ_DBR_UMEM_VALID	  0x120, 0x1
#define F_WQ_WQ_UMEM_VALID	  0x121, 0x1

/*
 * CREATE_QP .. QUERY_QP, the state commands, struct mlx5_ifc_qpc_bits
 * (its primary_address_path is a struct mlx5_ifc_ads_bits).  Every QP
 * command has the qpn at 0x48; those with a context have opt_param_mask
 * at 0x80 and the qpc at byte 0x18 (create_qp_in, rst2init_qp_in, ...,
 * query_qp_out).
 */
#define F_QPN			     0x48, 0x18
#define F_QP_OPT_PARAM_MASK	     0x80, 0x20
#define B_QPC			     0x18 /* 0xe8 bytes */
#define B_CREATE_QP_IN_PAS	     0x110
#define F_CREATE_QP_IN_WQ_UMEM_VALID 0x860, 0x1
#define F_QPC_STATE		     0x0, 0x4
#define F_QPC_ST		     0x8, 0x8
#define F_QPC_PD		     0x28, 0x18
#define F_QPC_MTU		     0x40, 0x3
#define F_QPC_LOG_MSG_MAX	     0x43, 0x5
#define F_QPC_LOG_RQ_SIZE	     0x49, 0x4
#define F_QPC_LOG_RQ_STRIDE	     0x4d, 0x3
#define F_QPC_NO_SQ		     0x50, 0x1
#define F_QPC_LOG_SQ_SIZE	     0x51, 0x4
#define F_QPC_UAR_PAGE		     0x68, 0x18
#define F_QPC_USER_INDEX	     0x88, 0x18
#define F_QPC_LOG_PAGE_SIZE	     0xa3, 0x5
#define F_QPC_REMOTE_QPN	     0xa8, 0x18
#define B_QPC_PRIMARY_ADDRESS_PATH   0x18	/* 0x2c bytes */
#define F_QPC_PKEY_INDEX	     0xd0, 0x10 /* primary_address_path.pkey_index */
#define F_QPC_ACK_TIMEOUT	     0x100, 0x5 /* primary_address_path.ack_timeout */
#define F_QPC_VHCA_PORT_NUM	     0x1e8, 0x8 /* primary_address_path.vhca_port_num */
#define F_QPC_LOG_SRA_MAX	     0x388, 0x3
#define F_QPC_RETRY_COUNT	     0x38d, 0x3
#define F_QPC_RNR_RETRY		     0x390, 0x3
#define F_QPC_NEXT_SEND_PSN	     0x3c8, 0x18
#define F_QPC_CQN_SND		     0x3e8, 0x18
#define F_QPC_LOG_RRA_MAX	     0x488, 0x3
#define F_QPC_ATOMIC_MODE	     0x48c, 0x4
#define F_QPC_RRE		     0x490, 0x1
#define F_QPC_RWE		     0x491, 0x1
#define F_QPC_RAE		     0x492, 0x1
#define F_QPC_PAGE_OFFSET	     0x494, 0x6
#define F_QPC_MIN_RNR_NAK	     0x4a3, 0x5
#define F_QPC_NEXT_RCV_PSN	     0x4a8, 0x18
#define F_QPC_XRCD		     0x4c8, 0x18
#define F_QPC_CQN_RCV		     0x4e8, 0x18
#define B_QPC_DBR_ADDR		     0xa0
#define F_QPC_Q_KEY		     0x540, 0x20
#define F_QPC_RQ_TYPE		     0x565, 0x3
#define F_QPC_SRQN_RMPN_XRQN	     0x568, 0x18
#define F_QPC_DBR_UMEM_VALID	     0x683, 0x1

#define F_MAD_IFC_IN_PORT		 0x58, 0x8
#define F_ACCESS_REGISTER_IN_REGISTER_ID 0x50, 0x10
#define F_ACCESS_REGISTER_IN_ARGUMENT	 0x60, 0x20
#define B_ACCESS_REGISTER_DATA		 0x10 /* in and out */

/* QUERY_HCA_VPORT_CONTEXT and struct mlx5_ifc_hca_vport_context_bits. */
#define F_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT 0x40, 0x1
#define F_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM	 0x4c, 0x4
#define F_HCA_VPORT_CONTEXT_HAS_SMI		 0x101, 0x1
#define F_HCA_VPORT_CONTEXT_PORT_PHYSICAL_STATE	 0x110, 0x4
#define F_HCA_VPORT_CONTEXT_VPORT_STATE		 0x11c, 0x4
#define B_HCA_VPORT_CONTEXT_PORT_GUID		 0x30
#define B_HCA_VPORT_CONTEXT_NODE_GUID		 0x38
#define F_HCA_VPORT_CONTEXT_LID			 0x300, 0x10
#define F_HCA_VPORT_CONTEXT_SUBNET_TIMEOUT	 0x31b, 0x5
#define F_HCA_VPORT_CONTEXT_SM_LID		 0x320, 0x10

/* CREATE_MKEY / DESTROY_MKEY and struct mlx5_ifc_mkc_bits. */
#define B_CREATE_MKEY_IN_MKC		     0x10 /* memory_key_mkey_entry, 0x40 bytes */
#define F_CREATE_MKEY_IN_TRANSLATIONS_ACTUAL 0x300, 0x20
#define B_CREATE_MKEY_IN_MTT		     0x110 /* klm_pas_mtt, be64 entries */
/* create_mkey_out.mkey_index, destroy_mkey_in.mkey_index */
#define F_MKEY_INDEX			0x48, 0x18
#define F_MKC_FREE			0x1, 0x1
#define F_MKC_ACCESS_MODE_4_2		0x3, 0x3
#define F_MKC_UMR_EN			0x10, 0x1
#define F_MKC_A				0x11, 0x1
#define F_MKC_RW			0x12, 0x1
#define F_MKC_RR			0x13, 0x1
#define F_MKC_LW			0x14, 0x1
#define F_MKC_LR			0x15, 0x1
#define F_MKC_ACCESS_MODE_1_0		0x16, 0x2
#define F_MKC_QPN			0x20, 0x18
#define F_MKC_MKEY_7_0			0x38, 0x8
#define F_MKC_LENGTH64			0x60, 0x1
#define F_MKC_EN_RINVAL			0x67, 0x1
#define F_MKC_PD			0x68, 0x18
#define B_MKC_START_ADDR		0x10
#define B_MKC_LEN			0x18
#define F_MKC_TRANSLATIONS_OCTWORD_SIZE 0x1a0, 0x20
#define F_MKC_LOG_PAGE_SIZE		0x1db, 0x5

/* Field at bit OFF, WIDTH bits (<= 32, inside one dword). */
static inline uint32_t cx_get(const void *buf, unsigned int off,
			      unsigned int width)
{
	const uint8_t *p = (const uint8_t *)buf + off / 32 * 4;
	uint32_t dw = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		      (uint32_t)p[2] << 8 | p[3];
	unsigned int shift = 32 - off % 32 - width;
	uint32_t mask = width == 32 ? ~0u : (1u << width) - 1;

	return dw >> shift & mask;
}

static inline void cx_set(void *buf, unsigned int off, unsigned int width,
			  uint32_t val)
{
	uint8_t *p = (uint8_t *)buf + off / 32 * 4;
	uint32_t dw = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		      (uint32_t)p[2] << 8 | p[3];
	unsigned int shift = 32 - off % 32 - width;
	uint32_t mask = width == 32 ? ~0u : (1u << width) - 1;

	dw = (dw & ~(mask << shift)) | (val & mask) << shift;
	p[0] = dw >> 24;
	p[1] = dw >> 16;
	p[2] = dw >> 8;
	p[3] = dw;
}

/* Big-endian 64-bit word at byte offset BOFF. */
static inline uint64_t cx_get64(const void *buf, unsigned int boff)
{
	return (uint64_t)cx_get(buf, boff * 8, 32) << 32 |
	       cx_get(buf, boff * 8 + 32, 32);
}

static inline void cx_set64(void *buf, unsigned int boff, uint64_t val)
{
	cx_set(buf, boff * 8, 32, val >> 32);
	cx_set(buf, boff * 8 + 32, 32, (uint32_t)val);
}

#endif
