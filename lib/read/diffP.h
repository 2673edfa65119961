/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What changed between two checkpoints (nlfs_diff in nlfs.h), private to
 * the files that find it; each file one step:
 *   diff_ifile.c     the two ifiles compared: the changed inodes;
 *   diff_dir.c       changed directories compared: the link changes;
 *   diff_dircache.c  directories read for names, kept parsed;
 *   diff_dirpath.c   a directory's path, found upwards;
 *   diff_links.c     every link of the changed inodes placed in a path;
 *   diff_seek.c      names searched in the directories near an inode;
 *   diff_scan.c      names from a walk of every directory (the fallback);
 *   diff_util.c      what the steps share;
 *   diff.c           the steps in order, and the changes reported.
 * The work follows the change: blocks are compared by virtual block
 * number (a block the kernel did not rewrite keeps its own), and only
 * inodes whose record differs are looked at further.
 */
#ifndef NLFS_READ_DIFFP_H
#define NLFS_READ_DIFFP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

#define OLD 0
#define NEW 1
#define MAX_DEPTH 4096   /* a deeper parent chain is a loop in a damaged volume */

struct keyptr {
	uint64_t key, ptr;
};
struct kp_list {
	struct keyptr *v;
	size_t n, cap;
};

/* a name of an inode: its path and the directory holding the name (the
 * link's identity: a path may change with a directory above it while the
 * link stays) */
struct lpath {
	char *path;
	uint64_t parent;
};

/* one changed inode */
struct ent {
	uint64_t ino;
	bool alive[2];        /* in the old, the new checkpoint */
	bool replaced;        /* the number names another file in the new one */
	bool same_record;     /* only its links changed (or it moved with its directory) */
	bool searched[2];     /* every name found by diff_seek_names */
	struct nlfs_inode rec[2];
	struct lpath *paths[2];
	size_t npaths[2], cap[2];
};

/* a link created (side NEW) or removed (side OLD) in a changed directory */
struct lchg {
	uint64_t ino, dir;
	char *name;
	int side;
};

struct dctx {
	struct nlfs_fs *fs;
	struct nlfs_err *err;
	struct nlfs_diff_stats *st;
	uint32_t bs, isz;
	uint64_t first_ino;
	struct nlfs_file ifile[2];
	struct ent *ents;             /* sorted by inode once the link changes are in */
	size_t nents, ecap;
	struct lchg *lch;             /* likewise */
	size_t nlch, lcap;
	struct nlfs_u64map dirpath[2];   /* directory -> its path (char *), as found */
	struct nlfs_u64map dc[2];        /* directory -> struct dc_dir (see diff_dc_load) */
	struct dc_dir **dc_own;
	size_t ndc_own, dc_owncap;
};

/* a directory read for names (diff_dircache.c): its entries in their
 * order in the directory */
struct dc_ent {
	uint64_t ino, blkoff;
	size_t seq;                /* the entry's place in the directory, with BLKOFF */
	char *name;
	unsigned type;
};
struct dc_dir {
	uint64_t ino, parent;      /* parent: from "..", 0 without one */
	bool ok;                   /* a live directory whose blocks were read */
	bool checked[2];           /* its entries were matched against the search */
	struct nlfs_file f;
	struct dc_ent *v;
	size_t n, cap;
};

/* a block of a file to read, and where it lies (0: a hole) */
struct fblk {
	const struct nlfs_file *f;
	uint64_t blkoff, phys;
	int rc;
};

/* a name of a changed inode found in directory DIR by a search */
struct found {
	struct ent *e;
	uint64_t dir;
	char *name;
};

static inline bool is_dir(const struct nlfs_inode *i)
{
	return (nlfs_le16(i->i_mode) & NLFS_S_IFMT) == NLFS_S_IFDIR;
}

/* the last name of PATH ("/a/b" -> "b") */
static inline const char *path_base(const char *path)
{
	return strrchr(path, '/') + 1;
}

/* diff_util.c */
char *diff_join(const char *dir, const char *name, size_t len);
char *diff_copy_name(const char *name, unsigned len);
int diff_map_differences(struct dctx *c, const struct nlfs_file *a, const struct nlfs_file *b,
			 struct kp_list *out, uint64_t *nseen);
void diff_locate_blocks(struct dctx *c, struct fblk *b, size_t n);
int diff_add_ent(struct dctx *c, const struct ent *e);
int diff_cmp_ent(const void *a, const void *b);
struct ent *diff_find_ent(struct dctx *c, uint64_t ino);
int diff_push_path(struct ent *e, int side, uint64_t parent, char *path);
uint64_t diff_links_needed(const struct ent *e, int side);
uint64_t diff_links_known(const struct dctx *c, uint64_t ino, int side);
bool diff_link_changed(const struct dctx *c, uint64_t ino, int side, uint64_t dir,
		       const char *name);

/* diff_ifile.c */
int diff_ifiles(struct dctx *c);

/* diff_dir.c */
int diff_whole_dirs(struct dctx *c);
int diff_dir(struct dctx *c, const struct ent *e);
int diff_cmp_lchg(const void *a, const void *b);
int diff_add_link_only(struct dctx *c, uint64_t ino);

/* diff_dircache.c */
struct dc_dir *diff_dc_get(const struct dctx *c, int side, uint64_t ino);
int diff_dc_load(struct dctx *c, int side, const uint64_t *inos, size_t n, uint64_t *nread);
int diff_dc_load_up(struct dctx *c, int side, const uint64_t *dirs, size_t n);
void diff_dc_free(struct dctx *c);

/* diff_dirpath.c: FIND->want 0: the ".." of directory DIR (in
 * FIND->found); else the name FIND->want has in DIR (FIND->name,
 * allocated; NULL if none) */
struct find_ino {
	uint64_t want, found;
	char *name;
};
int diff_look_in(struct dctx *c, int side, uint64_t dir, struct find_ino *find);
int diff_dir_path(struct dctx *c, int side, uint64_t dir, const char **out);

/* diff_links.c */
int diff_place_links(struct dctx *c, int side);
int diff_derive_old(struct dctx *c);

/* diff_seek.c */
int diff_seek_names(struct dctx *c, int side);

/* diff_scan.c */
int diff_walk_names(struct dctx *c, int side);
int diff_scan_names(struct dctx *c, int side);

#endif
