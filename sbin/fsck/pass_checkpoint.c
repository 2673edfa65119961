/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_checkpoint.c - pass 6: the inodes, block maps and directories of
 * each checkpoint chosen.
 *
 * pass_checkpoints() takes the checkpoints in turn: the first (the latest)
 * walked whole, each next one by difference with the one before when that
 * was found clean (cpdiff.c), else whole again.  The whole walk checks the
 * ifile (group descriptors against bitmaps, reserved inodes), hands the
 * tree to pass_dir.c, then takes every inode in use that the tree did not
 * reach (orphans, detached subtrees), compares link counts with the
 * directory records counted, and the checkpoint's inode and block
 * counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>
#include "fsck.h"
#include "cpdiff.h"

/* one checkpoint walked whole */
struct whole {
	struct fsck *c;
	struct fsck_cp cp;
	struct nlfs_cpinfo ck;
	struct fsck_file_check fc;     /* of its ifile */
	char what[64];                 /* "checkpoint N: ifile" */
	uint32_t first_ino;
	uint64_t ngroups, ninodes, nempty;
};

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
		/* a word at a time: most bits are clear, and all of them in the
		 * empty groups of a damaged ifile that reaches far (the check
		 * takes up to thousands of groups, palloc_groups()) */
		for (uint64_t w = 0; w < epg / 64; w++) {
			for (uint64_t x = nlfs_get_le64(pg.bitmap + w * 8); x; x &= x - 1) {
				fsck_bit_set(&cp->alloc, grp * epg + w * 64 + (uint64_t)__builtin_ctzll(x));
				used++;
			}
		}
		if (nlfs_palloc_group_nfree(&pg, epg) == epg - used)
			continue;
		if (pg.desc_hole)
			fsck_problem(c, MSG_IFILE_DESC_MISSING, cp->cno, grp, used);
		else
			fsck_problem(c, MSG_IFILE_DESC_NFREES, cp->cno, grp, pg.nfrees, epg - used);
	}
out:
	free(pg.desc);
	free(pg.bitmap);
	return rc;
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

/* the ifile's blocks the check may read: up to the block of inode
 * MAX_INO - 1, the last the groups checked hold (a damaged map can name a
 * block far past those, and the map of blocks seen is sized by this) */
static uint64_t ifile_blocks_checked(const struct fsck *c, uint64_t max_ino, uint64_t last_data)
{
	uint64_t last;
	uint32_t byteoff;

	if (!max_ino)
		return 0;
	nlfs_palloc_locate(c->g->blocksize, c->g->inode_size, max_ino - 1, &last, &byteoff);
	return last_data < last + 1 ? last_data : last + 1;
}

/* the header, the checkpoint and its ifile read, its map checked, the
 * maps of its inodes made and the ifile's bitmaps loaded: 0 to go on, 1 if
 * the ifile cannot be walked (reported), or a negative error */
static int open_checkpoint(struct whole *w, uint64_t cno, bool header_done)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = &w->cp;
	uint32_t bs = c->g->blocksize;
	struct nlfs_err err;
	int rc;

	snprintf(w->what, sizeof(w->what), "checkpoint %" PRIu64 ": ifile", cno);
	if (!header_done) {
		char title[96];

		snprintf(title, sizeof(title), "checking inodes, block maps and directories (checkpoint %" PRIu64 ")", cno);
		fsck_pass_begin(c, 6, title);
	}
	if (cno == c->latest_cno)
		c->ndirs = 0;
	rc = nlfs_cpfile_info(c->fs, cno, &w->ck, &err);
	if (!rc)
		rc = nlfs_fs_ifile(c->fs, cno, &cp->ifile, &err);
	if (rc) {
		fsck_lib_problem(c, MSG_CP_READ, &err, cno);
		return rc;
	}
	w->fc.cno = cno;
	w->fc.what = w->what;
	w->fc.max_fs_units = 4;
	check_file_map(c, &cp->ifile, &w->fc);
	if (!w->fc.map_ok) {
		fsck_problem(c, MSG_CP_IFILE_UNREADABLE, cno);
		return 1;
	}
	w->ngroups = palloc_groups(c, w->what, c->g->inode_size, w->fc.last_data);
	if (w->fc.last_data &&
	    w->ngroups < nlfs_palloc_ngroups(bs, c->g->inode_size, w->fc.last_data - 1))
		note_ifile_far(c, cp, w->ngroups);
	cp->max_ino = w->ngroups * (uint64_t)bs * 8;
	cp->nblocks = w->fc.nblocks;
	if (cp_icache_init(c, cp, ifile_blocks_checked(c, cp->max_ino, w->fc.last_data)) ||
	    fsck_icount_init(&cp->nref, cp->max_ino) ||
	    fsck_icount_init(&cp->links, cp->max_ino) || fsck_bitmap_init(&cp->alloc, cp->max_ino) ||
	    fsck_bitmap_init(&cp->visited, cp->max_ino) || fsck_bitmap_init(&cp->isdir, cp->max_ino) ||
	    fsck_bitmap_init(&cp->cleared, cp->max_ino) ||
	    (cp->diff && !(cp->parent = calloc(cp->max_ino ? cp->max_ino : 1, sizeof(*cp->parent)))) ||
	    load_ifile_groups(c, cp, w->ngroups)) {
		fsck_problem(c, MSG_OOM_INODES, cno, cp->max_ino);
		cp_free(cp);
		return -ENOMEM;
	}
	return 0;
}

