/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing arrays: one place for the doubling and its overflow check; and
 * their sorting. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "nlfsP.h"

int nlfs_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

void nlfs_sort(void *base, size_t n, size_t elem, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, elem, cmp);
}
