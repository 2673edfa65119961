/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The link changes of the changed directories (diffP.h). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

struct name_ino {
	char *name;
	uint64_t ino;
};
struct ni_list {
	struct name_ino *v;
	size_t n, cap;
};

static int collect_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct ni_list *l = arg;
	char *copy;

	(void)type;
	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	copy = diff_copy_name(name, len);
	if (!copy || NLFS_GROW(l->v, l->cap, l->n + 1)) {
		free(copy);
		return -ENOMEM;
	}
	l->v[l->n++] = (struct name_ino){ copy, ino };
	return 0;
}

static int cmp_name_ino(const void *a, const void *b)
{
	const struct name_ino *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->ino < y->ino ? -1 : x->ino > y->ino);
}

static int add_lchg(struct dctx *c, uint64_t dir, struct name_ino *ni, int side)
{
	if (NLFS_GROW(c->lch, c->lcap, c->nlch + 1))
		return -ENOMEM;
	c->lch[c->nlch++] = (struct lchg){ ni->ino, dir, ni->name, side };
	ni->name = NULL;   /* the link change owns it now */
	return 0;
}

static void file_of(const struct dctx *c, const struct ent *e, int side, struct nlfs_file *f)
{
	memset(f, 0, sizeof(*f));
	f->ino = e->ino;
	f->cno = c->ifile[side].cno;
	f->inode = e->rec[side];
}

/* the link changes of directory E: blocks whose virtual block numbers
 * differ are read on both sides and their entries compared */
int diff_dir(struct dctx *c, const struct ent *e)
{
	struct nlfs_file f[2];
	struct kp_list d = { 0 };
	struct ni_list l[2] = { { 0 }, { 0 } };
	uint8_t *buf = malloc(c->bs);
	bool whole[2];
	uint64_t nmapped = 0;
	int rc = buf ? 0 : -ENOMEM;

	for (int s = OLD; s <= NEW; s++) {
		file_of(c, e, s, &f[s]);
		whole[s] = e->alive[s] && is_dir(&e->rec[s]) &&
			   (e->replaced || !e->alive[!s] || !is_dir(&e->rec[!s]));
	}
	if (!rc && (whole[OLD] || whole[NEW])) {
		/* a directory on one side only: every entry is a link change
		 * (read already with the others, see diff_whole_dirs) */
		for (int s = OLD; s <= NEW && !rc; s++) {
			const struct dc_dir *cd = whole[s] ? diff_dc_get(c, s, e->ino) : NULL;

			if (cd && cd->ok && !memcmp(&cd->f.inode, &e->rec[s], sizeof(e->rec[s])))
				for (size_t i = 0; !rc && i < cd->n; i++)
					rc = collect_entry(cd->v[i].name, (unsigned)strlen(cd->v[i].name),
							   cd->v[i].ino, cd->v[i].type, &l[s]);
			else if (whole[s])
				rc = nlfs_dir_iterate(c->fs, &f[s], collect_entry, &l[s], c->err);
		}
	} else if (!rc && e->alive[OLD] && e->alive[NEW] && is_dir(&e->rec[OLD])) {
		rc = diff_map_differences(c, &f[OLD], &f[NEW], &d, &nmapped);
		c->st->dir_blocks_differ += d.n;
		for (size_t i = 0; !rc && i < d.n; i++)
			for (int s = OLD; s <= NEW && !rc; s++) {
				bool hole;

				rc = nlfs_file_read_block(c->fs, &f[s], d.v[i].key, buf, &hole, c->err);
				if (!rc && !hole)
					rc = nlfs_dir_block_entries(&f[s], d.v[i].key, buf, c->bs,
								    collect_entry, &l[s], c->err);
			}
	}
	/* an entry that moved between blocks is no change */
	for (int s = OLD; s <= NEW; s++)
		nlfs_sort(l[s].v, l[s].n, sizeof(*l[s].v), cmp_name_ino);
	for (size_t i = 0, j = 0; !rc && (i < l[OLD].n || j < l[NEW].n);) {
		int r = i == l[OLD].n ? 1 : j == l[NEW].n ? -1 :
			cmp_name_ino(&l[OLD].v[i], &l[NEW].v[j]);

		if (r < 0)
			rc = add_lchg(c, e->ino, &l[OLD].v[i++], OLD);
		else if (r > 0)
			rc = add_lchg(c, e->ino, &l[NEW].v[j++], NEW);
		else
			i++, j++;
	}
	for (int s = OLD; s <= NEW; s++) {
		for (size_t i = 0; i < l[s].n; i++)
			free(l[s].v[i].name);
		free(l[s].v);
	}
	free(d.v);
	free(buf);
	return rc;
}

/* The directories on one side only (made, removed, or their number
 * given to another file), all of whose entries are link changes, read
 * into the cache together, a side at a time */
int diff_whole_dirs(struct dctx *c)
{
	uint64_t *dirs = NULL;
	size_t cap = 0;
	int rc = 0;

	for (int s = OLD; !rc && s <= NEW; s++) {
		size_t n = 0;

		for (size_t i = 0; !rc && i < c->nents; i++) {
			const struct ent *e = &c->ents[i];

			if (!e->alive[s] || !is_dir(&e->rec[s]) ||
			    !(e->replaced || !e->alive[!s] || !is_dir(&e->rec[!s])))
				continue;
			if (NLFS_GROW(dirs, cap, n + 1))
				rc = -ENOMEM;
			else
				dirs[n++] = e->ino;
		}
		if (!rc)
			rc = diff_dc_load(c, s, dirs, n, NULL);
	}
	free(dirs);
	return rc;
}

int diff_cmp_lchg(const void *a, const void *b)
{
	const struct lchg *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->side - y->side;
}

/* An inode named by a link change whose record did not change (a writer
 * need not touch a renamed file's ctime): it is a change all the same. */
int diff_add_link_only(struct dctx *c, uint64_t ino)
{
	struct ent e = { .ino = ino, .same_record = true };

	for (int s = OLD; s <= NEW; s++) {
		struct nlfs_file f;
		int rc = nlfs_ifile_read(c->fs, &c->ifile[s], ino, &f, c->err);

		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		e.alive[s] = true;
		e.rec[s] = f.inode;
	}
	nlfs_err_clear(c->err);
	return diff_add_ent(c, &e);
}
