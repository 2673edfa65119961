/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair.c - the repairs made through the library's writer: one
 * construction, one new checkpoint, so a crash at any write leaves the
 * volume as the check found it or as repaired.
 *
 * What is repaired comes from two places: the problem counts (counters
 * are recomputed from what they count, whatever the check printed) and
 * the passes' notes (which inode needs which link count, which directory
 * entry is wrong, which inodes no directory reaches).  Inodes nothing
 * reaches are linked into /lost+found as "#INO", made if it is missing,
 * as e2fsck does; nothing a user stored is dropped.  Directory entries
 * naming a free inode are the one thing removed: they name nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>
#include "fsck.h"

#define LOST_FOUND "lost+found"

/* one directory to rewrite: entries dropped or retyped, entries added */
struct dir_add {
	char name[32];
	uint64_t ino;
	uint8_t type;
};

struct dir_edit {
	uint64_t ino;
	uint64_t parent;          /* 0: keep what '..' says */
	int link_delta;           /* subdirectories added */
	bool fresh;               /* made by the repair: nothing on disk yet */
	struct nlfs_inode fresh_inode;
	struct dir_add *adds;
	size_t nadds, capadds;
};

struct repair {
	struct fsck *c;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_file ifile;   /* of the latest checkpoint, as on disk */
	struct nlfs_err err;
	uint64_t now;
	struct dir_edit *edits;
	size_t nedits, capedits;
	uint64_t nfixes;
	bool attached;            /* the detached inodes went to lost+found */
	uint64_t *revived;        /* inodes named by entries, marked in use again */
	size_t nrevived, caprevived;
};

static bool found(const struct fsck *c, enum fsck_pr code)
{
	return c->pr_count[code] != 0;
}

static int lib_failed(struct repair *r, int rc, const char *what)
{
	char msg[512];

	nlfs_err_format(&r->err, msg, sizeof(msg));
	fprintf(stderr, "%s: %s: repair failed while %s: %s\n", FSCK_PROG, r->c->o.device, what,
		r->err.code ? msg : nlfs_strerror(rc));
	return rc;
}

static void done(struct repair *r, uint64_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void done(struct repair *r, uint64_t n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!n)
		return;
	r->nfixes += n;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fsck_info(r->c, "repair: %s", msg);
}

/* ---- counters ---- */

/* Did some block map or directory fail to be walked?  Then "unused" DAT
 * entries may be the blocks those maps lost, and stay. */
