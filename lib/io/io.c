/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dispatch to an I/O backend. */
#include <errno.h>
#include <stdlib.h>

#include <nlfs/io.h>

int nlfs_io_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	if (off + len < off)
		return -EINVAL;
	io->stats.reads++;
	io->stats.read_bytes += len;
	return io->ops->read(io, buf, len, off);
}

int nlfs_io_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	if (off + len < off)
		return -EINVAL;
	if (!io->ops->write)
		return -EROFS;
	return io->ops->write(io, buf, len, off);
}

int nlfs_io_flush(struct nlfs_io *io)
{
	return io->ops->flush ? io->ops->flush(io) : 0;
}

int nlfs_io_size(struct nlfs_io *io, uint64_t *bytes)
{
	return io->ops->size(io, bytes);
}

int nlfs_io_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len)
{
	if (!io->ops->prefetch)
		return 0;
	io->stats.prefetches++;
	io->stats.prefetch_bytes += len;
	return io->ops->prefetch(io, off, len);
}

bool nlfs_io_scattered(struct nlfs_io *io, bool on)
{
	bool was = io->scattered;

	if (on != was && io->ops->scattered)
		io->ops->scattered(io, on);
	io->scattered = on;
	return was;
}

void nlfs_io_get_stats(const struct nlfs_io *io, struct nlfs_io_stats *out)
{
	*out = io->stats;
}

const char *nlfs_io_name(const struct nlfs_io *io)
{
	return io->name ? io->name : "(unnamed)";
}

void nlfs_io_close(struct nlfs_io *io)
{
	if (!io)
		return;
	if (io->ops->destroy)
		io->ops->destroy(io);
	free(io->name);
	free(io);
}
