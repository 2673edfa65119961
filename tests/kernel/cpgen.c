/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpgen.c - test helper run inside the kernel guest (not installed).
 *
 *   cpgen sync DIR N         N checkpoints, fast: each dirties one block of
 *                            DIR/.cpgen and asks the kernel for a checkpoint
 *                            (NILFS_IOCTL_SYNC); prints the last number
 *   cpgen churn DIR NFILES N SEED
 *                            NFILES small files in DIR (100 a directory),
 *                            then N checkpoints with a small change before
 *                            each: an append, a rename (within or across
 *                            directories), a delete, a new file or a new
 *                            directory, chosen by SEED; prints the last
 *                            (on another file system, a syncfs for each)
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
#include <sys/stat.h>
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

static unsigned long rnd_state;

static unsigned long rnd(unsigned long n)
{
	rnd_state = rnd_state * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned long)(rnd_state >> 33) % n;
}

static int write_file(const char *path, size_t len, int flags)
{
	static const char text[] = "nilfs2 checkpoint churn: a line of a small file\n";
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
	size_t done = 0;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	while (done < len) {
		size_t n = len - done < sizeof(text) - 1 ? len - done : sizeof(text) - 1;

		if (write(fd, text, n) != (ssize_t)n) {
			perror(path);
			close(fd);
			return -1;
		}
		done += n;
	}
	return close(fd);
}

/* a checkpoint of DFD's volume (its number in *CNO); on another file
 * system (bench/fsck.sh has the kernel write the same churn to ext4), a
 * syncfs, CNO left as it is */
static int checkpoint(int dfd, __u64 *cno)
{
	if (ioctl(dfd, NILFS_IOCTL_SYNC, cno) == 0)
		return 0;
	return errno == ENOTTY ? syncfs(dfd) : -1;
}

/* the churn workload: NFILES files, then NCPS checkpoints of small changes */
static int churn(const char *dir, unsigned long nfiles, unsigned long ncps, unsigned long seed)
{
	unsigned long ndirs = (nfiles + 99) / 100, next = nfiles, nmkdir = 0;
	char path[4096], to[4096];
	__u64 cno = 0;
	int dfd;

	rnd_state = seed;
	for (unsigned long d = 0; d < ndirs; d++) {
		snprintf(path, sizeof(path), "%s/d%lu", dir, d);
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			perror(path);
			return 1;
		}
	}
	for (unsigned long i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/d%lu/f%lu", dir, i % ndirs, i);
		if (write_file(path, 100 + rnd(3000), O_TRUNC))
			return 1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || checkpoint(dfd, &cno) < 0) {
		perror(dir);
		return 1;
	}
	for (unsigned long i = 0; i < ncps; i++) {
		unsigned long f = rnd(next), op = rnd(10);

		snprintf(path, sizeof(path), "%s/d%lu/f%lu", dir, f % ndirs, f);
		if (op < 4) {          /* append */
			if (access(path, F_OK) == 0 && write_file(path, 200, O_APPEND))
				return 1;
		} else if (op < 6) {   /* rename, to a new number in another directory */
			snprintf(to, sizeof(to), "%s/d%lu/f%lu", dir, next % ndirs, next);
			if (rename(path, to) == 0)
				next++;
		} else if (op < 7) {   /* delete */
			unlink(path);
		} else if (op < 9) {   /* new file */
			snprintf(to, sizeof(to), "%s/d%lu/f%lu", dir, next % ndirs, next);
			if (write_file(to, 100 + rnd(3000), O_TRUNC))
				return 1;
			next++;
		} else {               /* new directory, with a file */
			snprintf(to, sizeof(to), "%s/d%lu/s%lu", dir, f % ndirs, nmkdir++);
			if (mkdir(to, 0755) < 0)
				perror(to);
			strncat(to, "/x", sizeof(to) - strlen(to) - 1);
			if (write_file(to, 500, O_TRUNC))
				return 1;
		}
		if (checkpoint(dfd, &cno) < 0) {
			perror("NILFS_IOCTL_SYNC");
			return 1;
		}
	}
	close(dfd);
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
	if (argc == 6 && !strcmp(argv[1], "churn"))
		return churn(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10),
			     strtoul(argv[5], NULL, 10));
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
	fprintf(stderr, "usage: cpgen sync DIR N | cpgen churn DIR NFILES N SEED | cpgen asuser UID CMD... | cpgen fslabel DIR\n");
	return 2;
}
