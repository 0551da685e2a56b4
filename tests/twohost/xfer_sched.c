// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_xfer's schedules: the deterministic pseudo-random numbers and byte
 * patterns every message carries, the schedule of work requests each side
 * runs on each RC QP, and where every message lives in the buffers (its
 * offsets, the canary gaps, the atomic words).
 */
#include <stdlib.h>
#include <string.h>

#include "xfer.h"

const char *const op_name[OP_COUNT] = { "SEND",
					"SEND_WITH_IMM",
					"RDMA_WRITE",
					"RDMA_WRITE_WITH_IMM",
					"RDMA_READ",
					"FETCH_AND_ADD",
					"COMPARE_AND_SWAP",
					"FETCH_AND_ADD(shared)" };

/* Deterministic pseudo-random numbers and patterns. */

uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

uint64_t msg_seed(int init_side, int q, uint32_t k)
{
	return mix64(opt.seed ^ mix64(((uint64_t)init_side << 56) |
				      ((uint64_t)q << 32) | k));
}

/* Byte i of the pattern with seed s (xorshift64*, 8 bytes per step). */
void pattern_fill(uint8_t *p, size_t n, uint64_t s, bool inverted)
{
	uint64_t x = mix64(s) | 1, w;
	uint8_t inv = inverted ? 0xff : 0;
	size_t i = 0;

	while (i < n) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w = x * 0x2545f4914f6cdd1dull;
		for (int b = 0; b < 8 && i < n; b++, i++)
			p[i] = (uint8_t)(w >> (8 * b)) ^ inv;
	}
}

/* Index of the first byte that differs from the pattern, or n. */
size_t pattern_check(const uint8_t *p, size_t n, uint64_t s)
{
	uint64_t x = mix64(s) | 1, w;
	size_t i = 0;

	while (i < n) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w = x * 0x2545f4914f6cdd1dull;
		if (i + 8 <= n) {
			uint64_t v;

			memcpy(&v, p + i, 8); /* little endian (x86-64) */
			if (v == w) {
				i += 8;
				continue;
			}
		}
		for (int b = 0; b < 8 && i < n; b++, i++)
			if (p[i] != (uint8_t)(w >> (8 * b)))
				return i;
	}
	return n;
}

void canary_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(0xa5 ^ (i * 131));
}

/* ------------------------------------------------------------------------- */
/* Schedules and buffer layout. */

static const uint32_t small_sizes[] = {
	1,    2,    3,	  4,	5,     7,     8,     9,	    15,
	16,   17,   31,	  32,	33,    63,    64,    65,    127,
	128,  129,  255,  256,	257,   511,   512,   513,   1000,
	1023, 1024, 1025, 1500, 2047,  2048,  2049,  4095,  4096,
	4097, 8191, 8192, 8193, 12288, 16384, 32768, 65535, 65536
};
#define N_SMALL (sizeof(small_sizes) / sizeof(small_sizes[0]))

/* Large messages, at fixed places: (QP, index, op, size), placed where the
 * QP's class allows the op; sizes above MAXSIZE are capped to it. */
static const struct {
	int q;
	uint32_t k;
	uint8_t op;
	uint32_t size;
} bigs[] = {
	{ 0, 9, OP_WRITE, 4u << 20 },	  { 1, 10, OP_SEND, 4u << 20 },
	{ 2, 11, OP_READ, 4u << 20 },	  { 4, 12, OP_WRITE_IMM, 1u << 20 },
	{ 5, 13, OP_SEND_IMM, 1u << 20 }, { 6, 14, OP_READ, 1u << 20 },
	{ 7, 15, OP_READ, 256u << 10 },	 /* mixed mode only */
	{ 3, 16, OP_WRITE, 128u << 10 }, /* mixed mode only */
};

/* Opcodes a QP carries. Split mode (default): QPs 0,1 mod 4 carry SEND,
 * SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM; QPs 2 mod 4 RDMA_READ;
 * QPs 3 mod 4 the atomics. Mixed mode: every QP carries every opcode (on
 * Linux 6.1 rxe a retransmitted SEND/WRITE can then complete a later READ or
 * atomic without its data, see docs/reliability.md, "What Linux 6.1's rxe
 * gets wrong under retransmission"). */
static bool op_allowed(int q, uint8_t op)
{
	if (opt.mixed)
		return true;
	switch (q % 4) {
	case 0:
	case 1:
		return op <= OP_WRITE_IMM;
	case 2:
		return op == OP_READ;
	default:
		return op >= OP_FAA;
	}
}

uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* The schedule side init_side runs on QP q: first every allowed opcode once
 * (rotated by q), then random ones; big messages at fixed places. */
