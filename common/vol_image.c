/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vol_image.c - the "image" backend: a volume that is not mounted (a device
 * or an image file) read through libnlfs.  Each ioctl is answered as a mount
 * of the image would answer it; the library computes the kernel's view.
 * Changes (chcp, rmcp, mkcp -s) go into one construction of the library's
 * log writer, written when the command commits: one new checkpoint for the
 * whole session, marked minor as the kernel marks a checkpoint that only
 * the cpfile changed.  A sync with nothing pending writes nothing, as the
 * kernel's does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nlfs/writer.h>
#include "io_open.h"
#include "volerr.h"
#include "vol.h"

struct image_priv {
	struct nlfs_io *io;
	struct nlfs_writer *w;      /* the pending construction, if any */
	struct nlfs_fs *fs;
	struct nlfs_cpfile_iter *cpit;
	struct nlfs_file dat;
	struct nlfs_err err;
	bool force;                 /* VOL_FORCE: the writer skips nlfs_fs_vet */
};

static struct image_priv *ipriv(struct vol *v)
{
	return v->priv;
}

/* keep the library's context for vol_strerror() */
static long fail(struct vol *v, int rc)
{
	nlfs_err_format(&ipriv(v)->err, v->detail, sizeof(v->detail));
	return rc;
}

static int i_cpstat(struct vol *v, struct nilfs_cpstat *st)
{
	struct nlfs_cpstat s;
	int rc = nlfs_cpfile_stat(ipriv(v)->fs, &s, &ipriv(v)->err);

	if (rc)
		return (int)fail(v, rc);
	st->cs_cno = s.cno;
	st->cs_ncps = s.ncps;
	st->cs_nsss = s.nsss;
	return 0;
}

#define BATCH 512

static long i_cpinfo(struct vol *v, uint64_t cno, int mode, struct nilfs_cpinfo *ci, size_t n)
{
	struct nlfs_cpinfo buf[BATCH];
	size_t done = 0;

	/* the ioctl refuses checkpoint 0 in checkpoint mode */
	if (mode == NILFS_CHECKPOINT && cno == 0)
		return -ENOENT;
	while (done < n) {
		size_t got, want = n - done < BATCH ? n - done : BATCH;
		int rc = nlfs_cpfile_iter_list(ipriv(v)->cpit, &cno,
					       mode == NILFS_SNAPSHOT ? NLFS_CPINFO_SNAPSHOTS :
					       NLFS_CPINFO_CHECKPOINTS, buf, want, &got,
					       &ipriv(v)->err);

		if (rc)
			return fail(v, rc);
		for (size_t i = 0; i < got; i++) {
			struct nilfs_cpinfo *c = &ci[done + i];

			memset(c, 0, sizeof(*c));
			c->ci_flags = buf[i].flags;
			c->ci_cno = buf[i].cno;
			c->ci_create = buf[i].create;
			c->ci_nblk_inc = buf[i].nblk_inc;
			c->ci_inodes_count = buf[i].inodes_count;
			c->ci_blocks_count = buf[i].blocks_count;
			c->ci_next = buf[i].next;
		}
		done += got;
		if (got < want)
			break;
	}
	return (long)done;
}

static int i_sustat(struct vol *v, struct nilfs_sustat *st)
{
	struct nlfs_sustat s;
	int rc = nlfs_sufile_stat(ipriv(v)->fs, &s, &ipriv(v)->err);

	if (rc)
		return (int)fail(v, rc);
	st->ss_nsegs = s.nsegs;
	st->ss_ncleansegs = s.ncleansegs;
	st->ss_ndirtysegs = s.ndirtysegs;
	st->ss_ctime = s.ctime;
	st->ss_nongc_ctime = s.nongc_ctime;
	st->ss_prot_seq = s.prot_seq;
	return 0;
}

/* the library reads ahead within one request: lssu's whole batch */
#define SU_BATCH 4096

