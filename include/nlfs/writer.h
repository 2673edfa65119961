/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log writer.  One construction builds one checkpoint: new files are
 * streamed in, then commit writes the metadata files (ifile, cpfile,
 * sufile, DAT) and a super root, flushes, and only then updates both
 * superblocks.  Logs go only to space the old state does not use, so a
 * crash at any write leaves the old state or the new one.
 *
 * Inodes passed in and out are in on-disk (little-endian) form.
 */
#ifndef NLFS_WRITER_H
#define NLFS_WRITER_H

#include <nlfs/nlfs.h>

/* mkfs_sb.c: the superblock of a new volume */
struct nlfs_mkfs_params {
	uint32_t blocksize;              /* 1024 .. 65536, a power of two */
	uint32_t blocks_per_segment;     /* >= 16 */
	uint32_t r_segments_percentage;  /* 1 .. 99 */
	uint64_t devsize;                /* bytes */
	uint64_t ctime;                  /* seconds */
	uint8_t uuid[16];
	char label[NLFS_VOLUME_NAME_LEN];
	uint64_t feature_compat_ro;
};
#define NLFS_DEF_BLOCKSIZE          4096u
#define NLFS_DEF_BLOCKS_PER_SEGMENT 2048u
#define NLFS_DEF_RESERVED_PERCENT   5u

/* Validate the parameters and build the superblock (no I/O).  On a device
 * that is too small, *MIN_BYTES (if not NULL) tells the size needed. */
int nlfs_mkfs_superblock(const struct nlfs_mkfs_params *p, struct nlfs_super_block *sb,
			 uint64_t *min_bytes, struct nlfs_err *err);

struct nlfs_writer;

/* A new volume on IO, described by SB; its first construction is checkpoint 1.
 * The old superblocks are invalidated before anything else is written. */
int nlfs_writer_create(struct nlfs_io *io, const struct nlfs_super_block *sb,
		       struct nlfs_writer **out, struct nlfs_err *err);
/* The next checkpoint of an existing volume (FS opened on a writable io).
 * FLAGS: 0, or these:
 * NLFS_WRITER_REPAIR: fsck's construction.  A volume the kernel did not
 * unmount cleanly is accepted (if no logs wait to be rolled forward), and
 * the superblocks are marked valid when it commits.
 * NLFS_WRITER_ROLLFORWARD: logs after the latest super root are accepted;
 * the construction starts after them (nlfs_writer_roll_forward replays
 * what the kernel would).
 * 0; -EBUSY for a volume not cleanly unmounted (or with logs after its
 * super root) that FLAGS do not accept; NLFS_ECORRUPT or a negative errno
 * from reading the metadata files; -ENOMEM. */
#define NLFS_WRITER_REPAIR 0x1u
#define NLFS_WRITER_ROLLFORWARD 0x2u
int nlfs_writer_open(struct nlfs_fs *fs, uint64_t now, unsigned flags, struct nlfs_writer **out,
		     struct nlfs_err *err);
/* Write the construction and the superblocks.  The handle is spent afterwards. */
int nlfs_writer_commit(struct nlfs_writer *w, struct nlfs_err *err);
void nlfs_writer_free(struct nlfs_writer *w);

uint64_t nlfs_writer_cno(const struct nlfs_writer *w);
const struct nlfs_geometry *nlfs_writer_geometry(const struct nlfs_writer *w);
/* blocks of logs laid out so far in this construction */
uint64_t nlfs_writer_blocks_written(const struct nlfs_writer *w);

/* The next virtual block numbers are looked for from VBN on, wrapping past
 * 2^64 - 1 to the start.  The kernel's allocator may start anywhere in the
 * 64-bit space (its hint follows a file's last block and can wrap); tests
 * use this to make volumes the way it can. */
void nlfs_writer_dat_hint(struct nlfs_writer *w, uint64_t vbn);

/* Inodes of the checkpoint being built */
int nlfs_writer_new_ino(struct nlfs_writer *w, uint64_t *ino, struct nlfs_err *err);
int nlfs_writer_put_inode(struct nlfs_writer *w, uint64_t ino, const struct nlfs_inode *inode,
			  struct nlfs_err *err);
int nlfs_writer_get_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_inode *inode,
			  struct nlfs_err *err);

/* A new file's blocks, in ascending offset order, one file at a time.  End
 * sets i_bmap and i_blocks in INODE and stores it. */
int nlfs_writer_file_begin(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err);
int nlfs_writer_file_block(struct nlfs_writer *w, uint64_t blkoff, const void *buf,
			   struct nlfs_err *err);
int nlfs_writer_file_end(struct nlfs_writer *w, struct nlfs_inode *inode, struct nlfs_err *err);

