/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnlfs: the NILFS2 on-disk-format library.  Functions return 0 or a
 * negative error (errno values, or NLFS_E* below for format problems) and
 * never print; the detail of the last failure is kept in struct nlfs_err.
 * Each function's comment lists what it returns; "as nlfs_foo" stands for
 * the codes nlfs_foo's comment lists, and "a negative errno from the io"
 * for what the backend's read or write gives (-EIO mostly).
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
	NLFS_EDAMAGED,         /* a writer refuses a volume that needs fsck first */
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

/* A static message for CODE, an errno value or NLFS_E* (either sign). */
const char *nlfs_strerror(int code);

/* array.c: make room for NEED elements of ELEM bytes in *ARR (room for
 * *CAP), doubling from 8.  0, or -ENOMEM with *ARR and *CAP unchanged. */
int nlfs_grow(void **arr, size_t *cap, size_t need, size_t elem);
/* qsort for an array that may be empty and never allocated: qsort's base
 * must not be NULL even for no elements. */
void nlfs_sort(void *base, size_t n, size_t elem, int (*cmp)(const void *, const void *));
/* -1, 0 or 1 as the uint64_t at A is below, equal to or above the one at
 * B: for nlfs_sort and bsearch of uint64_t arrays */
int nlfs_cmp_u64(const void *a, const void *b);
/* V[N] sorted, each value kept once: the count kept. */
size_t nlfs_sort_unique_u64(uint64_t *v, size_t n);
/* The index of the first of the N elements of ELEM bytes at BASE (sorted
 * by CMP) that CMP(KEY, element) does not put above KEY: where KEY is, or
 * where it would be (N if past them all). */
size_t nlfs_lower_bound(const void *key, const void *base, size_t n, size_t elem,
			int (*cmp)(const void *key, const void *elem));

/* u64map.c: one hash for 64-bit keys (Fibonacci hashing: the product's
 * high bits are the well mixed ones, folded into the low ones) */
#define NLFS_HASH_MULT 0x9e3779b97f4a7c15ULL   /* 2^64 / the golden ratio */
static inline uint64_t nlfs_hash64(uint64_t key)
{
	uint64_t h = key * NLFS_HASH_MULT;

	return h ^ (h >> 32);
}
/* the slot of KEY in a table of CAP slots, CAP a power of two */
static inline size_t nlfs_hash_slot(uint64_t key, size_t cap)
{
	return (size_t)nlfs_hash64(key) & (cap - 1);
}
/* A map from 64-bit keys to pointers; zero-initialised, it is empty. */
struct nlfs_u64map {
	uint64_t *keys;           /* 0: an empty slot */
	void **vals;
	size_t cap, used;
	bool has_zero;            /* key 0, kept beside the table */
	void *zero_val;
};
/* KEY maps to VAL from now on.  0, or -ENOMEM with M unchanged. */
int nlfs_u64map_put(struct nlfs_u64map *m, uint64_t key, void *val);
/* Whether M holds KEY; its value in *VAL (if VAL is not NULL). */
bool nlfs_u64map_get(const struct nlfs_u64map *m, uint64_t key, void **val);
/* Frees M's table, and each value by FREE_VAL if it is not NULL; M is
 * empty again. */
void nlfs_u64map_free(struct nlfs_u64map *m, void (*free_val)(void *));
void nlfs_err_clear(struct nlfs_err *e);
/* Fills E (if not NULL) with CODE (an errno value or NLFS_E*, either sign),
 * BLOCK and the message; returns the code, negative. */
