/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair.h - what the check hands to the repairs, and the repairs.
 *
 * The check never changes anything.  While it runs, the passes note here
 * what a repair would need (which inode needs which link count, ...), but
 * only for the latest checkpoint: older checkpoints and snapshots are
 * history, and history is not rewritten.  After the check, main.c decides
 * whether to repair, opens the device for writing (through the undo file
 * of -z if asked), runs the repairs in order and checks again:
 *
 *   repair_rollback.c  --rollback: both superblocks pointed back at the
 *                  newest super root that holds up
 *   repair.c       one construction of the library's writer (a new
 *                  checkpoint, both superblock copies written from the one
 *                  in use), so a crash leaves the old state or the repaired one
 */
#ifndef FSCK_REPAIR_H
#define FSCK_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsck;
struct nlfs_io;
enum fsck_pr;

struct fsck_link_fix {
	uint64_t ino;
	uint32_t links;          /* what the directories say */
};

struct fsck_blocks_fix {
	uint64_t ino;
	uint64_t nblocks;        /* data + node blocks its map holds */
};

struct fsck_dirent_fix {
	uint64_t dir;            /* directory inode */
	uint64_t ino;            /* inode the entry names */
	uint8_t type;            /* the right file type (0: drop the entry) */
};

struct fsck_fixes {
	struct fsck_link_fix *links;
	size_t nlinks, caplinks;
	struct fsck_blocks_fix *blocks;
	size_t nblocks, capblocks;
	struct fsck_dirent_fix *dirents;
	size_t ndirents, capdirents;
	uint64_t *detached;      /* in use, reached by no directory: to lost+found */
	size_t ndetached, capdetached;
	uint64_t *leaks;         /* live DAT entries no file uses */
	size_t nleaks, capleaks;
	uint64_t *relocate;      /* segments whose logs break the chain: moved out */
	size_t nrelocate, caprelocate;
	uint64_t *seg_live;      /* segments not in use that DAT entries point into */
	size_t nseg_live, capseg_live;
	/* counters of the latest checkpoint as the check counted them */
	bool cp_counts_known;
	uint64_t cp_ninodes, cp_nblocks;
};

/* notes from the passes (no-ops for checkpoints other than the latest;
 * a note that cannot be stored for lack of memory makes the repair stop) */
void fix_note_links(struct fsck *c, uint64_t cno, uint64_t ino, uint32_t links);
void fix_note_blocks(struct fsck *c, uint64_t cno, uint64_t ino, uint64_t nblocks);
void fix_note_dirent(struct fsck *c, uint64_t cno, uint64_t dir, uint64_t ino, uint8_t type);
void fix_note_detached(struct fsck *c, uint64_t cno, uint64_t ino);
void fix_note_leak(struct fsck *c, uint64_t vbn);
void fix_note_relocate(struct fsck *c, uint64_t seg);
void fix_note_seg_live(struct fsck *c, uint64_t seg);
void fix_note_cp_counts(struct fsck *c, uint64_t cno, uint64_t ninodes, uint64_t nblocks);
void fix_free(struct fsck_fixes *f);
/* room for NEED elements of SIZE bytes in *ARR (capacity *CAP); -ENOMEM */
int fix_grow(void **arr, size_t *cap, size_t need, size_t size);

/* Can the problems found be repaired in this mode?  Preen (-p) repairs
 * only what needs no judgement; -y everything a repair exists for. */
bool fix_is_repairable(enum fsck_pr code, bool preen);

/* repair_rollback.c: --rollback, before the other repairs.  *CHANGED
 * tells whether the superblocks were pointed back.  0, or a negative
 * errno after printing why. */
int repair_rollback(struct fsck *c, struct nlfs_io *io, bool *changed);

/* repair_rollback.c: the log cursor of both superblocks set to the newest
 * super root when that discards nothing (a cursor naming the wrong
 * checkpoint, or left behind valid logs).  0, or a negative errno. */
int repair_cursor(struct fsck *c, struct nlfs_io *io, bool *changed);

/* repair_meta.c: inside repair.c's construction, right after the writer
 * opens: the cpfile's entries and snapshot list, the segment usage, the
 * segments to move out, the superblock's state and size.  *NFIXES grows by
 * the changes made (each reported).  0, or a negative errno (ERR says). */
struct nlfs_writer;
struct nlfs_fs;
struct nlfs_err;
bool repair_meta_needed(const struct fsck *c);
/* why no construction may be written at all (NULL: it may) */
const char *repair_meta_refused(const struct fsck *c);
int repair_meta(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		struct nlfs_err *err);

/* repair.c: one construction that fixes what the check noted.  *CHANGED
 * tells whether anything was written.  0, or a negative errno after
 * printing why. */
int repair_volume(struct fsck *c, struct nlfs_io *io, bool *changed);

#endif /* FSCK_REPAIR_H */
