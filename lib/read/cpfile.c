/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpfile: the header and checkpoint entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

static int read_slot(struct nlfs_fs *fs, uint64_t slot, void *out, size_t len, bool *hole,
		     struct nlfs_err *err)
{
	return nlfs_mdt_read_entry(fs, NLFS_CPFILE_INO,
				   nlfs_le16(fs->sb[fs->choice.used].s_checkpoint_size), slot, out,
				   len, hole, err);
}

int nlfs_cpfile_header(struct nlfs_fs *fs, struct nlfs_cphead *out, struct nlfs_err *err)
{
	struct nlfs_cpfile_header h;
	bool hole;
	int rc = read_slot(fs, 0, &h, sizeof(h), &hole, err);

	if (rc)
		return rc;
	out->ncheckpoints = nlfs_le64(h.ch_ncheckpoints);
	out->nsnapshots = nlfs_le64(h.ch_nsnapshots);
	out->snapshot_next = nlfs_le64(h.ch_snapshot_next);
	out->snapshot_prev = nlfs_le64(h.ch_snapshot_prev);
	if (hole)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE, "cpfile header block is a hole");
	return 0;
}

bool nlfs_cpfile_block_counts(uint32_t esz, uint32_t blocksize, uint64_t blkoff,
			      const uint8_t *blk, uint64_t latest, uint32_t *count, uint64_t *nvalid)
{
	uint64_t epb = blocksize / esz, first = nlfs_cpfile_first_slot(esz), n = 0;
	struct nlfs_checkpoint cp;

	for (uint64_t k = blkoff ? 0 : first; k < epb && blkoff * epb + k - first < latest; k++) {
		memcpy(&cp, blk + k * esz, sizeof(cp));
		n += nlfs_cp_flags_valid(nlfs_le32(cp.cp_flags));
	}
	*nvalid = n;
	/* block 0's first slot is the header, so it keeps no count */
	if (blkoff == 0)
		return false;
	memcpy(&cp, blk, sizeof(cp));
	*count = nlfs_le32(cp.cp_checkpoints_count);
	return true;
}

int nlfs_cpfile_block_count_check(struct nlfs_fs *fs, uint64_t blkoff, const uint8_t *blk,
				  uint64_t *nvalid, struct nlfs_err *err)
{
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_checkpoint_size), count = 0;
	uint64_t n;
	bool kept = nlfs_cpfile_block_counts(esz, fs->geo.blocksize, blkoff, blk, UINT64_MAX,
					     &count, &n);

	if (nvalid)
		*nvalid = n;
	if (kept && count != n)
		return nlfs_err_set(err, NLFS_EDAMAGED, NLFS_NOWHERE,
				    "%s: cpfile block %llu: count %u, but %llu checkpoints are valid",
				    nlfs_io_name(fs->io), (unsigned long long)blkoff, count,
				    (unsigned long long)n);
	return 0;
}

int nlfs_cpfile_read(struct nlfs_fs *fs, uint64_t cno, struct nlfs_checkpoint *cp,
		     struct nlfs_err *err)
{
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_checkpoint_size);
	uint64_t first = nlfs_cpfile_first_slot(esz);
	bool hole;
	int rc;

	if (cno == 0)
		cno = fs->rec.cno;
	if (cno > fs->rec.cno)
		goto noent;
	rc = read_slot(fs, cno + first - 1, cp, sizeof(*cp), &hole, err);
	if (rc)
		return rc;
	if (hole || nlfs_le32(cp->cp_flags) & NLFS_CHECKPOINT_INVALID)
		goto noent;
	if (nlfs_le64(cp->cp_cno) != cno) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				  "checkpoint entry %llu says it is checkpoint %llu",
				  (unsigned long long)cno,
				  (unsigned long long)nlfs_le64(cp->cp_cno));
		if (err)
			err->cno = cno;
		return rc;
	}
	return 0;
noent:
	rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "checkpoint %llu", (unsigned long long)cno);
	if (err)
		err->cno = cno;
	return rc;
}

static void to_cpinfo(const uint8_t *raw, struct nlfs_cpinfo *ci);

