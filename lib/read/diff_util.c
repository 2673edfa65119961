/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the steps of nlfs_diff share (diffP.h): names and paths, the
 * differences of two block maps, blocks located and read ahead, the
 * changed inodes and their link changes looked up. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

char *diff_join(const char *dir, const char *name, size_t len)
{
	size_t dl = strlen(dir);
	char *p = malloc(dl + len + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, len);
	p[dl + 1 + len] = 0;
	return p;
}

char *diff_copy_name(const char *name, unsigned len)
{
	char *copy = malloc(len + 1);

	if (copy) {
		memcpy(copy, name, len);
		copy[len] = 0;
	}
	return copy;
}

struct map_diff {
	struct kp_list *out;
	uint64_t *nseen;
};

static int collect_change(uint64_t key, uint64_t ptr, unsigned level, enum nlfs_bmap_side side,
			  void *arg)
{
	struct map_diff *m = arg;
	struct kp_list *l = m->out;

	(*m->nseen)++;
	if (level || side == NLFS_BMAP_SHARED)
		return 0;
	/* a key both map to different blocks comes twice, the old one first */
	if (side == NLFS_BMAP_NEW && l->n && l->v[l->n - 1].key == key)
		return 0;
	if (NLFS_GROW(l->v, l->cap, l->n + 1))
		return -ENOMEM;
	l->v[l->n++] = (struct keyptr){ key, ptr };
	return 0;
}

/* The keys whose pointer differs between the maps of A and B (in key
 * order, into *OUT), the subtrees the two share passed over; *NSEEN counts
 * the entries compared (a shared subtree once). */
int diff_map_differences(struct dctx *c, const struct nlfs_file *a, const struct nlfs_file *b,
			 struct kp_list *out, uint64_t *nseen)
{
	struct map_diff m = { out, nseen };

	return nlfs_bmap_diff(c->fs, a, b, collect_change, &m, c->err);
}

/* device blocks PHYS (N, sorted) asked for ahead, in runs of neighbours */
static void prefetch_sorted(struct nlfs_io *io, uint32_t bs, const uint64_t *phys, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && phys[j] - phys[j - 1] <= 2; j++)
			;
		nlfs_io_prefetch(io, phys[i] * bs, (phys[j - 1] - phys[i] + 1) * bs);
	}
}

/*
 * Where the blocks B (N) lie, each read asked for ahead: cold, a walk
 * that translates one block after another waits for every DAT block in
 * turn, so the DAT blocks of all the map pointers are asked for at once
 * first (a map in the inode costs no read), and then the blocks.
 */
void diff_locate_blocks(struct dctx *c, struct fblk *b, size_t n)
{
	uint32_t esz = nlfs_le16(c->fs->sb[c->fs->choice.used].s_dat_entry_size);
	uint64_t *at = n ? malloc(n * sizeof(*at)) : NULL;
	struct nlfs_file dat;
	size_t na = 0;

	nlfs_fs_mdt_file(c->fs, NLFS_DAT_INO, &dat);
	for (size_t i = 0; at && esz && i < n; i++) {
		uint64_t ptr, dblk, p;
		uint32_t off;

		if (b[i].f->ino == NLFS_DAT_INO ||
		    nlfs_bmap_lookup(c->fs, b[i].f, b[i].blkoff, &ptr, NULL) || !ptr)
			continue;
		nlfs_palloc_locate(c->bs, esz, ptr, &dblk, &off);
		if (!nlfs_file_block_where(c->fs, &dat, dblk, &p, NULL) && p)
			at[na++] = p;
	}
	if (at) {
		nlfs_sort(at, na, sizeof(*at), nlfs_cmp_u64);
		prefetch_sorted(nlfs_fs_io(c->fs), c->bs, at, na);
	}
	na = 0;
	for (size_t i = 0; i < n; i++) {
		b[i].rc = nlfs_file_block_where(c->fs, b[i].f, b[i].blkoff, &b[i].phys, NULL);
		if (b[i].rc)
			b[i].phys = 0;
		else if (b[i].phys && at)
			at[na++] = b[i].phys;
	}
	if (at) {
		nlfs_sort(at, na, sizeof(*at), nlfs_cmp_u64);
		prefetch_sorted(nlfs_fs_io(c->fs), c->bs, at, na);
	}
	free(at);
}

/* the first of INO's link changes in c->lch (sorted by inode), or where
 * they would be */
static int cmp_ino_lchg(const void *key, const void *elem)
{
	return nlfs_cmp_u64(key, &((const struct lchg *)elem)->ino);
}

static size_t lch_first(const struct dctx *c, uint64_t ino)
{
	return nlfs_lower_bound(&ino, c->lch, c->nlch, sizeof(*c->lch), cmp_ino_lchg);
}

/* the link changes of INO on SIDE */
uint64_t diff_links_known(const struct dctx *c, uint64_t ino, int side)
{
	uint64_t n = 0;

	for (size_t lo = lch_first(c, ino); lo < c->nlch && c->lch[lo].ino == ino; lo++)
		n += c->lch[lo].side == side;
	return n;
}

/* Is (DIR, NAME) a link of INO that SIDE's directory changes name? */
bool diff_link_changed(const struct dctx *c, uint64_t ino, int side, uint64_t dir,
		       const char *name)
{
	for (size_t lo = lch_first(c, ino); lo < c->nlch && c->lch[lo].ino == ino; lo++)
		if (c->lch[lo].side == side && c->lch[lo].dir == dir && !strcmp(c->lch[lo].name, name))
			return true;
	return false;
}

/* E appended to the changed inodes */
int diff_add_ent(struct dctx *c, const struct ent *e)
{
	if (NLFS_GROW(c->ents, c->ecap, c->nents + 1))
		return -ENOMEM;
	c->ents[c->nents++] = *e;
	return 0;
}

/* by inode number */
int diff_cmp_ent(const void *a, const void *b)
{
	return nlfs_cmp_u64(&((const struct ent *)a)->ino, &((const struct ent *)b)->ino);
}

/* the changed inode INO (c->ents sorted), or NULL */
struct ent *diff_find_ent(struct dctx *c, uint64_t ino)
{
	struct ent key = { .ino = ino };

	if (!c->nents)
		return NULL;
	return bsearch(&key, c->ents, c->nents, sizeof(*c->ents), diff_cmp_ent);
}

/* PATH (taken; NULL: out of memory) a name of E on SIDE, in directory PARENT */
int diff_push_path(struct ent *e, int side, uint64_t parent, char *path)
{
	if (!path || NLFS_GROW(e->paths[side], e->cap[side], e->npaths[side] + 1)) {
		free(path);
		return -ENOMEM;
	}
	e->paths[side][e->npaths[side]++] = (struct lpath){ path, parent };
	return 0;
}

/* the names E has on SIDE: a directory one (its ".."s aside), the root none */
uint64_t diff_links_needed(const struct ent *e, int side)
{
	if (!e->alive[side] || e->ino == NLFS_ROOT_INO)
		return 0;
	return is_dir(&e->rec[side]) ? 1 : nlfs_le16(e->rec[side].i_links_count);
}

