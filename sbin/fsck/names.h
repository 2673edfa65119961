/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.h - the names of one directory and the inode each names, for the
 * duplicate check (pass_dir.c) and the rewrite of a directory (repair_dir.c). */
#ifndef FSCK_NAMES_H
#define FSCK_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct fsck_names {
	char *arena;       /* per name: inode (8 bytes), length (1), the name */
	size_t len, cap;
	uint32_t *slots;   /* offset of a name in arena, 0 = empty */
	size_t nslots, n;
};

/* Add NAME for inode INO: 0 if it is new, 1 if it was there already (its
 * inode in *PREV, if PREV), -ENOMEM. */
int fsck_names_add(struct fsck_names *ns, const char *name, unsigned len, uint64_t ino,
		   uint64_t *prev);
/* Room for N names of about AVG bytes before the set grows (a hint: 0, or
 * -ENOMEM and the set as it was) */
int fsck_names_reserve(struct fsck_names *ns, size_t n, unsigned avg);
void fsck_names_free(struct fsck_names *ns);

#endif /* FSCK_NAMES_H */
