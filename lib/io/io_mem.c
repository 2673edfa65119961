/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* In-memory backend for tests and fuzzers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/io_test.h>

struct mem_priv {
	uint8_t *data;
	uint64_t size;
};

static int mem_range_ok(struct mem_priv *m, size_t len, uint64_t off)
{
	return off <= m->size && len <= m->size - off;
}

static int mem_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	struct mem_priv *m = io->priv;

	if (!mem_range_ok(m, len, off))
		return -ENODATA;
	memcpy(buf, m->data + off, len);
	return 0;
}

static int mem_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	struct mem_priv *m = io->priv;

	if (!mem_range_ok(m, len, off))
		return -ENOSPC;
	memcpy(m->data + off, buf, len);
	return 0;
}

static int mem_size(struct nlfs_io *io, uint64_t *bytes)
{
	*bytes = ((struct mem_priv *)io->priv)->size;
	return 0;
}

static void mem_destroy(struct nlfs_io *io)
{
	struct mem_priv *m = io->priv;

	free(m->data);
	free(m);
}

static const struct nlfs_io_ops mem_ops = {
	mem_read, mem_write, NULL, mem_size, mem_destroy, NULL, NULL,
};

int nlfs_io_open_mem(uint64_t size, struct nlfs_io **out)
{
	struct nlfs_io *io = calloc(1, sizeof(*io));
	struct mem_priv *m = calloc(1, sizeof(*m));

	if (!io || !m || size > SIZE_MAX || !(io->name = strdup("memory")) ||
	    !(m->data = calloc(1, size ? (size_t)size : 1))) {
		if (io)
			free(io->name);
		free(io);
		free(m);
		return -ENOMEM;
	}
	m->size = size;
	io->priv = m;
	io->ops = &mem_ops;
	*out = io;
	return 0;
}

uint8_t *nlfs_io_mem_data(struct nlfs_io *io)
{
	return io->ops == &mem_ops ? ((struct mem_priv *)io->priv)->data : NULL;
}
