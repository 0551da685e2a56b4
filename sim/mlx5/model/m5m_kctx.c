// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fake kernel, context-level commands: GET_CONTEXT with the mlx5_ib
 * driver data (and the async fd), UAR mmap, device, port and GID-type
 * queries.  Each fills what mlx5_ib and the ibv_cmd_* helper would.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/mlx5_user_ioctl_verbs.h>

#include "m5m_front.h"

#define M5M_MAX_TOTAL_BFREGS 1024
/*
 * The first mmap command of mlx5_ib's rdma_user_mmap entries (UAR objects;
 * Linux v6.1 drivers/infiniband/hw/mlx5/mlx5_ib.h, MLX5_IB_MMAP_OFFSET_START).
 */
#define M5M_MMAP_CMD_ENTRY 9
#define M5M_UAR_PAGE_BASE  0x400 /* device UAR page ids the model hands out */

static size_t m5m_psz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static unsigned int m5m_log2(size_t v)
{
	unsigned int l = 0;

	while (((size_t)1 << l) < v)
		l++;
	return l;
}

static int m5m_ctx_pages(struct m5m_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->num_sys_pages; i++) {
		c->page[i] = mmap(NULL, m5m_psz(), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c->page[i] == MAP_FAILED) {
			c->page[i] = NULL;
			return ENOMEM;
		}
	}
	if (c->tot_bfregs) {
		c->bfreg_users = calloc(c->tot_bfregs, sizeof(uint16_t));
		c->bf_half = calloc(c->tot_bfregs, 1);
		if (!c->bfreg_users || !c->bf_half)
			return ENOMEM;
	}
	return 0;
}

/* mlx5_ib_alloc_ucontext's checks, then its sizing (static UARs only). */
static int m5m_ctx_check(struct m5m_dev *dev, struct m5m_ctx *c,
			 const struct mlx5_ib_alloc_ucontext_req_v2 *req)
{
	uint32_t per_page, total;

	if (req->flags & ~MLX5_IB_ALLOC_UCTX_DEVX)
		return EOPNOTSUPP;
	/* The model has no DEVX. */
	if (req->flags || req->comp_mask || req->reserved0 || req->reserved1 ||
	    req->reserved2)
		return EOPNOTSUPP;
	c->uars_per_page = req->lib_caps & MLX5_LIB_CAP_4K_UAR
				   ? (uint32_t)(m5m_psz() / M5_UAR_SIZE)
				   : 1;
	c->bf_reg_size = dev->cfg.bf_reg_size;
	c->cqe_version = req->max_cqe_version < dev->cfg.cqe_version
				 ? req->max_cqe_version
				 : dev->cfg.cqe_version;
	/*
	 * Dynamic UARs: no static bfregs at all (Linux v6.1 drivers/
	 * infiniband/hw/mlx5/main.c, set_ucontext_resp answers tot_bfregs
	 * 0).  A kernel before them ignores the capability.
	 */
	if ((req->lib_caps & MLX5_LIB_CAP_DYN_UAR) && !dev->cfg.no_dyn_uar) {
		c->dyn_uar = true;
		return 0;
	}
	per_page = c->uars_per_page * M5_NON_FP_BFREGS_PER_UAR;
	total = req->total_num_bfregs;
	if (!total)
		return EINVAL;
	total = (total + per_page - 1) / per_page * per_page;
	if (total > M5M_MAX_TOTAL_BFREGS ||
	    total / per_page > M5M_MAX_SYS_PAGES)
		return ENOMEM;
	if (req->num_low_latency_bfregs > total - 1)
		return EINVAL;
	c->tot_bfregs = total;
	c->low_lat = req->num_low_latency_bfregs;
	c->num_sys_pages = total / per_page;
	return 0;
}

