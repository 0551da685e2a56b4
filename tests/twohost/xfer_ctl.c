// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_xfer's TCP control channel between the two hosts (server listens,
 * client connects and retries): sends, receives and two-way syncs, every
 * call bounded by a deadline.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xfer.h"

int ctl_fd = -1;

int wait_fd(int fd, short ev, double deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	double left = deadline - now_s();
	int rc;

	if (left <= 0)
		return 0;
	rc = poll(&p, 1, (int)(left * 1000) + 1);
	return rc < 0 && errno == EINTR ? 0 : rc;
}

bool ctl_send(const void *buf, size_t n, double deadline)
{
	const char *p = buf;

	while (n) {
		ssize_t w = send(ctl_fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w > 0) {
			p += w;
			n -= w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (wait_fd(ctl_fd, POLLOUT, deadline) <= 0 &&
		    now_s() >= deadline)
			return false;
	}
	return true;
}

bool ctl_recv(void *buf, size_t n, double deadline)
{
	char *p = buf;

	while (n) {
		ssize_t r = recv(ctl_fd, p, n, MSG_DONTWAIT);

		if (r > 0) {
			p += r;
			n -= r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			return false;
		if (wait_fd(ctl_fd, POLLIN, deadline) <= 0 &&
		    now_s() >= deadline)
			return false;
	}
	return true;
}

/* Both sides send TAG with their values, then read the peer's (into REPLY
 * unless NULL). */
bool ctl_sync(uint32_t tag, uint64_t a, uint64_t b, struct wire_ctl *reply,
	      double secs)
{
	struct wire_ctl mine = { CTL_MAGIC, tag, a, b }, tmp;
	double deadline = now_s() + secs;

	if (!reply)
		reply = &tmp;
	if (!ctl_send(&mine, sizeof(mine), deadline) ||
	    !ctl_recv(reply, sizeof(*reply), deadline))
		return false;
	return reply->magic == CTL_MAGIC && reply->tag == tag;
}

void ctl_connect(void)
{
	double deadline = now_s() + opt.wait_s;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(opt.port) };
	int one = 1;

	if (opt.server) {
		int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (ls < 0)
			fatal(T_SETUP, "socket: %s", strerror(errno));
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(ls, 1))
			fatal(T_SETUP, "bind/listen on port %d: %s", opt.port,
			      strerror(errno));
		if (wait_fd(ls, POLLIN, deadline) <= 0)
			fatal(T_SETUP, "no client connected within %d s",
			      opt.wait_s);
		ctl_fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (ctl_fd < 0)
			fatal(T_SETUP, "accept: %s", strerror(errno));
		close(ls);
	} else {
		if (inet_pton(AF_INET, opt.addr, &sa.sin_addr) != 1)
			fatal(T_SETUP, "bad IPv4 address '%s'", opt.addr);
		for (;;) {
			int fd = socket(
				AF_INET,
				SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			int err = 0;
			socklen_t len = sizeof(err);

			if (fd < 0)
				fatal(T_SETUP, "socket: %s", strerror(errno));
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ==
				    0 ||
			    (errno == EINPROGRESS &&
			     wait_fd(fd, POLLOUT,
				     now_s() + 5 < deadline ? now_s() + 5
							    : deadline) > 0 &&
			     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) ==
				     0 &&
			     err == 0)) {
				ctl_fd = fd;
				break;
			}
			close(fd);
			if (now_s() + 0.5 >= deadline)
				fatal(T_SETUP,
				      "cannot connect to %s:%d within %d s",
				      opt.addr, opt.port, opt.wait_s);
			usleep(500000);
		}
	}
	setsockopt(ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(ctl_fd, F_SETFL, fcntl(ctl_fd, F_GETFL) | O_NONBLOCK);
}
