/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A checkpoint's block count (cp_blocks_count), counted from its files as
 * the kernel keeps it: every block of the maps of its files (data and
 * B-tree nodes) and of its ifile; the DAT, cpfile and sufile, which belong
 * to no checkpoint, are not counted.  The kernel and the writer carry the
 * count forward from the latest checkpoint whether the block_count feature
 * is set or not; a volume whose counts went wrong (written by a kernel
 * older than the count, or damaged) has them set right by nilfs-tune
 * -O block_count, every checkpoint's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "../nlfsP.h"

struct count_walk {
	struct nlfs_fs *fs;
	uint64_t nblocks;
	struct nlfs_err *err;
};

static int count_entry(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	(void)key;
	(void)ptr;
	(void)level;
	((struct count_walk *)arg)->nblocks++;
	return 0;
}

static int count_inode(const struct nlfs_file *f, void *arg)
{
	struct count_walk *cw = arg;

	/* devices, fifos and sockets have no map: i_bmap[0] may hold a device number */
	if (!nlfs_mode_has_map(nlfs_le16(f->inode.i_mode)))
		return 0;
	return nlfs_bmap_iterate(cw->fs, f, count_entry, cw, cw->err);
}

int nlfs_cp_count_blocks(struct nlfs_fs *fs, uint64_t cno, uint64_t *nblocks,
			 struct nlfs_err *err)
{
	struct count_walk cw = { .fs = fs, .err = err };
	struct nlfs_file ifile;
	int rc = nlfs_fs_ifile(fs, cno, &ifile, err);

	if (!rc)
		rc = nlfs_bmap_iterate(fs, &ifile, count_entry, &cw, err);
	if (!rc)
		rc = nlfs_ifile_iterate(fs, &ifile, count_inode, &cw, err);
	if (!rc)
		*nblocks = cw.nblocks;
	return rc;
}

struct wrong {
	uint64_t cno, nblocks;
};

/* every valid checkpoint counted; the ones whose entry is wrong into *BAD */
static int count_all(struct nlfs_fs *fs, struct nlfs_recount *rs, struct wrong **bad,
		     size_t *nbad, struct nlfs_err *err)
{
	struct nlfs_cpinfo ci[64];
	uint64_t cno = 1, latest = nlfs_fs_recovery(fs)->cno;
	size_t got, cap = 0;
	int rc;

	do {
		rc = nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 64, &got, err);
		for (size_t i = 0; !rc && i < got; i++) {
			uint64_t n;

			rc = nlfs_cp_count_blocks(fs, ci[i].cno, &n, err);
			if (rc)
				break;
			rs->ncheckpoints++;
			if (ci[i].cno == latest) {
				rs->latest_was = ci[i].blocks_count;
				rs->latest_counted = n;
			}
			if (n == ci[i].blocks_count)
				continue;
			if (NLFS_GROW(*bad, cap, *nbad + 1))
				return -ENOMEM;
			(*bad)[(*nbad)++] = (struct wrong){ ci[i].cno, n };
		}
	} while (!rc && got);
	return rc;
}

int nlfs_recount_blocks(struct nlfs_fs *fs, uint64_t now, struct nlfs_recount *rs,
			struct nlfs_err *err)
{
	struct nlfs_cpinfo latest;
	struct nlfs_writer *w;
	struct wrong *bad = NULL;
	size_t nbad = 0;
	int rc = nlfs_cpfile_info(fs, 0, &latest, err);

	memset(rs, 0, sizeof(*rs));
	if (!rc)
		rc = count_all(fs, rs, &bad, &nbad, err);
	if (!rc && nbad)
		rc = nlfs_writer_open(fs, now, 0, &w, err);
	if (rc || !nbad) {
		free(bad);
		return rc;
	}
	for (size_t i = 0; !rc && i < nbad; i++)
		rc = nlfs_writer_set_cp_blocks(w, bad[i].cno, bad[i].nblocks, err);
	free(bad);
	if (rc) {
		nlfs_writer_free(w);
		return rc;
	}
	/* the new checkpoint starts from the latest one's files */
	nlfs_writer_set_counts(w, latest.inodes_count, rs->latest_counted);
	rs->nwrong = nbad;
	rs->written_cno = nlfs_writer_cno(w);
	rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	return rc;
}
