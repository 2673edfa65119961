/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One construction of a checkpoint, in the kernel's payload order: user
 * files (streamed as they arrive), then the ifile, cpfile, sufile and DAT,
 * then the super root.
 *
 * The metadata files depend on one another: every block written gets a new
 * DAT entry, every segment used changes the sufile, and the sufile's own
 * blocks need DAT entries.  Commit therefore plans in rounds (allocate
 * virtual blocks, lay the blocks out without writing, reserve the segments
 * the layout ran into) until a round changes nothing; then it lays out for
 * real, fills in addresses and counters, writes the logs, flushes, and
 * writes the superblocks last.  The changes of each metadata file are its
 * own file's: dat_w.c, sufile_w.c, cpfile_w.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"


uint64_t nlfs_writer_cno(const struct nlfs_writer *w)
{
	return w->cno;
}

const struct nlfs_geometry *nlfs_writer_geometry(const struct nlfs_writer *w)
{
	return &w->geo;
}

uint64_t nlfs_writer_blocks_written(const struct nlfs_writer *w)
{
	return nlfs_logw_blocks(w->lw);
}

static uint64_t fi_cno(const struct nlfs_writer *w, uint64_t ino)
{
	/* the kernel writes 0 for the files that live in the super root */
	return ino == NLFS_DAT_INO || ino == NLFS_CPFILE_INO || ino == NLFS_SUFILE_INO ? 0 : w->cno;
}

/* ---- logw callbacks ---- */

static int lw_next_segment(void *arg, uint64_t *segnum, struct nlfs_err *err)
{
	struct nlfs_writer *w = arg;

	if (w->resv_pos < w->nresv) {
		*segnum = w->resv[w->resv_pos++];
		return 0;
	}
	if (w->dry) {
		/* any segment but 0 has the same layout */
		w->dry_fake++;
		*segnum = 1;
		return 0;
	}
	if (w->final)
		return nlfs_err_set(err, EIO, NLFS_NOWHERE, "internal: metadata layout changed");
	return nlfs_suw_alloc(w, false, segnum, err);
}

static int lw_assigned(void *arg, const struct nlfs_litem *it, struct nlfs_err *err)
{
	struct nlfs_writer *w = arg;
	struct nlfs_dat_entry *e;
	int rc;

	if (it->ino == NLFS_DAT_INO) {
		if (it->level)
			w->dat->node_ptrs[it->aux] = it->addr;
		else
			w->dat->dirty_sorted[it->aux]->newptr = it->addr;
		return 0;
	}
	rc = nlfs_datw_entry(w, it->vblocknr, &e, err);
	if (rc)
		return rc;
	e->de_blocknr = nlfs_cpu_to_le64(it->addr);
	if (!it->gc)
		e->de_start = nlfs_cpu_to_le64(w->cno);
	return 0;
}

static const struct nlfs_logw_ops lw_ops = {
	.next_segment = lw_next_segment,
	.assigned = lw_assigned,
};

/* ---- setup ---- */

static int init_common(struct nlfs_writer *w, const struct nlfs_super_block *sb)
{
	w->sb = *sb;
	w->seed = nlfs_le32(sb->s_crc_seed);
	w->isz = nlfs_le16(sb->s_inode_size);
	w->dsz = nlfs_le16(sb->s_dat_entry_size);
	w->cpsz = nlfs_le16(sb->s_checkpoint_size);
	w->susz = nlfs_le16(sb->s_segment_usage_size);
	w->first_ino = nlfs_le32(sb->s_first_ino);
	w->nrsvsegs = nlfs_nrsvsegs(nlfs_le32(sb->s_r_segments_percentage), w->geo.nsegments);
	w->dat_hint = 1;
	w->ino_hint = w->first_ino;
	w->alloc_limit = w->geo.nsegments;
	w->nongc_ctime = w->ctime;
	w->sr = calloc(1, w->geo.blocksize);
	return w->sr ? 0 : -ENOMEM;
}

static void meta_inode(struct nlfs_inode *ino, uint64_t ctime)
{
	memset(ino, 0, sizeof(*ino));
	ino->i_mode = nlfs_cpu_to_le16(NLFS_S_IFREG);
	ino->i_links_count = nlfs_cpu_to_le16(1);
	ino->i_ctime = ino->i_mtime = nlfs_cpu_to_le64(ctime);
}

/* whether the superblock slot at OFF holds a copy the kernel would take
 * (magic, s_bytes, CRC); a slot that cannot be read counts as holding one */
static bool sb_slot_valid(struct nlfs_io *io, uint64_t off)
{
	struct nlfs_super_block sb;

	return nlfs_io_read(io, &sb, sizeof(sb), off) || !nlfs_sb_check_crc(&sb);
}

/*
 * A new volume's logs overwrite the device's first segment.  A superblock
 * of an older volume left in place would point into what they overwrite,
 * and a crash before the new superblocks would leave that volume, damaged,
 * for the kernel to mount: the old copies are zeroed, and the zeroes made
 * durable, before any log is written.  Where neither slot holds a copy the
 * kernel would take (a fresh device, or one mkfs's wipe already cleared
 * and synced) there is nothing to order: the slots are still zeroed (in
 * an image file this allocates their blocks, so that the superblocks'
 * final barrier only overwrites), but the zeroes become durable with the
 * logs, at their barrier.
 */
