/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Repairs (lib/repair/): the changes fsck.nilfs2 makes through the writer,
 * nilfs-tune's recount of block counts, the kernel's mount-time recovery
 * done offline, and rollback to an older super root.  Not for a general
 * writer: most take a construction opened with NLFS_WRITER_REPAIR
 * (<nlfs/writer.h>) and assume the caller has checked the volume first.
 * Functions return 0 or a negative error (errno values, NLFS_E*), the
 * detail in struct nlfs_err, as everywhere in the library.
 */
#ifndef NLFS_REPAIR_H
#define NLFS_REPAIR_H

#include <nlfs/nlfs.h>
#include <nlfs/writer.h>

/* The kernel's recovery at mount on a volume not cleanly unmounted with no
 * log after its latest super root: both superblocks point at the super root
 * nlfs_fs_recovery names (past a stale cursor) and say cleanly unmounted,
 * the copy not in use written first.  FS's io must be open for writing.
 * 0; -EBUSY if logs follow the super root (a roll-forward construction
 * takes those up, see nlfs_writer_roll_forward); as nlfs_sufile_header and
 * nlfs_sb_rewrite. */
int nlfs_recovery_mark_clean(struct nlfs_fs *fs, uint64_t now, struct nlfs_err *err);

/* rollback.c: the newest super root that holds up, for pointing both
 * superblocks back at it when the latest logs are damaged.  FS comes from
 * nlfs_fs_open_sb (its io open for writing, for nlfs_rollback_write). */
struct nlfs_rollback {
	uint64_t log, seq, cno;   /* its log, that log's seq, the checkpoint it commits */
	uint64_t free_blocks;     /* s_free_blocks_count from its sufile */
	bool needed;              /* the kernel's mount would not start there already */
	uint64_t discarded;       /* logs newer than it (damaged ones included) */
	uint64_t rejected;        /* newer super roots that do not hold up */
};
/* 0 (RB->needed false if nothing is to be done); -NLFS_ENOSR if no super root
 * holds up; a negative errno from the io; -ENOMEM. */
int nlfs_rollback_find(struct nlfs_fs *fs, struct nlfs_rollback *rb, struct nlfs_err *err);
/* Point both superblock copies at RB (secondary first; each flushed), all
 * else kept.  A bad copy is rewritten from the one in use.
 * 0; a negative errno from the io. */
int nlfs_rollback_write(struct nlfs_fs *fs, const struct nlfs_rollback *rb, struct nlfs_err *err);

/* cp_count.c: the block count checkpoint CNO (0 = latest) should keep in
 * cp_blocks_count, counted from its ifile and files (data and B-tree nodes).
 * 0; as nlfs_fs_ifile and nlfs_bmap_iterate. */
int nlfs_cp_count_blocks(struct nlfs_fs *fs, uint64_t cno, uint64_t *nblocks,
			 struct nlfs_err *err);

/* repair_w.c, write/map_fix.c, write/inode_fix.c: repairs (fsck.nilfs2).
 * Call them right after opening, before anything else uses the writer;
 * *NFIXED is increased by the number of fields changed. */
/* sufile: the header's clean and dirty counts from the entries (and
 * sh_last_alloc if out of range); clean entries lose stale counts.
 * 0; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_fix_sufile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err);
/* cpfile: header counts and per-block counts from the entries.  0; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_fix_cpfile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err);
/* the group descriptors of the DAT or the ifile (INO) from their bitmaps.  0;
 * -EINVAL for an INO that is neither; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_fix_palloc(struct nlfs_writer *w, uint64_t ino, uint64_t *nfixed,
			   struct nlfs_err *err);
/* inode numbers below s_first_ino marked in use.  0; as nlfs_file_read_block;
 * -ENOMEM. */
int nlfs_writer_fix_reserved_inodes(struct nlfs_writer *w, uint64_t *nfixed,
				    struct nlfs_err *err);
