/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bitmap.h - one bit per block, virtual block or inode. */
#ifndef FSCK_BITMAP_H
#define FSCK_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

struct fsck_bitmap {
	uint64_t *words;
	uint64_t nbits;
};

/* 0 or -ENOMEM; a bitmap of 0 bits is valid and empty */
int fsck_bitmap_init(struct fsck_bitmap *b, uint64_t nbits);
void fsck_bitmap_free(struct fsck_bitmap *b);
void fsck_bitmap_clear_all(struct fsck_bitmap *b);

static inline bool fsck_bit_test(const struct fsck_bitmap *b, uint64_t n)
{
	return n < b->nbits && (b->words[n / 64] >> (n % 64) & 1);
}

static inline void fsck_bit_set(struct fsck_bitmap *b, uint64_t n)
{
	if (n < b->nbits)
		b->words[n / 64] |= 1ull << (n % 64);
}

static inline void fsck_bit_clear(struct fsck_bitmap *b, uint64_t n)
{
	if (n < b->nbits)
		b->words[n / 64] &= ~(1ull << (n % 64));
}

/* set the bit; true if it was set already */
static inline bool fsck_bit_test_set(struct fsck_bitmap *b, uint64_t n)
{
	bool was = fsck_bit_test(b, n);

	fsck_bit_set(b, n);
	return was;
}

/* the first set bit at or after FROM, or UINT64_MAX */
uint64_t fsck_bitmap_next(const struct fsck_bitmap *b, uint64_t from);

#endif /* FSCK_BITMAP_H */
