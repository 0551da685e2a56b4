// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The command queue.  The driver writes the queue's address into the
 * initialization segment, fills a 64-byte entry (Linux's struct
 * mlx5_cmd_layout) and rings the doorbell with the entry's bit.  The input
 * is the entry's 16 inline bytes followed by a chain of 576-byte mailboxes
 * (struct mlx5_cmd_prot_block: 512 data bytes, next pointer, block number,
 * token); the output likewise.  The device hands the entry back by
 * clearing the ownership bit, after writing the output, and then posts a
 * command-completion EQE if an EQ takes that event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"

/* struct mlx5_cmd_layout byte offsets. */
enum {
	LAY_TYPE = 0,
	LAY_INLEN = 4,
	LAY_IN_PTR = 8,
	LAY_IN = 16,
	LAY_OUT = 32,
	LAY_OUT_PTR = 48,
	LAY_OUTLEN = 56,
	LAY_TOKEN = 60,
	LAY_STATUS_OWN = 63,
	LAY_SIZE = 64,
	LAY_INLINE = 16,
};

/* struct mlx5_cmd_prot_block. */
enum {
	MB_DATA = 512,
	MB_NEXT = 560,
	MB_BLOCK_NUM = 568,
	MB_TOKEN = 573,
	MB_SIZE = 576,
	MB_ALIGN = 1024, /* mlx5_core's dma pool: roundup_pow_of_two(576) */
};

/* Delivery status (mlx5 cmd.c MLX5_CMD_DELIVERY_STAT_*). */
enum {
	DELIV_OK = 0x0,
	DELIV_TOK_ERR = 0x2,
	DELIV_BAD_BLK_NUM = 0x3,
	DELIV_OUT_PTR_ALIGN = 0x4,
	DELIV_IN_PTR_ALIGN = 0x5,
	DELIV_IN_LENGTH = 0x7,
	DELIV_OUT_LENGTH = 0x8,
	DELIV_CMD_DESCR = 0x10,
};

enum { CMD_TYPE_PCIE = 0x7, CMD_OWNER_HW = 0x1, CMD_MAX_LEN = 1 << 20 };

/*
 * Walk the mailbox chain at PTR holding LEN - 16 bytes, copying to or from
 * BUF + 16.  Every block is checked (alignment, inside guest memory, block
 * number, token) before any byte moves, so a bad chain copies nothing;
 * BUF NULL: check only.
 */
static int mailboxes(struct cx *cx, uint64_t ptr, uint8_t *buf, uint32_t len,
		     uint8_t token, bool out)
{
	uint32_t n, nblk = len > LAY_INLINE
				   ? (len - LAY_INLINE + MB_DATA - 1) / MB_DATA
				   : 0;
	uint8_t **blk;
	int bad = out ? DELIV_OUT_PTR_ALIGN : DELIV_IN_PTR_ALIGN;

	if (!nblk)
		return DELIV_OK;
	blk = calloc(nblk, sizeof(*blk));
	if (!blk)
		return bad;
	for (n = 0; n < nblk; n++) {
		if (ptr % MB_ALIGN ||
		    !(blk[n] = cx_dma(cx, ptr, MB_SIZE, out))) {
			free(blk);
			return bad;
		}
		if (cx_get(blk[n], MB_BLOCK_NUM * 8, 32) != n) {
			free(blk);
			return DELIV_BAD_BLK_NUM;
		}
		if (blk[n][MB_TOKEN] != token) {
			free(blk);
			return DELIV_TOK_ERR;
		}
		ptr = cx_get64(blk[n], MB_NEXT);
	}
	for (n = 0; buf && n < nblk; n++) {
		uint32_t o = LAY_INLINE + n * MB_DATA;
		uint32_t k = len - o < MB_DATA ? len - o : MB_DATA;

		if (out)
			memcpy(blk[n], buf + o, k);
		else
			memcpy(buf + o, blk[n], k);
	}
	free(blk);
	return DELIV_OK;
}