static int invalidate_superblocks(struct nlfs_io *io, uint64_t devsize, struct nlfs_err *err)
{
	uint8_t zero[NLFS_SB_SIZE] = { 0 };
	uint64_t sb2 = nlfs_sb2_offset(devsize);
	bool old = sb_slot_valid(io, NLFS_SB_OFFSET_BYTES) || (sb2 && sb_slot_valid(io, sb2));
	int rc = nlfs_io_write(io, zero, sizeof(zero), NLFS_SB_OFFSET_BYTES);

	if (!rc && sb2)
		rc = nlfs_io_write(io, zero, sizeof(zero), sb2);
	if (!rc && old)
		rc = nlfs_io_flush(io);
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: erasing the old superblocks",
				    nlfs_io_name(io));
	return 0;
}

int nlfs_writer_create(struct nlfs_io *io, const struct nlfs_super_block *sb,
		       struct nlfs_writer **out, struct nlfs_err *err)
{
	struct nlfs_writer *w = calloc(1, sizeof(*w));
	struct nlfs_logw_pos pos = { 0 };
	struct nlfs_inode mi;
	struct nlfs_sufile_header *h;
	int rc;

	if (!w)
		return -ENOMEM;
	w->io = io;
	w->mkfs = true;
	nlfs_geometry_from_sb(&w->geo, sb, nlfs_le64(sb->s_dev_size));
	w->cno = 1;
	w->ctime = nlfs_le64(sb->s_ctime);
	w->user_inodes = 1;   /* the root directory, which the caller writes */
	rc = init_common(w, sb);
	meta_inode(&mi, w->ctime);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_DAT_INO, &mi, NULL, &w->dat);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_CPFILE_INO, &mi, NULL, &w->cpfile);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_SUFILE_INO, &mi, NULL, &w->sufile);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_IFILE_INO, &mi, NULL, &w->ifile);
	/* vblocknr 0 and the inode numbers below s_first_ino are never handed out */
	if (!rc)
		rc = nlfs_palloc_reserve(w->dat, w->dsz, 0, err);
	for (uint64_t i = 0; !rc && i < w->first_ino; i++)
		rc = nlfs_palloc_reserve(w->ifile, w->isz, i, err);
	/* reserved numbers that are not metadata files get placeholder inodes,
	 * as nilfs-utils' mkfs writes them (inode 1, 7 .. first_ino - 1) */
	for (uint64_t i = 1; !rc && i < w->first_ino; i++)
		if (i == 1 || i > NLFS_IFILE_INO)
			rc = nlfs_writer_put_inode(w, i, &mi, err);
	if (!rc)
		rc = nlfs_suw_header(w, &h, err);
	if (!rc) {
		h->sh_ncleansegs = nlfs_cpu_to_le64(w->geo.nsegments);
		h->sh_ndirtysegs = 0;
		h->sh_last_alloc = nlfs_cpu_to_le64(w->geo.nsegments - 1);
		/* segment 0 takes the first log, segment 1 is its successor */
		rc = nlfs_suw_set(w, 0, NLFS_SEGMENT_USAGE_DIRTY, err);
	}
	if (!rc)
		rc = nlfs_suw_set(w, 1, NLFS_SEGMENT_USAGE_DIRTY, err);
	pos.seg = 0;
	pos.pos = w->geo.first_data_block;
	pos.seq = 0;
	pos.nextseg = 1;
	if (!rc)
		rc = nlfs_logw_new(io, &w->geo, w->seed, w->cno, w->ctime, &pos, &lw_ops, w, &w->lw);
	if (!rc)
		rc = invalidate_superblocks(io, w->geo.devsize, err);
	if (rc) {
		nlfs_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

/* Logs the kernel would roll forward follow the super root.  As the
 * kernel's recovery does, the construction starts a new segment: the
 * segment the super-root log names as its successor, from its first
 * block.  The logs after the super root are left where they are, past the
 * usage count of the super root's segment: until the new super root is
 * written they are there for the kernel's roll-forward, and afterwards
 * nothing refers to them.  When they spill into further segments, the
 * construction starts in a new clean segment instead; so it does when the
 * last of them leaves a data-sync series open: the kernel's roll-forward
 * would run on from it into the logs of a cut construction in the
 * successor segment, which are not data-sync (its code takes that for an
 * error, and so does the check). */
static int after_tail(struct nlfs_writer *w, const struct nlfs_log *srlog,
		      struct nlfs_logw_pos *pos, struct nlfs_err *err)
{
	struct nlfs_rf_tail t;
	struct nlfs_segment_usage *su;
	int rc = nlfs_rollforward_tail(w->fs, &t, err);

	if (rc)
		return rc;
	if (t.nsegs || t.open_dsync) {
		/* They spill into further segments: those stay as they are until
		 * the new super root is written (in use, so nothing is placed in
		 * them), and are freed with it, as a cleaner's victims are:
		 * nothing the new state holds lies in them. */
		for (size_t i = 0; i < t.nsegs; i++) {
			rc = nlfs_suw_entry(w, t.segs[i], &su, err);
			if (!rc && !su->su_flags)
				rc = nlfs_suw_set(w, t.segs[i], NLFS_SEGMENT_USAGE_DIRTY, err);
			if (!rc && NLFS_GROW(w->victims, w->capvictims, w->nvictims + 1))
				rc = -ENOMEM;
			if (rc)
				return rc;
			w->victims[w->nvictims++] = t.segs[i];
		}
		rc = nlfs_suw_entry(w, t.nextseg, &su, err);
		if (!rc && !su->su_flags)
			rc = nlfs_suw_set(w, t.nextseg, NLFS_SEGMENT_USAGE_DIRTY, err);
		if (!rc && NLFS_GROW(w->victims, w->capvictims, w->nvictims + 1))
			rc = -ENOMEM;
		if (rc)
			return rc;
		w->victims[w->nvictims++] = t.nextseg;
		rc = nlfs_suw_alloc(w, true, &pos->seg, err);
		if (!rc)
			rc = nlfs_suw_alloc(w, true, &pos->nextseg, err);
		pos->pos = nlfs_seg_start(&w->geo, pos->seg);
		/* not t.seq + 1, which the logs' successor segment would carry:
		 * a segment of the construction must not look like the next
		 * link of their chain, to the kernel's search or to a check (the
		 * kernel's recovery skips one number too) */
		pos->seq = t.seq + 2;
		return rc;
	}
	pos->seg = srlog->next / w->geo.blocks_per_segment;
	pos->pos = nlfs_seg_start(&w->geo, pos->seg);
	pos->seq = w->fs->rec.sr_seq + 1;
	rc = nlfs_suw_entry(w, pos->seg, &su, err);
	if (!rc && !su->su_flags)
		rc = nlfs_suw_set(w, pos->seg, NLFS_SEGMENT_USAGE_DIRTY, err);
	if (!rc)
		rc = nlfs_suw_alloc(w, true, &pos->nextseg, err);
	return rc;
}

/* The construction of a shrink starts below LIMIT: if the kernel's next
 * log (or the segment reserved after it) lies in the cut, a clean segment
 * below takes its place.  The old reservation stays in use until the cut
 * is cleaned with the rest, so until the superblocks move nothing the old
 * state knows is written over.  A segment that already holds logs keeps
 * the next segment they name (the kernel never changes a segment's
 * ss_next): if that one is cut, the construction starts a new segment.
 * Where the chain of segments then leaves the segment it named, the
 * sequence number that one would have had is skipped, as if it had been
 * written and cleaned: the chain check (fsck) sees a gap, not a break. */
static int keep_below(struct nlfs_writer *w, uint64_t limit, struct nlfs_logw_pos *pos,
		      struct nlfs_err *err)
{
	bool fresh = pos->pos == nlfs_seg_start(&w->geo, pos->seg);
	int rc = 0;

	w->alloc_limit = limit;
	if (pos->seg < limit && (fresh || pos->nextseg < limit)) {
		/* nothing written in a fresh segment yet: its next may change */
		if (pos->nextseg >= limit)
			rc = nlfs_suw_alloc(w, true, &pos->nextseg, err);
		return rc;
	}
	if (pos->nextseg < limit) {
		/* where the chain goes on anyway, or (fresh) the writer's own
		 * reservation, no log names it */
		pos->seg = pos->nextseg;
		pos->seq++;
	} else {
		rc = nlfs_suw_alloc(w, true, &pos->seg, err);
		pos->seq += fresh ? 1 : 2;
	}
	pos->pos = nlfs_seg_start(&w->geo, pos->seg);
	if (!rc)
		rc = nlfs_suw_alloc(w, true, &pos->nextseg, err);
	return rc;
}

static int open_impl(struct nlfs_fs *fs, uint64_t now, unsigned flags, uint64_t limit,
		     struct nlfs_writer **out, struct nlfs_err *err);

int nlfs_writer_open(struct nlfs_fs *fs, uint64_t now, unsigned flags, struct nlfs_writer **out,
		     struct nlfs_err *err)
{
	return open_impl(fs, now, flags, UINT64_MAX, out, err);
}

int nlfs_writer_open_within(struct nlfs_fs *fs, uint64_t now, uint64_t limit,
			    struct nlfs_writer **out, struct nlfs_err *err)
{
	return open_impl(fs, now, 0, limit, out, err);
}

int nlfs_writer_check_unmounted(struct nlfs_fs *fs, unsigned flags, struct nlfs_err *err)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(fs);
	const struct nlfs_super_block *sb = nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used);
	bool unclean = !(nlfs_le16(sb->s_state) & NLFS_STATE_VALID_FS);

	if ((unclean && !(flags & NLFS_WRITER_REPAIR)) ||
	    (rec->nlogs_after_sr && !(flags & NLFS_WRITER_ROLLFORWARD)))
		return nlfs_err_set(err, EBUSY, rec->sr_log,
				    "%s: the volume was not cleanly unmounted; mount it once "
				    "(or run fsck.nilfs2) before changing it offline",
				    nlfs_io_name(nlfs_fs_io(fs)));
	return 0;
}

