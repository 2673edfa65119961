/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Names from whole walks (diffP.h): down from the root (nlfs_ino_path),
 * or every directory of a checkpoint in disk order (nlfs_diff, where the
 * search near the inode numbers gives up). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

/* the walk of the names: every path of every changed inode of SIDE */
struct walk {
	struct dctx *c;
	int side;
	uint64_t remaining;
	uint64_t dir;
	const char *path;
	struct { uint64_t ino; char *path; } *stack;
	size_t n, cap;
	struct nlfs_u64map seen;
};

static int walk_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct walk *w = arg;
	struct ent *e;

	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	e = diff_find_ent(w->c, ino);
	if (e && e->alive[w->side] && ino != NLFS_ROOT_INO) {
		if (diff_push_path(e, w->side, w->dir, diff_join(w->path, name, len)))
			return -ENOMEM;
		if (w->remaining)
			w->remaining--;
	}
	if (type == NLFS_FT_DIR) {
		if (nlfs_u64map_get(&w->seen, ino, NULL))
			return 0;   /* a directory named twice: a damaged volume */
		if (nlfs_u64map_put(&w->seen, ino, NULL) || NLFS_GROW(w->stack, w->cap, w->n + 1))
			return -ENOMEM;
		w->stack[w->n].ino = ino;
		w->stack[w->n].path = diff_join(w->path, name, len);
		if (!w->stack[w->n++].path)
			return -ENOMEM;
	}
	return 0;
}

int diff_walk_names(struct dctx *c, int side)
{
	struct walk w = { .c = c, .side = side };
	int rc = 0;

	for (size_t i = 0; i < c->nents; i++)
		w.remaining += diff_links_needed(&c->ents[i], side);
	if (nlfs_u64map_put(&w.seen, NLFS_ROOT_INO, NULL) || NLFS_GROW(w.stack, w.cap, 1))
		return -ENOMEM;
	w.stack[0].ino = NLFS_ROOT_INO;
	w.stack[0].path = strdup("");
	w.n = w.stack[0].path ? 1 : 0;
	rc = w.n ? 0 : -ENOMEM;
	while (!rc && w.n && w.remaining) {
		uint64_t ino = w.stack[w.n - 1].ino;
		char *path = w.stack[--w.n].path;
		struct nlfs_file f;

		rc = nlfs_ifile_read(c->fs, &c->ifile[side], ino, &f, c->err);
		if (!rc && is_dir(&f.inode)) {
			w.path = path;
			w.dir = ino;
			c->st->dirs_walked++;
			rc = nlfs_dir_iterate(c->fs, &f, walk_entry, &w, c->err);
		}
		free(path);
	}
	for (size_t i = 0; i < w.n; i++)
		free(w.stack[i].path);
	free(w.stack);
	nlfs_u64map_free(&w.seen, NULL);
	return rc;
}



/*
 * The scan of the names: every path of every changed inode of SIDE, from
 * one pass over the checkpoint's directories in disk order.  The ifile
 * gives the directories (read in order, not inode by inode), their blocks
 * are translated in virtual block order (the DAT's order) and read in
 * physical order; every entry naming a directory records that
 * directory's parent and name, from which any directory's path follows.
 */
struct scan_blk {
	uint64_t vbn, phys, blkoff;
	size_t dir;
};
struct dir_parent {
	uint64_t ino, parent;
	char *name;
};
struct scan {
	struct dctx *c;
	int side;
	struct nlfs_file *dirs;
	size_t ndirs, dcap;
	struct scan_blk *blks;
	size_t nblks, bcap;
	size_t cur;                /* the directory whose blocks are collected */
	uint64_t cur_nblocks;
	uint64_t cur_dir;          /* the directory whose block is parsed */
	struct dir_parent *par;
	size_t npar, pcap;
	struct found *hits;
	size_t nhits, hcap;
};

static int scan_collect_dir(const struct nlfs_file *f, void *arg)
{
	struct scan *sc = arg;

	if (!is_dir(&f->inode) || !nlfs_le16(f->inode.i_links_count))
		return 0;
	if (NLFS_GROW(sc->dirs, sc->dcap, sc->ndirs + 1))
		return -ENOMEM;
	sc->dirs[sc->ndirs++] = *f;
	return 0;
}

static int scan_collect_blk(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct scan *sc = arg;

	if (level || !ptr || key >= sc->cur_nblocks)
		return 0;
	if (NLFS_GROW(sc->blks, sc->bcap, sc->nblks + 1))
		return -ENOMEM;
	sc->blks[sc->nblks++] = (struct scan_blk){ ptr, 0, key, sc->cur };
	return 0;
}

static int scan_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct scan *sc = arg;
	struct ent *e;

	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	if (type == NLFS_FT_DIR) {
		char *copy = diff_copy_name(name, len);

		if (!copy || NLFS_GROW(sc->par, sc->pcap, sc->npar + 1)) {
			free(copy);
			return -ENOMEM;
		}
		sc->par[sc->npar++] = (struct dir_parent){ ino, sc->cur_dir, copy };
	}
	e = diff_find_ent(sc->c, ino);
	if (e && e->alive[sc->side] && ino != NLFS_ROOT_INO) {
		char *copy = diff_copy_name(name, len);

		if (!copy || NLFS_GROW(sc->hits, sc->hcap, sc->nhits + 1)) {
			free(copy);
			return -ENOMEM;
		}
		sc->hits[sc->nhits++] = (struct found){ e, sc->cur_dir, copy };
	}
	return 0;
}

static int cmp_vbn(const void *a, const void *b)
{
	return nlfs_cmp_u64(&((const struct scan_blk *)a)->vbn, &((const struct scan_blk *)b)->vbn);
}

