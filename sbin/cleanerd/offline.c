/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The offline cleaning run behind nilfs_cleanerd --offline. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include <time.h>

#include "cldconfig.h"
#include "io_open.h"
#include "holder.h"
#include "mountinfo.h"
#include "offline.h"
#include "progress.h"


static int clean_count(struct nlfs_io *io, uint64_t *clean, uint64_t *nsegs, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_sufile_header h;
	int rc = nlfs_fs_open(io, &fs, err);

	if (rc)
		return rc;
	rc = nlfs_sufile_header(fs, &h, err);
	*clean = h.sh_ncleansegs;
	*nsegs = nlfs_fs_geometry(fs)->nsegments;
	nlfs_fs_release(fs);
	return rc;
}

int cleanerd_offline(const char *device, struct nlfs_gc_params *p, FILE *out, FILE *errf)
{
	struct nlfs_io *io;
	struct nlfs_err err;
	struct nlfs_gc_stats st;
	uint64_t before, after, nsegs;
	char msg[512];
	int rc;

	if (mnt_path_mounted(device)) {
		fprintf(errf, "%s is mounted: run nilfs_cleanerd on the mounted volume instead\n",
			device);
		return 1;
	}
	rc = cmd_io_open(device, NLFS_IO_RDWR, &io);
	if (rc) {
		fprintf(errf, "cannot open %s: %s\n", device,
			dev_open_reason(device, rc, msg, sizeof(msg)));
		return 1;
	}
	nlfs_err_clear(&err);
	rc = clean_count(io, &before, &nsegs, &err);
	if (!rc) {
		struct progress bar;

		if (!p->target_clean)
			p->target_clean = nsegs;
		progress_init(&bar, errf, device);
		p->progress = progress_callback;
		p->progress_arg = &bar;
		rc = nlfs_gc_offline(io, p, &st, &err);
		progress_clear(&bar);
		p->progress = NULL;
	}
	if (!rc)
		rc = clean_count(io, &after, &nsegs, &err);
	nlfs_io_close(io);
	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		fprintf(errf, "%s: %s\n", device, msg);
		return 1;
	}
	if (out)
		fprintf(out, "%s: clean segments %" PRIu64 " -> %" PRIu64 " of %" PRIu64
			"; %" PRIu64 " passes, %" PRIu64 " segments cleaned, %" PRIu64
			" blocks moved, %" PRIu64 " freed, %" PRIu64 " checkpoints deleted (%s)\n",
			device, before, after, nsegs, st.passes, st.segments, st.blocks_moved,
			st.blocks_freed, st.checkpoints_deleted, nlfs_gc_policy_name(p->policy));
	if (st.segments_damaged) {
		/* copied, its blocks would pass for sound under new checksums */
		fprintf(errf, "%s: segment %" PRIu64 " left as it is: a log in it fails its "
			"checksums (%" PRIu64 " such segment(s)); fsck.nilfs2 --check-data "
			"tells more\n", device, st.first_damaged, st.segments_damaged);
		return 1;
	}
	return 0;
}

/* P from the configuration C for the unmounted DEVICE; its geometry in *G */
static int conf_params(const char *device, const struct cld_config *c, struct nlfs_gc_params *p,
		       struct nlfs_geometry *g, FILE *errf)
{
	struct cld_limits lim;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	bool device_failed;
	int rc = cmd_fs_open(device, NLFS_IO_RDONLY, &fs, &err, &device_failed);

	if (rc && device_failed) {
		fprintf(errf, "cannot open %s: %s\n", device, strerror(-rc));
		return 1;
	}
	if (rc) {
		char msg[512];

		nlfs_err_format(&err, msg, sizeof(msg));
		fprintf(errf, "%s: %s\n", device, msg);
		return 1;
	}
	*g = *nlfs_fs_geometry(fs);
	nlfs_fs_close(fs);
	cld_resolve(c, g->nsegments, g->blocks_per_segment, g->blocksize, &lim);
	*p = (struct nlfs_gc_params){
		.policy = c->selection_policy,
		.now = (uint64_t)time(NULL),
		.protection_period = c->protection_period / NS_PER_SEC,
		.target_clean = lim.max_clean_segments,
		.nsegments_per_clean = c->nsegments_per_clean,
		.min_reclaimable = lim.min_reclaimable_blocks,
		.max_passes = g->nsegments,
	};
	return 0;
}

int cleanerd_offline_conf(const char *device, const struct cld_config *c, FILE *out, FILE *errf)
{
	struct nlfs_gc_params p;
	struct nlfs_geometry g;

	if (conf_params(device, c, &p, &g, errf))
		return 1;
	return cleanerd_offline(device, &p, out, errf);
}

int cleanerd_offline_manual(const char *device, const struct cld_config *c,
			    const struct cld_size *minrec, FILE *out, FILE *errf)
{
	struct nlfs_gc_params p;
	struct nlfs_geometry g;

	if (conf_params(device, c, &p, &g, errf))
		return 1;
	p.manual = true;
	/* steps of the online manual pass's size (a construction takes many) */
	p.nsegments_per_clean = cld_manual_step((uint64_t)g.blocks_per_segment * g.blocksize,
						MANUAL_INTERVAL);
	if (minrec) {
		bool clamped;

		p.min_reclaimable = cld_size_to_blocks(minrec, g.blocks_per_segment, g.blocksize,
						       &clamped);
	}
	return cleanerd_offline(device, &p, out, errf);
}
