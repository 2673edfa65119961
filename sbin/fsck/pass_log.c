/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_log.c - pass 3: every log of every segment in use.
 *
 * For each DIRTY segment the logs are read from the segment start up to
 * su_nblocks, as libnilfs and the cleaner read them: summary magic and
 * header, both checksums, one sequence number and one ss_next per
 * segment, flags (logical segments begin and end in order, a super root
 * only in the last log, no super root in a data-sync log), checkpoint
 * numbers that never go back, each super root block, and the finfo/binfo
 * records (block totals, inode numbers, fi_cno, levels).  Every virtual
 * block a summary describes must be allocated in the DAT with exactly
 * that address (c->vconfirmed); every DAT block the DAT maps must be
 * described as a DAT block (c->datblk).  Across segments: sequence
 * numbers are unique, ss_next of sequence s names the segment of s + 1,
 * nothing is newer than the latest super root, and the super root's
 * segment and the segment the kernel writes next are allocated.
 * pass_recovery() reports the logs after the latest super root and what
 * the kernel's roll-forward would do with them at mount.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"
#include "array.h"

#define SS_KNOWN (NLFS_SS_LOGBGN | NLFS_SS_LOGEND | NLFS_SS_SR | NLFS_SS_SYNDT | NLFS_SS_GC)

/* The chunk of virtual block numbers (vbitmap.h) a log's binfos were
 * last in, with its bits in c->valloc and c->vconfirmed and its plain
 * entries, found once rather than for each binfo: a file's blocks are
 * numbered together. */
struct vchunk_cache {
	bool valid;
	uint64_t key;
	const uint64_t *alloc;           /* NULL: none allocated there */
	uint64_t *confirmed;             /* NULL: none confirmed yet */
	const struct fsck_dtchunk *dt;   /* NULL: no plain entries there */
};

struct log_walk {
	struct fsck *c;
	uint64_t seg;
	const struct nlfs_log *log;
	uint64_t nblocks;          /* payload blocks the finfos claim */
	unsigned nproblems;
	bool cno_bad;              /* ss_cno already reported: do not blame each finfo */
	struct vchunk_cache vc;
};

/* the cache W holds for V's chunk */
static struct vchunk_cache *vchunk_of(struct log_walk *w, uint64_t v)
{
	struct fsck *c = w->c;
	struct vchunk_cache *vc = &w->vc;
	uint64_t key = v >> FSCK_VCHUNK_SHIFT;
	size_t idx1;

	if (vc->valid && vc->key == key)
		return vc;
	idx1 = fsck_vbitmap_chunk_of(&c->valloc, v);
	vc->valid = true;
	vc->key = key;
	vc->alloc = idx1 ? c->valloc.chunks[idx1 - 1].words : NULL;
	vc->confirmed = fsck_vbitmap_words(&c->vconfirmed, key);
	vc->dt = c->dat.chunks ? fsck_dattable_chunk(&c->dat, idx1) : NULL;
	return vc;
}

/* V's address is as a summary says */
static void confirm(struct log_walk *w, struct vchunk_cache *vc, uint64_t v)
{
	uint64_t r = v & (FSCK_VCHUNK_BITS - 1);

	if (!vc->confirmed) {
		fsck_vbit_set(&w->c->vconfirmed, v);
		vc->confirmed = fsck_vbitmap_words(&w->c->vconfirmed, vc->key);
		return;
	}
	vc->confirmed[r / 64] |= 1ull << (r % 64);
}

#define LOG_PROBLEM_LIMIT 8

static bool note(struct log_walk *w)
{
	return ++w->nproblems <= LOG_PROBLEM_LIMIT;
}

