/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sufile in a construction: segments taken as the kernel allocates
 * them, their usage when the logs are laid out, and the segments given up
 * (cleaned, or reserved and not needed) made clean at the end.
 */
#include <errno.h>

#include <nlfs/endian.h>
#include "writerP.h"

int nlfs_suw_entry(struct nlfs_writer *w, uint64_t segnum, struct nlfs_segment_usage **su,
		   struct nlfs_err *err)
{
	uint64_t slot = segnum + su_first(w), epb = w->geo.blocksize / w->susz;
	uint8_t *blk;
	int rc = nlfs_wfile_write(w->sufile, slot / epb, &blk, NULL, err);

	*su = (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * w->susz);
	return rc;
}

int nlfs_suw_header(struct nlfs_writer *w, struct nlfs_sufile_header **h, struct nlfs_err *err)
{
	uint8_t *blk;
	int rc = nlfs_wfile_write(w->sufile, 0, &blk, NULL, err);

	*h = (struct nlfs_sufile_header *)(void *)blk;
	return rc;
}

int nlfs_suw_set(struct nlfs_writer *w, uint64_t segnum, uint32_t flags, struct nlfs_err *err)
{
	struct nlfs_sufile_header *h;
	struct nlfs_segment_usage *su;
	int rc = nlfs_suw_entry(w, segnum, &su, err);
	uint32_t old;

	if (!rc)
		rc = nlfs_suw_header(w, &h, err);
	if (rc)
		return rc;
	old = nlfs_le32(su->su_flags);
	if ((old == 0) != (flags == 0))
		nlfs_le64_add(&h->sh_ncleansegs, flags ? -1 : 1);
	if (!!(old & NLFS_SEGMENT_USAGE_DIRTY) != !!(flags & NLFS_SEGMENT_USAGE_DIRTY))
		nlfs_le64_add(&h->sh_ndirtysegs, flags & NLFS_SEGMENT_USAGE_DIRTY ? 1 : -1);
	su->su_flags = nlfs_cpu_to_le32(flags);
	if (!flags) {
		su->su_lastmod = 0;
		su->su_nblocks = 0;
	}
	return 0;
}

int nlfs_suw_alloc(struct nlfs_writer *w, bool use_reserve, uint64_t *segnum,
		   struct nlfs_err *err)
{
	struct nlfs_sufile_header *h;
	uint64_t n = w->alloc_limit, last;   /* a shrink keeps new logs out of the cut */
	int rc = nlfs_suw_header(w, &h, err);

	if (rc)
		return rc;
	if (!use_reserve && nlfs_le64(h->sh_ncleansegs) <= w->nrsvsegs)
		return nlfs_err_set(err, ENOSPC, NLFS_NOWHERE,
				    "%s: no space left: %llu clean segments, %llu of them reserved",
				    nlfs_io_name(w->io),
				    (unsigned long long)nlfs_le64(h->sh_ncleansegs),
				    (unsigned long long)w->nrsvsegs);
	last = nlfs_le64(h->sh_last_alloc);
	for (uint64_t i = 1; i <= n; i++) {
		uint64_t s = (last + i) % n;
		struct nlfs_segment_usage *su;
		uint64_t slot = s + su_first(w), epb = w->geo.blocksize / w->susz;
		uint8_t *blk;

		rc = nlfs_wfile_read(w->sufile, slot / epb, &blk, err);
		if (rc)
			return rc;
		su = blk ? (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * w->susz) : NULL;
		if (su && su->su_flags)
			continue;
		rc = nlfs_suw_set(w, s, NLFS_SEGMENT_USAGE_DIRTY, err);
		if (!rc)
			rc = nlfs_suw_header(w, &h, err);
		if (rc)
			return rc;
		h->sh_last_alloc = nlfs_cpu_to_le64(s);
		*segnum = s;
		return 0;
	}
	return nlfs_err_set(err, ENOSPC, NLFS_NOWHERE, "%s: no clean segment left",
			    nlfs_io_name(w->io));
}

