/* SPDX-License-Identifier: GPL-2.0-or-later */
/* I/O backends: memory bounds, fault injection (fail, tear, crash), the
 * undo file (save before overwrite, put back, torn tail, wrong device). */
#define _GNU_SOURCE   /* memfd_create */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include <nlfs/io_test.h>
#include <nlfs/undo.h>
#include <nlfs/endian.h>
#include <nlfs/ondisk.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>

START_TEST(mem_reads_back_and_bounds)
{
	struct nlfs_io *io;
	uint8_t buf[16] = "hello, nilfs", out[16];
	uint64_t sz;

	ck_assert_int_eq(nlfs_io_open_mem(4096, &io), 0);
	ck_assert_int_eq(nlfs_io_size(io, &sz), 0);
	ck_assert_uint_eq(sz, 4096);
	ck_assert_int_eq(nlfs_io_write(io, buf, sizeof(buf), 100), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, sizeof(out), 100), 0);
	ck_assert_mem_eq(buf, out, sizeof(buf));
	ck_assert_int_eq(nlfs_io_read(io, out, sizeof(out), 4090), -ENODATA);
	ck_assert_int_eq(nlfs_io_write(io, buf, sizeof(buf), 4090), -ENOSPC);
	ck_assert_int_eq(nlfs_io_read(io, out, 2, UINT64_MAX), -EINVAL);
	nlfs_io_close(io);
}
END_TEST

START_TEST(fault_fails_chosen_write)
{
	struct nlfs_io *mem, *io;
	uint8_t a = 1;

	ck_assert_int_eq(nlfs_io_open_mem(64, &mem), 0);
	ck_assert_int_eq(nlfs_io_open_fault(mem, &io), 0);
	nlfs_io_fault_fail_write(io, 1);
	ck_assert_int_eq(nlfs_io_write(io, &a, 1, 0), 0);
	ck_assert_int_eq(nlfs_io_write(io, &a, 1, 1), -EIO);
	ck_assert_int_eq(nlfs_io_write(io, &a, 1, 2), 0);
	ck_assert_uint_eq(nlfs_io_fault_writes(io), 3);
	ck_assert_uint_eq(nlfs_io_mem_data(mem)[1], 0);
	ck_assert_uint_eq(nlfs_io_mem_data(mem)[2], 1);
	nlfs_io_close(io);
}
END_TEST

START_TEST(fault_tears_then_power_is_lost)
{
	struct nlfs_io *mem, *io;
	uint8_t buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8];

	ck_assert_int_eq(nlfs_io_open_mem(64, &mem), 0);
	ck_assert_int_eq(nlfs_io_open_fault(mem, &io), 0);
	nlfs_io_fault_tear_write(io, 0, 3);
	ck_assert_int_eq(nlfs_io_write(io, buf, 8, 8), -EIO);
	ck_assert_int_eq(nlfs_io_flush(io), -EIO);
	ck_assert_int_eq(nlfs_io_read(io, out, 8, 8), -EIO);
	memcpy(out, nlfs_io_mem_data(mem) + 8, 8);
	ck_assert_uint_eq(out[2], 3);
	ck_assert_uint_eq(out[3], 0);
	nlfs_io_close(io);
}
END_TEST

START_TEST(fault_crash_drops_unflushed_writes)
{
	struct nlfs_io *mem, *io;
	uint8_t one = 1, two = 2;
	uint8_t *d;

	ck_assert_int_eq(nlfs_io_open_mem(64, &mem), 0);
	d = nlfs_io_mem_data(mem);
	ck_assert_int_eq(nlfs_io_open_fault(mem, &io), 0);
	ck_assert_int_eq(nlfs_io_write(io, &one, 1, 0), 0);
	ck_assert_int_eq(nlfs_io_flush(io), 0);
	ck_assert_int_eq(nlfs_io_write(io, &two, 1, 0), 0);
	ck_assert_int_eq(nlfs_io_write(io, &two, 1, 1), 0);
	ck_assert_int_eq(nlfs_io_write(io, &one, 1, 1), 0);
	nlfs_io_fault_crash(io);
	ck_assert_uint_eq(d[0], 1);  /* flushed: kept */
	ck_assert_uint_eq(d[1], 0);  /* never flushed: back to the oldest contents */
	nlfs_io_close(io);
}
END_TEST

