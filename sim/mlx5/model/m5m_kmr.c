// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fake kernel, memory and addressing objects: PDs, MRs (also dmabuf),
 * memory windows and address handles.  Each fills what mlx5_ib and the ibv_cmd_* helper
 * would: responses, handles, keys and the libibverbs object fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "m5m_front.h"

static size_t m5m_psz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* --- PDs ------------------------------------------------------------------ */

static struct m5m_pd *m5m_pd_of(struct ibv_pd *pd)
{
	struct m5m_ctx *c = pd ? m5m_ctx_of(pd->context) : NULL;
	struct m5m_pd *p = c ? m5m_tab_get(&c->dev->pds, pd->handle) : NULL;

	return p && p->ctx == c ? p : NULL;
}

/*
 * mlx5_ib writes the PD number after the response whether or not the
 * caller left room, and fails with EFAULT if it did not (Linux v6.1
 * drivers/infiniband/hw/mlx5/main.c, mlx5_ib_alloc_pd).
 */
int db_k_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		  size_t drv_resp_len)
{
	struct m5m_ctx *c;
	struct m5m_pd *p;
	int ret = 0;

	if (drv_resp_len < sizeof(struct mlx5_ib_alloc_pd_resp))
		return EFAULT;
	m5m_lock();
	c = m5m_ctx_of(ctx);
	p = c ? calloc(1, sizeof(*p)) : NULL;
	if (!p) {
		ret = c ? ENOMEM : ENODEV;
		goto out;
	}
	p->ctx = c;
	p->dev = c->dev;
	p->pdn = m5m_tab_add(&c->dev->pds, p);
	pd->handle = p->pdn;
	pd->context = ctx;
out:
	m5m_unlock();
	return ret;
}

int db_k_dealloc_pd(struct ibv_pd *pd)
{
	struct m5m_pd *p;
	int ret = 0;

	m5m_lock();
	p = m5m_pd_of(pd);
	if (!p)
		ret = EINVAL;
	else if (m5m_pd_in_use(p->ctx->dev, p))
		ret = EBUSY;
	else {
		m5m_tab_del(&p->ctx->dev->pds, p->pdn);
		free(p);
	}
	m5m_unlock();
	return ret;
}

/* --- MRs ------------------------------------------------------------------ */

/* @odp: the device pages on demand (m5m_config.odp). */
static int m5m_access_check(int access, bool odp)
{
	const int known = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			  IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
			  IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB |
			  IBV_ACCESS_OPTIONAL_RANGE;

	if (access & ~known)
		return EINVAL;
	/* Remote writes and atomics need local write (IBTA o10-2.2.1). */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	if ((access & IBV_ACCESS_ZERO_BASED) ||
	    ((access & IBV_ACCESS_ON_DEMAND) && !odp))
		return EOPNOTSUPP;
	return 0;
}

static int m5m_mr_add(struct m5m_pd *p, struct m5m_mr *mr, struct verbs_mr *vmr,
		      struct ibv_pd *pd)
{
	struct m5m_dev *dev = p->ctx->dev;
	uint32_t h = m5m_tab_add(&dev->mrs, mr);

	if (!h)
		return ENOMEM;
	if (!++dev->mr_tag)
		dev->mr_tag = 1;
	mr->key = h << 8 | dev->mr_tag;
	mr->pd = p;
	p->users++;
	vmr->ibv_mr.handle = h;
	vmr->ibv_mr.lkey = mr->key;
	vmr->ibv_mr.rkey = mr->key;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.pd = pd;
	vmr->access = mr->access;
	return 0;
}

/* Every page of [addr, addr + len) is mapped (msync fails with ENOMEM). */
static bool m5m_mapped(const void *addr, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(page - 1);
	uintptr_t end = (uintptr_t)addr + len;

	if (!addr || end < (uintptr_t)addr)
		return false;
	return !msync((void *)start, end - start, MS_ASYNC);
}

int db_k_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t hca_va,
		int access, struct verbs_mr *vmr)
{
	struct m5m_mr *mr = NULL;
	struct m5m_pd *p;
	int ret;

	m5m_lock();
	p = m5m_pd_of(pd);
	ret = p ? m5m_access_check(access, p->ctx->dev->cfg.odp) : EINVAL;
	if (!ret && !len)
		ret = EINVAL;
	if (!ret && !m5m_mapped(addr, len))
		ret = EFAULT; /* ib_umem_get cannot pin it */
	if (!ret && !(mr = calloc(1, sizeof(*mr))))
		ret = ENOMEM;
	if (!ret) {
		mr->host = addr;
		mr->iova = hca_va;
		mr->len = len;
		mr->access = access;
		ret = m5m_mr_add(p, mr, vmr, pd);
	}
	if (ret) {
		free(mr);
	} else {
		vmr->ibv_mr.addr = addr;
		vmr->ibv_mr.length = len;
		vmr->mr_type = IBV_MR_TYPE_MR;
	}
	m5m_unlock();
	return ret;
}