static long i_suinfo(struct vol *v, uint64_t segnum, struct nilfs_suinfo *si, size_t n)
{
	struct nlfs_suinfo buf[SU_BATCH];
	size_t done = 0;

	while (done < n) {
		size_t got, want = n - done < SU_BATCH ? n - done : SU_BATCH;
		int rc = nlfs_sufile_list(ipriv(v)->fs, segnum + done, buf, want, &got,
					  &ipriv(v)->err);

		if (rc)
			return fail(v, rc);
		for (size_t i = 0; i < got; i++) {
			si[done + i].sui_lastmod = buf[i].lastmod;
			si[done + i].sui_nblocks = buf[i].nblocks;
			si[done + i].sui_flags = buf[i].flags;
		}
		done += got;
		if (got < want)
			break;
	}
	return (long)done;
}

static long i_vinfo(struct vol *v, struct nilfs_vinfo *vi, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct nlfs_datinfo de;
		int rc = nlfs_dat_lookup(ipriv(v)->fs, vi[i].vi_vblocknr, &de, &ipriv(v)->err);

		if (rc)
			return fail(v, rc);
		vi[i].vi_start = de.start;
		vi[i].vi_end = de.end;
		vi[i].vi_blocknr = de.blocknr;
	}
	return (long)n;
}

static long i_bdescs(struct vol *v, struct nilfs_bdesc *bd, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t ptr;
		int rc = nlfs_bmap_lookup_level(ipriv(v)->fs, &ipriv(v)->dat, bd[i].bd_offset,
						bd[i].bd_level, &ptr, &ipriv(v)->err);

		if (rc)
			return fail(v, rc);
		bd[i].bd_blocknr = ptr;
	}
	return (long)n;
}

static int i_segments(struct vol *v, struct nlfs_fs **fs)
{
	*fs = ipriv(v)->fs;
	return 0;
}

static int pending(struct vol *v, struct nlfs_writer **w)
{
	struct image_priv *p = ipriv(v);
	int rc = 0;

	if (!p->w) {
		if (p->force)
			nlfs_fs_vet_skip(p->fs);
		rc = nlfs_writer_open(p->fs, (uint64_t)time(NULL), 0, &p->w, &p->err);
	}
	*w = p->w;
	return rc ? (int)fail(v, rc) : 0;
}

/* write the pending construction, then read the volume afresh */
static int i_commit(struct vol *v)
{
	struct image_priv *p = ipriv(v);
	int rc;

	if (!p->w)
		return 0;
	if (!nlfs_writer_cp_changes(p->w)) {
		/* only refused or idempotent requests: the kernel would write nothing */
		nlfs_writer_free(p->w);
		p->w = NULL;
		return 0;
	}
	rc = nlfs_writer_commit(p->w, &p->err);
	nlfs_writer_free(p->w);
	p->w = NULL;
	nlfs_cpfile_iter_close(p->cpit);
	p->cpit = NULL;
	nlfs_fs_release(p->fs);
	p->fs = NULL;
	if (rc)
		return (int)fail(v, rc);
	rc = nlfs_fs_open(p->io, &p->fs, &p->err);
	if (!rc)
		rc = nlfs_cpfile_iter_open(p->fs, &p->cpit, &p->err);
	if (!rc)
		nlfs_fs_mdt_file(p->fs, NLFS_DAT_INO, &p->dat);
	return rc ? (int)fail(v, rc) : 0;
}

static int i_sync(struct vol *v, uint64_t *cno)
{
	int rc = i_commit(v);

	if (!rc)
		*cno = nlfs_fs_recovery(ipriv(v)->fs)->cno;
	return rc;
}

static int i_change_cpmode(struct vol *v, uint64_t cno, int mode)
{
	struct nlfs_writer *w;
	int rc = pending(v, &w);

	if (!rc)
		rc = nlfs_writer_set_snapshot(w, cno, mode == NILFS_SNAPSHOT, &ipriv(v)->err);
	return rc == -ENOENT ? rc : rc ? (int)fail(v, rc) : 0;
}

