/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "nilfs-tune -l": the superblock with nilfs-utils 2.2.9's labels, tabs
 * and number formats, line for line, because partition editors (GParted,
 * libblockdev) read "Block size:", "Device size:", "Free blocks count:",
 * "Filesystem volume name:" and "Filesystem UUID:" out of it.  Times are
 * ctime(3) in the local zone, users and groups by name, as there.
 */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <string.h>
#include <time.h>

#include <nlfs/endian.h>
#include "tune.h"

static void print_time(FILE *out, const char *label, uint64_t secs)
{
	time_t t = (time_t)secs;
	char buf[64];

	/* ctime_r's form, newline included */
	if (!ctime_r(&t, buf))
		snprintf(buf, sizeof(buf), "%" PRIu64 "\n", secs);
	fprintf(out, "%s%s", label, buf);
}

static void print_features(FILE *out, const struct nlfs_super_block *sb)
{
	uint64_t words[3] = { nlfs_le64(sb->s_feature_compat), nlfs_le64(sb->s_feature_compat_ro),
			      nlfs_le64(sb->s_feature_incompat) };
	bool any = false;
	char nb[32];

	fputs("Filesystem features:     ", out);
	for (int type = 0; type < 3; type++)
		for (int bit = 0; bit < 64; bit++)
			if (words[type] & (1ull << bit)) {
				fprintf(out, " %s", tune_feature_name(type, 1ull << bit, nb, sizeof(nb)));
				any = true;
			}
	fputs(any ? "\n" : " (none)\n", out);
}

static const char *state_string(uint16_t state, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", state & NLFS_STATE_VALID_FS ? "valid" : "invalid or mounted",
		 state & NLFS_STATE_ERROR_FS ? ",error" : "",
		 state & NLFS_STATE_RESIZE_FS ? ",resize" : "");
	return buf;
}

void tune_list(FILE *out, const struct nlfs_super_block *sb)
{
	char label[NLFS_VOLUME_NAME_LEN + 1], state[64];
	const uint8_t *u = sb->s_uuid;
	uint16_t uid = nlfs_le16(sb->s_def_resuid), gid = nlfs_le16(sb->s_def_resgid);
	struct passwd *pw = getpwuid(uid);
	struct group *gr = getgrgid(gid);

	memcpy(label, sb->s_volume_name, NLFS_VOLUME_NAME_LEN);
	label[NLFS_VOLUME_NAME_LEN] = '\0';
	fprintf(out, "Filesystem volume name:\t  %s\n", label[0] ? label : "(none)");
	fprintf(out, "Filesystem UUID:\t  %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x\n", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
		u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	fprintf(out, "Filesystem magic number:  0x%04x\n", nlfs_le16(sb->s_magic));
	fprintf(out, "Filesystem revision #:\t  %d.%d\n", (int)nlfs_le32(sb->s_rev_level),
		nlfs_le16(sb->s_minor_rev_level));
	print_features(out, sb);
	fprintf(out, "Filesystem state:\t  %s\n",
		state_string(nlfs_le16(sb->s_state), state, sizeof(state)));
	fprintf(out, "Filesystem OS type:\t  %s\n", nlfs_le32(sb->s_creator_os) == 0 ? "Linux"
											 : "Unknown");
	fprintf(out, "Block size:\t\t  %u\n", 1u << (nlfs_le32(sb->s_log_block_size) + 10));
	print_time(out, "Filesystem created:\t  ", nlfs_le64(sb->s_ctime));
	print_time(out, "Last mount time:\t  ", nlfs_le64(sb->s_mtime));
	print_time(out, "Last write time:\t  ", nlfs_le64(sb->s_wtime));
	fprintf(out, "Mount count:\t\t  %u\n", nlfs_le16(sb->s_mnt_count));
	fprintf(out, "Maximum mount count:\t  %u\n", nlfs_le16(sb->s_max_mnt_count));
	fprintf(out, "Reserve blocks uid:\t  %u (user %s)\n", uid, pw ? pw->pw_name : "unknown");
	fprintf(out, "Reserve blocks gid:\t  %u (group %s)\n", gid, gr ? gr->gr_name : "unknown");
	fprintf(out, "First inode:\t\t  %u\n", nlfs_le32(sb->s_first_ino));
	fprintf(out, "Inode size:\t\t  %u\n", nlfs_le16(sb->s_inode_size));
	fprintf(out, "DAT entry size:\t\t  %u\n", nlfs_le16(sb->s_dat_entry_size));
	fprintf(out, "Checkpoint size:\t  %u\n", nlfs_le16(sb->s_checkpoint_size));
	fprintf(out, "Segment usage size:\t  %u\n", nlfs_le16(sb->s_segment_usage_size));
	fprintf(out, "Number of segments:\t  %" PRIu64 "\n", nlfs_le64(sb->s_nsegments));
	fprintf(out, "Device size:\t\t  %" PRIu64 "\n", nlfs_le64(sb->s_dev_size));
	fprintf(out, "First data block:\t  %" PRIu64 "\n", nlfs_le64(sb->s_first_data_block));
	fprintf(out, "# of blocks per segment:  %u\n", nlfs_le32(sb->s_blocks_per_segment));
	fprintf(out, "Reserved segments %%:\t  %u\n", nlfs_le32(sb->s_r_segments_percentage));
	fprintf(out, "Last checkpoint #:\t  %" PRIu64 "\n", nlfs_le64(sb->s_last_cno));
	fprintf(out, "Last block address:\t  %" PRIu64 "\n", nlfs_le64(sb->s_last_pseg));
	fprintf(out, "Last sequence #:\t  %" PRIu64 "\n", nlfs_le64(sb->s_last_seq));
	fprintf(out, "Free blocks count:\t  %" PRIu64 "\n", nlfs_le64(sb->s_free_blocks_count));
	fprintf(out, "Commit interval:\t  %u\n", nlfs_le32(sb->s_c_interval));
	fprintf(out, "# of blks to create seg:  %u\n", nlfs_le32(sb->s_c_block_max));
	fprintf(out, "CRC seed:\t\t  0x%08x\n", nlfs_le32(sb->s_crc_seed));
	fprintf(out, "CRC check sum:\t\t  0x%08x\n", nlfs_le32(sb->s_sum));
	/* 2.2.9 prints s_bytes and s_flags read as one 32-bit word */
	fprintf(out, "CRC check data size:\t  0x%08x\n",
		(uint32_t)nlfs_le16(sb->s_bytes) | (uint32_t)nlfs_le16(sb->s_flags) << 16);
}
