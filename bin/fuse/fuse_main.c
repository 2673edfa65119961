/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-fuse: every checkpoint of a NILFS2 volume as a read-only tree,
 * through FUSE, read by the library (no nilfs2 kernel module, no
 * privilege beyond reading the device).  The options and the session.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops.h"
#include "cli.h"
#include "devtag.h"
#include "mounts.h"

static void usage(FILE *out)
{
	fputs(CLI_USAGE_HEADER
	      " nilfs-fuse [options] <device>|<image>|UUID=<uuid>|LABEL=<label> <mountpoint>\n"
	      "\nShow every checkpoint of a NILFS2 volume, read-only, under <mountpoint>:\n"
	      "@<cno>/ for each checkpoint, latest -> the latest one, snapshots/@<cno> for\n"
	      "each snapshot.\n"
	      CLI_USAGE_OPTIONS
	      " -o <options>     mount options for FUSE (allow_other, ...), comma-separated;\n"
	      "                  direct_io: reads bypass the kernel's page cache\n"
	      " -f, --foreground stay in the foreground\n"
	      " -d, --debug      print FUSE's requests (implies -f)\n", out);
	cli_usage_help(out, 18);
	cli_usage_man(out, 1);
}

/* S with ',' and '\' escaped, for a value inside FUSE's -o list */
static char *opt_escape(const char *s)
{
	char *out = malloc(2 * strlen(s) + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == ',' || *s == '\\')
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return out;
}

/* "A,B" into a new string (A may be NULL) */
static char *opt_join(char *a, const char *b)
{
	size_t la = a ? strlen(a) : 0;
	char *out = malloc(la + strlen(b) + 2);

	if (!out)
		cli_errc(ENOMEM, NULL);
	if (a)
		sprintf(out, "%s,%s", a, b);
	else
		strcpy(out, b);
	free(a);
	return out;
}

/* N of the last "max_read=N" in the option list OPTS, 0 if none */
static unsigned opt_max_read(const char *opts)
{
	unsigned n = 0;

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		uint64_t v;
		const char *end;

		if (!strncmp(p, "max_read=", 9) && !cli_strtou64_prefix(p + 9, &v, &end) &&
		    (*end == ',' || *end == '\0') && v <= UINT32_MAX)
			n = (unsigned)v;
	}
	return n;
}

/* Whether the option list OPTS holds the flag NAME, which is taken out
 * (an option of ours, not FUSE's); a ',' after '\\' is a value's own */
static bool opt_take(char *opts, const char *name)
{
	size_t len = strlen(name);
	bool found = false;
	char *p = opts;

	while (p && *p) {
		char *end = p;

		while (*end && *end != ',')
			end += end[0] == '\\' && end[1] ? 2 : 1;
		if ((size_t)(end - p) == len && !strncmp(p, name, len)) {
			found = true;
			memmove(p, *end ? end + 1 : end, strlen(*end ? end + 1 : end) + 1);
			if (!*p && p > opts)
				p[-1] = '\0';   /* it was the last: drop the ',' before it */
			continue;
		}
		p = *end ? end + 1 : NULL;
	}
	return found;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool foreground = false, debug = false, nf_direct;
	char *user_opts = NULL, *fsname, *opts;
	const char *device, *mountpoint;
	struct fuse_session *se;
	struct nfuse nf;
	int c, rc;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:fdhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': user_opts = opt_join(user_opts, optarg); break;
		case 'f': foreground = true; break;
		case 'd': debug = foreground = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind < 2)
		cli_usage_error(argc == optind ? "no device given" : "no mount point given");
	if (argc - optind > 2)
		cli_usage_error("too many arguments");
	device = dev_resolve(argv[optind]);
	if (!device)
		return CLI_EXIT_FAILURE;
	cmd_refuse_foreign_mount(device);
	mountpoint = argv[optind + 1];

	/* read-only, and the kernel checks permissions by the files' modes */
	fsname = opt_escape(device);
	if (!fsname)
		cli_errc(ENOMEM, NULL);
	opts = malloc(strlen(fsname) + 64);
	if (!opts)
		cli_errc(ENOMEM, NULL);
	sprintf(opts, "ro,default_permissions,subtype=nilfs2,fsname=%s", fsname);
	free(fsname);
	nf_direct = user_opts && opt_take(user_opts, "direct_io");
	if (user_opts && *user_opts)
		opts = opt_join(opts, user_opts);
	{
		char *fargv[] = { argv[0], "-o", opts, debug ? "-d" : NULL, NULL };
		struct fuse_args args = FUSE_ARGS_INIT(debug ? 4 : 3, fargv);

		memset(&nf, 0, sizeof(nf));
		nf.max_read = opt_max_read(user_opts);
		nf.direct_io = nf_direct;
		nf.uid = getuid();
		nf.gid = getgid();
		if (nodes_init(&nf.nodes))
			cli_errc(ENOMEM, NULL);
		rc = vol_open(&nf.vol, device);
		if (rc) {
			vol_report(&nf.vol, NULL, rc);
			nfuse_free(&nf);
			return CLI_EXIT_FAILURE;
		}
		se = fuse_session_new(&args, &nfuse_ops, sizeof(nfuse_ops), &nf);
		fuse_opt_free_args(&args);
	}
	free(opts);
	free(user_opts);
	if (!se) {
		nfuse_free(&nf);
		cli_errx("%s: the FUSE options are not right", device);
	}
	rc = CLI_EXIT_FAILURE;
	if (fuse_set_signal_handlers(se) == 0) {
		if (fuse_session_mount(se, mountpoint) == 0) {
			if (fuse_daemonize(foreground) == 0 && fuse_session_loop(se) == 0)
				rc = 0;
			fuse_session_unmount(se);
		} else {
			cli_warnx("%s: cannot mount on %s", device, mountpoint);
		}
		fuse_remove_signal_handlers(se);
	}
	fuse_session_destroy(se);
	nfuse_free(&nf);
	return rc;
}
