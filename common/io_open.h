/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_open.h - how the commands open a device or image for I/O. */
#ifndef NLFS_COMMON_IO_OPEN_H
#define NLFS_COMMON_IO_OPEN_H

#include <stdbool.h>

#include <nlfs/io.h>
#include <nlfs/nlfs.h>

/* The environment variable that puts a writing command under the library's
 * fault-injecting I/O (tests only; see tests/kernel/README.md). */
#define CMD_TEST_FAULT_ENV "NILFS_TEST_FAULT"

/* or'ed into cmd_io_open's MODE: the caller's own lookup (mounts.h) found
 * PATH not mounted, so it is not looked up again (one a command) */
#define CMD_IO_UNMOUNTED 0x10000

/*
 * nlfs_io_open_unix(PATH, MODE, OUT), except that NLFS_IO_RDWR is refused
 * with -EBUSY for a mounted PATH (unless CMD_IO_UNMOUNTED), and for MODE
 * NLFS_IO_RDWR and NILFS_TEST_FAULT set in the environment the device is
 * stacked under the fault injector:
 *   count     no fault; at close, the number of writes goes to stderr
 *   crash:N   power is lost at write N (0-based): that write and every
 *             write since the last flush are undone, and every later write
 *             and flush fails with EIO
 *   tear:N    write N keeps its first half, the writes before it stay, and
 *             every later write and flush fails with EIO
 * At close a line "nilfs-test-fault: W writes, fault fired|not reached"
 * goes to stderr.  Returns 0 or a negative errno (-EINVAL for a malformed
 * NILFS_TEST_FAULT).
 */
int cmd_io_open(const char *path, int mode, struct nlfs_io **out);

/*
 * The volume on PATH: its I/O opened in MODE (cmd_io_open) and the file
 * system read from it into *FS, which owns the I/O from then on
 * (nlfs_fs_close closes both).  0; or the failure, with nothing left
 * open and *DEVICE_FAILED saying whose it is: the device's (a negative
 * errno, ERR cleared) or the file system's (as nlfs_fs_open, ERR
 * filled).
 */
int cmd_fs_open(const char *path, int mode, struct nlfs_fs **fs, struct nlfs_err *err,
		bool *device_failed);
/* cmd_fs_open, a failure told by cli_warnx as "PATH: why" */
int cmd_fs_open_warn(const char *path, int mode, struct nlfs_fs **fs);

#endif
