/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline_state.c - the timeline's state file and one run of the timeline
 * on a volume (see timeline_state.h).
 *
 * The file is text:
 *     nilfs-timeline-state 1 UUID
 *     CNO CREATE [UNTIL]
 *     ...
 * one line per snapshot the timeline made, CREATE in seconds since the
 * epoch, UNTIL the earliest time its buckets let it go as of the last run
 * (for lscp; 0 or absent: unknown); lines starting with '#' are comments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include <nlfs/io.h>
#include <nlfs/nlfs.h>
#include "array.h"
#include "timeline_state.h"

#define MAGIC "nilfs-timeline-state"
#define CPINFO_BATCH 512

const char *tl_state_dir(void)
{
	const char *d = getenv(TL_STATE_DIR_ENV);

	return d && *d ? d : TL_STATE_DIR;
}

void tl_uuid_name(const uint8_t uuid[16], char buf[TL_UUID_LEN])
{
	uuid_unparse_lower(uuid, buf);
}

int tl_state_load(const char *path, const char *uuid, struct tl_owned **out, size_t *n,
		  char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	struct tl_owned *o = NULL;
	size_t cap = 0, k = 0;
	char line[256];
	unsigned lineno = 0;
	bool header = false;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long cno;
		long long create, until = 0;
		char id[64], end;
		int ver, got;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!header) {
			if (sscanf(line, MAGIC " %d %63s %c", &ver, id, &end) != 2 || ver != 1) {
				snprintf(why, whylen, "line %u: not a timeline state (version 1)", lineno);
				rc = -EINVAL;
				break;
			}
			if (strcmp(id, uuid)) {
				snprintf(why, whylen, "line %u: the state of volume %s, not of %s", lineno,
					 id, uuid);
				rc = -EINVAL;
				break;
			}
			header = true;
			continue;
		}
		got = sscanf(line, "%llu %lld %lld %c", &cno, &create, &until, &end);
		if ((got != 2 && got != 3) || cno == 0) {
			snprintf(why, whylen, "line %u: not a checkpoint number and time", lineno);
			rc = -EINVAL;
			break;
		}
		if (CLI_PUSH(o, k, cap, ((struct tl_owned){ cno, create, until }))) {
			rc = -ENOMEM;
			break;
		}
	}
	if (!rc && ferror(f))
		rc = -EIO;
	if (!rc && !header && lineno) {
		snprintf(why, whylen, "line %u: no header", lineno);
		rc = -EINVAL;
	}
	fclose(f);
	if (rc) {
		free(o);
		return rc;
	}
	*out = o;
	*n = k;
	return 0;
}

/* DIR and its parents, as mkdir -p */
static int make_dirs(char *dir)
{
	struct stat st;
	char *slash;
	int rc;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		rc = make_dirs(dir);
		*slash = '/';
		if (rc)
			return rc;
	}
	return mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		rc = -errno;
	close(fd);
	return rc;
}

int tl_state_save(const char *path, const char *uuid, const struct tl_owned *o, size_t n)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16], *slash;
	FILE *f;
	int fd, rc = 0;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	rc = make_dirs(dir);
	if (rc)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		goto fail;
	}
	fprintf(f, "# the snapshots nilfs-timeline made on this volume: number, creation\n"
		"# time, kept at least until\n" MAGIC " 1 %s\n", uuid);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 " %" PRId64 " %" PRId64 "\n", o[i].cno, o[i].create,
			o[i].until);
	if (fflush(f) || fsync(fileno(f)) < 0)
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && chmod(tmp, 0644) < 0)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (!rc)
		return fsync_dir(dir);
fail:
	unlink(tmp);
	return rc ? rc : -EIO;
}

int tl_held_on_device(const char *device, const struct nlfs_gc_protect *others,
		      const uint64_t *snaps, size_t n, uint64_t *freed, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_io *io;
	int rc = nlfs_io_open_unix(device, NLFS_IO_RDONLY | NLFS_IO_UNCACHED, &io);

	if (rc)
		return rc;
	rc = nlfs_fs_open(io, &fs, err);
	if (rc) {
		nlfs_io_close(io);
		return rc;
	}
	rc = nlfs_gc_held_only(fs, others, snaps, n, freed, err);
	nlfs_fs_close(fs);
	return rc;
}