START_TEST(unix_file_roundtrip)
{
	char path[] = "/tmp/nlfs-io-XXXXXX";
	int fd = mkstemp(path);
	struct nlfs_io *io;
	uint8_t buf[4] = { 9, 8, 7, 6 }, out[4];
	uint64_t sz;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	close(fd);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDWR, &io), 0);
	ck_assert_str_eq(nlfs_io_name(io), path);
	ck_assert_int_eq(nlfs_io_size(io, &sz), 0);
	ck_assert_uint_eq(sz, 8192);
	ck_assert_int_eq(nlfs_io_write(io, buf, 4, 5000), 0);
	ck_assert_int_eq(nlfs_io_flush(io), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, 4, 5000), 0);
	ck_assert_mem_eq(buf, out, 4);
	ck_assert_int_eq(nlfs_io_read(io, out, 4, 8190), -ENODATA);
	nlfs_io_close(io);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY, &io), 0);
	ck_assert_int_eq(nlfs_io_write(io, buf, 4, 0), -EROFS);
	nlfs_io_close(io);
	unlink(path);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY, &io), -ENOENT);
}
END_TEST

/* NLFS_IO_UNCACHED (the cleaner's segment reads): reads of whole blocks
 * (O_DIRECT where the file system allows it) and of odd sizes (buffered
 * from then on) see what another descriptor wrote; reading only */
START_TEST(unix_uncached_reads)
{
	char path[] = "/var/tmp/nlfs-io-XXXXXX";
	int fd = mkstemp(path);
	struct nlfs_io *io;
	static uint8_t data[16384], out[8192];

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 4096);
	ck_assert_int_eq(pwrite(fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDWR | NLFS_IO_UNCACHED, &io), -EINVAL);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY | NLFS_IO_UNCACHED, &io), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, 8192, 4096), 0);
	ck_assert_mem_eq(out, data + 4096, 8192);
	/* rewritten behind the handle's back: the next read sees it */
	memset(data + 4096, 0xa5, 4096);
	ck_assert_int_eq(pwrite(fd, data + 4096, 4096, 4096), 4096);
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, 4096, 4096), 0);
	ck_assert_mem_eq(out, data + 4096, 4096);
	ck_assert_int_eq(nlfs_io_read(io, out, 100, 4097), 0);   /* unaligned */
	ck_assert_mem_eq(out, data + 4097, 100);
	ck_assert_int_eq(nlfs_io_read(io, out, 4096, 8192), 0);
	ck_assert_mem_eq(out, data + 8192, 4096);
	ck_assert_int_eq(nlfs_io_read(io, out, 4096, 16384), -ENODATA);
	nlfs_io_close(io);
	close(fd);
	unlink(path);
}
END_TEST

/* pages of FD's first NPAGES the page cache holds */
static unsigned resident_pages(int fd, unsigned npages)
{
	unsigned char res[64];
	unsigned n = 0;
	void *map = mmap(NULL, (size_t)npages * 4096, PROT_NONE, MAP_SHARED, fd, 0);

	ck_assert(map != MAP_FAILED && npages <= sizeof(res));
	ck_assert_int_eq(mincore(map, (size_t)npages * 4096, res), 0);
	for (unsigned i = 0; i < npages; i++)
		n += res[i] & 1;
	munmap(map, (size_t)npages * 4096);
	return n;
}

/* a block read through HOW (a mode) from a cold file: the pages cached after */
static unsigned cold_read_caches(const char *path, int fd, int how)
{
	static uint8_t out[4096];
	struct nlfs_io *io;

	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	if (resident_pages(fd, 64))
		return UINT32_MAX;   /* a file system that keeps its pages (tmpfs) */
	ck_assert_int_eq(nlfs_io_open_unix(path, how, &io), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, 4096, 0), 0);
	ck_assert_uint_eq(out[0], 0x3c);
	nlfs_io_close(io);
	return resident_pages(fd, 64);
}

/* NLFS_IO_NO_READAHEAD: the kernel reads the block asked for, not the
 * ones after it that its read-ahead takes at the start of a file.  Seen
 * only where the file's pages can be dropped and the device reads ahead. */
