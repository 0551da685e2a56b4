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

#include "m5m_int.h"

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
	m5m_unlock();
	/* No uverbs fd: every kernel command goes to the model. */
	vctx = db_device_ops.alloc_context(&d->db.vdev.device, -1, NULL);
	return vctx ? &vctx->context : NULL;
}
