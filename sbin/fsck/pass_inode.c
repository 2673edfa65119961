/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_inode.c - pass 6: the inodes and block maps of one checkpoint.
 *
 * check_file_map() walks any file's block map (the DAT's physical one, the
 * virtual ones of every other file): B-tree shape as the library checks
 * it, keys in strictly ascending order across the whole tree, every
 * virtual pointer allocated in the DAT, alive in the checkpoint that uses
 * it, and used once per checkpoint (c->vref); the block count against
 * i_blocks.  pass_checkpoint() checks the ifile (group descriptors against
 * bitmaps, reserved inodes), hands the tree to pass_dir.c, then takes every
 * inode in use that the tree did not reach (orphans, detached subtrees),
 * compares link counts with the directory records counted, and the
 * checkpoint's inode and block counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>
#include "fsck.h"

struct map_walk {
	struct fsck *c;
	const struct nlfs_file *f;
	struct fsck_file_check *fc;
	uint64_t last_key;
	bool any_key;
	unsigned nproblems;
	bool needs_rebuild;      /* a repair of the map is needed, whatever was printed */
};

/* per file: the rest of a broken map repeats the same story */
#define MAP_PROBLEM_LIMIT 8

static bool map_note(struct map_walk *w)
{
	return ++w->nproblems <= MAP_PROBLEM_LIMIT;
}

/* The check of the repairs' work (the check that follows them): a live
 * block of the latest checkpoint whose DAT entry a repair ended, or that
 * lies outside the segments in use, is a repair that made the volume
 * worse.  Entries ended before the repairs were reported by the first
 * check and are not counted twice. */
static void repair_verify_live(struct fsck *c, const struct fsck_file_check *fc, unsigned level,
			       uint64_t key, uint64_t ptr, const struct nlfs_dat_entry *de,
			       const char *why)
{
	if (!c->repair_cno || fc->cno != c->latest_cno || fc->metadata_current)
		return;
	if (de && de->de_end != NLFS_CNO_MAX && de->de_end < c->repair_cno &&
	    fsck_phys_in_use(c, de->de_blocknr))
		return;   /* ended before any repair */
	fsck_problem(c, PR_REPAIR_LIVE,
		     "%s: block map: %s %" PRIu64 " (virtual block %" PRIu64 "): %s after the repairs "
		     "(checkpoint %" PRIu64 " on): a repair left a live block unprotected",
		     fc->what, level ? "node at key" : "file block", key, ptr, why, c->repair_cno);
}

