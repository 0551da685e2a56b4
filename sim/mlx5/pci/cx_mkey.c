// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory keys: CREATE_MKEY and DESTROY_MKEY.  A key is its index (24 bits,
 * handed out here from 1) and the variant byte the driver chooses
 * (mkc.mkey_7_0): mlx5 uses (index << 8) | variant.  Two access modes:
 * PA (physical addresses, what mlx5_ib's DMA MR of every ib_alloc_pd() is,
 * with length64 for the whole space) and MTT (a page list given with the
 * command, kept here for the data path).  An MTT key is made for
 * mkc.translations_octword_size octowords (two entries each), of which the
 * command may give the first translations_octword_actual_size, rounded up
 * to UMR's 64-byte unit; a UMR WQE loads the others (cx_umr.c through cx_mkey_load(): mlx5_ib's mkey cache
 * makes free keys with no entries and fills them so).  Entries never given
 * are not present.  An mkey created free (mkc.free) waits for a UMR to
 * enable it.  KLM mode is mlx5_ib_alloc_mw()'s memory window: free,
 * umr_en, local read, qpn 0xffffff, room for 4 KLM entries and none given
 * (en_rinval for type 2); cx_mw.c binds it.  cx_mkey_xlate() is how the
 * data path and the UMR QP use a key.
 */
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"

enum {
	ACCESS_PA = CX_MKEY_MODE_PA,
	ACCESS_MTT = CX_MKEY_MODE_MTT,
	ACCESS_KLM = CX_MKEY_MODE_KLM,
	MAX_MTT = 1 << 16,     /* 256 MiB of 4 KiB pages in one command */
	MAX_MTT_CAP = 1 << 24, /* entries a key may be made for (64 GiB) */
};

void cx_mkey_reset(struct cx *cx)
{
	unsigned int i;

	for (i = 0; i < CX_MAX_MKEY; i++)
		free(cx->mkey[i].mtt);
	memset(cx->mkey, 0, sizeof(cx->mkey));
}

