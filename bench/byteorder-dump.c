/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * byteorder-dump IMAGE [COPY]: what the library reads from IMAGE, printed
 * in a form that does not depend on the host's byte order: the superblock
 * choice and geometry, the cpfile's and sufile's headers and counts, every
 * checkpoint (listed, and got in on-disk form), every segment's usage,
 * every inode of the latest checkpoint with a CRC of its contents, the
 * directory tree, what changed between each pair of checkpoints and the
 * versions of every file.  With COPY (a copy of IMAGE) a checkpoint is
 * also written into it by the library's writer, then it is cleaned by
 * the offline cleaner (at a fixed time), and the new state printed.
 * byteorder-dump --new IMAGE makes a volume on IMAGE (an empty file of
 * 64 MiB) as mkfs -d would, with a fixed tree, time and UUID, and prints
 * it.  bench/byteorder.sh runs it natively and on a
 * big-endian CPU under qemu-user and compares: the same output, byte for
 * byte, is the byte-order contract kept.  Links only libnlfs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/nlfs.h>
#include <nlfs/writer.h>

static int fail(const char *what, int rc, const struct nlfs_err *err)
{
	char msg[320] = "";

	if (err)
		nlfs_err_format(err, msg, sizeof(msg));
	printf("! %s: %d %s\n", what, rc, msg);
	return rc;
}

static int print_inode(const struct nlfs_file *f, void *arg)
{
	struct nlfs_fs *fs = arg;
	uint32_t bs = nlfs_fs_geometry(fs)->blocksize;
	uint64_t size = nlfs_le64(f->inode.i_size), nblocks = (size + bs - 1) / bs;
	uint8_t *buf = malloc(bs);
	uint32_t crc = 0;
	struct nlfs_err err;

	if (!buf)
		return -ENOMEM;
	for (uint64_t b = 0; b < nblocks && b < 4096; b++) {
		bool hole;

		if (nlfs_file_read_block(fs, f, b, buf, &hole, &err))
			break;
		crc = nlfs_crc32(crc, buf, b + 1 == nblocks && size % bs ? size % bs : bs);
	}
	free(buf);
	printf("inode %" PRIu64 " mode %o links %u uid %u size %" PRIu64 " blocks %" PRIu64
	       " mtime %" PRIu64 ".%u gen %u flags %x crc %08x\n", f->ino,
	       nlfs_le16(f->inode.i_mode), nlfs_le16(f->inode.i_links_count),
	       nlfs_le32(f->inode.i_uid), size, nlfs_le64(f->inode.i_blocks),
	       nlfs_le64(f->inode.i_mtime), nlfs_le32(f->inode.i_mtime_nsec),
	       nlfs_le32(f->inode.i_generation), nlfs_le32(f->inode.i_flags), crc);
	return 0;
}

struct tree {
	struct nlfs_fs *fs;
	const struct nlfs_file *ifile;
	char path[4096];
	unsigned depth;
};

static int print_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct tree *t = arg;
	struct nlfs_file f;
	struct nlfs_err err;
	size_t at = strlen(t->path);

	if ((len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2)))
		return 0;
	printf("entry %s/%.*s ino %" PRIu64 " type %u\n", t->path, (int)len, name, ino, type);
	if (type != NLFS_FT_DIR || t->depth > 64 || at + len + 2 > sizeof(t->path))
		return 0;
	if (nlfs_ifile_read(t->fs, t->ifile, ino, &f, &err))
		return fail("ifile_read", -1, &err) && 0;
	snprintf(t->path + at, sizeof(t->path) - at, "/%.*s", (int)len, name);
	t->depth++;
	nlfs_dir_iterate(t->fs, &f, print_entry, t, &err);
	t->depth--;
	t->path[at] = 0;
	return 0;
}

static int print_change(const struct nlfs_diff_change *c, void *arg)
{
	(void)arg;
	printf("change %d ino %" PRIu64 " %s%s%s contents %d\n", (int)c->kind, c->ino, c->path,
	       c->new_path ? " -> " : "", c->new_path ? c->new_path : "", c->contents);
	return 0;
}

