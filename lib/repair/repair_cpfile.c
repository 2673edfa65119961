/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpfile entries mended by a repair construction (fsck.nilfs2).
 *
 * The kernel's layout: an entry is a checkpoint unless its INVALID flag
 * is set, whatever else it holds; a cpfile block left with no valid
 * checkpoint is dropped from the map.  A buggy writer can leave a valid
 * entry past the latest checkpoint, a wrong cp_cno, unknown flags, an
 * ifile inode that is not a regular file, or a snapshot list that does
 * not match the SNAPSHOT flags.  Each is set right here, in the writer's
 * cache; every change is handed to the caller's callback to be reported.
 *
 * The snapshot list is rebuilt from the union of the flagged entries and
 * the ones the old list still names: a checkpoint the list names whose
 * flag is clear stays a snapshot (dropping one would let a cleaner reclaim
 * the blocks only it keeps; a snapshot too many costs only space).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "../nlfsP.h"
#include "../write/construction.h"

#define CP_KNOWN (NLFS_CHECKPOINT_SNAPSHOT | NLFS_CHECKPOINT_INVALID | NLFS_CHECKPOINT_SKETCH | \
		  NLFS_CHECKPOINT_MINOR)

struct mend {
	struct nlfs_writer *w;
	nlfs_cp_fix_cb cb;
	void *arg;
	uint32_t cpsz;
	uint64_t epb, first_slot, latest;
	uint64_t *snaps;
	size_t nsnaps, capsnaps;
	struct nlfs_err *err;
};

static uint64_t slot_of(const struct mend *m, uint64_t cno)
{
	return cno - 1 + m->first_slot;
}

/* the entry of checkpoint CNO for reading (NULL: a hole) or, with WRITE, for changing */
static int entry(struct mend *m, uint64_t cno, bool write, struct nlfs_checkpoint **cp)
{
	uint64_t slot = slot_of(m, cno);
	uint8_t *blk;
	int rc = write ? nlfs_writer_mdt_write(m->w, NLFS_CPFILE_INO, slot / m->epb, &blk, m->err)
		       : nlfs_writer_mdt_read(m->w, NLFS_CPFILE_INO, slot / m->epb, &blk, m->err);

	*cp = rc || !blk ? NULL : (struct nlfs_checkpoint *)(void *)(blk + (slot % m->epb) * m->cpsz);
	return rc;
}

static bool valid(const struct nlfs_checkpoint *cp)
{
	return cp && !(nlfs_le32(cp->cp_flags) & NLFS_CHECKPOINT_INVALID);
}

static void fixed(struct mend *m, enum nlfs_cp_fix what, uint64_t cno, uint64_t value)
{
	nlfs_writer_note_cp_change(m->w);
	if (m->cb)
		m->cb(m->arg, what, cno, value);
}


static void ifile_inode_mend(struct nlfs_inode *in)
{
	in->i_mode = nlfs_cpu_to_le16((uint16_t)(NLFS_S_IFREG | (nlfs_le16(in->i_mode) & 07777)));
	if (!in->i_links_count)
		in->i_links_count = nlfs_cpu_to_le16(1);
}

static int add_snapshot(struct mend *m, uint64_t cno)
{
	for (size_t i = 0; i < m->nsnaps; i++)
		if (m->snaps[i] == cno)
			return 0;
	if (NLFS_GROW(m->snaps, m->capsnaps, m->nsnaps + 1))
		return -ENOMEM;
	m->snaps[m->nsnaps++] = cno;
	return 0;
}

