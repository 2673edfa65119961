/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sufile: the header and per-segment usage. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "nlfsP.h"

/* a hole in the sufile reads as clean segments */
static int read_sufile_slot(struct nlfs_fs *fs, uint64_t slot, void *out, size_t len,
			    struct nlfs_err *err)
{
	bool hole;

	return nlfs_mdt_read_entry(fs, NLFS_SUFILE_INO,
				   nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size), slot,
				   out, len, &hole, err);
}

int nlfs_sufile_header(struct nlfs_fs *fs, struct nlfs_sufile_header *h, struct nlfs_err *err)
{
	int rc = read_sufile_slot(fs, 0, h, sizeof(*h), err);

	if (rc)
		return rc;
	h->sh_ncleansegs = nlfs_le64(h->sh_ncleansegs);
	h->sh_ndirtysegs = nlfs_le64(h->sh_ndirtysegs);
	h->sh_last_alloc = nlfs_le64(h->sh_last_alloc);
	return 0;
}

int nlfs_sufile_get(struct nlfs_fs *fs, uint64_t segnum, struct nlfs_segment_usage *su,
		    struct nlfs_err *err)
{
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size);
	uint64_t first = (sizeof(struct nlfs_sufile_header) + esz - 1) / esz;
	int rc;

	if (segnum >= fs->geo.nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %llu does not exist",
				    (unsigned long long)segnum);
	rc = read_sufile_slot(fs, segnum + first, su, sizeof(*su), err);
	if (rc)
		return rc;
	su->su_lastmod = nlfs_le64(su->su_lastmod);
	su->su_nblocks = nlfs_le32(su->su_nblocks);
	su->su_flags = nlfs_le32(su->su_flags);
	return 0;
}

int nlfs_sufile_get_many(struct nlfs_fs *fs, uint64_t segnum, size_t n,
			 struct nlfs_segment_usage *su, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_segment_usage_size);
	uint64_t first = (sizeof(struct nlfs_sufile_header) + esz - 1) / esz;
	uint32_t epb = bs / esz;
	uint64_t loaded = UINT64_MAX;
	struct nlfs_file f;
	uint8_t *buf;
	int rc = 0;

	if (segnum > fs->geo.nsegments || n > fs->geo.nsegments - segnum)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segments %llu..%llu do not exist",
				    (unsigned long long)segnum,
				    (unsigned long long)(segnum + n - 1));
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	nlfs_fs_mdt_file(fs, NLFS_SUFILE_INO, &f);
	for (size_t i = 0; i < n; i++) {
		uint64_t slot = segnum + i + first;
		bool hole;

		if (slot / epb != loaded) {
			rc = nlfs_file_read_block(fs, &f, slot / epb, buf, &hole, err);
			if (rc)
				break;
			loaded = slot / epb;
		}
		memcpy(&su[i], buf + (slot % epb) * esz, sizeof(su[i]));
		su[i].su_lastmod = nlfs_le64(su[i].su_lastmod);
		su[i].su_nblocks = nlfs_le32(su[i].su_nblocks);
		su[i].su_flags = nlfs_le32(su[i].su_flags);
	}
	free(buf);
	return rc;
}
