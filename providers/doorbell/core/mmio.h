/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Device-memory vocabulary: the barriers that order host memory and device
 * registers against a DMA device, and the stores into device registers.
 * The names are rdma-core's (util/udma_barrier.h, util/mmio.h), so that a
 * reader who knows a stock provider reads ours the same way; the code is
 * written here.  Per architecture we follow rdma-core's choice, or say why
 * not next to it.
 *
 *   udma_to_device_barrier()   host-memory stores (WQEs, doorbell records)
 *                              before a store that lets the device read them
 *   udma_from_device_barrier() a load that saw the device's ownership bit
 *                              before the loads of the data it guards
 *   mmio_wc_start()            everything before, ahead of the stores into
 *                              a write-combining register that follow
 *   mmio_flush_writes()        write-combining stores out of the CPU before
 *                              anything after (another WC burst, an unlock)
 *   mmio_write32_be(), mmio_write64_be()   one store the device sees whole
 *   mmio_read32_be()           one load of a device register, whole
 *   mmio_memcpy_x64()          64-byte blocks in ascending address order
 *
 * DB_HAVE_MMIO is 1 where every one of these is right for a PCI device:
 * x86-64, aarch64, 64-bit POWER, riscv64 and s390x.  Elsewhere (every 32-bit
 * host: a 64-bit doorbell would be two stores; and architectures we never
 * compile for) it is 0, and a backend that drives device registers is left
 * out of the build (core/backends.c).
 *
 * Built with DB_MMIO_MODEL (the software device models in tests/ define it),
 * each operation becomes a call to a db_mmio_model_*() hook, which sees the
 * address, width, value and order of every access.
 */
#ifndef DOORBELL_MMIO_H
#define DOORBELL_MMIO_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#if defined(__x86_64__) || defined(__aarch64__) || defined(__powerpc64__) ||   \
	(defined(__riscv) && __riscv_xlen == 64) || defined(__s390x__)
#define DB_HAVE_MMIO 1
#else
#define DB_HAVE_MMIO 0
#endif

/* The barriers, as named events for a model. */
enum db_mmio_barrier {
	DB_BAR_TO_DEVICE,
	DB_BAR_FROM_DEVICE,
	DB_BAR_WC_START,
	DB_BAR_WC_FLUSH,
};

#ifdef DB_MMIO_MODEL

void db_mmio_model_barrier(enum db_mmio_barrier b);
void db_mmio_model_write32(void *reg, __be32 val);
void db_mmio_model_write64(void *reg, __be64 val);
void db_mmio_model_memcpy_x64(void *reg, const void *src, size_t len);
__be32 db_mmio_model_read32(const void *reg);

static inline void udma_to_device_barrier(void)
{
	db_mmio_model_barrier(DB_BAR_TO_DEVICE);
}

static inline void udma_from_device_barrier(void)
{
	db_mmio_model_barrier(DB_BAR_FROM_DEVICE);
}

static inline void mmio_wc_start(void)
{
	db_mmio_model_barrier(DB_BAR_WC_START);
}

static inline void mmio_flush_writes(void)
{
	db_mmio_model_barrier(DB_BAR_WC_FLUSH);
}

static inline void mmio_write32_be(void *reg, __be32 val)
{
	db_mmio_model_write32(reg, val);
}

static inline void mmio_write64_be(void *reg, __be64 val)
{
	db_mmio_model_write64(reg, val);
}
static inline __be32 mmio_read32_be(const void *reg)
{
	return db_mmio_model_read32(reg);
}

static inline void mmio_memcpy_x64(void *reg, const void *src, size_t len)
{
	db_mmio_model_memcpy_x64(reg, src, len);
}

#elif DB_HAVE_MMIO /* production */

#define db_compiler_barrier() asm volatile("" ::: "memory")

#if defined(__x86_64__)
/*
 * x86-64 keeps stores to write-back memory in program order, and loads in
 * program order with each other: only the compiler must be held back for
 * the two DMA barriers.  rdma-core uses lfence for the second (v44
 * util/udma_barrier.h, udma_from_device_barrier); Linux's is a compiler
 * barrier (v6.1 arch/x86/include/asm/barrier.h, __dma_rmb), and our CQs
 * are write-back memory, so we follow Linux.  The write-combining UAR
 * needs sfence.
 */
#define db_to_device()	 db_compiler_barrier()
#define db_from_device() db_compiler_barrier()
#define db_wc_flush()	 asm volatile("sfence" ::: "memory")
#elif defined(__aarch64__)
/*
 * Armv8 is other-multi-copy atomic, so outer-shareable dmb orders host
 * memory against the device (rdma-core v55.0 util/udma_barrier.h,
 * udma_to_device_barrier and udma_from_device_barrier; v44 used dsb st
 * and dsb ld).  Write-combining (Normal-NC) stores need dsb st to leave
 * the CPU (mmio_flush_writes, the same in both).
 */