int cx_cmd_need(const struct cx *cx, const struct cx_cmd *c, uint32_t in,
		uint32_t out, enum cx_hca_state state)
{
	if (c->inlen < in)
		return CX_BAD_INP_LEN;
	if (c->outlen < out)
		return CX_BAD_OUTP_LEN;
	if (cx->state < state)
		return CX_BAD_SYS_STATE;
	return CX_OK;
}

int cx_cmd_exec(struct cx *cx, struct cx_cmd *c)
{
	uint16_t op;

	if (c->inlen < 8)
		return CX_BAD_INP_LEN;
	if (c->outlen < 8)
		return CX_BAD_OUTP_LEN;
	op = cx_get(c->in, F_IN_OPCODE);
	switch (op) {
	case CX_OP_QUERY_HCA_CAP:
		return cx_caps_query(cx, c);
	case CX_OP_SET_HCA_CAP:
		return cx_caps_set(cx, c);
	case CX_OP_CREATE_EQ:
	case CX_OP_DESTROY_EQ:
		return cx_eq_exec(cx, op, c);
	case CX_OP_CREATE_CQ:
	case CX_OP_DESTROY_CQ:
	case CX_OP_QUERY_CQ:
	case CX_OP_MODIFY_CQ:
		return cx_cq_exec(cx, op, c);
	case CX_OP_CREATE_XRC_SRQ:
	case CX_OP_DESTROY_XRC_SRQ:
	case CX_OP_QUERY_XRC_SRQ:
	case CX_OP_ARM_XRC_SRQ:
	case CX_OP_CREATE_RMP:
	case CX_OP_MODIFY_RMP:
	case CX_OP_DESTROY_RMP:
	case CX_OP_QUERY_RMP:
		return cx_srq_exec(cx, op, c);
	case CX_OP_CREATE_QP:
	case CX_OP_DESTROY_QP:
	case CX_OP_RST2INIT_QP:
	case CX_OP_INIT2RTR_QP:
	case CX_OP_RTR2RTS_QP:
	case CX_OP_RTS2RTS_QP:
	case CX_OP_SQERR2RTS_QP:
	case CX_OP_2ERR_QP:
	case CX_OP_2RST_QP:
	case CX_OP_QUERY_QP:
	case CX_OP_INIT2INIT_QP:
		return cx_qp_exec(cx, op, c);
	case CX_OP_CREATE_SQ:
	case CX_OP_MODIFY_SQ:
	case CX_OP_DESTROY_SQ:
		return cx_sq_exec(cx, op, c);
	case CX_OP_MAD_IFC:
		return cx_mad_exec(cx, c);
	case CX_OP_QUERY_HCA_VPORT_CONTEXT:
		return cx_port_exec(cx, c);
	case CX_OP_CREATE_MKEY:
	case CX_OP_DESTROY_MKEY:
		return cx_mkey_exec(cx, op, c);
	case CX_OP_ALLOC_PD:
	case CX_OP_DEALLOC_PD:
	case CX_OP_ALLOC_XRCD:
	case CX_OP_DEALLOC_XRCD:
	case CX_OP_ALLOC_TRANSPORT_DOMAIN:
	case CX_OP_DEALLOC_TRANSPORT_DOMAIN:
		return cx_obj_exec(cx, op, c);
	default:
		if (cx_eth_op(op))
			return cx_eth_exec(cx, op, c);
		return cx_hca_exec(cx, op, c);
	}
}

/* A failed command's input in the trace: 32 bytes a line, up to 1 KiB. */
static void trace_input(struct cx *cx, const uint8_t *in, uint32_t len)
{
	char line[80];
	uint32_t i, k;

	if (!cx->host.trace)
		return;
	for (i = 0; i < len && i < 1024; i += 32) {
		for (k = 0; k < 32 && i + k < len; k++)
			snprintf(line + 2 * k, 3, "%02x", in[i + k]);
		cx_trace(cx, "  in+0x%03x %s", i, line);
	}
}