/* cpfile_w.c: checkpoint changes (chcp, rmcp) carried by the construction.
 * Setting or clearing a snapshot is idempotent; -ENOENT for a checkpoint
 * that does not exist. */
int nlfs_writer_set_snapshot(struct nlfs_writer *w, uint64_t cno, bool snapshot,
			     struct nlfs_err *err);
/* cp_blocks_count of existing checkpoint CNO set to NBLOCKS (nilfs-tune -O
 * block_count); -ENOENT for a checkpoint that does not exist */
int nlfs_writer_set_cp_blocks(struct nlfs_writer *w, uint64_t cno, uint64_t nblocks,
			      struct nlfs_err *err);
/* Invalidate the checkpoints in [START, END) that exist.  Snapshots are kept
 * and make the result -EBUSY (the others are still deleted); the current
 * checkpoint cannot be deleted (-EBUSY). */
int nlfs_writer_delete_checkpoints(struct nlfs_writer *w, uint64_t start, uint64_t end,
				   uint64_t *ndeleted, struct nlfs_err *err);

/* how many checkpoint changes the construction carries (0: nothing to write) */
uint64_t nlfs_writer_cp_changes(const struct nlfs_writer *w);

/* repair_w.c: repairs (fsck.nilfs2).  Call them right after opening, before
 * anything else uses the writer; *NFIXED is increased by the number of
 * fields changed. */
/* sufile: the header's clean and dirty counts from the entries (and
 * sh_last_alloc if out of range); clean entries lose stale counts */
int nlfs_writer_fix_sufile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err);
/* cpfile: header counts and per-block counts from the entries */
int nlfs_writer_fix_cpfile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err);
/* the group descriptors of the DAT or the ifile (INO) from their bitmaps */
int nlfs_writer_fix_palloc(struct nlfs_writer *w, uint64_t ino, uint64_t *nfixed,
			   struct nlfs_err *err);
/* inode numbers below s_first_ino marked in use */
int nlfs_writer_fix_reserved_inodes(struct nlfs_writer *w, uint64_t *nfixed,
				    struct nlfs_err *err);
/* a live DAT entry no file uses stops at the checkpoint being built */
int nlfs_writer_end_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err);
/* A directory entry names inode INO, free in the ifile bitmap: if its
 * slot still holds a live inode (a file type, links), mark it in use again
 * (*REVIVED).  Only the bitmap bit was lost then, and the file comes back
 * whole. */
int nlfs_writer_revive_inode(struct nlfs_writer *w, uint64_t ino, bool *revived,
			     struct nlfs_err *err);
/* Inode INO (not reserved) cleared: its slot zeroed and freed in the
 * ifile.  Its blocks stay as they are; the caller ends the DAT entries
 * no file uses any more. */
int nlfs_writer_clear_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err);
/* Block BLKOFF dropped from the ifile's map (its DAT entry ends at the new
 * checkpoint: older checkpoints keep it). */
int nlfs_writer_ifile_punch(struct nlfs_writer *w, uint64_t blkoff, struct nlfs_err *err);
/* The kernel's roll-forward, offline (a writer opened with
 * NLFS_WRITER_ROLLFORWARD): every file with blocks in complete data-sync
 * logical segments after the super root is written anew as the reader
 * shows it, those blocks in place and its size grown to cover them. */
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
int nlfs_writer_mend_cpfile(struct nlfs_writer *w, nlfs_cp_fix_cb cb, void *arg,
			    struct nlfs_err *err);
/* repair_sb.c: the superblock the construction writes to both copies:
 * state bits CLEAR cleared; s_dev_size set to the device's size (false,
 * and nothing changed, if the segments do not all fit in the device) */
void nlfs_writer_sb_state(struct nlfs_writer *w, uint16_t clear);
bool nlfs_writer_sb_devsize(struct nlfs_writer *w);
/* repair_sufile.c: segment SEGNUM's usage set to FLAGS and NBLOCKS (a
 * clean entry, FLAGS 0, is zeroed; a segment made dirty keeps its su_lastmod,
 * or gets the construction's time); then nlfs_writer_fix_sufile recounts */
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
int nlfs_recount_blocks(struct nlfs_fs *fs, uint64_t now, struct nlfs_recount *rs,
			struct nlfs_err *err);
/* Before rewriting existing file INO (a directory being mended): its
 * blocks stop at this checkpoint (older ones keep them).  Its new blocks
 * then follow as for a new file (nlfs_writer_file_begin ... _end). */
int nlfs_writer_file_replace(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err);

/* repair_map.c: block maps and DAT entries */
/* inode INO as the construction has it, without marking its block for
 * writing (-ENOENT if it is not in use) */
int nlfs_writer_peek_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_inode *inode,
			   struct nlfs_err *err);
