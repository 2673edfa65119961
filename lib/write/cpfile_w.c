/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cpfile in a construction: the entry of the checkpoint being built,
 * and the changes chcp and rmcp make (snapshot list, invalidation, block
 * counts, empty blocks dropped), with the kernel's rules; and, for a
 * repair's construction, the latest entry taken back when nothing but a
 * stray INVALID flag is wrong with it.
 */
#include <errno.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "writerP.h"

static int cp_entry(struct nlfs_writer *w, uint64_t cno, struct nlfs_checkpoint **cp,
		    bool *created, struct nlfs_err *err)
{
	uint64_t slot = cno - 1 + cp_first(w), epb = w->geo.blocksize / w->cpsz;
	uint8_t *blk;
	int rc = nlfs_wfile_write(w->cpfile, slot / epb, &blk, created, err);

	if (rc)
		return rc;
	if (*created) {
		/* a new cpfile block: every slot invalid until used */
		for (uint64_t i = slot / epb == 0 ? cp_first(w) : 0; i < epb; i++) {
			struct nlfs_checkpoint *c = (void *)(blk + i * w->cpsz);

			c->cp_flags = nlfs_cpu_to_le32(NLFS_CHECKPOINT_INVALID);
			c->cp_cno = nlfs_cpu_to_le64(slot / epb * epb + i + 1 - cp_first(w));
		}
	}
	*cp = (struct nlfs_checkpoint *)(void *)(blk + (slot % epb) * w->cpsz);
	return 0;
}

/* Make the entry of the checkpoint being built valid and counted. */
int nlfs_cpw_prepare(struct nlfs_writer *w, struct nlfs_err *err)
{
	uint64_t slot = w->cno - 1 + cp_first(w), epb = w->geo.blocksize / w->cpsz;
	struct nlfs_checkpoint *cp;
	uint8_t *hdr;
	bool created;
	int rc = cp_entry(w, w->cno, &cp, &created, err);

	if (!rc)
		rc = nlfs_wfile_write(w->cpfile, 0, &hdr, NULL, err);
	if (rc)
		return rc;
	if (!(nlfs_le32(cp->cp_flags) & NLFS_CHECKPOINT_INVALID))
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "checkpoint %llu already exists in the cpfile",
				    (unsigned long long)w->cno);
	cp->cp_flags = 0;
	if (slot / epb) {
		struct nlfs_checkpoint *first =
			(void *)((uint8_t *)cp - (slot % epb) * w->cpsz);

		first->cp_checkpoints_count =
			nlfs_cpu_to_le32(nlfs_le32(first->cp_checkpoints_count) + 1);
	}
	nlfs_le64_add(hdr, 1);   /* ch_ncheckpoints */
	return 0;
}


int nlfs_cpw_finalize(struct nlfs_writer *w, struct nlfs_err *err)
{
	struct nlfs_checkpoint *cp;
	bool created;
	uint64_t blocks = nlfs_le64(w->prev.cp_blocks_count) + w->user_blocks;
	uint64_t inodes = nlfs_le64(w->prev.cp_inodes_count) + (uint64_t)w->user_inodes;
	int rc = cp_entry(w, w->cno, &cp, &created, err);

	if (rc)
		return rc;
	if (nlfs_wfile_has_work(w->ifile)) {
		/* counted from the old map: i_blocks is in fs blocks on volumes
		 * nilfs-utils' mkfs made, in 512-byte units once the kernel wrote it */
		uint64_t old = w->ifile->nold + w->ifile->nold_nodes;

		blocks = blocks - old + w->ifile->nblocks;
	}
	cp->cp_flags = nlfs_cpu_to_le32(nlfs_wfile_has_work(w->ifile) ? 0 : NLFS_CHECKPOINT_MINOR);
	cp->cp_snapshot_next = cp->cp_snapshot_prev = 0;
	cp->cp_cno = nlfs_cpu_to_le64(w->cno);
	cp->cp_create = nlfs_cpu_to_le64(w->ctime);
	cp->cp_nblk_inc = nlfs_cpu_to_le64(nlfs_logw_blocks(w->lw));
	cp->cp_inodes_count = nlfs_cpu_to_le64(inodes);
	cp->cp_blocks_count = nlfs_cpu_to_le64(blocks);
	memcpy(&cp->cp_ifile_inode, &w->ifile->inode, sizeof(struct nlfs_inode));
	return 0;
}


static int cp_header(struct nlfs_writer *w, struct nlfs_cpfile_header **h, struct nlfs_err *err)
{
	uint8_t *blk;
	int rc = nlfs_wfile_write(w->cpfile, 0, &blk, NULL, err);

	*h = (struct nlfs_cpfile_header *)(void *)blk;
	return rc;
}

