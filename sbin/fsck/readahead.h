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
/* The blocks at the head of a segment with NBLOCKS in use (of BS bytes)
 * asked for before its first log's summary is read: as much summary as a
 * log of all those blocks would have, at 40 bytes a block (a 16-byte
 * binfo, and a 24-byte finfo where each block is a file of its own), at
 * most 32 blocks.  Not more: what follows is mostly file data, and the log
 * walkers ask for the rest of each summary once its first block says how
 * long it is, one wait for the disk later.  (At 32 everywhere, a cold
 * fsck -fn of bench/fsck.sh CASE=aged, 214 segments of 512 blocks with a
 * summary of one or two, had the disk read 48 MiB for a metadata floor of
 * 8.6 MiB; at 6, 19 MiB, about what the floor's own reads make the disk
 * read.  At 4 everywhere, CASE=checkpoints with 20,000 files, segments of
 * 2048 blocks whose first log's summary takes 16, waited twice per
 * segment and took longer.) */
static inline uint32_t fsck_seg_head_blocks(uint32_t nblocks, uint32_t bs)
{
	uint64_t n = 1 + (uint64_t)nblocks * 40 / bs;

	if (n > 32)
		n = 32;
	return n < nblocks ? (uint32_t)n : nblocks;
}
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
