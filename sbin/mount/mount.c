/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mount.nilfs2: mount(8)'s helper for nilfs2, on libmount.
 *
 * Takes pp=, nogc (and refuses gcpid=) out of the options before the
 * kernel sees them, mounts, and starts nilfs_cleanerd after a read-write
 * mount, recording gcpid= and pp= (or nogc) in the mount's utab entry.  A
 * second read-write mount of a device is refused: two cleaners would work
 * on one volume.  A remount stops the cleaner before the volume goes
 * read-only or gets another protection period, starts one when it becomes
 * read-write, keeps the running one otherwise, and puts the old state back
 * when the remount fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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
#include "mounts.h"

#define PROG "mount.nilfs2"

struct mount_cmd {
	struct libmnt_context *cxt;
	struct nilfs_attrs want;   /* pp= and nogc from -o */
	const char *fstype;
	bool verbose;
	bool fake;
	int exit_now;              /* -h / -V / a bad option: exit with this - 1 */
};

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " [-fnrsvw] [-o <options>] [-t nilfs2] <device> <dir>\n"
	      "\nMount the NILFS2 volume on <device> at <dir> and start its cleaner.\n"
	      "Options may come before or after <device> and <dir>.\n"
	      CLI_USAGE_OPTIONS
	      " -o <options>      mount options; besides the kernel's:\n"
	      "                     pp=SECONDS  protection period for nilfs_cleanerd\n"
	      "                     nogc        do not start nilfs_cleanerd\n"
	      " -r, -w            read-only, read-write (the default)\n"
	      " -f                do everything but the mount itself\n"
	      " -n                do not record the mount in utab\n"
	      " -s                tolerate unknown options\n"
	      " -t nilfs2         the file system type (nothing else is accepted)\n", f);
	args_usage_tail(f);
}

static int on_option(void *arg, int c, const char *val)
{
	struct mount_cmd *m = arg;
	char bad[128], *rest = NULL;
	int rc = 0;

	switch (c) {
	case 'o':
		rc = attrs_split(val, ATTRS_FROM_USER, &m->want, &rest, bad, sizeof(bad));
		if (rc == -EINVAL) {
			cli_warnx("invalid option \"%s\": pp= takes whole seconds, "
				"nogc no value, and gcpid= is recorded by the helper, not given",
				bad);
			return MNT_EX_USAGE + 1;
		}
		if (!rc && rest)
			rc = mnt_context_append_options(m->cxt, rest);
		free(rest);
		break;
	case 'r': rc = mnt_context_append_options(m->cxt, "ro"); break;
	case 'w': rc = mnt_context_append_options(m->cxt, "rw"); break;
	case 'f': m->fake = true; rc = mnt_context_enable_fake(m->cxt, 1); break;
	case 'n': rc = mnt_context_disable_mtab(m->cxt, 1); break;
	case 's': rc = mnt_context_enable_sloppy(m->cxt, 1); break;
	case 't': m->fstype = val; break;
	case 'v': m->verbose = true; rc = mnt_context_enable_verbose(m->cxt, 1); break;
	case 'h': usage(stdout); return MNT_EX_SUCCESS + 1;
	case 'V': cli_print_version(); return MNT_EX_SUCCESS + 1;
	}
	if (rc) {
		cli_warnc(rc < 0 ? -rc : ENOMEM, NULL);
		return MNT_EX_SYSERR + 1;
	}
	return 0;
}

/* mount(8)'s message and exit code for a failed libmount call */
static int fail(struct libmnt_context *cxt, int rc)
{
	return utab_failure(cxt, mnt_context_get_target(cxt), rc, "mount failed");
}

static void say_started(const struct mount_cmd *m, const char *dev, const struct nilfs_attrs *a)
{
	if (!m->verbose)
		return;
	if (a->have_pp)
		printf(PROG ": %s: started %s (pid %ld, protection period %llu s)\n", dev,
		       CLEANERD_NAME, (long)a->gcpid, (unsigned long long)a->pp);
	else
		printf(PROG ": %s: started %s (pid %ld)\n", dev, CLEANERD_NAME, (long)a->gcpid);
}

/* start the cleaner into A->gcpid; a failure leaves the mount as it is */
static void start_cleaner(const struct mount_cmd *m, const char *dev, const char *dir,
			  struct nilfs_attrs *a)
{
	int rc = cleaner_start(dev, dir, a, &a->gcpid);

