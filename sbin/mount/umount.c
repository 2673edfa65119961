/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * umount.nilfs2: umount(8)'s helper for nilfs2, on libmount.
 *
 * Stops the cleaner recorded for the mount (gcpid= in utab, written by
 * our mount.nilfs2 or nilfs-tools') before the unmount.  If the unmount
 * fails the cleaner is started again, unless -r made the volume read-only
 * instead: then it stays stopped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libmount.h>

#include "args.h"
#include "cli.h"
#include "attrs.h"
#include "cleaner.h"
#include "utab.h"

#define PROG "umount.nilfs2"

struct umount_cmd {
	struct libmnt_context *cxt;
	bool verbose;
};

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " [-flnrv] <dir>|<device>...\n"
	      "\nStop the cleaner of each NILFS2 mount, then unmount it.\n"
	      CLI_USAGE_OPTIONS
	      " -f                ignored (forced unmounts are for network file systems)\n"
	      " -l                lazy unmount: detach now, clean up when no longer busy\n"
	      " -n                do not update utab\n"
	      " -r                if the unmount fails, remount read-only\n", f);
	args_usage_tail(f);
}

static int on_option(void *arg, int c, const char *val)
{
	struct umount_cmd *u = arg;
	int rc = 0;

	(void)val;
	switch (c) {
	case 'f':
		cli_warnx("-f ignored: forced unmounts are for network file systems");
		break;
	case 'l': rc = mnt_context_enable_lazy(u->cxt, 1); break;
	case 'n': rc = mnt_context_disable_mtab(u->cxt, 1); break;
	case 'r': rc = mnt_context_enable_rdonly_umount(u->cxt, 1); break;
	case 'v': u->verbose = true; rc = mnt_context_enable_verbose(u->cxt, 1); break;
	case 'h': usage(stdout); return MNT_EX_SUCCESS + 1;
	case 'V': cli_print_version(); return MNT_EX_SUCCESS + 1;
	}
	if (rc) {
		cli_warnc(rc < 0 ? -rc : ENOMEM, NULL);
		return MNT_EX_SYSERR + 1;
	}
	return 0;
}

static int fail(struct libmnt_context *cxt, const char *what, int rc)
{
	return utab_failure(cxt, what, rc, "unmount failed");
}

/* the unmount failed and the volume is still mounted as it was: the
 * cleaner that was stopped for it runs again, and utab says so */
static void restore_cleaner(struct umount_cmd *u, struct libmnt_fs *saved, const char *dev,
			    const char *dir, struct nilfs_attrs *old)
{
	int rc = cleaner_start(dev, dir, old, &old->gcpid);

	if (rc)
		cli_warnx("%s: cannot restart %s: %s", dir, CLEANERD_NAME,
			strerror(rc == -ECHILD ? EIO : -rc));
	else if (u->verbose)
		printf(PROG ": %s: restarted %s (pid %ld)\n", dir, CLEANERD_NAME,
		       (long)old->gcpid);
	if (saved && !mnt_context_is_nomtab(u->cxt) && utab_rewrite_attrs(saved, old))
		cli_warnx("%s: cannot record the cleaner's state in utab", dir);
}

