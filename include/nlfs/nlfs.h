/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnlfs: the NILFS2 on-disk-format library.  Functions return 0 or a
 * negative error (errno values, or NLFS_E* below for format problems) and
 * never print; the detail of the last failure is kept in struct nlfs_err.
 */
#ifndef NLFS_NLFS_H
#define NLFS_NLFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nlfs/io.h>
#include <nlfs/ondisk.h>

/* Format errors, negative like errno values and outside their range. */
enum {
	NLFS_EBADMAGIC = 1000, /* not a NILFS2 structure */
	NLFS_EBADCRC,          /* checksum mismatch */
	NLFS_ECORRUPT,         /* a field is out of range or inconsistent */
	NLFS_EREVISION,        /* unsupported revision */
	NLFS_EFEATURE,         /* unsupported feature bits */
	NLFS_ENOSR,            /* no valid super root found */
};

/* What went wrong and where.  Unknown locations are NLFS_NOWHERE. */
#define NLFS_NOWHERE UINT64_MAX
struct nlfs_err {
	int code;
	uint64_t block;
	uint64_t ino;
	uint64_t cno;
	char what[160];
};

const char *nlfs_strerror(int code);

/* array.c: make room for NEED elements of ELEM bytes in *ARR (room for
 * *CAP), doubling from 8.  0, or -ENOMEM with *ARR and *CAP unchanged. */
