/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volerr.c - why a volume cannot be used, with its name said once (volerr.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <blkid.h>

#include "holder.h"
#include "volerr.h"

bool cmd_foreign_type(const char *path, char *type, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *t = NULL;
	bool found = false;

	if (!pr)
		return false;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &t, NULL) == 0 &&
	    t && strcmp(t, "nilfs2")) {
		snprintf(type, len, "%s", t);
		found = true;
	}
	blkid_free_probe(pr);
	return found;
}

/* the format errors of a superblock that is not there at all */
static bool no_superblock(int rc)
{
	return rc == -NLFS_EBADMAGIC || rc == -ENODATA || rc == -NLFS_EBADCRC ||
	       rc == -NLFS_ECORRUPT;
}

const char *cmd_volume_reason(const char *path, int rc, const struct nlfs_err *err, char *buf,
			      size_t len)
{
	struct stat st;
	char type[64];
	size_t n = strlen(path);

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return "is a directory, not a device or an image file";
	if (stat(path, &st) == 0 && !S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return "neither a block device nor an image file";
	/* the device held by another, unless the library said why (a volume
	 * not cleanly unmounted is EBUSY to the writer too) */
	if (rc == -EBUSY && (!err || !err->code))
		return dev_open_reason(path, rc, buf, len);
	if (no_superblock(rc) && cmd_foreign_type(path, type, sizeof(type))) {
		snprintf(buf, len, "formatted as %s, not NILFS2", type);
		return buf;
	}
	if (!err || !err->code)
		return nlfs_strerror(rc);
	nlfs_err_format(err, buf, len);
	/* the caller names PATH before the reason */
	if (!strncmp(buf, path, n) && buf[n] == ':' && buf[n + 1] == ' ')
		return buf + n + 2;
	return buf;
}