/* a live DAT entry no file uses stops at the checkpoint being built.  0;
 * -ENOENT for an entry not in use; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_end_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err);
/* A directory entry names inode INO, free in the ifile bitmap: if its
 * slot still holds a live inode (a file type, links), mark it in use again
 * (*REVIVED).  Only the bitmap bit was lost then, and the file comes back
 * whole.
 * 0; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_revive_inode(struct nlfs_writer *w, uint64_t ino, bool *revived,
			     struct nlfs_err *err);
/* Inode INO (not reserved) cleared: its slot zeroed and freed in the
 * ifile.  Its blocks stay as they are; the caller ends the DAT entries
 * no file uses any more.
 * 0; -EINVAL for a reserved inode; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_clear_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err);
/* Block BLKOFF dropped from the ifile's map (its DAT entry ends at the new
 * checkpoint: older checkpoints keep it).
 * 0; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_ifile_punch(struct nlfs_writer *w, uint64_t blkoff, struct nlfs_err *err);
/* The kernel's roll-forward, offline (a writer opened with
 * NLFS_WRITER_ROLLFORWARD): every file with blocks in complete data-sync
 * logical segments after the super root is written anew as the reader
 * shows it, those blocks in place and its size grown to cover them.
 * 0; as nlfs_fs_ifile, nlfs_file_read_block and the writer's file calls. */
int nlfs_writer_roll_forward(struct nlfs_writer *w, uint64_t *nfiles, uint64_t *nblocks,
			     struct nlfs_err *err);
/* repair_cpfile.c: the cpfile's entries mended; each change is passed to
 * CB (if not NULL) as it is made.  Then nlfs_writer_fix_cpfile recounts. */
enum nlfs_cp_fix {
	NLFS_CP_FIX_FUTURE,      /* valid past the latest (VALUE) checkpoint: invalidated */
	NLFS_CP_FIX_CNO,         /* cp_cno (VALUE: what it said) set to the entry's checkpoint */
	NLFS_CP_FIX_FLAGS,       /* unknown flags (VALUE) cleared */
	NLFS_CP_FIX_IFILE,       /* ifile inode (VALUE: links << 16 | mode) made a regular file's */
	NLFS_CP_FIX_SNAPSHOT,    /* named by the snapshot list, flag clear: flag set */
	NLFS_CP_FIX_LIST,        /* the snapshot list relinked over its VALUE snapshots */
	NLFS_CP_FIX_BLOCK,       /* cpfile block VALUE had no valid checkpoint: dropped */
};
typedef void (*nlfs_cp_fix_cb)(void *arg, enum nlfs_cp_fix what, uint64_t cno, uint64_t value);
/* 0; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_mend_cpfile(struct nlfs_writer *w, nlfs_cp_fix_cb cb, void *arg,
			    struct nlfs_err *err);
/* write/sb_fix.c: the superblock the construction writes to both copies:
 * state bits CLEAR cleared; s_dev_size set to the device's size (false,
 * and nothing changed, if the segments do not all fit in the device) */
void nlfs_writer_sb_state(struct nlfs_writer *w, uint16_t clear);
bool nlfs_writer_sb_devsize(struct nlfs_writer *w);
/* write/sufile_fix.c: segment SEGNUM's usage set to FLAGS and NBLOCKS (a
 * clean entry, FLAGS 0, is zeroed; a segment made dirty keeps its su_lastmod,
 * or gets the construction's time); then nlfs_writer_fix_sufile recounts.
 * 0; -ERANGE for a segment the volume does not have; as nlfs_file_read_block;
 * -ENOMEM. */
int nlfs_writer_set_segusage(struct nlfs_writer *w, uint64_t segnum, uint32_t flags,
			     uint32_t nblocks, struct nlfs_err *err);
/* the latest checkpoint's inode and block counts, as counted: the new
 * checkpoint's counts are these plus what the construction changes */
void nlfs_writer_set_counts(struct nlfs_writer *w, uint64_t ninodes, uint64_t nblocks);
/* cp_count.c: every checkpoint's block count recounted from its files;
 * the wrong ones are set right in one construction (a new checkpoint,
 * which carries the latest one's right count on).  FS must be open on a
 * writable io. */