static void m5m_ctx_resp(struct m5m_dev *dev, const struct m5m_ctx *c,
			 const struct mlx5_ib_alloc_ucontext_req_v2 *req,
			 struct mlx5_ib_alloc_ucontext_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->qp_tab_size = 1 << 18;
	resp->bf_reg_size = c->bf_reg_size;
	resp->tot_bfregs = c->tot_bfregs;
	resp->cache_line_size = 64;
	resp->max_sq_desc_sz = 1024;
	resp->max_rq_desc_sz = 512;
	resp->max_send_wqebb = M5M_MAX_WR;
	resp->max_recv_wr = M5M_MAX_WR;
	resp->max_srq_recv_wr = M5M_MAX_WR;
	resp->num_ports = (uint16_t)dev->cfg.num_ports;
	resp->response_length = sizeof(*resp);
	resp->cqe_version = c->cqe_version;
	resp->cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE |
			      MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	resp->eth_min_inline = dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET
				       ? MLX5_USER_INLINE_MODE_NONE
				       : MLX5_USER_INLINE_MODE_NA;
	resp->log_uar_size =
		req->lib_caps & MLX5_LIB_CAP_4K_UAR ? 12 : m5m_log2(m5m_psz());
	resp->num_uars_per_page = c->uars_per_page;
	/* mlx5_ib's: where internal_timer_h falls in its page (0x1000). */
	resp->comp_mask |= MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET;
	resp->hca_core_clock_offset = M5M_CLOCK_OFFSET;
}

static int m5m_async_pipe(struct m5m_ctx *c, struct ibv_context *ib)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return errno;
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	ib->async_fd = p[0];
	c->async_wfd = p[1];
	return 0;
}

static void m5m_ctx_free(struct m5m_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->num_sys_pages; i++)
		if (c->page[i])
			munmap(c->page[i], m5m_psz());
	m5m_uobjs_free(c);
	free(c->bfreg_users);
	free(c->bf_half);
	free(c);
}

/* --- UAR objects (dynamic UARs) ------------------------------------------ */

/* How many 4 KB UARs one object spans: a system page of them. */
static uint32_t m5m_uobj_uars(void)
{
	return (uint32_t)(m5m_psz() / M5_UAR_SIZE);
}

struct m5m_uobj *m5m_uobj_by_page(struct m5m_ctx *c, uint32_t pg)
{
	struct m5m_uobj *u;

	for (u = c->uobjs; u; u = u->next)
		if (!u->destroyed && pg >= u->page_id &&
		    pg - u->page_id < m5m_uobj_uars())
			return u;
	return NULL;
}

/* Gone for good once destroyed and unmapped (the kernel's mmap entry). */
static void m5m_uobj_reap(struct m5m_ctx *c)
{
	struct m5m_uobj **pp = &c->uobjs, *u;

	while ((u = *pp)) {
		if (u->destroyed && !u->maps) {
			*pp = u->next;
			munmap(u->page, m5m_psz());
			free(u);
		} else {
			pp = &u->next;
		}
	}
}

void m5m_uobjs_free(struct m5m_ctx *c)
{
	struct m5m_uobj *u;

	while ((u = c->uobjs)) {
		c->uobjs = u->next;
		munmap(u->page, m5m_psz());
		free(u);
	}
}

/* mmap of a UAR object: its exact offset and one page, this context's. */
static void *m5m_uobj_mmap(struct m5m_ctx *c, uint64_t offset)
{
	struct m5m_uobj *u;

	for (u = c->uobjs; u; u = u->next)
		if (!u->destroyed && u->mmap_offset == offset) {
			u->maps++;
			return u->page;
		}
	return MAP_FAILED;
}

static bool m5m_uobj_munmap(struct m5m_ctx *c, void *addr, size_t len)
{
	struct m5m_uobj *u;

	for (u = c->uobjs; u; u = u->next)
		if (u->page == addr && u->maps) {
			m5m_check(c->dev, len == m5m_psz(),
				  "munmap of UAR page 0x%x with length %zu",
				  u->page_id, len);
			u->maps--;
			m5m_uobj_reap(c);
			return true;
		}
	return false;
}

