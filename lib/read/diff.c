/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What changed between two checkpoints (nlfs_diff in nlfs.h).  The work
 * follows the change: the two ifiles' block maps are compared by virtual
 * block number (a block the kernel did not rewrite has the same one), the
 * records of the blocks that differ are compared, and only the inodes
 * whose record differs are looked at further.  Changed directories are
 * compared the same way, block by block, before their entries.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
	bool searched[2];     /* every name found by seek_names */
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

/* ino -> path (directory paths known), or a set of inodes (vals NULL) */
struct umap {
	uint64_t *keys;
	void **vals;
	size_t cap, used;
};

struct dctx {
	struct nlfs_fs *fs;
	struct nlfs_err *err;
	struct nlfs_diff_stats *st;
	uint32_t bs, isz;
	uint64_t first_ino;
	struct nlfs_file ifile[2];
	struct ent *ents;
	size_t nents, ecap;
	struct lchg *lch;
	size_t nlch, lcap;
	struct umap dirpath[2];
	struct umap dc[2];            /* ino -> struct dc_dir (see dc_load) */
	struct dc_dir **dc_own;
	size_t ndc_own, dc_owncap;
};

/* ---- small helpers ---- */

static int umap_put(struct umap *m, uint64_t key, void *val)
{
	if ((m->used + 1) * 2 > m->cap) {
		struct umap n = { 0 };

		n.cap = m->cap ? m->cap * 2 : 64;
		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = (size_t)(m->keys[i] * 0x9e3779b97f4a7c15ULL) & (n.cap - 1);

			while (n.keys[j])
				j = (j + 1) & (n.cap - 1);
			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
		n.used = m->used;
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	size_t j = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);

	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->keys[j])
		m->used++;
	m->keys[j] = key;
	m->vals[j] = val;
	return 0;
}

/* the slot of KEY, or NULL */
static void **umap_get(const struct umap *m, uint64_t key, bool *found)
{
	*found = false;
	if (!m->cap)
		return NULL;
	for (size_t j = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (m->cap - 1); m->keys[j];
	     j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			*found = true;
			return &m->vals[j];
		}
	return NULL;
}

static void umap_free(struct umap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			free(m->vals[i]);
	free(m->keys);
	free(m->vals);
}

static char *join(const char *dir, const char *name, size_t len)
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

static char *copy_name(const char *name, unsigned len)
{
	char *copy = malloc(len + 1);

	if (copy) {
		memcpy(copy, name, len);
		copy[len] = 0;
	}
	return copy;
}

static bool is_dir(const struct nlfs_inode *i)
{
	return (nlfs_le16(i->i_mode) & NLFS_S_IFMT) == NLFS_S_IFDIR;
}

static bool dot_or_dotdot(const char *name, unsigned len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
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
static int map_differences(struct dctx *c, const struct nlfs_file *a, const struct nlfs_file *b,
			   struct kp_list *out, uint64_t *nseen)
{
	struct map_diff m = { out, nseen };

	return nlfs_bmap_diff(c->fs, a, b, collect_change, &m, c->err);
}

/* qsort, for arrays that may be empty (and NULL) */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		nlfs_sort(base, n, size, cmp);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
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

/* a block of a file to read, and where it lies (0: a hole) */
struct fblk {
	const struct nlfs_file *f;
	uint64_t blkoff, phys;
	int rc;
};

/*
 * Where the blocks B (N) lie, each read asked for ahead: cold, a walk
 * that translates one block after another waits for every DAT block in
 * turn, so the DAT blocks of all the map pointers are asked for at once
 * first (a map in the inode costs no read), and then the blocks.
 */
static void locate_blocks(struct dctx *c, struct fblk *b, size_t n)
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
		sort(at, na, sizeof(*at), cmp_u64);
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
		sort(at, na, sizeof(*at), cmp_u64);
		prefetch_sorted(nlfs_fs_io(c->fs), c->bs, at, na);
	}
	free(at);
}

/* ---- the ifiles ---- */

static bool bit(const uint8_t *bm, uint64_t r)
{
	return bm[r / 8] & (1u << (r % 8));
}

static int add_ent(struct dctx *c, const struct ent *e)
{
	if (NLFS_GROW(c->ents, c->ecap, c->nents + 1))
		return -ENOMEM;
	c->ents[c->nents++] = *e;
	return 0;
}

static bool record_alive(const struct dctx *c, uint64_t ino, bool allocated,
			 const struct nlfs_inode *rec)
{
	return allocated && nlfs_le16(rec->i_links_count) > 0 &&
	       (ino >= c->first_ino || ino == NLFS_ROOT_INO);
}

static void adjust(const struct dctx *c, int side, uint64_t ino, struct nlfs_inode *rec)
{
	struct nlfs_file f = { .ino = ino, .cno = c->ifile[side].cno, .inode = *rec };

	nlfs_rf_adjust_inode(c->fs, &f);
	*rec = f.inode;
}

/* the entries of block BLKOFF (from FIRST) in both checkpoints, bitmaps BM */
static int compare_entries(struct dctx *c, uint64_t blkoff, uint64_t first, uint64_t group_end,
			   uint8_t *bm[2], uint8_t *blk[2])
{
	const struct nlfs_palloc_geo g = nlfs_palloc_geo(c->bs, c->isz);
	int rc = 0;

	for (int s = OLD; s <= NEW && !rc; s++) {
		bool hole;

		rc = nlfs_file_read_block(c->fs, &c->ifile[s], blkoff, blk[s], &hole, c->err);
	}
	for (uint64_t i = 0; !rc && i < g.epb && first + i < group_end; i++) {
		uint64_t ino = first + i, r = ino % g.epg;
		struct ent e = { .ino = ino };

		for (int s = OLD; s <= NEW; s++) {
			memcpy(&e.rec[s], blk[s] + i * c->isz, sizeof(e.rec[s]));
			e.alive[s] = record_alive(c, ino, bit(bm[s], r), &e.rec[s]);
			if (e.alive[s])
				adjust(c, s, ino, &e.rec[s]);
		}
		if (!e.alive[OLD] && !e.alive[NEW])
			continue;
		if (e.alive[OLD] && e.alive[NEW]) {
			if (!memcmp(&e.rec[OLD], &e.rec[NEW], sizeof(e.rec[OLD])))
				continue;
			e.replaced = e.rec[OLD].i_generation != e.rec[NEW].i_generation ||
				     ((nlfs_le16(e.rec[OLD].i_mode) ^ nlfs_le16(e.rec[NEW].i_mode)) &
				      NLFS_S_IFMT);
		}
		rc = add_ent(c, &e);
	}
	return rc;
}

