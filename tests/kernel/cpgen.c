/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpgen.c - test helper run inside the kernel guest (not installed).
 *
 *   cpgen sync DIR N         N checkpoints, fast: each dirties one block of
 *                            DIR/.cpgen and asks the kernel for a checkpoint
 *                            (NILFS_IOCTL_SYNC); prints the last number
 *   cpgen asuser UID CMD...  run CMD with the uid and gid UID, no groups
 *                            (busybox has no setpriv --reuid)
 *   cpgen fslabel DIR        the label the kernel reports (FS_IOC_GETFSLABEL);
 *                            exit 3 if the filesystem has no such ioctl
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/nilfs2_api.h>

static int sync_many(const char *dir, unsigned long n)
{
	char path[4096];
	__u64 cno = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/.cpgen", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		unsigned long v = i;

		/* a few blocks in turn, so that the file keeps a small B-tree */
		if (pwrite(fd, &v, sizeof(v), (off_t)(i % 16) * 4096) != sizeof(v) ||
		    ioctl(fd, NILFS_IOCTL_SYNC, &cno) < 0) {
			fprintf(stderr, "cpgen: checkpoint %lu: %s\n", i, strerror(errno));
			return 1;
		}
	}
	close(fd);
	printf("%llu\n", (unsigned long long)cno);
	return 0;
}

static int get_label(const char *dir)
{
	char label[FSLABEL_MAX] = { 0 };
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0) {
		perror(dir);
		return 1;
	}
	if (ioctl(fd, FS_IOC_GETFSLABEL, label) < 0) {
		int e = errno;

		fprintf(stderr, "cpgen: FS_IOC_GETFSLABEL: %s\n", strerror(e));
		return e == ENOTTY || e == EOPNOTSUPP ? 3 : 1;
	}
	printf("%s\n", label);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fslabel"))
		return get_label(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "sync"))
		return sync_many(argv[2], strtoul(argv[3], NULL, 10));
	if (argc >= 4 && !strcmp(argv[1], "asuser")) {
		uid_t id = (uid_t)strtoul(argv[2], NULL, 10);

		if (setgroups(0, NULL) < 0 || setgid(id) < 0 || setuid(id) < 0) {
			perror("cpgen asuser");
			return 126;
		}
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	fprintf(stderr, "usage: cpgen sync DIR N | cpgen asuser UID CMD... | cpgen fslabel DIR\n");
	return 2;
}