/*
 * MLX5_IB_METHOD_UAR_OBJ_ALLOC (Linux v6.1 drivers/infiniband/hw/mlx5/
 * main.c, its UVERBS_HANDLER): the type must be BF or NC, and BF needs
 * write combining (the kernel's wc_support); the answer is an mmap offset
 * of an rdma_user_mmap entry, one page long, and the UAR's page id.
 */
int m5k_alloc_uar(struct m5_context *ctx, uint32_t type, struct m5k_uar *uar)
{
	struct m5m_uobj *u = NULL;
	struct m5m_ctx *c;
	uint64_t idx;
	int ret = 0;

	m5m_lock();
	c = m5m_ctx_of(&ctx->core.vctx.context);
	if (!c)
		ret = ENODEV;
	else if (c->dev->cfg.no_dyn_uar)
		ret = EOPNOTSUPP; /* no such method before dynamic UARs */
	else if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF &&
		 type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		ret = EOPNOTSUPP;
	else if (type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF && !c->bf_reg_size)
		ret = EOPNOTSUPP;
	else if (!(u = calloc(1, sizeof(*u))))
		ret = ENOMEM;
	if (!ret) {
		u->page = mmap(NULL, m5m_psz(), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (u->page == MAP_FAILED)
			ret = ENOMEM;
	}
	if (ret) {
		free(u);
		m5m_unlock();
		return ret;
	}
	if (!c->dev->next_uar_page)
		c->dev->next_uar_page = M5M_UAR_PAGE_BASE;
	u->page_id = c->dev->next_uar_page;
	c->dev->next_uar_page += m5m_uobj_uars();
	u->handle = ++c->next_uar_handle;
	u->type = type;
	/*
	 * As Linux v6.1 drivers/infiniband/hw/mlx5/main.c,
	 * mlx5_entry_to_mmap_offset: index bits 8+ above the command.
	 */
	idx = u->handle;
	u->mmap_offset = ((idx >> 8) << 16 |
			  (uint64_t)M5M_MMAP_CMD_ENTRY << M5_MMAP_CMD_SHIFT |
			  (idx & 0xff)) *
			 m5m_psz();
	u->next = c->uobjs;
	c->uobjs = u;
	uar->handle = u->handle;
	uar->page_id = u->page_id;
	uar->mmap_offset = u->mmap_offset;
	uar->length = (uint32_t)m5m_psz();
	m5m_unlock();
	return 0;
}

/*
 * MLX5_IB_METHOD_UAR_OBJ_DESTROY: a live handle of this context.  A UAR a
 * QP or CQ was created on must outlive it (the device would ring a freed
 * UAR): that is the provider's bug, not a refusal.
 */
int m5k_destroy_uar(struct m5_context *ctx, uint32_t handle)
{
	struct m5m_uobj *u = NULL;
	struct m5m_ctx *c;

	m5m_lock();
	c = m5m_ctx_of(&ctx->core.vctx.context);
	for (u = c ? c->uobjs : NULL; u; u = u->next)
		if (u->handle == handle && !u->destroyed)
			break;
	if (!u) {
		m5m_unlock();
		return EINVAL;
	}
	m5m_check(c->dev, !u->users,
		  "UAR page 0x%x destroyed while %u QPs/CQs use it", u->page_id,
		  u->users);
	u->destroyed = true;
	m5m_uobj_reap(c);
	m5m_ctx_maybe_closed(c);
	m5m_unlock();
	return 0;
}

unsigned int m5m_live_uars(struct m5m_dev *dev, struct ibv_context *ibctx)
{
	struct m5m_uobj *u;
	struct m5m_ctx *c;
	unsigned int n = 0;

	m5m_lock();
	c = m5m_ctx_of(ibctx);
	for (u = c && c->dev == dev ? c->uobjs : NULL; u; u = u->next)
		n += !u->destroyed;
	m5m_unlock();
	return n;
}

int m5m_uar_type(struct m5m_dev *dev, struct ibv_context *ibctx, uint32_t pg)
{
	struct m5m_uobj *u = NULL;
	struct m5m_ctx *c;

	m5m_lock();
	c = m5m_ctx_of(ibctx);
	if (c && c->dev == dev)
		u = m5m_uobj_by_page(c, pg);
	m5m_unlock();
	return u ? (int)u->type : -1;
}

int m5k_get_context(struct m5_context *ctx,
		    const struct mlx5_ib_alloc_ucontext_req_v2 *req,
		    struct mlx5_ib_alloc_ucontext_resp *resp)
{
	struct ibv_context *ib = &ctx->core.vctx.context;
	struct m5m_dev *dev = m5m_dev_of(ib);
	struct m5m_ctx *c, *old;
	int ret;

	if (!dev)
		return ENODEV;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ENOMEM;
	c->dev = dev;
	c->ibctx = ib;
	c->async_wfd = -1;
	m5m_lock();
	m5m_step_locked(dev);
	ret = m5m_ctx_check(dev, c, req);
	if (!ret)
		ret = m5m_ctx_pages(c);
	if (!ret)
		ret = m5m_async_pipe(c, ib);
	if (ret) {
		m5m_unlock();
		m5m_ctx_free(c);
		return ret;
	}
	/* A context at this address before was freed without unmapping. */
	for (old = dev->ctxs; old; old = old->next)
		if (old->ibctx == ib)
			old->closed = true;
	ib->num_comp_vectors = (int)dev->cfg.num_comp_vectors;
	m5m_ctx_resp(dev, c, req, resp);
	c->next = dev->ctxs;
	dev->ctxs = c;
	dev->kernel_fini = m5m_kernel_fini;
	m5m_unlock();
	return 0;
}

void *m5k_mmap_uar(struct m5_context *ctx, off_t offset, size_t len)
{
	struct m5m_ctx *c;
	unsigned long pgoff;
	unsigned int cmd, idx;
	void *ret = MAP_FAILED;
	int err = EINVAL;

	m5m_lock();
	c = m5m_ctx_of(&ctx->core.vctx.context);
	if (!c || offset < 0 || offset % m5m_psz() || len != m5m_psz())
		goto out;
	pgoff = (unsigned long)offset / m5m_psz();
	cmd = (pgoff >> M5_MMAP_CMD_SHIFT) & 0xff;
	idx = pgoff & 0xff;
	if (cmd >= M5M_MMAP_CMD_ENTRY) {
		ret = m5m_uobj_mmap(c, (uint64_t)offset);
		err = ret == MAP_FAILED ? EINVAL : 0;
		goto out;
	}
	if (cmd != M5_MMAP_CMD_REGULAR && cmd != M5_MMAP_CMD_NC &&
	    cmd != MLX5_IB_MMAP_WC_PAGE)
		goto out;
	if (cmd == MLX5_IB_MMAP_WC_PAGE && !c->bf_reg_size) {
		err = EPERM;
		goto out;
	}
	/* Dynamic-UAR contexts have no static pages to map. */
	if (idx >= c->num_sys_pages)
		goto out;
	c->maps[idx]++;
	ret = c->page[idx];
	err = 0;
out:
	m5m_unlock();
	if (err)
		errno = err;
	return ret;
}

/*
 * The internal timer's page, as mlx5_ib maps it: one system page at the
 * CORE_CLOCK command's offset, read-only, once per context.  Its bytes are
 * never read: the model's db_mmio_model_read32 (m5m_uar.c) answers each
 * load of the timer's words from the virtual clock.
 */
void *m5k_mmap_clock(struct m5_context *ctx, off_t offset, size_t len)
{
	off_t want = (off_t)(M5_MMAP_CMD_CLOCK << M5_MMAP_CMD_SHIFT) *
		     (off_t)m5m_psz();
	struct m5m_ctx *c;
	void *ret = MAP_FAILED;
	int err = EINVAL;

	m5m_lock();
	c = m5m_ctx_of(&ctx->core.vctx.context);
	if (c && offset == want && len == m5m_psz() && !c->clock_page) {
		c->clock_page = aligned_alloc(m5m_psz(), m5m_psz());
		err = c->clock_page ? 0 : ENOMEM;
		ret = c->clock_page ? c->clock_page : MAP_FAILED;
	}
	m5m_unlock();
	if (err)
		errno = err;
	return ret;
}

void m5k_munmap_clock(struct m5_context *ctx, void *addr, size_t len)
{
	struct m5m_ctx *c;

	m5m_lock();
	c = m5m_ctx_of(&ctx->core.vctx.context);
	if (c && addr && addr == c->clock_page && len == m5m_psz()) {
		free(c->clock_page);
		c->clock_page = NULL;
	} else if (c) {
		m5m_violation(c->dev, NULL, "munmap of %p, no timer mapping",
			      addr);
	}
	m5m_unlock();
}

/* The timer word at reg, if reg is in a context's timer page. */
bool m5m_clock_word(const void *reg, __be32 *val)
{
	const uint8_t *r = reg, *page;
	struct m5m_dev *dev;
	struct m5m_ctx *c;
	uint64_t t;

	for (dev = m5m_devices(); dev; dev = dev->next)
		for (c = dev->ctxs; c; c = c->next) {
			page = c->clock_page;
			if (!page || r < page || r >= page + m5m_psz())
				continue;
			t = m5m_timer(dev);
			if (r == page + M5M_CLOCK_OFFSET)
				*val = htobe32((uint32_t)(t >> 32));
			else if (r == page + M5M_CLOCK_OFFSET + 4)
				*val = htobe32((uint32_t)t);
			else
				*val = 0; /* the rest of the init segment */
			return true;
		}
	return false;
}

void m5k_munmap_uar(struct m5_context *ctx, void *addr, size_t len)
{
	struct m5m_ctx *c;
	unsigned int i;

	m5m_lock();
	c = m5m_ctx_of(&ctx->core.vctx.context);
	if (c && m5m_uobj_munmap(c, addr, len)) {
		m5m_ctx_maybe_closed(c);
		m5m_unlock();
		return;
	}
	for (i = 0; c && i < c->num_sys_pages; i++)
		if (c->page[i] == addr && c->maps[i]) {
			m5m_check(c->dev, len == m5m_psz(),
				  "munmap of a UAR page with length %zu", len);
			c->maps[i]--;
			m5m_ctx_maybe_closed(c);
			break;
		}
	if (c && i == c->num_sys_pages)
		m5m_violation(c->dev, NULL, "munmap of %p, no UAR mapping",
			      addr);
	m5m_unlock();
}

int db_k_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size,
			 uint64_t *fw_ver)
{
	struct m5m_dev *dev = m5m_dev_of(ctx);
	struct ibv_device_attr_ex a = { 0 };
	struct ibv_device_attr *o = &a.orig_attr;

	if (!dev)
		return ENODEV;
	if ((input && input->comp_mask) || attr_size < sizeof(*o))
		return EINVAL;
	m5m_lock();
	dev->st.query_device_cmds++;
	m5m_unlock();
	o->node_guid = htobe64(dev->guid);
	o->sys_image_guid = htobe64(dev->guid);
	o->max_mr_size = ~0ull;
	o->page_size_cap = ~0xfffull;
	o->vendor_id = 0x02c9;
	o->vendor_part_id = 4115; /* ConnectX-4 */
	o->max_qp = 1 << 18;
	/*
	 * Smaller than the WQE counts the provider may ask for, as on Linux
	 * 7.2, whose mlx5_ib answers max_qp_wr 4096 where log_max_qp_sz is
	 * 14 (the software ConnectX, sim/mlx5/pci): the verbs' limit is the
	 * provider's to enforce.
	 */
	o->max_qp_wr = M5M_MAX_WR / 4;
	o->device_cap_flags =
		IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
		IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |
		IBV_DEVICE_RC_RNR_NAK_GEN |
		/* What mlx5_ib says of a ConnectX; the backend serves none. */
		IBV_DEVICE_XRC | IBV_DEVICE_MEM_WINDOW |
		IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_MEM_MGT_EXTENSIONS |
		IBV_DEVICE_RAW_IP_CSUM | IBV_DEVICE_MANAGED_FLOW_STEERING;
	o->max_mw = 1 << 24;
	a.device_cap_flags_ex = (uint64_t)(unsigned int)o->device_cap_flags |
				IBV_DEVICE_RAW_SCATTER_FCS |
				IBV_DEVICE_PCI_WRITE_END_PADDING;
	a.completion_timestamp_mask = (1ull << 63) - 1;
	a.hca_core_clock = M5M_CORE_CLOCK_KHZ;
	a.tso_caps.max_tso = 1 << 18;
	a.tso_caps.supported_qpts = 1 << IBV_QPT_RAW_PACKET;
	a.rss_caps.max_rwq_indirection_tables = 1 << 16;
	a.rss_caps.supported_qpts = 1 << IBV_QPT_RAW_PACKET;
	a.max_wq_type_rq = 1 << 16;
	a.packet_pacing_caps.qp_rate_limit_max = 100000000;
	a.raw_packet_caps = IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
	a.tm_caps.max_num_tags = 1 << 10;
	a.max_dm_size = 1 << 17;
	a.xrc_odp_caps = IBV_ODP_SUPPORT_SEND;
	o->max_sge = 30;
	o->max_sge_rd = 30;
	o->max_cq = 1 << 24;
	o->max_cqe = (1 << 22) - 1;
	o->max_mr = 1 << 24;
	o->max_pd = 1 << 24;
	o->max_qp_rd_atom = 16;
	o->max_res_rd_atom = 16 << 18;
	o->max_qp_init_rd_atom = 16;
	o->atomic_cap = dev->cfg.atomic ? IBV_ATOMIC_HCA : IBV_ATOMIC_NONE;
	o->max_srq = 1 << 23;
	o->max_srq_wr = M5M_MAX_WR - 1;
	o->max_srq_sge = 31;
	o->max_pkeys = 1;
	o->local_ca_ack_delay = 16;
	o->phys_port_cnt = (uint8_t)dev->cfg.num_ports;
	if (dev->cfg.odp) {
		a.odp_caps.general_caps = IBV_ODP_SUPPORT;
		a.odp_caps.per_transport_caps.rc_odp_caps =
			IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			IBV_ODP_SUPPORT_ATOMIC;
	}
	if (dev->cfg.cq_moderation) {
		a.cq_mod_caps.max_cq_count = 0xffff;
		a.cq_mod_caps.max_cq_period = 4095;
	}
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	/* 16.35.1012, as the kernel packs it: major, minor, subminor. */
	if (fw_ver)
		*fw_ver = (uint64_t)16 << 32 | (uint64_t)35 << 16 | 1012;
	return 0;
}

