/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private definitions of the library; not installed. */
#ifndef NLFS_NLFSP_H
#define NLFS_NLFSP_H

#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

/* a file block that roll-forward puts back (rollforward.c) */
struct nlfs_rf_block {
	uint64_t ino, blkoff, block, order;
};
#define NLFS_NODE_CACHE 32   /* two halves, see node_cache */
#define NLFS_IFILE_CACHE 128 /* see ifile_cache */
/* DAT block cache: sets of NLFS_DAT_WAYS blocks, as many sets as the DAT
 * has blocks for (a power of two), between the two bounds: at most 4096
 * blocks (16 MiB of 4 KiB blocks), allocated as blocks are read again
 * (the first NLFS_DAT_FREE as they are first read) */
#define NLFS_DAT_WAYS 8
#define NLFS_DAT_SETS_MIN 4
#define NLFS_DAT_SETS_MAX 512
#define NLFS_DAT_FREE 32

/* one block of a small read cache (dat_cache, node_cache) */
struct nlfs_cache_slot {
	uint64_t key;           /* the block's address, or the cache's empty value */
	uint64_t used;          /* the cache's clock when last hit or filled; 0: never */
	uint8_t *data;
};

/* The slot of the N at S holding KEY, marked used (true); else false with
 * *SLOT the least recently used one, marked used, for the caller to fill
 * (it sets the key once the data is in).  *CLOCK is the cache's clock. */
static inline bool nlfs_cache_find(struct nlfs_cache_slot *s, unsigned n, uint64_t key,
				   uint64_t *clock, unsigned *slot)
{
	unsigned victim = 0;
	bool hit = false;

	++*clock;
	for (unsigned i = 0; i < n && !hit; i++) {
		if (s[i].key == key) {
			victim = i;
			hit = true;
		} else if (s[i].used < s[victim].used) {
			victim = i;
		}
	}
	s[victim].used = *clock;
	*slot = victim;
	return hit;
}

/* fs.c: disk block BLOCKNR (not 0) into BUF, from the N slots at S (a
 * cache of the handle's, *CLOCK its clock) or read and kept there.  0, or
 * as nlfs_io_read. */
int nlfs_cache_read(struct nlfs_fs *fs, struct nlfs_cache_slot *s, unsigned n, uint64_t *clock,
		    uint64_t blocknr, uint8_t *buf);

struct nlfs_fs {
	struct nlfs_io *io;
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice choice;
	struct nlfs_geometry geo;
	uint32_t crc_seed;
	struct nlfs_recovery rec;
	uint8_t *sr;            /* super root block */
	/* DAT blocks by their offset in the DAT, set-associative, the least
	 * recently used block of a set replaced: translations of neighbouring
	 * virtual blocks hit them, a walk that alternates between a file's
	 * blocks and the ifile's or a directory's keeps each stream's block,
	 * and on a kernel-written volume, whose files' entries lie all over
	 * the DAT, a walk in tree order finds the DAT's working set held
	 * (sized from the DAT: with a fixed 32 blocks a check of 100k files
	 * read a DAT block for nearly every file block).  The handle is
	 * read-only, so a block held never goes stale. */
	struct nlfs_cache_slot *dat_cache;  /* dat_sets * NLFS_DAT_WAYS; key UINT64_MAX: empty */
	unsigned dat_sets;
	uint64_t dat_cache_clock;
	/* Past the first NLFS_DAT_FREE blocks, the cache grows (a buffer for
	 * a slot) only for a block read again after fewer other reads than
	 * the cache holds blocks, which a cache that size would have kept: a
	 * walk that reads the DAT in order (a volume mkfs wrote, or pass after
	 * pass) reads each block once a pass and needs none.  Other reads go
	 * through one scratch block, itself a cache of the block read last. */
	uint32_t *dat_last;                 /* per DAT block: dat_reads at its last read, 0 never */
	uint64_t dat_last_n;
	uint32_t dat_reads;
	unsigned dat_nalloc;                /* slots with a buffer */
	unsigned dat_max;                   /* at most this many (0: as the DAT's size allows) */
	uint8_t *dat_scratch;
	uint64_t dat_scratch_key;           /* UINT64_MAX: none */
	/* the block the last lookup read from: entries dat_hot_first to
	 * dat_hot_first + dat_hot_n - 1 (0: none), at dat_hot.  A file's
	 * blocks and a summary's have runs of neighbouring virtual blocks:
	 * most lookups need neither the entry's place nor the cache's set */
	uint8_t *dat_hot;
	uint64_t dat_hot_first;
	uint32_t dat_hot_n;
	/* nlfs_fs_known_addresses */
	bool (*known)(void *arg, uint64_t vblocknr, uint64_t *blocknr);
	void *known_arg;
	/* roll-forward: blocks the kernel's mount would copy into the latest
	 * checkpoint, sorted by (ino, blkoff) */
	struct nlfs_rf_block *rf;
	size_t nrf;
	/* B-tree node blocks by disk address, the least recently used one
	 * replaced, in two halves: the first for the metadata files (DAT,
	 * cpfile, sufile, ifile), whose upper nodes every inode read and
	 * every address translation walks through, so that the stream of the
	 * other files' nodes cannot push them out (same read-only argument) */
	struct nlfs_cache_slot node_cache[NLFS_NODE_CACHE]; /* key: disk block, 0: empty */
	uint64_t node_cache_clock;
	/* the ifiles' blocks that inode reads (nlfs_ifile_read) read, by disk
	 * address, the least recently used one replaced: each read asks its
	 * group's bitmap whether the inode is in use, one block for 32,768
	 * inodes (4 KiB), and a block of records holds 32; a reader going
	 * from inode to inode (nilfs-send -p reads each changed file on both
	 * sides, the diff its directories) read a bitmap block again for
	 * every inode.  Room for the bitmaps of both ifiles a diff
	 * alternates between on a volume of a million files and the record
	 * blocks read between them (same read-only argument) */
	struct nlfs_cache_slot ifile_cache[NLFS_IFILE_CACHE]; /* as node_cache */
	uint64_t ifile_cache_clock;
	/* what the kernel would take from the latest super-root log at mount:
	 * its segment, its ss_next segment and its creation time */
	bool cursor_known;
	uint64_t cur_seg, next_seg, sr_create;
	/* nlfs_fs_vet's verdict, for the writer: not vetted yet, sound, or
	 * the caller's --force (nlfs_fs_vet_skip) */
	enum { NLFS_VET_UNKNOWN, NLFS_VET_SOUND, NLFS_VET_SKIPPED } vet;
};

