/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dattable.h - what the passes look up in the DAT's plain entries, read
 * once in DAT order: each one's address (4 bytes) and whether it is open.
 *
 * On a volume the kernel wrote, the summaries (pass 3), the files' maps
 * (pass 6) and the search for live entries no file uses look entries up
 * in the order of the logs and of the files, all over the DAT: reading
 * its blocks for each took 4,500 reads of a DAT of 1,135 blocks on an aged
 * volume, with 3 MiB of DAT cache.  An entry is plain when it is allocated
 * (entry 0 never is), has an address below 2^32 - 1 and a period pass 4
 * finds possible; the others, and those of DAT blocks that could not be
 * read, are not kept, and the passes read them from the DAT as before, so
 * that each reports exactly what it did.  The table is indexed by the
 * chunks of the set of allocated entries (vbitmap.h); it is not kept at
 * all where it would take more than FSCK_DATTABLE_MAX bytes.
 */
#ifndef FSCK_DATTABLE_H
#define FSCK_DATTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vbitmap.h"

/* the DAT cache's bound (main.c): the table is kept only where it costs no
 * more than the cache it saves (a million files that mkfs.nilfs2 -d wrote
 * would need 4.4 MiB; their look-ups come in DAT order, which the cache
 * serves) */
#define FSCK_DATTABLE_MAX (3u << 20)

#define FSCK_DATTABLE_NONE UINT32_MAX    /* not a plain entry: ask the DAT */

struct fsck_dtchunk {
	uint32_t blk[FSCK_VCHUNK_BITS];          /* address, or FSCK_DATTABLE_NONE */
	uint64_t open[FSCK_VCHUNK_BITS / 64];    /* de_end is ~0 */
	/* blk[] holds an address: the sweeps over every entry (pass 4, the
	 * search for leaks) take 64 entries at a time */
	uint64_t plain[FSCK_VCHUNK_BITS / 64];
};

struct fsck_dattable {
	struct fsck_dtchunk **chunks;   /* by chunk index of the allocated set */
	size_t nchunks;
};

/* an empty table for a set of NCHUNKS chunks: 0, or -1 where it would be
 * too large or memory runs out (the table is then off: T->chunks NULL) */
int fsck_dattable_init(struct fsck_dattable *t, size_t nchunks);
void fsck_dattable_free(struct fsck_dattable *t);
/* entry V, in chunk IDX (from 0), is plain: address BLK (below
 * FSCK_DATTABLE_NONE), OPEN or ended.  Out of memory the table is freed
 * (off) and false returned. */
bool fsck_dattable_put(struct fsck_dattable *t, size_t idx, uint64_t v, uint32_t blk, bool open);

/* the table's chunk IDX1 - 1 (0: none), NULL where it has none */
static inline const struct fsck_dtchunk *fsck_dattable_chunk(const struct fsck_dattable *t,
							     size_t idx1)
{
	return idx1 && idx1 <= t->nchunks ? t->chunks[idx1 - 1] : NULL;
}

/* entry V (in chunk IDX + 1, 0: none) if the table has it */
static inline bool fsck_dattable_get(const struct fsck_dattable *t, size_t idx1, uint64_t v,
				     uint64_t *blk, bool *open)
{
	const struct fsck_dtchunk *ch = fsck_dattable_chunk(t, idx1);
	uint64_t r = v & (FSCK_VCHUNK_BITS - 1);

	if (!ch || ch->blk[r] == FSCK_DATTABLE_NONE)
		return false;
	*blk = ch->blk[r];
	if (open)
		*open = ch->open[r / 64] >> (r % 64) & 1;
	return true;
}

#endif /* FSCK_DATTABLE_H */
