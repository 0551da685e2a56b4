// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * vfio-user server: the protocol of QEMU's vfio-user specification (interop/vfio-user.rst in its docs), for
 * one PCI function (see vfu.h).  Messages are native-endian; each starts
 * with a 16-byte header (id, command, size, flags, error).
 */
#define _GNU_SOURCE /* accept4, ppoll */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vfu.h"

enum {
	CMD_VERSION = 1,
	CMD_DMA_MAP = 2,
	CMD_DMA_UNMAP = 3,
	CMD_DEVICE_GET_INFO = 4,
	CMD_GET_REGION_INFO = 5,
	CMD_GET_IRQ_INFO = 7,
	CMD_SET_IRQS = 8,
	CMD_REGION_READ = 9,
	CMD_REGION_WRITE = 10,
	CMD_DEVICE_RESET = 13,
};

enum {
	F_TYPE_REPLY = 0x1,
	F_NO_REPLY = 0x10,
	F_ERROR = 0x20,
};

/* Region info flags, device flags, IRQ info and set flags (<linux/vfio.h>). */
enum {
	REGION_READ = 1 << 0,
	REGION_WRITE = 1 << 1,
	DEVICE_RESET = 1 << 0,
	DEVICE_PCI = 1 << 1,
	IRQ_EVENTFD = 1 << 0,
	IRQ_NORESIZE = 1 << 3,
	SET_DATA_NONE = 1 << 0,
	SET_DATA_BOOL = 1 << 1,
	SET_DATA_EVENTFD = 1 << 2,
	SET_ACTION_MASK = 1 << 3,
	SET_ACTION_UNMASK = 1 << 4,
	SET_ACTION_TRIGGER = 1 << 5,
	DMA_READABLE = 1 << 0,
	DMA_WRITEABLE = 1 << 1,
};

#define MAX_FDS	 8
#define MAX_XFER (1u << 20)
#define MAX_MAPS 64

struct hdr {
	uint16_t id;
	uint16_t cmd;
	uint32_t size;
	uint32_t flags;
	uint32_t error;
};

struct map {
	uint64_t addr, size;
	uint8_t *host; /* NULL: not mappable (no fd) */
	uint64_t maplen;
	uint32_t flags;
};

struct vfu {
	int lfd, fd;
	const struct vfu_dev_ops *ops;
	void *dev;
	struct map maps[MAX_MAPS];
	int irqfd[VFU_MAX_VECTORS];
};

struct vfu *vfu_create(const char *path, const struct vfu_dev_ops *ops,
		       void *dev)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct vfu *v;
	unsigned int i;

	if (strlen(path) >= sizeof(sa.sun_path) ||
	    ops->msix_count > VFU_MAX_VECTORS)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->ops = ops;
	v->dev = dev;
	v->fd = -1;
	for (i = 0; i < VFU_MAX_VECTORS; i++)
		v->irqfd[i] = -1;
	strcpy(sa.sun_path, path);
	unlink(path);
	v->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (v->lfd < 0 || bind(v->lfd, (void *)&sa, sizeof(sa)) ||
	    listen(v->lfd, 1)) {
		if (v->lfd >= 0)
			close(v->lfd);
		free(v);
		return NULL;
	}
	return v;
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The client's resources go with it (the spec's "client disconnection"). */
static void drop_client(struct vfu *v)
{
	unsigned int i;

	for (i = 0; i < MAX_MAPS; i++) {
		struct map *m = &v->maps[i];

		if (m->host)
			munmap(m->host - (m->maplen - m->size), m->maplen);
		memset(m, 0, sizeof(*m));
	}
	close_fds(v->irqfd, VFU_MAX_VECTORS);
	for (i = 0; i < VFU_MAX_VECTORS; i++)
		v->irqfd[i] = -1;
	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
}

void vfu_destroy(struct vfu *v)
{
	if (!v)
		return;
	drop_client(v);
	close(v->lfd);
	free(v);
}

void *vfu_dma(struct vfu *v, uint64_t addr, uint64_t len, bool write)
{
	unsigned int i;

	for (i = 0; i < MAX_MAPS; i++) {
		struct map *m = &v->maps[i];

		if (!m->size || addr < m->addr || addr - m->addr >= m->size)
			continue;
		if (!m->host || len > m->size - (addr - m->addr))
			return NULL;
		if (!(m->flags & (write ? DMA_WRITEABLE : DMA_READABLE)))
			return NULL;
		return m->host + (addr - m->addr);
	}
	return NULL;
}

bool vfu_irq(struct vfu *v, unsigned int vec)
{
	uint64_t one = 1;

	if (vec >= VFU_MAX_VECTORS || v->irqfd[vec] < 0)
		return false;
	return write(v->irqfd[vec], &one, sizeof(one)) == sizeof(one);
}