/* one valid entry: what can be wrong in it alone */
static int mend_entry(struct mend *m, uint64_t cno)
{
	struct nlfs_checkpoint *cp;
	uint32_t fl;
	int rc = entry(m, cno, false, &cp);

	if (rc || !valid(cp))
		return rc;
	fl = nlfs_le32(cp->cp_flags);
	if (cno <= m->latest && nlfs_le64(cp->cp_cno) == cno && !(fl & ~CP_KNOWN) &&
	    nlfs_cp_ifile_inode_ok(&cp->cp_ifile_inode)) {
		if (fl & NLFS_CHECKPOINT_SNAPSHOT)
			return add_snapshot(m, cno);
		return 0;
	}
	rc = entry(m, cno, true, &cp);
	if (rc)
		return rc;
	if (cno > m->latest) {
		/* no construction made it: nothing can use it */
		cp->cp_flags = nlfs_cpu_to_le32(NLFS_CHECKPOINT_INVALID);
		cp->cp_snapshot_next = cp->cp_snapshot_prev = 0;
		fixed(m, NLFS_CP_FIX_FUTURE, cno, m->latest);
		return 0;
	}
	if (nlfs_le64(cp->cp_cno) != cno) {
		fixed(m, NLFS_CP_FIX_CNO, cno, nlfs_le64(cp->cp_cno));
		cp->cp_cno = nlfs_cpu_to_le64(cno);
	}
	if (fl & ~CP_KNOWN) {
		fixed(m, NLFS_CP_FIX_FLAGS, cno, fl & ~CP_KNOWN);
		cp->cp_flags = nlfs_cpu_to_le32(fl & CP_KNOWN);
	}
	if (!nlfs_cp_ifile_inode_ok(&cp->cp_ifile_inode)) {
		fixed(m, NLFS_CP_FIX_IFILE, cno,
		      (uint64_t)nlfs_le16(cp->cp_ifile_inode.i_links_count) << 16 |
		      nlfs_le16(cp->cp_ifile_inode.i_mode));
		ifile_inode_mend(&cp->cp_ifile_inode);
		/* the new checkpoint starts from the latest one's ifile inode */
		if (cno == m->latest)
			ifile_inode_mend(nlfs_writer_mdt_inode(m->w, NLFS_IFILE_INO));
	}
	if (fl & NLFS_CHECKPOINT_SNAPSHOT)
		return add_snapshot(m, cno);
	return 0;
}

/* the checkpoints the old list names, one way along it; a link that
 * leads nowhere valid ends the walk */
static int walk_list(struct mend *m, uint64_t from, bool forward)
{
	uint64_t cno = from;

	for (uint64_t steps = 0; cno && cno <= m->latest && steps <= m->latest; steps++) {
		struct nlfs_checkpoint *cp;
		int rc = entry(m, cno, false, &cp);

		if (rc)
			return rc;
		if (!valid(cp))
			return 0;
		if (!(nlfs_le32(cp->cp_flags) & NLFS_CHECKPOINT_SNAPSHOT)) {
			rc = entry(m, cno, true, &cp);
			if (rc)
				return rc;
			cp->cp_flags = nlfs_cpu_to_le32(nlfs_le32(cp->cp_flags) |
							NLFS_CHECKPOINT_SNAPSHOT);
			fixed(m, NLFS_CP_FIX_SNAPSHOT, cno, 0);
			rc = add_snapshot(m, cno);
			if (rc)
				return rc;
		}
		cno = nlfs_le64(forward ? cp->cp_snapshot_next : cp->cp_snapshot_prev);
	}
	return 0;
}

/* every snapshot linked to its neighbours, the header to both ends */
static int relink(struct mend *m)
{
	struct nlfs_cpfile_header *h;
	uint8_t *blk;
	uint64_t first, last, nlinks = 0;
	int rc;

	if (m->nsnaps > 1)
		nlfs_sort(m->snaps, m->nsnaps, sizeof(*m->snaps), nlfs_cmp_u64);
	first = m->nsnaps ? m->snaps[0] : 0;
	last = m->nsnaps ? m->snaps[m->nsnaps - 1] : 0;
	for (size_t i = 0; i < m->nsnaps; i++) {
		uint64_t prev = i ? m->snaps[i - 1] : 0, next = i + 1 < m->nsnaps ? m->snaps[i + 1] : 0;
		struct nlfs_checkpoint *cp;

		rc = entry(m, m->snaps[i], false, &cp);
		if (rc)
			return rc;
		if (nlfs_le64(cp->cp_snapshot_prev) == prev && nlfs_le64(cp->cp_snapshot_next) == next)
			continue;
		rc = entry(m, m->snaps[i], true, &cp);
		if (rc)
			return rc;
		cp->cp_snapshot_prev = nlfs_cpu_to_le64(prev);
		cp->cp_snapshot_next = nlfs_cpu_to_le64(next);
		nlinks++;
	}
	rc = nlfs_writer_mdt_read(m->w, NLFS_CPFILE_INO, 0, &blk, m->err);
	if (rc)
		return rc;
	h = (struct nlfs_cpfile_header *)(void *)blk;
	if (!h || nlfs_le64(h->ch_snapshot_next) != first || nlfs_le64(h->ch_snapshot_prev) != last) {
		rc = nlfs_writer_mdt_write(m->w, NLFS_CPFILE_INO, 0, &blk, m->err);
		if (rc)
			return rc;
		h = (struct nlfs_cpfile_header *)(void *)blk;
		h->ch_snapshot_next = nlfs_cpu_to_le64(first);
		h->ch_snapshot_prev = nlfs_cpu_to_le64(last);
		nlinks++;
	}
	if (nlinks)
		fixed(m, NLFS_CP_FIX_LIST, 0, m->nsnaps);
	return 0;
}

