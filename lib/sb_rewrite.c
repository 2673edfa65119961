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
 */
#include <errno.h>

#include <nlfs/nlfs.h>

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
