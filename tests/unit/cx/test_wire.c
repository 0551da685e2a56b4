// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cx-server's Ethernet wire (sim/mlx5/pci/wire.c): two ends, each the
 * other's peer, carry frames whole and in order; a lossy wire loses them,
 * a reordering one holds a frame behind the next (or sends it when its
 * time is up), a duplicating one sends it twice, a corrupting one flips
 * one bit past the Ethernet header; a control file changes the rates
 * while the wire runs and each change reports the counts before it; a
 * frame to an end nobody listens on is lost and counted.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "wire.h"

static char dir[64], pa[96], pb[96], pctl[96];

struct got {
	unsigned int n;
	uint8_t first[8];
	unsigned int len[8];
	unsigned int flipped; /* frames whose bytes are not all first[] */
};

static void take(void *arg, const uint8_t *frame, unsigned int len)
{
	struct got *g = arg;
	unsigned int i;

	if (g->n < 8) {
		g->first[g->n] = frame[0];
		g->len[g->n] = len;
	}
	for (i = 1; i < len; i++) {
		if (frame[i] != frame[0]) {
			CHECK(i >= 14); /* never in the Ethernet header */
			g->flipped++;
			break;
		}
	}
	g->n++;
}

/* Two ends A and B, A with RATES (and a control file if CTL). */
static void ends_ctl(struct wire **a, struct wire **b, struct wire_rates r,
		     FILE *log)
{
	struct wire_opts oa = { pa, pb, r, 7, log ? pctl : NULL, log };
	struct wire_opts ob = { .path = pb, .peer = pa, .seed = 7 };

	snprintf(dir, sizeof(dir), "/tmp/wire-test.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	snprintf(pctl, sizeof(pctl), "%s/ctl", dir);
	*a = wire_open(&oa);
	*b = wire_open(&ob);
	CHECK(*a && *b);
}

/* A loses and reorders per mille as given. */
static void ends(struct wire **a, struct wire **b, unsigned int loss,
		 unsigned int reorder)
{
	struct wire_rates r = { .loss = loss, .reorder = reorder };

	ends_ctl(a, b, r, NULL);
}

static void done(struct wire *a, struct wire *b)
{
	wire_close(a);
	wire_close(b);
	unlink(pa);
	unlink(pb);
	unlink(pctl);
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

static void a_duplicating_wire_sends_a_frame_twice(void)
{
	struct wire *a, *b;
	struct got g = { 0 };
	struct wire_rates r = { .duplicate = 1000 };

	ends_ctl(&a, &b, r, NULL);
	send_byte(a, 1, 60);
	send_byte(a, 2, 60);
	CHECK_EQ(wire_recv(b, 64, take, &g), 4);
	CHECK_EQ(g.first[0], 1);
	CHECK_EQ(g.first[1], 1);
	CHECK_EQ(g.first[2], 2);
	CHECK_EQ(g.flipped, 0);
	done(a, b);
}

static void a_corrupting_wire_flips_a_bit_past_the_ethernet_header(void)
{
	struct wire *a, *b;
	struct got g = { 0 };
	struct wire_rates r = { .corrupt = 1000 };
	unsigned int i;

	ends_ctl(&a, &b, r, NULL);
	for (i = 0; i < 32; i++)
		send_byte(a, 0x5a, i % 2 ? 15 : 1514);
	for (i = 0; i < 1000 && g.n < 32; i++) {
		wire_recv(b, 64, take, &g);
		wire_timers(a); /* what waited for room in B's socket */
	}
	CHECK_EQ(g.n, 32);
	CHECK_EQ(g.flipped, 32); /* take() checks where */
	done(a, b);
}

static void put_ctl(const char *line)
{
	FILE *f = fopen(pctl, "w");
	struct timespec ms = { 0, 25000000 }; /* past the wire's 20 ms */

	CHECK(f != NULL);
	fputs(line, f);
	fclose(f);
	nanosleep(&ms, NULL);
}

static void the_control_file_changes_the_rates_and_reports_each_segment(void)
{
	struct wire *a, *b;
	struct got g = { 0 };
	struct wire_rates none = { 0 };
	char *buf = NULL;
	size_t n = 0;
	FILE *log = open_memstream(&buf, &n);
	unsigned int i;

	ends_ctl(&a, &b, none, log);
	put_ctl("label lossy loss 1000\n");
	for (i = 0; i < 5; i++)
		send_byte(a, 1, 60);
	CHECK_EQ(wire_recv(b, 64, take, &g), 0);
	put_ctl("label dup duplicate 1000 reorder 0\n");
	send_byte(a, 2, 60);
	CHECK_EQ(wire_recv(b, 64, take, &g), 2);
	put_ctl("label dup loss 2000\n"); /* refused: the rates stay */
	send_byte(a, 3, 60);
	CHECK_EQ(wire_recv(b, 64, take, &g), 2);
	wire_report(a, log);
	fclose(log);
	CHECK(strstr(buf, "stat: wire_segment - sent 0 lost 0 ") != NULL);
	CHECK(strstr(buf, "stat: wire_segment lossy sent 0 lost 5 reordered 0 "
			  "duplicated 0 corrupted 0 received 0 overflow 0\n") !=
	      NULL);
	CHECK(strstr(buf, "cannot read \"label dup loss 2000\", rates kept") !=
	      NULL);
	CHECK(strstr(buf, "stat: wire_segment dup sent 4 lost 0 reordered 0 "
			  "duplicated 2 corrupted 0 received 0 overflow 0\n") !=
	      NULL);
	CHECK(strstr(buf, "stat: wire_duplicated 2\n") != NULL);
	free(buf);
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
		CHECK_TEST(a_duplicating_wire_sends_a_frame_twice),
		CHECK_TEST(
			a_corrupting_wire_flips_a_bit_past_the_ethernet_header),
		CHECK_TEST(
			the_control_file_changes_the_rates_and_reports_each_segment),
		CHECK_TEST(frames_wait_for_room_and_none_is_lost),
		CHECK_TEST(a_frame_to_an_absent_peer_is_lost),
	};

	return CHECK_MAIN(argc, argv, "cx_wire_", tests);
}
