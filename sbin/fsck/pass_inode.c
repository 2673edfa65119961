/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_inode.c - pass 6: the checks of one inode, shared by the tree walk
 * (pass_dir.c), the whole walk of a checkpoint (pass_checkpoint.c) and the
 * checks by difference.
 *
 * check_inode() checks an inode's file type, its block map (check_map.c)
 * and its size against its blocks.  An inode that cannot be kept is
 * marked for the repair to clear.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"

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
		cp->diff->note_version(cp->diff_arg, f->ino, fc.max_start, fc.min_end);
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