START_TEST(unix_no_readahead)
{
	char path[] = "/var/tmp/nlfs-io-XXXXXX";
	int fd = mkstemp(path);
	static uint8_t data[64 * 4096];
	unsigned plain, bare;

	ck_assert_int_ge(fd, 0);
	memset(data, 0x3c, sizeof(data));
	ck_assert_int_eq(pwrite(fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
	ck_assert_int_eq(fsync(fd), 0);
	plain = cold_read_caches(path, fd, NLFS_IO_RDONLY | NLFS_IO_PLAIN);
	bare = cold_read_caches(path, fd, NLFS_IO_RDONLY | NLFS_IO_PLAIN | NLFS_IO_NO_READAHEAD);
	if (plain != UINT32_MAX && plain > 1)
		ck_assert_uint_eq(bare, 1);
	close(fd);
	unlink(path);
}
END_TEST

/* small reads are served from chunks of the page cache: whatever the mix of
 * reads and writes through the handle, and whether the pages are cached or
 * not, every read returns what was last written there; on the file FD at
 * PATH, or (MEMORY) a memory file whose middle is a hole */
static void reads_agree_with_a_model(int fd, const char *path, bool memory)
{
	enum { SIZE = (1 << 20) + 1000, HOLE = 1 << 18 };
	uint8_t *model = malloc(SIZE), *buf = malloc(65536), *out = malloc(65536);
	struct nlfs_io *io;
	unsigned seed = 12345;
	uint64_t last = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(model);
	for (size_t i = 0; i < SIZE; i++)
		model[i] = (uint8_t)(i * 31 + (i >> 12));
	if (memory) {
		memset(model + HOLE, 0, HOLE);
		ck_assert_int_eq(ftruncate(fd, SIZE), 0);
		ck_assert_int_eq(pwrite(fd, model, HOLE, 0), HOLE);
		ck_assert_int_eq(pwrite(fd, model + 2 * HOLE, SIZE - 2 * HOLE, 2 * HOLE),
				 SIZE - 2 * HOLE);
	} else {
		ck_assert_int_eq(pwrite(fd, model, SIZE, 0), SIZE);
	}
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDWR, &io), 0);
	if (memory) {
		struct nlfs_io_stats st;

		/* the hole's blocks are memory too: one chunk serves neighbours */
		for (int i = 0; i < 8; i++) {
			ck_assert_int_eq(nlfs_io_read(io, out, 1024, HOLE + (uint64_t)i * 1024), 0);
			ck_assert_uint_eq(out[0], 0);
		}
		nlfs_io_get_stats(io, &st);
		ck_assert_uint_lt(st.os_reads, 8);
	}
	for (int op = 0; op < 20000; op++) {
		unsigned kind = (unsigned)rand_r(&seed) % 10;
		size_t len = kind < 7 ? 1 + (size_t)rand_r(&seed) % 8192 :
			     1 + (size_t)rand_r(&seed) % 65536;
		uint64_t off;

		if (op % 500 == 0)   /* now and then nothing is cached */
			ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
		/* half of them near the last access, as a reader's neighbours are */
		off = (uint64_t)rand_r(&seed) % (SIZE - len + 1);
		if (op % 2 && last + 16384 + len <= SIZE)
			off = last + (uint64_t)rand_r(&seed) % 16384;
		last = off;
		if (kind == 9) {
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)rand_r(&seed);
			ck_assert_int_eq(nlfs_io_write(io, buf, len, off), 0);
			memcpy(model + off, buf, len);
			if (op % 7 == 0)
				ck_assert_int_eq(nlfs_io_flush(io), 0);
			continue;
		}
		ck_assert_int_eq(nlfs_io_read(io, out, len, off), 0);
		ck_assert_msg(memcmp(out, model + off, len) == 0, "op %d: %zu bytes at %llu differ",
			      op, len, (unsigned long long)off);
		/* and its neighbour, from the same chunk if it is cached */
		if (off + 2 * len <= SIZE) {
			ck_assert_int_eq(nlfs_io_read(io, out, len, off + len), 0);
			ck_assert_msg(memcmp(out, model + off + len, len) == 0,
				      "op %d: neighbour at %llu differs", op,
				      (unsigned long long)(off + len));
		}
	}
	/* the tail: the last byte reads, one past it is past the end */
	ck_assert_int_eq(nlfs_io_read(io, out, 1, SIZE - 1), 0);
	ck_assert_uint_eq(out[0], model[SIZE - 1]);
	ck_assert_int_eq(nlfs_io_read(io, out, 2, SIZE - 1), -ENODATA);
	nlfs_io_close(io);
	free(model);
	free(buf);
	free(out);
}