static int map_entry(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct map_walk *w = arg;
	struct fsck *c = w->c;
	struct fsck_file_check *fc = w->fc;
	struct nlfs_dat_entry de;
	struct nlfs_err err;

	fc->nblocks++;
	if (level == 0) {
		if (w->any_key && key <= w->last_key && map_note(w))
			fsck_problem(c, PR_BMAP_ORDER,
				     "%s: block map: data key %" PRIu64 " follows key %" PRIu64,
				     fc->what, key, w->last_key);
		w->last_key = key;
		w->any_key = true;
		if (key + 1 > fc->last_data)
			fc->last_data = key + 1;
	}
	if (w->f->ino == NLFS_DAT_INO) {
		/* the DAT maps itself with physical block numbers */
		if (!fsck_phys_in_use(c, ptr)) {
			fix_note_dat_rewrite(c);
			if (map_note(w))
				fsck_problem(c, PR_DAT_PTR,
					     "DAT: block %" PRIu64 " (%s %" PRIu64 ") is not in a segment in use",
					     ptr, level ? "node at key" : "file block", key);
			return level ? 1 : 0;
		}
		fsck_bit_set(&c->datblk, ptr);
		if (fsck_bit_test_set(&c->datphys, ptr) && map_note(w))
			fsck_problem(c, PR_DAT_SHARED, "DAT: block %" PRIu64 " is mapped twice", ptr);
		return 0;
	}
	if (!fsck_vbit_test(&c->valloc, ptr)) {
		repair_verify_live(c, fc, level, key, ptr, NULL, "its DAT entry is not allocated");
		fix_note_vblock(c, ptr);
		if (map_note(w))
			fsck_problem(c, PR_BMAP_VBLOCK,
				     "%s: block map: %s %" PRIu64 " points to virtual block %" PRIu64
				     ", which the DAT does not allocate",
				     fc->what, level ? "node at key" : "file block", key, ptr);
		return level ? 1 : 0;   /* do not follow a node pointer into garbage */
	}
	if (fsck_vbit_test_set(&c->vref, ptr) && map_note(w))
		fsck_problem(c, PR_BMAP_SHARED,
			     "%s: block map: virtual block %" PRIu64 " (%s %" PRIu64
			     ") is also used by another block of this checkpoint",
			     fc->what, ptr, level ? "node at key" : "file block", key);
	if (nlfs_dat_lookup(c->fs, ptr, &de, &err)) {
		fsck_lib_problem(c, PR_BMAP_VBLOCK, &err, "%s: block map: virtual block %" PRIu64,
				 fc->what, ptr);
		return level ? 1 : 0;
	}
	if (de.de_blocknr == 0) {
		repair_verify_live(c, fc, level, key, ptr, NULL, "its DAT entry has no address");
		if (map_note(w))
			fsck_problem(c, PR_BMAP_VBLOCK,
				     "%s: block map: %s %" PRIu64 ": virtual block %" PRIu64
				     " has no disk address", fc->what,
				     level ? "node at key" : "file block", key, ptr);
		return level ? 1 : 0;
	}
	if (!fsck_phys_in_use(c, de.de_blocknr)) {
		/* pass 4 reports the entry; the map is mended with it */
		w->needs_rebuild = true;
		repair_verify_live(c, fc, level, key, ptr, NULL,
				   "its DAT entry points outside the segments in use");
	}
	if (fc->metadata_current ? de.de_end != NLFS_CNO_MAX :
	    !(de.de_start <= fc->cno && fc->cno < de.de_end)) {
		repair_verify_live(c, fc, level, key, ptr, &de,
				   "its DAT entry does not hold this checkpoint");
		if (map_note(w)) {
			char end[24];

			if (de.de_end == NLFS_CNO_MAX)
				snprintf(end, sizeof(end), "open");
			else
				snprintf(end, sizeof(end), "%" PRIu64, de.de_end);
			fsck_problem(c, PR_BMAP_PERIOD,
				     "%s: block map: %s %" PRIu64 " (virtual block %" PRIu64
				     ") has the DAT period [%" PRIu64 ", %s), which %s",
				     fc->what, level ? "node at key" : "file block", key, ptr,
				     de.de_start, end,
				     fc->metadata_current ? "has ended" : "does not hold this checkpoint");
		}
	}
	return 0;
}

void check_file_map(struct fsck *c, const struct nlfs_file *f, struct fsck_file_check *fc)
{
	struct map_walk w = { c, f, fc, 0, false, 0, false };
	struct nlfs_err err;
	uint8_t flags;
	int rc;

	fc->nblocks = 0;
	fc->last_data = 0;
	fc->map_ok = false;
	/* only the flags byte of a direct map's header means anything: when the
	 * kernel turns a B-tree back into a direct map it clears the B-tree bit
	 * and leaves the old root's level and child count behind */
	memcpy(&flags, f->inode.i_bmap, 1);
	if (!(flags & NLFS_BMAP_LARGE) && flags)
		fsck_problem(c, PR_BMAP_DIRECT, "%s: direct block map has unknown flags 0x%02x",
			     fc->what, flags);
	nlfs_err_clear(&err);
	rc = nlfs_bmap_iterate(c->fs, f, map_entry, &w, &err);
	if (rc < 0 || w.nproblems || w.needs_rebuild || (!(flags & NLFS_BMAP_LARGE) && flags))
		fix_note_map(c, fc->cno, f->ino, fc->what);
	if (rc < 0) {
		fsck_lib_problem(c, PR_BMAP_STRUCT, &err, "%s: block map", fc->what);
		c->maps_incomplete = true;
		return;
	}
	if (rc > 0)
		c->maps_incomplete = true;
	if (rc > 0 || w.nproblems)
		return;
	fc->map_ok = true;
	if (!nlfs_inode_blocks_ok(nlfs_le64(f->inode.i_blocks), fc->nblocks, c->g->blocksize,
				  fc->max_fs_units))
		fsck_problem(c, PR_INO_BLOCKS,
			     "%s: i_blocks %" PRIu64 ", but its map holds %" PRIu64 " blocks (%" PRIu64
			     " in 512-byte units)",
			     fc->what, nlfs_le64(f->inode.i_blocks), fc->nblocks,
			     fc->nblocks * (c->g->blocksize / 512));
	if (!nlfs_inode_blocks_ok(nlfs_le64(f->inode.i_blocks), fc->nblocks, c->g->blocksize,
				  fc->max_fs_units))
		fix_note_blocks(c, fc->cno, f->ino, fc->nblocks);
}

