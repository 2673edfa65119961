/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directories read for names, kept parsed (diffP.h).  A directory read to
 * name something is read once per checkpoint, its blocks asked for
 * together (translated, sorted by disk address, read ahead), and kept
 * parsed: the search for names, the paths upwards and the old
 * checkpoint's paths all look in it again.  A directory whose record is
 * the same in both checkpoints has the same entries (its block map root
 * is in the record): it is read once for both.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

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

/* directory INO of checkpoint SIDE, if the cache has it */
struct dc_dir *diff_dc_get(const struct dctx *c, int side, uint64_t ino)
{
	void *d = NULL;

	nlfs_u64map_get(&c->dc[side], ino, &d);
	return d;
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

	if (len == 2 && nlfs_dir_name_is_dots(name, len)) {
		if (!d->parent)
			d->parent = ino;
		return 0;
	}
	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	copy = diff_copy_name(name, len);
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
	return nlfs_cmp_u64(&((const struct dc_blk *)a)->phys, &((const struct dc_blk *)b)->phys);
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
		diff_locate_blocks(c, fb, n);
	free(fb);
}

/* the directories of INOS (N) not in SIDE's cache yet: each read from the
 * ifile (their records asked for together) and cached; those that are
 * live directories whose entries are to be read into *LOAD (*NLOAD).  A
 * directory whose record is the same on the other side shares its entry. */
static int dc_add(struct dctx *c, int side, const uint64_t *inos, size_t n,
		  struct dc_dir ***load, size_t *nload)
{
	uint64_t *want = n > 1 ? malloc(n * sizeof(*want)) : NULL;
	size_t nwant = 0, lcap = 0;
	int rc = 0;

	for (size_t i = 0; want && i < n; i++)
		if (!diff_dc_get(c, side, inos[i]))
			want[nwant++] = inos[i];
	if (nwant > 1)
		prefetch_records(c, side, want, nwant);
	free(want);
	for (size_t i = 0; !rc && i < n; i++) {
		struct dc_dir *d, *other;

		if (diff_dc_get(c, side, inos[i]))
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
		other = d->ok ? diff_dc_get(c, !side, d->ino) : NULL;
		if (!rc && other && other->ok &&
		    !memcmp(&other->f.inode, &d->f.inode, sizeof(d->f.inode))) {
			free(d);
			rc = nlfs_u64map_put(&c->dc[side], inos[i], other);
			continue;
		}
		c->dc_own[c->ndc_own++] = d;
		if (!rc)
			rc = nlfs_u64map_put(&c->dc[side], d->ino, d);
		if (!rc && d->ok) {
			if (NLFS_GROW(*load, lcap, *nload + 1))
				rc = -ENOMEM;
			else
				(*load)[(*nload)++] = d;
		}
	}
	return rc;
}

/* where the blocks of directories LOAD (N) lie, holes left out, into
 * *BLKS (*NBLKS), sorted by disk address */
static int dc_locate(struct dctx *c, struct dc_dir **load, size_t n, struct dc_blk **blks,
		     size_t *nblks)
{
	struct fblk *fb = NULL;
	size_t nfb = 0, fcap = 0, bcap = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
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
		diff_locate_blocks(c, fb, nfb);
	for (size_t i = 0; !rc && i < nfb; i++) {
		uint64_t at;

		if (fb[i].rc) {   /* again, for the message */
			rc = nlfs_file_block_where(c->fs, fb[i].f, fb[i].blkoff, &at, c->err);
			if (!rc)
				rc = fb[i].rc;
		}
		if (rc || !fb[i].phys)
			continue;
		if (NLFS_GROW(*blks, bcap, *nblks + 1))
			rc = -ENOMEM;
		else
			(*blks)[(*nblks)++] = (struct dc_blk){ fb[i].phys, fb[i].blkoff, dc_of(fb[i].f) };
	}
	free(fb);
	nlfs_sort(*blks, *nblks, sizeof(**blks), cmp_dc_blk);
	return rc;
}