/* mdt.c: entry SLOT of a root metadata file whose entries are ENTRY_SIZE
 * bytes; a hole reads as zeros and sets *hole */
int nlfs_mdt_read_entry(struct nlfs_fs *fs, unsigned ino, uint32_t entry_size, uint64_t slot,
			void *out, size_t len, bool *hole, struct nlfs_err *err);

/* cpfile.c: checkpoint CNO (0 = the latest) as stored, for what needs the
 * entry itself (the ifile's inode, the writer's next checkpoint); every
 * other reader takes nlfs_cpfile_info.  As nlfs_cpfile_info. */
int nlfs_cpfile_read(struct nlfs_fs *fs, uint64_t cno, struct nlfs_checkpoint *cp,
		     struct nlfs_err *err);

/* format/palloc_layout.c: the geometry of a palloc file (DAT, ifile) whose
 * blocks are BLOCKSIZE bytes and entries ENTRY_SIZE: entries per block and
 * per group, blocks per group, groups per descriptor block, blocks per
 * descriptor block and the groups it describes */
struct nlfs_palloc_geo {
	uint64_t epb, epg, bpg, gpd, bpd;
};
struct nlfs_palloc_geo nlfs_palloc_geo(uint32_t blocksize, uint32_t entry_size);
/* the descriptor block of GROUP (nlfs_palloc_desc_blkoff) */
static inline uint64_t nlfs_palloc_geo_desc(const struct nlfs_palloc_geo *g, uint64_t group)
{
	return (group / g->gpd) * g->bpd;
}
/* what block BLKOFF of a palloc file holds: a descriptor block, GROUP's
 * bitmap, or GROUP's entries from FIRST_ENTRY on */
enum nlfs_palloc_role { NLFS_PALLOC_DESC, NLFS_PALLOC_BITMAP, NLFS_PALLOC_ENTRIES };
enum nlfs_palloc_role nlfs_palloc_role_of(const struct nlfs_palloc_geo *g, uint64_t blkoff,
					  uint64_t *group, uint64_t *first_entry);

/* array.c: nlfs_grow (nlfs.h) for a typed array */
#define NLFS_GROW(arr, cap, need) nlfs_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* rollforward.c */
int nlfs_rollforward_scan(struct nlfs_fs *fs, struct nlfs_err *err);
bool nlfs_rf_lookup(const struct nlfs_fs *fs, uint64_t ino, uint64_t blkoff, uint64_t *block);
void nlfs_rf_adjust_inode(const struct nlfs_fs *fs, struct nlfs_file *f);
/* one past the last block roll-forward puts back into F (0: none) */
uint64_t nlfs_rf_end(const struct nlfs_fs *fs, const struct nlfs_file *f);
/* Where the logs after the latest super root end (complete or not): a
 * writer continuing the volume starts there, so that a crash before its
 * super root leaves them for the kernel's roll-forward.  SEGS: the
 * segments they reach besides the super root's own. */