/* every checkpoint of the volume, by number */
static int list_cps(const struct tl_vol *v, struct tl_cp **out, size_t *n)
{
	struct nilfs_cpinfo ci[CPINFO_BATCH];
	struct tl_cp *cps = NULL;
	size_t cap = 0, k = 0;
	uint64_t cno = 1;

	for (;;) {
		long got = v->cpinfo(v->ctx, cno, ci, CPINFO_BATCH);

		if (got < 0) {
			free(cps);
			return (int)got;
		}
		if (got == 0)
			break;
		if (CLI_GROW(cps, cap, k + (size_t)got)) {
			free(cps);
			return -ENOMEM;
		}
		for (long i = 0; i < got; i++)
			cps[k++] = (struct tl_cp){ ci[i].ci_cno, (int64_t)ci[i].ci_create,
						   (ci[i].ci_flags & (1u << NILFS_CPINFO_SNAPSHOT)) != 0 };
		cno = ci[got - 1].ci_cno + 1;
	}
	*out = cps;
	*n = k;
	return 0;
}

/*
 * The owned list into O (room for plan->n): before the changes (DONE NULL)
 * the snapshots held, without those to be demoted; after them, those and
 * the promotions made and the demotions not made (still its snapshots).
 */
static size_t owned_list(const struct tl_plan *plan, const bool *done, struct tl_owned *o)
{
	size_t k = 0;

	for (size_t i = 0; i < plan->n; i++) {
		const struct tl_decision *d = &plan->d[i];
		bool mine = d->verdict == TL_HOLD;

		if (done && d->verdict == TL_PROMOTE)
			mine = done[i];
		if (done && d->verdict == TL_DEMOTE)
			mine = !done[i];
		if (mine)
			o[k++] = (struct tl_owned){ d->cno, d->create, d->until };
	}
	return k;
}

static void note(struct tl_outcome *out, int rc, const char *step, uint64_t cno)
{
	if (!out->error) {
		out->error = rc;
		out->failed = step;
		out->failed_cno = cno;
	}
}

/*
 * The space budget on PLAN: what the timeline's snapshots after it alone
 * hold against everything else that keeps blocks: the other snapshots
 * (users'), the checkpoints of the protection period and the latest.
 */
static int budget(const struct tl_vol *v, const struct tl_options *o, const struct tl_cp *cps,
		  size_t ncps, struct tl_plan *plan, struct tl_outcome *out)
{
	uint64_t *others = calloc(ncps + 1, sizeof(*others));
	uint64_t *cnos = calloc(ncps + 1, sizeof(*cnos)), *create = calloc(ncps + 1, sizeof(*create));
	uint64_t *mine = calloc(plan->n + 1, sizeof(*mine));
	uint64_t *freed = calloc(plan->n + 1, sizeof(*freed));
	size_t nothers = 0, nmine = 0, d = 0;
	struct nlfs_gc_protect p = { .protcno = UINT64_MAX };
	int rc = -ENOMEM;

	if (!others || !cnos || !create || !mine || !freed)
		goto out;
	for (size_t i = 0; i < ncps; i++) {
		/* a forgotten entry may share the number of a checkpoint to
		 * promote; the plan's decisions and CPS are both by number */
		enum { OTHER, MINE, NONE } who = cps[i].snapshot ? OTHER : NONE;

		cnos[i] = cps[i].cno;
		create[i] = cps[i].create < 0 ? 0 : (uint64_t)cps[i].create;
		while (d < plan->n && plan->d[d].cno < cps[i].cno)
			d++;
		for (size_t e = d; e < plan->n && plan->d[e].cno == cps[i].cno; e++) {
			if (plan->d[e].verdict == TL_HOLD || plan->d[e].verdict == TL_PROMOTE)
				who = MINE;
			else if (plan->d[e].verdict == TL_DEMOTE)
				who = NONE;
		}
		if (who == MINE)
			mine[nmine++] = cps[i].cno;
		else if (who == OTHER)
			others[nothers++] = cps[i].cno;
	}
	/* the cleaner's protection: the checkpoints since NOW - the period */
	p.protcno = nlfs_gc_protcno(cnos, create, ncps,
				    (uint64_t)o->now > o->protection_period
				    ? (uint64_t)o->now - o->protection_period : 0);
	p.snapshots = others;
	p.nsnapshots = nothers;
	rc = v->held(v->ctx, &p, mine, nmine, freed);
	if (rc)
		goto out;
	out->budgeted = true;
	for (size_t i = 0; i < nmine; i++)
		out->held_before += freed[i];
	out->held_after = tl_plan_budget(plan, freed, o->budget);
out:
	free(others);
	free(cnos);
	free(create);
	free(mine);
	free(freed);
	return rc;
}