static bool maps_damaged(const struct fsck *c)
{
	static const enum fsck_pr codes[] = {
		PR_BMAP_STRUCT, PR_BMAP_ORDER, PR_BMAP_VBLOCK, PR_BMAP_PERIOD, PR_BMAP_SHARED,
		PR_IFILE_HOLE, PR_CP_IFILE, PR_DIR_ROOT, PR_DIR_RECORD, PR_DIR_HOLE, PR_MDT_INODE,
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (found(c, codes[i]))
			return true;
	return false;
}

static int fix_counters(struct repair *r)
{
	struct fsck *c = r->c;
	uint64_t n = 0;
	int rc;

	if (found(c, PR_SU_NCLEAN) || found(c, PR_SU_NDIRTY) || found(c, PR_SU_LAST_ALLOC) ||
	    found(c, PR_SU_CLEAN)) {
		rc = nlfs_writer_fix_sufile(r->w, &n, &r->err);
		if (rc)
			return lib_failed(r, rc, "recounting the sufile");
		done(r, n, "sufile: %" PRIu64 " field(s) recounted from the segment usage entries", n);
	}
	if (found(c, PR_CP_NCHECKPOINTS) || found(c, PR_CP_NSNAPSHOTS) || found(c, PR_CP_BLKCOUNT)) {
		n = 0;
		rc = nlfs_writer_fix_cpfile(r->w, &n, &r->err);
		if (rc)
			return lib_failed(r, rc, "recounting the cpfile");
		done(r, n, "cpfile: %" PRIu64 " count(s) recounted from the checkpoint entries", n);
	}
	if (found(c, PR_DAT_DESC)) {
		n = 0;
		rc = nlfs_writer_fix_palloc(r->w, NLFS_DAT_INO, &n, &r->err);
		if (rc)
			return lib_failed(r, rc, "recounting the DAT's group descriptors");
		done(r, n, "DAT: %" PRIu64 " group descriptor(s) recounted from the bitmaps", n);
	}
	if (found(c, PR_IFILE_RESERVED)) {
		n = 0;
		rc = nlfs_writer_fix_reserved_inodes(r->w, &n, &r->err);
		if (rc)
			return lib_failed(r, rc, "marking the reserved inodes");
		done(r, n, "ifile: %" PRIu64 " reserved inode(s) marked in use", n);
	}
	if (found(c, PR_IFILE_DESC) || found(c, PR_IFILE_RESERVED)) {
		n = 0;
		rc = nlfs_writer_fix_palloc(r->w, NLFS_IFILE_INO, &n, &r->err);
		if (rc)
			return lib_failed(r, rc, "recounting the ifile's group descriptors");
		done(r, n, "ifile: %" PRIu64 " group descriptor(s) recounted from the bitmaps", n);
	}
	return 0;
}

/* live DAT entries no file of the latest checkpoint uses */
static int end_leaks(struct repair *r)
{
	struct fsck *c = r->c;
	int rc;

	if (c->fix.nleaks && r->nrevived)
		return 0;   /* the revived inodes may use them: the next round sees */
	if (c->fix.nleaks && maps_damaged(c)) {
		fsck_info(c, "left alone: %zu live DAT entr%s no file uses; block maps are damaged, "
			  "and these may be what they lost", c->fix.nleaks,
			  c->fix.nleaks == 1 ? "y" : "ies");
		return 0;
	}
	for (size_t i = 0; i < c->fix.nleaks; i++) {
		rc = nlfs_writer_end_vblock(r->w, c->fix.leaks[i], &r->err);
		if (rc)
			return lib_failed(r, rc, "ending a leaked DAT entry");
	}
	done(r, c->fix.nleaks, "DAT: %zu live entr%s no file uses now end at checkpoint %" PRIu64
	     " (older checkpoints keep them)", c->fix.nleaks, c->fix.nleaks == 1 ? "y" : "ies",
	     nlfs_writer_cno(r->w));
	return 0;
}

/* ---- directories ---- */

static struct dir_edit *edit_of(struct repair *r, uint64_t ino)
{
	for (size_t i = 0; i < r->nedits; i++)
		if (r->edits[i].ino == ino)
			return &r->edits[i];
	if (fix_grow((void **)&r->edits, &r->capedits, r->nedits + 1, sizeof(*r->edits)))
		return NULL;
	r->edits[r->nedits] = (struct dir_edit){ .ino = ino };
	return &r->edits[r->nedits++];
}

static int edit_add(struct dir_edit *e, const char *name, uint64_t ino, uint8_t type)
{
	if (fix_grow((void **)&e->adds, &e->capadds, e->nadds + 1, sizeof(*e->adds)))
		return -ENOMEM;
	snprintf(e->adds[e->nadds].name, sizeof(e->adds[0].name), "%s", name);
	e->adds[e->nadds].ino = ino;
	e->adds[e->nadds].type = type;
	e->nadds++;
	return 0;
}

static const struct fsck_dirent_fix *dirent_fix(const struct fsck *c, uint64_t dir, uint64_t ino)
{
	for (size_t i = 0; i < c->fix.ndirents; i++)
		if (c->fix.dirents[i].dir == dir && c->fix.dirents[i].ino == ino)
			return &c->fix.dirents[i];
	return NULL;
}

static const struct fsck_link_fix *link_fix(const struct fsck *c, uint64_t ino)
{
	for (size_t i = 0; i < c->fix.nlinks; i++)
		if (c->fix.links[i].ino == ino)
			return &c->fix.links[i];
	return NULL;
}

static bool is_detached(const struct fsck *c, uint64_t ino)
{
	for (size_t i = 0; i < c->fix.ndetached; i++)
		if (c->fix.detached[i] == ino)
			return true;
	return false;
}

static bool was_revived(const struct repair *r, uint64_t ino)
{
	for (size_t i = 0; i < r->nrevived; i++)
		if (r->revived[i] == ino)
			return true;
	return false;
}

struct rewrite {
	struct repair *r;
	const struct dir_edit *e;
	struct nlfs_dirw d;
	uint64_t parent;
	bool begun;
	int rc;
};

/* first pass over a directory: where '..' points, whether lost+found is there */
struct scan {
	uint64_t parent, lost_found;
};

static int scan_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct scan *s = arg;

	if (len == 2 && !memcmp(name, "..", 2))
		s->parent = ino;
	else if (len == sizeof(LOST_FOUND) - 1 && !memcmp(name, LOST_FOUND, len) && type == 2)
		s->lost_found = ino;
	return 0;
}