int nlfs_err_set(struct nlfs_err *e, int code, uint64_t block, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "what (block B, inode I, checkpoint C): reason", into BUF; a location or
 * the reason that WHAT already names is left out */
void nlfs_err_format(const struct nlfs_err *e, char *buf, size_t len);

/* crc.c: the kernel's crc32_le(seed, ...) (no pre/post inversion).  The CRC. */
uint32_t nlfs_crc32(uint32_t seed, const void *buf, size_t len);

/* sb.c: superblocks */
enum nlfs_sb_slot { NLFS_SB_PRIMARY = 0, NLFS_SB_SECONDARY = 1 };

struct nlfs_sb_status {
	bool read_ok;     /* the bytes could be read */
	bool valid;       /* magic, s_bytes and CRC as the kernel checks them */
	int error;        /* why not valid (0 if valid) */
	uint64_t offset;  /* byte offset on the device */
};

/* The byte offset of the secondary superblock on a device of DEVSIZE bytes. */
uint64_t nlfs_sb2_offset(uint64_t devsize);
/* the segments a volume of DEVSIZE bytes holds: they end before the
 * secondary superblock's 4 KiB slot (mkfs and the kernel's resize).
 * The segment count (0 if none fits). */
uint64_t nlfs_nsegments_for(uint64_t devsize, uint32_t blocksize, uint32_t blocks_per_segment);
/* segments kept clean for the cleaner: PERCENTAGE of NSEGMENTS, rounded
 * up, at least NLFS_MIN_NRSVSEGS.
 * The reserved segment count. */
uint64_t nlfs_nrsvsegs(uint32_t percentage, uint64_t nsegments);
/* s_sum as it should be. */
uint32_t nlfs_sb_crc(const struct nlfs_super_block *sb);
/* magic, s_bytes bounds and CRC: what makes a copy "valid" for the kernel.  0;
 * -NLFS_EBADMAGIC, -NLFS_ECORRUPT (s_bytes) or -NLFS_EBADCRC. */
int nlfs_sb_check_crc(const struct nlfs_super_block *sb);
/* geometry and field sanity as the kernel checks at mount.  0; -NLFS_EREVISION,
 * -NLFS_EFEATURE or -NLFS_ECORRUPT, the field in ERR. */
int nlfs_sb_check_geometry(const struct nlfs_super_block *sb, uint64_t devsize,
			   struct nlfs_err *err);
/* recompute s_sum in place */
void nlfs_sb_update_crc(struct nlfs_super_block *sb);
/* The fields both copies must hold alike (all but the log cursor, the
 * free-block hint, the write time and the state, which the kernel writes to
 * one copy at a time): the index of the first at or after FROM in which A
 * and B differ, its name in *FIELD; -1 if none does. */
int nlfs_sb_fixed_differ(const struct nlfs_super_block *a, const struct nlfs_super_block *b,
			 int from, const char **field);
/* Whether the field nlfs_sb_fixed_differ returned as INDEX is one that is
 * changed in place after mkfs, one copy at a time: copies differing there
 * are an interrupted update the kernel mends at its next mount, not damage. */
bool nlfs_sb_field_updated_in_place(int index);

struct nlfs_sb_choice {
	struct nlfs_sb_status status[2];
	enum nlfs_sb_slot used;
	const char *reason;   /* why that copy was chosen */
};
/* Read both copies and choose one as the kernel's mount does.  0 (CHOICE says
 * which copy and why); if neither copy is valid, the first one's reason
 * (-NLFS_EBADMAGIC, -NLFS_EBADCRC, a negative errno from the io); as
 * nlfs_sb_check_geometry for the copy chosen. */
int nlfs_sb_read_both(struct nlfs_io *io, struct nlfs_super_block sb[2],
		      struct nlfs_sb_choice *choice, struct nlfs_err *err);

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

/* Decode the header in the first summary block; checks magic and bounds only.
 * 0; -NLFS_EBADMAGIC or -NLFS_ECORRUPT (ss_bytes). */
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
/* 0; -NLFS_ECORRUPT for records that overrun the summary or the log; the first
 * non-zero return of CB. */
int nlfs_summary_walk(const struct nlfs_log *log, const void *summary,
		      uint32_t blocksize, nlfs_finfo_cb cb, void *arg,
		      struct nlfs_err *err);
/* The blocks ss_sumbytes takes. */
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

/* Open for reading: superblocks, then the latest super root.  0; the
 * superblocks' errors (nlfs_sb_read_both); -NLFS_ENOSR or -NLFS_ECORRUPT from
 * the super-root search; a negative errno from the io; -ENOMEM.  On failure IO
 * stays open and the caller's. */
int nlfs_fs_open(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err);
/* Superblocks and geometry only, no super-root search: for reading the logs
 * of a volume the kernel has mounted and is writing (nlfs_log_read and
 * nlfs_segment_walk work; the metadata-file functions must not be called).
 * 0; as nlfs_sb_read_both; -ENOMEM. */
int nlfs_fs_open_sb(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err);
void nlfs_fs_close(struct nlfs_fs *fs);   /* also closes the io */
/* free the handle and hand its io back, still open.  The io. */
struct nlfs_io *nlfs_fs_release(struct nlfs_fs *fs);
/* The io FS reads. */
struct nlfs_io *nlfs_fs_io(struct nlfs_fs *fs);
/* Cache at most BLOCKS DAT blocks from now on (0, the default: as many as
 * the DAT's size allows), for a reader that gains little from more, such
 * as one that only asks the disk for blocks ahead of another. */
void nlfs_fs_limit_dat_cache(struct nlfs_fs *fs, unsigned blocks);
/* Addresses of virtual blocks the caller has read from this handle's DAT
 * already (fsck keeps most of its entries): nlfs_dat_translate asks
 * KNOWN(ARG, VBLOCKNR, &BLOCKNR) first, and reads the DAT only where it
 * returns false.  KNOWN must give what the DAT holds, never 0.  NULL: none;
 * loading another super root forgets it. */
void nlfs_fs_known_addresses(struct nlfs_fs *fs,
			     bool (*known)(void *arg, uint64_t vblocknr, uint64_t *blocknr),
			     void *arg);
/* Copy SLOT as read (valid or not). */
const struct nlfs_super_block *nlfs_fs_sb(const struct nlfs_fs *fs, enum nlfs_sb_slot slot);
/* Which copy is used and why. */
const struct nlfs_sb_choice *nlfs_fs_sb_choice(const struct nlfs_fs *fs);
/* The geometry of the copy in use. */
const struct nlfs_geometry *nlfs_fs_geometry(const struct nlfs_fs *fs);
/* The first block of segment SEGNUM (segment 0 starts at s_first_data_block). */
uint64_t nlfs_seg_start(const struct nlfs_geometry *g, uint64_t segnum);
/* The last block of segment SEGNUM. */
uint64_t nlfs_seg_end(const struct nlfs_geometry *g, uint64_t segnum);
/* Where the kernel's log chain goes on after a log that ends just before
 * block END with sequence SEQ and ss_next segment NEXTSEG: the block it
 * reads next and the sequence number it expects there. */
struct nlfs_chain_pos {
	uint64_t pos, seq;
};
struct nlfs_chain_pos nlfs_chain_next(const struct nlfs_geometry *g, uint64_t end,
				      uint64_t seq, uint64_t nextseg);
/* Read one log at block START (header, both CRCs, bounds inside its segment).
 * SUMMARY, if not NULL, receives a malloc'd copy of the summary area.
 * FLAGS: NLFS_LOG_READ_SUMMARY_ONLY reads the summary blocks alone and
 * leaves ss_datasum unverified (datasum_checked false), for a check of the
 * metadata that need not read every data block.  A checksum that does not
 * match is no error (datasum_ok, sumsum_ok say it).  0; NLFS_EBADMAGIC or
 * NLFS_ECORRUPT for a header that does not hold up; a negative errno from
 * the io or -ENOMEM. */
#define NLFS_LOG_READ_SUMMARY_ONLY 1u
int nlfs_log_read(struct nlfs_fs *fs, uint64_t start, struct nlfs_log *log, void **summary,
		  unsigned flags, struct nlfs_err *err);

/* Is there a sound super-root log with sequence SEQ at block START, as a
 * superblock's log cursor must name (LOG receives it)?  NULL if so, else
 * why not, in words. */
const char *nlfs_log_cursor_problem(struct nlfs_fs *fs, uint64_t start, uint64_t seq,
				    struct nlfs_log *log);

/* A super root block: sr_bytes bounds and sr_sum, as the kernel checks it.  0;
 * -NLFS_ECORRUPT (sr_bytes) or -NLFS_EBADCRC. */
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
/* The search's result. */
const struct nlfs_recovery *nlfs_fs_recovery(const struct nlfs_fs *fs);
/* The super root's raw block (blocksize bytes).  The block. */
const uint8_t *nlfs_fs_super_root(const struct nlfs_fs *fs);
/* One of the three root metadata-file inodes inside the super root.  The inode
 * (INO is NLFS_DAT_INO, NLFS_CPFILE_INO or NLFS_SUFILE_INO). */
const struct nlfs_inode *nlfs_fs_sr_inode(const struct nlfs_fs *fs, unsigned ino);

/* Visit each log of the chain from the superblock cursor as the kernel's
 * search walks it (valid logs only; stops at the first gap). */
typedef int (*nlfs_log_cb)(const struct nlfs_log *log, const void *summary, void *arg);
/* 0; the first non-zero return of CB; a negative errno from the io; -ENOMEM. */
int nlfs_fs_walk_chain(struct nlfs_fs *fs, nlfs_log_cb cb, void *arg, struct nlfs_err *err);

/* The logs the chain goes on with past the cursor's super root, and
 * whether they continue its history: the first names a later checkpoint
 * and none was written before the one it follows.  Logs that do not are
 * left from an earlier writer that crashed before its superblocks (see
 * nlfs_log_invalidate_at in writer.h).  0 or a negative errno. */
struct nlfs_chain_tail {
	uint64_t nlogs;               /* valid logs after the cursor's log */
	struct nlfs_chain_pos first;  /* where the first of them is */
	uint64_t first_cno;           /* the checkpoint it names */
	bool continues;
};
int nlfs_fs_chain_tail(struct nlfs_fs *fs, struct nlfs_chain_tail *tail, struct nlfs_err *err);

/* Files: any file of a checkpoint is read through its inode's bmap. */
/* Whether an inode of MODE keeps a block map in i_bmap (regular files,
 * directories and symbolic links); the other types keep a device number
 * or nothing there.
 * True for those three types. */
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
 * numbers except in the DAT, whose pointers are physical.
 * 0 (*PTR 0 for an unmapped offset); -NLFS_ECORRUPT for a node that does not
 * hold up; a negative errno from the io; -ENOMEM. */
int nlfs_bmap_lookup(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
		     uint64_t *ptr, struct nlfs_err *err);
typedef int (*nlfs_bmap_cb)(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg);
/* The pointers of blocks BLKOFF, BLKOFF + 1, ... (0 for a hole) into PTRS,
 * as many as one descent of the map tells, at least one and at most MAX:
 * *N of them.  0, or as nlfs_bmap_lookup. */
int nlfs_bmap_lookup_run(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			 uint64_t *ptrs, size_t max, size_t *n, struct nlfs_err *err);
/* In key order: every mapped block (level 0) and every node block (level >= 1).
 * 0; the first non-zero return of CB; -NLFS_ECORRUPT for a node that does not
 * hold up; a negative errno from the io; -ENOMEM. */
int nlfs_bmap_iterate(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb,
		      void *arg, struct nlfs_err *err);
/* nlfs_bmap_iterate, where a B-tree's data entry without a pointer (0),
 * which readers take for a hole but the kernel fails a read on (its DAT
 * has no translation for 0), reaches CB too, with PTR 0: for a check. */
int nlfs_bmap_iterate_holes(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb,
			    void *arg, struct nlfs_err *err);

/* The block maps OLD and CUR of one file (at two checkpoints, say),
 * compared by walking only what they do not share: a pointer found in both
 * at the same key and level names the same block or subtree (a block is
 * never rewritten under its virtual number), passed to CB once as
 * NLFS_BMAP_SHARED and not read.  Every other entry goes to CB with the
 * map it is in (NLFS_BMAP_OLD, NLFS_BMAP_NEW for CUR), a node before its
 * entries, in key order; when both map a key to different blocks, OLD's
 * comes first.  CUR's keys are checked to ascend across the subtrees it
 * shares with OLD, which are taken to be in order as OLD has them (check
 * OLD first).
 * 0; the first non-zero return of CB; -NLFS_ECORRUPT for a node that does
 * not hold up or keys out of order; a negative errno from the io; -ENOMEM. */
enum nlfs_bmap_side { NLFS_BMAP_OLD, NLFS_BMAP_NEW, NLFS_BMAP_SHARED };
typedef int (*nlfs_bmap_diff_cb)(uint64_t blkoff, uint64_t ptr, unsigned level,
				 enum nlfs_bmap_side side, void *arg);
int nlfs_bmap_diff(struct nlfs_fs *fs, const struct nlfs_file *old, const struct nlfs_file *cur,
		   nlfs_bmap_diff_cb cb, void *arg, struct nlfs_err *err);

/* The offsets of the data blocks, in map order, in a new array *KEYS (to
 * free; it holds what was found before an error, too).
 * 0, or as nlfs_bmap_iterate. */
int nlfs_bmap_keys(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t **keys, size_t *nkeys,
		   struct nlfs_err *err);

/* What a damaged map still holds, for rebuilding it: like
 * nlfs_bmap_iterate, but a node that does not hold up (unreadable, wrong
 * level, child count out of range) is skipped with its subtree and counted
 * in *NBAD, and keys are passed on in whatever order the nodes hold them.
 * Only a negative return from CB (or -ENOMEM) stops the walk.
 * 0; the first negative return of CB; -ENOMEM. */
int nlfs_bmap_salvage(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb, void *arg,
		      unsigned *nbad);

/* The pointer at LEVEL for KEY, as the kernel's lookup at a level: level 0
 * is the data block of offset KEY (nlfs_bmap_lookup), level L >= 1 the node
 * of level L whose key is KEY.  *PTR is 0 if there is none.
 * 0, or as nlfs_bmap_lookup. */
int nlfs_bmap_lookup_level(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t key,
			   unsigned level, uint64_t *ptr, struct nlfs_err *err);

/* dat.c: virtual-to-physical translation */
/* A DAT entry in host order: the block's disk address (0: none) and the
 * checkpoints [start, end) that hold it (end NLFS_CNO_MAX: still live). */
struct nlfs_datinfo {
	uint64_t blocknr, start, end;
};
/* VBLOCKNR's entry.  0; -NLFS_ECORRUPT for a hole where the entry should
 * be; a negative errno from the io; -ENOMEM. */
int nlfs_dat_lookup(struct nlfs_fs *fs, uint64_t vblocknr, struct nlfs_datinfo *out,
		    struct nlfs_err *err);
/* 0; -NLFS_ECORRUPT for an entry not in use (blocknr 0), or as nlfs_dat_lookup. */
int nlfs_dat_translate(struct nlfs_fs *fs, uint64_t vblocknr, uint64_t *blocknr,
		       struct nlfs_err *err);
/* A hint: the disk is asked for the DAT blocks holding these N virtual
 * blocks (in any order), so that translating them later finds them read.
 * What fails is left to the translation. */
void nlfs_dat_prefetch(struct nlfs_fs *fs, const uint64_t *vblocknrs, size_t n);

/* mdt.c: file blocks; *hole is set for an unmapped block (BUF zeroed).  0;
 * -NLFS_ECORRUPT from the map or the DAT; a negative errno from the io;
 * -ENOMEM. */
int nlfs_file_read_block(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			 void *buf, bool *hole, struct nlfs_err *err);
/* A hint: the disk is asked for blocks [BLKOFF, BLKOFF + N) of the file
 * (first for the DAT blocks that translate them), so that reading them one
 * by one afterwards waits for the disk about twice instead of twice a
 * block.  What fails is left to the reads. */
void nlfs_file_prefetch(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			uint64_t n);
/* Where block BLKOFF of the file lies on the device (*BLOCKNR, 0 for a
 * hole): the block nlfs_file_read_block reads, for a reader that moves the
 * device's bytes itself (nilfs-fuse splices them to the kernel) */
int nlfs_file_block_where(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			  uint64_t *blocknr, struct nlfs_err *err);
/* nlfs_file_block_where for blocks BLKOFF, BLKOFF + 1, ...: as many as
 * one descent of the map tells, at least one and at most MAX, into
 * BLOCKNRS (*N of them). */
int nlfs_file_blocks_where(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			   uint64_t *blocknrs, size_t max, size_t *n, struct nlfs_err *err);
/* One past the last block the file maps (its map's, or one roll-forward
 * puts back), 0 for none: a walk over a file's blocks stops there, not at
 * i_size, which a damaged inode may set to anything.
 * 0, or as nlfs_bmap_iterate. */
int nlfs_file_mapped_end(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t *end,
			 struct nlfs_err *err);
/* the block's physical address, translating through the DAT (0 for a hole).  0,
 * or as nlfs_dat_translate. */
int nlfs_file_block_addr(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t ptr,
			 uint64_t *blocknr, struct nlfs_err *err);
/* root metadata file (DAT, cpfile, sufile) from the super root */
void nlfs_fs_mdt_file(const struct nlfs_fs *fs, unsigned ino, struct nlfs_file *f);

/* format/palloc_layout.c: where entry NR of a palloc file (DAT, ifile) lives */
void nlfs_palloc_locate(uint32_t blocksize, uint32_t entry_size, uint64_t nr,
			uint64_t *blkoff, uint32_t *byteoff);
/* The block offsets of group GROUP's bitmap and descriptor block. */
uint64_t nlfs_palloc_bitmap_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group);
uint64_t nlfs_palloc_desc_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group);
/* groups a palloc file reaches when its last mapped block is LAST_BLKOFF.  The
 * count. */
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
/* 0, or as nlfs_file_read_block. */
int nlfs_palloc_read_group(struct nlfs_fs *fs, const struct nlfs_file *f, uint32_t entry_size,
			   uint64_t group, struct nlfs_palloc_group *out, struct nlfs_err *err);