int nlfs_suw_mark_segments(struct nlfs_writer *w, struct nlfs_err *err)
{
	struct nlfs_logw_pos at = nlfs_logw_position(w->lw);
	struct nlfs_segment_usage *su;
	const struct nlfs_lseg *segs;
	size_t n;
	int rc = nlfs_suw_entry(w, at.seg, &su, err);

	if (!rc)
		rc = nlfs_suw_entry(w, at.nextseg, &su, err);
	segs = nlfs_logw_segments(w->lw, &n);
	for (size_t i = 0; !rc && i < n; i++)
		rc = nlfs_suw_entry(w, segs[i].segnum, &su, err);
	for (size_t i = 0; !rc && i < w->nresv; i++)
		rc = nlfs_suw_entry(w, w->resv[i], &su, err);
	for (size_t i = 0; !rc && i < w->nvictims; i++)
		rc = nlfs_suw_entry(w, w->victims[i], &su, err);
	/* The header's block is in every construction, as the cpfile's is:
	 * its counts change up to the end (segments given back after the
	 * layout, a resize's new size), also in a construction that
	 * allocates no segment, whose entries may all lie in later blocks. */
	if (!rc) {
		struct nlfs_sufile_header *h;

		rc = nlfs_suw_header(w, &h, err);
	}
	return rc;
}

int nlfs_suw_finalize(struct nlfs_writer *w, struct nlfs_err *err)
{
	const struct nlfs_lseg *segs;
	size_t n;
	int rc = 0;

	segs = nlfs_logw_segments(w->lw, &n);
	for (size_t i = 0; !rc && i < n; i++) {
		struct nlfs_segment_usage *su;

		rc = nlfs_suw_entry(w, segs[i].segnum, &su, err);
		if (rc)
			break;
		su->su_lastmod = nlfs_cpu_to_le64(w->ctime);
		su->su_nblocks = nlfs_cpu_to_le32(
			(uint32_t)(segs[i].end - nlfs_seg_start(&w->geo, segs[i].segnum)));
		su->su_flags = nlfs_cpu_to_le32(nlfs_le32(su->su_flags) | NLFS_SEGMENT_USAGE_DIRTY);
	}
	/* reservations the final layout did not need go back to clean, and so
	 * do the cleaned segments: only now, so that no log of this
	 * construction can have been placed in them */
	for (size_t i = w->resv_pos; !rc && i < w->nresv; i++)
		rc = nlfs_suw_set(w, w->resv[i], 0, err);
	for (size_t i = 0; !rc && i < w->nvictims; i++)
		rc = nlfs_suw_set(w, w->victims[i], 0, err);
	return rc;
}

/* the segments the construction writes into, and those it gives up
 * (cleaned or released): the cleaner and the repairs ask the same */
bool nlfs_writer_segment_busy(const struct nlfs_writer *w, uint64_t segnum)
{
	struct nlfs_logw_pos at = nlfs_logw_position(w->lw);

	return segnum == at.seg || segnum == at.nextseg;
}

bool nlfs_writer_segment_released(const struct nlfs_writer *w, uint64_t segnum)
{
	for (size_t i = 0; i < w->nvictims; i++)
		if (w->victims[i] == segnum)
			return true;
	return false;
}

int nlfs_suw_may_release(const struct nlfs_writer *w, uint64_t segnum, bool *done,
			 struct nlfs_err *err)
{
	*done = false;
	if (segnum >= w->geo.nsegments || nlfs_writer_segment_busy(w, segnum))
		return nlfs_err_set(err, EBUSY, NLFS_NOWHERE,
				    "segment %llu is in use by the log writer",
				    (unsigned long long)segnum);
	*done = nlfs_writer_segment_released(w, segnum);
	return 0;
}

int nlfs_suw_release(struct nlfs_writer *w, uint64_t segnum)
{
	if (NLFS_GROW(w->victims, w->capvictims, w->nvictims + 1))
		return -ENOMEM;
	w->victims[w->nvictims++] = segnum;
	return 0;
}
