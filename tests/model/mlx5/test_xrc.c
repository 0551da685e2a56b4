// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * XRC over the model.  The fake kernel's XRC domains (core/kcmd.h's
 * seam, which core/xrcd.c calls once the backend serves XRC): opened
 * anew or through a file's inode, one domain per inode, with the errors
 * uverbs gives (EINVAL for O_EXCL on an existing domain or a missing
 * attribute, ENOENT without O_CREAT).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "m5model.h"
#include "check.h"
#include "core/kcmd.h"
#include "m5t_verbs.h"

struct xr_rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
};

static int xr_open(struct xr_rig *r)
{
	r->dev = m5m_dev_create(NULL);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	return r->ctx ? 0 : -1;
}

/* The kernel command's answer: 0 or a positive errno. */
static int xr_xrcd(struct ibv_context *ctx, struct verbs_xrcd *x, int fd,
		   int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return db_k_open_xrcd(ctx, x, &a);
}

/* A new empty file, unlinked: its inode names a domain. */
static int xr_tmpfile(void)
{
	char name[] = "/tmp/doorbell-xrcd-XXXXXX";
	int fd = mkstemp(name);

	if (fd >= 0)
		unlink(name);
	return fd;
}

static void xrcd_opens_anew_or_by_inode(void)
{
	struct ibv_xrcd_init_attr bad = { .comp_mask = IBV_XRCD_INIT_ATTR_FD };
	struct verbs_xrcd own = {}, own2 = {}, a = {}, b = {}, x = {};
	struct xr_rig r = {};
	int fd = xr_tmpfile(), other = xr_tmpfile();

	CHECK(fd >= 0 && other >= 0);
	if (xr_open(&r) || fd < 0 || other < 0)
		goto out;
	CHECK_EQ(xr_xrcd(r.ctx, &own, -1, 0), 0);
	CHECK_EQ(own.xrcd.context, r.ctx);
	/* fd -1 is a domain of its own each time. */
	CHECK_EQ(xr_xrcd(r.ctx, &own2, -1, O_CREAT), 0);
	CHECK(own2.handle != own.handle);
	CHECK_EQ(db_k_open_xrcd(r.ctx, &x, &bad), EINVAL);
	CHECK_EQ(xr_xrcd(r.ctx, &x, fd, 0), ENOENT);
	CHECK_EQ(xr_xrcd(r.ctx, &a, fd, O_CREAT), 0);
	CHECK_EQ(xr_xrcd(r.ctx, &x, fd, O_CREAT | O_EXCL), EINVAL);
	/* The inode names the domain: a second open shares it. */
	CHECK_EQ(xr_xrcd(r.ctx, &b, fd, 0), 0);
	CHECK_EQ(b.handle, a.handle);
	CHECK_EQ(xr_xrcd(r.ctx, &x, other, 0), ENOENT);
	CHECK_EQ(db_k_close_xrcd(&b), 0);
	CHECK_EQ(db_k_close_xrcd(&a), 0);
	/* The last close took the domain: the inode names none now. */
	CHECK_EQ(xr_xrcd(r.ctx, &x, fd, 0), ENOENT);
	CHECK_EQ(db_k_close_xrcd(&own), 0);
	CHECK_EQ(db_k_close_xrcd(&own2), 0);
	CHECK_EQ(db_k_close_xrcd(&own2), EINVAL);
out:
	m5t_dev_close(r.dev, r.ctx);
	if (fd >= 0)
		close(fd);
	if (other >= 0)
		close(other);
}

static const struct check_test tests[] = {
	CHECK_TEST(xrcd_opens_anew_or_by_inode),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_xrc_", tests);
}
