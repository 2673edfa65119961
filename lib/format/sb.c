/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Both superblocks: location, CRC, sanity, and the kernel's choice. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

uint64_t nlfs_sb2_offset(uint64_t devsize)
{
	if (devsize < 8192)
		return 0;
	return ((devsize >> 12) - 1) << 12;
}

uint64_t nlfs_nsegments_for(uint64_t devsize, uint32_t blocksize, uint32_t blocks_per_segment)
{
	return nlfs_sb2_offset(devsize) / blocksize / blocks_per_segment;
}

uint64_t nlfs_nrsvsegs(uint32_t percentage, uint64_t nsegments)
{
	uint64_t n = (nsegments * percentage + 99) / 100;

	return n < NLFS_MIN_NRSVSEGS ? NLFS_MIN_NRSVSEGS : n;
}

uint32_t nlfs_sb_crc(const struct nlfs_super_block *sb)
{
	static const uint8_t zero[4];
	uint16_t bytes = nlfs_le16(sb->s_bytes);
	const uint8_t *p = (const uint8_t *)sb;
	uint32_t seed = nlfs_le32(sb->s_crc_seed);
	const size_t sum_off = offsetof(struct nlfs_super_block, s_sum);
	uint32_t crc;

	if (bytes > NLFS_SB_SIZE)
		bytes = NLFS_SB_SIZE;
	if (bytes < sum_off + 4)
		return nlfs_crc32(seed, p, bytes);
	/* s_sum itself is taken as zero */
	crc = nlfs_crc32(seed, p, sum_off);
	crc = nlfs_crc32(crc, zero, 4);
	return nlfs_crc32(crc, p + sum_off + 4, bytes - sum_off - 4);
}

int nlfs_sb_check_crc(const struct nlfs_super_block *sb)
{
	uint16_t bytes = nlfs_le16(sb->s_bytes);

	if (nlfs_le16(sb->s_magic) != NLFS_SB_MAGIC)
		return -NLFS_EBADMAGIC;
	if (bytes < NLFS_SB_MIN_BYTES || bytes > NLFS_SB_SIZE)
		return -NLFS_ECORRUPT;
	if (nlfs_sb_crc(sb) != nlfs_le32(sb->s_sum))
		return -NLFS_EBADCRC;
	return 0;
}

void nlfs_sb_update_crc(struct nlfs_super_block *sb)
{
	sb->s_sum = nlfs_cpu_to_le32(nlfs_sb_crc(sb));
}

static int size_field_ok(uint16_t v, unsigned min, uint32_t blocksize)
{
	return v >= min && v <= blocksize;
}

int nlfs_sb_check_geometry(const struct nlfs_super_block *sb, uint64_t devsize,
			   struct nlfs_err *err)
{
	uint32_t log_bs = nlfs_le32(sb->s_log_block_size);
	uint32_t bps = nlfs_le32(sb->s_blocks_per_segment);
	uint64_t nsegs = nlfs_le64(sb->s_nsegments);
	uint64_t first = nlfs_le64(sb->s_first_data_block);
	uint32_t pct = nlfs_le32(sb->s_r_segments_percentage);
	uint32_t bs;
	uint64_t devblocks;

