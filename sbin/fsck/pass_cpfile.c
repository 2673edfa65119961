/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_cpfile.c - pass 5: the checkpoint file (and the sufile's map).
 *
 * The block maps of the cpfile and sufile (every block must be current:
 * their old blocks die at once); every checkpoint entry: cp_cno equal to
 * its slot, known flags, entries past the latest checkpoint invalid, a
 * usable ifile inode; each cpfile block's count of valid checkpoints
 * (kept in its first slot, block 0 excepted); the header's checkpoint and
 * snapshot counts; the snapshot list sorted, doubly linked, anchored in
 * the header and holding exactly the SNAPSHOT entries.  Hands back the
 * checkpoints pass 6 checks: the latest first, then snapshots or all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"
#include "array.h"

#define CP_KNOWN (NLFS_CHECKPOINT_SNAPSHOT | NLFS_CHECKPOINT_INVALID | NLFS_CHECKPOINT_SKETCH | \
		  NLFS_CHECKPOINT_MINOR)

struct u64s {
	uint64_t *v;
	size_t n, cap;
};

static int push(struct u64s *a, uint64_t x)
{
	return CLI_PUSH(a->v, a->n, a->cap, x);
}

static int collect_keys(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	(void)ptr;
	return level == 0 ? push(arg, key) : 0;
}

static void check_entry(struct fsck *c, uint64_t cno, const struct nlfs_checkpoint *cp,
			bool *valid, bool *snap)
{
	uint32_t fl = nlfs_le32(cp->cp_flags);
	const struct nlfs_inode *in = &cp->cp_ifile_inode;

	*valid = nlfs_cp_flags_valid(fl);
	*snap = nlfs_cp_flags_snapshot(fl);
	if (!*valid)
		return;
	if (cno > c->latest_cno) {
		fsck_problem(c, MSG_CP_PAST_LATEST, cno, c->latest_cno);
		*valid = *snap = false;
		return;
	}
	if (nlfs_le64(cp->cp_cno) != cno)
		fsck_problem(c, MSG_CP_CNO_FIELD, cno, nlfs_le64(cp->cp_cno));
	if (fl & ~CP_KNOWN)
		fsck_problem(c, MSG_CP_FLAGS_UNKNOWN, cno, fl);
	if ((nlfs_le16(in->i_mode) & NLFS_S_IFMT) != NLFS_S_IFREG || nlfs_le16(in->i_links_count) == 0)
		fsck_problem(c, MSG_CP_IFILE_MODE, cno, nlfs_le16(in->i_mode),
			     nlfs_le16(in->i_links_count));
}

static void check_snapshot_list(struct fsck *c, const struct nlfs_cphead *h,
				const struct u64s *snaps)
{
	uint64_t prev = 0, cno = h->snapshot_next;
	size_t i = 0;

	while (cno) {
		struct nlfs_cpinfo cp;
		struct nlfs_err err;

		if (i >= snaps->n) {
			fsck_problem(c, MSG_SNAPLIST_TOO_LONG, cno, prev);
			return;
		}
		if (snaps->v[i] != cno) {
			if (prev)
				fsck_problem(c, MSG_SNAPLIST_WRONG_NEXT, cno, prev, snaps->v[i]);
			else
				fsck_problem(c, MSG_SNAPLIST_WRONG_FIRST, cno, snaps->v[i]);
			return;
		}
		if (nlfs_cpfile_info(c->fs, cno, &cp, &err)) {
			fsck_lib_problem(c, MSG_SNAPLIST_READ, &err);
			return;
		}
		if (cp.prev != prev)
			fsck_problem(c, MSG_SNAPLIST_WRONG_PREV, cno,
				     cp.prev, prev);
		prev = cno;
		cno = cp.next;
		i++;
	}
	if (i < snaps->n)
		fsck_problem(c, MSG_SNAPLIST_TOO_SHORT, (uint64_t)i, snaps->v[i]);
	if (h->snapshot_prev != prev)
		fsck_problem(c, MSG_SNAPLIST_WRONG_LAST, h->snapshot_prev, prev);
}

/* the cpfile's entries as pass 5 reads them */
struct cp_scan {
	uint32_t esz, epb;             /* an entry's bytes, entries a block */
	uint64_t first;                /* the first entry's slot (the header's before) */
	struct u64s snaps, valid;      /* the checkpoints found, the snapshots among them */
	bool latest_ok;                /* the latest super root's checkpoint is one */
};

/* the entries of block B of the cpfile, read into BUF, and its count of
 * them: 0, or -ENOMEM (reported) */
