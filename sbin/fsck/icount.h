/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icount.h - a count per inode number (link counts, names found): four
 * bits each, the rare count past 14 kept aside. */
#ifndef FSCK_ICOUNT_H
#define FSCK_ICOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define FSCK_ICOUNT_ASIDE 15    /* four bits saying: the count is kept aside */

struct fsck_icount {
	uint8_t *small;             /* (N + 1) / 2 bytes, inode I in bits 4 * (I % 2) */
	uint64_t n;
	struct fsck_icount_big {
		uint64_t ino;       /* UINT64_MAX: a free slot */
		uint32_t count;
	} *big;                     /* open addressing; entries may be stale (see icount.c) */
	size_t bigcap, bigused;
	bool nomem;                 /* a count could not be kept: the counts are wrong */
};

/* 0 or -ENOMEM; counts of N inode numbers, all 0 */
int fsck_icount_init(struct fsck_icount *ic, uint64_t n);
/* room for N (more) inode numbers, the new ones 0; 0 or -ENOMEM */
int fsck_icount_grow(struct fsck_icount *ic, uint64_t n);
void fsck_icount_free(struct fsck_icount *ic);
/* the count of INO kept aside (see fsck_icount_get) */
uint32_t fsck_icount_aside(const struct fsck_icount *ic, uint64_t ino);
/* set it (ignored past the end); where memory runs out, nomem is set */
void fsck_icount_set(struct fsck_icount *ic, uint64_t ino, uint32_t count);

static inline unsigned fsck_icount_nibble(const struct fsck_icount *ic, uint64_t ino)
{
	return ic->small[ino / 2] >> (ino % 2 * 4) & 15;
}

/* the count of INO (0 past the end) */
static inline uint32_t fsck_icount_get(const struct fsck_icount *ic, uint64_t ino)
{
	unsigned v = ino < ic->n ? fsck_icount_nibble(ic, ino) : 0;

	return v != FSCK_ICOUNT_ASIDE ? v : fsck_icount_aside(ic, ino);
}

#endif
