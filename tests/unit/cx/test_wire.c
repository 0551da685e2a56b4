// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cx-server's Ethernet wire (sim/mlx5/pci/wire.c): two ends, each the
 * other's peer, carry frames whole and in order; a lossy wire loses them,
 * a reordering one holds a frame behind the next (or sends it when its
 * time is up); a frame to an end nobody listens on is lost and counted.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "wire.h"

static char dir[64], pa[96], pb[96];

struct got {
	unsigned int n;
	uint8_t first[8];
	unsigned int len[8];
};

static void take(void *arg, const uint8_t *frame, unsigned int len)
{
	struct got *g = arg;

	if (g->n < 8) {
		g->first[g->n] = frame[0];
		g->len[g->n] = len;
	}
	g->n++;
}

/* Two ends A and B; A loses and reorders per mille as given. */
static void ends(struct wire **a, struct wire **b, unsigned int loss,
		 unsigned int reorder)
{
	struct wire_opts oa = { pa, pb, loss, reorder, 7 };
	struct wire_opts ob = { pb, pa, 0, 0, 7 };

	snprintf(dir, sizeof(dir), "/tmp/wire-test.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	*a = wire_open(&oa);
	*b = wire_open(&ob);
	CHECK(*a && *b);
}

static void done(struct wire *a, struct wire *b)
{
	wire_close(a);
	wire_close(b);
	unlink(pa);
	unlink(pb);
	rmdir(dir);
}

static void send_byte(struct wire *w, uint8_t v, unsigned int len)
{
	uint8_t f[1514];

	memset(f, v, sizeof(f));
	wire_send(w, f, len);
}

static void frames_cross_whole_and_in_order(void)
{
	struct wire *a, *b;
	struct got g = { 0 };

	ends(&a, &b, 0, 0);
	send_byte(a, 1, 60);
	send_byte(a, 2, 1514);
	send_byte(b, 3, 100);
	CHECK_EQ(wire_recv(b, 64, take, &g), 2);
	CHECK_EQ(g.first[0], 1);
	CHECK_EQ(g.len[0], 60);
	CHECK_EQ(g.first[1], 2);
	CHECK_EQ(g.len[1], 1514);
	CHECK_EQ(wire_recv(a, 64, take, &g), 1);
	CHECK_EQ(g.first[2], 3);
	done(a, b);
}

static void a_lossy_wire_loses_frames(void)
{
	struct wire *a, *b;
	struct got g = { 0 };
	unsigned int i;

	ends(&a, &b, 1000, 0);
	for (i = 0; i < 10; i++)
		send_byte(a, 1, 60);
	CHECK_EQ(wire_recv(b, 64, take, &g), 0);
	done(a, b);
	ends(&a, &b, 500, 0);
	for (i = 0; i < 64; i++)
		send_byte(a, 1, 60);
	i = wire_recv(b, 64, take, &g);
	CHECK(i > 0 && i < 64);
	done(a, b);
}

static void a_reordering_wire_sends_a_frame_after_the_next(void)
{
	struct wire *a, *b;
	struct got g = { 0 };
	struct timespec ms = { 0, 2000000 };

	ends(&a, &b, 0, 1000);
	send_byte(a, 1, 60); /* held */
	CHECK_EQ(wire_recv(b, 64, take, &g), 0);
	send_byte(a, 2, 60); /* goes, then 1 */
	send_byte(a, 3, 60); /* held until its time is up */
	CHECK_EQ(wire_recv(b, 64, take, &g), 2);
	CHECK_EQ(g.first[0], 2);
	CHECK_EQ(g.first[1], 1);
	nanosleep(&ms, NULL);
	CHECK_EQ(wire_timers(a), -1);
	CHECK_EQ(wire_recv(b, 64, take, &g), 1);
	CHECK_EQ(g.first[2], 3);
	done(a, b);
}

struct order {
	unsigned int n;
	bool in_order;
};

static void count_in_order(void *arg, const uint8_t *frame, unsigned int len)
{
	struct order *o = arg;

	(void)len;
	if (frame[0] != (uint8_t)o->n)
		o->in_order = false;
	o->n++;
}

/* The peer's socket holds only a few datagrams (net.unix.max_dgram_qlen):
 * the rest wait, and all arrive, in order. */
static void frames_wait_for_room_and_none_is_lost(void)
{
	struct wire *a, *b;
	struct order o = { 0, true };
	unsigned int i;

	ends(&a, &b, 0, 0);
	for (i = 0; i < 300; i++)
		send_byte(a, (uint8_t)i, 100);
	for (i = 0; i < 1000 && o.n < 300; i++) {
		wire_recv(b, 64, count_in_order, &o);
		wire_timers(a);
	}
	CHECK_EQ(o.n, 300);
	CHECK(o.in_order);
	CHECK_EQ(wire_timers(a), -1); /* nothing waits */
	done(a, b);
}

static void a_frame_to_an_absent_peer_is_lost(void)
{
	struct wire *a, *b;
	struct got g = { 0 };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ends(&a, &b, 0, 0);
	wire_close(b);
	unlink(pb);
	send_byte(a, 1, 60);
	wire_report(a, f);
	fclose(f);
	CHECK(strstr(buf, "stat: wire_lost 1\n") != NULL);
	CHECK(strstr(buf, "stat: wire_sent 0\n") != NULL);
	CHECK_EQ(wire_recv(a, 64, take, &g), 0);
	free(buf);
	wire_close(a);
	unlink(pa);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	static const struct check_test tests[] = {
		CHECK_TEST(frames_cross_whole_and_in_order),
		CHECK_TEST(a_lossy_wire_loses_frames),
		CHECK_TEST(a_reordering_wire_sends_a_frame_after_the_next),
		CHECK_TEST(frames_wait_for_room_and_none_is_lost),
		CHECK_TEST(a_frame_to_an_absent_peer_is_lost),
	};

	return CHECK_MAIN(argc, argv, "cx_wire_", tests);
}