int db_k_query_port(struct ibv_context *ctx, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct m5m_dev *dev = m5m_dev_of(ctx);
	bool eth;

	if (!dev)
		return ENODEV;
	if (port < 1 || port > dev->cfg.num_ports)
		return EINVAL;
	eth = dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET;
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = dev->cfg.mtu;
	attr->gid_tbl_len = (int)m5m_port_gids(dev);
	attr->port_cap_flags = eth ? 0 : IBV_PORT_CM_SUP;
	attr->max_msg_sz = M5M_MAX_MSG;
	attr->pkey_tbl_len = 1;
	attr->lid = m5m_port_lid(dev, port);
	attr->sm_lid = eth ? 0 : 1;
	attr->max_vl_num = 4;
	attr->subnet_timeout = 18;
	attr->active_width = 2;	 /* 4x */
	attr->active_speed = 32; /* EDR */
	attr->phys_state = 5;	 /* LinkUp */
	attr->link_layer = (uint8_t)dev->cfg.link_layer;
	return 0;
}

/* The port's GIDs: IB, or RoCE v1/v2 as configured. */
int m5k_query_gid_type(struct ibv_context *ctx, uint8_t port,
		       unsigned int index, enum ibv_gid_type *type)
{
	struct m5m_dev *dev = m5m_dev_of(ctx);

	if (!dev)
		return ENODEV;
	if (port < 1 || port > dev->cfg.num_ports ||
	    index >= m5m_port_gids(dev))
		return EINVAL;
	if (dev->cfg.link_layer != IBV_LINK_LAYER_ETHERNET)
		*type = IBV_GID_TYPE_IB;
	else
		*type = dev->cfg.roce_v1 ? IBV_GID_TYPE_ROCE_V1
					 : IBV_GID_TYPE_ROCE_V2;
	return 0;
}

