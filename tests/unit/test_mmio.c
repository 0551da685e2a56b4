// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The production mmio_memcpy_x64 (core/mmio.h) on ordinary memory. */
#include <string.h>

#include "core/mmio.h"
#include "check.h"

#if DB_HAVE_MMIO && !defined(__s390x__)
/* len bytes from src + off to a 64-byte aligned dst; nothing else moves. */
static void copy_and_compare(size_t len, size_t off)
{
	_Alignas(64) unsigned char dst[256 + 64];
	unsigned char src[256 + 16];
	size_t i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	memset(dst, 0xee, sizeof(dst));
	mmio_memcpy_x64(dst, src + off, len);
	CHECK(!memcmp(dst, src + off, len));
	for (i = len; i < sizeof(dst); i++)
		CHECK_EQ(dst[i], 0xee);
}
#endif

static void blocks_are_copied_whole_and_alone(void)
{
#if DB_HAVE_MMIO && !defined(__s390x__)
	copy_and_compare(64, 0);
	copy_and_compare(128, 0);
	copy_and_compare(256, 0);
	/* A source only 8-byte aligned, as a WQE in a buffer never is. */
	copy_and_compare(128, 8);
#elif DB_HAVE_MMIO
	CHECK_SKIP("s390x: the copy is an s390_pci_mmio_write system call, "
		   "which stores nothing into plain memory");
#else
	CHECK_SKIP("no device-register stores on this architecture");
#endif
}

static const struct check_test tests[] = {
	CHECK_TEST(blocks_are_copied_whole_and_alone),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_mmio_", tests);
}
