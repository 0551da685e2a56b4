// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An LD_PRELOAD library for check-xsrq.sh: ibv_modify_qp to RTR first
 * sleeps DOORBELL_TEST_LATE_RTR_MS milliseconds (unset: no sleep), so that
 * the client of a pingpong is late and its peer's first message reaches a
 * QP not yet in RTR.  A ConnectX drops that message and the sender resends
 * it after its ACK timeout; a device that fails it instead hangs the pair.
 * Whatever provider serves, the call goes on to libibverbs' own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <infiniband/verbs.h>

typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	modify_qp_fn next = (modify_qp_fn)dlsym(RTLD_NEXT, "ibv_modify_qp");
	const char *ms = getenv("DOORBELL_TEST_LATE_RTR_MS");
	long n = ms ? strtol(ms, NULL, 10) : 0;

	if (!next)
		return ENOSYS;
	if (n > 0 && (mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RTR) {
		struct timespec ts = { n / 1000, (n % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	return next(qp, attr, mask);
}
