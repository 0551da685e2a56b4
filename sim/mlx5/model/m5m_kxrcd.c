// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fake kernel's XRC domains (core/kcmd.h's db_k_open_xrcd and
 * db_k_close_xrcd), as uverbs keeps them: fd -1 opens a domain of its own;
 * a file names one by its inode, found or (O_CREAT) made, EINVAL for
 * O_EXCL on one that exists, ENOENT without O_CREAT on none.  The last
 * close of a domain that XRC SRQs or target QPs still use is EBUSY.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/kcmd.h"
#include "m5m_front.h"

static struct m5m_xrcd *m5m_xrcd_by_inode(struct m5m_dev *dev,
					  const struct stat *st)
{
	struct m5m_xrcd *x;
	uint32_t i;

	for (i = 0; i < dev->xrcds.cap; i++) {
		x = dev->xrcds.slot[i];
		if (x && x->shared && x->st_dev == st->st_dev &&
		    x->st_ino == st->st_ino)
			return x;
	}
	return NULL;
}

static int m5m_xrcd_attr_check(const struct ibv_xrcd_init_attr *attr)
{
	const uint32_t need = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;

	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED)
		return EOPNOTSUPP;
	if ((attr->comp_mask & need) != need)
		return EINVAL;
	if (attr->oflags & ~(O_CREAT | O_EXCL))
		return EINVAL;
	return 0;
}

int db_k_open_xrcd(struct ibv_context *ctx, struct verbs_xrcd *xrcd,
		   struct ibv_xrcd_init_attr *attr)
{
	struct m5m_xrcd *x = NULL;
	struct stat st = {};
	struct m5m_ctx *c;
	int ret;

	ret = m5m_xrcd_attr_check(attr);
	if (!ret && attr->fd != -1 && fstat(attr->fd, &st))
		ret = EBADF;
	if (ret)
		return ret;
	m5m_lock();
	c = m5m_ctx_of(ctx);
	if (!c) {
		ret = ENODEV;
		goto out;
	}
	if (attr->fd != -1)
		x = m5m_xrcd_by_inode(c->dev, &st);
	if (x && (attr->oflags & O_EXCL))
		ret = EINVAL;
	else if (!x && attr->fd != -1 && !(attr->oflags & O_CREAT))
		ret = ENOENT;
	else if (!x && !(x = calloc(1, sizeof(*x))))
		ret = ENOMEM;
	if (ret)
		goto out;
	if (!x->opens) {
		x->shared = attr->fd != -1;
		x->st_dev = st.st_dev;
		x->st_ino = st.st_ino;
		x->xrcdn = m5m_tab_add(&c->dev->xrcds, x);
	}
	x->opens++;
	xrcd->xrcd.context = ctx;
	xrcd->handle = x->xrcdn;
	xrcd->comp_mask = 0;
out:
	m5m_unlock();
	return ret;
}

struct m5m_xrcd *m5m_xrcd_of(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	struct m5m_dev *dev = m5m_dev_of(ibxrcd->context);

	return dev ? m5m_tab_get(&dev->xrcds, xrcd->handle) : NULL;
}

int db_k_close_xrcd(struct verbs_xrcd *xrcd)
{
	struct m5m_dev *dev;
	struct m5m_xrcd *x;
	int ret = 0;

	m5m_lock();
	dev = m5m_dev_of(xrcd->xrcd.context);
	x = m5m_xrcd_of(&xrcd->xrcd);
	if (!x)
		ret = EINVAL;
	else if (x->opens == 1 && x->users)
		ret = EBUSY;
	else if (!--x->opens) {
		m5m_tab_del(&dev->xrcds, x->xrcdn);
		free(x);
	}
	m5m_unlock();
	return ret;
}