/* the tree, from the root */
static void walk_from_root(struct whole *w)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = &w->cp;
	uint64_t cno = cp->cno;
	struct nlfs_file root;

	for (uint64_t ino = 0; ino < w->first_ino; ino++) {
		if (!fsck_bit_test(&cp->alloc, ino))
			fsck_problem(c, MSG_IFILE_RESERVED_FREE, cno, ino);
	}
	for (uint64_t ino = fsck_bitmap_next(&cp->alloc, 0); ino != UINT64_MAX;
	     ino = fsck_bitmap_next(&cp->alloc, ino + 1))
		cp->ninuse++;

	/* without a root every inode in use is still checked below, as one no
	 * directory reaches; the repair makes a new root (as e2fsck does) and
	 * puts them in its lost+found */
	if (!fsck_bit_test(&cp->alloc, NLFS_ROOT_INO) || cp_read_inode(c, cp, NLFS_ROOT_INO, &root)) {
		fsck_problem(c, MSG_ROOT_FREE, cno);
		fix_note_root(c, cno);
		cp->blocks_uncounted = true;
	} else if ((nlfs_le16(root.inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR ||
		   nlfs_le16(root.inode.i_links_count) == 0) {
		fsck_problem(c, MSG_ROOT_MODE, cno, nlfs_le16(root.inode.i_mode),
			     nlfs_le16(root.inode.i_links_count));
		fix_note_root(c, cno);
		cp->blocks_uncounted = true;
	} else {
		fsck_bit_set(&cp->visited, NLFS_ROOT_INO);
		if (cp->parent)
			cp->parent[NLFS_ROOT_INO] = NLFS_ROOT_INO;
		check_inode(c, cp, &root, "");
		walk_tree(c, cp, NLFS_ROOT_INO, NLFS_ROOT_INO, "");
	}
}

static int name_not_dots(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	(void)ino;
	(void)type;
	(void)arg;
	return !nlfs_dir_name_is_dots(name, len);
}

/* a directory whose records, up to its size, name only itself and its
 * parent (rmdir sets size 0; a rename over an empty directory keeps it) */
static bool dir_names_nothing(struct fsck *c, const struct nlfs_file *f)
{
	struct nlfs_err err;

	return nlfs_dir_iterate(c->fs, f, name_not_dots, NULL, &err) == 0;
}

/* directories the tree did not reach, with what hangs below them */
static void walk_unreached_dirs(struct whole *w)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = &w->cp;
	uint64_t cno = cp->cno;

	for (uint64_t ino = fsck_bitmap_next(&cp->alloc, w->first_ino);
	     ino != UINT64_MAX && !fsck_cancelled(c); ino = fsck_bitmap_next(&cp->alloc, ino + 1)) {
		struct nlfs_file f;
		char name[64];

		if (fsck_bit_test(&cp->visited, ino) || cp_read_inode(c, cp, ino, &f))
			continue;
		if ((nlfs_le16(f.inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR)
			continue;
		/* one with no links is walked too when it goes to lost+found
		 * (below: an orphan), else what it names would go there twice;
		 * but one that names nothing (the kernel's rmdir, or a rename
		 * over it, held open at a crash) is an orphan like a file */
		if (!nlfs_le16(f.inode.i_links_count) &&
		    (!(cno == c->latest_cno && nlfs_le16(c->sb->s_state) & NLFS_STATE_VALID_FS) ||
		     dir_names_nothing(c, &f)))
			continue;
		fsck_problem(c, MSG_DIR_UNREACHABLE, cno, ino, nlfs_le16(f.inode.i_links_count));
		fix_note_detached(c, cno, ino);
		fsck_bit_set(&cp->visited, ino);
		check_inode(c, cp, &f, NULL);
		snprintf(name, sizeof(name), "<inode %" PRIu64 ">", ino);
		walk_tree(c, cp, ino, 0, name);
	}
}

/* an inode in use no directory reached (not the root, not reserved) */
static void check_unreached(struct whole *w, const struct nlfs_file *f)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = &w->cp;
	uint64_t cno = cp->cno, ino = f->ino;
	uint16_t links = nlfs_le16(f->inode.i_links_count);
	uint64_t held = UINT64_MAX;
	char orphan[128];

	fsck_bit_set(&cp->visited, ino);
	if (cp_inode_is_empty(&f->inode) || cp_inode_is_deleted(c, cno, f)) {
		/* a writer set the bit but never wrote the inode, or
		 * set it again over a deleted file's record: it is free */
		fsck_problem(c, MSG_IFILE_BIT_EMPTY_RECORD, cno, ino,
			     f->inode.i_mode ? "a deleted file's" : "empty");
		fsck_bit_set(&cp->cleared, ino);
		fix_note_free_bit(c, cno, ino);
		w->nempty++;
		return;
	}
	if (!nlfs_file_type_of_mode(nlfs_le16(f->inode.i_mode))) {
		check_inode(c, cp, f, NULL);   /* cleared: no lost+found for it */
		return;
	}
	/* a checkpoint taken between unlink and the last close holds
	 * such inodes; only a cleanly unmounted latest state must not */
	if (links == 0 && cno == c->latest_cno &&
	    nlfs_le16(c->sb->s_state) & NLFS_STATE_VALID_FS) {
		fsck_problem(c, MSG_INO_ORPHAN, cno, ino, nlfs_le16(f->inode.i_mode),
			     nlfs_le64(f->inode.i_size));
		/* released, as the last close would have done: its
		 * name was gone before the crash */
		snprintf(orphan, sizeof(orphan), "checkpoint %" PRIu64 ": inode %" PRIu64
			 " (orphan, %" PRIu64 " bytes)", cno, ino, nlfs_le64(f->inode.i_size));
		fix_note_orphan(c, cno, f, orphan);
		held = cp->nblocks;
	} else if (links == 0) {
		if (cno == c->latest_cno)
			c->nopen_unlinked++;
		fsck_verbose(c, "checkpoint %" PRIu64 ": inode %" PRIu64
			     " is unlinked but was still open", cno, ino);
	} else {
		fsck_problem(c, MSG_INO_IN_NO_DIR, cno, ino, nlfs_le16(f->inode.i_mode),
			     links);
		fix_note_detached(c, cno, ino);
	}
	check_inode(c, cp, f, NULL);
	if (held != UINT64_MAX)   /* what the clearing takes out of the count */
		fix_note_clear_blocks(c, cno, ino, cp->nblocks - held);
}

/* one inode in use: reached or not, and its link count */
static void check_inuse(struct whole *w, uint64_t ino)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = &w->cp;
	struct nlfs_file f;
	char name[PATH_MAX_NAME];

	if (ino == NLFS_ROOT_INO || ino >= w->first_ino)
		w->ninodes++;
	/* 0 and the root metadata files have no inode in the ifile */
	if (ino == 0 || (ino >= NLFS_DAT_INO && ino <= NLFS_IFILE_INO))
		return;
	if (fsck_bit_test(&cp->cleared, ino))
		return;   /* the repair clears it */
	if (fsck_bit_test(&cp->visited, ino) && (ino == NLFS_ROOT_INO || ino >= w->first_ino)) {
		/* checked in the walk, which kept the link count */
		uint32_t has = fsck_icount_get(&cp->links, ino);
		uint32_t named = fsck_icount_get(&cp->nref, ino);

		if (has != named) {
			fsck_problem(c, MSG_INO_LINKS,
				     cp_name(cp, ino, NULL, name, sizeof(name)), has, named);
			fix_note_links(c, cp->cno, ino, named);
		}
		return;
	}
	if (cp_read_inode(c, cp, ino, &f))
		return;
	if (ino != NLFS_ROOT_INO && ino < w->first_ino) {
		/* reserved: mkfs makes them empty regular files; the tree never names them */
		if (!fsck_bit_test(&cp->visited, ino)) {
			fsck_bit_set(&cp->visited, ino);
			check_inode(c, cp, &f, NULL);
		}
		return;
	}
	if (ino == NLFS_ROOT_INO)
		return;   /* not visited: reported as PR_DIR_ROOT */
	check_unreached(w, &f);
}