static int walk_binfo(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
		      void *arg)
{
	struct log_walk *w = arg;
	struct fsck *c = w->c;
	const struct nlfs_log *log = w->log;
	struct vchunk_cache *vc;
	struct nlfs_datinfo de;
	struct nlfs_err err;
	uint64_t r;

	if (!bi || bi->index == 0) {
		bool mdt = fi->ino >= NLFS_DAT_INO && fi->ino <= NLFS_SUFILE_INO;

		w->nblocks += fi->nblocks;
		if (fi->ino == 0 && note(w))
			fsck_problem(c, MSG_FINFO_INODE0, w->seg, log->start);
		/* the kernel writes 0 for the DAT, cpfile and sufile, mkfs 1;
		 * the cleaner's moved blocks keep their own, older checkpoint
		 * (and kernel 6.1 writes such logs without the GC flag) */
		if (!w->cno_bad && fi->cno > log->cno && note(w))
			fsck_problem(c, MSG_FINFO_CNO, w->seg, log->start, fi->ino, fi->cno,
				     log->cno);
		else if (!w->cno_bad && mdt && fi->cno != 0 && fi->cno != log->cno && note(w))
			fsck_problem(c, MSG_FINFO_MDT_CNO, w->seg, log->start, fi->ino, fi->cno,
				     log->cno);
		if (log->flags & NLFS_SS_SYNDT && fi->nblocks != fi->ndatablk && note(w))
			fsck_problem(c, MSG_FINFO_NODES_IN_DSYNC, w->seg, log->start, fi->ino);
	}
	if (!bi)
		return 0;
	if (fi->ino == NLFS_DAT_INO) {
		if (!bi->is_data && (bi->level < 1 || bi->level >= NLFS_BTREE_LEVEL_MAX) && note(w))
			fsck_problem(c, MSG_BINFO_DAT_LEVEL, w->seg, log->start, bi->block,
				     bi->level);
		fsck_bit_clear(&c->datblk, bi->block);   /* a DAT block, as the DAT says */
		return 0;
	}
	if (bi->vblocknr == 0) {
		if (note(w))
			fsck_problem(c, MSG_BINFO_VBLOCK0, w->seg, log->start, bi->block, fi->ino);
		return 0;
	}
	vc = vchunk_of(w, bi->vblocknr);
	r = bi->vblocknr & (FSCK_VCHUNK_BITS - 1);
	if (!vc->alloc || !(vc->alloc[r / 64] >> (r % 64) & 1)) {
		if (note(w))
			fsck_problem(c, MSG_LOG_VBLOCK_FREE, w->seg, log->start, bi->block, fi->ino,
				     bi->is_data ? "data" : "node", bi->vblocknr);
		fix_note_vblock(c, bi->vblocknr);
		fix_note_log(c, w->seg, bi->vblocknr, bi->block, true);
		return 0;
	}
	if (vc->dt && vc->dt->blk[r] != FSCK_DATTABLE_NONE) {
		de.blocknr = vc->dt->blk[r];   /* as the DAT has it */
	} else if (nlfs_dat_lookup(c->fs, bi->vblocknr, &de, &err)) {
		if (note(w))
			fsck_lib_problem(c, MSG_LOG_VBLOCK_READ, &err, w->seg, log->start,
					 bi->vblocknr);
		return 0;
	}
	if (de.blocknr == bi->block) {
		confirm(w, vc, bi->vblocknr);
		return 0;
	}
	fix_note_vblock(c, bi->vblocknr);
	fix_note_log(c, w->seg, bi->vblocknr, bi->block, true);
	if (note(w))
		fsck_problem(c, MSG_LOG_VBLOCK_STALE, w->seg, log->start, bi->block, fi->ino,
			     bi->vblocknr, de.blocknr);
	return 0;
}

static void check_sr_block(struct fsck *c, uint64_t seg, const struct nlfs_log *log)
{
	uint32_t bs = c->g->blocksize;
	uint64_t blk = log->start + log->nblocks - 1;
	uint8_t *buf = malloc(bs);
	struct nlfs_err err;
	int rc;

	if (!buf)
		return;
	rc = nlfs_io_read(nlfs_fs_io(c->fs), buf, bs, blk * bs);
	if (rc)
		fsck_problem(c, MSG_SR_READ, seg, blk, nlfs_strerror(rc));
	else if (nlfs_super_root_check(buf, bs, nlfs_le32(c->sb->s_crc_seed), c->g->inode_size,
				       blk, &err))
		fsck_problem(c, MSG_SR_INVALID, seg, log->start, blk, nlfs_strerror(err.code));
	free(buf);
}

/* the flags of LOG, after PREV (NULL for a segment's first log); false if
 * its checkpoint number is wrong */
