/* SPDX-License-Identifier: GPL-2.0-or-later */
/* volume.c - the volume nilfs-fuse shows, see volume.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "volume.h"
#include "array.h"
#include "cli.h"
#include "volerr.h"
#include "io_open.h"

static int open_fs(const char *device, int mode, struct nlfs_fs **fs, struct nlfs_err *err)
{
	bool device_failed;
	int rc = cmd_fs_open(device, mode, fs, err, &device_failed);

	if (rc && device_failed)
		return nlfs_err_set(err, rc, NLFS_NOWHERE, "%s", device);
	return rc;
}

/* every checkpoint of FS, ascending */
static int list_cps(struct nlfs_fs *fs, struct vol_cp **out, size_t *n, size_t *cap,
		    struct nlfs_err *err)
{
	struct nlfs_cpfile_iter *it;
	struct nlfs_cpinfo ci[256];
	uint64_t cno = 1;
	size_t got;
	int rc = nlfs_cpfile_iter_open(fs, &it, err);

	*n = 0;
	if (rc)
		return rc;
	do {
		rc = nlfs_cpfile_iter_list(it, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 256, &got, err);
		for (size_t i = 0; !rc && i < got; i++) {
			struct vol_cp cp = { ci[i].cno, ci[i].create,
					     (ci[i].flags & NLFS_CHECKPOINT_SNAPSHOT) != 0 };

			rc = CLI_PUSH(*out, *n, *cap, cp);
		}
	} while (!rc && got > 0);
	nlfs_cpfile_iter_close(it);
	return rc;
}

/* make FS the volume's handle (closing the old one) with its list */
static int adopt(struct volume *v, struct nlfs_fs *fs)
{
	const struct nlfs_recovery *r = nlfs_fs_recovery(fs);
	struct vol_cp *cps = NULL;
	size_t n = 0, cap = 0;
	int rc = list_cps(fs, &cps, &n, &cap, &v->err);

	if (rc) {
		free(cps);
		return rc;
	}
	nlfs_fs_close(v->fs);
	free(v->cps);
	v->fs = fs;
	v->cps = cps;
	v->ncps = n;
	v->cap = cap;
	v->latest = r->cno;
	v->sr_block = r->sr_block;
	v->nlogs_after_sr = r->nlogs_after_sr;
	/* the cached ifiles stay right: a checkpoint's ifile root never changes,
	 * but the latest one's roll-forward blocks may have */
	memset(v->ifc, 0, sizeof(v->ifc));
	return 0;
}

int vol_open(struct volume *v, const char *device)
{
	struct nlfs_fs *fs;
	int rc;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->device = strdup(device);
	if (!v->device)
		return -ENOMEM;
	v->fd = open(device, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0)
		return nlfs_err_set(&v->err, errno, NLFS_NOWHERE, "%s", device);
	rc = open_fs(device, NLFS_IO_RDONLY, &fs, &v->err);
	if (rc)
		return rc;
	rc = adopt(v, fs);
	if (rc)
		nlfs_fs_close(fs);
	clock_gettime(CLOCK_MONOTONIC, &v->last_probe);
	return rc;
}

void vol_close(struct volume *v)
{
	nlfs_fs_close(v->fs);
	free(v->cps);
	free(v->device);
	if (v->fd >= 0)
		close(v->fd);
	memset(v, 0, sizeof(*v));
	v->fd = -1;
}

void vol_refresh(struct volume *v)
{
	struct timespec now;
	struct nlfs_fs *probe, *fs;
	const struct nlfs_recovery *r;
	bool changed;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - v->last_probe.tv_sec < 1 ||
	    (now.tv_sec - v->last_probe.tv_sec == 1 && now.tv_nsec < v->last_probe.tv_nsec))
		return;
	v->last_probe = now;
	/* the kernel writes its logs around the page cache: look without it */
	if (open_fs(v->device, NLFS_IO_RDONLY | NLFS_IO_UNCACHED, &probe, &v->err))
		return;
	r = nlfs_fs_recovery(probe);
	changed = r->cno != v->latest || r->sr_block != v->sr_block ||
		  r->nlogs_after_sr != v->nlogs_after_sr;
	nlfs_fs_close(probe);
	if (!changed)
		return;
	/* a fresh cached handle: opening a block device drops its stale pages */
	if (open_fs(v->device, NLFS_IO_RDONLY, &fs, &v->err))
		return;
	if (adopt(v, fs))
		nlfs_fs_close(fs);
}

/* for bsearch: checkpoint number *KEY against a listed checkpoint's */
static int cmp_cno(const void *key, const void *elem)
{
	return nlfs_cmp_u64(key, &((const struct vol_cp *)elem)->cno);
}

const struct vol_cp *vol_cp_find(const struct volume *v, uint64_t cno)
{
	return v->ncps ? bsearch(&cno, v->cps, v->ncps, sizeof(*v->cps), cmp_cno) : NULL;
}

int vol_ifile(struct volume *v, uint64_t cno, const struct nlfs_file **ifile)
{
	unsigned victim = 0;
	int rc;

	for (unsigned i = 0; i < VOL_IFILE_CACHE; i++) {
		if (v->ifc[i].cno == cno) {
			v->ifc[i].used = ++v->ifc_clock;
			*ifile = &v->ifc[i].ifile;
			return 0;
		}
		if (v->ifc[i].used < v->ifc[victim].used)
			victim = i;
	}
	v->ifc[victim].cno = 0;
	rc = nlfs_fs_ifile(v->fs, cno, &v->ifc[victim].ifile, &v->err);
	if (rc)
		return rc;
	v->ifc[victim].cno = cno;
	v->ifc[victim].used = ++v->ifc_clock;
	*ifile = &v->ifc[victim].ifile;
	return 0;
}

int vol_inode(struct volume *v, uint64_t cno, uint64_t ino, struct nlfs_file *out)
{
	const struct nlfs_file *ifile;
	int rc = vol_ifile(v, cno, &ifile);

	if (!rc)
		rc = nlfs_ifile_read(v->fs, ifile, ino, out, &v->err);
	return rc;
}

int vol_errno(int rc)
{
	int e = rc < 0 ? -rc : rc;

	if (e == 0)
		return 0;
	if (e >= NLFS_EBADMAGIC || e == ENODATA || e == ERANGE)
		return EIO;
	return e;
}

void vol_report(struct volume *v, const char *what, int rc)
{
	char buf[640];
	const char *msg = buf;

	/* opening: why the volume cannot be used, with its name said once */
	if (!what)
		msg = cmd_volume_reason(v->device, rc, &v->err, buf, sizeof(buf));
	else if (v->err.code)
		nlfs_err_format(&v->err, buf, sizeof(buf));
	else
		msg = nlfs_strerror(rc);
	if (what)
		cli_warnx("%s: %s: %s", v->device, what, msg);
	else
		cli_warnx("%s: %s", v->device, msg);
	nlfs_err_clear(&v->err);
}
