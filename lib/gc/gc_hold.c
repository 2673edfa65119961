/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a set of snapshots alone holds, exactly, from the DAT: every block
 * version in use ([start, end) of its entry) that the liveness rule
 * (gc_live.c) lets the cleaner reclaim once the snapshots are gone, i.e.
 * dead under the other protection but inside the period of one of them.
 * Counted per snapshot by its newest holder, so that a caller giving up
 * the snapshots oldest first knows what each step frees with the ones
 * before it.  One pass over the DAT's allocated entries (the groups its
 * mapped blocks fall in, each group's bitmap), in entry order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/nlfs.h>

/* the index of the newest of SNAPS[0..N) in [START, END), or N */
static size_t newest_within(const uint64_t *snaps, size_t n, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {          /* the first snapshot >= END */
		size_t mid = lo + (hi - lo) / 2;

		if (snaps[mid] < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && snaps[lo - 1] >= start ? lo - 1 : n;
}

int nlfs_gc_held_only(struct nlfs_fs *fs, const struct nlfs_gc_protect *others,
		      const uint64_t *snaps, size_t nsnaps, uint64_t *freed, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	uint32_t esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_dat_entry_size);
	uint64_t epg = (uint64_t)g->blocksize * 8, *keys = NULL, *groups = NULL, nbeyond = 0;
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	size_t nkeys = 0, ngroups = 0;
	struct nlfs_file dat;
	int rc;

	memset(freed, 0, nsnaps * sizeof(*freed));
	if (nsnaps == 0)
		return 0;
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	rc = nlfs_bmap_keys(fs, &dat, &keys, &nkeys, err);
	if (!rc)
		rc = nlfs_palloc_groups_of(g->blocksize, esz, keys, nkeys, &groups, &ngroups,
					   &nbeyond);
	free(keys);
	pg.desc = malloc(g->blocksize);
	pg.bitmap = malloc(g->blocksize);
	if (!rc && (!pg.desc || !pg.bitmap))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < ngroups; i++) {
		rc = nlfs_palloc_read_group(fs, &dat, esz, groups[i], &pg, err);
		for (uint64_t r = 0; !rc && r < epg; r++) {
			struct nlfs_datinfo de;
			size_t k;

			if (!(pg.bitmap[r / 8] & (1u << (r % 8))) || groups[i] * epg + r == 0)
				continue;
			rc = nlfs_dat_lookup(fs, groups[i] * epg + r, &de, err);
			/* not on disk, or written and replaced in one checkpoint */
			if (rc || de.blocknr == 0 || de.end <= de.start)
				continue;
			if (nlfs_gc_block_live(others, de.start, de.start, de.end))
				continue;
			k = newest_within(snaps, nsnaps, de.start, de.end);
			if (k < nsnaps)
				freed[k]++;
		}
	}
	free(groups);
	free(pg.desc);
	free(pg.bitmap);
	return rc;
}