int nlfs_grow(void **arr, size_t *cap, size_t need, size_t elem);
void nlfs_err_clear(struct nlfs_err *e);
int nlfs_err_set(struct nlfs_err *e, int code, uint64_t block, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "what (block B, inode I, checkpoint C): reason", into BUF */
void nlfs_err_format(const struct nlfs_err *e, char *buf, size_t len);

/* crc.c: the kernel's crc32_le(seed, ...) (no pre/post inversion) */
uint32_t nlfs_crc32(uint32_t seed, const void *buf, size_t len);

/* sb.c: superblocks */
enum nlfs_sb_slot { NLFS_SB_PRIMARY = 0, NLFS_SB_SECONDARY = 1 };

struct nlfs_sb_status {
	bool read_ok;     /* the bytes could be read */
	bool valid;       /* magic, s_bytes and CRC as the kernel checks them */
	int error;        /* why not valid (0 if valid) */
	uint64_t offset;  /* byte offset on the device */
};

uint64_t nlfs_sb2_offset(uint64_t devsize);
/* the segments a volume of DEVSIZE bytes holds: they end before the
 * secondary superblock's 4 KiB slot (mkfs and the kernel's resize) */
uint64_t nlfs_nsegments_for(uint64_t devsize, uint32_t blocksize, uint32_t blocks_per_segment);
/* segments kept clean for the cleaner: PERCENTAGE of NSEGMENTS, rounded
 * up, at least NLFS_MIN_NRSVSEGS */
uint64_t nlfs_nrsvsegs(uint32_t percentage, uint64_t nsegments);
uint32_t nlfs_sb_crc(const struct nlfs_super_block *sb);
/* magic, s_bytes bounds and CRC: what makes a copy "valid" for the kernel */
int nlfs_sb_check_crc(const struct nlfs_super_block *sb);
/* geometry and field sanity as the kernel checks at mount */
int nlfs_sb_check_geometry(const struct nlfs_super_block *sb, uint64_t devsize,
			   struct nlfs_err *err);
/* recompute s_sum in place */
void nlfs_sb_update_crc(struct nlfs_super_block *sb);

struct nlfs_sb_choice {
	struct nlfs_sb_status status[2];
	enum nlfs_sb_slot used;
	const char *reason;   /* why that copy was chosen */
};
/* Read both copies and choose one as the kernel's mount does. */
int nlfs_sb_read_both(struct nlfs_io *io, struct nlfs_super_block sb[2],
		      struct nlfs_sb_choice *choice, struct nlfs_err *err);

/* sb_rewrite.c: change fields of both copies in place (nilfs-tune).  EDIT
 * is called on each valid copy (it may refuse with a negative error, and
 * then nothing is written); the CRCs are recomputed and the copy the kernel
 * does not use is written first.  CHOICE tells which copies there were. */
typedef int (*nlfs_sb_edit_fn)(struct nlfs_super_block *sb, void *arg, struct nlfs_err *err);
int nlfs_sb_rewrite(struct nlfs_io *io, nlfs_sb_edit_fn edit, void *arg,
		    struct nlfs_sb_choice *choice, struct nlfs_err *err);

/* After a resize to FS_SIZE bytes on a larger device: the valid secondary
 * at FS_SIZE's end is copied to the device's end, where the kernel's next
 * mount looks for it (nothing to do if the two places are one). */
int nlfs_sb_mirror_secondary(struct nlfs_io *io, uint64_t fs_size, struct nlfs_err *err);
/* When no valid secondary is at the device's end (a volume smaller than its
 * device), a copy of the superblock in use is written there. */
int nlfs_sb_fill_secondary(struct nlfs_io *io, struct nlfs_err *err);

/* summary.c: partial-segment (log) summaries */
struct nlfs_log {
	uint64_t start;        /* block number of the summary block */
	uint64_t seq, create, next, cno;
	uint32_t nblocks, nfinfo, sumbytes;
	uint16_t flags;
	uint32_t datasum, sumsum;
	bool datasum_checked;  /* false after NLFS_LOG_READ_SUMMARY_ONLY */
	bool datasum_ok, sumsum_ok;
};

/* Decode the header in the first summary block; checks magic and bounds only. */
int nlfs_summary_decode(const void *block, uint32_t blocksize, uint64_t start,
			struct nlfs_log *log, struct nlfs_err *err);

/* Walk the finfo/binfo records of a summary area (SUMBYTES of BUF).
 * The callback gets each file and its binfos (raw, 8 or 16 bytes each,
 * see nlfs_binfo_size); a non-zero return stops the walk. */
struct nlfs_finfo_rec {
	uint64_t ino, cno;
	uint32_t nblocks, ndatablk;
	uint64_t first_block;   /* payload block number of its first block */
};
struct nlfs_binfo_rec {
	uint32_t index;         /* within the file's blocks */
	bool is_data;
	uint64_t block;         /* where this block sits in the log */
	uint64_t vblocknr;      /* non-DAT files */
	uint64_t blkoff;        /* data blocks, and DAT nodes (their key) */
	uint8_t level;          /* DAT nodes */
};
typedef int (*nlfs_finfo_cb)(const struct nlfs_finfo_rec *fi,
			     const struct nlfs_binfo_rec *bi, void *arg);
int nlfs_summary_walk(const struct nlfs_log *log, const void *summary,
		      uint32_t blocksize, nlfs_finfo_cb cb, void *arg,
		      struct nlfs_err *err);
uint32_t nlfs_summary_blocks(const struct nlfs_log *log, uint32_t blocksize);

/* fs.c: the filesystem handle */
struct nlfs_fs;

struct nlfs_geometry {
	uint32_t blocksize;
	uint32_t blocks_per_segment;
	uint64_t nsegments;
	uint64_t first_data_block;
	uint64_t devsize;
	uint32_t inode_size;
};

/* Open for reading: superblocks, then the latest super root. */
int nlfs_fs_open(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err);
/* Superblocks and geometry only, no super-root search: for reading the logs
 * of a volume the kernel has mounted and is writing (nlfs_log_read and
 * nlfs_segment_walk work; the metadata-file functions must not be called). */
int nlfs_fs_open_sb(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err);
void nlfs_fs_close(struct nlfs_fs *fs);   /* also closes the io */
/* free the handle and hand its io back, still open */
struct nlfs_io *nlfs_fs_release(struct nlfs_fs *fs);
struct nlfs_io *nlfs_fs_io(struct nlfs_fs *fs);
const struct nlfs_super_block *nlfs_fs_sb(const struct nlfs_fs *fs, enum nlfs_sb_slot slot);
const struct nlfs_sb_choice *nlfs_fs_sb_choice(const struct nlfs_fs *fs);
const struct nlfs_geometry *nlfs_fs_geometry(const struct nlfs_fs *fs);
uint64_t nlfs_seg_start(const struct nlfs_geometry *g, uint64_t segnum);
uint64_t nlfs_seg_end(const struct nlfs_geometry *g, uint64_t segnum);
/* Where the kernel's log chain goes on after a log that ends just before
 * block END with sequence SEQ and ss_next segment NEXTSEG: the block it
 * reads next and the sequence number it expects there. */
struct nlfs_chain_pos {
	uint64_t pos, seq;
};
struct nlfs_chain_pos nlfs_chain_next(const struct nlfs_geometry *g, uint64_t end,
				      uint64_t seq, uint64_t nextseg);
/* log_invalidate.c: if block AT.pos holds a log summary with sequence
 * AT.seq (a stale log the chain would take up), zero that block and flush;
 * *INVALIDATED tells whether it did.  0 or a negative errno (context in
 * ERR). */
int nlfs_log_invalidate_at(struct nlfs_io *io, uint32_t blocksize, struct nlfs_chain_pos at,
			   bool *invalidated, struct nlfs_err *err);
/* The chain ended after a log that ends just before block END (sequence
 * SEQ, ss_next segment NEXTSEG): no stale log may go on where it goes on,
 * nor at the head of NEXTSEG, where the kernel's search goes when the rest
 * of the segment holds no log.  *NINVALIDATED: the blocks zeroed. */
int nlfs_log_end_chain(struct nlfs_io *io, const struct nlfs_geometry *g, uint64_t end,
		       uint64_t seq, uint64_t nextseg, unsigned *ninvalidated, struct nlfs_err *err);

/* Read one log at block START (header, both CRCs, bounds inside its segment).
 * SUMMARY, if not NULL, receives a malloc'd copy of the summary area. */
int nlfs_log_read(struct nlfs_fs *fs, uint64_t start, struct nlfs_log *log,
		  void **summary, struct nlfs_err *err);
/* The same with FLAGS: NLFS_LOG_READ_SUMMARY_ONLY reads the summary blocks
 * alone and leaves ss_datasum unverified (datasum_checked false), for a
 * check of the metadata that need not read every data block. */
#define NLFS_LOG_READ_SUMMARY_ONLY 1u
int nlfs_log_read_flags(struct nlfs_fs *fs, uint64_t start, struct nlfs_log *log,
			void **summary, unsigned flags, struct nlfs_err *err);

/* A super root block: sr_bytes bounds and sr_sum, as the kernel checks it. */
int nlfs_super_root_check(const void *block, uint32_t blocksize, uint32_t seed,
			  uint32_t inode_size, uint64_t blocknr, struct nlfs_err *err);

/* The result of the kernel's super-root search. */
struct nlfs_recovery {
	uint64_t sr_log;        /* start of the log holding the latest super root */
	uint64_t sr_block;      /* the super root's block */
	uint64_t sr_seq, cno;   /* its segment seq; the checkpoint it commits */
	uint64_t next_pseg;     /* where the kernel would write next */
	uint64_t next_seq;
	uint64_t nlogs_scanned;
	uint64_t nlogs_after_sr; /* valid logs after the last super root */
	/* what the kernel's roll-forward would replay: complete data-sync
	 * logical segments after the super root, and their newest blocks
	 * (the reader shows them in the latest checkpoint) */
	uint64_t rf_logical_segments, rf_blocks;
	bool from_other_sb;     /* the kernel's fallback to the other copy was taken */
};
const struct nlfs_recovery *nlfs_fs_recovery(const struct nlfs_fs *fs);
/* The super root's raw block (blocksize bytes). */
const uint8_t *nlfs_fs_super_root(const struct nlfs_fs *fs);
/* One of the three root metadata-file inodes inside the super root. */
const struct nlfs_inode *nlfs_fs_sr_inode(const struct nlfs_fs *fs, unsigned ino);

/* Visit each log of the chain from the superblock cursor as the kernel's
 * search walks it (valid logs only; stops at the first gap). */
typedef int (*nlfs_log_cb)(const struct nlfs_log *log, const void *summary, void *arg);
int nlfs_fs_walk_chain(struct nlfs_fs *fs, nlfs_log_cb cb, void *arg, struct nlfs_err *err);

/* The logs the chain goes on with past the cursor's super root, and
 * whether they continue its history: the first names a later checkpoint
 * and none was written before the one it follows.  Logs that do not are
 * left from an earlier writer that crashed before its superblocks (see
 * nlfs_log_invalidate_at).  0 or a negative errno. */
struct nlfs_chain_tail {
	uint64_t nlogs;               /* valid logs after the cursor's log */
	struct nlfs_chain_pos first;  /* where the first of them is */
	uint64_t first_cno;           /* the checkpoint it names */
	bool continues;
};
int nlfs_fs_chain_tail(struct nlfs_fs *fs, struct nlfs_chain_tail *tail, struct nlfs_err *err);

/* The kernel's recovery at mount on a volume not cleanly unmounted with no
 * log after its latest super root: both superblocks point at the super root
 * nlfs_fs_recovery names (past a stale cursor) and say cleanly unmounted,
 * the copy not in use written first.  FS's io must be open for writing;
 * -EBUSY if logs follow the super root (a roll-forward construction takes
 * those up, see nlfs_writer_roll_forward). */
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
int nlfs_rollback_find(struct nlfs_fs *fs, struct nlfs_rollback *rb, struct nlfs_err *err);
/* Point both superblock copies at RB (secondary first; each flushed), all
 * else kept.  A bad copy is rewritten from the one in use. */
int nlfs_rollback_write(struct nlfs_fs *fs, const struct nlfs_rollback *rb, struct nlfs_err *err);

/* Files: any file of a checkpoint is read through its inode's bmap. */
/* Whether an inode of MODE keeps a block map in i_bmap (regular files,
 * directories and symbolic links); the other types keep a device number
 * or nothing there. */
static inline bool nlfs_mode_has_map(uint16_t mode)
{
	uint16_t t = mode & NLFS_S_IFMT;

	return t == NLFS_S_IFREG || t == NLFS_S_IFDIR || t == NLFS_S_IFLNK;
}

/* A device inode's number in i_bmap[0], in the kernel's new_encode_dev
 * layout: minor bits 0-7, major bits 8-19, minor bits 8-19 at 20-31. */
static inline uint64_t nlfs_dev_encode(uint32_t major, uint32_t minor)
{
	return (minor & 0xffu) | ((uint64_t)major << 8) | ((uint64_t)(minor & ~0xffu) << 12);
}
static inline void nlfs_dev_decode(uint64_t raw, uint32_t *major, uint32_t *minor)
{
	*major = (uint32_t)((raw >> 8) & 0xfff);
	*minor = (uint32_t)((raw & 0xff) | ((raw >> 12) & 0xfff00));
}

struct nlfs_file {
	uint64_t ino;
	uint64_t cno;              /* checkpoint it was read from (0: metadata file) */
	struct nlfs_inode inode;
};

/* bmap.c: direct and B-tree block maps.  Pointers are virtual block
 * numbers except in the DAT, whose pointers are physical. */
int nlfs_bmap_lookup(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
		     uint64_t *ptr, struct nlfs_err *err);
typedef int (*nlfs_bmap_cb)(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg);
/* In key order: every mapped block (level 0) and every node block (level >= 1). */
int nlfs_bmap_iterate(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb,
		      void *arg, struct nlfs_err *err);

/* The offsets of the data blocks, in map order, in a new array *KEYS (to
 * free; it holds what was found before an error, too). */
int nlfs_bmap_keys(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t **keys, size_t *nkeys,
		   struct nlfs_err *err);

/* What a damaged map still holds, for rebuilding it: like
 * nlfs_bmap_iterate, but a node that does not hold up (unreadable, wrong
 * level, child count out of range) is skipped with its subtree and counted
 * in *NBAD, and keys are passed on in whatever order the nodes hold them.
 * Only a negative return from CB (or -ENOMEM) stops the walk. */
int nlfs_bmap_salvage(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb, void *arg,
		      unsigned *nbad);

/* The pointer at LEVEL for KEY, as the kernel's lookup at a level: level 0
 * is the data block of offset KEY (nlfs_bmap_lookup), level L >= 1 the node
 * of level L whose key is KEY.  *PTR is 0 if there is none. */
int nlfs_bmap_lookup_level(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t key,
			   unsigned level, uint64_t *ptr, struct nlfs_err *err);

/* dat.c: virtual-to-physical translation */
int nlfs_dat_lookup(struct nlfs_fs *fs, uint64_t vblocknr, struct nlfs_dat_entry *out,
		    struct nlfs_err *err);
int nlfs_dat_translate(struct nlfs_fs *fs, uint64_t vblocknr, uint64_t *blocknr,
		       struct nlfs_err *err);

/* mdt.c: file blocks; *hole is set for an unmapped block (BUF zeroed) */
int nlfs_file_read_block(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			 void *buf, bool *hole, struct nlfs_err *err);
/* Where block BLKOFF of the file lies on the device (*BLOCKNR, 0 for a
 * hole): the block nlfs_file_read_block reads, for a reader that moves the
 * device's bytes itself (nilfs-fuse splices them to the kernel) */
int nlfs_file_block_where(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			  uint64_t *blocknr, struct nlfs_err *err);
/* One past the last block the file maps (its map's, or one roll-forward
 * puts back), 0 for none: a walk over a file's blocks stops there, not at
 * i_size, which a damaged inode may set to anything */
int nlfs_file_mapped_end(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t *end,
			 struct nlfs_err *err);
/* the block's physical address, translating through the DAT (0 for a hole) */
int nlfs_file_block_addr(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t ptr,
			 uint64_t *blocknr, struct nlfs_err *err);
/* root metadata file (DAT, cpfile, sufile) from the super root */
void nlfs_fs_mdt_file(const struct nlfs_fs *fs, unsigned ino, struct nlfs_file *f);

/* format/palloc_layout.c: where entry NR of a palloc file (DAT, ifile) lives */
void nlfs_palloc_locate(uint32_t blocksize, uint32_t entry_size, uint64_t nr,
			uint64_t *blkoff, uint32_t *byteoff);
uint64_t nlfs_palloc_bitmap_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group);
uint64_t nlfs_palloc_desc_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group);
/* groups a palloc file reaches when its last mapped block is LAST_BLKOFF */
uint64_t nlfs_palloc_ngroups(uint32_t blocksize, uint32_t entry_size, uint64_t last_blkoff);
/*
 * The groups that the mapped blocks KEYS (any order) of a palloc file fall
 * in, ascending and each once, in a new array *GROUPS (to free): a
 * descriptor block counts for every group it describes, a bitmap or entry
 * block for its own.  The groups cover the whole 64-bit entry space (the
 * kernel's DAT allocates anywhere in it), so a file is walked by its blocks,
 * never by a count of groups.  Keys past the last group are left out and
 * counted in *NBEYOND.  0 or -ENOMEM.
 */