/* the blocks diff_ifiles reads, D's and GROUPS' bitmaps on both sides,
 * asked for from the disk at once */
static void prefetch_ifile_blocks(struct dctx *c, const struct kp_list *d, const uint64_t *groups,
				  size_t ngroups)
{
	size_t n = 2 * (d->n + ngroups), nb = 0;
	struct fblk *fb = n ? malloc(n * sizeof(*fb)) : NULL;

	for (int s = OLD; fb && s <= NEW; s++)
		for (size_t i = 0; i < d->n + ngroups; i++)
			fb[nb++] = (struct fblk){ &c->ifile[s], i < d->n ? d->v[i].key :
				nlfs_palloc_bitmap_blkoff(c->bs, c->isz, groups[i - d->n]), 0, 0 };
	if (fb)
		locate_blocks(c, fb, nb);
	free(fb);
}

static int diff_ifiles(struct dctx *c)
{
	const struct nlfs_palloc_geo g = nlfs_palloc_geo(c->bs, c->isz);
	struct kp_list d = { 0 };
	uint64_t *groups = NULL;
	size_t ngroups = 0, gcap = 0;
	uint8_t *bm[2] = { malloc(c->bs), malloc(c->bs) }, *blk[2] = { malloc(c->bs), malloc(c->bs) };
	int rc = -ENOMEM;

	if (!bm[0] || !bm[1] || !blk[0] || !blk[1])
		goto out;
	rc = map_differences(c, &c->ifile[OLD], &c->ifile[NEW], &d, &c->st->ifile_blocks);
	c->st->ifile_blocks_differ = d.n;
	/* the groups touched: a changed bitmap may change entries whose blocks did not */
	for (size_t i = 0; !rc && i < d.n; i++) {
		uint64_t group, first;

		if (nlfs_palloc_role_of(&g, d.v[i].key, &group, &first) == NLFS_PALLOC_DESC)
			continue;
		if (ngroups && groups[ngroups - 1] == group)
			continue;
		if (NLFS_GROW(groups, gcap, ngroups + 1))
			rc = -ENOMEM;
		else
			groups[ngroups++] = group;
	}
	if (!rc)
		sort(groups, ngroups, sizeof(*groups), cmp_u64);
	if (!rc)
		prefetch_ifile_blocks(c, &d, groups, ngroups);
	for (size_t gi = 0, di = 0; !rc && gi < ngroups; gi++) {
		uint64_t group = groups[gi], bblk = nlfs_palloc_bitmap_blkoff(c->bs, c->isz, group);
		uint64_t group_end = (group + 1) * g.epg;
		bool bitmap_differs = false;

		if (gi && groups[gi - 1] == group)
			continue;
		for (int s = OLD; s <= NEW && !rc; s++) {
			bool hole;

			rc = nlfs_file_read_block(c->fs, &c->ifile[s], bblk, bm[s], &hole, c->err);
		}
		if (rc)
			break;
		while (di < d.n && d.v[di].key < bblk)
			di++;
		bitmap_differs = di < d.n && d.v[di].key == bblk;
		for (uint64_t k = 0; !rc && k + 1 < g.bpg; k++) {
			uint64_t blkoff = bblk + 1 + k, first = group * g.epg + k * g.epb;
			bool changed = false;

			while (di < d.n && d.v[di].key < blkoff)
				di++;
			changed = di < d.n && d.v[di].key == blkoff;
			for (uint64_t r = k * g.epb; bitmap_differs && !changed && r < (k + 1) * g.epb &&
			     r < g.epg; r++)
				changed = bit(bm[OLD], r) != bit(bm[NEW], r);
			if (changed)
				rc = compare_entries(c, blkoff, first, group_end, bm, blk);
		}
	}
out:
	free(d.v);
	free(groups);
	free(bm[0]);
	free(bm[1]);
	free(blk[0]);
	free(blk[1]);
	return rc;
}

/* ---- the directories read for names, kept parsed ---- */

/*
 * A directory read to name something is read once per checkpoint, its
 * blocks asked for together (translated, sorted by disk address, read
 * ahead), and kept parsed: the search for names, the paths upwards and
 * the old checkpoint's paths all look in it again.  A directory whose
 * record is the same in both checkpoints has the same entries (its block
 * map root is in the record): it is read once for both.
 */
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

#define DC_RUN 32   /* adjacent directory blocks read at once */

struct dc_blk {
	uint64_t phys, blkoff;
	struct dc_dir *dir;
};

/* the directory whose file F is */
static struct dc_dir *dc_of(const struct nlfs_file *f)
{
	return (struct dc_dir *)(void *)((char *)(uintptr_t)f - offsetof(struct dc_dir, f));
}

static struct dc_dir *dc_get(const struct dctx *c, int side, uint64_t ino)
{
	bool found;
	void **slot = umap_get(&c->dc[side], ino, &found);

	return found ? *slot : NULL;
}

struct dc_fill {
	struct dc_dir *d;
	uint64_t blkoff;
};

static int dc_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct dc_fill *fl = arg;
	struct dc_dir *d = fl->d;
	char *copy;

	if (len == 2 && !memcmp(name, "..", 2)) {
		if (!d->parent)
			d->parent = ino;
		return 0;
	}
	if (dot_or_dotdot(name, len))
		return 0;
	copy = copy_name(name, len);
	if (!copy || NLFS_GROW(d->v, d->cap, d->n + 1)) {
		free(copy);
		return -ENOMEM;
	}
	d->v[d->n] = (struct dc_ent){ ino, fl->blkoff, d->n, copy, type };
	d->n++;
	return 0;
}