static int copy_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct rewrite *rw = arg;
	const struct fsck_dirent_fix *f;

	if ((len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2)))
		return 0;   /* written by nlfs_dirw_begin */
	f = dirent_fix(rw->r->c, rw->e->ino, ino);
	if (f && f->type == 0 && was_revived(rw->r, ino))
		f = NULL;
	if (f && f->type == 0) {
		done(rw->r, 1, "inode %" PRIu64 ": entry '%.*s' removed (inode %" PRIu64
		     " is not in use)", rw->e->ino, (int)len, name, ino);
		return 0;
	}
	if (f) {
		done(rw->r, 1, "inode %" PRIu64 ": entry '%.*s' file type %u -> %u", rw->e->ino,
		     (int)len, name, type, f->type);
		type = f->type;
	}
	rw->rc = nlfs_dirw_add(&rw->d, name, len, ino, (uint8_t)type, &rw->r->err);
	return rw->rc;
}

static int read_inode(struct repair *r, uint64_t ino, struct nlfs_file *f)
{
	return nlfs_ifile_read(r->fs, &r->ifile, ino, f, &r->err);
}

/* rewrite directory E->ino: its entries as they are, mended, plus E's adds */
static int rewrite_dir(struct repair *r, const struct dir_edit *e)
{
	struct rewrite rw = { .r = r, .e = e };
	struct nlfs_inode inode;
	struct nlfs_file f;
	struct scan s = { 0 };
	const struct fsck_link_fix *lf;
	int rc;

	if (e->fresh) {
		inode = e->fresh_inode;
		inode.i_links_count = nlfs_cpu_to_le16((uint16_t)(2 + e->link_delta));
		rc = nlfs_dirw_begin(&rw.d, r->w, e->ino, e->parent, &r->err);
		for (size_t i = 0; !rc && i < e->nadds; i++)
			rc = nlfs_dirw_add(&rw.d, e->adds[i].name, strlen(e->adds[i].name),
					   e->adds[i].ino, e->adds[i].type, &r->err);
		if (!rc)
			rc = nlfs_dirw_end(&rw.d, &inode, &r->err);
		return rc ? lib_failed(r, rc, "making /lost+found") : 0;
	}
	rc = read_inode(r, e->ino, &f);
	if (!rc)
		rc = nlfs_dir_iterate(r->fs, &f, scan_entry, &s, &r->err);
	if (rc)
		return lib_failed(r, rc, "reading a directory to mend");
	rc = nlfs_writer_get_inode(r->w, e->ino, &inode, &r->err);
	if (!rc)
		rc = nlfs_writer_file_replace(r->w, e->ino, &r->err);
	if (rc)
		return lib_failed(r, rc, "rewriting a directory");
	rc = nlfs_dirw_begin(&rw.d, r->w, e->ino, e->parent ? e->parent : s.parent, &r->err);
	if (!rc)
		rc = nlfs_dir_iterate(r->fs, &f, copy_entry, &rw, &r->err);
	if (!rc)
		rc = rw.rc;
	for (size_t i = 0; !rc && i < e->nadds; i++)
		rc = nlfs_dirw_add(&rw.d, e->adds[i].name, strlen(e->adds[i].name), e->adds[i].ino,
				   e->adds[i].type, &r->err);
	lf = link_fix(r->c, e->ino);
	if (lf)
		inode.i_links_count = nlfs_cpu_to_le16((uint16_t)lf->links);
	inode.i_links_count =
		nlfs_cpu_to_le16((uint16_t)(nlfs_le16(inode.i_links_count) + e->link_delta));
	if (!rc)
		rc = nlfs_dirw_end(&rw.d, &inode, &r->err);
	if (rc)
		return lib_failed(r, rc, "rewriting a directory");
	return 0;
}

