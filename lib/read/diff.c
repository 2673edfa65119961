/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What changed between two checkpoints (nlfs_diff in nlfs.h): the steps
 * of diffP.h in order, and each changed inode's links reported as
 * removed, created, modified or renamed.  The blocks the steps read are
 * scattered and each prefetched (diff_locate_blocks), so the volume's I/O
 * is told so (nlfs_io_scattered) for the while.  nlfs_ino_path: a name of
 * an inode, by a walk from the root.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct lpath *)a)->path, ((const struct lpath *)b)->path);
}

/* by link: the directory, then the name in it */
static int cmp_link(const void *a, const void *b)
{
	const struct lpath *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(path_base(x->path), path_base(y->path));
}

static int emit(const struct ent *e, enum nlfs_diff_kind kind, const char *path, const char *to,
		nlfs_diff_cb cb, void *arg)
{
	struct nlfs_diff_change ch = {
		.kind = kind, .ino = e->ino, .path = path, .new_path = to,
		.old_inode = kind == NLFS_DIFF_CREATED ? NULL : &e->rec[OLD],
		.new_inode = kind == NLFS_DIFF_REMOVED ? NULL : &e->rec[NEW],
	};

	if (ch.old_inode && ch.new_inode)
		ch.contents = e->rec[OLD].i_size != e->rec[NEW].i_size ||
			      memcmp(e->rec[OLD].i_bmap, e->rec[NEW].i_bmap, sizeof(e->rec[OLD].i_bmap));
	return cb(&ch, arg);
}

static int report(const struct ent *e, nlfs_diff_cb cb, void *arg)
{
	const struct lpath *o = e->paths[OLD], *n = e->paths[NEW];
	size_t no = e->npaths[OLD], nn = e->npaths[NEW];
	int rc = 0;

	if (e->ino == NLFS_ROOT_INO)
		return e->alive[OLD] && e->alive[NEW] ? emit(e, NLFS_DIFF_MODIFIED, "/", NULL, cb, arg) : 0;
	if (e->replaced || !e->alive[NEW]) {
		for (size_t i = 0; !rc && i < no; i++)
			rc = emit(e, NLFS_DIFF_REMOVED, o[i].path, NULL, cb, arg);
		no = 0;
	}
	if (e->replaced || !e->alive[OLD]) {
		for (size_t i = 0; !rc && i < nn; i++)
			rc = emit(e, NLFS_DIFF_CREATED, n[i].path, NULL, cb, arg);
		nn = 0;
	}
	/* on both sides: links kept are modified (at their path now), links
	 * that went and came renamed */
	size_t i = 0, j = 0, io = 0, jn = 0;
	const char **gone = no ? calloc(no, sizeof(*gone)) : NULL;
	const char **came = nn ? calloc(nn, sizeof(*came)) : NULL;

	if ((no && !gone) || (nn && !came))
		rc = -ENOMEM;
	while (!rc && (i < no || j < nn)) {
		int r = i == no ? 1 : j == nn ? -1 : cmp_link(&o[i], &n[j]);

		if (r < 0)
			gone[io++] = o[i++].path;
		else if (r > 0)
			came[jn++] = n[j++].path;
		else {
			if (!e->same_record)
				rc = emit(e, NLFS_DIFF_MODIFIED, n[j].path, NULL, cb, arg);
			i++, j++;
		}
	}
	for (size_t k = 0; !rc && k < io && k < jn; k++)
		rc = emit(e, NLFS_DIFF_RENAMED, gone[k], came[k], cb, arg);
	for (size_t k = jn; !rc && k < io; k++)
		rc = emit(e, NLFS_DIFF_REMOVED, gone[k], NULL, cb, arg);
	for (size_t k = io; !rc && k < jn; k++)
		rc = emit(e, NLFS_DIFF_CREATED, came[k], NULL, cb, arg);
	free((void *)gone);
	free((void *)came);
	return rc;
}

int nlfs_diff(struct nlfs_fs *fs, uint64_t old_cno, uint64_t new_cno, nlfs_diff_cb cb, void *arg,
	      struct nlfs_diff_stats *stats, struct nlfs_err *err)
{
	struct nlfs_diff_stats local;
	struct dctx c = {
		.fs = fs, .err = err, .st = stats ? stats : &local,
		.bs = fs->geo.blocksize, .isz = fs->geo.inode_size,
		.first_ino = nlfs_le32(fs->sb[fs->choice.used].s_first_ino),
	};
	size_t nchanged;
	bool scattered;
	int rc;

