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

#include <nlfs/nlfs.h>

struct fsck;
struct nlfs_io;
struct nlfs_fs;
enum fsck_pr;

struct fsck_link_fix {
	uint64_t ino;
	uint32_t links;          /* what the directories say */
};

struct fsck_blocks_fix {
	uint64_t ino;
	uint64_t nblocks;        /* data + node blocks its map holds */
};

/* what the repair does to one record of a directory, found by its place
 * (the repair salvages the blocks as the check did, so places agree) */
enum fsck_dirent_act {
	DIRENT_FREE,             /* names an inode not in use: removed, unless the
				  * inode is still there and comes back */
	DIRENT_DROP,             /* removed, WHY says why */
	DIRENT_RETYPE,           /* its file type set to TYPE */
	DIRENT_RENAME,           /* its name made valid and unique in the directory */
};

struct fsck_dirent_fix {
	uint64_t dir;            /* directory inode */
	uint64_t blk;            /* directory block */
	uint32_t off;            /* byte of the record in it */
	uint8_t act, type;
	uint64_t ino;            /* inode the entry names */
	const char *why;         /* DIRENT_DROP: a constant string */
};

/* a directory the repair rewrites from the records that hold up */
struct fsck_dir_fix {
	uint64_t dir;
	uint64_t parent;         /* what '..' must name (0: /lost+found takes it) */
	char *path;              /* for the messages */
};

/* an inode that is cleared (freed in the ifile; its blocks are then
 * used by no file, and their DAT entries end at the new checkpoint) */
struct fsck_clear_fix {
	uint64_t ino;
	char *what;              /* "inode N (PATH): why", for the message */
	bool empty;              /* a free inode marked in use: only its bit goes */
	bool orphan;             /* no links, no name: released by -p too */
	uint64_t nblocks;        /* counted in the checkpoint's blocks by the check */
	struct nlfs_file file;   /* an orphan as the check read it: what its map holds ends */
};

struct fsck_size_fix {
	uint64_t ino;
	uint64_t size;           /* the i_size it gets */
};

/* a file of the latest checkpoint whose block map is to be rebuilt */
struct fsck_map_fix {
	uint64_t ino;
	char *what;              /* "checkpoint C: inode I (PATH)", for messages */
};

/* a segment whose log has a damaged summary (STALE: only if the DAT,
 * once mended, still does not put VBN at BLOCK as the summary claims) */
struct fsck_log_fix {
	uint64_t seg, vbn, block;
	bool stale;
};
/* VBN of a note for a segment whose logs end before its usage count: given
 * up only if blocks in use lie past the break (else the count is cut) */
#define FSCK_LOG_SHORT UINT64_MAX