/* Read exactly LEN bytes; the first read may carry file descriptors. */
static int recv_all(int fd, void *buf, size_t len, int *fds, int *nfds)
{
	char cbuf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	size_t got = 0;

	while (got < len) {
		struct iovec iov = { (char *)buf + got, len - got };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct cmsghdr *c;
		ssize_t n;

		if (fds) {
			mh.msg_control = cbuf;
			mh.msg_controllen = sizeof(cbuf);
		}
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return n ? errno : ECONNRESET;
		for (c = fds ? CMSG_FIRSTHDR(&mh) : NULL; c;
		     c = CMSG_NXTHDR(&mh, c)) {
			int k, m;

			if (c->cmsg_level != SOL_SOCKET ||
			    c->cmsg_type != SCM_RIGHTS)
				continue;
			m = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (k = 0; k < m; k++) {
				int f;

				memcpy(&f, CMSG_DATA(c) + k * sizeof(int),
				       sizeof(f));
				if (*nfds < MAX_FDS)
					fds[(*nfds)++] = f;
				else
					close(f);
			}
		}
		got += n;
	}
	return 0;
}

static int send_reply(struct vfu *v, const struct hdr *req, int err,
		      const void *body, uint32_t len)
{
	struct hdr h = { .id = req->id,
			 .cmd = req->cmd,
			 .flags = F_TYPE_REPLY };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)body, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (req->flags & F_NO_REPLY)
		return 0;
	if (err) {
		h.flags |= F_ERROR;
		h.error = err;
		mh.msg_iovlen = 1;
		len = 0;
	}
	h.size = sizeof(h) + len;
	return sendmsg(v->fd, &mh, MSG_NOSIGNAL) == (ssize_t)h.size ? 0 : EPIPE;
}

static int do_version(struct vfu *v, const struct hdr *h, uint8_t *p,
		      uint32_t len)
{
	static const char caps[] = "{\"capabilities\":{\"max_msg_fds\":8,"
				   "\"max_data_xfer_size\":1048576}}";
	uint8_t out[4 + sizeof(caps)];

	if (len < 4)
		return send_reply(v, h, EINVAL, NULL, 0);
	/* Same major; minor 0 is <= whatever the client proposed. */
	memcpy(out, p, 2);
	memset(out + 2, 0, 2);
	memcpy(out + 4, caps, sizeof(caps));
	return send_reply(v, h, 0, out, sizeof(out));
}

static int do_dma_map(struct vfu *v, const struct hdr *h, uint8_t *p,
		      uint32_t len, int *fds, int nfds)
{
	struct {
		uint32_t argsz, flags;
		uint64_t offset, addr, size;
	} a;
	struct map *m = NULL;
	unsigned int i;
	long pg = sysconf(_SC_PAGESIZE);

	if (len < sizeof(a) || nfds > 1)
		return send_reply(v, h, EINVAL, NULL, 0);
	memcpy(&a, p, sizeof(a));
	if (!a.size || a.addr + a.size < a.addr)
		return send_reply(v, h, EINVAL, NULL, 0);
	for (i = 0; i < MAX_MAPS; i++) {
		struct map *o = &v->maps[i];

		if (!o->size) {
			m = m ? m : o;
			continue;
		}
		if (a.addr < o->addr + o->size && o->addr < a.addr + a.size)
			return send_reply(v, h, EEXIST, NULL, 0);
	}
	if (!m)
		return send_reply(v, h, ENOSPC, NULL, 0);
	if (nfds == 1) {
		uint64_t skew = a.offset % pg;
		int prot = 0;
		void *host;

		if (a.flags & DMA_READABLE)
			prot |= PROT_READ;
		if (a.flags & DMA_WRITEABLE)
			prot |= PROT_WRITE;
		host = mmap(NULL, a.size + skew, prot, MAP_SHARED, fds[0],
			    a.offset - skew);
		if (host == MAP_FAILED)
			return send_reply(v, h, errno, NULL, 0);
		m->host = (uint8_t *)host + skew;
		m->maplen = a.size + skew;
	}
	m->addr = a.addr;
	m->size = a.size;
	m->flags = a.flags;
	return send_reply(v, h, 0, NULL, 0);
}