/* append S (N bytes) at *AT, truncated as snprintf truncates */
static void put(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	if (*at + 1 >= len)
		return;
	if (n > len - 1 - *at)
		n = len - 1 - *at;
	memcpy(buf + *at, s, n);
	*at += n;
}

static void put_u64(char *buf, size_t len, size_t *at, uint64_t v)
{
	char d[20];
	size_t n = 0;

	do {
		d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(buf, len, at, d + sizeof(d) - n, n);
}

/* built by hand, not with snprintf: every inode and directory record
 * names itself for the messages it may need, a million times a volume */
const char *cp_name(const struct fsck_cp *cp, uint64_t ino, const char *path, char *buf,
		    size_t len)
{
	size_t at = 0;

	if (!len)
		return buf;
	put(buf, len, &at, "checkpoint ", 11);
	put_u64(buf, len, &at, cp->cno);
	put(buf, len, &at, ": inode ", 8);
	put_u64(buf, len, &at, ino);
	if (path) {
		const char *p = path[0] ? path : "/";

		put(buf, len, &at, " (", 2);
		put(buf, len, &at, p, strlen(p));
		put(buf, len, &at, ")", 1);
	}
	buf[at] = 0;
	return buf;
}

/* an inode in use whose record went with a missing ifile block: it cannot
 * be kept; the repair frees it and removes the entries naming it */
static void lose_inode(struct fsck *c, struct fsck_cp *cp, uint64_t ino, uint64_t blkoff)
{
	char msg[128];

	if (ino < nlfs_le32(c->sb->s_first_ino) || ino >= cp->max_ino ||
	    fsck_bit_test(&cp->cleared, ino))
		return;
	fsck_bit_set(&cp->cleared, ino);
	cp->blocks_uncounted = true;   /* its map is lost with it */
	snprintf(msg, sizeof(msg), "checkpoint %" PRIu64 ": inode %" PRIu64
		 ": its record is lost with ifile block %" PRIu64, cp->cno, ino, blkoff);
	fix_note_clear(c, cp->cno, ino, msg);
}

int cp_read_inode(struct fsck *c, struct fsck_cp *cp, uint64_t ino, struct nlfs_file *out)
{
	uint32_t bs = c->g->blocksize;
	uint64_t blkoff;
	uint32_t byteoff;
	struct nlfs_err err;
	uint8_t *block;
	unsigned slot;

	nlfs_palloc_locate(bs, c->g->inode_size, ino, &blkoff, &byteoff);
	slot = blkoff % FSCK_ICACHE;
	block = cp->iblock + (size_t)slot * bs;
	if (blkoff != cp->iblock_off[slot]) {
		cp->iblock_off[slot] = UINT64_MAX;
		if (nlfs_file_read_block(c->fs, &cp->ifile, blkoff, block, &cp->iblock_hole[slot],
					 &err)) {
			fsck_lib_problem(c, PR_IFILE_HOLE, &err,
					 "checkpoint %" PRIu64 ": ifile block %" PRIu64 " (inode %" PRIu64 ")",
					 cp->cno, blkoff, ino);
			return -1;
		}
		cp->iblock_off[slot] = blkoff;
		if (cp->iblock_hole[slot])
			fsck_problem(c, PR_IFILE_HOLE,
				     "checkpoint %" PRIu64 ": ifile block %" PRIu64
				     " is missing but holds inodes in use (first: %" PRIu64 ")",
				     cp->cno, blkoff, ino);
	}
	if (cp->iblock_hole[slot]) {
		lose_inode(c, cp, ino, blkoff);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->cno = cp->cno;
	memcpy(&out->inode, block + byteoff, sizeof(out->inode));
	return 0;
}

/* an inode the repair clears; the root and the reserved inodes cannot be */
static void clear_inode(struct fsck *c, struct fsck_cp *cp, const struct nlfs_file *f,
			const char *what, const char *why)
{
	char msg[PATH_MAX_NAME + 128];

	if (f->ino < nlfs_le32(c->sb->s_first_ino) || f->ino >= cp->max_ino)
		return;
	fsck_bit_set(&cp->cleared, f->ino);
	snprintf(msg, sizeof(msg), "%s, %" PRIu64 " bytes: %s", what,
		 nlfs_le64(f->inode.i_size), why);
	fix_note_clear(c, cp->cno, f->ino, msg);
}

static int forget_block(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	(void)key;
	(void)level;
	fsck_vbit_clear(arg, ptr);
	return 0;
}

/* A file the repair clears after its map was walked (and found sound, so
 * no other file uses its blocks): its blocks count as used by none, as if
 * never walked, so the check finds them unused and the same repair ends
 * them. */
static void forget_map(struct fsck *c, struct fsck_cp *cp, const struct nlfs_file *f,
		       uint64_t nblocks)
{
	cp->nblocks -= nblocks;
	cp->blocks_uncounted = true;
	if (nlfs_bmap_iterate(c->fs, f, forget_block, &c->vref, NULL) < 0)
		c->maps_incomplete = true;   /* then no unused blocks are looked for */
}

/* A symbolic link's size is the length of its target, in block 0: what
 * the block holds up to its first NUL.  With no target left, it goes. */
static void mend_symlink(struct fsck *c, struct fsck_cp *cp, const struct nlfs_file *f,
			 const char *what, uint64_t nblocks)
{
	uint32_t bs = c->g->blocksize;
	uint8_t *buf = malloc(bs);
	struct nlfs_err err;
	bool hole = true;
	size_t len = 0;

	if (!buf) {
		c->op_error = true;
		return;
	}
	if (!nlfs_file_read_block(c->fs, f, 0, buf, &hole, &err) && !hole)
		len = strnlen((const char *)buf, bs - 1);
	free(buf);
	if (len) {
		fix_note_size(c, cp->cno, f->ino, len);
		return;
	}
	clear_inode(c, cp, f, what, "symbolic link with no target");
	if (fsck_bit_test(&cp->cleared, f->ino))
		forget_map(c, cp, f, nblocks);
}

bool check_inode(struct fsck *c, struct fsck_cp *cp, const struct nlfs_file *f, const char *path)
{
	uint32_t bs = c->g->blocksize;
	uint16_t mode = nlfs_le16(f->inode.i_mode);
	uint64_t size = nlfs_le64(f->inode.i_size);
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);
	struct fsck_file_check fc = { 0 };
	char what[PATH_MAX_NAME];

	if (f->ino < cp->max_ino)
		cp->links[f->ino] = nlfs_le16(f->inode.i_links_count);
	cp_name(cp, f->ino, path, what, sizeof(what));
	cp->nchecked++;
	fsck_progress(c, 6, cp->nchecked, cp->ninuse);
	switch (mode & NLFS_S_IFMT) {
	case NLFS_S_IFREG: case NLFS_S_IFDIR: case NLFS_S_IFLNK:
		break;
	case NLFS_S_IFCHR: case NLFS_S_IFBLK: case NLFS_S_IFIFO: case NLFS_S_IFSOCK:
		return true;   /* no blocks; i_bmap[0] may hold a device number */
	default:
		fsck_problem(c, PR_INO_MODE, "%s: invalid file type in mode 0%o", what, mode);
		clear_inode(c, cp, f, what, "invalid file type");
		cp->blocks_uncounted = true;   /* its map is not walked */
		return false;
	}
	if ((mode & NLFS_S_IFMT) == NLFS_S_IFDIR)
		fsck_bit_set(&cp->isdir, f->ino);
	fc.cno = cp->cno;
	fc.what = what;
	/* the root and the reserved inodes may come from mkfs.nilfs2 */
	fc.max_fs_units = f->ino < first_ino ? 4 : 0;
	check_file_map(c, f, &fc);
	cp->nblocks += fc.nblocks;
	if (!fc.map_ok)
		return false;
	if (nlfs_le16(f->inode.i_links_count) == 0)
		return true;   /* being deleted: its size may already be 0 */
	switch (mode & NLFS_S_IFMT) {
	case NLFS_S_IFREG:
		if (fc.last_data > (size + bs - 1) / bs) {
			fsck_problem(c, PR_INO_SIZE,
				     "%s: file block %" PRIu64 " lies beyond i_size %" PRIu64, what,
				     fc.last_data - 1, size);
			/* as e2fsck: the size covers the blocks */
			fix_note_size(c, cp->cno, f->ino, fc.last_data * bs);
		}
		break;
	case NLFS_S_IFDIR:
		if (size == 0 || size % bs)
			fsck_problem(c, PR_INO_SIZE,
				     "%s: directory i_size %" PRIu64 " is not a positive multiple of the block size",
				     what, size);
		else if (fc.last_data > size / bs)
			fsck_problem(c, PR_INO_SIZE,
				     "%s: directory block %" PRIu64 " lies beyond i_size %" PRIu64, what,
				     fc.last_data - 1, size);
		else if (fc.last_data < size / bs)
			fsck_problem(c, PR_INO_SIZE,
				     "%s: directory i_size %" PRIu64 " reaches past its last block (%" PRIu64 ")",
				     what, size, fc.last_data ? fc.last_data - 1 : 0);
		break;
	case NLFS_S_IFLNK:
		if (size == 0 || size >= bs) {
			fsck_problem(c, PR_INO_SIZE, "%s: symbolic link i_size %" PRIu64
				     " (must be 1..%u)", what, size, bs - 1);
			mend_symlink(c, cp, f, what, fc.nblocks);
		} else if (fc.last_data != 1 || fc.nblocks != 1) {
			fsck_problem(c, PR_INO_SIZE,
				     "%s: symbolic link of %" PRIu64 " bytes has %" PRIu64
				     " blocks (block 0 only expected)", what, size, fc.nblocks);
			if (!fc.last_data)   /* the kernel reads its target from block 0 */
				clear_inode(c, cp, f, what, "symbolic link with no target");
		}
		break;
	}
	return true;
}

static int load_ifile_groups(struct fsck *c, struct fsck_cp *cp, uint64_t ngroups)
{
	uint32_t bs = c->g->blocksize;
	uint64_t epg = (uint64_t)bs * 8;
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	struct nlfs_err err;
	int rc = 0;

	pg.desc = malloc(bs);
	pg.bitmap = malloc(bs);
	if (!pg.desc || !pg.bitmap) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint64_t grp = 0; grp < ngroups; grp++) {
		uint64_t used = 0;

		if (nlfs_palloc_read_group(c->fs, &cp->ifile, c->g->inode_size, grp, &pg, &err)) {
			fsck_lib_problem(c, PR_IFILE_DESC, &err,
					 "checkpoint %" PRIu64 ": ifile group %" PRIu64, cp->cno, grp);
			continue;
		}
		for (uint64_t r = 0; r < epg; r++) {
			if (pg.bitmap[r / 8] & (1u << (r % 8))) {
				fsck_bit_set(&cp->alloc, grp * epg + r);
				used++;
			}
		}
		if (!pg.desc_hole && pg.nfrees != epg - used)
			fsck_problem(c, PR_IFILE_DESC,
				     "checkpoint %" PRIu64 ": ifile group %" PRIu64
				     ": descriptor says %u free inodes, its bitmap %" PRIu64,
				     cp->cno, grp, pg.nfrees, epg - used);
		else if (pg.desc_hole && used)
			fsck_problem(c, PR_IFILE_DESC,
				     "checkpoint %" PRIu64 ": ifile group %" PRIu64
				     ": %" PRIu64 " inodes in use but its descriptor block is missing",
				     cp->cno, grp, used);
	}
out:
	free(pg.desc);
	free(pg.bitmap);
	return rc;
}

