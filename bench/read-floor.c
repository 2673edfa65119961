/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/read-floor.c: the least time a reader could take to read a given
 * set of blocks, for benchmarks that compare a command with that floor.
 *
 *   read-floor DEVICE|IMAGE < RANGES
 *
 * RANGES: lines "OFFSET LENGTH" in bytes, as a trace of the command's
 * reads gives them.  The floor knows every block in advance, which no real
 * reader does: it reads each 4 KiB page once, all of them asked for at
 * once (POSIX_FADV_WILLNEED, so the device gets them as one deep queue),
 * then copied in disk order.  Prints the pages and the seconds taken; the
 * caller drops the page cache first.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t *pages = NULL, off, len;
	size_t n = 0, cap = 0, u = 0;
	struct timespec t0, t1;
	static char buf[PAGE];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: read-floor DEVICE|IMAGE < RANGES\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	while (scanf("%" SCNu64 " %" SCNu64, &off, &len) == 2) {
		for (uint64_t p = off / PAGE; len && p <= (off + len - 1) / PAGE; p++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				pages = realloc(pages, cap * sizeof(*pages));
				if (!pages) {
					perror("read-floor");
					return 1;
				}
			}
			pages[n++] = p;
		}
	}
	if (n == 0) {
		fprintf(stderr, "read-floor: no ranges on standard input\n");
		return 1;
	}
	qsort(pages, n, sizeof(*pages), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || pages[i] != pages[u - 1])
			pages[u++] = pages[i];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < u; i++)
		(void)posix_fadvise(fd, (off_t)(pages[i] * PAGE), PAGE, POSIX_FADV_WILLNEED);
	for (size_t i = 0; i < u; i++)
		if (pread(fd, buf, PAGE, (off_t)(pages[i] * PAGE)) != (ssize_t)PAGE) {
			fprintf(stderr, "read-floor: %s: short read at byte %" PRIu64 "\n", argv[1],
				pages[i] * PAGE);
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%zu %.4f\n", u,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(pages);
	close(fd);
	return 0;
}
