/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Laying blocks out into logs (partial segments) and writing them.
 *
 * Blocks arrive in payload order.  A log grows until the next block, its
 * summary records and a reserved super-root block no longer fit in the
 * segment; the log is then closed (addresses assigned) and the next one
 * starts at the head of the following segment, seq + 1.  The metadata
 * files' blocks written last do not share a log with more than one block
 * of other files (nlfs_logw_end_files): that log is closed first, and they
 * start the log that ends with the super root.  The kernel verifies the
 * data checksum of the super root's log when it mounts, and there may be
 * no older super root to fall back to (a new volume), so a bad bit in a
 * file's data would cost the whole volume; this way it costs that file.
 * A lone block, such as a new volume's root directory, stays with them:
 * splitting costs as much as it saves, and mkfs then writes the log
 * nilfs-utils' mkfs writes.  Summary records
 * never straddle a block; the summary is sized as records are added, so an
 * address is only known once its log is closed.
 *
 * A log is written from one buffer (its arena): room for the largest
 * summary a segment can need, then the payload blocks in order, then the
 * super root.  The summary is encoded at the end of its room, right before
 * the payload, so the whole log is one contiguous write.  Blocks whose
 * contents are final when added (a file's data) are copied into their
 * place at once; the others (metadata, changed until the log closes) when
 * the log is written.  One arena is kept for the next log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"

struct lw_log {
	uint8_t *arena;         /* NULL until a block is copied in or it is written */
	uint64_t start, seq, next;
	uint32_t sumbytes, nfinfo, nblocks;
	uint32_t nuser;         /* blocks of files other than the metadata files */
	uint16_t flags;
	bool closed, written;
	struct nlfs_litem *items;
	size_t nitems, cap;
	/* the record being extended */
	bool have_finfo, last_node;
	uint64_t last_ino, last_cno;
};

struct nlfs_logw {
	struct nlfs_io *io;
	struct nlfs_geometry g;
	uint32_t seed;
	uint64_t cno, ctime;
	struct nlfs_logw_pos at;
	const struct nlfs_logw_ops *ops;
	void *arg;
	bool dry, began, gc;
	struct lw_log *logs;
	size_t nlogs, cap;
	struct nlfs_lseg *segs;
	size_t nsegs, capsegs;
	uint64_t blocks;
	uint8_t *spare;         /* an arena for the next log */
};

struct nlfs_logw_mark {
	struct nlfs_logw_pos at;
	bool began, had_open;
	size_t nlogs, nsegs;
	uint64_t blocks;
	struct lw_log last;     /* copy of the open log's header fields */
	size_t last_nitems;
	struct nlfs_lseg lastseg;
};

static uint32_t binfo_size(uint64_t ino, unsigned level)
{
	if (ino == NLFS_DAT_INO)
		return level ? sizeof(struct nlfs_binfo_dat) : 8;
	return level ? 8 : sizeof(struct nlfs_binfo_v);
}

/* where a record of SIZE bytes goes: skip to the next block if it would straddle */
static uint32_t place(uint32_t off, uint32_t size, uint32_t bs)
{
	if (off % bs + size > bs)
		off = (off / bs + 1) * bs;
	return off;
}

static bool is_metadata_file(uint64_t ino)
{
	return ino == NLFS_DAT_INO || ino == NLFS_CPFILE_INO || ino == NLFS_SUFILE_INO ||
	       ino == NLFS_IFILE_INO;
}

static bool starts_finfo(const struct lw_log *l, const struct nlfs_litem *it)
{
	return !l->have_finfo || l->last_ino != it->ino || l->last_cno != it->cno ||
	       (l->last_node && it->level == 0);
}

int nlfs_logw_new(struct nlfs_io *io, const struct nlfs_geometry *g, uint32_t crc_seed,
		  uint64_t cno, uint64_t ctime, const struct nlfs_logw_pos *start,
		  const struct nlfs_logw_ops *ops, void *arg, struct nlfs_logw **out)
{
	struct nlfs_logw *lw = calloc(1, sizeof(*lw));

	if (!lw)
		return -ENOMEM;
	lw->io = io;
	lw->g = *g;
	lw->seed = crc_seed;
	lw->cno = cno;
	lw->ctime = ctime;
	lw->at = *start;
	lw->ops = ops;
	lw->arg = arg;
	*out = lw;
	return 0;
}

/* blocks of an arena's room for the summary: at most every block of the
 * segment (a log holds a summary block and a payload block at least) */
static size_t sum_room(const struct nlfs_logw *lw)
{
	return lw->g.blocks_per_segment;
}

static uint8_t *arena_get(struct nlfs_logw *lw)
{
	uint8_t *a = lw->spare;

	if (a) {
		lw->spare = NULL;
		return a;
	}
	return malloc((sum_room(lw) + lw->g.blocks_per_segment) * (size_t)lw->g.blocksize);
}

static void arena_put(struct nlfs_logw *lw, uint8_t *a)
{
	if (!lw->spare)
		lw->spare = a;
	else
		free(a);
}

/* where payload block I of a log goes in its arena A */
static uint8_t *arena_slot(const struct nlfs_logw *lw, uint8_t *a, size_t i)
{
	return a + (sum_room(lw) + i) * (size_t)lw->g.blocksize;
}

static void free_items(struct lw_log *l, size_t from)
{
	for (size_t i = from; i < l->nitems; i++)
		if (l->items[i].owned)
			free(l->items[i].buf);
	l->nitems = from;
}

void nlfs_logw_free(struct nlfs_logw *lw)
{
	if (!lw)
		return;
	for (size_t i = 0; i < lw->nlogs; i++) {
		free_items(&lw->logs[i], 0);
		free(lw->logs[i].items);
		free(lw->logs[i].arena);
	}
	free(lw->logs);
	free(lw->segs);
	free(lw->spare);
	free(lw);
}

static struct lw_log *open_log(struct nlfs_logw *lw)
{
	return lw->nlogs && !lw->logs[lw->nlogs - 1].closed ? &lw->logs[lw->nlogs - 1] : NULL;
}

static int note_segment(struct nlfs_logw *lw)
{
	if (lw->nsegs && lw->segs[lw->nsegs - 1].segnum == lw->at.seg)
		return 0;
	if (NLFS_GROW(lw->segs, lw->capsegs, lw->nsegs + 1))
		return -ENOMEM;
	lw->segs[lw->nsegs].segnum = lw->at.seg;
	lw->segs[lw->nsegs].end = lw->at.pos;
	lw->nsegs++;
	return 0;
}

static int next_segment(struct nlfs_logw *lw, struct nlfs_err *err)
{
	uint64_t segnum;
	int rc = lw->ops->next_segment(lw->arg, &segnum, err);

	if (rc)
		return rc;
	lw->at.seg = lw->at.nextseg;
	lw->at.pos = nlfs_seg_start(&lw->g, lw->at.seg);
	lw->at.seq++;
	lw->at.nextseg = segnum;
	return 0;
}

static int begin_log(struct nlfs_logw *lw, struct nlfs_err *err)
{
	struct lw_log *l;
	int rc;

	/* a summary block, one payload block and the super-root reserve */
	if (lw->at.pos + 3 > nlfs_seg_end(&lw->g, lw->at.seg) + 1) {
		rc = next_segment(lw, err);
		if (rc)
			return rc;
	}
	if (NLFS_GROW(lw->logs, lw->cap, lw->nlogs + 1))
		return -ENOMEM;
	rc = note_segment(lw);
	if (rc)
		return rc;
	l = &lw->logs[lw->nlogs++];
	memset(l, 0, sizeof(*l));
	l->start = lw->at.pos;
	l->seq = lw->at.seq;
	l->next = nlfs_seg_start(&lw->g, lw->at.nextseg);
	l->sumbytes = sizeof(struct nlfs_segment_summary);
	l->flags = (uint16_t)((lw->began ? 0 : NLFS_SS_LOGBGN) | (lw->gc ? NLFS_SS_GC : 0));
	lw->began = true;
	return 0;
}

static uint32_t sum_blocks(uint32_t sumbytes, uint32_t bs)
{
	return (sumbytes + bs - 1) / bs;
}

static int close_log(struct nlfs_logw *lw, struct lw_log *l, bool sr, struct nlfs_err *err)
{
	uint32_t nsum = sum_blocks(l->sumbytes, lw->g.blocksize);

	l->nblocks = nsum + (uint32_t)l->nitems + (sr ? 1 : 0);
	if (sr)
		l->flags |= NLFS_SS_LOGEND | NLFS_SS_SR;
	l->closed = true;
	lw->at.pos = l->start + l->nblocks;
	lw->segs[lw->nsegs - 1].end = lw->at.pos;
	lw->blocks += l->nblocks;
	for (size_t i = 0; i < l->nitems; i++) {
		l->items[i].addr = l->start + nsum + i;
		if (!lw->dry && lw->ops->assigned) {
			int rc = lw->ops->assigned(lw->arg, &l->items[i], err);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/* the open log, beginning one if there is none */
static int current_log(struct nlfs_logw *lw, struct lw_log **l, struct nlfs_err *err)
{
	int rc = 0;

	if (!open_log(lw))
		rc = begin_log(lw, err);
	*l = open_log(lw);
	return rc;
}

int nlfs_logw_add(struct nlfs_logw *lw, const struct nlfs_litem *it, struct nlfs_err *err)
{
	uint32_t bs = lw->g.blocksize;

	for (int attempt = 0; attempt < 2; attempt++) {
		struct lw_log *l;
		uint32_t s;
		bool fin;
		int rc = current_log(lw, &l, err);

		if (rc)
			return rc;
		fin = starts_finfo(l, it);
		s = l->sumbytes;
		if (fin)
			s = place(s, sizeof(struct nlfs_finfo), bs) + sizeof(struct nlfs_finfo);
		s = place(s, binfo_size(it->ino, it->level), bs) + binfo_size(it->ino, it->level);
		if (l->start + sum_blocks(s, bs) + l->nitems + 1 + 1 >
		    nlfs_seg_end(&lw->g, lw->at.seg) + 1) {
			if (l->nitems == 0)
				return nlfs_err_set(err, ENOSPC, l->start,
						    "segment too small for a log");
			rc = close_log(lw, l, false, err);
			if (!rc)
				rc = next_segment(lw, err);
			if (rc)
				return rc;
			continue;
		}
		if (NLFS_GROW(l->items, l->cap, l->nitems + 1))
			return -ENOMEM;
		if (it->copy) {
			if (!l->arena && !(l->arena = arena_get(lw)))
				return -ENOMEM;
			l->items[l->nitems] = *it;
			l->items[l->nitems].buf = arena_slot(lw, l->arena, l->nitems);
			l->items[l->nitems].owned = false;
			l->items[l->nitems].copy = false;
			memcpy(l->items[l->nitems].buf, it->buf, bs);
			l->nitems++;
		} else {
			l->items[l->nitems++] = *it;
		}
		l->sumbytes = s;
		if (fin)
			l->nfinfo++;
		if (!is_metadata_file(it->ino))
			l->nuser++;
		l->have_finfo = true;
		l->last_ino = it->ino;
		l->last_cno = it->cno;
		l->last_node = it->level != 0;
		return 0;
	}
	return nlfs_err_set(err, ENOSPC, lw->at.pos, "no room for a log");
}

int nlfs_logw_end_files(struct nlfs_logw *lw, struct nlfs_err *err)
{
	struct lw_log *l = open_log(lw);

	return l && l->nuser > 1 ? close_log(lw, l, false, err) : 0;
}

int nlfs_logw_finish(struct nlfs_logw *lw, struct nlfs_err *err)
{
	struct lw_log *l;
	int rc = current_log(lw, &l, err);

	return rc ? rc : close_log(lw, l, true, err);
}

static void put_finfo(uint8_t *p, uint64_t ino, uint64_t cno, uint32_t nblocks,
		      uint32_t ndata)
{
	struct nlfs_finfo fi = {
		.fi_ino = nlfs_cpu_to_le64(ino),
		.fi_cno = nlfs_cpu_to_le64(cno),
		.fi_nblocks = nlfs_cpu_to_le32(nblocks),
		.fi_ndatablk = nlfs_cpu_to_le32(ndata),
	};

	memcpy(p, &fi, sizeof(fi));
}

static void put_binfo(uint8_t *p, const struct nlfs_litem *it)
{
	nlfs_le64_t v[2];

	if (it->ino == NLFS_DAT_INO && it->level) {
		struct nlfs_binfo_dat bd = { .bi_blkoff = nlfs_cpu_to_le64(it->blkoff),
					     .bi_level = it->level };

		memcpy(p, &bd, sizeof(bd));
	} else if (it->ino == NLFS_DAT_INO) {
		v[0] = nlfs_cpu_to_le64(it->blkoff);
		memcpy(p, v, 8);
	} else if (it->level) {
		v[0] = nlfs_cpu_to_le64(it->vblocknr);
		memcpy(p, v, 8);
	} else {
		v[0] = nlfs_cpu_to_le64(it->vblocknr);
		v[1] = nlfs_cpu_to_le64(it->blkoff);
		memcpy(p, v, 16);
	}
}

/* Encode the summary area into BUF (zeroed, nsum blocks). */
static void encode_summary(const struct nlfs_logw *lw, const struct lw_log *l, uint8_t *buf)
{
	uint32_t bs = lw->g.blocksize, off = sizeof(struct nlfs_segment_summary);
	struct nlfs_segment_summary ss = {
		.ss_magic = nlfs_cpu_to_le32(NLFS_SEGSUM_MAGIC),
		.ss_bytes = nlfs_cpu_to_le16(sizeof(struct nlfs_segment_summary)),
		.ss_flags = nlfs_cpu_to_le16(l->flags),
		.ss_seq = nlfs_cpu_to_le64(l->seq),
		.ss_create = nlfs_cpu_to_le64(lw->ctime),
		.ss_next = nlfs_cpu_to_le64(l->next),
		.ss_nblocks = nlfs_cpu_to_le32(l->nblocks),
		.ss_nfinfo = nlfs_cpu_to_le32(l->nfinfo),
		.ss_sumbytes = nlfs_cpu_to_le32(l->sumbytes),
		.ss_cno = nlfs_cpu_to_le64(lw->cno),
	};
	struct lw_log cur = { 0 };

	memcpy(buf, &ss, sizeof(ss));
	for (size_t i = 0; i < l->nitems;) {
		const struct nlfs_litem *it = &l->items[i];
		size_t j = i + 1;
		uint32_t ndata = it->level == 0;

		/* the run of blocks one finfo describes, as nlfs_logw_add grouped them */
		cur.have_finfo = true;
		cur.last_ino = it->ino;
		cur.last_cno = it->cno;
		cur.last_node = it->level != 0;
		while (j < l->nitems && !starts_finfo(&cur, &l->items[j])) {
			cur.last_node = l->items[j].level != 0;
			ndata += l->items[j].level == 0;
			j++;
		}
		off = place(off, sizeof(struct nlfs_finfo), bs);
		put_finfo(buf + off, it->ino, it->cno, (uint32_t)(j - i), ndata);
		off += sizeof(struct nlfs_finfo);
		for (; i < j; i++) {
			uint32_t sz = binfo_size(l->items[i].ino, l->items[i].level);

			off = place(off, sz, bs);
			put_binfo(buf + off, &l->items[i]);
			off += sz;
		}
	}
}

static int write_log(struct nlfs_logw *lw, struct lw_log *l, const uint8_t *sr,
		     struct nlfs_err *err)
{
	uint32_t bs = lw->g.blocksize, nsum = sum_blocks(l->sumbytes, bs);
	size_t len = (size_t)l->nblocks * bs;
	uint8_t *a = l->arena ? l->arena : arena_get(lw), *buf;
	int rc;

	if (!a)
		return -ENOMEM;
	l->arena = a;
	for (size_t i = 0; i < l->nitems; i++) {
		uint8_t *slot = arena_slot(lw, a, i);

		if (!l->items[i].buf)
			memset(slot, 0, bs);
		else if (l->items[i].buf != slot)
			memcpy(slot, l->items[i].buf, bs);
	}
	if (l->flags & NLFS_SS_SR)
		memcpy(arena_slot(lw, a, l->nitems), sr, bs);
	buf = arena_slot(lw, a, 0) - (size_t)nsum * bs;
	memset(buf, 0, (size_t)nsum * bs);
	encode_summary(lw, l, buf);
	nlfs_put_le32(buf + 4, nlfs_crc32(lw->seed, buf + 8, l->sumbytes - 8));
	nlfs_put_le32(buf, nlfs_crc32(lw->seed, buf + 4, len - 4));
	rc = nlfs_io_write(lw->io, buf, len, l->start * bs);
	if (rc)
		return nlfs_err_set(err, rc, l->start, "%s: writing a log of %u blocks",
				    nlfs_io_name(lw->io), l->nblocks);
	l->written = true;
	free_items(l, 0);
	l->arena = NULL;
	arena_put(lw, a);
	return 0;
}

int nlfs_logw_write_closed(struct nlfs_logw *lw, const uint8_t *sr, struct nlfs_err *err)
{
	for (size_t i = 0; i < lw->nlogs; i++) {
		struct lw_log *l = &lw->logs[i];

		if (l->closed && !l->written) {
			int rc = write_log(lw, l, sr, err);

			if (rc)
				return rc;
		}
	}
	return 0;
}

int nlfs_logw_save(struct nlfs_logw *lw, struct nlfs_logw_mark **mark)
{
	struct nlfs_logw_mark *m = calloc(1, sizeof(*m));
	struct lw_log *l = open_log(lw);

	if (!m)
		return -ENOMEM;
	m->at = lw->at;
	m->began = lw->began;
	m->nlogs = lw->nlogs;
	m->nsegs = lw->nsegs;
	m->blocks = lw->blocks;
	if (l) {
		m->had_open = true;
		m->last = *l;
		m->last_nitems = l->nitems;
	}
	if (lw->nsegs)
		m->lastseg = lw->segs[lw->nsegs - 1];
	*mark = m;
	return 0;
}

void nlfs_logw_restore(struct nlfs_logw *lw, struct nlfs_logw_mark *m)
{
	for (size_t i = m->nlogs; i < lw->nlogs; i++) {
		free_items(&lw->logs[i], 0);
		free(lw->logs[i].items);
		if (lw->logs[i].arena)
			arena_put(lw, lw->logs[i].arena);
	}
	lw->nlogs = m->nlogs;
	if (m->had_open) {
		struct lw_log *l = &lw->logs[m->nlogs - 1];
		struct nlfs_litem *items = l->items;
		uint8_t *arena = l->arena;
		size_t cap = l->cap;

		free_items(l, m->last_nitems);
		*l = m->last;
		l->items = items;
		l->arena = arena;
		l->cap = cap;
		l->nitems = m->last_nitems;
	}
	lw->nsegs = m->nsegs;
	if (m->nsegs)
		lw->segs[m->nsegs - 1] = m->lastseg;
	lw->at = m->at;
	lw->began = m->began;
	lw->blocks = m->blocks;
	free(m);
}

void nlfs_logw_set_dry(struct nlfs_logw *lw, bool dry)
{
	lw->dry = dry;
}

void nlfs_logw_set_gc(struct nlfs_logw *lw)
{
	lw->gc = true;
}

const struct nlfs_lseg *nlfs_logw_segments(const struct nlfs_logw *lw, size_t *n)
{
	*n = lw->nsegs;
	return lw->segs;
}

struct nlfs_logw_pos nlfs_logw_position(const struct nlfs_logw *lw)
{
	return lw->at;
}

int nlfs_logw_move(struct nlfs_logw *lw, const struct nlfs_logw_pos *pos)
{
	if (lw->nlogs || lw->began)
		return -EBUSY;
	lw->at = *pos;
	return 0;
}

static const struct lw_log *sr_log(const struct nlfs_logw *lw)
{
	for (size_t i = lw->nlogs; i-- > 0;)
		if (lw->logs[i].flags & NLFS_SS_SR)
			return &lw->logs[i];
	return NULL;
}

uint64_t nlfs_logw_sr_log(const struct nlfs_logw *lw)
{
	const struct lw_log *l = sr_log(lw);

	return l ? l->start : 0;
}

uint64_t nlfs_logw_sr_seq(const struct nlfs_logw *lw)
{
	const struct lw_log *l = sr_log(lw);

	return l ? l->seq : 0;
}

uint64_t nlfs_logw_blocks(const struct nlfs_logw *lw)
{
	return lw->blocks;
}
