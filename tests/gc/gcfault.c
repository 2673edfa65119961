/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gcfault.c - test helper for the offline cleaner under power loss (not
 * installed).  t-gc-crash.sh drives it.
 *
 *   gcfault rewrite IMG PATH NBLOCKS SEED
 *       one construction in which the regular file /PATH gets NBLOCKS new
 *       blocks (a pattern from SEED): its old blocks die at this checkpoint
 *   gcfault checkpoints IMG N
 *       N constructions that change nothing but the metadata: N minor
 *       checkpoints (offline mkcp makes none when nothing changed)
 *   gcfault snapshot IMG
 *       one construction that makes the latest checkpoint a snapshot
 *   gcfault dated IMG TIME...
 *       a minor checkpoint dated each TIME (seconds since the epoch), for
 *       the snapshot timeline's tests
 *   gcfault dated-rewrite IMG PATH NBLOCKS TIME...
 *       as rewrite, once per TIME and dated so, each with other contents
 * Each construction is dated a second after the latest checkpoint, so that
 * segments differ in age however fast they are made (and a volume made
 * with mkfs -T in the past stays there).
 *   gcfault clean IMG OUT NOW K MODE
 *       one offline cleaning pass over every reclaimable segment (no
 *       protection period, time NOW) on a copy of IMG in memory, behind a
 *       fault device that at write K tears it (MODE torn: half a block
 *       kept), completes it (whole) or fails it (fail), and then loses
 *       power; what the disk keeps goes to OUT.  Prints "done" when the
 *       pass finished before write K (K is past its last write), else
 *       "crashed", then the pass's counters
 *   gcfault order IMG NOW SEG...
 *       one cleaning construction of segments SEG... walked in that order
 *       (no protection period, the volume's snapshots kept)
 *   gcfault digest IMG
 *       a line per tree (the latest checkpoint and every snapshot): the
 *       checkpoint and a hash of every path, size and byte under /
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/nlfs.h>
#include <nlfs/io_test.h>
#include <nlfs/repair.h>

static int fail(const char *what, const struct nlfs_err *err, int rc)
{
	char msg[512] = "";

	if (err)
		nlfs_err_format(err, msg, sizeof(msg));
	fprintf(stderr, "gcfault: %s: %s (%d)\n", what, msg, rc);
	return 1;
}

/* the image file in memory, and back */
static int load(const char *path, struct nlfs_io **out, uint64_t *size)
{
	struct nlfs_io *f;
	int rc = nlfs_io_open_unix(path, NLFS_IO_RDONLY, &f);

	if (!rc)
		rc = nlfs_io_size(f, size);
	if (!rc)
		rc = nlfs_io_open_mem(*size, out);
	if (!rc)
		rc = nlfs_io_read(f, nlfs_io_mem_data(*out), *size, 0);
	if (f)
		nlfs_io_close(f);
	return rc;
}

static int save(struct nlfs_io *mem, uint64_t size, const char *path)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(nlfs_io_mem_data(mem), 1, size, f) == size;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -EIO;
}

static void pattern(uint8_t *buf, uint32_t bs, uint64_t seed, uint64_t blk)
{
	for (uint32_t i = 0; i < bs; i += 8) {
		uint64_t v = (seed + 1) * 0x100000001b3ull ^ (blk * 0x9E3779B97F4A7C15ull) ^ i;

		memcpy(buf + i, &v, 8);
	}
}

/* a writer for the next construction, dated NOW (0: as said above) */
static int open_writer(const char *img, uint64_t now, struct nlfs_fs **fs,
		       struct nlfs_writer **w, struct nlfs_err *err)
{
	struct nlfs_cpinfo cp;
	struct nlfs_io *io;
	int rc = nlfs_io_open_unix(img, NLFS_IO_RDWR, &io);

