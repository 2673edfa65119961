/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lazylib.h - a shared library loaded on first use instead of at start.
 * A listing started thousands of times in a script (lscp, lssu) pays for
 * every library the loader maps before main; libsmartcols (tables) and
 * libblkid (UUID= and LABEL=) serve only some invocations, so those load
 * them when they need them.
 */
#ifndef NLFS_COMMON_LAZYLIB_H
#define NLFS_COMMON_LAZYLIB_H

#include <stdbool.h>
#include <stddef.h>

struct lazylib {
	const char *soname;             /* "libsmartcols.so.1" */
	const char *const *names;       /* the functions, in the order of FNS */
	size_t n;
	void **fns;                     /* filled on success */
	bool tried, loaded;
	char why[256];                  /* the loader's message on failure */
};

/* Load L once; true if every function was found (else L->why says why). */
bool lazylib_load(struct lazylib *l);

#endif
