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

/* Writes in place, outside a construction: the superblocks (nilfs-tune,
 * resize, fsck's marks) and stale logs the kernel's chain would take up
 * (rollback, the writer's end of chain).  The reading layers declare
 * none of them (nlfs.h). */
/* sb_rewrite.c: change fields of both copies in place (nilfs-tune).  EDIT
 * is called on each valid copy (it may refuse with a negative error, and
 * then nothing is written); the CRCs are recomputed and the copy the kernel
 * does not use is written first.  CHOICE tells which copies there were. */
typedef int (*nlfs_sb_edit_fn)(struct nlfs_super_block *sb, void *arg, struct nlfs_err *err);
/* 0; as nlfs_sb_read_both; what EDIT returns; a negative errno from the io. */
int nlfs_sb_rewrite(struct nlfs_io *io, nlfs_sb_edit_fn edit, void *arg,
		    struct nlfs_sb_choice *choice, struct nlfs_err *err);

/* After a resize to FS_SIZE bytes on a larger device: the valid secondary
 * at FS_SIZE's end is copied to the device's end, where the kernel's next
 * mount looks for it (nothing to do if the two places are one).
 * 0; a negative errno from the io. */
int nlfs_sb_mirror_secondary(struct nlfs_io *io, uint64_t fs_size, struct nlfs_err *err);
/* When no valid secondary is at the device's end (a volume smaller than its
 * device), a copy of the volume's newest superblock is written there: the
 * primary, or the secondary at the volume's own end if it is newer (the
 * kernel's last write went there).
 * 0; as nlfs_sb_read_both; a negative errno from the io. */
int nlfs_sb_fill_secondary(struct nlfs_io *io, struct nlfs_err *err);

/* log_invalidate.c: if block AT.pos holds a log summary with sequence
 * AT.seq (a stale log the chain would take up), zero that block and flush;
 * *INVALIDATED tells whether it did.  0 or a negative errno (context in
 * ERR). */
int nlfs_log_invalidate_at(struct nlfs_io *io, uint32_t blocksize, struct nlfs_chain_pos at,
			   bool *invalidated, struct nlfs_err *err);
/* The chain ended after a log that ends just before block END (sequence
 * SEQ, ss_next segment NEXTSEG): no stale log may go on where it goes on,
 * nor at the head of NEXTSEG, where the kernel's search goes when the rest
 * of the segment holds no log.  *NINVALIDATED: the blocks zeroed.  0 or a
 * negative errno from the io (context in ERR). */
int nlfs_log_end_chain(struct nlfs_io *io, const struct nlfs_geometry *g, uint64_t end,
		       uint64_t seq, uint64_t nextseg, unsigned *ninvalidated, struct nlfs_err *err);

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
 * that is too small, *MIN_BYTES (if not NULL) tells the size needed.
 * 0; -EINVAL for parameters out of range; -ENOSPC for a device too small. */
int nlfs_mkfs_superblock(const struct nlfs_mkfs_params *p, struct nlfs_super_block *sb,
			 uint64_t *min_bytes, struct nlfs_err *err);

struct nlfs_writer;

/* A new volume on IO, described by SB; its first construction is checkpoint 1.
 * The old superblocks are invalidated before anything else is written.
 * 0; a negative errno from the io; -ENOMEM. */
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
 * Without NLFS_WRITER_REPAIR the volume must pass nlfs_fs_vet first
 * (unless the caller skipped it).
 * 0; -EBUSY for a volume not cleanly unmounted (or with logs after its
 * super root) that FLAGS do not accept; -NLFS_EDAMAGED (nlfs_fs_vet);
 * -NLFS_ECORRUPT or a negative errno from reading the metadata files; -ENOMEM. */
#define NLFS_WRITER_REPAIR 0x1u
#define NLFS_WRITER_ROLLFORWARD 0x2u
/* What nlfs_writer_open with FLAGS says of a volume not cleanly unmounted,
 * for a command to ask before its first write (nilfs-resize extends an
 * image file first).  0; -EBUSY as nlfs_writer_open. */
int nlfs_writer_check_unmounted(struct nlfs_fs *fs, unsigned flags, struct nlfs_err *err);
int nlfs_writer_open(struct nlfs_fs *fs, uint64_t now, unsigned flags, struct nlfs_writer **out,
		     struct nlfs_err *err);
/* Write the construction and the superblocks.  The handle is spent afterwards.
 * 0; -EINVAL while a file is open; -ENOSPC when no clean segment is left for
 * the logs; -NLFS_ECORRUPT or a negative errno from the io from reading the old
 * state; -ENOMEM.  A failure leaves the old state. */
int nlfs_writer_commit(struct nlfs_writer *w, struct nlfs_err *err);
void nlfs_writer_free(struct nlfs_writer *w);

