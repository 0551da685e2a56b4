// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* UD address handles: the kernel keeps the AV, a UD WQE names it by number. */
#include <errno.h>
#include <stdlib.h>

#include "rxe/rxe.h"

struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rxe_cmd_create_ah_resp resp = {};
	struct rxe_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = db_lib.ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv,
				       sizeof(resp));
	if (ret)
		goto err;
	/* Linux 5.16 and later always number AHs from 1. */
	if (!resp.drv.ah_num) {
		db_lib.ibv_cmd_destroy_ah(&ah->ibv_ah);
		ret = EPROTO;
		goto err;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibv_ah;
err:
	free(ah);
	errno = ret;
	return NULL;
}

int rxe_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = db_lib.ibv_cmd_destroy_ah(ibah);
	if (!ret)
		free(to_rxe_ah(ibah));
	return ret;
}
