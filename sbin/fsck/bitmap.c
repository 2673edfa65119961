/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bitmap.c - the checker's in-memory bitmaps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"

int fsck_bitmap_init(struct fsck_bitmap *b, uint64_t nbits)
{
	uint64_t nwords = (nbits + 63) / 64;

	b->nbits = 0;
	b->words = calloc(nwords ? nwords : 1, sizeof(uint64_t));
	if (!b->words)
		return -ENOMEM;
	b->nbits = nbits;
	return 0;
}

void fsck_bitmap_free(struct fsck_bitmap *b)
{
	free(b->words);
	b->words = NULL;
	b->nbits = 0;
}

void fsck_bitmap_clear_all(struct fsck_bitmap *b)
{
	if (b->words)
		memset(b->words, 0, (b->nbits + 63) / 64 * sizeof(uint64_t));
}

uint64_t fsck_bitmap_next(const struct fsck_bitmap *b, uint64_t from)
{
	while (from < b->nbits) {
		uint64_t w = b->words[from / 64] >> (from % 64);

		if (w)
			return from + (uint64_t)__builtin_ctzll(w);
		from = (from / 64 + 1) * 64;
	}
	return UINT64_MAX;
}