/* Execute entry IDX; returns its delivery status (0xff: left alone). */
static int run_entry(struct cx *cx, unsigned int idx)
{
	uint64_t q = (uint64_t)cx->cmdq_h << 32 | (cx->cmdq_l & ~0xfffu);
	uint8_t *lay = cx_dma(cx, q + ((uint64_t)idx << CX_CMDQ_LOG_STRIDE),
			      LAY_SIZE, true);
	struct cx_cmd c = { 0 };
	uint8_t token, *in = NULL, *out = NULL;
	int deliv, status;

	if (!lay || !(lay[LAY_STATUS_OWN] & CMD_OWNER_HW))
		return 0xff;
	token = lay[LAY_TOKEN];
	c.inlen = cx_get(lay, LAY_INLEN * 8, 32);
	c.outlen = cx_get(lay, LAY_OUTLEN * 8, 32);
	if (lay[LAY_TYPE] != CMD_TYPE_PCIE) {
		deliv = DELIV_CMD_DESCR;
		goto done;
	}
	if (c.inlen > CMD_MAX_LEN) {
		deliv = DELIV_IN_LENGTH;
		goto done;
	}
	if (c.outlen > CMD_MAX_LEN) {
		deliv = DELIV_OUT_LENGTH;
		goto done;
	}
	in = calloc(1, c.inlen + LAY_INLINE);
	out = calloc(1, c.outlen + LAY_INLINE);
	if (!in || !out) {
		deliv = DELIV_IN_LENGTH;
		goto done;
	}
	memcpy(in, lay + LAY_IN, LAY_INLINE);
	deliv = mailboxes(cx, cx_get64(lay, LAY_IN_PTR), in, c.inlen, token,
			  false);
	if (deliv)
		goto done;
	/* Check the output chain before executing: all or nothing. */
	deliv = mailboxes(cx, cx_get64(lay, LAY_OUT_PTR), NULL, c.outlen, token,
			  true);
	if (deliv)
		goto done;
	c.in = in;
	c.out = out;
	status = cx_cmd_exec(cx, &c);
	cx_set(out, F_OUT_STATUS, status);
	cx_trace(cx, "cmd 0x%x op_mod 0x%x in %u out %u: status 0x%x",
		 cx_get(in, F_IN_OPCODE), cx_get(in, F_IN_OP_MOD), c.inlen,
		 c.outlen, status);
	if (status != CX_OK)
		trace_input(cx, in, c.inlen);
	memcpy(lay + LAY_OUT, out, LAY_INLINE);
	mailboxes(cx, cx_get64(lay, LAY_OUT_PTR), out, c.outlen, token, true);
done:
	if (deliv)
		cx_trace(cx, "cmd entry %u: delivery status 0x%x", idx, deliv);
	free(in);
	free(out);
	/* Release: the output above is visible before the entry is the driver's. */
	__atomic_store_n(&lay[LAY_STATUS_OWN], (uint8_t)(deliv << 1),
			 __ATOMIC_RELEASE);
	return deliv;
}

void cx_cmd_doorbell(struct cx *cx, uint32_t bits)
{
	uint32_t done = 0;
	unsigned int i;

	/*
	 * A command reports its completion to the EQ that took command
	 * events when it started: not to the one CREATE_EQ makes (mlx5_core
	 * polls that command, then arms the EQ; an EQE would complete the
	 * entry twice), still to the one DESTROY_EQ removes (it finds none).
	 */
	for (i = 0; i < (1u << CX_CMDQ_LOG_SZ); i++) {
		bool ev = cx_eq_takes(cx, CX_EVENT_CMD);

		if (bits & (1u << i) && run_entry(cx, i) != 0xff && ev)
			done |= 1u << i;
	}
	if (done) {
		uint8_t vec[4] = { done >> 24, done >> 16, done >> 8, done };

		cx_eq_post(cx, CX_EVENT_CMD, 0, vec, sizeof(vec));
	}
}
