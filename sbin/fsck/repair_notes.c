/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_notes.c - the passes' notes for the repairs, and which problems
 * a repair exists for.
 */
#include <errno.h>
#include <stdlib.h>

#include <nlfs/nlfs.h>
#include "fsck.h"

/* Problems a repair resolves; PREEN: safe without asking (fsck -p).
 * Not here on purpose: a segment whose logs break off before its usage
 * count (PR_SU_SHORT).  Cutting the count would let a cleaner free the
 * segment with whatever live blocks lie past the break. */
static const struct {
	enum fsck_pr code;
	bool preen;
} repairable_problems[] = {
	/* the construction writes both superblock copies from the one the
	 * kernel uses (which had to be good for the volume to open) */
	{ PR_SB_READ, true }, { PR_SB_MAGIC, true }, { PR_SB_BYTES, true },
	{ PR_SB_CRC, true }, { PR_SB_CURSOR, true }, { PR_SB_GEOMETRY, true },
	{ PR_SB_REVISION, true },
	/* the kernel would align the other copy at its next superblock write */
	{ PR_SB_MISMATCH, false },
	/* counters recomputed from what they count (repair.c) */
	{ PR_SU_NCLEAN, true }, { PR_SU_NDIRTY, true }, { PR_SU_LAST_ALLOC, true },
	{ PR_SU_CLEAN, true },
	{ PR_CP_NCHECKPOINTS, true }, { PR_CP_NSNAPSHOTS, true }, { PR_CP_BLKCOUNT, true },
	{ PR_CP_NINODES, true }, { PR_CP_NBLOCKS, true },
	{ PR_DAT_DESC, true }, { PR_IFILE_DESC, true }, { PR_IFILE_RESERVED, true },
	{ PR_INO_BLOCKS, true },
	/* the kernel's roll-forward, done offline */
	{ PR_RECOVERY, true },
	/* these change what the user sees, so only -y */
	{ PR_DAT_LEAK, false }, { PR_INO_LINKS, false }, { PR_INO_UNATTACHED, false },
	{ PR_INO_ORPHAN, false }, { PR_DIR_FREE_INODE, false }, { PR_DIR_TYPE, false },
};

bool fix_is_repairable(enum fsck_pr code, bool preen)
{
	for (size_t i = 0; i < sizeof(repairable_problems) / sizeof(repairable_problems[0]); i++)
		if (repairable_problems[i].code == code)
			return !preen || repairable_problems[i].preen;
	return false;
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
