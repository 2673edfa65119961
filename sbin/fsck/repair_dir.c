/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_dir.c - directories rewritten from the records that hold up.
 *
 * A directory the check marked is read again the way the check read it:
 * its blocks salvaged record by record (nlfs_dir_salvage), so every
 * record the check saw is found at the same block and byte, where the
 * check's note for it says whether it stays, goes (naming a free,
 * reserved or cleared inode, a second link to a directory, an empty name,
 * a second entry of one name for one inode), gets another file type or
 * another name (a '/' or NUL in it, or a name another entry has: NAME~N,
 * as e2fsck does).  What the records held that cannot be kept, and the
 * blocks missing from it, are named.  Then the directory is written anew
 * through the writer: '.' naming itself, '..' the parent the check walked
 * from (or /lost+found), the entries kept, and what the repair adds.
 *
 * Inodes no directory reaches go to /lost+found as "#INO", made if it is
 * missing; a root directory that is missing or not a directory is made
 * anew first (as e2fsck does), and everything it named is found there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nlfs/endian.h>
#include "names.h"
#include "array.h"
#include "repairP.h"

#define LOST_FOUND "lost+found"

/* ---- the notes ---- */

static struct dir_edit *edit_of(struct repair *r, uint64_t ino)
{
	for (size_t i = 0; i < r->nedits; i++)
		if (r->edits[i].ino == ino)
			return &r->edits[i];
	if (nlfs_grow((void **)&r->edits, &r->capedits, r->nedits + 1, sizeof(*r->edits)))
		return NULL;
	r->edits[r->nedits] = (struct dir_edit){ .ino = ino };
	return &r->edits[r->nedits++];
}

static int edit_add(struct dir_edit *e, const char *name, uint64_t ino, uint8_t type)
{
	if (nlfs_grow((void **)&e->adds, &e->capadds, e->nadds + 1, sizeof(*e->adds)))
		return -ENOMEM;
	snprintf(e->adds[e->nadds].name, sizeof(e->adds[0].name), "%s", name);
	e->adds[e->nadds].ino = ino;
	e->adds[e->nadds].type = type;
	e->nadds++;
	return 0;
}

static int cmp_place(const void *a, const void *b)
{
	const struct fsck_dirent_fix *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* the note for the record at DIR's block BLK, byte OFF (sorted by
 * repair_plan_dirents: a directory may have many) */
static const struct fsck_dirent_fix *dirent_fix(const struct fsck *c, uint64_t dir, uint64_t blk,
						 uint32_t off)
{
	struct fsck_dirent_fix key = { .dir = dir, .blk = blk, .off = off };

	if (!c->fix.ndirents)
		return NULL;   /* bsearch wants an array */
	return bsearch(&key, c->fix.dirents, c->fix.ndirents, sizeof(key), cmp_place);
}

