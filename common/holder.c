/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * holder.c - who holds a block device that an exclusive open refused:
 * a mount (of it or of one of its partitions), swap, or a kernel holder
 * such as device-mapper or md (sysfs "holders").  Only for messages: the
 * exclusive open itself is what protects the device.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nlfs/nlfs.h>
#include "holder.h"
#include "mounts.h"

/* append ", WHAT" (or WHAT when OUT is empty) */
static void add(char *out, size_t len, const char *what)
{
	size_t used = strlen(out);

	if (used + 3 >= len)
		return;
	snprintf(out + used, len - used, "%s%s", used ? ", " : "", what);
}

static void swap_user(const struct stat *st, char *out, size_t len)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128], path[PATH_MAX];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct stat s;

		/* /proc/swaps names its devices with blanks escaped: a plain
		 * first field is enough to compare device numbers */
		if (sscanf(line, "%4095s", path) == 1 && path[0] == '/' && !stat(path, &s) &&
		    S_ISBLK(s.st_mode) && s.st_rdev == st->st_rdev) {
			add(out, len, "active swap space");
			break;
		}
	}
	fclose(f);
}

/* the names in /sys/dev/block/MAJ:MIN/holders, and the mounts and holders
 * of the device's partitions (a whole disk is busy through them) */
static void sysfs_holders(dev_t dev, char *out, size_t len, int depth)
{
	char dir[96], what[PATH_MAX + 64];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders", major(dev), minor(dev));
	if ((d = opendir(dir))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(what, sizeof(what), "held by %s", e->d_name);
				add(out, len, what);
			}
		closedir(d);
	}
	if (depth > 0)
		return;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char devfile[PATH_MAX], num[32], node[PATH_MAX];
		unsigned maj, min;
		FILE *f;
		struct mnt_entry m;

		/* a partition is a subdirectory with a "partition" file */
		snprintf(devfile, sizeof(devfile), "%s/%s/partition", dir, e->d_name);
		if (e->d_name[0] == '.' || access(devfile, F_OK))
			continue;
		snprintf(devfile, sizeof(devfile), "%s/%s/dev", dir, e->d_name);
		f = fopen(devfile, "re");
		if (!f)
			continue;
		if (!fgets(num, sizeof(num), f) || sscanf(num, "%u:%u", &maj, &min) != 2) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(node, sizeof(node), "/dev/%s", e->d_name);
		if (!mnt_lookup(NULL, node, NULL, &m)) {
			snprintf(what, sizeof(what), "partition %s mounted on %s", e->d_name,
				 m.mountpoint);
			add(out, len, what);
			mnt_free(&m);
		}
		sysfs_holders(makedev(maj, min), out, len, depth + 1);
	}
	closedir(d);
}

int dev_describe_holders(const char *path, char *out, size_t len)
{
	struct stat st;
	struct mnt_entry m;

	if (!len)
		return -EINVAL;
	out[0] = '\0';
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) && !mnt_lookup(NULL, path, NULL, &m)) {
		char msg[PATH_MAX + 64];

		snprintf(msg, sizeof(msg), "mounted on %s as %s", m.mountpoint, m.fstype);
		add(out, len, msg);
		mnt_free(&m);
	}
	if (S_ISBLK(st.st_mode)) {
		swap_user(&st, out, len);
		sysfs_holders(st.st_rdev, out, len, 0);
	}
	if (!out[0])
		snprintf(out, len, "opened exclusively by another program");
	return 0;
}

const char *dev_open_reason(const char *path, int rc, char *buf, size_t len)
{
	char who[512];

	if (rc != -EBUSY || dev_describe_holders(path, who, sizeof(who)))
		return nlfs_strerror(rc);
	snprintf(buf, len, "the device is in use (%s)", who);
	return buf;
}
