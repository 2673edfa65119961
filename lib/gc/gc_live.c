/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Liveness as the kernel's cleaner defines it: a block version [start, end)
 * is live if the latest checkpoint can reach it (end is ~0), a checkpoint in
 * the protection period can (end > protcno), or a snapshot lies inside its
 * period.  Blocks of the files that live in the super root (fi_cno 0) are
 * live only while current.  nlfs_gc_segment_live counts a segment's live
 * blocks by this rule for the readers (dump.nilfs2 stats).
 */
#include <nlfs/gc.h>
#include <nlfs/nlfs.h>

bool nlfs_gc_block_live(const struct nlfs_gc_protect *p, uint64_t fi_cno, uint64_t start,
			uint64_t end)
{
	size_t lo;

	if (fi_cno == 0)
		return end == UINT64_MAX;
	if (end == fi_cno)
		return false;          /* replaced within the checkpoint that wrote it */
	if (end == UINT64_MAX || end > p->protcno)
		return true;
	/* the first snapshot >= start decides */
	lo = nlfs_lower_bound(&start, p->snapshots, p->nsnapshots, sizeof(*p->snapshots),
			      nlfs_cmp_u64);
	return lo < p->nsnapshots && p->snapshots[lo] < end;
}

uint64_t nlfs_gc_protcno(const uint64_t *cnos, const uint64_t *create, size_t n, uint64_t limit)
{
	for (size_t i = 0; i < n; i++)
		if (create[i] >= limit)
			return cnos[i];
	return UINT64_MAX;
}

struct live_count {
	struct nlfs_fs *fs;
	const struct nlfs_gc_protect *p;
	uint64_t live, total;
};

static int count_block(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
		       void *arg)
{
	struct live_count *lc = arg;
	struct nlfs_datinfo de;

	if (!bi)
		return 0;
	lc->total++;
	if (fi->ino == NLFS_DAT_INO) {
		/* a DAT data block is live while the DAT maps it there (its
		 * nodes are not counted: the writer moves those in a segment
		 * it frees with the path it writes anyway) */
		struct nlfs_file dat;
		uint64_t ptr = 0;

		nlfs_fs_mdt_file(lc->fs, NLFS_DAT_INO, &dat);
		if (bi->is_data && !nlfs_bmap_lookup(lc->fs, &dat, bi->blkoff, &ptr, NULL) &&
		    ptr == bi->block)
			lc->live++;
		return 0;
	}
	/* a copy whose entry points elsewhere is stale */
	if (!nlfs_dat_lookup(lc->fs, bi->vblocknr, &de, NULL) && de.blocknr == bi->block &&
	    nlfs_gc_block_live(lc->p, fi->cno, de.start, de.end))
		lc->live++;
	return 0;
}

int nlfs_gc_segment_live(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks,
			 const struct nlfs_gc_protect *p, uint64_t *live, uint64_t *total,
			 struct nlfs_err *err)
{
	struct live_count lc = { .fs = fs, .p = p };
	int rc = nlfs_segment_walk(fs, segnum, nblocks, 0, NULL, count_block, &lc, err);

	*live = lc.live;
	*total = lc.total;
	return rc;
}
