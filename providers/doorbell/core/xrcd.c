// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * XRC domains: kernel objects only (no queue, no device memory), opened
 * anew or shared with other processes through the inode of a file, as
 * ibv_open_xrcd(3) says.  The kernel checks the attributes and counts the
 * XRC SRQs and target QPs that use a domain (close answers EBUSY).
 *
 * A backend lists these in its ops; they open domains only once it
 * declares DB_SERVES_XRC (its SRQs, QPs and WQEs too), so that the verb
 * refuses what query_device does not advertise (core/caps.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/doorbell.h"
#include "core/kcmd.h"

struct ibv_xrcd *db_open_xrcd(struct ibv_context *ctx,
			      struct ibv_xrcd_init_attr *attr)
{
	struct verbs_xrcd *xrcd;
	int ret;

	if (!(to_db_ctx(ctx)->backend->serves & DB_SERVES_XRC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = db_k_open_xrcd(ctx, xrcd, attr);
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

int db_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int ret = db_k_close_xrcd(xrcd);

	if (!ret)
		free(xrcd);
	return ret;
}
