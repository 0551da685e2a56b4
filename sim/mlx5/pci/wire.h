/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * cx-server's Ethernet wire (wire.c): a datagram UNIX socket bound at one
 * path, each frame one datagram (no FCS) sent to the peer's path; two
 * servers, each the other's peer, are two functions on one link.
 *
 * The link can misbehave, as tests/twohost's netem makes rxe's link do.
 * Each frame sent is, with these probabilities (per mille):
 *  - LOSS: lost;
 *  - CORRUPT: one bit flipped past its Ethernet header, as a faulty
 *    switch would after the sender's FCS (the frame arrives with a good
 *    FCS, and only the ICRC or the IP, TCP and UDP checksums can tell);
 *  - DUPLICATE: sent twice;
 *  - REORDER: held back and sent after the next one (or after a
 *    millisecond, if none comes).
 * The draws come from a seeded generator, so that a run can be repeated.
 *
 * With CTL, a file, the rates change while the wire runs, as a test
 * changes netem between its scenarios.  The file holds one line of "KEY
 * VALUE" pairs, "label NAME loss N reorder N duplicate N corrupt N" (a
 * key left out is 0; NAME names the counts that follow).  The wire reads
 * it again when it changes, at the next frame sent 20 ms or more after
 * its last look, and first reports the counts since the change before
 * (wire_report's segment line).  A line it cannot read changes nothing,
 * and says so on LOG.
 *
 * A frame sent while the peer is not listening is lost, as on a cable
 * with nothing at its end.  A frame the peer's socket has no room for (the
 * receiving server is busy) waits, in order, and goes when it has: the
 * wire itself loses nothing it was not asked to (up to 65,536 frames
 * waiting; more are counted as wire_overflow).
 */
#ifndef DOORBELL_SIM_MLX5_PCI_WIRE_H
#define DOORBELL_SIM_MLX5_PCI_WIRE_H

#include <stdint.h>
#include <stdio.h>

struct wire_rates {
	unsigned int loss, reorder, duplicate, corrupt; /* per mille */
};

struct wire_opts {
	const char *path, *peer;
	struct wire_rates rates;
	uint32_t seed;
	const char *ctl; /* or NULL */
	FILE *log;	 /* CTL's segment lines and refusals */
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
/*
 * Its counts ("stat: wire_sent N", ...): sent, lost, reordered,
 * duplicated, corrupted, received, overflow.  With CTL, first the segment
 * since the last change: "stat: wire_segment LABEL sent N lost N
 * reordered N duplicated N corrupted N received N overflow N" (LABEL "-"
 * until the file names one).
 */
void wire_report(const struct wire *w, FILE *f);

#endif
