/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsck-floor.c - the metadata floor of bench/fsck.sh.
 *
 *   fsck-floor list IMG >LIST   every block of IMG that is not regular-file
 *                               data, as "START COUNT" runs in disk order
 *   fsck-floor list-logs IMG >LIST   every block of every log in a segment
 *                               in use: what fsck.nilfs2 reads for the
 *                               data checksums
 *   fsck-floor read IMG LIST    read those runs once, in order
 *
 * Metadata here is what fsck.nilfs2 -fn reads: both superblocks, every
 * summary block of every log in a segment in use and every super root
 * block, every block (nodes included) of the DAT, cpfile and sufile of the
 * latest super root and of the latest checkpoint's ifile, and of each file
 * of that checkpoint its B-tree node blocks and, for directories and
 * symbolic links, its data blocks.  On a volume mkfs -d wrote that is every
 * block that is not regular-file data; on one the kernel wrote over many
 * checkpoints, the old versions of metadata blocks (kept for the older
 * checkpoints) are not in it: the latest check does not read them.
 * The read pass merges adjacent blocks into reads of
 * up to 1 MiB and asks for the runs ahead of reading them, so the time is
 * what the disk needs for those bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/io.h>
#include <nlfs/nlfs.h>

struct listing {
	uint8_t *meta;          /* one bit per device block */
	uint64_t nblocks;
	bool all;               /* every log block, data too */
	struct nlfs_fs *fs;
	const struct nlfs_file *f;   /* the file being walked */
	bool data_too;          /* its data blocks are metadata (not a regular file) */
};

static void mark(struct listing *l, uint64_t b)
{
	if (b < l->nblocks)
		l->meta[b / 8] |= (uint8_t)(1u << (b % 8));
}

static int note_block(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
		      void *arg)
{
	struct listing *l = arg;

	(void)fi;
	if (bi && l->all)
		mark(l, bi->block);
	return 0;
}

/* a block of the file being walked: its nodes, and its data unless it is a
 * regular file's */
static int note_map(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct listing *l = arg;
	struct nlfs_err err;
	uint64_t b = 0;

	(void)blkoff;
	if (level == 0 && !l->data_too)
		return 0;
	if (!nlfs_file_block_addr(l->fs, l->f, ptr, &b, &err) && b)
		mark(l, b);
	return 0;
}

static void note_file(struct listing *l, const struct nlfs_file *f, bool data_too)
{
	struct nlfs_err err;

	l->f = f;
	l->data_too = data_too;
	nlfs_bmap_iterate(l->fs, f, note_map, l, &err);
}

static int note_inode(const struct nlfs_file *f, void *arg)
{
	note_file(arg, f, (nlfs_le16(f->inode.i_mode) & 0170000) != 0100000);
	return 0;
}

