/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dattable.c - the DAT's plain entries, as the passes look them up (dattable.h). */
#include <stdlib.h>
#include <string.h>

#include "dattable.h"

int fsck_dattable_init(struct fsck_dattable *t, size_t nchunks)
{
	memset(t, 0, sizeof(*t));
	if (!nchunks || nchunks > FSCK_DATTABLE_MAX / sizeof(struct fsck_dtchunk))
		return -1;
	if (!(t->chunks = calloc(nchunks, sizeof(*t->chunks))))
		return -1;
	t->nchunks = nchunks;
	return 0;
}

void fsck_dattable_free(struct fsck_dattable *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	memset(t, 0, sizeof(*t));
}

bool fsck_dattable_put(struct fsck_dattable *t, size_t idx, uint64_t v, uint32_t blk, bool open)
{
	uint64_t r = v & (FSCK_VCHUNK_BITS - 1);
	struct fsck_dtchunk *ch;

	if (idx >= t->nchunks)
		return false;
	ch = t->chunks[idx];
	if (!ch) {
		if (!(ch = malloc(sizeof(*ch)))) {
			fsck_dattable_free(t);
			return false;
		}
		memset(ch->blk, 0xff, sizeof(ch->blk));   /* FSCK_DATTABLE_NONE */
		memset(ch->open, 0, sizeof(ch->open));
		memset(ch->plain, 0, sizeof(ch->plain));
		t->chunks[idx] = ch;
	}
	ch->blk[r] = blk;
	ch->plain[r / 64] |= 1ull << (r % 64);
	if (open)
		ch->open[r / 64] |= 1ull << (r % 64);
	return true;
}
