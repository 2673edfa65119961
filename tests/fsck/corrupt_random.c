/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corrupt_random.c - "corrupt --random SEED IMAGE": one fault, drawn from
 * SEED, in one block a checker has to read: a superblock, a summary or
 * super root block of any log in a segment in use, a block of the DAT,
 * cpfile, sufile or ifile, a B-tree node of any file, or a block of a
 * directory or symbolic link of the latest checkpoint.  Three draws in four
 * take a live block: one of the latest state (its DAT entry, or for the
 * DAT the map, says so) or a summary or super root of the newest logs.  The fault
 * is a flipped bit, a few random bytes, a whole field set to a telling
 * value (0, all ones, one more or less, small) or a zeroed range; three
 * times in four the log's (or superblock's) checksums are computed again,
 * as a buggy writer would have left them, else they are left wrong, as a
 * bad disk would.  What was done is one line on standard output, so that
 * a failing draw can be told and made again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

#include "corrupt.h"

enum block_kind { K_SUMMARY, K_SUPER_ROOT, K_NODE, K_METADATA, K_DIR, K_SYMLINK };

static const char *const kind_name[] = {
	[K_SUMMARY] = "summary", [K_SUPER_ROOT] = "super root", [K_NODE] = "B-tree node",
	[K_METADATA] = "metadata file block", [K_DIR] = "directory block",
	[K_SYMLINK] = "symlink block",
};

struct candidate {
	uint64_t block, log, seq, ino, blkoff;
	uint32_t used;            /* the bytes of the block that mean something */
	enum block_kind kind;
	bool live;                /* the latest checkpoint's, or a newest log's */
};

struct draw {
	struct candidate *c;
	size_t n, cap;
	uint8_t *type;            /* per inode number: 1 directory, 2 symlink */
	uint64_t ntype;
	const struct nlfs_log *log;
	struct nlfs_file dat;
	uint64_t next_seq;        /* of the log the kernel writes next */
};

/* splitmix64: a reproducible stream from the seed */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void add(struct draw *d, enum block_kind kind, uint64_t block, uint64_t ino,
		uint64_t blkoff, uint32_t used, bool live)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->c = realloc(d->c, d->cap * sizeof(*d->c));
		if (!d->c)
			die("out of memory");
	}
	d->c[d->n++] = (struct candidate){ .block = block, .log = d->log->start,
					   .seq = d->log->seq, .ino = ino, .blkoff = blkoff,
					   .used = used ? used : bs, .kind = kind, .live = live };
}

static int note_type(const struct nlfs_file *f, void *arg)
{
	struct draw *d = arg;
	unsigned fmt = nlfs_le16(f->inode.i_mode) & 0170000;
	uint8_t t = fmt == 0040000 ? 1 : fmt == 0120000 ? 2 : 0;

	if (!t)
		return 0;
	if (f->ino >= d->ntype) {
		uint64_t n = d->ntype ? d->ntype : 1024;

		while (n <= f->ino)
			n *= 2;
		d->type = realloc(d->type, n);
		if (!d->type)
			die("out of memory");
		memset(d->type + d->ntype, 0, n - d->ntype);
		d->ntype = n;
	}
	d->type[f->ino] = t;
	return 0;
}

static int note_block(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
		      void *arg)
{
	struct draw *d = arg;
	uint8_t t = fi->ino < d->ntype ? d->type[fi->ino] : 0;

	struct nlfs_datinfo de;
	struct nlfs_err err;
	uint64_t where;
	bool live;

	if (!bi)
		return 0;
	/* live: where the latest state has it (the DAT's own nodes are not
	 * looked for: taken as old) */
	if (fi->ino == NLFS_DAT_INO)
		live = bi->is_data && !nlfs_file_block_where(fs, &d->dat, bi->blkoff, &where, &err) &&
		       where == bi->block;
	else
		live = !nlfs_dat_lookup(fs, bi->vblocknr, &de, &err) &&
		       de.blocknr == bi->block && de.end == UINT64_MAX;
	if (fi->ino >= NLFS_DAT_INO && fi->ino <= NLFS_IFILE_INO)
		add(d, K_METADATA, bi->block, fi->ino, bi->blkoff, 0, live);
	else if (!bi->is_data)
		add(d, K_NODE, bi->block, fi->ino, 0, 0, live);
	else if (t)
		add(d, t == 1 ? K_DIR : K_SYMLINK, bi->block, fi->ino, bi->blkoff, 0, live);
	return 0;
}

