// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cx-server: the software ConnectX on a vfio-user socket, for QEMU's
 * vfio-user-pci device.
 *
 *	cx-server [--trace] [--eth [--mac MAC] [--wire SOCK --peer SOCK
 *		  [--loss N] [--reorder N] [--duplicate N] [--corrupt N]
 *		  [--seed N] [--wire-ctl FILE]]] [--vectors N]
 *		  [--stats FILE] [--slow[=N]] SOCKET
 *
 * Serves one client (one guest boot) and exits when it disconnects.  With
 * --trace, one line per command (opcode, op_mod, status) on stderr; with
 * --vectors, a function of N MSI-X vectors (1 up to CX_MSIX_VECTORS)
 * instead of CX_MSIX_VECTORS, so that the driver's EQs share them; with
 * --eth, the port is Ethernet (mlx5e binds; cx_eth.h), else InfiniBand, its
 * MAC MAC (aa:bb:cc:dd:ee:ff; default CX_ETH_MAC); with --wire and --peer,
 * the port's wire (wire.h): a datagram UNIX socket bound at SOCK (--wire),
 * each frame one datagram to the peer's (--peer), lost with probability
 * --loss N, held back after the next with probability --reorder N, sent
 * twice with --duplicate N, a bit flipped with --corrupt N (per mille,
 * from --seed), those rates changed while it runs by the line of
 * --wire-ctl FILE; with
 * --stats, FILE holds the engine's violation and statistic lines
 * (cx_eng_report) from the start and is replaced whenever their total or
 * the BlueFlame doorbells' count changes, so that a guest
 * sharing its folder can tell which of its processes broke a rule
 * (tests/guest/mlx5/with-provider.sh); with --slow, a slow device: a
 * send doorbell only records its producer index and a timer runs at most N
 * WQEs (default 2) of each QP per tick, READ and atomic responses landing
 * after the WQEs behind them (sim/mlx5/engine/m5m_slow.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx.h"
#include "cx_engine.h"
#include "vfu.h"
#include "wire.h"

static struct vfu *server;
static const char *stats_path;
static uint64_t stats_total = UINT64_MAX, stats_bf, stats_ack;

/* Replaced whole (rename), so that a reader never sees half a report. */
static void stats_write(struct cx *cx)
{
	const struct cx_eng_stats *st;
	uint64_t total;
	char tmp[4096];
	FILE *f;

	if (!stats_path)
		return;
	total = cx_eng_report(cx, NULL);
	st = cx_eng_stats(cx);
	if (total == stats_total && st->bf_doorbells == stats_bf &&
	    st->ack_timeouts == stats_ack)
		return;
	stats_total = total;
	stats_bf = st->bf_doorbells;
	stats_ack = st->ack_timeouts;
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_path);
	f = fopen(tmp, "w");
	if (!f) {
		perror("cx-server: --stats");
		return;
	}
	cx_eng_report(cx, f);
	if (fclose(f) || rename(tmp, stats_path))
		perror("cx-server: --stats");
}

/* The Ethernet port's wire (--wire), or NULL. */
static struct wire *wire;

static void host_eth_tx(void *ctx, const uint8_t *frame, unsigned int len)
{
	(void)ctx;
	wire_send(wire, frame, len);
}

static void deliver(void *dev, const uint8_t *frame, unsigned int len)
{
	cx_eth_receive(dev, frame, len);
}

/* Frames waiting on the wire, a bounded batch so that the client is
 * served between batches. */
static void dev_wire(void *dev)
{
	if (wire_recv(wire, 64, deliver, dev))
		stats_write(dev);
}

/* The rate an option names (--loss, ...), or NULL. */
static unsigned int *wire_rate(struct wire_rates *r, const char *opt)
{
	if (!strcmp(opt, "--loss"))
		return &r->loss;
	if (!strcmp(opt, "--reorder"))
		return &r->reorder;
	if (!strcmp(opt, "--duplicate"))
		return &r->duplicate;
	if (!strcmp(opt, "--corrupt"))
		return &r->corrupt;
	return NULL;
}

static bool parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6], i;
	char end;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &end) != 6)
		return false;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return false;
		mac[i] = (uint8_t)b[i];
	}
	/* A unicast address: the group bit clear. */
	return !(mac[0] & 1);
}

static void *host_dma(void *ctx, uint64_t addr, uint64_t len, bool write)
{
	(void)ctx;
	return vfu_dma(server, addr, len, write);
}

static bool host_irq(void *ctx, unsigned int vec)
{
	(void)ctx;
	return vfu_irq(server, vec);
}

static void host_trace(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "cx: %s\n", line);
}

static int64_t dev_timers(void *dev)
{
	int64_t t = cx_timers(dev), w = wire ? wire_timers(wire) : -1;

	return t < 0 || (w >= 0 && w < t) ? w : t;
}