/*
 * The model takes any mmappable fd as a dmabuf (a memfd in tests); the
 * kernel wants a real dmabuf exporter.  The mapping is the device's view.
 */
int db_k_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
		       uint64_t iova, int fd, int access, struct verbs_mr *vmr)
{
	size_t skew = offset % m5m_psz();
	struct m5m_mr *mr = NULL;
	struct m5m_pd *p;
	void *map;
	int ret;

	m5m_lock();
	p = m5m_pd_of(pd);
	/* A dma-buf MR pages through its exporter, never on demand. */
	ret = p ? m5m_access_check(access, false) : EINVAL;
	if (!ret && !len)
		ret = EINVAL;
	if (!ret) {
		map = mmap(NULL, len + skew, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, (off_t)(offset - skew));
		if (map == MAP_FAILED)
			ret = errno == EBADF ? EBADF : EINVAL;
	}
	if (!ret && !(mr = calloc(1, sizeof(*mr)))) {
		munmap(map, len + skew);
		ret = ENOMEM;
	}
	if (!ret) {
		mr->map = map;
		mr->map_len = len + skew;
		mr->host = (uint8_t *)map + skew;
		mr->iova = iova;
		mr->len = len;
		mr->access = access;
		ret = m5m_mr_add(p, mr, vmr, pd);
		if (ret) {
			munmap(map, len + skew);
			free(mr);
		}
	}
	if (!ret) {
		vmr->ibv_mr.addr = (void *)(uintptr_t)offset;
		vmr->ibv_mr.length = len;
		vmr->mr_type = IBV_MR_TYPE_DMABUF_MR;
	}
	m5m_unlock();
	return ret;
}

int db_k_dereg_mr(struct verbs_mr *vmr)
{
	struct m5m_dev *dev;
	struct m5m_mr *mr;
	int ret = EINVAL;

	m5m_lock();
	dev = m5m_dev_of(vmr->ibv_mr.context);
	mr = dev ? m5m_mr_find(dev, vmr->ibv_mr.lkey) : NULL;
	if (mr && vmr->ibv_mr.handle == vmr->ibv_mr.lkey >> 8) {
		if (mr->map)
			munmap(mr->map, mr->map_len);
		mr->pd->users--;
		m5m_tab_del(&dev->mrs, vmr->ibv_mr.handle);
		free(mr);
		ret = 0;
	}
	m5m_unlock();
	return ret;
}

/* The model's MR of @vmr, or NULL (a stale or foreign handle). */
static struct m5m_mr *m5m_mr_of(struct verbs_mr *vmr)
{
	struct m5m_dev *dev = m5m_dev_of(vmr->ibv_mr.context);
	struct m5m_mr *mr = dev ? m5m_mr_find(dev, vmr->ibv_mr.lkey) : NULL;

	return mr && vmr->ibv_mr.handle == vmr->ibv_mr.lkey >> 8 ? mr : NULL;
}

/*
 * What uverbs and mlx5_ib check before a re-registration changes anything
 * (Linux v6.1 drivers/infiniband/core/uverbs_cmd.c, ib_uverbs_rereg_mr;
 * hw/mlx5/mr.c, mlx5_ib_rereg_user_mr): the flags, the MR, a dma-buf MR
 * (EINVAL), the new access (as reg_mr), the new PD of the same context,
 * and the new range pinnable (EFAULT).  *np: the PD the MR ends in.
 */
static int m5m_rereg_check(struct m5m_mr *mr, int flags, struct ibv_pd *pd,
			   void *addr, size_t len, int access,
			   struct m5m_pd **np)
{
	const int known = IBV_REREG_MR_CHANGE_TRANSLATION |
			  IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS;
	int ret;

	if (!flags || (flags & ~known) || !mr || mr->map)
		return EINVAL;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		ret = m5m_access_check(access, mr->pd->ctx->dev->cfg.odp);
		if (ret)
			return ret;
	}
	*np = mr->pd;
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		*np = m5m_pd_of(pd);
		if (!*np || (*np)->ctx != mr->pd->ctx)
			return EINVAL;
	}
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    (!len || !m5m_mapped(addr, len)))
		return len ? EFAULT : EINVAL;
	return 0;
}

/*
 * A new range gets new keys, as mlx5_ib gives when it makes a new mkey
 * (the uverbs handle stays); PD and access changes keep them (UMR).
 */
int db_k_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct m5m_pd *np = NULL;
	struct m5m_mr *mr;
	struct m5m_dev *dev;
	int ret;

	m5m_lock();
	mr = m5m_mr_of(vmr);
	ret = m5m_rereg_check(mr, flags, pd, addr, length, access, &np);
	if (ret)
		goto out;
	dev = np->ctx->dev;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->host = addr;
		mr->iova = (uintptr_t)addr;
		mr->len = length;
		if (!++dev->mr_tag)
			dev->mr_tag = 1;
		mr->key = vmr->ibv_mr.handle << 8 | dev->mr_tag;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		mr->access = access;
	mr->pd->users--;
	np->users++;
	mr->pd = np;
	vmr->ibv_mr.lkey = mr->key;
	vmr->ibv_mr.rkey = mr->key;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		vmr->ibv_mr.context = pd->context;