int nlfs_cpfile_info(struct nlfs_fs *fs, uint64_t cno, struct nlfs_cpinfo *out,
		     struct nlfs_err *err)
{
	struct nlfs_checkpoint cp;
	int rc = nlfs_cpfile_read(fs, cno, &cp, err);

	if (!rc)
		to_cpinfo((const uint8_t *)&cp, out);
	return rc;
}

/*
 * The kernel's GET_CPSTAT/GET_CPINFO, computed from the image.  Entries are
 * read a cpfile block at a time; a hole is a block whose checkpoints were
 * all deleted.
 */
int nlfs_cpfile_stat(struct nlfs_fs *fs, struct nlfs_cpstat *st, struct nlfs_err *err)
{
	struct nlfs_cphead h;
	int rc = nlfs_cpfile_header(fs, &h, err);

	if (rc)
		return rc;
	st->cno = fs->rec.cno + 1;
	st->ncps = h.ncheckpoints;
	st->nsss = h.nsnapshots;
	return 0;
}

static void to_cpinfo(const uint8_t *raw, struct nlfs_cpinfo *ci)
{
	struct nlfs_checkpoint cp;

	memcpy(&cp, raw, sizeof(cp));
	ci->flags = nlfs_le32(cp.cp_flags);
	ci->cno = nlfs_le64(cp.cp_cno);
	ci->create = nlfs_le64(cp.cp_create);
	ci->nblk_inc = nlfs_le64(cp.cp_nblk_inc);
	ci->inodes_count = nlfs_le64(cp.cp_inodes_count);
	ci->blocks_count = nlfs_le64(cp.cp_blocks_count);
	ci->next = nlfs_le64(cp.cp_snapshot_next);
	ci->prev = nlfs_le64(cp.cp_snapshot_prev);
}

/*
 * An iterator keeps the cpfile's block map (read once, with one pass over
 * its B-tree) and the last block read, so that listing many checkpoints
 * costs about one read per cpfile block.  Those blocks lie wherever the
 * checkpoints that last changed them were written, one per few logs: the
 * iterator asks the disk for the DAT blocks of the next 3 * CP_AHEAD of
 * them and for the next 2 * CP_AHEAD themselves, so a cold listing waits
 * for the disk once per window instead of twice per block.
 */
#define CP_AHEAD 128

struct blkmap {
	uint64_t blkoff, ptr;
	uint64_t blocknr;       /* translated ahead; 0: not yet */
};

struct nlfs_cpfile_iter {
	struct nlfs_fs *fs;
	struct nlfs_file f;
	uint32_t esz, epb;
	uint64_t first;         /* slots the header takes */
	struct blkmap *map;     /* the cpfile's data blocks, by offset */
	size_t nmap, capmap;
	bool have_map;
	size_t dat_ahead, cp_ahead;   /* map entries asked for so far */
	uint8_t *buf;
	uint64_t blkoff;        /* of the block in buf; UINT64_MAX: none */
	bool hole;
};

int nlfs_cpfile_iter_open(struct nlfs_fs *fs, struct nlfs_cpfile_iter **out,
			  struct nlfs_err *err)
{
	struct nlfs_cpfile_iter *r = calloc(1, sizeof(*r));

	(void)err;
	if (!r || !(r->buf = malloc(fs->geo.blocksize))) {
		free(r);
		return -ENOMEM;
	}
	r->fs = fs;
	nlfs_fs_mdt_file(fs, NLFS_CPFILE_INO, &r->f);
	r->esz = nlfs_le16(fs->sb[fs->choice.used].s_checkpoint_size);
	r->epb = fs->geo.blocksize / r->esz;
	r->first = nlfs_cpfile_first_slot(r->esz);
	r->blkoff = UINT64_MAX;
	*out = r;
	return 0;
}

void nlfs_cpfile_iter_close(struct nlfs_cpfile_iter *r)
{
	if (!r)
		return;
	free(r->map);
	free(r->buf);
	free(r);
}

static int add_block(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct nlfs_cpfile_iter *r = arg;

	if (level != 0)
		return 0;
	if (NLFS_GROW(r->map, r->capmap, r->nmap + 1))
		return -ENOMEM;
	r->map[r->nmap].blkoff = blkoff;
	r->map[r->nmap].blocknr = 0;
	r->map[r->nmap++].ptr = ptr;
	return 0;
}

