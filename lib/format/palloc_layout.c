/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The persistent allocator's layout, shared by the DAT and the ifile: where
 * a group's descriptor and bitmap blocks and an entry lie in the file.  The
 * reader looks entries up with it (read/palloc_group.c, dat.c, ifile.c);
 * the writer's allocator (write/palloc.c) changes them.
 */
#include <errno.h>
#include <stdlib.h>

#include "../nlfsP.h"

struct nlfs_palloc_geo nlfs_palloc_geo(uint32_t blocksize, uint32_t entry_size)
{
	struct nlfs_palloc_geo g;

	g.epb = blocksize / entry_size;
	g.epg = (uint64_t)blocksize * 8;
	g.bpg = (g.epg + g.epb - 1) / g.epb + 1;
	g.gpd = blocksize / 4;
	g.bpd = g.gpd * g.bpg + 1;
	return g;
}

uint64_t nlfs_palloc_bitmap_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(blocksize, entry_size);

	return (group / g.gpd) * g.bpd + 1 + (group % g.gpd) * g.bpg;
}

uint64_t nlfs_palloc_desc_blkoff(uint32_t blocksize, uint32_t entry_size, uint64_t group)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(blocksize, entry_size);

	return nlfs_palloc_geo_desc(&g, group);
}

uint64_t nlfs_palloc_ngroups(uint32_t blocksize, uint32_t entry_size, uint64_t last_blkoff)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(blocksize, entry_size);
	uint64_t d = last_blkoff / g.bpd, r = last_blkoff % g.bpd;

	/* a descriptor block alone covers no group yet */
	if (r == 0)
		return d * g.gpd;
	return d * g.gpd + (r - 1) / g.bpg + 1;
}

int nlfs_palloc_groups_of(uint32_t blocksize, uint32_t entry_size, const uint64_t *keys,
			  size_t nkeys, uint64_t **groups, size_t *ngroups, uint64_t *nbeyond)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(blocksize, entry_size);
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
		if (NLFS_GROW(out, cap, n + count)) {
			free(out);
			return -ENOMEM;
		}
		for (uint64_t j = 0; j < count; j++)
			out[n++] = first + j;
	}
	*ngroups = nlfs_sort_unique_u64(out, n);
	*groups = out;
	return 0;
}

/* N / D and N % D, by a shift where D is a power of two (the block size
 * and the counts derived from it nearly always are) */
static uint64_t quot(uint64_t n, uint64_t d, uint64_t *rem)
{
	if ((d & (d - 1)) == 0) {
		*rem = n & (d - 1);
		return n >> __builtin_ctzll(d);
	}
	*rem = n % d;
	return n / d;
}

/* every entry lookup of the DAT and the ifile comes here: no divisions
 * where shifts do */
void nlfs_palloc_locate(uint32_t blocksize, uint32_t entry_size, uint64_t nr,
			uint64_t *blkoff, uint32_t *byteoff)
{
	uint64_t epb = blocksize / entry_size, epg = (uint64_t)blocksize * 8, gpd = blocksize / 4;
	uint64_t bpg, r, gr, in, group, d;

	bpg = (epg + epb - 1) / epb + 1;
	group = quot(nr, epg, &r);
	d = quot(group, gpd, &gr);
	/* as nlfs_palloc_bitmap_blkoff (the group's bitmap), then the entry's block */
	*blkoff = d * (gpd * bpg + 1) + 1 + gr * bpg + 1 + quot(r, epb, &in);
	*byteoff = (uint32_t)(in * entry_size);
}

enum nlfs_palloc_role nlfs_palloc_role_of(const struct nlfs_palloc_geo *g, uint64_t blkoff,
					  uint64_t *group, uint64_t *first_entry)
{
	uint64_t d = blkoff / g->bpd, r = blkoff % g->bpd, w;

	*group = d * g->gpd;
	*first_entry = 0;
	if (r == 0)
		return NLFS_PALLOC_DESC;
	*group += (r - 1) / g->bpg;
	w = (r - 1) % g->bpg;
	if (w == 0)
		return NLFS_PALLOC_BITMAP;
	*first_entry = *group * g->epg + (w - 1) * g->epb;
	return NLFS_PALLOC_ENTRIES;
}
