/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_inode.c - inodes set right in the repair's construction: link
 * counts as the directories count them, i_blocks as the map holds, i_size
 * covering the blocks (a regular file: as e2fsck, up to the end of its
 * last block; a symbolic link: the length of its target), and inodes that
 * cannot be kept (an invalid file type; a symbolic link with no target)
 * cleared.  A cleared inode's blocks stay in the checkpoints that have
 * them; in the new one no file uses them, and their DAT entries end there
 * as any other the check finds unused.  An orphan's map was sound and in
 * use when checked, so its release ends what the map holds itself, as the
 * kernel's last iput truncates before it frees the inode.
 */
#include <inttypes.h>
#include <stdio.h>

#include <nlfs/endian.h>
#include "repairP.h"

static int end_orphan_block(uint64_t blkoff, uint64_t vbn, unsigned level, void *arg)
{
	struct repair *r = arg;

	(void)blkoff;
	(void)level;
	return nlfs_writer_end_vblock(r->w, vbn, &r->err);
}

/* the DAT entries of an orphan's blocks and map nodes end in the new
 * checkpoint (older ones keep them) */
static int end_orphan_map(struct repair *r, const struct nlfs_file *f)
{
	if (!nlfs_mode_has_map(nlfs_le16(f->inode.i_mode)))
		return 0;
	return nlfs_bmap_iterate(r->fs, f, end_orphan_block, r, &r->err);
}

int repair_clear_inodes(struct repair *r)
{
	struct fsck *c = r->c;
	bool preen = c->o.mode == MODE_PREEN;

	for (size_t i = 0; i < c->fix.nclears; i++) {
		const struct fsck_clear_fix *cf = &c->fix.clears[i];
		int rc;

		if (preen && !cf->empty && !cf->orphan)
			continue;   /* what it held is dropped: only -y */
		if (cf->orphan) {
			rc = end_orphan_map(r, &cf->file);
			if (rc)
				return repair_lib_failed(r, rc, "ending an orphan's blocks");
		}
		rc = nlfs_writer_clear_inode(r->w, cf->ino, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "clearing an inode");
		/* the counts set after the repairs are the check's, which held it */
		if (c->fix.cp_nblocks >= cf->nblocks)
			c->fix.cp_nblocks -= cf->nblocks;
		if (cf->empty)
			repair_done(r, 1, "%s: a free inode's record, its bit cleared in the ifile bitmap",
				    cf->what);
		else if (cf->orphan)
			repair_done(r, 1, "%s: released, as its last close would have done "
				    "(checkpoint %" PRIu64 " and older keep it)", cf->what,
				    c->latest_cno);
		else
			repair_done(r, 1, "%s: inode cleared, the entries naming it removed "
				    "(checkpoint %" PRIu64 " and older keep it)", cf->what,
				    c->latest_cno);
	}
	return 0;
}

/* ifile blocks mapped far past what the volume can hold: what they held
 * was never checked (no directory can name an inode there that the check
 * found in use) */
int repair_ifile_far(struct repair *r)
{
	const struct fsck *c = r->c;

	for (size_t i = 0; i < c->fix.nifile_far; i++) {
		int rc = nlfs_writer_ifile_punch(r->w, c->fix.ifile_far[i], &r->err);

		if (rc)
			return repair_lib_failed(r, rc, "dropping an ifile block");
		repair_done(r, 1, "ifile: block %" PRIu64 ", past what the volume can hold, dropped "
			    "from its map (checkpoint %" PRIu64 " and older keep it)",
			    c->fix.ifile_far[i], c->latest_cno);
	}
	return 0;
}

static int set_links(struct repair *r, uint64_t ino, uint32_t want)
{
	struct nlfs_inode inode;
	int rc = nlfs_writer_get_inode(r->w, ino, &inode, &r->err);

	if (rc)
		return repair_lib_failed(r, rc, "reading an inode");
	if (nlfs_le16(inode.i_links_count) == want)
		return 0;
	repair_done(r, 1, "inode %" PRIu64 ": i_links_count %u -> %u", ino,
		    nlfs_le16(inode.i_links_count), want);
	inode.i_links_count = nlfs_cpu_to_le16((uint16_t)want);
	rc = nlfs_writer_put_inode(r->w, ino, &inode, &r->err);
	return rc ? repair_lib_failed(r, rc, "writing an inode") : 0;
}

int repair_inodes(struct repair *r)
{
	struct fsck *c = r->c;
	uint32_t units = c->g->blocksize / 512;
	int rc;

	for (size_t i = 0; i < c->fix.nlinks; i++) {
		const struct fsck_link_fix *lf = &c->fix.links[i];
		uint32_t want = lf->links + (r->attached && repair_is_detached(c, lf->ino) ? 1 : 0);

		if (repair_edited(r, lf->ino) || repair_is_cleared(c, lf->ino))
			continue;   /* rewrite_dir set it */
		rc = set_links(r, lf->ino, want);
		if (rc)
			return rc;
	}
	/* a detached file no directory named: /lost+found's entry is its one link */
	for (size_t i = 0; r->attached && i < c->fix.ndetached; i++) {
		uint64_t ino = c->fix.detached[i];

		if (repair_edited(r, ino) || repair_link_fix(c, ino) || repair_is_cleared(c, ino))
			continue;
		rc = set_links(r, ino, 1);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < c->fix.nsizes; i++) {
		const struct fsck_size_fix *sf = &c->fix.sizes[i];
		struct nlfs_inode inode;

		if (repair_edited(r, sf->ino) || repair_is_cleared(c, sf->ino))
			continue;
		rc = nlfs_writer_get_inode(r->w, sf->ino, &inode, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "reading an inode");
		repair_done(r, 1, "inode %" PRIu64 ": i_size %" PRIu64 " -> %" PRIu64, sf->ino,
			    nlfs_le64(inode.i_size), sf->size);
		inode.i_size = nlfs_cpu_to_le64(sf->size);
		rc = nlfs_writer_put_inode(r->w, sf->ino, &inode, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "writing an inode");
	}
	for (size_t i = 0; i < c->fix.nblocks; i++) {
		const struct fsck_blocks_fix *bf = &c->fix.blocks[i];
		struct nlfs_inode inode;

		/* the metadata files' counts are rewritten with them; a mended
		 * directory got its count when it was rewritten */
		if (bf->ino < nlfs_le32(c->sb->s_first_ino) && bf->ino != NLFS_ROOT_INO)
			continue;
		if (repair_edited(r, bf->ino) || repair_is_cleared(c, bf->ino))
			continue;
		rc = nlfs_writer_get_inode(r->w, bf->ino, &inode, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "reading an inode");
		repair_done(r, 1, "inode %" PRIu64 ": i_blocks %" PRIu64 " -> %" PRIu64, bf->ino,
			    nlfs_le64(inode.i_blocks), bf->nblocks * units);
		inode.i_blocks = nlfs_cpu_to_le64(bf->nblocks * units);
		rc = nlfs_writer_put_inode(r->w, bf->ino, &inode, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "writing an inode");
	}
	return 0;
}
