/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inodes that changed between two checkpoints (diffP.h): the two
 * ifiles' maps compared by virtual block number, and the records of the
 * blocks (or bitmaps) that differ compared. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

static bool bit(const uint8_t *bm, uint64_t r)
{
	return bm[r / 8] & (1u << (r % 8));
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
		rc = diff_add_ent(c, &e);
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
		diff_locate_blocks(c, fb, nb);
	free(fb);
}

int diff_ifiles(struct dctx *c)
{
	const struct nlfs_palloc_geo g = nlfs_palloc_geo(c->bs, c->isz);
	struct kp_list d = { 0 };
	uint64_t *groups = NULL;
	size_t ngroups = 0, gcap = 0;
	uint8_t *bm[2] = { malloc(c->bs), malloc(c->bs) }, *blk[2] = { malloc(c->bs), malloc(c->bs) };
	int rc = -ENOMEM;

	if (!bm[0] || !bm[1] || !blk[0] || !blk[1])
		goto out;
	rc = diff_map_differences(c, &c->ifile[OLD], &c->ifile[NEW], &d, &c->st->ifile_blocks);
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
		nlfs_sort(groups, ngroups, sizeof(*groups), nlfs_cmp_u64);
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