static int do_dma_unmap(struct vfu *v, const struct hdr *h, uint8_t *p,
			uint32_t len)
{
	struct {
		uint32_t argsz, flags;
		uint64_t addr, size;
	} a;
	unsigned int i;

	if (len < sizeof(a))
		return send_reply(v, h, EINVAL, NULL, 0);
	memcpy(&a, p, sizeof(a));
	for (i = 0; i < MAX_MAPS; i++) {
		struct map *m = &v->maps[i];

		if (!m->size || m->addr != a.addr || m->size != a.size)
			continue;
		if (m->host)
			munmap(m->host - (m->maplen - m->size), m->maplen);
		memset(m, 0, sizeof(*m));
		return send_reply(v, h, 0, &a, sizeof(a));
	}
	return send_reply(v, h, EINVAL, NULL, 0);
}

static int do_device_info(struct vfu *v, const struct hdr *h)
{
	uint32_t r[4] = { sizeof(r), DEVICE_RESET | DEVICE_PCI, VFU_NUM_REGIONS,
			  VFU_NUM_IRQS };

	return send_reply(v, h, 0, r, sizeof(r));
}

static uint64_t region_size(struct vfu *v, uint32_t index)
{
	if (index == VFU_REGION_BAR0)
		return v->ops->bar0_size;
	if (index == VFU_REGION_CONFIG)
		return v->ops->config_size;
	return 0;
}

static int do_region_info(struct vfu *v, const struct hdr *h, uint8_t *p,
			  uint32_t len)
{
	struct {
		uint32_t argsz, flags, index, cap_offset;
		uint64_t size, offset;
	} r;

	if (len < sizeof(r))
		return send_reply(v, h, EINVAL, NULL, 0);
	memcpy(&r, p, sizeof(r));
	if (r.index >= VFU_NUM_REGIONS)
		return send_reply(v, h, EINVAL, NULL, 0);
	r.argsz = sizeof(r);
	r.cap_offset = 0;
	r.offset = 0;
	r.size = region_size(v, r.index);
	r.flags = r.size ? REGION_READ | REGION_WRITE : 0;
	return send_reply(v, h, 0, &r, sizeof(r));
}

static int do_irq_info(struct vfu *v, const struct hdr *h, uint8_t *p,
		       uint32_t len)
{
	uint32_t r[4];

	if (len < sizeof(r))
		return send_reply(v, h, EINVAL, NULL, 0);
	memcpy(r, p, sizeof(r));
	if (r[2] >= VFU_NUM_IRQS)
		return send_reply(v, h, EINVAL, NULL, 0);
	r[0] = sizeof(r);
	r[1] = r[2] == VFU_IRQ_MSIX ? IRQ_EVENTFD | IRQ_NORESIZE : 0;
	r[3] = r[2] == VFU_IRQ_MSIX ? v->ops->msix_count : 0;
	return send_reply(v, h, 0, r, sizeof(r));
}

static int do_set_irqs(struct vfu *v, const struct hdr *h, uint8_t *p,
		       uint32_t len, int *fds, int nfds)
{
	struct {
		uint32_t argsz, flags, index, start, count;
	} s;
	unsigned int i;

	if (len < sizeof(s))
		return send_reply(v, h, EINVAL, NULL, 0);
	memcpy(&s, p, sizeof(s));
	if (s.index != VFU_IRQ_MSIX) {
		/* INTx/MSI are not offered; disabling them is harmless. */
		return send_reply(v, h, s.count ? EINVAL : 0, NULL, 0);
	}
	if (s.start > v->ops->msix_count ||
	    s.count > v->ops->msix_count - s.start)
		return send_reply(v, h, EINVAL, NULL, 0);
	if ((s.flags & SET_DATA_NONE) && !s.count &&
	    (s.flags & SET_ACTION_TRIGGER)) {
		/* Disable every vector. */
		close_fds(v->irqfd, VFU_MAX_VECTORS);
		for (i = 0; i < VFU_MAX_VECTORS; i++)
			v->irqfd[i] = -1;
		return send_reply(v, h, 0, NULL, 0);
	}
	if (!(s.flags & SET_ACTION_TRIGGER))
		/* MSI-X masking is QEMU's (it emulates the table). */
		return send_reply(v, h, 0, NULL, 0);
	if (s.flags & SET_DATA_EVENTFD) {
		int k = 0;

		if (nfds && (unsigned int)nfds != s.count)
			return send_reply(v, h, EINVAL, NULL, 0);
		for (i = s.start; i < s.start + s.count; i++) {
			if (v->irqfd[i] >= 0)
				close(v->irqfd[i]);
			/* No fds: de-assign; an fd of -1 is not sent. */
			v->irqfd[i] = nfds ? fds[k] : -1;
			if (nfds)
				fds[k] = -1;
			k++;
		}
		return send_reply(v, h, 0, NULL, 0);
	}
	for (i = 0; i < s.count; i++) {
		if ((s.flags & SET_DATA_BOOL) &&
		    (len < sizeof(s) + i + 1 || !p[sizeof(s) + i]))
			continue;
		vfu_irq(v, s.start + i);
	}
	return send_reply(v, h, 0, NULL, 0);
}

