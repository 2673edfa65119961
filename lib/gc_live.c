/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Liveness as the kernel's cleaner defines it: a block version [start, end)
 * is live if the latest checkpoint can reach it (end is ~0), a checkpoint in
 * the protection period can (end > protcno), or a snapshot lies inside its
 * period.  Blocks of the files that live in the super root (fi_cno 0) are
 * live only while current.
 */
#include <nlfs/gc.h>

bool nlfs_gc_block_live(const struct nlfs_gc_protect *p, uint64_t fi_cno, uint64_t start,
			uint64_t end)
{
	size_t lo = 0, hi = p->nsnapshots;

	if (fi_cno == 0)
		return end == UINT64_MAX;
	if (end == fi_cno)
		return false;          /* replaced within the checkpoint that wrote it */
	if (end == UINT64_MAX || end > p->protcno)
		return true;
	/* the first snapshot >= start decides */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->snapshots[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nsnapshots && p->snapshots[lo] < end;
}

uint64_t nlfs_gc_protcno(const uint64_t *cnos, const uint64_t *create, size_t n, uint64_t limit)
{
	for (size_t i = 0; i < n; i++)
		if (create[i] >= limit)
			return cnos[i];
	return UINT64_MAX;
}