/* the directory detached inodes go to: /lost+found, made if missing */
static int lost_found(struct repair *r, struct dir_edit **lfe)
{
	struct nlfs_file root;
	struct scan s = { 0 };
	struct nlfs_inode inode;
	struct dir_edit *re;
	uint64_t ino;
	int rc = read_inode(r, NLFS_ROOT_INO, &root);

	if (!rc)
		rc = nlfs_dir_iterate(r->fs, &root, scan_entry, &s, &r->err);
	if (rc)
		return lib_failed(r, rc, "looking for /lost+found");
	if (s.lost_found && !is_detached(r->c, s.lost_found)) {
		*lfe = edit_of(r, s.lost_found);
		return *lfe ? 0 : -ENOMEM;
	}
	rc = nlfs_writer_new_ino(r->w, &ino, &r->err);
	if (rc)
		return lib_failed(r, rc, "allocating an inode for /lost+found");
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = nlfs_cpu_to_le16(S_IFDIR | 0700);
	inode.i_links_count = nlfs_cpu_to_le16(2);
	inode.i_ctime = inode.i_mtime = nlfs_cpu_to_le64(r->now);
	re = edit_of(r, NLFS_ROOT_INO);
	if (!re || edit_add(re, LOST_FOUND, ino, 2))
		return -ENOMEM;
	re->link_delta++;
	done(r, 1, "/lost+found made (inode %" PRIu64 ")", ino);
	*lfe = edit_of(r, ino);
	if (!*lfe)
		return -ENOMEM;
	(*lfe)->parent = NLFS_ROOT_INO;
	(*lfe)->fresh = true;
	(*lfe)->fresh_inode = inode;
	return 0;
}

static int plan_detached(struct repair *r)
{
	struct fsck *c = r->c;
	struct dir_edit *lfe = NULL;
	uint64_t lf_ino;
	int rc;

	if (!c->fix.ndetached)
		return 0;
	if (found(c, PR_DIR_ROOT)) {
		fsck_info(c, "left alone: %zu inode(s) no directory reaches; the root directory is "
			  "damaged, so there is no lost+found to put them in", c->fix.ndetached);
		return 0;
	}
	rc = lost_found(r, &lfe);
	if (rc)
		return rc;
	lf_ino = lfe->ino;
	for (size_t i = 0; i < c->fix.ndetached; i++) {
		uint64_t ino = c->fix.detached[i];
		struct nlfs_inode inode;
		char name[32];
		uint8_t type;

		/* as the ifile holds it: the reader refuses an inode with no links */
		rc = nlfs_writer_get_inode(r->w, ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "reading a detached inode");
		type = nlfs_file_type_of_mode(nlfs_le16(inode.i_mode));
		snprintf(name, sizeof(name), "#%" PRIu64, ino);
		lfe = edit_of(r, lf_ino);
		if (!lfe || edit_add(lfe, name, ino, type))
			return -ENOMEM;
		if (type == 2) {
			struct dir_edit *de;

			lfe->link_delta++;
			de = edit_of(r, ino);
			if (!de)
				return -ENOMEM;
			de->parent = lf_ino;
		}
		done(r, 1, "inode %" PRIu64 " linked as /lost+found/%s", ino, name);
	}
	r->attached = true;
	return 0;
}