static int open_impl(struct nlfs_fs *fs, uint64_t now, unsigned flags, uint64_t limit,
		     struct nlfs_writer **out, struct nlfs_err *err)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(fs);
	const struct nlfs_super_block *sb = nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used);
	struct nlfs_writer *w;
	struct nlfs_logw_pos pos;
	struct nlfs_file f;
	struct nlfs_log log;
	int rc;

	rc = nlfs_writer_check_unmounted(fs, flags, err);
	if (rc)
		return rc;
	/* a construction built on damaged metadata spreads it (fsck's own
	 * repair is what mends it) */
	if (!(flags & NLFS_WRITER_REPAIR)) {
		rc = nlfs_fs_vet(fs, err);
		if (rc)
			return rc;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->io = nlfs_fs_io(fs);
	w->fs = fs;
	w->geo = *nlfs_fs_geometry(fs);
	w->cno = rec->cno + 1;
	w->ctime = now;
	w->repair = flags & NLFS_WRITER_REPAIR;
	rc = init_common(w, sb);
	{
		struct nlfs_super_root srh;

		memcpy(&srh, nlfs_fs_super_root(fs), sizeof(srh));
		w->nongc_ctime = nlfs_le64(srh.sr_nongc_ctime);
	}
	if (!rc)
		rc = nlfs_cpfile_read(fs, rec->cno, &w->prev, err);
	if (rc == -ENOENT && w->repair)
		rc = nlfs_cpw_read_latest(w, rec->cno, &w->prev, err);
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &f);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_DAT_INO, &f.inode, &f, &w->dat);
	nlfs_fs_mdt_file(fs, NLFS_CPFILE_INO, &f);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_CPFILE_INO, &f.inode, &f, &w->cpfile);
	nlfs_fs_mdt_file(fs, NLFS_SUFILE_INO, &f);
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_SUFILE_INO, &f.inode, &f, &w->sufile);
	if (!rc && w->revive_latest)
		rc = nlfs_cpw_revive_latest(w, err);
	if (!rc) {
		/* the latest checkpoint's ifile (as nlfs_fs_ifile reads it) */
		memset(&f, 0, sizeof(f));
		f.ino = NLFS_IFILE_INO;
		f.cno = rec->cno;
		f.inode = w->prev.cp_ifile_inode;
	}
	if (!rc)
		rc = nlfs_wfile_new(w->fs, w->geo.blocksize, NLFS_IFILE_INO, &f.inode, &f, &w->ifile);
	if (!rc)
		rc = nlfs_log_read(fs, rec->sr_log, &log, NULL, 0, err);
	if (rc)
		goto fail;
	pos.pos = rec->next_pseg;
	pos.seq = rec->next_seq;
	pos.seg = rec->next_pseg / w->geo.blocks_per_segment;
	if (rec->nlogs_after_sr) {
		rc = after_tail(w, &log, &pos, err);
		if (rc)
			goto fail;
	} else if (pos.seg == rec->sr_log / w->geo.blocks_per_segment) {
		pos.nextseg = log.next / w->geo.blocks_per_segment;
	} else {
		/* the last log filled its segment: the kernel would allocate a successor */
		rc = nlfs_suw_alloc(w, true, &pos.nextseg, err);
		if (rc)
			goto fail;
	}
	if (limit < w->geo.nsegments) {
		rc = keep_below(w, limit, &pos, err);
		if (rc)
			goto fail;
	}
	rc = nlfs_logw_new(w->io, &w->geo, w->seed, w->cno, w->ctime, &pos, &lw_ops, w, &w->lw);
	if (rc)
		goto fail;
	*out = w;
	return 0;