/* the checkpoint's inode and block counters against what was counted */
static void check_counts(struct whole *w)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = &w->cp;
	uint64_t cno = cp->cno;

	/* the repair's clearing counts each empty record out itself */
	if (!c->maps_incomplete && !fsck_cancelled(c))
		fix_note_cp_counts(c, cno, w->ninodes, cp->nblocks);
	w->ninodes -= w->nempty;   /* free inodes: the checkpoint rightly leaves them out */
	if (cno == c->latest_cno)
		c->ninodes = w->ninodes;
	if (fsck_cancelled(c))
		return;
	if (w->ck.inodes_count != w->ninodes)
		fsck_problem(c, MSG_CP_NINODES, cno, w->ck.inodes_count, w->ninodes);
	if (w->ck.blocks_count != cp->nblocks && !c->maps_incomplete &&
	    !cp->blocks_uncounted)
		fsck_problem(c, MSG_CP_NBLOCKS, cno, w->ck.blocks_count, cp->nblocks);
}

/* one checkpoint walked whole; with D, what it finds is handed to D for
 * the next checkpoint when it finds nothing wrong */
static int walk_whole(struct fsck *c, uint64_t cno, struct cpdiff *d, bool header_done)
{
	uint64_t reported = c->nreported;
	struct whole w = { .c = c, .first_ino = nlfs_le32(c->sb->s_first_ino) };
	struct fsck_cp *cp = &w.cp;
	int rc;

	cp->cno = cno;
	cp->diff = d ? &cpdiff_hooks : NULL;
	cp->diff_arg = d;
	rc = open_checkpoint(&w, cno, header_done);
	if (rc)
		return rc < 0 ? rc : 0;
	walk_from_root(&w);
	walk_unreached_dirs(&w);
	/* a count the walk could not keep: no link count can be judged */
	if (cp->nref.nomem || cp->links.nomem) {
		fsck_problem(c, MSG_OOM_INODES, cno, cp->max_ino);
		cp_free(cp);
		return -ENOMEM;
	}
	for (uint64_t ino = fsck_bitmap_next(&cp->alloc, 0); ino != UINT64_MAX && !fsck_cancelled(c);
	     ino = fsck_bitmap_next(&cp->alloc, ino + 1))
		check_inuse(&w, ino);
	check_counts(&w);
	c->ncps_checked++;
	/* found clean: the next checkpoint is checked by difference with it */
	if (d && c->nreported == reported && !c->maps_incomplete && !cp->blocks_uncounted &&
	    !w.nempty && !fsck_cancelled(c) &&
	    cpdiff_adopt(c, d, cp, w.ninodes, w.fc.nblocks, w.ngroups))
		return 0;
	cp_free(cp);
	return 0;
}

