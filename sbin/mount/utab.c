/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utab.c - a nilfs2 mount's attributes in libmount's utab. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "cli.h"
#include "utab.h"

void utab_read_attrs(struct libmnt_fs *fs, struct nilfs_attrs *a)
{
	const char *s = fs ? mnt_fs_get_attributes(fs) : NULL;
	char bad[128], *rest = NULL;

	memset(a, 0, sizeof(*a));
	if (!s)
		return;
	if (attrs_split(s, ATTRS_FROM_UTAB, a, &rest, bad, sizeof(bad))) {
		cli_warnx("%s: ignoring the recorded attributes \"%s\" (cannot read %s)",
			  mnt_fs_get_target(fs), s, bad);
		memset(a, 0, sizeof(*a));
	}
	free(rest);
}

int utab_put_attrs(struct libmnt_fs *fs, const struct nilfs_attrs *a)
{
	char buf[128];
	int rc = attrs_format(a, buf, sizeof(buf));

	return rc < 0 ? rc : mnt_fs_set_attributes(fs, buf);
}

int utab_rewrite_attrs(struct libmnt_fs *fs, const struct nilfs_attrs *a)
{
	struct libmnt_update *upd = mnt_new_update();
	struct libmnt_fs *copy = mnt_copy_fs(NULL, fs);
	struct libmnt_lock *lock = NULL;
	int rc = -ENOMEM;

	if (!upd || !copy)
		goto out;
	rc = utab_put_attrs(copy, a);
	if (rc)
		goto out;
	/* a remount record: the entry's attributes are replaced */
	rc = mnt_update_set_fs(upd, MS_REMOUNT, NULL, copy);
	if (rc == 1) {   /* nothing to write */
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	lock = mnt_new_lock(mnt_update_get_filename(upd), 0);
	rc = mnt_update_table(upd, lock);
out:
	mnt_free_lock(lock);
	mnt_free_fs(copy);
	mnt_free_update(upd);
	return rc;
}

int utab_failure(struct libmnt_context *cxt, const char *what, int rc, const char *default_msg)
{
	char msg[BUFSIZ] = "";
	int ex = mnt_context_get_excode(cxt, rc, msg, sizeof(msg));

	cli_warnx("%s: %s", what, *msg ? msg : default_msg);
	return ex == MNT_EX_SUCCESS ? MNT_EX_FAIL : ex;
}