	if (rc == -ECHILD)
		cli_warnx("%s: %s did not start (it said why above); no cleaner is "
			"recorded for this mount", dev, CLEANERD_NAME);
	else if (rc)
		cli_warnx("%s: cannot start %s: %s; the volume is mounted without "
			"a cleaner", dev, CLEANERD_NAME, strerror(-rc));
	else if (!a->gcpid)
		cli_warnx("%s: %s did not report its pid; umount.nilfs2 will not "
			"stop it", dev, CLEANERD_NAME);
	else
		say_started(m, dev, a);
}

/* finalize the mount with the attributes A (a new mount with nothing to
 * record gets no attributes; a remount gets "none" to clear the old ones) */
static int record(struct libmnt_context *cxt, const struct nilfs_attrs *a, bool remount)
{
	int rc = 0;

	if (remount || a->gcpid || a->have_pp || a->nogc)
		rc = utab_put_attrs(mnt_context_get_fs(cxt), a);

	if (!rc)
		rc = mnt_context_finalize_mount(cxt);
	if (rc) {
		cli_warnx("%s: mounted, but the mount table (utab) was not "
			"updated: %s", mnt_context_get_target(cxt), strerror(rc < 0 ? -rc : rc));
		return MNT_EX_FILEIO;
	}
	return MNT_EX_SUCCESS;
}

static int mount_new(struct mount_cmd *m, unsigned long mflags)
{
	struct libmnt_context *cxt = m->cxt;
	const char *dev = mnt_context_get_source(cxt), *dir = mnt_context_get_target(cxt);
	struct nilfs_attrs now = m->want;
	int rc;

	if (!(mflags & MS_RDONLY)) {
		/* the device, or the image file behind a loop device */
		struct mnt_entry was;

		if (!mnt_lookup(NULL, dev, NULL, &was)) {
			bool refuse = was.rw || !mnt_is_nilfs(&was);

			if (!mnt_is_nilfs(&was))
				cli_warnx("%s: mounted on %s as %s, not NILFS2; nothing "
					"done", dev, was.mountpoint, was.fstype);
			else if (was.rw)
				cli_warnx("%s is already mounted read-write on %s; a "
					"second read-write mount of a nilfs2 volume is refused (mount "
					"a checkpoint read-only with -o ro,cp=N)", dev,
					was.mountpoint);
			mnt_free(&was);
			if (refuse)
				return MNT_EX_FAIL;
		}
	}
	if (!m->fake) {
		rc = mnt_context_do_mount(cxt);
		if (rc)
			return fail(cxt, rc);
		/* libmount falls back to read-only on a write-protected device */
		mnt_context_get_mflags(cxt, &mflags);
		if (!(mflags & MS_RDONLY) && !now.nogc)
			start_cleaner(m, dev, dir, &now);
	}
	return record(cxt, &now, false);
}

/*
 * -o remount: the cleaner the mount has runs on when the volume stays
 * read-write with the same protection period; otherwise it is stopped
 * before the remount, and one is started after it if the volume is
 * read-write (pp= from the options, else the recorded one).
 */
static int mount_again(struct mount_cmd *m, struct libmnt_table *tb, unsigned long mflags)
{
	struct libmnt_context *cxt = m->cxt;
	const char *dir = mnt_context_get_target(cxt);
	struct libmnt_fs *old_fs = mnt_table_find_target(tb, dir, MNT_ITER_BACKWARD);
	struct nilfs_attrs old, now = m->want;
	bool want_gc = !(mflags & MS_RDONLY) && !now.nogc, old_alive, keep;
	const char *dev;
	int rc;

	if (!old_fs || !mnt_fs_match_fstype(old_fs, NILFS2_TYPE)) {
		cli_warnx("%s: no nilfs2 mount there to remount", dir);
		return MNT_EX_USAGE;
	}
	dev = mnt_fs_get_source(old_fs);
	utab_read_attrs(old_fs, &old);
	if (!now.have_pp && old.have_pp) {
		now.have_pp = true;
		now.pp = old.pp;
	}
	old_alive = old.gcpid && cleaner_running(old.gcpid);
	keep = old_alive && want_gc && (!m->want.have_pp || (old.have_pp && old.pp == now.pp));
	if (old_alive && !keep && !m->fake) {
		rc = cleaner_stop(dev, old.gcpid, m->verbose);
		if (rc) {
			cli_warnx("%s: not remounted: %s (pid %ld) did not stop", dir,
				CLEANERD_NAME, (long)old.gcpid);
			return MNT_EX_FAIL;
		}
	}
	if (!m->fake) {
		rc = mnt_context_do_mount(cxt);
		if (rc) {
			int ex = fail(cxt, rc);

			if (old_alive && !keep) {
				/* as before: the old cleaner, the old period */
				start_cleaner(m, dev, dir, &old);
				if (utab_rewrite_attrs(old_fs, &old))
					cli_warnx("%s: cannot record the restarted "
						"cleaner in utab", dir);
				else if (old.gcpid)
					cli_warnx("%s: %s restarted (pid %ld)", dir,
						CLEANERD_NAME, (long)old.gcpid);
			}
			return ex;
		}
		mnt_context_get_mflags(cxt, &mflags);
		want_gc = !(mflags & MS_RDONLY) && !now.nogc;
	}
	if (keep && want_gc)
		now.gcpid = old.gcpid;
	else if (want_gc && !m->fake)
		start_cleaner(m, dev, dir, &now);
	return record(cxt, &now, true);
}