/* format/table_layout.c: the first entry slot of the cpfile and of the
 * sufile, after their header (checkpoint CNO is slot CNO - 1 + first,
 * segment SEGNUM slot SEGNUM + first; ENTRY_SIZE from the superblock).
 * The slot numbers. */
uint64_t nlfs_cpfile_first_slot(uint32_t entry_size);
uint64_t nlfs_sufile_first_slot(uint32_t entry_size);

/* cpfile.c: the header in host order (a checkpoint entry is struct
 * nlfs_cpinfo, below) */
struct nlfs_cphead {
	uint64_t ncheckpoints, nsnapshots;
	uint64_t snapshot_next, snapshot_prev;   /* the snapshot list's ends (0: empty) */
};
/* 0; -NLFS_ECORRUPT if the header block is a hole; as
 * nlfs_file_read_block. */
int nlfs_cpfile_header(struct nlfs_fs *fs, struct nlfs_cphead *out, struct nlfs_err *err);
/* Cpfile block BLKOFF's counts (BLK: the block's bytes, ESZ an entry's):
 * in *NVALID the checkpoints valid in it up to checkpoint LATEST
 * (UINT64_MAX: all; an entry past the latest is not a checkpoint yet),
 * and in *COUNT the count it keeps in its first entry.  False for block 0,
 * whose first slot is the header: it keeps none (*COUNT untouched). */