static int create_mkey(struct cx *cx, struct cx_cmd *c)
{
	int st;
	const uint8_t *mkc = c->in + B_CREATE_MKEY_IN_MKC;
	uint32_t mode = cx_get(mkc, F_MKC_ACCESS_MODE_4_2) << 2 |
			cx_get(mkc, F_MKC_ACCESS_MODE_1_0);
	uint32_t pd = cx_get(mkc, F_MKC_PD);
	uint32_t octw = cx_get(c->in, F_CREATE_MKEY_IN_TRANSLATIONS_ACTUAL);
	uint32_t size = cx_get(mkc, F_MKC_TRANSLATIONS_OCTWORD_SIZE);
	struct cx_mkey *k = NULL;
	unsigned int i;

	st = cx_cmd_need(cx, c, B_CREATE_MKEY_IN_MTT, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	if (mode != ACCESS_PA && mode != ACCESS_MTT && mode != ACCESS_KLM)
		return CX_BAD_PARAM;
	if (pd >= CX_OBJ_MAX ||
	    !(cx->obj_used[CX_OBJ_PD][pd / 8] >> (pd % 8) & 1))
		return CX_BAD_RES;
	if (octw > MAX_MTT / 2 || (mode != ACCESS_MTT && octw) ||
	    size > MAX_MTT_CAP / 2)
		return CX_BAD_PARAM;
	if (c->inlen < B_CREATE_MKEY_IN_MTT + octw * 16)
		return CX_BAD_INP_LEN;
	/*
	 * Index 1 is never handed out: its key with variant 0 is 0x100,
	 * MLX5_INVALID_LKEY, which drivers write to end a scatter list
	 * (mlx5e's receive WQEs, libmlx5's), so no key may be it.
	 */
	for (i = CX_FIRST_MKEY; i < CX_MAX_MKEY && !k; i++)
		if (!cx->mkey[i].valid)
			k = &cx->mkey[i];
	if (!k)
		return CX_NO_RES;
	memset(k, 0, sizeof(*k));
	if (octw) {
		k->mtt = calloc(octw * 2, sizeof(*k->mtt));
		if (!k->mtt)
			return CX_NO_RES;
		for (i = 0; i < octw * 2; i++)
			k->mtt[i] =
				cx_get64(c->in, B_CREATE_MKEY_IN_MTT + i * 8);
	}
	k->nmtt = octw * 2;
	/* UMR WQEs copy entries in 64-byte units (MLX5_UMR_MTT_ALIGNMENT):
	 * a key's room is rounded up to one (mlx5_ib's smallest cached key
	 * has 2 octowords and gets 4 written). */
	if (mode == ACCESS_MTT)
		k->mtt_cap = ((size > octw ? size : octw) + 3) / 4 * 8;
	k->mode = mode;
	k->free = cx_get(mkc, F_MKC_FREE);
	k->umr_en = cx_get(mkc, F_MKC_UMR_EN);
	k->en_rinval = cx_get(mkc, F_MKC_EN_RINVAL);
	k->access = cx_get(mkc, F_MKC_A) << 4 | cx_get(mkc, F_MKC_RW) << 3 |
		    cx_get(mkc, F_MKC_RR) << 2 | cx_get(mkc, F_MKC_LW) << 1 |
		    cx_get(mkc, F_MKC_LR);
	k->variant = cx_get(mkc, F_MKC_MKEY_7_0);
	k->pd = pd;
	k->qpn = cx_get(mkc, F_MKC_QPN);
	k->length64 = cx_get(mkc, F_MKC_LENGTH64);
	k->start = cx_get64(mkc, B_MKC_START_ADDR);
	k->len = cx_get64(mkc, B_MKC_LEN);
	k->log_page_size = cx_get(mkc, F_MKC_LOG_PAGE_SIZE);
	k->valid = true;
	cx_set(c->out, F_MKEY_INDEX, k - cx->mkey);
	return CX_OK;
}

struct cx_mkey *cx_mkey_at(struct cx *cx, uint32_t key)
{
	uint32_t i = key >> 8;

	if (!i || i >= CX_MAX_MKEY || !cx->mkey[i].valid)
		return NULL;
	return &cx->mkey[i];
}

struct cx_mkey *cx_mkey_get(struct cx *cx, uint32_t key)
{
	uint32_t i = key >> 8;

	if (!i || i >= CX_MAX_MKEY || !cx->mkey[i].valid ||
	    cx->mkey[i].variant != (key & 0xff))
		return NULL;
	return &cx->mkey[i];
}

/*
 * SEND with Invalidate at the responder: a key in use, of pdn, created
 * with en_rinval (mlx5_ib sets it on type-2 memory windows only) becomes
 * free.  -1 for any other key, which stays as it is.
 */
int cx_mkey_rinval(struct cx *cx, uint32_t pdn, uint32_t key)
{
	struct cx_mkey *k = cx_mkey_get(cx, key);

	if (!k || k->free || !k->en_rinval || k->pd != pdn)
		return -1;
	k->free = true;
	return 0;
}

/*
 * The fields of a UMR WQE's mkey segment MKC that both UMR paths take as
 * MASK names them: start, variant, QPN, free and the access bits.  The
 * caller has refused every mask bit it does not take.
 */
void cx_mkey_take(struct cx_mkey *k, const uint8_t *mkc, uint64_t mask)
{
	static const struct {
		uint64_t mask;
		uint32_t off, bits; /* the mkc field */
		uint8_t access;
	} acc[] = {
		{ CX_UMR_MASK_LR, F_MKC_LR, CX_MKEY_LR },
		{ CX_UMR_MASK_LW, F_MKC_LW, CX_MKEY_LW },
		{ CX_UMR_MASK_RR, F_MKC_RR, CX_MKEY_RR },
		{ CX_UMR_MASK_RW, F_MKC_RW, CX_MKEY_RW },
		{ CX_UMR_MASK_A, F_MKC_A, CX_MKEY_A },
	};
	size_t i;

	if (mask & CX_UMR_MASK_START)
		k->start = cx_get64(mkc, B_MKC_START_ADDR);
	if (mask & CX_UMR_MASK_KEY)
		k->variant = cx_get(mkc, F_MKC_MKEY_7_0);
	if (mask & CX_UMR_MASK_QPN)
		k->qpn = cx_get(mkc, F_MKC_QPN);
	if (mask & CX_UMR_MASK_FREE)
		k->free = cx_get(mkc, F_MKC_FREE);
	for (i = 0; i < sizeof(acc) / sizeof(acc[0]); i++)
		if (mask & acc[i].mask)
			k->access = (k->access & ~acc[i].access) |
				    (cx_get(mkc, acc[i].off, acc[i].bits)
					     ? acc[i].access
					     : 0);
}

bool cx_mkey_fits(const struct cx_mkey *k, uint64_t at, uint32_t n)
{
	return k->mode == ACCESS_MTT && at <= k->mtt_cap &&
	       n <= k->mtt_cap - at;
}

bool cx_mkey_load(struct cx_mkey *k, uint64_t at, uint32_t n,
		  const uint64_t *mtt)
{
	uint64_t *m;

	if (!cx_mkey_fits(k, at, n))
		return false;
	if (at + n > k->nmtt) {
		m = realloc(k->mtt, (at + n) * sizeof(*m));
		if (!m)
			return false;
		memset(m + k->nmtt, 0, (at + n - k->nmtt) * sizeof(*m));
		k->mtt = m;
		k->nmtt = at + n;
	}
	memcpy(k->mtt + at, mtt, n * sizeof(*mtt));
	return true;
}

/*
 * Guest address of byte ADDR of key K and how far it stays in one page
 * (PA: to the end of addr's 4 KiB page); false past the key's pages.
 */
static bool key_gpa(const struct cx_mkey *k, uint64_t addr, uint64_t *gpa,
		    uint64_t *run)
{
	uint64_t pagesz, off;

	if (k->mode == ACCESS_PA) {
		*gpa = addr;
		*run = CX_PAGE - addr % CX_PAGE;
		return true;
	}
	pagesz = 1ull << k->log_page_size;
	off = addr - k->start + (k->start & (pagesz - 1));
	if (off / pagesz >= k->nmtt)
		return false;
	/* The low bits of an MTT entry are flags (present, read, write). */
	*gpa = (k->mtt[off / pagesz] & ~(pagesz - 1)) + off % pagesz;
	*run = pagesz - off % pagesz;
	return true;
}

static int xlate(struct cx *cx, uint32_t pdn, uint32_t key, uint64_t addr,
		 uint64_t len, int want, bool write, uint8_t **host,
		 uint64_t *run, bool via_window)
{
	const struct cx_mkey *k = cx_mkey_get(cx, key);
	uint64_t a, gpa, r, first_run = 0;
	uint8_t *first = NULL;

	if (!k || k->free || (pdn != CX_ANY_PD && k->pd != pdn) ||
	    (k->access & want) != want || !len)
		return -1;
	if (k->mode == ACCESS_KLM) {
		if (via_window || addr < k->start || len > k->len ||
		    addr - k->start > k->len - len)
			return -1;
		return xlate(cx, k->pd, k->klm_key,
			     k->klm_addr + (addr - k->start), len,
			     CX_MKEY_LR | (write ? CX_MKEY_LW : 0), write, host,
			     run, true);
	}
	if (k->mode == ACCESS_MTT &&
	    (k->log_page_size < 12 || k->log_page_size > 30))
		return -1;
	if (!k->length64 &&
	    (addr < k->start || len > k->len || addr - k->start > k->len - len))
		return -1;
	if (addr + len < addr)
		return -1;
	/* Every page of the range, so that a failed check copies nothing. */
	for (a = addr; a - addr < len; a += r) {
		uint8_t *p;

		if (!key_gpa(k, a, &gpa, &r))
			return -1;
		if (r > len - (a - addr))
			r = len - (a - addr);
		p = cx_dma(cx, gpa, r, write);
		if (!p)
			return -1;
		if (!first) {
			first = p;
			first_run = r;
		} else if (p == first + first_run && a - addr == first_run) {
			first_run += r; /* still contiguous on the host */
		}
	}
	*host = first;
	*run = first_run;
	return 0;
}

int cx_mkey_xlate(struct cx *cx, uint32_t pdn, uint32_t key, uint64_t addr,
		  uint64_t len, int want, bool write, uint8_t **host,
		  uint64_t *run)
{
	return xlate(cx, pdn, key, addr, len, want, write, host, run, false);
}

int cx_mkey_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c)
{
	int st;
	uint32_t i;

	if (opcode == CX_OP_CREATE_MKEY)
		return create_mkey(cx, c);
	st = cx_cmd_need(cx, c, 16, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	i = cx_get(c->in, F_MKEY_INDEX);
	if (!i || i >= CX_MAX_MKEY || !cx->mkey[i].valid)
		return CX_BAD_RES;
	free(cx->mkey[i].mtt);
	memset(&cx->mkey[i], 0, sizeof(cx->mkey[i]));
	return CX_OK;
}
