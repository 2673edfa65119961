/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault-injecting backend stacked on another one.  It counts writes, can
 * fail or tear a chosen write, and remembers the old contents of every
 * range written since the last flush so that a simulated crash can drop
 * unflushed writes the way a volatile disk cache would.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/io_test.h>
#include "../nlfsP.h"

struct undo_rec {
	uint64_t off;
	size_t len;
	uint8_t *old;
};

struct fault_priv {
	struct nlfs_io *lower;
	uint64_t nwrites;
	uint64_t fail_at;     /* UINT64_MAX: never */
	uint64_t tear_at;
	size_t tear_keep;
	bool dead;            /* power lost: everything fails */
	struct undo_rec *undo;
	size_t nundo, capundo;
};

static struct fault_priv *fp(const struct nlfs_io *io)
{
	return io->priv;
}

static void undo_forget(struct fault_priv *f)
{
	for (size_t i = 0; i < f->nundo; i++)
		free(f->undo[i].old);
	f->nundo = 0;
}

static int undo_remember(struct fault_priv *f, size_t len, uint64_t off)
{
	struct undo_rec *r;
	int err;

	if (NLFS_GROW(f->undo, f->capundo, f->nundo + 1))
		return -ENOMEM;
	r = &f->undo[f->nundo];
	r->old = malloc(len ? len : 1);
	if (!r->old)
		return -ENOMEM;
	err = nlfs_io_read(f->lower, r->old, len, off);
	if (err == -ENODATA) {
		/* writing past the current end of a file: old bytes read as zero */
		memset(r->old, 0, len);
		err = 0;
	}
	if (err) {
		free(r->old);
		return err;
	}
	r->off = off;
	r->len = len;
	f->nundo++;
	return 0;
}

static int fault_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	if (fp(io)->dead)
		return -EIO;
	return nlfs_io_read(fp(io)->lower, buf, len, off);
}

static int fault_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	struct fault_priv *f = fp(io);
	uint64_t n = f->nwrites++;
	int err;

	if (f->dead || n == f->fail_at)
		return -EIO;
	err = undo_remember(f, len, off);
	if (err)
		return err;
	if (n == f->tear_at) {
		size_t keep = f->tear_keep < len ? f->tear_keep : len;

		f->dead = true;
		if (keep)
			nlfs_io_write(f->lower, buf, keep, off);
		return -EIO;
	}
	return nlfs_io_write(f->lower, buf, len, off);
}

static int fault_flush(struct nlfs_io *io)
{
	struct fault_priv *f = fp(io);
	int err;

	if (f->dead)
		return -EIO;
	err = nlfs_io_flush(f->lower);
	if (!err)
		undo_forget(f);
	return err;
}

static int fault_size(struct nlfs_io *io, uint64_t *bytes)
{
	return nlfs_io_size(fp(io)->lower, bytes);
}

static void fault_destroy(struct nlfs_io *io)
{
	struct fault_priv *f = fp(io);

	undo_forget(f);
	free(f->undo);
	nlfs_io_close(f->lower);
	free(f);
}

static int fault_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len)
{
	return nlfs_io_prefetch(fp(io)->lower, off, len);
}

static void fault_scattered(struct nlfs_io *io, bool on)
{
	nlfs_io_scattered(fp(io)->lower, on);
}

static const struct nlfs_io_ops fault_ops = {
	fault_read, fault_write, fault_flush, fault_size, fault_destroy, fault_prefetch,
	fault_scattered,
};

int nlfs_io_open_fault(struct nlfs_io *lower, struct nlfs_io **out)
{
	struct nlfs_io *io = calloc(1, sizeof(*io));
	struct fault_priv *f = calloc(1, sizeof(*f));

	if (!io || !f || !(io->name = strdup(nlfs_io_name(lower)))) {
		if (io)
			free(io->name);
		free(io);
		free(f);
		return -ENOMEM;
	}
	f->lower = lower;
	f->fail_at = UINT64_MAX;
	f->tear_at = UINT64_MAX;
	io->priv = f;
	io->ops = &fault_ops;
	*out = io;
	return 0;
}

void nlfs_io_fault_fail_write(struct nlfs_io *io, uint64_t n)
{
	fp(io)->fail_at = n;
}

void nlfs_io_fault_tear_write(struct nlfs_io *io, uint64_t n, size_t keep)
{
	fp(io)->tear_at = n;
	fp(io)->tear_keep = keep;
}

void nlfs_io_fault_crash(struct nlfs_io *io)
{
	struct fault_priv *f = fp(io);

	/* newest first, so overlapping writes unwind to the oldest contents */
	for (size_t i = f->nundo; i-- > 0;)
		nlfs_io_write(f->lower, f->undo[i].old, f->undo[i].len, f->undo[i].off);
	undo_forget(f);
	f->dead = true;
}

uint64_t nlfs_io_fault_writes(const struct nlfs_io *io)
{
	return fp(io)->nwrites;
}