bool nlfs_cpfile_block_counts(uint32_t esz, uint32_t blocksize, uint64_t blkoff,
			      const uint8_t *blk, uint64_t latest, uint32_t *count, uint64_t *nvalid);
/* The count cpfile block BLKOFF keeps in its first entry against the
 * checkpoints valid in it (BLK: the block's bytes), the kernel's rule: the
 * two are equal (block 0, whose first slot is the header, keeps none).  A
 * deletion from a block whose count is off would wrap it, or drop the
 * block while checkpoints in it are still valid; nlfs_fs_vet and the
 * writer's deletion both ask here.  The valid checkpoints in *NVALID (if
 * not NULL).  0; -NLFS_EDAMAGED, ERR naming the device and the block. */
int nlfs_cpfile_block_count_check(struct nlfs_fs *fs, uint64_t blkoff, const uint8_t *blk,
				  uint64_t *nvalid, struct nlfs_err *err);

/* sufile.c: per-segment usage; a hole in the sufile reads as a clean
 * segment.  The header in host order: */
struct nlfs_suhead {
	uint64_t ncleansegs, ndirtysegs;
	uint64_t last_alloc;    /* the segment last allocated */
};
/* 0, or as nlfs_file_read_block. */
int nlfs_sufile_header(struct nlfs_fs *fs, struct nlfs_suhead *h, struct nlfs_err *err);
struct nlfs_suinfo;
/* Segment SEGNUM's entry, its flags as stored (nlfs_sufile_list gives
 * them as the kernel reports them).  0; -ERANGE for a segment the volume
 * does not have; as nlfs_file_read_block. */
