/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_inode.c - pass 6: the checks of one inode, shared by the tree walk
 * (pass_dir.c) and the checkpoint driver (pass_checkpoint.c).
 *
 * check_inode() checks an inode's file type, its block map (check_map.c)
 * and its size against its blocks; cp_read_inode() reads a record of the
 * checkpoint's ifile through a small cache of ifile blocks; cp_name() names
 * an inode for the messages.  An inode that cannot be kept is marked for
 * the repair to clear.
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
	cp->ireads = cp->irereads = 0;
	fsck_bitmap_clear_all(&cp->iblock_seen);
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
	char name[PATH_MAX_NAME];
	struct fsck_file_check fc = { .cp = cp, .ino = f->ino, .path = path, .namebuf = name };
	/* built only for a message: the inodes are many */
#define WHAT fsck_file_what(&fc)

	name[0] = 0;
	fsck_icount_set(&cp->links, f->ino, nlfs_le16(f->inode.i_links_count));
	cp->nchecked++;
	fsck_progress(c, 6, cp->nchecked, cp->ninuse);
	switch (mode & NLFS_S_IFMT) {
	case NLFS_S_IFREG: case NLFS_S_IFDIR: case NLFS_S_IFLNK:
		break;
	case NLFS_S_IFCHR: case NLFS_S_IFBLK: case NLFS_S_IFIFO: case NLFS_S_IFSOCK:
		return true;   /* no blocks; i_bmap[0] may hold a device number */
	default:
		fsck_problem(c, MSG_INO_FILE_TYPE, WHAT, mode);
		clear_inode(c, cp, f, WHAT, "invalid file type");
		cp->blocks_uncounted = true;   /* its map is not walked */
		return false;
	}
	if ((mode & NLFS_S_IFMT) == NLFS_S_IFDIR)
		fsck_bit_set(&cp->isdir, f->ino);
	fc.cno = cp->cno;
	/* the root and the reserved inodes may come from mkfs.nilfs2 */
	fc.max_fs_units = f->ino < first_ino ? 4 : 0;
	check_file_map(c, f, &fc);
	cp->nblocks += fc.nblocks;
	if (cp->diff)
		cpdiff_note_version(cp->diff, f->ino, fc.max_start, fc.min_end);
	if (!fc.map_ok)
		return false;
	if (nlfs_le16(f->inode.i_links_count) == 0)
		return true;   /* being deleted: its size may already be 0 */
	switch (mode & NLFS_S_IFMT) {
	case NLFS_S_IFREG:
		if (size > NLFS_MAX_FILE_SIZE) {
			fsck_problem(c, MSG_FILE_SIZE_MAX, WHAT, size, NLFS_MAX_FILE_SIZE);
			/* the blocks are all that is known of its length */
			fix_note_size(c, cp->cno, f->ino, fc.last_data * bs);
		} else if (fc.last_data > (size + bs - 1) / bs) {
			fsck_problem(c, MSG_FILE_PAST_SIZE, WHAT, fc.last_data - 1, size);
			/* as e2fsck: the size covers the blocks */
			fix_note_size(c, cp->cno, f->ino, fc.last_data * bs);
		}
		break;
	case NLFS_S_IFDIR:
		if (size == 0 || size % bs)
			fsck_problem(c, MSG_DIR_SIZE_UNALIGNED, WHAT, size);
		else if (fc.last_data > size / bs)
			fsck_problem(c, MSG_DIR_PAST_SIZE, WHAT, fc.last_data - 1, size);
		else if (fc.last_data < size / bs)
			fsck_problem(c, MSG_DIR_SIZE_PAST_BLOCKS, WHAT, size,
				     fc.last_data ? fc.last_data - 1 : 0);
		break;
	case NLFS_S_IFLNK:
		if (size == 0 || size >= bs) {
			fsck_problem(c, MSG_SYMLINK_SIZE, WHAT, size, bs - 1);
			mend_symlink(c, cp, f, WHAT, fc.nblocks);
		} else if (fc.last_data != 1 || fc.nblocks != 1) {
			fsck_problem(c, MSG_SYMLINK_BLOCKS, WHAT, size, fc.nblocks);
			if (!fc.last_data)   /* the kernel reads its target from block 0 */
				clear_inode(c, cp, f, WHAT, "symbolic link with no target");
		}
		break;
	}
	return true;
#undef WHAT
}
