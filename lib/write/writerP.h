/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private pieces of the log writer, shared by its modules:
 *   wfile.c       files being changed in one construction (block cache)
 *   palloc.c      entry allocation in the DAT and the ifile
 *   btree_build.c block maps built bottom-up from a sorted key list
 *   btree_layout.c a B-tree as a construction leaves it (changed in place)
 *   logw.c        laying blocks out into logs and writing them
 *   dat_w.c       the DAT's entries in a construction
 *   sufile_w.c    the sufile's segments in a construction
 *   cpfile_w.c    the cpfile's entries in a construction
 *   writer.c      the construction: its files, planning rounds, super root,
 *                 superblocks
 */
#ifndef NLFS_WRITERP_H
#define NLFS_WRITERP_H

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/writer.h>
#include "../nlfsP.h"

struct nlfs_writer;

/* ---- wfile.c ---- */
struct nlfs_wblk {
	uint64_t blkoff;
	uint8_t *data;
	uint64_t oldptr;     /* pointer in the block map before this construction */
	uint64_t newptr;     /* new vblocknr (or, for the DAT, new physical block) */
	bool used, dirty, ended, deleted;
};

struct nlfs_wfile {
	struct nlfs_fs *fs;           /* the volume read (NULL for a new one) */
	uint32_t blocksize;
	uint64_t ino;
	struct nlfs_inode inode;
	struct nlfs_file rfile;      /* how to read its blocks as they are on disk */
	bool on_disk;                /* rfile is readable (not a new file) */
	/* block cache: open addressing on blkoff */
	struct nlfs_wblk *slots;
	size_t cap, count, ndirty;
	/* the block map before this construction, loaded when first needed */
	bool map_loaded;
	uint64_t *old_keys, *old_ptrs;
	size_t nold;
	uint64_t *old_nodes;         /* its node blocks' pointers, depth first */
	size_t nold_nodes;
	uint64_t *old_node_keys;     /* and of each node, its first key, */
	uint64_t *old_node_start;    /* the entries one level down before its first, */
	uint8_t *old_node_level;     /* its level, */
	uint8_t *old_node_gone;      /* whether the new tree replaces it (1) and
				      * its entry was ended (2) */
	bool rebuilt;                /* a round built its tree anew: so do the next */
	/* the plan of this construction */
	struct nlfs_wblk **dirty_sorted;
	size_t nsorted;
	uint64_t *keys, *ptrs;       /* the new map, level 0 */
	size_t nkeys;
	uint64_t *node_ptrs;         /* vblocknrs (or physical blocks for the DAT) */
	size_t nnode_ptrs, cap_node_ptrs;
	uint8_t *node_bufs;
	uint64_t nblocks;            /* data + node blocks the file owns afterwards */
	bool sealed;                 /* the layout is final (nlfs_wfile_seal) */
};

/* FS reads the blocks it had (NULL: a new volume) */
int nlfs_wfile_new(struct nlfs_fs *fs, uint32_t blocksize, uint64_t ino,
		   const struct nlfs_inode *inode, const struct nlfs_file *on_disk,
		   struct nlfs_wfile **out);
void nlfs_wfile_free(struct nlfs_wfile *wf);
/* the cached copy of block BLKOFF; *DATA is NULL for a hole */
int nlfs_wfile_read(struct nlfs_wfile *wf, uint64_t blkoff, uint8_t **data,
		    struct nlfs_err *err);
/* the block for writing (a hole becomes a zeroed block); *CREATED tells */
int nlfs_wfile_write(struct nlfs_wfile *wf, uint64_t blkoff, uint8_t **data, bool *created,
		     struct nlfs_err *err);
/* write block BLKOFF again as it is (the cleaner moving it); a hole, or a
 * block this construction punched, stays one: *REWRITTEN says which */
int nlfs_wfile_rewrite(struct nlfs_wfile *wf, uint64_t blkoff, bool *rewritten,
		       struct nlfs_err *err);
/* drop block BLKOFF from the file (it becomes a hole) */
int nlfs_wfile_punch(struct nlfs_wfile *wf, uint64_t blkoff, struct nlfs_err *err);
/* the construction's layout is final: from now on a block may change only
 * if its log carries it (write, rewrite and punch refuse anything else) */
void nlfs_wfile_seal(struct nlfs_wfile *wf);
int nlfs_wfile_load_map(struct nlfs_wfile *wf, struct nlfs_err *err);
/* the pointer block BLKOFF had before this construction (0: a hole) */
int nlfs_wfile_old_ptr(struct nlfs_wfile *wf, uint64_t blkoff, uint64_t *ptr,
		       struct nlfs_err *err);
/* dirty blocks in blkoff order, into wf->dirty_sorted */
int nlfs_wfile_sort_dirty(struct nlfs_wfile *wf);
/* merge the old map with the dirty blocks' new pointers into wf->keys/ptrs */
int nlfs_wfile_merge_map(struct nlfs_wfile *wf);

