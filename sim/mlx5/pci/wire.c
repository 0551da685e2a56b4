// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* cx-server's Ethernet wire (wire.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

enum {
	MAX_FRAME = 65536,
	HOLD_NS = 1000000, /* a held frame goes out after this at the latest */
	/*
	 * Frames the peer's socket had no room for wait here, in order, and
	 * go out when it has (the receiving server is busy with its guest);
	 * beyond this many they are lost and counted (wire_overflow).
	 */
	BACKLOG = 65536,
	RETRY_NS = 50000,
	CTL_NS = 20000000, /* the control file is looked at this often */
	LABEL_MAX = 48,
};

struct counts {
	uint64_t sent, lost, reordered, duplicated, corrupted, received,
		overflow;
};

struct frame {
	unsigned int len;
	uint8_t b[];
};

struct wire {
	int fd;
	struct sockaddr_un peer;
	struct wire_rates r;
	uint32_t rng;
	/* The control file: when it was last looked at, its change time. */
	const char *ctl;
	FILE *log;
	int64_t ctl_seen;
	struct timespec ctl_ctime;
	char label[LABEL_MAX];
	struct counts mark; /* the counts when the segment began */
	/* The frame held back, and when it is due; held_len 0: none. */
	uint8_t held[MAX_FRAME];
	unsigned int held_len;
	int64_t held_due;
	uint8_t buf[MAX_FRAME], bent[MAX_FRAME];
	struct frame *backlog[BACKLOG];
	unsigned int bl_head, bl_n;
	struct counts c;
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
	w->r = o->rates;
	w->rng = o->seed ? o->seed : 1;
	w->ctl = o->ctl;
	w->log = o->log ? o->log : stderr;
	strcpy(w->label, "-");
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
		for (; w->bl_n;
		     w->bl_n--, w->bl_head = (w->bl_head + 1) % BACKLOG)
			free(w->backlog[w->bl_head]);
		close(w->fd);
		free(w);
	}
}

int wire_fd(const struct wire *w)
{
	return w->fd;
}