static void cp_free(struct fsck_cp *cp)
{
	fsck_bitmap_free(&cp->alloc);
	fsck_bitmap_free(&cp->visited);
	fsck_bitmap_free(&cp->isdir);
	fsck_bitmap_free(&cp->cleared);
	free(cp->nref);
	free(cp->links);
	free(cp->iblock);
}

/* a record never written: no type, no links, no size, no blocks */
static bool inode_is_empty(const struct nlfs_inode *i)
{
	return !i->i_mode && !i->i_links_count && !i->i_size && !i->i_blocks;
}

struct alive_find {
	struct fsck *c;
	uint64_t cno, nblocks;
};

static int block_alive(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct alive_find *a = arg;
	struct nlfs_dat_entry de;
	struct nlfs_err err;

	(void)key;
	(void)level;
	a->nblocks++;
	if (nlfs_dat_lookup(a->c->fs, ptr, &de, &err))
		return 1;   /* cannot tell: as if alive */
	return nlfs_le64(de.de_start) <= a->cno && a->cno < nlfs_le64(de.de_end);
}

/* The record a deleted file leaves (the kernel only frees its bit): no
 * links, and blocks mapped, none alive in this checkpoint.  An unlinked
 * file still open keeps its blocks alive, and one with no blocks cannot be
 * told from it: both are left to the orphan rules. */
