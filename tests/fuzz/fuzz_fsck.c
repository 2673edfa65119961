/*
 * libFuzzer target: the input is a whole device image, checked by
 * fsck.nilfs2 -n --checkpoints=all (its main() built as fsck_main), then
 * repaired by fsck.nilfs2 -y (which writes through the library's writer
 * and checks again), and a fresh copy of it by -y --rollback (the scan of
 * every segment for the newest super root that holds up).  No input may
 * crash the checker or the repairs, make them read out of bounds or leak.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fsck_main(int argc, char **argv);

/* the image in a memory file named by PATH; -1 if it cannot be made */
static int image_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("image", 0);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char path[64], a0[] = "fsck.nilfs2", a1[] = "-n", a2[] = "--checkpoints=all";
	char a3[] = "-y", a4[] = "--rollback";
	char *argv[] = { a0, a1, a2, path, NULL };
	char *argv_y[] = { a0, a3, path, NULL };
	char *argv_rb[] = { a0, a3, a4, path, NULL };
	int fd;

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
	optind = 0;   /* getopt starts afresh */
	fsck_main(4, argv);
	optind = 0;
	fsck_main(3, argv_y);
	close(fd);
	fd = image_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	optind = 0;
	fsck_main(4, argv_rb);
	close(fd);
	fflush(stdout);
	return 0;
}