/* Entries naming a free inode: if the inode is still there, only its
 * bitmap bit was lost, and it is marked in use again; otherwise the
 * entry goes (its directory is rewritten). */
static int plan_dirents(struct repair *r)
{
	for (size_t i = 0; i < r->c->fix.ndirents; i++) {
		const struct fsck_dirent_fix *f = &r->c->fix.dirents[i];
		bool revived = false;
		int rc;

		if (f->type == 0 && !was_revived(r, f->ino)) {
			rc = nlfs_writer_revive_inode(r->w, f->ino, &revived, &r->err);
			if (rc)
				return lib_failed(r, rc, "looking at an inode an entry names");
		}
		if (revived) {
			if (fix_grow((void **)&r->revived, &r->caprevived, r->nrevived + 1,
				 sizeof(*r->revived)))
				return -ENOMEM;
			r->revived[r->nrevived++] = f->ino;
			done(r, 1, "inode %" PRIu64 ": still there, marked in use again in the ifile",
			     f->ino);
			continue;
		}
		if (f->type != 0 || !was_revived(r, f->ino))
			if (!edit_of(r, f->dir))
				return -ENOMEM;
	}
	return 0;
}

/* ---- inodes ---- */

/* Is the directory tree itself damaged?  Then the counted links are not
 * the truth (entries sit in lost blocks, '.' or '..' point elsewhere), and
 * link counts are left as they are, but for the inodes lost+found takes. */
