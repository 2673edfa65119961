/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icount.c - a count per inode number in four bits: files have one link
 * and one name, a directory two plus one per subdirectory, so four bits
 * hold nearly every count and a million inodes take half a MiB a count
 * instead of 2 or 4.  A count of 15 or more is kept aside in a small hash
 * keyed by inode number; its four bits say so.  When such a count falls
 * below 15 again the bits take it back and the hash entry is left stale
 * (it is only read through the bits, and overwritten if the count climbs
 * again), so the hash never deletes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/nlfs.h>
#include "icount.h"

int fsck_icount_init(struct fsck_icount *ic, uint64_t n)
{
	memset(ic, 0, sizeof(*ic));
	ic->small = calloc(n / 2 + 1, 1);
	if (!ic->small)
		return -ENOMEM;
	ic->n = n;
	return 0;
}

int fsck_icount_grow(struct fsck_icount *ic, uint64_t n)
{
	uint8_t *p;

	if (n <= ic->n)
		return 0;
	p = realloc(ic->small, n / 2 + 1);
	if (!p)
		return -ENOMEM;
	/* the new nibbles: those of the old last byte past N are 0 already */
	memset(p + ic->n / 2 + 1, 0, n / 2 - ic->n / 2);
	ic->small = p;
	ic->n = n;
	return 0;
}

void fsck_icount_free(struct fsck_icount *ic)
{
	free(ic->small);
	free(ic->big);
	memset(ic, 0, sizeof(*ic));
}

static struct fsck_icount_big *find(const struct fsck_icount *ic, uint64_t ino)
{
	if (!ic->bigcap)
		return NULL;
	for (size_t i = nlfs_hash_slot(ino, ic->bigcap);; i = (i + 1) & (ic->bigcap - 1)) {
		if (ic->big[i].ino == ino)
			return &ic->big[i];
		if (ic->big[i].ino == UINT64_MAX)
			return NULL;
	}
}

/* the free slot INO's probe reaches in BIG (CAP slots, not all taken) */
static struct fsck_icount_big *free_slot(struct fsck_icount_big *big, size_t cap, uint64_t ino)
{
	size_t i = nlfs_hash_slot(ino, cap);

	while (big[i].ino != UINT64_MAX)
		i = (i + 1) & (cap - 1);
	return &big[i];
}

/* a slot for INO (its own, or a new one); NULL without memory */
static struct fsck_icount_big *slot_for(struct fsck_icount *ic, uint64_t ino)
{
	struct fsck_icount_big *b = find(ic, ino);

	if (b)
		return b;
	if (2 * (ic->bigused + 1) > ic->bigcap) {   /* at most half full */
		size_t cap = ic->bigcap ? 2 * ic->bigcap : 64;
		struct fsck_icount_big *nb = malloc(cap * sizeof(*nb)), *old = ic->big;
		size_t oldcap = ic->bigcap;

		if (!nb)
			return NULL;
		for (size_t i = 0; i < cap; i++)
			nb[i].ino = UINT64_MAX;
		ic->big = nb;
		ic->bigcap = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].ino != UINT64_MAX)
				*free_slot(nb, cap, old[i].ino) = old[i];
		free(old);
	}
	b = free_slot(ic->big, ic->bigcap, ino);
	b->ino = ino;
	ic->bigused++;
	return b;
}

uint32_t fsck_icount_aside(const struct fsck_icount *ic, uint64_t ino)
{
	const struct fsck_icount_big *b = find(ic, ino);

	return b ? b->count : 0;
}

static void put_nibble(struct fsck_icount *ic, uint64_t ino, unsigned v)
{
	unsigned shift = ino % 2 * 4;

	ic->small[ino / 2] = (uint8_t)((ic->small[ino / 2] & ~(15u << shift)) | v << shift);
}

void fsck_icount_set(struct fsck_icount *ic, uint64_t ino, uint32_t count)
{
	struct fsck_icount_big *b;

	if (ino >= ic->n)
		return;
	if (count < FSCK_ICOUNT_ASIDE) {
		put_nibble(ic, ino, count);
		return;
	}
	b = slot_for(ic, ino);
	if (!b) {
		ic->nomem = true;
		return;
	}
	b->count = count;
	put_nibble(ic, ino, FSCK_ICOUNT_ASIDE);
}
