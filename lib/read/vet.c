/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vet: the quick structural check an offline writer runs before its first
 * write (resize2fs insists on a checked filesystem for the same reason).
 * It reads what a construction relies on, not what a full fsck reads:
 * both superblock copies (each valid, alike in every field the kernel keeps
 * equal, the cursor of the one in use at a sound super-root log: the
 * writer rewrites both from it), the sufile's header against the clean and
 * dirty segments it counts, and the parts of the DAT and the cpfile a
 * construction reads or changes (below: their cost follows those, not the
 * volume's history).
 * The log chain from the cursor was read when FS was opened (the logs
 * after it).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

#define VET_SU_CHUNK 4096u

/* "DEVICE: what is wrong", with the code the commands know (NLFS_EDAMAGED) */
static int damaged(struct nlfs_fs *fs, struct nlfs_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int damaged(struct nlfs_fs *fs, struct nlfs_err *err, const char *fmt, ...)
{
	char what[sizeof(err->what)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return nlfs_err_set(err, NLFS_EDAMAGED, NLFS_NOWHERE, "%s: %s",
			    nlfs_io_name(nlfs_fs_io(fs)), what);
}

static int vet_superblocks(struct nlfs_fs *fs, struct nlfs_err *err)
{
	const struct nlfs_sb_choice *ch = nlfs_fs_sb_choice(fs);
	static const char *const names[2] = { "primary", "secondary" };
	const struct nlfs_super_block *sb;
	struct nlfs_log log;
	const char *field, *why;

	for (int i = 0; i < 2; i++) {
		const struct nlfs_sb_status *st = &ch->status[i];

		/* no magic at all is a device grown under the volume (the
		 * secondary copy not yet at its end), which the kernel mounts */
		if (!st->valid && st->error != NLFS_EBADMAGIC && st->error != -NLFS_EBADMAGIC)
			return damaged(fs, err,
					"%s superblock (byte %llu): %s", names[i],
					(unsigned long long)st->offset,
					nlfs_strerror(st->error ? st->error : NLFS_ECORRUPT));
	}
	/* a field updated in place may differ after a crash: the writer
	 * rewrites both copies from the one in use, as the kernel would */
	for (int i = ch->status[0].valid && ch->status[1].valid ?
		     nlfs_sb_fixed_differ(&fs->sb[0], &fs->sb[1], 0, &field) : -1;
	     i >= 0; i = nlfs_sb_fixed_differ(&fs->sb[0], &fs->sb[1], i + 1, &field))
		if (!nlfs_sb_field_updated_in_place(i))
			return damaged(fs, err,
				       "superblocks: the primary and secondary copies differ in %s",
				       field);
	sb = &fs->sb[ch->used];
	why = nlfs_log_cursor_problem(fs, nlfs_le64(sb->s_last_pseg), nlfs_le64(sb->s_last_seq),
				      &log);
	if (why || fs->rec.from_other_sb)
		return damaged(fs, err, "%s superblock: log cursor (block %llu, sequence %llu): %s",
			       names[ch->used], (unsigned long long)nlfs_le64(sb->s_last_pseg),
			       (unsigned long long)nlfs_le64(sb->s_last_seq),
			       why ? why : "searching from it fails");
	return 0;
}

static int vet_sufile(struct nlfs_fs *fs, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	struct nlfs_suinfo *su;
	struct nlfs_suhead h;
	uint64_t nclean = 0, ndirty = 0;
	int rc = nlfs_sufile_header(fs, &h, err);

	if (rc)
		return rc;
	su = malloc(VET_SU_CHUNK * sizeof(*su));
	if (!su)
		return -ENOMEM;
	for (uint64_t base = 0; !rc && base < g->nsegments; base += VET_SU_CHUNK) {
		size_t n = g->nsegments - base < VET_SU_CHUNK ? g->nsegments - base : VET_SU_CHUNK;

		rc = nlfs_sufile_get_many(fs, base, n, su, err);
		for (size_t i = 0; !rc && i < n; i++) {
			if (nlfs_su_flags_clean(su[i].flags))
				nclean++;
			else if (nlfs_su_flags_dirty(su[i].flags))
				ndirty++;
		}
	}
	free(su);
	if (rc)
		return rc;
	if (h.ncleansegs != nclean || h.ndirtysegs != ndirty)
		return damaged(fs, err,
				"sufile header: %llu clean and %llu dirty segments, but the "
				"segments say %llu and %llu",
				(unsigned long long)h.ncleansegs,
				(unsigned long long)h.ndirtysegs,
				(unsigned long long)nclean, (unsigned long long)ndirty);
	if (h.last_alloc >= g->nsegments)
		return damaged(fs, err,
				"sufile header: last allocated segment %llu of %llu",
				(unsigned long long)h.last_alloc,
				(unsigned long long)g->nsegments);
	return 0;
}

/*
 * The cpfile is read where a construction reads or changes it, not whole
 * (a volume's history can hold millions of checkpoints): the header, the
 * block of the latest checkpoint (the next one goes there or after it),
 * and the snapshot list, which chcp walks and relinks.  Each block read
 * must hold as many valid checkpoints as its count says; the list must
 * run ascending through valid snapshots, linked both ways, and hold as
 * many as the header counts.  The header's checkpoint count is exact when
 * those blocks are all the cpfile has, and otherwise must fit what the
 * blocks left unread can hold.
 */
struct cp_vet {
	struct nlfs_fs *fs;
	struct nlfs_file f;
	uint32_t esz, epb;
	uint64_t first, latest;   /* the header's slots; the latest checkpoint */
	uint64_t nvalid, nread;   /* valid checkpoints in the blocks read, and those blocks */
	uint8_t *buf[3];          /* block 0, the latest checkpoint's, one of the list's */
	uint64_t blkoff[3];       /* of each buffer; UINT64_MAX: none yet */
};

/* read block B into buffer I, check its entries and count, and add up its
 * valid checkpoints */
static int cp_vet_read(struct cp_vet *v, int i, uint64_t b, struct nlfs_err *err)
{
	struct nlfs_checkpoint cp;
	uint64_t n = 0;
	bool hole;
	int rc = nlfs_file_read_block(v->fs, &v->f, b, v->buf[i], &hole, err);

	if (rc)
		return rc;
	v->blkoff[i] = b;
	v->nread++;
	for (uint32_t k = 0; !hole && k < v->epb; k++) {
		uint64_t slot = b * v->epb + k, cno = slot - v->first + 1;

		memcpy(&cp, v->buf[i] + (size_t)k * v->esz, sizeof(cp));
		if (slot < v->first || !nlfs_cp_flags_valid(nlfs_le32(cp.cp_flags)))
			continue;
		/* the next checkpoint's entry must be free; the latest's ifile
		 * inode is the one the construction starts from */
		if (cno > v->latest)
			return damaged(v->fs, err, "checkpoint %llu, past the latest (%llu), is valid",
				       (unsigned long long)cno, (unsigned long long)v->latest);
		if (nlfs_le64(cp.cp_cno) != cno)
			return damaged(v->fs, err, "checkpoint %llu: its entry says checkpoint %llu",
				       (unsigned long long)cno, (unsigned long long)nlfs_le64(cp.cp_cno));
		if (cno == v->latest && !nlfs_cp_ifile_inode_ok(&cp.cp_ifile_inode))
			return damaged(v->fs, err, "checkpoint %llu: its ifile inode is not a regular file",
				       (unsigned long long)cno);
	}
	if (!hole && (rc = nlfs_cpfile_block_count_check(v->fs, b, v->buf[i], &n, err)))
		return rc;
	v->nvalid += n;
	return 0;
}

/* the entry of checkpoint CNO, reading its block if no buffer holds it */
static int cp_vet_entry(struct cp_vet *v, uint64_t cno, struct nlfs_checkpoint *cp,
			struct nlfs_err *err)
{
	uint64_t slot = cno + v->first - 1, b = slot / v->epb;
	int i = 0;

	while (i < 3 && v->blkoff[i] != b)
		i++;
	if (i == 3) {
		/* the list ascends: a block it left is not met again */
		int rc = cp_vet_read(v, 2, b, err);

		if (rc)
			return rc;
		i = 2;
	}
	memcpy(cp, v->buf[i] + (slot % v->epb) * v->esz, sizeof(*cp));
	return 0;
}

static int cp_vet_snapshots(struct cp_vet *v, const struct nlfs_cphead *h, struct nlfs_err *err)
{
	uint64_t prev = 0, n = 0;

	for (uint64_t cno = h->snapshot_next; cno; n++) {
		struct nlfs_checkpoint cp;
		int rc;

		if (cno <= prev || cno > v->latest)
			return damaged(v->fs, err,
				       "snapshot list: checkpoint %llu after %llu (the latest is %llu)",
				       (unsigned long long)cno, (unsigned long long)prev,
				       (unsigned long long)v->latest);
		rc = cp_vet_entry(v, cno, &cp, err);
		if (rc)
			return rc;
		if (!nlfs_cp_flags_snapshot(nlfs_le32(cp.cp_flags)))
			return damaged(v->fs, err, "snapshot list: checkpoint %llu is not a snapshot",
				       (unsigned long long)cno);
		if (nlfs_le64(cp.cp_snapshot_prev) != prev)
			return damaged(v->fs, err,
				       "snapshot list: checkpoint %llu links back to %llu, not %llu",
				       (unsigned long long)cno,
				       (unsigned long long)nlfs_le64(cp.cp_snapshot_prev),
				       (unsigned long long)prev);
		prev = cno;
		cno = nlfs_le64(cp.cp_snapshot_next);
	}
	if (h->snapshot_prev != prev)
		return damaged(v->fs, err,
			       "snapshot list: the header's last snapshot is %llu, the list ends at %llu",
			       (unsigned long long)h->snapshot_prev, (unsigned long long)prev);
	if (h->nsnapshots != n)
		return damaged(v->fs, err,
			       "cpfile header: %llu snapshots, but the snapshot list holds %llu",
			       (unsigned long long)h->nsnapshots, (unsigned long long)n);
	return 0;
}

static int vet_cpfile(struct nlfs_fs *fs, struct nlfs_err *err)
{
	uint32_t bs = nlfs_fs_geometry(fs)->blocksize;
	struct cp_vet v = { .fs = fs, .latest = nlfs_fs_recovery(fs)->cno };
	struct nlfs_cphead h;
	uint64_t last, unread;
	int rc = nlfs_cpfile_header(fs, &h, err);

	if (rc)
		return rc;
	nlfs_fs_mdt_file(fs, NLFS_CPFILE_INO, &v.f);
	v.esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_checkpoint_size);
	v.epb = bs / v.esz;
	v.first = nlfs_cpfile_first_slot(v.esz);
	last = (v.latest + v.first - 1) / v.epb;
	for (int i = 0; i < 3; i++) {
		v.blkoff[i] = UINT64_MAX;
		if (!(v.buf[i] = malloc(bs)))
			rc = -ENOMEM;
	}
	if (!rc)
		rc = cp_vet_read(&v, 0, 0, err);
	if (!rc && last > 0)
		rc = cp_vet_read(&v, 1, last, err);
	if (!rc)
		rc = cp_vet_snapshots(&v, &h, err);
	for (int i = 0; i < 3; i++)
		free(v.buf[i]);
	if (rc)
		return rc;
	/* each block not read holds at most a block's worth */
	unread = last + 1 - v.nread;
	if (h.ncheckpoints < v.nvalid || h.ncheckpoints - v.nvalid > unread * v.epb)
		return unread ?
		       damaged(fs, err,
			       "cpfile header: %llu checkpoints, but the %llu blocks read hold %llu "
			       "and the %llu others at most %llu",
			       (unsigned long long)h.ncheckpoints, (unsigned long long)v.nread,
			       (unsigned long long)v.nvalid, (unsigned long long)unread,
			       (unsigned long long)(unread * v.epb)) :
		       damaged(fs, err, "cpfile header: %llu checkpoints, but the entries say %llu",
			       (unsigned long long)h.ncheckpoints, (unsigned long long)v.nvalid);
	return 0;
}

/*
 * The DAT is read where a construction allocates in it: the writer's
 * allocator goes from group 0 past the groups whose descriptor counts no
 * free entry and takes one from the first group that counts some, in its
 * bitmap.  Each group read must count what its bitmap leaves free.  (The
 * other groups' counts change only by the entries the construction frees
 * in them, as the kernel changes them; the sufile, by contrast, is read
 * whole: its header's clean segments decide the writer's reserve, the
 * free blocks the superblocks record, the offline cleaner's target and
 * whether a shrink fits, and only its entries can say whether that count
 * is right.)
 */
static int vet_dat(struct nlfs_fs *fs, struct nlfs_err *err)
{
	uint32_t bs = nlfs_fs_geometry(fs)->blocksize;
	uint32_t esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_dat_entry_size);
	uint64_t epg = (uint64_t)bs * 8, nfree = 0;
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	struct nlfs_file dat;
	int rc = 0;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	pg.desc = malloc(bs);
	pg.bitmap = malloc(bs);
	if (!pg.desc || !pg.bitmap)
		rc = -ENOMEM;
	/* past the groups in use, a descriptor block is a hole: all free */
	for (uint64_t group = 0; !rc && !nfree && group <= UINT64_MAX / epg; group++) {
		uint64_t used = 0;

		rc = nlfs_palloc_read_group(fs, &dat, esz, group, &pg, err);
		if (rc)
			break;
		for (uint32_t b = 0; b < bs; b++)
			used += (uint64_t)__builtin_popcount(pg.bitmap[b]);
		nfree = nlfs_palloc_group_nfree(&pg, epg);
		if (nfree != epg - used)
			rc = damaged(fs, err,
					"DAT: group %llu counts %llu free entries, its bitmap %llu",
					(unsigned long long)group, (unsigned long long)nfree,
					(unsigned long long)(epg - used));
	}
	free(pg.desc);
	free(pg.bitmap);
	return rc;
}

int nlfs_fs_vet(struct nlfs_fs *fs, struct nlfs_err *err)
{
	int rc;

	if (fs->vet != NLFS_VET_UNKNOWN)
		return 0;
	rc = vet_superblocks(fs, err);
	if (!rc)
		rc = vet_sufile(fs, err);
	if (!rc)
		rc = vet_cpfile(fs, err);
	if (!rc)
		rc = vet_dat(fs, err);
	if (!rc)
		fs->vet = NLFS_VET_SOUND;
	return rc;
}

int nlfs_fs_vet_cp_range(struct nlfs_fs *fs, uint64_t start, uint64_t end, struct nlfs_err *err)
{
	uint32_t esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_checkpoint_size);
	uint32_t bs = nlfs_fs_geometry(fs)->blocksize, epb = bs / esz;
	uint64_t first = nlfs_cpfile_first_slot(esz);
	struct nlfs_file f;
	uint8_t *buf;
	int rc = 0;

	if (fs->vet == NLFS_VET_SKIPPED || start >= end)
		return 0;
	if (!(buf = malloc(bs)))
		return -ENOMEM;
	nlfs_fs_mdt_file(fs, NLFS_CPFILE_INO, &f);
	/* a hole is a block whose checkpoints were all deleted */
	for (uint64_t b = (start + first - 1) / epb; !rc && b <= (end + first - 2) / epb; b++) {
		bool hole;

		rc = nlfs_file_read_block(fs, &f, b, buf, &hole, err);
		if (!rc && !hole)
			rc = nlfs_cpfile_block_count_check(fs, b, buf, NULL, err);
	}
	free(buf);
	return rc;
}

void nlfs_fs_vet_skip(struct nlfs_fs *fs)
{
	fs->vet = NLFS_VET_SKIPPED;
}
