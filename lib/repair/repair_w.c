/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Repairs carried by a construction (fsck.nilfs2): counters recomputed
 * from what they count, bitmaps and inodes set right, files rewritten.
 * Each one only changes blocks in the writer's cache, so nothing reaches
 * the device before the construction commits.  Call them right after
 * nlfs_writer_open(), before anything else uses the writer: the
 * writer keeps its own counters by deltas from the values found here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "../write/writerP.h"

static void set_le64(nlfs_le64_t *field, uint64_t want, uint64_t *nfixed)
{
	if (nlfs_le64(*field) == want)
		return;
	*field = nlfs_cpu_to_le64(want);
	(*nfixed)++;
}

int nlfs_writer_fix_sufile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err)
{
	uint64_t epb = w->geo.blocksize / w->susz, nclean = 0, ndirty = 0;
	struct nlfs_sufile_header *h;
	uint8_t *blk = NULL;
	uint64_t loaded = UINT64_MAX;
	int rc;

	for (uint64_t s = 0; s < w->geo.nsegments; s++) {
		uint64_t slot = s + su_first(w);
		struct nlfs_segment_usage *su;
		uint32_t flags;

		if (slot / epb != loaded) {
			loaded = slot / epb;
			rc = nlfs_wfile_read(w->sufile, loaded, &blk, err);
			if (rc)
				return rc;
		}
		if (!blk) {
			nclean++;   /* a hole reads as clean entries */
			continue;
		}
		su = (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * w->susz);
		flags = nlfs_le32(su->su_flags);
		if (flags & NLFS_SEGMENT_USAGE_DIRTY)
			ndirty++;
		if (flags)
			continue;
		nclean++;
		if (su->su_nblocks || su->su_lastmod) {
			rc = nlfs_wfile_write(w->sufile, loaded, &blk, NULL, err);
			if (rc)
				return rc;
			su = (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * w->susz);
			su->su_nblocks = 0;
			su->su_lastmod = 0;
			(*nfixed)++;
		}
	}
	rc = nlfs_wfile_read(w->sufile, 0, &blk, err);
	if (rc)
		return rc;
	if (blk) {
		struct nlfs_sufile_header cur;

		memcpy(&cur, blk, sizeof(cur));
		if (nlfs_le64(cur.sh_ncleansegs) == nclean && nlfs_le64(cur.sh_ndirtysegs) == ndirty &&
		    nlfs_le64(cur.sh_last_alloc) < w->geo.nsegments)
			return 0;
	}
	rc = nlfs_wfile_write(w->sufile, 0, &blk, NULL, err);
	if (rc)
		return rc;
	h = (struct nlfs_sufile_header *)(void *)blk;
	set_le64(&h->sh_ncleansegs, nclean, nfixed);
	set_le64(&h->sh_ndirtysegs, ndirty, nfixed);
	if (nlfs_le64(h->sh_last_alloc) >= w->geo.nsegments)
		set_le64(&h->sh_last_alloc, nlfs_logw_position(w->lw).nextseg, nfixed);
	return 0;
}

int nlfs_writer_fix_cpfile(struct nlfs_writer *w, uint64_t *nfixed, struct nlfs_err *err)
{
	uint64_t epb = w->geo.blocksize / w->cpsz, nvalid = 0, nsnap = 0;
	uint64_t last_slot = w->cno - 1 + cp_first(w);   /* the checkpoint being built */
	struct nlfs_cpfile_header *h;
	uint8_t *blk;
	int rc;

	for (uint64_t b = 0; b <= (last_slot - 1) / epb; b++) {
		uint32_t inblock = 0;
		struct nlfs_checkpoint *first;

		rc = nlfs_wfile_read(w->cpfile, b, &blk, err);
		if (rc)
			return rc;
		if (!blk)
			continue;
		for (uint64_t i = b == 0 ? cp_first(w) : 0; i < epb && b * epb + i < last_slot; i++) {
			const struct nlfs_checkpoint *cp = (const void *)(blk + i * w->cpsz);
			uint32_t fl = nlfs_le32(cp->cp_flags);

			if (fl & NLFS_CHECKPOINT_INVALID)
				continue;
			inblock++;
			nvalid++;
			if (fl & NLFS_CHECKPOINT_SNAPSHOT)
				nsnap++;
		}
		/* the first block's count would overlay the header: the kernel keeps none */
		first = (struct nlfs_checkpoint *)(void *)blk;
		if (b == 0 || nlfs_le32(first->cp_checkpoints_count) == inblock)
			continue;
		rc = nlfs_wfile_write(w->cpfile, b, &blk, NULL, err);
		if (rc)
			return rc;
		first = (struct nlfs_checkpoint *)(void *)blk;
		first->cp_checkpoints_count = nlfs_cpu_to_le32(inblock);
		(*nfixed)++;
	}
	rc = nlfs_wfile_read(w->cpfile, 0, &blk, err);
	if (rc)
		return rc;
	if (blk) {
		struct nlfs_cpfile_header cur;

		memcpy(&cur, blk, sizeof(cur));
		if (nlfs_le64(cur.ch_ncheckpoints) == nvalid && nlfs_le64(cur.ch_nsnapshots) == nsnap)
			return 0;
	}
	rc = nlfs_wfile_write(w->cpfile, 0, &blk, NULL, err);
	if (rc)
		return rc;
	h = (struct nlfs_cpfile_header *)(void *)blk;
	set_le64(&h->ch_ncheckpoints, nvalid, nfixed);
	set_le64(&h->ch_nsnapshots, nsnap, nfixed);
	return 0;
}