int pass_checkpoints(struct fsck *c, const uint64_t *cnos, uint64_t ncnos,
		     void (*after_latest)(struct fsck *c))
{
	struct cpdiff *d = NULL;
	uint64_t ndiff = 0;

	if (cpdiff_new(c, cnos, ncnos, &d))
		fsck_problem(c, MSG_OOM_VIRTUAL_SETS);
	for (uint64_t i = 0; i < ncnos && !fsck_cancelled(c); i++) {
		bool header_done = false;

		if (d)
			cpdiff_step(d, i);
		if (d && cpdiff_kept(d)) {
			char title[96];

			snprintf(title, sizeof(title),
				 "checking inodes, block maps and directories (checkpoint %" PRIu64 ")",
				 cnos[i]);
			fsck_pass_begin(c, 6, title);
			header_done = true;
			if (cpdiff_try(d)) {
				ndiff++;
				continue;
			}
		}
		if (i > 0) {
			fsck_vbitmap_clear_all(&c->vref);
			c->maps_incomplete = false;
		}
		walk_whole(c, cnos[i], d, header_done);
		if (d)
			cpdiff_walked(d);
		if (i == 0 && !fsck_cancelled(c))
			after_latest(c);
	}
	if (ncnos > 1)
		fsck_verbose(c, "%" PRIu64 " of %" PRIu64 " checkpoints checked by difference with "
			     "the one before", ndiff, ncnos);
	cpdiff_free(d);
	return 0;
}