/* the blocks B (N, by disk address) read, adjacent ones at once, and
 * their entries parsed into their directories */
static int dc_read(struct dctx *c, const struct dc_blk *b, size_t n)
{
	uint8_t *buf = n ? malloc((size_t)c->bs * DC_RUN) : NULL;
	int rc = n && !buf ? -ENOMEM : 0;

	for (size_t i = 0, j; !rc && i < n; i = j) {
		/* adjacent blocks in one read; alone where that fails, to name the block */
		for (j = i + 1; j < n && j - i < DC_RUN && b[j].phys == b[j - 1].phys + 1; j++)
			;
		if (j - i > 1 && nlfs_io_read(nlfs_fs_io(c->fs), buf, (j - i) * c->bs,
					       b[i].phys * c->bs))
			j = i + 1;
		else if (j - i == 1)
			rc = nlfs_io_read(nlfs_fs_io(c->fs), buf, c->bs, b[i].phys * c->bs);
		if (rc)
			rc = nlfs_err_set(c->err, rc, b[i].phys, "directory %llu, block %llu",
					  (unsigned long long)b[i].dir->ino,
					  (unsigned long long)b[i].blkoff);
		for (size_t k = i; !rc && k < j; k++) {
			struct dc_fill fl = { b[k].dir, b[k].blkoff };

			rc = nlfs_dir_block_entries(&b[k].dir->f, b[k].blkoff,
						    buf + (k - i) * c->bs, c->bs, dc_entry, &fl, c->err);
		}
	}
	free(buf);
	return rc;
}

/* Directories INOS of checkpoint SIDE into the cache (those not there);
 * *NREAD (if not NULL) counts those read */
int diff_dc_load(struct dctx *c, int side, const uint64_t *inos, size_t n, uint64_t *nread)
{
	struct dc_dir **load = NULL;
	struct dc_blk *blks = NULL;
	size_t nload = 0, nblks = 0;
	int rc = dc_add(c, side, inos, n, &load, &nload);

	if (!rc)
		rc = dc_locate(c, load, nload, &blks, &nblks);
	if (nread)
		*nread += nload;
	if (!rc)
		rc = dc_read(c, blks, nblks);
	for (size_t i = 0; !rc && i < nload; i++)
		nlfs_sort(load[i]->v, load[i]->n, sizeof(*load[i]->v), cmp_dc_ent);
	free(blks);
	free(load);
	return rc;
}

void diff_dc_free(struct dctx *c)
{
	for (size_t i = 0; i < c->ndc_own; i++)
		dc_free_dir(c->dc_own[i]);
	free(c->dc_own);
	for (int s = OLD; s <= NEW; s++)
		nlfs_u64map_free(&c->dc[s], NULL);
}

/* Load the directories of FOUND and of every directory above them into
 * the cache, a level a round (reads in disk order); stops at a loop. */
int diff_dc_load_up(struct dctx *c, int side, const uint64_t *dirs, size_t n)
{
	uint64_t *want = n ? malloc(n * sizeof(*want)) : NULL;
	size_t nw = n;
	int rc = n && !want ? -ENOMEM : 0;

	if (want)
		memcpy(want, dirs, n * sizeof(*want));
	for (unsigned depth = 0; !rc && nw && depth < MAX_DEPTH; depth++) {
		size_t k = 0;

		rc = diff_dc_load(c, side, want, nw, NULL);
		for (size_t i = 0; !rc && i < nw; i++) {
			struct dc_dir *d = diff_dc_get(c, side, want[i]);

			if (d && d->ok && d->parent && d->parent != NLFS_ROOT_INO &&
			    d->parent != d->ino && !diff_dc_get(c, side, d->parent))
				want[k++] = d->parent;
		}
		nw = k;
	}
	free(want);
	return rc;
}