fail:
	nlfs_writer_free(w);
	return rc;
}

int nlfs_writer_add_item(struct nlfs_writer *w, const struct nlfs_litem *it,
			 struct nlfs_err *err)
{
	int rc = nlfs_logw_add(w->lw, it, err);

	if (rc) {
		if (it->owned)
			free(it->buf);
		return rc;
	}
	return nlfs_logw_write_closed(w->lw, NULL, err);
}

void nlfs_writer_free(struct nlfs_writer *w)
{
	if (!w)
		return;
	nlfs_wfile_free(w->dat);
	nlfs_wfile_free(w->cpfile);
	nlfs_wfile_free(w->sufile);
	nlfs_wfile_free(w->ifile);
	nlfs_logw_free(w->lw);
	free(w->resv);
	free(w->victims);
	free(w->sf_keys);
	free(w->sf_ptrs);
	free(w->sr);
	for (size_t i = 0; i < sizeof(w->plan) / sizeof(w->plan[0]); i++)
		nlfs_btl_free(&w->plan[i]);
	free(w);
}

/* ---- inodes ---- */

int nlfs_writer_new_ino(struct nlfs_writer *w, uint64_t *ino, struct nlfs_err *err)
{
	int rc = nlfs_palloc_alloc(w->ifile, w->isz, w->ino_hint, ino, err);

	if (rc)
		return rc;
	w->ino_hint = *ino + 1;
	w->user_inodes++;
	return 0;
}

int nlfs_writer_put_inode(struct nlfs_writer *w, uint64_t ino, const struct nlfs_inode *inode,
			  struct nlfs_err *err)
{
	uint8_t *p;
	int rc = nlfs_palloc_entry(w->ifile, w->isz, ino, &p, err);

	if (rc)
		return rc;
	memset(p, 0, w->isz);
	memcpy(p, inode, sizeof(*inode));
	return 0;
}

