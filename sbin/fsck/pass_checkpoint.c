/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_checkpoint.c - pass 6: the inodes, block maps and directories of
 * one checkpoint.
 *
 * pass_checkpoint() checks the ifile (group descriptors against bitmaps,
 * reserved inodes), hands the tree to pass_dir.c, then takes every inode
 * in use that the tree did not reach (orphans, detached subtrees), compares
 * link counts with the directory records counted, and the checkpoint's
 * inode and block counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>
#include "fsck.h"

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
			fsck_lib_problem(c, MSG_IFILE_GROUP_READ, &err, cp->cno, grp);
			continue;
		}
		for (uint64_t r = 0; r < epg; r++) {
			if (pg.bitmap[r / 8] & (1u << (r % 8))) {
				fsck_bit_set(&cp->alloc, grp * epg + r);
				used++;
			}
		}
		if (!pg.desc_hole && pg.nfrees != epg - used)
			fsck_problem(c, MSG_IFILE_DESC_NFREES, cp->cno, grp, pg.nfrees, epg - used);
		else if (pg.desc_hole && used)
			fsck_problem(c, MSG_IFILE_DESC_MISSING, cp->cno, grp, used);
	}
out:
	free(pg.desc);
	free(pg.bitmap);
	return rc;
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

int pass_checkpoint_walk(struct fsck *c, uint64_t cno, struct cpdiff *d)
{
	uint64_t reported = c->nreported;
	uint32_t bs = c->g->blocksize;
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);
	struct fsck_cp cp = { .cno = cno, .diff = d };
	struct fsck_file_check fc = { 0 };
	struct nlfs_cpinfo ck;
	struct nlfs_err err;
	struct nlfs_file root;
	char what[64];
	uint64_t ngroups, ninodes = 0, nempty = 0;
	int rc;

	snprintf(what, sizeof(what), "checkpoint %" PRIu64 ": ifile", cno);
	{
		char title[96];

		snprintf(title, sizeof(title), "checking inodes, block maps and directories (checkpoint %" PRIu64 ")", cno);
		if (!d || !cpdiff_header_done(d))
			fsck_pass_begin(c, 6, title);
	}
	if (cno == c->latest_cno)
		c->ndirs = 0;
	rc = nlfs_cpfile_info(c->fs, cno, &ck, &err);
	if (!rc)
		rc = nlfs_fs_ifile(c->fs, cno, &cp.ifile, &err);
	if (rc) {
		fsck_lib_problem(c, MSG_CP_READ, &err, cno);
		return rc;
	}
	fc.cno = cno;
	fc.what = what;
	fc.max_fs_units = 4;
	check_file_map(c, &cp.ifile, &fc);
	if (!fc.map_ok) {
		fsck_problem(c, MSG_CP_IFILE_UNREADABLE, cno);
		return 0;
	}
	ngroups = palloc_groups(c, what, c->g->inode_size, fc.last_data);
	if (fc.last_data &&
	    ngroups < nlfs_palloc_ngroups(bs, c->g->inode_size, fc.last_data - 1))
		note_ifile_far(c, &cp, ngroups);
	cp.max_ino = ngroups * (uint64_t)bs * 8;
	cp.nblocks = fc.nblocks;
	if (cp_icache_init(c, &cp, fc.last_data) || fsck_icount_init(&cp.nref, cp.max_ino) ||
	    fsck_icount_init(&cp.links, cp.max_ino) || fsck_bitmap_init(&cp.alloc, cp.max_ino) ||
	    fsck_bitmap_init(&cp.visited, cp.max_ino) || fsck_bitmap_init(&cp.isdir, cp.max_ino) ||
	    fsck_bitmap_init(&cp.cleared, cp.max_ino) ||
	    (d && !(cp.parent = calloc(cp.max_ino ? cp.max_ino : 1, sizeof(*cp.parent)))) ||
	    load_ifile_groups(c, &cp, ngroups)) {
		fsck_problem(c, MSG_OOM_INODES, cno, cp.max_ino);
		cp_free(&cp);
		return -ENOMEM;
	}
	for (uint64_t ino = 0; ino < first_ino; ino++) {
		if (!fsck_bit_test(&cp.alloc, ino))
			fsck_problem(c, MSG_IFILE_RESERVED_FREE, cno, ino);
	}
	for (uint64_t ino = fsck_bitmap_next(&cp.alloc, 0); ino != UINT64_MAX;
	     ino = fsck_bitmap_next(&cp.alloc, ino + 1))
		cp.ninuse++;

	/* the tree, from the root */
	/* without a root every inode in use is still checked below, as one no
	 * directory reaches; the repair makes a new root (as e2fsck does) and
	 * puts them in its lost+found */
	if (!fsck_bit_test(&cp.alloc, NLFS_ROOT_INO) || cp_read_inode(c, &cp, NLFS_ROOT_INO, &root)) {
		fsck_problem(c, MSG_ROOT_FREE, cno);
		fix_note_root(c, cno);
		cp.blocks_uncounted = true;
	} else if ((nlfs_le16(root.inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR ||
		   nlfs_le16(root.inode.i_links_count) == 0) {
		fsck_problem(c, MSG_ROOT_MODE, cno, nlfs_le16(root.inode.i_mode),
			     nlfs_le16(root.inode.i_links_count));
		fix_note_root(c, cno);
		cp.blocks_uncounted = true;
	} else {
		fsck_bit_set(&cp.visited, NLFS_ROOT_INO);
		if (cp.parent)
			cp.parent[NLFS_ROOT_INO] = NLFS_ROOT_INO;
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
		fsck_problem(c, MSG_DIR_UNREACHABLE, cno, ino, nlfs_le16(f.inode.i_links_count));
		fix_note_detached(c, cno, ino);
		fsck_bit_set(&cp.visited, ino);
		check_inode(c, &cp, &f, NULL);
		snprintf(name, sizeof(name), "<inode %" PRIu64 ">", ino);
		walk_tree(c, &cp, ino, 0, name);
	}

	/* a count the walk could not keep: no link count can be judged */
	if (cp.nref.nomem || cp.links.nomem) {
		fsck_problem(c, MSG_OOM_INODES, cno, cp.max_ino);
		cp_free(&cp);
		return -ENOMEM;
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
			uint32_t has = fsck_icount_get(&cp.links, ino);
			uint32_t named = fsck_icount_get(&cp.nref, ino);

			if (has != named) {
				fsck_problem(c, MSG_INO_LINKS,
					     cp_name(&cp, ino, NULL, name, sizeof(name)), has, named);
				fix_note_links(c, cno, ino, named);
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
		if (cp_inode_is_empty(&f.inode) || cp_inode_is_deleted(c, cno, &f)) {
			/* a writer set the bit but never wrote the inode, or
			 * set it again over a deleted file's record: it is free */
			fsck_problem(c, MSG_IFILE_BIT_EMPTY_RECORD, cno, ino,
				     f.inode.i_mode ? "a deleted file's" : "empty");
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
			fsck_problem(c, MSG_INO_ORPHAN, cno, ino, nlfs_le16(f.inode.i_mode),
				     nlfs_le64(f.inode.i_size));
			/* released, as the last close would have done: its
			 * name was gone before the crash */
			snprintf(orphan, sizeof(orphan), "checkpoint %" PRIu64 ": inode %" PRIu64
				 " (orphan, %" PRIu64 " bytes)", cno, ino, nlfs_le64(f.inode.i_size));
			fix_note_orphan(c, cno, ino, orphan);
			held = cp.nblocks;
		} else if (links == 0) {
			if (cno == c->latest_cno)
				c->nopen_unlinked++;
			fsck_verbose(c, "checkpoint %" PRIu64 ": inode %" PRIu64
				     " is unlinked but was still open", cno, ino);
		} else {
			fsck_problem(c, MSG_INO_IN_NO_DIR, cno, ino, nlfs_le16(f.inode.i_mode),
				     links);
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
	if (ck.inodes_count != ninodes)
		fsck_problem(c, MSG_CP_NINODES, cno, ck.inodes_count, ninodes);
	if (ck.blocks_count != cp.nblocks && !c->maps_incomplete &&
	    !cp.blocks_uncounted)
		fsck_problem(c, MSG_CP_NBLOCKS, cno, ck.blocks_count, cp.nblocks);
out:
	c->ncps_checked++;
	/* found clean: the next checkpoint is checked by difference with it */
	if (d && c->nreported == reported && !c->maps_incomplete && !cp.blocks_uncounted &&
	    !nempty && !fsck_cancelled(c) && cpdiff_adopt(c, d, &cp, ninodes, fc.nblocks, ngroups))
		return 0;
	cp_free(&cp);
	return 0;
}