static int cmp_dc_ent(const void *a, const void *b)
{
	const struct dc_ent *x = a, *y = b;

	if (x->blkoff != y->blkoff)
		return x->blkoff < y->blkoff ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_dc_blk(const void *a, const void *b)
{
	return cmp_u64(&((const struct dc_blk *)a)->phys, &((const struct dc_blk *)b)->phys);
}

static void dc_free_dir(struct dc_dir *d)
{
	for (size_t i = 0; d && i < d->n; i++)
		free(d->v[i].name);
	if (d)
		free(d->v);
	free(d);
}

/* the inode records of INOS in checkpoint SIDE asked for from the disk */
static void prefetch_records(struct dctx *c, int side, const uint64_t *inos, size_t n)
{
	struct fblk *fb = n ? malloc(n * sizeof(*fb)) : NULL;

	for (size_t i = 0; fb && i < n; i++) {
		uint32_t byteoff;

		fb[i] = (struct fblk){ &c->ifile[side], 0, 0, 0 };
		nlfs_palloc_locate(c->bs, c->isz, inos[i], &fb[i].blkoff, &byteoff);
	}
	if (fb)
		locate_blocks(c, fb, n);
	free(fb);
}

/* Directories INOS of checkpoint SIDE into the cache (those not there);
 * *NREAD (if not NULL) counts those read */
static int dc_load(struct dctx *c, int side, const uint64_t *inos, size_t n, uint64_t *nread)
{
	struct dc_dir **load = NULL;
	struct dc_blk *blks = NULL;
	struct fblk *fb = NULL;
	size_t nload = 0, lcap = 0, nblks = 0, bcap = 0, nfb = 0, fcap = 0;
	uint8_t *buf = NULL;
	int rc = 0;

	uint64_t *want = n > 1 ? malloc(n * sizeof(*want)) : NULL;
	size_t nwant = 0;

	/* the records of those not read yet, asked for together */
	for (size_t i = 0; want && i < n; i++)
		if (!dc_get(c, side, inos[i]))
			want[nwant++] = inos[i];
	if (nwant > 1)
		prefetch_records(c, side, want, nwant);
	free(want);
	for (size_t i = 0; !rc && i < n; i++) {
		struct dc_dir *d, *other;

		if (dc_get(c, side, inos[i]))
			continue;
		d = calloc(1, sizeof(*d));
		if (!d || NLFS_GROW(c->dc_own, c->dc_owncap, c->ndc_own + 1)) {
			free(d);
			rc = -ENOMEM;
			break;
		}
		d->ino = inos[i];
		rc = nlfs_ifile_read(c->fs, &c->ifile[side], d->ino, &d->f, c->err);
		if (rc == -ENOENT || (!rc && !is_dir(&d->f.inode))) {
			nlfs_err_clear(c->err);
			rc = 0;
		} else if (!rc) {
			d->ok = true;
		}
		other = d->ok ? dc_get(c, !side, d->ino) : NULL;
		if (!rc && other && other->ok &&
		    !memcmp(&other->f.inode, &d->f.inode, sizeof(d->f.inode))) {
			free(d);
			rc = umap_put(&c->dc[side], inos[i], other);
			continue;
		}
		c->dc_own[c->ndc_own++] = d;
		if (!rc)
			rc = umap_put(&c->dc[side], d->ino, d);
		if (!rc && d->ok) {
			if (NLFS_GROW(load, lcap, nload + 1))
				rc = -ENOMEM;
			else
				load[nload++] = d;
		}
	}
	for (size_t i = 0; !rc && i < nload; i++) {
		uint64_t size = nlfs_le64(load[i]->f.inode.i_size), end;
		uint64_t nblocks = size / c->bs + (size % c->bs != 0);

		rc = nlfs_file_mapped_end(c->fs, &load[i]->f, &end, c->err);
		if (!rc && nblocks > end)
			nblocks = end;
		for (uint64_t b = 0; !rc && b < nblocks; b++) {
			if (NLFS_GROW(fb, fcap, nfb + 1))
				rc = -ENOMEM;
			else
				fb[nfb++] = (struct fblk){ &load[i]->f, b, 0, 0 };
		}
	}
	if (!rc)
		locate_blocks(c, fb, nfb);
	for (size_t i = 0; !rc && i < nfb; i++) {
		uint64_t at;

		if (fb[i].rc) {   /* again, for the message */
			rc = nlfs_file_block_where(c->fs, fb[i].f, fb[i].blkoff, &at, c->err);
			if (!rc)
				rc = fb[i].rc;
		}
		if (rc || !fb[i].phys)
			continue;
		if (NLFS_GROW(blks, bcap, nblks + 1))
			rc = -ENOMEM;
		else
			blks[nblks++] = (struct dc_blk){ fb[i].phys, fb[i].blkoff, dc_of(fb[i].f) };
	}
	if (nread)
		*nread += nload;
	sort(blks, nblks, sizeof(*blks), cmp_dc_blk);
	buf = rc ? NULL : malloc((size_t)c->bs * DC_RUN);
	if (!rc && !buf)
		rc = -ENOMEM;
	for (size_t i = 0, j; !rc && i < nblks; i = j) {
		/* adjacent blocks in one read; alone where that fails, to name the block */
		for (j = i + 1; j < nblks && j - i < DC_RUN && blks[j].phys == blks[j - 1].phys + 1; j++)
			;
		if (j - i > 1 && nlfs_io_read(nlfs_fs_io(c->fs), buf, (j - i) * c->bs,
					       blks[i].phys * c->bs))
			j = i + 1;
		else if (j - i == 1)
			rc = nlfs_io_read(nlfs_fs_io(c->fs), buf, c->bs, blks[i].phys * c->bs);
		if (rc)
			rc = nlfs_err_set(c->err, rc, blks[i].phys, "directory %llu, block %llu",
					  (unsigned long long)blks[i].dir->ino,
					  (unsigned long long)blks[i].blkoff);
		for (size_t k = i; !rc && k < j; k++) {
			struct dc_fill fl = { blks[k].dir, blks[k].blkoff };

			rc = nlfs_dir_block_entries(&blks[k].dir->f, blks[k].blkoff,
						    buf + (k - i) * c->bs, c->bs, dc_entry, &fl, c->err);
		}
	}
	for (size_t i = 0; !rc && i < nload; i++)
		sort(load[i]->v, load[i]->n, sizeof(*load[i]->v), cmp_dc_ent);
	free(buf);
	free(fb);
	free(blks);
	free(load);
	return rc;
}

static void dc_free(struct dctx *c)
{
	for (size_t i = 0; i < c->ndc_own; i++)
		dc_free_dir(c->dc_own[i]);
	free(c->dc_own);
	for (int s = OLD; s <= NEW; s++) {
		free(c->dc[s].keys);
		free(c->dc[s].vals);
	}
}

/* ---- directories ---- */

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
	if (dot_or_dotdot(name, len))
		return 0;
	copy = copy_name(name, len);
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
static int diff_dir(struct dctx *c, const struct ent *e)
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
		 * (read already with the others, see whole_dirs) */
		for (int s = OLD; s <= NEW && !rc; s++) {
			const struct dc_dir *cd = whole[s] ? dc_get(c, s, e->ino) : NULL;

			if (cd && cd->ok && !memcmp(&cd->f.inode, &e->rec[s], sizeof(e->rec[s])))
				for (size_t i = 0; !rc && i < cd->n; i++)
					rc = collect_entry(cd->v[i].name, (unsigned)strlen(cd->v[i].name),
							   cd->v[i].ino, cd->v[i].type, &l[s]);
			else if (whole[s])
				rc = nlfs_dir_iterate(c->fs, &f[s], collect_entry, &l[s], c->err);
		}
	} else if (!rc && e->alive[OLD] && e->alive[NEW] && is_dir(&e->rec[OLD])) {
		rc = map_differences(c, &f[OLD], &f[NEW], &d, &nmapped);
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
		sort(l[s].v, l[s].n, sizeof(*l[s].v), cmp_name_ino);
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
static int whole_dirs(struct dctx *c)
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
			rc = dc_load(c, s, dirs, n, NULL);
	}
	free(dirs);
	return rc;
}

