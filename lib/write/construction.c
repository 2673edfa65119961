/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The construction's metadata files and state as the offline cleaner
 * (gc/) and the repairs (repair/) reach them (construction.h): the writer
 * keeps its fields to itself, and these name what the layers above
 * decide with.
 */
#include <errno.h>

#include "construction.h"
#include "writerP.h"

struct nlfs_fs *nlfs_writer_fs(const struct nlfs_writer *w)
{
	return w->fs;
}

uint64_t nlfs_writer_reserved_segments(const struct nlfs_writer *w)
{
	return w->nrsvsegs;
}

uint64_t nlfs_writer_next_segment(const struct nlfs_writer *w)
{
	return nlfs_logw_position(w->lw).nextseg;
}

void nlfs_writer_note_cp_change(struct nlfs_writer *w)
{
	w->cp_changes++;
}

static struct nlfs_wfile *mdt(const struct nlfs_writer *w, uint64_t ino)
{
	switch (ino) {
	case NLFS_DAT_INO:
		return w->dat;
	case NLFS_CPFILE_INO:
		return w->cpfile;
	case NLFS_SUFILE_INO:
		return w->sufile;
	case NLFS_IFILE_INO:
		return w->ifile;
	}
	return NULL;
}

static int not_mdt(uint64_t ino, struct nlfs_err *err)
{
	return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
			    "inode %llu is not a metadata file of the construction",
			    (unsigned long long)ino);
}

uint32_t nlfs_writer_entry_size(const struct nlfs_writer *w, uint64_t ino)
{
	switch (ino) {
	case NLFS_DAT_INO:
		return w->dsz;
	case NLFS_CPFILE_INO:
		return w->cpsz;
	case NLFS_SUFILE_INO:
		return w->susz;
	case NLFS_IFILE_INO:
		return w->isz;
	}
	return 0;
}

struct nlfs_inode *nlfs_writer_mdt_inode(struct nlfs_writer *w, uint64_t ino)
{
	struct nlfs_wfile *wf = mdt(w, ino);

	return wf ? &wf->inode : NULL;
}

int nlfs_writer_mdt_read(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff, uint8_t **blk,
			 struct nlfs_err *err)
{
	struct nlfs_wfile *wf = mdt(w, ino);

	return wf ? nlfs_wfile_read(wf, blkoff, blk, err) : not_mdt(ino, err);
}

int nlfs_writer_mdt_write(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff, uint8_t **blk,
			  struct nlfs_err *err)
{
	struct nlfs_wfile *wf = mdt(w, ino);

	return wf ? nlfs_wfile_write(wf, blkoff, blk, NULL, err) : not_mdt(ino, err);
}

int nlfs_writer_mdt_rewrite(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff,
			    bool *rewritten, struct nlfs_err *err)
{
	struct nlfs_wfile *wf = mdt(w, ino);

	return wf ? nlfs_wfile_rewrite(wf, blkoff, rewritten, err) : not_mdt(ino, err);
}

int nlfs_writer_mdt_punch(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff,
			  struct nlfs_err *err)
{
	struct nlfs_wfile *wf = mdt(w, ino);

	return wf ? nlfs_wfile_punch(wf, blkoff, err) : not_mdt(ino, err);
}

int nlfs_writer_mdt_old_map(struct nlfs_writer *w, uint64_t ino, const uint64_t **keys,
			    const uint64_t **ptrs, size_t *n, struct nlfs_err *err)
{
	struct nlfs_wfile *wf = mdt(w, ino);
	int rc = wf ? nlfs_wfile_load_map(wf, err) : not_mdt(ino, err);

	*keys = rc ? NULL : wf->old_keys;
	*ptrs = rc ? NULL : wf->old_ptrs;
	*n = rc ? 0 : wf->nold;
	return rc;
}

int nlfs_writer_mdt_old_ptr(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff, uint64_t *ptr,
			    struct nlfs_err *err)
{
	struct nlfs_wfile *wf = mdt(w, ino);
	int rc = wf ? nlfs_wfile_load_map(wf, err) : not_mdt(ino, err);

	*ptr = 0;
	return rc ? rc : nlfs_wfile_old_ptr(wf, blkoff, ptr, err);
}

int nlfs_writer_dat_peek(struct nlfs_writer *w, uint64_t vbn, const struct nlfs_dat_entry **e,
			 struct nlfs_err *err)
{
	const uint8_t *raw;
	int rc = nlfs_palloc_peek(w->dat, w->dsz, vbn, &raw, err);

	*e = rc ? NULL : (const struct nlfs_dat_entry *)(const void *)raw;
	return rc;
}

int nlfs_writer_gc_begin(struct nlfs_writer *w, uint64_t segnum, bool *done,
			 struct nlfs_err *err)
{
	int rc;

	*done = false;
	if (!w->fs || w->sf_open)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "cleaning needs an existing volume");
	rc = nlfs_suw_may_release(w, segnum, done, err);
	if (rc || *done)
		return rc;
	if (!w->gc) {
		w->gc = true;
		nlfs_logw_set_gc(w->lw);
	}
	return 0;
}
