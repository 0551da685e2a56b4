// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_ring_map: the ring geometry the kernel reports, through
 * rxe_ring_check with arbitrary header words, mapping sizes and minimum
 * slot sizes, and through rxe_ring_map itself on a memfd standing in for
 * the uverbs file: any mminfo (size, offset), any header, any side.
 *
 * Checked: rxe_ring_check returns 0 or EPROTO, and accepts only a header
 * whose 2^n slots (n >= 0) of 2^log2 bytes (at least min_slot) fit in the mapping
 * after the 384-byte header; rxe_ring_map returns 0 or a positive errno,
 * leaves the ring untouched on an error, and on success keeps exactly the
 * header's geometry, our index masked, and a mapping whose last slot can be
 * read; rxe_ring_unmap forgets the mapping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#define FZ_FILE_MAX ((uint64_t)1 << 22) /* memfd bytes we back */

static void check_geometry(uint32_t log2, uint32_t mask, uint64_t map_len,
			   uint64_t min_slot, int ret)
{
	unsigned __int128 need;

	FZ_ASSERT(ret == 0 || ret == EPROTO, "rxe_ring_check returned %d", ret);
	if (ret)
		return;
	FZ_ASSERT(log2 < 64 && ((uint64_t)1 << log2) >= min_slot,
		  "accepted a 2^%u slot for %llu bytes", log2,
		  (unsigned long long)min_slot);
	/* 2^n slots; one slot (mask 0) is a queue with no room. */
	FZ_ASSERT((((uint64_t)mask + 1) & mask) == 0,
		  "accepted index mask 0x%x", mask);
	need = sizeof(struct rxe_queue_buf) +
	       ((unsigned __int128)((uint64_t)mask + 1) << log2);
	FZ_ASSERT(need <= map_len,
		  "accepted 2^%u-byte slots, mask 0x%x, in %llu "
		  "bytes",
		  log2, mask, (unsigned long long)map_len);
}

static uint64_t pick_min_slot(struct fz *in)
{
	uint32_t sge, inl;

	switch (fz_u8(in) % 5) {
	case 0:
		return sizeof(struct ib_uverbs_wc); /* CQ */
	case 1:					    /* SQ */
		sge = fz_u8(in);
		inl = fz_u16(in);
		return fz_sq_slot_min(sge, inl);
	case 2: /* RQ */
		return sizeof(struct rxe_recv_wqe) +
		       (uint64_t)fz_u8(in) * sizeof(struct rxe_sge);
	case 3:
		return fz_u32(in);
	default:
		return fz_u64(in);
	}
}

static void map_one(struct fz *in)
{
	static int fd = -1;
	struct rxe_queue_buf hdr;
	struct mminfo mi;
	struct rxe_ring r, zero;
	uint64_t min_slot, file_len;
	bool we_produce;
	uint8_t sel = fz_u8(in);
	int ret;

	if (fd < 0) {
		fd = memfd_create("fuzz_ring_map", MFD_CLOEXEC);
		FZ_ASSERT(fd >= 0, "memfd_create: %d", errno);
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.log2_elem_size = (sel & 1) ? fz_u32(in) : 6 + fz_u8(in) % 8;
	hdr.index_mask = (sel & 2) ? fz_u32(in) : (1u << (fz_u8(in) % 14)) - 1;
	hdr.producer_index = fz_u32(in);
	hdr.consumer_index = fz_u32(in);
	/* Sizes: what the header needs, a little less or more, anything. */
	switch ((sel >> 2) & 3) {
	case 0:
	case 1:
		mi.size =
			hdr.log2_elem_size < 40
				? sizeof(hdr) + (((uint64_t)hdr.index_mask + 1)
						 << hdr.log2_elem_size)
				: fz_u64(in);
		mi.size += (int16_t)fz_u16(in) / 256;
		break;
	case 2:
		mi.size = fz_u16(in);
		break;
	default:
		mi.size = fz_u64(in) & (((uint64_t)1 << 36) - 1);
		break;
	}
	mi.offset = (sel & 16) ? fz_u64(in) : 0;
	min_slot = pick_min_slot(in);
	we_produce = sel & 32;

	/* The file holds the mapping, as the kernel's object would. */
	file_len = mi.offset + mi.size;
	if (file_len < mi.offset || file_len > FZ_FILE_MAX)
		file_len = FZ_FILE_MAX;
	FZ_ASSERT(ftruncate(fd, 0) == 0 && ftruncate(fd, file_len) == 0,
		  "ftruncate: %d", errno);
	if (mi.offset < file_len)
		FZ_ASSERT(pwrite(fd, &hdr,
				 file_len - mi.offset < sizeof(hdr)
					 ? file_len - mi.offset
					 : sizeof(hdr),
				 mi.offset) >= 0,
			  "pwrite: %d", errno);
	/* A mapping past the end of the file would fault on the header: the
	 * kernel never offers one, so neither do we. */
	if (mi.offset >= file_len || file_len - mi.offset < sizeof(hdr))
		return;

	memset(&r, 0x77, sizeof(r));
	memcpy(&zero, &r, sizeof(r));
	ret = rxe_ring_map(&r, fd, &mi, min_slot, we_produce);
	if (ret) {
		FZ_ASSERT(ret > 0, "rxe_ring_map returned %d", ret);
		FZ_ASSERT(memcmp(&r, &zero, sizeof(r)) == 0,
			  "a failed rxe_ring_map changed the ring");
		return;
	}
	check_geometry(r.log2_stride, r.mask, mi.size, min_slot, 0);
	FZ_ASSERT(r.buf && r.map_len == mi.size && r.mask == hdr.index_mask &&
			  r.log2_stride == hdr.log2_elem_size &&
			  r.own == ((we_produce ? hdr.producer_index
						: hdr.consumer_index) &
				    hdr.index_mask),
		  "rxe_ring_map kept another geometry than the header's");
	/* The last slot's last byte is inside what the file backs. */
	if (mi.offset + mi.size <= file_len) {
		volatile uint8_t *last = (uint8_t *)rxe_ring_slot(&r, r.mask) +
					 ((size_t)1 << r.log2_stride) - 1;

		(void)*last;
	}
	rxe_ring_unmap(&r);
	FZ_ASSERT(r.buf == NULL, "rxe_ring_unmap kept the mapping");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t mode = fz_u8(&in);

	if (mode & 1) {
		uint32_t log2 = (mode & 2) ? fz_u32(&in) : fz_u8(&in);
		uint32_t mask = (mode & 4) ? fz_u32(&in)
					   : (1u << (fz_u8(&in) % 32)) - 1;
		uint64_t map_len = fz_u64(&in), min_slot = pick_min_slot(&in);

		check_geometry(log2, mask, map_len, min_slot,
			       rxe_ring_check(log2, mask, map_len, min_slot));
	} else {
		map_one(&in);
	}
	return 0;
}
