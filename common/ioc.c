/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ioc.c - NILFS2 ioctl wrappers; argument vectors as nilfs2_api.h has them. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include "ioc.h"

int ioc_check_fd(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	return sf.f_type == NILFS_SUPER_MAGIC ? 0 : -EMEDIUMTYPE;
}

int ioc_open(const char *path)
{
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	rc = ioc_check_fd(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* every request of this file goes through here: nothing reaches a file
 * system that is not nilfs2 */
static int nilfs_ioctl(int fd, unsigned long req, void *arg)
{
	int rc = ioc_check_fd(fd);

	if (rc)
		return rc;
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static struct nilfs_argv argv_of(const void *base, size_t n, size_t size, uint64_t index,
				 uint16_t flags)
{
	return (struct nilfs_argv){
		.v_base = (uintptr_t)base,
		.v_nmembs = (uint32_t)n,
		.v_size = (uint16_t)size,
		.v_flags = flags,
		.v_index = index,
	};
}

/* the GET_* calls report the number of items they filled in v_nmembs */
static ssize_t get_vec(int fd, unsigned long req, void *base, size_t n, size_t size,
		       uint64_t index, uint16_t flags)
{
	struct nilfs_argv a;
	int rc;

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	a = argv_of(base, n, size, index, flags);
	rc = nilfs_ioctl(fd, req, &a);
	return rc ? (ssize_t)rc : (ssize_t)a.v_nmembs;
}

int ioc_get_sustat(int fd, struct nilfs_sustat *st)
{
	memset(st, 0, sizeof(*st));
	return nilfs_ioctl(fd, NILFS_IOCTL_GET_SUSTAT, st);
}

int ioc_get_cpstat(int fd, struct nilfs_cpstat *st)
{
	memset(st, 0, sizeof(*st));
	return nilfs_ioctl(fd, NILFS_IOCTL_GET_CPSTAT, st);
}

ssize_t ioc_get_suinfo(int fd, uint64_t segnum, struct nilfs_suinfo *si, size_t n)
{
	return get_vec(fd, NILFS_IOCTL_GET_SUINFO, si, n, sizeof(*si), segnum, 0);
}

ssize_t ioc_get_cpinfo(int fd, uint64_t cno, int mode, struct nilfs_cpinfo *ci, size_t n)
{
	return get_vec(fd, NILFS_IOCTL_GET_CPINFO, ci, n, sizeof(*ci), cno, (uint16_t)mode);
}

ssize_t ioc_get_vinfo(int fd, struct nilfs_vinfo *vi, size_t n)
{
	return get_vec(fd, NILFS_IOCTL_GET_VINFO, vi, n, sizeof(*vi), 0, 0);
}

ssize_t ioc_get_bdescs(int fd, struct nilfs_bdesc *bd, size_t n)
{
	return get_vec(fd, NILFS_IOCTL_GET_BDESCS, bd, n, sizeof(*bd), 0, 0);
}

int ioc_clean_segments(int fd, const struct nilfs_vdesc *vd, size_t nvd,
		       const struct nilfs_period *pd, size_t npd,
		       const uint64_t *vbn, size_t nvbn,
		       const struct nilfs_bdesc *bd, size_t nbd,
		       const uint64_t *segnums, size_t nsegs)
{
	/* the kernel wants each v_size exactly: 64, 16, 8, 40, 8 */
	struct nilfs_argv a[5] = {
		argv_of(vd, nvd, sizeof(*vd), 0, 0),
		argv_of(pd, npd, sizeof(*pd), 0, 0),
		argv_of(vbn, nvbn, sizeof(*vbn), 0, 0),
		argv_of(bd, nbd, sizeof(*bd), 0, 0),
		argv_of(segnums, nsegs, sizeof(*segnums), 0, 0),
	};

	if (nvd > UINT32_MAX || npd > UINT32_MAX || nvbn > UINT32_MAX || nbd > UINT32_MAX ||
	    nsegs > UINT32_MAX)
		return -E2BIG;
	return nilfs_ioctl(fd, NILFS_IOCTL_CLEAN_SEGMENTS, a);
}

int ioc_delete_checkpoint(int fd, uint64_t cno)
{
	__u64 c = cno;

	return nilfs_ioctl(fd, NILFS_IOCTL_DELETE_CHECKPOINT, &c);
}

int ioc_set_suinfo(int fd, const struct nilfs_suinfo_update *sup, size_t n)
{
	struct nilfs_argv a = argv_of(sup, n, sizeof(*sup), 0, 0);

	return nilfs_ioctl(fd, NILFS_IOCTL_SET_SUINFO, &a);
}

int ioc_sync(int fd, uint64_t *cno)
{
	__u64 c = 0;
	int rc = nilfs_ioctl(fd, NILFS_IOCTL_SYNC, &c);

	if (rc)
		return rc;
	if (cno)
		*cno = c;
	return 0;
}

int ioc_change_cpmode(int fd, uint64_t cno, int mode)
{
	struct nilfs_cpmode cm;

	if (cno == 0)
		return -EINVAL;
	memset(&cm, 0, sizeof(cm));
	cm.cm_cno = cno;
	cm.cm_mode = (uint32_t)mode;
	return nilfs_ioctl(fd, NILFS_IOCTL_CHANGE_CPMODE, &cm);
}

int ioc_resize(int fd, uint64_t size)
{
	__u64 s = size;

	return nilfs_ioctl(fd, NILFS_IOCTL_RESIZE, &s);
}

int ioc_set_alloc_range(int fd, uint64_t start, uint64_t end)
{
	__u64 range[2] = { start, end };

	return nilfs_ioctl(fd, NILFS_IOCTL_SET_ALLOC_RANGE, range);
}

int ioc_set_label(int fd, const char *label)
{
	return nilfs_ioctl(fd, FS_IOC_SETFSLABEL, (void *)label);
}
