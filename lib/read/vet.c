/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vet: the quick structural check an offline writer runs before its first
 * write (resize2fs insists on a checked filesystem for the same reason).
 * It reads what a construction relies on, not what a full fsck reads:
 * both superblock copies (each valid, alike in every field the kernel keeps
 * equal, the cursor of the one in use at a sound super-root log: the
 * writer rewrites both from it), the metadata files' headers against the
 * counts they keep (the sufile's clean and dirty segments, the cpfile's
 * checkpoints and snapshots, each DAT group's free entries).  The log
 * chain from the cursor was read when FS was opened (the logs after it).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

#define VET_SU_CHUNK 4096u
#define VET_CP_CHUNK 512u

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

static int vet_cpfile(struct nlfs_fs *fs, struct nlfs_err *err)
{
	struct nlfs_cphead h;
	struct nlfs_cpfile_iter *it = NULL;
	struct nlfs_cpinfo *ci;
	uint64_t cno = 1, ncps = 0, nsnaps = 0;
	size_t got;
	int rc = nlfs_cpfile_header(fs, &h, err);

	if (rc)
		return rc;
	ci = malloc(VET_CP_CHUNK * sizeof(*ci));
	if (!ci)
		return -ENOMEM;
	rc = nlfs_cpfile_iter_open(fs, &it, err);
	do {
		got = 0;
		if (!rc)
			rc = nlfs_cpfile_iter_list(it, &cno, NLFS_CPINFO_CHECKPOINTS, ci,
						   VET_CP_CHUNK, &got, err);
		for (size_t i = 0; !rc && i < got; i++) {
			ncps++;
			nsnaps += nlfs_cp_flags_snapshot(ci[i].flags);
		}
	} while (!rc && got == VET_CP_CHUNK);
	nlfs_cpfile_iter_close(it);
	free(ci);
	if (rc)
		return rc;
	if (h.ncheckpoints != ncps || h.nsnapshots != nsnaps)
		return damaged(fs, err,
				"cpfile header: %llu checkpoints and %llu snapshots, but the "
				"entries say %llu and %llu",
				(unsigned long long)h.ncheckpoints,
				(unsigned long long)h.nsnapshots,
				(unsigned long long)ncps, (unsigned long long)nsnaps);
	return 0;
}

static int vet_dat(struct nlfs_fs *fs, struct nlfs_err *err)
{
	uint32_t bs = nlfs_fs_geometry(fs)->blocksize;
	uint32_t esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_dat_entry_size);
	uint64_t epg = (uint64_t)bs * 8, *keys = NULL, *groups = NULL, nbeyond = 0;
	size_t nkeys = 0, ngroups = 0;
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	struct nlfs_file dat;
	int rc;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	rc = nlfs_bmap_keys(fs, &dat, &keys, &nkeys, err);
	if (!rc)
		rc = nlfs_palloc_groups_of(bs, esz, keys, nkeys, &groups, &ngroups, &nbeyond);
	free(keys);
	if (!rc && nbeyond)
		rc = damaged(fs, err, "DAT: %llu blocks past its entry space",
			     (unsigned long long)nbeyond);
	pg.desc = malloc(bs);
	pg.bitmap = malloc(bs);
	if (!rc && (!pg.desc || !pg.bitmap))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < ngroups; i++) {
		uint64_t used = 0;

		rc = nlfs_palloc_read_group(fs, &dat, esz, groups[i], &pg, err);
		if (rc)
			break;
		for (uint32_t b = 0; b < bs; b++)
			used += (uint64_t)__builtin_popcount(pg.bitmap[b]);
		if (nlfs_palloc_group_nfree(&pg, epg) != epg - used)
			rc = damaged(fs, err,
					"DAT: group %llu counts %llu free entries, its bitmap %llu",
					(unsigned long long)groups[i],
					(unsigned long long)nlfs_palloc_group_nfree(&pg, epg),
					(unsigned long long)(epg - used));
	}
	free(pg.desc);
	free(pg.bitmap);
	free(groups);
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

void nlfs_fs_vet_skip(struct nlfs_fs *fs)
{
	fs->vet = NLFS_VET_SKIPPED;
}