static bool tree_damaged(const struct fsck *c)
{
	static const enum fsck_pr codes[] = {
		PR_DIR_ROOT, PR_DIR_DOT, PR_DIR_DOTDOT, PR_DIR_LINKED, PR_DIR_RECORD, PR_DIR_HOLE,
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (found(c, codes[i]))
			return true;
	return false;
}

static bool edited(const struct repair *r, uint64_t ino)
{
	for (size_t i = 0; i < r->nedits; i++)
		if (r->edits[i].ino == ino)
			return true;
	return false;
}

static int fix_inodes(struct repair *r)
{
	struct fsck *c = r->c;
	uint32_t units = c->g->blocksize / 512;
	int rc;

	for (size_t i = 0; i < c->fix.nlinks; i++) {
		const struct fsck_link_fix *lf = &c->fix.links[i];
		struct nlfs_inode inode;
		uint32_t want = lf->links + (r->attached && is_detached(c, lf->ino) ? 1 : 0);

		if (edited(r, lf->ino))
			continue;   /* rewrite_dir set it */
		if (tree_damaged(c) && !is_detached(c, lf->ino))
			continue;
		rc = nlfs_writer_get_inode(r->w, lf->ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "reading an inode");
		done(r, 1, "inode %" PRIu64 ": i_links_count %u -> %u", lf->ino,
		     nlfs_le16(inode.i_links_count), want);
		inode.i_links_count = nlfs_cpu_to_le16((uint16_t)want);
		rc = nlfs_writer_put_inode(r->w, lf->ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "writing an inode");
	}
	/* a detached file no directory named: /lost+found's entry is its one link */
	for (size_t i = 0; r->attached && i < c->fix.ndetached; i++) {
		uint64_t ino = c->fix.detached[i];
		struct nlfs_inode inode;

		if (edited(r, ino) || link_fix(c, ino))
			continue;
		rc = nlfs_writer_get_inode(r->w, ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "reading an inode");
		if (nlfs_le16(inode.i_links_count) == 1)
			continue;
		done(r, 1, "inode %" PRIu64 ": i_links_count %u -> 1", ino,
		     nlfs_le16(inode.i_links_count));
		inode.i_links_count = nlfs_cpu_to_le16(1);
		rc = nlfs_writer_put_inode(r->w, ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "writing an inode");
	}
	for (size_t i = 0; i < c->fix.nblocks; i++) {
		const struct fsck_blocks_fix *bf = &c->fix.blocks[i];
		struct nlfs_inode inode;

		/* the metadata files' counts are rewritten with them; a mended
		 * directory got its count when it was rewritten */
		if (bf->ino < nlfs_le32(c->sb->s_first_ino) && bf->ino != NLFS_ROOT_INO)
			continue;
		if (edited(r, bf->ino))
			continue;
		rc = nlfs_writer_get_inode(r->w, bf->ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "reading an inode");
		done(r, 1, "inode %" PRIu64 ": i_blocks %" PRIu64 " -> %" PRIu64, bf->ino,
		     nlfs_le64(inode.i_blocks), bf->nblocks * units);
		inode.i_blocks = nlfs_cpu_to_le64(bf->nblocks * units);
		rc = nlfs_writer_put_inode(r->w, bf->ino, &inode, &r->err);
		if (rc)
			return lib_failed(r, rc, "writing an inode");
	}
	return 0;
}

/* ---- roll-forward ---- */

/* What the kernel's mount would do: data-sync logs after the super root
 * put back into their files.  Done before anything else changes files, so
 * the notes of the check (made on the rolled-forward view) still hold. */
static int roll_forward(struct repair *r)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(r->fs);
	uint64_t nfiles, nblocks;
	int rc = nlfs_writer_roll_forward(r->w, &nfiles, &nblocks, &r->err);

	if (rc)
		return lib_failed(r, rc, "rolling forward");
	done(r, 1, "rolled forward: %" PRIu64 " block(s) of %" PRIu64 " file(s) from %" PRIu64
	     " log(s) after the super root at block %" PRIu64, nblocks, nfiles,
	     rec->nlogs_after_sr, rec->sr_log);
	return 0;
}

/* ---- the construction ---- */

