/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-history: the checkpoints at which a file changed (by inode number,
 * so across renames), with time, size and optionally a CRC-32 of its
 * contents; --extract restores one version with dump.nilfs2's extract.
 * The search is the library's (nlfs_history).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "extract.h"
#include "cli.h"
#include "json.h"
#include "cptarget.h"

#define CHUNK (1u << 20)

struct ctx {
	struct target *t;
	uint64_t ino;
	bool digest, json;
	struct json_list jl;
	struct nlfs_inode prev;
	bool have_prev;
	uint8_t *buf;
	int failed;
};

/* zlib's CRC-32 (the one of gzip and zip) of the file's bytes at CNO */
static int crc_of(struct ctx *c, uint64_t cno, const struct nlfs_inode *inode, uint32_t *crc)
{
	struct nlfs_file f = { .ino = c->ino, .cno = cno, .inode = *inode };
	uint64_t size = nlfs_le64(inode->i_size);
	uLong v = crc32(0L, Z_NULL, 0);
	struct nlfs_err err;
	char msg[320];

	for (uint64_t off = 0; off < size;) {
		size_t want = size - off < CHUNK ? (size_t)(size - off) : CHUNK, done = 0;
		int rc = nlfs_file_pread(c->t->fs, &f, c->buf, want, off, &done, &err);

		if (rc || !done) {
			uint64_t gone = c->t->mounted ? target_vanished(c->t, &cno, 1) : 0;

			if (gone)
				cli_warnx("%s: checkpoint %" PRIu64 " disappeared while it was read",
					  c->t->name, gone);
			else {
				nlfs_err_format(&err, msg, sizeof(msg));
				cli_warnx("%s: checkpoint %" PRIu64 ": %s", c->t->name, cno,
					  rc ? msg : "short read");
			}
			return -1;
		}
		v = crc32(v, c->buf, (uInt)done);
		off += done;
	}
	*crc = (uint32_t)v;
	return 0;
}

static const char *what_changed(const struct ctx *c, const struct nlfs_version *v)
{
	if (!v->inode)
		return "removed";
	if (!c->have_prev)
		return "created";
	if (v->written || c->prev.i_size != v->inode->i_size ||
	    memcmp(c->prev.i_bmap, v->inode->i_bmap, sizeof(c->prev.i_bmap)))
		return "contents";
	return "metadata";
}

static int print_version(const struct nlfs_version *v, void *arg)
{
	struct ctx *c = arg;
	const char *what = what_changed(c, v);
	uint64_t size = v->inode ? nlfs_le64(v->inode->i_size) : 0;
	uint32_t crc = 0;
	char when[32];

	if (c->digest && v->inode && crc_of(c, v->cno, v->inode, &crc)) {
		c->failed = 1;
		return 1;
	}
	if (c->json) {
		json_record_begin(&c->jl);
		json_field_u64(&c->jl, "cno", v->cno);
		json_field_u64(&c->jl, "time", v->create);
		json_field_str(&c->jl, "change", what);
		if (v->inode) {
			json_field_u64(&c->jl, "size", size);
			json_field_u64(&c->jl, "mtime", nlfs_le64(v->inode->i_mtime));
			json_field_u64(&c->jl, "mode", nlfs_le16(v->inode->i_mode));
			json_field_u64(&c->jl, "nlink", nlfs_le16(v->inode->i_links_count));
			if (c->digest) {
				char hex[9];

				snprintf(hex, sizeof(hex), "%08x", crc);
				json_field_str(&c->jl, "crc32", hex);
			}
		}
		json_field_bool(&c->jl, "written", v->written);
		json_record_end(&c->jl);
	} else {
		cli_format_time(v->create, when, sizeof(when));
		printf("%20" PRIu64 "  %s  %12" PRIu64 "  ", v->cno, when, size);
		if (c->digest && v->inode)
			printf("%-8s  %08x", what, crc);
		else
			fputs(what, stdout);
		putchar('\n');
	}
	if (v->inode)
		c->prev = *v->inode;
	c->have_prev = v->inode != NULL;
	return 0;
}

static void __attribute__((noreturn)) usage(void)
{
	fputs(CLI_USAGE_HEADER
	      " nilfs-history [options] <device|image|mountpoint> <path>\n"
	      " nilfs-history [options] --extract <cno> <dest> <device|image|mountpoint> <path>\n"
	      "\nThe checkpoints at which a file changed, found by its inode number (so\n"
	      "across renames), with time, size and what changed.\n"
	      CLI_USAGE_OPTIONS
	      " -c, --checkpoint <cno>  look the path up at checkpoint <cno> (default: the latest)\n"
	      " -d, --digest            a CRC-32 (zlib's) of each version's contents\n"
	      " -x, --extract <cno> <dest>  restore the version of checkpoint <cno> into <dest>\n"
	      " -j, --json              print JSON\n"
	      " -v, --verbose           say how much was read, to standard error\n", stdout);
	cli_usage_help(stdout, 25);
	cli_usage_man(stdout, 1);
	exit(0);
}