int nlfs_writer_fix_palloc(struct nlfs_writer *w, uint64_t ino, uint64_t *nfixed,
			   struct nlfs_err *err)
{
	if (ino == NLFS_DAT_INO)
		return nlfs_palloc_fix_counts(w->dat, w->dsz, nfixed, err);
	if (ino == NLFS_IFILE_INO)
		return nlfs_palloc_fix_counts(w->ifile, w->isz, nfixed, err);
	return -EINVAL;
}

int nlfs_writer_fix_reserved_inodes(struct nlfs_writer *w, uint64_t *nfixed,
				    struct nlfs_err *err)
{
	for (uint64_t ino = 0; ino < w->first_ino; ino++) {
		const uint8_t *e;
		int rc = nlfs_palloc_peek(w->ifile, w->isz, ino, &e, err);

		if (!rc && !e) {
			rc = nlfs_palloc_reserve(w->ifile, w->isz, ino, err);
			(*nfixed)++;
			if (ino == NLFS_ROOT_INO)
				w->user_inodes++;   /* the one reserved inode a checkpoint counts */
		}
		if (rc)
			return rc;
	}
	return 0;
}

int nlfs_writer_end_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err)
{
	const uint8_t *p;
	struct nlfs_dat_entry e;
	int rc = nlfs_palloc_peek(w->dat, w->dsz, vbn, &p, err);

	if (rc)
		return rc;
	if (!p)
		return nlfs_err_set(err, ENOENT, NLFS_NOWHERE,
				    "virtual block %llu is not allocated", (unsigned long long)vbn);
	memcpy(&e, p, sizeof(e));
	if (nlfs_le64(e.de_end) != NLFS_CNO_MAX)
		return 0;   /* already ended */
	return nlfs_datw_end(w, vbn, false, err);
}

void nlfs_writer_set_counts(struct nlfs_writer *w, uint64_t ninodes, uint64_t nblocks)
{
	w->prev.cp_inodes_count = nlfs_cpu_to_le64(ninodes);
	w->prev.cp_blocks_count = nlfs_cpu_to_le64(nblocks);
}

int nlfs_writer_file_replace(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err)
{
	struct nlfs_file f = { .ino = ino, .cno = w->cno - 1 };
	struct nlfs_wfile *old;
	int rc;

	if (ino < w->first_ino && ino != NLFS_ROOT_INO)
		return -EINVAL;
	rc = nlfs_writer_get_inode(w, ino, &f.inode, err);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, ino, &f.inode, &f, &old);
	if (rc)
		return rc;
	rc = nlfs_wfile_load_map(old, err);
	/* the old versions stay in the checkpoints that have them */
	for (size_t i = 0; !rc && i < old->nold; i++)
		rc = nlfs_datw_end(w, old->old_ptrs[i], false, err);
	for (size_t i = 0; !rc && i < old->nold_nodes; i++)
		rc = nlfs_datw_end(w, old->old_nodes[i], false, err);
	if (!rc)
		w->user_blocks -= (int64_t)(old->nold + old->nold_nodes);
	nlfs_wfile_free(old);
	return rc;
}

/* would the kernel take this slot for a live inode? */
static bool plausible_inode(const struct nlfs_inode *in)
{
	return nlfs_file_type_of_mode(nlfs_le16(in->i_mode)) != 0 &&
	       nlfs_le16(in->i_links_count) > 0;
}

int nlfs_writer_revive_inode(struct nlfs_writer *w, uint64_t ino, bool *revived,
			     struct nlfs_err *err)
{
	struct nlfs_inode in;
	const uint8_t *e;
	int rc;

	*revived = false;
	if (ino < w->first_ino)
		return 0;
	rc = nlfs_palloc_peek(w->ifile, w->isz, ino, &e, err);
	if (rc || e)
		return rc;
	rc = nlfs_writer_get_inode(w, ino, &in, err);
	if (rc || !plausible_inode(&in))
		return rc;
	rc = nlfs_palloc_reserve(w->ifile, w->isz, ino, err);
	if (rc)
		return rc;
	w->user_inodes++;
	*revived = true;
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
	struct nlfs_fs *fs = w->fs;
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
		buf = malloc(w->geo.blocksize);
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
	struct nlfs_fs *fs = w->fs;
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