/* the notes keyed by inode, sorted by it (repair_plan_dirents) */
static int cmp_ino(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

const struct fsck_link_fix *repair_link_fix(const struct fsck *c, uint64_t ino)
{
	if (!c->fix.nlinks)
		return NULL;
	return bsearch(&ino, c->fix.links, c->fix.nlinks, sizeof(*c->fix.links), cmp_ino);
}

bool repair_is_detached(const struct fsck *c, uint64_t ino)
{
	return c->fix.ndetached &&
	       bsearch(&ino, c->fix.detached, c->fix.ndetached, sizeof(ino), cmp_ino);
}

bool repair_is_cleared(const struct fsck *c, uint64_t ino)
{
	return c->fix.nclears &&
	       bsearch(&ino, c->fix.clears, c->fix.nclears, sizeof(*c->fix.clears), cmp_ino);
}

bool repair_edited(const struct repair *r, uint64_t ino)
{
	for (size_t i = 0; i < r->nedits; i++)
		if (r->edits[i].ino == ino)
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

/* "inode 12 (/dir1)" */
static const char *dir_name(const struct dir_edit *e, char *buf, size_t len)
{
	if (e->path && e->path[0])
		snprintf(buf, len, "inode %" PRIu64 " (%s)", e->ino, e->path);
	else if (e->ino == NLFS_ROOT_INO)
		snprintf(buf, len, "inode %" PRIu64 " (/)", e->ino);
	else
		snprintf(buf, len, "inode %" PRIu64, e->ino);
	return buf;
}

/* ---- reading a directory as the check did ---- */

struct salvage_cb {
	/* a record that holds up (SOUND or MENDED) at byte OFF of block BLK */
	int (*rec)(void *arg, const struct nlfs_dir_rec *rec, uint64_t blk, unsigned off);
	/* bytes OFF..END-1 of block BLK dropped; REC as their header says */
	void (*lost)(void *arg, uint64_t blk, unsigned off, unsigned end,
		     const struct nlfs_dir_rec *rec, const char *why);
	/* blocks FIRST..LAST missing (or unreadable) */
	void (*hole)(void *arg, uint64_t first, uint64_t last);
	void *arg;
};

static int salvage_dir(struct repair *r, const struct nlfs_file *f, const struct salvage_cb *cb)
{
	uint32_t bs = r->c->g->blocksize;
	uint64_t *keys = NULL, nblocks, expect = 0;
	size_t nkeys = 0;
	uint8_t *buf = malloc(bs);
	int rc = buf ? nlfs_bmap_keys(r->fs, f, &keys, &nkeys, &r->err) : -ENOMEM;

	if (rc > 0)
		rc = -NLFS_ECORRUPT;
	nblocks = dir_nblocks(keys, nkeys);
	for (size_t i = 0; !rc && i < nkeys && keys[i] < nblocks; i++) {
		uint64_t blk = keys[i];
		struct nlfs_err err;
		bool hole;

		if (blk > expect && cb->hole)
			cb->hole(cb->arg, expect, blk - 1);
		expect = blk + 1;
		if (nlfs_file_read_block(r->fs, f, blk, buf, &hole, &err) || hole) {
			if (cb->hole)
				cb->hole(cb->arg, blk, blk);
			continue;
		}
		for (unsigned off = 0, next; !rc && off < bs; off = next) {
			struct nlfs_dir_rec rec;
			const char *why;

			if (nlfs_dir_salvage(buf, bs, off, &rec, &next, &why) == NLFS_DIR_DROPPED) {
				if (cb->lost)
					cb->lost(cb->arg, blk, off, next, &rec, why);
				continue;
			}
			rc = cb->rec(cb->arg, &rec, blk, off);
		}
	}
	free(buf);
	free(keys);
	return rc;
}

static int read_inode(struct repair *r, uint64_t ino, struct nlfs_file *f)
{
	return nlfs_ifile_read(r->fs, &r->ifile, ino, f, &r->err);
}

/* where '..' points, whether lost+found is there */
struct scan {
	uint64_t parent, lost_found;
};

static int scan_rec(void *arg, const struct nlfs_dir_rec *rec, uint64_t blk, unsigned off)
{
	struct scan *s = arg;

	(void)blk;
	(void)off;
	if (!rec->ino)
		return 0;
	if (rec->name_len == 2 && nlfs_dir_name_is_dots(rec->name, rec->name_len) && !s->parent)
		s->parent = rec->ino;
	else if (rec->name_len == sizeof(LOST_FOUND) - 1 &&
		 !memcmp(rec->name, LOST_FOUND, rec->name_len) && rec->file_type == 2)
		s->lost_found = rec->ino;
	return 0;
}

/* ---- the rewrite ---- */

struct kept {
	char *name;
	unsigned len;
	uint64_t ino;
	uint8_t type;
	bool rename;
};

struct rewrite {
	struct repair *r;
	const struct dir_edit *e;
	char what[PATH_MAX_NAME];
	struct kept *v;
	size_t n, cap;
	uint64_t dotdot;
};

static int keep_rec(void *arg, const struct nlfs_dir_rec *rec, uint64_t blk, unsigned off)
{
	struct rewrite *rw = arg;
	struct repair *r = rw->r;
	const struct fsck_dirent_fix *f;
	struct kept k = { .len = rec->name_len, .ino = rec->ino, .type = (uint8_t)rec->file_type };

	if (!rec->ino)
		return 0;
	if (nlfs_dir_name_is_dots(rec->name, rec->name_len)) {
		if (rec->name_len == 2 && !rw->dotdot)
			rw->dotdot = rec->ino;
		return 0;   /* written anew */
	}
	f = dirent_fix(r->c, rw->e->ino, blk, off);
	if (f && f->act == DIRENT_FREE && !was_revived(r, rec->ino)) {
		repair_done(r, 1, "%s: entry '%.*s' removed (inode %" PRIu64 " is not in use)",
			    rw->what, (int)rec->name_len, rec->name, rec->ino);
		return 0;
	}
	if (f && f->act == DIRENT_DROP) {
		repair_done(r, 1, "%s: entry '%.*s' for inode %" PRIu64 " removed: %s", rw->what,
			    (int)rec->name_len, rec->name, rec->ino, f->why);
		return 0;
	}
	if (!rec->name_len) {
		repair_done(r, 1, "%s: entry for inode %" PRIu64 " removed: its name is empty",
			    rw->what, rec->ino);
		return 0;
	}
	if (f && f->act == DIRENT_RETYPE) {
		repair_done(r, 1, "%s: entry '%.*s' file type %u -> %u", rw->what, (int)rec->name_len,
			    rec->name, rec->file_type, f->type);
		k.type = f->type;
	}
	k.rename = f && f->act == DIRENT_RENAME;
	if (k.type > 7)
		k.type = 0;
	k.name = malloc(rec->name_len);
	if (!k.name || nlfs_grow((void **)&rw->v, &rw->cap, rw->n + 1, sizeof(*rw->v))) {
		free(k.name);
		return -ENOMEM;
	}
	memcpy(k.name, rec->name, rec->name_len);
	rw->v[rw->n++] = k;
	return 0;
}

static void lost_rec(void *arg, uint64_t blk, unsigned off, unsigned end,
		     const struct nlfs_dir_rec *rec, const char *why)
{
	struct rewrite *rw = arg;
	uint32_t bs = rw->r->c->g->blocksize;

	if (rec->ino && rec->name_len && NLFS_DIR_ENTRY_HEADER + rec->name_len <= bs - off)
		repair_done(rw->r, 1, "%s: block %" PRIu64 ", bytes %u..%u dropped (%s): entry '%.*s' "
			    "for inode %" PRIu64 " lost", rw->what, blk, off, end - 1, why,
			    (int)rec->name_len, rec->name, rec->ino);
	else
		repair_done(rw->r, 1, "%s: block %" PRIu64 ", bytes %u..%u dropped (%s)", rw->what,
			    blk, off, end - 1, why);
}

static void lost_blocks(void *arg, uint64_t first, uint64_t last)
{
	struct rewrite *rw = arg;

	if (first == last)
		repair_done(rw->r, 1, "%s: directory block %" PRIu64 " is missing: the names it held "
			    "are lost, the directory is written without it", rw->what, first);
	else
		repair_done(rw->r, 1, "%s: directory blocks %" PRIu64 "..%" PRIu64 " are missing: the "
			    "names they held are lost, the directory is written without them",
			    rw->what, first, last);
}

/* a name made valid: '/' and NUL become '.', as e2fsck does */
static unsigned valid_name(const struct kept *k, char *out)
{
	for (unsigned i = 0; i < k->len; i++)
		out[i] = k->name[i] == '/' || k->name[i] == 0 ? '.' : k->name[i];
	return k->len;
}

/* NAME~N for the first N no entry has */
static int unique_name(struct fsck_names *ns, char *name, unsigned *len, uint64_t ino)
{
	char base[NLFS_NAME_LEN + 1];
	unsigned blen = *len;
	int rc = fsck_names_add(ns, name, *len, ino, NULL);

	memcpy(base, name, blen);
	for (unsigned n = 0; rc == 1; n++) {
		char suffix[16];
		int slen = snprintf(suffix, sizeof(suffix), "~%u", n);
		unsigned keep = blen + (unsigned)slen > NLFS_NAME_LEN ? NLFS_NAME_LEN - (unsigned)slen : blen;

		memcpy(name, base, keep);
		memcpy(name + keep, suffix, (size_t)slen);
		*len = keep + (unsigned)slen;
		rc = fsck_names_add(ns, name, *len, ino, NULL);
	}
	return rc;
}

/* names as the rewrite writes them: every one valid, none twice; what
 * the repair adds keeps its name (a file named lost+found is renamed) */
static int settle_names(struct rewrite *rw)
{
	struct fsck_names ns = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < rw->e->nadds; i++)
		rc = fsck_names_add(&ns, rw->e->adds[i].name, (unsigned)strlen(rw->e->adds[i].name),
				    rw->e->adds[i].ino, NULL);
	rc = rc < 0 ? rc : 0;
	for (size_t i = 0; !rc && i < rw->n; i++) {
		if (rw->v[i].rename)
			continue;
		rc = fsck_names_add(&ns, rw->v[i].name, rw->v[i].len, rw->v[i].ino, NULL);
		if (rc == 1) {
			rw->v[i].rename = true;   /* a clash the check could not see */
			rc = 0;
		}
	}
	for (size_t i = 0; rc >= 0 && i < rw->n; i++) {
		struct kept *k = &rw->v[i];
		char name[NLFS_NAME_LEN + 1];
		unsigned len;
		char *p;

		if (!k->rename)
			continue;
		len = valid_name(k, name);
		rc = unique_name(&ns, name, &len, k->ino);
		if (rc < 0)
			break;
		repair_done(rw->r, 1, "%s: entry '%.*s' (inode %" PRIu64 ") renamed '%.*s'", rw->what,
			    (int)k->len, k->name, k->ino, (int)len, name);
		p = realloc(k->name, len);
		if (!p) {
			rc = -ENOMEM;
			break;
		}
		memcpy(p, name, len);
		k->name = p;
		k->len = len;
	}
	fsck_names_free(&ns);
	return rc < 0 ? rc : 0;
}

static int write_fresh(struct repair *r, const struct dir_edit *e)
{
	struct nlfs_inode inode = e->fresh_inode;
	struct nlfs_dirw *d;
	int rc;

	inode.i_links_count = nlfs_cpu_to_le16((uint16_t)(2 + e->link_delta));
	rc = nlfs_dirw_begin(r->w, e->ino, e->parent, &d, &r->err);
	for (size_t i = 0; !rc && i < e->nadds; i++)
		rc = nlfs_dirw_add(d, e->adds[i].name, strlen(e->adds[i].name), e->adds[i].ino,
				   e->adds[i].type, &r->err);
	if (!rc)
		rc = nlfs_dirw_end(d, &inode, &r->err);
	else
		nlfs_dirw_free(d);
	return rc ? repair_lib_failed(r, rc, "making a directory") : 0;
}

static void free_kept(struct rewrite *rw)
{
	for (size_t i = 0; i < rw->n; i++)
		free(rw->v[i].name);
	free(rw->v);
}

/* rewrite directory E->ino: its records that hold up, mended, plus E's adds */
static int rewrite_dir(struct repair *r, const struct dir_edit *e)
{
	struct rewrite rw = { .r = r, .e = e };
	struct salvage_cb cb = { keep_rec, lost_rec, lost_blocks, &rw };
	const struct fsck_link_fix *lf;
	struct nlfs_inode inode;
	struct nlfs_file f;
	struct nlfs_dirw *d = NULL;
	uint64_t parent;
	uint32_t links;
	char size[64] = "";
	int rc;

	if (e->fresh)
		return write_fresh(r, e);
	dir_name(e, rw.what, sizeof(rw.what));
	rc = read_inode(r, e->ino, &f);
	if (rc == -ENOENT && repair_is_detached(r->c, e->ino)) {
		/* an orphan (no links), which the reader takes for deleted */
		memset(&f, 0, sizeof(f));
		f.ino = e->ino;
		f.cno = r->ifile.cno;
		rc = nlfs_writer_get_inode(r->w, e->ino, &f.inode, &r->err);
	}
	if (!rc)
		rc = salvage_dir(r, &f, &cb);
	if (!rc)
		rc = settle_names(&rw);
	if (rc) {
		free_kept(&rw);
		return repair_lib_failed(r, rc, "reading a directory to mend");
	}
	parent = e->parent ? e->parent : rw.dotdot;
	rc = nlfs_writer_get_inode(r->w, e->ino, &inode, &r->err);
	if (!rc)
		rc = nlfs_writer_file_replace(r->w, e->ino, &r->err);
	if (!rc)
		rc = nlfs_dirw_begin(r->w, e->ino, parent, &d, &r->err);
	for (size_t i = 0; !rc && i < rw.n; i++)
		rc = nlfs_dirw_add(d, rw.v[i].name, rw.v[i].len, rw.v[i].ino, rw.v[i].type, &r->err);
	for (size_t i = 0; !rc && i < e->nadds; i++)
		rc = nlfs_dirw_add(d, e->adds[i].name, strlen(e->adds[i].name), e->adds[i].ino,
				   e->adds[i].type, &r->err);
	lf = repair_link_fix(r->c, e->ino);
	links = lf ? lf->links : nlfs_le16(inode.i_links_count);
	if (r->attached && repair_is_detached(r->c, e->ino))
		links++;   /* the entry in /lost+found */
	links += (uint32_t)e->link_delta;
	if (links != nlfs_le16(inode.i_links_count))
		repair_done(r, 1, "%s: i_links_count %u -> %u", rw.what, nlfs_le16(inode.i_links_count),
			    links);
	inode.i_links_count = nlfs_cpu_to_le16((uint16_t)links);
	if (!rc)
		rc = nlfs_dirw_end(d, &inode, &r->err);
	else
		nlfs_dirw_free(d);
	free_kept(&rw);
	if (rc)
		return repair_lib_failed(r, rc, "rewriting a directory");
	if (nlfs_le64(f.inode.i_size) != nlfs_le64(inode.i_size))
		snprintf(size, sizeof(size), ", i_size %" PRIu64 " -> %" PRIu64,
			 nlfs_le64(f.inode.i_size), nlfs_le64(inode.i_size));
	repair_done(r, 1, "%s: directory written anew ('..' names inode %" PRIu64 ", %zu entries%s)",
		    rw.what, parent, rw.n + e->nadds, size);
	return 0;
}

int repair_write_dirs(struct repair *r)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < r->nedits; i++)
		rc = rewrite_dir(r, &r->edits[i]);
	return rc;
}

