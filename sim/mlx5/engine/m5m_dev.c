// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The model device's life cycle: configuration, creation and teardown, the
 * process-wide lock, handle tables, and the getters and setters of the
 * public API that only read or write device state.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "m5m_int.h"

static pthread_mutex_t m5m_mutex;
static pthread_once_t m5m_once = PTHREAD_ONCE_INIT;
static struct m5m_dev *m5m_dev_list;
static unsigned int m5m_next_id;

static void m5m_lock_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	/* Entry points nest (a seam call may run the send engine). */
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m5m_mutex, &a);
	pthread_mutexattr_destroy(&a);
}

void m5m_lock(void)
{
	pthread_once(&m5m_once, m5m_lock_init);
	pthread_mutex_lock(&m5m_mutex);
}

void m5m_unlock(void)
{
	pthread_mutex_unlock(&m5m_mutex);
}

struct m5m_dev *m5m_devices(void)
{
	return m5m_dev_list;
}

uint32_t m5m_tab_add(struct m5m_tab *t, void *obj)
{
	uint32_t i;
	void **n;

	for (i = 0; i < t->cap; i++)
		if (!t->slot[i])
			break;
	if (i == t->cap) {
		n = realloc(t->slot, sizeof(*n) * (t->cap ? t->cap * 2 : 16));
		if (!n)
			return 0;
		memset(n + t->cap, 0, sizeof(*n) * (t->cap ? t->cap : 16));
		t->slot = n;
		t->cap = t->cap ? t->cap * 2 : 16;
	}
	t->slot[i] = obj;
	t->live++;
	return t->base + i;
}

void *m5m_tab_get(const struct m5m_tab *t, uint32_t handle)
{
	if (handle < t->base || handle - t->base >= t->cap)
		return NULL;
	return t->slot[handle - t->base];
}

void m5m_tab_del(struct m5m_tab *t, uint32_t handle)
{
	if (m5m_tab_get(t, handle)) {
		t->slot[handle - t->base] = NULL;
		t->live--;
	}
}

void m5m_ctx_maybe_closed(struct m5m_ctx *c)
{
	unsigned int i;

	struct m5m_uobj *u;

	for (i = 0; i < c->num_sys_pages; i++)
		if (c->maps[i])
			return;
	for (u = c->uobjs; u; u = u->next)
		if (u->maps || !u->destroyed)
			return;
	if (!c->num_sys_pages && !c->dyn_uar)
		return;
	/* Every UAR is gone: libibverbs is freeing the context. */
	c->closed = true;
}

void m5m_config_default(struct m5m_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->num_ports = 1;
	cfg->link_layer = IBV_LINK_LAYER_INFINIBAND;
	cfg->mtu = IBV_MTU_4096;
	cfg->num_comp_vectors = 4;
	cfg->eq_nent = 1024;
	cfg->async_eq_nent = 256;
	cfg->irq_budget = 128;
	cfg->bf_reg_size = 512;
	cfg->cqe_version = 1;
	cfg->atomic = true;
	cfg->cq_moderation = true;
	cfg->period_mode = M5M_PERIOD_FROM_EQE;
	cfg->strict = true;
}

static bool m5m_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int m5m_config_check(struct m5m_config *c, unsigned int id)
{
	if (!c->num_comp_msix)
		c->num_comp_msix = c->num_comp_vectors;
	if (!c->lid)
		c->lid = 1 + id;
	if (c->num_ports < 1 || c->num_ports > M5M_MAX_PORTS ||
	    c->num_comp_vectors < 1 ||
	    c->num_comp_vectors > M5M_MAX_COMP_VECTORS ||
	    c->num_comp_msix > c->num_comp_vectors || !m5m_pow2(c->eq_nent) ||
	    c->eq_nent < 16 || !m5m_pow2(c->async_eq_nent) ||
	    c->async_eq_nent < 16 ||
	    (c->bf_reg_size &&
	     (!m5m_pow2(c->bf_reg_size) || c->bf_reg_size > 1024)) ||
	    c->cqe_version > 1)
		return EINVAL;
	return 0;
}

