/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsck.h - the checker's shared state.
 *
 * One struct fsck travels through the passes.  Besides options and counters
 * it holds the in-memory maps the passes hand on to each other, one bit
 * per block of the device or per virtual block number of the DAT (the
 * latter sparse, vbitmap.h: the DAT may use any number up to 2^64 - 1):
 *
 *   datphys     physical blocks the DAT points at, its own blocks included:
 *               a second pointer to one of them is a shared block (pass 2, 4)
 *   datblk      the DAT's own blocks, cleared as summaries confirm them (2, 3)
 *   unverified  blocks of logs whose summary cannot be trusted: what points
 *               there was reported once, at the log (pass 3)
 *   valloc      virtual blocks allocated in the DAT bitmap (pass 2)
 *   vconfirmed  virtual blocks whose DAT address a summary claims (pass 3)
 *   vref        virtual blocks the checkpoint being checked uses (pass 5, 6)
 * and, beside valloc, the DAT's plain entries (dattable.h, pass 2), which
 * passes 3 to 6 look up there rather than in the DAT.
 * Pass 6 adds, per checkpoint, 2 bytes and 3 bits per inode number and one
 * block buffer and name set per directory on the current path.
 */
#ifndef FSCK_FSCK_H
#define FSCK_FSCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <nlfs/nlfs.h>
#include "bitmap.h"
#include "dattable.h"
#include "icount.h"
#include "vbitmap.h"
#include "problem.h"
#include "repair.h"

#define FSCK_PROG "fsck.nilfs2"
/* room for "checkpoint N: inode I (PATH)" */
#define PATH_MAX_NAME 4200

/* fsck(8) exit status bits */
#define FSCK_EXIT_OK         0
#define FSCK_EXIT_CORRECTED  1
#define FSCK_EXIT_REBOOT     2
#define FSCK_EXIT_UNCORRECTED 4
#define FSCK_EXIT_OPERATIONAL 8
#define FSCK_EXIT_USAGE      16
#define FSCK_EXIT_CANCELLED  32

enum fsck_mode { MODE_NO, MODE_YES, MODE_PREEN };
enum fsck_cps { CPS_LATEST, CPS_SNAPSHOTS, CPS_ALL };

struct fsck_opts {
	enum fsck_mode mode;
	bool mode_set;
	bool force, verbose, json;
	int progress_fd;           /* -C: < 0 starts silent, SIGUSR1 turns it on */
	bool progress_on, progress_set;
	enum fsck_cps cps;
	const char *device;
	const char *undo_file;     /* -z: blocks a repair overwrites are saved there first */
	bool rollback;             /* --rollback: back to the newest super root that holds up */
	bool check_data;           /* --check-data: every log's ss_datasum, not only the recent ones */
	bool stats;                /* --stats: time and reads of each pass, at the end */
};

/* what pass 2 learnt about each segment */
struct fsck_seg {
	uint64_t seq, next;        /* of its logs (valid only if nlogs) */
	uint32_t su_nblocks, su_flags;
	uint32_t nlogs;
	uint32_t logs_end;         /* blocks from its start its valid logs cover (pass 3) */
	uint16_t first_flags, last_flags;
	bool truncated;            /* its logs could not all be read */
};

struct fsck {
	struct fsck_opts o;
	struct nlfs_fs *fs;
	const struct nlfs_geometry *g;
	const struct nlfs_super_block *sb;     /* the copy in use */
	uint64_t latest_cno;                   /* the latest super root's checkpoint */
	uint64_t devsize;                      /* bytes */

	struct fsck_seg *segs;
	struct fsck_bitmap datphys, datblk;
	struct fsck_bitmap unverified;         /* in logs whose summaries cannot be trusted */
	struct fsck_bitmap baddata;            /* in logs whose data checksums are wrong */
	struct fsck_vbitmap valloc, vconfirmed, vref;
	uint64_t nvalloc;                      /* entries allocated in the DAT bitmaps */
	struct fsck_dattable dat;              /* their plain entries (none: chunks NULL) */

	/* results */
	uint64_t nerrors, nwarnings;
	uint64_t pr_count[PR_COUNT];
	bool op_error;                         /* could not finish: I/O or memory */
	bool aborted;                          /* a pass could not go on */
	bool maps_incomplete;                  /* some map of this checkpoint was not walked whole */
	/* cpdiff.c tries a checkpoint by difference with problems held
	 * back: one found sets probe_failed and the checkpoint is walked whole */
	bool probing, probe_failed;
	uint64_t nreported;                    /* problems counted so far, of any severity */
	uint64_t nopen_unlinked;               /* latest checkpoint's in-use inodes with no links */
	struct fsck_report *report;
	struct fsck_fixes fix;                 /* what the repairs need (repair.h) */
	bool changed;                          /* a repair wrote to the device */
	bool corrected;                        /* ... and more than the kernel's recovery */
	uint64_t repair_cno;                   /* the first checkpoint a repair wrote (0: none) */