/* VBN's entry as the construction has it, allocated (*ALLOCATED) or not */
int nlfs_writer_peek_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_dat_entry *e,
			    bool *allocated, struct nlfs_err *err);
/* VBN's entry set to these (host-endian) values and marked in use */
int nlfs_writer_set_vblock(struct nlfs_writer *w, uint64_t vbn, uint64_t blocknr, uint64_t start,
			   uint64_t end, struct nlfs_err *err);
/* VBN's entry freed (nothing if it is free already) */
int nlfs_writer_free_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err);
/* DAT block BLKOFF written anew by this construction, as it is */
int nlfs_writer_dat_rewrite_block(struct nlfs_writer *w, uint64_t blkoff, struct nlfs_err *err);
/* The block map of existing file INO replaced by N (offset, vblocknr)
 * pairs in ascending offset order, whose data blocks stay where they are
 * (their DAT entries are the caller's).  New node blocks are written,
 * i_bmap and i_blocks set; OLD_NBLOCKS is what the file counted before,
 * taken off the checkpoint's block count.  The old nodes' entries are the
 * caller's to end. */
int nlfs_writer_file_remap(struct nlfs_writer *w, uint64_t ino, const uint64_t *keys,
			   const uint64_t *ptrs, size_t n, uint64_t old_nblocks,
			   struct nlfs_err *err);

/* the DAT's, cpfile's and sufile's inodes (written into the super root)
 * made regular files with a link, as the kernel loads them */
void nlfs_writer_fix_mdt_inodes(struct nlfs_writer *w, uint64_t *nfixed);
/* A block of a segment being given up, moved into the construction with
 * its virtual block and DAT period kept (only the address changes), as the
 * cleaner moves it; INO, CNO, BLKOFF and LEVEL go into the new summary. */
int nlfs_writer_move_block(struct nlfs_writer *w, uint64_t ino, uint64_t cno, uint64_t vbn,
			   uint64_t blkoff, unsigned level, uint64_t block, struct nlfs_err *err);
/* SEGNUM is clean in the new sufile (its blocks moved or dead); -EBUSY
 * for the segments the writer itself uses */
int nlfs_writer_release_segment(struct nlfs_writer *w, uint64_t segnum, struct nlfs_err *err);
bool nlfs_writer_segment_busy(const struct nlfs_writer *w, uint64_t segnum);
/* SEGNUM was given up by this construction already (its blocks moved) */
bool nlfs_writer_segment_released(const struct nlfs_writer *w, uint64_t segnum);

/* resize_w.c: a construction that changes the volume's size (offline
 * nilfs-resize).  Open the writer with nlfs_writer_open_within(LIMIT) for
 * a shrink, LIMIT the new segment count: no new log goes past it.  Clean
 * every segment in use past it into the construction (nlfs_writer_gc_segment
 * with a protection that keeps every checkpoint), then set the size: the
 * commit checks the cut is clean and writes the new size with the
 * superblocks.  The device must hold NEW_DEVSIZE bytes. */
int nlfs_writer_open_within(struct nlfs_fs *fs, uint64_t now, uint64_t limit,
			    struct nlfs_writer **out, struct nlfs_err *err);
int nlfs_writer_resize(struct nlfs_writer *w, uint64_t new_devsize, struct nlfs_err *err);

/* dirw.c: a new directory's blocks, streamed through the writer, its
 * records packed as the kernel packs them.  Begin starts file INO (as
 * nlfs_writer_file_begin does) with "." and ".." (PARENT) and gives the
 * builder in *OUT; 0, -ENOMEM, or what starting the file returns (*OUT is
 * NULL then). */
struct nlfs_dirw;
int nlfs_dirw_begin(struct nlfs_writer *w, uint64_t ino, uint64_t parent, struct nlfs_dirw **out,
		    struct nlfs_err *err);
/* One record, FILE_TYPE as nlfs_file_type_of_mode gives it.  0;
 * -ENAMETOOLONG for a name of 0 or more than NLFS_NAME_LEN bytes; what
 * writing a full block returns. */
int nlfs_dirw_add(struct nlfs_dirw *d, const char *name, size_t len, uint64_t ino,
		  uint8_t file_type, struct nlfs_err *err);
/* The last block written, i_size set (whole blocks) and the file ended
 * with INODE (nlfs_writer_file_end); D is freed.  0 or what the writer
 * returns. */
int nlfs_dirw_end(struct nlfs_dirw *d, struct nlfs_inode *inode, struct nlfs_err *err);
/* A directory given up after an error: D freed, nothing more written (NULL
 * is allowed). */
void nlfs_dirw_free(struct nlfs_dirw *d);

#endif /* NLFS_WRITER_H */