/* ---- planning ---- */

static struct dir_edit *fresh_dir(struct repair *r, uint64_t ino, uint64_t parent, uint16_t perm)
{
	struct dir_edit *e = edit_of(r, ino);

	if (!e)
		return NULL;
	e->parent = parent;
	e->fresh = true;
	memset(&e->fresh_inode, 0, sizeof(e->fresh_inode));
	e->fresh_inode.i_mode = nlfs_cpu_to_le16(NLFS_S_IFDIR | perm);
	e->fresh_inode.i_ctime = e->fresh_inode.i_mtime = nlfs_cpu_to_le64(r->now);
	return e;
}

/* the directory detached inodes go to: /lost+found, made if missing */
static int lost_found(struct repair *r, struct dir_edit **lfe)
{
	struct scan s = { 0 };
	struct salvage_cb cb = { scan_rec, NULL, NULL, &s };
	struct nlfs_file root;
	struct dir_edit *re;
	uint64_t ino;
	int rc;

	if (!r->c->fix.root_lost) {
		rc = read_inode(r, NLFS_ROOT_INO, &root);
		if (!rc)
			rc = salvage_dir(r, &root, &cb);
		if (rc)
			return repair_lib_failed(r, rc, "looking for /lost+found");
	}
	if (s.lost_found && !repair_is_detached(r->c, s.lost_found) &&
	    !repair_is_cleared(r->c, s.lost_found)) {
		*lfe = edit_of(r, s.lost_found);
		return *lfe ? 0 : -ENOMEM;
	}
	rc = nlfs_writer_new_ino(r->w, &ino, &r->err);
	if (rc)
		return repair_lib_failed(r, rc, "allocating an inode for /lost+found");
	re = edit_of(r, NLFS_ROOT_INO);
	if (!re || edit_add(re, LOST_FOUND, ino, 2))
		return -ENOMEM;
	re->link_delta++;
	repair_done(r, 1, "/lost+found made (inode %" PRIu64 ")", ino);
	*lfe = fresh_dir(r, ino, NLFS_ROOT_INO, 0700);
	return *lfe ? 0 : -ENOMEM;
}

