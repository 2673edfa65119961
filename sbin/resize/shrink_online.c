/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shrinking a mounted volume, nilfs-utils' way: the kernel's allocation
 * is fenced below the new end (SET_ALLOC_RANGE), every segment in use
 * past it is moved with CLEAN_SEGMENTS, keeping every block a checkpoint
 * reaches (the cleaner's planning, common/clean_plan.c, with nothing
 * left to expire), and then the kernel cuts the segments (RESIZE).  The
 * kernel's own current and next segments move only as the kernel fills
 * them: segments below the end are moved too until they have left the
 * cut.  Segments the kernel still protects for recovery are released by
 * two syncs.  On any failure the allocation range is set back.
 */
#define _GNU_SOURCE   /* syncfs */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/nilfs2_api.h>

#include <nlfs/gc.h>
#include <nlfs/resize.h>
#include "ioc.h"
#include "clean_plan.h"
#include "resize.h"
#include "clean_submit.h"

#define PER_CLEAN 2u           /* segments per CLEAN_SEGMENTS, as nilfs-utils */
#define ROUNDS 8u              /* passes over the cut before giving up */
#define SUINFO_BATCH 256u

struct mover {
	int fd;
	struct cld_reader rd;
	struct cld_descs descs;
	struct cld_vinfo_buf vb;
	struct cld_plan one, all;
	uint64_t moved, total;
};

/* usage of segments [FROM, TO) */
static int usage_of(int fd, uint64_t from, uint64_t to, struct nilfs_suinfo *si)
{
	for (uint64_t s = from; s < to; ) {
		size_t n = to - s < SUINFO_BATCH ? to - s : SUINFO_BATCH;
		ssize_t got = ioc_get_suinfo(fd, s, si + (s - from), n);

		if (got <= 0)
			return got < 0 ? (int)got : -EIO;
		s += (uint64_t)got;
	}
	return 0;
}

/* Move SEGS (N of them) with one CLEAN_SEGMENTS; every block any
 * checkpoint reaches is kept. */
static int move(struct mover *m, const uint64_t *segs, size_t n, const struct nilfs_suinfo *si,
		uint64_t first)
{
	const struct nlfs_gc_protect keep_all = { .protcno = 0 };
	struct cld_submit_result r;
	struct cld_kops k;
	char why[256] = "";
	int rc = 0;

	cld_plan_reset(&m->all);
	for (size_t i = 0; !rc && i < n; i++) {
		uint64_t seq;

		rc = cld_segment_plan(m->fd, &m->rd, segs[i], si[segs[i] - first].sui_nblocks,
				      &keep_all, &m->descs, &m->vb, &m->one, &seq, why, sizeof(why));
		if (!rc)
			rc = cld_plan_merge(&m->all, &m->one);
	}
	if (rc) {
		say("Error: segment cannot be moved: %s\n", why[0] ? why : strerror(-rc));
		return rc;
	}
	cld_plan_finish(&m->all);
	k = cld_kops_ioctl(&m->fd);
	rc = cld_submit(&k, &m->all, &r);
	if (rc)
		say("Error: operation failed during moving segments: %s\n", strerror(-rc));
	return rc;
}

/* One pass over [FROM, TO): movable segments moved PER_CLEAN at a time.
 * *LEFT counts what stays in use there, *BLOCKED what could not be moved
 * now (the kernel's current segments, or ones it protects). */
static int move_range(struct mover *m, uint64_t from, uint64_t to, uint64_t protseq,
		      size_t max, uint64_t *left, uint64_t *blocked, bool count)
{
	struct nilfs_suinfo *si = calloc(to - from + 1, sizeof(*si));
	uint64_t batch[PER_CLEAN], done = 0;
	size_t nb = 0;
	int rc;

	*left = *blocked = 0;
	if (!si)
		return -ENOMEM;
	rc = usage_of(m->fd, from, to, si);
	for (uint64_t s = from; !rc && s < to && done < max; s++) {
		const struct nilfs_suinfo *u = &si[s - from];
		uint64_t seq;
		char why[64];

		if (!nilfs_suinfo_dirty(u) || nilfs_suinfo_error(u))
			continue;
		if (nilfs_suinfo_active(u) ||
		    (u->sui_nblocks && !cld_segment_seq(&m->rd, s, &seq, why, sizeof(why)) &&
		     (int64_t)(seq - protseq) >= 0)) {
			(*blocked)++;
			continue;
		}
		batch[nb++] = s;
		if (nb == PER_CLEAN) {
			rc = move(m, batch, nb, si, from);
			done += nb;
			if (count)
				m->moved += nb;
			nb = 0;
		}
	}
	if (!rc && nb) {
		rc = move(m, batch, nb, si, from);
		if (count)
			m->moved += nb;
	}
	if (!rc && count)
		progress_show(NULL, m->moved, m->total);
	if (!rc)
		rc = usage_of(m->fd, from, to, si);
	for (uint64_t s = from; !rc && s < to; s++)
		*left += nilfs_suinfo_dirty(&si[s - from]) != 0;
	free(si);
	return rc;
}