/* an existing checkpoint's entry, for changing it; -ENOENT if it is not valid */
static int cp_valid_entry(struct nlfs_writer *w, uint64_t cno, struct nlfs_checkpoint **cp,
			  struct nlfs_err *err)
{
	uint64_t slot = cno - 1 + cp_first(w), epb = w->geo.blocksize / w->cpsz;
	uint8_t *blk;
	int rc;

	if (cno == 0 || cno >= w->cno)
		return nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "checkpoint %llu does not exist",
				    (unsigned long long)cno);
	rc = nlfs_wfile_read(w->cpfile, slot / epb, &blk, err);
	if (rc)
		return rc;
	if (blk) {
		struct nlfs_checkpoint *c = (void *)(blk + (slot % epb) * w->cpsz);

		if (!(nlfs_le32(c->cp_flags) & NLFS_CHECKPOINT_INVALID)) {
			rc = nlfs_wfile_write(w->cpfile, slot / epb, &blk, NULL, err);
			*cp = (void *)(blk + (slot % epb) * w->cpsz);
			return rc;
		}
	}
	rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "checkpoint %llu does not exist",
			  (unsigned long long)cno);
	if (err)
		err->cno = cno;
	return rc;
}

static void set_link(struct nlfs_cpfile_header *h, struct nlfs_checkpoint *c, bool next,
		     uint64_t to)
{
	nlfs_le64_t v = nlfs_cpu_to_le64(to);

	if (c && next)
		c->cp_snapshot_next = v;
	else if (c)
		c->cp_snapshot_prev = v;
	else if (next)
		h->ch_snapshot_next = v;
	else
		h->ch_snapshot_prev = v;
}

int nlfs_writer_set_snapshot(struct nlfs_writer *w, uint64_t cno, bool snapshot,
			     struct nlfs_err *err)
{
	struct nlfs_cpfile_header *h;
	struct nlfs_checkpoint *cp, *nb;
	uint64_t prev, next;
	int rc = cp_valid_entry(w, cno, &cp, err);

	if (!rc)
		rc = cp_header(w, &h, err);
	if (rc)
		return rc;
	if (!!(nlfs_le32(cp->cp_flags) & NLFS_CHECKPOINT_SNAPSHOT) == snapshot)
		return 0;
	if (snapshot) {
		/* walk down from the largest snapshot to the first one below CNO */
		next = 0;
		prev = nlfs_le64(h->ch_snapshot_prev);
		while (prev > cno) {
			rc = cp_valid_entry(w, prev, &nb, err);
			if (rc)
				return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
						    "snapshot list: checkpoint %llu",
						    (unsigned long long)prev);
			next = prev;
			prev = nlfs_le64(nb->cp_snapshot_prev);
		}
		cp->cp_snapshot_next = nlfs_cpu_to_le64(next);
		cp->cp_snapshot_prev = nlfs_cpu_to_le64(prev);
		cp->cp_flags = nlfs_cpu_to_le32(nlfs_le32(cp->cp_flags) | NLFS_CHECKPOINT_SNAPSHOT);
	} else {
		next = nlfs_le64(cp->cp_snapshot_next);
		prev = nlfs_le64(cp->cp_snapshot_prev);
		cp->cp_snapshot_next = cp->cp_snapshot_prev = 0;
		cp->cp_flags = nlfs_cpu_to_le32(nlfs_le32(cp->cp_flags) & ~NLFS_CHECKPOINT_SNAPSHOT);
	}
	/* the neighbours point at CNO (set) or at each other (clear) */
	nb = NULL;
	if (prev && (rc = cp_valid_entry(w, prev, &nb, err)))
		return rc;
	set_link(h, nb, true, snapshot ? cno : next);
	nb = NULL;
	if (next && (rc = cp_valid_entry(w, next, &nb, err)))
		return rc;
	set_link(h, nb, false, snapshot ? cno : prev);
	nlfs_le64_add(&h->ch_nsnapshots, snapshot ? 1 : -1);
	w->cp_changes++;
	return 0;
}

int nlfs_writer_set_cp_blocks(struct nlfs_writer *w, uint64_t cno, uint64_t nblocks,
			      struct nlfs_err *err)
{
	struct nlfs_checkpoint *cp;
	int rc = cp_valid_entry(w, cno, &cp, err);

	if (rc)
		return rc;
	if (nlfs_le64(cp->cp_blocks_count) != nblocks) {
		cp->cp_blocks_count = nlfs_cpu_to_le64(nblocks);
		w->cp_changes++;
	}
	return 0;
}