int nlfs_palloc_groups_of(uint32_t blocksize, uint32_t entry_size, const uint64_t *keys,
			  size_t nkeys, uint64_t **groups, size_t *ngroups, uint64_t *nbeyond);
/* One group's descriptor (pg_nfrees) and bitmap block.  DESC and BITMAP are
 * the caller's blocksize buffers; set DESC_BLKOFF to UINT64_MAX before the
 * first call (the descriptor block is then kept for the next groups).  A hole
 * reads as zeros and sets the matching *_hole flag (read/palloc_group.c). */
struct nlfs_palloc_group {
	uint8_t *desc, *bitmap;
	uint32_t nfrees;
	bool desc_hole, bitmap_hole;
	uint64_t desc_blkoff;
};
int nlfs_palloc_read_group(struct nlfs_fs *fs, const struct nlfs_file *f, uint32_t entry_size,
			   uint64_t group, struct nlfs_palloc_group *out, struct nlfs_err *err);

/* cpfile.c */
int nlfs_cpfile_header(struct nlfs_fs *fs, struct nlfs_cpfile_header *out, struct nlfs_err *err);
/* checkpoint CNO (0 = the latest); -ENOENT if it does not exist */
int nlfs_cpfile_get(struct nlfs_fs *fs, uint64_t cno, struct nlfs_checkpoint *out,
		    struct nlfs_err *err);