int repair_plan_detached(struct repair *r)
{
	struct fsck *c = r->c;
	struct dir_edit *lfe = NULL;
	uint64_t lf_ino;
	int rc;

	if (c->fix.root_lost) {
		if (!fresh_dir(r, NLFS_ROOT_INO, NLFS_ROOT_INO, 0755))
			return -ENOMEM;
		repair_done(r, 1, "the root directory (inode 2) made anew: what it named is put in "
			    "/lost+found");
	}
	if (!c->fix.ndetached)
		return 0;
	rc = lost_found(r, &lfe);
	if (rc)
		return rc;
	lf_ino = lfe->ino;
	for (size_t i = 0; i < c->fix.ndetached; i++) {
		uint64_t ino = c->fix.detached[i];
		struct nlfs_inode inode;
		char name[32];
		uint8_t type;

		if (repair_is_cleared(c, ino))
			continue;
		/* as the ifile holds it: the reader refuses an inode with no links */
		rc = nlfs_writer_get_inode(r->w, ino, &inode, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "reading a detached inode");
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
		repair_done(r, 1, "inode %" PRIu64 " linked as /lost+found/%s", ino, name);
	}
	r->attached = true;
	return 0;
}

void repair_sort_notes(struct fsck *c)
{
	if (c->fix.ndirents > 1)
		nlfs_sort(c->fix.dirents, c->fix.ndirents, sizeof(*c->fix.dirents), cmp_place);
	/* the others: ino is each one's first member */
	if (c->fix.nlinks > 1)
		nlfs_sort(c->fix.links, c->fix.nlinks, sizeof(*c->fix.links), cmp_ino);
	if (c->fix.ndetached > 1)
		nlfs_sort(c->fix.detached, c->fix.ndetached, sizeof(*c->fix.detached), cmp_ino);
	if (c->fix.nclears > 1)
		nlfs_sort(c->fix.clears, c->fix.nclears, sizeof(*c->fix.clears), cmp_ino);
}