int tl_run(const struct tl_vol *v, const char *state_path, const char *uuid,
	   const struct tl_options *o, struct tl_plan *plan, struct tl_outcome *out,
	   char *why, size_t whylen)
{
	struct tl_owned *owned = NULL, *keep = NULL;
	struct tl_cp *cps = NULL;
	size_t ncps = 0, nowned = 0, nkeep;
	bool *done = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(plan, 0, sizeof(*plan));
	if (whylen)
		why[0] = '\0';
	rc = list_cps(v, &cps, &ncps);
	if (rc) {
		note(out, rc, "list", 0);
		return rc;
	}
	rc = tl_state_load(state_path, uuid, &owned, &nowned, why, whylen);
	if (rc) {
		note(out, rc, "state", 0);
		goto out;
	}
	rc = tl_plan_make(cps, ncps, owned, nowned, &o->cfg, o->now, plan);
	if (!rc && o->budget != UINT64_MAX && v->held) {
		rc = budget(v, o, cps, ncps, plan, out);
		if (rc)
			note(out, rc, "held", 0);
	}
	if (rc || o->dry_run)
		goto out;
	done = calloc(plan->n + 1, sizeof(*done));
	keep = calloc(plan->n + 1, sizeof(*keep));
	if (!done || !keep) {
		rc = -ENOMEM;
		goto out;
	}
	/* first the list without what is to be demoted or forgotten; written
	 * before any change also to find out that it can be */
	if (plan->count[TL_DEMOTE] || plan->count[TL_FORGET] || plan->count[TL_PROMOTE]) {
		nkeep = owned_list(plan, NULL, keep);
		rc = tl_state_save(state_path, uuid, keep, nkeep);
		if (rc) {
			note(out, rc, "state", 0);
			goto out;
		}
	}
	if (!plan->count[TL_DEMOTE] && !plan->count[TL_PROMOTE]) {
		/* nothing to change but, maybe, how long each is kept */
		nkeep = owned_list(plan, NULL, keep);
		if (nkeep != nowned || (nkeep && memcmp(keep, owned, nkeep * sizeof(*keep)))) {
			rc = tl_state_save(state_path, uuid, keep, nkeep);
			if (rc)
				note(out, rc, "state", 0);
		}
		goto out;
	}
	for (size_t i = 0; i < plan->n; i++) {
		const struct tl_decision *d = &plan->d[i];
		int r;

		if (d->verdict != TL_DEMOTE && d->verdict != TL_PROMOTE)
			continue;
		r = v->set_snapshot(v->ctx, d->cno, d->verdict == TL_PROMOTE);
		if (r)
			note(out, r, "change", d->cno);
		done[i] = r == 0;
	}
	rc = v->commit ? v->commit(v->ctx) : 0;
	if (rc) {
		note(out, rc, "commit", 0);
		if (v->deferred)
			memset(done, 0, plan->n * sizeof(*done));
	}
	for (size_t i = 0; i < plan->n; i++) {
		if (done[i] && plan->d[i].verdict == TL_PROMOTE)
			out->promoted++;
		if (done[i] && plan->d[i].verdict == TL_DEMOTE)
			out->demoted++;
	}
	nkeep = owned_list(plan, done, keep);
	rc = tl_state_save(state_path, uuid, keep, nkeep);
	if (rc)
		note(out, rc, "state", 0);
out:
	free(cps);
	free(owned);
	free(keep);
	free(done);
	return out->error ? out->error : rc;
}
