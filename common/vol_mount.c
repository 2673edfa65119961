/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vol_mount.c - the "mounted" backend: the nilfs2 ioctls on the mount point.
 * Segment contents (lssu -l) are read from the device itself; the cleaner's
 * lock is the named semaphore nilfs_cleanerd and nilfs-utils share.
 */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vol.h"
#include "ioc.h"

struct mount_priv {
	int fd;
	sem_t *sem;
	struct nlfs_fs *segfs;
};

static int mfd(struct vol *v)
{
	return ((struct mount_priv *)v->priv)->fd;
}

static int m_cpstat(struct vol *v, struct nilfs_cpstat *st)
{
	return ioc_get_cpstat(mfd(v), st);
}

static long m_cpinfo(struct vol *v, uint64_t cno, int mode, struct nilfs_cpinfo *ci, size_t n)
{
	return ioc_get_cpinfo(mfd(v), cno, mode, ci, n);
}

static int m_sustat(struct vol *v, struct nilfs_sustat *st)
{
	return ioc_get_sustat(mfd(v), st);
}

static long m_suinfo(struct vol *v, uint64_t segnum, struct nilfs_suinfo *si, size_t n)
{
	return ioc_get_suinfo(mfd(v), segnum, si, n);
}

static long m_vinfo(struct vol *v, struct nilfs_vinfo *vi, size_t n)
{
	return ioc_get_vinfo(mfd(v), vi, n);
}

static long m_bdescs(struct vol *v, struct nilfs_bdesc *bd, size_t n)
{
	return ioc_get_bdescs(mfd(v), bd, n);
}

static int m_segments(struct vol *v, struct nlfs_fs **fs)
{
	struct mount_priv *p = v->priv;
	struct nlfs_io *io;
	struct nlfs_err err;
	int rc;

	if (!p->segfs) {
		rc = nlfs_io_open_unix(v->dev, NLFS_IO_RDONLY, &io);
		if (rc)
			return rc;
		rc = nlfs_fs_open_sb(io, &p->segfs, &err);
		if (rc) {
			nlfs_err_format(&err, v->detail, sizeof(v->detail));
			nlfs_io_close(io);
			return rc;
		}
	}
	*fs = p->segfs;
	return 0;
}

static int m_sync(struct vol *v, uint64_t *cno)
{
	return ioc_sync(mfd(v), cno);
}

static int m_change_cpmode(struct vol *v, uint64_t cno, int mode)
{
	return ioc_change_cpmode(mfd(v), cno, mode);
}

static int m_delete_checkpoint(struct vol *v, uint64_t cno)
{
	return ioc_delete_checkpoint(mfd(v), cno);
}

static int m_lock(struct vol *v)
{
	struct mount_priv *p = v->priv;

	if (!p->sem)
		return -EBADF;
	while (sem_wait(p->sem) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static int m_unlock(struct vol *v)
{
	struct mount_priv *p = v->priv;

	if (!p->sem)
		return -EBADF;
	return sem_post(p->sem) < 0 ? -errno : 0;
}

static void m_close(struct vol *v)
{
	struct mount_priv *p = v->priv;

	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	if (p->sem)
		sem_close(p->sem);
	nlfs_fs_close(p->segfs);
	free(p);
	v->priv = NULL;
}

static const struct vol_ops mount_ops = {
	.cpstat = m_cpstat,
	.cpinfo = m_cpinfo,
	.sustat = m_sustat,
	.suinfo = m_suinfo,
	.vinfo = m_vinfo,
	.bdescs = m_bdescs,
	.segments = m_segments,
	.sync = m_sync,
	.change_cpmode = m_change_cpmode,
	.delete_checkpoint = m_delete_checkpoint,
	.lock = m_lock,
	.unlock = m_unlock,
	.close = m_close,
};

/* nilfs_cleanerd's lock: one semaphore per device, named after its number
 * (or after the device and inode of a file) */
static int open_cleaner_lock(struct vol *v, struct mount_priv *p)
{
	char name[64];
	struct stat st;

	if (stat(v->dev, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		snprintf(name, sizeof(name), "/nilfs-cleaner-%llu", (unsigned long long)st.st_rdev);
	else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		snprintf(name, sizeof(name), "/nilfs-cleaner-%llu-%llu",
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	else
		return -EINVAL;
	p->sem = sem_open(name, O_CREAT, S_IRWXU, 1);
	if (p->sem == SEM_FAILED) {
		p->sem = NULL;
		return -errno;
	}
	return 0;
}

int vol_mount_open(struct vol *v, int mode, char *msg, size_t len)
{
	struct mount_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (!p) {
		snprintf(msg, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	p->fd = ioc_open(v->mnt);
	if (p->fd < 0) {
		rc = p->fd;
		goto fail;
	}
	if (mode & VOL_LOCK) {
		rc = open_cleaner_lock(v, p);
		if (rc)
			goto fail;
	}
	v->priv = p;
	v->ops = &mount_ops;
	return 0;
fail:
	snprintf(msg, len, "%s", strerror(-rc));
	if (p->fd >= 0)
		close(p->fd);
	free(p);
	return rc;
}
