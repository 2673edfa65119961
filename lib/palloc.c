/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The persistent allocator's layout, shared by the DAT and the ifile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"

struct palloc_geo {
	uint64_t epb, epg, bpg, gpd, bpd;
};

static struct palloc_geo palloc_geo(uint32_t blocksize, uint32_t entry_size)
{
	struct palloc_geo g;

	g.epb = blocksize / entry_size;
	g.epg = (uint64_t)blocksize * 8;
	g.bpg = (g.epg + g.epb - 1) / g.epb + 1;
	g.gpd = blocksize / 4;
	g.bpd = g.gpd * g.bpg + 1;
	return g;
}

uint64_t nlfs_palloc_bitmap_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group)
{
	struct palloc_geo g = palloc_geo(blocksize, entry_size);

	return (group / g.gpd) * g.bpd + 1 + (group % g.gpd) * g.bpg;
}

uint64_t nlfs_palloc_desc_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group)
{
	struct palloc_geo g = palloc_geo(blocksize, entry_size);

	return (group / g.gpd) * g.bpd;
}

uint64_t nlfs_palloc_ngroups(uint32_t blocksize, uint32_t entry_size, uint64_t last_blkoff)
{
	struct palloc_geo g = palloc_geo(blocksize, entry_size);
	uint64_t d = last_blkoff / g.bpd, r = last_blkoff % g.bpd;

	/* a descriptor block alone covers no group yet */
	if (r == 0)
		return d * g.gpd;
	return d * g.gpd + (r - 1) / g.bpg + 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int nlfs_palloc_groups_of(uint32_t blocksize, uint32_t entry_size, const uint64_t *keys,
			  size_t nkeys, uint64_t **groups, size_t *ngroups, uint64_t *nbeyond)
{
	struct palloc_geo g = palloc_geo(blocksize, entry_size);
	uint64_t last = UINT64_MAX / g.epg;   /* the group of entry 2^64 - 1 */
	size_t n = 0, cap = nkeys + 1;
	uint64_t *out = malloc(cap * sizeof(*out));

	*nbeyond = 0;
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < nkeys; i++) {
		uint64_t d = keys[i] / g.bpd, r = keys[i] % g.bpd;
		uint64_t first = d * g.gpd, count = r == 0 ? g.gpd : 1;

		if (d > last / g.gpd || (r && first + (r - 1) / g.bpg > last)) {
			(*nbeyond)++;
			continue;
		}
		if (r)
			first += (r - 1) / g.bpg;
		if (n + count > cap) {
			uint64_t *p;

			cap = (n + count) * 2;
			p = realloc(out, cap * sizeof(*out));
			if (!p) {
				free(out);
				return -ENOMEM;
			}
			out = p;
		}
		for (uint64_t j = 0; j < count; j++)
			out[n++] = first + j;
	}
	qsort(out, n, sizeof(*out), cmp_u64);
	*ngroups = 0;
	for (size_t i = 0; i < n; i++)
		if (!*ngroups || out[*ngroups - 1] != out[i])
			out[(*ngroups)++] = out[i];
	*groups = out;
	return 0;
}

void nlfs_palloc_locate(uint32_t blocksize, uint32_t entry_size, uint64_t nr,
			uint64_t *blkoff, uint32_t *byteoff)
{
	struct palloc_geo g = palloc_geo(blocksize, entry_size);
	uint64_t group = nr / g.epg, r = nr % g.epg;

	*blkoff = nlfs_palloc_bitmap_blkoff(blocksize, entry_size, group) + 1 + r / g.epb;
	*byteoff = (uint32_t)((r % g.epb) * entry_size);
}

int nlfs_palloc_read_group(struct nlfs_fs *fs, const struct nlfs_file *f, uint32_t entry_size,
			   uint64_t group, struct nlfs_palloc_group *out, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t dblk = nlfs_palloc_desc_blkoff(bs, entry_size, group);
	uint32_t nfrees;
	int rc;

	if (out->desc_blkoff != dblk) {
		/* groups of one descriptor block share it: read it once */
		out->desc_blkoff = UINT64_MAX;
		rc = nlfs_file_read_block(fs, f, dblk, out->desc, &out->desc_hole, err);
		if (rc)
			return rc;
		out->desc_blkoff = dblk;
	}
	memcpy(&nfrees, out->desc + (group % (bs / 4)) * 4, 4);
	out->nfrees = nlfs_le32(nfrees);
	return nlfs_file_read_block(fs, f, nlfs_palloc_bitmap_blkoff(bs, entry_size, group),
				    out->bitmap, &out->bitmap_hole, err);
}

/* ---- allocation, on a file being written (writerP.h) ---- */