/* sufile.c: per-segment usage; a hole in the sufile reads as a clean segment */
int nlfs_sufile_header(struct nlfs_fs *fs, struct nlfs_sufile_header *h, struct nlfs_err *err);
int nlfs_sufile_get(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_segment_usage *su,
		    struct nlfs_err *err);
/* N consecutive segments from SEGNUM, each sufile block read once */
int nlfs_sufile_get_many(struct nlfs_fs *fs, uint64_t segnum, size_t n,
			 struct nlfs_segment_usage *su, struct nlfs_err *err);

/* The kernel's view of the checkpoint and segment tables: what a mount of
 * this volume would report through GET_CPSTAT/GET_CPINFO and
 * GET_SUSTAT/GET_SUINFO.  Host-endian. */
struct nlfs_cpstat {
	uint64_t cno;           /* the checkpoint the next log commits (latest + 1) */
	uint64_t ncps;          /* valid checkpoints, snapshots included */
	uint64_t nsss;          /* snapshots */
};
struct nlfs_cpinfo {
	uint32_t flags;         /* NLFS_CHECKPOINT_* */
	uint64_t cno, create, nblk_inc, inodes_count, blocks_count;
	uint64_t next;          /* the next larger snapshot (0: none) */
};
enum nlfs_cpinfo_mode {
	NLFS_CPINFO_CHECKPOINTS = 0,   /* every valid checkpoint from *cno up */
	NLFS_CPINFO_SNAPSHOTS = 1,     /* the snapshot list from *cno (0: its head) */
};
int nlfs_cpfile_stat(struct nlfs_fs *fs, struct nlfs_cpstat *st, struct nlfs_err *err);
/* Up to N entries into CI, *GOT of them; *CNO is moved on so that the next
 * call continues.  CHECKPOINTS needs *cno >= 1 (-EINVAL otherwise); SNAPSHOTS
 * stops at an entry that is not a snapshot, as the kernel does. */
