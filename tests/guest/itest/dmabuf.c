// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_reg_dmabuf_mr: an MR over a dma-buf, made by /dev/udmabuf from a
 * memfd, carrying an RDMA write into it and a send out of it; the bytes are
 * read and written through the memfd (the same pages).
 *
 * A device whose kernel driver takes no dma-buf answers EOPNOTSUPP (rxe; a
 * provider without the verb answers so too; mlx5_ib on Linux 7.2 when the
 * ConnectX has no ODP, since a dma-buf MR needs its page-fault queue):
 * the tests SKIP and say which.  So does a ConnectX whose UMR cannot load
 * translations (EINVAL, see mlx5_umr_cannot_load()), and a kernel without
 * /dev/udmabuf, which cannot make the dma-buf.  Any other error is a FAIL.
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include "harness.h"

/*
 * DB_PAGES pages of memfd; the dma-buf covers all of them; the MR starts
 * DB_MR_OFF bytes into it (a page, the offset argument) and spans
 * DB_MR_LEN, at I/O virtual address DB_IOVA (not the memfd's address: it
 * has none).  A message lands DB_MSG_OFF into the MR and crosses a page.
 */
enum {
	DB_PAGES = 4,
	DB_MR_OFF = 4096,
	DB_MR_LEN = 2 * 4096,
	DB_MSG_OFF = 3000,
	DB_MSG_LEN = 3000,
};
#define DB_IOVA 0x5e550000ull

struct dmabuf_mr {
	int memfd, fd; /* tracked: closed with the test */
	size_t len;    /* of the memfd and the dma-buf */
	struct ibv_mr *mr;
	uint8_t *copy; /* the memfd's bytes, read back */
};

