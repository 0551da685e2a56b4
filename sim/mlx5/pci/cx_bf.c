// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * BlueFlame: the writes at offset 0x800 and up of a UAR page.  Each 512-byte
 * bfreg (log_bf_reg_size 9) has two halves; a provider writes either the
 * first 8 bytes of a WQE's ctrl segment at a half's start (the send
 * doorbell) or the whole WQE (a BlueFlame copy), then switches halves.
 * vfio-user delivers a copy as several writes in order, so the writes of
 * one half are assembled here: when the WQE's ds * 16 bytes have arrived
 * (at most the half), the device runs the payload instead of the WQE in
 * host memory (cx_eng_send_doorbell with the whole payload).
 *
 * A write at a half's start cannot tell a doorbell from a copy's first
 * piece, so the device holds it until the next write that is not its
 * continuation, or until the server has heard nothing for CX_BF_WAIT_NS
 * (cx_bf_timers): then 8 bytes are a doorbell, run from host memory.  A
 * copy cut short by a write at the other half of its bfreg is a torn copy:
 * counted (bf_partial) and not run.  One cut short otherwise (a write of
 * another process, or the wait ran out) is rung as a doorbell from memory:
 * its first 8 bytes are one.  With cx_host.bf_wait_ns 0 (the unit tests'
 * rig) nothing is held: what one write brought is resolved at once.
 */
#include <string.h>

#include "cx_engine.h"
#include "cx_ifc.h"
#include "cx_int.h"

enum {
	BF_OFFSET = 0x800, /* MLX5_BF_OFFSET: the first bfreg */
	BF_REG = 0x200,	   /* 1 << log_bf_reg_size */
};

/* The half at page, off was rung (doorbell or copy); counts reuse. */
static void bf_rung(struct cx *cx, uint32_t page, uint32_t off, bool copy)
{
	struct cx_bf *bf = &cx->bf;
	uint32_t reg = (off - BF_OFFSET) / BF_REG;
	uint8_t half = 1 + (off % BF_REG) / CX_BF_HALF;

	if (copy && bf->last[page][reg] == half)
		cx_eng_bf_note(cx, CX_BF_HALF_REUSED);
	bf->last[page][reg] = half;
}

/* LEN bytes of the held half ring: an Ethernet SQ's, else a QP's. */
static void bf_ring(struct cx *cx, uint32_t len, bool copy)
{
	struct cx_bf *bf = &cx->bf;

	bf_rung(cx, bf->page, bf->off, copy);
	if (!cx_sq_doorbell(cx, bf->page, bf->buf, len))
		cx_eng_send_doorbell(cx, bf->page, bf->off, bf->buf, len);
}

/*
 * The held half is done with: TORN when a write at a half of its bfreg
 * came before the copy was whole.
 */
static void bf_resolve(struct cx *cx, bool torn)
{
	struct cx_bf *bf = &cx->bf;

	if (!bf->open)
		return;
	bf->open = false;
	if (bf->got < 8)
		return; /* not even a doorbell */
	if (torn && bf->got > 8) {
		cx_trace(cx, "violation: BlueFlame copy of %u bytes torn",
			 bf->got);
		cx_eng_bf_note(cx, CX_BF_PARTIAL);
		return;
	}
	bf_ring(cx, 8, false);
}

/* A complete copy: the payload runs. */
static void bf_run(struct cx *cx)
{
	struct cx_bf *bf = &cx->bf;

	bf->open = false;
	bf_ring(cx, bf->need, true);
}

/* ds * 16 bytes, at most the half; 0 while the ctrl segment is short. */
static uint32_t bf_need(const struct cx_bf *bf)
{
	uint32_t ds;

	if (bf->got < 8)
		return 0;
	ds = cx_get(bf->buf, 58, 6);
	return ds * 16 < CX_BF_HALF ? ds * 16 : CX_BF_HALF;
}

static void bf_take(struct cx *cx, const uint8_t *b, uint32_t len)
{
	struct cx_bf *bf = &cx->bf;
	uint32_t room = CX_BF_HALF - bf->got;

	memcpy(bf->buf + bf->got, b, len < room ? len : room);
	bf->got += len < room ? len : room;
	bf->need = bf_need(bf);
	if (bf->need && bf->got >= bf->need && bf->need > 8)
		bf_run(cx);
	else if (!cx->host.bf_wait_ns)
		bf_resolve(cx, false);
	else
		bf->since_ns = cx_now_ns();
}

void cx_bf_write(struct cx *cx, uint32_t page, uint32_t off, const uint8_t *b,
		 uint32_t len)
{
	struct cx_bf *bf = &cx->bf;
	bool same_reg;

	if (bf->open && page == bf->page && off == bf->off + bf->got) {
		bf_take(cx, b, len);
		return;
	}
	same_reg = bf->open && page == bf->page &&
		   (off - BF_OFFSET) / BF_REG == (bf->off - BF_OFFSET) / BF_REG;
	bf_resolve(cx, same_reg && off % CX_BF_HALF == 0);
	if (off % CX_BF_HALF)
		return; /* the rest of a copy already resolved */
	bf->open = true;
	bf->page = page;
	bf->off = off;
	bf->got = 0;
	bf_take(cx, b, len);
}

void cx_bf_flush(struct cx *cx)
{
	bf_resolve(cx, false);
}

int64_t cx_bf_timers(struct cx *cx)
{
	struct cx_bf *bf = &cx->bf;
	uint64_t now, due;

	if (!bf->open)
		return -1;
	now = cx_now_ns();
	due = bf->since_ns + cx->host.bf_wait_ns;
	if (now < due)
		return (int64_t)(due - now);
	bf_resolve(cx, false);
	return -1;
}

void cx_bf_uar_fresh(struct cx *cx, uint32_t page)
{
	if (cx->bf.open && cx->bf.page == page)
		bf_resolve(cx, false);
	memset(cx->bf.last[page], 0, sizeof(cx->bf.last[page]));
}

void cx_bf_reset(struct cx *cx)
{
	memset(&cx->bf, 0, sizeof(cx->bf));
}
