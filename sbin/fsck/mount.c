/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mount.c - is the device mounted, and as nilfs2?  (common/mounts.c decides) */
#include <errno.h>
#include <stdio.h>

#include "fsck.h"
#include "mounts.h"

int fsck_check_mounted(const char *device, bool *mounted, bool *ro, char *where, size_t len)
{
	struct mnt_entry m;
	int rc = mnt_lookup_nilfs(device, &m, where, len);

	*mounted = *ro = false;
	if (rc || !m.mountpoint)
		return rc;
	*mounted = true;
	*ro = !m.rw;
	snprintf(where, len, "%s", m.mountpoint);
	mnt_free(&m);
	return 0;
}