struct m5m_dev *m5m_dev_create(const struct m5m_config *cfg)
{
	struct m5m_dev *dev;
	int ret;

	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		errno = ENOMEM;
		return NULL;
	}
	if (cfg)
		dev->cfg = *cfg;
	else
		m5m_config_default(&dev->cfg);
	m5m_lock();
	dev->id = m5m_next_id++;
	m5m_eng_set_ops(dev, NULL, NULL);
	ret = m5m_config_check(&dev->cfg, dev->id);
	if (!ret)
		ret = m5m_eq_init(dev);
	if (ret) {
		m5m_unlock();
		free(dev);
		errno = ret;
		return NULL;
	}
	dev->strict = dev->cfg.strict && !getenv("M5M_LENIENT");
	dev->pds.base = 1;
	dev->mrs.base = 1;
	dev->cqs.base = M5M_CQN_BASE;
	dev->qps.base = M5M_QPN_BASE;
	dev->srqs.base = M5M_SRQN_BASE;
	dev->ahs.base = 1;
	dev->mr_tag = 0x11;
	dev->delayed_tail = &dev->delayed;
	dev->guid = dev->cfg.node_guid ? dev->cfg.node_guid
				       : 0x0002c90300a00000ull + dev->id;
	memcpy(dev->mac, (uint8_t[6]){ 0x02, 0x4d, 0x35, 0x00, 0x00, 0x00 }, 6);
	dev->mac[5] = (uint8_t)dev->id;
	dev->next = m5m_dev_list;
	m5m_dev_list = dev;
	m5m_unlock();
	return dev;
}

static void m5m_tab_free_all(struct m5m_tab *t)
{
	uint32_t i;

	for (i = 0; i < t->cap; i++)
		free(t->slot[i]);
	free(t->slot);
}

static void m5m_free_mrs(struct m5m_dev *dev)
{
	struct m5m_mr *mr;
	uint32_t i;

	for (i = 0; i < dev->mrs.cap; i++) {
		mr = dev->mrs.slot[i];
		if (mr && mr->map)
			munmap(mr->map, mr->map_len);
	}
	m5m_tab_free_all(&dev->mrs);
}

static void m5m_free_cqs(struct m5m_dev *dev)
{
	uint32_t i;

	for (i = 0; i < dev->cqs.cap; i++)
		if (dev->cqs.slot[i])
			m5m_cq_free(dev->cqs.slot[i]);
	free(dev->cqs.slot);
}

void m5m_dev_destroy(struct m5m_dev *dev)
{
	struct m5m_dev **pp;
	struct m5m_delayed *d;
	struct m5m_chan *ch;

	if (!dev)
		return;
	m5m_irq_thread_stop(dev);
	m5m_lock();
	for (pp = &m5m_dev_list; *pp; pp = &(*pp)->next)
		if (*pp == dev) {
			*pp = dev->next;
			break;
		}
	while ((d = dev->delayed)) {
		dev->delayed = d->next;
		free(d);
	}
	while ((ch = dev->chans)) {
		dev->chans = ch->next;
		close(ch->wfd);
		close(ch->ch->fd);
		free(ch->ch);
		free(ch);
	}
	m5m_free_mrs(dev);
	if (dev->kernel_fini)
		dev->kernel_fini(dev);
	m5m_free_cqs(dev);
	m5m_tab_free_all(&dev->pds);
	m5m_tab_free_all(&dev->qps);
	m5m_tab_free_all(&dev->srqs);
	m5m_tab_free_all(&dev->ahs);
	m5m_tab_free_all(&dev->xrcds);
	m5m_eq_fini(dev);
	m5m_unlock();
	free(dev);
}