/* ---- palloc.c (allocation) ---- */
int nlfs_palloc_alloc(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t hint,
		      uint64_t *nr, struct nlfs_err *err);
int nlfs_palloc_free(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		     struct nlfs_err *err);
/* mark NR in use (reserved entries of a new file) */
int nlfs_palloc_reserve(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
			struct nlfs_err *err);
/* the entry's bytes, for writing */
int nlfs_palloc_entry(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		      uint8_t **entry, struct nlfs_err *err);
/* every group descriptor's free count from its bitmap; *NFIXED counts changes */
int nlfs_palloc_fix_counts(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t *nfixed,
			   struct nlfs_err *err);
/* is entry NR marked in use in its group's bitmap? */
int nlfs_palloc_test(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr, bool *inuse,
		     struct nlfs_err *err);
/* read-only look at entry NR: *ENTRY is NULL when it is not allocated */
int nlfs_palloc_peek(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		     const uint8_t **entry, struct nlfs_err *err);

/* ---- btree_build.c, btree_layout.c ---- */
/* entries a node block holds */
size_t nlfs_btree_node_capacity(uint32_t blocksize);
/* the B-tree a construction leaves: per level, its nodes in key order */
struct nlfs_btl_node {
	uint64_t key;          /* its first key */
	uint64_t ptr;          /* a node kept: its pointer (a written one's is in node_ptrs) */
	size_t first, count;   /* its entries: these of the level below */
	size_t slot;           /* a written node: its number (below) */
	bool dirty;            /* written by the construction */
};
struct nlfs_btl {
	bool direct;
	unsigned nlev;                           /* node-block levels below the root */
	size_t n[NLFS_BTREE_LEVEL_MAX];          /* entries per level; n[0] = keys */
	struct nlfs_btl_node *lev[NLFS_BTREE_LEVEL_MAX];
	size_t cap[NLFS_BTREE_LEVEL_MAX];
	size_t total;                            /* node blocks */
	size_t ndirty;                           /* of them written, numbered level
						  * ascending, then key */
	struct { uint8_t level; size_t index; } *slots;
	size_t capslots;
	uint32_t blocksize;
};
/* a new map from N sorted keys: every node written (btree_build.c) */
int nlfs_btl_rebuild(struct nlfs_btl *l, const uint64_t *keys, size_t n, uint32_t blocksize);
/* WF's B-tree changed as the kernel changes it: from its old tree (loaded)
 * to its new map (wf->keys, merged), writing only the nodes whose entries
 * change (its dirty blocks, in wf->dirty_sorted), those FORCE names (by
 * old node, may be NULL) and their paths; every old node not kept is
 * marked in wf->old_node_gone.  The old map must be a B-tree and the new
 * one not direct.  0; -NLFS_ECORRUPT; -EFBIG; -ENOMEM. */
int nlfs_btl_update(struct nlfs_btl *l, struct nlfs_wfile *wf, const bool *force,
		    struct nlfs_err *err);
void nlfs_btl_free(struct nlfs_btl *l);
/* internal to the two builders */
void nlfs_btl_reset(struct nlfs_btl *l, uint32_t blocksize, size_t nkeys);
int nlfs_btl_level(struct nlfs_btl *l, unsigned k, size_t n);
int nlfs_btl_number(struct nlfs_btl *l);
/* written node SLOT: its level and key; its block */
void nlfs_btl_node_of(const struct nlfs_btl *l, size_t slot, unsigned *level, uint64_t *key);
void nlfs_btl_fill_node(const struct nlfs_btl *l, size_t slot, const uint64_t *keys,
			const uint64_t *ptrs, const uint64_t *node_ptrs, uint8_t *buf);
void nlfs_btl_fill_root(const struct nlfs_btl *l, const uint64_t *keys, const uint64_t *ptrs,
			const uint64_t *node_ptrs, nlfs_le64_t bmap[NLFS_INODE_BMAP_SIZE]);

/* ---- logw.c ---- */
struct nlfs_litem {
	uint64_t ino, cno;
	uint64_t vblocknr;      /* non-DAT files */
	uint64_t blkoff;        /* data: file offset; DAT node: its key */
	uint8_t level;          /* 0: data; >= 1: B-tree node */
	bool owned;             /* buf is freed once written */
	bool copy;              /* buf is the caller's and final: nlfs_logw_add copies
				 * it into the log's buffer at once */
	bool gc;                /* moved by the cleaner: keeps its vblocknr and period */
	uint8_t *buf;
	size_t aux;             /* caller's index (node number) */
	uint64_t addr;          /* physical block, set when the log closes */
};

struct nlfs_lseg {
	uint64_t segnum;
	uint64_t end;           /* block after the last log written into it */
};

