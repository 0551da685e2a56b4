/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A software ConnectX PCI function for Linux's own mlx5_core/mlx5_ib: its
 * configuration space, BAR0 (the initialization segment, UAR pages) and the
 * command interface, with no transport.  The vfio-user server (vfu.c,
 * server.c) puts it on a socket for QEMU; the unit tests (test_cx.c) drive
 * it directly, with a buffer as guest memory.
 *
 * The host gives the device two services: DMA (a host pointer for a guest
 * bus address range, NULL when the range is not all guest memory) and
 * MSI-X (signal a vector).  The device runs in the caller's thread: a
 * command executes during the doorbell write that rings it, and what is
 * due at a time (a moderated CQ's cq_period) when that thread calls
 * cx_timers(), which says when to call it next.
 */
#ifndef DOORBELL_TESTS_CX_H
#define DOORBELL_TESTS_CX_H

#include <stdbool.h>
#include <stdint.h>

struct cx_host {
	void *ctx;
	void *(*dma)(void *ctx, uint64_t addr, uint64_t len, bool write);
	bool (*irq)(void *ctx, unsigned int vec);
	/* Optional: one line per command, for the server's log. */
	void (*trace)(void *ctx, const char *line);
	/* MSI-X vectors the function offers: 1 up to CX_MSIX_VECTORS; 0 means
	 * CX_MSIX_VECTORS. */
	unsigned int vectors;
	/* The port is Ethernet (cx-server --eth), for mlx5e; else InfiniBand. */
	bool eth;
	/*
	 * How long a write at a BlueFlame half's start is held for the rest
	 * of a copy (cx_bf.c); 0: not held, each write is resolved at once.
	 */
	uint64_t bf_wait_ns;
	/*
	 * Optional: a slow device (sim/mlx5/engine/m5m_slow.c): a send
	 * doorbell only records the producer index, a timer runs at most this
	 * many WQEs of each QP per tick; 0 runs them at the doorbell.
	 */
	unsigned int slow;
	/*
	 * Optional, with eth: the wire.  Each frame the port sends (LEN bytes,
	 * no FCS) is handed to eth_tx; NULL: frames are counted and dropped.
	 * The port's MAC; all zero: CX_ETH_MAC (cx_eth.h).
	 */
	void (*eth_tx)(void *ctx, const uint8_t *frame, unsigned int len);
	uint8_t mac[6];
};

/* PCI identity and BAR0 layout (a ConnectX-5 physical function). */
enum {
	CX_PCI_VENDOR = 0x15b3,
	CX_PCI_DEVICE = 0x1017,
	CX_CONFIG_SIZE = 256,
	CX_BAR0_SIZE = 1 << 23,
	CX_MSIX_VECTORS = 8,
	CX_MSIX_TABLE = 0x2000, /* BAR0 offsets; QEMU emulates both */
	CX_MSIX_PBA = 0x3000,
	CX_PAGE = 4096,
};

struct cx;

struct cx *cx_create(const struct cx_host *host);
void cx_destroy(struct cx *cx);
/* Back to power-on state (PCI function level reset). */
void cx_reset(struct cx *cx);

/*
 * Raise what is due by now (the events of moderated CQs whose cq_period
 * ran out); the nanoseconds until the next deadline, or -1 when none.
 */
int64_t cx_timers(struct cx *cx);

/*
 * A frame from the wire (LEN bytes, no FCS) arrives at the Ethernet port:
 * steered, received into an RQ's WQE with its CQE, or dropped and counted
 * (cx_eth_rx.c).  Nothing on an InfiniBand function.
 */
void cx_eth_receive(struct cx *cx, const uint8_t *frame, unsigned int len);

/* Region accesses: 0 or a positive errno (out of range, odd size). */
int cx_config_read(struct cx *cx, uint64_t off, void *buf, uint32_t len);
int cx_config_write(struct cx *cx, uint64_t off, const void *buf, uint32_t len);
int cx_bar_read(struct cx *cx, uint64_t off, void *buf, uint32_t len);
int cx_bar_write(struct cx *cx, uint64_t off, const void *buf, uint32_t len);

#endif
