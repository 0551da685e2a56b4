/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The server side of vfio-user (QEMU's vfio-user specification (interop/vfio-user.rst in its docs)), just
 * what one PCI function needs: version negotiation, DMA_MAP/UNMAP of guest
 * memory passed as file descriptors (mmapped here), DEVICE_GET_INFO,
 * GET_REGION_INFO, GET_IRQ_INFO, SET_IRQS with eventfds (MSI-X), REGION_READ
 * and REGION_WRITE, DEVICE_RESET.  It knows nothing of ConnectX: the device
 * is a set of callbacks (struct vfu_dev_ops).
 *
 * One client, one thread: vfu_serve() handles messages in order until the
 * client hangs up, and between them runs the device's timers when due, so
 * the device never sees two callers at once.  Every access the device makes to guest memory goes
 * through vfu_dma(), which returns NULL unless the whole range lies inside
 * one mapping the client shared with the access it asks for.
 */
#ifndef DOORBELL_TESTS_CX_VFU_H
#define DOORBELL_TESTS_CX_VFU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PCI region indexes of <linux/vfio.h> (VFIO_PCI_*_REGION_INDEX). */
enum {
	VFU_REGION_BAR0 = 0,
	VFU_REGION_CONFIG = 7,
	VFU_NUM_REGIONS = 9,
};

/* IRQ indexes of <linux/vfio.h> (VFIO_PCI_*_IRQ_INDEX). */
enum {
	VFU_IRQ_INTX = 0,
	VFU_IRQ_MSI = 1,
	VFU_IRQ_MSIX = 2,
	VFU_NUM_IRQS = 5,
};

#define VFU_MAX_VECTORS 64

struct vfu_dev_ops {
	/* Size of BAR0 in bytes (a power of two); the other BARs are absent. */
	uint64_t bar0_size;
	/* Size of the configuration space (256 or 4096). */
	uint32_t config_size;
	/* Number of MSI-X vectors (<= VFU_MAX_VECTORS). */
	uint32_t msix_count;
	/*
	 * Accesses to a region (VFU_REGION_BAR0 or VFU_REGION_CONFIG),
	 * already checked to lie inside it.  Return 0 or a positive errno.
	 */
	int (*read)(void *dev, int region, uint64_t off, void *buf,
		    uint32_t len);
	int (*write)(void *dev, int region, uint64_t off, const void *buf,
		     uint32_t len);
	void (*reset)(void *dev);
	/*
	 * Optional: called between messages, in the serving thread, to do
	 * what is due by now; returns the nanoseconds until it should be
	 * called again, or -1 to wait for the next message only.
	 */
	int64_t (*timers)(void *dev);
	/*
	 * Optional: another descriptor the device reads (a wire), served in
	 * the same thread: aux(dev) is called between messages whenever
	 * aux_fd is readable.  aux NULL: none.
	 */
	int aux_fd;
	void (*aux)(void *dev);
};

struct vfu;

/* Listen on the UNIX socket PATH (removed first if it exists). */
struct vfu *vfu_create(const char *path, const struct vfu_dev_ops *ops,
		       void *dev);
/* Accept one client and serve it until it disconnects.  0 or errno. */
int vfu_serve(struct vfu *v);
void vfu_destroy(struct vfu *v);

/*
 * Host pointer to guest bus address ADDR .. ADDR+LEN-1, or NULL when that
 * range is not wholly inside one mapping that allows it (WRITE: writable).
 */
void *vfu_dma(struct vfu *v, uint64_t addr, uint64_t len, bool write);
/* Signal MSI-X vector VEC (its eventfd); false if none is set. */
bool vfu_irq(struct vfu *v, unsigned int vec);

#endif