/* for nlfs_lower_bound: block offset *KEY against a map entry's */
static int cmp_blkoff(const void *key, const void *elem)
{
	return nlfs_cmp_u64(key, &((const struct blkmap *)elem)->blkoff);
}

/* the map entry of cpfile block BLKOFF, NULL for a hole */
static int map_lookup(struct nlfs_cpfile_iter *r, uint64_t blkoff, struct blkmap **m,
		      struct nlfs_err *err)
{
	size_t lo;

	if (!r->have_map) {
		int rc = nlfs_bmap_iterate(r->fs, &r->f, add_block, r, err);

		if (rc)
			return rc;
		r->have_map = true;
	}
	*m = NULL;
	/* nlfs_bmap_iterate goes in key order */
	lo = nlfs_lower_bound(&blkoff, r->map, r->nmap, sizeof(*r->map), cmp_blkoff);
	if (lo < r->nmap && r->map[lo].blkoff == blkoff)
		*m = &r->map[lo];
	return 0;
}

/* the disk asked for what follows map entry I (see CP_AHEAD); a hint */
static void read_ahead(struct nlfs_cpfile_iter *r, size_t i)
{
	uint32_t bs = r->fs->geo.blocksize;
	uint64_t vbn[CP_AHEAD];
	size_t end;

	if (i + CP_AHEAD / 2 < r->cp_ahead)
		return;
	if (r->dat_ahead < i)
		r->dat_ahead = i;
	end = i + 3 * CP_AHEAD < r->nmap ? i + 3 * CP_AHEAD : r->nmap;
	while (r->dat_ahead < end) {
		size_t n = 0;

		for (; r->dat_ahead < end && n < CP_AHEAD; r->dat_ahead++)
			if (r->map[r->dat_ahead].ptr)
				vbn[n++] = r->map[r->dat_ahead].ptr;
		nlfs_dat_prefetch(r->fs, vbn, n);
	}
	if (r->cp_ahead < i)
		r->cp_ahead = i;
	end = i + 2 * CP_AHEAD < r->nmap ? i + 2 * CP_AHEAD : r->nmap;
	for (; r->cp_ahead < end; r->cp_ahead++) {
		struct blkmap *m = &r->map[r->cp_ahead];

		if (m->blocknr || !m->ptr ||
		    nlfs_file_block_addr(r->fs, &r->f, m->ptr, &m->blocknr, NULL))
			continue;
		nlfs_io_prefetch(r->fs->io, m->blocknr * bs, bs);
	}
}

/* the raw entry of checkpoint CNO, or NULL in a hole */
static int cp_reader_get(struct nlfs_cpfile_iter *r, uint64_t cno, const uint8_t **entry,
			 struct nlfs_err *err)
{
	uint64_t slot = cno + r->first - 1, blocknr;
	uint32_t bs = r->fs->geo.blocksize;
	int rc;

	if (slot / r->epb != r->blkoff) {
		struct blkmap *m;

		r->blkoff = UINT64_MAX;
		rc = map_lookup(r, slot / r->epb, &m, err);
		if (rc)
			return rc;
		if (m)
			read_ahead(r, (size_t)(m - r->map));
		blocknr = m ? m->blocknr : 0;
		if (m && !blocknr) {
			rc = nlfs_file_block_addr(r->fs, &r->f, m->ptr, &blocknr, err);
			if (rc)
				return rc;
		}
		r->hole = blocknr == 0;
		if (!r->hole && (rc = nlfs_io_read(r->fs->io, r->buf, bs, blocknr * bs)) != 0) {
			rc = nlfs_err_set(err, rc, blocknr, "%s: reading block %llu of the cpfile",
					  nlfs_io_name(r->fs->io), (unsigned long long)(slot / r->epb));
			if (err)
				err->ino = NLFS_CPFILE_INO;
			return rc;
		}
		r->blkoff = slot / r->epb;
	}
	*entry = r->hole ? NULL : r->buf + (slot % r->epb) * r->esz;
	return 0;
}

/* the first checkpoint number of the cpfile block after CNO's */
static uint64_t cp_next_block(const struct nlfs_cpfile_iter *r, uint64_t cno)
{
	return ((cno + r->first - 1) / r->epb + 1) * r->epb - r->first + 1;
}