static bool check_flags(struct fsck *c, uint64_t seg, const struct nlfs_log *log,
			const struct nlfs_log *prev)
{
	uint16_t f = log->flags;

	if (f & ~SS_KNOWN)
		fsck_problem(c, MSG_LOG_FLAGS_UNKNOWN, seg, log->start, f);
	if (f & NLFS_SS_SR && !(f & NLFS_SS_LOGEND))
		fsck_problem(c, MSG_LOG_SR_NOT_LAST, seg, log->start);
	if (f & NLFS_SS_SR && f & NLFS_SS_SYNDT)
		fsck_problem(c, MSG_LOG_SR_IN_DSYNC, seg, log->start);
	if (f & NLFS_SS_SR && log->nblocks < 2)
		fsck_problem(c, MSG_LOG_SR_TOO_SMALL, seg, log->start, log->nblocks);
	if (!prev)
		return true;
	if (!(prev->flags & NLFS_SS_LOGEND) && f & NLFS_SS_LOGBGN)
		fsck_problem(c, MSG_LOG_LSEG_UNENDED, seg, log->start, prev->start);
	if (prev->flags & NLFS_SS_LOGEND && !(f & NLFS_SS_LOGBGN))
		fsck_problem(c, MSG_LOG_LSEG_ENDED, seg, log->start, prev->start);
	if (log->cno < prev->cno) {
		fsck_problem(c, MSG_LOG_CNO_BACKWARDS, seg, log->start, log->cno, prev->cno,
			     prev->start);
		return false;
	}
	if (!(f & NLFS_SS_LOGBGN) && !(prev->flags & NLFS_SS_LOGEND) && log->cno != prev->cno) {
		fsck_problem(c, MSG_LOG_CNO_IN_LSEG, seg, log->start, log->cno, prev->cno);
		return false;
	}
	return true;
}

static int count_blocks(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
			void *arg)
{
	(void)fi;
	if (bi)
		++*(uint64_t *)arg;
	return 0;
}

/* blocks FROM..TO-1 were not described by a trusted summary */
static void untrusted(struct fsck *c, uint64_t from, uint64_t to)
{
	for (uint64_t b = from; b < to; b++) {
		fsck_bit_set(&c->unverified, b);
		fsck_bit_clear(&c->datblk, b);
	}
}

/* The data checksum covers every block of a log, file data included, so
 * verifying it everywhere means reading the whole volume.  By default it is
 * verified where a crash tears logs and the kernel's recovery verifies it,
 * from the superblock's cursor on, and in the logs before the cursor in its
 * segment that belong to the cursor's checkpoint: the kernel never reads
 * those, but mkfs -d writes the files' data in logs of their own before the
 * super root's, with its checkpoint number (on a small volume, in the same
 * segment), and a bit flipped there must cost the file, which pass 6 then
 * names (tests/kernel/t-mkfs-databit.sh).  The kernel writes a log per
 * checkpoint where changes are small, so the earlier logs of the cursor's
 * segment are older checkpoints' (on bench/fsck.sh CASE=checkpoints with
 * 20,000 files, 62 logs and 3 MiB the disk read for nothing).  Where the
 * mount falls back to the other copy's older cursor, all of the cursor's
 * segment stays in.  --check-data verifies it everywhere. */
static bool verified_by_default(const struct fsck *c, uint64_t p, const struct nlfs_log *log)
{
	uint64_t seq = nlfs_le64(c->sb->s_last_seq), pseg = nlfs_le64(c->sb->s_last_pseg);
	uint32_t bps = c->g->blocks_per_segment;

	if (log->seq != seq)
		return log->seq > seq;
	return nlfs_fs_recovery(c->fs)->from_other_sb || p / bps != pseg / bps || p >= pseg ||
	       log->cno == nlfs_le64(c->sb->s_last_cno);
}

static int read_log(struct fsck *c, uint64_t p, struct nlfs_log *log, void **summary,
		    struct nlfs_err *err)
{
	int rc;

	if (c->o.check_data)
		return nlfs_log_read(c->fs, p, log, summary, 0, err);
	rc = nlfs_log_read(c->fs, p, log, summary, NLFS_LOG_READ_SUMMARY_ONLY, err);
	if (rc || !verified_by_default(c, p, log))
		return rc;
	free(*summary);
	*summary = NULL;
	return nlfs_log_read(c->fs, p, log, summary, 0, err);
}

