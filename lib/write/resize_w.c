/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A construction that changes the volume's size, as the kernel's
 * NILFS_IOCTL_RESIZE does: the segment count follows the new end (the
 * segments end before the secondary superblock's 4 KiB slot), the sufile
 * header counts the segments gained or lost as clean ones, and the
 * superblocks, written last, carry s_nsegments and s_dev_size.  A shrink
 * needs every segment in the cut clean when the construction commits
 * (the writer was opened with nlfs_writer_open_within and the cut's
 * segments were cleaned into it), and leaves at least the reserved
 * segments clean.
 */
#include <errno.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"

/* entry SEGNUM of the sufile as it stands in the construction (NULL: a hole) */
static int su_peek(struct nlfs_writer *w, uint64_t segnum, struct nlfs_segment_usage **su,
		   uint8_t **blk, struct nlfs_err *err)
{
	uint64_t slot = segnum + su_first(w), epb = w->geo.blocksize / w->susz;
	int rc = nlfs_wfile_read(w->sufile, slot / epb, blk, err);

	*su = !rc && *blk ? (struct nlfs_segment_usage *)(void *)(*blk + (slot % epb) * w->susz)
			  : NULL;
	return rc;
}

int nlfs_writer_resize(struct nlfs_writer *w, uint64_t new_devsize, struct nlfs_err *err)
{
	uint64_t old = w->geo.nsegments, n = nlfs_nsegments_for(new_devsize, w->geo.blocksize, w->geo.blocks_per_segment);
	uint64_t epb = w->geo.blocksize / w->susz;

	if (!w->fs || w->mkfs)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "resizing needs an existing volume");
	if (n < NLFS_MIN_NRSVSEGS + 1)
		return nlfs_err_set(err, ENOSPC, NLFS_NOWHERE,
				    "%llu bytes hold only %llu segments",
				    (unsigned long long)new_devsize, (unsigned long long)n);
	if (n < old && w->alloc_limit > n)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
				    "internal: a shrink needs a writer kept below segment %llu",
				    (unsigned long long)n);
	/* Segments gained may have entries from an earlier, larger life of the
	 * volume in sufile blocks that exist: they must read as clean. */
	for (uint64_t s = old; s < n; s++) {
		struct nlfs_segment_usage *su;
		uint8_t *blk;
		int rc = su_peek(w, s, &su, &blk, err);

		if (rc)
			return rc;
		if (!blk) {
			/* a hole: skip to the next sufile block */
			s = ((s + su_first(w)) / epb + 1) * epb - su_first(w) - 1;
			continue;
		}
		if (!su->su_flags && !su->su_nblocks && !su->su_lastmod)
			continue;
		rc = nlfs_wfile_write(w->sufile, (s + su_first(w)) / epb, &blk, NULL, err);
		if (rc)
			return rc;
		su = (struct nlfs_segment_usage *)(void *)(blk + ((s + su_first(w)) % epb) * w->susz);
		memset(su, 0, sizeof(*su));
	}
	w->resize = true;
	w->new_nsegments = n;
	w->new_devsize = new_devsize;
	return 0;
}

int nlfs_resize_finalize(struct nlfs_writer *w, struct nlfs_err *err)
{
	uint64_t old = w->geo.nsegments, n = w->new_nsegments, clean, rsv;
	struct nlfs_sufile_header *h;
	int rc;

	for (uint64_t s = n; s < old; s++) {
		struct nlfs_segment_usage *su;
		uint8_t *blk;

		rc = su_peek(w, s, &su, &blk, err);
		if (rc)
			return rc;
		if (su && su->su_flags)
			return nlfs_err_set(err, EBUSY, NLFS_NOWHERE,
					    "segment %llu, past the new end, is still in use",
					    (unsigned long long)s);
	}
	rc = nlfs_suw_header(w, &h, err);
	if (rc)
		return rc;
	clean = nlfs_le64(h->sh_ncleansegs);
	clean = n >= old ? clean + (n - old) : clean - (old - n);
	rsv = nlfs_nrsvsegs(nlfs_le32(w->sb.s_r_segments_percentage), n);
	if (n < old && clean < rsv)
		return nlfs_err_set(err, ENOSPC, NLFS_NOWHERE,
				    "%llu clean segments would be left, %llu are reserved",
				    (unsigned long long)clean, (unsigned long long)rsv);
	h->sh_ncleansegs = nlfs_cpu_to_le64(clean);
	if (nlfs_le64(h->sh_last_alloc) >= n)
		h->sh_last_alloc = nlfs_cpu_to_le64(n - 1);
	return 0;
}
