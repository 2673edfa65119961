/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - --stats (stats.h).  A "read" is one the passes ask the
 * library's I/O layer for; a "system call" one the layer passes on to
 * the kernel (several small reads of blocks the page cache holds are
 * served by one): on a cold cache, each is a separate request the disk
 * may have to serve.  The read-ahead thread's requests (posix_fadvise,
 * served by the kernel in the background) and its own reads of the
 * summaries and maps are counted apart.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "fsck.h"
#include "stats.h"

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

void fsck_stats_start(struct fsck_stats *s)
{
	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &s->start);
}

void fsck_step_begin(struct fsck_step_mark *m, const struct nlfs_io *io)
{
	memset(m, 0, sizeof(*m));
	clock_gettime(CLOCK_MONOTONIC, &m->t);
	if (io)
		nlfs_io_get_stats(io, &m->io);
}

void fsck_step_end(struct fsck_stats *s, int pass, const struct fsck_step_mark *m,
		   const struct nlfs_io *io)
{
	struct fsck_pass_stats *p = &s->pass[pass < 0 || pass > FSCK_NPASSES ? 0 : pass];
	struct nlfs_io_stats now;

	p->seconds += since(&m->t);
	if (!io)
		return;
	nlfs_io_get_stats(io, &now);
	p->io.reads += now.reads - m->io.reads;
	p->io.read_bytes += now.read_bytes - m->io.read_bytes;
	p->io.os_reads += now.os_reads - m->io.os_reads;
	p->io.os_read_bytes += now.os_read_bytes - m->io.os_read_bytes;
	p->io.prefetches += now.prefetches - m->io.prefetches;
	p->io.prefetch_bytes += now.prefetch_bytes - m->io.prefetch_bytes;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

void fsck_stats_print(struct fsck *c, const struct fsck_stats *s, const struct nlfs_io_stats *ra)
{
	struct nlfs_io_stats t = { 0 };
	struct rusage ru;

	for (int i = 1; i <= FSCK_NPASSES; i++) {
		const struct fsck_pass_stats *p = &s->pass[i];

		fsck_info(c, "pass %d: %.3f s, %llu reads, %llu system calls for %.1f MiB",
			  i, p->seconds, (unsigned long long)p->io.reads,
			  (unsigned long long)p->io.os_reads, mib(p->io.os_read_bytes));
		t.reads += p->io.reads;
		t.os_reads += p->io.os_reads;
		t.os_read_bytes += p->io.os_read_bytes;
	}
	if (getrusage(RUSAGE_SELF, &ru))
		memset(&ru, 0, sizeof(ru));
	fsck_info(c, "total: %.3f s, %llu reads, %llu system calls for %.1f MiB; "
		  "read-ahead: %llu requests for %.1f MiB, %llu system calls for %.1f MiB; "
		  "max RSS %.1f MiB", since(&s->start), (unsigned long long)t.reads,
		  (unsigned long long)t.os_reads, mib(t.os_read_bytes),
		  (unsigned long long)ra->prefetches, mib(ra->prefetch_bytes),
		  (unsigned long long)ra->os_reads, mib(ra->os_read_bytes),
		  (double)ru.ru_maxrss / 1024.0);
}
