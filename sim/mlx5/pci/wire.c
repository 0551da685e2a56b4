// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* cx-server's Ethernet wire (wire.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

enum {
	MAX_FRAME = 65536,
	HOLD_NS = 1000000, /* a held frame goes out after this at the latest */
};

struct wire {
	int fd;
	struct sockaddr_un peer;
	unsigned int loss, reorder;
	uint32_t rng;
	/* The frame held back, and when it is due; held_len 0: none. */
	uint8_t held[MAX_FRAME];
	unsigned int held_len;
	int64_t held_due;
	uint8_t buf[MAX_FRAME];
	uint64_t sent, lost, reordered, received;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* xorshift32: a draw in [0, 1000). */
static unsigned int draw(struct wire *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 17;
	w->rng ^= w->rng << 5;
	return w->rng % 1000;
}

static bool unix_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return false;
	strcpy(a->sun_path, path);
	return true;
}

struct wire *wire_open(const struct wire_opts *o)
{
	struct sockaddr_un a;
	struct wire *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->loss = o->loss;
	w->reorder = o->reorder;
	w->rng = o->seed ? o->seed : 1;
	if (!unix_addr(&a, o->path) || !unix_addr(&w->peer, o->peer)) {
		free(w);
		errno = ENAMETOOLONG;
		return NULL;
	}
	w->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd < 0) {
		free(w);
		return NULL;
	}
	unlink(o->path);
	if (bind(w->fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = errno;

		close(w->fd);
		free(w);
		errno = e;
		return NULL;
	}
	return w;
}

void wire_close(struct wire *w)
{
	if (w) {
		close(w->fd);
		free(w);
	}
}

int wire_fd(const struct wire *w)
{
	return w->fd;
}

/* Onto the socket: lost when the peer is not there (yet) or is full. */
static void put(struct wire *w, const uint8_t *frame, unsigned int len)
{
	if (sendto(w->fd, frame, len, 0, (struct sockaddr *)&w->peer,
		   sizeof(w->peer)) < 0)
		w->lost++;
	else
		w->sent++;
}

void wire_send(struct wire *w, const uint8_t *frame, unsigned int len)
{
	if (len > MAX_FRAME)
		return;
	if (w->loss && draw(w) < w->loss) {
		w->lost++;
		return;
	}
	if (w->held_len) {
		/* The frame held back goes after this one. */
		put(w, frame, len);
		put(w, w->held, w->held_len);
		w->held_len = 0;
		return;
	}
	if (w->reorder && draw(w) < w->reorder) {
		memcpy(w->held, frame, len);
		w->held_len = len;
		w->held_due = now_ns() + HOLD_NS;
		w->reordered++;
		return;
	}
	put(w, frame, len);
}

int64_t wire_timers(struct wire *w)
{
	int64_t left;

	if (!w->held_len)
		return -1;
	left = w->held_due - now_ns();
	if (left > 0)
		return left;
	put(w, w->held, w->held_len);
	w->held_len = 0;
	return -1;
}

unsigned int wire_recv(struct wire *w, unsigned int max,
		       void (*deliver)(void *arg, const uint8_t *frame,
				       unsigned int len),
		       void *arg)
{
	unsigned int n;

	for (n = 0; n < max; n++) {
		ssize_t got = recv(w->fd, w->buf, sizeof(w->buf), 0);

		if (got < 0)
			break;
		w->received++;
		deliver(arg, w->buf, (unsigned int)got);
	}
	return n;
}

void wire_report(const struct wire *w, FILE *f)
{
	fprintf(f, "stat: wire_sent %llu\n", (unsigned long long)w->sent);
	fprintf(f, "stat: wire_lost %llu\n", (unsigned long long)w->lost);
	fprintf(f, "stat: wire_reordered %llu\n",
		(unsigned long long)w->reordered);
	fprintf(f, "stat: wire_received %llu\n",
		(unsigned long long)w->received);
}
