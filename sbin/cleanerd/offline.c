/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The offline cleaning run behind nilfs_cleanerd --offline. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include <time.h>

#include "cldconfig.h"
#include "cli.h"
#include "io_open.h"
#include "volerr.h"
#include "mounts.h"
#include "offline.h"
#include "progress.h"


/* an offline run writes: DEVICE must not be mounted at all */
static bool refuse_mounted(const char *device, FILE *errf)
{
	char msg[3 * PATH_MAX];
	struct mnt_entry m;
	int rc = mnt_find_nilfs(device, &m, msg, sizeof(msg));

	if (rc == -EMEDIUMTYPE) {
		fprintf(errf, "%s: %s: %s; nothing done\n", cli_progname, device, msg);
		return true;
	}
	if (rc)
		return false;
	fprintf(errf, "%s: %s is mounted on %s: clean it there with nilfs_cleanerd or "
		"nilfs-clean instead\n", cli_progname, device, m.mountpoint);
	mnt_free(&m);
	return true;
}

/* "prog: DEVICE: why" for a failure RC (ERR: the library's context or NULL) */
static int fail(FILE *errf, const char *device, int rc, const struct nlfs_err *err)
{
	char msg[640];

	fprintf(errf, "%s: %s: %s\n", cli_progname, device,
		cmd_volume_reason(device, rc, err, msg, sizeof(msg)));
	return 1;
}

static int clean_count(struct nlfs_io *io, uint64_t *clean, uint64_t *nsegs, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_suhead h;
	int rc = nlfs_fs_open(io, &fs, err);

	if (rc)
		return rc;
	rc = nlfs_sufile_header(fs, &h, err);
	*clean = h.ncleansegs;
	*nsegs = nlfs_fs_geometry(fs)->nsegments;
	nlfs_fs_release(fs);
	return rc;
}

/* Clean DEVICE (block device or image file), which conf_params found
 * unmounted, with P; target_clean == 0 means "as many segments as can be
 * freed".  Messages go to ERRF, a summary to OUT (if not NULL).  Returns an
 * exit status. */
static int cleanerd_offline(const char *device, struct nlfs_gc_params *p, FILE *out, FILE *errf)
{
	struct nlfs_io *io;
	struct nlfs_err err;
	struct nlfs_gc_stats st;
	uint64_t before, after, nsegs;
	int rc;

	rc = cmd_io_open(device, NLFS_IO_RDWR | CMD_IO_UNMOUNTED, &io);
	if (rc) {
		return fail(errf, device, rc, NULL);
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
	if (rc)
		return fail(errf, device, rc, &err);
	if (out)
		fprintf(out, "%s: clean segments %" PRIu64 " -> %" PRIu64 " of %" PRIu64
			"; %" PRIu64 " passes, %" PRIu64 " segments cleaned, %" PRIu64
			" blocks moved, %" PRIu64 " freed, %" PRIu64 " checkpoints deleted (%s)\n",
			device, before, after, nsegs, st.passes, st.segments, st.blocks_moved,
			st.blocks_freed, st.checkpoints_deleted, nlfs_gc_policy_name(p->policy));
	if (st.segments_damaged) {
		/* copied, its blocks would pass for sound under new checksums */
		fprintf(errf, "%s: %s: segment %" PRIu64 " left as it is: a log in it fails its "
			"checksums (%" PRIu64 " such segment(s)); fsck.nilfs2 --check-data "
			"tells more\n", cli_progname, device, st.first_damaged, st.segments_damaged);
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
	int rc;

	if (refuse_mounted(device, errf))
		return 1;
	rc = cmd_fs_open(device, NLFS_IO_RDONLY, &fs, &err, &device_failed);
	if (rc)
		return fail(errf, device, rc, device_failed ? NULL : &err);
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

int cleanerd_offline_conf(const char *device, const struct cld_config *c, bool write_damaged,
			  FILE *out, FILE *errf)
{
	struct nlfs_gc_params p;
	struct nlfs_geometry g;

	if (conf_params(device, c, &p, &g, errf))
		return 1;
	p.write_damaged = write_damaged;
	return cleanerd_offline(device, &p, out, errf);
}

int cleanerd_offline_manual(const char *device, const struct cld_config *c,
			    const struct cld_size *minrec, bool write_damaged, FILE *out,
			    FILE *errf)
{
	struct nlfs_gc_params p;
	struct nlfs_geometry g;

	if (conf_params(device, c, &p, &g, errf))
		return 1;
	p.manual = true;
	p.write_damaged = write_damaged;
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