/* one log: its summary blocks, its super root, the blocks it describes */
static int note_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct draw *d = arg;
	uint32_t nsum = nlfs_summary_blocks(log, bs), left = log->sumbytes;
	bool newest = log->seq + 16 > d->next_seq;
	struct nlfs_err err;

	d->log = log;
	for (uint32_t i = 0; i < nsum; i++, left -= left < bs ? left : bs)
		add(d, K_SUMMARY, log->start + i, 0, i, left < bs ? left : bs, newest);
	if (log->flags & NLFS_SS_SR) {
		uint8_t hdr[8];
		uint32_t srb;

		rd((log->start + log->nblocks - 1) * bs, hdr, sizeof(hdr));
		srb = (uint32_t)get(hdr + 4, 2);
		add(d, K_SUPER_ROOT, log->start + log->nblocks - 1, 0, 0, srb <= bs ? srb : bs,
		    newest);
	}
	nlfs_summary_walk(log, summary, bs, note_block, d, &err);
	return 0;
}

static void gather(struct draw *d)
{
	struct nlfs_err err;
	struct nlfs_file ifile;

	d->next_seq = nlfs_fs_recovery(fs)->next_seq;
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &d->dat);
	if (nlfs_fs_ifile(fs, 0, &ifile, &err) ||
	    nlfs_ifile_iterate(fs, &ifile, note_type, d, &err))
		die("%s: cannot read the latest checkpoint's inodes", img);
	for (uint64_t seg = 0; seg < g->nsegments; seg++) {
		struct nlfs_suinfo su;

		if (nlfs_sufile_get(fs, seg, &su, &err))
			die("%s: segment %" PRIu64 ": cannot read its usage", img, seg);
		if ((su.flags & NLFS_SEGMENT_USAGE_DIRTY) &&
		    nlfs_segment_logs(fs, seg, NLFS_LOG_READ_SUMMARY_ONLY, note_log, d, &err) < 0)
			die("%s: segment %" PRIu64 ": cannot read its logs", img, seg);
	}
	if (!d->n)
		die("%s: no log to damage", img);
}

/* the fault: N bytes at OFF of BUF (USED bytes mean something) changed */
static void fault(uint64_t *rs, uint8_t *buf, uint32_t used, char *what, size_t len)
{
	uint32_t off, n;
	uint64_t v;

	switch (next(rs) % 4) {
	case 0:
		off = (uint32_t)(next(rs) % used);
		n = (uint32_t)(next(rs) % 8);
		buf[off] ^= (uint8_t)(1u << n);
		snprintf(what, len, "bit %u of byte %u flipped", n, off);
		break;
	case 1:
		off = (uint32_t)(next(rs) % used);
		n = 1 + (uint32_t)(next(rs) % 8);
		n = n < used - off ? n : used - off;
		v = next(rs);
		memcpy(buf + off, &v, n);
		snprintf(what, len, "%u random bytes at byte %u", n, off);
		break;
	case 2: {
		static const int widths[] = { 2, 4, 8 };
		int w = widths[next(rs) % 3];
		uint64_t old;

		if (used < (uint32_t)w)
			w = 1;
		off = (uint32_t)(next(rs) % (used / (uint32_t)w)) * (uint32_t)w;
		old = get(buf + off, w);
		switch (next(rs) % 6) {
		case 0: v = 0; break;
		case 1: v = UINT64_MAX; break;
		case 2: v = old + 1; break;
		case 3: v = old - 1; break;
		case 4: v = next(rs) % 256; break;
		default: v = next(rs); break;
		}
		put(buf + off, w, v);
		snprintf(what, len, "%d-byte field at byte %u: %#" PRIx64 " -> %#" PRIx64, w, off,
			 old, get(buf + off, w));
		break;
	}
	default:
		if (next(rs) % 8 == 0) {
			off = 0;
			n = used;
		} else {
			off = (uint32_t)(next(rs) % used);
			n = 16u << (next(rs) % 5);
			n = n < used - off ? n : used - off;
		}
		memset(buf + off, 0, n);
		snprintf(what, len, "%u bytes zeroed at byte %u", n, off);
		break;
	}
}

