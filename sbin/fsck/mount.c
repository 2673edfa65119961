/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mount.c - is the device mounted?  /proc/self/mountinfo names each
 * mounted filesystem's device as major:minor; an image file counts as
 * mounted when a loop device backed by it is.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fsck.h"

/* does mountinfo list DEV?  WHERE gets the mount point */
static bool dev_mounted(dev_t dev, bool *ro, char *where, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *lineb = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&lineb, &cap, f) > 0) {
		unsigned maj, min;
		char mnt[4096], *sep;

		if (sscanf(lineb, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		if (makedev(maj, min) != dev)
			continue;
		found = true;
		snprintf(where, len, "%s", mnt);
		*ro = false;
		/* after " - ": fstype, source, super options */
		sep = strstr(lineb, " - ");
		if (sep) {
			char opts[256] = "";

			if (sscanf(sep + 3, "%*s %*s %255s", opts) == 1)
				*ro = !strncmp(opts, "ro", 2) && (opts[2] == ',' || !opts[2]);
		}
	}
	free(lineb);
	fclose(f);
	return found;
}

static bool loop_backed_by(const char *file, bool *ro, char *where, size_t len)
{
	char real[PATH_MAX];
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	bool found = false;

	if (!d || !realpath(file, real)) {
		if (d)
			closedir(d);
		return false;
	}
	while (!found && (e = readdir(d))) {
		char path[PATH_MAX], back[PATH_MAX];
		unsigned maj, min;
		FILE *f;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(back, sizeof(back), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		back[strcspn(back, "\n")] = 0;
		if (strcmp(back, real))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2)
			found = dev_mounted(makedev(maj, min), ro, where, len);
		fclose(f);
	}
	closedir(d);
	return found;
}

int fsck_check_mounted(const char *device, bool *mounted, bool *ro, char *where, size_t len)
{
	struct stat st;

	*mounted = *ro = false;
	where[0] = 0;
	if (stat(device, &st) < 0)
		return -1;
	if (S_ISBLK(st.st_mode))
		*mounted = dev_mounted(st.st_rdev, ro, where, len);
	else if (S_ISREG(st.st_mode))
		*mounted = loop_backed_by(device, ro, where, len);
	return 0;
}