static int cmp_ent(const void *a, const void *b)
{
	return cmp_u64(&((const struct ent *)a)->ino, &((const struct ent *)b)->ino);
}

static int cmp_lchg(const void *a, const void *b)
{
	const struct lchg *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->side - y->side;
}

static struct ent *find_ent(struct dctx *c, uint64_t ino)
{
	struct ent key = { .ino = ino };

	if (!c->nents)
		return NULL;
	return bsearch(&key, c->ents, c->nents, sizeof(*c->ents), cmp_ent);
}

/* An inode named by a link change whose record did not change (a writer
 * need not touch a renamed file's ctime): it is a change all the same. */
static int add_link_only(struct dctx *c, uint64_t ino)
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
	return add_ent(c, &e);
}

/* ---- paths ---- */

static int push_path(struct ent *e, int side, uint64_t parent, char *path)
{
	if (!path || NLFS_GROW(e->paths[side], e->cap[side], e->npaths[side] + 1)) {
		free(path);
		return -ENOMEM;
	}
	e->paths[side][e->npaths[side]++] = (struct lpath){ path, parent };
	return 0;
}

struct find_ino {
	uint64_t want, found;
	char *name;
};

static int match_ino(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct find_ino *f = arg;

	(void)type;
	if (len == 2 && !memcmp(name, "..", 2) && !f->want) {
		f->found = ino;
		return 1;
	}
	if (f->want && ino == f->want && !dot_or_dotdot(name, len)) {
		f->name = malloc(len + 1);
		if (!f->name)
			return -ENOMEM;
		memcpy(f->name, name, len);
		f->name[len] = 0;
		return 1;
	}
	return 0;
}

/* the ".." of directory INO in checkpoint SIDE (FIND->want 0), or the
 * name INO has in directory DIR (FIND->want INO) */
static int look_in(struct dctx *c, int side, uint64_t dir, struct find_ino *find)
{
	struct nlfs_file f;
	struct dc_dir *d;
	int rc = dc_load(c, side, &dir, 1, NULL);

	d = rc ? NULL : dc_get(c, side, dir);
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
static int dir_path(struct dctx *c, int side, uint64_t dir, const char **out)
{
	struct { uint64_t ino, parent; } *chain = NULL;
	size_t depth = 0, cap = 0;
	bool found;
	void **slot;
	int rc = 0;

	for (uint64_t ino = dir; !rc && ino != NLFS_ROOT_INO;) {
		struct find_ino up = { 0, 0, NULL };

		umap_get(&c->dirpath[side], ino, &found);
		if (found)
			break;
		if (depth == MAX_DEPTH) {
			rc = nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "directory %llu: no way up to the root (checkpoint %llu)",
					  (unsigned long long)dir,
					  (unsigned long long)c->ifile[side].cno);
			break;
		}
		rc = look_in(c, side, ino, &up);
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
		const char *ppath = "";
		char *path;

		if (parent != NLFS_ROOT_INO)
			ppath = *umap_get(&c->dirpath[side], parent, &found);
		rc = look_in(c, side, parent, &fi);
		if (!rc && !fi.name)
			rc = nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "directory %llu is not in its parent %llu (checkpoint %llu)",
					  (unsigned long long)ino, (unsigned long long)parent,
					  (unsigned long long)c->ifile[side].cno);
		if (rc)
			break;
		path = join(ppath, fi.name, strlen(fi.name));
		free(fi.name);
		if (!path || umap_put(&c->dirpath[side], ino, path)) {
			free(path);
			rc = -ENOMEM;
		}
	}
	free(chain);
	if (rc)
		return rc;
	slot = dir == NLFS_ROOT_INO ? NULL : umap_get(&c->dirpath[side], dir, &found);
	*out = slot ? *slot : "";
	return 0;
}

/* the walk of the names: every path of every changed inode of SIDE */
struct walk {
	struct dctx *c;
	int side;
	uint64_t remaining;
	uint64_t dir;
	const char *path;
	struct { uint64_t ino; char *path; } *stack;
	size_t n, cap;
	struct umap seen;
};

static int walk_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct walk *w = arg;
	struct ent *e;
	bool found;

	if (dot_or_dotdot(name, len))
		return 0;
	e = find_ent(w->c, ino);
	if (e && e->alive[w->side] && ino != NLFS_ROOT_INO) {
		if (push_path(e, w->side, w->dir, join(w->path, name, len)))
			return -ENOMEM;
		if (w->remaining)
			w->remaining--;
	}
	if (type == NLFS_FT_DIR) {
		umap_get(&w->seen, ino, &found);
		if (found)
			return 0;   /* a directory named twice: a damaged volume */
		if (umap_put(&w->seen, ino, NULL) || NLFS_GROW(w->stack, w->cap, w->n + 1))
			return -ENOMEM;
		w->stack[w->n].ino = ino;
		w->stack[w->n].path = join(w->path, name, len);
		if (!w->stack[w->n++].path)
			return -ENOMEM;
	}
	return 0;
}

static uint64_t links_needed(const struct ent *e, int side)
{
	if (!e->alive[side] || e->ino == NLFS_ROOT_INO)
		return 0;
	return is_dir(&e->rec[side]) ? 1 : nlfs_le16(e->rec[side].i_links_count);
}