int nlfs_cpfile_list(struct nlfs_fs *fs, uint64_t *cno, enum nlfs_cpinfo_mode mode,
		     struct nlfs_cpinfo *ci, size_t n, size_t *got, struct nlfs_err *err);
/* The same, for many calls in a row: an iterator reads the cpfile's block
 * map once.  It is valid while FS is open and unchanged. */
struct nlfs_cpfile_iter;
int nlfs_cpfile_iter_open(struct nlfs_fs *fs, struct nlfs_cpfile_iter **it,
			  struct nlfs_err *err);
int nlfs_cpfile_iter_list(struct nlfs_cpfile_iter *it, uint64_t *cno,
			  enum nlfs_cpinfo_mode mode, struct nlfs_cpinfo *ci, size_t n,
			  size_t *got, struct nlfs_err *err);
void nlfs_cpfile_iter_close(struct nlfs_cpfile_iter *it);

struct nlfs_sustat {
	uint64_t nsegs, ncleansegs, ndirtysegs;
	uint64_t ctime;         /* creation time of the latest super-root log */
	uint64_t nongc_ctime;   /* sr_nongc_ctime */
	uint64_t prot_seq;      /* segments of this seq and later must not be cleaned */
};
struct nlfs_suinfo {
	uint64_t lastmod;
	uint32_t nblocks;
	uint32_t flags;         /* NLFS_SEGMENT_USAGE_*, ACTIVE as the kernel reports it */
};
int nlfs_sufile_stat(struct nlfs_fs *fs, struct nlfs_sustat *st, struct nlfs_err *err);
/* Usage of segments SEGNUM.. (at most N, never past the last segment).  The
 * on-disk ACTIVE bit is ignored: ACTIVE is set on the two segments the
 * kernel writes into after mounting (nlfs_fs_active_segments). */