static bool inode_is_deleted(struct fsck *c, uint64_t cno, const struct nlfs_file *f)
{
	struct alive_find a = { c, cno, 0 };
	struct nlfs_err err;
	if (f->inode.i_links_count || !nlfs_mode_has_map(nlfs_le16(f->inode.i_mode)))
		return false;   /* i_bmap may hold a device number */
	return nlfs_bmap_iterate(c->fs, f, block_alive, &a, &err) == 0 && a.nblocks;
}

/* the ifile's blocks past the groups the check takes (PR_MDT_SIZE): -y
 * drops them from the map */
static void note_ifile_far(struct fsck *c, struct fsck_cp *cp, uint64_t ngroups)
{
	uint32_t bs = c->g->blocksize;
	struct nlfs_err err;
	uint64_t *keys = NULL;
	size_t n = 0;

	if (cp->cno != c->latest_cno)
		return;
	if (nlfs_bmap_keys(c->fs, &cp->ifile, &keys, &n, &err) == 0)
		for (size_t i = 0; i < n; i++)
			if (nlfs_palloc_ngroups(bs, c->g->inode_size, keys[i]) > ngroups)
				fix_note_ifile_far(c, cp->cno, keys[i]);
	free(keys);
}

int pass_checkpoint(struct fsck *c, uint64_t cno)
{
	uint32_t bs = c->g->blocksize;
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);
	struct fsck_cp cp = { .cno = cno };
	struct fsck_file_check fc = { 0 };
	struct nlfs_checkpoint ck;
	struct nlfs_err err;
	struct nlfs_file root;
	char what[64];
	uint64_t ngroups, ninodes = 0, nempty = 0;
	int rc;

	snprintf(what, sizeof(what), "checkpoint %" PRIu64 ": ifile", cno);
	{
		char title[96];

		snprintf(title, sizeof(title), "checking inodes, block maps and directories (checkpoint %" PRIu64 ")", cno);
		fsck_pass_begin(c, 6, title);
	}
	if (cno == c->latest_cno)
		c->ndirs = 0;
	rc = nlfs_cpfile_get(c->fs, cno, &ck, &err);
	if (!rc)
		rc = nlfs_fs_ifile(c->fs, cno, &cp.ifile, &err);
	if (rc) {
		fsck_lib_problem(c, PR_CP_ENTRY, &err, "checkpoint %" PRIu64, cno);
		return rc;
	}
	fc.cno = cno;
	fc.what = what;
	fc.max_fs_units = 4;
	check_file_map(c, &cp.ifile, &fc);
	if (!fc.map_ok) {
		fsck_problem(c, PR_CP_IFILE, "checkpoint %" PRIu64 ": the ifile cannot be read; its inodes are not checked", cno);
		return 0;
	}
	ngroups = palloc_groups(c, what, c->g->inode_size, fc.last_data);
	if (fc.last_data &&
	    ngroups < nlfs_palloc_ngroups(bs, c->g->inode_size, fc.last_data - 1))
		note_ifile_far(c, &cp, ngroups);
	cp.max_ino = ngroups * (uint64_t)bs * 8;
	cp.nblocks = fc.nblocks;
	cp.iblock = malloc((size_t)FSCK_ICACHE * bs);
	for (unsigned i = 0; i < FSCK_ICACHE; i++)
		cp.iblock_off[i] = UINT64_MAX;
	cp.nref = calloc(cp.max_ino ? cp.max_ino : 1, sizeof(*cp.nref));
	cp.links = calloc(cp.max_ino ? cp.max_ino : 1, sizeof(*cp.links));
	if (!cp.iblock || !cp.nref || !cp.links || fsck_bitmap_init(&cp.alloc, cp.max_ino) ||
	    fsck_bitmap_init(&cp.visited, cp.max_ino) || fsck_bitmap_init(&cp.isdir, cp.max_ino) ||
	    fsck_bitmap_init(&cp.cleared, cp.max_ino) ||
	    load_ifile_groups(c, &cp, ngroups)) {
		fsck_problem(c, PR_IO, "checkpoint %" PRIu64 ": out of memory for %" PRIu64 " inodes",
			     cno, cp.max_ino);
		cp_free(&cp);
		return -ENOMEM;
	}
	for (uint64_t ino = 0; ino < first_ino; ino++) {
		if (!fsck_bit_test(&cp.alloc, ino))
			fsck_problem(c, PR_IFILE_RESERVED,
				     "checkpoint %" PRIu64 ": reserved inode %" PRIu64
				     " is not marked in use in the ifile bitmap", cno, ino);
	}
	for (uint64_t ino = fsck_bitmap_next(&cp.alloc, 0); ino != UINT64_MAX;
	     ino = fsck_bitmap_next(&cp.alloc, ino + 1))
		cp.ninuse++;

	/* the tree, from the root */
	/* without a root every inode in use is still checked below, as one no
	 * directory reaches; the repair makes a new root (as e2fsck does) and
	 * puts them in its lost+found */
	if (!fsck_bit_test(&cp.alloc, NLFS_ROOT_INO) || cp_read_inode(c, &cp, NLFS_ROOT_INO, &root)) {
		fsck_problem(c, PR_DIR_ROOT, "checkpoint %" PRIu64 ": the root directory (inode 2) is not in use", cno);
		fix_note_root(c, cno);
		cp.blocks_uncounted = true;
	} else if ((nlfs_le16(root.inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR ||
		   nlfs_le16(root.inode.i_links_count) == 0) {
		fsck_problem(c, PR_DIR_ROOT,
			     "checkpoint %" PRIu64 ": the root inode has mode 0%o and %u links",
			     cno, nlfs_le16(root.inode.i_mode), nlfs_le16(root.inode.i_links_count));
		fix_note_root(c, cno);
		cp.blocks_uncounted = true;
	} else {
		fsck_bit_set(&cp.visited, NLFS_ROOT_INO);
		check_inode(c, &cp, &root, "");
		walk_tree(c, &cp, NLFS_ROOT_INO, NLFS_ROOT_INO, "");
	}

	/* directories the tree did not reach, with what hangs below them */
	for (uint64_t ino = fsck_bitmap_next(&cp.alloc, first_ino); ino != UINT64_MAX && !fsck_cancelled(c);
	     ino = fsck_bitmap_next(&cp.alloc, ino + 1)) {
		struct nlfs_file f;
		char name[64];

		if (fsck_bit_test(&cp.visited, ino) || cp_read_inode(c, &cp, ino, &f))
			continue;
		if ((nlfs_le16(f.inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR)
			continue;
		/* one with no links is walked too when it goes to lost+found
		 * (below: an orphan), else what it names would go there twice */
		if (!nlfs_le16(f.inode.i_links_count) &&
		    !(cno == c->latest_cno && nlfs_le16(c->sb->s_state) & NLFS_STATE_VALID_FS))
			continue;
		fsck_problem(c, PR_INO_UNATTACHED,
			     "checkpoint %" PRIu64 ": directory inode %" PRIu64 " (%u links) is not reachable from the root",
			     cno, ino, nlfs_le16(f.inode.i_links_count));
		fix_note_detached(c, cno, ino);
		fsck_bit_set(&cp.visited, ino);
		check_inode(c, &cp, &f, NULL);
		snprintf(name, sizeof(name), "<inode %" PRIu64 ">", ino);
		walk_tree(c, &cp, ino, 0, name);
	}

	/* every inode in use: reached or not, and its link count */
	for (uint64_t ino = fsck_bitmap_next(&cp.alloc, 0); ino != UINT64_MAX && !fsck_cancelled(c);
	     ino = fsck_bitmap_next(&cp.alloc, ino + 1)) {
		struct nlfs_file f;
		char orphan[128];
		uint64_t held = UINT64_MAX;
		uint16_t links;
		char name[PATH_MAX_NAME];

		if (ino == NLFS_ROOT_INO || ino >= first_ino)
			ninodes++;
		/* 0 and the root metadata files have no inode in the ifile */
		if (ino == 0 || (ino >= NLFS_DAT_INO && ino <= NLFS_IFILE_INO))
			continue;
		if (fsck_bit_test(&cp.cleared, ino))
			continue;   /* the repair clears it */
		if (fsck_bit_test(&cp.visited, ino) && (ino == NLFS_ROOT_INO || ino >= first_ino)) {
			/* checked in the walk, which kept the link count */
			if (cp.links[ino] != cp.nref[ino]) {
				fsck_problem(c, PR_INO_LINKS,
					     "%s: i_links_count %u, but %u directory entries name it",
					     cp_name(&cp, ino, NULL, name, sizeof(name)),
					     cp.links[ino], cp.nref[ino]);
				fix_note_links(c, cno, ino, cp.nref[ino]);
			}
			continue;
		}
		if (cp_read_inode(c, &cp, ino, &f))
			continue;
		links = nlfs_le16(f.inode.i_links_count);
		if (ino != NLFS_ROOT_INO && ino < first_ino) {
			/* reserved: mkfs makes them empty regular files; the tree never names them */
			if (!fsck_bit_test(&cp.visited, ino)) {
				fsck_bit_set(&cp.visited, ino);
				check_inode(c, &cp, &f, NULL);
			}
			continue;
		}
		if (ino == NLFS_ROOT_INO)
			continue;   /* not visited: reported as PR_DIR_ROOT */
		/* in use but not visited */
		fsck_bit_set(&cp.visited, ino);
		if (inode_is_empty(&f.inode) || inode_is_deleted(c, cno, &f)) {
			/* a writer set the bit but never wrote the inode, or
			 * set it again over a deleted file's record: it is free */
			fsck_problem(c, PR_IFILE_FREE_BIT,
				     "checkpoint %" PRIu64 ": inode %" PRIu64 " is marked in use in the "
				     "ifile bitmap, but its record is %s and no directory names it",
				     cno, ino, f.inode.i_mode ? "a deleted file's" : "empty");
			fsck_bit_set(&cp.cleared, ino);
			fix_note_free_bit(c, cno, ino);
			nempty++;
			continue;
		}
		if (!nlfs_file_type_of_mode(nlfs_le16(f.inode.i_mode))) {
			check_inode(c, &cp, &f, NULL);   /* cleared: no lost+found for it */
			continue;
		}
		/* a checkpoint taken between unlink and the last close holds
		 * such inodes; only a cleanly unmounted latest state must not */
		if (links == 0 && cno == c->latest_cno &&
		    nlfs_le16(c->sb->s_state) & NLFS_STATE_VALID_FS) {
			fsck_problem(c, PR_INO_ORPHAN,
				     "checkpoint %" PRIu64 ": inode %" PRIu64
				     " has no links but is still in use (orphan, mode 0%o, %" PRIu64 " bytes): "
				     "unlinked while open at a crash, its blocks are never freed",
				     cno, ino, nlfs_le16(f.inode.i_mode), nlfs_le64(f.inode.i_size));
			/* released, as the last close would have done: its
			 * name was gone before the crash */
			snprintf(orphan, sizeof(orphan), "checkpoint %" PRIu64 ": inode %" PRIu64
				 " (orphan, %" PRIu64 " bytes)", cno, ino, nlfs_le64(f.inode.i_size));
			fix_note_clear(c, cno, ino, orphan);
			held = cp.nblocks;
		} else if (links == 0) {
			if (cno == c->latest_cno)
				c->nopen_unlinked++;
			fsck_verbose(c, "checkpoint %" PRIu64 ": inode %" PRIu64
				     " is unlinked but was still open", cno, ino);
		} else {
			fsck_problem(c, PR_INO_UNATTACHED,
				     "checkpoint %" PRIu64 ": inode %" PRIu64
				     " (mode 0%o, %u links) is in no directory",
				     cno, ino, nlfs_le16(f.inode.i_mode), links);
			fix_note_detached(c, cno, ino);
		}
		check_inode(c, &cp, &f, NULL);
		if (held != UINT64_MAX)   /* what the clearing takes out of the count */
			fix_note_clear_blocks(c, cno, ino, cp.nblocks - held);
	}
	/* the repair's clearing counts each empty record out itself */
	if (!c->maps_incomplete && !fsck_cancelled(c))
		fix_note_cp_counts(c, cno, ninodes, cp.nblocks);
	ninodes -= nempty;   /* free inodes: the checkpoint rightly leaves them out */
	if (cno == c->latest_cno)
		c->ninodes = ninodes;
	if (fsck_cancelled(c))
		goto out;
	if (nlfs_le64(ck.cp_inodes_count) != ninodes)
		fsck_problem(c, PR_CP_NINODES,
			     "checkpoint %" PRIu64 ": cp_inodes_count %" PRIu64 ", but %" PRIu64 " inodes are in use",
			     cno, nlfs_le64(ck.cp_inodes_count), ninodes);
	if (nlfs_le64(ck.cp_blocks_count) != cp.nblocks && !c->maps_incomplete &&
	    !cp.blocks_uncounted)
		fsck_problem(c, PR_CP_NBLOCKS,
			     "checkpoint %" PRIu64 ": cp_blocks_count %" PRIu64 ", but its files hold %" PRIu64 " blocks",
			     cno, nlfs_le64(ck.cp_blocks_count), cp.nblocks);
out:
	c->ncps_checked++;
	cp_free(&cp);
	return 0;
}