static int list(const char *img, bool all)
{
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file ifile;
	struct listing l = { .all = all };
	const struct nlfs_geometry *g;
	uint64_t run = 0, nruns = 0, total = 0;
	int rc;

	rc = nlfs_io_open_unix(img, NLFS_IO_RDONLY, &io);
	if (rc || nlfs_fs_open(io, &fs, &err)) {
		fprintf(stderr, "fsck-floor: cannot open %s\n", img);
		return 1;
	}
	g = nlfs_fs_geometry(fs);
	l.nblocks = g->devsize / g->blocksize;
	l.meta = calloc(l.nblocks / 8 + 1, 1);
	l.fs = fs;
	if (!l.meta || nlfs_fs_ifile(fs, 0, &ifile, &err)) {
		fprintf(stderr, "fsck-floor: %s: cannot read the ifile\n", img);
		return 1;
	}
	for (unsigned ino = NLFS_DAT_INO; ino <= NLFS_SUFILE_INO; ino++) {
		struct nlfs_file mdt;

		nlfs_fs_mdt_file(fs, ino, &mdt);
		note_file(&l, &mdt, true);
	}
	note_file(&l, &ifile, true);
	if (nlfs_ifile_iterate(fs, &ifile, note_inode, &l, &err)) {
		fprintf(stderr, "fsck-floor: %s: cannot read the inodes\n", img);
		return 1;
	}
	mark(&l, 0);
	mark(&l, nlfs_sb2_offset(g->devsize) / g->blocksize);
	for (uint64_t seg = 0; seg < g->nsegments; seg++) {
		struct nlfs_suinfo su;
		uint64_t p, end;

		if (nlfs_sufile_get(fs, seg, &su, &err)) {
			fprintf(stderr, "fsck-floor: segment %llu: cannot read its usage\n",
				(unsigned long long)seg);
			return 1;
		}
		if (!(su.flags & NLFS_SEGMENT_USAGE_DIRTY))
			continue;
		p = nlfs_seg_start(g, seg);
		end = p + su.nblocks;
		while (p < end) {
			struct nlfs_log log;
			void *summary = NULL;
			uint32_t nsum;

			if (nlfs_log_read(fs, p, &log, &summary, 0, &err))
				break;
			nsum = nlfs_summary_blocks(&log, g->blocksize);
			for (uint32_t i = 0; i < nsum; i++)
				mark(&l, p + i);
			for (uint32_t i = 0; all && i < log.nblocks; i++)
				mark(&l, p + i);
			if (log.flags & NLFS_SS_SR)
				mark(&l, p + log.nblocks - 1);
			nlfs_summary_walk(&log, summary, g->blocksize, note_block, &l, &err);
			free(summary);
			p += log.nblocks;
		}
	}
	for (uint64_t b = 0; b <= l.nblocks; b++) {
		bool set = b < l.nblocks && (l.meta[b / 8] >> (b % 8) & 1);

		if (set) {
			run++;
			total++;
		} else if (run) {
			printf("%llu %llu\n", (unsigned long long)(b - run), (unsigned long long)run);
			nruns++;
			run = 0;
		}
	}
	fprintf(stderr, "%llu %s blocks of %u bytes in %llu runs\n", (unsigned long long)total,
		all ? "log" : "metadata", g->blocksize, (unsigned long long)nruns);
	printf("blocksize %u\n", g->blocksize);
	nlfs_fs_close(fs);
	free(l.meta);
	return 0;
}

static int read_runs(const char *img, const char *listfile)
{
	enum { CHUNK = 1 << 20 };
	FILE *in = fopen(listfile, "r");
	int fd = open(img, O_RDONLY);
	unsigned long long start, count, bytes = 0;
	uint64_t (*runs)[2] = NULL;
	size_t n = 0, cap = 0;
	unsigned bs = 0;
	char *buf = malloc(CHUNK);

	if (!in || fd < 0 || !buf) {
		perror("fsck-floor");
		return 1;
	}
	/* the list is read first, so the timing is of the image's blocks alone */
	for (;;) {
		int got = fscanf(in, "%llu %llu", &start, &count);

		if (got == 2) {
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				runs = realloc(runs, cap * sizeof(*runs));
				if (!runs)
					return 1;
			}
			runs[n][0] = start;
			runs[n][1] = count;
			n++;
			continue;
		}
		if (fscanf(in, "blocksize %u", &bs) != 1 || !bs) {
			fprintf(stderr, "fsck-floor: %s: no block size\n", listfile);
			return 1;
		}
		break;
	}
	fclose(in);
	/* requests go out up to PREFETCH bytes ahead of the reads, so scattered
	 * runs queue at the disk as they would for a reader that knew them all */
	enum { PREFETCH = 32 << 20 };
	size_t ahead = 0;
	uint64_t queued = 0, done = 0;
	for (size_t i = 0; i < n; i++) {
		while (ahead < n && queued < done + PREFETCH) {
			posix_fadvise(fd, (off_t)(runs[ahead][0] * bs), (off_t)(runs[ahead][1] * bs),
				      POSIX_FADV_WILLNEED);
			queued += runs[ahead][1] * bs;
			ahead++;
		}
		done += runs[i][1] * bs;
		uint64_t off = runs[i][0] * bs, len = runs[i][1] * bs;

		while (len) {
			size_t want = len < CHUNK ? (size_t)len : CHUNK;
			ssize_t got = pread(fd, buf, want, (off_t)off);

			if (got <= 0) {
				perror("fsck-floor: pread");
				return 1;
			}
			off += (uint64_t)got;
			len -= (uint64_t)got;
			bytes += (unsigned long long)got;
		}
	}
	printf("%llu bytes in %zu runs\n", bytes, n);
	close(fd);
	free(buf);
	free(runs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "list"))
		return list(argv[2], false);
	if (argc == 3 && !strcmp(argv[1], "list-logs"))
		return list(argv[2], true);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return read_runs(argv[2], argv[3]);
	fprintf(stderr, "usage: fsck-floor list|list-logs IMG >LIST | fsck-floor read IMG LIST\n");
	return 2;
}
