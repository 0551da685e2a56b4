// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_advise_mr on rxe: the kernel's ADVISE_MR command, which prefetches
 * the pages of on-demand-paging MRs (IBV_ACCESS_ON_DEMAND) where the
 * kernel's rxe pages on demand: Linux 7.2 (Debian sid) does, Linux 6.1 and
 * 6.12 do not (odp_caps.general_caps of ibv_query_device_ex says which).
 * The registration itself is the core's reg_mr (core/common_verbs.c),
 * which answers EOPNOTSUPP for IBV_ACCESS_ON_DEMAND on a device without
 * ODP.
 */
#include <errno.h>

#include "rxe/rxe.h"

int rxe_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		  uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	int ret = db_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);

	/*
	 * A kernel whose rxe cannot advise (no ODP: Linux 6.1, 6.12) has no
	 * ADVISE_MR method for it, and the ioctl fails with
	 * EPROTONOSUPPORT.  Say what libibverbs says for a provider without
	 * the verb, and what the rest of doorbell says for a feature the
	 * device lacks.
	 */
	return ret == EPROTONOSUPPORT ? EOPNOTSUPP : ret;
}