static int print_version(const struct nlfs_version *v, void *arg)
{
	(void)arg;
	printf("version cno %" PRIu64 " create %" PRIu64 " size %" PRIu64 " written %d\n", v->cno,
	       v->create, v->inode ? nlfs_le64(v->inode->i_size) : 0, v->written);
	return 0;
}

static int dump(struct nlfs_fs *fs)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	struct nlfs_cphead ch;
	struct nlfs_suhead sh;
	struct nlfs_cpstat cs;
	struct nlfs_sustat ss;
	struct nlfs_cpinfo ci[64];
	struct nlfs_file ifile, root;
	struct nlfs_err err;
	uint64_t cno = 1, cnos[4096];
	size_t got, ncnos = 0;
	struct tree t = { .fs = fs, .ifile = &ifile };
	int rc;

	printf("sb used %d blocksize %u segments %" PRIu64 " blocks/segment %u\n",
	       (int)nlfs_fs_sb_choice(fs)->used, g->blocksize, g->nsegments, g->blocks_per_segment);
	if ((rc = nlfs_cpfile_header(fs, &ch, &err)))
		return fail("cpfile_header", rc, &err);
	printf("cpfile header %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       ch.ncheckpoints, ch.nsnapshots, ch.snapshot_next, ch.snapshot_prev);
	if ((rc = nlfs_sufile_header(fs, &sh, &err)))
		return fail("sufile_header", rc, &err);
	printf("sufile header %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", sh.ncleansegs,
	       sh.ndirtysegs, sh.last_alloc);
	if (!nlfs_cpfile_stat(fs, &cs, &err))
		printf("cpstat %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", cs.cno, cs.ncps, cs.nsss);
	if (!nlfs_sufile_stat(fs, &ss, &err))
		printf("sustat %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       ss.nsegs, ss.ncleansegs, ss.ndirtysegs, ss.ctime, ss.prot_seq);
	while (!(rc = nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 64, &got, &err)) && got)
		for (size_t i = 0; i < got; i++) {
			struct nlfs_cpinfo cp;

			printf("cp %" PRIu64 " flags %x create %" PRIu64 " inc %" PRIu64 " inodes %" PRIu64
			       " blocks %" PRIu64 " next %" PRIu64 "\n", ci[i].cno, ci[i].flags,
			       ci[i].create, ci[i].nblk_inc, ci[i].inodes_count, ci[i].blocks_count,
			       ci[i].next);
			if (!nlfs_cpfile_info(fs, ci[i].cno, &cp, &err))
				printf("cp-get %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", cp.cno,
				       cp.create, cp.blocks_count);
			if (ncnos < sizeof(cnos) / sizeof(*cnos))
				cnos[ncnos++] = ci[i].cno;
		}
	for (uint64_t s = 0; s < g->nsegments; s++) {
		struct nlfs_suinfo su;
		struct nlfs_suinfo si;

		if (!nlfs_sufile_get(fs, s, &su, &err) && su.flags)
			printf("su %" PRIu64 " lastmod %" PRIu64 " nblocks %u flags %x\n", s,
			       su.lastmod, su.nblocks, su.flags);
		if (!nlfs_sufile_list(fs, s, &si, 1, &got, &err) && got && si.flags)
			printf("suinfo %" PRIu64 " %" PRIu64 " %u %x\n", s, si.lastmod, si.nblocks,
			       si.flags);
	}
	if ((rc = nlfs_fs_ifile(fs, 0, &ifile, &err)))
		return fail("fs_ifile", rc, &err);
	if ((rc = nlfs_ifile_iterate(fs, &ifile, print_inode, fs, &err)))
		return fail("ifile_iterate", rc, &err);
	if ((rc = nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, &err)))
		return fail("root", rc, &err);
	nlfs_dir_iterate(fs, &root, print_entry, &t, &err);
	for (size_t i = 1; i < ncnos; i++) {
		printf("diff %" PRIu64 " %" PRIu64 "\n", cnos[i - 1], cnos[i]);
		if ((rc = nlfs_diff(fs, cnos[i - 1], cnos[i], print_change, NULL, NULL, &err)))
			fail("diff", rc, &err);
	}
	for (uint64_t ino = NLFS_ROOT_INO; ino < 64; ino++) {
		struct nlfs_file f;

		if (nlfs_ifile_read(fs, &ifile, ino, &f, &err))
			continue;
		printf("history %" PRIu64 "\n", ino);
		nlfs_history(fs, ino, nlfs_le32(f.inode.i_generation), print_version, NULL, NULL, &err);
	}
	return 0;
}

