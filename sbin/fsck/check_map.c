/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_map.c - the block-map check shared by every pass that walks a file:
 * the DAT's map (pass 2), the cpfile's and sufile's (pass 5) and every
 * file of a checkpoint (pass 6).
 *
 * check_file_map() walks any file's block map (the DAT's physical one, the
 * virtual ones of every other file): B-tree shape as the library checks
 * it, keys in strictly ascending order across the whole tree, every
 * virtual pointer allocated in the DAT, alive in the checkpoint that uses
 * it, and used once per checkpoint (c->vref); the block count against
 * i_blocks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"

struct map_walk {
	struct fsck *c;
	const struct nlfs_file *f;
	struct fsck_file_check *fc;
	uint64_t last_key;
	bool any_key;
	unsigned nproblems;
	bool needs_rebuild;      /* a repair of the map is needed, whatever was printed */
	unsigned nnull;          /* B-tree entries without a pointer */
	bool unreadable;         /* a DAT entry could not be read */
	bool named_baddata;      /* the file was named for a log with a bad data checksum */
};

/* per file: the rest of a broken map repeats the same story */
#define MAP_PROBLEM_LIMIT 8

const char *fsck_file_what(const struct fsck_file_check *fc)
{
	if (fc->what)
		return fc->what;
	if (!fc->namebuf[0])
		cp_name(fc->cp, fc->ino, fc->path, fc->namebuf, PATH_MAX_NAME);
	return fc->namebuf;
}

static bool map_note(struct map_walk *w)
{
	return ++w->nproblems <= MAP_PROBLEM_LIMIT;
}

/* The check of the repairs' work (the check that follows them): a live
 * block of the latest checkpoint whose DAT entry a repair ended, or that
 * lies outside the segments in use, is a repair that made the volume
 * worse.  Entries ended before the repairs were reported by the first
 * check and are not counted twice. */
static void repair_verify_live(struct fsck *c, const struct fsck_file_check *fc, unsigned level,
			       uint64_t key, uint64_t ptr, const struct nlfs_datinfo *de,
			       const char *why)
{
	if (!c->repair_cno || fc->cno != c->latest_cno || fc->metadata_current)
		return;
	if (de && de->end != NLFS_CNO_MAX && de->end < c->repair_cno &&
	    fsck_phys_in_use(c, de->blocknr))
		return;   /* ended before any repair */
	fsck_problem(c, MSG_REPAIR_LEFT_LIVE, fsck_file_what(fc),
		     level ? "node at key" : "file block", key, ptr, why, c->repair_cno);
}

/* One pointer of a virtual map: allocated in the DAT, used once in the
 * checkpoint (c->vref), with an address in a segment in use, alive in the
 * checkpoint.  Non-zero for a node pointer not to be followed. */
static int check_pointer(struct map_walk *w, uint64_t key, uint64_t ptr, unsigned level,
			 struct nlfs_datinfo *out)
{
	struct fsck *c = w->c;
	struct fsck_file_check *fc = w->fc;
	struct nlfs_datinfo de;
	struct nlfs_err err;
	bool open;

	if (!fsck_vbit_test(&c->valloc, ptr)) {
		repair_verify_live(c, fc, level, key, ptr, NULL, "its DAT entry is not allocated");
		fix_note_vblock(c, ptr);
		if (map_note(w))
			fsck_problem(c, MSG_BMAP_VBLOCK_FREE, fsck_file_what(fc),
				     level ? "node at key" : "file block", key, ptr);
		return level ? 1 : 0;   /* do not follow a node pointer into garbage */
	}
	if (fsck_vbit_test_set(&c->vref, ptr) && map_note(w))
		fsck_problem(c, MSG_BMAP_VBLOCK_TWICE, fsck_file_what(fc), ptr,
			     level ? "node at key" : "file block", key);
	/* the latest checkpoint's blocks, and the cpfile's and sufile's, must
	 * be open: a plain open entry is all the check needs there, but for
	 * its start, which only a check by difference keeps (max_start) */
	if (!out && (fc->metadata_current || fc->cno == c->latest_cno) &&
	    !(fc->cp && fc->cp->diff) && fsck_dat_plain(c, ptr, &de.blocknr, &open) && open) {
		de.start = 0;
		de.end = NLFS_CNO_MAX;
	} else if (nlfs_dat_lookup(c->fs, ptr, &de, &err)) {
		w->unreadable = true;
		fsck_lib_problem(c, MSG_BMAP_VBLOCK_READ, &err, fsck_file_what(fc), ptr);
		return level ? 1 : 0;
	}
	if (de.blocknr == 0) {
		repair_verify_live(c, fc, level, key, ptr, NULL, "its DAT entry has no address");
		if (map_note(w))
			fsck_problem(c, MSG_BMAP_VBLOCK_NO_ADDRESS, fsck_file_what(fc),
				     level ? "node at key" : "file block", key, ptr);
		return level ? 1 : 0;
	}
	if (de.start > fc->max_start)
		fc->max_start = de.start;
	if (de.end < fc->min_end)
		fc->min_end = de.end;
	if (!fsck_phys_in_use(c, de.blocknr)) {
		/* pass 4 reports the entry; the map is mended with it */
		w->needs_rebuild = true;
		repair_verify_live(c, fc, level, key, ptr, NULL,
				   "its DAT entry points outside the segments in use");
	}
	if (!w->named_baddata && fsck_bit_test(&c->baddata, de.blocknr)) {
		/* one bad bit in a log's data costs no more than its files */
		w->named_baddata = true;
		fsck_info(c, "%s: %s at key %" PRIu64 " (block %" PRIu64 ") lies in a log whose "
			  "data checksum is wrong: the file's contents may be damaged",
			  fsck_file_what(fc), level ? "node" : "file block", key,
			  (uint64_t)de.blocknr);
	}
	if (fc->metadata_current ? de.end != NLFS_CNO_MAX :
	    !(de.start <= fc->cno && fc->cno < de.end)) {
		repair_verify_live(c, fc, level, key, ptr, &de,
				   "its DAT entry does not hold this checkpoint");
		if (map_note(w)) {
			char end[24];

			if (de.end == NLFS_CNO_MAX)
				snprintf(end, sizeof(end), "open");
			else
				snprintf(end, sizeof(end), "%" PRIu64, de.end);
			fsck_problem(c, MSG_BMAP_VBLOCK_PERIOD, fsck_file_what(fc),
				     level ? "node at key" : "file block", key, ptr, de.start,
				     end,
				     fc->metadata_current ? "has ended" : "does not hold this checkpoint");
		}
	}
	if (out)
		*out = de;
	return 0;
}

