/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A per-queue spinlock that an object created for single-threaded use can
 * elide.  Whether it is needed is decided once, when the object is created.
 * It is inline test-and-set on a C11 atomic: uncontended, that is a few
 * instructions instead of two calls into libc (docs/performance.md).
 */
#ifndef DOORBELL_LOCK_H
#define DOORBELL_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>

struct db_lock {
	atomic_bool held;
	bool need;
};

static inline void db_lock_init(struct db_lock *l, bool need)
{
	atomic_init(&l->held, false);
	l->need = need;
}

static inline void db_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline void db_lock(struct db_lock *l)
{
	if (!l->need)
		return;
	/* Acquire: the holder before us finished with the queue. */
	while (atomic_exchange_explicit(&l->held, true, memory_order_acquire))
		while (atomic_load_explicit(&l->held, memory_order_relaxed))
			db_cpu_relax();
}

static inline void db_unlock(struct db_lock *l)
{
	if (!l->need)
		return;
	/* Release: our queue updates are seen by the next holder. */
	atomic_store_explicit(&l->held, false, memory_order_release);
}

#endif /* DOORBELL_LOCK_H */
