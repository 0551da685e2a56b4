// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Opening a context on the model: a doorbell device that uses the mlx5
 * backend, opened through the core's own alloc_context, so the test talks
 * to the backend through the public verbs API exactly as an application
 * would, with the fake kernel under it.  Only this file needs the core and
 * the backend at link time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "m5m_front.h"

/* libibverbs' (IBVERBS_PRIVATE_34), for what ibv_open_device would do. */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);

/*
 * The library half of ibv_create_cq_ex, which libibverbs installs when it
 * opens a device (set_lib_ops) and m5m_open, bypassing it, must install
 * itself: check wc_flags, call the provider, initialise the CQ's common
 * part (channel reference, event counters).
 */
static struct ibv_cq_ex *m5m_lib_create_cq_ex(struct ibv_context *ctx,
					      struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq;

	if (attr->wc_flags & ~(uint64_t)IBV_CREATE_CQ_SUP_WC_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = db_mlx5_backend.ops->create_cq_ex(ctx, attr);
	if (cq)
		verbs_init_cq(ibv_cq_ex_to_cq(cq), ctx, attr->channel,
			      attr->cq_context);
	return cq;
}

struct ibv_context *m5m_open(struct m5m_dev *dev)
{
	struct verbs_context *vctx;
	struct m5m_ibdev *d;

	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->magic = M5M_IBDEV_MAGIC;
	d->dev = dev;
	d->db.backend = &db_mlx5_backend;
	d->db.vdev.ops = &db_device_ops;
	atomic_init(&d->db.vdev.refcount, 1);
	d->db.vdev.device.node_type = IBV_NODE_CA;
	d->db.vdev.device.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->db.vdev.device.name, sizeof(d->db.vdev.device.name),
		 "m5model%u", dev->id);
	snprintf(d->db.vdev.device.dev_name, sizeof(d->db.vdev.device.dev_name),
		 "uverbs-m5model%u", dev->id);
	m5m_lock();
	d->next = dev->ibdevs;
	dev->ibdevs = d;
	dev->kernel_fini = m5m_kernel_fini; /* frees d with the device */
	m5m_unlock();
	/* No uverbs fd: every kernel command goes to the model. */
	vctx = db_device_ops.alloc_context(&d->db.vdev.device, -1, NULL);
	if (!vctx)
		return NULL;
	/* Through our view of it: libibverbs' may start earlier. */
	to_db_ctx(&vctx->context)->vctx.create_cq_ex = m5m_lib_create_cq_ex;
	return &vctx->context;
}
