// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A test-only LD_PRELOAD library (never installed) that records which
 * processes start a thread: it stands in for pthread_create(), and the
 * first call in a process appends the process's command line (its
 * arguments joined by single spaces) as one line to the file
 * DOORBELL_THREAD_PROBE_LOG names, then calls the real pthread_create().
 *
 * scripts/sanitize.sh runs the plain build's ctest entries with it, so
 * that TSan's unit run is the entries that start a thread: a process with
 * one thread has no data race for TSan to find.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
			 void *);

static atomic_bool recorded;

static void record_cmdline(void)
{
	const char *path = getenv("DOORBELL_THREAD_PROBE_LOG");
	char line[4096];
	ssize_t n, written;
	int in, out;

	if (!path)
		return;
	in = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	n = read(in, line, sizeof(line) - 1);
	close(in);
	if (n <= 0)
		return;
	/* cmdline ends each argument with a NUL: spaces, and one newline. */
	for (ssize_t i = 0; i < n; i++)
		if (!line[i])
			line[i] = ' ';
	line[n - 1] = '\n';
	out = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (out < 0)
		return;
	/*
	 * O_APPEND and one write: lines of processes that race stay whole.
	 * A failed write loses the line, and TSan then skips that entry.
	 */
	written = write(out, line, n);
	(void)written;
	close(out);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
		   void *(*start)(void *), void *arg)
{
	create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");

	/* The first caller records the process; the flag orders nothing else. */
	if (!atomic_exchange(&recorded, true))
		record_cmdline();
	if (!real)
		return EAGAIN;
	return real(thread, attr, start, arg);
}
