/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The verb policy every backend shares: the checks of the create verbs'
 * attributes that do not depend on the device, each with one errno, and
 * the small rules (lock need, same context, sizes) both backends apply.
 * Backends call these first and add only what their device limits.
 *
 * The errno policy: EOPNOTSUPP for a comp_mask bit, flag, type or feature
 * the provider does not have (libibverbs 44's own inline wrappers answer a
 * missing op the same way, and tests/guest/itest/bad_matrix.c expects it);
 * EINVAL for a value or an object that is wrong whatever the device.
 */
#ifndef DOORBELL_CORE_ATTR_H
#define DOORBELL_CORE_ATTR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/doorbell.h"

/* Objects created in @pd (a PD, a parent domain, or NULL) need locks. */
bool db_need_lock(struct ibv_pd *pd);

/* @obj_ctx, the context of an object the caller named, is @ctx. */
static inline bool db_same_context(const struct ibv_context *ctx,
				   const struct ibv_context *obj_ctx)
{
	return obj_ctx == ctx;
}

/*
 * A UD send's address handle: one of @qp's context and PD (a parent
 * domain's kernel handle is its PD's), as the kernel wants for rxe.
 * Inline: the send paths call it.
 */
static inline bool db_ud_ah_ok(const struct ibv_qp *qp, const struct ibv_ah *ah)
{
	return ah && db_same_context(qp->context, ah->context) &&
	       ah->pd->handle == qp->pd->handle;
}

/* The smallest power of two >= @n (1 for 0 and 1); @n <= 2^31. */
static inline uint32_t db_roundup_pow2(uint32_t n)
{
	return n <= 1 ? 1 : 1u << (32 - __builtin_clz(n - 1));
}

/*
 * The create checks below refuse with EOPNOTSUPP what @ctx's backend does
 * not take, as its descriptor (struct db_backend, core/doorbell.h) says,
 * and with EINVAL what is wrong whatever the backend.
 *
 * ibv_create_cq_ex: comp_mask, wc_flags, create flags, parent domain,
 * channel, vector and a non-zero cqe.  0 or a positive errno; on success
 * *@single says whether the CQ is used by one thread at a time (its flag,
 * its parent domain's thread domain, or DOORBELL_SINGLE_THREADED).  The
 * upper bound of cqe is the backend's (the device's max_cqe).
 */
int db_cq_attr_check(struct ibv_context *ctx,
		     const struct ibv_cq_init_attr_ex *attr, bool *single);

/*
 * ibv_create_qp_ex: a PD, CQs and SRQ of @ctx (EINVAL, checked first),
 * comp_mask, create flags, the QP type (a known type the backend does not
 * take is EOPNOTSUPP, an unknown one EINVAL), then the WR and SGE counts
 * against query_device's max_qp_wr and max_sge (EINVAL).  0 or a
 * positive errno.
 */
int db_qp_attr_check(struct ibv_context *ctx,
		     const struct ibv_qp_init_attr_ex *attr);

/*
 * ibv_modify_qp: the attributes the IB spec gives fewer bits than their
 * type (timeout, min_rnr_timer, retry_cnt, rnr_retry), EINVAL when out of
 * range; mlx5_ib would truncate them.  0 or EINVAL.
 */
int db_qp_modify_check(const struct ibv_qp_attr *attr, int mask);

/*
 * ibv_create_srq_ex: comp_mask, the SRQ type (a known type the backend
 * does not take is EOPNOTSUPP, an unknown one EINVAL), a missing or
 * foreign PD, max_wr 0 (unless the backend's srq_takes_0_wr), or max_wr
 * and max_sge above query_device's max_srq_wr and max_srq_sge (EINVAL).
 * 0 or a positive errno.
 */
int db_srq_attr_check(struct ibv_context *ctx,
		      const struct ibv_srq_init_attr_ex *attr);

#endif /* DOORBELL_CORE_ATTR_H */
