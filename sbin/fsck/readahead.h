/* SPDX-License-Identifier: GPL-2.0-or-later */
/* readahead.h - metadata asked for ahead of the passes (readahead.c) */
#ifndef FSCK_READAHEAD_H
#define FSCK_READAHEAD_H

#include <stdbool.h>
#include <stdint.h>

struct fsck_readahead;

/* A device of at most FSCK_RA_WHOLE_MAX bytes is asked for whole, at once,
 * through IO instead (true then): the kernel reads it in one go, quicker
 * than the threads open their handles and the volume.  false: start them. */
#define FSCK_RA_WHOLE_MAX (4u << 20)
struct nlfs_io;
bool fsck_readahead_whole(struct nlfs_io *io, uint64_t devsize);
/* Start the thread on DEVICE, read-only through handles of its own opened
 * with IO_FLAGS too (nlfs_io_open_unix's); -1 if it cannot start (the
 * check runs the same, only slower). */
int fsck_readahead_start(const char *device, int io_flags, struct fsck_readahead **out);
/* Stop it and wait for it; RA may be NULL.  STATS (if not NULL) gets
 * what it read and asked for through its handle (zeros without RA). */
struct nlfs_io_stats;
void fsck_readahead_stop(struct fsck_readahead *ra, struct nlfs_io_stats *stats);

#endif /* FSCK_READAHEAD_H */
