// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The vfio-user server (vfu.c) without QEMU: each test plays the client
 * over the UNIX socket, the server runs in a thread with a fake device.
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "vfu.h"

struct hdr {
	uint16_t id, cmd;
	uint32_t size, flags, error;
};

static int fake_read(void *dev, int region, uint64_t off, void *buf,
		     uint32_t len)
{
	(void)dev;
	for (uint32_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(region * 16 + off + i);
	return 0;
}

static int fake_write(void *dev, int region, uint64_t off, const void *buf,
		      uint32_t len)
{
	(void)dev;
	(void)region;
	(void)off;
	(void)buf;
	(void)len;
	return 0;
}

static const struct vfu_dev_ops ops = {
	.bar0_size = 1 << 20,
	.config_size = 256,
	.msix_count = 4,
	.read = fake_read,
	.write = fake_write,
};

/* The timers of the device of timed_ops: called how often, every 1 ms. */
static int timer_calls;

static int64_t fake_timers(void *dev)
{
	(void)dev;
	__atomic_add_fetch(&timer_calls, 1, __ATOMIC_RELAXED);
	return 1000000;
}

static const struct vfu_dev_ops timed_ops = {
	.bar0_size = 1 << 20,
	.config_size = 256,
	.msix_count = 4,
	.read = fake_read,
	.write = fake_write,
	.timers = fake_timers,
};

static struct vfu *srv;
static pthread_t thr;
static int serve_rc = -1;
static char path[64];

static void *serve(void *arg)
{
	(void)arg;
	serve_rc = vfu_serve(srv);
	return NULL;
}

/* Start a server of OPS and connect to it; returns the client socket. */
static int start_ops(const struct vfu_dev_ops *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(path, sizeof(path), "/tmp/vfu-test.%d.sock", (int)getpid());
	srv = vfu_create(path, o, NULL);
	if (!srv)
		return -1;
	pthread_create(&thr, NULL, serve, NULL);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(fd, (void *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int start(void)
{
	return start_ops(&ops);
}

static void stop(int fd)
{
	close(fd);
	pthread_join(thr, NULL);
	vfu_destroy(srv);
	unlink(path);
}

/* Send CMD with BODY (and one fd if FD >= 0); read the reply into REPLY. */
static struct hdr call(int s, uint16_t cmd, const void *body, uint32_t len,
		       int fd, void *reply, uint32_t rlen)
{
	struct hdr h = { .id = 7, .cmd = cmd, .size = sizeof(h) + len };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)body, len } };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	struct hdr r = { 0 };

	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(s, &mh, 0) < 0 ||
	    recv(s, &r, sizeof(r), MSG_WAITALL) != sizeof(r))
		return r;
	if (r.size > sizeof(r)) {
		uint32_t n = r.size - sizeof(r);
		uint8_t *tmp = malloc(n);

		recv(s, tmp, n, MSG_WAITALL);
		memcpy(reply, tmp, n < rlen ? n : rlen);
		free(tmp);
	}
	return r;
}

static void __attribute__((unused)) version_then_regions_and_config_reads(void)
{
	int s = start();
	uint8_t ver[4] = { 0, 0, 2, 0 }, out[256];
	uint32_t ri[8] = { 32, 0, 0 }, rw[4] = { 0 };
	struct hdr r;

	CHECK(s >= 0);
	r = call(s, 1, ver, sizeof(ver), -1, out, sizeof(out));
	CHECK_EQ(r.flags, 1); /* reply, no error */
	CHECK_EQ(out[0] | out[1] << 8, 0);
	CHECK(strstr((char *)out + 4, "max_msg_fds") != NULL);
	r = call(s, 5, ri, sizeof(ri), -1, out, sizeof(out));
	memcpy(ri, out, sizeof(ri));
	CHECK_EQ(ri[1], 3); /* read | write */
	CHECK_EQ(ri[4], 1 << 20);
	ri[2] = 1; /* BAR1: absent */
	call(s, 5, ri, sizeof(ri), -1, out, sizeof(out));
	memcpy(ri, out, sizeof(ri));
	CHECK_EQ(ri[1], 0);
	CHECK_EQ(ri[4], 0);
	/* Config space bytes 8..11, then a read past its end. */
	rw[0] = 8;
	rw[2] = 7;
	rw[3] = 4;
	r = call(s, 9, rw, sizeof(rw), -1, out, sizeof(out));
	CHECK_EQ(r.flags, 1);
	CHECK_EQ(out[16], 7 * 16 + 8);
	rw[0] = 254;
	r = call(s, 9, rw, sizeof(rw), -1, out, sizeof(out));
	CHECK_EQ(r.flags, 0x21); /* reply with error */
	CHECK_EQ(r.error, EINVAL);
	stop(s);
	CHECK_EQ(serve_rc, 0);
}