int nlfs_writer_delete_checkpoints(struct nlfs_writer *w, uint64_t start, uint64_t end,
				   uint64_t *ndeleted, struct nlfs_err *err)
{
	uint64_t epb = w->geo.blocksize / w->cpsz, nsnap = 0, total = 0;
	struct nlfs_cpfile_header *h;
	int rc = cp_header(w, &h, err);

	*ndeleted = 0;
	if (rc)
		return rc;
	if (start == 0 || start >= end)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "empty checkpoint range");
	if (end >= w->cno)
		return nlfs_err_set(err, EBUSY, NLFS_NOWHERE,
				    "checkpoint %llu is the current one",
				    (unsigned long long)(w->cno - 1));
	for (uint64_t cno = start; cno < end;) {
		uint64_t slot = cno - 1 + cp_first(w), blkoff = slot / epb;
		uint64_t last = (blkoff + 1) * epb + 1 - cp_first(w);   /* first cno of the next block */
		uint32_t in_block = 0;
		uint8_t *blk;

		if (last > end)
			last = end;
		rc = nlfs_wfile_read(w->cpfile, blkoff, &blk, err);
		/* a count that is off would wrap, or drop the block with
		 * checkpoints still valid in it: refused before it changes */
		if (!rc && blk)
			rc = nlfs_cpfile_block_count_check(w->fs, blkoff, blk, NULL, err);
		if (rc) {
			/* the blocks before this one are changed, and counted */
			nlfs_le64_add(&h->ch_ncheckpoints, -(int64_t)total);
			*ndeleted = total;
			w->cp_changes += total;
			return rc;
		}
		for (; blk && cno < last; cno++) {
			struct nlfs_checkpoint *c = (void *)(blk + ((cno - 1 + cp_first(w)) % epb) * w->cpsz);
			uint32_t fl = nlfs_le32(c->cp_flags);

			if (fl & NLFS_CHECKPOINT_INVALID)
				continue;
			if (fl & NLFS_CHECKPOINT_SNAPSHOT) {
				nsnap++;
				continue;
			}
			rc = nlfs_wfile_write(w->cpfile, blkoff, &blk, NULL, err);
			if (rc)
				return rc;
			c = (void *)(blk + ((cno - 1 + cp_first(w)) % epb) * w->cpsz);
			c->cp_flags = nlfs_cpu_to_le32(fl | NLFS_CHECKPOINT_INVALID);
			in_block++;
		}
		cno = last;
		if (in_block && blkoff) {
			struct nlfs_checkpoint *first = (void *)blk;
			uint32_t left = nlfs_le32(first->cp_checkpoints_count) - in_block;

			first->cp_checkpoints_count = nlfs_cpu_to_le32(left);
			if (left == 0)
				rc = nlfs_wfile_punch(w->cpfile, blkoff, err);   /* the kernel drops it */
			if (rc)
				return rc;
		}
		total += in_block;
	}
	nlfs_le64_add(&h->ch_ncheckpoints, -(int64_t)total);
	*ndeleted = total;
	w->cp_changes += total;
	if (nsnap)
		return nlfs_err_set(err, EBUSY, NLFS_NOWHERE,
				    "%llu snapshots in the range were kept",
				    (unsigned long long)nsnap);
	return 0;
}

uint64_t nlfs_writer_cp_changes(const struct nlfs_writer *w)
{
	return w->cp_changes;
}

int nlfs_cpw_read_latest(struct nlfs_writer *w, uint64_t cno, struct nlfs_checkpoint *cp,
			 struct nlfs_err *err)
{
	bool hole;
	int rc = nlfs_mdt_read_entry(w->fs, NLFS_CPFILE_INO, w->cpsz, cno - 1 + cp_first(w), cp,
				     sizeof(*cp), &hole, err);

	if (rc)
		return rc;
	/* only an entry that is whole but for its INVALID flag is taken back */
	if (hole || nlfs_le64(cp->cp_cno) != cno || !nlfs_cp_ifile_inode_ok(&cp->cp_ifile_inode))
		return nlfs_err_set(err, ENOENT, NLFS_NOWHERE,
				    "checkpoint %llu is not in the cpfile", (unsigned long long)cno);
	w->revive_latest = true;
	cp->cp_flags = nlfs_cpu_to_le32(nlfs_le32(cp->cp_flags) & ~NLFS_CHECKPOINT_INVALID);
	return 0;
}

int nlfs_cpw_revive_latest(struct nlfs_writer *w, struct nlfs_err *err)
{
	struct nlfs_checkpoint *cp;
	bool created;
	int rc;

	if (!w->revive_latest)
		return 0;
	rc = cp_entry(w, w->cno - 1, &cp, &created, err);
	if (!rc)
		cp->cp_flags = nlfs_cpu_to_le32(nlfs_le32(cp->cp_flags) & ~NLFS_CHECKPOINT_INVALID);
	return rc;
}

void nlfs_writer_set_counts(struct nlfs_writer *w, uint64_t ninodes, uint64_t nblocks)
{
	w->prev.cp_inodes_count = nlfs_cpu_to_le64(ninodes);
	w->prev.cp_blocks_count = nlfs_cpu_to_le64(nblocks);
}
