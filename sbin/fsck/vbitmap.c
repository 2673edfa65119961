/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vbitmap.c - sparse sets of virtual block numbers (vbitmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/nlfs.h>
#include "vbitmap.h"

#define WORDS (FSCK_VCHUNK_BITS / 64)

void fsck_vbitmap_init(struct fsck_vbitmap *b)
{
	memset(b, 0, sizeof(*b));
}

void fsck_vbitmap_free(struct fsck_vbitmap *b)
{
	free(b->chunks);
	free(b->slots);
	free(b->order);
	fsck_vbitmap_init(b);
}

void fsck_vbitmap_clear_all(struct fsck_vbitmap *b)
{
	for (size_t i = 0; i < b->nchunks; i++)
		memset(b->chunks[i].words, 0, sizeof(b->chunks[i].words));
}

/* the chunk of KEY, or NULL */
static struct fsck_vchunk *find(struct fsck_vbitmap *b, uint64_t key)
{
	if (b->last && b->chunks[b->last - 1].key == key)
		return &b->chunks[b->last - 1];
	if (!b->nslots)
		return NULL;
	for (size_t h = nlfs_hash_slot(key, b->nslots);; h = (h + 1) & (b->nslots - 1)) {
		uint32_t s = b->slots[h];

		if (!s)
			return NULL;
		if (b->chunks[s - 1].key == key) {
			b->last = s;
			return &b->chunks[s - 1];
		}
	}
}

static void put_slot(uint32_t *slots, size_t nslots, uint64_t key, uint32_t idx1)
{
	size_t h = nlfs_hash_slot(key, nslots);

	while (slots[h])
		h = (h + 1) & (nslots - 1);
	slots[h] = idx1;
}

static int grow(struct fsck_vbitmap *b)
{
	if (b->nchunks == b->capchunks) {
		size_t cap = b->capchunks ? b->capchunks * 2 : 4;
		struct fsck_vchunk *c;
		struct fsck_vorder *o;

		if (cap > UINT32_MAX - 1)
			return -ENOMEM;
		c = realloc(b->chunks, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		b->chunks = c;
		o = realloc(b->order, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		b->order = o;
		b->capchunks = cap;
	}
	if ((b->nchunks + 1) * 2 > b->nslots) {
		size_t n = b->nslots ? b->nslots * 2 : 16;
		uint32_t *s = calloc(n, sizeof(*s));

		if (!s)
			return -ENOMEM;
		for (size_t i = 0; i < b->nchunks; i++)
			put_slot(s, n, b->chunks[i].key, (uint32_t)i + 1);
		free(b->slots);
		b->slots = s;
		b->nslots = n;
	}
	return 0;
}

size_t fsck_vbitmap_chunk_of(struct fsck_vbitmap *b, uint64_t v)
{
	const struct fsck_vchunk *c = find(b, v >> FSCK_VCHUNK_SHIFT);

	return c ? (size_t)(c - b->chunks) + 1 : 0;
}

bool fsck_vbit_test(struct fsck_vbitmap *b, uint64_t v)
{
	const struct fsck_vchunk *c = find(b, v >> FSCK_VCHUNK_SHIFT);
	uint64_t r = v & (FSCK_VCHUNK_BITS - 1);

	return c && (c->words[r / 64] >> (r % 64) & 1);
}

void fsck_vbit_set(struct fsck_vbitmap *b, uint64_t v)
{
	fsck_vbit_set_word(b, v & ~63ull, 1ull << (v % 64));
}

void fsck_vbit_set_word(struct fsck_vbitmap *b, uint64_t v, uint64_t bits)
{
	uint64_t key = v >> FSCK_VCHUNK_SHIFT, r = v & (FSCK_VCHUNK_BITS - 1);
	struct fsck_vchunk *c;

	if (!bits)
		return;
	c = find(b, key);
	if (!c) {
		if (grow(b)) {
			b->oom = true;
			return;
		}
		c = &b->chunks[b->nchunks];
		memset(c, 0, sizeof(*c));
		c->key = key;
		b->order[b->nchunks] = (struct fsck_vorder){ key, (uint32_t)b->nchunks };
		b->nchunks++;
		put_slot(b->slots, b->nslots, key, (uint32_t)b->nchunks);
		b->order_stale = true;
	}
	c->words[r / 64] |= bits;
}

void fsck_vbit_clear(struct fsck_vbitmap *b, uint64_t v)
{
	struct fsck_vchunk *c = find(b, v >> FSCK_VCHUNK_SHIFT);
	uint64_t r = v & (FSCK_VCHUNK_BITS - 1);

	if (c)
		c->words[r / 64] &= ~(1ull << (r % 64));
}

bool fsck_vbit_test_set(struct fsck_vbitmap *b, uint64_t v)
{
	bool was = fsck_vbit_test(b, v);

	if (!was)
		fsck_vbit_set(b, v);
	return was;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = ((const struct fsck_vorder *)a)->key, y = ((const struct fsck_vorder *)b)->key;

	return x < y ? -1 : x > y;
}

/* b->order by key again after chunks were added */
static void sort_order(struct fsck_vbitmap *b)
{
	if (b->order_stale) {
		nlfs_sort(b->order, b->nchunks, sizeof(*b->order), by_key);
		b->order_stale = false;
	}
}

bool fsck_vbitmap_next(struct fsck_vbitmap *b, struct fsck_viter *it, uint64_t *v)
{
	uint64_t key = it->from >> FSCK_VCHUNK_SHIFT;
	size_t lo = 0, hi = b->nchunks;

	if (it->done)
		return false;
	/* the rest of FROM's word in the chunk the walk is in: no search */
	if (!b->order_stale && it->pos < hi && b->order[it->pos].key == key) {
		const struct fsck_vchunk *c = &b->chunks[b->order[it->pos].idx];
		uint64_t r = it->from & (FSCK_VCHUNK_BITS - 1), w = c->words[r / 64] >> (r % 64);

		if (w) {
			*v = it->from + (uint64_t)__builtin_ctzll(w);
			it->done = *v == UINT64_MAX;
			it->from = *v + 1;
			return true;
		}
	}
	sort_order(b);
	/* the first chunk at or after FROM's: most often the one the walk
	 * is in, where the hint says */
	if (it->pos < hi && b->order[it->pos].key == key)
		lo = hi = it->pos;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->order[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < b->nchunks; lo++) {
		const struct fsck_vchunk *c = &b->chunks[b->order[lo].idx];
		uint64_t r = c->key == key ? it->from & (FSCK_VCHUNK_BITS - 1) : 0;

		while (r < FSCK_VCHUNK_BITS) {
			uint64_t w = c->words[r / 64] >> (r % 64);

			if (w) {
				*v = (c->key << FSCK_VCHUNK_SHIFT) + r + (uint64_t)__builtin_ctzll(w);
				it->pos = lo;
				it->done = *v == UINT64_MAX;
				it->from = *v + 1;
				return true;
			}
			r = (r / 64 + 1) * 64;
		}
	}
	it->done = true;
	return false;
}

const struct fsck_vchunk *fsck_vbitmap_sorted(struct fsck_vbitmap *b, size_t i, size_t *idx1)
{
	sort_order(b);
	if (i >= b->nchunks)
		return NULL;
	*idx1 = (size_t)b->order[i].idx + 1;
	return &b->chunks[b->order[i].idx];
}

uint64_t *fsck_vbitmap_words(struct fsck_vbitmap *b, uint64_t key)
{
	struct fsck_vchunk *c = find(b, key);

	return c ? c->words : NULL;
}

uint64_t fsck_vbitmap_count(const struct fsck_vbitmap *b)
{
	uint64_t n = 0;

	for (size_t i = 0; i < b->nchunks; i++)
		for (size_t j = 0; j < WORDS; j++)
			n += (uint64_t)__builtin_popcountll(b->chunks[i].words[j]);
	return n;
}
