// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The unit tests' stand-in for mlx5_core: a buffer as guest memory, MSI-X
 * counters, and commands run through entry 0 with mailbox chains, as
 * drivers/net/ethernet/mellanox/mlx5/core/cmd.c does.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cx_ifc.h"
#include "cx_test.h"

uint8_t *mem;
unsigned int irqs[CX_MSIX_VECTORS];
unsigned int dev_vectors;
bool dev_eth;
unsigned int dev_slow;

void *t_dma(void *ctx, uint64_t addr, uint64_t len, bool write)
{
	(void)ctx;
	(void)write;
	if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE ||
	    len > MEM_SIZE - (addr - MEM_BASE))
		return NULL;
	return mem + (addr - MEM_BASE);
}

static bool t_irq(void *ctx, unsigned int vec)
{
	(void)ctx;
	irqs[vec]++;
	return true;
}

struct cx *dev_new(void)
{
	struct cx_host host = { .dma = t_dma,
				.irq = t_irq,
				.vectors = dev_vectors,
				.eth = dev_eth,
				.slow = dev_slow };

	free(mem);
	mem = calloc(1, MEM_SIZE);
	memset(irqs, 0, sizeof(irqs));
	return cx_create(&host);
}

int cx_test_main(int argc, char **argv, const char *prefix,
		 const struct check_test *tests, int n)
{
	int rc = check_main(argc, argv, prefix, tests, n);

	free(mem);
	return rc;
}

uint8_t *at(uint64_t addr)
{
	return mem + (addr - MEM_BASE);
}

void w32(struct cx *cx, uint32_t off, uint32_t v)
{
	uint8_t b[4] = { v >> 24, v >> 16, v >> 8, v };

	cx_bar_write(cx, off, b, 4);
}

uint32_t r32(struct cx *cx, uint32_t off)
{
	uint8_t b[4];

	cx_bar_read(cx, off, b, 4);
	return cx_get(b, 0, 32);
}

/* Chain of N mailboxes at BASE with TOKEN. */
static void chain(uint64_t base, unsigned int n, uint8_t token)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t *b = at(base + i * 1024);

		memset(b, 0, 576);
		cx_set64(b, 560, i + 1 < n ? base + (i + 1) * 1024 : 0);
		cx_set(b, 568 * 8, 32, i);
		b[573] = token;
	}
}

static unsigned int nblocks(uint32_t len)
{
	return len > 16 ? (len - 16 + 511) / 512 : 0;
}

/*
 * Run one command through entry 0, as mlx5_core does; returns the delivery
 * status and copies OUTLEN bytes of output to OUT.
 */
int cmd(struct cx *cx, const uint8_t *in, uint32_t inlen, uint8_t *out,
	uint32_t outlen)
{
	uint8_t *lay = at(CMDQ), token = 0x5a;
	uint64_t inbox = MBOX, outbox = MBOX + 0x8000;
	unsigned int i;

	memset(lay, 0, 64);
	lay[0] = 7;
	cx_set(lay, 4 * 8, 32, inlen);
	cx_set(lay, 56 * 8, 32, outlen);
	cx_set64(lay, 8, nblocks(inlen) ? inbox : 0);
	cx_set64(lay, 48, nblocks(outlen) ? outbox : 0);
	lay[60] = token;
	memcpy(lay + 16, in, inlen < 16 ? inlen : 16);
	chain(inbox, nblocks(inlen), token);
	chain(outbox, nblocks(outlen), token);
	for (i = 0; i < nblocks(inlen); i++) {
		uint32_t o = 16 + i * 512,
			 k = inlen - o < 512 ? inlen - o : 512;

		memcpy(at(inbox + i * 1024), in + o, k);
	}
	lay[63] = 1;
	w32(cx, DBELL, 1);
	memcpy(out, lay + 32, outlen < 16 ? outlen : 16);
	for (i = 0; i < nblocks(outlen); i++) {
		uint32_t o = 16 + i * 512,
			 k = outlen - o < 512 ? outlen - o : 512;

		memcpy(out + o, at(outbox + i * 1024), k);
	}
	return lay[63] & 1 ? -1 : lay[63] >> 1;
}

int cmd_made(struct cx *cx, const uint8_t *in, uint32_t inlen, uint8_t *out,
	     uint32_t outlen, unsigned int off, unsigned int width)
{
	if (cmd(cx, in, inlen, out, outlen))
		return -1;
	if (cx_get(out, F_OUT_STATUS))
		return -(int)cx_get(out, F_OUT_STATUS);
	return cx_get(out, off, width);
}

/* A command with no parameters but OP and OP_MOD; returns its status. */
int simple(struct cx *cx, uint16_t op, uint16_t op_mod, uint8_t *out,
	   uint32_t outlen)
{
	uint8_t in[16] = { 0 };

	cx_set(in, F_IN_OPCODE, op);
	cx_set(in, F_IN_OP_MOD, op_mod);
	if (cmd(cx, in, sizeof(in), out, outlen))
		return -1;
	return cx_get(out, F_OUT_STATUS);
}