	*w = NULL;
	if (rc)
		return rc;
	rc = nlfs_fs_open(io, fs, err);
	if (rc) {
		nlfs_io_close(io);
		return rc;
	}
	rc = nlfs_cpfile_info(*fs, nlfs_fs_recovery(*fs)->cno, &cp, err);
	if (!rc && !now)
		now = cp.create + 1;
	if (!rc)
		rc = nlfs_writer_open(*fs, now, 0, w, err);
	if (rc) {
		nlfs_fs_close(*fs);
		*fs = NULL;
	}
	return rc;
}

/* commit the construction if all went well so far, and close */
static int close_writer(struct nlfs_fs *fs, struct nlfs_writer *w, int rc, struct nlfs_err *err)
{
	if (!rc)
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	nlfs_fs_close(fs);
	return rc;
}

/* dated NOW (0: a second after the latest checkpoint) */
static int rewrite(const char *img, const char *path, uint64_t nblocks, uint64_t seed,
		   uint64_t now)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_file ifile, f;
	struct nlfs_inode inode;
	struct nlfs_err err;
	uint8_t *buf = NULL;
	uint32_t bs;
	int rc = open_writer(img, now, &fs, &w, &err);

	if (rc)
		return fail(img, &err, rc);
	rc = nlfs_fs_ifile(fs, 0, &ifile, &err);
	if (!rc)
		rc = nlfs_path_lookup(fs, &ifile, path, &f, &err);
	bs = nlfs_fs_geometry(fs)->blocksize;
	if (!rc && !(buf = malloc(bs)))
		rc = -ENOMEM;
	if (!rc)
		rc = nlfs_writer_get_inode(w, f.ino, &inode, &err);
	if (!rc)
		rc = nlfs_writer_file_replace(w, f.ino, &err);
	if (!rc)
		rc = nlfs_writer_file_begin(w, f.ino, &err);
	for (uint64_t b = 0; !rc && b < nblocks; b++) {
		pattern(buf, bs, seed, b);
		rc = nlfs_writer_file_block(w, b, buf, &err);
	}
	if (!rc) {
		inode.i_size = nlfs_cpu_to_le64(nblocks * bs);
		rc = nlfs_writer_file_end(w, &inode, &err);
	}
	free(buf);
	rc = close_writer(fs, w, rc, &err);
	return rc ? fail("rewrite", &err, rc) : 0;
}

/* N checkpoints, dated TIMES[i] (NULL: a second after the latest) */
static int checkpoints(const char *img, uint64_t n, bool snapshot, char **times)
{
	for (uint64_t i = 0; i < n; i++) {
		struct nlfs_fs *fs;
		struct nlfs_writer *w;
		struct nlfs_err err;
		int rc = open_writer(img, times ? strtoull(times[i], NULL, 10) : 0, &fs, &w, &err);

		if (rc)
			return fail(img, &err, rc);
		if (snapshot)
			rc = nlfs_writer_set_snapshot(w, nlfs_writer_cno(w) - 1, true, &err);
		rc = close_writer(fs, w, rc, &err);
		if (rc)
			return fail("checkpoint", &err, rc);
	}
	return 0;
}

