/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every link of every changed inode placed in a path (diffP.h): the new
 * side's from the link changes and the searches, the old side's derived
 * from the new. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

/* The directories SIDE's paths will be found through (those of the link
 * changes and the directories changed there; for the old side, those of
 * the new paths too), and all above them, read in a few batches: else
 * diff_dir_path reads them one at a time, each waiting for the disk. */
static int preload_dirs(struct dctx *c, int side)
{
	uint64_t *dirs = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t j = 0; !rc && j < c->nlch; j++)
		if (c->lch[j].side == side && !NLFS_GROW(dirs, cap, n + 1))
			dirs[n++] = c->lch[j].dir;
		else if (c->lch[j].side == side)
			rc = -ENOMEM;
	for (size_t i = 0; !rc && i < c->nents; i++) {
		const struct ent *e = &c->ents[i];

		if (e->alive[side] && is_dir(&e->rec[side])) {
			if (NLFS_GROW(dirs, cap, n + 1))
				rc = -ENOMEM;
			else
				dirs[n++] = e->ino;
		}
		for (size_t k = 0; !rc && side == OLD && k < e->npaths[NEW]; k++) {
			if (NLFS_GROW(dirs, cap, n + 1))
				rc = -ENOMEM;
			else
				dirs[n++] = e->paths[NEW][k].parent;
		}
	}
	if (!rc)
		rc = diff_dc_load_up(c, side, dirs, nlfs_sort_unique_u64(dirs, n));
	free(dirs);
	return rc;
}

int diff_place_links(struct dctx *c, int side)
{
	bool walk = false;
	int rc = 0;

	for (size_t i = 0; i < c->nents && !walk; i++) {
		struct ent *e = &c->ents[i];
		uint64_t known = diff_links_known(c, e->ino, side);

		/* a directory's own path is found upwards, by its ".." */
		walk = known != diff_links_needed(e, side) &&
		       !(known == 0 && e->alive[side] && is_dir(&e->rec[side]));
	}
	if (walk) {
		rc = diff_seek_names(c, side);
		if (rc)
			return rc < 0 ? rc : diff_scan_names(c, side);
	}
	rc = preload_dirs(c, side);
	for (size_t i = 0; !rc && i < c->nents; i++) {
		struct ent *e = &c->ents[i];
		struct find_ino up = { 0, 0, NULL };
		const char *dp;

		if (!diff_links_needed(e, side) || !is_dir(&e->rec[side]))
			continue;
		if (diff_links_known(c, e->ino, side))
			continue;
		rc = diff_dir_path(c, side, e->ino, &dp);
		if (!rc)
			rc = diff_look_in(c, side, e->ino, &up);
		if (!rc)
			rc = diff_push_path(e, side, up.found, strdup(dp));
	}
	for (size_t j = 0; !rc && j < c->nlch; j++) {
		struct lchg *l = &c->lch[j];
		struct ent *e;
		const char *dp;

		if (l->side != side)
			continue;
		e = diff_find_ent(c, l->ino);
		if (!e || !e->alive[side] || e->searched[side])
			continue;   /* a name of a dead inode: a damaged volume; or found already */
		rc = diff_dir_path(c, side, l->dir, &dp);
		if (!rc)
			rc = diff_push_path(e, side, l->dir, diff_join(dp, l->name, strlen(l->name)));
	}
	return rc;
}

/* The old names from the new ones: a link no changed directory added was
 * there before, in the same directory, whose old path is found upwards;
 * the links the changed directories dropped are added.  Only where that
 * does not account for every old link (a damaged volume, an inode number
 * reused under the same name) are the old names walked. */
int diff_derive_old(struct dctx *c)
{
	bool walk = false;
	int rc = preload_dirs(c, OLD);

	for (size_t i = 0; !rc && i < c->nents && !walk; i++) {
		struct ent *e = &c->ents[i];
		const char *dp;

		if (!diff_links_needed(e, OLD))
			continue;
		for (size_t k = 0; !rc && e->alive[NEW] && !e->replaced && k < e->npaths[NEW]; k++) {
			const struct lpath *lp = &e->paths[NEW][k];
			const char *name = path_base(lp->path);

			if (diff_link_changed(c, e->ino, NEW, lp->parent, name))
				continue;
			rc = diff_dir_path(c, OLD, lp->parent, &dp);
			if (!rc)
				rc = diff_push_path(e, OLD, lp->parent, diff_join(dp, name, strlen(name)));
		}
		walk = !rc && e->npaths[OLD] + diff_links_known(c, e->ino, OLD) != diff_links_needed(e, OLD);
	}
	if (rc)
		return rc;
	if (walk) {
		for (size_t i = 0; i < c->nents; i++) {
			for (size_t k = 0; k < c->ents[i].npaths[OLD]; k++)
				free(c->ents[i].paths[OLD][k].path);
			c->ents[i].npaths[OLD] = 0;
		}
		return diff_scan_names(c, OLD);
	}
	for (size_t j = 0; !rc && j < c->nlch; j++) {
		struct lchg *l = &c->lch[j];
		struct ent *e = l->side == OLD ? diff_find_ent(c, l->ino) : NULL;
		const char *dp;

		if (!e || !e->alive[OLD])
			continue;
		rc = diff_dir_path(c, OLD, l->dir, &dp);
		if (!rc)
			rc = diff_push_path(e, OLD, l->dir, diff_join(dp, l->name, strlen(l->name)));
	}
	return rc;
}
