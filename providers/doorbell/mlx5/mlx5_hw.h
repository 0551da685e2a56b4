/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The ConnectX (mlx5) formats the mlx5 backend depends on: the WQE segments,
 * the 64-byte CQE, doorbell records, UAR offsets, and the mlx5_ib driver
 * data appended to uverbs commands (from the system's <rdma/mlx5-abi.h>).
 *
 * Names carry an m5_/M5_ prefix so that a test can include this header next
 * to <infiniband/mlx5dv.h> and compare the two byte for byte
 * (tests/model/mlx5/test_crosscheck.c).  Every field is big-endian on the
 * wire and in memory shared with the device.
 *
 * Sources: rdma-core v44 providers/mlx5/mlx5dv.h (WQE, CQE and doorbell
 * layouts and constants), providers/mlx5/qp.c and cq.c (how libmlx5 fills
 * and reads them), and Linux v6.1 include/uapi/rdma/mlx5-abi.h with
 * drivers/infiniband/hw/mlx5 (mlx5_ib's checks).
 */
#ifndef DOORBELL_MLX5_HW_H
#define DOORBELL_MLX5_HW_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <rdma/mlx5-abi.h>

/* uverbs ABI versions mlx5_ib reports in sysfs (MLX5_IB_UVERBS_ABI_VERSION). */
#define M5_KABI_MIN 1
#define M5_KABI_MAX 1

/* --- Send queue -------------------------------------------------------- */

#define M5_SEND_WQE_BB	  64 /* a WQE basic block */
#define M5_SEND_WQE_SHIFT 6
#define M5_DS_UNIT	  16 /* "ds" counts 16-byte units */
#define M5_MAX_DS	  63 /* 6-bit ds field */

enum m5_opcode {
	M5_OPCODE_NOP = 0x00,
	M5_OPCODE_SEND_INVAL = 0x01,
	M5_OPCODE_RDMA_WRITE = 0x08,
	M5_OPCODE_RDMA_WRITE_IMM = 0x09,
	M5_OPCODE_SEND = 0x0a,
	M5_OPCODE_SEND_IMM = 0x0b,
	M5_OPCODE_RDMA_READ = 0x10,
	M5_OPCODE_ATOMIC_CS = 0x11,
	M5_OPCODE_ATOMIC_FA = 0x12,
};

/* fm_ce_se, byte 11 of the control segment. */
enum {
	M5_WQE_CTRL_SOLICITED = 1 << 1,
	M5_WQE_CTRL_CQ_UPDATE = 2 << 2,
	M5_WQE_CTRL_INITIATOR_SMALL_FENCE = 1 << 5,
	M5_WQE_CTRL_FENCE = 4 << 5,
};

/* Control segment: the first 16 bytes of every send WQE. */
struct m5_ctrl_seg {
	__be32 opmod_idx_opcode; /* opmod<<24 | wqe index<<8 | opcode */
	__be32 qpn_ds;		 /* qpn<<8 | ds */
	uint8_t signature;
	uint8_t rsvd[2];
	uint8_t fm_ce_se;
	__be32 imm;
};

/* XRC segment: after the ctrl segment of every XRC INI WQE. */
struct m5_xrc_seg {
	__be32 xrc_srqn; /* the remote XRC SRQ the message is for */
	uint8_t rsvd[12];
};

/* Remote address segment: RDMA WRITE, READ and atomics. */
struct m5_raddr_seg {
	__be64 raddr;
	__be32 rkey;
	__be32 reserved;
};

/* Atomic segment, after the remote address segment. */
struct m5_atomic_seg {
	__be64 swap_add;
	__be64 compare;
};

/* Data segment: one gather or scatter entry. */
struct m5_data_seg {
	__be32 byte_count;
	__be32 lkey;
	__be64 addr;
};

/* Inline data: this header, then the bytes, padded to 16. */
struct m5_inline_seg {
	__be32 byte_count; /* length | M5_INLINE_SEG */
};
#define M5_INLINE_SEG 0x80000000u
/* lkey of the terminator that ends a short receive scatter list. */
#define M5_INVALID_LKEY 0x100u

/* UD address vector: the datagram segment of a UD send WQE (48 bytes). */
struct m5_av {
	union {
		struct {
			__be32 qkey;
			__be32 reserved;
		} qkey;
		__be64 dc_key;
	} key;
	__be32 dqp_dct; /* remote QPN | M5_EXTENDED_UD_AV */
	uint8_t stat_rate_sl;
	uint8_t fl_mlid;
	__be16 rlid; /* RoCE v2: UDP source port */
	uint8_t reserved0[4];
	uint8_t rmac[6];
	uint8_t tclass;
	uint8_t hop_limit;
	__be32 grh_gid_fl; /* grh<<30 | sgid index<<20 | flow */
	uint8_t rgid[16];
};
#define M5_EXTENDED_UD_AV 0x80000000u

/* SRQ WQE header: the free list runs through next_wqe_index. */
struct m5_srq_next_seg {
	uint8_t rsvd0[2];
	__be16 next_wqe_index;
	uint8_t signature;
	uint8_t rsvd1[11];
};

/* --- Completion queue -------------------------------------------------- */

#define M5_CQE_SIZE 64

enum m5_cqe_opcode {
	M5_CQE_REQ = 0,
	M5_CQE_RESP_WR_IMM = 1,
	M5_CQE_RESP_SEND = 2,
	M5_CQE_RESP_SEND_IMM = 3,
	M5_CQE_RESP_SEND_INV = 4,
	M5_CQE_RESIZE_CQ = 5,
	M5_CQE_NO_PACKET = 6,
	M5_CQE_SIG_ERR = 12,
	M5_CQE_REQ_ERR = 13,
	M5_CQE_RESP_ERR = 14,
	M5_CQE_INVALID = 15,
};

enum m5_cqe_syndrome {
	M5_SYND_LOCAL_LENGTH_ERR = 0x01,
	M5_SYND_LOCAL_QP_OP_ERR = 0x02,
	M5_SYND_LOCAL_PROT_ERR = 0x04,
	M5_SYND_WR_FLUSH_ERR = 0x05,
	M5_SYND_MW_BIND_ERR = 0x06,
	M5_SYND_BAD_RESP_ERR = 0x10,
	M5_SYND_LOCAL_ACCESS_ERR = 0x11,
	M5_SYND_REMOTE_INVAL_REQ_ERR = 0x12,
	M5_SYND_REMOTE_ACCESS_ERR = 0x13,
	M5_SYND_REMOTE_OP_ERR = 0x14,
	M5_SYND_TRANSPORT_RETRY_EXC_ERR = 0x15,
	M5_SYND_RNR_RETRY_EXC_ERR = 0x16,
	M5_SYND_REMOTE_ABORTED_ERR = 0x22,
};

/*
 * vendor_err_synd of a REMOTE_ABORTED receive CQE: an ODP page fault
 * (mlx5dv.h v44, MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT).
 */
#define M5_VENDOR_SYND_ODP_PFAULT 0x93

/* op_own, the last byte of a CQE. */
#define M5_CQE_OWNER_MASK   0x01
#define M5_CQE_SE_MASK	    0x02
#define M5_CQE_FORMAT_SHIFT 2
#define M5_CQE_FORMAT_MASK  0x0c
#define M5_CQE_OPCODE_SHIFT 4
/* What every CQE holds before the device first writes it. */
#define M5_CQE_OP_OWN_INIT (M5_CQE_INVALID << M5_CQE_OPCODE_SHIFT)
/*
 * A completion (opcodes 0 to 4) carries the internal timer in timestamp;
 * an error CQE holds its syndromes in those bytes.
 */
#define M5_CQE_STAMPED(op_own)                                                 \
	(((op_own) >> M5_CQE_OPCODE_SHIFT) <= M5_CQE_RESP_SEND_INV)

/* flags_rqpn: GRH present (bits 29:28). */
#define M5_CQE_GRH_SHIFT 28

struct m5_cqe64 {
	uint8_t rsvd0[2];
	__be16 wqe_id;
	uint8_t rsvd4[13];
	uint8_t ml_path;
	uint8_t rsvd20[4];
	__be16 slid;
	__be32 flags_rqpn; /* grh<<28 | sl<<24 | source QPN */
	uint8_t hds_ip_ext;
	uint8_t l4_hdr_type_etc;
	__be16 vlan_info;
	__be32 srqn_uidx; /* CQE version 1: the user index */
	__be32 imm_inval_pkey;
	uint8_t app;
	uint8_t app_op;
	__be16 app_info;
	__be32 byte_cnt;
	__be64 timestamp;
	__be32 sop_drop_qpn; /* send WQE opcode<<24 | QPN */
	__be16 wqe_counter;
	uint8_t signature;
	uint8_t op_own;
};

/* The same 64 bytes when the opcode is REQ_ERR or RESP_ERR. */
struct m5_err_cqe {
	uint8_t rsvd0[32];
	__be32 srqn;
	uint8_t rsvd1[18];
	uint8_t vendor_err_synd;
	uint8_t syndrome;
	__be32 s_wqe_opcode_qpn;
	__be16 wqe_counter;
	uint8_t signature;
	uint8_t op_own;
};

/* --- Doorbell records and UAR ------------------------------------------ */

/* QP doorbell record: two big-endian words. */
enum {
	M5_RCV_DBR = 0, /* receive WQEs posted, 16 bits */
	M5_SND_DBR = 1, /* WQEBBs posted, 16 bits */
};
/* CQ doorbell record. */
enum {
	M5_CQ_SET_CI = 0, /* consumer index, 24 bits */
	M5_CQ_ARM_DB = 1, /* sn<<28 | cmd | ci */
};
#define M5_CQ_CI_MASK	     0xffffffu
#define M5_CQ_DB_REQ_NOT_SOL (1u << 24)
#define M5_CQ_DB_REQ_NOT     0u
#define M5_CQ_SN_SHIFT	     28

#define M5_UAR_SIZE		 4096  /* one UAR, with 4K-UAR support */
#define M5_CQ_DOORBELL		 0x20  /* 64-bit CQ arm doorbell */
#define M5_EQ_DOORBELL_ARM	 0x40  /* kernel only */
#define M5_EQ_DOORBELL_NOARM	 0x48  /* kernel only */
#define M5_BF_OFFSET		 0x800 /* the first BlueFlame register */
#define M5_BFREGS_PER_UAR	 4     /* registers in a UAR ... */
#define M5_NON_FP_BFREGS_PER_UAR 2     /* ... of which bfregs count two */

/* mmap offsets of the UAR pages on the uverbs fd, in system pages. */
#define M5_MMAP_CMD_SHIFT   8
#define M5_MMAP_CMD_REGULAR MLX5_IB_MMAP_REGULAR_PAGE
#define M5_MMAP_CMD_NC	    MLX5_IB_MMAP_NC_PAGE
#define M5_MMAP_CMD_CLOCK   MLX5_IB_MMAP_CORE_CLOCK

/*
 * The device's free-running internal timer, read through the page the
 * kernel maps read-only (MLX5_IB_MMAP_CORE_CLOCK) at the offset GET_CONTEXT
 * names: the high word, then the low word, big-endian.  CQEs carry the same
 * timer at completion (struct m5_cqe64's timestamp).
 */
#define M5_CLOCK_HI 0
#define M5_CLOCK_LO 4

/* --- EQ (written by the device, read by the kernel driver) --------------- */
/* The backend never touches EQs; the software ConnectX and its shim do. */

enum {
	M5_EVENT_TYPE_COMP = 0x00,
	M5_EVENT_TYPE_CQ_ERROR = 0x04,
	M5_EVENT_TYPE_WQ_CATAS_ERROR = 0x05,
};

struct m5_eqe {
	uint8_t rsvd0;
	uint8_t type;
	uint8_t rsvd1;
	uint8_t sub_type;
	__be32 rsvd2[7];
	__be32 data[7]; /* COMP: data[6] = cqn (24 bits) */
	uint8_t rsvd3[2];
	uint8_t signature;
	uint8_t owner; /* bit 0 */
};
#define M5_EQE_SIZE	 64
#define M5_EQ_OWNER_INIT 1

/* --- Layouts we depend on ---------------------------------------------- */

_Static_assert(sizeof(struct m5_ctrl_seg) == 16, "ctrl seg");
_Static_assert(offsetof(struct m5_ctrl_seg, qpn_ds) == 4, "ctrl.qpn_ds");
_Static_assert(offsetof(struct m5_ctrl_seg, signature) == 8, "ctrl.sig");
_Static_assert(offsetof(struct m5_ctrl_seg, fm_ce_se) == 11, "ctrl.fm_ce_se");
_Static_assert(offsetof(struct m5_ctrl_seg, imm) == 12, "ctrl.imm");
_Static_assert(sizeof(struct m5_raddr_seg) == 16, "raddr seg");
_Static_assert(sizeof(struct m5_atomic_seg) == 16, "atomic seg");
_Static_assert(sizeof(struct m5_data_seg) == 16, "data seg");
_Static_assert(offsetof(struct m5_data_seg, addr) == 8, "data.addr");
_Static_assert(sizeof(struct m5_inline_seg) == 4, "inline header");
_Static_assert(sizeof(struct m5_av) == 48, "address vector");
_Static_assert(offsetof(struct m5_av, dqp_dct) == 8, "av.dqp_dct");
_Static_assert(offsetof(struct m5_av, stat_rate_sl) == 12, "av.stat_rate_sl");
_Static_assert(offsetof(struct m5_av, rlid) == 14, "av.rlid");
_Static_assert(offsetof(struct m5_av, rmac) == 20, "av.rmac");
_Static_assert(offsetof(struct m5_av, tclass) == 26, "av.tclass");
_Static_assert(offsetof(struct m5_av, grh_gid_fl) == 28, "av.grh_gid_fl");
_Static_assert(offsetof(struct m5_av, rgid) == 32, "av.rgid");
_Static_assert(sizeof(struct m5_srq_next_seg) == 16, "srq next seg");
_Static_assert(offsetof(struct m5_srq_next_seg, next_wqe_index) == 2,
	       "srq next_wqe_index");
_Static_assert(sizeof(struct m5_cqe64) == M5_CQE_SIZE, "cqe64");
_Static_assert(offsetof(struct m5_cqe64, ml_path) == 0x11, "cqe.ml_path");
_Static_assert(offsetof(struct m5_cqe64, slid) == 0x16, "cqe.slid");
_Static_assert(offsetof(struct m5_cqe64, flags_rqpn) == 0x18, "cqe.rqpn");
_Static_assert(offsetof(struct m5_cqe64, srqn_uidx) == 0x20, "cqe.uidx");
_Static_assert(offsetof(struct m5_cqe64, imm_inval_pkey) == 0x24, "cqe.imm");
_Static_assert(offsetof(struct m5_cqe64, byte_cnt) == 0x2c, "cqe.byte_cnt");
_Static_assert(offsetof(struct m5_cqe64, timestamp) == 0x30, "cqe.ts");
_Static_assert(offsetof(struct m5_cqe64, sop_drop_qpn) == 0x38, "cqe.qpn");
_Static_assert(offsetof(struct m5_cqe64, wqe_counter) == 0x3c, "cqe.wqe_ctr");
_Static_assert(offsetof(struct m5_cqe64, op_own) == 0x3f, "cqe.op_own");
_Static_assert(sizeof(struct m5_err_cqe) == M5_CQE_SIZE, "err cqe");
_Static_assert(offsetof(struct m5_err_cqe, vendor_err_synd) == 0x36,
	       "err.vendor_err_synd");
_Static_assert(offsetof(struct m5_err_cqe, syndrome) == 0x37, "err.synd");
_Static_assert(offsetof(struct m5_err_cqe, wqe_counter) == 0x3c, "err.ctr");
_Static_assert(sizeof(struct m5_eqe) == M5_EQE_SIZE, "eqe");
_Static_assert(offsetof(struct m5_eqe, data) == 0x20, "eqe.data");
_Static_assert(offsetof(struct m5_eqe, owner) == 0x3f, "eqe.owner");

/* mlx5_ib driver data, appended to the uverbs commands and responses. */
_Static_assert(sizeof(struct mlx5_ib_alloc_ucontext_req_v2) == 32,
	       "alloc_ucontext_req_v2");
_Static_assert(offsetof(struct mlx5_ib_alloc_ucontext_req_v2, lib_caps) == 24,
	       "alloc_ucontext_req_v2.lib_caps");
_Static_assert(sizeof(struct mlx5_ib_alloc_ucontext_resp) == 72,
	       "alloc_ucontext_resp");
_Static_assert(offsetof(struct mlx5_ib_alloc_ucontext_resp, cqe_version) == 44,
	       "alloc_ucontext_resp.cqe_version");
_Static_assert(offsetof(struct mlx5_ib_alloc_ucontext_resp, log_uar_size) == 56,
	       "alloc_ucontext_resp.log_uar_size");
_Static_assert(sizeof(struct mlx5_ib_alloc_pd_resp) == 4, "alloc_pd_resp");
_Static_assert(sizeof(struct mlx5_ib_create_cq) == 32, "create_cq");
_Static_assert(sizeof(struct mlx5_ib_create_cq_resp) == 8, "create_cq_resp");
_Static_assert(sizeof(struct mlx5_ib_create_srq) == 32, "create_srq");
_Static_assert(sizeof(struct mlx5_ib_create_srq_resp) == 8, "create_srq_resp");
_Static_assert(sizeof(struct mlx5_ib_create_qp) == 56, "create_qp");
_Static_assert(offsetof(struct mlx5_ib_create_qp, bfreg_index) == 36,
	       "create_qp.bfreg_index");
_Static_assert(sizeof(struct mlx5_ib_create_qp_resp) == 40, "create_qp_resp");
_Static_assert(sizeof(struct mlx5_ib_create_ah_resp) == 16, "create_ah_resp");

#endif /* DOORBELL_MLX5_HW_H */
