// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The model's memory keys: an lkey or rkey names an MR of the device's
 * table (lkey == rkey), which covers [iova, iova + len) at a host address.
 * The engine reaches them through the seam (m5m_eng.c, m5m_dma.c).
 */
#include "m5m_int.h"

struct m5m_mr *m5m_mr_find(struct m5m_dev *dev, uint32_t key)
{
	struct m5m_mr *mr = m5m_tab_get(&dev->mrs, key >> 8);

	return mr && mr->key == key ? mr : NULL;
}

bool m5m_mr_covers(const struct m5m_mr *mr, uint64_t addr, uint64_t len)
{
	return addr >= mr->iova && len <= mr->len &&
	       addr - mr->iova <= mr->len - len;
}

bool m5m_pd_in_use(struct m5m_dev *dev, struct m5m_pd *pd)
{
	return pd->users != 0;
}
