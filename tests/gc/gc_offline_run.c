/* Test driver for the offline cleaner: gc_offline_run IMAGE POLICY PROTECTION [PASSES] */
#include <stdlib.h>
#include <time.h>

#include "../../sbin/cleanerd/offline.h"

int main(int argc, char **argv)
{
	struct nlfs_gc_params p = { .nsegments_per_clean = 4, .max_passes = 64 };

	if (argc < 4 || nlfs_gc_policy_parse(argv[2], &p.policy)) {
		fprintf(stderr, "usage: %s IMAGE POLICY PROTECTION_SECONDS [MAX_PASSES]\n", argv[0]);
		return 2;
	}
	p.protection_period = strtoull(argv[3], NULL, 0);
	if (argc > 4)
		p.max_passes = strtoull(argv[4], NULL, 0);
	p.now = (uint64_t)time(NULL);
	p.min_reclaimable = 0;   /* nilfs-utils' default, 10% of a segment, in blocks below */
	return cleanerd_offline(argv[1], &p, stdout, stderr);
}