int nlfs_writer_get_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_inode *inode,
			  struct nlfs_err *err)
{
	uint8_t *p;
	int rc = nlfs_palloc_entry(w->ifile, w->isz, ino, &p, err);

	if (!rc)
		memcpy(inode, p, sizeof(*inode));
	return rc;
}

/* ---- streamed files ---- */

int nlfs_writer_file_begin(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err)
{
	if (w->sf_open)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "inode %llu is still being written",
				    (unsigned long long)w->sf_ino);
	w->sf_open = true;
	w->sf_ino = ino;
	w->sf_n = 0;
	return 0;
}

int nlfs_writer_file_block(struct nlfs_writer *w, uint64_t blkoff, const void *buf,
			   struct nlfs_err *err)
{
	struct nlfs_litem it = { .ino = w->sf_ino, .cno = w->cno, .blkoff = blkoff,
				 .buf = (uint8_t *)(uintptr_t)buf, .copy = true };
	int rc;

	if (!w->sf_open || (w->sf_n && blkoff <= w->sf_keys[w->sf_n - 1]))
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
				    "inode %llu: block %llu out of order",
				    (unsigned long long)w->sf_ino, (unsigned long long)blkoff);
	if (w->sf_n == w->sf_cap) {
		size_t cap = w->sf_cap;

		if (NLFS_GROW(w->sf_keys, cap, w->sf_n + 1) ||
		    NLFS_GROW(w->sf_ptrs, w->sf_cap, w->sf_n + 1))
			return -ENOMEM;
	}
	rc = nlfs_datw_alloc(w, &it.vblocknr, err);
	if (rc)
		return rc;
	rc = nlfs_logw_add(w->lw, &it, err);
	if (rc)
		return rc;
	w->sf_keys[w->sf_n] = blkoff;
	w->sf_ptrs[w->sf_n++] = it.vblocknr;
	/* user data is final: write each log as soon as it closes */
	return nlfs_logw_write_closed(w->lw, NULL, err);
}

int nlfs_writer_build_map(struct nlfs_writer *w, uint64_t ino, const uint64_t *keys,
			  const uint64_t *ptrs, size_t n, struct nlfs_inode *inode,
			  struct nlfs_err *err)
{
	uint32_t bs = w->geo.blocksize;
	struct nlfs_btl p = { 0 };
	uint64_t *nodes = NULL;
	int rc;

	rc = nlfs_btl_rebuild(&p, keys, n, bs);
	if (rc) {
		nlfs_btl_free(&p);
		return rc == -EFBIG ? nlfs_err_set(err, rc, NLFS_NOWHERE, "inode %llu: file too large",
						   (unsigned long long)ino) : rc;
	}
	if (p.total && !(nodes = malloc(p.total * sizeof(*nodes))))
		rc = -ENOMEM;
	for (size_t j = 0; !rc && j < p.total; j++)
		rc = nlfs_datw_alloc(w, &nodes[j], err);
	for (size_t j = 0; !rc && j < p.total; j++) {
		struct nlfs_litem it = { .ino = ino, .cno = w->cno, .vblocknr = nodes[j],
					 .owned = true };
		unsigned k;

		nlfs_btl_node_of(&p, j, &k, &it.blkoff);
		it.level = (uint8_t)k;
		it.buf = malloc(bs);
		if (!it.buf) {
			rc = -ENOMEM;
			break;
		}
		nlfs_btl_fill_node(&p, j, keys, ptrs, nodes, it.buf);
		rc = nlfs_logw_add(w->lw, &it, err);
		if (rc)
			free(it.buf);
	}
	if (!rc) {
		nlfs_btl_fill_root(&p, keys, ptrs, nodes, inode->i_bmap);
		inode->i_blocks = nlfs_cpu_to_le64((n + p.total) * (bs / 512));
		w->user_blocks += n + p.total;
		rc = nlfs_writer_put_inode(w, ino, inode, err);
	}
	free(nodes);
	nlfs_btl_free(&p);
	return rc;
}

int nlfs_writer_file_end(struct nlfs_writer *w, struct nlfs_inode *inode, struct nlfs_err *err)
{
	int rc;

	if (!w->sf_open)
		return -EINVAL;
	rc = nlfs_writer_build_map(w, w->sf_ino, w->sf_keys, w->sf_ptrs, w->sf_n, inode, err);
	w->sf_open = false;
	if (!rc)
		rc = nlfs_logw_write_closed(w->lw, NULL, err);
	return rc;
}

/* ---- commit ---- */

static struct nlfs_btl *plan_of(struct nlfs_writer *w, const struct nlfs_wfile *wf)
{
	return &w->plan[wf->ino];
}

/* The B-tree of WF after the construction, its map merged.  A map that
 * was a B-tree and stays one changes as the kernel changes it: only the
 * nodes whose entries change are written, with their paths to the root,
 * and those in a segment the construction cleans or empties, which must
 * not hold a live block once it is clean (a node's old copy there is
 * freed with it).  A new map, or one that is or becomes direct, is built
 * anew. */
