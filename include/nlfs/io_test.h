/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The I/O backends for tests: a device in memory and a fault injector
 * stacked on another backend (the unit tests, the fuzzers, the crash
 * harnesses and the commands' NILFS_TEST_FAULT hook in common/io_open.c).
 * No program opens a volume through them in normal use.  Calls return 0 or
 * a negative errno, as every backend's.
 */
#ifndef NLFS_IO_TEST_H
#define NLFS_IO_TEST_H

#include <nlfs/io.h>

/* io_mem.c: a zero-filled in-memory device of SIZE bytes.  0 or -ENOMEM. */
int nlfs_io_open_mem(uint64_t size, struct nlfs_io **out);
/* direct access to the memory device's bytes (tests, fuzzers).  Its SIZE bytes. */
uint8_t *nlfs_io_mem_data(struct nlfs_io *io);

/* io_fault.c: wraps LOWER (taking ownership) and injects faults.  0 or -ENOMEM
 * (LOWER is closed then too). */
int nlfs_io_open_fault(struct nlfs_io *lower, struct nlfs_io **out);
/* Write number N (0-based, counted from open) fails with -EIO. */
void nlfs_io_fault_fail_write(struct nlfs_io *io, uint64_t n);
/* Write number N stores only its first KEEP bytes, then power is lost:
 * every later write and flush fails with -EIO. */
void nlfs_io_fault_tear_write(struct nlfs_io *io, uint64_t n, size_t keep);
/* Simulate power loss now: writes since the last flush are undone. */
void nlfs_io_fault_crash(struct nlfs_io *io);
/* the writes made through IO since it was opened, failed ones included */
uint64_t nlfs_io_fault_writes(const struct nlfs_io *io);

#endif /* NLFS_IO_TEST_H */