int nlfs_sufile_list(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_suinfo *si, size_t n,
		     size_t *got, struct nlfs_err *err);
/* The kernel's current segment (that of the latest super-root log) and the
 * next one it has reserved (that log's ss_next). */
int nlfs_fs_active_segments(struct nlfs_fs *fs, uint64_t seg[2], struct nlfs_err *err);

/* ifile.c: inode INO of the checkpoint whose ifile is IFILE */
int nlfs_ifile_read(struct nlfs_fs *fs, const struct nlfs_file *ifile, uint64_t ino,
		    struct nlfs_file *out, struct nlfs_err *err);
/* every inode whose bitmap bit is set, in inode order (reserved slots skipped);
 * a non-zero return from CB stops the walk and is returned */
typedef int (*nlfs_inode_cb)(const struct nlfs_file *f, void *arg);
int nlfs_ifile_iterate(struct nlfs_fs *fs, const struct nlfs_file *ifile, nlfs_inode_cb cb,
		       void *arg, struct nlfs_err *err);
/* open the checkpoint's ifile (cno 0 = latest) */
int nlfs_fs_ifile(struct nlfs_fs *fs, uint64_t cno, struct nlfs_file *ifile,
		  struct nlfs_err *err);
/* cp_count.c: the block count checkpoint CNO (0 = latest) should keep in
 * cp_blocks_count, counted from its ifile and files (data and B-tree nodes) */