/* a block past the header with no valid checkpoint goes, as the kernel drops it */
static int drop_empty(struct mend *m, uint64_t b)
{
	uint8_t *blk;
	int rc = nlfs_writer_mdt_read(m->w, NLFS_CPFILE_INO, b, &blk, m->err);

	if (rc || !blk || b == 0 || b == slot_of(m, nlfs_writer_cno(m->w)) / m->epb)
		return rc;
	for (uint64_t i = 0; i < m->epb; i++)
		if (!(nlfs_le32(((struct nlfs_checkpoint *)(void *)(blk + i * m->cpsz))->cp_flags) &
		      NLFS_CHECKPOINT_INVALID))
			return 0;
	rc = nlfs_writer_mdt_punch(m->w, NLFS_CPFILE_INO, b, m->err);
	if (!rc)
		fixed(m, NLFS_CP_FIX_BLOCK, 0, b);
	return rc;
}

int nlfs_writer_mend_cpfile(struct nlfs_writer *w, nlfs_cp_fix_cb cb, void *arg,
			    struct nlfs_err *err)
{
	uint32_t cpsz = nlfs_writer_entry_size(w, NLFS_CPFILE_INO);
	struct mend m = { .w = w, .cb = cb, .arg = arg, .cpsz = cpsz,
			  .epb = nlfs_writer_geometry(w)->blocksize / cpsz,
			  .first_slot = nlfs_cpfile_first_slot(cpsz),
			  .latest = nlfs_writer_cno(w) - 1, .err = err };
	struct nlfs_cpfile_header *h;
	const uint64_t *old_keys, *old_ptrs;
	uint64_t *blocks = NULL;
	size_t nblocks;
	uint8_t *blk;
	int rc = nlfs_writer_mdt_old_map(w, NLFS_CPFILE_INO, &old_keys, &old_ptrs, &nblocks, err);

	if (rc)
		return rc;
	/* the blocks mapped before this construction (the cache may drop some) */
	if (nblocks && !(blocks = malloc(nblocks * sizeof(*blocks))))
		return -ENOMEM;
	if (nblocks)
		memcpy(blocks, old_keys, nblocks * sizeof(*blocks));
	for (uint64_t k = 0; !rc && k < nblocks; k++) {
		uint64_t b = blocks[k];

		for (uint64_t i = b == 0 ? m.first_slot : 0; !rc && i < m.epb; i++)
			rc = mend_entry(&m, b * m.epb + i + 1 - m.first_slot);
	}
	if (!rc)
		rc = nlfs_writer_mdt_read(w, NLFS_CPFILE_INO, 0, &blk, err);
	if (!rc && blk) {
		h = (struct nlfs_cpfile_header *)(void *)blk;
		uint64_t next = nlfs_le64(h->ch_snapshot_next), prev = nlfs_le64(h->ch_snapshot_prev);

		rc = walk_list(&m, next, true);
		if (!rc)
			rc = walk_list(&m, prev, false);
	}
	if (!rc)
		rc = relink(&m);
	for (uint64_t k = 0; !rc && k < nblocks; k++)
		rc = drop_empty(&m, blocks[k]);
	free(blocks);
	free(m.snaps);
	return rc;
}