struct nlfs_logw_ops {
	/* the segment to use after the current one's successor */
	int (*next_segment)(void *arg, uint64_t *segnum, struct nlfs_err *err);
	/* an item got its address */
	int (*assigned)(void *arg, const struct nlfs_litem *it, struct nlfs_err *err);
};

struct nlfs_logw;
struct nlfs_logw_mark;

struct nlfs_logw_pos {
	uint64_t seg, pos, seq, nextseg;
};
int nlfs_logw_new(struct nlfs_io *io, const struct nlfs_geometry *g, uint32_t crc_seed,
		  uint64_t cno, uint64_t ctime, const struct nlfs_logw_pos *start,
		  const struct nlfs_logw_ops *ops, void *arg, struct nlfs_logw **out);
void nlfs_logw_free(struct nlfs_logw *lw);
int nlfs_logw_add(struct nlfs_logw *lw, const struct nlfs_litem *it, struct nlfs_err *err);
/* before the metadata files' last blocks: close the open log if it holds
 * more than one block of other files, so the super root's log holds none */
int nlfs_logw_end_files(struct nlfs_logw *lw, struct nlfs_err *err);
/* close the construction's last log with a super root */
int nlfs_logw_finish(struct nlfs_logw *lw, struct nlfs_err *err);
/* write every closed log (the super-root log needs its block in SR) */
int nlfs_logw_write_closed(struct nlfs_logw *lw, const uint8_t *sr, struct nlfs_err *err);
/* dry runs: remember the state, lay out, then go back */
int nlfs_logw_save(struct nlfs_logw *lw, struct nlfs_logw_mark **mark);
void nlfs_logw_restore(struct nlfs_logw *lw, struct nlfs_logw_mark *mark);
void nlfs_logw_set_dry(struct nlfs_logw *lw, bool dry);
/* every log of this construction carries NLFS_SS_GC */
void nlfs_logw_set_gc(struct nlfs_logw *lw);
const struct nlfs_lseg *nlfs_logw_segments(const struct nlfs_logw *lw, size_t *n);
struct nlfs_logw_pos nlfs_logw_position(const struct nlfs_logw *lw);
/* start the construction at POS instead: 0, or -EBUSY once a log is begun */
int nlfs_logw_move(struct nlfs_logw *lw, const struct nlfs_logw_pos *pos);
uint64_t nlfs_logw_sr_log(const struct nlfs_logw *lw);     /* start of the SR log */
uint64_t nlfs_logw_sr_seq(const struct nlfs_logw *lw);
uint64_t nlfs_logw_blocks(const struct nlfs_logw *lw);     /* blocks of this construction */

/* ---- writer.c ---- */
struct nlfs_writer {
	struct nlfs_io *io;
	struct nlfs_fs *fs;            /* NULL for a new volume */
	bool mkfs;
	struct nlfs_super_block sb;
	struct nlfs_geometry geo;
	uint32_t seed, isz, dsz, cpsz, susz;
	uint64_t cno, ctime, first_ino, nrsvsegs;
	struct nlfs_wfile *dat, *cpfile, *sufile, *ifile;
	struct nlfs_logw *lw;
	uint64_t dat_hint, ino_hint, nallocs;
	uint64_t *resv;                /* segments reserved for the metadata logs */
	size_t nresv, resv_pos, capresv;
	bool dry, final;
	size_t dry_fake;
	struct nlfs_checkpoint prev;   /* the latest checkpoint (zero on a new volume) */
	bool ifile_was_written;
	uint64_t prev_ifile_blocks;
	/* the checkpoint's block count changes by user_blocks modulo 2^64: a
	 * damaged inode's i_blocks (nlfs_writer_file_remap) may be anything,
	 * and the count is checked and recounted by the repair (cp_count.c) */
	uint64_t user_blocks;
	int64_t user_inodes;
	/* the file being streamed */
	bool sf_open;
	uint64_t sf_ino;
	uint64_t *sf_keys, *sf_ptrs;
	size_t sf_n, sf_cap;
	uint8_t *sr;
	struct nlfs_btl plan[7];       /* indexed by inode number 3..6 */
	uint64_t nongc_ctime;          /* sr_nongc_ctime before this construction */
	bool gc;                       /* a cleaner's construction */
	bool repair;                   /* fsck's construction (NLFS_WRITER_REPAIR) */
	bool revive_latest;            /* the latest entry is whole but marked INVALID */
	uint64_t cp_changes;           /* checkpoint changes made (chcp, rmcp) */
	uint64_t *victims;             /* segments cleaned by it */
	size_t nvictims, capvictims;
	uint64_t alloc_limit;          /* segments from here on are never allocated */
	bool resize;                   /* the construction changes the volume's size */
	uint64_t new_nsegments, new_devsize;
};

