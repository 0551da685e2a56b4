// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory keys: CREATE_MKEY and DESTROY_MKEY.  A key is its index (24 bits,
 * handed out here from 1) and the variant byte the driver chooses
 * (mkc.mkey_7_0): mlx5 uses (index << 8) | variant.  Two access modes:
 * PA (physical addresses, what mlx5_ib's DMA MR of every ib_alloc_pd() is,
 * with length64 for the whole space) and MTT (a page list given with the
 * command, kept here for the data path).  An mkey created free (mkc.free)
 * waits for a UMR to fill it.  The data path that checks accesses against
 * the keys is step 2.
 */
#include <stdlib.h>
#include <string.h>

#include "cx_ifc.h"
#include "cx_int.h"

enum {
	ACCESS_PA = 0,
	ACCESS_MTT = 1,
	MAX_MTT = 1 << 16, /* 256 MiB of 4 KiB pages in one command */
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
	struct cx_mkey *k = NULL;
	unsigned int i;

	st = cx_cmd_need(cx, c, B_CREATE_MKEY_IN_MTT, 16, CX_HCA_INITIALIZED);
	if (st)
		return st;
	if (mode != ACCESS_PA && mode != ACCESS_MTT)
		return CX_BAD_PARAM;
	if (pd >= CX_OBJ_MAX ||
	    !(cx->obj_used[CX_OBJ_PD][pd / 8] >> (pd % 8) & 1))
		return CX_BAD_RES;
	if (octw > MAX_MTT / 2 || (mode == ACCESS_PA && octw))
		return CX_BAD_PARAM;
	if (c->inlen < B_CREATE_MKEY_IN_MTT + octw * 16)
		return CX_BAD_INP_LEN;
	for (i = 1; i < CX_MAX_MKEY && !k; i++)
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
	k->mode = mode;
	k->free = cx_get(mkc, F_MKC_FREE);
	k->umr_en = cx_get(mkc, F_MKC_UMR_EN);
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