static int walk_names(struct dctx *c, int side)
{
	struct walk w = { .c = c, .side = side };
	int rc = 0;

	for (size_t i = 0; i < c->nents; i++)
		w.remaining += links_needed(&c->ents[i], side);
	if (umap_put(&w.seen, NLFS_ROOT_INO, NULL) || NLFS_GROW(w.stack, w.cap, 1))
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
	free(w.seen.keys);
	free(w.seen.vals);
	return rc;
}

/* the first of INO's link changes in c->lch (sorted by inode), or where
 * they would be */
static size_t lch_first(const struct dctx *c, uint64_t ino)
{
	size_t lo = 0, hi = c->nlch;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->lch[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the link changes of INO on SIDE */
static uint64_t links_known(const struct dctx *c, uint64_t ino, int side)
{
	uint64_t n = 0;

	for (size_t lo = lch_first(c, ino); lo < c->nlch && c->lch[lo].ino == ino; lo++)
		n += c->lch[lo].side == side;
	return n;
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
struct found {
	struct ent *e;
	uint64_t dir;
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

	if (dot_or_dotdot(name, len))
		return 0;
	if (type == NLFS_FT_DIR) {
		char *copy = copy_name(name, len);

		if (!copy || NLFS_GROW(sc->par, sc->pcap, sc->npar + 1)) {
			free(copy);
			return -ENOMEM;
		}
		sc->par[sc->npar++] = (struct dir_parent){ ino, sc->cur_dir, copy };
	}
	e = find_ent(sc->c, ino);
	if (e && e->alive[sc->side] && ino != NLFS_ROOT_INO) {
		char *copy = copy_name(name, len);

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
	return cmp_u64(&((const struct scan_blk *)a)->vbn, &((const struct scan_blk *)b)->vbn);
}

static int cmp_phys(const void *a, const void *b)
{
	return cmp_u64(&((const struct scan_blk *)a)->phys, &((const struct scan_blk *)b)->phys);
}

static int cmp_par(const void *a, const void *b)
{
	return cmp_u64(&((const struct dir_parent *)a)->ino, &((const struct dir_parent *)b)->ino);
}

/* the path of directory DIR from the parents the scan recorded (kept) */
static int scan_dir_path(struct scan *sc, uint64_t dir, const char **out)
{
	struct umap *m = &sc->c->dirpath[sc->side];
	uint64_t chain[MAX_DEPTH];
	size_t depth = 0;
	const char *at = "";
	bool found;
	void **slot;

	for (uint64_t ino = dir; ino != NLFS_ROOT_INO; depth++) {
		struct dir_parent key = { .ino = ino }, *p;

		slot = umap_get(m, ino, &found);
		if (found) {
			at = *slot;
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
		char *path = join(at, p->name, strlen(p->name));

		if (!path || umap_put(m, chain[depth], path)) {
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

static int scan_names(struct dctx *c, int side)
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
	sort(sc.blks, sc.nblks, sizeof(*sc.blks), cmp_vbn);
	for (size_t i = 0; !rc && i < sc.nblks; i++) {
		struct scan_blk *b = &sc.blks[i];

		if (!nlfs_rf_lookup(c->fs, sc.dirs[b->dir].ino, b->blkoff, &b->phys))
			rc = nlfs_file_block_addr(c->fs, &sc.dirs[b->dir], b->vbn, &b->phys, c->err);
	}
	sort(sc.blks, sc.nblks, sizeof(*sc.blks), cmp_phys);
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
	sort(sc.par, sc.npar, sizeof(*sc.par), cmp_par);
	for (size_t i = 0; !rc && i < sc.nhits; i++) {
		const char *dp;

		rc = scan_dir_path(&sc, sc.hits[i].dir, &dp);
		if (!rc)
			rc = push_path(sc.hits[i].e, side, sc.hits[i].dir,
				       join(dp, sc.hits[i].name, strlen(sc.hits[i].name)));
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

/* ---- names found near the inode's number ---- */

/*
 * Before the scan of every directory: inode numbers are handed out in the
 * order files are made, and trees are made a directory at a time, so a
 * file's directory is mostly among the directories numbered just below
 * it, their parents, and those parents' subdirectories numbered below it.
 * Every candidate is checked by its entries (and its path is then found
 * upwards, each step checked), so a wrong guess costs a directory read;
 * the candidates of all the inodes sought are read together, round by
 * round, and past a budget of directories the scan does the work.
 */
#define SEEK_WINDOW 512      /* inode numbers looked back for the first candidate */
#define SEEK_PER_ROUND 8     /* candidates an unnamed inode has read per round */
#define SEEK_BUDGET 16       /* directories read per inode sought, past SEEK_BASE */
#define SEEK_BASE 256
#define SEEK_ROUNDS 64
#define SEEK_MAXCAND 64      /* candidates an inode may have in all */

struct seeker {
	struct ent *e;
	uint64_t need, got;
	struct seek_cand {
		uint64_t dir;
		bool taken;
	} cand[SEEK_MAXCAND];        /* directories to look in */
	size_t ncand;
	uint64_t took[SEEK_PER_ROUND];   /* those taken in this round */
	size_t ntook;
};

struct seek {
	struct dctx *c;
	int side;
	struct seeker *s;
	size_t n, cap;
	size_t *of;                  /* per changed inode: its seeker + 1, 0 for none */
	struct found *hits;
	size_t nhits, hcap;
};

/* how far directory DIR is from S's inode: those numbered below it first */
static uint64_t seek_distance(const struct seeker *s, uint64_t dir)
{
	return dir < s->e->ino ? s->e->ino - dir : UINT64_MAX / 2 + (dir - s->e->ino);
}

/* DIR a candidate of S; when S has all it may hold, in place of the
 * farthest one not yet taken, if DIR is nearer */
static void seek_push(struct seeker *s, uint64_t dir)
{
	size_t far = SIZE_MAX;

	for (size_t i = 0; i < s->ncand; i++) {
		if (s->cand[i].dir == dir)
			return;
		if (!s->cand[i].taken &&
		    (far == SIZE_MAX || seek_distance(s, s->cand[i].dir) > seek_distance(s, s->cand[far].dir)))
			far = i;
	}
	if (s->ncand < SEEK_MAXCAND)
		s->cand[s->ncand++] = (struct seek_cand){ dir, false };
	else if (far != SIZE_MAX && seek_distance(s, dir) < seek_distance(s, s->cand[far].dir))
		s->cand[far].dir = dir;
}

/* the nearest candidate of S not yet taken, taken now; false if none */
static bool seek_take(struct seeker *s, uint64_t *dir)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < s->ncand; i++)
		if (!s->cand[i].taken &&
		    (best == SIZE_MAX || seek_distance(s, s->cand[i].dir) < seek_distance(s, s->cand[best].dir)))
			best = i;
	if (best == SIZE_MAX)
		return false;
	s->cand[best].taken = true;
	*dir = s->cand[best].dir;
	return true;
}

/* a seeker's look down the ifile for its first candidate */
struct seek_down {
	size_t s;                    /* the seeker */
	uint64_t next, lo;           /* the next inode number to look at; the lowest */
	uint64_t blkoff;             /* the ifile block NEXT is in */
};

static int cmp_seek_down(const void *a, const void *b)
{
	const struct seek_down *x = a, *y = b;

	return x->blkoff < y->blkoff ? -1 : x->blkoff > y->blkoff;
}

/*
 * The first candidates of every seeker: the directory numbered nearest
 * below its inode (within SEEK_WINDOW), else the root.  Cold, looking one
 * seeker after another would wait for the disk at every ifile block: the
 * seekers go down together instead, a block each per round, and a round's
 * blocks are asked for at once and read once each, in disk order.
 */
static int seek_start(struct seek *sk, uint8_t *buf)
{
	struct dctx *c = sk->c;
	struct seek_down *dn = sk->n ? malloc(sk->n * sizeof(*dn)) : NULL;
	struct fblk *fb = sk->n ? malloc(sk->n * sizeof(*fb)) : NULL;
	size_t n = 0;
	int rc = sk->n && (!dn || !fb) ? -ENOMEM : 0;

	for (size_t i = 0; !rc && i < sk->n; i++) {
		uint64_t ino = sk->s[i].e->ino, lo = ino > SEEK_WINDOW ? ino - SEEK_WINDOW : 0;
		uint32_t off;

		if (lo < c->first_ino)
			lo = c->first_ino;
		if (ino <= lo) {
			seek_push(&sk->s[i], NLFS_ROOT_INO);
			continue;
		}
		dn[n] = (struct seek_down){ .s = i, .next = ino - 1, .lo = lo };
		nlfs_palloc_locate(c->bs, c->isz, dn[n].next, &dn[n].blkoff, &off);
		n++;
	}
	while (!rc && n) {
		size_t nfb = 0, k = 0, b = 0;
		uint64_t loaded = UINT64_MAX;
		bool readable = false;

		sort(dn, n, sizeof(*dn), cmp_seek_down);
		for (size_t i = 0; i < n; i++)
			if (!i || dn[i].blkoff != dn[i - 1].blkoff)
				fb[nfb++] = (struct fblk){ &c->ifile[sk->side], dn[i].blkoff, 0, 0 };
		locate_blocks(c, fb, nfb);
		for (size_t i = 0; i < n; i++) {
			struct seek_down d = dn[i];
			bool found = false, gone = false;

			while (fb[b].blkoff != d.blkoff)
				b++;
			if (fb[b].blkoff != loaded) {
				loaded = fb[b].blkoff;
				readable = !fb[b].rc &&
					   (!fb[b].phys || !nlfs_io_read(nlfs_fs_io(c->fs), buf, c->bs,
									 fb[b].phys * c->bs));
			}
			/* unreadable: the scan will say what is wrong */
			gone = !readable;
			/* this block's records, downwards (a hole has none) */
			while (!gone && !found) {
				uint64_t blkoff;
				uint32_t off;

				nlfs_palloc_locate(c->bs, c->isz, d.next, &blkoff, &off);
				if (blkoff != d.blkoff)
					break;
				if (fb[b].phys) {
					struct nlfs_inode rec;

					memcpy(&rec, buf + off, sizeof(rec));
					found = is_dir(&rec) && nlfs_le16(rec.i_links_count);
				}
				if (found)
					seek_push(&sk->s[d.s], d.next);
				else if (d.next == d.lo)
					gone = true;
				else
					d.next--;
			}
			if (gone)
				seek_push(&sk->s[d.s], NLFS_ROOT_INO);
			if (found || gone)
				continue;
			nlfs_palloc_locate(c->bs, c->isz, d.next, &d.blkoff, &(uint32_t){ 0 });
			dn[k++] = d;   /* k <= i: the rounds' entries move down */
		}
		n = k;
	}
	free(dn);
	free(fb);
	return rc;
}

/* the entries of D that name an inode sought: links found */
static int seek_check(struct seek *sk, struct dc_dir *d)
{
	struct dctx *c = sk->c;

	if (!d->ok || d->checked[sk->side])
		return 0;
	d->checked[sk->side] = true;
	for (size_t i = 0; i < d->n; i++) {
		struct ent *e = find_ent(c, d->v[i].ino);
		struct seeker *s = e ? (sk->of[e - c->ents] ? &sk->s[sk->of[e - c->ents] - 1] : NULL) :
			NULL;
		char *name;

		if (!s)
			continue;
		name = strdup(d->v[i].name);
		if (!name || NLFS_GROW(sk->hits, sk->hcap, sk->nhits + 1)) {
			free(name);
			return -ENOMEM;
		}
		sk->hits[sk->nhits++] = (struct found){ e, d->ino, name };
		s->got++;
	}
	return 0;
}

/* more candidates from D, read for S: its parent, its subdirectories
 * numbered below the inode sought (the nearest first) */
static void seek_expand(struct seeker *s, const struct dc_dir *d)
{
	if (!d->ok)
		return;
	if (d->parent && d->parent != d->ino)
		seek_push(s, d->parent);
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].type == NLFS_FT_DIR && d->v[i].ino < s->e->ino)
			seek_push(s, d->v[i].ino);
}

/* Load the directories of FOUND and of every directory above them into
 * the cache, a level a round (reads in disk order); stops at a loop. */
static int dc_load_up(struct dctx *c, int side, const uint64_t *dirs, size_t n)
{
	uint64_t *want = n ? malloc(n * sizeof(*want)) : NULL;
	size_t nw = n;
	int rc = n && !want ? -ENOMEM : 0;

	if (want)
		memcpy(want, dirs, n * sizeof(*want));
	for (unsigned depth = 0; !rc && nw && depth < MAX_DEPTH; depth++) {
		size_t k = 0;

		rc = dc_load(c, side, want, nw, NULL);
		for (size_t i = 0; !rc && i < nw; i++) {
			struct dc_dir *d = dc_get(c, side, want[i]);

			if (d && d->ok && d->parent && d->parent != NLFS_ROOT_INO &&
			    d->parent != d->ino && !dc_get(c, side, d->parent))
				want[k++] = d->parent;
		}
		nw = k;
	}
	free(want);
	return rc;
}

/* Every link of the changed inodes of SIDE whose names are not all known
 * (directories aside, which are found upwards) by the search above: 0
 * with their paths added and e->searched[SIDE] set, 1 where the search
 * gave up (nothing added), or a negative errno. */
static int seek_names(struct dctx *c, int side)
{
	struct seek sk = { .c = c, .side = side };
	uint64_t *batch = NULL, loaded = 0, budget;
	size_t bcap = 0, left = 0;
	uint8_t *buf = malloc(c->bs);
	int rc = buf ? 0 : -ENOMEM;

	sk.of = calloc(c->nents ? c->nents : 1, sizeof(*sk.of));
	if (!sk.of)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < c->nents; i++) {
		struct ent *e = &c->ents[i];
		uint64_t known = links_known(c, e->ino, side), need = links_needed(e, side);

		if (known == need || (known == 0 && e->alive[side] && is_dir(&e->rec[side])))
			continue;
		if (NLFS_GROW(sk.s, sk.cap, sk.n + 1)) {
			rc = -ENOMEM;
			break;
		}
		sk.s[sk.n] = (struct seeker){ .e = e, .need = need };
		sk.of[i] = ++sk.n;
	}
	budget = SEEK_BASE + SEEK_BUDGET * (uint64_t)sk.n;
	if (!rc)
		rc = seek_start(&sk, buf);
	for (unsigned round = 0; !rc; round++) {
		size_t nb = 0;
		bool exhausted = false;

		left = 0;
		for (size_t i = 0; !rc && i < sk.n; i++) {
			struct seeker *s = &sk.s[i];

			s->ntook = 0;
			if (s->got >= s->need)
				continue;
			left++;
			while (!rc && s->ntook < SEEK_PER_ROUND && seek_take(s, &s->took[s->ntook])) {
				if (!dc_get(c, side, s->took[s->ntook]) && NLFS_GROW(batch, bcap, nb + 1))
					rc = -ENOMEM;
				else if (!dc_get(c, side, s->took[s->ntook]))
					batch[nb++] = s->took[s->ntook];
				s->ntook++;
			}
			exhausted |= !s->ntook;
		}
		sort(batch, nb, sizeof(*batch), cmp_u64);
		{
			size_t k = 0;

			for (size_t i = 0; i < nb; i++)
				if (!k || batch[k - 1] != batch[i])
					batch[k++] = batch[i];
			nb = k;
		}
		if (rc || !left || exhausted || round == SEEK_ROUNDS || loaded + nb > budget)
			break;
		loaded += nb;
		rc = dc_load(c, side, batch, nb, &c->st->dirs_sought);
		for (size_t i = 0; !rc && i < sk.n; i++) {
			struct seeker *s = &sk.s[i];

			for (size_t k = 0; !rc && k < s->ntook; k++) {
				struct dc_dir *d = dc_get(c, side, s->took[k]);

				rc = seek_check(&sk, d);
				if (!rc)
					seek_expand(s, d);
			}
		}
	}
	if (!rc && !left) {
		/* the paths of the directories the names are in */
		uint64_t *dirs = sk.nhits ? malloc(sk.nhits * sizeof(*dirs)) : NULL;

		if (sk.nhits && !dirs)
			rc = -ENOMEM;
		for (size_t i = 0; dirs && i < sk.nhits; i++)
			dirs[i] = sk.hits[i].dir;
		if (!rc)
			rc = dc_load_up(c, side, dirs, sk.nhits);
		free(dirs);
		for (size_t i = 0; !rc && i < sk.nhits; i++) {
			const char *dp;

			rc = dir_path(c, side, sk.hits[i].dir, &dp);
			if (rc && rc != -ENOMEM) {
				/* a directory not reached from the root (a damaged
				 * volume): the scan decides, and says what is wrong */
				nlfs_err_clear(c->err);
				for (size_t k = 0; k < sk.n; k++)
					for (size_t j = 0; j < sk.s[k].e->npaths[side]; j++)
						free(sk.s[k].e->paths[side][j].path);
				for (size_t k = 0; k < sk.n; k++)
					sk.s[k].e->npaths[side] = 0;
				left = 1;
				rc = 0;
				break;
			}
			if (!rc)
				rc = push_path(sk.hits[i].e, side, sk.hits[i].dir,
					       join(dp, sk.hits[i].name, strlen(sk.hits[i].name)));
		}
		for (size_t i = 0; !rc && !left && i < sk.n; i++)
			sk.s[i].e->searched[side] = true;
	}
	for (size_t i = 0; i < sk.nhits; i++)
		free(sk.hits[i].name);
	free(sk.hits);
	free(sk.s);
	free(sk.of);
	free(batch);
	free(buf);
	return rc ? rc : left != 0;
}

/* The directories SIDE's paths will be found through (those of the link
 * changes and the directories changed there; for the old side, those of
 * the new paths too), and all above them, read in a few batches: else
 * dir_path reads them one at a time, each waiting for the disk. */
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
	if (!rc) {
		size_t k = 0;

		sort(dirs, n, sizeof(*dirs), cmp_u64);
		for (size_t i = 0; i < n; i++)
			if (!k || dirs[k - 1] != dirs[i])
				dirs[k++] = dirs[i];
		rc = dc_load_up(c, side, dirs, k);
	}
	free(dirs);
	return rc;
}

static int place_links(struct dctx *c, int side)
{
	bool walk = false;
	int rc = 0;

	for (size_t i = 0; i < c->nents && !walk; i++) {
		struct ent *e = &c->ents[i];
		uint64_t known = links_known(c, e->ino, side);

		/* a directory's own path is found upwards, by its ".." */
		walk = known != links_needed(e, side) &&
		       !(known == 0 && e->alive[side] && is_dir(&e->rec[side]));
	}
	if (walk) {
		rc = seek_names(c, side);
		if (rc)
			return rc < 0 ? rc : scan_names(c, side);
	}
	rc = preload_dirs(c, side);
	for (size_t i = 0; !rc && i < c->nents; i++) {
		struct ent *e = &c->ents[i];
		struct find_ino up = { 0, 0, NULL };
		const char *dp;

		if (!links_needed(e, side) || !is_dir(&e->rec[side]))
			continue;
		if (links_known(c, e->ino, side))
			continue;
		rc = dir_path(c, side, e->ino, &dp);
		if (!rc)
			rc = look_in(c, side, e->ino, &up);
		if (!rc)
			rc = push_path(e, side, up.found, strdup(dp));
	}
	for (size_t j = 0; !rc && j < c->nlch; j++) {
		struct lchg *l = &c->lch[j];
		struct ent *e;
		const char *dp;

		if (l->side != side)
			continue;
		e = find_ent(c, l->ino);
		if (!e || !e->alive[side] || e->searched[side])
			continue;   /* a name of a dead inode: a damaged volume; or found already */
		rc = dir_path(c, side, l->dir, &dp);
		if (!rc)
			rc = push_path(e, side, l->dir, join(dp, l->name, strlen(l->name)));
	}
	return rc;
}

static const char *base(const char *path);

/* Is (DIR, NAME) a link of INO that SIDE's directory changes name? */
static bool link_changed(const struct dctx *c, uint64_t ino, int side, uint64_t dir,
			 const char *name)
{
	for (size_t lo = lch_first(c, ino); lo < c->nlch && c->lch[lo].ino == ino; lo++)
		if (c->lch[lo].side == side && c->lch[lo].dir == dir && !strcmp(c->lch[lo].name, name))
			return true;
	return false;
}

/* The old names from the new ones: a link no changed directory added was
 * there before, in the same directory, whose old path is found upwards;
 * the links the changed directories dropped are added.  Only where that
 * does not account for every old link (a damaged volume, an inode number
 * reused under the same name) are the old names walked. */
static int derive_old(struct dctx *c)
{
	bool walk = false;
	int rc = preload_dirs(c, OLD);

	for (size_t i = 0; !rc && i < c->nents && !walk; i++) {
		struct ent *e = &c->ents[i];
		const char *dp;

		if (!links_needed(e, OLD))
			continue;
		for (size_t k = 0; !rc && e->alive[NEW] && !e->replaced && k < e->npaths[NEW]; k++) {
			const struct lpath *lp = &e->paths[NEW][k];
			const char *name = base(lp->path);

			if (link_changed(c, e->ino, NEW, lp->parent, name))
				continue;
			rc = dir_path(c, OLD, lp->parent, &dp);
			if (!rc)
				rc = push_path(e, OLD, lp->parent, join(dp, name, strlen(name)));
		}
		walk = !rc && e->npaths[OLD] + links_known(c, e->ino, OLD) != links_needed(e, OLD);
	}
	if (rc)
		return rc;
	if (walk) {
		for (size_t i = 0; i < c->nents; i++) {
			for (size_t k = 0; k < c->ents[i].npaths[OLD]; k++)
				free(c->ents[i].paths[OLD][k].path);
			c->ents[i].npaths[OLD] = 0;
		}
		return scan_names(c, OLD);
	}
	for (size_t j = 0; !rc && j < c->nlch; j++) {
		struct lchg *l = &c->lch[j];
		struct ent *e = l->side == OLD ? find_ent(c, l->ino) : NULL;
		const char *dp;

		if (!e || !e->alive[OLD])
			continue;
		rc = dir_path(c, OLD, l->dir, &dp);
		if (!rc)
			rc = push_path(e, OLD, l->dir, join(dp, l->name, strlen(l->name)));
	}
	return rc;
}

/* ---- the changes ---- */

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct lpath *)a)->path, ((const struct lpath *)b)->path);
}

