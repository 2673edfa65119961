/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c - a set of directory entry names (open addressing, one arena). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "array.h"

#define INO_BYTES 8

static uint64_t name_hash(const char *s, unsigned len)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

static unsigned len_at(const struct fsck_names *ns, uint32_t o)
{
	return (uint8_t)ns->arena[o - 1];
}

/* NN slots (a power of 2, above twice the names held), the names moved */
static int resize_slots(struct fsck_names *ns, size_t nn)
{
	uint32_t *sl = calloc(nn, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	for (size_t k = 0; k < ns->nslots; k++) {
		uint32_t o = ns->slots[k];
		size_t i;

		if (!o)
			continue;
		for (i = name_hash(ns->arena + o, len_at(ns, o)) & (nn - 1); sl[i]; i = (i + 1) & (nn - 1))
			;
		sl[i] = o;
	}
	free(ns->slots);
	ns->slots = sl;
	ns->nslots = nn;
	return 0;
}

static int grow_slots(struct fsck_names *ns)
{
	return resize_slots(ns, ns->nslots ? ns->nslots * 2 : 64);
}

int fsck_names_reserve(struct fsck_names *ns, size_t n, unsigned avg)
{
	size_t nn = 64;

	while (nn <= 2 * n)
		nn *= 2;
	if (nn > ns->nslots && resize_slots(ns, nn))
		return -ENOMEM;
	return CLI_GROW(ns->arena, ns->cap, ns->len + n * (INO_BYTES + 1 + avg));
}

int fsck_names_add(struct fsck_names *ns, const char *name, unsigned len, uint64_t ino,
		   uint64_t *prev)
{
	size_t i, need = INO_BYTES + 1 + len;

	if (ns->n * 2 >= ns->nslots && grow_slots(ns))
		return -ENOMEM;
	for (i = name_hash(name, len) & (ns->nslots - 1); ns->slots[i]; i = (i + 1) & (ns->nslots - 1)) {
		uint32_t o = ns->slots[i];

		if (len_at(ns, o) == len && !memcmp(ns->arena + o, name, len)) {
			if (prev)
				memcpy(prev, ns->arena + o - 1 - INO_BYTES, INO_BYTES);
			return 1;
		}
	}
	/* offsets into the arena are 32 bits */
	if (ns->len + need > UINT32_MAX || CLI_GROW(ns->arena, ns->cap, ns->len + need))
		return -ENOMEM;
	memcpy(ns->arena + ns->len, &ino, INO_BYTES);
	ns->arena[ns->len + INO_BYTES] = (char)len;
	memcpy(ns->arena + ns->len + INO_BYTES + 1, name, len);
	ns->slots[i] = (uint32_t)(ns->len + INO_BYTES + 1);
	ns->len += need;
	ns->n++;
	return 0;
}

void fsck_names_free(struct fsck_names *ns)
{
	free(ns->arena);
	free(ns->slots);
	memset(ns, 0, sizeof(*ns));
}