static int protected_seq(int fd, uint64_t *protseq)
{
	struct nilfs_sustat st;
	int rc = ioc_get_sustat(fd, &st);

	*protseq = st.ss_prot_seq;
	return rc;
}

int shrink_online(const struct resize_opts *o, int fd, uint64_t cur)
{
	struct mover m = { .fd = fd };
	struct nlfs_resize_info ri;
	struct nlfs_geometry g = { 0 };
	struct nilfs_sustat sus;
	uint64_t left = 0, blocked = 0, protseq;
	int rc = cld_reader_open(&m.rd, o->device);

	if (!rc)
		rc = ioc_get_sustat(fd, &sus);
	if (rc) {
		say("Error: cannot open NILFS on %s: %s\n", o->device, strerror(-rc));
		cld_reader_close(&m.rd);
		return -1;
	}
	g.blocksize = m.rd.blocksize;
	g.blocks_per_segment = m.rd.blocks_per_segment;
	g.nsegments = sus.ss_nsegs;
	rc = nlfs_resize_fill(&ri, &g, m.rd.r_segments_percentage, cur, sus.ss_ncleansegs, o->size);
	if (report_shrink(o, &ri, rc == -ENOSPC) || !confirm(o)) {
		cld_reader_close(&m.rd);
		return -1;
	}
	rc = ioc_set_alloc_range(fd, 0, o->size);
	if (rc) {
		say("Error: failed to limit allocation range: %s\n", strerror(-rc));
		if (rc == -ENOTTY)
			say("       This kernel does not support the set allocation range API.\n");
		cld_reader_close(&m.rd);
		return -1;
	}
	rc = protected_seq(fd, &protseq);
	if (!rc)
		rc = move_range(&m, ri.new_nsegments, ri.old_nsegments, protseq, 0, &left, &blocked,
				false);
	m.total = left;
	if (!rc && left)
		say("Moving %" PRIu64 " in-use segment%s.\n", left, left > 1 ? "s" : "");
	for (unsigned round = 0; !rc && round < ROUNDS; round++) {
		rc = protected_seq(fd, &protseq);
		if (!rc)
			rc = move_range(&m, ri.new_nsegments, ri.old_nsegments, protseq, UINT64_MAX,
					&left, &blocked, true);
		if (rc)
			break;
		if (left == 0) {
			if (o->verbose)
				say("Truncating segments.\n");
			rc = ioc_resize(fd, o->size);
			if (rc != -EBUSY)
				break;
			rc = 0;   /* in use again: another round */
			continue;
		}
		/* what is left is the kernel's: its current segments move on as
		 * it fills them (moving segments below the end writes), and two
		 * syncs release what it protects for recovery */
		if (o->verbose)
			say("%" PRIu64 " segment%s in use by the kernel past the new end; "
			    "writing to move on.\n", blocked, blocked == 1 ? "" : "s");
		rc = move_range(&m, 0, ri.new_nsegments, protseq, PER_CLEAN, &left, &blocked,
				false);
		for (int i = 0; !rc && i < 2; i++)
			if (syncfs(fd) < 0)
				rc = -errno;
		nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
	}
	if (!rc && left)
		rc = -EBUSY;
	if (rc) {
		if (rc == -EBUSY && left)
			say("Error: Failed to move active segments -- give up.\n");
		else
			say("Error: failed to shrink the filesystem: %s\n", strerror(-rc));
		if (rc == -ENOTTY)
			say("       This kernel does not support the resize API.\n");
		if (ioc_set_alloc_range(fd, 0, cur))
			say("Error: cannot restore the allocation range: %s\n", strerror(errno));
	}
	cld_descs_free(&m.descs);
	cld_plan_free(&m.one);
	cld_plan_free(&m.all);
	free(m.vb.vi);
	cld_reader_close(&m.rd);
	return rc ? -1 : 0;
}
