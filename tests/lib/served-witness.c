// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A test-only LD_PRELOAD library (never installed) that records, in the
 * process that opened a device, which provider serves it: it stands in for
 * ibv_open_device(), calls libibverbs' own, and appends one line per
 * context to the file DOORBELL_WITNESS_LOG names:
 *
 *     <pid> <device> <library of the driver> <library of poll_cq>
 *
 * The driver's library is where the verbs_device_ops of the device live
 * (the provider whose match claimed it); poll_cq's is whose data path the
 * context runs.  Each is the file name dladdr() gives, "?" if none.  An open
 * that failed is recorded as "<pid> <device> failed: <errno>".  This proves
 * the provider independently of the provider's own words (its debug line),
 * for every process of a test, forked or exec'd: tests/guest/mlx5/with-provider.sh
 * and tests/guest/served-lib.sh read the file.
 *
 * mlx5dv_open_device() is libmlx5's and only libmlx5 serves it; it is not
 * recorded.  Without DOORBELL_WITNESS_LOG the library only passes the call on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

typedef struct ibv_context *open_fn(struct ibv_device *dev);

/*
 * libibverbs' ibv_open_device: the next definition after ours, or, where
 * libibverbs sits in a local scope (Python's extension modules), the one of
 * the libibverbs.so.1 that is loaded.
 */
static open_fn *real_open(void)
{
	static open_fn *fn;
	void *h;

	if (fn)
		return fn;
	fn = (open_fn *)dlsym(RTLD_NEXT, "ibv_open_device");
	if (fn)
		return fn;
	h = dlopen("libibverbs.so.1", RTLD_NOLOAD | RTLD_LAZY);
	if (h)
		fn = (open_fn *)dlsym(h, "ibv_open_device");
	return fn;
}

static const char *lib_of(const void *addr)
{
	Dl_info info;
	const char *base;

	if (!addr || !dladdr(addr, &info) || !info.dli_fname)
		return "?";
	base = strrchr(info.dli_fname, '/');
	return base ? base + 1 : info.dli_fname;
}

static void record(const char *line)
{
	const char *path = getenv("DOORBELL_WITNESS_LOG");
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* One write per line: the lines of concurrent processes do not mix. */
	if (write(fd, line, strlen(line)) < 0)
		(void)0;
	close(fd);
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	open_fn *fn = real_open();
	struct ibv_context *ctx;
	const void *drv;
	char line[512];
	int err;

	if (!fn) {
		errno = ENOSYS;
		return NULL;
	}
	ctx = fn(dev);
	err = errno;
	if (!ctx) {
		snprintf(line, sizeof(line), "%d %s failed: %d\n",
			 (int)getpid(), dev ? dev->name : "?", err);
	} else {
		/*
		 * libibverbs' struct verbs_device starts with the ibv_device,
		 * then the pointer to its driver's verbs_device_ops.
		 */
		drv = *(const void *const *)(ctx->device + 1);
		snprintf(line, sizeof(line), "%d %s %s %s\n", (int)getpid(),
			 ctx->device->name, lib_of(drv),
			 lib_of((const void *)ctx->ops.poll_cq));
	}
	record(line);
	errno = err;
	return ctx;
}
