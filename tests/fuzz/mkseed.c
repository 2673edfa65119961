/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fuzzers' seeds:
 *   mkseed IMAGE [DIFF-IMAGE]  the unit tests' minimal image and (with a
 *                              second name) the diff walk's five-checkpoint
 *                              volume
 *   mkseed --undo FILE         an undo file of a few writes (fuzz_undo)
 *   mkseed --trim FILE...      each image cut to its input form in place
 *                              (fuzz_image.h), if it has one */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nlfs/undo.h>
#include "../unit/diffimg.h"
#include "../unit/testimg.h"
#include "fuzz_image.h"

#define DIFF_SEED_SIZE (1024u * 1024u)
#define UNDO_SEED_DEVSIZE (64u * 1024u)

static int write_file(const char *name, const uint8_t *data, size_t size)
{
	FILE *f = fopen(name, "wb");

	if (!f)
		return 2;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

static int write_image(const char *name, struct nlfs_io *io, size_t size)
{
	int rc = write_file(name, nlfs_io_mem_data(io), size);

	nlfs_io_close(io);
	return rc;
}

/* The length of IMAGE cut to its input form in CUT (SIZE bytes): without
 * the zeros between the last block in use and the secondary superblock's
 * block.  0 if it has none that gives back the very same bytes. */
static size_t cut(const uint8_t *image, size_t size, uint8_t *out)
{
	uint64_t dev = nlfs_get_le64(image + NLFS_SB_OFFSET_BYTES +
				     offsetof(struct nlfs_super_block, s_dev_size));
	size_t sb2, head = NLFS_SB_OFFSET_BYTES + NLFS_SB_SIZE, n;
	struct fuzz_image im;
	uint8_t *back;
	int same;

	if (size < head + FUZZ_IMAGE_TAIL || dev != size || dev > FUZZ_IMAGE_MAX)
		return 0;
	sb2 = (size_t)nlfs_sb2_offset(dev);
	for (size_t i = head; i < sb2; i++)
		if (image[i])
			head = i + 1;
	n = head + FUZZ_IMAGE_TAIL;
	memcpy(out, image, head);
	memcpy(out + head, image + sb2, FUZZ_IMAGE_TAIL);
	im = fuzz_image_layout(out, n);
	if (im.devsize != size || !(back = calloc(1, size)))
		return 0;
	fuzz_image_fill(back, &im, out, n);
	same = !memcmp(back, image, size);
	free(back);
	return same ? n : 0;
}

static int trim(const char *name)
{
	FILE *f = fopen(name, "rb");
	uint8_t *data = NULL, *out;
	long size;
	size_t n;
	int rc = 0;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(data = malloc(size ? (size_t)size : 1)) || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "mkseed: cannot read %s\n", name);
		if (f)
			fclose(f);
		free(data);
		return 1;
	}
	fclose(f);
	out = malloc(size ? (size_t)size : 1);
	n = out ? cut(data, (size_t)size, out) : 0;
	if (n && write_file(name, out, n)) {
		fprintf(stderr, "mkseed: cannot write %s\n", name);
		rc = 1;
	}
	free(out);
	free(data);
	return rc;
}

static int undo_seed(const char *name)
{
	static const struct { uint32_t off, len; uint8_t byte; } writes[] = {
		{ 0, 1024, 0x11 }, { 5000, 300, 0x22 }, { 4096, 8192, 0x33 },
		{ UNDO_SEED_DEVSIZE - 700, 700, 0x44 },
	};
	uint8_t buf[8192];
	struct nlfs_io *mem, *u;
	struct nlfs_err err;

	unlink(name);
	if (nlfs_io_open_mem(UNDO_SEED_DEVSIZE, &mem))
		return 1;
	for (size_t i = 0; i < UNDO_SEED_DEVSIZE; i++)
		nlfs_io_mem_data(mem)[i] = (uint8_t)(i * 7 + 3);
	if (nlfs_io_open_undo(mem, name, &u, &err)) {
		fprintf(stderr, "mkseed: %s\n", err.what);
		return 1;
	}
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		memset(buf, writes[i].byte, writes[i].len);
		if (nlfs_io_write(u, buf, writes[i].len, writes[i].off)) {
			nlfs_io_close(u);
			return 1;
		}
	}
	nlfs_io_close(u);
	return 0;
}

int main(int argc, char **argv)
{
	struct nlfs_err err;
	struct nlfs_io *io;
	int rc = 0;

	if (argc >= 2 && !strcmp(argv[1], "--trim")) {
		for (int i = 2; i < argc; i++)
			rc |= trim(argv[i]);
		return rc;
	}
	if (argc == 3 && !strcmp(argv[1], "--undo"))
		return undo_seed(argv[2]);
	if (argc < 2 || argc > 3)
		return 2;
	rc = write_image(argv[1], testimg_create(), TESTIMG_DEVSIZE);
	if (rc || argc == 2)
		return rc;
	if (diffimg_build(DIFF_SEED_SIZE, 16, &io, &err)) {
		fprintf(stderr, "mkseed: %s\n", err.what);
		return 1;
	}
	return write_image(argv[2], io, DIFF_SEED_SIZE);
}