/* The checkpoint the construction builds. */
uint64_t nlfs_writer_cno(const struct nlfs_writer *w);
/* The volume's geometry. */
const struct nlfs_geometry *nlfs_writer_geometry(const struct nlfs_writer *w);
/* blocks of logs laid out so far in this construction */
uint64_t nlfs_writer_blocks_written(const struct nlfs_writer *w);

/* The next virtual block numbers are looked for from VBN on, wrapping past
 * 2^64 - 1 to the start.  The kernel's allocator may start anywhere in the
 * 64-bit space (its hint follows a file's last block and can wrap); tests
 * use this to make volumes the way it can. */
void nlfs_writer_dat_hint(struct nlfs_writer *w, uint64_t vbn);

/* Inodes of the checkpoint being built.  0; -ENOSPC when no inode number is
 * free; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_new_ino(struct nlfs_writer *w, uint64_t *ino, struct nlfs_err *err);
/* 0; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_put_inode(struct nlfs_writer *w, uint64_t ino, const struct nlfs_inode *inode,
			  struct nlfs_err *err);
/* 0; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_get_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_inode *inode,
			  struct nlfs_err *err);

/* A new file's blocks, in ascending offset order, one file at a time.  End
 * sets i_bmap and i_blocks in INODE and stores it.
 * 0; -EINVAL while another file is open. */
int nlfs_writer_file_begin(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err);
/* 0; -EINVAL out of order or with no file open; -ENOSPC; a negative errno from
 * the io; -ENOMEM. */
int nlfs_writer_file_block(struct nlfs_writer *w, uint64_t blkoff, const void *buf,
			   struct nlfs_err *err);
/* 0; -EINVAL with no file open; -ENOSPC; a negative errno from the io; -ENOMEM. */
int nlfs_writer_file_end(struct nlfs_writer *w, struct nlfs_inode *inode, struct nlfs_err *err);

/* resize_w.c: a construction that changes the volume's size, for the
 * offline nilfs-resize (gc/resize.c).  Open the writer with
 * nlfs_writer_open_within(LIMIT) for a shrink, LIMIT the new segment
 * count: no new log goes past it.  Clean every segment in use past it
 * into the construction (nlfs_writer_gc_segment with a protection that
 * keeps every checkpoint), then set the size: the commit checks the cut
 * is clean and writes the new size with the superblocks.  The device must
 * hold NEW_DEVSIZE bytes. */
/* As nlfs_writer_open. */
int nlfs_writer_open_within(struct nlfs_fs *fs, uint64_t now, uint64_t limit,
			    struct nlfs_writer **out, struct nlfs_err *err);
/* 0; -EINVAL for a writer of a new volume, or a shrink's writer not opened
 * within the new size; -ENOSPC for a size too small for a volume; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_resize(struct nlfs_writer *w, uint64_t new_devsize, struct nlfs_err *err);

/* cpfile_w.c: checkpoint changes (chcp, rmcp) carried by the construction.
 * Setting or clearing a snapshot is idempotent.  0; -ENOENT for a
 * checkpoint that does not exist; -NLFS_ECORRUPT for a broken snapshot
 * list; as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_set_snapshot(struct nlfs_writer *w, uint64_t cno, bool snapshot,
			     struct nlfs_err *err);
/* cp_blocks_count of existing checkpoint CNO set to NBLOCKS (nilfs-tune -O
 * block_count).  0; -ENOENT for a checkpoint that does not exist; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_set_cp_blocks(struct nlfs_writer *w, uint64_t cno, uint64_t nblocks,
			      struct nlfs_err *err);
/* Invalidate the checkpoints in [START, END) that exist.  0; -EBUSY if
 * snapshots were among them (they are kept, the others still deleted) or
 * for the current checkpoint, which cannot be deleted; -EINVAL for an
 * empty range; -NLFS_EDAMAGED for a cpfile block whose count is less than
 * the checkpoints deleted from it or more than it holds (that block is left
 * as it was; the blocks before it are changed, and counted in *NDELETED);
 * as nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_delete_checkpoints(struct nlfs_writer *w, uint64_t start, uint64_t end,
				   uint64_t *ndeleted, struct nlfs_err *err);

/* how many checkpoint changes the construction carries (0: nothing to write) */
uint64_t nlfs_writer_cp_changes(const struct nlfs_writer *w);

/* The construction's own segments: SEGNUM is one the writer uses (its
 * logs go there), or one this construction gave up already (its blocks
 * moved; see nlfs_writer_release_segment, <nlfs/repair.h>).
 * True for those. */
bool nlfs_writer_segment_busy(const struct nlfs_writer *w, uint64_t segnum);
bool nlfs_writer_segment_released(const struct nlfs_writer *w, uint64_t segnum);

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
