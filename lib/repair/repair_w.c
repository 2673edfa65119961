/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Repairs carried by a construction (fsck.nilfs2): the sufile's and
 * cpfile's counters recomputed from what they count, and the files the
 * kernel's roll-forward would change rewritten.  (The writer's own edits
 * that fsck also uses are in write/: map_fix.c, inode_fix.c.)  Each one
 * only changes blocks in the writer's cache, so nothing reaches
 * the device before the construction commits.  Call them right after
 * nlfs_writer_open(), before anything else uses the writer: the
 * writer keeps its own counters by deltas from the values found here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "../nlfsP.h"
#include "../write/construction.h"

static void set_le64(nlfs_le64_t *field, uint64_t want, uint64_t *nfixed)
{
	if (nlfs_le64(*field) == want)
		return;
	*field = nlfs_cpu_to_le64(want);
	(*nfixed)++;
}

int nlfs_writer_fix_sufile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_writer_geometry(w);
	uint32_t susz = nlfs_writer_entry_size(w, NLFS_SUFILE_INO);
	uint64_t epb = g->blocksize / susz, nclean = 0, ndirty = 0;
	struct nlfs_sufile_header *h;
	uint8_t *blk = NULL;
	uint64_t loaded = UINT64_MAX;
	int rc;

	for (uint64_t s = 0; s < g->nsegments; s++) {
		uint64_t slot = s + nlfs_sufile_first_slot(susz);
		struct nlfs_segment_usage *su;
		uint32_t flags;

		if (slot / epb != loaded) {
			loaded = slot / epb;
			rc = nlfs_writer_mdt_read(w, NLFS_SUFILE_INO, loaded, &blk, err);
			if (rc)
				return rc;
		}
		if (!blk) {
			nclean++;   /* a hole reads as clean entries */
			continue;
		}
		su = (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * susz);
		flags = nlfs_le32(su->su_flags);
		if (nlfs_su_flags_dirty(flags))
			ndirty++;
		if (!nlfs_su_flags_clean(flags))
			continue;
		nclean++;
		if (su->su_nblocks || su->su_lastmod) {
			rc = nlfs_writer_mdt_write(w, NLFS_SUFILE_INO, loaded, &blk, err);
			if (rc)
				return rc;
			su = (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * susz);
			su->su_nblocks = 0;
			su->su_lastmod = 0;
			(*nfixed)++;
		}
	}
	rc = nlfs_writer_mdt_read(w, NLFS_SUFILE_INO, 0, &blk, err);
	if (rc)
		return rc;
	if (blk) {
		struct nlfs_sufile_header cur;

		memcpy(&cur, blk, sizeof(cur));
		if (nlfs_le64(cur.sh_ncleansegs) == nclean && nlfs_le64(cur.sh_ndirtysegs) == ndirty &&
		    nlfs_le64(cur.sh_last_alloc) < g->nsegments)
			return 0;
	}
	rc = nlfs_writer_mdt_write(w, NLFS_SUFILE_INO, 0, &blk, err);
	if (rc)
		return rc;
	h = (struct nlfs_sufile_header *)(void *)blk;
	set_le64(&h->sh_ncleansegs, nclean, nfixed);
	set_le64(&h->sh_ndirtysegs, ndirty, nfixed);
	if (nlfs_le64(h->sh_last_alloc) >= g->nsegments)
		set_le64(&h->sh_last_alloc, nlfs_writer_next_segment(w), nfixed);
	return 0;
}