/* 0 sent, 1 no room (try again), -1 lost (no peer listening). */
static int try_put(struct wire *w, const uint8_t *frame, unsigned int len)
{
	if (sendto(w->fd, frame, len, 0, (struct sockaddr *)&w->peer,
		   sizeof(w->peer)) >= 0) {
		w->c.sent++;
		return 0;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return 1;
	w->c.lost++;
	return -1;
}

/* The backlog, oldest first, as far as the peer takes it. */
static void flush(struct wire *w)
{
	while (w->bl_n) {
		struct frame *f = w->backlog[w->bl_head];

		if (try_put(w, f->b, f->len) > 0)
			return;
		free(f);
		w->bl_head = (w->bl_head + 1) % BACKLOG;
		w->bl_n--;
	}
}

/* Onto the socket, behind any backlog; lost when the peer is not there
 * (yet), or the backlog is full. */
static void put(struct wire *w, const uint8_t *frame, unsigned int len)
{
	struct frame *f;

	flush(w);
	if (!w->bl_n && try_put(w, frame, len) <= 0)
		return;
	f = w->bl_n < BACKLOG ? malloc(sizeof(*f) + len) : NULL;
	if (!f) {
		w->c.overflow++;
		return;
	}
	f->len = len;
	memcpy(f->b, frame, len);
	w->backlog[(w->bl_head + w->bl_n++) % BACKLOG] = f;
}

static void segment_report(const struct wire *w, FILE *f)
{
	const struct counts *c = &w->c, *m = &w->mark;

	fprintf(f,
		"stat: wire_segment %s sent %llu lost %llu reordered %llu "
		"duplicated %llu corrupted %llu received %llu overflow %llu\n",
		w->label, (unsigned long long)(c->sent - m->sent),
		(unsigned long long)(c->lost - m->lost),
		(unsigned long long)(c->reordered - m->reordered),
		(unsigned long long)(c->duplicated - m->duplicated),
		(unsigned long long)(c->corrupted - m->corrupted),
		(unsigned long long)(c->received - m->received),
		(unsigned long long)(c->overflow - m->overflow));
}

/* "label NAME loss N ...": into RATES and LABEL; false if malformed. */
static bool ctl_parse(char *line, struct wire_rates *rates, char *label)
{
	char *save = NULL, *k, *v, *end;
	unsigned long n;

	memset(rates, 0, sizeof(*rates));
	strcpy(label, "-");
	for (k = strtok_r(line, " \t\n", &save); k;
	     k = strtok_r(NULL, " \t\n", &save)) {
		v = strtok_r(NULL, " \t\n", &save);
		if (!v)
			return false;
		if (!strcmp(k, "label")) {
			if (strlen(v) >= LABEL_MAX)
				return false;
			strcpy(label, v);
			continue;
		}
		n = strtoul(v, &end, 10);
		if (*end || n > 1000)
			return false;
		if (!strcmp(k, "loss"))
			rates->loss = n;
		else if (!strcmp(k, "reorder"))
			rates->reorder = n;
		else if (!strcmp(k, "duplicate"))
			rates->duplicate = n;
		else if (!strcmp(k, "corrupt"))
			rates->corrupt = n;
		else
			return false;
	}
	return true;
}

/* The control file, if it changed since the last look (wire.h). */
static void ctl_poll(struct wire *w)
{
	struct wire_rates rates;
	char line[256], copy[256], label[LABEL_MAX];
	int64_t now;
	struct stat st;
	FILE *f;

	if (!w->ctl)
		return;
	now = now_ns();
	if (now - w->ctl_seen < CTL_NS)
		return;
	w->ctl_seen = now;
	if (stat(w->ctl, &st) || (st.st_ctim.tv_sec == w->ctl_ctime.tv_sec &&
				  st.st_ctim.tv_nsec == w->ctl_ctime.tv_nsec))
		return;
	w->ctl_ctime = st.st_ctim;
	f = fopen(w->ctl, "r");
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	strcpy(copy, line);
	if (!ctl_parse(line, &rates, label)) {
		fprintf(w->log, "wire: %s: cannot read \"%s\", rates kept\n",
			w->ctl, copy);
		return;
	}
	segment_report(w, w->log);
	w->mark = w->c;
	w->r = rates;
	strcpy(w->label, label);
}

/* FRAME with one bit flipped past its Ethernet header, in w->bent. */
static const uint8_t *corrupt(struct wire *w, const uint8_t *frame,
			      unsigned int len)
{
	unsigned int hi = draw(w), at = 14 + (hi * 1000 + draw(w)) % (len - 14);

	memcpy(w->bent, frame, len);
	w->bent[at] ^= (uint8_t)(1 << draw(w) % 8);
	w->c.corrupted++;
	return w->bent;
}

void wire_send(struct wire *w, const uint8_t *frame, unsigned int len)
{
	if (len > MAX_FRAME)
		return;
	ctl_poll(w);
	if (w->r.loss && draw(w) < w->r.loss) {
		w->c.lost++;
		return;
	}
	if (w->r.corrupt && len > 14 && draw(w) < w->r.corrupt)
		frame = corrupt(w, frame, len);
	if (w->r.duplicate && draw(w) < w->r.duplicate) {
		put(w, frame, len);
		w->c.duplicated++;
	}
	if (w->held_len) {
		/* The frame held back goes after this one. */
		put(w, frame, len);
		put(w, w->held, w->held_len);
		w->held_len = 0;
		return;
	}
	if (w->r.reorder && draw(w) < w->r.reorder) {
		memcpy(w->held, frame, len);
		w->held_len = len;
		w->held_due = now_ns() + HOLD_NS;
		w->c.reordered++;
		return;
	}
	put(w, frame, len);
}

int64_t wire_timers(struct wire *w)
{
	int64_t left = -1;

	if (w->held_len) {
		left = w->held_due - now_ns();
		if (left <= 0) {
			put(w, w->held, w->held_len);
			w->held_len = 0;
			left = -1;
		}
	}
	flush(w);
	if (w->bl_n && (left < 0 || left > RETRY_NS))
		left = RETRY_NS;
	return left;
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
		w->c.received++;
		deliver(arg, w->buf, (unsigned int)got);
	}
	return n;
}

void wire_report(const struct wire *w, FILE *f)
{
	const struct counts *c = &w->c;

	if (w->ctl)
		segment_report(w, f);
	fprintf(f, "stat: wire_sent %llu\n", (unsigned long long)c->sent);
	fprintf(f, "stat: wire_lost %llu\n", (unsigned long long)c->lost);
	fprintf(f, "stat: wire_reordered %llu\n",
		(unsigned long long)c->reordered);
	fprintf(f, "stat: wire_duplicated %llu\n",
		(unsigned long long)c->duplicated);
	fprintf(f, "stat: wire_corrupted %llu\n",
		(unsigned long long)c->corrupted);
	fprintf(f, "stat: wire_received %llu\n",
		(unsigned long long)c->received);
	fprintf(f, "stat: wire_overflow %llu\n",
		(unsigned long long)c->overflow);
}
