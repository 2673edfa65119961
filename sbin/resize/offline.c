/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-resize on an unmounted device or image file, through the
 * library's writer (nlfs_resize_offline): a crash at any moment leaves the
 * volume at its old size or at the new one.  An image file is extended
 * before a grow and cut after a shrink, once the volume no longer uses
 * what is cut.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/resize.h>
#include <nlfs/writer.h>
#include "holder.h"
#include "io_open.h"
#include "resize.h"

static int examine(const struct resize_opts *o, struct nlfs_resize_info *ri)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	char msg[512];
	bool device_failed;
	int rc = cmd_fs_open(o->device, NLFS_IO_RDONLY, &fs, &err, &device_failed);

	if (rc && device_failed) {
		say_unusable(o, rc, NULL);
		return -1;
	}
	if (rc) {
		say_unusable(o, rc, &err);
		return -1;
	}
	/* refused before the question and before an image file is extended */
	rc = nlfs_writer_check_unmounted(fs, 0, &err);
	if (!rc && !o->write_damaged)
		rc = nlfs_fs_vet(fs, &err);
	if (rc) {
		nlfs_fs_close(fs);
		nlfs_err_format(&err, msg, sizeof(msg));
		say("Error: %s\n", msg);
		return -1;
	}
	rc = nlfs_resize_check(fs, o->size, ri, &err);
	nlfs_fs_close(fs);
	if (rc && rc != -ENOSPC) {
		nlfs_err_format(&err, msg, sizeof(msg));
		say("Error: %s: %s\n", o->device, msg);
		return -1;
	}
	return rc;
}

/* A grow of an image file that failed: the file goes back to its size if
 * the volume still has its old one (what was written past it is a copy of
 * the secondary superblock and logs no superblock points at). */
static void undo_extend(const struct resize_opts *o, uint64_t old_fs_size)
{
	uint64_t size;

	if (resize_fs_size(o->device, &size) || size != old_fs_size)
		return;
	if (truncate(o->device, (off_t)o->devsize))
		say("Warning: %s could not be cut back to %" PRIu64 " bytes: %s\n", o->device,
		    o->devsize, strerror(errno));
	else
		say("%s is back to %" PRIu64 " bytes.\n", o->device, o->devsize);
}

int resize_offline(const struct resize_opts *o)
{
	struct nlfs_resize_info ri;
	struct nlfs_resize_stats st;
	struct nlfs_io *io;
	struct nlfs_err err;
	char msg[512];
	bool shrink, extended = false;
	int rc = examine(o, &ri);

	if (rc == -1)
		return EXIT_FAILURE;
	if (o->size == ri.old_devsize) {
		say("No need to resize the filesystem on %s.\nIt already fits the device.\n",
		    o->device);
		return EXIT_SUCCESS;
	}
	shrink = o->size < ri.old_devsize;
	say("Partition size = %" PRIu64 " bytes.\n%s the filesystem size from %" PRIu64
	    " bytes to %" PRIu64 " bytes.\n", o->devsize, shrink ? "Shrink" : "Extend",
	    ri.old_devsize, o->size);
	if (shrink && report_shrink(o, &ri, rc == -ENOSPC)) {
		say("Aborted.\n");
		return EXIT_FAILURE;
	}
	if (!confirm(o)) {
		say("Aborted.\n");
		return EXIT_FAILURE;
	}
	if (!shrink && o->is_file && o->size > o->devsize) {
		if (truncate(o->device, (off_t)o->size)) {
			say("Error: cannot extend %s: %s\n", o->device, strerror(errno));
			say("Aborted.\n");
			return EXIT_FAILURE;
		}
		extended = true;
	}
	/* main() found it not mounted; after a question, it is looked up again */
	rc = cmd_io_open(o->device, NLFS_IO_RDWR | (o->assume_yes ? CMD_IO_UNMOUNTED : 0), &io);
	if (rc) {
		say_unusable(o, rc, NULL);
		if (extended)
			undo_extend(o, ri.old_devsize);
		say("Aborted.\n");
		return EXIT_FAILURE;
	}
	if (shrink && ri.inuse_in_cut)
		say("Moving %" PRIu64 " in-use segment%s.\n", ri.inuse_in_cut,
		    ri.inuse_in_cut > 1 ? "s" : "");
	{
		struct nlfs_resize_params rp = { .now = (uint64_t)time(NULL),
						 .write_damaged = o->write_damaged,
						 .progress = progress_show };

		rc = nlfs_resize_offline(io, o->size, &rp, &st, &err);
	}
	nlfs_io_close(io);
	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		say("Error: failed to %s the filesystem: %s\n", shrink ? "shrink" : "extend", msg);
		if (extended)
			undo_extend(o, ri.old_devsize);
		say("Aborted.\n");
		return EXIT_FAILURE;
	}
	if (o->verbose)
		say("%" PRIu64 " segments (%" PRIu64 " blocks) moved in %" PRIu64
		    " checkpoints.\n", st.segments_moved, st.blocks_moved, st.passes);
	if (shrink && o->is_file && truncate(o->device, (off_t)o->size))
		say("Warning: the filesystem is shrunk, but %s could not be cut to %" PRIu64
		    " bytes: %s\n", o->device, o->size, strerror(errno));
	else if (!o->is_file && o->size < o->devsize)
		say("Warning: the filesystem now ends %" PRIu64 " bytes before the end of %s; "
		    "shrink the partition to match, or run nilfs-resize %s to use it all.\n",
		    o->devsize - o->size, o->device, o->device);
	say("Done.\n");
	return EXIT_SUCCESS;
}