static void damage_superblock(uint64_t *rs, uint64_t seed)
{
	struct nlfs_super_block sb;
	int copy = (int)(next(rs) % 2);
	uint32_t used;
	bool seal = next(rs) % 4 != 0;
	char what[128];

	rd(sb_off(copy), &sb, sizeof(sb));
	used = nlfs_le16(sb.s_bytes);
	if (used < 16 || used > sizeof(sb))
		used = sizeof(sb);
	fault(rs, (uint8_t *)&sb, used, what, sizeof(what));
	if (seal)
		nlfs_sb_update_crc(&sb);
	wr(sb_off(copy), &sb, sizeof(sb));
	printf("random %" PRIu64 ": %s superblock: %s, %s\n", seed,
	       copy ? "secondary" : "primary", what, seal ? "sealed" : "checksum left wrong");
}

void random_fault(uint64_t seed)
{
	struct draw d = { 0 };
	uint64_t rs = seed, nlive = 0, pick;
	const struct candidate *c;
	uint8_t *buf;
	bool seal;
	char what[128];

	if (next(&rs) % 16 == 0)
		return damage_superblock(&rs, seed);
	gather(&d);
	for (size_t i = 0; i < d.n; i++)
		nlive += d.c[i].live;
	pick = next(&rs);
	if (pick % 4 && nlive) {
		uint64_t k = (pick / 4) % nlive;

		for (c = d.c; !c->live || k--; c++)
			;
	} else {
		c = &d.c[(pick / 4) % d.n];
	}
	buf = malloc(bs);
	if (!buf)
		die("out of memory");
	rd(c->block * bs, buf, bs);
	fault(&rs, buf, c->used, what, sizeof(what));
	seal = next(&rs) % 4 != 0;
	wr(c->block * bs, buf, bs);
	if (seal && c->kind == K_SUMMARY && c->blkoff == 0) {
		/* the header itself: reseal only what still reads as a log */
		struct nlfs_log log;
		struct nlfs_err err;

		seal = !nlfs_summary_decode(buf, bs, c->block, &log, &err) &&
		       log.nblocks && log.nblocks <= g->blocks_per_segment &&
		       c->block + log.nblocks <= nlfs_seg_end(g, c->block / g->blocks_per_segment) + 1;
	}
	if (seal)
		reseal_log(c->log);
	printf("random %" PRIu64 ": %s block %" PRIu64, seed, kind_name[c->kind], c->block);
	if (c->kind == K_METADATA || c->kind == K_DIR || c->kind == K_SYMLINK)
		printf(" (inode %" PRIu64 ", block %" PRIu64 ")", c->ino, c->blkoff);
	else if (c->kind == K_NODE)
		printf(" (inode %" PRIu64 ")", c->ino);
	printf(" of the log at %" PRIu64 " (seq %" PRIu64 ", %s): %s, %s\n", c->log, c->seq,
	       c->live ? "live" : "old", what, seal ? "sealed" : "checksums left wrong");
	free(buf);
	free(d.c);
	free(d.type);
}
