/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rollback.c - back to the newest super root that still holds up, for a
 * volume whose latest logs are damaged so that the kernel's super-root
 * search fails ("error -22 while searching super root").
 *
 * Every segment is read from its start, log by log, up to the first log
 * that does not check out or belongs to an older pass over the segment.
 * The super-root logs found are tried newest first.  One is taken when
 *  - the kernel's search started at it (as the superblock in use would
 *    start it) ends at it, so that it is what a mount would use,
 *  - its super root's checksum holds and every block of its DAT, cpfile
 *    and sufile (one at least each) can be read, and its checkpoint is in
 *    its cpfile,
 *  - no segment its sufile counts as in use was written again after it
 *    (the cleaner may have reused one: its old blocks would be gone).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "../nlfsP.h"

struct rb_log {
	uint64_t start, seq, cno;
	bool sr;
	bool ok;                  /* both checksums hold (else it ends its segment) */
};

struct rb_scan {
	struct rb_log *logs;      /* every log, and the damaged one ending a segment */
	size_t nlogs, caplogs;
	uint64_t *segseq;         /* ss_seq of each segment's first log */
	bool *written;            /* the segment begins with a valid log */
};

/* newest first: by sequence (across a wrap), then by place in the segment */
static int cmp_newest(const void *a, const void *b)
{
	const struct rb_log *x = a, *y = b;

	if (x->seq != y->seq)
		return nlfs_seq_ge(x->seq, y->seq) ? -1 : 1;
	return x->start > y->start ? -1 : x->start < y->start;
}

static bool newer(const struct rb_log *x, const struct rb_log *than)
{
	return cmp_newest(x, than) < 0;
}

struct rb_visit {
	struct rb_scan *s;
	uint64_t seg, start;
};

/* each log nlfs_segment_logs finds, the damaged one that ends its segment too */
static int note_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct rb_visit *v = arg;
	struct rb_scan *s = v->s;
	bool ok = log->sumsum_ok && log->datasum_ok;

	(void)summary;
	if (log->start == v->start) {
		s->segseq[v->seg] = log->seq;
		s->written[v->seg] = ok;
	}
	if (NLFS_GROW(s->logs, s->caplogs, s->nlogs + 1))
		return -ENOMEM;
	s->logs[s->nlogs++] = (struct rb_log){ log->start, log->seq, log->cno,
					       (log->flags & NLFS_SS_SR) != 0, ok };
	return ok ? 0 : 1;   /* a damaged log's length cannot be trusted */
}

static int scan_segment(struct nlfs_fs *fs, uint64_t seg, struct rb_scan *s,
			struct nlfs_err *err)
{
	struct rb_visit v = { s, seg, nlfs_seg_start(&fs->geo, seg) };

	return nlfs_segment_logs(fs, seg, NLFS_SEGMENT_LOGS_HEADERS, note_log, &v, err);
}

struct mdt_read {
	struct nlfs_fs *fs;
	const struct nlfs_file *f;
	uint8_t *buf;
	struct nlfs_err *err;
	uint64_t nblocks;         /* data blocks of the file */
};

static int read_mdt_block(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct mdt_read *m = arg;
	uint64_t blocknr;
	int rc;

	(void)blkoff;
	if (level)   /* node blocks: the iteration has read them */
		return 0;
	m->nblocks++;
	rc = nlfs_file_block_addr(m->fs, m->f, ptr, &blocknr, m->err);
	if (!rc && blocknr) {
		rc = nlfs_io_read(m->fs->io, m->buf, m->fs->geo.blocksize,
				  blocknr * m->fs->geo.blocksize);
		if (rc)
			rc = nlfs_err_set(m->err, rc, blocknr, "%s: reading metadata file %llu",
					  nlfs_io_name(m->fs->io), (unsigned long long)m->f->ino);
	}
	return rc;
}

static int mdt_readable(struct nlfs_fs *fs, struct nlfs_err *err)
{
	struct mdt_read m = { .fs = fs, .err = err };
	struct nlfs_file f;
	int rc = 0;

	m.buf = malloc(fs->geo.blocksize);
	if (!m.buf)
		return -ENOMEM;
	for (unsigned ino = NLFS_DAT_INO; !rc && ino <= NLFS_SUFILE_INO; ino++) {
		nlfs_fs_mdt_file(fs, ino, &f);
		m.f = &f;
		m.nblocks = 0;
		rc = nlfs_bmap_iterate(fs, &f, read_mdt_block, &m, err);
		/* each has a header or group block at least */
		if (!rc && !m.nblocks)
			rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "metadata file %u maps no block", ino);
	}
	free(m.buf);
	return rc;
}

