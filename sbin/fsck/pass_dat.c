/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_dat.c - passes 2 and 4: the DAT (and the root metadata files' inodes).
 *
 * pass_dat_map(), pass 2, before the logs: the inodes of the DAT, cpfile and sufile
 * in the super root; the DAT's own (physical) block map, whose blocks go
 * into c->datblk and c->datphys; each group descriptor's pg_nfrees
 * against its bitmap, the bitmaps loaded into c->valloc.  The groups are
 * those the DAT's mapped blocks fall in: the kernel may allocate a virtual
 * block number anywhere up to 2^64 - 1, so neither a count of groups nor
 * an array sized by the largest number is used.
 * pass_dat_entries(), pass 4, after the logs: every allocated entry: entry 0
 * reserved, de_start <= de_end within the checkpoints that exist, an
 * address inside a segment in use, claimed by a summary for this very
 * virtual block (c->vconfirmed, from pass 3), and shared with no other
 * entry or DAT block.
 * pass_dat_leaks(), after the latest checkpoint: every open entry (de_end
 * ~0) is used by that checkpoint (c->vref) or by the cpfile or sufile.
 * At the end of pass 2 the entries are read once, in order, into c->dat
 * (dattable.h), where the later passes look up the plain ones.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"

static const char *const mdt_names[] = { "DAT", "cpfile", "sufile" };

static uint32_t dat_esz(const struct fsck *c)
{
	return nlfs_le16(c->sb->s_dat_entry_size);
}

static void check_mdt_inodes(struct fsck *c)
{
	for (unsigned ino = NLFS_DAT_INO; ino <= NLFS_SUFILE_INO; ino++) {
		const struct nlfs_inode *in = nlfs_fs_sr_inode(c->fs, ino);
		uint16_t mode = nlfs_le16(in->i_mode);

		struct nlfs_file f;
		struct nlfs_err err;
		uint64_t end;

		/* the kernel refuses to load them otherwise */
		if ((mode & NLFS_S_IFMT) != NLFS_S_IFREG || nlfs_le16(in->i_links_count) == 0)
			fsck_problem(c, MSG_MDT_INODE_MODE, mdt_names[ino - NLFS_DAT_INO], ino,
				     mode, nlfs_le16(in->i_links_count));
		/* each has a header or group block at least: none is a lost
		 * map (a map that cannot be walked whole is told below) */
		nlfs_fs_mdt_file(c->fs, ino, &f);
		if (!nlfs_file_mapped_end(c->fs, &f, &end, &err) && end == 0)
			fsck_problem(c, MSG_MDT_INODE_NO_BLOCKS, mdt_names[ino - NLFS_DAT_INO], ino,
				     nlfs_le64(in->i_size));
	}
}

/* the groups the DAT's mapped blocks fall in (nlfs_palloc_groups_of): the
 * kernel may allocate an entry anywhere up to 2^64 - 1 */
static int dat_groups(struct fsck *c, const struct nlfs_file *dat, uint64_t **groups,
		      size_t *ngroups)
{
	uint64_t *keys = NULL, nbeyond = 0;
	size_t nkeys = 0;
	struct nlfs_err err;
	int rc = nlfs_bmap_keys(c->fs, dat, &keys, &nkeys, &err);

	if (rc == -ENOMEM) {
		free(keys);
		return rc;
	}
	/* a map that cannot be walked whole was reported by check_file_map:
	 * the groups of what it gives are checked */
	rc = nlfs_palloc_groups_of(c->g->blocksize, dat_esz(c), keys, nkeys, groups, ngroups,
				   &nbeyond);
	free(keys);
	if (!rc && nbeyond)
		fsck_problem(c, MSG_DAT_PAST_ENTRY_SPACE, nbeyond);
	return rc;
}

/* a period [START, END) that the checkpoints up to the latest can hold:
 * it begins at one, and ends after it at one or is open */
static bool period_possible(const struct fsck *c, uint64_t start, uint64_t end)
{
	return start != 0 && start <= end && start <= c->latest_cno &&
	       (end == NLFS_CNO_MAX || end <= c->latest_cno);
}

/* does entry V (address BLK, period [START, END)) pass check_entry's
 * checks of its own fields, with an address c->dat can hold? */
static bool entry_plain(const struct fsck *c, uint64_t v, uint64_t blk, uint64_t start,
			uint64_t end)
{
	return v != 0 && blk != 0 && blk < FSCK_DATTABLE_NONE && period_possible(c, start, end);
}

/* Entries read in ascending order of virtual block number, a DAT block at
 * a time: each block is read when the first entry in it is asked for. */
struct entry_reader {
	struct fsck *c;
	struct nlfs_file dat;
	uint8_t *buf;
	uint64_t loaded;        /* the DAT block in buf (UINT64_MAX: none) */
	uint64_t v_lo, v_hi;    /* the entries it holds: [v_lo, v_hi) */
	bool fresh;             /* the entry just read is the first asked for in it */
	int rc;                 /* reading it failed (err says why) */
	bool hole;              /* it is a hole (or could not be read) */
	struct nlfs_err err;
};

/* 0, or -ENOMEM (with nothing to close) */
static int entry_reader_open(struct entry_reader *r, struct fsck *c)
{
	*r = (struct entry_reader){ .c = c, .loaded = UINT64_MAX };
	nlfs_fs_mdt_file(c->fs, NLFS_DAT_INO, &r->dat);
	r->buf = malloc(c->g->blocksize);
	return r->buf ? 0 : -ENOMEM;
}

static void entry_reader_close(struct entry_reader *r)
{
	free(r->buf);
}

/* entry V into *DE: true, or false where its block is a hole or could not
 * be read (r->rc and r->err then say why; r->loaded is the block) */
static bool read_entry(struct entry_reader *r, uint64_t v, struct nlfs_dat_entry *de)
{
	uint32_t bs = r->c->g->blocksize, esz = dat_esz(r->c), byteoff;
	uint64_t blkoff, epg = (uint64_t)bs * 8;

	/* the entries come in order, most from the block read last */
	if (r->loaded != UINT64_MAX && v >= r->v_lo && v < r->v_hi) {
		r->fresh = false;
		if (r->hole)
			return false;
		memcpy(de, r->buf + (v - r->v_lo) * esz, sizeof(*de));
		return true;
	}
	nlfs_palloc_locate(bs, esz, v, &blkoff, &byteoff);
	r->fresh = blkoff != r->loaded;
	if (r->fresh) {
		/* a block's entries are in one group, from V's on */
		r->v_lo = v - byteoff / esz;
		r->v_hi = r->v_lo + bs / esz;
		if (r->v_hi > (v / epg + 1) * epg || r->v_hi < r->v_lo)
			r->v_hi = (v / epg + 1) * epg;
		r->loaded = blkoff;
		r->rc = nlfs_file_read_block(r->c->fs, &r->dat, blkoff, r->buf, &r->hole, &r->err);
		if (r->rc)
			r->hole = true;
	}
	if (r->hole)
		return false;
	memcpy(de, r->buf + byteoff, sizeof(*de));
	return true;
}

/* the DAT's blocks (c->datblk holds them) asked for in disk order, runs
 * closer than a few blocks as one: load_table reads them in DAT order */
static void dat_ahead(struct fsck *c)
{
	uint64_t bs = c->g->blocksize, start = 0, end = 0;

	for (uint64_t b = fsck_bitmap_next(&c->datblk, 0);; b = fsck_bitmap_next(&c->datblk, b + 1)) {
		if (b != UINT64_MAX && end > start && b <= end + 4) {
			end = b + 1;
			continue;
		}
		if (end > start)
			nlfs_io_prefetch(nlfs_fs_io(c->fs), start * bs, (end - start) * bs);
		if (b == UINT64_MAX)
			break;
		start = b;
		end = b + 1;
	}
}

/* the library's translations of virtual blocks (nlfs_fs_known_addresses) */
static bool known_address(void *arg, uint64_t v, uint64_t *blk)
{
	return fsck_dat_plain(arg, v, blk, NULL);
}

/* Pass 2's reading of the table, pass 4 and the search for leaks go
 * through every allocated entry, in ascending order: a chunk of the set
 * at a time (vbitmap.h), with the chunks of the other sets and of the
 * table (dattable.h) that go with it found once, not for each entry.  The
 * plain entries need no reading. */
struct entry_sweep {
	uint64_t base;                      /* the chunk's first virtual block number */
	size_t idx1;                        /* its index in c->valloc + 1 */
	const uint64_t *alloc;              /* its bits in c->valloc */
	const uint64_t *other;              /* in the set the pass compares (NULL: none) */
	const struct fsck_dtchunk *dt;      /* its plain entries (NULL: none) */
};

/* the Ith chunk of c->valloc, with OTHER's bits there (OTHER may be
 * NULL): false past the last */
static bool sweep_chunk(struct fsck *c, size_t i, struct fsck_vbitmap *other,
			struct entry_sweep *s)
{
	const struct fsck_vchunk *ch = fsck_vbitmap_sorted(&c->valloc, i, &s->idx1);

	if (!ch)
		return false;
	s->base = ch->key << FSCK_VCHUNK_SHIFT;
	s->alloc = ch->words;
	s->other = other ? fsck_vbitmap_words(other, ch->key) : NULL;
	s->dt = c->dat.chunks ? fsck_dattable_chunk(&c->dat, s->idx1) : NULL;
	return true;
}

/* c->dat: every allocated entry read once, in DAT order, and the plain
 * ones kept.  Nothing is reported: pass 4 reads again what is not plain. */
static void load_table(struct fsck *c)
{
	struct entry_reader r;
	struct entry_sweep s;

	if (fsck_dattable_init(&c->dat, c->valloc.nchunks))
		return;
	if (entry_reader_open(&r, c)) {
		fsck_dattable_free(&c->dat);
		return;
	}
	dat_ahead(c);
	for (size_t i = 0; c->dat.chunks && sweep_chunk(c, i, NULL, &s) && !fsck_cancelled(c); i++) {
		for (unsigned w = 0; w < FSCK_VCHUNK_BITS / 64 && c->dat.chunks; w++) {
			/* entry 0 is never plain */
			uint64_t bits = s.alloc[w] & (s.base == 0 && w == 0 ? ~1ull : ~0ull);

			for (; bits; bits &= bits - 1) {
				uint64_t v = s.base + w * 64 + (uint64_t)__builtin_ctzll(bits);
				uint64_t blk, start, end;
				struct nlfs_dat_entry de;

				if (!read_entry(&r, v, &de))
					continue;   /* pass 4 tells */
				blk = nlfs_le64(de.de_blocknr);
				start = nlfs_le64(de.de_start);
				end = nlfs_le64(de.de_end);
				if (entry_plain(c, v, blk, start, end) &&
				    !fsck_dattable_put(&c->dat, s.idx1 - 1, v, (uint32_t)blk,
						       end == NLFS_CNO_MAX))
					break;   /* out of memory: the table is off */
			}
		}
	}
	entry_reader_close(&r);
	nlfs_fs_known_addresses(c->fs, known_address, c);
}

int pass_dat_map(struct fsck *c)
{
	uint32_t bs = c->g->blocksize;
	uint64_t epg = (uint64_t)bs * 8, *groups = NULL;
	size_t ngroups = 0;
	struct fsck_file_check fc = { .what = "DAT", .max_fs_units = 4 };
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	struct nlfs_file dat;
	struct nlfs_err err;
	int rc = 0;

	check_mdt_inodes(c);
	nlfs_fs_mdt_file(c->fs, NLFS_DAT_INO, &dat);
	check_file_map(c, &dat, &fc);
	if (!fc.map_ok && fc.last_data == 0) {
		fsck_problem(c, MSG_DAT_MAP_UNWALKABLE);
		return -1;
	}
	pg.desc = malloc(bs);
	pg.bitmap = malloc(bs);
	if (!pg.desc || !pg.bitmap || dat_groups(c, &dat, &groups, &ngroups)) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ngroups && !fsck_cancelled(c); i++) {
		uint64_t grp = groups[i], used = 0;

		fsck_progress(c, 2, i, ngroups);
		if (nlfs_palloc_read_group(c->fs, &dat, dat_esz(c), grp, &pg, &err)) {
			fsck_lib_problem(c, MSG_DAT_GROUP_READ, &err, grp);
			continue;
		}
		/* a word at a time: the groups a descriptor block covers are
		 * mostly empty (holes, all zeros: not looked at), 32768 bits each */
		for (uint64_t w = 0; w < epg / 64 && !pg.bitmap_hole; w++) {
			uint64_t bits;

			/* bit r of byte r / 8: bit r of the word */
			bits = nlfs_get_le64(pg.bitmap + w * 8);
			if (!bits)
				continue;
			fsck_vbit_set_word(&c->valloc, grp * epg + w * 64, bits);
			used += (uint64_t)__builtin_popcountll(bits);
		}
		c->nvalloc += used;
		if (nlfs_palloc_group_nfree(&pg, epg) != epg - used) {
			if (pg.desc_hole)
				fsck_problem(c, MSG_DAT_DESC_MISSING, grp, used);
			else
				fsck_problem(c, MSG_DAT_DESC_NFREES, grp, pg.nfrees, epg - used);
		}
	}
	if (c->valloc.oom)
		rc = -ENOMEM;
	if (!rc && !fsck_cancelled(c))
		load_table(c);
out:
	free(groups);
	free(pg.desc);
	free(pg.bitmap);
	if (rc)
		fsck_problem(c, MSG_OOM_DAT);
	return rc;
}