START_TEST(unix_reads_agree_with_a_model)
{
	char path[] = "/tmp/nlfs-io-XXXXXX";
	int fd = mkstemp(path);

	reads_agree_with_a_model(fd, path, false);
	close(fd);
	unlink(path);
}
END_TEST

/* a memfd (tmpfs) is read through chunks without asking what is cached */
START_TEST(unix_memory_file_reads_agree_with_a_model)
{
	int fd = memfd_create("nlfs-io", 0);
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	reads_agree_with_a_model(fd, path, true);
	close(fd);
}
END_TEST

/* the counters --stats prints: every read asked for, and the system calls
 * that served them; neighbouring blocks the page cache holds come from one */
START_TEST(unix_read_counters)
{
	char path[] = "/tmp/nlfs-io-XXXXXX";
	int fd = mkstemp(path);
	static uint8_t data[65536], out[4096];
	struct nlfs_io_stats st;
	struct nlfs_io *io;

	ck_assert_int_ge(fd, 0);
	memset(data, 0x5a, sizeof(data));
	ck_assert_int_eq(pwrite(fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY, &io), 0);
	nlfs_io_get_stats(io, &st);
	ck_assert_uint_eq(st.reads, 0);
	ck_assert_uint_eq(st.os_reads, 0);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(nlfs_io_read(io, out, 4096, (uint64_t)i * 4096), 0);
	ck_assert_int_eq(nlfs_io_prefetch(io, 0, 8192), 0);
	nlfs_io_get_stats(io, &st);
	ck_assert_uint_eq(st.reads, 8);
	ck_assert_uint_eq(st.read_bytes, 8 * 4096);
	/* the file was just written: cached, so chunks serve most reads */
	ck_assert_uint_ge(st.os_reads, 1);
	ck_assert_uint_lt(st.os_reads, 8);
	ck_assert_uint_ge(st.os_read_bytes, 8 * 4096);
	ck_assert_uint_eq(st.prefetches, 1);
	ck_assert_uint_eq(st.prefetch_bytes, 8192);
	/* a large read is one system call of its own */
	ck_assert_int_eq(nlfs_io_read(io, data, 32768, 0), 0);
	nlfs_io_get_stats(io, &st);
	ck_assert_uint_eq(st.reads, 9);
	nlfs_io_close(io);
	/* NLFS_IO_PLAIN: no chunks, each read a system call of its own */
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY | NLFS_IO_PLAIN, &io), 0);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(nlfs_io_read(io, out, 4096, (uint64_t)i * 4096), 0);
		ck_assert_uint_eq(out[0], 0x5a);
	}
	nlfs_io_get_stats(io, &st);
	ck_assert_uint_eq(st.reads, 8);
	ck_assert_uint_eq(st.os_reads, 8);
	ck_assert_uint_eq(st.os_read_bytes, 8 * 4096);
	nlfs_io_close(io);
	/* scattered (nlfs_io_scattered): the same, exactly what is asked for,
	 * while it lasts; then chunks again */
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY, &io), 0);
	ck_assert(!nlfs_io_scattered(io, true));
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(nlfs_io_read(io, out, 4096, (uint64_t)i * 4096), 0);
		ck_assert_uint_eq(out[0], 0x5a);
	}
	nlfs_io_get_stats(io, &st);
	ck_assert_uint_eq(st.os_reads, 8);
	ck_assert_uint_eq(st.os_read_bytes, 8 * 4096);
	ck_assert(nlfs_io_scattered(io, false));
	for (int i = 8; i < 16; i++)
		ck_assert_int_eq(nlfs_io_read(io, out, 4096, (uint64_t)i * 4096), 0);
	nlfs_io_get_stats(io, &st);
	ck_assert_uint_lt(st.os_reads, 16);
	nlfs_io_close(io);
	close(fd);
	unlink(path);
}
END_TEST