static int cmp_phys(const void *a, const void *b)
{
	return nlfs_cmp_u64(&((const struct scan_blk *)a)->phys, &((const struct scan_blk *)b)->phys);
}

static int cmp_par(const void *a, const void *b)
{
	return nlfs_cmp_u64(&((const struct dir_parent *)a)->ino, &((const struct dir_parent *)b)->ino);
}

/* the path of directory DIR from the parents the scan recorded (kept) */
static int scan_dir_path(struct scan *sc, uint64_t dir, const char **out)
{
	struct nlfs_u64map *m = &sc->c->dirpath[sc->side];
	uint64_t chain[MAX_DEPTH];
	size_t depth = 0;
	const char *at = "";
	void *known;

	for (uint64_t ino = dir; ino != NLFS_ROOT_INO; depth++) {
		struct dir_parent key = { .ino = ino }, *p;

		if (nlfs_u64map_get(m, ino, &known)) {
			at = known;
			break;
		}
		p = sc->npar ? bsearch(&key, sc->par, sc->npar, sizeof(*sc->par), cmp_par) : NULL;
		if (!p || depth == MAX_DEPTH)
			return nlfs_err_set(sc->c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					    "directory %llu is not reached from the root "
					    "(checkpoint %llu)", (unsigned long long)ino,
					    (unsigned long long)sc->c->ifile[sc->side].cno);
		chain[depth] = ino;
		ino = p->parent;
	}
	while (depth--) {
		struct dir_parent key = { .ino = chain[depth] };
		struct dir_parent *p = bsearch(&key, sc->par, sc->npar, sizeof(*sc->par), cmp_par);
		char *path = diff_join(at, p->name, strlen(p->name));

		if (!path || nlfs_u64map_put(m, chain[depth], path)) {
			free(path);
			return -ENOMEM;
		}
		at = path;
	}
	*out = at;
	return 0;
}

/* the next PREFETCH blocks of B (N left), asked for in runs of nearby blocks */
#define PREFETCH 64
static void prefetch_blocks(struct nlfs_io *io, uint32_t bs, const struct scan_blk *b, size_t n)
{
	if (n > PREFETCH)
		n = PREFETCH;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && b[j].phys - b[j - 1].phys <= 8; j++)
			;
		nlfs_io_prefetch(io, b[i].phys * bs, (b[j - 1].phys - b[i].phys + 1) * bs);
	}
}

int diff_scan_names(struct dctx *c, int side)
{
	struct scan sc = { .c = c, .side = side };
	struct nlfs_io *io = nlfs_fs_io(c->fs);
	uint8_t *buf = malloc(c->bs);
	int rc = buf ? 0 : -ENOMEM;

	if (!rc)
		rc = nlfs_ifile_iterate(c->fs, &c->ifile[side], scan_collect_dir, &sc, c->err);
	for (size_t i = 0; !rc && i < sc.ndirs; i++) {
		uint64_t size = nlfs_le64(sc.dirs[i].inode.i_size);

		sc.cur = i;
		sc.cur_nblocks = size / c->bs + (size % c->bs != 0);
		rc = nlfs_bmap_iterate(c->fs, &sc.dirs[i], scan_collect_blk, &sc, c->err);
	}
	c->st->dirs_walked += sc.ndirs;
	/* translated in the DAT's order, read in the disk's */
	nlfs_sort(sc.blks, sc.nblks, sizeof(*sc.blks), cmp_vbn);
	for (size_t i = 0; !rc && i < sc.nblks; i++) {
		struct scan_blk *b = &sc.blks[i];

		if (!nlfs_rf_lookup(c->fs, sc.dirs[b->dir].ino, b->blkoff, &b->phys))
			rc = nlfs_file_block_addr(c->fs, &sc.dirs[b->dir], b->vbn, &b->phys, c->err);
	}
	nlfs_sort(sc.blks, sc.nblks, sizeof(*sc.blks), cmp_phys);
	for (size_t i = 0; !rc && i < sc.nblks; i++) {
		const struct scan_blk *b = &sc.blks[i];

		if (i % PREFETCH == 0)
			prefetch_blocks(io, c->bs, sc.blks + i + PREFETCH, i + PREFETCH < sc.nblks ?
					sc.nblks - i - PREFETCH : 0);
		rc = nlfs_io_read(io, buf, c->bs, b->phys * c->bs);
		if (rc)
			rc = nlfs_err_set(c->err, rc, b->phys, "directory %llu, block %llu",
					  (unsigned long long)sc.dirs[b->dir].ino,
					  (unsigned long long)b->blkoff);
		sc.cur_dir = sc.dirs[b->dir].ino;
		if (!rc)
			rc = nlfs_dir_block_entries(&sc.dirs[b->dir], b->blkoff, buf, c->bs, scan_entry,
						    &sc, c->err);
	}
	nlfs_sort(sc.par, sc.npar, sizeof(*sc.par), cmp_par);
	for (size_t i = 0; !rc && i < sc.nhits; i++) {
		const char *dp;

		rc = scan_dir_path(&sc, sc.hits[i].dir, &dp);
		if (!rc)
			rc = diff_push_path(sc.hits[i].e, side, sc.hits[i].dir,
				       diff_join(dp, sc.hits[i].name, strlen(sc.hits[i].name)));
	}
	for (size_t i = 0; i < sc.nhits; i++)
		free(sc.hits[i].name);
	for (size_t i = 0; i < sc.npar; i++)
		free(sc.par[i].name);
	free(sc.hits);
	free(sc.par);
	free(sc.blks);
	free(sc.dirs);
	free(buf);
	return rc;
}