	memset(c.st, 0, sizeof(*c.st));
	if (c.isz < sizeof(struct nlfs_inode) || c.isz > c.bs)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE, "inode size %u", c.isz);
	scattered = nlfs_io_scattered(nlfs_fs_io(fs), true);
	rc = nlfs_fs_ifile(fs, old_cno, &c.ifile[OLD], err);
	if (!rc)
		rc = nlfs_fs_ifile(fs, new_cno, &c.ifile[NEW], err);
	if (!rc)
		rc = diff_ifiles(&c);
	nchanged = c.nents;
	if (!rc)
		rc = diff_whole_dirs(&c);
	for (size_t i = 0; !rc && i < nchanged; i++)
		if ((c.ents[i].alive[OLD] && is_dir(&c.ents[i].rec[OLD])) ||
		    (c.ents[i].alive[NEW] && is_dir(&c.ents[i].rec[NEW])))
			rc = diff_dir(&c, &c.ents[i]);
	if (!rc) {
		nlfs_sort(c.lch, c.nlch, sizeof(*c.lch), diff_cmp_lchg);
		nlfs_sort(c.ents, c.nents, sizeof(*c.ents), diff_cmp_ent);
		for (size_t j = 0; !rc && j < c.nlch; j++)
			if ((!j || c.lch[j - 1].ino != c.lch[j].ino) && !diff_find_ent(&c, c.lch[j].ino))
				rc = diff_add_link_only(&c, c.lch[j].ino);
		nlfs_sort(c.ents, c.nents, sizeof(*c.ents), diff_cmp_ent);
	}
	c.st->inodes_changed = c.nents;
	if (!rc)
		rc = diff_place_links(&c, NEW);
	if (!rc)
		rc = diff_derive_old(&c);
	for (size_t i = 0; !rc && i < c.nents; i++) {
		for (int s = OLD; s <= NEW; s++)
			nlfs_sort(c.ents[i].paths[s], c.ents[i].npaths[s], sizeof(struct lpath),
			      cmp_link);
		rc = report(&c.ents[i], cb, arg);
	}
	for (size_t i = 0; i < c.nents; i++)
		for (int s = OLD; s <= NEW; s++) {
			for (size_t k = 0; k < c.ents[i].npaths[s]; k++)
				free(c.ents[i].paths[s][k].path);
			free(c.ents[i].paths[s]);
		}
	for (size_t j = 0; j < c.nlch; j++)
		free(c.lch[j].name);
	free(c.lch);
	free(c.ents);
	nlfs_u64map_free(&c.dirpath[OLD], free);
	nlfs_u64map_free(&c.dirpath[NEW], free);
	diff_dc_free(&c);
	nlfs_io_scattered(nlfs_fs_io(fs), scattered);
	return rc;
}

int nlfs_ino_path(struct nlfs_fs *fs, uint64_t cno, uint64_t ino, char **path,
		  struct nlfs_err *err)
{
	struct nlfs_diff_stats st;
	struct dctx c = { .fs = fs, .err = err, .st = &st };
	struct nlfs_file f;
	struct ent e = { .ino = ino };
	int rc = nlfs_fs_ifile(fs, cno, &c.ifile[NEW], err);

	*path = NULL;
	if (!rc)
		rc = nlfs_ifile_read(fs, &c.ifile[NEW], ino, &f, err);
	if (rc)
		return rc;
	if (ino == NLFS_ROOT_INO) {
		*path = strdup("/");
		return *path ? 0 : -ENOMEM;
	}
	e.alive[NEW] = true;
	e.rec[NEW] = f.inode;
	c.ents = &e;
	c.nents = 1;
	rc = diff_walk_names(&c, NEW);
	if (!rc && !e.npaths[NEW])
		rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE,
				  "inode %llu has no name in checkpoint %llu",
				  (unsigned long long)ino, (unsigned long long)c.ifile[NEW].cno);
	if (!rc) {
		nlfs_sort(e.paths[NEW], e.npaths[NEW], sizeof(struct lpath), cmp_path);
		*path = e.paths[NEW][0].path;
		e.paths[NEW][0].path = NULL;
	}
	for (size_t k = 0; k < e.npaths[NEW]; k++)
		free(e.paths[NEW][k].path);
	free(e.paths[NEW]);
	return rc;
}
