/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing arrays: one place for the doubling and its overflow check; and
 * their sorting and searching. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int nlfs_cmp_u64(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x < y ? -1 : x > y;
}

size_t nlfs_sort_unique_u64(uint64_t *v, size_t n)
{
	size_t k = 0;

	nlfs_sort(v, n, sizeof(*v), nlfs_cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

size_t nlfs_lower_bound(const void *key, const void *base, size_t n, size_t elem,
			int (*cmp)(const void *key, const void *elem))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp(key, (const char *)base + mid * elem) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