static int do_region_rw(struct vfu *v, const struct hdr *h, uint8_t *p,
			uint32_t len)
{
	struct {
		uint64_t offset;
		uint32_t region, count;
	} a;
	uint8_t *out;
	uint64_t size;
	int err, ret;

	if (len < sizeof(a))
		return send_reply(v, h, EINVAL, NULL, 0);
	memcpy(&a, p, sizeof(a));
	size = region_size(v, a.region);
	if (!a.count || a.count > MAX_XFER || a.offset >= size ||
	    a.count > size - a.offset ||
	    (h->cmd == CMD_REGION_WRITE && len - sizeof(a) < a.count))
		return send_reply(v, h, EINVAL, NULL, 0);
	if (h->cmd == CMD_REGION_WRITE) {
		err = v->ops->write(v->dev, a.region, a.offset, p + sizeof(a),
				    a.count);
		return send_reply(v, h, err, &a, sizeof(a));
	}
	out = malloc(sizeof(a) + a.count);
	if (!out)
		return send_reply(v, h, ENOMEM, NULL, 0);
	memcpy(out, &a, sizeof(a));
	err = v->ops->read(v->dev, a.region, a.offset, out + sizeof(a),
			   a.count);
	ret = send_reply(v, h, err, out, sizeof(a) + a.count);
	free(out);
	return ret;
}

static int handle(struct vfu *v, const struct hdr *h, uint8_t *p, uint32_t len,
		  int *fds, int nfds)
{
	switch (h->cmd) {
	case CMD_VERSION:
		return do_version(v, h, p, len);
	case CMD_DMA_MAP:
		return do_dma_map(v, h, p, len, fds, nfds);
	case CMD_DMA_UNMAP:
		return do_dma_unmap(v, h, p, len);
	case CMD_DEVICE_GET_INFO:
		return do_device_info(v, h);
	case CMD_GET_REGION_INFO:
		return do_region_info(v, h, p, len);
	case CMD_GET_IRQ_INFO:
		return do_irq_info(v, h, p, len);
	case CMD_SET_IRQS:
		return do_set_irqs(v, h, p, len, fds, nfds);
	case CMD_REGION_READ:
	case CMD_REGION_WRITE:
		return do_region_rw(v, h, p, len);
	case CMD_DEVICE_RESET:
		if (v->ops->reset)
			v->ops->reset(v->dev);
		return send_reply(v, h, 0, NULL, 0);
	default:
		return send_reply(v, h, ENOSYS, NULL, 0);
	}
}

/*
 * Wait until the client's socket is readable, running the device's timers
 * each time the deadline they asked for passes and its aux() whenever its
 * descriptor is readable (checked before each message too, so a busy
 * client does not starve it).  0 or errno.
 */
static int wait_message(struct vfu *v)
{
	for (;;) {
		int64_t ns = v->ops->timers ? v->ops->timers(v->dev) : -1;
		struct timespec ts = { ns / 1000000000, ns % 1000000000 };
		struct pollfd p[2] = { { .fd = v->fd, .events = POLLIN },
				       { .fd = v->ops->aux_fd,
					 .events = POLLIN } };
		int n = ppoll(p, v->ops->aux ? 2 : 1, ns < 0 ? NULL : &ts,
			      NULL);

		if (n > 0 && v->ops->aux && p[1].revents)
			v->ops->aux(v->dev);
		if (n > 0 && p[0].revents)
			return 0;
		if (n < 0 && errno != EINTR)
			return errno;
	}
}

int vfu_serve(struct vfu *v)
{
	uint8_t *buf = malloc(MAX_XFER + 64);
	int err = 0;

	if (!buf)
		return ENOMEM;
	v->fd = accept4(v->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (v->fd < 0) {
		free(buf);
		return errno;
	}
	while (!err) {
		int fds[MAX_FDS], nfds = 0;
		struct hdr h;
		uint32_t len;

		err = wait_message(v);
		if (!err)
			err = recv_all(v->fd, &h, sizeof(h), fds, &nfds);
		if (err)
			break;
		if (h.size < sizeof(h) || h.size - sizeof(h) > MAX_XFER + 64) {
			close_fds(fds, nfds);
			err = EPROTO;
			break;
		}
		len = h.size - sizeof(h);
		err = recv_all(v->fd, buf, len, fds, &nfds);
		if (!err && (h.flags & 0xf) == 0)
			err = handle(v, &h, buf, len, fds, nfds);
		close_fds(fds, nfds);
	}
	free(buf);
	drop_client(v);
	return err == ECONNRESET ? 0 : err;
}