/* the address BLK (not 0) of entry V: in a segment in use, claimed by a
 * summary for V (CONFIRMED: c->vconfirmed has it), and V's alone */
static void check_address(struct fsck *c, uint64_t v, uint64_t blk, bool confirmed)
{
	if (!fsck_phys_in_use(c, blk)) {
		if (blk / c->g->blocks_per_segment < c->g->nsegments)
			fix_note_seg_live(c, blk / c->g->blocks_per_segment);
		fsck_problem(c, MSG_DAT_ADDRESS_OUTSIDE, v, blk);
		fix_note_vblock(c, v);
		return;
	}
	if (!confirmed && !fsck_bit_test(&c->unverified, blk)) {
		fsck_problem(c, MSG_DAT_ADDRESS_UNCLAIMED, v, blk);
		fix_note_vblock(c, v);
	}
	if (fsck_bit_test_set(&c->datphys, blk)) {
		fsck_problem(c, MSG_DAT_ADDRESS_SHARED, v, blk);
		fix_note_vblock(c, v);
	}
}

static void check_entry(struct fsck *c, uint64_t v, const struct nlfs_dat_entry *raw, bool confirmed)
{
	uint64_t blk = nlfs_le64(raw->de_blocknr), start = nlfs_le64(raw->de_start);
	uint64_t end = nlfs_le64(raw->de_end);

	if (entry_plain(c, v, blk, start, end)) {
		check_address(c, v, blk, confirmed);
		return;
	}
	/* what is wrong with it */
	if (v == 0) {
		if (blk || start || end) {
			fsck_problem(c, MSG_DAT_ENTRY0_NOT_ZERO, blk);
			fix_note_vblock(c, 0);
		}
		return;
	}
	if (!period_possible(c, start, end)) {
		char endstr[24];

		/* formatted only here: check_entry runs for every entry */
		if (end == NLFS_CNO_MAX)
			snprintf(endstr, sizeof(endstr), "open");
		else
			snprintf(endstr, sizeof(endstr), "%" PRIu64, end);
		fsck_problem(c, MSG_DAT_PERIOD_IMPOSSIBLE, v, blk, start, endstr, c->latest_cno);
		fix_note_vblock(c, v);
	}
	if (blk == 0) {
		fsck_problem(c, MSG_DAT_NO_ADDRESS, v);
		fix_note_vblock(c, v);
		return;
	}
	check_address(c, v, blk, confirmed);
}

