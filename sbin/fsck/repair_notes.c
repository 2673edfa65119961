/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_notes.c - the passes' notes for the repairs, and which problems
 * a repair exists for (the fix column of problem.h).
 */
#include <errno.h>
#include <stdlib.h>

#include <nlfs/nlfs.h>
#include "fsck.h"

/* Can the problems found be repaired in this mode?  The table says. */
bool fix_is_repairable(enum fsck_pr code, bool preen)
{
	enum fsck_fix fix = fsck_problems[code].fix;

	return fix == FIX_PREEN || (fix == FIX_YES && !preen);
}

static bool latest(const struct fsck *c, uint64_t cno)
{
	return cno == c->latest_cno;
}

int fix_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* append one element to a note array; on failure the repair must not run */
#define NOTE(c, arr, n, cap, val)                                   \
	do {                                                        \
		if (fix_grow((void **)&(c)->fix.arr, &(c)->fix.cap, (c)->fix.n + 1, \
			 sizeof(*(c)->fix.arr))) {                  \
			(c)->op_error = true;                       \
			break;                                      \
		}                                                   \
		(c)->fix.arr[(c)->fix.n++] = (val);                 \
	} while (0)

void fix_note_links(struct fsck *c, uint64_t cno, uint64_t ino, uint32_t links)
{
	struct fsck_link_fix f = { ino, links };

	if (latest(c, cno))
		NOTE(c, links, nlinks, caplinks, f);
}

void fix_note_blocks(struct fsck *c, uint64_t cno, uint64_t ino, uint64_t nblocks)
{
	struct fsck_blocks_fix f = { ino, nblocks };

	if (latest(c, cno))
		NOTE(c, blocks, nblocks, capblocks, f);
}

void fix_note_dirent(struct fsck *c, uint64_t cno, uint64_t dir, uint64_t ino, uint8_t type)
{
	struct fsck_dirent_fix f = { dir, ino, type };

	if (latest(c, cno))
		NOTE(c, dirents, ndirents, capdirents, f);
}

void fix_note_detached(struct fsck *c, uint64_t cno, uint64_t ino)
{
	if (latest(c, cno))
		NOTE(c, detached, ndetached, capdetached, ino);
}

void fix_note_leak(struct fsck *c, uint64_t vbn)
{
	NOTE(c, leaks, nleaks, capleaks, vbn);
}

void fix_note_cp_counts(struct fsck *c, uint64_t cno, uint64_t ninodes, uint64_t nblocks)
{
	if (!latest(c, cno))
		return;
	c->fix.cp_counts_known = true;
	c->fix.cp_ninodes = ninodes;
	c->fix.cp_nblocks = nblocks;
}

void fix_free(struct fsck_fixes *f)
{
	free(f->links);
	free(f->blocks);
	free(f->dirents);
	free(f->detached);
	free(f->leaks);
	*f = (struct fsck_fixes){ 0 };
}