/* writer.c: add a block to the construction; an owned buffer is the writer's from now on */
int nlfs_writer_add_item(struct nlfs_writer *w, const struct nlfs_litem *it,
			 struct nlfs_err *err);
/* The block map of file INO from N (offset, vblocknr) pairs in ascending
 * offset order, the data blocks already in place: node blocks are laid
 * out with new virtual blocks, the root and i_blocks set in INODE, which
 * is stored; the checkpoint's block count grows by N and the nodes. */
int nlfs_writer_build_map(struct nlfs_writer *w, uint64_t ino, const uint64_t *keys,
			  const uint64_t *ptrs, size_t n, struct nlfs_inode *inode,
			  struct nlfs_err *err);

/* the first entry slot after the header of the sufile and of the cpfile */
static inline uint64_t su_first(const struct nlfs_writer *w)
{
	return nlfs_sufile_first_slot(w->susz);
}

static inline uint64_t cp_first(const struct nlfs_writer *w)
{
	return nlfs_cpfile_first_slot(w->cpsz);
}

static inline bool nlfs_wfile_has_work(const struct nlfs_wfile *wf)
{
	return wf->ndirty != 0;
}

/* ---- dat_w.c: the DAT in a construction ---- */
/* entry VBN, for writing */
int nlfs_datw_entry(struct nlfs_writer *w, uint64_t vbn, struct nlfs_dat_entry **e,
		    struct nlfs_err *err);
/* a new virtual block, valid from now on */
int nlfs_datw_alloc(struct nlfs_writer *w, uint64_t *vbn, struct nlfs_err *err);
/* VBN freed: no checkpoint reads it any more */
int nlfs_datw_release(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err);
/* the block version VBN is not part of the checkpoint being built; a DEAD
 * one (a cpfile or sufile block, which no checkpoint keeps) ends where it
 * started, or is freed at once when its segment is being cleaned */
int nlfs_datw_end(struct nlfs_writer *w, uint64_t vbn, bool dead, struct nlfs_err *err);

/* ---- sufile_w.c: the sufile in a construction ---- */
/* the header and the usage of SEGNUM, for writing */
int nlfs_suw_header(struct nlfs_writer *w, struct nlfs_sufile_header **h, struct nlfs_err *err);
int nlfs_suw_entry(struct nlfs_writer *w, uint64_t segnum, struct nlfs_segment_usage **su,
		   struct nlfs_err *err);
/* SEGNUM's flags set to FLAGS (0: clean), the header's counts kept right */
int nlfs_suw_set(struct nlfs_writer *w, uint64_t segnum, uint32_t flags, struct nlfs_err *err);
/* a clean segment, taken as the kernel does: the search starts after
 * sh_last_alloc; the reserved segments only with USE_RESERVE */
int nlfs_suw_alloc(struct nlfs_writer *w, bool use_reserve, uint64_t *segnum,
		   struct nlfs_err *err);
/* the usage of every segment the construction writes, reserves or cleans
 * made part of it (before a planning round) */
int nlfs_suw_mark_segments(struct nlfs_writer *w, struct nlfs_err *err);
/* after the final layout: usage of the segments written, reservations
 * not needed and cleaned segments made clean */
int nlfs_suw_finalize(struct nlfs_writer *w, struct nlfs_err *err);
/* Whether SEGNUM may be given up by this construction (cleaned, or emptied
 * by a repair): -EBUSY for one the writer itself uses (or past the last
 * segment); 0 with *DONE set if it was given up already */
int nlfs_suw_may_release(const struct nlfs_writer *w, uint64_t segnum, bool *done,
			 struct nlfs_err *err);
/* SEGNUM given up: clean in the new sufile.  0 or -ENOMEM */
int nlfs_suw_release(struct nlfs_writer *w, uint64_t segnum);

/* resize_w.c: at commit, after the sufile is final: the header's counts for
 * the new size, every cut segment checked clean */
int nlfs_resize_finalize(struct nlfs_writer *w, struct nlfs_err *err);

/* ---- cpfile_w.c: the cpfile in a construction ---- */
int nlfs_cpw_prepare(struct nlfs_writer *w, struct nlfs_err *err);
int nlfs_cpw_finalize(struct nlfs_writer *w, struct nlfs_err *err);

/* A repair's opening of a volume whose latest checkpoint entry is whole
 * but marked INVALID (a writer's stray bit): */
/* the raw entry of checkpoint CNO, if nothing but its flag is wrong */
int nlfs_cpw_read_latest(struct nlfs_writer *w, uint64_t cno, struct nlfs_checkpoint *cp,
			 struct nlfs_err *err);
/* its INVALID flag cleared in the cpfile of the construction */
int nlfs_cpw_revive_latest(struct nlfs_writer *w, struct nlfs_err *err);

#endif /* NLFS_WRITERP_H */
