/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The InfiniBand transport headers a RoCE packet carries after its
 * UDP header (IBA volume 1, 9.2 and 9.3): BTH, then per opcode RETH,
 * AtomicETH, AETH, AtomicAckETH, ImmDt, IETH or DETH, the payload and
 * its pad.  Big endian on the wire.  The ICRC after them is the
 * device's (sim/mlx5/pci/cx_roce_pkt.c).  Packed: in a frame they start
 * 2 bytes past a 4-byte boundary (14 + 20 + 8), and are read in place.
 */
#ifndef DOORBELL_SIM_M5M_IBT_H
#define DOORBELL_SIM_M5M_IBT_H

#include <endian.h>
#include <stdint.h>

#include <linux/types.h>

/* BTH opcodes: the transport in bits 7:5 (RC 0, UD 3), then the op. */
enum {
	IBT_RC = 0x00,
	IBT_UD = 0x60,
	IBT_SEND_FIRST = 0x00,
	IBT_SEND_MIDDLE = 0x01,
	IBT_SEND_LAST = 0x02,
	IBT_SEND_LAST_IMM = 0x03,
	IBT_SEND_ONLY = 0x04,
	IBT_SEND_ONLY_IMM = 0x05,
	IBT_WRITE_FIRST = 0x06,
	IBT_WRITE_MIDDLE = 0x07,
	IBT_WRITE_LAST = 0x08,
	IBT_WRITE_LAST_IMM = 0x09,
	IBT_WRITE_ONLY = 0x0a,
	IBT_WRITE_ONLY_IMM = 0x0b,
	IBT_READ_REQUEST = 0x0c,
	IBT_READ_RESP_FIRST = 0x0d,
	IBT_READ_RESP_MIDDLE = 0x0e,
	IBT_READ_RESP_LAST = 0x0f,
	IBT_READ_RESP_ONLY = 0x10,
	IBT_ACK = 0x11,
	IBT_ATOMIC_ACK = 0x12,
	IBT_CMP_SWAP = 0x13,
	IBT_FETCH_ADD = 0x14,
	IBT_SEND_LAST_INV = 0x16,
	IBT_SEND_ONLY_INV = 0x17,
};

/* BTH byte 1: solicited event, migration, pad count, version 0. */
enum {
	IBT_SE = 0x80,
	IBT_MIG = 0x40,
	IBT_PAD_SHIFT = 4,
	IBT_PAD_MASK = 0x30,
	IBT_ACKREQ = 0x80000000u, /* in apsn */
	IBT_PSN_MASK = 0xffffff,
	IBT_QPN_MASK = 0xffffff,
};

struct ibt_bth {
	uint8_t opcode;
	uint8_t flags; /* SE, M, PadCnt, TVer */
	__be16 pkey;
	__be32 dqpn; /* bits 31:24 reserved (resv8a) */
	__be32 apsn; /* AckReq, reserved, PSN */
} __attribute__((packed));

struct ibt_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
} __attribute__((packed));

/* AETH syndrome, bits 7:5: ACK, RNR NAK or NAK; 4:0 its value. */
enum {
	IBT_AETH_ACK = 0x00,
	IBT_AETH_RNR = 0x20,
	IBT_AETH_NAK = 0x60,
	IBT_AETH_KIND = 0x60,
	IBT_AETH_VAL = 0x1f,
	IBT_AETH_NO_CREDIT = 0x1f, /* ACK: no end-to-end credit count */
	IBT_NAK_PSN_SEQ = 0,
	IBT_NAK_INVALID_REQ = 1,
	IBT_NAK_REMOTE_ACCESS = 2,
	IBT_NAK_REMOTE_OP = 3,
};

struct ibt_aeth {
	__be32 syn_msn; /* syndrome 31:24, MSN 23:0 */
} __attribute__((packed));

struct ibt_atomic_eth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __attribute__((packed));

struct ibt_atomic_ack {
	__be64 orig;
} __attribute__((packed));

struct ibt_deth {
	__be32 qkey;
	__be32 sqpn; /* bits 31:24 reserved */
} __attribute__((packed));

_Static_assert(sizeof(struct ibt_bth) == 12, "BTH is 12 bytes");
_Static_assert(sizeof(struct ibt_reth) == 16, "RETH is 16 bytes");
_Static_assert(sizeof(struct ibt_aeth) == 4, "AETH is 4 bytes");
_Static_assert(sizeof(struct ibt_atomic_eth) == 28, "AtomicETH is 28");
_Static_assert(sizeof(struct ibt_atomic_ack) == 8, "AtomicAckETH is 8");
_Static_assert(sizeof(struct ibt_deth) == 8, "DETH is 8 bytes");

/* The largest header run: BTH + AtomicETH (or BTH + RETH + ImmDt). */
#define IBT_MAX_HDRS (sizeof(struct ibt_bth) + sizeof(struct ibt_atomic_eth))

#endif /* DOORBELL_SIM_M5M_IBT_H */
