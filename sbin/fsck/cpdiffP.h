/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpdiffP.h - the state of the checks by difference, shared by cpdiff.c
 * (the kept checkpoint, the ifile's difference, the driver's interface)
 * and cpdiff_tree.c (the directories and the tree).
 */
#ifndef FSCK_CPDIFFP_H
#define FSCK_CPDIFFP_H

#include <stdbool.h>
#include <stdint.h>

#include <nlfs/endian.h>
#include "fsck.h"
#include "cpdiff.h"

/* an inode's map, to be found again at the checkpoint it goes stale in */
struct vent {
	uint64_t ino;
	uint32_t ver;
};

struct bucket {
	struct vent *v;
	size_t n, cap;
};

/* a pointer of the ifile's map that one checkpoint has and the other not */
struct ient {
	uint64_t key, ptr;
	unsigned level;
};

/* the ifile's pointers to be gone by a checkpoint */
struct vbucket {
	uint64_t *v;
	size_t n, cap;
};

struct ichange {
	uint64_t key, ptr;
};

struct touched {
	uint64_t ino;
	bool old_alloc, new_alloc;
	bool has_old;                   /* its record changed: the last one is oldrecs[old] */
	uint32_t old;
	uint16_t old_mode;              /* the last record's i_mode */
	bool checked;                   /* in use now and checked again (put_in_new) */
	uint16_t new_mode;              /* then its i_mode */
};

struct pair {
	uint64_t a, b;
};

/* a record of a directory's old version: what it named, as which type,
 * and where (block KEY, byte OFF) */
struct dblk {
	uint64_t dir, ino, key;
	uint32_t off, type;
};

struct cpdiff {
	struct fsck *c;
	const uint64_t *cnos;
	uint64_t ncnos, k;              /* the checkpoints, the one at hand */
	bool have;                      /* cp holds a clean checkpoint's state */
	struct fsck_cp cp;              /* cp.nblocks: of the files, not the ifile */
	uint64_t ninodes, ifile_nblocks, ngroups;
	struct nlfs_file prev_ifile;
	uint64_t ifile_last_data;       /* its last data block's offset + 1 */
	uint64_t *iptr;                 /* the ifile's data block pointers by offset */
	size_t niptr, capiptr;
	uint32_t *ver;                  /* bumped at each new version of an inode */
	struct bucket *buckets;         /* by index in cnos */
	struct vbucket *ibuckets;       /* by index in cnos */
	/* one difference */
	struct fsck_file_check *ifc;    /* the ifile's pointers are checked as its map's */
	struct ient *stale;             /* the last checkpoint's pointers this one has not */
	size_t nstale, capstale;
	uint64_t nfresh;                /* this one's pointers the last one had not */
	struct ichange *chg;
	size_t nchg, capchg;
	struct fsck_bitmap dirtymap;
	uint64_t *dirty;
	size_t ndirty, capdirty;
	struct touched *t;
	size_t nt, capt;
	struct pair *lost, *dotdot;     /* (dir, old parent), (dir, what its '..' names) */
	size_t nlost, caplost, ndotdot, capdotdot;
	uint64_t *moved;                /* directories given a parent */
	size_t nmoved, capmoved;
	struct pair *dblocks;           /* (dir, key): the blocks of a changed directory's map
					 * that changed, (dir, UINT64_MAX) for each directory
					 * compared so; sorted once all are in */
	size_t ndblocks, capdblocks;
	struct dblk *oldblk;            /* the changed directories' old records */
	size_t noldblk, capoldblk;
	uint32_t *oldset;               /* oldblk hashed: index + 1, 0 empty */
	size_t oldset_cap;              /* slots allocated */
	size_t oldset_n;                /* slots in use now: a power of 2, twice noldblk */
	size_t oldat;                   /* where in oldblk the walk's last record was looked for */
	struct fsck_bitmap touchmap;    /* inodes whose record or bit changed */
	struct nlfs_inode *oldrecs;     /* the changed records, as the last checkpoint had them */
	size_t noldrecs, capoldrecs;
	bool failed;
	bool sorted;                    /* c->cplogs by cno */
	uint64_t prefetched;            /* the last index whose logs were asked for */
	bool *logs_not_ahead;           /* by index in cnos: a log of it was too large */
	uint64_t *ahead;                /* directory blocks to ask for (note_dir_blocks) */
	size_t nahead, capahead;
	struct fsck_bitmap dirs_first;  /* the directories of the first checkpoint
					 * kept: what a new inode of a log is */
};

static inline void fail(struct cpdiff *d)
{
	d->failed = true;
}

static inline bool is_type(uint16_t mode, uint16_t type)
{
	return (mode & NLFS_S_IFMT) == type;
}

static inline bool metadata_ino(uint64_t ino)
{
	return ino == 0 || (ino >= NLFS_DAT_INO && ino <= NLFS_IFILE_INO);
}

/* cpdiff_tree.c: the hooks the walk calls (cpdiff_hooks) */
void cpdiff_dirty(void *arg, uint64_t ino);
void cpdiff_note_child(void *arg, uint64_t dir, uint64_t child);
void cpdiff_note_dotdot(void *arg, uint64_t dir, uint64_t ino);
bool cpdiff_record_known(void *arg, uint64_t dir, uint64_t key, uint32_t off, uint64_t ino,
			 unsigned type);
bool cpdiff_block_same(const void *arg, uint64_t dir, uint64_t key);
bool cpdiff_checked_mode(const void *arg, uint64_t ino, uint16_t *mode);
/* the old records of the changed directories hashed for
 * cpdiff_record_known: 0 or -ENOMEM */
int cpdiff_hash_oldblk(struct cpdiff *d);
/* the references the old version of directory F made, taken back: of the
 * blocks the new version CUR (NULL: none, or not a directory) does not
 * share with it */
void cpdiff_unref_dir(struct cpdiff *d, const struct nlfs_file *f, const struct nlfs_file *cur);
/* d->dblocks in order, for cpdiff_block_same */
void cpdiff_sort_dblocks(struct cpdiff *d);
/* the tree after the changes: link counts, names of free inodes, parents
 * (a failure sets d->failed) */
void cpdiff_check_tree(struct cpdiff *d);

#endif /* FSCK_CPDIFFP_H */