static int check_cp_block(struct fsck *c, struct cp_scan *sc, uint64_t b, const uint8_t *buf)
{
	uint64_t nvalid;
	uint32_t count;

	for (uint32_t i = 0; i < sc->epb; i++) {
		uint64_t slot = b * sc->epb + i, cno;
		struct nlfs_checkpoint cp;
		bool v, s;

		if (slot < sc->first)
			continue;   /* the header */
		cno = slot - sc->first + 1;
		memcpy(&cp, buf + (size_t)i * sc->esz, sizeof(cp));
		check_entry(c, cno, &cp, &v, &s);
		if (!v)
			continue;
		if (push(&sc->valid, cno) || (s && push(&sc->snaps, cno))) {
			fsck_problem(c, MSG_OOM_CPFILE);
			return -ENOMEM;
		}
		if (cno == c->latest_cno)
			sc->latest_ok = true;
	}
	if (nlfs_cpfile_block_counts(sc->esz, c->g->blocksize, b, buf, c->latest_cno, &count,
				     &nvalid) && count != nvalid)
		fsck_problem(c, MSG_CP_BLOCK_COUNT, b, b * sc->epb - sc->first + 1,
			     b * sc->epb - sc->first + sc->epb, count, nvalid);
	return 0;
}

/* what pass 6 checks, into OUT: the latest, then the others asked for */
static void choose_checkpoints(struct fsck *c, const struct cp_scan *sc, struct u64s *out)
{
	if (sc->latest_ok && push(out, c->latest_cno) == 0) {
		const struct u64s *more = c->o.cps == CPS_ALL ? &sc->valid :
					  c->o.cps == CPS_SNAPSHOTS ? &sc->snaps : NULL;

		for (size_t i = 0; more && i < more->n; i++)
			if (more->v[i] != c->latest_cno && push(out, more->v[i]))
				break;
	}
}

int pass_cpfile(struct fsck *c, uint64_t **cnos, uint64_t *ncnos)
{
	uint32_t bs = c->g->blocksize, esz = nlfs_le16(c->sb->s_checkpoint_size);
	struct cp_scan sc = { .esz = esz, .epb = bs / esz, .first = nlfs_cpfile_first_slot(esz) };
	struct fsck_file_check fc = { .metadata_current = true, .max_fs_units = 4 };
	struct nlfs_cphead h;
	struct u64s keys = { 0 }, out = { 0 };
	struct nlfs_file cpf, suf;
	struct nlfs_err err;
	uint8_t *buf = malloc(bs);
	int rc;

	*cnos = NULL;
	*ncnos = 0;
	if (!buf)
		return -ENOMEM;
	nlfs_fs_mdt_file(c->fs, NLFS_SUFILE_INO, &suf);
	fc.what = "sufile";
	check_file_map(c, &suf, &fc);
	nlfs_fs_mdt_file(c->fs, NLFS_CPFILE_INO, &cpf);
	fc.what = "cpfile";
	check_file_map(c, &cpf, &fc);
	rc = nlfs_cpfile_header(c->fs, &h, &err);
	if (rc) {
		fsck_lib_problem(c, MSG_CPFILE_HEADER_READ, &err);
		goto out;
	}
	rc = nlfs_bmap_iterate(c->fs, &cpf, collect_keys, &keys, &err);
	if (rc) {
		fsck_lib_problem(c, MSG_CPFILE_MAP, &err);
		goto out;
	}
	for (size_t k = 0; k < keys.n && !fsck_cancelled(c); k++) {
		bool hole;

		fsck_progress(c, 5, k, keys.n);
		if (nlfs_file_read_block(c->fs, &cpf, keys.v[k], buf, &hole, &err)) {
			fsck_lib_problem(c, MSG_CPFILE_BLOCK_READ, &err, keys.v[k]);
			continue;
		}
		rc = check_cp_block(c, &sc, keys.v[k], buf);
		if (rc)
			goto out;
	}
	if (!sc.latest_ok)
		fsck_problem(c, MSG_CP_LATEST_INVALID, c->latest_cno);
	if (h.ncheckpoints != sc.valid.n)
		fsck_problem(c, MSG_CP_NCHECKPOINTS, h.ncheckpoints, sc.valid.n);
	if (h.nsnapshots != sc.snaps.n)
		fsck_problem(c, MSG_CP_NSNAPSHOTS, h.nsnapshots, sc.snaps.n);
	check_snapshot_list(c, &h, &sc.snaps);
	c->ncheckpoints = sc.valid.n;
	c->nsnapshots = sc.snaps.n;
	choose_checkpoints(c, &sc, &out);
	*cnos = out.v;
	*ncnos = out.n;
	out.v = NULL;
	rc = 0;
out:
	free(out.v);
	free(keys.v);
	free(sc.snaps.v);
	free(sc.valid.v);
	free(buf);
	return rc;
}
