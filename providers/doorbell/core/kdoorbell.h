/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel-write doorbell: a backend whose kernel driver runs the send
 * queue when asked (rxe; siw rings the same way) writes a prepared command
 * to the context's command fd, and the kernel runs what the WQEs before it
 * hold.  The only system call of a post, so it is issued directly where
 * the architecture allows.  static inline: it sits in the post's fast path,
 * whose instruction counts tests/bench/insn-guard.sh holds.
 */
#ifndef DOORBELL_CORE_KDOORBELL_H
#define DOORBELL_CORE_KDOORBELL_H

#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
static inline void db_kernel_doorbell(int fd, const void *cmd, size_t len)
{
	long ret;

	/* "memory": every WQE store is done before the kernel runs. */
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(cmd),
			   "d"(len)
			 : "rcx", "r11", "memory");
	(void)ret;
}
#else
static inline void db_kernel_doorbell(int fd, const void *cmd, size_t len)
{
	/* write(2) is a call: the compiler orders the WQE stores before it. */
	ssize_t ret = write(fd, cmd, len);

	(void)ret;
}
#endif

#endif /* DOORBELL_CORE_KDOORBELL_H */