static struct nlfs_io *patterned_mem(uint64_t size, uint8_t seed)
{
	struct nlfs_io *io;

	ck_assert_int_eq(nlfs_io_open_mem(size, &io), 0);
	for (uint64_t i = 0; i < size; i++)
		nlfs_io_mem_data(io)[i] = (uint8_t)(i * 7 + seed);
	return io;
}

static void undo_path(char *path)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(path);   /* the undo layer creates it, and refuses an existing one */
}

START_TEST(undo_puts_back_what_was_overwritten)
{
	char path[] = "/tmp/nlfs-undo-XXXXXX";
	uint64_t size = 64 * 1024 + 100;   /* a short last block */
	struct nlfs_io *mem = patterned_mem(size, 3), *u, *dev;
	uint8_t *before = malloc(size), junk[10000];
	struct nlfs_undo_stats st;
	struct nlfs_err err;

	memcpy(before, nlfs_io_mem_data(mem), size);
	undo_path(path);
	ck_assert_int_eq(nlfs_io_open_undo(mem, path, &u, &err), 0);
	memset(junk, 0xee, sizeof(junk));
	/* across block boundaries, twice over the same place, and the tail */
	ck_assert_int_eq(nlfs_io_write(u, junk, 9000, 3000), 0);
	ck_assert_int_eq(nlfs_io_write(u, junk, 5000, 4000), 0);
	ck_assert_int_eq(nlfs_io_write(u, junk, 150, size - 150), 0);
	/* an existing undo file is never overwritten */
	{
		struct nlfs_io *m2 = patterned_mem(4096, 1), *u2;

		ck_assert_int_eq(nlfs_io_open_undo(m2, path, &u2, &err), -EEXIST);
		nlfs_io_close(m2);
	}
	/* what the layer passed down, applied to a copy of the result */
	ck_assert_int_eq(nlfs_io_open_mem(size, &dev), 0);
	memcpy(nlfs_io_mem_data(dev), nlfs_io_mem_data(mem), size);
	nlfs_io_close(u);
	ck_assert(memcmp(nlfs_io_mem_data(dev), before, size) != 0);
	ck_assert_int_eq(nlfs_undo_apply(path, dev, NLFS_UNDO_DRY_RUN, &st, &err), 0);
	ck_assert_uint_eq(st.nblocks, 5);   /* blocks 0, 1, 2, 15 and the short 16 */
	ck_assert(memcmp(nlfs_io_mem_data(dev), before, size) != 0);
	ck_assert_int_eq(nlfs_undo_apply(path, dev, 0, &st, &err), 0);
	ck_assert(!st.torn);
	ck_assert_mem_eq(nlfs_io_mem_data(dev), before, size);
	unlink(path);
	nlfs_io_close(dev);
	free(before);
}
END_TEST

START_TEST(undo_torn_tail_and_wrong_device)
{
	char path[] = "/tmp/nlfs-undo-XXXXXX";
	uint64_t size = 32768;
	struct nlfs_io *mem = patterned_mem(size, 5), *u, *dev, *other;
	uint8_t *before = malloc(size), junk[4096];
	struct nlfs_undo_stats st;
	struct nlfs_err err;
	off_t len;
	int fd;

	memcpy(before, nlfs_io_mem_data(mem), size);
	undo_path(path);
	ck_assert_int_eq(nlfs_io_open_undo(mem, path, &u, &err), 0);
	memset(junk, 0x11, sizeof(junk));
	ck_assert_int_eq(nlfs_io_write(u, junk, 4096, 0), 0);
	ck_assert_int_eq(nlfs_io_write(u, junk, 4096, 8192), 0);
	ck_assert_int_eq(nlfs_io_open_mem(size, &dev), 0);
	memcpy(nlfs_io_mem_data(dev), nlfs_io_mem_data(mem), size);
	nlfs_io_close(u);
	/* a crash while the second record was being saved: its write never
	 * happened, so the device still has the old block 2 */
	memcpy(nlfs_io_mem_data(dev) + 8192, before + 8192, 4096);
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	len = lseek(fd, 0, SEEK_END);
	ck_assert_int_eq(ftruncate(fd, len - 100), 0);
	close(fd);
	ck_assert_int_eq(nlfs_undo_apply(path, dev, 0, &st, &err), 0);
	ck_assert(st.torn);
	ck_assert_uint_eq(st.nblocks, 1);
	ck_assert_mem_eq(nlfs_io_mem_data(dev), before, size);
	/* another device (another size) is refused unless forced */
	ck_assert_int_eq(nlfs_io_open_mem(size * 2, &other), 0);
	ck_assert_int_eq(nlfs_undo_apply(path, other, 0, &st, &err), -EXDEV);
	ck_assert_int_eq(nlfs_undo_apply(path, other, NLFS_UNDO_FORCE, &st, &err), 0);
	ck_assert_uint_eq(st.nblocks, 1);
	/* not an undo file */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "garbage garbage garbage garbage garbage", 40), 40);
	close(fd);
	ck_assert_int_ne(nlfs_undo_apply(path, dev, 0, &st, &err), 0);
	unlink(path);
	nlfs_io_close(dev);
	nlfs_io_close(other);
	free(before);
}
END_TEST

