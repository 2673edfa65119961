/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The persistent allocator's layout, shared by the DAT and the ifile. */
#include "nlfsP.h"

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

void nlfs_palloc_locate(uint32_t blocksize, uint32_t entry_size, uint64_t nr,
			uint64_t *blkoff, uint32_t *byteoff)
{
	struct palloc_geo g = palloc_geo(blocksize, entry_size);
	uint64_t group = nr / g.epg, r = nr % g.epg;

	*blkoff = nlfs_palloc_bitmap_blkoff(blocksize, entry_size, group) + 1 + r / g.epb;
	*byteoff = (uint32_t)((r % g.epb) * entry_size);
}
