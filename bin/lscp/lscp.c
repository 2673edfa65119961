/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lscp.c - list the checkpoints and snapshots of a NILFS2 volume.
 *
 * The columns, their format and the meaning of every option are those of
 * nilfs-utils 2.2.9 lscp.  A mounted volume is asked through the kernel's
 * ioctls; an image or unmounted device is read offline (vol.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "linefmt.h"
#include "table.h"
#include "timeline_state.h"
#include "vol.h"
#include "array.h"

#define NCPINFO 4096    /* entries per request */

/* the columns of -o, by id */
enum { COL_CNO, COL_DATE, COL_TIME, COL_CREATE, COL_MODE, COL_FLG, COL_BLKCNT, COL_NBLKINC,
       COL_ICNT, COL_TIMELINE, NCOLS };

static const struct table_column columns[NCOLS] = {
	[COL_CNO] = { "CNO", "checkpoint number", true },
	[COL_DATE] = { "DATE", "date made, local time", false },
	[COL_TIME] = { "TIME", "time made, local time", false },
	[COL_CREATE] = { "CREATE", "time made, seconds since the epoch", true },
	[COL_MODE] = { "MODE", "ss (snapshot) or cp (checkpoint)", false },
	[COL_FLG] = { "FLG", "i (minor checkpoint) or -", false },
	[COL_BLKCNT] = { "BLKCNT", "blocks its files use", true },
	[COL_NBLKINC] = { "NBLKINC", "blocks written to make it", true },
	[COL_ICNT] = { "ICNT", "inodes in use", true },
	[COL_TIMELINE] = { "TIMELINE", "the snapshot timeline's: kept at least until (local time)",
			   false },
};

/* the snapshot timeline's snapshots (nilfs-timeline(8)'s state file), for
 * the TIMELINE column */
static struct tl_owned *timeline;
static size_t ntimeline;

static const struct tl_owned *timeline_of(const struct nilfs_cpinfo *ci)
{
	for (size_t i = 0; i < ntimeline && nilfs_cpinfo_snapshot(ci); i++)
		if (timeline[i].cno == ci->ci_cno && timeline[i].create == (int64_t)ci->ci_create)
			return &timeline[i];
	return NULL;
}

/* the volume's state file, if there is one; a failure only leaves the
 * column empty, with a warning */
static void load_timeline(struct vol *v)
{
	char uuid[TL_UUID_LEN], path[PATH_MAX], why[256] = "";
	uint8_t raw[16];
	int rc = vol_uuid(v, raw);

	if (!rc) {
		tl_uuid_name(raw, uuid);
		snprintf(path, sizeof(path), "%s/%s", tl_state_dir(), uuid);
		rc = tl_state_load(path, uuid, &timeline, &ntimeline, why, sizeof(why));
	}
	if (rc)
		cli_warnx("the timeline's state of %s: %s", v->dev, why[0] ? why : vol_strerror(v, rc));
}

struct lscp {
	bool all, reverse, snapshots, show_inc;
	uint64_t index, lines;
	struct vol *vol;
	struct nilfs_cpstat st;
	struct table t;
	int rc;                 /* of the table, once it failed */
	uint64_t rest;          /* lines still to print */
	struct lf_time_cache tc;
	struct nilfs_cpinfo *buf;       /* NCPINFO entries */
};

static void usage(void)
{
	printf(CLI_USAGE_HEADER
	       " %s [options] [device|mountpoint|image]\n"
	       "\nList the checkpoints of a NILFS2 volume.\n"
	       CLI_USAGE_OPTIONS
	       " -a, --all                show minor checkpoints too\n"
	       " -b, --show-block-count   show the blocks each checkpoint uses (default)\n"
	       " -g, --show-increment     show the blocks each checkpoint added\n"
	       " -r, --reverse            newest first\n"
	       " -s, --snapshot           list only snapshots\n"
	       " -i, --index <cno>        start at checkpoint <cno> (with -r: end there)\n"
	       " -n, --lines <n>          list at most <n> checkpoints\n", cli_progname);
	table_usage_options(stdout);
	cli_usage_help(stdout, 26);
	table_usage(stdout, columns, NCOLS);
	cli_usage_man(stdout, 1);
}

static bool shown(const struct lscp *c, const struct nilfs_cpinfo *ci)
{
	return c->all || nilfs_cpinfo_snapshot(ci) || !nilfs_cpinfo_minor(ci);
}

static void print_header(const struct lscp *c)
{
	if (c->t.on || c->t.noheadings)
		return;
	printf("                 CNO        DATE     TIME  MODE  FLG     %s       ICNT\n",
	       c->show_inc ? "NBLKINC" : " BLKCNT");
}

/* one cell of the table (table_cell_fn) */
static const char *cp_cell(const void *row, int col, char *buf, size_t len)
{
	const struct nilfs_cpinfo *ci = row;
	unsigned long long v;

	switch (col) {
	case COL_DATE:
	case COL_TIME:
		return table_date_cell(ci->ci_create, col == COL_DATE, false, buf, len);
	case COL_MODE: return nilfs_cpinfo_snapshot(ci) ? "ss" : "cp";
	case COL_FLG: return nilfs_cpinfo_minor(ci) ? "i" : "-";
	case COL_TIMELINE: {
		const struct tl_owned *o = timeline_of(ci);

		if (!o)
			return NULL;
		if (!o->until)
			return "yes";
		cli_format_time((uint64_t)o->until, buf, len);
		return buf;
	}
	case COL_CNO: v = ci->ci_cno; break;
	case COL_CREATE: v = ci->ci_create; break;
	case COL_BLKCNT: v = ci->ci_blocks_count; break;
	case COL_NBLKINC: v = ci->ci_nblk_inc; break;
	default: v = ci->ci_inodes_count; break;
	}
	snprintf(buf, len, "%llu", v);
	return buf;
}

/* nilfs-tools' line: "%20llu  %s   %s    %s %12llu %10llu\n" */
static void print_cp(struct lscp *c, const struct nilfs_cpinfo *ci)
{
	char line[128], *p = line;

	if (c->rest)
		c->rest--;
	if (c->t.on) {
		if (!c->rc)
			c->rc = table_add(&c->t, ci);
		return;
	}
	p = lf_u64(p, ci->ci_cno, 20);
	p = lf_str(p, "  ");
	p = lf_time(&c->tc, ci->ci_create, p);
	p = lf_str(p, nilfs_cpinfo_snapshot(ci) ? "   ss    " : "   cp    ");
	*p++ = nilfs_cpinfo_minor(ci) ? 'i' : '-';
	*p++ = ' ';
	p = lf_u64(p, c->show_inc ? ci->ci_nblk_inc : ci->ci_blocks_count, 12);
	*p++ = ' ';
	p = lf_u64(p, ci->ci_inodes_count, 10);
	*p++ = '\n';
	lf_put(line, p);
}

static long get(struct lscp *c, uint64_t cno, int mode, size_t n)
{
	return c->vol->ops->cpinfo(c->vol, cno, mode, c->buf, n < NCPINFO ? n : NCPINFO);
}

static uint64_t limit(const struct lscp *c, uint64_t total)
{
	return c->lines && c->lines < total ? c->lines : total;
}

/* from checkpoint INDEX (default 1) up */
static int forward_checkpoints(struct lscp *c)
{
	uint64_t sidx = c->index ? c->index : 1;

	c->rest = limit(c, c->st.cs_ncps);
	while (c->rest > 0 && sidx < c->st.cs_cno) {
		long n = get(c, sidx, NILFS_CHECKPOINT, c->rest);

		if (n <= 0)
			return (int)n;
		for (long i = 0; i < n && c->rest > 0; i++)
			if (shown(c, &c->buf[i]))
				print_cp(c, &c->buf[i]);
		sidx = c->buf[n - 1].ci_cno + 1;
	}
	return 0;
}

/*
 * Down from checkpoint INDEX (default: the latest).  The ioctl only lists
 * upwards, so this reads windows [sidx, eidx) below what has been printed.
 * A window of NCPINFO numbers is read whole; after an empty one the window
 * doubles and is only probed for its first checkpoint (deleted ranges pass
 * quickly); once a probe finds one, halving narrows down to it.
 */
static int backward_checkpoints(struct lscp *c)
{
	uint64_t eidx, w = NCPINFO;
	bool narrowing = false;

	c->rest = limit(c, c->st.cs_ncps);
	eidx = c->index && c->index < c->st.cs_cno ? c->index + 1 : c->st.cs_cno;
	while (c->rest > 0 && eidx > 1) {
		uint64_t sidx = eidx > w ? eidx - w : 1;
		long n, k;

		if (w <= NCPINFO) {
			n = get(c, sidx, NILFS_CHECKPOINT, eidx - sidx);
			if (n < 0)
				return (int)n;
			for (k = 0; k < n && c->buf[k].ci_cno < eidx; k++)
				;
			for (long i = k - 1; i >= 0 && c->rest > 0; i--)
				if (shown(c, &c->buf[i]))
					print_cp(c, &c->buf[i]);
			eidx = sidx;
			narrowing = false;
			w = k == 0 ? 2 * NCPINFO : NCPINFO;
			continue;
		}
		n = get(c, sidx, NILFS_CHECKPOINT, 1);
		if (n < 0)
			return (int)n;
		if (n == 0 || c->buf[0].ci_cno >= eidx) {
			/* nothing in [sidx, eidx) */
			eidx = sidx;
			if (narrowing)
				w /= 2;     /* what was found is in the lower half */
			else if (w < UINT64_MAX / 4)
				w *= 2;
		} else {
			narrowing = true;
			w /= 2;             /* look at the upper half first */
		}
	}
	return 0;
}

/* the snapshot list, from its head */
typedef bool (*ss_cb)(struct lscp *c, const struct nilfs_cpinfo *ci);

static int walk_snapshots(struct lscp *c, ss_cb cb)
{
	uint64_t cno = 0;

	for (;;) {
		long n = get(c, cno, NILFS_SNAPSHOT, NCPINFO);

		if (n <= 0)
			return (int)n;
		for (long i = 0; i < n; i++)
			if (!cb(c, &c->buf[i]))
				return 0;
		cno = c->buf[n - 1].ci_next;
		if (cno == 0)
			return 0;
	}
}

static bool print_from_index(struct lscp *c, const struct nilfs_cpinfo *ci)
{
	if (ci->ci_cno >= c->index)
		print_cp(c, ci);
	return c->rest > 0;
}

static int forward_snapshots(struct lscp *c)
{
	c->rest = limit(c, c->st.cs_nsss);
	if (!c->rest || c->index >= c->st.cs_cno)
		return 0;
	return walk_snapshots(c, print_from_index);
}

struct ss_stack {
	struct nilfs_cpinfo *v;
	size_t n, cap;
	uint64_t below;
	bool nomem;
};
static struct ss_stack stack;

static bool push_below(struct lscp *c, const struct nilfs_cpinfo *ci)
{
	(void)c;
	if (ci->ci_cno >= stack.below)
		return false;   /* the list ascends: the rest is above too */
	if (CLI_PUSH(stack.v, stack.n, stack.cap, *ci)) {
		stack.nomem = true;
		return false;
	}
	return true;
}

static int backward_snapshots(struct lscp *c)
{
	int rc;

	c->rest = limit(c, c->st.cs_nsss);
	stack.below = c->index && c->index < c->st.cs_cno ? c->index + 1 : c->st.cs_cno;
	if (!c->rest || stack.below <= 1)
		return 0;
	rc = walk_snapshots(c, push_below);
	if (!rc && stack.nomem)
		rc = -ENOMEM;
	for (size_t i = stack.n; !rc && i > 0 && c->rest > 0; i--)
		print_cp(c, &stack.v[i - 1]);
	free(stack.v);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "show-block-count", no_argument, NULL, 'b' },
		{ "show-increment", no_argument, NULL, 'g' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "snapshot", no_argument, NULL, 's' },
		{ "index", required_argument, NULL, 'i' },
		{ "lines", required_argument, NULL, 'n' },
		TABLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* the buffer apart from the initialized state: zero pages, not a
	 * copy of the program file's */
	static struct nilfs_cpinfo buf[NCPINFO];
	static struct lscp c = { .t = { .cols = columns, .ncols = NCOLS, .cell = cp_cell },
				 .buf = buf };
	const char *dev = NULL;
	char msg[512];
	int opt, rc;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "abgrsi:n:hV" TABLE_SHORTOPTS, longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': c.all = true; break;
		case 'b': c.show_inc = false; break;
		case 'g': c.show_inc = true; break;
		case 'r': c.reverse = true; break;
		case 's': c.snapshots = true; break;
		case 'i':
			c.index = cli_strtou64_or_err(optarg, UINT64_MAX, "index");
			break;
		case 'n':
			c.lines = cli_strtou64_or_err(optarg, UINT64_MAX, "number of lines");
			break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default:
			if (!table_option(&c.t, opt, optarg))
				cli_bad_option(argv);
		}
	}
	if (optind < argc - 1)
		cli_usage_error("too many arguments");
	if (optind == argc - 1)
		dev = argv[optind];
	int def[] = { COL_CNO, COL_DATE, COL_TIME, COL_MODE, COL_FLG,
		      c.show_inc ? COL_NBLKINC : COL_BLKCNT, COL_ICNT };

	if (!table_setup(&c.t, def, sizeof(def) / sizeof(def[0])))
		return CLI_EXIT_FAILURE;

	lf_buffer_stdout(1 << 16);
	rc = vol_open(dev, VOL_RDONLY, &c.vol, msg, sizeof(msg));
	if (rc)
		cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device", msg);
	if (table_shows(&c.t, COL_TIMELINE))
		load_timeline(c.vol);
	rc = c.vol->ops->cpstat(c.vol, &c.st);
	if (!rc) {
		print_header(&c);
		if (c.t.on)
			rc = table_begin(&c.t, "checkpoints");
		if (!rc && !c.snapshots)
			rc = c.reverse ? backward_checkpoints(&c) : forward_checkpoints(&c);
		else if (!rc)
			rc = c.reverse ? backward_snapshots(&c) : forward_snapshots(&c);
		if (!rc)
			rc = c.rc;
		if (!rc && c.t.on)
			rc = table_end(&c.t);
	}
	if (rc)
		cli_warnx("%s", vol_strerror(c.vol, rc));
	vol_close(c.vol);
	free(timeline);
	return rc ? CLI_EXIT_FAILURE : 0;
}