static int extract(struct target *t, uint64_t ino, uint32_t gen, uint64_t cno, const char *dest)
{
	struct nlfs_file ifile, f;
	struct nlfs_err err;
	char msg[320], *path = NULL;
	int rc;

	if (target_hold(t, cno))
		return -1;
	rc = nlfs_fs_ifile(t->fs, cno, &ifile, &err);
	if (!rc)
		rc = nlfs_ifile_read(t->fs, &ifile, ino, &f, &err);
	if (rc == -ENOENT || (!rc && nlfs_le32(f.inode.i_generation) != gen)) {
		cli_warnx("%s: the file is not in checkpoint %" PRIu64, t->name, cno);
		return -1;
	}
	if (!rc)
		rc = nlfs_ino_path(t->fs, cno, ino, &path, &err);
	if (!rc)
		rc = dump_extract(t->fs, cno, path, dest, &err);
	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		cli_warnx("%s: %s", t->name, msg);
	}
	free(path);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "checkpoint", required_argument, NULL, 'c' },
		{ "digest", no_argument, NULL, 'd' },
		{ "extract", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { 0 };
	struct nlfs_history_stats st;
	struct target t;
	struct nlfs_err err;
	struct nlfs_file ifile, f;
	uint64_t cno = 0, xcno = 0;
	const char *dest = NULL;
	bool verbose = false;
	char msg[320];
	int opt, rc;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "c:dx:jvhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (cli_strtocno(optarg, &cno) || cno == 0)
				cli_usage_error("invalid checkpoint number: %s", optarg);
			break;
		case 'd': c.digest = true; break;
		case 'x':
			if (cli_strtocno(optarg, &xcno) || xcno == 0)
				cli_usage_error("invalid checkpoint number: %s", optarg);
			if (optind >= argc)
				cli_usage_error("--extract needs a checkpoint and a destination");
			dest = argv[optind++];
			break;
		case 'j': c.json = true; break;
		case 'v': verbose = true; break;
		case 'h': usage();
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind != 2)
		cli_usage_error(argc == optind ? "no device given" :
				argc - optind == 1 ? "no path given" : "too many arguments");
	if (target_open(&t, argv[optind]))
		return CLI_EXIT_FAILURE;
	if (!cno && target_latest(&t, &cno))
		goto fail;
	if (target_hold(&t, cno))
		goto fail;
	rc = nlfs_fs_ifile(t.fs, cno, &ifile, &err);
	if (!rc)
		rc = nlfs_path_lookup(t.fs, &ifile, argv[optind + 1], &f, &err);
	if (rc) {
		if (rc == -ENOENT || rc == -ENOTDIR)
			cli_warnx("%s: %s: not in checkpoint %" PRIu64, t.name, argv[optind + 1], cno);
		else {
			nlfs_err_format(&err, msg, sizeof(msg));
			cli_warnx("%s: %s", t.name, msg);
		}
		goto fail;
	}
	c.t = &t;
	c.ino = f.ino;
	if (dest) {
		rc = extract(&t, f.ino, nlfs_le32(f.inode.i_generation), xcno, dest);
		target_close(&t);
		return rc ? CLI_EXIT_FAILURE : 0;
	}
	c.buf = malloc(CHUNK);
	if (!c.buf) {
		cli_warnc(ENOMEM, NULL);
		goto fail;
	}
	if (c.json)
		json_list_begin(&c.jl, stdout, "versions");
	else
		printf("%20s  %-19s  %12s  %s\n", "CNO", "DATE     TIME", "SIZE",
		       c.digest ? "CHANGE    CRC32" : "CHANGE");
	nlfs_err_clear(&err);
	rc = nlfs_history(t.fs, f.ino, nlfs_le32(f.inode.i_generation), print_version, &c, &st,
			  &err);
	if (c.json)
		json_list_end(&c.jl);
	free(c.buf);
	if (rc < 0) {
		nlfs_err_format(&err, msg, sizeof(msg));
		cli_warnx("%s: %s", t.name, msg);
		goto fail;
	}
	if (c.failed)
		goto fail;
	if (verbose)
		fprintf(stderr, "inode %" PRIu64 ": checkpoints %" PRIu64 ", records read %" PRIu64
			", segments with logs %" PRIu64 ", checkpoints writing its blocks %" PRIu64 "\n",
			f.ino, st.checkpoints, st.records_read, st.logs, st.written_cnos);
	target_close(&t);
	return 0;
fail:
	target_close(&t);
	return CLI_EXIT_FAILURE;
}
