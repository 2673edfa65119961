/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sufile: the header and per-segment usage. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

/* a hole in the sufile reads as clean segments */
static int read_sufile_slot(struct nlfs_fs *fs, uint64_t slot, void *out, size_t len,
			    struct nlfs_err *err)
{
	bool hole;

	return nlfs_mdt_read_entry(fs, NLFS_SUFILE_INO,
				   nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size), slot,
				   out, len, &hole, err);
}

int nlfs_sufile_header(struct nlfs_fs *fs, struct nlfs_suhead *out, struct nlfs_err *err)
{
	struct nlfs_sufile_header h;
	int rc = read_sufile_slot(fs, 0, &h, sizeof(h), err);

	if (rc)
		return rc;
	out->ncleansegs = nlfs_le64(h.sh_ncleansegs);
	out->ndirtysegs = nlfs_le64(h.sh_ndirtysegs);
	out->last_alloc = nlfs_le64(h.sh_last_alloc);
	return 0;
}

/* an entry as stored, in host order */
static void to_suinfo(const struct nlfs_segment_usage *su, struct nlfs_suinfo *out)
{
	out->lastmod = nlfs_le64(su->su_lastmod);
	out->nblocks = nlfs_le32(su->su_nblocks);
	out->flags = nlfs_le32(su->su_flags);
}

int nlfs_sufile_get(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_suinfo *out,
		    struct nlfs_err *err)
{
	struct nlfs_segment_usage su;
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size);
	uint64_t first = nlfs_sufile_first_slot(esz);
	int rc;

	if (segnum >= fs->geo.nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %llu does not exist",
				    (unsigned long long)segnum);
	rc = read_sufile_slot(fs, segnum + first, &su, sizeof(su), err);
	if (!rc)
		to_suinfo(&su, out);
	return rc;
}

/*
 * The kernel's GET_SUSTAT/GET_SUINFO, computed from the image.  After a
 * mount the kernel writes on in the segment of the latest super-root log and
 * has already reserved that log's ss_next segment; GET_SUINFO reports those
 * two as ACTIVE and masks the on-disk bit (which mkfs leaves set).
 */
static int load_cursor(struct nlfs_fs *fs, struct nlfs_err *err)
{
	struct nlfs_log log;
	int rc;

	if (fs->cursor_known)
		return 0;
	if (!fs->sr)   /* opened with nlfs_fs_open_sb */
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "no super root was read");
	rc = nlfs_log_read(fs, fs->rec.sr_log, &log, NULL, 0, err);
	if (rc)
		return rc;
	fs->cur_seg = fs->rec.sr_log / fs->geo.blocks_per_segment;
	fs->next_seg = log.next / fs->geo.blocks_per_segment;
	fs->sr_create = log.create;
	fs->cursor_known = true;
	return 0;
}

int nlfs_fs_active_segments(struct nlfs_fs *fs, uint64_t seg[2], struct nlfs_err *err)
{
	int rc = load_cursor(fs, err);

	if (rc)
		return rc;
	seg[0] = fs->cur_seg;
	seg[1] = fs->next_seg;
	return 0;
}

int nlfs_sufile_stat(struct nlfs_fs *fs, struct nlfs_sustat *st, struct nlfs_err *err)
{
	const struct nlfs_sb_choice *c = &fs->choice;
	struct nlfs_suhead h;
	struct nlfs_super_root sr;
	int rc = load_cursor(fs, err);

	if (!rc)
		rc = nlfs_sufile_header(fs, &h, err);
	if (rc)
		return rc;
	memcpy(&sr, fs->sr, sizeof(sr));
	st->nsegs = fs->geo.nsegments;
	st->ncleansegs = h.ncleansegs;
	st->ndirtysegs = h.ndirtysegs;
	st->ctime = fs->sr_create;
	st->nongc_ctime = nlfs_le64(sr.sr_nongc_ctime);
	/* the mount takes it from the older copy: the secondary unless that is
	 * invalid or the newer one (a tie keeps the primary in use) */
	if (c->used == NLFS_SB_PRIMARY && c->status[NLFS_SB_SECONDARY].valid)
		st->prot_seq = nlfs_le64(fs->sb[NLFS_SB_SECONDARY].s_last_seq);
	else
		st->prot_seq = nlfs_le64(fs->sb[c->used].s_last_seq);
	return 0;
}

int nlfs_sufile_list(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_suinfo *si, size_t n,
		     size_t *got, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size);
	uint32_t epb = bs / esz;
	uint64_t first = nlfs_sufile_first_slot(esz);
	uint64_t blkoff = UINT64_MAX;
	struct nlfs_file f;
	uint8_t *buf;
	bool hole = false;
	int rc = load_cursor(fs, err);

	*got = 0;
	if (rc)
		return rc;
	if (segnum >= fs->geo.nsegments)
		return 0;
	if (n > fs->geo.nsegments - segnum)
		n = fs->geo.nsegments - segnum;
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	nlfs_fs_mdt_file(fs, NLFS_SUFILE_INO, &f);
	nlfs_file_prefetch(fs, &f, (segnum + first) / epb,
			   (segnum + first + n - 1) / epb - (segnum + first) / epb + 1);
	for (; *got < n; segnum++) {
		uint64_t slot = segnum + first;
		struct nlfs_segment_usage su;
		struct nlfs_suinfo *s = &si[(*got)++];

		if (slot / epb != blkoff) {
			rc = nlfs_file_read_block(fs, &f, slot / epb, buf, &hole, err);
			if (rc)
				break;
			blkoff = slot / epb;
		}
		if (hole) {   /* the kernel reports a hole as all zero, not ACTIVE */
			memset(s, 0, sizeof(*s));
			continue;
		}
		memcpy(&su, buf + (slot % epb) * esz, sizeof(su));
		to_suinfo(&su, s);
		s->flags &= ~NLFS_SEGMENT_USAGE_ACTIVE;
		if (segnum == fs->cur_seg || segnum == fs->next_seg)
			s->flags |= NLFS_SEGMENT_USAGE_ACTIVE;
	}
	free(buf);
	return rc;
}

int nlfs_sufile_get_many(struct nlfs_fs *fs, uint64_t segnum, size_t n,
			 struct nlfs_suinfo *out, struct nlfs_err *err)
{
	struct nlfs_segment_usage su;
	uint32_t bs = fs->geo.blocksize;
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size);
	uint64_t first = nlfs_sufile_first_slot(esz);
	uint32_t epb = bs / esz;
	uint64_t loaded = UINT64_MAX;
	struct nlfs_file f;
	uint8_t *buf;
	int rc = 0;

	if (segnum > fs->geo.nsegments || n > fs->geo.nsegments - segnum)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segments %llu..%llu do not exist",
				    (unsigned long long)segnum,
				    (unsigned long long)(segnum + n - 1));
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	nlfs_fs_mdt_file(fs, NLFS_SUFILE_INO, &f);
	for (size_t i = 0; i < n; i++) {
		uint64_t slot = segnum + i + first;
		bool hole;

		if (slot / epb != loaded) {
			rc = nlfs_file_read_block(fs, &f, slot / epb, buf, &hole, err);
			if (rc)
				break;
			loaded = slot / epb;
		}
		memcpy(&su, buf + (slot % epb) * esz, sizeof(su));
		to_suinfo(&su, &out[i]);
	}
	free(buf);
	return rc;
}
