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
		      const uint64_t *snaps, size_t n, struct nlfs_gc_held *h, struct nlfs_err *err)
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
	rc = nlfs_gc_held_count(fs, others, snaps, n, h, err);
	nlfs_fs_close(fs);
	return rc;
}

/* what the space budget needs of the checkpoints, gathered as they stream */
struct cp_scan {
	uint64_t *snaps;        /* every snapshot, by number */
	size_t nsnaps, cap;
	uint64_t protcno;       /* the first created at or after PROTLIMIT */
	uint64_t protlimit;
};

/* every checkpoint of the volume, by number, into the chooser C; the
 * snapshots and the protection period's start into SCAN */
static int list_cps(const struct tl_vol *v, struct tl_chooser *c, struct cp_scan *scan)
{
	struct nilfs_cpinfo ci[CPINFO_BATCH];
	uint64_t cnos[CPINFO_BATCH], create[CPINFO_BATCH], cno = 1;

	for (;;) {
		long got = v->cpinfo(v->ctx, cno, ci, CPINFO_BATCH);

		if (got <= 0)
			return (int)got;
		for (long i = 0; i < got; i++) {
			struct tl_cp cp = { ci[i].ci_cno, (int64_t)ci[i].ci_create,
					    (ci[i].ci_flags & (1u << NILFS_CPINFO_SNAPSHOT)) != 0 };
			int rc = tl_chooser_add(c, &cp);

			if (rc)
				return rc;
			if (cp.snapshot && CLI_PUSH(scan->snaps, scan->nsnaps, scan->cap, cp.cno))
				return -ENOMEM;
			cnos[i] = ci[i].ci_cno;
			create[i] = ci[i].ci_create;
		}
		if (scan->protcno == UINT64_MAX)
			scan->protcno = nlfs_gc_protcno(cnos, create, (size_t)got, scan->protlimit);
		cno = ci[got - 1].ci_cno + 1;
	}
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

static int decision_cno_cmp(const void *key, const void *elem)
{
	const struct tl_decision *x = key, *y = elem;

	return x->cno < y->cno ? -1 : x->cno > y->cno;
}

/* the plan's decision of the timeline's own snapshot CNO (HOLD, DEMOTE) */
static bool owned_snapshot(const struct tl_plan *plan, uint64_t cno)
{
	struct tl_decision key = { .cno = cno };
	size_t i = nlfs_lower_bound(&key, plan->d, plan->n, sizeof(*plan->d), decision_cno_cmp);

	for (; i < plan->n && plan->d[i].cno == cno; i++)
		if (plan->d[i].verdict == TL_HOLD || plan->d[i].verdict == TL_DEMOTE)
			return true;
	return false;
}

/*
 * The space budget on PLAN: what the timeline's snapshots after it alone
 * hold against everything else that keeps blocks: the other snapshots
 * (users'), the checkpoints of the protection period and the latest.
 */
static int budget(const struct tl_vol *v, const struct tl_options *o, const struct cp_scan *scan,
		  struct tl_plan *plan, struct tl_outcome *out)
{
	uint64_t *others = calloc(scan->nsnaps + 1, sizeof(*others));
	uint64_t *mine = calloc(plan->n + 1, sizeof(*mine));
	struct nlfs_gc_protect p = { .protcno = scan->protcno };
	struct tl_budget b = { o->budget, o->min_free, out->clean };
	struct nlfs_gc_held h = { 0 };
	size_t nothers = 0, nmine = 0;
	int rc = -ENOMEM;

	if (!others || !mine)
		goto out;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->d[i].verdict == TL_HOLD || plan->d[i].verdict == TL_PROMOTE)
			mine[nmine++] = plan->d[i].cno;
	/* the snapshots not the timeline's (a user's, or one it forgot) */
	for (size_t i = 0; i < scan->nsnaps; i++)
		if (!owned_snapshot(plan, scan->snaps[i]))
			others[nothers++] = scan->snaps[i];
	p.snapshots = others;
	p.nsnapshots = nothers;
	rc = v->held(v->ctx, &p, mine, nmine, &h);
	if (!rc)
		rc = tl_plan_budget(plan, &h, &b);
	if (rc)
		goto out;
	out->budgeted = true;
	out->held_before = plan->held_before;
	out->held_after = plan->held_after;
	out->allowed = plan->allowed;
	out->limit = plan->limit;
	out->dead = h.dead;
out:
	nlfs_gc_held_free(&h);
	free(others);
	free(mine);
	return rc;
}

int tl_run(const struct tl_vol *v, const char *state_path, const char *uuid,
	   const struct tl_options *o, struct tl_plan *plan, struct tl_outcome *out,
	   char *why, size_t whylen)
{
	struct tl_owned *owned = NULL, *keep = NULL;
	struct cp_scan scan = { .protcno = UINT64_MAX };
	struct tl_chooser chooser;
	size_t nowned = 0, nkeep;
	bool *done = NULL, count;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(plan, 0, sizeof(*plan));
	if (whylen)
		why[0] = '\0';
	rc = tl_state_load(state_path, uuid, &owned, &nowned, why, whylen);
	if (rc) {
		note(out, rc, "state", 0);
		return rc;
	}
	rc = tl_chooser_init(&chooser, &o->cfg, o->now, owned, nowned);
	if (rc) {
		note(out, rc, "list", 0);
		goto out;
	}
	/* the cleaner's protection: the checkpoints since NOW - the period */
	scan.protlimit = (uint64_t)o->now > o->protection_period
			 ? (uint64_t)o->now - o->protection_period : 0;
	rc = list_cps(v, &chooser, &scan);
	if (rc) {
		tl_chooser_free(&chooser);
		note(out, rc, "list", 0);
		goto out;
	}
	rc = tl_chooser_finish(&chooser, plan);
	/* the count: with a budget, or when the volume is short of clean
	 * space, and only if the timeline has snapshots to give up */
	count = !rc && v->held && (o->budget != UINT64_MAX || o->min_free) &&
		plan->count[TL_PROMOTE] + plan->count[TL_HOLD] > 0;
	if (count && o->min_free) {
		rc = v->clean_blocks ? v->clean_blocks(v->ctx, &out->clean) : -ENOTSUP;
		if (rc)
			note(out, rc, "held", 0);
		count = !rc && (o->budget != UINT64_MAX || out->clean < o->min_free);
	}
	if (count) {
		rc = budget(v, o, &scan, plan, out);
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
	free(scan.snaps);
	free(owned);
	free(keep);
	free(done);
	return out->error ? out->error : rc;
}