	if (nlfs_le32(sb->s_rev_level) < NLFS_CURRENT_REV)
		return nlfs_err_set(err, NLFS_EREVISION, NLFS_NOWHERE,
				    "superblock revision %u.%u (need %u)",
				    nlfs_le32(sb->s_rev_level),
				    nlfs_le16(sb->s_minor_rev_level), NLFS_CURRENT_REV);
	if (nlfs_le64(sb->s_feature_incompat) & ~NLFS_FEATURE_INCOMPAT_SUPP)
		return nlfs_err_set(err, NLFS_EFEATURE, NLFS_NOWHERE,
				    "unknown incompatible features 0x%llx",
				    (unsigned long long)nlfs_le64(sb->s_feature_incompat));
	if (log_bs > NLFS_MAX_LOG_BLOCK_SIZE)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "s_log_block_size %u out of range", log_bs);
	bs = NLFS_MIN_BLOCK_SIZE << log_bs;
	if (bps < NLFS_MIN_BLOCKS_PER_SEG)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "s_blocks_per_segment %u below %u", bps,
				    NLFS_MIN_BLOCKS_PER_SEG);
	if (pct < 1 || pct > 99)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "s_r_segments_percentage %u not in 1..99", pct);
	devblocks = devsize / bs;
	/* the usual cause named: a copy cut short, a partition made smaller */
	if (nsegs != 0 && nsegs > devblocks / bps && nlfs_le64(sb->s_dev_size) > devsize)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "the volume (%llu bytes) is larger than the device (%llu "
				    "bytes): a truncated image or a shrunk partition",
				    (unsigned long long)nlfs_le64(sb->s_dev_size),
				    (unsigned long long)devsize);
	if (nsegs == 0 || nsegs > devblocks / bps)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "%llu segments of %u blocks exceed the device (%llu blocks)",
				    (unsigned long long)nsegs, bps,
				    (unsigned long long)devblocks);
	if (first >= bps)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "s_first_data_block %llu outside segment 0",
				    (unsigned long long)first);
	if (nlfs_le32(sb->s_first_ino) < NLFS_FIRST_INO_MIN)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "s_first_ino %u below %u", nlfs_le32(sb->s_first_ino),
				    NLFS_FIRST_INO_MIN);
	if (!size_field_ok(nlfs_le16(sb->s_inode_size), NLFS_MIN_INODE_SIZE, bs) ||
	    !size_field_ok(nlfs_le16(sb->s_dat_entry_size), NLFS_MIN_DAT_ENTRY_SIZE, bs) ||
	    !size_field_ok(nlfs_le16(sb->s_checkpoint_size), NLFS_MIN_CHECKPOINT_SIZE, bs) ||
	    !size_field_ok(nlfs_le16(sb->s_segment_usage_size), NLFS_MIN_SEGUSAGE_SIZE, bs))
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "entry sizes out of range (inode %u, DAT %u, checkpoint %u, segusage %u)",
				    nlfs_le16(sb->s_inode_size), nlfs_le16(sb->s_dat_entry_size),
				    nlfs_le16(sb->s_checkpoint_size),
				    nlfs_le16(sb->s_segment_usage_size));
	if (NLFS_SR_BYTES(nlfs_le16(sb->s_inode_size)) > bs)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "inode size %u leaves no room for the super root",
				    nlfs_le16(sb->s_inode_size));
	if (nlfs_le64(sb->s_last_pseg) / bps >= nsegs)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "s_last_pseg %llu outside the segments",
				    (unsigned long long)nlfs_le64(sb->s_last_pseg));
	return 0;
}

static void read_copy(struct nlfs_io *io, uint64_t off, struct nlfs_super_block *sb,
		      struct nlfs_sb_status *st)
{
	st->offset = off;
	st->read_ok = false;
	st->valid = false;
	if (off == 0 || (st->error = nlfs_io_read(io, sb, sizeof(*sb), off)) != 0) {
		if (off == 0)
			st->error = -ENODATA;
		memset(sb, 0, sizeof(*sb));
		return;
	}
	st->read_ok = true;
	st->error = nlfs_sb_check_crc(sb);
	st->valid = st->error == 0;
}