/* the log at block P of segment SEG could not be read (RC, ERR) */
static void log_unreadable(struct fsck *c, uint64_t seg, uint64_t p, int rc,
			   const struct nlfs_err *err)
{
	struct fsck_seg *s = &c->segs[seg];
	uint64_t start = nlfs_seg_start(c->g, seg);
	char why[320];

	if (fsck_is_format_error(rc) && rc != -NLFS_EBADMAGIC) {
		/* a log was written here (its magic holds), but its
		 * header does not: the log is damaged, what follows
		 * in the segment cannot be found through it */
		nlfs_err_format(err, why, sizeof(why));
		fsck_problem(c, MSG_LOG_HEADER, seg, p, why);
	} else if (fsck_is_format_error(rc)) {
		nlfs_err_format(err, why, sizeof(why));
		fsck_problem(c, MSG_SU_LOGS_SHORT, seg, s->su_nblocks, p, p - start,
			     why);
		fix_note_log(c, seg, FSCK_LOG_SHORT, 0, false);
	}
	else
		fsck_lib_problem(c, MSG_SEGMENT_READ, err, seg);
}

/* the header of LOG, at block P of segment SEG (the FIRST of it, or
 * after others): its length, next segment and checksums */
static void check_log_header(struct fsck *c, uint64_t seg, uint64_t p, const struct nlfs_log *log,
			     bool first)
{
	const struct nlfs_geometry *g = c->g;
	struct fsck_seg *s = &c->segs[seg];
	uint64_t end = nlfs_seg_start(g, seg) + s->su_nblocks, nextseg;

	if (log->nblocks > end - p)
		fsck_problem(c, MSG_LOG_OVERRUN, seg, p, log->nblocks, s->su_nblocks);
	if (first) {
		s->seq = log->seq;
		s->next = log->next;
		s->first_flags = log->flags;
	} else if (log->next != s->next) {
		fsck_problem(c, MSG_LOG_NEXT_DIFFERS, seg, p, log->next, s->next);
	}
	nextseg = log->next / g->blocks_per_segment;
	if (first && nextseg >= g->nsegments && log->next == nlfs_seg_start(g, nextseg) &&
	    seg != nlfs_fs_recovery(c->fs)->sr_log / g->blocks_per_segment)
		/* a shrink (the kernel's or nilfs-resize's) keeps old logs
		 * whose next segment was cut; only the latest log's is followed */
		fsck_verbose(c, "segment %" PRIu64 ": log at block %" PRIu64 ": ss_next %"
			     PRIu64 " lies past the last segment (the volume was shrunk)",
			     seg, p, log->next);
	else if (first && (nextseg >= g->nsegments ||
			   log->next != nlfs_seg_start(g, nextseg) || nextseg == seg))
		fsck_problem(c, MSG_LOG_NEXT_NOT_SEGMENT, seg, p, log->next);
	if (!log->sumsum_ok)
		fsck_problem(c, MSG_LOG_SUMSUM, seg, p, log->sumsum);
	if (log->datasum_checked)
		c->nlogs_datasum++;
	if (log->datasum_checked && !log->datasum_ok) {
		fsck_problem(c, MSG_LOG_DATASUM, seg, p, log->datasum);
		/* which block is bad the checksum does not tell: pass 6
		 * names the files with blocks in the log */
		for (uint64_t b = p; b < p + log->nblocks && b < end; b++)
			fsck_bit_set(&c->baddata, b);
	}
}

/* the blocks W's log (at block P) claims, through its SUMMARY: walked
 * where the summary adds up, else left unverified */
static void check_log_summary(struct fsck *c, struct log_walk *w, uint64_t p, void *summary)
{
	const struct nlfs_geometry *g = c->g;
	const struct nlfs_log *log = w->log;
	struct nlfs_err err;
	uint32_t payload;
	int rc = 0;

	/* a summary that fails its own checksum or does not add up cannot
	 * be trusted further: its blocks are left unverified */
	payload = log->nblocks - nlfs_summary_blocks(log, g->blocksize) -
		  (log->flags & NLFS_SS_SR ? 1 : 0);
	if (log->sumsum_ok) {
		uint64_t n = 0;

		rc = nlfs_summary_walk(log, summary, g->blocksize, count_blocks, &n, &err);
		if (rc) {
			fsck_lib_problem(c, MSG_FINFO_READ, &err, w->seg, p);
		} else if (n != payload) {
			fsck_problem(c, MSG_FINFO_NBLOCKS, w->seg, p, n, payload);
			rc = 1;
		}
	}
	if (log->sumsum_ok && !rc)
		nlfs_summary_walk(log, summary, g->blocksize, walk_binfo, w, &err);
	else
		untrusted(c, p, p + log->nblocks);
}