/* CQs, QPs and SRQs left behind take their dbrec registrations with them. */
static void m5m_forget_dbrecs(struct m5m_dev *dev)
{
	struct m5m_srq *srq;
	struct m5m_qp *qp;
	struct m5m_cq *cq;
	uint32_t i;

	for (i = 0; i < dev->cqs.cap; i++) {
		cq = dev->cqs.slot[i];
		if (cq && cq->ctx)
			m5m_dbrec_unregister(cq->dbrec);
	}
	for (i = 0; i < dev->qps.cap; i++) {
		qp = dev->qps.slot[i];
		if (qp)
			m5m_dbrec_unregister(qp->dbrec);
	}
	for (i = 0; i < dev->srqs.cap; i++) {
		srq = dev->srqs.slot[i];
		if (srq)
			m5m_dbrec_unregister(srq->dbrec);
	}
	m5m_seq_forget(dev);
}

static void m5m_free_ctxs(struct m5m_dev *dev)
{
	struct m5m_ctx *c;
	unsigned int i;

	while ((c = dev->ctxs)) {
		dev->ctxs = c->next;
		for (i = 0; i < c->num_sys_pages; i++)
			if (c->page[i])
				munmap(c->page[i], sysconf(_SC_PAGESIZE));
		if (c->async_wfd >= 0)
			close(c->async_wfd);
		m5m_uobjs_free(c);
		free(c->clock_page);
		free(c->bfreg_users);
		free(c->bf_half);
		free(c);
	}
}

/* The device goes: what its contexts left behind goes with it. */
void m5m_kernel_fini(struct m5m_dev *dev)
{
	struct m5m_ibdev *ib;

	m5m_forget_dbrecs(dev);
	m5m_free_ctxs(dev);
	while ((ib = dev->ibdevs)) {
		dev->ibdevs = ib->next;
		/* A context still open holds a reference: leave it be. */
		if (atomic_load(&ib->db.vdev.refcount) <= 1)
			free(ib);
	}
}

struct m5m_dev *m5m_dev_of(struct ibv_context *ibctx)
{
	struct m5m_ibdev *d;

	if (!ibctx || !ibctx->device)
		return NULL;
	d = container_of(ibctx->device, struct m5m_ibdev, db.vdev.device);
	return d->magic == M5M_IBDEV_MAGIC ? d->dev : NULL;
}

struct m5m_ctx *m5m_ctx_of(struct ibv_context *ibctx)
{
	struct m5m_dev *dev = m5m_dev_of(ibctx);
	struct m5m_ctx *c;

	if (!dev)
		return NULL;
	for (c = dev->ctxs; c; c = c->next)
		if (c->ibctx == ibctx && !c->closed)
			return c;
	return NULL;
}
