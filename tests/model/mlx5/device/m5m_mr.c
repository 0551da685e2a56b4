// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory keys and the device's DMA: translating an lkey or rkey plus an
 * address range to host memory, with the protection domain, access and
 * bounds checks that decide which syndrome a failed access gets.
 */
#include "m5m_int.h"

struct m5m_mr *m5m_mr_find(struct m5m_dev *dev, uint32_t key)
{
	struct m5m_mr *mr = m5m_tab_get(&dev->mrs, key >> 8);

	return mr && mr->key == key ? mr : NULL;
}

static bool m5m_mr_covers(const struct m5m_mr *mr, uint64_t addr, uint64_t len)
{
	return addr >= mr->iova && len <= mr->len &&
	       addr - mr->iova <= mr->len - len;
}

int m5m_mr_local(struct m5m_pd *pd, uint32_t lkey, uint64_t addr, uint64_t len,
		 bool write, uint8_t **host)
{
	struct m5m_mr *mr = m5m_mr_find(pd->ctx->dev, lkey);

	if (!mr || mr->pd != pd || !m5m_mr_covers(mr, addr, len) ||
	    (write && !(mr->access & IBV_ACCESS_LOCAL_WRITE)))
		return M5_SYND_LOCAL_PROT_ERR;
	*host = mr->host + (addr - mr->iova);
	return 0;
}

int m5m_mr_remote(struct m5m_qp *dst, uint32_t rkey, uint64_t addr,
		  uint64_t len, int access, uint8_t **host)
{
	struct m5m_mr *mr;

	*host = NULL;
	/* The QP itself must allow the operation ... */
	if (!(dst->access & access))
		return M5_SYND_REMOTE_ACCESS_ERR;
	/* ... and a zero-length RDMA checks no R_Key. */
	if (!len)
		return 0;
	mr = m5m_mr_find(dst->ctx->dev, rkey);
	if (!mr || mr->pd != dst->pd || !(mr->access & access) ||
	    !m5m_mr_covers(mr, addr, len))
		return M5_SYND_REMOTE_ACCESS_ERR;
	*host = mr->host + (addr - mr->iova);
	return 0;
}

bool m5m_pd_in_use(struct m5m_dev *dev, struct m5m_pd *pd)
{
	return pd->users != 0;
}
