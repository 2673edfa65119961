/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Offline resize of an unmounted volume (nilfs-resize on a device or image
 * that is not mounted).  A grow is one construction that sets the new
 * size.  A shrink first moves what lies past the new end: a few passes,
 * each one construction of the offline cleaner's copying that keeps every
 * block any checkpoint reaches (nothing is dropped, no checkpoint
 * deleted), with every new log kept below the new end; the last pass also
 * sets the new size.  Each construction is crash-safe on its own, and
 * until the last one commits the volume keeps its old size: a crash
 * leaves the old size (some segments moved, the same contents) or the new.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/resize.h>
#include <nlfs/writer.h>

#define DEF_SEGMENTS_PER_PASS 8u

/* nilfs-utils' and the kernel's rule: the clean segments must cover the
 * cut and the reserve of the volume left; 0 or the segments missing */
static uint64_t short_of(uint64_t ncleansegs, uint64_t old, uint64_t n, uint32_t percentage)
{
	uint64_t need = (old > n ? old - n : 0) + nlfs_nrsvsegs(percentage, n);

	return ncleansegs >= need ? 0 : need - ncleansegs;
}

uint64_t nlfs_resize_min_size(const struct nlfs_resize_info *ri)
{
	for (uint64_t n = ri->new_nsegments; n < ri->old_nsegments; n++)
		if (!short_of(ri->ncleansegs, ri->old_nsegments, n, ri->percentage))
			return n * ri->segment_bytes + 4096;   /* + the secondary's slot */
	return ri->old_devsize;
}

int nlfs_resize_fill(struct nlfs_resize_info *ri, const struct nlfs_geometry *g,
		     uint32_t percentage, uint64_t old_devsize, uint64_t ncleansegs,
		     uint64_t new_devsize)
{
	memset(ri, 0, sizeof(*ri));
	ri->old_devsize = old_devsize;
	ri->new_devsize = new_devsize;
	ri->old_nsegments = g->nsegments;
	ri->new_nsegments = nlfs_nsegments_for(new_devsize, g->blocksize, g->blocks_per_segment);
	ri->segment_bytes = (uint64_t)g->blocksize * g->blocks_per_segment;
	ri->ncleansegs = ncleansegs;
	ri->percentage = percentage;
	ri->nrsvsegs = nlfs_nrsvsegs(percentage, ri->new_nsegments);
	if (ri->new_nsegments >= ri->old_nsegments)
		return 0;
	ri->short_segments = short_of(ncleansegs, ri->old_nsegments, ri->new_nsegments, percentage);
	if (ri->short_segments)
		return -ENOSPC;
	ri->free_after = ncleansegs - (ri->old_nsegments - ri->new_nsegments) - ri->nrsvsegs;
	return 0;
}

int nlfs_resize_check(struct nlfs_fs *fs, uint64_t new_devsize, struct nlfs_resize_info *ri,
		      struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	const struct nlfs_super_block *sb = nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used);
	struct nlfs_suhead h;
	int rc = nlfs_sufile_header(fs, &h, err);

	if (rc)
		return rc;
	rc = nlfs_resize_fill(ri, g, nlfs_le32(sb->s_r_segments_percentage),
			      nlfs_le64(sb->s_dev_size), h.ncleansegs, new_devsize);
	for (uint64_t s = ri->new_nsegments; s < ri->old_nsegments; s++) {
		struct nlfs_suinfo su;
		int r = nlfs_sufile_get(fs, s, &su, err);

		if (r)
			return r;
		ri->inuse_in_cut += su.flags != 0;
	}
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE,
				    "not enough free space: %llu more segments needed",
				    (unsigned long long)ri->short_segments);
	return 0;
}

/* up to MAX segments in use past the new end; *LEFT: whether more remain */
static int in_cut(struct nlfs_fs *fs, uint64_t from, uint64_t to, uint64_t *segs, size_t max,
		  size_t *n, bool *left, struct nlfs_err *err)
{
	*n = 0;
	*left = false;
	for (uint64_t s = from; s < to; s++) {
		struct nlfs_suinfo su;
		int rc = nlfs_sufile_get(fs, s, &su, err);

		if (rc)
			return rc;
		if (!su.flags)
			continue;
		if (*n == max) {
			*left = true;
			return 0;
		}
		segs[(*n)++] = s;
	}
	return 0;
}

/* One construction: up to PER_PASS segments moved out of the cut, and the
 * size set when none is left.  *DONE once the size is set. */