out:
	m5m_unlock();
	return ret;
}

/*
 * ODP prefetch.  Without ODP mlx5_ib registers no advise_mr and uverbs
 * answers EOPNOTSUPP; with it, the flags (FLUSH only: EINVAL), the advice
 * (EOPNOTSUPP) and each SGE's lkey, an MR of the PD that covers it
 * (ENOENT, Linux v6.1 hw/mlx5/odp.c, get_prefetchable_mr), are checked.
 * The model's MRs are pinned: a prefetch has nothing to fault in.
 */
int db_k_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	struct m5m_pd *p;
	struct m5m_mr *mr;
	uint32_t i;
	int ret = 0;

	m5m_lock();
	p = m5m_pd_of(pd);
	if (!p)
		ret = EINVAL;
	else if (!p->ctx->dev->cfg.odp)
		ret = EOPNOTSUPP;
	else if ((flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH) || !num_sge ||
		 !sg_list)
		ret = EINVAL;
	else if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
		 advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
		 advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		ret = EOPNOTSUPP;
	for (i = 0; !ret && i < num_sge; i++) {
		mr = m5m_mr_find(p->ctx->dev, sg_list[i].lkey);
		if (!mr || mr->pd != p ||
		    !m5m_mr_covers(mr, sg_list[i].addr, sg_list[i].length))
			ret = ENOENT;
	}
	m5m_unlock();
	return ret;
}

/*
 * Memory windows: the mlx5 backend refuses them before the kernel is asked
 * (binding one needs a UMR WQE it does not build), so none reach the model.
 */
int db_k_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw)
{
	(void)pd;
	(void)type;
	(void)mw;
	return EOPNOTSUPP;
}

int db_k_dealloc_mw(struct ibv_mw *mw)
{
	(void)mw;
	return EINVAL;
}

/* --- Address handles ------------------------------------------------------ */

/* The MAC of a GID: a model port's own, else the EUI-64 inside it. */
static void m5m_gid_mac(const union ibv_gid *gid, uint8_t *mac)
{
	union ibv_gid g;
	struct m5m_dev *d;
	unsigned int p, i;

	for (d = m5m_devices(); d; d = d->next)
		for (p = 1; p <= d->cfg.num_ports; p++)
			for (i = 0; m5m_port_gid_at(d, p, i, &g); i++)
				if (!memcmp(&g, gid, sizeof(g))) {
					memcpy(mac, d->mac, 6);
					return;
				}
	mac[0] = gid->raw[8] ^ 2;
	mac[1] = gid->raw[9];
	mac[2] = gid->raw[10];
	mac[3] = gid->raw[13];
	mac[4] = gid->raw[14];
	mac[5] = gid->raw[15];
}

int m5k_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		  struct ibv_ah_attr *attr, struct mlx5_ib_create_ah_resp *resp)
{
	struct m5m_ah *a = NULL;
	struct m5m_pd *p;
	int ret = 0;

	m5m_lock();
	p = m5m_pd_of(pd);
	if (!p || attr->port_num < 1 ||
	    attr->port_num > p->ctx->dev->cfg.num_ports)
		ret = EINVAL;
	else if (p->ctx->dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET &&
		 !attr->is_global)
		ret = EINVAL;
	else if (attr->is_global &&
		 attr->grh.sgid_index >= m5m_port_gids(p->ctx->dev))
		ret = EINVAL;
	else if (!(a = calloc(1, sizeof(*a))))
		ret = ENOMEM;
	if (!ret) {
		a->pd = p;
		a->handle = m5m_tab_add(&p->ctx->dev->ahs, a);
		p->users++;
		ah->handle = a->handle;
		ah->context = pd->context;
		ah->pd = pd;
		memset(resp, 0, sizeof(*resp));
		resp->response_length = sizeof(*resp);
		if (attr->is_global)
			m5m_gid_mac(&attr->grh.dgid, resp->dmac);
	}
	m5m_unlock();
	return ret;
}

int m5k_destroy_ah(struct ibv_ah *ah)
{
	struct m5m_dev *dev;
	struct m5m_ah *a;
	int ret = EINVAL;

	m5m_lock();
	dev = m5m_dev_of(ah->context);
	a = dev ? m5m_tab_get(&dev->ahs, ah->handle) : NULL;
	if (a) {
		a->pd->users--;
		m5m_tab_del(&dev->ahs, a->handle);
		free(a);
		ret = 0;
	}
	m5m_unlock();
	return ret;
}