static int dev_read(void *dev, int region, uint64_t off, void *buf,
		    uint32_t len)
{
	if (region == VFU_REGION_CONFIG)
		return cx_config_read(dev, off, buf, len);
	return cx_bar_read(dev, off, buf, len);
}

static int dev_write(void *dev, int region, uint64_t off, const void *buf,
		     uint32_t len)
{
	int ret;

	if (region == VFU_REGION_CONFIG)
		return cx_config_write(dev, off, buf, len);
	ret = cx_bar_write(dev, off, buf, len);
	stats_write(dev);
	return ret;
}

static void dev_reset(void *dev)
{
	cx_reset(dev);
}

int main(int argc, char **argv)
{
	/*
	 * A BlueFlame copy's writes come as one message each; the next one
	 * is waited for this long before a write at a half's start is taken
	 * for a doorbell (cx_bf.c).
	 */
	struct cx_host host = { .dma = host_dma,
				.irq = host_irq,
				.bf_wait_ns = 200000 };
	struct vfu_dev_ops ops = {
		.bar0_size = CX_BAR0_SIZE,
		.config_size = CX_CONFIG_SIZE,
		.msix_count = CX_MSIX_VECTORS,
		.read = dev_read,
		.write = dev_write,
		.reset = dev_reset,
		.timers = dev_timers,
	};
	struct wire_opts wo = { .seed = 1, .log = stderr };
	unsigned int *rate;
	struct cx *cx;
	uint64_t bad;
	int err, a = 1;

	for (; a + 1 < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--trace")) {
			host.trace = host_trace;
		} else if (!strcmp(argv[a], "--eth")) {
			host.eth = true;
		} else if (!strcmp(argv[a], "--mac") && a + 2 < argc) {
			if (!parse_mac(argv[++a], host.mac))
				break;
		} else if (!strcmp(argv[a], "--wire") && a + 2 < argc) {
			wo.path = argv[++a];
		} else if (!strcmp(argv[a], "--peer") && a + 2 < argc) {
			wo.peer = argv[++a];
		} else if ((rate = wire_rate(&wo.rates, argv[a])) &&
			   a + 2 < argc) {
			*rate = strtoul(argv[++a], NULL, 0);
			if (*rate > 1000)
				break;
		} else if (!strcmp(argv[a], "--wire-ctl") && a + 2 < argc) {
			wo.ctl = argv[++a];
		} else if (!strcmp(argv[a], "--seed") && a + 2 < argc) {
			wo.seed = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--vectors") && a + 2 < argc) {
			host.vectors = strtoul(argv[++a], NULL, 0);
			if (host.vectors < 1 || host.vectors > CX_MSIX_VECTORS)
				break;
			ops.msix_count = host.vectors;
		} else if (!strcmp(argv[a], "--stats") && a + 2 < argc) {
			stats_path = argv[++a];
		} else if (!strcmp(argv[a], "--slow")) {
			host.slow = 2;
		} else if (!strncmp(argv[a], "--slow=", 7)) {
			host.slow = strtoul(argv[a] + 7, NULL, 0);
			if (host.slow < 1 || host.slow > 1024)
				break;
		} else {
			break;
		}
	}
	if (a + 1 != argc || !wo.path != !wo.peer || (wo.path && !host.eth)) {
		fprintf(stderr,
			"usage: cx-server [--trace] [--eth [--mac MAC] "
			"[--wire SOCK --peer SOCK [--loss N] [--reorder N] "
			"[--duplicate N] [--corrupt N] [--seed N] "
			"[--wire-ctl FILE]]] [--vectors N] [--stats FILE] "
			"[--slow[=N]] "
			"SOCKET\n");
		return 2;
	}
	if (wo.path) {
		wire = wire_open(&wo);
		if (!wire) {
			perror("cx-server: --wire");
			return 1;
		}
		host.eth_tx = host_eth_tx;
		ops.aux_fd = wire_fd(wire);
		ops.aux = dev_wire;
	}
	cx = cx_create(&host);
	server = cx ? vfu_create(argv[a], &ops, cx) : NULL;
	if (!server) {
		perror("cx-server");
		return 1;
	}
	stats_write(cx);
	err = vfu_serve(server);
	if (err)
		fprintf(stderr, "cx-server: %s\n", strerror(err));
	vfu_destroy(server);
	/* The engine's checks: any violation fails the run (scripts/cx.sh). */
	bad = cx_eng_report(cx, stderr);
	/* What proves the device was slow (scripts/cx.sh --slow checks it). */
	if (host.slow)
		fprintf(stderr,
			"slow: %u WQEs per tick; %llu WQEs completed a tick "
			"after they ran, %llu of them READs or atomics\n",
			host.slow,
			(unsigned long long)cx_eng_stats(cx)->slow_late,
			(unsigned long long)cx_eng_stats(cx)->slow_held);
	if (wire)
		wire_report(wire, stderr);
	wire_close(wire);
	cx_destroy(cx);
	return err ? 1 : bad ? 3 : 0;
}
