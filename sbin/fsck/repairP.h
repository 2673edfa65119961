/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repairP.h - the one construction the repairs share (repair.c), the
 * helpers they all use (repair_util.c), and the modules that add to it:
 * repair_dir.c (directories, lost+found, the root) and repair_inode.c
 * (link counts, sizes, i_blocks, cleared inodes).
 */
#ifndef FSCK_REPAIRP_H
#define FSCK_REPAIRP_H

#include <stdbool.h>
#include <stdint.h>

#include <nlfs/nlfs.h>
#include <nlfs/repair.h>
#include "fsck.h"

/* one directory to rewrite: its records that hold up, mended, plus adds */
struct dir_add {
	char name[32];
	uint64_t ino;
	uint8_t type;
};

struct dir_edit {
	uint64_t ino;
	uint64_t parent;          /* 0: keep what '..' says */
	int link_delta;           /* subdirectories added */
	bool fresh;               /* made by the repair: nothing on disk yet */
	struct nlfs_inode fresh_inode;
	const char *path;         /* as the check found it, for messages */
	struct dir_add *adds;
	size_t nadds, capadds;
};

struct repair {
	struct fsck *c;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_file ifile;   /* of the latest checkpoint, as on disk */
	struct nlfs_err err;
	uint64_t now;
	struct dir_edit *edits;
	size_t nedits, capedits;
	uint64_t nfixes;
	bool attached;            /* the detached inodes went to lost+found */
	uint64_t *revived;        /* inodes named by entries, marked in use again */
	size_t nrevived, caprevived;
};

/* repair_util.c */
bool repair_found(const struct fsck *c, enum fsck_pr code);
int repair_lib_failed(struct repair *r, int rc, const char *what);
void repair_done(struct repair *r, uint64_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* repair_dir.c: the notes sorted for the look-ups below (first), the
 * plan (before anything is written), then the writing */
void repair_sort_notes(struct fsck *c);
int repair_plan_dirents(struct repair *r);
int repair_plan_detached(struct repair *r);
int repair_write_dirs(struct repair *r);
bool repair_is_detached(const struct fsck *c, uint64_t ino);
bool repair_edited(const struct repair *r, uint64_t ino);
const struct fsck_link_fix *repair_link_fix(const struct fsck *c, uint64_t ino);
bool repair_is_cleared(const struct fsck *c, uint64_t ino);

/* repair_inode.c */
int repair_clear_inodes(struct repair *r);
int repair_ifile_far(struct repair *r);
int repair_inodes(struct repair *r);

#endif /* FSCK_REPAIRP_H */