static int one_pass(struct nlfs_io *io, uint64_t new_devsize, uint64_t now, uint32_t per_pass,
		    struct nlfs_resize_stats *st, bool *done, struct nlfs_err *err)
{
	/* protcno 0: every checkpoint keeps what it reaches */
	const struct nlfs_gc_protect keep_all = { .snapshots = NULL, .nsnapshots = 0, .protcno = 0 };
	struct nlfs_gc_stats gst = { 0 };
	struct nlfs_resize_info ri;
	struct nlfs_writer *w = NULL;
	uint64_t *segs = calloc(per_pass, sizeof(*segs));
	struct nlfs_fs *fs;
	size_t n = 0;
	bool left = false;
	int rc = segs ? nlfs_fs_open(io, &fs, err) : -ENOMEM;

	if (rc) {
		free(segs);
		return rc;
	}
	/* the free-space rule was met before the first pass; each pass's own
	 * metadata takes a little of it, and the last one checks the reserve */
	nlfs_fs_vet_skip(fs);   /* nlfs_resize_offline vetted it before the first pass */
	rc = nlfs_resize_check(fs, new_devsize, &ri, err);
	if (rc == -ENOSPC)
		rc = 0;
	if (!rc && ri.new_nsegments < ri.old_nsegments)
		rc = in_cut(fs, ri.new_nsegments, ri.old_nsegments, segs, per_pass, &n, &left, err);
	if (!rc)
		rc = ri.new_nsegments < ri.old_nsegments
			     ? nlfs_writer_open_within(fs, now, ri.new_nsegments, &w, err)
			     : nlfs_writer_open(fs, now, 0, &w, err);
	for (size_t i = 0; !rc && i < n; i++)
		rc = nlfs_writer_gc_segment(w, segs[i], &keep_all, &gst, err);
	if (!rc && !left)
		rc = nlfs_writer_resize(w, new_devsize, err);
	if (!rc)
		rc = nlfs_writer_commit(w, err);
	if (!rc) {
		st->passes++;
		st->segments_moved += n;
		st->blocks_moved += gst.blocks_moved;
		*done = !left;
	}
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	free(segs);
	return rc;
}

int nlfs_resize_offline(struct nlfs_io *io, uint64_t new_devsize,
			const struct nlfs_resize_params *p, struct nlfs_resize_stats *st,
			struct nlfs_err *err)
{
	uint32_t per_pass = p->segments_per_pass ? p->segments_per_pass : DEF_SEGMENTS_PER_PASS;
	uint64_t size, total = 0;
	bool done = false;
	int rc = nlfs_io_size(io, &size);

	memset(st, 0, sizeof(*st));
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: cannot get the device size",
				    nlfs_io_name(io));
	if (new_devsize > size)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
				    "%s: %llu bytes do not fit on the device (%llu bytes)",
				    nlfs_io_name(io), (unsigned long long)new_devsize,
				    (unsigned long long)size);
	{
		struct nlfs_resize_info ri;
		struct nlfs_fs *fs;

		rc = nlfs_fs_open(io, &fs, err);
		if (rc)
			return rc;
		/* before the first write (the passes build on what it vetted) */
		rc = p->write_damaged ? 0 : nlfs_fs_vet(fs, err);
		if (!rc)
			rc = nlfs_resize_check(fs, new_devsize, &ri, err);
		nlfs_fs_release(fs);
		if (rc)
			return rc;
		total = ri.inuse_in_cut;
		/* A grow on a device that already ends past the volume, with no
		 * valid secondary at its end (an image just extended, a partition
		 * just grown): until the last construction writes the new one
		 * there, a copy of the superblock in use sits where the kernel
		 * looks, so a run cut short leaves the old volume with both
		 * copies.  (Not the copy at the volume's end: a kernel that
		 * mounted the volume since keeps its newer one at the device's.) */
		if (new_devsize > ri.old_devsize && size > ri.old_devsize) {
			rc = nlfs_sb_fill_secondary(io, err);
			if (rc)
				return rc;
		}
	}
	/* every pass but the last empties PER_PASS segments of the cut (none
	 * is refilled: the new logs stay below the end) */
	for (uint64_t pass = 0; !rc && !done; pass++) {
		if (pass > total / per_pass + 2)
			return nlfs_err_set(err, EIO, NLFS_NOWHERE,
					    "internal: the cut does not empty");
		rc = one_pass(io, new_devsize, p->now, per_pass, st, &done, err);
		if (!rc && p->progress)
			p->progress(p->arg, st->segments_moved, total);
	}
	return rc;
}
