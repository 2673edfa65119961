/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io_open.c - the commands' way to open a device.  Besides the plain
 * device it offers a test-only hook: NILFS_TEST_FAULT runs a writing
 * command on the library's fault-injecting backend, so that a harness can
 * cut the power at any write of a real command on a real image and check
 * that the volume holds the old state or the new one.  The hook lives
 * here, in the command layer, because lib/ reads no environment.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/io_test.h>

#include "cli.h"
#include "io_open.h"
#include "volerr.h"
#include "mounts.h"
#include "strutils.h"

enum fault_kind { FAULT_COUNT, FAULT_CRASH, FAULT_TEAR };

struct hook_priv {
	struct nlfs_io *fault;    /* the library's injector over the device */
	enum fault_kind kind;
	uint64_t at;
	bool fired;
};

static struct hook_priv *hp(const struct nlfs_io *io)
{
	return io->priv;
}

static int hook_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	return nlfs_io_read(hp(io)->fault, buf, len, off);
}

static int hook_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	struct hook_priv *h = hp(io);
	int rc;

	if (h->kind == FAULT_TEAR && nlfs_io_fault_writes(h->fault) == h->at)
		nlfs_io_fault_tear_write(h->fault, h->at, len / 2);
	rc = nlfs_io_write(h->fault, buf, len, off);

	if (rc == -EIO && h->kind != FAULT_COUNT && !h->fired) {
		h->fired = true;
		/* a volatile cache loses what was not flushed */
		if (h->kind == FAULT_CRASH)
			nlfs_io_fault_crash(h->fault);
	}
	return rc;
}

static int hook_flush(struct nlfs_io *io)
{
	return nlfs_io_flush(hp(io)->fault);
}

static int hook_size(struct nlfs_io *io, uint64_t *bytes)
{
	return nlfs_io_size(hp(io)->fault, bytes);
}

static int hook_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len)
{
	return nlfs_io_prefetch(hp(io)->fault, off, len);
}

static void hook_scattered(struct nlfs_io *io, bool on)
{
	nlfs_io_scattered(hp(io)->fault, on);
}

static void hook_destroy(struct nlfs_io *io)
{
	struct hook_priv *h = hp(io);

	fprintf(stderr, "nilfs-test-fault: %" PRIu64 " writes, fault %s\n",
		nlfs_io_fault_writes(h->fault), h->fired ? "fired" : "not reached");
	nlfs_io_close(h->fault);
	free(h);
}

static const struct nlfs_io_ops hook_ops = {
	hook_read, hook_write, hook_flush, hook_size, hook_destroy, hook_prefetch,
	hook_scattered,
};

static int parse_fault(const char *spec, enum fault_kind *kind, uint64_t *at)
{
	const char *num;

	if (!strcmp(spec, "count")) {
		*kind = FAULT_COUNT;
		*at = UINT64_MAX;
		return 0;
	}
	if (!strncmp(spec, "crash:", 6)) {
		*kind = FAULT_CRASH;
		num = spec + 6;
	} else if (!strncmp(spec, "tear:", 5)) {
		*kind = FAULT_TEAR;
		num = spec + 5;
	} else {
		return -EINVAL;
	}
	if (*num < '0' || *num > '9')
		return -EINVAL;
	return cli_strtou64(num, at) ? -EINVAL : 0;
}

static int open_hooked(struct nlfs_io *dev, const char *spec, struct nlfs_io **out)
{
	struct nlfs_io *io, *fault;
	struct hook_priv *h;
	enum fault_kind kind;
	uint64_t at;
	int rc = parse_fault(spec, &kind, &at);

	if (rc) {
		fprintf(stderr, "%s=%s: expected count, crash:N or tear:N\n", CMD_TEST_FAULT_ENV,
			spec);
		nlfs_io_close(dev);
		return rc;
	}
	rc = nlfs_io_open_fault(dev, &fault);
	if (rc) {
		nlfs_io_close(dev);
		return rc;
	}
	io = calloc(1, sizeof(*io));
	h = calloc(1, sizeof(*h));
	if (!io || !h || !(io->name = strdup(nlfs_io_name(fault)))) {
		free(io);
		free(h);
		nlfs_io_close(fault);
		return -ENOMEM;
	}
	/* a tear keeps half of the write, set when its length is known */
	if (kind == FAULT_CRASH)
		nlfs_io_fault_tear_write(fault, at, 0);
	h->fault = fault;
	h->kind = kind;
	h->at = at;
	io->priv = h;
	io->ops = &hook_ops;
	*out = io;
	return 0;
}

int cmd_io_open(const char *path, int mode, struct nlfs_io **out)
{
	const char *spec = getenv(CMD_TEST_FAULT_ENV);
	bool unmounted = mode & CMD_IO_UNMOUNTED;
	struct nlfs_io *dev;
	int rc;

	mode &= ~CMD_IO_UNMOUNTED;
	/* an exclusive open protects a mounted block device, not the image
	 * file behind a mounted loop device: that is looked up */
	if (mode == NLFS_IO_RDWR && !unmounted && mnt_path_mounted(path))
		return -EBUSY;
	rc = nlfs_io_open_unix(path, mode, &dev);

	if (rc || mode != NLFS_IO_RDWR || !spec || !*spec) {
		if (!rc)
			*out = dev;
		return rc;
	}
	return open_hooked(dev, spec, out);
}

int cmd_fs_open(const char *path, int mode, struct nlfs_fs **fs, struct nlfs_err *err,
		bool *device_failed)
{
	struct nlfs_io *io;
	int rc = cmd_io_open(path, mode, &io);

	nlfs_err_clear(err);
	*device_failed = rc != 0;
	if (rc)
		return rc;
	rc = nlfs_fs_open(io, fs, err);
	if (rc)
		nlfs_io_close(io);
	return rc;
}

int cmd_fs_open_warn(const char *path, int mode, struct nlfs_fs **fs)
{
	struct nlfs_err err;
	char msg[320];
	bool device_failed;
	int rc = cmd_fs_open(path, mode, fs, &err, &device_failed);

	if (rc)
		cli_warnx("%s: %s", path,
			  cmd_volume_reason(path, rc, device_failed ? NULL : &err, msg, sizeof(msg)));
	return rc;
}
