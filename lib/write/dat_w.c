/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The DAT in a construction: a new virtual block for every block written,
 * the end of the versions it replaces, and the release of those nothing
 * will ever read.  Entries are placed by the allocator (palloc.c).
 */
#include <nlfs/endian.h>
#include "writerP.h"

int nlfs_datw_entry(struct nlfs_writer *w, uint64_t vbn, struct nlfs_dat_entry **e,
		    struct nlfs_err *err)
{
	uint8_t *p;
	int rc = nlfs_palloc_entry(w->dat, w->dsz, vbn, &p, err);

	*e = (struct nlfs_dat_entry *)(void *)p;
	return rc;
}

int nlfs_datw_alloc(struct nlfs_writer *w, uint64_t *vbn, struct nlfs_err *err)
{
	struct nlfs_dat_entry *e;
	int rc = nlfs_palloc_alloc(w->dat, w->dsz, w->dat_hint, vbn, err);

	if (!rc)
		rc = nlfs_datw_entry(w, *vbn, &e, err);
	if (rc)
		return rc;
	w->dat_hint = *vbn + 1;
	w->nallocs++;
	e->de_blocknr = 0;
	e->de_start = nlfs_cpu_to_le64(1);
	e->de_end = nlfs_cpu_to_le64(NLFS_CNO_MAX);
	e->de_rsv = 0;
	return 0;
}

void nlfs_writer_dat_hint(struct nlfs_writer *w, uint64_t vbn)
{
	w->dat_hint = vbn;
}

int nlfs_datw_release(struct nlfs_writer *w, uint64_t vbn, struct nlfs_err *err)
{
	struct nlfs_dat_entry *e;
	int rc = nlfs_datw_entry(w, vbn, &e, err);

	if (rc)
		return rc;
	e->de_blocknr = 0;
	e->de_start = nlfs_cpu_to_le64(1);
	e->de_end = nlfs_cpu_to_le64(1);
	if (vbn < w->dat_hint)
		w->dat_hint = vbn;
	return nlfs_palloc_free(w->dat, w->dsz, vbn, err);
}

int nlfs_datw_end(struct nlfs_writer *w, uint64_t vbn, bool dead, struct nlfs_err *err)
{
	struct nlfs_dat_entry *e;
	int rc = nlfs_datw_entry(w, vbn, &e, err);

	if (rc)
		return rc;
	/* A dead version is left for a cleaner to free with its segment, as
	 * the kernel does; one in a segment this construction cleans has no
	 * later cleaner: its segment becomes clean now. */
	if (!e->de_blocknr ||
	    (dead && nlfs_writer_segment_released(w, nlfs_le64(e->de_blocknr) /
						     w->geo.blocks_per_segment)))
		return nlfs_datw_release(w, vbn, err);
	e->de_end = dead ? e->de_start : nlfs_cpu_to_le64(w->cno);
	return 0;
}