#define db_to_device()	 asm volatile("dmb oshst" ::: "memory")
#define db_from_device() asm volatile("dmb oshld" ::: "memory")
#define db_wc_flush()	 asm volatile("dsb st" ::: "memory")
#elif defined(__powerpc64__)
/* POWER: sync for stores to the device, lwsync between loads. */
#define db_to_device()	 asm volatile("sync" ::: "memory")
#define db_from_device() asm volatile("lwsync" ::: "memory")
#define db_wc_flush()	 asm volatile("sync" ::: "memory")
#elif defined(__riscv)
/* RISC-V: fence the output (device) and write sets, the input and reads. */
#define db_to_device()	 asm volatile("fence ow,ow" ::: "memory")
#define db_from_device() asm volatile("fence ir,ir" ::: "memory")
#define db_wc_flush()	 asm volatile("fence ow,ow" ::: "memory")
#elif defined(__s390x__)
/*
 * s390x: PCI stores are system calls (below), which the kernel completes
 * before returning, so no CPU barrier is left to issue.  rdma-core uses the
 * MIO instructions and pciwb when the machine has them; we always take the
 * system-call path, which is correct everywhere and slower.
 */
#define db_to_device()	 db_compiler_barrier()
#define db_from_device() db_compiler_barrier()
#define db_wc_flush()	 db_compiler_barrier()
#endif

/* Orders: host-memory stores before the store that hands them over. */
static inline void udma_to_device_barrier(void)
{
	db_to_device();
}

/* Orders: the ownership load before the loads of what it guards. */
static inline void udma_from_device_barrier(void)
{
	db_from_device();
}

/* Orders: every store before, ahead of the write-combining stores after. */
static inline void mmio_wc_start(void)
{
	db_wc_flush();
}

/* Orders: write-combining stores out of the CPU before what follows. */
static inline void mmio_flush_writes(void)
{
	db_wc_flush();
}

#if defined(__s390x__)
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's PCI store: len bytes at reg, as one access when it can. */
static inline void db_s390_mmio_write(void *reg, const void *src, size_t len)
{
	syscall(__NR_s390_pci_mmio_write, (unsigned long)reg, src, len);
}

static inline void mmio_write32_be(void *reg, __be32 val)
{
	db_s390_mmio_write(reg, &val, sizeof(val));
}

static inline void mmio_write64_be(void *reg, __be64 val)
{
	db_s390_mmio_write(reg, &val, sizeof(val));
}

static inline void mmio_memcpy_x64(void *reg, const void *src, size_t len)
{
	db_s390_mmio_write(reg, src, len);
}

/* The kernel's PCI load. */
static inline __be32 mmio_read32_be(const void *reg)
{
	__be32 val = 0;

	syscall(__NR_s390_pci_mmio_read, (unsigned long)reg, &val, sizeof(val));
	return val;
}

#else /* a 64-bit architecture with plain stores to device memory */

/* One aligned 4-byte store, never torn or merged by the compiler. */
static inline void mmio_write32_be(void *reg, __be32 val)
{
	*(volatile uint32_t *)reg = (uint32_t)val;
}

/* One aligned 8-byte store: the device takes the doorbell whole. */
static inline void mmio_write64_be(void *reg, __be64 val)
{
	*(volatile uint64_t *)reg = (uint64_t)val;
}

/* One aligned 4-byte load, never torn, merged or cached by the compiler. */
static inline __be32 mmio_read32_be(const void *reg)
{
	return (__be32) * (const volatile uint32_t *)reg;
}

#if defined(__aarch64__)
#include <arm_neon.h>

/*
 * One st1 of four q registers per block: a single 64-byte store, which the
 * write-combining buffer sends as one TLP; eight 8-byte stores often are
 * not merged on arm64 (rdma-core v44 util/mmio.h, mmio_memcpy_x64).
 */
static inline void mmio_memcpy_x64(void *reg, const void *src, size_t len)
{
	uint64_t *d = reg;
	const uint64_t *s = src;

	for (; len; len -= 64, d += 8, s += 8)
		vst1q_u64_x4(d, vld1q_u64_x4(s));
}
#elif defined(__x86_64__)
#include <emmintrin.h>

/*
 * Four ascending 16-byte SSE2 stores per block (SSE2 is part of x86-64):
 * half the instructions of eight 8-byte stores, and the write-combining
 * buffer merges either into one 64-byte burst.  Volatile, so that the
 * compiler neither reorders nor merges nor drops them.
 */
static inline void mmio_memcpy_x64(void *reg, const void *src, size_t len)
{
	volatile __m128i_u *d = reg;
	const __m128i_u *s = src;

	for (; len; len -= 64, d += 4, s += 4) {
		d[0] = _mm_loadu_si128(&s[0]);
		d[1] = _mm_loadu_si128(&s[1]);
		d[2] = _mm_loadu_si128(&s[2]);
		d[3] = _mm_loadu_si128(&s[3]);
	}
}
#else
/*
 * Eight explicit ascending 8-byte stores per 64-byte block; the block loop
 * is left to the caller, which usually copies one.
 */
static inline void mmio_memcpy_x64(void *reg, const void *src, size_t len)
{
	volatile uint64_t *d = reg;
	const uint64_t *s = src;

	for (; len; len -= 64, d += 8, s += 8) {
		d[0] = s[0];
		d[1] = s[1];
		d[2] = s[2];
		d[3] = s[3];
		d[4] = s[4];
		d[5] = s[5];
		d[6] = s[6];
		d[7] = s[7];
	}
}
#endif /* __aarch64__ */
#endif /* __s390x__ */

#endif /* DB_MMIO_MODEL, DB_HAVE_MMIO */

#endif /* DOORBELL_MMIO_H */