	/* statistics for the summary line */
	uint64_t nlogs_datasum;                /* logs whose data checksum was verified */
	uint64_t nlogs, nsegs_used, ninodes, ndirs, nfiles_blocks, ncps_checked;
	/* pass 3, when more than the latest checkpoint is checked: where
	 * each log lies and the checkpoint it wrote, for pass 6's differences
	 * to ask for a checkpoint's logs ahead (cpdiff.c) */
	struct fsck_cplog { uint64_t cno, start, nblocks; } *cplogs;
	size_t ncplogs, capcplogs;
	uint64_t nsegs_clean, nsegs_written;   /* clean; holding blocks (pass 2) */
	uint64_t ncheckpoints, nsnapshots;
};

/* report.c: SIGINT/SIGTERM, and SIGUSR1: 1 on, SIGUSR2: 2 off */
extern volatile sig_atomic_t fsck_cancel_requested;
extern volatile sig_atomic_t fsck_progress_toggle;

/* problem.c: report one problem by its message (problem.h), the arguments
 * its template asks for checked by the compiler:
 *   fsck_problem(c, MSG_SB_CRC, copy, offset, stored, computed); */
#define fsck_problem(c, msg, ...) fsck_problem_fmt((c), (msg), fsck_fmt_##msg, ##__VA_ARGS__)
void fsck_problem_fmt(struct fsck *c, enum fsck_msg id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* a library failure, its context appended to the message: NLFS_ECORRUPT
 * and friends are problems of the message's code, an errno value is an
 * operational error (PR_IO: the check cannot be trusted) */
#define fsck_lib_problem(c, msg, err, ...) \
	fsck_lib_problem_fmt((c), (msg), (err), fsck_fmt_##msg, ##__VA_ARGS__)
void fsck_lib_problem_fmt(struct fsck *c, enum fsck_msg id, const struct nlfs_err *err,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool fsck_is_format_error(int rc);

/* report.c */
void fsck_pass_begin(struct fsck *c, int pass, const char *what);
void fsck_progress(struct fsck *c, int pass, uint64_t cur, uint64_t max);
/* erase -C 0's bar before the closing lines */
void fsck_progress_done(struct fsck *c);
void fsck_info(struct fsck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fsck_verbose(struct fsck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fsck_report_init(struct fsck *c);
void fsck_report_finish(struct fsck *c, int exit_code, const char *status);
void fsck_report_free(struct fsck *c);
void fsck_report_add(struct fsck *c, enum fsck_pr code, const char *msg);
bool fsck_cancelled(struct fsck *c);

/* mount.c: 0 (*MOUNTED says whether it is a nilfs2 mount, WHERE its mount
 * point), or -EMEDIUMTYPE if DEVICE is mounted as another file system (WHERE
 * says which, for the refusal) */
int fsck_check_mounted(const char *device, bool *mounted, bool *ro, char *where, size_t len);

/* the passes */
int pass_sb(struct fsck *c, struct nlfs_io *io);          /* pass_sb.c: before open */
void pass_sb_cursor(struct fsck *c);                      /* pass_sb.c: after open */
/* pass_sb.c, after pass 4: the superblocks' free blocks against the clean
 * segments pass 2 counted */
int pass_sb_free(struct fsck *c);
int pass_sufile(struct fsck *c);                          /* pass_sufile.c */
int pass_dat_map(struct fsck *c);                         /* pass_dat.c */
int pass_dat_entries(struct fsck *c);
void pass_dat_leaks(struct fsck *c);
int pass_logs(struct fsck *c);                            /* pass_log.c */
void pass_recovery(struct fsck *c);
int pass_cpfile(struct fsck *c, uint64_t **cnos, uint64_t *ncnos); /* pass_cpfile.c */

/* util.c: is physical block BLK inside the used part of a segment in use? */
bool fsck_phys_in_use(const struct fsck *c, uint64_t blk);
/* util.c: virtual block V's plain entry from c->dat (pass_dat.c loads
 * it): its address in *BLK and, if OPEN is not NULL, whether it is open;
 * false where the DAT must be asked (not plain, or no table) */
bool fsck_dat_plain(struct fsck *c, uint64_t v, uint64_t *blk, bool *open);

/* util.c: how many groups of a palloc file (DAT, ifile) to check when
 * its last block is LAST_DATA - 1; a map reaching absurdly far (a corrupt
 * key) is reported and cut down to what the device could hold */
uint64_t palloc_groups(struct fsck *c, const char *what, uint32_t entry_size, uint64_t last_data);

/* check_map.c: a file's block map, shared by the passes that walk files
 * (the DAT in pass_dat, the cpfile and sufile in pass_cpfile, every file
 * of a checkpoint in pass_inode) */
struct fsck_file_check {
	uint64_t cno;            /* checkpoint whose DAT periods must cover the blocks */
	const char *what;        /* "DAT", "checkpoint 7: ifile" etc., for messages */
	/* or, where WHAT is NULL, a file of a checkpoint: named by cp_name()
	 * into NAMEBUF (PATH_MAX_NAME bytes, empty until then) the first time
	 * a message needs it; most files never are */
	const struct fsck_cp *cp;
	uint64_t ino;
	const char *path;
	char *namebuf;
	bool metadata_current;   /* cpfile/sufile: every block must be live (de_end ~0) */
	unsigned max_fs_units;   /* see nlfs_inode_blocks_ok */
	uint64_t nblocks;        /* out: data + node blocks */
	uint64_t last_data;      /* out: highest data block offset + 1 (0: none) */
	bool map_ok;             /* out: the whole map could be walked */
	/* out: the checkpoints every block of the map is alive in are
	 * [max_start, min_end) (virtual maps only) */
	uint64_t max_start, min_end;
};
void check_file_map(struct fsck *c, const struct nlfs_file *f, struct fsck_file_check *fc);
/* FC's file as messages name it */
const char *fsck_file_what(const struct fsck_file_check *fc);
/* one pointer of F's virtual map, at KEY and LEVEL, checked as
 * check_file_map checks each (FC as there, its counts left alone): true if
 * it holds up, with its DAT entry in *DE (if not NULL) */
bool check_map_pointer(struct fsck *c, struct fsck_file_check *fc, const struct nlfs_file *f,
		       uint64_t key, uint64_t ptr, unsigned level, struct nlfs_datinfo *de);

/* What the checks by difference (cpdiff.c) learn from a walk of the
 * checkpoint (pass_dir.c's tree walk, pass_inode.c's checks of one inode)
 * while they keep its state or check the next one against it.  The walk
 * calls these through the checkpoint's diff where it is set, never
 * cpdiff.c itself, which calls the walk.  ARG is the checkpoint's
 * diff_arg. */
struct cp_diff_hooks {
	/* the blocks of INO's map are all alive in [MAX_START, MIN_END) */
	void (*note_version)(void *arg, uint64_t ino, uint64_t max_start, uint64_t min_end);
	/* a record naming INO was counted: its link count is to be compared */
	void (*dirty)(void *arg, uint64_t ino);
	/* a changed directory DIR names directory CHILD, or has '..' naming INO */
	void (*note_child)(void *arg, uint64_t dir, uint64_t child);
	void (*note_dotdot)(void *arg, uint64_t dir, uint64_t ino);
	/* directory DIR's old version had a record naming INO as TYPE, and INO
	 * did not change: a record that says the same needs no new look at INO
	 * (the record is at byte OFF of block KEY, where the old one is looked
	 * for first) */
	bool (*record_known)(void *arg, uint64_t dir, uint64_t key, uint32_t off, uint64_t ino,
			     unsigned type);
	/* block KEY of directory DIR is the one its old version had (same
	 * virtual block, so the same records): only its names are read, for
	 * the records of the blocks that changed to be told apart from */
	bool (*block_same)(const void *arg, uint64_t dir, uint64_t key);
	/* INO changed and was checked as it is now: its i_mode in *MODE,
	 * without its ifile block read again */
	bool (*checked_mode)(const void *arg, uint64_t ino, uint16_t *mode);
};

/* the inodes of one checkpoint: pass_checkpoint.c walks them, with
 * pass_dir.c's tree walk and pass_inode.c's checks of one inode */
struct fsck_cp {
	uint64_t cno;
	struct nlfs_file ifile;
	uint64_t max_ino;              /* inode numbers the ifile covers */
	struct fsck_bitmap alloc;      /* in use in the ifile bitmap */
	struct fsck_bitmap visited;    /* reached (and checked) */
	struct fsck_bitmap isdir;
	struct fsck_bitmap cleared;    /* to be cleared by the repair: entries naming them go */
	struct fsck_icount nref;       /* directory records naming each inode */
	/* i_links_count of each visited inode, kept when check_inode reads it
	 * so the final link-count pass need not read the ifile again */
	struct fsck_icount links;
	/* ifile blocks read lately, slot blkoff % niblocks: the tree walk
	 * comes back to the same few blocks, one read each saves a syscall.
	 * FSCK_ICACHE slots at first; where the walk keeps reading again
	 * blocks it had read (a kernel-written volume's files are numbered
	 * apart from their directories' order), doubled, up to the ifile's
	 * size and FSCK_ICACHE_MAX (cp_icache_* in cp.c) */
#define FSCK_ICACHE 256
#define FSCK_ICACHE_MAX 2048
	uint8_t *iblock;               /* niblocks blocks */
	uint64_t *iblock_off;
	bool *iblock_hole;
	unsigned niblocks;
	uint64_t ifile_blocks;         /* the ifile's blocks (last data block + 1) */
	struct fsck_bitmap iblock_seen; /* read once already: a miss there is a re-read */
	uint64_t ireads, irereads;     /* since the cache last grew */
	uint64_t nblocks;              /* blocks of all its files, for cp_blocks_count */
	bool blocks_uncounted;         /* some inode's map was not walked (it is cleared) */
	uint64_t nchecked;
	uint64_t ninuse;
	/* set when the checkpoint is checked by difference (cpdiff.c) */
	const struct cp_diff_hooks *diff;
	void *diff_arg;
	uint64_t *parent;              /* the directory naming each directory (diff only) */
	bool diff_walk;                /* pass_dir.c: one directory's records, no descent */
};
/* cp.c: the ifile block cache of CP, for an ifile of IFILE_BLOCKS
 * blocks; 0 or -ENOMEM.  _reset empties it (another ifile), _free frees it. */
int cp_icache_init(struct fsck *c, struct fsck_cp *cp, uint64_t ifile_blocks);
void cp_icache_reset(struct fsck_cp *cp);
void cp_icache_free(struct fsck_cp *cp);
/* cp.c: the cache kept for another checkpoint whose ifile shares the
 * blocks held (same virtual block numbers, same bytes): only the counts
 * that grow it start again; the caller takes out each block that changed
 * (_take: true and its BS bytes in OUT if it was held) and may put in its
 * new bytes (_put) */
void cp_icache_next(struct fsck_cp *cp);
bool cp_icache_take(struct fsck_cp *cp, uint64_t blkoff, uint8_t *out, uint32_t bs);
void cp_icache_put(struct fsck_cp *cp, uint64_t blkoff, const uint8_t *block, uint32_t bs);
/* cp.c: inode INO of the checkpoint (0, or -1 after reporting why it
 * cannot be read) */
int cp_read_inode(struct fsck *c, struct fsck_cp *cp, uint64_t ino, struct nlfs_file *out);
/* cp.c: "checkpoint C: inode I (PATH)" into BUF, for the messages */
const char *cp_name(const struct fsck_cp *cp, uint64_t ino, const char *path, char *buf,
		    size_t len);
/* pass_inode.c: check one inode's type, map and size; PATH may be NULL;
 * false if its map is unusable.  An inode that cannot be kept gets its
 * bit in cp->cleared. */
bool check_inode(struct fsck *c, struct fsck_cp *cp, const struct nlfs_file *f, const char *path);

/* cp.c: an in-use inode no directory names that is free in truth: a
 * record never written, or a deleted file's */
bool cp_inode_is_empty(const struct nlfs_inode *i);
bool cp_inode_is_deleted(struct fsck *c, uint64_t cno, const struct nlfs_file *f);
/* cp.c: what CP holds, freed */
void cp_free(struct fsck_cp *cp);

/* pass_checkpoint.c: every chosen checkpoint, the first (the latest)
 * walked whole, each next one by difference with the one before when that
 * was found clean: only the ifile blocks that changed, the inodes they
 * hold and the directories among them are examined again (fsck.nilfs2(8),
 * MEMORY).  AFTER_LATEST runs once the latest is walked, while c->vref
 * holds the virtual blocks it uses. */
int pass_checkpoints(struct fsck *c, const uint64_t *cnos, uint64_t ncnos,
		     void (*after_latest)(struct fsck *c));

/* util.c: the blocks of a directory the check walks and the repair
 * rewrites: up to its last mapped one (KEYS in order), whatever i_size says */
uint64_t dir_nblocks(const uint64_t *keys, size_t nkeys);
/* pass_dir.c: walk the tree below directory INO (whose parent is PARENT) */
void walk_tree(struct fsck *c, struct fsck_cp *cp, uint64_t ino, uint64_t parent,
	       const char *path);

#endif /* FSCK_FSCK_H */
