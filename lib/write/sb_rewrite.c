/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fields of a volume's superblocks changed in place (nilfs-tune): the
 * label, the UUID, the commit tunables, feature bits.  Each valid copy is
 * edited on its own, so each keeps its own log cursor; a copy that is not
 * valid is left as it is (fsck.nilfs2 mends it).
 *
 * The copy the kernel does not use is written first, the one it uses
 * last, each flushed.  A crash before the second write leaves the copy in
 * use old (the kernel and the next run see the old values); a torn second
 * write leaves it with a bad CRC, and the kernel falls back to the other
 * copy, already new.  Either way the volume holds the old values or the
 * new ones and mounts.
 *
 * After the kernel resizes a volume that then ends before its device, its
 * secondary sits at the new end, but a later mount (and blkid, and this
 * library) looks at the device's end, where the old copy, with the old
 * geometry, is left: nlfs_sb_mirror_secondary() puts the new one there.
 */
#include <errno.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>

int nlfs_sb_rewrite(struct nlfs_io *io, nlfs_sb_edit_fn edit, void *arg,
		    struct nlfs_sb_choice *choice, struct nlfs_err *err)
{
	struct nlfs_super_block sb[2];
	int order[2], rc = nlfs_sb_read_both(io, sb, choice, err);

	if (rc)
		return rc;
	order[0] = choice->used == NLFS_SB_PRIMARY ? NLFS_SB_SECONDARY : NLFS_SB_PRIMARY;
	order[1] = choice->used;
	/* every edit is checked on every copy before anything is written */
	for (int i = 0; i < 2; i++) {
		if (!choice->status[i].valid)
			continue;
		rc = edit(&sb[i], arg, err);
		if (rc)
			return rc;
		nlfs_sb_update_crc(&sb[i]);
	}
	for (int k = 0; k < 2; k++) {
		const struct nlfs_sb_status *st = &choice->status[order[k]];

		if (!st->valid)
			continue;
		rc = nlfs_io_write(io, &sb[order[k]], sizeof(sb[0]), st->offset);
		if (!rc)
			rc = nlfs_io_flush(io);
		if (rc)
			return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: writing the %s superblock",
					    nlfs_io_name(io),
					    order[k] == NLFS_SB_PRIMARY ? "primary" : "secondary");
	}
	return 0;
}

static int write_secondary(struct nlfs_io *io, const struct nlfs_super_block *sb, uint64_t at,
			   struct nlfs_err *err)
{
	int rc = nlfs_io_write(io, sb, sizeof(*sb), at);

	if (!rc)
		rc = nlfs_io_flush(io);
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: writing the secondary superblock",
				    nlfs_io_name(io));
	return 0;
}

int nlfs_sb_mirror_secondary(struct nlfs_io *io, uint64_t fs_size, struct nlfs_err *err)
{
	struct nlfs_super_block sb;
	uint64_t devsize, from = nlfs_sb2_offset(fs_size), to;
	int rc = nlfs_io_size(io, &devsize);

	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: cannot get the device size",
				    nlfs_io_name(io));
	to = nlfs_sb2_offset(devsize);
	if (!from || from == to || to < from)
		return 0;
	rc = nlfs_io_read(io, &sb, sizeof(sb), from);
	if (!rc)
		rc = nlfs_sb_check_crc(&sb);
	if (!rc && nlfs_le64(sb.s_dev_size) != fs_size)
		rc = -NLFS_ECORRUPT;
	if (rc)
		return nlfs_err_set(err, rc, NLFS_NOWHERE,
				    "%s: no secondary superblock at byte %llu to copy",
				    nlfs_io_name(io), (unsigned long long)from);
	return write_secondary(io, &sb, to, err);
}

/* The kernel keeps its secondary at the end of the device it mounted: on
 * a device grown since, that is the volume's own end (s_dev_size), where
 * nlfs_sb_read_both does not look.  A kernel's last superblock write may
 * have gone to that copy alone, leaving the primary a checkpoint behind
 * and marked mounted: the newer of the two is the volume's superblock. */
static const struct nlfs_super_block *newer_at_volume_end(struct nlfs_io *io,
							  const struct nlfs_super_block *primary,
							  struct nlfs_super_block *buf)
{
	uint64_t at = nlfs_sb2_offset(nlfs_le64(primary->s_dev_size));

	if (!at || nlfs_io_read(io, buf, sizeof(*buf), at) || nlfs_sb_check_crc(buf) ||
	    memcmp(buf->s_uuid, primary->s_uuid, sizeof(buf->s_uuid)) ||
	    nlfs_le64(buf->s_dev_size) != nlfs_le64(primary->s_dev_size) ||
	    nlfs_le64(buf->s_last_cno) <= nlfs_le64(primary->s_last_cno))
		return primary;
	return buf;
}

int nlfs_sb_fill_secondary(struct nlfs_io *io, struct nlfs_err *err)
{
	struct nlfs_super_block sb[2], old_end;
	const struct nlfs_super_block *from;
	struct nlfs_sb_choice c;
	int rc = nlfs_sb_read_both(io, sb, &c, err);

	if (rc || c.status[NLFS_SB_SECONDARY].valid || !c.status[NLFS_SB_SECONDARY].offset)
		return rc;
	from = &sb[c.used];
	if (c.used == NLFS_SB_PRIMARY)
		from = newer_at_volume_end(io, from, &old_end);
	return write_secondary(io, from, c.status[NLFS_SB_SECONDARY].offset, err);
}