int nlfs_sb_read_both(struct nlfs_io *io, struct nlfs_super_block sb[2],
		      struct nlfs_sb_choice *c, struct nlfs_err *err)
{
	uint64_t devsize;
	int rc = nlfs_io_size(io, &devsize);
	struct nlfs_sb_status *s1 = &c->status[0], *s2 = &c->status[1];

	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: cannot get device size",
				    nlfs_io_name(io));
	read_copy(io, NLFS_SB_OFFSET_BYTES, &sb[0], s1);
	read_copy(io, nlfs_sb2_offset(devsize), &sb[1], s2);

	if (!s1->valid && !s2->valid) {
		rc = s1->error ? s1->error : s2->error;
		return nlfs_err_set(err, rc, NLFS_NOWHERE,
				    "%s: no valid NILFS2 superblock (primary: %s; secondary: %s)",
				    nlfs_io_name(io), nlfs_strerror(s1->error),
				    nlfs_strerror(s2->error));
	}
	/* The kernel prefers the secondary only when it is strictly newer. */
	if (!s1->valid) {
		c->used = NLFS_SB_SECONDARY;
		c->reason = "primary superblock is invalid";
	} else if (s2->valid && nlfs_le64(sb[1].s_last_cno) > nlfs_le64(sb[0].s_last_cno)) {
		c->used = NLFS_SB_SECONDARY;
		c->reason = "secondary superblock has a newer checkpoint";
	} else {
		c->used = NLFS_SB_PRIMARY;
		c->reason = s2->valid ? "primary superblock is at least as new"
				      : "secondary superblock is invalid";
	}
	rc = nlfs_sb_check_geometry(&sb[c->used], devsize, err);
	if (rc)
		return rc;
	/* A secondary inside the segment area cannot be a real copy. */
	if (s2->valid) {
		const struct nlfs_super_block *u = &sb[c->used];
		uint32_t bs = NLFS_MIN_BLOCK_SIZE << nlfs_le32(u->s_log_block_size);

		if (s2->offset / bs / nlfs_le32(u->s_blocks_per_segment) <
		    nlfs_le64(u->s_nsegments)) {
			s2->valid = false;
			s2->error = -NLFS_ECORRUPT;
		}
	}
	return 0;
}

#define SBFIELD(f, in_place) { #f, offsetof(struct nlfs_super_block, f), \
				sizeof(((struct nlfs_super_block *)0)->f), in_place }
/* set by mkfs alone */
#define SBF(f) SBFIELD(f, false)
/* changed in place after mkfs (the kernel's mount count and times, its
 * label and resize ioctls, nilfs-tune, nilfs-resize), each copy by its own
 * write: a crash between the two leaves them differing, which the kernel
 * mends at its next mount by writing both copies from the one it uses */
#define SBU(f) SBFIELD(f, true)
/* the fields both copies must hold alike */
static const struct {
	const char *name;
	size_t off, len;
	bool in_place;
} sb_fixed_fields[] = {
	SBF(s_rev_level), SBF(s_minor_rev_level), SBF(s_magic), SBF(s_bytes), SBF(s_flags),
	SBF(s_crc_seed), SBF(s_log_block_size), SBU(s_nsegments), SBU(s_dev_size),
	SBF(s_first_data_block), SBF(s_blocks_per_segment), SBF(s_r_segments_percentage),
	SBF(s_ctime), SBU(s_mtime), SBU(s_mnt_count), SBU(s_max_mnt_count), SBU(s_errors),
	SBU(s_lastcheck), SBU(s_checkinterval), SBF(s_creator_os), SBF(s_def_resuid),
	SBF(s_def_resgid), SBF(s_first_ino), SBF(s_inode_size), SBF(s_dat_entry_size),
	SBF(s_checkpoint_size), SBF(s_segment_usage_size), SBU(s_uuid), SBU(s_volume_name),
	SBU(s_c_interval), SBU(s_c_block_max), SBU(s_feature_compat),
	SBU(s_feature_compat_ro), SBF(s_feature_incompat),
};

int nlfs_sb_fixed_differ(const struct nlfs_super_block *a, const struct nlfs_super_block *b,
			 int from, const char **field)
{
	const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
	int n = (int)(sizeof(sb_fixed_fields) / sizeof(sb_fixed_fields[0]));

	for (int i = from < 0 ? 0 : from; i < n; i++) {
		if (memcmp(pa + sb_fixed_fields[i].off, pb + sb_fixed_fields[i].off,
			   sb_fixed_fields[i].len)) {
			*field = sb_fixed_fields[i].name;
			return i;
		}
	}
	return -1;
}

bool nlfs_sb_field_updated_in_place(int index)
{
	return index >= 0 && (size_t)index < sizeof(sb_fixed_fields) / sizeof(sb_fixed_fields[0]) &&
	       sb_fixed_fields[index].in_place;
}
