/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A per-queue lock that an object created for single-threaded use can elide.
 * Whether it is needed is decided once, when the object is created.
 */
#ifndef DOORBELL_LOCK_H
#define DOORBELL_LOCK_H

#include <pthread.h>
#include <stdbool.h>

struct db_lock {
	pthread_spinlock_t spin;
	bool need;
};

static inline int db_lock_init(struct db_lock *l, bool need)
{
	l->need = need;
	return need ? pthread_spin_init(&l->spin, PTHREAD_PROCESS_PRIVATE) : 0;
}

static inline void db_lock_destroy(struct db_lock *l)
{
	if (l->need)
		pthread_spin_destroy(&l->spin);
}

static inline void db_lock(struct db_lock *l)
{
	if (l->need)
		pthread_spin_lock(&l->spin);
}

static inline void db_unlock(struct db_lock *l)
{
	if (l->need)
		pthread_spin_unlock(&l->spin);
}

#endif /* DOORBELL_LOCK_H */