int nlfs_sufile_get(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_suinfo *su,
		    struct nlfs_err *err);
/* N consecutive segments from SEGNUM, as nlfs_sufile_get, each sufile
 * block read once.  0; -ERANGE past the last segment; as
 * nlfs_file_read_block. */
int nlfs_sufile_get_many(struct nlfs_fs *fs, uint64_t segnum, size_t n,
			 struct nlfs_suinfo *su, struct nlfs_err *err);

/* vet.c: the quick structural check an offline writer needs before it
 * writes (nlfs_writer_open runs it unless it ran or was skipped): both
 * superblock copies (a missing secondary, as on a grown device, passes),
 * the sufile's and DAT groups' counts against their entries, the cpfile
 * where a construction reads or changes it (the header, the latest
 * checkpoint's block, the snapshot list: its cost does not grow with the
 * history), and what opening FS read of the log chain.  Not a full check: a volume
 * it passes may still have damage fsck finds.  Once sound, later calls
 * return 0 at once.  0; -NLFS_EDAMAGED (ERR names what is wrong); as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_fs_vet(struct nlfs_fs *fs, struct nlfs_err *err);
/* For a writer that may delete any of the checkpoints [START, END) (the
 * offline cleaner: those older than its protection), before its first
 * write: the count of every cpfile block they lie in
 * (nlfs_cpfile_block_count_check), so that a damaged one is refused
 * before anything is written, not by the deletion in a later construction
 * of the run.  Nothing once nlfs_fs_vet_skip was called.  0;
 * -NLFS_EDAMAGED; as nlfs_file_read_block; -ENOMEM. */
