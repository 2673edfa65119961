/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cp.c - one checkpoint's state as pass 6 holds it (struct fsck_cp in
 * fsck.h), shared by the whole walk (pass_checkpoint.c), the tree walk
 * (pass_dir.c), the checks of one inode (pass_inode.c) and the checks by
 * difference (cpdiff.c): its inodes read through a small cache of ifile
 * blocks, named for the messages, told free in truth, and freed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"

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

/* the slots' buffers freed, none left */
static void icache_drop(struct fsck_cp *cp)
{
	free(cp->iblock);
	free(cp->iblock_off);
	free(cp->iblock_hole);
	cp->iblock = NULL;
	cp->iblock_off = NULL;
	cp->iblock_hole = NULL;
	cp->niblocks = 0;
}

/* NSLOTS empty slots of BS bytes; 0 or -ENOMEM (the old ones kept) */
static int icache_alloc(struct fsck_cp *cp, unsigned nslots, uint32_t bs)
{
	struct fsck_cp fresh = { 0 };

	fresh.iblock = malloc((size_t)nslots * bs);
	fresh.iblock_off = malloc(nslots * sizeof(*fresh.iblock_off));
	fresh.iblock_hole = calloc(nslots, sizeof(*fresh.iblock_hole));
	if (!fresh.iblock || !fresh.iblock_off || !fresh.iblock_hole) {
		icache_drop(&fresh);
		return -ENOMEM;
	}
	icache_drop(cp);
	cp->iblock = fresh.iblock;
	cp->iblock_off = fresh.iblock_off;
	cp->iblock_hole = fresh.iblock_hole;
	cp->niblocks = nslots;
	cp_icache_reset(cp);
	return 0;
}

int cp_icache_init(struct fsck *c, struct fsck_cp *cp, uint64_t ifile_blocks)
{
	cp->ifile_blocks = ifile_blocks;
	/* without the map of blocks seen, the cache just does not grow */
	if (fsck_bitmap_init(&cp->iblock_seen, ifile_blocks))
		memset(&cp->iblock_seen, 0, sizeof(cp->iblock_seen));
	return icache_alloc(cp, FSCK_ICACHE, c->g->blocksize);
}

void cp_icache_reset(struct fsck_cp *cp)
{
	for (unsigned i = 0; i < cp->niblocks; i++)
		cp->iblock_off[i] = UINT64_MAX;
	cp_icache_next(cp);
}

void cp_icache_next(struct fsck_cp *cp)
{
	cp->ireads = cp->irereads = 0;
	fsck_bitmap_clear_all(&cp->iblock_seen);
}

bool cp_icache_take(struct fsck_cp *cp, uint64_t blkoff, uint8_t *out, uint32_t bs)
{
	unsigned slot = blkoff % cp->niblocks;

	if (cp->iblock_off[slot] != blkoff)
		return false;
	cp->iblock_off[slot] = UINT64_MAX;
	if (cp->iblock_hole[slot])
		return false;
	memcpy(out, cp->iblock + (size_t)slot * bs, bs);
	return true;
}

void cp_icache_put(struct fsck_cp *cp, uint64_t blkoff, const uint8_t *block, uint32_t bs)
{
	unsigned slot = blkoff % cp->niblocks;

	memcpy(cp->iblock + (size_t)slot * bs, block, bs);
	cp->iblock_hole[slot] = false;
	cp->iblock_off[slot] = blkoff;
}

void cp_icache_free(struct fsck_cp *cp)
{
	icache_drop(cp);
	fsck_bitmap_free(&cp->iblock_seen);
}

/* a miss at BLKOFF: when blocks read before come back (more than half
 * the cache holds, and more than a quarter of the reads so far), as many
 * slots as the ifile has blocks, at most FSCK_ICACHE_MAX.  A walk in inode
 * order (mkfs -d) never reads a block again and keeps FSCK_ICACHE; one that
 * jumps about (the kernel numbers files apart from their directories'
 * order) reads each block once after that. */
static void icache_miss(struct fsck *c, struct fsck_cp *cp, uint64_t blkoff)
{
	unsigned n = cp->niblocks;

	if (blkoff >= cp->iblock_seen.nbits || !fsck_bit_test_set(&cp->iblock_seen, blkoff))
		return;
	if (++cp->irereads <= n / 2 || cp->irereads * 4 <= cp->ireads)
		return;
	while (n < FSCK_ICACHE_MAX && n < cp->ifile_blocks)
		n *= 2;
	if (n > cp->niblocks)
		(void)icache_alloc(cp, n, c->g->blocksize);
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
	cp->ireads++;
	slot = blkoff % cp->niblocks;
	if (blkoff != cp->iblock_off[slot]) {
		icache_miss(c, cp, blkoff);
		slot = blkoff % cp->niblocks;
	}
	block = cp->iblock + (size_t)slot * bs;
	if (blkoff != cp->iblock_off[slot]) {
		cp->iblock_off[slot] = UINT64_MAX;
		if (nlfs_file_read_block(c->fs, &cp->ifile, blkoff, block, &cp->iblock_hole[slot],
					 &err)) {
			fsck_lib_problem(c, MSG_IFILE_BLOCK_READ, &err, cp->cno, blkoff, ino);
			return -1;
		}
		cp->iblock_off[slot] = blkoff;
		if (cp->iblock_hole[slot])
			fsck_problem(c, MSG_IFILE_BLOCK_MISSING, cp->cno, blkoff, ino);
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

void cp_free(struct fsck_cp *cp)
{
	free(cp->parent);
	fsck_bitmap_free(&cp->alloc);
	fsck_bitmap_free(&cp->visited);
	fsck_bitmap_free(&cp->isdir);
	fsck_bitmap_free(&cp->cleared);
	fsck_icount_free(&cp->nref);
	fsck_icount_free(&cp->links);
	cp_icache_free(cp);
}

/* a record never written: no type, no links, no size, no blocks */
bool cp_inode_is_empty(const struct nlfs_inode *i)
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
	struct nlfs_datinfo de;
	struct nlfs_err err;

	(void)key;
	(void)level;
	a->nblocks++;
	if (nlfs_dat_lookup(a->c->fs, ptr, &de, &err))
		return 1;   /* cannot tell: as if alive */
	return de.start <= a->cno && a->cno < de.end;
}

/* The record a deleted file leaves (the kernel only frees its bit): no
 * links, and blocks mapped, none alive in this checkpoint.  An unlinked
 * file still open keeps its blocks alive, and one with no blocks cannot be
 * told from it: both are left to the orphan rules. */
bool cp_inode_is_deleted(struct fsck *c, uint64_t cno, const struct nlfs_file *f)
{
	struct alive_find a = { c, cno, 0 };
	struct nlfs_err err;
	if (f->inode.i_links_count || !nlfs_mode_has_map(nlfs_le16(f->inode.i_mode)))
		return false;   /* i_bmap may hold a device number */
	return nlfs_bmap_iterate(c->fs, f, block_alive, &a, &err) == 0 && a.nblocks;
}
