/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* File or block-device backend: pread/pwrite, fsync as the barrier. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include <nlfs/io.h>

struct unix_priv {
	int fd;
};

static int unix_fd(struct nlfs_io *io)
{
	return ((struct unix_priv *)io->priv)->fd;
}

static int unix_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = pread(unix_fd(io), p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA; /* past the end of the device */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int unix_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = pwrite(unix_fd(io), p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int unix_flush(struct nlfs_io *io)
{
	return fsync(unix_fd(io)) < 0 ? -errno : 0;
}

static int unix_size(struct nlfs_io *io, uint64_t *bytes)
{
	struct stat st;

	if (fstat(unix_fd(io), &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz;

		if (ioctl(unix_fd(io), BLKGETSIZE64, &sz) < 0)
			return -errno;
		*bytes = sz;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -ENOTBLK;
	*bytes = (uint64_t)st.st_size;
	return 0;
}

static void unix_destroy(struct nlfs_io *io)
{
	close(unix_fd(io));
	free(io->priv);
}

/* the kernel reads ahead while the caller works on what it has */
static int unix_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len)
{
	int rc = posix_fadvise(unix_fd(io), (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);

	return -rc;
}

static const struct nlfs_io_ops unix_ops_rw = {
	unix_read, unix_write, unix_flush, unix_size, unix_destroy, unix_prefetch,
};
static const struct nlfs_io_ops unix_ops_ro = {
	unix_read, NULL, NULL, unix_size, unix_destroy, unix_prefetch,
};

int nlfs_io_open_unix(const char *path, int mode, struct nlfs_io **out)
{
	struct nlfs_io *io = calloc(1, sizeof(*io));
	struct unix_priv *priv = calloc(1, sizeof(*priv));
	int fd, err;

	if (!io || !priv || !(io->name = strdup(path))) {
		err = -ENOMEM;
		goto fail;
	}
	fd = open(path, (mode == NLFS_IO_RDWR ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	priv->fd = fd;
	io->priv = priv;
	{
		struct stat st;

		/* a mounted nilfs2 writes its logs with bios that bypass the block
		 * device's page cache: drop what an earlier reader (the mount's own
		 * recovery scan, say) left there, or stale blocks would be read */
		if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode))
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	io->ops = mode == NLFS_IO_RDWR ? &unix_ops_rw : &unix_ops_ro;
	*out = io;
	return 0;
fail:
	if (io)
		free(io->name);
	free(io);
	free(priv);
	return err;
}