/* The directories the check marked, and entries naming a free inode: if
 * the inode is still there, only its bitmap bit was lost, and it is
 * marked in use again; otherwise the entry goes. */
int repair_plan_dirents(struct repair *r)
{
	struct fsck *c = r->c;


	for (size_t i = 0; i < c->fix.ndirs; i++) {
		struct dir_edit *e;

		if (c->fix.dirs[i].dir == NLFS_ROOT_INO && c->fix.root_lost)
			continue;
		e = edit_of(r, c->fix.dirs[i].dir);
		if (!e)
			return -ENOMEM;
		e->parent = c->fix.dirs[i].parent;
		e->path = c->fix.dirs[i].path;
	}
	for (size_t i = 0; i < c->fix.ndirents; i++) {
		const struct fsck_dirent_fix *f = &c->fix.dirents[i];
		bool revived = false;
		int rc;

		if (f->act == DIRENT_FREE && !was_revived(r, f->ino)) {
			rc = nlfs_writer_revive_inode(r->w, f->ino, &revived, &r->err);
			if (rc)
				return repair_lib_failed(r, rc, "looking at an inode an entry names");
		}
		if (revived) {
			if (nlfs_grow((void **)&r->revived, &r->caprevived, r->nrevived + 1,
				     sizeof(*r->revived)))
				return -ENOMEM;
			r->revived[r->nrevived++] = f->ino;
			repair_done(r, 1, "inode %" PRIu64 ": still there, marked in use again in the ifile",
				    f->ino);
		}
		if (!edit_of(r, f->dir))
			return -ENOMEM;
	}
	return 0;
}