static int open_fs(const char *path, int mode, struct nlfs_fs **fs)
{
	struct nlfs_io *io;
	struct nlfs_err err;
	int rc = nlfs_io_open_unix(path, mode, &io);

	if (rc)
		return fail(path, rc, NULL);
	rc = nlfs_fs_open(io, fs, &err);
	if (rc) {
		nlfs_io_close(io);
		return fail(path, rc, &err);
	}
	return 0;
}

/* one pass of the offline cleaner over PATH, every segment it may take */
static int clean(const char *path)
{
	struct nlfs_gc_params p = {
		.policy = NLFS_GC_TIMESTAMP, .now = 2000000000, .target_clean = UINT64_MAX,
		.nsegments_per_clean = 4, .min_reclaimable = 1, .max_passes = 1,
	};
	struct nlfs_gc_stats st = { 0 };
	struct nlfs_err err;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	int rc = nlfs_io_open_unix(path, NLFS_IO_RDWR, &io);

	if (rc)
		return fail(path, rc, NULL);
	rc = nlfs_gc_offline(io, &p, &st, &err);
	nlfs_io_close(io);
	if (rc)
		return fail("gc_offline", rc, &err);
	printf("-- after cleaning: %" PRIu64 " passes, %" PRIu64 " segments, %" PRIu64 " moved, %"
	       PRIu64 " freed, %" PRIu64 " checkpoints deleted\n", st.passes, st.segments,
	       st.blocks_moved, st.blocks_freed, st.checkpoints_deleted);
	if ((rc = open_fs(path, NLFS_IO_RDONLY, &fs)))
		return rc;
	rc = dump(fs);
	nlfs_fs_close(fs);
	return rc;
}

static void new_inode(struct nlfs_inode *in, uint16_t mode, uint16_t links)
{
	memset(in, 0, sizeof(*in));
	in->i_mode = nlfs_cpu_to_le16(mode);
	in->i_links_count = nlfs_cpu_to_le16(links);
	in->i_uid = nlfs_cpu_to_le32(1000);
	in->i_ctime = in->i_mtime = nlfs_cpu_to_le64(2000000000);
	in->i_mtime_nsec = nlfs_cpu_to_le32(123456789);
}

/* a regular file of SIZE bytes whose bytes follow SEED */
static int new_file(struct nlfs_writer *w, uint64_t ino, uint64_t size, unsigned seed,
		    struct nlfs_err *err)
{
	uint32_t bs = nlfs_writer_geometry(w)->blocksize;
	uint8_t *buf = malloc(bs);
	struct nlfs_inode in;
	int rc = buf ? nlfs_writer_file_begin(w, ino, err) : -ENOMEM;

	for (uint64_t b = 0; !rc && b * bs < size; b++) {
		for (uint32_t i = 0; i < bs; i++)
			buf[i] = (uint8_t)(seed * 31 + b * 7 + i);
		if (seed % 5 || b % 3)       /* some holes */
			rc = nlfs_writer_file_block(w, b, buf, err);
	}
	free(buf);
	new_inode(&in, 0100644, 1);
	in.i_size = nlfs_cpu_to_le64(size);
	return rc ? rc : nlfs_writer_file_end(w, &in, err);
}

/* N files (their inode numbers into INOS), then directory DIR (in PARENT)
 * naming them PREFIX-i, and SUBDIR (if not 0) as "sub" */