static int list_checkpoints(struct nlfs_cpfile_iter *r, uint64_t *cnop, struct nlfs_cpinfo *ci,
			    size_t n, size_t *got, struct nlfs_err *err)
{
	uint64_t cno = *cnop, last = r->fs->rec.cno;

	if (cno == 0)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "checkpoint 0 does not exist");
	while (*got < n && cno <= last) {
		const uint8_t *e;
		nlfs_le32_t flags;
		int rc = cp_reader_get(r, cno, &e, err);

		if (rc)
			return rc;
		if (!e) {
			cno = cp_next_block(r, cno);
			continue;
		}
		memcpy(&flags, e, sizeof(flags));
		if (nlfs_cp_flags_valid(nlfs_le32(flags)))
			to_cpinfo(e, &ci[(*got)++]);
		cno++;
	}
	/* where the walk stopped, not past the last entry's own cp_cno: a
	 * damaged one would send the caller back or far ahead */
	if (*got)
		*cnop = cno;
	return 0;
}

static int list_snapshots(struct nlfs_cpfile_iter *r, uint64_t *cnop, struct nlfs_cpinfo *ci,
			  size_t n, size_t *got, struct nlfs_err *err)
{
	uint64_t cur = *cnop, last = r->fs->rec.cno;
	int rc;

	if (cur == 0) {
		struct nlfs_cphead h;

		rc = nlfs_cpfile_header(r->fs, &h, err);
		if (rc)
			return rc;
		cur = h.snapshot_next;
		if (cur == 0)
			return 0;
	} else if (cur == UINT64_MAX) {
		return 0;
	}
	while (*got < n) {
		const uint8_t *e;
		struct nlfs_cpinfo c;

		if (cur > last) {
			rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "snapshot list names checkpoint %llu, past the latest",
					  (unsigned long long)cur);
			if (err)
				err->cno = cur;
			return rc;
		}
		rc = cp_reader_get(r, cur, &e, err);
		if (rc)
			return rc;
		if (!e) {
			if (*got == 0)   /* started in a hole: no snapshots */
				return 0;
			rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "snapshot list leads into a hole of the cpfile");
			if (err)
				err->cno = cur;
			return rc;
		}
		to_cpinfo(e, &c);
		if (!nlfs_cp_flags_snapshot(c.flags)) {
			cur = UINT64_MAX;
			break;
		}
		ci[(*got)++] = c;
		if (c.next == 0) {
			cur = UINT64_MAX;
			break;
		}
		/* against the entry's place, not its own cp_cno: a damaged number
		 * would let a link back pass, and the walk go round for ever */
		if (c.next <= cur) {
			rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "snapshot list not ascending: %llu after %llu",
					  (unsigned long long)c.next, (unsigned long long)cur);
			if (err)
				err->cno = cur;
			return rc;
		}
		cur = c.next;
	}
	*cnop = cur;
	return 0;
}

int nlfs_cpfile_iter_list(struct nlfs_cpfile_iter *it, uint64_t *cnop,
			  enum nlfs_cpinfo_mode mode, struct nlfs_cpinfo *ci, size_t n, size_t *got,
			  struct nlfs_err *err)
{
	*got = 0;
	if (mode == NLFS_CPINFO_CHECKPOINTS)
		return list_checkpoints(it, cnop, ci, n, got, err);
	if (mode == NLFS_CPINFO_SNAPSHOTS)
		return list_snapshots(it, cnop, ci, n, got, err);
	return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "checkpoint list mode %d", mode);
}

int nlfs_cpfile_list(struct nlfs_fs *fs, uint64_t *cnop, enum nlfs_cpinfo_mode mode,
		     struct nlfs_cpinfo *ci, size_t n, size_t *got, struct nlfs_err *err)
{
	struct nlfs_cpfile_iter *it;
	int rc;

	*got = 0;
	rc = nlfs_cpfile_iter_open(fs, &it, err);
	if (rc)
		return rc;
	rc = nlfs_cpfile_iter_list(it, cnop, mode, ci, n, got, err);
	nlfs_cpfile_iter_close(it);
	return rc;
}