int nlfs_cp_count_blocks(struct nlfs_fs *fs, uint64_t cno, uint64_t *nblocks,
			 struct nlfs_err *err);

/* inode.c: file contents */
int nlfs_file_pread(struct nlfs_fs *fs, const struct nlfs_file *f, void *buf, size_t len,
		    uint64_t off, size_t *done, struct nlfs_err *err);

/* i_blocks of a file that holds NBLOCKS blocks (data and B-tree nodes):
 * the kernel stores 512-byte units, mkfs.nilfs2 stores fs blocks for the
 * inodes it makes, and the kernel keeps adding its own units to those.
 * MAX_FS_UNITS bounds how many blocks may still be counted mkfs's way
 * (0 for inodes the kernel made). */
bool nlfs_inode_blocks_ok(uint64_t i_blocks, uint64_t nblocks, uint32_t blocksize,
			  unsigned max_fs_units);

/* dir.c */
struct nlfs_dir_rec {
	uint64_t ino;
	unsigned rec_len;      /* 65535 on disk reads as 65536 */
	unsigned name_len, file_type;
	const char *name;      /* inside the caller's block, not NUL-terminated */
};
/* Decode the record at byte OFF of a directory block and check it as the
 * kernel does; -NLFS_ECORRUPT with the reason in ERR if it is bad. */
int nlfs_dir_record(const void *block, uint32_t blocksize, unsigned off,
		    struct nlfs_dir_rec *rec, struct nlfs_err *err);
