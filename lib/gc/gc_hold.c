/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a set of snapshots alone holds, exactly, from the DAT: every block
 * version in use ([start, end) of its entry) that the liveness rule
 * (gc_live.c) lets the cleaner reclaim once the snapshots are gone, i.e.
 * dead under the other protection but inside the period of one of them.
 * A version's period holds a run of consecutive snapshots (by number), so
 * the versions are counted per run, [first, last] of SNAPS: a caller that
 * gives the snapshots up in any order knows exactly what each step frees
 * (a run's blocks once its last snapshot is gone).  One pass over the
 * DAT's allocated entries (the groups its mapped blocks fall in, each
 * group's bitmap), in entry order; the runs are few (each snapshot starts
 * a handful), kept in a hash by run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/nlfs.h>

/* the first of SNAPS[0..N) at or after CNO, or N */
static size_t first_at(const uint64_t *snaps, size_t n, uint64_t cno)
{
	return nlfs_lower_bound(&cno, snaps, n, sizeof(*snaps), nlfs_cmp_u64);
}

/* count one version held by the run [FIRST, LAST] */
static int add_run(struct nlfs_gc_held *h, struct nlfs_u64map *idx, size_t *cap, size_t nsnaps,
		   size_t first, size_t last)
{
	uint64_t key = (uint64_t)first * nsnaps + last;
	void *val;

	if (nlfs_u64map_get(idx, key, &val)) {
		h->runs[(uintptr_t)val - 1].blocks++;
		return 0;
	}
	if (h->nruns == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct nlfs_gc_held_run *r = realloc(h->runs, ncap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		h->runs = r;
		*cap = ncap;
	}
	h->runs[h->nruns] = (struct nlfs_gc_held_run){ first, last, 1 };
	if (nlfs_u64map_put(idx, key, (void *)(uintptr_t)(h->nruns + 1)))
		return -ENOMEM;
	h->nruns++;
	return 0;
}

int nlfs_gc_held_count(struct nlfs_fs *fs, const struct nlfs_gc_protect *others,
		       const uint64_t *snaps, size_t nsnaps, struct nlfs_gc_held *h,
		       struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	uint32_t esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_dat_entry_size);
	uint64_t epg = (uint64_t)g->blocksize * 8, *keys = NULL, *groups = NULL, nbeyond = 0;
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	struct nlfs_u64map idx = { 0 };
	size_t nkeys = 0, ngroups = 0, cap = 0;
	struct nlfs_file dat;
	int rc;

	memset(h, 0, sizeof(*h));
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
			size_t first, last;

			if (!(pg.bitmap[r / 8] & (1u << (r % 8))) || groups[i] * epg + r == 0)
				continue;
			rc = nlfs_dat_lookup(fs, groups[i] * epg + r, &de, err);
			if (rc || de.blocknr == 0)    /* not on disk yet */
				continue;
			if (de.end > de.start &&
			    nlfs_gc_block_live(others, de.start, de.start, de.end)) {
				h->live++;
				continue;
			}
			/* written and replaced in one checkpoint, or no
			 * snapshot in its period: the cleaner's already */
			first = first_at(snaps, nsnaps, de.start);
			last = first_at(snaps, nsnaps, de.end);
			if (de.end <= de.start || first == last) {
				h->dead++;
				continue;
			}
			rc = add_run(h, &idx, &cap, nsnaps, first, last - 1);
		}
	}
	nlfs_u64map_free(&idx, NULL);
	free(groups);
	free(pg.desc);
	free(pg.bitmap);
	if (rc)
		nlfs_gc_held_free(h);
	return rc;
}

void nlfs_gc_held_free(struct nlfs_gc_held *h)
{
	free(h->runs);
	memset(h, 0, sizeof(*h));
}