static int map_entry(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct map_walk *w = arg;
	struct fsck *c = w->c;
	struct fsck_file_check *fc = w->fc;

	if (ptr == 0) {
		/* a B-tree entry without a pointer: a hole to our readers, a
		 * failed read to the kernel's; the rebuilt map drops it, or
		 * takes the block back from the segment summaries */
		w->needs_rebuild = true;   /* not a map that cannot be read: the walk goes on */
		if (++w->nnull <= MAP_PROBLEM_LIMIT)
			fsck_problem(c, MSG_BMAP_NULL_PTR, fsck_file_what(fc), key);
		return 0;
	}

	fc->nblocks++;
	if (level == 0) {
		if (w->any_key && key <= w->last_key && map_note(w))
			fsck_problem(c, MSG_BMAP_KEY_ORDER, fsck_file_what(fc), key, w->last_key);
		w->last_key = key;
		w->any_key = true;
		if (key + 1 > fc->last_data)
			fc->last_data = key + 1;
	}
	if (w->f->ino == NLFS_DAT_INO) {
		/* the DAT maps itself with physical block numbers */
		if (!fsck_phys_in_use(c, ptr)) {
			uint64_t seg = ptr / c->g->blocks_per_segment;

			fix_note_dat_rewrite(c);
			if (map_note(w))
				fsck_problem(c, MSG_DAT_BLOCK_OUTSIDE, ptr,
					     level ? "node at key" : "file block", key);
			if (ptr < c->g->first_data_block || seg >= c->g->nsegments)
				return level ? 1 : 0;
			/* the sufile may be the wrong side (a damaged block of it
			 * counts the segment clean): the walk goes on through the
			 * block, and the repair takes the segment back into use
			 * if it holds valid logs (repair_meta.c) */
			fix_note_seg_live(c, seg);
			return 0;
		}
		fsck_bit_set(&c->datblk, ptr);
		if (fsck_bit_test_set(&c->datphys, ptr) && map_note(w))
			fsck_problem(c, MSG_DAT_BLOCK_TWICE, ptr);
		return 0;
	}
	return check_pointer(w, key, ptr, level, NULL);
}

void check_file_map(struct fsck *c, const struct nlfs_file *f, struct fsck_file_check *fc)
{
	struct map_walk w = { .c = c, .f = f, .fc = fc };
	struct nlfs_err err;
	uint8_t flags;
	int rc;

	fc->nblocks = 0;
	fc->last_data = 0;
	fc->map_ok = false;
	fc->max_start = 0;
	fc->min_end = NLFS_CNO_MAX;
	/* only the flags byte of a direct map's header means anything: when the
	 * kernel turns a B-tree back into a direct map it clears the B-tree bit
	 * and leaves the old root's level and child count behind */
	memcpy(&flags, f->inode.i_bmap, 1);
	if (!(flags & NLFS_BMAP_LARGE) && flags)
		fsck_problem(c, MSG_BMAP_DIRECT_FLAGS, fsck_file_what(fc), flags);
	nlfs_err_clear(&err);
	rc = nlfs_bmap_iterate_holes(c->fs, f, map_entry, &w, &err);
	if (rc < 0 || w.nproblems || w.needs_rebuild || (!(flags & NLFS_BMAP_LARGE) && flags))
		fix_note_map(c, fc->cno, f->ino, fsck_file_what(fc));
	if (rc < 0) {
		fsck_lib_problem(c, MSG_BMAP_WALK, &err, fsck_file_what(fc));
		c->maps_incomplete = true;
		return;
	}
	if (rc > 0)
		c->maps_incomplete = true;
	if (rc > 0 || w.nproblems)
		return;
	fc->map_ok = true;
	if (!nlfs_inode_blocks_ok(nlfs_le64(f->inode.i_blocks), fc->nblocks, c->g->blocksize,
				  fc->max_fs_units))
		fsck_problem(c, MSG_INO_BLOCKS, fsck_file_what(fc), nlfs_le64(f->inode.i_blocks), fc->nblocks,
			     fc->nblocks * (c->g->blocksize / 512));
	if (!nlfs_inode_blocks_ok(nlfs_le64(f->inode.i_blocks), fc->nblocks, c->g->blocksize,
				  fc->max_fs_units))
		fix_note_blocks(c, fc->cno, f->ino, fc->nblocks);
}

bool check_map_pointer(struct fsck *c, struct fsck_file_check *fc, const struct nlfs_file *f,
		       uint64_t key, uint64_t ptr, unsigned level, struct nlfs_datinfo *de)
{
	struct map_walk w = { .c = c, .f = f, .fc = fc };

	return !check_pointer(&w, key, ptr, level, de) && !w.nproblems && !w.needs_rebuild &&
	       !w.unreadable;
}