static void check_segment(struct fsck *c, uint64_t seg)
{
	const struct nlfs_geometry *g = c->g;
	struct fsck_seg *s = &c->segs[seg];
	uint64_t start = nlfs_seg_start(g, seg), end = start + s->su_nblocks, p = start;
	struct nlfs_log log, prev;
	bool first = true;

	while (p < end && !fsck_cancelled(c)) {
		struct log_walk w = { c, seg, &log, 0, 0, false, { 0 } };
		struct nlfs_err err;
		void *summary = NULL;
		int rc = read_log(c, p, &log, &summary, &err);

		if (rc) {
			log_unreadable(c, seg, p, rc, &err);
			s->truncated = true;
			untrusted(c, p, end);
			break;
		}
		if (!first && log.seq != s->seq) {
			fsck_problem(c, MSG_LOG_SEQ_STALE, seg, p, log.seq, s->seq, s->su_nblocks);
			free(summary);
			s->truncated = true;
			untrusted(c, p, end);
			break;
		}
		c->nlogs++;
		s->nlogs++;
		if (c->o.cps != CPS_LATEST) {
			/* without room, pass 6 just asks for nothing ahead */
			struct fsck_cplog cl = { log.cno, p, log.nblocks };

			(void)CLI_PUSH(c->cplogs, c->ncplogs, c->capcplogs, cl);
		}
		check_log_header(c, seg, p, &log, first);
		w.cno_bad = !check_flags(c, seg, &log, first ? NULL : &prev);
		/* its super root and the next log's summary after it: one request
		 * to the disk where a cold cache would make two in turn, and no
		 * more (a third block, file data mostly, made 2.9 MiB of the
		 * disk's reads on bench/fsck.sh CASE=checkpoints, 20,000 files) */
		if (log.nblocks && log.nblocks <= end - p) {
			uint64_t next = p + log.nblocks;
			uint64_t from = log.flags & NLFS_SS_SR ? next - 1 : next;
			uint64_t to = next < end ? next + 1 : next;

			if (to > from)
				nlfs_io_prefetch(nlfs_fs_io(c->fs), from * g->blocksize,
						 (to - from) * g->blocksize);
		}
		if (log.flags & NLFS_SS_SR)
			check_sr_block(c, seg, &log);
		check_log_summary(c, &w, p, summary);
		free(summary);
		s->last_flags = log.flags;
		prev = log;
		first = false;
		p += log.nblocks;
	}
	s->logs_end = (uint32_t)(p - start);
}

