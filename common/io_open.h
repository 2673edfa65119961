/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io_open.h - how the commands open a device or image for I/O. */
#ifndef NLFS_COMMON_IO_OPEN_H
#define NLFS_COMMON_IO_OPEN_H

#include <nlfs/io.h>

/* The environment variable that puts a writing command under the library's
 * fault-injecting I/O (tests only; see tests/kernel/README.md). */
#define CMD_TEST_FAULT_ENV "NILFS_TEST_FAULT"

/*
 * nlfs_io_open_unix(PATH, MODE, OUT), except that for MODE NLFS_IO_RDWR and
 * NILFS_TEST_FAULT set in the environment the device is stacked under the
 * fault injector:
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

#endif
