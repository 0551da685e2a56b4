// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Configuration space: a ConnectX-5 physical function with one 64-bit
 * prefetchable BAR0 and an MSI-X capability whose table and PBA live in
 * BAR0 (QEMU's vfio code emulates both, it reads their place from here).
 * No PCI Express capability: mlx5_core only prints the link from it and
 * tries PCIe atomics, both of which it skips without one.
 */
#include <errno.h>
#include <string.h>

#include "cx_int.h"

enum {
	CFG_COMMAND = 0x04,
	CFG_STATUS = 0x06,
	CFG_INTERRUPT_LINE = 0x3c,
	CAP_MSIX = 0x40,
	CAP_MSIX_CONTROL = CAP_MSIX + 2,
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

void cx_pci_init(struct cx *cx)
{
	uint8_t *c = cx->config;

	memset(c, 0, sizeof(cx->config));
	put16(c + 0x00, CX_PCI_VENDOR);
	put16(c + 0x02, CX_PCI_DEVICE);
	put16(c + CFG_STATUS, 1 << 4);	/* capabilities list */
	put32(c + 0x08, 0x02070000);	/* InfiniBand controller, rev 0 */
	put32(c + 0x10, 0xc);		/* BAR0: memory, 64-bit, prefetchable */
	put16(c + 0x2c, CX_PCI_VENDOR); /* subsystem vendor */
	put16(c + 0x2e, 0x0008);	/* subsystem */
	c[0x34] = CAP_MSIX;
	c[0x3d] = 0;	    /* no INTx pin */
	c[CAP_MSIX] = 0x11; /* MSI-X, last capability */
	put16(c + CAP_MSIX_CONTROL, cx->host.vectors - 1);
	put32(c + CAP_MSIX + 4, CX_MSIX_TABLE); /* BIR 0 */
	put32(c + CAP_MSIX + 8, CX_MSIX_PBA);
}

int cx_config_read(struct cx *cx, uint64_t off, void *buf, uint32_t len)
{
	if (off >= CX_CONFIG_SIZE || len > CX_CONFIG_SIZE - off)
		return EINVAL;
	memcpy(buf, cx->config + off, len);
	return 0;
}

/* Only the command register, the interrupt line and the MSI-X enable and
 * function-mask bits are writable; writes elsewhere are dropped. */
int cx_config_write(struct cx *cx, uint64_t off, const void *buf, uint32_t len)
{
	const uint8_t *b = buf;
	uint32_t i;

	if (off >= CX_CONFIG_SIZE || len > CX_CONFIG_SIZE - off)
		return EINVAL;
	for (i = 0; i < len; i++) {
		uint64_t o = off + i;

		if (o == CFG_COMMAND)
			cx->config[o] = b[i] & 0x06; /* memory, bus master */
		else if (o == CFG_COMMAND + 1)
			cx->config[o] = b[i] & 0x04; /* INTx disable */
		else if (o == CFG_INTERRUPT_LINE)
			cx->config[o] = b[i];
		else if (o == CAP_MSIX_CONTROL + 1)
			cx->config[o] = (cx->config[o] & 0x07) | (b[i] & 0xc0);
	}
	return 0;
}
