/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dump.nilfs2 stats: DAT blocks as a share of the blocks in use, the B-tree
 * depth histogram of the latest checkpoint's files, directory sizes in
 * blocks, and the histogram of segment live ratios.  A block counts as live
 * if the latest checkpoint or a snapshot reaches it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include "json.h"
#include "stats.h"

#define DEPTHS 15
#define LIVE_BUCKETS 10

struct stats {
	struct nlfs_fs *fs;
	uint64_t depth_hist[DEPTHS];      /* 0: direct map */
	uint64_t dir_blocks_hist[8];      /* 1, 2, 3-4, 5-8, ... blocks */
	uint64_t ndirs, nfiles;
	struct nlfs_gc_protect prot;   /* snapshots; no protection period */
};

static unsigned bmap_depth(const struct nlfs_file *f)
{
	const uint8_t *b = (const uint8_t *)f->inode.i_bmap;

	return (b[0] & NLFS_BMAP_LARGE) ? (unsigned)b[1] + 1 < DEPTHS ? b[1] + 1u : DEPTHS - 1 : 0;
}

static unsigned log2_bucket(uint64_t n)
{
	unsigned b = 0;

	while (n > 1 && b < 7) {
		n = (n + 1) / 2;
		b++;
	}
	return b;
}

static int count_inode(const struct nlfs_file *f, void *arg)
{
	struct stats *st = arg;
	uint16_t mode = nlfs_le16(f->inode.i_mode);
	uint32_t bs = nlfs_fs_geometry(st->fs)->blocksize;

	st->nfiles++;
	if (nlfs_mode_has_map(mode))
		st->depth_hist[bmap_depth(f)]++;
	if ((mode & NLFS_S_IFMT) == NLFS_S_IFDIR) {
		st->ndirs++;
		st->dir_blocks_hist[log2_bucket((nlfs_le64(f->inode.i_size) + bs - 1) / bs)]++;
	}
	return 0;
}

static int count_block(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	(void)blkoff; (void)ptr; (void)level;
	++*(uint64_t *)arg;
	return 0;
}

static void put_hist(struct json *j, const char *key, const char *const *labels,
		     const uint64_t *v, unsigned n)
{
	if (j) {
		json_open(j, key, '{');
		for (unsigned i = 0; i < n; i++)
			json_u64(j, labels[i], v[i]);
		json_close(j, '}');
		return;
	}
	printf("%s:\n", key);
	for (unsigned i = 0; i < n; i++)
		if (v[i])
			printf("  %-12s %" PRIu64 "\n", labels[i], v[i]);
}

int dump_stats(struct nlfs_fs *fs, bool as_json, struct nlfs_err *err)
{
	static const char *const depth_labels[DEPTHS] = {
		"direct", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14",
	};
	static const char *const dir_labels[8] = {
		"1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", "65+",
	};
	static const char *const live_labels[LIVE_BUCKETS] = {
		"0-9%", "10-19%", "20-29%", "30-39%", "40-49%", "50-59%", "60-69%", "70-79%",
		"80-89%", "90-100%",
	};
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	struct stats st = { .fs = fs };
	uint64_t *snapshots = NULL;
	uint64_t live_hist[LIVE_BUCKETS] = { 0 }, used_blocks = 0, dirty = 0;
	struct nlfs_file ifile, dat;
	struct json j, *jp = as_json ? &j : NULL;
	uint64_t dat_blocks = 0;
	int rc;

	rc = nlfs_gc_protect_load(fs, UINT64_MAX, &st.prot, &snapshots, err);
	if (!rc)
		rc = nlfs_fs_ifile(fs, 0, &ifile, err);
	if (!rc)
		rc = nlfs_ifile_iterate(fs, &ifile, count_inode, &st, err);
	for (uint64_t seg = 0; !rc && seg < g->nsegments; seg++) {
		struct nlfs_suinfo su;
		uint64_t live = 0, total = 0;

		rc = nlfs_sufile_get(fs, seg, &su, err);
		if (rc || !(su.flags & NLFS_SEGMENT_USAGE_DIRTY) || !su.nblocks)
			continue;
		dirty++;
		used_blocks += su.nblocks;
		/* what cannot be read is left out, as the cleaner leaves it */
		nlfs_gc_segment_live(fs, seg, su.nblocks, &st.prot, &live, &total, NULL);
		if (total)
			live_hist[live * 10 / total >= LIVE_BUCKETS ? LIVE_BUCKETS - 1
								    : live * 10 / total]++;
	}
	if (rc) {
		free(snapshots);
		return rc;
	}
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	rc = nlfs_bmap_iterate(fs, &dat, count_block, &dat_blocks, err);  /* data and nodes */
	if (rc) {
		free(snapshots);
		return rc;
	}
	if (jp) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_u64(&j, "used_blocks", used_blocks);
		json_u64(&j, "dat_blocks", dat_blocks);
		json_u64(&j, "dirty_segments", dirty);
		json_u64(&j, "files", st.nfiles);
		json_u64(&j, "directories", st.ndirs);
		json_u64(&j, "snapshots", st.prot.nsnapshots);
	} else {
		printf("blocks in use: %" PRIu64 " in %" PRIu64 " dirty segments\n", used_blocks, dirty);
		printf("DAT blocks: %" PRIu64 " (%.2f%% of blocks in use)\n",
		       dat_blocks, used_blocks ? 100.0 * (double)dat_blocks / (double)used_blocks : 0.0);
		printf("inodes: %" PRIu64 " (%" PRIu64 " directories); snapshots: %zu\n", st.nfiles,
		       st.ndirs, st.prot.nsnapshots);
	}
	put_hist(jp, "bmap_depth", depth_labels, st.depth_hist, DEPTHS);
	put_hist(jp, "directory_blocks", dir_labels, st.dir_blocks_hist, 8);
	put_hist(jp, "segment_live_ratio", live_labels, live_hist, LIVE_BUCKETS);
	if (jp)
		json_close(&j, '}');
	free(snapshots);
	return 0;
}
