/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsck-tree.c - the tree of bench/fsck.sh: NFILES names under ROOT.
 *
 *   fsck-tree ROOT NFILES
 *
 * Deterministic (a fixed xorshift seed), so every run and both mkfs tools
 * see the same tree.  Each name goes into a directory 1 to 5 levels deep,
 * picked at random among fan-outs of 24, 16, 8, 6 and 4 per level: a few
 * directories with thousands of entries near the top, a hundred thousand
 * with a handful at the bottom.  (No directory gets hundreds of thousands:
 * mke2fs -d adds each name with a linear scan of its directory and takes
 * hours on those.)  Sizes: 20% empty, 75% 1 byte to
 * 3000 bytes, 4% 4 KiB to 32 KiB, 0.1% 64 KiB to 1 MiB; 0.9% of the
 * names are symbolic links.  About 5 GiB of blocks for a million names.
 * Written in C because a script takes minutes for a million files.
 *
 * Prints "files N dirs N symlinks N bytes N".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t between(uint64_t lo, uint64_t hi)
{
	return lo + next() % (hi - lo + 1);
}

static const unsigned fanout[] = { 24, 16, 8, 6, 4 };
#define MAXDEPTH (sizeof(fanout) / sizeof(fanout[0]))

static unsigned long ndirs;

/* mkdir that tolerates an existing directory; counts the new ones */
static void mkdir_once(const char *path)
{
	if (mkdir(path, 0755) == 0) {
		ndirs++;
	} else if (errno != EEXIST) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static char pool[1 << 20];
	unsigned long nfiles, nsyml = 0;
	unsigned long long bytes = 0;
	char path[4096];

	if (argc != 3) {
		fprintf(stderr, "usage: fsck-tree ROOT NFILES\n");
		return 2;
	}
	nfiles = strtoul(argv[2], NULL, 10);
	for (size_t i = 0; i < sizeof(pool); i += 8) {
		uint64_t v = next();

		memcpy(pool + i, &v, 8);
	}
	mkdir_once(argv[1]);
	for (unsigned long i = 0; i < nfiles; i++) {
		/* 5% one level down, the rest 2 to 5 levels */
		unsigned depth = next() % 20 == 0 ? 1 : 2 + (unsigned)(next() % (MAXDEPTH - 1));
		size_t len = (size_t)snprintf(path, sizeof(path), "%s", argv[1]);
		uint64_t r, size;
		int fd;

		for (unsigned l = 0; l < depth; l++) {
			len += (size_t)snprintf(path + len, sizeof(path) - len, "/d%u",
						(unsigned)(next() % fanout[l]));
			mkdir_once(path);
		}
		snprintf(path + len, sizeof(path) - len, "/f%07lu", i);
		r = next() % 1000;
		if (r < 9) {
			char target[64];

			snprintf(target, sizeof(target), "../f%07lu", i / 2);
			if (symlink(target, path)) {
				perror(path);
				return 1;
			}
			nsyml++;
			continue;
		}
		if (r < 209)
			size = 0;
		else if (r < 959)
			size = between(1, 3000);
		else if (r < 999)
			size = between(4096, 32768);
		else
			size = between(65536, 1 << 20);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		for (uint64_t done = 0; done < size;) {
			size_t off = (size_t)(next() % sizeof(pool));
			size_t n = sizeof(pool) - off;
			ssize_t w;

			if (n > size - done)
				n = (size_t)(size - done);
			w = write(fd, pool + off, n);
			if (w <= 0) {
				perror(path);
				return 1;
			}
			done += (uint64_t)w;
		}
		close(fd);
		bytes += size;
	}
	printf("files %lu dirs %lu symlinks %lu bytes %llu\n", nfiles - nsyml, ndirs, nsyml,
	       bytes);
	return 0;
}
