/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mount.c - is the device mounted?  (common/mountinfo.c decides) */
#include "fsck.h"
#include "mountinfo.h"

int fsck_check_mounted(const char *device, bool *mounted, bool *ro, char *where, size_t len)
{
	return mnt_in_use(device, mounted, ro, where, len) ? -1 : 0;
}
