// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * BAR0: the initialization segment (Linux's struct mlx5_init_seg, page 0
 * and the first dwords of page 1) and the UAR pages after the MSI-X pages.
 * Registers are big-endian dwords; mlx5_core reads them with ioread32be.
 */
#include <errno.h>
#include <string.h>

#include "cx_engine.h"
#include "cx_int.h"

/* Offsets in struct mlx5_init_seg. */
enum {
	ISEG_FW_REV = 0x00,
	ISEG_CMDIF_REV_FW_SUB = 0x04,
	ISEG_CMDQ_ADDR_H = 0x10,
	ISEG_CMDQ_ADDR_L_SZ = 0x14,
	ISEG_CMD_DBELL = 0x18,
	ISEG_INITIALIZING = 0x1fc,
	ISEG_INTERNAL_TIMER_H = 0x1000, /* after cmd_exec_to, cmd_q_init_to */
	ISEG_INTERNAL_TIMER_L = 0x1004,
	ISEG_HEALTH_COUNTER = 0x1010,
	ISEG_END = 0x2000,
};

/* Firmware 16.99.1: family 16 is ConnectX-5; 99 marks no real release. */
enum { FW_MAJOR = 16, FW_MINOR = 99, FW_SUB = 1, CMDIF_REV = 5 };
/*
 * UAR doorbells: the CQ arm doorbell (mlx5 doorbell.h MLX5_CQ_DOORBELL, a
 * 64-bit write, which may come as two dwords: the first is held until the
 * second), the EQ's (mlx5 eq.c MLX5_EQ_DOORBEL_OFFSET, +8 without arming).
 */
enum {
	UAR_CQ_ARM = 0x20,
	UAR_CQ_ARM_CQN = 0x24,
	UAR_EQ_ARM = 0x40,
	UAR_EQ_UPDATE_CI = 0x48,
	UAR_BF = 0x800, /* MLX5_BF_OFFSET: send doorbells, BlueFlame copies */
};

static uint32_t iseg_read(struct cx *cx, uint32_t off)
{
	uint64_t ns = cx_timer(cx);

	switch (off) {
	case ISEG_FW_REV:
		return FW_MINOR << 16 | FW_MAJOR;
	case ISEG_CMDIF_REV_FW_SUB:
		return CMDIF_REV << 16 | FW_SUB;
	case ISEG_CMDQ_ADDR_H:
		return cx->cmdq_h;
	case ISEG_CMDQ_ADDR_L_SZ:
		return (cx->cmdq_l & ~0xffu) | CX_CMDQ_LOG_SZ << 4 |
		       CX_CMDQ_LOG_STRIDE;
	case ISEG_INITIALIZING:
		return 0; /* bit 31 clear: ready at once */
	case ISEG_INTERNAL_TIMER_H:
		return ns >> 32; /* device_frequency_khz is 1 GHz */
	case ISEG_INTERNAL_TIMER_L:
		return (uint32_t)ns;
	case ISEG_HEALTH_COUNTER:
		return ns / 100000000; /* ticks every 100 ms while alive */
	default:
		return 0; /* health buffer all zero: no syndrome */
	}
}

static void iseg_write(struct cx *cx, uint32_t off, uint32_t val)
{
	switch (off) {
	case ISEG_CMDQ_ADDR_H:
		cx->cmdq_h = val;
		break;
	case ISEG_CMDQ_ADDR_L_SZ:
		/* address bits 31:12 and the nic_ifc field (10:8) */
		cx->cmdq_l = val & 0xfffff700u;
		break;
	case ISEG_CMD_DBELL:
		cx_cmd_doorbell(cx, val);
		break;
	}
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int cx_bar_read(struct cx *cx, uint64_t off, void *buf, uint32_t len)
{
	uint8_t *b = buf;
	uint32_t i;

	if (off >= CX_BAR0_SIZE || len > CX_BAR0_SIZE - off)
		return EINVAL;
	memset(buf, 0, len);
	for (i = 0; i < len; i++) {
		uint64_t o = off + i;
		uint32_t dw;

		if (o >= ISEG_END)
			break; /* UAR pages read as zero */
		dw = iseg_read(cx, o & ~3u);
		b[i] = dw >> (8 * (3 - (o & 3)));
	}
	return 0;
}

int cx_bar_write(struct cx *cx, uint64_t off, const void *buf, uint32_t len)
{
	const uint8_t *b = buf;
	uint32_t page = off / CX_PAGE, in = off % CX_PAGE;

	if (off >= CX_BAR0_SIZE || len > CX_BAR0_SIZE - off)
		return EINVAL;
	if (off >= ISEG_END && in >= UAR_BF && page >= CX_FIRST_UAR &&
	    page < CX_MAX_UAR && cx->uar_used[page]) {
		cx_bf_write(cx, page, in, b, len);
		return 0;
	}
	cx_bf_flush(cx); /* a held doorbell comes before what follows it */
	/* Registers are written as whole aligned dwords (or qwords). */
	if ((len != 4 && len != 8) || (off & 3))
		return 0;
	if (off < ISEG_END) {
		iseg_write(cx, off, be32(b));
		if (len == 8)
			iseg_write(cx, off + 4, be32(b + 4));
		return 0;
	}
	if (page < CX_FIRST_UAR || page >= CX_MAX_UAR || !cx->uar_used[page])
		return 0; /* not a UAR the driver owns: dropped */
	if (in == UAR_CQ_ARM && len == 8)
		cx_cq_doorbell(cx, page, be32(b), be32(b + 4));
	else if (in == UAR_CQ_ARM)
		cx->cq_db_hi[page] = be32(b);
	else if (in == UAR_CQ_ARM_CQN)
		cx_cq_doorbell(cx, page, cx->cq_db_hi[page], be32(b));
	else if (in == UAR_EQ_ARM || in == UAR_EQ_UPDATE_CI)
		cx_eq_doorbell(cx, page, in, be32(b));
	return 0;
}
