/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Repairs of block maps and DAT entries carried by a construction
 * (fsck.nilfs2): a file's map replaced wholesale by the entries that hold
 * up, or its blocks ended before it is written anew; DAT entries set from
 * what the segment summaries say, ended or freed, and the DAT's group
 * counts from its bitmaps; blocks of a segment being given up moved.  As
 * with the writer's other repair edits, nothing reaches the device before
 * the construction commits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "writerP.h"

int nlfs_writer_peek_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_datinfo *e,
			    bool *allocated, struct nlfs_err *err)
{
	struct nlfs_dat_entry de;
	uint32_t byteoff;
	uint64_t blkoff;
	uint8_t *blk;
	int rc = nlfs_palloc_test(w->dat, w->dsz, vbn, allocated, err);

	if (rc)
		return rc;
	memset(e, 0, sizeof(*e));
	nlfs_palloc_locate(w->geo.blocksize, w->dsz, vbn, &blkoff, &byteoff);
	rc = nlfs_wfile_read(w->dat, blkoff, &blk, err);
	if (!rc && blk) {
		memcpy(&de, blk + byteoff, sizeof(de));
		e->blocknr = nlfs_le64(de.de_blocknr);
		e->start = nlfs_le64(de.de_start);
		e->end = nlfs_le64(de.de_end);
	}
	return rc;
}

int nlfs_writer_set_vblock(struct nlfs_writer *w, uint64_t vbn, uint64_t blocknr, uint64_t start,
			   uint64_t end, struct nlfs_err *err)
{
	struct nlfs_dat_entry e = {
		.de_blocknr = nlfs_cpu_to_le64(blocknr),
		.de_start = nlfs_cpu_to_le64(start),
		.de_end = nlfs_cpu_to_le64(end),
	};
	bool inuse;
	uint8_t *p;
	int rc = nlfs_palloc_test(w->dat, w->dsz, vbn, &inuse, err);

	if (!rc && !inuse)
		rc = nlfs_palloc_reserve(w->dat, w->dsz, vbn, err);
	if (!rc)
		rc = nlfs_palloc_entry(w->dat, w->dsz, vbn, &p, err);
	if (!rc)
		memcpy(p, &e, sizeof(e));
	return rc;
}

int nlfs_writer_free_vblock(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err)
{
	bool inuse;
	int rc = nlfs_palloc_test(w->dat, w->dsz, vbn, &inuse, err);

	if (rc || !inuse)
		return rc;
	return nlfs_datw_release(w, vbn, err);
}

int nlfs_writer_dat_rewrite_block(struct nlfs_writer *w, uint64_t blkoff, struct nlfs_err *err)
{
	uint8_t *blk;
	int rc = nlfs_wfile_read(w->dat, blkoff, &blk, err);

	if (rc || !blk)
		return rc;
	return nlfs_wfile_write(w->dat, blkoff, &blk, NULL, err);
}

int nlfs_writer_file_remap(struct nlfs_writer *w, uint64_t ino, const uint64_t *keys,
			   const uint64_t *ptrs, size_t n, uint64_t old_nblocks,
			   struct nlfs_err *err)
{
	struct nlfs_inode inode;
	int rc;

	if (ino < w->first_ino && ino != NLFS_ROOT_INO)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (keys[i] <= keys[i - 1])
			return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
					    "inode %llu: new map out of order at %llu",
					    (unsigned long long)ino, (unsigned long long)keys[i]);
	rc = nlfs_writer_get_inode(w, ino, &inode, err);
	if (rc)
		return rc;
	/* the flags byte and the rest of i_bmap are written anew */
	memset(inode.i_bmap, 0, sizeof(inode.i_bmap));
	rc = nlfs_writer_build_map(w, ino, keys, ptrs, n, &inode, err);
	if (!rc) {
		w->user_blocks -= old_nblocks;
		rc = nlfs_logw_write_closed(w->lw, NULL, err);
	}
	return rc;
}

