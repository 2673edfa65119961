/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a fuzz input stands for a device image.  A whole image is mostly
 * zeros between the last log and the secondary superblock (a kernel-
 * written 1 MiB seed has 160 KiB in use), and libFuzzer copies, hashes
 * and mutates every byte of an input, so a mutation of a 1 MiB image
 * mostly lands in zeros and an execution mostly moves memory.  An input
 * may therefore be an image with its zero middle cut out: its bytes but
 * the last FUZZ_IMAGE_TAIL are the image's start, and those last bytes
 * go where the secondary superblock of the device size the primary
 * superblock declares lies (capped at FUZZ_IMAGE_MAX), zeros between.
 * An input at least as long as that size, or one whose two parts would
 * overlap, is the image itself, so whole images stay valid inputs.
 * `mkseed --trim` (mkseed.c) cuts a seed; the targets grow it back.
 */
#ifndef FUZZ_IMAGE_H
#define FUZZ_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/io_test.h>
#include <nlfs/nlfs.h>

/* the secondary superblock's block: nlfs_sb2_offset() is 4 KiB-aligned */
#define FUZZ_IMAGE_TAIL 4096u
/* a mutated device size costs a sparse image of at most this */
#define FUZZ_IMAGE_MAX (4u << 20)

struct fuzz_image {
	size_t devsize;   /* the image's length */
	size_t head;      /* input bytes that start the image */
	size_t tail_at;   /* where the rest of the input goes (head == size: none) */
};

static inline struct fuzz_image fuzz_image_layout(const uint8_t *data, size_t size)
{
	struct fuzz_image im = { size, size, size };
	size_t at = NLFS_SB_OFFSET_BYTES + offsetof(struct nlfs_super_block, s_dev_size);
	uint64_t dev;

	if (size < NLFS_SB_OFFSET_BYTES + NLFS_SB_SIZE + FUZZ_IMAGE_TAIL)
		return im;
	dev = nlfs_get_le64(data + at);
	if (dev > FUZZ_IMAGE_MAX)
		dev = FUZZ_IMAGE_MAX;
	if (dev <= size || nlfs_sb2_offset(dev) < size - FUZZ_IMAGE_TAIL)
		return im;
	im.devsize = (size_t)dev;
	im.head = size - FUZZ_IMAGE_TAIL;
	im.tail_at = (size_t)nlfs_sb2_offset(dev);
	return im;
}

/* the image of DATA into IMAGE (IM->devsize bytes, zeroed) */
static inline void fuzz_image_fill(uint8_t *image, const struct fuzz_image *im,
				   const uint8_t *data, size_t size)
{
	memcpy(image, data, im->head);
	memcpy(image + im->tail_at, data + im->head, size - im->head);
}

/* a memory device holding the image of DATA; nonzero if out of memory */
static inline int fuzz_image_mem(const uint8_t *data, size_t size, struct nlfs_io **io)
{
	struct fuzz_image im = fuzz_image_layout(data, size);

	if (nlfs_io_open_mem(im.devsize, io))
		return -1;
	fuzz_image_fill(nlfs_io_mem_data(*io), &im, data, size);
	return 0;
}

#endif
