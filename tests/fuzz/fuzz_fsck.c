/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the input is a device image (fuzz_image.h), checked by
 * fsck.nilfs2 -n --checkpoints=all (its main() built as fsck_main), then
 * repaired by fsck.nilfs2 -y (which writes through the library's writer
 * and checks again), and a fresh copy of it by -y --rollback (the scan of
 * every segment for the newest super root that holds up).  No input may
 * crash the checker or the repairs, make them read out of bounds or leak.
 * A repair that claims success (exit 1) must leave a volume a second,
 * independent -n -f check calls clean (exit 0); else the target aborts,
 * which libFuzzer reports as a crash and saves the input.
 *
 * fsck leaves its readahead threads (readahead.c) out on a device this
 * small (it asks for the whole device at once instead), so the target
 * starts them itself, once an input, on the input's image: they parse
 * the same summaries and maps the checks do, and must not crash on them
 * either.  (The checks after a repair read what the library's writer
 * made; the threads are not run on that.)
 *
 * The threads run here one after another, each to its end, when they
 * are started (t-fuzz-smoke.sh builds fsck with
 * pthread_create and pthread_join renamed to the two below): the same
 * code meets the same input, but an execution no longer depends on how
 * the threads interleave, so coverage is the input's alone, and the
 * threads' own allocations (their TLS) no longer make libFuzzer suspect a
 * leak after each input, run it again, and give up leak detection for the
 * whole campaign after a thousand such inputs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <nlfs/io.h>
#include "fuzz_image.h"
#include "readahead.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fsck_main(int argc, char **argv);

/* sparse (t-sparse.sh) reads every file without the target's own flags */
#if !defined(__CHECKER__) && (!defined(pthread_create) || !defined(pthread_join))
#error "build with -Dpthread_create=fuzz_pthread_create -Dpthread_join=fuzz_pthread_join"
#endif

/* a thread of fsck's: run to its end now */
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
		   void *arg)
{
	(void)attr;
	*thread = (pthread_t)0;
	start(arg);
	return 0;
}

int pthread_join(pthread_t thread, void **ret)
{
	(void)thread;
	if (ret)
		*ret = NULL;
	return 0;
}

/* the image in a memory file named by PATH (sparse: its zeros are not
 * written); -1 if it cannot be made */
static int image_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	struct fuzz_image im = fuzz_image_layout(data, size);
	int fd = memfd_create("image", 0);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)im.devsize) ||
	    pwrite(fd, data, im.head, 0) != (ssize_t)im.head ||
	    pwrite(fd, data + im.head, size - im.head, (off_t)im.tail_at) !=
		    (ssize_t)(size - im.head)) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* the readahead threads on the image at PATH, to their end, through
 * handles as a check of the latest checkpoint opens them */
static void readahead_once(const char *path)
{
	struct fsck_readahead *ra;

	if (fsck_readahead_start(path, NLFS_IO_NO_READAHEAD, &ra) == 0)
		fsck_readahead_stop(ra, NULL);
}

/* fsck.nilfs2 with ARGV (NULL-terminated), getopt started afresh */
static int run_fsck(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 0;
	return fsck_main(argc, argv);
}

/* After a repair that exited REPAIR_RC: exit 1 promises a clean volume. */
static void check_repaired(int repair_rc, const char *what, char *path)
{
	char a0[] = "fsck.nilfs2", a1[] = "-n", a2[] = "-f";
	char *argv[] = { a0, a1, a2, path, NULL };
	int rc;

	if (repair_rc != 1)
		return;
	rc = run_fsck(argv);
	if (rc != 0) {
		fflush(stdout);
		fprintf(stderr, "fuzz_fsck: %s exited 1 (repaired), but a second -n -f check "
			"exits %d\n", what, rc);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char path[64], a0[] = "fsck.nilfs2", a1[] = "-n", a2[] = "--checkpoints=all";
	char a3[] = "-y", a4[] = "--rollback";
	char *argv[] = { a0, a1, a2, path, NULL };
	char *argv_y[] = { a0, a3, path, NULL };
	char *argv_rb[] = { a0, a3, a4, path, NULL };
	int fd, rc;

	if (!quiet) {
		/* the problems go to stdout; libFuzzer reports on stderr */
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		quiet = 1;
	}
	fd = image_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	readahead_once(path);
	run_fsck(argv);
	rc = run_fsck(argv_y);
	check_repaired(rc, "-y", path);
	close(fd);
	fd = image_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	rc = run_fsck(argv_rb);
	check_repaired(rc, "-y --rollback", path);
	close(fd);
	fflush(stdout);
	return 0;
}