static int new_dir(struct nlfs_writer *w, uint64_t dir, uint64_t parent, unsigned n,
		   const char *prefix, uint64_t subdir, struct nlfs_err *err)
{
	uint64_t *inos = calloc(n, sizeof(*inos));
	struct nlfs_dirw *d = NULL;
	struct nlfs_inode in;
	char name[64];
	int rc = inos ? 0 : -ENOMEM;

	for (unsigned i = 0; !rc && i < n; i++) {
		rc = nlfs_writer_new_ino(w, &inos[i], err);
		if (!rc)
			rc = new_file(w, inos[i], (uint64_t)i * 997 % 40000, i, err);
	}
	if (!rc)
		rc = nlfs_dirw_begin(w, dir, parent, &d, err);
	for (unsigned i = 0; !rc && i < n; i++) {
		int len = snprintf(name, sizeof(name), "%s-%03u", prefix, i);

		rc = nlfs_dirw_add(d, name, (size_t)len, inos[i], nlfs_file_type_of_mode(0100644), err);
	}
	if (!rc && subdir)
		rc = nlfs_dirw_add(d, "sub", 3, subdir, NLFS_FT_DIR, err);
	new_inode(&in, 040755, subdir ? 3 : 2);
	if (!rc) {
		rc = nlfs_dirw_end(d, &in, err);
		d = NULL;
	}
	nlfs_dirw_free(d);
	free(inos);
	return rc;
}

/* A volume on PATH as mkfs.nilfs2 -d makes one, at a fixed time and UUID:
 * a directory of 200 files, and the root holding it and 300 more (up to
 * 40 blocks each, so that many maps are B-trees, some with holes; the
 * directories' names fill several blocks). */
static int make_volume(const char *path)
{
	struct nlfs_mkfs_params p = {
		.blocksize = 1024, .blocks_per_segment = 256, .r_segments_percentage = 5,
		.ctime = 2000000000, .uuid = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
		.label = "be-test",
	};
	struct nlfs_super_block sb;
	struct nlfs_writer *w = NULL;
	struct nlfs_err err;
	struct nlfs_io *io;
	uint64_t sub;
	int rc = nlfs_io_open_unix(path, NLFS_IO_RDWR, &io);

	if (rc)
		return fail(path, rc, NULL);
	rc = nlfs_io_size(io, &p.devsize);
	if (!rc)
		rc = nlfs_mkfs_superblock(&p, &sb, NULL, &err);
	if (!rc)
		rc = nlfs_writer_create(io, &sb, &w, &err);
	if (!rc)
		rc = nlfs_writer_new_ino(w, &sub, &err);
	if (!rc)
		rc = new_dir(w, sub, NLFS_ROOT_INO, 200, "a-longer-file-name-in-the-subdirectory", 0,
			     &err);
	if (!rc)
		rc = new_dir(w, NLFS_ROOT_INO, NLFS_ROOT_INO, 300, "file", sub, &err);
	if (!rc)
		rc = nlfs_writer_commit(w, &err);
	nlfs_writer_free(w);
	nlfs_io_close(io);
	return rc ? fail("mkfs", rc, &err) : 0;
}

int main(int argc, char **argv)
{
	struct nlfs_fs *fs;
	int rc;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: byteorder-dump IMAGE [COPY] | --new IMAGE\n");
		return 2;
	}
	if (argc == 3 && !strcmp(argv[1], "--new")) {
		if (make_volume(argv[2]) || open_fs(argv[2], NLFS_IO_RDONLY, &fs))
			return 1;
		rc = dump(fs);
		nlfs_fs_close(fs);
		return rc ? 1 : 0;
	}
	if (open_fs(argv[1], NLFS_IO_RDONLY, &fs))
		return 1;
	rc = dump(fs);
	nlfs_fs_close(fs);
	if (!rc && argc == 3) {
		struct nlfs_writer *w;
		struct nlfs_err err;

		if (open_fs(argv[2], NLFS_IO_RDWR, &fs))
			return 1;
		rc = nlfs_writer_open(fs, 2000000000, 0, &w, &err);
		if (!rc) {
			rc = nlfs_writer_commit(w, &err);
			nlfs_writer_free(w);
		}
		if (rc)
			fail("writer", rc, &err);
		nlfs_fs_close(fs);
		if (!rc && !open_fs(argv[2], NLFS_IO_RDONLY, &fs)) {
			printf("-- after a checkpoint written\n");
			rc = dump(fs);
			nlfs_fs_close(fs);
		}
		if (!rc)
			rc = clean(argv[2]);
	}
	return rc ? 1 : 0;
}