/* a bind mount has no volume of its own: no cleaner, no attributes */
static int mount_bind(struct mount_cmd *m)
{
	int rc = m->fake ? 0 : mnt_context_do_mount(m->cxt);

	if (rc)
		return fail(m->cxt, rc);
	return record(m->cxt, &(struct nilfs_attrs){ 0 }, false);
}

int main(int argc, char **argv)
{
	struct mount_cmd m = { 0 };
	struct libmnt_table *tb;
	unsigned long mflags = 0;
	const char *bad = NULL;
	char *pos[2];
	size_t npos;
	int rc;

	cli_init_codes(argv[0], MNT_EX_SYSERR, MNT_EX_USAGE);
	mnt_init_debug(0);
	m.cxt = mnt_new_context();
	if (!m.cxt) {
		cli_warnx("cannot allocate a libmount context");
		return MNT_EX_SYSERR;
	}
	rc = args_walk(argc, argv, "fhno:rst:vVw", on_option, &m, pos, 2, &npos, &bad);
	if (rc > 0)
		return rc - 1;
	if (rc < 0 || npos != 2) {
		if (rc == ARGS_ERR_MISSING)
			cli_warnx("%s: option needs an argument", bad);
		else if (rc == ARGS_ERR_UNKNOWN)
			cli_warnx("%s: unknown option", bad);
		else if (rc == ARGS_ERR_TOO_MANY)
			cli_warnx("%s: one argument too many", bad);
		else
			cli_warnx("DEVICE and DIR are needed");
		cli_usage_hint();
		return MNT_EX_USAGE;
	}
	if (m.fstype && strcmp(m.fstype, NILFS2_TYPE) && strncmp(m.fstype, NILFS2_TYPE ".", 7)) {
		cli_warnx("-t %s: this helper mounts nilfs2 only", m.fstype);
		return MNT_EX_USAGE;
	}
	if (getuid() != 0 || geteuid() != 0) {
		cli_warnx("only root can mount nilfs2 volumes (the helper starts "
			"nilfs_cleanerd, which needs CAP_SYS_ADMIN); user mounts are not "
			"supported");
		return MNT_EX_USAGE;
	}
	umask(022);
	if (mnt_context_set_fstype(m.cxt, NILFS2_TYPE) || mnt_context_disable_helpers(m.cxt, 1) ||
	    mnt_context_set_source(m.cxt, pos[0]) || mnt_context_set_target(m.cxt, pos[1])) {
		cli_warnx("cannot set up the libmount context");
		return MNT_EX_SYSERR;
	}
	rc = mnt_context_prepare_mount(m.cxt);
	if (rc)
		return fail(m.cxt, rc);
	rc = mnt_context_get_mflags(m.cxt, &mflags);
	if (!rc)
		rc = mnt_context_get_mtab(m.cxt, &tb);
	if (rc)
		return fail(m.cxt, rc);
	if (mflags & MS_BIND)
		rc = mount_bind(&m);
	else if (mflags & MS_REMOUNT)
		rc = mount_again(&m, tb, mflags);
	else
		rc = mount_new(&m, mflags);
	mnt_free_context(m.cxt);
	return rc;
}