static int i_delete_checkpoint(struct vol *v, uint64_t cno)
{
	struct nlfs_writer *w;
	uint64_t n = 0, latest = nlfs_fs_recovery(ipriv(v)->fs)->cno;
	int rc;

	/* as the kernel says: no such checkpoint (not "a snapshot") */
	if (cno > latest)
		return -ENOENT;
	/* the super root of an unmounted volume names its latest checkpoint;
	 * a mounted one is always building the next, so there it can go */
	if (cno == latest) {
		snprintf(v->detail, sizeof(v->detail),
			 "checkpoint %llu is the latest of the unmounted volume; mount it to remove it",
			 (unsigned long long)cno);
		return -EPERM;
	}
	rc = pending(v, &w);

	if (!rc)
		rc = nlfs_writer_delete_checkpoints(w, cno, cno + 1, &n, &ipriv(v)->err);
	if (rc == -NLFS_EDAMAGED) {
		/* a damaged cpfile block the quick check did not read: as
		 * its refusal, nothing of this run is written */
		nlfs_writer_free(w);
		ipriv(v)->w = NULL;
	}
	if (!rc && n == 0)
		rc = -ENOENT;
	return rc == -ENOENT || rc == -EBUSY ? rc : rc ? (int)fail(v, rc) : 0;
}

/* no cleaner runs on an unmounted volume */
static int i_lock(struct vol *v)
{
	(void)v;
	return 0;
}

static void i_close(struct vol *v)
{
	struct image_priv *p = v->priv;

	if (!p)
		return;
	nlfs_writer_free(p->w);   /* an uncommitted construction is dropped */
	nlfs_cpfile_iter_close(p->cpit);
	if (p->fs)
		nlfs_fs_close(p->fs);
	else
		nlfs_io_close(p->io);
	free(p);
	v->priv = NULL;
}

static const struct vol_ops image_ops = {
	.cpstat = i_cpstat,
	.cpinfo = i_cpinfo,
	.sustat = i_sustat,
	.suinfo = i_suinfo,
	.vinfo = i_vinfo,
	.bdescs = i_bdescs,
	.segments = i_segments,
	.sync = i_sync,
	.change_cpmode = i_change_cpmode,
	.delete_checkpoint = i_delete_checkpoint,
	.lock = i_lock,
	.unlock = i_lock,
	.commit = i_commit,
	.close = i_close,
};

int vol_image_open(struct vol *v, int mode, char *msg, size_t len)
{
	struct image_priv *p;
	bool device_failed;
	int rc;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(msg, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* vol_open() looked it up: not mounted */
	rc = cmd_fs_open(v->dev, ((mode & VOL_RDWR) ? NLFS_IO_RDWR : NLFS_IO_RDONLY) | CMD_IO_UNMOUNTED,
			 &p->fs, &p->err, &device_failed);
	if (rc && device_failed) {
		char why[640];

		snprintf(msg, len, "%s", cmd_volume_reason(v->dev, rc, NULL, why, sizeof(why)));
		free(p);
		return rc;
	}
	if (rc) {
		char why[640];

		/* no superblock at all (a short file reads as ENODATA), and no
		 * other file system that libblkid knows */
		if ((rc == -NLFS_EBADMAGIC || rc == -ENODATA) &&
		    !cmd_foreign_type(v->dev, why, sizeof(why)))
			snprintf(msg, len, "not a NILFS2 volume");
		else
			snprintf(msg, len, "%s",
				 cmd_volume_reason(v->dev, rc, &p->err, why, sizeof(why)));
		free(p);
		return rc;
	}
	p->io = nlfs_fs_io(p->fs);
	p->force = mode & VOL_FORCE;
	rc = nlfs_cpfile_iter_open(p->fs, &p->cpit, &p->err);
	if (rc) {
		snprintf(msg, len, "%s", nlfs_strerror(rc));
		nlfs_fs_close(p->fs);
		free(p);
		return rc;
	}
	nlfs_fs_mdt_file(p->fs, NLFS_DAT_INO, &p->dat);
	v->priv = p;
	v->ops = &image_ops;
	return 0;
}
