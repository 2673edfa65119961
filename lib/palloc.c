/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The persistent allocator's layout, shared by the DAT and the ifile. */
#include <string.h>

#include <nlfs/endian.h>
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