static uint64_t desc_blkoff(const struct palloc_geo *g, uint64_t group)
{
	return (group / g->gpd) * g->bpd;   /* as nlfs_palloc_desc_blkoff */
}

/* the group's free count, creating its descriptor block if it is a hole */
static int group_desc(struct nlfs_wfile *wf, const struct palloc_geo *g, uint64_t group,
		      bool for_write, uint32_t **nfrees, struct nlfs_err *err)
{
	uint8_t *blk;
	bool created = false;
	int rc;

	if (for_write) {
		rc = nlfs_wfile_write(wf, desc_blkoff(g, group), &blk, &created, err);
	} else {
		rc = nlfs_wfile_read(wf, desc_blkoff(g, group), &blk, err);
		if (!rc && !blk) {
			*nfrees = NULL;   /* a hole: every group in it is empty */
			return 0;
		}
	}
	if (rc)
		return rc;
	if (created)
		for (uint64_t i = 0; i < g->gpd; i++) {
			uint32_t v = nlfs_cpu_to_le32((uint32_t)g->epg);

			memcpy(blk + 4 * i, &v, 4);
		}
	*nfrees = (uint32_t *)(void *)(blk + 4 * (group % g->gpd));
	return 0;
}

static int set_bit(struct nlfs_wfile *wf, const struct palloc_geo *g, uint32_t entry_size,
		   uint64_t nr, bool value, struct nlfs_err *err)
{
	uint32_t bs = (uint32_t)nlfs_writer_blocksize(wf->w);
	uint64_t group = nr / g->epg, r = nr % g->epg;
	uint8_t *bitmap;
	uint32_t *nfrees, v;
	int rc = group_desc(wf, g, group, true, &nfrees, err);

	if (!rc)
		rc = nlfs_wfile_write(wf, nlfs_palloc_bitmap_blkoff(bs, entry_size, group), &bitmap,
				      NULL, err);
	if (rc)
		return rc;
	if (!!(bitmap[r / 8] & (1u << (r % 8))) == value)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "entry %llu of inode %llu is already %s",
				    (unsigned long long)nr, (unsigned long long)wf->ino,
				    value ? "in use" : "free");
	bitmap[r / 8] ^= (uint8_t)(1u << (r % 8));
	memcpy(&v, nfrees, 4);
	v = nlfs_le32(v);
	v = value ? v - 1 : v + 1;
	v = nlfs_cpu_to_le32(v);
	memcpy(nfrees, &v, 4);
	return 0;
}

int nlfs_palloc_reserve(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
			struct nlfs_err *err)
{
	struct palloc_geo g = palloc_geo((uint32_t)nlfs_writer_blocksize(wf->w), entry_size);

	return set_bit(wf, &g, entry_size, nr, true, err);
}

int nlfs_palloc_free(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		     struct nlfs_err *err)
{
	struct palloc_geo g = palloc_geo((uint32_t)nlfs_writer_blocksize(wf->w), entry_size);

	return set_bit(wf, &g, entry_size, nr, false, err);
}

int nlfs_palloc_test(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr, bool *inuse,
		     struct nlfs_err *err)
{
	uint32_t bs = (uint32_t)nlfs_writer_blocksize(wf->w);
	struct palloc_geo g = palloc_geo(bs, entry_size);
	uint64_t r = nr % g.epg;
	uint8_t *bitmap;
	int rc = nlfs_wfile_read(wf, nlfs_palloc_bitmap_blkoff(bs, entry_size, nr / g.epg), &bitmap,
				 err);

	*inuse = !rc && bitmap && (bitmap[r / 8] & (1u << (r % 8)));
	return rc;
}

/* first clear bit at or after FROM in a group's bitmap (NULL: all clear) */
static int64_t find_clear(const uint8_t *bitmap, uint64_t from, uint64_t nbits)
{
	if (!bitmap)
		return from < nbits ? (int64_t)from : -1;
	for (uint64_t r = from; r < nbits; r++) {
		if (r % 8 == 0 && bitmap[r / 8] == 0xff) {
			r += 7;
			continue;
		}
		if (!(bitmap[r / 8] & (1u << (r % 8))))
			return (int64_t)r;
	}
	return -1;
}

