/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one I/O seam of the library.  Every byte the library reads or writes
 * goes through a struct nlfs_io; backends are a device/file here, memory
 * and a fault injector stacked on another backend for tests
 * (<nlfs/io_test.h>).  flush() is the write barrier.  All calls return 0
 * or a negative errno.
 */
#ifndef NLFS_IO_H
#define NLFS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlfs_io;

struct nlfs_io_ops {
	int (*read)(struct nlfs_io *io, void *buf, size_t len, uint64_t off);
	int (*write)(struct nlfs_io *io, const void *buf, size_t len, uint64_t off);
	int (*flush)(struct nlfs_io *io);
	int (*size)(struct nlfs_io *io, uint64_t *bytes);
	void (*destroy)(struct nlfs_io *io);
	/* optional: start reading these bytes in the background, a hint */
	int (*prefetch)(struct nlfs_io *io, uint64_t off, uint64_t len);
	/* optional: the reads that follow are scattered (true) or not */
	void (*scattered)(struct nlfs_io *io, bool on);
};

/* what was read through one struct nlfs_io since it was opened */
struct nlfs_io_stats {
	uint64_t reads, read_bytes;         /* nlfs_io_read calls and their bytes */
	/* of them, what the backend asked the operating system for (io_unix:
	 * pread calls, a chunk's fill included): the separate reads a cold
	 * cache makes the disk serve.  0 for a backend with no such layer. */
	uint64_t os_reads, os_read_bytes;
	uint64_t prefetches, prefetch_bytes; /* nlfs_io_prefetch hints */
};

struct nlfs_io {
	const struct nlfs_io_ops *ops;
	char *name;      /* device or file name, for messages */
	void *priv;
	bool scattered;  /* nlfs_io_scattered */
	struct nlfs_io_stats stats;   /* counted by io.c and the backend */
};

#define NLFS_IO_RDONLY 0
#define NLFS_IO_RDWR   1
/* read-write without the exclusive claim on a block device: only for a
 * change the user forces under a mounted filesystem (nilfs-tune -f) */
#define NLFS_IO_RDWR_SHARED 2
/* or'ed into NLFS_IO_RDONLY: every read bypasses the page cache (O_DIRECT;
 * where the device or file refuses it, what the cache holds of the bytes
 * is dropped before each read), for a reader of a volume the kernel
 * writes with bios that bypass that cache (the cleaner's segment reads:
 * a reused segment must not be read stale) */
#define NLFS_IO_UNCACHED 0x10
/* or'ed into a mode: no chunks (io_unix.c), every read its own system
 * call and no buffers for them: for a helper thread that reads a block
 * here and there (fsck's log walkers) */
#define NLFS_IO_PLAIN 0x20
/* or'ed into a mode: the kernel reads what is read or asked for with
 * nlfs_io_prefetch and nothing more (POSIX_FADV_RANDOM): for a reader
 * that asks ahead for what it needs, where the kernel's guesses from the
 * pattern of its reads would fetch blocks no one wants (fsck.nilfs2) */
#define NLFS_IO_NO_READAHEAD 0x40

/* io.c */
/* 0; -EINVAL for a range past the device; the backend's negative errno (-EIO) */
int nlfs_io_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off);
/* 0; -EROFS on a read-only io; -EINVAL past the device; the backend's negative
 * errno. */
int nlfs_io_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off);
/* 0 or the backend's negative errno. */
int nlfs_io_flush(struct nlfs_io *io);
/* 0 or the backend's negative errno. */
int nlfs_io_size(struct nlfs_io *io, uint64_t *bytes);
void nlfs_io_close(struct nlfs_io *io);
/* The name given at open. */
const char *nlfs_io_name(const struct nlfs_io *io);
/* a hint that these bytes are read soon; 0 where the backend has none */
int nlfs_io_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len);
/* A hint that the reads that follow (ON) are blocks scattered over the
 * device, each asked for ahead with nlfs_io_prefetch, or again (not ON)
 * the usual mix: scattered, a backend reads what is asked, without its
 * own read-ahead around it (io_unix's chunks), which would only fetch
 * blocks no one wants.  Returns the setting before. */
bool nlfs_io_scattered(struct nlfs_io *io, bool on);
/* the counters of IO so far (fsck.nilfs2 --stats) */
void nlfs_io_get_stats(const struct nlfs_io *io, struct nlfs_io_stats *out);

/* io_unix.c: a regular file or a block device (size via BLKGETSIZE64).  0; the
 * errno of open(2) or of reading the size, negative; -ENOMEM. */
int nlfs_io_open_unix(const char *path, int mode, struct nlfs_io **out);

#endif /* NLFS_IO_H */