static bool needs_construction(const struct fsck *c)
{
	static const enum fsck_pr codes[] = {
		PR_SB_READ, PR_SB_MAGIC, PR_SB_BYTES, PR_SB_CRC, PR_SB_CURSOR, PR_SB_GEOMETRY,
		PR_SB_REVISION, PR_SB_MISMATCH, PR_SU_NCLEAN, PR_SU_NDIRTY, PR_SU_LAST_ALLOC, PR_SU_CLEAN,
		PR_CP_NCHECKPOINTS, PR_CP_NSNAPSHOTS, PR_CP_BLKCOUNT, PR_CP_NINODES,
		PR_CP_NBLOCKS, PR_DAT_DESC, PR_IFILE_DESC, PR_IFILE_RESERVED, PR_INO_BLOCKS,
		PR_DAT_LEAK, PR_INO_LINKS, PR_INO_UNATTACHED, PR_INO_ORPHAN, PR_DIR_FREE_INODE,
		PR_DIR_TYPE,
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (found(c, codes[i]) &&
		    fix_is_repairable(codes[i], c->o.mode == MODE_PREEN))
			return true;
	return repair_meta_needed(c);
}

static void free_repair(struct repair *r)
{
	for (size_t i = 0; i < r->nedits; i++)
		free(r->edits[i].adds);
	free(r->edits);
	free(r->revived);
	nlfs_writer_free(r->w);
}

int repair_volume(struct fsck *c, struct nlfs_io *io, bool *changed)
{
	struct repair r = { .c = c };
	bool preen = c->o.mode == MODE_PREEN;
	int rc;

	*changed = false;
	if (!needs_construction(c) && !found(c, PR_RECOVERY))
		return 0;
	if (repair_meta_refused(c)) {
		fsck_info(c, "not repaired: %s", repair_meta_refused(c));
		return 0;
	}
	r.now = (uint64_t)time(NULL);
	rc = nlfs_fs_open(io, &r.fs, &r.err);
	if (rc) {
		fprintf(stderr, "%s: %s: cannot open the volume to repair it\n", FSCK_PROG,
			c->o.device);
		return rc;
	}
	rc = nlfs_fs_ifile(r.fs, nlfs_fs_recovery(r.fs)->cno, &r.ifile, &r.err);
	if (rc == -ENOENT && found(c, PR_CP_LATEST))
		rc = 0;   /* its entry is mended below; the passes made no note about its files */
	if (!rc)
		rc = nlfs_writer_open_flags(r.fs, r.now, NLFS_WRITER_REPAIR | NLFS_WRITER_ROLLFORWARD,
					    &r.w, &r.err);
	if (rc) {
		rc = lib_failed(&r, rc, "opening the volume for writing");
		goto out;
	}
	if (found(c, PR_SB_READ) || found(c, PR_SB_MAGIC) || found(c, PR_SB_BYTES) ||
	    found(c, PR_SB_CRC) || found(c, PR_SB_CURSOR) || found(c, PR_SB_GEOMETRY) ||
	    found(c, PR_SB_REVISION) || found(c, PR_SB_MISMATCH)) {
		const struct nlfs_sb_choice *ch = nlfs_fs_sb_choice(r.fs);

		/* the construction ends by writing both copies from this one */
		done(&r, 1, "superblocks: both copies rewritten from the %s, pointing at the new "
		     "checkpoint", ch->used == NLFS_SB_PRIMARY ? "primary" : "secondary");
	}
	rc = repair_meta(c, r.fs, r.w, &r.nfixes, &r.err);
	if (rc) {
		rc = lib_failed(&r, rc, "mending the shared metadata");
		goto out;
	}
	rc = fix_counters(&r);
	if (!rc && nlfs_fs_recovery(r.fs)->nlogs_after_sr)
		rc = roll_forward(&r);
	if (!rc && !preen)
		rc = plan_dirents(&r);
	if (!rc)
		rc = end_leaks(&r);
	if (!rc && !preen)
		rc = plan_detached(&r);
	for (size_t i = 0; !rc && i < r.nedits; i++)
		rc = rewrite_dir(&r, &r.edits[i]);
	if (!rc)
		rc = fix_inodes(&r);
	if (!rc && c->fix.cp_counts_known && (found(c, PR_CP_NINODES) || found(c, PR_CP_NBLOCKS))) {
		nlfs_writer_set_counts(r.w, c->fix.cp_ninodes, c->fix.cp_nblocks);
		done(&r, 1, "checkpoint %" PRIu64 ": inode and block counts taken from its files",
		     c->latest_cno);
	}
	if (rc)
		goto out;
	if (!r.nfixes) {
		fsck_info(c, "nothing the repairs could change");
		goto out;
	}
	rc = nlfs_writer_commit(r.w, &r.err);
	if (rc) {
		rc = lib_failed(&r, rc, "writing the repairs");
		goto out;
	}
	*changed = true;
	fsck_info(c, "repairs written as checkpoint %" PRIu64, nlfs_writer_cno(r.w));
out:
	if (rc && (fsck_is_format_error(rc) || rc == -ENOENT || rc == -ENOTSUP)) {
		/* the damage is in the way of the repair itself: nothing was
		 * written, and the problems stay reported (exit status 4) */
		fsck_info(c, "the repairs above cannot be made on this volume; nothing was changed");
		rc = 0;
		*changed = false;
	}
	free_repair(&r);
	if (r.fs)
		nlfs_fs_release(r.fs);   /* the io is the caller's */
	return rc;
}
