/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The persistent allocator of the DAT and the ifile, on a file being
 * written: entries allocated, freed and reserved in their groups' bitmaps
 * and free counts.  Where they lie is format/palloc_layout.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"

/* the group's free count, creating its descriptor block if it is a hole */
static int group_desc(struct nlfs_wfile *wf, const struct nlfs_palloc_geo *g, uint64_t group,
		      bool for_write, uint32_t **nfrees, struct nlfs_err *err)
{
	uint8_t *blk;
	bool created = false;
	int rc;

	if (for_write) {
		rc = nlfs_wfile_write(wf, nlfs_palloc_geo_desc(g, group), &blk, &created, err);
	} else {
		rc = nlfs_wfile_read(wf, nlfs_palloc_geo_desc(g, group), &blk, err);
		if (!rc && !blk) {
			*nfrees = NULL;   /* a hole: every group in it is empty */
			return 0;
		}
	}
	if (rc)
		return rc;
	if (created)
		for (uint64_t i = 0; i < g->gpd; i++)
			nlfs_put_le32(blk + 4 * i, (uint32_t)g->epg);
	*nfrees = (uint32_t *)(void *)(blk + 4 * (group % g->gpd));
	return 0;
}

static int set_bit(struct nlfs_wfile *wf, const struct nlfs_palloc_geo *g, uint32_t entry_size,
		   uint64_t nr, bool value, struct nlfs_err *err)
{
	uint32_t bs = wf->blocksize;
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
	v = nlfs_get_le32(nfrees);
	nlfs_put_le32(nfrees, value ? v - 1 : v + 1);
	return 0;
}

int nlfs_palloc_reserve(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
			struct nlfs_err *err)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(wf->blocksize, entry_size);

	return set_bit(wf, &g, entry_size, nr, true, err);
}

int nlfs_palloc_free(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		     struct nlfs_err *err)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(wf->blocksize, entry_size);

	return set_bit(wf, &g, entry_size, nr, false, err);
}

int nlfs_palloc_test(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr, bool *inuse,
		     struct nlfs_err *err)
{
	uint32_t bs = wf->blocksize;
	struct nlfs_palloc_geo g = nlfs_palloc_geo(bs, entry_size);
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
	uint32_t bs = wf->blocksize;
	struct nlfs_palloc_geo g = nlfs_palloc_geo(bs, entry_size);
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
		if (nfrees)
			v = nlfs_get_le32(nfrees);
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
	return nlfs_err_set(err, ENOSPC, NLFS_NOWHERE, "inode %llu: every entry is in use",
			    (unsigned long long)wf->ino);
}

int nlfs_palloc_entry(struct nlfs_wfile *wf, uint32_t entry_size, uint64_t nr,
		      uint8_t **entry, struct nlfs_err *err)
{
	uint32_t bs = wf->blocksize, byteoff;
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
	uint32_t bs = wf->blocksize, byteoff;
	struct nlfs_palloc_geo g = nlfs_palloc_geo(bs, entry_size);
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
	uint32_t bs = wf->blocksize;
	struct nlfs_palloc_geo g = nlfs_palloc_geo(bs, entry_size);
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
		if (nfrees)
			have = nlfs_get_le32(nfrees);
		if (have == want)
			continue;
		rc = group_desc(wf, &g, group, true, &nfrees, err);
		if (rc)
			break;
		nlfs_put_le32(nfrees, want);
		(*nfixed)++;
	}
	free(groups);
	return rc;
}