/* A sealed memfd of @len bytes holding the pattern @seed, or -1. */
static int dmabuf_memfd(struct it_test *t, size_t len, uint64_t seed)
{
	uint8_t *p = it_alloc(t, len);
	int fd = memfd_create("doorbell-itest", MFD_ALLOW_SEALING);

	if (fd < 0) {
		it_fail(t, "memfd_create: %s", strerror(errno));
		return -1;
	}
	it_track_fd(t, fd);
	it_fill(p, len, seed, 0);
	/* udmabuf takes only a memfd that cannot shrink. */
	if (ftruncate(fd, len) || pwrite(fd, p, len, 0) != (ssize_t)len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		it_fail(t, "memfd of %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	return fd;
}

/*
 * A ConnectX whose UMR cannot load translations: mlx5_ib answers EINVAL
 * to a dma-buf MR before it looks at the dma-buf (mr.c,
 * mlx5_ib_reg_user_mr_dmabuf(): mlx5r_umr_can_load_pas() false, as with
 * umr_modify_entity_size_disabled).  The software ConnectX is one
 * (sim/mlx5/pci/cx_caps.c), and its guest harness says so with
 * ITEST_MLX5_UMR_CANNOT_LOAD=1 (tests/guest/mlx5/guest-cx.sh); a real ConnectX-4
 * or later is not.  The device's own word for it, the absence of
 * IBV_DEVICE_MEM_MGT_EXTENSIONS, is not read: doorbell clears that flag
 * whatever the device (docs/capabilities.md).
 */
static bool mlx5_umr_cannot_load(const struct it_env *env)
{
	return it_backend(env) == IT_MLX5 &&
	       getenv("ITEST_MLX5_UMR_CANNOT_LOAD");
}

/*
 * Make the memfd (all of it @seed's pattern), its dma-buf, and an MR over
 * [DB_MR_OFF, +DB_MR_LEN) of it with @access: 0, IT_SKIP (no udmabuf, or
 * EOPNOTSUPP from the registration) or IT_FAIL.
 */
static int dmabuf_mr_new(struct it_test *t, struct dmabuf_mr *d, int access,
			 uint64_t seed)
{
	struct udmabuf_create c = { 0 };
	int dev;

	memset(d, 0, sizeof(*d));
	d->len = DB_PAGES * 4096;
	d->copy = it_alloc(t, d->len);
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0 && (errno == ENOENT || errno == ENODEV))
		return it_skip(t, "no /dev/udmabuf (a kernel without "
				  "CONFIG_UDMABUF, such as Debian 12's 6.1): "
				  "no dma-buf to register");
	IT_EXPECT(t, dev >= 0, "open /dev/udmabuf: %s", strerror(errno));
	it_track_fd(t, dev);
	d->memfd = dmabuf_memfd(t, d->len, seed);
	if (d->memfd < 0)
		return IT_FAIL;
	c.memfd = d->memfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	c.size = d->len;
	d->fd = ioctl(dev, UDMABUF_CREATE, &c);
	IT_EXPECT(t, d->fd >= 0, "UDMABUF_CREATE of %zu bytes: %s", d->len,
		  strerror(errno));
	it_track_fd(t, d->fd);

	d->mr = ibv_reg_dmabuf_mr(t->env->pd, DB_MR_OFF, DB_MR_LEN, DB_IOVA,
				  d->fd, access);
	if (!d->mr && errno == EOPNOTSUPP)
		return it_skip(t, "ibv_reg_dmabuf_mr: EOPNOTSUPP (the device "
				  "or its provider takes no dma-buf)");
	if (!d->mr && errno == EINVAL && mlx5_umr_cannot_load(t->env))
		return it_skip(t, "ibv_reg_dmabuf_mr: EINVAL; mlx5_ib loads "
				  "a dma-buf MR's pages by UMR, which this "
				  "ConnectX cannot "
				  "(ITEST_MLX5_UMR_CANNOT_LOAD)");
	IT_EXPECT(t, d->mr, "ibv_reg_dmabuf_mr(offset %d, %d bytes): %s",
		  DB_MR_OFF, DB_MR_LEN, strerror(errno));
	it_track_mr(t, d->mr);
	IT_EXPECT(t,
		  d->mr->length == DB_MR_LEN &&
			  (uintptr_t)d->mr->addr == DB_IOVA,
		  "the MR spans %zu bytes at %p, expected %d at %#llx",
		  d->mr->length, d->mr->addr, DB_MR_LEN,
		  (unsigned long long)DB_IOVA);
	return 0;
}

/* Read the memfd back: @len bytes at @off are @seed's, the rest @poison's. */
static int dmabuf_check(struct it_test *t, struct dmabuf_mr *d, size_t off,
			size_t len, uint64_t seed, uint64_t poison)
{
	IT_EXPECT(t, pread(d->memfd, d->copy, d->len, 0) == (ssize_t)d->len,
		  "pread of the memfd: %s", strerror(errno));
	if (it_verify(t, d->copy, off, poison, 0, "bytes before the message") ||
	    it_verify(t, d->copy + off, len, seed, 0, "bytes written") ||
	    it_verify(t, d->copy + off + len, d->len - off - len, poison,
		      off + len, "bytes after the message"))
		return IT_FAIL;
	return 0;
}

/*
 * An RDMA write of DB_MSG_LEN bytes DB_MSG_OFF into the dma-buf MR (by its
 * iova and rkey) lands there in the memfd, crossing a page; nothing else
 * changes; a second one with other bytes replaces them.
 */
static int feature_dmabuf_mr_receives_rdma_write(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct dmabuf_mr d;
	struct it_buf *sb;
	struct it_ep a, b;
	int ret, i;

	attr.cqe = 16;
	ret = dmabuf_mr_new(t, &d,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			    poison);
	if (ret)
		return ret;
	sb = it_buf_new(t, DB_MSG_LEN, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!sb || it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	for (i = 0; i < 2; i++) {
		uint64_t seed = it_seed(t, 10 + i);
		struct it_wc_exp e =
			it_exp_send(20 + i, IBV_WC_RDMA_WRITE, a.qp);

		it_where(t, "RDMA write %d", i + 1);
		it_fill(sb->addr, DB_MSG_LEN, seed, 0);
		it_wr(&wr, &sge, 20 + i, IBV_WR_RDMA_WRITE, sb, 0, DB_MSG_LEN);
		wr.wr.rdma.remote_addr = DB_IOVA + DB_MSG_OFF;
		wr.wr.rdma.rkey = d.mr->rkey;
		if (it_post_send(t, a.qp, &wr) ||
		    it_expect_wc(t, a.scq, &e, "write completion") ||
		    dmabuf_check(t, &d, DB_MR_OFF + DB_MSG_OFF, DB_MSG_LEN,
				 seed, poison))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	if (it_quiet(t, a.scq, "sender CQ") || it_quiet(t, b.rcq, "target CQ"))
		return IT_FAIL;
	return IT_PASS;
}

/*
 * A send whose gather entry is DB_MSG_LEN bytes DB_MSG_OFF into the
 * dma-buf MR (its lkey, at its iova) carries the memfd's bytes there; the
 * memfd is unchanged.
 */
static int feature_dmabuf_mr_sends_from_its_pages(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_RC);
	uint64_t seed = it_seed(t, 1), poison = it_seed(t, 2);
	struct ibv_send_wr wr = { 0 };
	struct ibv_sge sge;
	struct it_wc_exp er, es;
	struct dmabuf_mr d;
	struct it_buf *rb;
	struct it_ep a, b;
	int ret;

	attr.cqe = 16;
	ret = dmabuf_mr_new(t, &d, IBV_ACCESS_LOCAL_WRITE, seed);
	if (ret)
		return ret;
	rb = it_buf_new(t, DB_MSG_LEN + 256, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!rb || it_pair(t, &a, &b, &attr) ||
	    it_post_recv(t, b.qp, 7, rb, 0, rb->len))
		return IT_FAIL;
	sge.addr = DB_IOVA + DB_MSG_OFF;
	sge.length = DB_MSG_LEN;
	sge.lkey = d.mr->lkey;
	wr.wr_id = 8;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	es = it_exp_send(8, IBV_WC_SEND, a.qp);
	er = it_exp_recv(7, IBV_WC_RECV, b.qp, DB_MSG_LEN);
	if (it_post_send(t, a.qp, &wr) ||
	    it_expect_wc(t, a.scq, &es, "send completion") ||
	    it_expect_wc(t, b.rcq, &er, "receive completion"))
		return IT_FAIL;
	/* The memfd's pattern from DB_MR_OFF + DB_MSG_OFF on. */
	if (it_verify(t, rb->addr, DB_MSG_LEN, seed, DB_MR_OFF + DB_MSG_OFF,
		      "received bytes") ||
	    it_verify(t, rb->addr + DB_MSG_LEN, rb->len - DB_MSG_LEN, poison,
		      DB_MSG_LEN, "bytes after the message"))
		return IT_FAIL;
	it_where(t, "the memfd after the send");
	IT_EXPECT(t, pread(d.memfd, d.copy, d.len, 0) == (ssize_t)d.len,
		  "pread of the memfd: %s", strerror(errno));
	if (it_verify(t, d.copy, d.len, seed, 0, "memfd bytes"))
		return IT_FAIL;
	it_where(t, "%s", "");
	if (it_quiet(t, a.scq, "sender CQ") ||
	    it_quiet(t, b.rcq, "receiver CQ"))
		return IT_FAIL;
	return IT_PASS;
}

const struct it_case it_cases_dmabuf[] = {
	{ "feature_dmabuf_mr_receives_rdma_write",
	  feature_dmabuf_mr_receives_rdma_write, 0 },
	{ "feature_dmabuf_mr_sends_from_its_pages",
	  feature_dmabuf_mr_sends_from_its_pages, 0 },
	{ NULL, NULL, 0 },
};
