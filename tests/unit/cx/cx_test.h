/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The unit tests' driver side (cx_test.c), shared by the test_cx*.c files. */
#ifndef DOORBELL_TESTS_CX_TEST_H
#define DOORBELL_TESTS_CX_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "cx_int.h"

enum {
	MEM_BASE = 0x100000,
	MEM_SIZE = 1 << 20,
	CMDQ = MEM_BASE,	       /* one page of 32 entries */
	MBOX = MEM_BASE + 0x10000,     /* mailboxes, 1 KiB apart */
	EQ_PAGES = MEM_BASE + 0x80000, /* EQ ring */
	DBELL = 0x18,
};

extern uint8_t *mem;
extern unsigned int irqs[CX_MSIX_VECTORS];
/* The MSI-X vectors of the devices dev_new() makes (0: CX_MSIX_VECTORS). */
extern unsigned int dev_vectors;
/* Whether the devices dev_new() makes have an Ethernet port (--eth). */
extern bool dev_eth;
/* WQEs per QP per tick of the devices dev_new() makes (0: not slow). */
extern unsigned int dev_slow;

void *t_dma(void *ctx, uint64_t addr, uint64_t len, bool write);
struct cx *dev_new(void);
/* The buffer's byte at guest address ADDR. */
uint8_t *at(uint64_t addr);
void w32(struct cx *cx, uint32_t off, uint32_t v);
uint32_t r32(struct cx *cx, uint32_t off);
/* Run one command through entry 0; the delivery status, OUTLEN bytes to OUT. */
int cmd(struct cx *cx, const uint8_t *in, uint32_t inlen, uint8_t *out,
	uint32_t outlen);
/*
 * A create command through cmd(): the new object's number, the output's
 * field at OFF of WIDTH bits (an F_* pair), or minus the status; -1 if the
 * command was not delivered.
 */
int cmd_made(struct cx *cx, const uint8_t *in, uint32_t inlen, uint8_t *out,
	     uint32_t outlen, unsigned int off, unsigned int width);
/* A command with no parameters but OP and OP_MOD; returns its status. */
int simple(struct cx *cx, uint16_t op, uint16_t op_mod, uint8_t *out,
	   uint32_t outlen);
/* mlx5_function_setup() up to INIT_HCA, on a fresh device. */
struct cx *dev_up(void);
/* ... of an Ethernet port (dev_eth for this one device). */
struct cx *dev_up_eth(void);
/* ALLOC_UAR: the UAR page's index. */
uint32_t alloc_uar(struct cx *cx);
/* ALLOC_UAR, then CREATE_EQ of 2^LOG entries on VEC taking event TYPE:
 * the EQ number or minus the status. */
int make_eq_for(struct cx *cx, unsigned int log, unsigned int vec,
		uint32_t *uar, uint64_t pages, uint8_t type);
/* ... taking command completions. */
int make_eq(struct cx *cx, unsigned int log, unsigned int vec, uint32_t *uar,
	    uint64_t pages);

struct cq_args {
	unsigned int log, cqe_sz, period, max_count;
	unsigned int lps, page_offset; /* pages of 4 KiB << lps; 1/64ths */
	uint32_t eqn, uar;
	uint64_t pages, dbr;
	bool oi;
	bool scqe_break; /* scqe_break_moderation_en */
};

/* CREATE_CQ of A (its ring initialised as mlx5_ib does): the cqn or
 * minus the status. */
int make_cq(struct cx *cx, const struct cq_args *a);

/* check_main() over TESTS, then the guest memory dev_new() made freed. */
int cx_test_main(int argc, char **argv, const char *prefix,
		 const struct check_test *tests, int n);
#define CX_TEST_MAIN(argc, argv, prefix, tests)                                \
	cx_test_main(argc, argv, prefix, tests,                                \
		     sizeof(tests) / sizeof(tests[0]))

#endif