static int cmp_seq(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

static void check_chain(struct fsck *c)
{
	const struct nlfs_geometry *g = c->g;
	const struct nlfs_recovery *rec = nlfs_fs_recovery(c->fs);
	uint64_t n = 0, (*v)[2] = malloc(sizeof(*v) * (g->nsegments ? g->nsegments : 1));

	if (!v) {
		fsck_problem(c, MSG_OOM_SEGMENTS);
		return;
	}
	for (uint64_t seg = 0; seg < g->nsegments; seg++) {
		if (!c->segs[seg].nlogs)
			continue;
		v[n][0] = c->segs[seg].seq;
		v[n][1] = seg;
		n++;
		if (c->segs[seg].seq > rec->sr_seq) {
			fsck_problem(c, MSG_SEG_SEQ_NEWER, seg, c->segs[seg].seq, rec->sr_seq);
			fix_note_relocate(c, seg);
		}
	}
	nlfs_sort(v, n, sizeof(*v), cmp_seq);
	for (uint64_t i = 1; i < n; i++) {
		const struct fsck_seg *a = &c->segs[v[i - 1][1]], *b = &c->segs[v[i][1]];

		if (v[i][0] == v[i - 1][0]) {
			fsck_problem(c, MSG_SEG_SEQ_DUP, v[i - 1][1], v[i][1], v[i][0]);
			/* which one is wrong is not known: both are moved out (the
			 * one the log writer is in stays) */
			fix_note_relocate(c, v[i - 1][1]);
			fix_note_relocate(c, v[i][1]);
			continue;
		}
		if (v[i][0] != v[i - 1][0] + 1)
			continue;   /* the segment between was cleaned and reused */
		if (a->next != nlfs_seg_start(g, v[i][1])) {
			fsck_problem(c, MSG_SEG_CHAIN, v[i - 1][1], v[i - 1][0], a->next, v[i][0],
				     v[i][1]);
			fix_note_relocate(c, v[i - 1][1]);
		} else if (!a->truncated &&
			 !(a->last_flags & NLFS_SS_LOGEND) != !(b->first_flags & NLFS_SS_LOGBGN))
			fsck_problem(c, MSG_SEG_CHAIN_FLAGS, v[i - 1][1], v[i - 1][0],
				     a->last_flags & NLFS_SS_LOGEND ?
				     "its last log ends a logical segment" :
				     "its last log leaves a logical segment open",
				     v[i][1],
				     b->first_flags & NLFS_SS_LOGBGN ? "begins a new one" : "continues one");
	}
	free(v);
}

static void check_current(struct fsck *c)
{
	const struct nlfs_geometry *g = c->g;
	const struct nlfs_recovery *rec = nlfs_fs_recovery(c->fs);
	uint64_t seg = rec->sr_log / g->blocks_per_segment, nextseg;
	struct nlfs_log log;
	struct nlfs_err err;

	if (!(c->segs[seg].su_flags & NLFS_SEGMENT_USAGE_DIRTY) ||
	    c->segs[seg].su_nblocks < rec->sr_block + 1 - nlfs_seg_start(g, seg))
		fsck_problem(c, MSG_SU_CURRENT, seg, rec->sr_block, c->segs[seg].su_flags,
			     c->segs[seg].su_nblocks);
	if (nlfs_log_read(c->fs, rec->sr_log, &log, NULL, 0, &err))
		return;
	nextseg = log.next / g->blocks_per_segment;
	if (nextseg < g->nsegments && !(c->segs[nextseg].su_flags & NLFS_SEGMENT_USAGE_DIRTY))
		fsck_problem(c, MSG_SU_NEXT, nextseg, rec->sr_log);
}

/* problems that make a log damaged (repair_log.c gives its segment up; a
 * log running past the usage count is the sufile's, repair_meta.c) */
static uint64_t log_damage(const struct fsck *c)
{
	static const enum fsck_pr codes[] = {
		PR_LOG_SUMSUM, PR_LOG_DATASUM, PR_LOG_SEQ, PR_LOG_NEXT, PR_LOG_FLAGS,
		PR_LOG_CNO, PR_LOG_SR, PR_LOG_FINFO, PR_LOG_BINFO, PR_LOG_HEADER,
	};
	uint64_t n = 0;

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		n += c->pr_count[codes[i]];
	return n;
}

static bool has_logs(const struct fsck *c, uint64_t seg)
{
	return c->segs[seg].su_flags & NLFS_SEGMENT_USAGE_DIRTY && c->segs[seg].su_nblocks;
}

/* the next segment with logs after SEG (g->nsegments: none); its blocks are
 * asked for now so the disk reads them while SEG is checked */
static uint64_t prefetch_next(struct fsck *c, uint64_t seg)
{
	const struct nlfs_geometry *g = c->g;

	while (++seg < g->nsegments && !has_logs(c, seg))
		;
	/* without --check-data only summaries are read: ask for the first
	 * block of the segment, where its first log's summary begins (as
	 * the read-ahead thread does, segment_head()) */
	if (seg < g->nsegments)
		nlfs_io_prefetch(nlfs_fs_io(c->fs), nlfs_seg_start(g, seg) * g->blocksize,
				 (uint64_t)(c->o.check_data ? c->segs[seg].su_nblocks : 1) *
				 g->blocksize);
	return seg;
}

int pass_logs(struct fsck *c)
{
	const struct nlfs_geometry *g = c->g;
	uint64_t next = prefetch_next(c, UINT64_MAX);

	c->ncplogs = 0;   /* a check again after a repair finds them again */
	for (uint64_t seg = 0; seg < g->nsegments && !fsck_cancelled(c); seg++) {
		fsck_progress(c, 3, seg, g->nsegments);
		if (seg == next)
			next = prefetch_next(c, seg);
		if (has_logs(c, seg)) {
			uint64_t before = log_damage(c);

			check_segment(c, seg);
			/* a log found damaged: -y gives its segment up */
			if (log_damage(c) != before)
				fix_note_log(c, seg, 0, 0, false);
		}
	}
	if (fsck_cancelled(c))
		return 0;
	check_chain(c);
	check_current(c);
	for (uint64_t b = fsck_bitmap_next(&c->datblk, 0); b != UINT64_MAX;
	     b = fsck_bitmap_next(&c->datblk, b + 1)) {
		fsck_problem(c, MSG_DAT_BLOCK_UNCLAIMED, b);
		fix_note_dat_rewrite(c);
	}
	return 0;
}

/* the kernel's roll-forward (nilfs_do_roll_forward) over the logs after the super root */
struct recovery {
	struct fsck *c;
	const struct nlfs_recovery *rec;
	bool after;              /* past the latest super root */
	uint64_t nafter;
	bool in_dsync;           /* inside a data-sync logical segment */
	uint64_t seg_logs, seg_blocks, seg_start;
	uint64_t replay_logs, replay_blocks, dropped_logs;
};

static int count_data(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	uint64_t *n = arg;

	(void)fi;
	if (bi && bi->is_data)
		(*n)++;
	return 0;
}

static int recovery_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct recovery *r = arg;
	struct fsck *c = r->c;

	if (!r->after) {
		if (log->start == r->rec->sr_log)
			r->after = true;
		return 0;
	}
	r->nafter++;
	if (!r->in_dsync) {
		if (!(log->flags & NLFS_SS_LOGBGN) || !(log->flags & NLFS_SS_SYNDT)) {
			r->dropped_logs++;
			return 0;
		}
		r->in_dsync = true;
		r->seg_logs = r->seg_blocks = 0;
		r->seg_start = log->start;
	}
	if (!(log->flags & NLFS_SS_SYNDT)) {
		fsck_problem(c, MSG_DSYNC_SERIES_BROKEN, log->start, r->seg_start);
		r->in_dsync = false;
		return 0;
	}
	r->seg_logs++;
	if (summary) {
		uint64_t n = 0;
		struct nlfs_err err;

		nlfs_summary_walk(log, summary, c->g->blocksize, count_data, &n, &err);
		r->seg_blocks += n;
	}
	if (log->flags & NLFS_SS_LOGEND) {
		r->replay_logs += r->seg_logs;
		r->replay_blocks += r->seg_blocks;
		r->in_dsync = false;
	}
	return 0;
}