/* no segment the super root's sufile has in use was begun again after it,
 * but its own and the one its log reserved next */
static int segments_kept(struct nlfs_fs *fs, const struct rb_scan *s, const struct rb_log *c,
			 struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t own = c->start / g->blocks_per_segment, next = UINT64_MAX;
	struct nlfs_suinfo su[64];
	struct nlfs_log log;
	int rc = nlfs_log_read(fs, c->start, &log, NULL, 0, err);

	if (rc)
		return rc;
	next = log.next / g->blocks_per_segment;
	for (uint64_t seg = 0; seg < g->nsegments; seg += 64) {
		size_t n = g->nsegments - seg < 64 ? (size_t)(g->nsegments - seg) : 64;

		rc = nlfs_sufile_get_many(fs, seg, n, su, err);
		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++) {
			uint64_t sn = seg + i;

			if (!(su[i].flags & NLFS_SEGMENT_USAGE_DIRTY) || sn == own || sn == next ||
			    !s->written[sn] || !nlfs_seq_ge(s->segseq[sn], c->seq))
				continue;
			return nlfs_err_set(err, NLFS_ECORRUPT, nlfs_seg_start(g, sn),
					    "segment %llu, in use for it, was written again later "
					    "(sequence %llu)", (unsigned long long)sn,
					    (unsigned long long)s->segseq[sn]);
		}
	}
	return 0;
}

/* Would C do as the volume's latest super root?  Leaves fs on it. */
static int try_candidate(struct nlfs_fs *fs, const struct rb_scan *s, const struct rb_log *c,
			 struct nlfs_rollback *rb, struct nlfs_err *err)
{
	struct nlfs_super_block sb = fs->sb[fs->choice.used];
	struct nlfs_cpinfo cp;
	struct nlfs_suhead h;
	int rc;

	sb.s_last_pseg = nlfs_cpu_to_le64(c->start);
	sb.s_last_seq = nlfs_cpu_to_le64(c->seq);
	sb.s_last_cno = nlfs_cpu_to_le64(c->cno);
	rc = nlfs_search_super_root(fs, &sb, NULL, NULL, err);
	if (!rc && fs->rec.sr_log != c->start)
		rc = nlfs_err_set(err, NLFS_ECORRUPT, c->start,
				  "a search from it goes on to the super root of block %llu",
				  (unsigned long long)fs->rec.sr_log);
	if (!rc)
		rc = nlfs_fs_load_root(fs, err);
	if (!rc)
		rc = mdt_readable(fs, err);
	if (!rc)
		rc = nlfs_cpfile_info(fs, c->cno, &cp, err);
	if (rc == -ENOENT)
		rc = nlfs_err_set(err, NLFS_ECORRUPT, c->start, "checkpoint %llu is not in its cpfile",
				  (unsigned long long)c->cno);
	if (!rc)
		rc = segments_kept(fs, s, c, err);
	if (!rc)
		rc = nlfs_sufile_header(fs, &h, err);
	if (rc)
		return rc;
	rb->log = c->start;
	rb->seq = c->seq;
	rb->cno = c->cno;
	/* what the kernel writes there: its clean segments' blocks */
	rb->free_blocks = h.ncleansegs * fs->geo.blocks_per_segment;
	return 0;
}

/* where the kernel's mount would start now: the copy in use, else its fallback */
static bool kernel_start(struct nlfs_fs *fs, uint64_t *log)
{
	int used = fs->choice.used, other = !used;
	struct nlfs_err e;

	if (!nlfs_search_super_root(fs, &fs->sb[used], NULL, NULL, &e) ||
	    (fs->choice.status[other].valid &&
	     !nlfs_search_super_root(fs, &fs->sb[other], NULL, NULL, &e))) {
		*log = fs->rec.sr_log;
		return true;
	}
	return false;
}

