/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-send: a checkpoint's tree as a stream (man5/nilfs-stream.5), in
 * full or as what changed since a parent checkpoint, for nilfs-receive.
 * The volume is opened as nilfs-diff opens it (bin/diff/target.c): a
 * mounted one is read from its device with the checkpoints held against
 * the cleaner as snapshots while they are read.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "cptarget.h"
#include "cli.h"
#include "send.h"

static void __attribute__((noreturn)) usage(void)
{
	fputs(CLI_USAGE_HEADER
	      " nilfs-send [options] <device|image|mountpoint> <cno>\n"
	      "\nWrite checkpoint cno's tree as a stream for nilfs-receive: in full, or with\n"
	      "-p only what changed since the parent checkpoint.\n"
	      CLI_USAGE_OPTIONS
	      " -p, --parent <cno>      send what changed since this checkpoint\n"
	      " -f, --file <file>       write the stream to file (default: standard output)\n"
	      " -v, --verbose           say what was sent, to standard error\n", stdout);
	cli_usage_help(stdout, 25);
	cli_usage_man(stdout, 8);
	exit(0);
}

static int checkpoint_time(struct target *t, uint64_t cno, uint64_t *ctime)
{
	struct nlfs_cpinfo cp;
	struct nlfs_err err;
	char msg[320];
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_cpfile_info(t->fs, cno, &cp, &err);
	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		cli_warnx("%s: checkpoint %" PRIu64 ": %s", t->name, cno, msg);
		return -1;
	}
	*ctime = cp.create;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "parent", required_argument, NULL, 'p' },
		{ "file", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct send s = { 0 };
	struct sstream_header h = { 0 };
	const char *file = NULL;
	bool verbose = false;
	struct target t;
	FILE *out = stdout;
	int c, rc;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "p:f:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (cli_strtocno(optarg, &s.parent) || s.parent == 0)
				cli_usage_error("invalid checkpoint number: %s", optarg);
			break;
		case 'f': file = optarg; break;
		case 'v': verbose = true; break;
		case 'h': usage();
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind != 2)
		cli_usage_error(argc == optind ? "no device given" :
				argc - optind == 1 ? "no checkpoint given" : "too many arguments");
	if (cli_strtocno(argv[optind + 1], &s.cno) || s.cno == 0)
		cli_usage_error("invalid checkpoint number: %s", argv[optind + 1]);
	if (!file && isatty(STDOUT_FILENO))
		cli_usage_error("the stream would go to a terminal; redirect it or name a file with -f");
	/* a receiver that goes away is a write error, not a death by SIGPIPE
	 * that would leave the held checkpoints snapshots */
	signal(SIGPIPE, SIG_IGN);
	if (target_open(&t, argv[optind]))
		return CLI_EXIT_FAILURE;
	s.fs = t.fs;
	s.name = t.name;
	s.bs = nlfs_fs_geometry(t.fs)->blocksize;
	if (target_hold(&t, s.cno) || (s.parent && target_hold(&t, s.parent)))
		goto fail;
	h.cno = s.cno;
	h.parent_cno = s.parent;
	memcpy(h.uuid, nlfs_fs_sb(t.fs, nlfs_fs_sb_choice(t.fs)->used)->s_uuid, 16);
	if (checkpoint_time(&t, s.cno, &h.ctime) ||
	    (s.parent && checkpoint_time(&t, s.parent, &h.parent_ctime)))
		goto fail;
	struct nlfs_err err;

	nlfs_err_clear(&err);
	rc = nlfs_fs_ifile(t.fs, s.cno, &s.ifile, &err);
	if (!rc && s.parent)
		rc = nlfs_fs_ifile(t.fs, s.parent, &s.old_ifile, &err);
	if (rc) {
		send_lib_fail(&s, rc, &err, NULL);
		goto fail;
	}
	if (!(s.buf = malloc(SSTREAM_MAX_DATA))) {
		cli_warnc(ENOMEM, "%s", t.name);
		goto fail;
	}
	s.out_name = file ? file : "standard output";
	if (file && !(out = fopen(file, "we"))) {
		cli_warnc(errno, "%s", file);
		goto fail;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	sstream_pipe_grow(out);
	if (sstream_write_header(&s.w, out, &h)) {
		cli_warnc(errno, "%s", s.out_name);
		goto fail_out;
	}
	rc = s.parent ? send_incremental(&s) : send_full(&s);
	if (rc) {
		uint64_t cnos[2] = { s.cno, s.parent }, gone;

		if (t.mounted && (gone = target_vanished(&t, cnos, s.parent ? 2 : 1)))
			cli_warnx("%s: checkpoint %" PRIu64 " disappeared while it was read", t.name, gone);
		goto fail_out;
	}
	if (sstream_write_end(&s.w) || fflush(out) || ferror(out)) {
		cli_warnc(errno ? errno : EIO, "%s", s.out_name);
		goto fail_out;
	}
	if (file && fclose(out)) {
		out = stdout;
		cli_warnc(errno, "%s", file);
		goto fail;
	}
	if (verbose)
		fprintf(stderr, "%s: checkpoint %" PRIu64 " (parent %" PRIu64 "): %" PRIu64
			" commands, %" PRIu64 " bytes of file contents, %" PRIu64 " bytes in all\n",
			t.name, s.cno, s.parent, s.w.count, s.data_bytes, s.w.bytes);
	free(s.buf);
	target_close(&t);
	return 0;
fail_out:
	sstream_writer_free(&s.w);
	if (file) {
		fclose(out);
		unlink(file);   /* a stream without its end is of no use */
	}
fail:
	free(s.buf);
	target_close(&t);
	return CLI_EXIT_FAILURE;
}