uint64_t m5m_now(struct m5m_dev *dev)
{
	uint64_t t;

	m5m_lock();
	t = dev->now;
	m5m_unlock();
	return t;
}

void m5m_set_strict(struct m5m_dev *dev, bool strict)
{
	m5m_lock();
	dev->strict = strict;
	m5m_unlock();
}

void m5m_set_quiet(struct m5m_dev *dev, bool quiet)
{
	m5m_lock();
	dev->quiet = quiet;
	m5m_unlock();
}

uint64_t m5m_violations(struct m5m_dev *dev)
{
	uint64_t v;

	m5m_lock();
	v = dev->violations;
	m5m_unlock();
	return v;
}

void m5m_inject(struct m5m_dev *dev, enum m5m_fault fault, unsigned int n)
{
	if (fault >= M5M_FAULT_COUNT)
		return;
	m5m_lock();
	dev->fault[fault] = n;
	m5m_unlock();
}

void m5m_get_stats(struct m5m_dev *dev, struct m5m_stats *out)
{
	m5m_lock();
	*out = dev->st;
	m5m_unlock();
}

int m5m_get_vec_stats(struct m5m_dev *dev, unsigned int vec,
		      struct m5m_vec_stats *out)
{
	if (vec >= dev->nvecs)
		return EINVAL;
	m5m_lock();
	*out = dev->vecs[vec].st;
	m5m_unlock();
	return 0;
}

void m5m_reset_stats(struct m5m_dev *dev)
{
	unsigned int i;

	m5m_lock();
	memset(&dev->st, 0, sizeof(dev->st));
	for (i = 0; i < dev->nvecs; i++)
		memset(&dev->vecs[i].st, 0, sizeof(dev->vecs[i].st));
	m5m_unlock();
}

void m5m_set_event_hook(struct m5m_dev *dev,
			void (*hook)(void *arg, const struct m5m_event_info *),
			void *arg)
{
	m5m_lock();
	dev->hook = hook;
	dev->hook_arg = arg;
	m5m_unlock();
}

int m5m_cq_info(struct m5m_dev *dev, struct ibv_cq *ibcq,
		struct m5m_cq_info *out)
{
	struct m5m_cq *cq;
	int ret = 0;

	m5m_lock();
	cq = m5m_cq_find(dev, ibcq->handle);
	if (!cq || cq->ibcq != ibcq) {
		ret = ENOENT;
	} else {
		out->cqn = cq->cqn;
		out->ncqe = cq->ncqe;
		out->producer = cq->arm.pi;
		out->state = cq->arm.st;
		out->events = cq->events;
		out->cq_max_count = cq->arm.mod_count;
		out->cq_period = cq->arm.mod_period;
		out->overrun = cq->overrun;
		out->arm_sn = (uint8_t)cq->arm_sn;
	}
	m5m_unlock();
	return ret;
}

unsigned int m5m_port_gids(struct m5m_dev *dev)
{
	if (dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET)
		return 1;
	return M5M_IB_PORT_GIDS;
}

/* The GID at index of the port's table; false past its end. */
bool m5m_port_gid_at(struct m5m_dev *dev, unsigned int port, unsigned int index,
		     union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (index >= m5m_port_gids(dev))
		return false;
	/* Link-local: fe80::<the port's GUID of that index>. */
	gid->global.subnet_prefix = htobe64(0xfe80000000000000ull);
	gid->global.interface_id =
		htobe64(M5M_PORT_GUID(dev->guid, port, index));
	return true;
}

/* Index 0, the port's own GID. */
void m5m_port_gid(struct m5m_dev *dev, unsigned int port, union ibv_gid *gid)
{
	m5m_port_gid_at(dev, port, 0, gid);
}

uint16_t m5m_port_lid(struct m5m_dev *dev, unsigned int port)
{
	if (dev->cfg.link_layer == IBV_LINK_LAYER_ETHERNET)
		return 0;
	return (uint16_t)(dev->cfg.lid + (port - 1) * 0x100);
}
