/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_notes.c - the passes' notes for the repairs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "fsck.h"
#include "array.h"

bool fsck_test_break(const char *what)
{
	const char *v = getenv("FSCK_NILFS2_TEST_BREAK");

	return v && !strcmp(v, what);
}

static bool latest(const struct fsck *c, uint64_t cno)
{
	return cno == c->latest_cno;
}

/* append one element to a note array; on failure the repair must not run */
#define NOTE(c, arr, n, cap, val)                                   \
	do {                                                        \
		if (nlfs_grow((void **)&(c)->fix.arr, &(c)->fix.cap, (c)->fix.n + 1, \
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

void fix_note_dirent(struct fsck *c, uint64_t cno, const struct fsck_dirent_fix *f)
{
	if (latest(c, cno))
		NOTE(c, dirents, ndirents, capdirents, *f);
}

void fix_note_dir(struct fsck *c, uint64_t cno, uint64_t dir, uint64_t parent, const char *path)
{
	struct fsck_dir_fix f = { dir, parent, NULL };

	/* only the latest checkpoint's are kept: a copy made first leaked */
	if (!latest(c, cno))
		return;
	f.path = strdup(path ? path : "");
	if (!f.path) {
		c->op_error = true;
		return;
	}
	NOTE(c, dirs, ndirs, capdirs, f);
	if (c->op_error && (!c->fix.ndirs || c->fix.dirs[c->fix.ndirs - 1].path != f.path))
		free(f.path);
}

void fix_note_clear(struct fsck *c, uint64_t cno, uint64_t ino, const char *what)
{
	struct fsck_clear_fix f = { .ino = ino };

	if (!latest(c, cno))
		return;
	f.what = strdup(what);
	if (!f.what) {
		c->op_error = true;
		return;
	}
	NOTE(c, clears, nclears, capclears, f);
	if (c->op_error && (!c->fix.nclears || c->fix.clears[c->fix.nclears - 1].what != f.what))
		free(f.what);
}

/* an orphan of a crash: no name refers to it, so releasing it loses
 * nothing a user can reach (-p may, as e2fsck's preen releases orphans) */
void fix_note_orphan(struct fsck *c, uint64_t cno, const struct nlfs_file *f, const char *what)
{
	fix_note_clear(c, cno, f->ino, what);
	if (latest(c, cno) && c->fix.nclears && c->fix.clears[c->fix.nclears - 1].ino == f->ino) {
		c->fix.clears[c->fix.nclears - 1].orphan = true;
		c->fix.clears[c->fix.nclears - 1].file = *f;
	}
}

/* the blocks the check counted for inode INO, noted to be cleared: the
 * repair takes them out of the checkpoint's count when it clears it */
void fix_note_clear_blocks(struct fsck *c, uint64_t cno, uint64_t ino, uint64_t nblocks)
{
	if (latest(c, cno) && c->fix.nclears && c->fix.clears[c->fix.nclears - 1].ino == ino)
		c->fix.clears[c->fix.nclears - 1].nblocks = nblocks;
}

/* an empty record whose bit is set: clearing it loses nothing (so -p may) */
void fix_note_free_bit(struct fsck *c, uint64_t cno, uint64_t ino)
{
	char what[64];

	snprintf(what, sizeof(what), "checkpoint %" PRIu64 ": inode %" PRIu64, cno, ino);
	fix_note_clear(c, cno, ino, what);
	if (latest(c, cno) && c->fix.nclears && c->fix.clears[c->fix.nclears - 1].ino == ino)
		c->fix.clears[c->fix.nclears - 1].empty = true;
}

void fix_note_ifile_far(struct fsck *c, uint64_t cno, uint64_t blkoff)
{
	if (latest(c, cno))
		NOTE(c, ifile_far, nifile_far, capifile_far, blkoff);
}

void fix_note_size(struct fsck *c, uint64_t cno, uint64_t ino, uint64_t size)
{
	struct fsck_size_fix f = { ino, size };

	if (latest(c, cno))
		NOTE(c, sizes, nsizes, capsizes, f);
}

void fix_note_root(struct fsck *c, uint64_t cno)
{
	if (latest(c, cno))
		c->fix.root_lost = true;
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

void fix_note_map(struct fsck *c, uint64_t cno, uint64_t ino, const char *what)
{
	struct fsck_map_fix f = { ino, NULL };

	/* the metadata files' maps are written anew by every construction */
	if (ino != NLFS_ROOT_INO && ino < nlfs_le32(c->sb->s_first_ino))
		return;
	if (!latest(c, cno) || (c->fix.nmaps && c->fix.maps[c->fix.nmaps - 1].ino == ino))
		return;
	f.what = strdup(what);
	if (!f.what) {
		c->op_error = true;
		return;
	}
	NOTE(c, maps, nmaps, capmaps, f);
}

void fix_note_vblock(struct fsck *c, uint64_t vbn)
{
	NOTE(c, vblocks, nvblocks, capvblocks, vbn);
}

void fix_note_dat_rewrite(struct fsck *c)
{
	c->fix.dat_rewrite = true;
}

void fix_note_log(struct fsck *c, uint64_t seg, uint64_t vbn, uint64_t block, bool stale)
{
	struct fsck_log_fix f = { seg, vbn, block, stale };

	if (!stale && c->fix.nlogs && !c->fix.logs[c->fix.nlogs - 1].stale &&
	    c->fix.logs[c->fix.nlogs - 1].seg == seg && c->fix.logs[c->fix.nlogs - 1].vbn == vbn)
		return;
	NOTE(c, logs, nlogs, caplogs, f);
}

static void note_seg(struct fsck *c, uint64_t **arr, size_t *n, size_t *cap, uint64_t seg)
{
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i] == seg)
			return;
	if (nlfs_grow((void **)arr, cap, *n + 1, sizeof(**arr))) {
		c->op_error = true;
		return;
	}
	(*arr)[(*n)++] = seg;
}

void fix_note_relocate(struct fsck *c, uint64_t seg)
{
	note_seg(c, &c->fix.relocate, &c->fix.nrelocate, &c->fix.caprelocate, seg);
}

void fix_note_seg_live(struct fsck *c, uint64_t seg)
{
	note_seg(c, &c->fix.seg_live, &c->fix.nseg_live, &c->fix.capseg_live, seg);
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
	for (size_t i = 0; i < f->ndirs; i++)
		free(f->dirs[i].path);
	free(f->dirs);
	for (size_t i = 0; i < f->nclears; i++)
		free(f->clears[i].what);
	free(f->clears);
	free(f->sizes);
	free(f->ifile_far);
	free(f->detached);
	free(f->leaks);
	for (size_t i = 0; i < f->nmaps; i++)
		free(f->maps[i].what);
	free(f->maps);
	free(f->vblocks);
	free(f->logs);
	free(f->relocate);
	free(f->seg_live);
	*f = (struct fsck_fixes){ 0 };
}