int nlfs_writer_move_block(struct nlfs_writer *w, uint64_t ino, uint64_t cno, uint64_t vbn,
			   uint64_t blkoff, unsigned level, uint64_t block, struct nlfs_err *err)
{
	uint32_t bs = w->geo.blocksize;
	struct nlfs_litem it = { .ino = ino, .cno = cno, .vblocknr = vbn, .blkoff = blkoff,
				 .level = (uint8_t)level, .owned = true, .gc = true };
	uint8_t *entry;
	int rc;

	if (ino == NLFS_DAT_INO)
		return -EINVAL;
	if (ino == NLFS_CPFILE_INO || ino == NLFS_SUFILE_INO) {
		/* the construction writes these anyway, with new virtual
		 * blocks, ending the old ones' entries (freed with the
		 * segment): a copy under the old number would share it with
		 * the block that number is given to next.  So the block is
		 * written again as the cleaner does, an older version freed; a
		 * node is written anew by the file's tree (writer.c, plan_tree). */
		struct nlfs_wfile *wf = ino == NLFS_CPFILE_INO ? w->cpfile : w->sufile;
		uint64_t cur = 0;
		bool rewritten;
		int r = nlfs_wfile_load_map(wf, err);

		(void)block;
		if (r)
			return r;
		if (level) {
			for (size_t i = 0; i < wf->nold_nodes; i++)
				if (wf->old_nodes[i] == vbn)
					return 0;   /* replaced, freed with the segment */
		} else {
			r = nlfs_wfile_old_ptr(wf, blkoff, &cur, err);
			if (r)
				return r;
			if (cur == vbn)
				return nlfs_wfile_rewrite(wf, blkoff, &rewritten, err);
		}
		/* an older version: only the super root's files are read */
		return nlfs_datw_release(w, vbn, err);
	}
	/* its entry changes when the copy gets its address: dirty it now,
	 * before the commit plans which DAT blocks it writes */
	rc = nlfs_palloc_entry(w->dat, w->dsz, vbn, &entry, err);
	if (rc)
		return rc;
	it.buf = malloc(bs);
	if (!it.buf)
		return -ENOMEM;
	rc = nlfs_io_read(w->io, it.buf, bs, block * bs);
	if (rc) {
		free(it.buf);
		return nlfs_err_set(err, rc, block, "%s: reading a block to move",
				    nlfs_io_name(w->io));
	}
	return nlfs_writer_add_item(w, &it, err);
}

int nlfs_writer_release_segment(struct nlfs_writer *w, uint64_t segnum, struct nlfs_err *err)
{
	bool done;
	int rc = nlfs_suw_may_release(w, segnum, &done, err);

	return rc || done ? rc : nlfs_suw_release(w, segnum);
}

int nlfs_writer_leave_segment(struct nlfs_writer *w, uint64_t segnum, struct nlfs_err *err)
{
	struct nlfs_logw_pos pos = nlfs_logw_position(w->lw);
	int rc;

	if (segnum == pos.nextseg)
		return nlfs_err_set(err, EBUSY, NLFS_NOWHERE, "segment %llu is reserved as the "
				    "next the logs name", (unsigned long long)segnum);
	if (segnum != pos.seg)
		return 0;
	/* moving to where it is already: only asks whether it may move */
	if (nlfs_logw_move(w->lw, &pos))
		return nlfs_err_set(err, EBUSY, NLFS_NOWHERE, "segment %llu: the construction has "
				    "begun there", (unsigned long long)segnum);
	/* the logs there name the next segment: the construction goes on in
	 * it, as the kernel would once this one is full */
	pos.seg = pos.nextseg;
	pos.pos = nlfs_seg_start(&w->geo, pos.seg);
	pos.seq++;
	rc = nlfs_suw_alloc(w, true, &pos.nextseg, err);
	return rc ? rc : nlfs_logw_move(w->lw, &pos);
}

void nlfs_writer_fix_mdt_inodes(struct nlfs_writer *w, uint64_t *nfixed)
{
	struct nlfs_wfile *files[] = { w->dat, w->cpfile, w->sufile };

	for (size_t i = 0; i < 3; i++) {
		struct nlfs_inode *in = &files[i]->inode;

		/* what the kernel loads them as: regular files with a link */
		if ((nlfs_le16(in->i_mode) & NLFS_S_IFMT) != NLFS_S_IFREG) {
			in->i_mode = nlfs_cpu_to_le16((uint16_t)(NLFS_S_IFREG | (nlfs_le16(in->i_mode) & 07777)));
			(*nfixed)++;
		}
		if (!nlfs_le16(in->i_links_count)) {
			in->i_links_count = nlfs_cpu_to_le16(1);
			(*nfixed)++;
		}
	}
}

int nlfs_writer_peek_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_inode *inode,
			   struct nlfs_err *err)
{
	const uint8_t *p;
	int rc = nlfs_palloc_peek(w->ifile, w->isz, ino, &p, err);

	if (rc)
		return rc;
	if (!p)
		return nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "inode %llu is not in use",
				    (unsigned long long)ino);
	memcpy(inode, p, sizeof(*inode));
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
		w->user_blocks -= old->nold + old->nold_nodes;
	nlfs_wfile_free(old);
	return rc;
}
