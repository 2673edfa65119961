/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-diff: what changed between two checkpoints, one line per path, in
 * zfs diff's conventions.  The walk is the library's (nlfs_diff); this
 * file orders and prints what it finds.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "array.h"
#include "cli.h"
#include "json.h"
#include "names.h"
#include "cptarget.h"

struct change {
	char kind;             /* - + M R */
	char type;             /* zfs diff's file-type letter */
	bool contents;
	uint64_t ino, ctime;
	uint32_t ctime_nsec;
	char *path, *to;
};

struct changes {
	struct change *v;
	size_t n, cap;
};

/* zfs diff -F: B block device, C character device, / directory, | FIFO,
 * @ symbolic link, = socket, F regular file */
static char type_letter(const struct nlfs_inode *i)
{
	switch (nlfs_le16(i->i_mode) & NLFS_S_IFMT) {
	case NLFS_S_IFBLK: return 'B';
	case NLFS_S_IFCHR: return 'C';
	case NLFS_S_IFDIR: return '/';
	case NLFS_S_IFIFO: return '|';
	case NLFS_S_IFLNK: return '@';
	case NLFS_S_IFSOCK: return '=';
	default: return 'F';
	}
}

static int collect(const struct nlfs_diff_change *c, void *arg)
{
	static const char kinds[] = { [NLFS_DIFF_REMOVED] = '-', [NLFS_DIFF_CREATED] = '+',
				      [NLFS_DIFF_MODIFIED] = 'M', [NLFS_DIFF_RENAMED] = 'R' };
	struct changes *l = arg;
	const struct nlfs_inode *i = c->new_inode ? c->new_inode : c->old_inode;
	struct change ch = {
		.kind = kinds[c->kind], .type = type_letter(i), .contents = c->contents,
		.ino = c->ino, .ctime = nlfs_le64(i->i_ctime), .ctime_nsec = nlfs_le32(i->i_ctime_nsec),
		.path = strdup(c->path), .to = c->new_path ? strdup(c->new_path) : NULL,
	};

	if (!ch.path || (c->new_path && !ch.to) || CLI_GROW(l->v, l->cap, l->n + 1)) {
		free(ch.path);
		free(ch.to);
		return -ENOMEM;
	}
	l->v[l->n++] = ch;
	return 0;
}

/* by path, as zfs diff sorted (-s) */
static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	return r ? r : x->kind - y->kind;
}

struct opts {
	bool parsable, types, times, json;
};

static void print_text(const struct opts *o, const struct change *c)
{
	if (o->times)
		printf("%" PRIu64 ".%09u\t", c->ctime, c->ctime_nsec);
	printf("%c\t", c->kind);
	if (o->types)
		printf("%c\t%s\t", c->type,
		       c->kind == 'M' || c->kind == 'R' ? (c->contents ? "contents" : "metadata") : "-");
	fput_name(stdout, c->path, strlen(c->path));
	if (c->to) {
		fputs(o->parsable ? "\t" : " -> ", stdout);
		fput_name(stdout, c->to, strlen(c->to));
	}
	putchar('\n');
}

static void print_json(struct json_list *l, const struct change *c)
{
	char kind[2] = { c->kind, 0 }, type[2] = { c->type, 0 };

	json_record_begin(l);
	json_field_str(l, "change", kind);
	json_field_str(l, "type", type);
	json_field_str(l, "path", c->path);
	if (c->to)
		json_field_str(l, "to", c->to);
	json_field_u64(l, "ino", c->ino);
	json_field_u64(l, "ctime", c->ctime);
	json_field_u64(l, "ctime_nsec", c->ctime_nsec);
	if (c->kind == 'M' || c->kind == 'R')
		json_field_bool(l, "contents", c->contents);
	json_record_end(l);
}

static void __attribute__((noreturn)) usage(void)
{
	fputs(CLI_USAGE_HEADER
	      " nilfs-diff [options] <device|image|mountpoint> <cno1> [<cno2>]\n"
	      "\nWhat changed between checkpoint cno1 and cno2 (default: the latest), one\n"
	      "line per path: - removed, + created, M modified, R renamed.\n"
	      CLI_USAGE_OPTIONS
	      " -H, --parsable          tab-separated, a rename as two fields\n"
	      " -F, --classify          the file type and what of it changed\n"
	      " -t, --timestamps        the inode change time first\n"
	      " -j, --json              print JSON\n"
	      " -v, --verbose           say how much was compared, to standard error\n", stdout);
	cli_usage_help(stdout, 25);
	cli_usage_man(stdout, 1);
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "parsable", no_argument, NULL, 'H' },
		{ "classify", no_argument, NULL, 'F' },
		{ "timestamps", no_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	struct changes l = { 0 };
	struct nlfs_diff_stats st;
	struct target t;
	struct nlfs_err err;
	uint64_t cno[2];
	bool verbose = false;
	char msg[320];
	int c, rc;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "HFtjvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': o.parsable = true; break;
		case 'F': o.types = true; break;
		case 't': o.times = true; break;
		case 'j': o.json = true; break;
		case 'v': verbose = true; break;
		case 'h': usage();
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind < 2 || argc - optind > 3)
		cli_usage_error(argc == optind ? "no device given" :
				argc - optind == 1 ? "no checkpoint given" : "too many arguments");
	for (int i = 0; i < argc - optind - 1; i++)
		if (cli_strtocno(argv[optind + 1 + i], &cno[i]) || cno[i] == 0)
			cli_usage_error("invalid checkpoint number: %s", argv[optind + 1 + i]);
	if (target_open(&t, argv[optind]))
		return CLI_EXIT_FAILURE;
	if (argc - optind == 2 && target_latest(&t, &cno[1]))
		goto fail;
	if (target_hold(&t, cno[0]) || target_hold(&t, cno[1]))
		goto fail;
	nlfs_err_clear(&err);
	rc = nlfs_diff(t.fs, cno[0], cno[1], collect, &l, &st, &err);
	if (rc) {
		uint64_t gone = t.mounted ? target_vanished(&t, cno, 2) : 0;

		if (gone) {
			cli_warnx("%s: checkpoint %" PRIu64 " disappeared while it was read", t.name, gone);
		} else if (rc == -ENOMEM) {
			cli_warnc(rc, "%s", t.name);
		} else {
			nlfs_err_format(&err, msg, sizeof(msg));
			cli_warnx("%s: %s", t.name, msg);
		}
		goto fail;
	}
	nlfs_sort(l.v, l.n, sizeof(*l.v), cmp_change);
	if (o.json) {
		struct json_list jl;

		json_list_begin(&jl, stdout, "changes");
		for (size_t i = 0; i < l.n; i++)
			print_json(&jl, &l.v[i]);
		json_list_end(&jl);
	} else {
		for (size_t i = 0; i < l.n; i++)
			print_text(&o, &l.v[i]);
	}
	if (verbose)
		fprintf(stderr, "ifile map entries compared %" PRIu64 ", blocks differing %" PRIu64 "; inodes changed %"
			PRIu64 "; directory blocks compared %" PRIu64 "; directories searched %"
			PRIu64 ", walked %" PRIu64 "\n", st.ifile_blocks, st.ifile_blocks_differ,
			st.inodes_changed, st.dir_blocks_differ, st.dirs_sought, st.dirs_walked);
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].path);
		free(l.v[i].to);
	}
	free(l.v);
	target_close(&t);
	return 0;
fail:
	target_close(&t);
	return CLI_EXIT_FAILURE;
}