/* one entry of pass 4 that the table does not hold */
static void check_entry_read(struct fsck *c, struct entry_reader *r, uint64_t v, bool confirmed)
{
	struct nlfs_dat_entry de;

	if (read_entry(r, v, &de)) {
		check_entry(c, v, &de, confirmed);
		return;
	}
	/* told once a block, for the first entry asked for in it */
	if (r->fresh && r->rc)
		fsck_lib_problem(c, MSG_DAT_ENTRY_BLOCK_READ, &r->err, r->loaded);
	else if (r->fresh)
		fsck_problem(c, MSG_DAT_ENTRY_BLOCK_MISSING, r->loaded, v);
	fix_note_vblock(c, v);
}

int pass_dat_entries(struct fsck *c)
{
	struct entry_reader r;
	struct entry_sweep s;
	uint64_t n = 0;

	if (entry_reader_open(&r, c)) {
		fsck_problem(c, MSG_OOM_DAT);
		return -ENOMEM;
	}
	if (!fsck_vbit_test(&c->valloc, 0)) {
		fsck_problem(c, MSG_DAT_ENTRY0_FREE);
		fix_note_vblock(c, 0);
	}
	for (size_t i = 0; sweep_chunk(c, i, &c->vconfirmed, &s) && !fsck_cancelled(c); i++) {
		for (unsigned w = 0; w < FSCK_VCHUNK_BITS / 64; w++) {
			uint64_t plain = s.dt ? s.dt->plain[w] : 0;
			uint64_t conf = s.other ? s.other[w] : 0;

			for (uint64_t bits = s.alloc[w]; bits; bits &= bits - 1) {
				unsigned b = (unsigned)__builtin_ctzll(bits);
				bool confirmed = conf >> b & 1;
				uint64_t v = s.base + w * 64 + b;

				fsck_progress(c, 4, n++, c->nvalloc);
				if (plain >> b & 1)   /* its own fields hold */
					check_address(c, v, s.dt->blk[w * 64 + b], confirmed);
				else
					check_entry_read(c, &r, v, confirmed);
			}
		}
	}
	entry_reader_close(&r);
	return 0;
}

