/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * cx-server's Ethernet wire (wire.c): a datagram UNIX socket bound at one
 * path, each frame one datagram (no FCS) sent to the peer's path; two
 * servers, each the other's peer, are two functions on one link.  The
 * link can lose and reorder what it carries, as tests/twohost's netem
 * does for rxe: each frame sent is lost with probability LOSS (per mille),
 * or else held back with probability REORDER (per mille) and sent after
 * the next one (or after a millisecond, if none comes), from a seeded
 * generator so that a run can be repeated.  A frame sent while the peer
 * is not listening is lost, as on a cable with nothing at its end.  A
 * frame the peer's socket has no room for (the receiving server is busy)
 * waits, in order, and goes when it has: the wire itself loses nothing
 * it was not asked to (up to 8,192 frames waiting; more are counted as
 * wire_overflow).
 */
#ifndef DOORBELL_SIM_MLX5_PCI_WIRE_H
#define DOORBELL_SIM_MLX5_PCI_WIRE_H

#include <stdint.h>
#include <stdio.h>

struct wire_opts {
	const char *path, *peer;
	unsigned int loss, reorder; /* per mille */
	uint32_t seed;
};

struct wire;

/* NULL (errno set) if the socket cannot be bound. */
struct wire *wire_open(const struct wire_opts *o);
void wire_close(struct wire *w);
/* The descriptor to poll for frames arriving. */
int wire_fd(const struct wire *w);
void wire_send(struct wire *w, const uint8_t *frame, unsigned int len);
/*
 * Up to MAX frames that arrived, each handed to DELIVER (LEN bytes, valid
 * during the call); how many.
 */
unsigned int wire_recv(struct wire *w, unsigned int max,
		       void (*deliver)(void *arg, const uint8_t *frame,
				       unsigned int len),
		       void *arg);
/* Send a held frame that is due and what waits for room; the nanoseconds
 * until this should run again, or -1. */
int64_t wire_timers(struct wire *w);
/* Its counts: sent, lost, reordered, received, overflow. */
void wire_report(const struct wire *w, FILE *f);

#endif
