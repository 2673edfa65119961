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
/* The blocks at the head of a segment in use asked for before its first
 * log's summary is read: that summary, most often one or two blocks.  Not
 * more: what follows is mostly file data, and the log walkers ask for the
 * rest of each summary once its first block says how long it is.  (At 32,
 * a cold fsck -fn of bench/fsck.sh CASE=aged, 214 segments of one or two
 * logs, had the disk read 48 MiB for a metadata floor of 8.6 MiB; at 4,
 * 19 MiB, about what the floor's own reads make the disk read.) */
#define FSCK_SEG_HEAD_BLOCKS 4u
struct nlfs_io;
bool fsck_readahead_whole(struct nlfs_io *io, uint64_t devsize);
/* Start the thread on DEVICE, read-only through a handle of its own; -1
 * if it cannot start (the check runs the same, only slower). */
int fsck_readahead_start(const char *device, struct fsck_readahead **out);
/* Stop it and wait for it; RA may be NULL.  STATS (if not NULL) gets
 * what it read and asked for through its handle (zeros without RA). */
struct nlfs_io_stats;
void fsck_readahead_stop(struct fsck_readahead *ra, struct nlfs_io_stats *stats);

#endif /* FSCK_READAHEAD_H */