void pass_dat_leaks(struct fsck *c)
{
	struct entry_reader r;
	struct entry_sweep s;

	if (c->maps_incomplete) {
		fsck_verbose(c, "DAT: some block maps could not be walked; unused live blocks are not looked for");
		return;
	}
	if (entry_reader_open(&r, c)) {
		fsck_problem(c, MSG_OOM_DAT);
		return;
	}
	for (size_t i = 0; sweep_chunk(c, i, &c->vref, &s) && !fsck_cancelled(c); i++) {
		for (unsigned w = 0; w < FSCK_VCHUNK_BITS / 64; w++) {
			/* allocated, not used by the checkpoint, and not a
			 * plain entry whose life has ended (entry 0 is no block) */
			uint64_t bits = s.alloc[w] & ~(s.other ? s.other[w] : 0);

			if (s.dt)
				bits &= ~(s.dt->plain[w] & ~s.dt->open[w]);
			if (s.base == 0 && w == 0)
				bits &= ~1ull;
			for (; bits; bits &= bits - 1) {
				uint64_t v = s.base + w * 64 + (uint64_t)__builtin_ctzll(bits);
				struct nlfs_dat_entry de;

				/* read where it may be a leak: the message says what
				 * the entry holds (a block that cannot be read:
				 * pass_dat_entries() told) */
				if (!read_entry(&r, v, &de) || nlfs_le64(de.de_end) != NLFS_CNO_MAX)
					continue;
				fsck_problem(c, MSG_DAT_LEAK, v, nlfs_le64(de.de_blocknr),
					     nlfs_le64(de.de_start), c->latest_cno);
				fix_note_leak(c, v);
			}
		}
	}
	entry_reader_close(&r);
}