static int plan_tree(struct nlfs_writer *w, struct nlfs_wfile *wf, struct nlfs_err *err)
{
	struct nlfs_btl *p = plan_of(w, wf);
	bool *force = NULL;
	int rc;

	if (!wf->on_disk || !nlfs_bmap_is_btree(&wf->rfile) || !wf->nkeys || wf->rebuilt ||
	    wf->keys[wf->nkeys - 1] < NLFS_DIRECT_NBLOCKS) {
		rc = nlfs_btl_rebuild(p, wf->keys, wf->nkeys, w->geo.blocksize);
		wf->rebuilt = true;
		if (!rc && wf->on_disk && !wf->old_node_gone &&
		    !(wf->old_node_gone = calloc(wf->nold_nodes + 1, 1)))
			rc = -ENOMEM;
		for (size_t o = 0; !rc && o < wf->nold_nodes; o++)
			wf->old_node_gone[o] |= 1;
		return rc;
	}
	if (w->nvictims && wf->nold_nodes) {
		force = calloc(wf->nold_nodes, sizeof(*force));
		if (!force)
			return -ENOMEM;
	}
	for (size_t o = 0; force && o < wf->nold_nodes; o++) {
		uint64_t blocknr = wf->old_nodes[o];

		if (wf->ino != NLFS_DAT_INO) {
			const uint8_t *raw;
			struct nlfs_dat_entry e;

			rc = nlfs_palloc_peek(w->dat, w->dsz, blocknr, &raw, err);
			if (rc) {
				free(force);
				return rc;
			}
			memset(&e, 0, sizeof(e));
			if (raw)
				memcpy(&e, raw, sizeof(e));
			blocknr = nlfs_le64(e.de_blocknr);
		}
		force[o] = blocknr &&
			   nlfs_writer_segment_released(w, blocknr / w->geo.blocks_per_segment);
	}
	rc = nlfs_btl_update(p, wf, force, err);
	free(force);
	return rc;
}

/* New virtual blocks for the dirty blocks and the nodes written of a
 * cpfile, sufile or ifile. */
static int plan_vfile(struct nlfs_writer *w, struct nlfs_wfile *wf, struct nlfs_err *err)
{
	bool dead = wf->ino != NLFS_IFILE_INO;
	struct nlfs_btl *p = plan_of(w, wf);
	int rc = nlfs_wfile_load_map(wf, err);

	if (!rc)
		rc = nlfs_wfile_sort_dirty(wf);
	for (size_t i = 0; !rc && i < wf->ndirty; i++) {
		struct nlfs_wblk *b = wf->dirty_sorted[i];

		if (!b->newptr && !b->deleted)
			rc = nlfs_datw_alloc(w, &b->newptr, err);
		if (!rc && b->oldptr && !b->ended) {
			rc = nlfs_datw_end(w, b->oldptr, dead, err);
			b->ended = true;
		}
	}
	if (!rc)
		rc = nlfs_wfile_merge_map(wf);
	if (!rc)
		rc = plan_tree(w, wf, err);
	/* the old nodes the new tree does not keep end, once */
	for (size_t o = 0; !rc && o < wf->nold_nodes; o++)
		if (wf->old_node_gone[o] == 1) {
			rc = nlfs_datw_end(w, wf->old_nodes[o], dead, err);
			wf->old_node_gone[o] = 2;
		}
	if (!rc && p->ndirty > wf->nnode_ptrs) {
		if (NLFS_GROW(wf->node_ptrs, wf->cap_node_ptrs, p->ndirty))
			return -ENOMEM;
		while (!rc && wf->nnode_ptrs < p->ndirty)
			rc = nlfs_datw_alloc(w, &wf->node_ptrs[wf->nnode_ptrs++], err);
	}
	while (!rc && wf->nnode_ptrs > p->ndirty)
		rc = nlfs_datw_release(w, wf->node_ptrs[--wf->nnode_ptrs], err);
	wf->nblocks = wf->nkeys + p->total;
	return rc;
}

static int plan_dat(struct nlfs_writer *w, struct nlfs_err *err)
{
	struct nlfs_wfile *wf = w->dat;
	struct nlfs_btl *p = plan_of(w, wf);
	int rc = nlfs_wfile_load_map(wf, err);

	if (!rc)
		rc = nlfs_wfile_sort_dirty(wf);
	if (!rc)
		rc = nlfs_wfile_merge_map(wf);
	if (!rc)
		rc = plan_tree(w, wf, err);
	if (!rc && NLFS_GROW(wf->node_ptrs, wf->cap_node_ptrs, p->ndirty))
		return -ENOMEM;
	wf->nnode_ptrs = p->ndirty;
	wf->nblocks = wf->nkeys + p->total;
	return rc;
}