void build_sched(struct sched *s, int init_side, int q)
{
	uint64_t r = mix64(opt.seed * 1000003 + (uint64_t)init_side * 7919 + q);
	uint8_t allowed[OP_COUNT], na = 0;

	for (int o = 0; o < OP_COUNT; o++)
		if (op_allowed(q, o))
			allowed[na++] = o;
	s->n = opt.msgs;
	s->m = calloc(s->n, sizeof(*s->m));
	if (!s->m)
		fatal(T_SETUP, "out of memory");
	for (uint32_t k = 0; k < s->n; k++) {
		struct msg *m = &s->m[k];
		uint64_t x = rng_next(&r);

		if (k < na) {
			m->op = allowed[(k + q) % na];
		} else {
			/* weights: send 16, send_imm 10, write 16, write_imm 10,
			 * read 20, faa 12, cas 8, faa_shared 8 */
			static const uint8_t w[] = { 16, 10, 16, 10,
						     20, 12, 8,	 8 };
			unsigned tot = 0, v, acc = 0;

			for (int i = 0; i < na; i++)
				tot += w[allowed[i]];
			v = x % tot;
			for (int i = 0; i < na; i++) {
				acc += w[allowed[i]];
				if (v < acc) {
					m->op = allowed[i];
					break;
				}
			}
		}
		m->size = small_sizes[(x >> 8) % N_SMALL];
		if (m->op == OP_WRITE_IMM && (x >> 20) % 8 == 0)
			m->size = 0; /* zero-length WRITE_WITH_IMM */
		for (size_t b = 0; b < sizeof(bigs) / sizeof(bigs[0]); b++)
			if (bigs[b].q == q && bigs[b].k == k &&
			    op_allowed(q, bigs[b].op)) {
				m->op = bigs[b].op;
				m->size = bigs[b].size;
			}
		if (m->size > opt.maxsize)
			m->size = opt.maxsize;
		if (m->op == OP_READ && opt.maxread && m->size > opt.maxread)
			m->size = opt.maxread;
		if (m->op >= OP_FAA)
			m->size = 8;
		m->nsge =
			(m->op <= OP_READ && m->size >= 2 && (x >> 32) % 3 == 0)
				? 2
				: 1;
		m->inl = (m->op == OP_SEND || m->op == OP_SEND_IMM ||
			  m->op == OP_WRITE) &&
			 m->size <= INLINE_MAX && m->nsge == 1 &&
			 (x >> 40) % 2 == 0;
		m->recv_idx = -1;
		if (m->op == OP_SEND || m->op == OP_SEND_IMM ||
		    m->op == OP_WRITE_IMM)
			m->recv_idx = s->nrecv++;
		if (m->op == OP_FAA)
			m->expect = s->nfaa++;
		else if (m->op == OP_CAS)
			m->expect = s->ncas++;
		else if (m->op == OP_FAA_SHARED)
			s->nshared++;
	}
}

/* Offsets of the messages of the schedules (one per QP) of one initiator:
 * local area (sources, READ destinations, atomic results), the target's
 * receive area (SEND destinations) and the target's remote area (WRITE
 * destinations, READ sources). Segments start at varied alignments and are
 * followed by GAP canary bytes. The target's atomic words come after its
 * remote area: QP q's FAA word at +32*q, its CAS word at +32*q+8, the shared
 * counter at +32*nqps. */
void layout(struct sched *s, struct sizes *z)
{
	uint64_t loc = GAP, rcv = GAP, rem = GAP;

	for (int q = 0; q < opt.nqps; q++)
		for (uint32_t k = 0; k < s[q].n; k++) {
			struct msg *m = &s[q].m[k];
			uint64_t mis = m->op >= OP_FAA ? 0 : (k * 3 + q) % 8;

			loc = align_up(loc, 8) + mis;
			m->loc_off = loc;
			loc += m->size + GAP;
			if (m->op == OP_SEND || m->op == OP_SEND_IMM) {
				rcv = align_up(rcv, 8) + (k + q) % 8;
				m->rcv_off = rcv;
				rcv += m->size + GAP;
			}
			if (m->op == OP_WRITE || m->op == OP_WRITE_IMM ||
			    m->op == OP_READ) {
				rem = align_up(rem, 8) + (k * 5 + q) % 8;
				m->rem_off = rem;
				rem += m->size + GAP;
			}
		}
	z->loc = align_up(loc, 64);
	z->rcv = align_up(rcv, 64);
	z->rem = align_up(rem, 64);
	for (int q = 0; q < opt.nqps; q++)
		for (uint32_t k = 0; k < s[q].n; k++) {
			struct msg *m = &s[q].m[k];

			if (m->op == OP_FAA)
				m->rem_off = z->rem + 32 * q;
			else if (m->op == OP_CAS)
				m->rem_off = z->rem + 32 * q + 8;
			else if (m->op == OP_FAA_SHARED)
				m->rem_off = z->rem + 32 * opt.nqps;
		}
}

uint64_t atomic_area(void)
{
	return 32 * (opt.nqps + 1);
}
