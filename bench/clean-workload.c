/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clean-workload.c - the write pattern of bench/clean.sh, run in the guest.
 *
 *   clean-workload fill FILE BYTES
 *       write FILE sequentially (random data), fsync
 *   clean-workload run FILE TOTAL CHUNK HOT_SPACE% HOT_WRITES% SEED
 *       overwrite TOTAL bytes of FILE in CHUNK-sized aligned pieces: a
 *       piece falls in the first HOT_SPACE% of the file with probability
 *       HOT_WRITES%, elsewhere otherwise (uniformly); fdatasync every 4 MiB.
 *       A write refused for lack of space (ENOSPC) is retried after 50 ms;
 *       the time spent so is reported.
 *
 * Prints "written BYTES stalled_ms MS".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(unsigned char *buf, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = next();

		memcpy(buf + i, &v, 8);
	}
}

static uint64_t stalled_ns;

static void put(int fd, const unsigned char *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, buf + done, len - done, off + (off_t)done);

		if (n < 0 && (errno == ENOSPC || errno == EINTR)) {
			struct timespec ts = { 0, 50000000 };

			nanosleep(&ts, NULL);
			stalled_ns += 50000000;
			continue;
		}
		if (n < 0) {
			perror("pwrite");
			exit(1);
		}
		done += (size_t)n;
	}
}

static void sync_retry(int fd)
{
	while (fdatasync(fd) < 0) {
		struct timespec ts = { 0, 50000000 };

		if (errno != ENOSPC && errno != EINTR) {
			perror("fdatasync");
			exit(1);
		}
		nanosleep(&ts, NULL);
		stalled_ns += 50000000;
	}
}

int main(int argc, char **argv)
{
	unsigned char *buf;
	uint64_t written = 0;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "fill")) {
		uint64_t size = strtoull(argv[3], NULL, 0);
		size_t chunk = 1 << 20;

		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		buf = malloc(chunk);
		if (fd < 0 || !buf) {
			perror(argv[2]);
			return 1;
		}
		for (uint64_t off = 0; off < size; off += chunk) {
			fill(buf, chunk);
			put(fd, buf, chunk, (off_t)off);
			written += chunk;
		}
		sync_retry(fd);
	} else if (argc == 8 && !strcmp(argv[1], "run")) {
		uint64_t total = strtoull(argv[3], NULL, 0);
		size_t chunk = strtoull(argv[4], NULL, 0);
		unsigned hot_space = (unsigned)atoi(argv[5]), hot_writes = (unsigned)atoi(argv[6]);
		uint64_t size, nchunks, nhot, since_sync = 0;
		off_t end;

		rng ^= strtoull(argv[7], NULL, 0) * 0x9E3779B97F4A7C15ULL;
		fd = open(argv[2], O_WRONLY);
		buf = malloc(chunk);
		if (fd < 0 || !buf || chunk == 0) {
			perror(argv[2]);
			return 1;
		}
		end = lseek(fd, 0, SEEK_END);
		size = end > 0 ? (uint64_t)end : 0;
		nchunks = size / chunk;
		nhot = nchunks * hot_space / 100;
		if (nhot == 0 || nhot >= nchunks) {
			fprintf(stderr, "file too small for the hot/cold split\n");
			return 1;
		}
		while (written < total) {
			uint64_t c = next() % 100 < hot_writes ? next() % nhot
							       : nhot + next() % (nchunks - nhot);

			fill(buf, chunk);
			put(fd, buf, chunk, (off_t)(c * chunk));
			written += chunk;
			since_sync += chunk;
			if (since_sync >= (4u << 20)) {
				sync_retry(fd);
				since_sync = 0;
			}
		}
		sync_retry(fd);
	} else {
		fprintf(stderr, "usage: clean-workload fill FILE BYTES | "
			"run FILE TOTAL CHUNK HOT_SPACE%% HOT_WRITES%% SEED\n");
		return 2;
	}
	close(fd);
	printf("written %llu stalled_ms %llu\n", (unsigned long long)written,
	       (unsigned long long)(stalled_ns / 1000000));
	return 0;
}