int nlfs_fs_vet_cp_range(struct nlfs_fs *fs, uint64_t start, uint64_t end, struct nlfs_err *err);
/* The caller writes anyway (a command's --force): the writer skips it. */
void nlfs_fs_vet_skip(struct nlfs_fs *fs);

/* counts.c: how the headers count their entries (the kernel's rules), for
 * every check that recounts them.  FLAGS: host-order su_flags, cp_flags. */
/* a segment is clean with no flag at all, dirty with DIRTY (whatever else) */
bool nlfs_su_flags_clean(uint32_t flags);
bool nlfs_su_flags_dirty(uint32_t flags);
/* a cpfile entry is a checkpoint unless INVALID, a snapshot if also SNAPSHOT */
bool nlfs_cp_flags_valid(uint32_t flags);
bool nlfs_cp_flags_snapshot(uint32_t flags);
/* the free entries the descriptor of the group PG (nlfs_palloc_read_group)
 * counts: pg_nfrees, or all ENTRIES_PER_GROUP where the descriptor block
 * is a hole; it must equal the entries its bitmap leaves free */
uint64_t nlfs_palloc_group_nfree(const struct nlfs_palloc_group *pg, uint64_t entries_per_group);

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
	uint64_t prev;          /* the next smaller one (GET_CPINFO has none) */
};
enum nlfs_cpinfo_mode {
	NLFS_CPINFO_CHECKPOINTS = 0,   /* every valid checkpoint from *cno up */
	NLFS_CPINFO_SNAPSHOTS = 1,     /* the snapshot list from *cno (0: its head) */
};
/* 0, or as nlfs_cpfile_header. */
int nlfs_cpfile_stat(struct nlfs_fs *fs, struct nlfs_cpstat *st, struct nlfs_err *err);
/* Up to N entries into CI, *GOT of them; *CNO is moved on so that the next
 * call continues.  CHECKPOINTS needs *cno >= 1 (-EINVAL otherwise); SNAPSHOTS
 * stops at an entry that is not a snapshot, as the kernel does.
 * 0; -EINVAL; as nlfs_file_read_block. */
int nlfs_cpfile_list(struct nlfs_fs *fs, uint64_t *cno, enum nlfs_cpinfo_mode mode,
		     struct nlfs_cpinfo *ci, size_t n, size_t *got, struct nlfs_err *err);
/* Checkpoint CNO (0 = the latest), as nlfs_cpfile_list gives it (its
 * ifile: nlfs_fs_ifile).  0; -ENOENT for a checkpoint past the latest or
 * invalid; -NLFS_ECORRUPT; as nlfs_file_read_block. */
int nlfs_cpfile_info(struct nlfs_fs *fs, uint64_t cno, struct nlfs_cpinfo *out,
		     struct nlfs_err *err);
/* The same, for many calls in a row: an iterator reads the cpfile's block
 * map once.  It is valid while FS is open and unchanged. */
struct nlfs_cpfile_iter;
/* 0 or -ENOMEM. */
int nlfs_cpfile_iter_open(struct nlfs_fs *fs, struct nlfs_cpfile_iter **it,
			  struct nlfs_err *err);
/* 0; -EINVAL; as nlfs_file_read_block. */
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
	uint32_t flags;         /* NLFS_SEGMENT_USAGE_* */
};
/* 0, or as nlfs_sufile_header. */
int nlfs_sufile_stat(struct nlfs_fs *fs, struct nlfs_sustat *st, struct nlfs_err *err);
/* Usage of segments SEGNUM.. (at most N, never past the last segment), as
 * the kernel reports it: the on-disk ACTIVE bit is ignored, ACTIVE is set
 * on the two segments the kernel writes into after mounting
 * (nlfs_fs_active_segments).
 * 0, or as nlfs_file_read_block. */
int nlfs_sufile_list(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_suinfo *si, size_t n,
		     size_t *got, struct nlfs_err *err);
/* The kernel's current segment (that of the latest super-root log) and the
 * next one it has reserved (that log's ss_next).
 * 0, or as nlfs_log_read. */
int nlfs_fs_active_segments(struct nlfs_fs *fs, uint64_t seg[2], struct nlfs_err *err);

/* ifile.c: inode INO of the checkpoint whose ifile is IFILE.  0; -ENOENT
 * for an inode whose bitmap bit is clear; -NLFS_ECORRUPT; as
 * nlfs_file_read_block. */
int nlfs_ifile_read(struct nlfs_fs *fs, const struct nlfs_file *ifile, uint64_t ino,
		    struct nlfs_file *out, struct nlfs_err *err);
/* every inode whose bitmap bit is set, in inode order (reserved slots skipped);
 * a non-zero return from CB stops the walk and is returned */