static int clean(const char *img, const char *out, uint64_t now, uint64_t k, const char *mode)
{
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = now,
				    .protection_period = 0, .target_clean = UINT64_MAX,
				    .nsegments_per_clean = UINT32_MAX, .min_reclaimable = 1,
				    .max_passes = 1 };
	struct nlfs_gc_stats st;
	struct nlfs_io *mem, *fio;
	struct nlfs_err err;
	uint64_t size;
	int rc = load(img, &mem, &size);

	if (rc)
		return fail(img, NULL, rc);
	rc = nlfs_io_open_fault(mem, &fio);
	if (rc)
		return fail("fault device", NULL, rc);
	if (!strcmp(mode, "torn"))
		nlfs_io_fault_tear_write(fio, k, 512);
	else if (!strcmp(mode, "whole"))
		nlfs_io_fault_tear_write(fio, k, SIZE_MAX);
	else if (!strcmp(mode, "fail"))
		nlfs_io_fault_fail_write(fio, k);
	else
		return fail("mode is torn, whole or fail", NULL, -EINVAL);
	nlfs_err_clear(&err);
	rc = nlfs_gc_offline(fio, &p, &st, &err);
	printf("%s segments %" PRIu64 " moved %" PRIu64 " freed %" PRIu64 " checkpoints %" PRIu64
	       " writes %" PRIu64 "\n", rc ? "crashed" : "done", st.segments, st.blocks_moved,
	       st.blocks_freed, st.checkpoints_deleted, nlfs_io_fault_writes(fio));
	if (rc && nlfs_io_fault_writes(fio) <= k)
		return fail("the pass failed before the fault", &err, rc);
	nlfs_io_fault_crash(fio);
	rc = save(mem, size, out);
	nlfs_io_close(fio);   /* and MEM below it */
	return rc ? fail(out, NULL, rc) : 0;
}

static int order(const char *img, uint64_t now, char **segs, int nsegs)
{
	struct nlfs_gc_stats st = { 0 };
	struct nlfs_gc_protect prot = { .protcno = UINT64_MAX };
	struct nlfs_cphead h;
	struct nlfs_cpinfo cp;
	uint64_t snaps[64];
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_err err;
	int rc = open_writer(img, now, &fs, &w, &err);

	if (rc)
		return fail(img, &err, rc);
	rc = nlfs_cpfile_header(fs, &h, &err);
	for (uint64_t c = rc ? 0 : h.snapshot_next; !rc && c;
	     c = cp.next) {
		rc = nlfs_cpfile_info(fs, c, &cp, &err);
		if (!rc && prot.nsnapshots < 64)
			snaps[prot.nsnapshots++] = c;
	}
	prot.snapshots = snaps;
	for (int i = 0; !rc && i < nsegs; i++)
		rc = nlfs_writer_gc_segment(w, strtoull(segs[i], NULL, 10), &prot, &st, &err);
	rc = close_writer(fs, w, rc, &err);
	if (rc)
		return fail("cleaning", &err, rc);
	printf("done segments %" PRIu64 " moved %" PRIu64 " freed %" PRIu64 " checkpoints %" PRIu64
	       "\n", st.segments, st.blocks_moved, st.blocks_freed, st.checkpoints_deleted);
	return 0;
}

/* ---- digest ---- */

struct hash {
	uint64_t h;
};

static void mix(struct hash *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h->h = (h->h ^ b[i]) * 0x100000001b3ull;
}

struct walk {
	struct nlfs_fs *fs;
	const struct nlfs_file *ifile;
	struct hash *h;
	char path[1024];
	int rc;
	struct nlfs_err *err;
};

static int tree(struct walk *wk, const struct nlfs_file *dir);

static int entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct walk *wk = arg;
	size_t at = strlen(wk->path);
	struct nlfs_file f;
	int rc;

	(void)type;
	if ((len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2)))
		return 0;
	if (at + len + 2 > sizeof(wk->path))
		return -ENAMETOOLONG;
	wk->path[at] = '/';
	memcpy(wk->path + at + 1, name, len);
	wk->path[at + 1 + len] = 0;
	rc = nlfs_ifile_read(wk->fs, wk->ifile, ino, &f, wk->err);
	if (!rc) {
		uint64_t size = nlfs_le64(f.inode.i_size);
		uint16_t mode = nlfs_le16(f.inode.i_mode);

		mix(wk->h, wk->path, strlen(wk->path) + 1);
		mix(wk->h, &size, sizeof(size));
		mix(wk->h, &mode, sizeof(mode));
		if ((mode & 0170000) == 0040000) {
			rc = tree(wk, &f);
		} else {
			uint8_t buf[4096];

			for (uint64_t off = 0; !rc && off < size; off += sizeof(buf)) {
				size_t done;

				rc = nlfs_file_pread(wk->fs, &f, buf, sizeof(buf), off, &done,
						     wk->err);
				if (!rc)
					mix(wk->h, buf, done);
			}
		}
	}
	wk->path[at] = 0;
	return rc;
}

