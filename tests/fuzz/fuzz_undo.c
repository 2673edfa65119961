/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for undo files (lib/io/io_undo.c, lib/format/undo_id.c).
 * The input is used twice: as a list of writes (offset, length) made
 * through the undo layer onto a patterned memory device, after which
 * applying the undo file must give back the device byte for byte; and as an undo file itself, applied
 * to a memory device (a parser of untrusted bytes: nothing may crash).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <nlfs/io_test.h>
#include <nlfs/undo.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DEV_SIZE (64u * 1024u + 333u)

static struct nlfs_io *patterned(void)
{
	static uint8_t pattern[DEV_SIZE];
	static int made;
	struct nlfs_io *io;

	if (!made) {
		for (size_t i = 0; i < DEV_SIZE; i++)
			pattern[i] = (uint8_t)(i * 13 + 1);
		made = 1;
	}
	if (nlfs_io_open_mem(DEV_SIZE, &io))
		abort();
	memcpy(nlfs_io_mem_data(io), pattern, DEV_SIZE);
	return io;
}

static void writes_then_undo(const uint8_t *data, size_t size)
{
	/* tmpfs: the layer syncs the undo file before every write */
	char path[] = "/dev/shm/fuzz-undo-XXXXXX";
	int fd = mkstemp(path);
	struct nlfs_io *mem = patterned(), *u, *dev;
	static uint8_t before[DEV_SIZE], junk[8192];
	struct nlfs_undo_stats st;
	struct nlfs_err err;

	if (fd < 0)
		abort();
	close(fd);
	unlink(path);
	memcpy(before, nlfs_io_mem_data(mem), DEV_SIZE);
	if (nlfs_io_open_undo(mem, path, &u, &err))
		abort();
	for (size_t i = 0; i + 4 <= size && i < 64; i += 4) {
		uint32_t off = ((uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8) % DEV_SIZE;
		uint32_t len = ((uint32_t)data[i + 2] << 8 | data[i + 3]) % sizeof(junk);

		if (off + len > DEV_SIZE)
			len = DEV_SIZE - off;
		memset(junk, data[i], len);
		if (nlfs_io_write(u, junk, len, off))
			abort();
	}
	if (nlfs_io_open_mem(DEV_SIZE, &dev))
		abort();
	memcpy(nlfs_io_mem_data(dev), nlfs_io_mem_data(mem), DEV_SIZE);
	nlfs_io_close(u);
	if (nlfs_undo_apply(path, dev, 0, &st, &err) || st.torn ||
	    memcmp(nlfs_io_mem_data(dev), before, DEV_SIZE))
		abort();   /* the undo file did not give the device back */
	nlfs_io_close(dev);
	unlink(path);
}

static void apply_raw(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("undo", 0);
	struct nlfs_io *dev = patterned();
	struct nlfs_undo_stats st;
	struct nlfs_err err;

	if (fd < 0)
		abort();
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		nlfs_undo_apply(path, dev, NLFS_UNDO_FORCE | NLFS_UNDO_DRY_RUN, &st, &err);
		nlfs_undo_apply(path, dev, NLFS_UNDO_FORCE, &st, &err);
	}
	close(fd);
	nlfs_io_close(dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	writes_then_undo(data, size);
	apply_raw(data, size);
	return 0;
}