void pass_recovery(struct fsck *c)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(c->fs);
	struct recovery r = { c, rec, false, 0, false, 0, 0, 0, 0, 0, 0 };
	bool valid = nlfs_le16(c->sb->s_state) & NLFS_STATE_VALID_FS;
	struct nlfs_err err;

	nlfs_fs_walk_chain(c->fs, recovery_log, &r, &err);
	if (r.in_dsync)
		r.dropped_logs += r.seg_logs;
	fsck_verbose(c, "latest super root: block %" PRIu64 " (log at block %" PRIu64 ", sequence %" PRIu64
		     ", checkpoint %" PRIu64 "); next log at block %" PRIu64,
		     rec->sr_block, rec->sr_log, rec->sr_seq, rec->cno, rec->next_pseg);
	if (!r.nafter)
		return;
	if (valid) {
		struct nlfs_chain_tail t;
		bool stale = !nlfs_fs_chain_tail(c->fs, &t, &err) && t.nlogs && !t.continues;

		fsck_problem(c, MSG_SB_NEWER_LOGS, r.nafter, rec->sr_block,
			     stale ? " (stale: they do not continue the cursor's checkpoint; "
				     "a crash could let the kernel take them up)" : "");
		return;
	}
	if (r.replay_logs)
		fsck_problem(c, MSG_ROLL_FORWARD, r.replay_logs, rec->cno, r.replay_blocks);
	if (r.dropped_logs)
		fsck_problem(c, MSG_ROLL_FORWARD_DISCARDED, r.dropped_logs, rec->cno);
}