typedef int (*nlfs_inode_cb)(const struct nlfs_file *f, void *arg);
/* 0; the first non-zero return of CB; as nlfs_file_read_block. */
int nlfs_ifile_iterate(struct nlfs_fs *fs, const struct nlfs_file *ifile, nlfs_inode_cb cb,
		       void *arg, struct nlfs_err *err);
/* open the checkpoint's ifile (cno 0 = latest).  0, or as nlfs_cpfile_info. */
int nlfs_fs_ifile(struct nlfs_fs *fs, uint64_t cno, struct nlfs_file *ifile,
		  struct nlfs_err *err);
/* inode.c: file contents, LEN bytes from OFF.  0 (*DONE bytes read, 0 at
 * the end of the file), or as nlfs_file_read_block. */
int nlfs_file_pread(struct nlfs_fs *fs, const struct nlfs_file *f, void *buf, size_t len,
		    uint64_t off, size_t *done, struct nlfs_err *err);

/* i_blocks of a file that holds NBLOCKS blocks (data and B-tree nodes):
 * the kernel stores 512-byte units, mkfs.nilfs2 stores fs blocks for the
 * inodes it makes, and the kernel keeps adding its own units to those.
 * MAX_FS_UNITS bounds how many blocks may still be counted mkfs's way
 * (0 for inodes the kernel made).
 * Whether I_BLOCKS is one a kernel or mkfs.nilfs2 could have stored. */
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
 * kernel does.  0, or -NLFS_ECORRUPT with the reason in ERR if it is bad. */
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
/* format/dir_record.c: the file_type byte a directory record naming an
 * inode of MODE carries (1 regular .. 7 symlink, the kernel's table), 0
 * for a mode that is none of the seven types */
uint8_t nlfs_file_type_of_mode(uint32_t mode);
/* format/dir_record.c: whether the LEN bytes of NAME (not NUL-terminated)
 * are "." or "..", the names of a directory's own and its parent's
 * entries; which of the two is LEN's.  True for those. */
bool nlfs_dir_name_is_dots(const char *name, size_t len);
/* inode numbers a directory entry may not name (below 11, except 2 and 10).
 * True for those. */
bool nlfs_dir_private_ino(uint64_t ino);
typedef int (*nlfs_dir_cb)(const char *name, unsigned name_len, uint64_t ino,
			   unsigned file_type, void *arg);
/* 0; the first non-zero return of CB; -NLFS_ECORRUPT for a record that does not
 * hold up; as nlfs_file_read_block. */
int nlfs_dir_iterate(struct nlfs_fs *fs, const struct nlfs_file *dir, nlfs_dir_cb cb,
		     void *arg, struct nlfs_err *err);
/* resolve an absolute PATH in the checkpoint of IFILE (no symlinks followed).
 * 0; -ENOENT for a name that is not there; -ENOTDIR for a component that is no
 * directory; as nlfs_dir_iterate. */
int nlfs_path_lookup(struct nlfs_fs *fs, const struct nlfs_file *ifile, const char *path,
		     struct nlfs_file *out, struct nlfs_err *err);

/* diff.c: what changed between checkpoints OLD_CNO and NEW_CNO, by the
 * ifile: its blocks are compared by virtual block number, then the records
 * of the blocks that differ; an inode whose record is the same in both is
 * not looked into.  Directories that changed are compared block by block
 * (virtual block numbers first, then entries), which names created,
 * removed and renamed links; the paths of the other changed inodes (a
 * file modified in place: NILFS2 inodes keep no parent) come from one scan
 * of the new checkpoint's directories in disk order (the old paths follow
 * from the new ones).  An inode
 * number reused by another file (another generation or type) is one file
 * removed and one created.  CB gets each change, in inode order. */
enum nlfs_diff_kind { NLFS_DIFF_REMOVED, NLFS_DIFF_CREATED, NLFS_DIFF_MODIFIED, NLFS_DIFF_RENAMED };
struct nlfs_diff_change {
	enum nlfs_diff_kind kind;
	uint64_t ino;
	const char *path;              /* absolute; the old path of a rename */
	const char *new_path;          /* RENAMED only */
	const struct nlfs_inode *old_inode, *new_inode;   /* NULL on the side it is not */
	bool contents;                 /* size or block map differ (MODIFIED, RENAMED) */
};
typedef int (*nlfs_diff_cb)(const struct nlfs_diff_change *c, void *arg);
struct nlfs_diff_stats {
	uint64_t ifile_blocks;         /* ifile map entries compared (a shared subtree once) */
	uint64_t ifile_blocks_differ;  /* of them, with another virtual block number */
	uint64_t inodes_changed;       /* inodes whose record or links differ */
	uint64_t dir_blocks_differ;    /* changed directories' blocks whose entries were read */
	uint64_t dirs_walked;          /* directories read by the scan of the names (0: none needed) */
	uint64_t dirs_sought;          /* directories read by the search near the inode numbers */
};
int nlfs_diff(struct nlfs_fs *fs, uint64_t old_cno, uint64_t new_cno, nlfs_diff_cb cb, void *arg,
	      struct nlfs_diff_stats *stats, struct nlfs_err *err);

/* A path of inode INO in checkpoint CNO (for a
 * file with several: the first the walk of the directory names meets);
 * *PATH to free.
 * -ENOENT if the checkpoint holds no such inode or no name reaches it. */
