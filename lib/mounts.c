/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Is a device or image mounted?  Writers must not touch a mounted volume. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nlfsP.h"

bool nlfs_device_mounted(const char *path)
{
	struct stat dev, st;
	char line[4096];
	FILE *f;
	bool found = false;

	if (stat(path, &dev))
		return false;
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		if (S_ISBLK(dev.st_mode))
			found = !stat(line, &st) && S_ISBLK(st.st_mode) && st.st_rdev == dev.st_rdev;
		else
			found = !strcmp(line, path);
	}
	fclose(f);
	return found;
}