struct nlfs_recount {
	uint64_t ncheckpoints;   /* counted */
	uint64_t nwrong;         /* whose cp_blocks_count was set right */
	uint64_t latest_was, latest_counted;
	uint64_t written_cno;    /* the construction's checkpoint; 0 if none was needed */
};
/* 0; as nlfs_cp_count_blocks, nlfs_writer_open and nlfs_writer_commit. */
int nlfs_recount_blocks(struct nlfs_fs *fs, uint64_t now, struct nlfs_recount *rs,
			struct nlfs_err *err);
/* Before rewriting existing file INO (a directory being mended): its
 * blocks stop at this checkpoint (older ones keep them).  Its new blocks
 * then follow as for a new file (nlfs_writer_file_begin ... _end).
 * 0; -EINVAL for a reserved inode; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_file_replace(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err);

/* write/map_fix.c: block maps and DAT entries */
/* inode INO as the construction has it, without marking its block for
 * writing.  0; -ENOENT if it is not in use; as nlfs_file_read_block;
 * -ENOMEM. */
int nlfs_writer_peek_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_inode *inode,
			   struct nlfs_err *err);
/* VBN's entry as the construction has it, allocated (*ALLOCATED) or not.  0; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_peek_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_datinfo *e,
			    bool *allocated, struct nlfs_err *err);
/* VBN's entry set to these (host-endian) values and marked in use.  0; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_set_vblock(struct nlfs_writer *w, uint64_t vbn, uint64_t blocknr, uint64_t start,
			   uint64_t end, struct nlfs_err *err);
/* VBN's entry freed (nothing if it is free already).  0; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_free_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err);
/* DAT block BLKOFF written anew by this construction, as it is.  0; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_dat_rewrite_block(struct nlfs_writer *w, uint64_t blkoff, struct nlfs_err *err);
/* The block map of existing file INO replaced by N (offset, vblocknr)
 * pairs in ascending offset order, whose data blocks stay where they are
 * (their DAT entries are the caller's).  New node blocks are written,
 * i_bmap and i_blocks set; OLD_NBLOCKS is what the file counted before,
 * taken off the checkpoint's block count.  The old nodes' entries are the
 * caller's to end.
 * 0; -EINVAL for a reserved inode or keys out of order; -ENOSPC; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_file_remap(struct nlfs_writer *w, uint64_t ino, const uint64_t *keys,
			   const uint64_t *ptrs, size_t n, uint64_t old_nblocks,
			   struct nlfs_err *err);

/* the DAT's, cpfile's and sufile's inodes (written into the super root)
 * made regular files with a link, as the kernel loads them */
void nlfs_writer_fix_mdt_inodes(struct nlfs_writer *w, uint64_t *nfixed);
/* A block of a segment being given up, moved into the construction with
 * its virtual block and DAT period kept (only the address changes), as the
 * cleaner moves it; INO, CNO, BLKOFF and LEVEL go into the new summary.
 * A cpfile or sufile block is written again instead (a new virtual block,
 * as every construction writes those files; a node with the new tree). 
 * 0; -EINVAL for a DAT block (the DAT is rewritten, not moved); a negative
 * errno from the io; -ENOMEM. */
int nlfs_writer_move_block(struct nlfs_writer *w, uint64_t ino, uint64_t cno, uint64_t vbn,
			   uint64_t blkoff, unsigned level, uint64_t block, struct nlfs_err *err);
/* SEGNUM is clean in the new sufile (its blocks moved or dead).  0 (also
 * for one given up already); -EBUSY for the segments the writer itself
 * uses; -ENOMEM. */
int nlfs_writer_release_segment(struct nlfs_writer *w, uint64_t segnum, struct nlfs_err *err);
/* The construction goes elsewhere than SEGNUM (the segment the volume
 * writes into next, or the one reserved after it), so that SEGNUM can be
 * released: the chain's next segment, else a new one (its sequence number
 * skipped, as keep_below does for a shrink).  0 (also when the writer does
 * not use SEGNUM); -EBUSY once the construction has begun a log; as
 * nlfs_suw_alloc (-ENOSPC: no clean segment). */
int nlfs_writer_leave_segment(struct nlfs_writer *w, uint64_t segnum, struct nlfs_err *err);
#endif /* NLFS_REPAIR_H */