int nlfs_rollback_find(struct nlfs_fs *fs, struct nlfs_rollback *rb, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	struct rb_scan s = { 0 };
	uint64_t now = 0;
	bool opens = kernel_start(fs, &now), found = false;
	int rc = 0;

	memset(rb, 0, sizeof(*rb));
	s.segseq = calloc(g->nsegments, sizeof(*s.segseq));
	s.written = calloc(g->nsegments, sizeof(*s.written));
	if (!s.segseq || !s.written)
		rc = -ENOMEM;
	for (uint64_t seg = 0; !rc && seg < g->nsegments; seg++)
		rc = scan_segment(fs, seg, &s, err);
	if (!rc && s.nlogs > 1)
		nlfs_sort(s.logs, s.nlogs, sizeof(*s.logs), cmp_newest);
	for (size_t i = 0; !rc && !found && i < s.nlogs; i++) {
		if (!s.logs[i].sr || !s.logs[i].ok)
			continue;
		rc = try_candidate(fs, &s, &s.logs[i], rb, err);
		if (rc == -ENOMEM || rc == -EIO)
			break;
		found = !rc;
		if (rc) {
			rb->rejected++;
			rc = 0;
		}
	}
	if (!rc && !found)
		rc = nlfs_err_set(err, NLFS_ENOSR, NLFS_NOWHERE,
				  "none of the %llu super roots on the volume holds up",
				  (unsigned long long)rb->rejected);
	if (!rc) {
		struct rb_log y = { rb->log, rb->seq, rb->cno, true, true };

		const struct nlfs_super_block *sb = &fs->sb[fs->choice.used];

		/* a cursor at the right log can still name the wrong checkpoint:
		 * the kernel takes the cursor's s_last_cno, not the log's */
		rb->needed = !opens || now != rb->log ||
			     (nlfs_le64(sb->s_last_pseg) == rb->log &&
			      nlfs_le64(sb->s_last_cno) != rb->cno);
		for (size_t i = 0; i < s.nlogs && newer(&s.logs[i], &y); i++)
			rb->discarded++;
	}
	free(s.logs);
	free(s.segseq);
	free(s.written);
	return rc;
}

int nlfs_rollback_write(struct nlfs_fs *fs, const struct nlfs_rollback *rb, struct nlfs_err *err)
{
	struct nlfs_io *io = fs->io;
	uint64_t off[2] = { NLFS_SB_OFFSET_BYTES, nlfs_sb2_offset(fs->geo.devsize) };
	int rc = 0;

	/* the logs given up are ended first: else, after a later crash, the
	 * kernel's search goes on from the new cursor into them again */
	if (rb->discarded) {
		struct nlfs_log log;
		unsigned n;

		rc = nlfs_log_read(fs, rb->log, &log, NULL, 0, err);
		if (!rc)
			rc = nlfs_log_end_chain(io, &fs->geo, rb->log + log.nblocks, rb->seq,
						log.next / fs->geo.blocks_per_segment, &n, err);
		if (rc)
			return rc;
	}

	/* The secondary first, then the primary.  Between the two, the copy
	 * still old names the newer checkpoint, so the kernel picks it, fails
	 * to find its super root (-EINVAL) and falls back to the new copy:
	 * the volume mounts at the rolled-back state, and fsck can finish. */
	for (int i = NLFS_SB_SECONDARY; !rc && i >= NLFS_SB_PRIMARY; i--) {
		/* a copy that is bad becomes the one in use, with the new cursor */
		struct nlfs_super_block sb = fs->sb[fs->choice.status[i].valid ? i : (int)fs->choice.used];

		if (!off[i])
			continue;
		sb.s_last_pseg = nlfs_cpu_to_le64(rb->log);
		sb.s_last_seq = nlfs_cpu_to_le64(rb->seq);
		sb.s_last_cno = nlfs_cpu_to_le64(rb->cno);
		/* the copies now tie, and the kernel takes the primary: it must not
		 * look unclean where the copy in use was not */
		sb.s_state = fs->sb[fs->choice.used].s_state;
		sb.s_free_blocks_count = nlfs_cpu_to_le64(rb->free_blocks);
		nlfs_sb_update_crc(&sb);
		rc = nlfs_io_write(io, &sb, sizeof(sb), off[i]);
		if (!rc)
			rc = nlfs_io_flush(io);
		if (rc)
			rc = nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: writing the %s superblock",
					  nlfs_io_name(io), i ? "secondary" : "primary");
	}
	return rc;
}