static int emit(struct nlfs_writer *w, struct nlfs_wfile *wf, bool real, struct nlfs_err *err)
{
	const struct nlfs_btl *p = plan_of(w, wf);
	uint32_t bs = w->geo.blocksize;
	int rc = 0;

	if (real && p->ndirty) {
		uint8_t *nb = realloc(wf->node_bufs, p->ndirty * (size_t)bs);

		if (!nb)
			return -ENOMEM;
		wf->node_bufs = nb;
	}
	for (size_t i = 0; !rc && i < wf->ndirty; i++) {
		struct nlfs_wblk *b = wf->dirty_sorted[i];
		struct nlfs_litem it = { .ino = wf->ino, .cno = fi_cno(w, wf->ino),
					 .vblocknr = b->newptr, .blkoff = b->blkoff,
					 .buf = real ? b->data : NULL, .aux = i };

		if (!b->deleted)
			rc = nlfs_logw_add(w->lw, &it, err);
	}
	for (size_t j = 0; !rc && j < p->ndirty; j++) {
		struct nlfs_litem it = { .ino = wf->ino, .cno = fi_cno(w, wf->ino),
					 .buf = real ? wf->node_bufs + j * (size_t)bs : NULL,
					 .aux = j };
		unsigned k;

		nlfs_btl_node_of(p, j, &k, &it.blkoff);
		it.level = (uint8_t)k;
		if (wf->ino != NLFS_DAT_INO)
			it.vblocknr = wf->node_ptrs[j];
		rc = nlfs_logw_add(w->lw, &it, err);
	}
	return rc;
}

static int emit_all(struct nlfs_writer *w, bool real, struct nlfs_err *err)
{
	struct nlfs_wfile *order[] = { w->ifile, w->cpfile, w->sufile, w->dat };
	int rc = nlfs_logw_end_files(w->lw, err);

	for (size_t i = 0; !rc && i < 4; i++)
		if (nlfs_wfile_has_work(order[i]))
			rc = emit(w, order[i], real, err);
	if (!rc)
		rc = nlfs_logw_finish(w->lw, err);
	return rc;
}

static uint64_t dirty_total(const struct nlfs_writer *w)
{
	return w->ifile->ndirty + w->cpfile->ndirty + w->sufile->ndirty + w->dat->ndirty +
	       w->nallocs;
}

static int plan_round(struct nlfs_writer *w, bool *stable, struct nlfs_err *err)
{
	uint64_t before = dirty_total(w);
	struct nlfs_logw_mark *mark;
	size_t resv_pos = w->resv_pos, fake;
	int rc = nlfs_suw_mark_segments(w, err);

	if (!rc && nlfs_wfile_has_work(w->ifile))
		rc = plan_vfile(w, w->ifile, err);
	if (!rc)
		rc = plan_vfile(w, w->cpfile, err);
	if (!rc)
		rc = plan_vfile(w, w->sufile, err);
	if (!rc)
		rc = plan_dat(w, err);
	if (!rc)
		rc = nlfs_logw_save(w->lw, &mark);
	if (rc)
		return rc;
	w->dry = true;
	w->dry_fake = 0;
	nlfs_logw_set_dry(w->lw, true);
	rc = emit_all(w, false, err);
	nlfs_logw_set_dry(w->lw, false);
	nlfs_logw_restore(w->lw, mark);
	w->dry = false;
	fake = w->dry_fake;
	w->resv_pos = resv_pos;
	for (size_t i = 0; !rc && i < fake; i++) {
		if (NLFS_GROW(w->resv, w->capresv, w->nresv + 1))
			return -ENOMEM;
		rc = nlfs_suw_alloc(w, true, &w->resv[w->nresv], err);
		if (!rc)
			w->nresv++;
	}
	*stable = !rc && fake == 0 && dirty_total(w) == before;
	return rc;
}

static void file_inode_map(struct nlfs_writer *w, struct nlfs_wfile *wf)
{
	const struct nlfs_btl *p = plan_of(w, wf);

	if (!nlfs_wfile_has_work(wf))
		return;
	nlfs_btl_fill_root(p, wf->keys, wf->ptrs, wf->node_ptrs, wf->inode.i_bmap);
	wf->inode.i_blocks = nlfs_cpu_to_le64(wf->nblocks * (w->geo.blocksize / 512));
}

static void fill_nodes(struct nlfs_writer *w, struct nlfs_wfile *wf)
{
	const struct nlfs_btl *p = plan_of(w, wf);

	if (!nlfs_wfile_has_work(wf))
		return;
	for (size_t j = 0; j < p->ndirty; j++)
		nlfs_btl_fill_node(p, j, wf->keys, wf->ptrs, wf->node_ptrs,
				   wf->node_bufs + j * (size_t)w->geo.blocksize);
}

static void build_super_root(struct nlfs_writer *w)
{
	uint32_t bytes = NLFS_SR_BYTES(w->isz);
	struct nlfs_super_root h = {
		.sr_bytes = nlfs_cpu_to_le16((uint16_t)bytes),
		/* under GC the time of the last ordinary write is kept */
		.sr_nongc_ctime = nlfs_cpu_to_le64(w->gc ? w->nongc_ctime : w->ctime),
	};
	struct nlfs_wfile *files[] = { w->dat, w->cpfile, w->sufile };

	memset(w->sr, 0, w->geo.blocksize);
	memcpy(w->sr, &h, sizeof(h));
	for (size_t i = 0; i < 3; i++)
		memcpy(w->sr + NLFS_SR_INODES_OFFSET + i * w->isz, &files[i]->inode,
		       sizeof(struct nlfs_inode));
	nlfs_put_le32(w->sr, nlfs_crc32(w->seed, w->sr + 4, bytes - 4));
}

