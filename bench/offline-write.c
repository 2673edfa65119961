/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offline-write.c - one offline construction at a time, for
 * bench/offline-write.sh.
 *
 *   offline-write IMG cp N      N constructions, each a checkpoint made a
 *                               snapshot or back (what mkcp -s, chcp do)
 *   offline-write IMG clean N   N constructions, each the offline cleaner
 *                               cleaning one segment (nilfs-clean --offline)
 *
 * Prints one line per construction: the blocks it wrote (every byte the
 * library wrote through the image's I/O, superblocks included, in
 * blocks), its time and CPU time in seconds (opening the volume
 * included), and the segments cleaned.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nlfs/gc.h>
#include <nlfs/io.h>
#include <nlfs/nlfs.h>
#include <nlfs/writer.h>

static uint64_t written;
static int (*backend_write)(struct nlfs_io *io, const void *buf, size_t len, uint64_t off);

static int counting_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	written += len;
	return backend_write(io, buf, len, off);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the latest checkpoint made a snapshot, or a checkpoint again */
static int toggle_snapshot(struct nlfs_io *io, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w = NULL;
	struct nlfs_cpinfo ci;
	uint64_t cno;
	int rc = nlfs_fs_open(io, &fs, err);

	if (rc)
		return rc;
	cno = nlfs_fs_recovery(fs)->cno;
	rc = nlfs_cpfile_info(fs, cno, &ci, err);
	if (!rc)
		rc = nlfs_writer_open(fs, (uint64_t)time(NULL), 0, &w, err);
	if (!rc)
		rc = nlfs_writer_set_snapshot(w, cno, !(ci.flags & NLFS_CHECKPOINT_SNAPSHOT), err);
	if (!rc)
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	return rc;
}

/* the oldest reclaimable segment cleaned, one more clean segment wanted
 * (the cleaner takes another if its own logs used one up) */
static int clean_one(struct nlfs_io *io, uint64_t nclean, uint64_t *nsegs, struct nlfs_err *err)
{
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = (uint64_t)time(NULL),
				    .target_clean = nclean + 1, .nsegments_per_clean = 1,
				    .max_passes = 1 };
	struct nlfs_gc_stats st = { 0 };
	int rc = nlfs_gc_offline(io, &p, &st, err);

	*nsegs = st.segments;
	return rc;
}

int main(int argc, char **argv)
{
	struct nlfs_io_ops ops;
	struct nlfs_err err = { 0 };
	char msg[512];
	long n;

	if (argc != 4 || (strcmp(argv[2], "cp") && strcmp(argv[2], "clean")) ||
	    (n = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: offline-write IMG cp|clean N\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		struct nlfs_io *io;
		struct nlfs_fs *fs;
		struct nlfs_suhead sh;
		uint64_t nsegs = 0;
		uint32_t bs;
		double t0 = now(), c0 = cpu();
		int rc = nlfs_io_open_unix(argv[1], NLFS_IO_RDWR, &io);

		if (rc) {
			fprintf(stderr, "offline-write: %s: %s\n", argv[1], strerror(-rc));
			return 1;
		}
		ops = *io->ops;
		backend_write = ops.write;
		ops.write = counting_write;
		io->ops = &ops;
		written = 0;
		rc = nlfs_fs_open(io, &fs, &err);
		if (!rc) {
			bs = nlfs_fs_geometry(fs)->blocksize;
			rc = nlfs_sufile_header(fs, &sh, &err);
			nlfs_fs_release(fs);
		}
		if (!rc)
			rc = strcmp(argv[2], "cp") ? clean_one(io, sh.ncleansegs, &nsegs, &err)
						   : toggle_snapshot(io, &err);
		if (rc) {
			nlfs_err_format(&err, msg, sizeof(msg));
			fprintf(stderr, "offline-write: %s\n", msg);
			return 1;
		}
		printf("%llu %.4f %.4f %llu\n", (unsigned long long)(written / bs), now() - t0,
		       cpu() - c0, (unsigned long long)nsegs);
		nlfs_io_close(io);
	}
	return 0;
}
