/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vbitmap.h - a bit per virtual block number, over the whole 64-bit space.
 *
 * The kernel's DAT allocator may hand out any number up to 2^64 - 1 (its
 * groups cover the 64-bit space and the allocation hint can wrap), so the
 * checker's sets of virtual blocks are kept in chunks of
 * FSCK_VCHUNK_BITS bits, created on first use and found through a hash:
 * memory follows the numbers actually used, never the largest one.
 */
#ifndef FSCK_VBITMAP_H
#define FSCK_VBITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSCK_VCHUNK_SHIFT 12
#define FSCK_VCHUNK_BITS (1u << FSCK_VCHUNK_SHIFT)

struct fsck_vchunk {
	uint64_t key;                           /* virtual block number >> FSCK_VCHUNK_SHIFT */
	uint64_t words[FSCK_VCHUNK_BITS / 64];
};

struct fsck_vorder {
	uint64_t key;
	uint32_t idx;
};

struct fsck_vbitmap {
	struct fsck_vchunk *chunks;
	size_t nchunks, capchunks;
	uint32_t *slots;          /* hash on key: chunk index + 1, 0 empty */
	size_t nslots;            /* a power of 2, at least twice nchunks */
	size_t last;              /* the chunk found last + 1, 0 none: a walk stays in one */
	struct fsck_vorder *order;   /* the chunks by key, for fsck_vbitmap_next */
	bool order_stale;
	bool oom;                 /* a bit could not be set: out of memory */
};

/* a walk over the set bits in ascending order, from FROM on */
struct fsck_viter {
	uint64_t from;
	bool done;
	size_t pos;               /* where FROM's chunk was in the order, a hint */
};

/* an empty set; nothing is allocated until a bit is set */
void fsck_vbitmap_init(struct fsck_vbitmap *b);
void fsck_vbitmap_free(struct fsck_vbitmap *b);
/* every bit cleared; the chunks are kept for reuse */
void fsck_vbitmap_clear_all(struct fsck_vbitmap *b);

bool fsck_vbit_test(struct fsck_vbitmap *b, uint64_t v);
/* out of memory, the bit stays clear and b->oom is set (the caller reports
 * it once: the check is then incomplete) */
void fsck_vbit_set(struct fsck_vbitmap *b, uint64_t v);
void fsck_vbit_clear(struct fsck_vbitmap *b, uint64_t v);
/* set the bit; true if it was set already */
bool fsck_vbit_test_set(struct fsck_vbitmap *b, uint64_t v);
/* the next set bit of the walk IT into *V; false when there is none */
bool fsck_vbitmap_next(struct fsck_vbitmap *b, struct fsck_viter *it, uint64_t *v);
/* set bits */
uint64_t fsck_vbitmap_count(const struct fsck_vbitmap *b);
/* the 64 bits from V (a multiple of 64) on or'ed with BITS (bit i: V + i) */
void fsck_vbit_set_word(struct fsck_vbitmap *b, uint64_t v, uint64_t bits);
/* For the passes that go through every number of a set at once, a word
 * at a time: the Ith chunk in ascending order of key (NULL past the
 * last), its index + 1 in B->chunks in *IDX1 (see fsck_vbitmap_chunk_of) */
const struct fsck_vchunk *fsck_vbitmap_sorted(struct fsck_vbitmap *b, size_t i, size_t *idx1);
/* the bits of chunk KEY of B, NULL where B has none set there; the
 * caller may set bits there (until a bit of another chunk is set: the
 * chunks may then move) */
uint64_t *fsck_vbitmap_words(struct fsck_vbitmap *b, uint64_t key);
/* the index + 1 of V's chunk in B->chunks, 0 if it has none: what a table
 * of values beside the set is indexed by (dattable.h) */
size_t fsck_vbitmap_chunk_of(struct fsck_vbitmap *b, uint64_t v);

#endif /* FSCK_VBITMAP_H */