static int write_superblocks(struct nlfs_writer *w, struct nlfs_err *err)
{
	struct nlfs_super_block *sb = &w->sb;
	struct nlfs_sufile_header *h;
	size_t nsegs;
	uint64_t sb2 = nlfs_sb2_offset(w->geo.devsize), free_blocks;
	/* a resized volume's secondary goes to its new end, and to the device's
	 * end as well, where the kernel and blkid look for it */
	uint64_t sb2_new = w->resize ? nlfs_sb2_offset(w->new_devsize) : sb2;
	int rc = nlfs_suw_header(w, &h, err);

	if (rc)
		return rc;
	nlfs_logw_segments(w->lw, &nsegs);
	/* mkfs.nilfs2 counts the segments it did not write; the kernel counts clean ones */
	free_blocks = w->mkfs ? (w->geo.nsegments - nsegs) * w->geo.blocks_per_segment
			      : nlfs_le64(h->sh_ncleansegs) * w->geo.blocks_per_segment;
	sb->s_last_cno = nlfs_cpu_to_le64(w->cno);
	sb->s_last_pseg = nlfs_cpu_to_le64(nlfs_logw_sr_log(w->lw));
	sb->s_last_seq = nlfs_cpu_to_le64(nlfs_logw_sr_seq(w->lw));
	sb->s_free_blocks_count = nlfs_cpu_to_le64(free_blocks);
	sb->s_wtime = nlfs_cpu_to_le64(w->ctime);
	/* a repaired volume is as consistent as one the kernel unmounted */
	if (w->repair)
		sb->s_state = nlfs_cpu_to_le16(nlfs_le16(sb->s_state) | NLFS_STATE_VALID_FS);
	if (w->resize) {
		sb->s_nsegments = nlfs_cpu_to_le64(w->new_nsegments);
		sb->s_dev_size = nlfs_cpu_to_le64(w->new_devsize);
	}
	nlfs_sb_update_crc(sb);
	rc = nlfs_io_write(w->io, sb, sizeof(*sb), NLFS_SB_OFFSET_BYTES);
	/* The primary is durable before the secondary changes, so that a crash
	 * tearing both cannot lose a volume that had a valid copy.  A new
	 * volume has none to lose (nlfs_writer_create erased the old ones
	 * durably, or there were none): both copies point at logs already
	 * durable, and any of them that survives a crash is the new volume. */
	if (!rc && !w->mkfs)
		rc = nlfs_io_flush(w->io);
	if (!rc && sb2_new && sb2_new != sb2)
		rc = nlfs_io_write(w->io, sb, sizeof(*sb), sb2_new);
	if (!rc && sb2)
		rc = nlfs_io_write(w->io, sb, sizeof(*sb), sb2);
	if (!rc)
		rc = nlfs_io_flush(w->io);
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: writing the superblocks",
				    nlfs_io_name(w->io));
	return 0;
}

/* Where the kernel's chain goes on after this construction, no stale log
 * of an earlier, crashed writer may go on with it (log_invalidate.c). */
static int end_chain(struct nlfs_writer *w, struct nlfs_err *err)
{
	struct nlfs_logw_pos at = nlfs_logw_position(w->lw);
	unsigned n;

	return nlfs_log_end_chain(w->io, &w->geo, at.pos, at.seq, at.nextseg, &n, err);
}

int nlfs_writer_commit(struct nlfs_writer *w, struct nlfs_err *err)
{
	bool stable = false;
	int rc;

	if (w->sf_open)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "inode %llu is still being written",
				    (unsigned long long)w->sf_ino);
	rc = nlfs_cpw_prepare(w, err);
	for (int round = 0; !rc && !stable; round++) {
		if (round == 64)
			return nlfs_err_set(err, EIO, NLFS_NOWHERE,
					    "internal: metadata layout does not settle");
		rc = plan_round(w, &stable, err);
	}
	if (rc)
		return rc;
	w->final = true;
	rc = emit_all(w, true, err);
	/* the layout is final: what changes now must be in it (wfile.c) */
	nlfs_wfile_seal(w->ifile);
	nlfs_wfile_seal(w->cpfile);
	nlfs_wfile_seal(w->sufile);
	nlfs_wfile_seal(w->dat);
	if (!rc)
		rc = nlfs_suw_finalize(w, err);
	if (!rc && w->resize)
		rc = nlfs_resize_finalize(w, err);
	if (rc)
		return rc;
	/* every address is known: fill in maps, counters and the super root */
	file_inode_map(w, w->ifile);
	fill_nodes(w, w->ifile);
	rc = nlfs_cpw_finalize(w, err);
	if (rc)
		return rc;
	file_inode_map(w, w->cpfile);
	fill_nodes(w, w->cpfile);
	file_inode_map(w, w->sufile);
	fill_nodes(w, w->sufile);
	rc = nlfs_wfile_merge_map(w->dat);   /* picks up the DAT blocks' new addresses */
	if (rc)
		return rc;
	fill_nodes(w, w->dat);
	file_inode_map(w, w->dat);
	build_super_root(w);
	rc = nlfs_logw_write_closed(w->lw, w->sr, err);
	if (!rc)
		rc = nlfs_io_flush(w->io);
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: writing the logs",
				    nlfs_io_name(w->io));
	rc = end_chain(w, err);
	return rc ? rc : write_superblocks(w, err);
}
