// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The engine's DMA: an lkey or rkey plus an address range checked and
 * copied through the seam's translation (m5m_eng.h), a contiguous run at
 * a time, with the syndromes a failed access gets.  The first translation
 * of a range covers all of it, so a failed check copies nothing.
 */
#include <string.h>

#include "m5m_int.h"

int m5m_dma_local(const struct m5m_pd *pd, uint32_t lkey, uint64_t addr,
		  uint64_t len, int access)
{
	uint64_t run;
	uint8_t *host;

	return m5m_xlate(pd, lkey, addr, len, access, &host, &run)
		       ? M5_SYND_LOCAL_PROT_ERR
		       : 0;
}

int m5m_dma_remote(const struct m5m_qp *dst, uint32_t rkey, uint64_t addr,
		   uint64_t len, int access)
{
	uint64_t run;
	uint8_t *host;

	/* The QP itself must allow the operation ... */
	if (!(dst->access & access))
		return M5_SYND_REMOTE_ACCESS_ERR;
	/* ... and a zero-length RDMA checks no R_Key. */
	if (!len)
		return 0;
	return m5m_xlate(dst->pd, rkey, addr, len, access, &host, &run)
		       ? M5_SYND_REMOTE_ACCESS_ERR
		       : 0;
}

/* cfg.corrupt_write: flip the first byte of the Nth data write, at @host. */
static void m5m_dma_tamper(const struct m5m_pd *pd, uint8_t *host)
{
	struct m5m_dev *dev = pd->dev;

	if (dev->cfg.corrupt_write &&
	    __atomic_add_fetch(&dev->data_writes, 1, __ATOMIC_RELAXED) ==
		    dev->cfg.corrupt_write)
		*host ^= 0x01;
}

/* Copy len bytes between buf and the range; to: into the range. */
static int m5m_dma_copy(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
			uint64_t len, int access, uint8_t *buf, bool to)
{
	const uint8_t *start = buf;
	uint64_t run;
	uint8_t *host;

	do {
		if (m5m_xlate(pd, key, addr, len, access, &host, &run))
			return -1;
		if (!len)
			return 0;
		if (!run)
			return -1;
		if (run > len)
			run = len;
		if (to) {
			memcpy(host, buf, run);
			if (buf == start)
				m5m_dma_tamper(pd, host);
		} else
			memcpy(buf, host, run);
		addr += run;
		buf += run;
		len -= run;
	} while (len);
	return 0;
}

int m5m_dma_to(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
	       const void *src, uint64_t len, int access)
{
	return m5m_dma_copy(pd, key, addr, len, access, (uint8_t *)src, true);
}

int m5m_dma_from(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
		 void *dst, uint64_t len, int access)
{
	return m5m_dma_copy(pd, key, addr, len, access, dst, false);
}

int m5m_dma_move(const struct m5m_pd *dpd, uint32_t dkey, uint64_t daddr,
		 int daccess, const struct m5m_pd *spd, uint32_t skey,
		 uint64_t saddr, int saccess, uint64_t len)
{
	uint64_t drun, srun;
	bool moved = false;
	uint8_t *d, *s;

	do {
		if (m5m_xlate(dpd, dkey, daddr, len, daccess, &d, &drun))
			return M5_SYND_LOCAL_PROT_ERR;
		if (!len)
			return 0;
		if (m5m_xlate(spd, skey, saddr, len, saccess, &s, &srun) ||
		    !drun || !srun)
			return M5_SYND_REMOTE_ACCESS_ERR;
		if (srun < drun)
			drun = srun;
		if (drun > len)
			drun = len;
		/* Either side may overlap the other. */
		memmove(d, s, drun);
		if (!moved)
			m5m_dma_tamper(dpd, d);
		moved = true;
		daddr += drun;
		saddr += drun;
		len -= drun;
	} while (len);
	return 0;
}