struct fsck_fixes {
	struct fsck_link_fix *links;
	size_t nlinks, caplinks;
	struct fsck_blocks_fix *blocks;
	size_t nblocks, capblocks;
	struct fsck_dirent_fix *dirents;
	size_t ndirents, capdirents;
	struct fsck_dir_fix *dirs;
	size_t ndirs, capdirs;
	struct fsck_clear_fix *clears;
	size_t nclears, capclears;
	struct fsck_size_fix *sizes;
	size_t nsizes, capsizes;
	uint64_t *ifile_far;     /* ifile blocks past what the volume can hold */
	size_t nifile_far, capifile_far;
	bool root_lost;          /* the root directory is made anew */
	uint64_t *detached;      /* in use, reached by no directory: to lost+found */
	size_t ndetached, capdetached;
	uint64_t *leaks;         /* live DAT entries no file uses */
	size_t nleaks, capleaks;
	struct fsck_map_fix *maps;   /* block maps to rebuild (repair_map.c) */
	size_t nmaps, capmaps;
	uint64_t *vblocks;       /* DAT entries to set from the summaries */
	size_t nvblocks, capvblocks;
	bool dat_rewrite;        /* the DAT's own blocks are to be written anew */
	struct fsck_log_fix *logs;   /* segments to give up (repair_log.c) */
	size_t nlogs, caplogs;
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
void fix_note_dirent(struct fsck *c, uint64_t cno, const struct fsck_dirent_fix *f);
void fix_note_dir(struct fsck *c, uint64_t cno, uint64_t dir, uint64_t parent, const char *path);
void fix_note_clear(struct fsck *c, uint64_t cno, uint64_t ino, const char *what);
void fix_note_orphan(struct fsck *c, uint64_t cno, const struct nlfs_file *f, const char *what);
void fix_note_clear_blocks(struct fsck *c, uint64_t cno, uint64_t ino, uint64_t nblocks);
void fix_note_free_bit(struct fsck *c, uint64_t cno, uint64_t ino);
void fix_note_ifile_far(struct fsck *c, uint64_t cno, uint64_t blkoff);
void fix_note_size(struct fsck *c, uint64_t cno, uint64_t ino, uint64_t size);
void fix_note_root(struct fsck *c, uint64_t cno);
void fix_note_detached(struct fsck *c, uint64_t cno, uint64_t ino);
void fix_note_leak(struct fsck *c, uint64_t vbn);
/* a damaged map of a file (not a metadata file), a suspect DAT entry,
 * DAT blocks no summary describes */
void fix_note_map(struct fsck *c, uint64_t cno, uint64_t ino, const char *what);
void fix_note_vblock(struct fsck *c, uint64_t vbn);
void fix_note_dat_rewrite(struct fsck *c);
void fix_note_log(struct fsck *c, uint64_t seg, uint64_t vbn, uint64_t block, bool stale);
void fix_note_relocate(struct fsck *c, uint64_t seg);
void fix_note_seg_live(struct fsck *c, uint64_t seg);
void fix_note_cp_counts(struct fsck *c, uint64_t cno, uint64_t ninodes, uint64_t nblocks);
void fix_free(struct fsck_fixes *f);
/* room for NEED elements of SIZE bytes in *ARR (capacity *CAP); -ENOMEM */

/* For the tests of the check after the repairs only: with
 * FSCK_NILFS2_TEST_BREAK=WHAT in the environment, the repair WHAT drops
 * its safeguard ("end-leaks": live DAT entries no walked map used are
 * ended even while block maps are mended), so that the test can see that
 * check report the damage (PR_REPAIR_LIVE). */
bool fsck_test_break(const char *what);

/* repair_rollback.c: --rollback, before the other repairs.  *CHANGED
 * tells whether the superblocks were pointed back.  0, or a negative
 * errno after printing why. */
int repair_rollback(struct fsck *c, struct nlfs_io *io, bool *changed);
/* repair_rollback.c: whether --rollback would find an older super root
 * that holds up on DEVICE (read-only); false when it cannot tell, so that
 * fsck never suggests what would then say "not possible". */
bool rollback_possible(const char *device);

/* repair_map.c: inside repair.c's construction, before anything else
 * uses W: DAT entries set from the segment summaries, then the noted block
 * maps rebuilt from the entries that hold up.  *NFIXES counts what was
 * changed.  0, or a negative errno (ERR says why). */
struct nlfs_writer;
struct nlfs_err;
int repair_map_dat(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		   struct nlfs_err *err);

/* repair_map.c: the metadata files' inodes in the super root (preen-safe) */
void repair_mdt_inodes(struct fsck *c, struct nlfs_writer *w, uint64_t *nfixes);

/* repair_log.c: after repair_map_dat, the segments whose summaries are
 * damaged are emptied (every block a checkpoint maps moved, its virtual
 * block and period kept) and given up.  0 or a negative errno. */
int repair_logs(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		struct nlfs_err *err);
/* every block of the DAT written anew by the construction; *N of them */
int repair_dat_rewrite(struct nlfs_fs *fs, struct nlfs_writer *w, size_t *n, struct nlfs_err *err);
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
