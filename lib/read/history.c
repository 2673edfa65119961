/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The versions of one file across the checkpoints (nlfs_history in
 * nlfs.h).  A record the kernel did not rewrite sits in an ifile block
 * with the same virtual block number, so one block-map lookup per
 * checkpoint tells where the record may have changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

#define CP_BATCH 256
#define SU_BATCH 256

struct written {
	uint64_t ino;
	uint64_t *cnos;
	size_t n, cap;
	uint64_t logs;
};

static int note_finfo(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct written *w = arg;

	(void)bi;
	if (fi->ino != w->ino || (w->n && w->cnos[w->n - 1] == fi->cno))
		return 0;
	if (NLFS_GROW(w->cnos, w->cap, w->n + 1))
		return -ENOMEM;
	w->cnos[w->n++] = fi->cno;
	return 0;
}

/* the checkpoints whose logs still in use wrote blocks of W->ino */
static int scan_summaries(struct nlfs_fs *fs, struct written *w, struct nlfs_err *err)
{
	struct nlfs_suinfo si[SU_BATCH];
	size_t got = 0;
	int rc = 0;

	for (uint64_t seg = 0; !rc && seg < fs->geo.nsegments; seg += got) {
		rc = nlfs_sufile_list(fs, seg, si, SU_BATCH, &got, err);
		if (rc || !got)
			break;
		for (size_t i = 0; !rc && i < got; i++) {
			if (!si[i].nblocks || (si[i].flags & NLFS_SEGMENT_USAGE_ERROR))
				continue;
			w->logs++;
			/* a segment that does not read back is skipped: the ifile check covers it */
			rc = nlfs_segment_walk(fs, seg + i, si[i].nblocks, 0, NULL, note_finfo, w, err);
			if (rc && rc != -ENOMEM)
				rc = 0;
		}
	}
	if (!rc)
		w->n = nlfs_sort_unique_u64(w->cnos, w->n);
	nlfs_err_clear(err);
	return rc;
}

/* for nlfs_lower_bound: the checkpoints after *KEY */
static int cmp_after(const void *key, const void *elem)
{
	return *(const uint64_t *)elem <= *(const uint64_t *)key ? 1 : -1;
}

static bool written_in(const struct written *w, uint64_t after, uint64_t upto)
{
	size_t lo = nlfs_lower_bound(&after, w->cnos, w->n, sizeof(*w->cnos), cmp_after);

	return lo < w->n && w->cnos[lo] <= upto;
}

int nlfs_history(struct nlfs_fs *fs, uint64_t ino, uint32_t generation, nlfs_version_cb cb,
		 void *arg, struct nlfs_history_stats *stats, struct nlfs_err *err)
{
	struct nlfs_history_stats local;
	struct nlfs_history_stats *st = stats ? stats : &local;
	struct written w = { .ino = ino };
	struct nlfs_cpinfo ci[CP_BATCH];
	struct nlfs_cpfile_iter *it = NULL;
	struct nlfs_inode last;
	uint64_t blkoff, prev_ptr = 0, last_cno = 0, cno = 1;
	uint32_t byteoff;
	bool have_ptr = false, alive = false;
	size_t got;
	int rc;

	memset(st, 0, sizeof(*st));
	nlfs_palloc_locate(fs->geo.blocksize, fs->geo.inode_size, ino, &blkoff, &byteoff);
	rc = scan_summaries(fs, &w, err);
	st->logs = w.logs;
	st->written_cnos = w.n;
	if (!rc)
		rc = nlfs_cpfile_iter_open(fs, &it, err);
	while (!rc) {
		rc = nlfs_cpfile_iter_list(it, &cno, NLFS_CPINFO_CHECKPOINTS, ci, CP_BATCH, &got, err);
		if (rc || !got)
			break;
		for (size_t i = 0; !rc && i < got; i++) {
			struct nlfs_file ifile, f;
			struct nlfs_version v = { .cno = ci[i].cno, .create = ci[i].create };
			uint64_t ptr;
			bool now;

			st->checkpoints++;
			rc = nlfs_fs_ifile(fs, ci[i].cno, &ifile, err);
			if (!rc)
				rc = nlfs_bmap_lookup(fs, &ifile, blkoff, &ptr, err);
			if (rc == -ENOENT) {
				ptr = 0;   /* no such ifile block: no such inode */
				rc = 0;
			}
			if (rc)
				break;
			if (have_ptr && ptr == prev_ptr)
				continue;
			have_ptr = true;
			prev_ptr = ptr;
			st->records_read++;
			rc = ptr ? nlfs_ifile_read(fs, &ifile, ino, &f, err) : -ENOENT;
			now = !rc && nlfs_le32(f.inode.i_generation) == generation;
			if (rc == -ENOENT)
				rc = 0;
			if (rc)
				break;
			if (!now && !alive)
				continue;
			if (now && alive && !memcmp(&f.inode, &last, sizeof(last)))
				continue;
			v.inode = now ? &f.inode : NULL;
			v.written = now && written_in(&w, last_cno, ci[i].cno);
			alive = now;
			if (now)
				last = f.inode;
			last_cno = ci[i].cno;
			rc = cb(&v, arg);
		}
	}
	nlfs_cpfile_iter_close(it);
	free(w.cnos);
	return rc;
}