/* a superblock with UUID byte FILL at the primary offset of IO */
static void put_superblock(struct nlfs_io *io, uint8_t fill)
{
	struct nlfs_super_block sb;

	memset(&sb, 0, sizeof(sb));
	sb.s_magic = nlfs_cpu_to_le16(NLFS_SB_MAGIC);
	memset(sb.s_uuid, fill, sizeof(sb.s_uuid));
	ck_assert_int_eq(nlfs_io_write(io, &sb, sizeof(sb), NLFS_SB_OFFSET_BYTES), 0);
}

START_TEST(undo_checks_uuid_only_where_known)
{
	char path[] = "/tmp/nlfs-undo-XXXXXX";
	uint64_t size = 64 * 1024;
	struct nlfs_io *mem = patterned_mem(size, 5), *u, *dev;
	uint8_t *before = malloc(size), junk[4096];
	struct nlfs_undo_stats st;
	struct nlfs_err err;

	put_superblock(mem, 0xab);
	memcpy(before, nlfs_io_mem_data(mem), size);
	undo_path(path);
	ck_assert_int_eq(nlfs_io_open_undo(mem, path, &u, &err), 0);
	/* the damage takes the superblock itself: the UUID is unknown now */
	memset(junk, 0, sizeof(junk));
	ck_assert_int_eq(nlfs_io_write(u, junk, sizeof(junk), 0), 0);
	ck_assert_int_eq(nlfs_io_open_mem(size, &dev), 0);
	memcpy(nlfs_io_mem_data(dev), nlfs_io_mem_data(mem), size);
	nlfs_io_close(u);
	ck_assert_int_eq(nlfs_undo_apply(path, dev, 0, &st, &err), 0);
	ck_assert_mem_eq(nlfs_io_mem_data(dev), before, size);
	/* a device of the same size with another volume's UUID is refused */
	put_superblock(dev, 0xcd);
	ck_assert_int_eq(nlfs_undo_apply(path, dev, 0, &st, &err), -EXDEV);
	ck_assert_ptr_nonnull(strstr(err.what, "UUID"));
	unlink(path);
	nlfs_io_close(dev);
	free(before);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("backends");

	tcase_add_test(tc, mem_reads_back_and_bounds);
	tcase_add_test(tc, fault_fails_chosen_write);
	tcase_add_test(tc, fault_tears_then_power_is_lost);
	tcase_add_test(tc, fault_crash_drops_unflushed_writes);
	tcase_add_test(tc, unix_file_roundtrip);
	tcase_add_test(tc, unix_uncached_reads);
	tcase_add_test(tc, unix_no_readahead);
	tcase_add_test(tc, unix_read_counters);
	tcase_add_test(tc, unix_reads_agree_with_a_model);
	tcase_add_test(tc, unix_memory_file_reads_agree_with_a_model);
	tcase_add_test(tc, undo_puts_back_what_was_overwritten);
	tcase_add_test(tc, undo_torn_tail_and_wrong_device);
	tcase_add_test(tc, undo_checks_uuid_only_where_known);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