/* A directory block salvaged record by record (fsck.nilfs2), keeping every
 * record that holds up.  The record at OFF is SOUND (as nlfs_dir_record
 * finds it), MENDED (its entry is readable but a length was wrong: *REC
 * holds it with rec_len or name_len set right; the bytes it then covers
 * are slack) or DROPPED (nothing in it can be kept: *REC has what its
 * header says, for the report).  *NEXT is where the next record starts:
 * past the bad bytes, at the first record from which sound records run
 * to the block end.  *WHY says what was wrong (NULL if SOUND). */
enum nlfs_dir_salvage { NLFS_DIR_SOUND, NLFS_DIR_MENDED, NLFS_DIR_DROPPED };
enum nlfs_dir_salvage nlfs_dir_salvage(const void *block, uint32_t blocksize, unsigned off,
				       struct nlfs_dir_rec *rec, unsigned *next, const char **why);
/* inode numbers a directory entry may not name (below 11, except 2 and 10) */
bool nlfs_dir_private_ino(uint64_t ino);
typedef int (*nlfs_dir_cb)(const char *name, unsigned name_len, uint64_t ino,
			   unsigned file_type, void *arg);
int nlfs_dir_iterate(struct nlfs_fs *fs, const struct nlfs_file *dir, nlfs_dir_cb cb,
		     void *arg, struct nlfs_err *err);
/* resolve an absolute PATH in the checkpoint of IFILE (no symlinks followed) */
int nlfs_path_lookup(struct nlfs_fs *fs, const struct nlfs_file *ifile, const char *path,
		     struct nlfs_file *out, struct nlfs_err *err);

/* segment.c: what the cleaner sees in a segment */
/* The logs of segment SEGNUM within its first NBLOCKS blocks (su_nblocks),
 * the way the cleaner reads them: each needs the summary magic and a good
 * ss_sumsum, and the walk ends at the first log that has not.  CB gets each
 * finfo/binfo as nlfs_summary_walk gives them.  *SEQ, if not NULL, receives
 * the ss_seq field of the segment's first block, unchecked.  Whether a block
 * is live is nlfs_gc_block_live's (<nlfs/gc.h>). */
int nlfs_segment_walk(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks, uint64_t *seq,
		      nlfs_finfo_cb cb, void *arg, struct nlfs_err *err);
/* The same, for a caller that must see every block (the offline cleaner):
 * a log inside NBLOCKS that does not check out is an error. */
int nlfs_segment_walk_all(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks,
			  nlfs_finfo_cb cb, void *arg, struct nlfs_err *err);

/* The same as the online cleaner reads a segment it will have the kernel
 * free: besides, every log carries the first log's sequence number (in
 * *SEQ, if not NULL) and the logs cover NBLOCKS exactly (NLFS_ECORRUPT
 * otherwise, the reason in ERR). */
int nlfs_segment_walk_exact(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks,
			    uint64_t *seq, nlfs_finfo_cb cb, void *arg, struct nlfs_err *err);
/* The sequence number of the log at the start of segment SEGNUM, whose
 * summary must decode (magic, sizes; NLFS_ECORRUPT or NLFS_EBADMAGIC). */
int nlfs_segment_seq(struct nlfs_fs *fs, uint64_t segnum, uint64_t *seq, struct nlfs_err *err);

/* How far the logs of segment SEGNUM reach from its start (*NBLOCKS):
 * consecutive logs with a good summary and the first one's sequence, read
 * to the end of the segment whatever su_nblocks says. */
int nlfs_segment_logs_end(struct nlfs_fs *fs, uint64_t segnum, uint32_t *nblocks,
			  struct nlfs_err *err);

/* (int64_t)(a - b) >= 0: sequence numbers compared across a wrap */
static inline bool nlfs_seq_ge(uint64_t a, uint64_t b) { return (int64_t)(a - b) >= 0; }

#endif /* NLFS_NLFS_H */