static int tree(struct walk *wk, const struct nlfs_file *dir)
{
	return nlfs_dir_iterate(wk->fs, dir, entry, wk, wk->err);
}

static int digest_cp(struct nlfs_fs *fs, uint64_t cno, const char *what, struct nlfs_err *err)
{
	struct nlfs_file ifile, root;
	struct hash h = { 0xcbf29ce484222325ull };
	struct walk wk = { .fs = fs, .ifile = &ifile, .h = &h, .err = err };
	int rc = nlfs_fs_ifile(fs, cno, &ifile, err);

	if (!rc)
		rc = nlfs_path_lookup(fs, &ifile, "/", &root, err);
	if (!rc)
		rc = tree(&wk, &root);
	if (!rc)
		printf("%s %" PRIu64 " %016" PRIx64 "\n", what, cno, h.h);
	return rc;
}

static int digest(const char *img)
{
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cphead h;
	struct nlfs_cpinfo cp;
	int rc = nlfs_io_open_unix(img, NLFS_IO_RDONLY, &io);

	if (rc)
		return fail(img, NULL, rc);
	rc = nlfs_fs_open(io, &fs, &err);
	if (rc) {
		nlfs_io_close(io);
		return fail("open", &err, rc);
	}
	rc = digest_cp(fs, nlfs_fs_recovery(fs)->cno, "latest", &err);
	if (!rc)
		rc = nlfs_cpfile_header(fs, &h, &err);
	for (uint64_t c = rc ? 0 : h.snapshot_next; !rc && c;
	     c = cp.next) {
		rc = nlfs_cpfile_info(fs, c, &cp, &err);
		if (!rc)
			rc = digest_cp(fs, c, "snapshot", &err);
	}
	nlfs_fs_close(fs);
	return rc ? fail("digest", &err, rc) : 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "rewrite"))
		return rewrite(argv[2], argv[3], strtoull(argv[4], NULL, 10),
			       strtoull(argv[5], NULL, 10), 0);
	if (argc >= 5 && !strcmp(argv[1], "dated-rewrite")) {
		for (int i = 5; i < argc; i++)
			if (rewrite(argv[2], argv[3], strtoull(argv[4], NULL, 10), (uint64_t)i,
				    strtoull(argv[i], NULL, 10)))
				return 1;
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "checkpoints"))
		return checkpoints(argv[2], strtoull(argv[3], NULL, 10), false, NULL);
	if (argc == 3 && !strcmp(argv[1], "snapshot"))
		return checkpoints(argv[2], 1, true, NULL);
	if (argc >= 3 && !strcmp(argv[1], "dated"))
		return checkpoints(argv[2], (uint64_t)(argc - 3), false, argv + 3);
	if (argc == 7 && !strcmp(argv[1], "clean"))
		return clean(argv[2], argv[3], strtoull(argv[4], NULL, 10),
			     strtoull(argv[5], NULL, 10), argv[6]);
	if (argc >= 4 && !strcmp(argv[1], "order"))
		return order(argv[2], strtoull(argv[3], NULL, 10), argv + 4, argc - 4);
	if (argc == 3 && !strcmp(argv[1], "digest"))
		return digest(argv[2]);
	fprintf(stderr, "usage: gcfault rewrite IMG PATH NBLOCKS SEED | gcfault checkpoints IMG N | "
			"gcfault snapshot IMG | gcfault dated IMG TIME... | "
			"gcfault dated-rewrite IMG PATH NBLOCKS TIME... | "
			"gcfault clean IMG OUT NOW K torn|whole|fail | gcfault order IMG NOW SEG... | "
			"gcfault digest IMG\n");
	return 2;
}