int nlfs_ino_path(struct nlfs_fs *fs, uint64_t cno, uint64_t ino, char **path,
		  struct nlfs_err *err);

/* history.c: the versions of inode INO of generation GENERATION, oldest
 * first.  Every checkpoint's ifile pointer to the block holding the
 * inode is compared with the previous one; the record is read only where
 * that pointer changed, and a version is reported where the record
 * differs.  The segment summaries in use say which checkpoints wrote the
 * file's own blocks (finfo ino and cno); where the cleaner has reclaimed
 * those logs, the ifile still tells the versions apart. */
struct nlfs_version {
	uint64_t cno;                  /* the first checkpoint holding it */
	uint64_t create;               /* that checkpoint's creation time */
	const struct nlfs_inode *inode;   /* NULL: the file is gone from CNO on */
	bool written;                  /* summaries show its blocks written since the previous version */
};
typedef int (*nlfs_version_cb)(const struct nlfs_version *v, void *arg);
struct nlfs_history_stats {
	uint64_t checkpoints;          /* checkpoints looked at */
	uint64_t records_read;         /* of them, whose inode record was read */
	uint64_t logs;                 /* logs whose summaries were read */
	uint64_t written_cnos;         /* checkpoints the summaries name for the file */
};
int nlfs_history(struct nlfs_fs *fs, uint64_t ino, uint32_t generation, nlfs_version_cb cb,
		 void *arg, struct nlfs_history_stats *stats, struct nlfs_err *err);

/* segment.c: what the cleaner sees in a segment */
/* The logs of segment SEGNUM within its first NBLOCKS blocks (su_nblocks),
 * the way the cleaner reads them: each needs the summary magic and a good
 * ss_sumsum.  CB (if not NULL) gets each finfo/binfo as nlfs_summary_walk
 * gives them; its non-zero return stops the walk and is returned.  *SEQ,
 * if not NULL, receives the ss_seq field of the segment's first block,
 * unchecked.  Whether a block is live is nlfs_gc_block_live's (<nlfs/gc.h>).
 * FLAGS says where the walk ends:
 * 0: at the first log that does not check out (the end of what was
 *    written there);
 * NLFS_SEGMENT_WALK_STRICT: for a caller that must see every block (the
 *    offline cleaner), such a log inside NBLOCKS is an error;
 * NLFS_SEGMENT_WALK_EXACT: as the online cleaner reads a segment it will
 *    have the kernel free: STRICT, and besides every log carries the first
 *    log's sequence number and the logs cover NBLOCKS exactly.
 * 0; -ERANGE for a segment the volume does not have; under STRICT or EXACT
 * a log that does not hold up is NLFS_EBADMAGIC, NLFS_EBADCRC or
 * NLFS_ECORRUPT; a negative errno from the io or -ENOMEM. */
#define NLFS_SEGMENT_WALK_STRICT 0x1u
#define NLFS_SEGMENT_WALK_EXACT  0x2u
/* STRICT, and each log is read whole: its data checksum must hold too */
#define NLFS_SEGMENT_WALK_DATASUM 0x4u
int nlfs_segment_walk(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks, unsigned flags,
		      uint64_t *seq, nlfs_finfo_cb cb, void *arg, struct nlfs_err *err);
/* The sequence number of the log at the start of segment SEGNUM, whose
 * summary must decode (magic, sizes; NLFS_ECORRUPT or NLFS_EBADMAGIC). */
int nlfs_segment_seq(struct nlfs_fs *fs, uint64_t segnum, uint64_t *seq, struct nlfs_err *err);

/* The logs one pass wrote into segment SEGNUM, from its start: each log
 * whose header holds up (nlfs_log_read) and that carries the first log's
 * sequence number, read to the segment's end whatever su_nblocks says; the
 * first that does not is where they end.  CB gets each with its summary
 * area (NULL under NLFS_SEGMENT_LOGS_HEADERS); a negative return stops the
 * walk and is returned, a positive one stops it with 0.  FLAGS:
 * NLFS_LOG_READ_SUMMARY_ONLY as for nlfs_log_read; NLFS_SEGMENT_LOGS_VALID:
 * a log with a bad ss_sumsum ends them too (else CB sees it, sumsum_ok
 * false); NLFS_SEGMENT_LOGS_HEADERS: no summary copies.  0; -ERANGE for a
 * segment the volume does not have; -EIO or -ENOMEM. */
#define NLFS_SEGMENT_LOGS_VALID   0x100u
#define NLFS_SEGMENT_LOGS_HEADERS 0x200u
int nlfs_segment_logs(struct nlfs_fs *fs, uint64_t segnum, unsigned flags, nlfs_log_cb cb,
		      void *arg, struct nlfs_err *err);
/* How far the logs of segment SEGNUM reach from its start (*NBLOCKS):
 * nlfs_segment_logs's valid logs, counted.  0, or as nlfs_segment_logs. */
int nlfs_segment_logs_end(struct nlfs_fs *fs, uint64_t segnum, uint32_t *nblocks,
			  struct nlfs_err *err);

/* (int64_t)(a - b) >= 0: sequence numbers compared across a wrap */
static inline bool nlfs_seq_ge(uint64_t a, uint64_t b) { return (int64_t)(a - b) >= 0; }

#endif /* NLFS_NLFS_H */
