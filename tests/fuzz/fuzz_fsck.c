/*
 * libFuzzer target: the input is a whole device image, checked by
 * fsck.nilfs2 -n --checkpoints=all (its main() built as fsck_main), then
 * repaired by fsck.nilfs2 -y (which writes through the library's writer
 * and checks again).  No input may crash the checker or the repairs, make
 * them read out of bounds or leak.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char path[64], a0[] = "fsck.nilfs2", a1[] = "-n", a2[] = "--checkpoints=all";
	char a3[] = "-y";
	char *argv[] = { a0, a1, a2, path, NULL };
	char *argv_y[] = { a0, a3, path, NULL };
	int fd;

	if (!quiet) {
		/* the problems go to stdout; libFuzzer reports on stderr */
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		quiet = 1;
	}
	fd = memfd_create("image", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		optind = 0;   /* getopt starts afresh */
		fsck_main(4, argv);
		optind = 0;
		fsck_main(3, argv_y);
		fflush(stdout);
	}
	close(fd);
	return 0;
}