int nlfs_palloc_alloc(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t hint,
		      uint64_t *nr, struct nlfs_err *err)
{
	uint32_t bs = (uint32_t)nlfs_writer_blocksize(wf->w);
	struct palloc_geo g = palloc_geo(bs, entry_size);
	uint64_t last = UINT64_MAX / g.epg, first = hint / g.epg;

	/* scan forward from the hint's group; a group past the file's end is
	 * free.  The groups cover the 64-bit space: after the last one, the
	 * scan goes on from group 0 (as the kernel's does) */
	for (uint64_t group = first, n = 0; n <= last; group = group == last ? 0 : group + 1, n++) {
		uint64_t from = n == 0 ? hint % g.epg : 0;
		uint32_t *nfrees, v = (uint32_t)g.epg;
		uint8_t *bitmap;
		int64_t r;
		int rc = group_desc(wf, &g, group, false, &nfrees, err);

		if (rc)
			return rc;
		if (nfrees) {
			memcpy(&v, nfrees, 4);
			v = nlfs_le32(v);
		}
		if (v == 0)
			continue;
		rc = nlfs_wfile_read(wf, nlfs_palloc_bitmap_blkoff(bs, entry_size, group), &bitmap,
				     err);
		if (rc)
			return rc;
		r = find_clear(bitmap, from, g.epg);
		if (r < 0)
			continue;
		*nr = group * g.epg + (uint64_t)r;
		return set_bit(wf, &g, entry_size, *nr, true, err);
	}
	return nlfs_err_set(err, -ENOSPC, NLFS_NOWHERE, "inode %llu: every entry is in use",
			    (unsigned long long)wf->ino);
}

int nlfs_palloc_entry(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		      uint8_t **entry, struct nlfs_err *err)
{
	uint32_t bs = (uint32_t)nlfs_writer_blocksize(wf->w), byteoff;
	uint64_t blkoff;
	uint8_t *blk;
	int rc;

	nlfs_palloc_locate(bs, entry_size, nr, &blkoff, &byteoff);
	rc = nlfs_wfile_write(wf, blkoff, &blk, NULL, err);
	if (rc)
		return rc;
	*entry = blk + byteoff;
	return 0;
}

int nlfs_palloc_peek(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		     const uint8_t **entry, struct nlfs_err *err)
{
	uint32_t bs = (uint32_t)nlfs_writer_blocksize(wf->w), byteoff;
	struct palloc_geo g = palloc_geo(bs, entry_size);
	uint64_t blkoff, r = nr % g.epg;
	uint8_t *bitmap, *blk;
	int rc = nlfs_wfile_read(wf, nlfs_palloc_bitmap_blkoff(bs, entry_size, nr / g.epg), &bitmap,
				 err);

	*entry = NULL;
	if (rc || !bitmap || !(bitmap[r / 8] & (1u << (r % 8))))
		return rc;
	nlfs_palloc_locate(bs, entry_size, nr, &blkoff, &byteoff);
	rc = nlfs_wfile_read(wf, blkoff, &blk, err);
	if (!rc && blk)
		*entry = blk + byteoff;
	return rc;
}

static uint64_t count_bits(const uint8_t *bitmap, uint64_t nbits)
{
	uint64_t n = 0;

	for (uint64_t i = 0; bitmap && i < nbits / 8; i++)
		n += (uint64_t)__builtin_popcount(bitmap[i]);
	return n;
}

int nlfs_palloc_fix_counts(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t *nfixed,
			   struct nlfs_err *err)
{
	uint32_t bs = (uint32_t)nlfs_writer_blocksize(wf->w);
	struct palloc_geo g = palloc_geo(bs, entry_size);
	uint64_t *keys, *groups = NULL, nbeyond;
	size_t nkeys = 0, ngroups = 0;
	int rc = nlfs_wfile_load_map(wf, err);

	if (rc)
		return rc;
	/* the groups of the blocks the file has, before this construction or
	 * in it: they may lie anywhere in the 64-bit space */
	keys = malloc((wf->nold + wf->cap + 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < wf->nold; i++)
		keys[nkeys++] = wf->old_keys[i];
	for (size_t i = 0; i < wf->cap; i++)
		if (wf->slots[i].used)
			keys[nkeys++] = wf->slots[i].blkoff;
	rc = nlfs_palloc_groups_of(bs, entry_size, keys, nkeys, &groups, &ngroups, &nbeyond);
	free(keys);
	for (size_t i = 0; !rc && i < ngroups; i++) {
		uint64_t group = groups[i];
		uint8_t *bitmap;
		uint32_t *nfrees, have = (uint32_t)g.epg, want;

		rc = nlfs_wfile_read(wf, nlfs_palloc_bitmap_blkoff(bs, entry_size, group), &bitmap,
				     err);
		if (!rc)
			rc = group_desc(wf, &g, group, false, &nfrees, err);
		if (rc)
			break;
		want = (uint32_t)(g.epg - count_bits(bitmap, g.epg));
		if (nfrees) {
			memcpy(&have, nfrees, 4);
			have = nlfs_le32(have);
		}
		if (have == want)
			continue;
		rc = group_desc(wf, &g, group, true, &nfrees, err);
		if (rc)
			break;
		want = nlfs_cpu_to_le32(want);
		memcpy(nfrees, &want, 4);
		(*nfixed)++;
	}
	free(groups);
	return rc;
}