/* mlx5_function_setup() up to INIT_HCA, on a fresh device. */
struct cx *dev_up(void)
{
	struct cx *cx = dev_new();
	uint8_t out[16];

	w32(cx, 0x10, 0);
	w32(cx, 0x14, CMDQ);
	simple(cx, CX_OP_ENABLE_HCA, 0, out, sizeof(out));
	simple(cx, CX_OP_INIT_HCA, 0, out, sizeof(out));
	return cx;
}

struct cx *dev_up_eth(void)
{
	struct cx *cx;

	dev_eth = true;
	cx = dev_up();
	dev_eth = false;
	return cx;
}

uint32_t alloc_uar(struct cx *cx)
{
	uint8_t out[16];

	CHECK_EQ(simple(cx, CX_OP_ALLOC_UAR, 0, out, sizeof(out)), CX_OK);
	return cx_get(out, F_ALLOC_UAR_OUT_UAR);
}

/* ALLOC_UAR, then CREATE_EQ of 2^LOG entries taking event TYPE. */
int make_eq_for(struct cx *cx, unsigned int log, unsigned int vec,
		uint32_t *uar, uint64_t pages, uint8_t type)
{
	static uint8_t in[0x110 + 8 * 8];
	uint8_t out[16], *eqc = in + B_CREATE_EQ_IN_EQ_CONTEXT_ENTRY;
	unsigned int i, n = ((64u << log) + 4095) / 4096;

	*uar = alloc_uar(cx);
	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_EQ);
	cx_set(eqc, F_EQC_LOG_EQ_SIZE, log);
	cx_set(eqc, F_EQC_UAR_PAGE, *uar);
	cx_set(eqc, F_EQC_INTR, vec);
	cx_set64(in, B_CREATE_EQ_IN_EVENT_BITMASK + type / 64 * 8,
		 1ull << (type % 64));
	for (i = 0; i < n; i++)
		cx_set64(in, B_CREATE_EQ_IN_PAS + i * 8, pages + i * 4096);
	for (i = 0; t_dma(NULL, pages, 64u << log, true) && i < (1u << log);
	     i++)
		at(pages)[i * 64 + 63] = 1; /* mlx5_core's init owner value */
	return cmd_made(cx, in, 0x110 + n * 8, out, sizeof(out),
			F_CREATE_EQ_OUT_EQ_NUMBER);
}

/* ... taking command completions. */
int make_eq(struct cx *cx, unsigned int log, unsigned int vec, uint32_t *uar,
	    uint64_t pages)
{
	return make_eq_for(cx, log, vec, uar, pages, CX_EVENT_CMD);
}

/* CREATE_CQ: the cqn or minus the status. */
int make_cq(struct cx *cx, const struct cq_args *a)
{
	static uint8_t in[0x110 + 8 * 8];
	uint8_t out[16], *cqc = in + B_CQ_CONTEXT;
	uint64_t pagesz = 4096ull << a->lps,
		 start = a->page_offset * pagesz / 64;
	uint64_t ring = a->pages + start;
	unsigned int i,
		n = (start + ((64u << a->cqe_sz) << a->log) + pagesz - 1) /
		    pagesz;

	if (n > 8)
		n = 8; /* too short for the size: the size is refused first */

	memset(in, 0, sizeof(in));
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_CQ);
	cx_set(cqc, F_CQC_LOG_CQ_SIZE, a->log);
	cx_set(cqc, F_CQC_CQE_SZ, a->cqe_sz);
	cx_set(cqc, F_CQC_UAR_PAGE, a->uar);
	cx_set(cqc, F_CQC_C_EQN, a->eqn);
	cx_set(cqc, F_CQC_OI, a->oi);
	cx_set(cqc, F_CQC_CQ_PERIOD, a->period);
	cx_set(cqc, F_CQC_CQ_MAX_COUNT, a->max_count);
	cx_set(cqc, F_CQC_SCQE_BREAK_MODERATION_EN, a->scqe_break);
	cx_set(cqc, F_CQC_LOG_PAGE_SIZE, a->lps);
	cx_set(cqc, F_CQC_PAGE_OFFSET, a->page_offset);
	cx_set64(cqc, B_CQC_DBR_ADDR, a->dbr);
	for (i = 0; i < n; i++)
		cx_set64(in, B_CREATE_CQ_IN_PAS + i * 8, a->pages + i * pagesz);
	/* mlx5_ib's init_cq_frag_buf(): invalid opcode, owner 0 */
	for (i = 0;
	     t_dma(NULL, ring, 64u << a->log, true) && i < (1u << a->log); i++)
		at(ring)[i * (64u << a->cqe_sz) + (64u << a->cqe_sz) - 1] =
			0xf0;
	return cmd_made(cx, in, 0x110 + n * 8, out, sizeof(out), F_CQN);
}
