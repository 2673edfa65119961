/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lazylib.c - a shared library loaded on first use (lazylib.h). */
#include <dlfcn.h>
#include <stdio.h>

#include "lazylib.h"

bool lazylib_load(struct lazylib *l)
{
	void *h;

	if (l->tried)
		return l->loaded;
	l->tried = true;
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(l->why, sizeof(l->why), "%s", dlerror());
		return false;
	}
	for (size_t i = 0; i < l->n; i++) {
		l->fns[i] = dlsym(h, l->names[i]);
		if (!l->fns[i]) {
			snprintf(l->why, sizeof(l->why), "%s: no %s", l->soname, l->names[i]);
			dlclose(h);
			return false;
		}
	}
	l->loaded = true;
	return true;
}