int nlfs_writer_fix_cpfile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err)
{
	uint32_t cpsz = nlfs_writer_entry_size(w, NLFS_CPFILE_INO);
	uint32_t bs = nlfs_writer_geometry(w)->blocksize;
	uint64_t epb = bs / cpsz, nvalid = 0, nsnap = 0;
	uint64_t first_slot = nlfs_cpfile_first_slot(cpsz);
	uint64_t last_slot = nlfs_writer_cno(w) - 1 + first_slot;   /* the checkpoint being built */
	struct nlfs_cpfile_header *h;
	uint8_t *blk;
	int rc;

	for (uint64_t b = 0; b <= (last_slot - 1) / epb; b++) {
		struct nlfs_checkpoint *first;
		uint64_t inblock;
		uint32_t count;
		bool kept;

		rc = nlfs_writer_mdt_read(w, NLFS_CPFILE_INO, b, &blk, err);
		if (rc)
			return rc;
		if (!blk)
			continue;
		/* the checkpoint being built is not one yet */
		kept = nlfs_cpfile_block_counts(cpsz, bs, b, blk, nlfs_writer_cno(w) - 1, &count,
						&inblock);
		nvalid += inblock;
		for (uint64_t i = b == 0 ? first_slot : 0; i < epb && b * epb + i < last_slot; i++) {
			const struct nlfs_checkpoint *cp = (const void *)(blk + i * cpsz);

			nsnap += nlfs_cp_flags_snapshot(nlfs_le32(cp->cp_flags));
		}
		if (!kept || count == inblock)
			continue;
		rc = nlfs_writer_mdt_write(w, NLFS_CPFILE_INO, b, &blk, err);
		if (rc)
			return rc;
		first = (struct nlfs_checkpoint *)(void *)blk;
		first->cp_checkpoints_count = nlfs_cpu_to_le32((uint32_t)inblock);
		(*nfixed)++;
	}
	rc = nlfs_writer_mdt_read(w, NLFS_CPFILE_INO, 0, &blk, err);
	if (rc)
		return rc;
	if (blk) {
		struct nlfs_cpfile_header cur;

		memcpy(&cur, blk, sizeof(cur));
		if (nlfs_le64(cur.ch_ncheckpoints) == nvalid && nlfs_le64(cur.ch_nsnapshots) == nsnap)
			return 0;
	}
	rc = nlfs_writer_mdt_write(w, NLFS_CPFILE_INO, 0, &blk, err);
	if (rc)
		return rc;
	h = (struct nlfs_cpfile_header *)(void *)blk;
	set_le64(&h->ch_ncheckpoints, nvalid, nfixed);
	set_le64(&h->ch_nsnapshots, nsnap, nfixed);
	return 0;
}

struct keys {
	uint64_t *v;
	size_t n, cap;
};

/* Rewrite file INO of the latest checkpoint as the reader shows it, with
 * the rolled-forward blocks in place. */
static int replay_file(struct nlfs_writer *w, const struct nlfs_file *ifile, uint64_t ino,
		       size_t first, size_t end, uint64_t *nblocks, struct nlfs_err *err)
{
	struct nlfs_fs *fs = nlfs_writer_fs(w);
	struct keys k = { 0 };
	struct nlfs_file f;
	struct nlfs_inode inode;
	uint8_t *buf = NULL;
	int rc = nlfs_ifile_read(fs, ifile, ino, &f, err);

	if (rc == -ENOENT)
		return 0;   /* deleted since: the kernel finds no inode to put them in */
	if (!rc)
		rc = nlfs_bmap_keys(fs, &f, &k.v, &k.n, err);
	k.cap = k.n;
	for (size_t i = first; !rc && i < end; i++) {
		if (NLFS_GROW(k.v, k.cap, k.n + 1))
			rc = -ENOMEM;
		else
			k.v[k.n++] = fs->rf[i].blkoff;
	}
	if (!rc) {
		if (k.n > 1)
			nlfs_sort(k.v, k.n, sizeof(*k.v), nlfs_cmp_u64);
		buf = malloc(nlfs_writer_geometry(w)->blocksize);
		if (!buf)
			rc = -ENOMEM;
	}
	if (!rc)
		rc = nlfs_writer_file_replace(w, ino, err);
	if (!rc)
		rc = nlfs_writer_file_begin(w, ino, err);
	for (size_t i = 0; !rc && i < k.n; i++) {
		bool hole;

		if (i && k.v[i] == k.v[i - 1])
			continue;
		rc = nlfs_file_read_block(fs, &f, k.v[i], buf, &hole, err);
		if (!rc && !hole)
			rc = nlfs_writer_file_block(w, k.v[i], buf, err);
	}
	if (!rc)
		rc = nlfs_writer_get_inode(w, ino, &inode, err);
	if (!rc) {
		inode.i_size = f.inode.i_size;   /* grown to cover the blocks put back */
		rc = nlfs_writer_file_end(w, &inode, err);
	}
	*nblocks += end - first;
	free(buf);
	free(k.v);
	return rc;
}

int nlfs_writer_roll_forward(struct nlfs_writer *w, uint64_t *nfiles, uint64_t *nblocks,
			     struct nlfs_err *err)
{
	struct nlfs_fs *fs = nlfs_writer_fs(w);
	struct nlfs_file ifile;
	int rc;

	*nfiles = *nblocks = 0;
	if (!fs->nrf)
		return 0;
	rc = nlfs_fs_ifile(fs, fs->rec.cno, &ifile, err);
	for (size_t i = 0; !rc && i < fs->nrf;) {
		size_t j = i;

		while (j < fs->nrf && fs->rf[j].ino == fs->rf[i].ino)
			j++;
		rc = replay_file(w, &ifile, fs->rf[i].ino, i, j, nblocks, err);
		(*nfiles)++;
		i = j;
	}
	return rc;
}
