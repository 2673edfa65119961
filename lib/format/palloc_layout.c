/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The persistent allocator's layout, shared by the DAT and the ifile: where
 * a group's descriptor and bitmap blocks and an entry lie in the file.  The
 * reader looks entries up with it (read/palloc_group.c, dat.c, ifile.c);
 * the writer's allocator (write/palloc.c) changes them.
 */
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

void nlfs_palloc_locate(uint32_t blocksize, uint32_t entry_size, uint64_t nr,
			uint64_t *blkoff, uint32_t *byteoff)
{
	struct nlfs_palloc_geo g = nlfs_palloc_geo(blocksize, entry_size);
	uint64_t group = nr / g.epg, r = nr % g.epg;

	*blkoff = nlfs_palloc_bitmap_blkoff(blocksize, entry_size, group) + 1 + r / g.epb;
	*byteoff = (uint32_t)((r % g.epb) * entry_size);
}
