/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-resize on a mounted volume: the kernel does it (NILFS_IOCTL_RESIZE
 * on a file of the mounted filesystem), as nilfs-utils has it do.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nilfs2_api.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>
#include <nlfs/resize.h>
#include "resize.h"
#include "ioc.h"

static void resize_error(int e, bool shrink)
{
	say("Error: failed to %s the filesystem: %s\n", shrink ? "shrink" : "extend", strerror(e));
	if (e == ENOTTY)
		say("       This kernel does not support the resize API.\n");
}

int resize_fs_size(const char *device, uint64_t *size)
{
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;
	struct nlfs_io *io;
	int rc = nlfs_io_open_unix(device, NLFS_IO_RDONLY, &io);

	if (rc)
		return rc;
	rc = nlfs_sb_read_both(io, sb, &c, &err);
	nlfs_io_close(io);
	if (!rc)
		*size = nlfs_le64(sb[c.used].s_dev_size);
	return rc;
}

/* The kernel moved its secondary to the new end and left the old one, with
 * the old geometry, at the device's end, where its next mount looks: the
 * new copy goes there too.  The kernel no longer writes that place while
 * this mount lasts, so the write (without the exclusive claim the mount
 * holds) races with nothing. */
static void mirror_secondary(const struct resize_opts *o, uint64_t newsize)
{
	struct nlfs_err err;
	struct nlfs_io *io;
	char msg[512];
	int rc = nlfs_io_open_unix(o->device, NLFS_IO_RDWR_SHARED, &io);

	if (!rc) {
		rc = nlfs_sb_mirror_secondary(io, newsize, &err);
		nlfs_io_close(io);
		if (rc)
			nlfs_err_format(&err, msg, sizeof(msg));
	} else {
		snprintf(msg, sizeof(msg), "%s", strerror(-rc));
	}
	if (rc)
		say("Warning: the secondary superblock at the end of %s still has the old size "
		    "(%s); fsck.nilfs2 -y mends it.\n", o->device, msg);
}

int resize_online(const struct resize_opts *o, const char *mountpoint)
{
	uint64_t cur, newsize = o->size;
	bool shrink;
	int fd, rc;

	rc = resize_fs_size(o->device, &cur);
	if (rc) {
		say("Error: cannot open NILFS on %s.\n", o->device);
		return EXIT_FAILURE;
	}
	if (newsize == cur) {
		say("No need to resize the filesystem on %s.\nIt already fits the device.\n",
		    o->device);
		return EXIT_SUCCESS;
	}
	shrink = newsize < cur;
	fd = ioc_open(mountpoint);
	if (fd < 0) {
		say("Error: cannot open %s: %s\n", mountpoint, strerror(-fd));
		return EXIT_FAILURE;
	}
	say("Partition size = %" PRIu64 " bytes.\n%s the filesystem size from %" PRIu64
	    " bytes to %" PRIu64 " bytes.\n", o->devsize, shrink ? "Shrink" : "Extend", cur,
	    newsize);
	if (shrink) {
		rc = shrink_online(o, fd, cur);
	} else if (!confirm(o)) {
		rc = -1;
	} else {
		rc = ioc_resize(fd, newsize);
		if (rc < 0)
			resize_error(-rc, false);
	}
	close(fd);
	if (rc) {
		say("Aborted.\n");
		return EXIT_FAILURE;
	}
	if (newsize < o->devsize)
		mirror_secondary(o, newsize);
	if (newsize < o->devsize)
		say("Warning: the filesystem now ends %" PRIu64 " bytes before the end of %s; "
		    "shrink the partition to match, or run nilfs-resize %s to use it all.\n",
		    o->devsize - newsize, o->device, o->device);
	say("Done.\n");
	return EXIT_SUCCESS;
}
