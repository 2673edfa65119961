/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corrupt.h - what the damage tool's parts share: the image open in place,
 * raw reads and writes, and resealing a log after an edit.
 */
#ifndef CORRUPT_H
#define CORRUPT_H

#include <stddef.h>
#include <stdint.h>

#include <nlfs/nlfs.h>

extern const char *img;                 /* the image being damaged */
extern int fd;                          /* ... open for writing */
extern struct nlfs_fs *fs;              /* ... and as the kernel mounts it */
extern const struct nlfs_geometry *g;
extern uint32_t bs;

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
uint64_t get(const uint8_t *p, int n);  /* little-endian, N bytes */
void put(uint8_t *p, int n, uint64_t v);
void rd(uint64_t off, void *buf, size_t n);
void wr(uint64_t off, const void *buf, size_t n);
uint64_t log_of(uint64_t b);            /* the first block of the log holding B */
void reseal_log(uint64_t start);        /* its checksums, after an edit */
uint64_t sb_off(int copy);              /* byte offset of superblock COPY (0, 1) */

/* corrupt_random.c: one random fault, told on standard output */
void random_fault(uint64_t seed);

#endif