static const char *base(const char *path)
{
	return strrchr(path, '/') + 1;
}

/* by link: the directory, then the name in it */
static int cmp_link(const void *a, const void *b)
{
	const struct lpath *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(base(x->path), base(y->path));
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
	int rc;

	memset(c.st, 0, sizeof(*c.st));
	if (c.isz < sizeof(struct nlfs_inode) || c.isz > c.bs)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE, "inode size %u", c.isz);
	rc = nlfs_fs_ifile(fs, old_cno, &c.ifile[OLD], err);
	if (!rc)
		rc = nlfs_fs_ifile(fs, new_cno, &c.ifile[NEW], err);
	if (!rc)
		rc = diff_ifiles(&c);
	nchanged = c.nents;
	if (!rc)
		rc = whole_dirs(&c);
	for (size_t i = 0; !rc && i < nchanged; i++)
		if ((c.ents[i].alive[OLD] && is_dir(&c.ents[i].rec[OLD])) ||
		    (c.ents[i].alive[NEW] && is_dir(&c.ents[i].rec[NEW])))
			rc = diff_dir(&c, &c.ents[i]);
	if (!rc) {
		sort(c.lch, c.nlch, sizeof(*c.lch), cmp_lchg);
		sort(c.ents, c.nents, sizeof(*c.ents), cmp_ent);
		for (size_t j = 0; !rc && j < c.nlch; j++)
			if ((!j || c.lch[j - 1].ino != c.lch[j].ino) && !find_ent(&c, c.lch[j].ino))
				rc = add_link_only(&c, c.lch[j].ino);
		sort(c.ents, c.nents, sizeof(*c.ents), cmp_ent);
	}
	c.st->inodes_changed = c.nents;
	if (!rc)
		rc = place_links(&c, NEW);
	if (!rc)
		rc = derive_old(&c);
	for (size_t i = 0; !rc && i < c.nents; i++) {
		for (int s = OLD; s <= NEW; s++)
			sort(c.ents[i].paths[s], c.ents[i].npaths[s], sizeof(struct lpath),
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
	umap_free(&c.dirpath[OLD]);
	umap_free(&c.dirpath[NEW]);
	dc_free(&c);
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
	rc = walk_names(&c, NEW);
	if (!rc && !e.npaths[NEW])
		rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE,
				  "inode %llu has no name in checkpoint %llu",
				  (unsigned long long)ino, (unsigned long long)c.ifile[NEW].cno);
	if (!rc) {
		sort(e.paths[NEW], e.npaths[NEW], sizeof(struct lpath), cmp_path);
		*path = e.paths[NEW][0].path;
		e.paths[NEW][0].path = NULL;
	}
	for (size_t k = 0; k < e.npaths[NEW]; k++)
		free(e.paths[NEW][k].path);
	free(e.paths[NEW]);
	return rc;
}