static int umount_one(struct umount_cmd *u, const char *what)
{
	struct libmnt_context *cxt = u->cxt;
	struct libmnt_fs *fs, *saved = NULL;
	struct nilfs_attrs old;
	unsigned long mflags = 0;
	const char *dev, *dir;
	bool stopped = false;
	int rc, ex;

	mnt_reset_context(cxt);
	if (mnt_context_set_fstype(cxt, NILFS2_TYPE) || mnt_context_disable_helpers(cxt, 1) ||
	    mnt_context_set_target(cxt, what)) {
		cli_warnx("%s: cannot set up the libmount context", what);
		return MNT_EX_SYSERR;
	}
	rc = mnt_context_prepare_umount(cxt);
	if (rc)
		return fail(cxt, what, rc);
	fs = mnt_context_get_fs(cxt);
	dev = mnt_context_get_source(cxt);
	dir = mnt_context_get_target(cxt);
	if (!mnt_fs_match_fstype(fs, NILFS2_TYPE)) {
		cli_warnx("%s: not a nilfs2 mount (%s)", what,
			mnt_fs_get_fstype(fs) ? mnt_fs_get_fstype(fs) : "unknown type");
		return MNT_EX_USAGE;
	}
	utab_read_attrs(fs, &old);
	/* the entry as it was, for rewriting its attributes if we stay mounted */
	saved = mnt_copy_fs(NULL, fs);
	if (old.gcpid && cleaner_running(old.gcpid)) {
		if (cleaner_stop(dev ? dev : dir, old.gcpid, u->verbose))
			cli_warnx("%s: unmounting while %s (pid %ld) still runs",
				dir, CLEANERD_NAME, (long)old.gcpid);
		else
			stopped = true;
	}
	rc = mnt_context_do_umount(cxt);
	if (rc) {
		ex = fail(cxt, dir, rc);
		if (stopped)
			restore_cleaner(u, saved, dev, dir, &old);
		mnt_free_fs(saved);
		return ex;
	}
	mnt_context_get_mflags(cxt, &mflags);
	if ((mflags & (MS_REMOUNT | MS_RDONLY)) == (MS_REMOUNT | MS_RDONLY)) {
		/* -r: busy, remounted read-only instead; no cleaner from now on.
		 * The entry stays, with the attributes less gcpid= (libmount's
		 * finalize would drop it as if unmounted) */
		cli_warnx("%s: target is busy; remounted read-only%s", dir,
			stopped ? ", " CLEANERD_NAME " stays stopped" : "");
		if (stopped)
			old.gcpid = 0;
		if (saved && !mnt_context_is_nomtab(cxt) && utab_rewrite_attrs(saved, &old))
			cli_warnx("%s: cannot record the cleaner's state in utab",
				dir);
		mnt_free_fs(saved);
		return MNT_EX_SUCCESS;
	}
	mnt_free_fs(saved);
	rc = mnt_context_finalize_umount(cxt);
	if (rc) {
		cli_warnx("%s: unmounted, but utab was not updated: %s",
			dir, strerror(rc < 0 ? -rc : rc));
		return MNT_EX_FILEIO;
	}
	return MNT_EX_SUCCESS;
}

int main(int argc, char **argv)
{
	struct umount_cmd u = { 0 };
	const char *bad = NULL;
	char **pos = calloc((size_t)argc + 1, sizeof(*pos));
	size_t npos, ok = 0;
	int rc, last = MNT_EX_SUCCESS;

	cli_init_codes(argv[0], MNT_EX_SYSERR, MNT_EX_USAGE);
	mnt_init_debug(0);
	u.cxt = mnt_new_context();
	if (!u.cxt || !pos) {
		cli_warnx("out of memory");
		return MNT_EX_SYSERR;
	}
	rc = args_walk(argc, argv, "fhlnrvV", on_option, &u, pos, (size_t)argc, &npos, &bad);
	if (rc > 0)
		return rc - 1;
	if (rc < 0 || npos == 0) {
		if (rc == ARGS_ERR_UNKNOWN)
			cli_warnx("%s: unknown option", bad);
		else
			cli_warnx("no mount point or device given");
		cli_usage_hint();
		return MNT_EX_USAGE;
	}
	if (getuid() != 0 || geteuid() != 0) {
		cli_warnx("only root can unmount nilfs2 volumes (the helper stops "
			"nilfs_cleanerd); user unmounts are not supported");
		return MNT_EX_USAGE;
	}
	umask(022);
	for (size_t i = 0; i < npos; i++) {
		rc = umount_one(&u, pos[i]);
		if (rc == MNT_EX_SUCCESS)
			ok++;
		else
			last = rc;
	}
	mnt_free_context(u.cxt);
	free(pos);
	/* umount(8)'s rule: 64 when some but not all of several failed */
	return ok == npos ? MNT_EX_SUCCESS : ok && npos > 1 ? MNT_EX_SOMEOK : last;
}
