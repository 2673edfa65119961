/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A directory's path in a checkpoint (diffP.h): up by the ".." entries to
 * a directory whose path is known, then down again, each name found in
 * its parent. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

static int match_ino(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct find_ino *f = arg;

	(void)type;
	if (len == 2 && nlfs_dir_name_is_dots(name, len) && !f->want) {
		f->found = ino;
		return 1;
	}
	if (f->want && ino == f->want && !nlfs_dir_name_is_dots(name, len)) {
		f->name = diff_copy_name(name, len);
		return f->name ? 1 : -ENOMEM;
	}
	return 0;
}

/* the ".." of directory INO in checkpoint SIDE (FIND->want 0), or the
 * name INO has in directory DIR (FIND->want INO) */
int diff_look_in(struct dctx *c, int side, uint64_t dir, struct find_ino *find)
{
	struct nlfs_file f;
	struct dc_dir *d;
	int rc = diff_dc_load(c, side, &dir, 1, NULL);

	d = rc ? NULL : diff_dc_get(c, side, dir);
	if (d && d->ok) {
		if (!find->want) {
			find->found = d->parent;
			return 0;
		}
		for (size_t i = 0; i < d->n && !rc; i++)
			if (d->v[i].ino == find->want)
				rc = match_ino(d->v[i].name, (unsigned)strlen(d->v[i].name), d->v[i].ino,
					       d->v[i].type, find);
		return rc < 0 ? rc : 0;
	}
	/* not a live directory: as the reads say */
	if (!rc)
		rc = nlfs_ifile_read(c->fs, &c->ifile[side], dir, &f, c->err);
	if (!rc)
		rc = nlfs_dir_iterate(c->fs, &f, match_ino, find, c->err);
	return rc < 0 ? rc : 0;
}

/* The path of directory DIR in checkpoint SIDE ("" for the root): up by
 * the ".." entries to a directory whose path is known, then down again,
 * each name found in its parent; every path found is kept for the next. */
int diff_dir_path(struct dctx *c, int side, uint64_t dir, const char **out)
{
	struct { uint64_t ino, parent; } *chain = NULL;
	size_t depth = 0, cap = 0;
	void *known = NULL;
	int rc = 0;

	for (uint64_t ino = dir; !rc && ino != NLFS_ROOT_INO;) {
		struct find_ino up = { 0, 0, NULL };

		if (nlfs_u64map_get(&c->dirpath[side], ino, NULL))
			break;
		if (depth == MAX_DEPTH) {
			rc = nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "directory %llu: no way up to the root (checkpoint %llu)",
					  (unsigned long long)dir,
					  (unsigned long long)c->ifile[side].cno);
			break;
		}
		rc = diff_look_in(c, side, ino, &up);
		if (!rc && !up.found)
			rc = nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "directory %llu has no '..' (checkpoint %llu)",
					  (unsigned long long)ino, (unsigned long long)c->ifile[side].cno);
		if (!rc && NLFS_GROW(chain, cap, depth + 1))
			rc = -ENOMEM;
		if (rc)
			break;
		chain[depth].ino = ino;
		chain[depth++].parent = up.found;
		ino = up.found;
	}
	while (!rc && depth) {
		uint64_t ino = chain[--depth].ino, parent = chain[depth].parent;
		struct find_ino fi = { ino, 0, NULL };
		void *ppath = "";
		char *path;

		if (parent != NLFS_ROOT_INO)
			nlfs_u64map_get(&c->dirpath[side], parent, &ppath);
		rc = diff_look_in(c, side, parent, &fi);
		if (!rc && !fi.name)
			rc = nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "directory %llu is not in its parent %llu (checkpoint %llu)",
					  (unsigned long long)ino, (unsigned long long)parent,
					  (unsigned long long)c->ifile[side].cno);
		if (rc)
			break;
		path = diff_join(ppath, fi.name, strlen(fi.name));
		free(fi.name);
		if (!path || nlfs_u64map_put(&c->dirpath[side], ino, path)) {
			free(path);
			rc = -ENOMEM;
		}
	}
	free(chain);
	if (rc)
		return rc;
	if (dir == NLFS_ROOT_INO || !nlfs_u64map_get(&c->dirpath[side], dir, &known))
		known = "";
	*out = known;
	return 0;
}