#define NLFS_RF_TAIL_SEGS 64
struct nlfs_rf_tail {
	uint64_t end, seq, seg, nextseg;    /* block after the last log; its segment's */
	uint64_t segs[NLFS_RF_TAIL_SEGS];
	size_t nsegs;
	bool open_dsync;   /* the last log begins or continues a data-sync series it does not end */
};
int nlfs_rollforward_tail(struct nlfs_fs *fs, struct nlfs_rf_tail *t, struct nlfs_err *err);

/* io/io_undo.c: the undo backend of undo.h (nlfs_io_open_undo,
 * nlfs_undo_apply, which format/undo_id.c gives): ID fills in the UUID of
 * the volume on IO, of DEVSIZE bytes (zeros: none known) */
struct nlfs_undo_stats;
typedef void (*nlfs_undo_id_fn)(struct nlfs_io *io, uint64_t devsize, uint8_t uuid[16]);
int nlfs_undo_io_open(struct nlfs_io *lower, const char *path, nlfs_undo_id_fn id,
		      struct nlfs_io **out, struct nlfs_err *err);
int nlfs_undo_io_apply(const char *path, struct nlfs_io *dev, nlfs_undo_id_fn id,
		       unsigned flags, struct nlfs_undo_stats *st, struct nlfs_err *err);

/* format/geometry.c: the geometry SB describes, on a device of DEVSIZE bytes */
void nlfs_geometry_from_sb(struct nlfs_geometry *g, const struct nlfs_super_block *sb,
			   uint64_t devsize);

/* a checkpoint's ifile inode as the kernel can use it: a regular file, linked */
static inline bool nlfs_cp_ifile_inode_ok(const struct nlfs_inode *in)
{
	return (nlfs_le16(in->i_mode) & NLFS_S_IFMT) == NLFS_S_IFREG &&
	       nlfs_le16(in->i_links_count) != 0;
}

/* format/dir_record.c: NULL if the directory record at OFF of BUF is
 * sound (lengths, reserved inodes), else why not; *REC is filled */
const char *nlfs_dir_record_why(const uint8_t *buf, uint32_t blocksize, unsigned off,
				struct nlfs_dir_rec *rec);

/* read/dir.c: the entries of block BLKOFF (in BUF) of directory DIR, each
 * checked as nlfs_dir_iterate checks it, to CB (a non-zero return stops) */
int nlfs_dir_block_entries(const struct nlfs_file *dir, uint64_t blkoff, const uint8_t *buf,
			   uint32_t bs, nlfs_dir_cb cb, void *arg, struct nlfs_err *err);

/* read/mdt.c: block BLKOFF of F, found at BLOCKNR (0: a hole, zeros) */
int nlfs_file_read_at(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
		      uint64_t blocknr, void *buf, struct nlfs_err *err);

/* fs.c: read the super root fs->rec names and what roll-forward adds to
 * it (again, after the search has found another) */
int nlfs_fs_load_root(struct nlfs_fs *fs, struct nlfs_err *err);

/* log.c: the log at START as the mount reads one of its chain: if its
 * sequence number (the summary's) is SEQ, read whole as nlfs_log_read with
 * no flags; else only its summary blocks (datasum_ok false, no SUMMARY) */
int nlfs_log_read_seq(struct nlfs_fs *fs, uint64_t start, uint64_t seq, struct nlfs_log *log,
		      void **summary, struct nlfs_err *err);

/* recovery.c */
int nlfs_search_super_root(struct nlfs_fs *fs, const struct nlfs_super_block *sb,
			   nlfs_log_cb cb, void *arg, struct nlfs_err *err);

/* bmap.c: one B-tree node as read, the root in i_bmap or a node block
 * (keys and pointers little-endian, as on disk) */
struct nlfs_node_view {
	unsigned level, nchildren, ncmax;
	const uint8_t *keys, *ptrs;
};

static inline uint64_t nlfs_node_get(const uint8_t *p, unsigned i)
{
	return nlfs_get_le64(p + 8 * (size_t)i);
}

static inline bool nlfs_bmap_is_btree(const struct nlfs_file *f)
{
	uint8_t flags;

	memcpy(&flags, f->inode.i_bmap, 1);
	return flags & NLFS_BMAP_LARGE;
}

/* The root of F's B-tree, checked: 0 or -NLFS_ECORRUPT. */
int nlfs_bmap_root(const struct nlfs_file *f, struct nlfs_node_view *v, struct nlfs_err *err);
/* The node block at PTR (read into BUF), checked to be a node of level
 * WANT: 0, -NLFS_ECORRUPT, or a negative errno from the io. */
int nlfs_bmap_node(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t ptr, unsigned want,
		   uint8_t *buf, struct nlfs_node_view *v, struct nlfs_err *err);

#endif /* NLFS_NLFSP_H */