static void dma_is_only_inside_shared_mappings(void)
{
	int s = start(), mfd = memfd_create("guest", 0);
	struct {
		uint32_t argsz, flags;
		uint64_t offset, addr, size;
	} map = { 32, 3, 0, 0x100000, 0x10000 };
	struct {
		uint32_t argsz, flags;
		uint64_t addr, size;
	} unmap = { 24, 0, 0x100000, 0x10000 };
	uint8_t out[64], *guest, *p;
	struct hdr r;

	CHECK(s >= 0 && mfd >= 0);
	CHECK_EQ(ftruncate(mfd, 0x20000), 0);
	guest = mmap(NULL, 0x20000, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	r = call(s, 2, &map, sizeof(map), mfd, out, sizeof(out));
	CHECK_EQ(r.flags, 1);
	p = vfu_dma(srv, 0x100010, 16, true);
	CHECK(p != NULL);
	if (p) {
		memset(p, 0xab, 16);
		CHECK_EQ(guest[0x10], 0xab); /* the same memory */
	}
	CHECK(vfu_dma(srv, 0x10fff0, 32, false) == NULL); /* runs off the end */
	CHECK(vfu_dma(srv, 0xffff0, 32, false) == NULL);  /* starts before */
	CHECK(vfu_dma(srv, 0x200000, 4, false) == NULL);  /* unmapped */
	/* Overlapping map: EEXIST. A read-only one refuses writes. */
	map.addr = 0x108000;
	r = call(s, 2, &map, sizeof(map), mfd, out, sizeof(out));
	CHECK_EQ(r.error, EEXIST);
	map.addr = 0x300000;
	map.offset = 0x10000;
	map.flags = 1;
	r = call(s, 2, &map, sizeof(map), mfd, out, sizeof(out));
	CHECK_EQ(r.flags, 1);
	CHECK(vfu_dma(srv, 0x300000, 8, false) != NULL);
	CHECK(vfu_dma(srv, 0x300000, 8, true) == NULL);
	/* Unmapped: gone. */
	r = call(s, 3, &unmap, sizeof(unmap), -1, out, sizeof(out));
	CHECK_EQ(r.flags, 1);
	CHECK(vfu_dma(srv, 0x100010, 16, false) == NULL);
	munmap(guest, 0x20000);
	close(mfd);
	stop(s);
}

static void __attribute__((unused)) msix_eventfd_is_signalled_per_vector(void)
{
	int s = start(), efd = eventfd(0, EFD_NONBLOCK);
	struct {
		uint32_t argsz, flags, index, start, count;
	} set = { 20, 1 << 2 | 1 << 5, 2, 1, 1 }; /* eventfd, trigger, MSI-X */
	uint8_t out[16];
	uint64_t n = 0;
	struct hdr r;

	CHECK(s >= 0 && efd >= 0);
	r = call(s, 8, &set, sizeof(set), efd, out, sizeof(out));
	CHECK_EQ(r.flags, 1);
	CHECK(vfu_irq(srv, 1));
	CHECK(!vfu_irq(srv, 0)); /* no eventfd on vector 0 */
	CHECK_EQ(read(efd, &n, sizeof(n)), sizeof(n));
	CHECK_EQ(n, 1);
	/* Beyond the vectors the device has: EINVAL. */
	set.start = 4;
	r = call(s, 8, &set, sizeof(set), efd, out, sizeof(out));
	CHECK_EQ(r.error, EINVAL);
	close(efd);
	stop(s);
}

/*
 * Two tests write vfio-user messages as arrays of 32-bit words in
 * little-endian order (a 64-bit field is its low word first) and read an
 * eventfd counter, which qemu-user does not convert between byte orders;
 * the server serves x86-64 QEMU.  On a big-endian build they skip, under
 * their own names.
 */
/*
 * A device with timers has them run while the client sends nothing (the
 * software ConnectX's moderated CQs fire on cq_period so), at about the
 * interval they ask for: 1 ms here, so 100 ms of silence gives more than
 * a few calls and far fewer than a busy loop would.
 */
static void idle_server_runs_the_device_timers_when_due(void)
{
	int s = start_ops(&timed_ops), n;

	CHECK(s >= 0);
	usleep(100000);
	n = __atomic_load_n(&timer_calls, __ATOMIC_RELAXED);
	CHECK(n >= 5);
	CHECK(n <= 1000);
	stop(s);
	CHECK_EQ(serve_rc, 0);
}

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static void little_endian_only(void)
{
	CHECK_SKIP("the test's messages are little-endian words");
}
#define LE_TEST(fn) CHECK_TEST_AS(fn, little_endian_only)
#else
#define LE_TEST(fn) CHECK_TEST(fn)
#endif

static const struct check_test tests[] = {
	LE_TEST(version_then_regions_and_config_reads),
	CHECK_TEST(dma_is_only_inside_shared_mappings),
	CHECK_TEST(idle_server_runs_the_device_timers_when_due),
	LE_TEST(msix_eventfd_is_signalled_per_vector),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "vfu_", tests);
}
