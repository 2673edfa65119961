/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lssu.c - list the segment usage of a NILFS2 volume.
 *
 * The columns, their format and the options are those of nilfs-utils 2.2.9
 * lssu, -l (live blocks, judged as the cleaner would) and -p included.  The
 * ACTIVE flag is the kernel's: the segment being written and the next one,
 * computed offline from the latest log (the on-disk bit means nothing).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "assess.h"
#include "cli.h"
#include "linefmt.h"
#include "table.h"
#include "vol.h"

#define NSEGS 4096      /* entries per request */

/* the columns of -o, by id */
enum { COL_SEGNUM, COL_DATE, COL_TIME, COL_LASTMOD, COL_STAT, COL_NBLOCKS, COL_NLIVEBLOCKS,
       COL_LIVE, NCOLS };

static const struct table_column columns[NCOLS] = {
	[COL_SEGNUM] = { "SEGNUM", "segment number", true },
	[COL_DATE] = { "DATE", "date last written, local time", false },
	[COL_TIME] = { "TIME", "time last written, local time", false },
	[COL_LASTMOD] = { "LASTMOD", "time last written, seconds since the epoch", true },
	[COL_STAT] = { "STAT", "flags: active, dirty, error (with -l: protected)", false },
	[COL_NBLOCKS] = { "NBLOCKS", "blocks written", true },
	[COL_NLIVEBLOCKS] = { "NLIVEBLOCKS", "blocks still in use (implies -l)", true },
	[COL_LIVE] = { "LIVE%", "NLIVEBLOCKS per segment size, percent (implies -l)", true },
};

/* one row of the table */
struct su_row {
	uint64_t segnum;
	const struct nilfs_suinfo *si;
	bool latest, prot;
	uint64_t live;
	unsigned ratio;
};

struct lssu {
	bool all, latest, have_period;
	uint64_t index, lines, period;
	struct vol *vol;
	struct table t;
	struct assess a;
	uint64_t now;
	int64_t prottime;
	uint32_t bps;
	struct lf_time_cache tc;
	struct nilfs_suinfo *buf;       /* NSEGS entries */
};


static void usage(void)
{
	printf(CLI_USAGE_HEADER
	       " %s [options] [device|mountpoint|image]\n"
	       "\nList the segment usage of a NILFS2 volume.\n"
	       CLI_USAGE_OPTIONS
	       " -a, --all                show clean segments too\n"
	       " -i, --index <segnum>     start at segment <segnum>\n"
	       " -l, --latest-usage       count the blocks still in use (live)\n"
	       " -n, --lines <n>          list at most <n> segments\n"
	       " -p, --protection-period <period>\n"
	       "                          with -l, keep what checkpoints of the last\n"
	       "                          <period> need (seconds, or with s, m, h, d, w, M, Y)\n", cli_progname);
	table_usage_options(stdout);
	cli_usage_help(stdout, 26);
	table_usage(stdout, columns, NCOLS);
	cli_usage_man(stdout, 1);
}

static void print_header(const struct lssu *u)
{
	if (u->t.on || u->t.noheadings)
		return;
	puts(u->latest ?
	     "           SEGNUM        DATE     TIME STAT     NBLOCKS       NLIVEBLOCKS" :
	     "              SEGNUM        DATE     TIME STAT     NBLOCKS");
}

/* one cell of the table (table_cell_fn); a segment never written has no
 * date or time (JSON null) */
static const char *su_cell(const void *p, int col, char *buf, size_t len)
{
	const struct su_row *r = p;
	unsigned long long v;

	switch (col) {
	case COL_DATE:
	case COL_TIME:
		return table_date_cell(r->si->sui_lastmod, col == COL_DATE, true, buf, len);
	case COL_STAT:
		snprintf(buf, len, "%c%c%c%s", nilfs_suinfo_active(r->si) ? 'a' : '-',
			 nilfs_suinfo_dirty(r->si) ? 'd' : '-', nilfs_suinfo_error(r->si) ? 'e' : '-',
			 !r->latest ? "" : r->prot ? "p" : "-");
		return buf;
	case COL_SEGNUM: v = r->segnum; break;
	case COL_LASTMOD: v = r->si->sui_lastmod; break;
	case COL_NBLOCKS: v = r->si->sui_nblocks; break;
	case COL_NLIVEBLOCKS: v = r->live; break;
	default: v = r->ratio; break;
	}
	snprintf(buf, len, "%llu", v);
	return buf;
}

/* 0, or -ENOMEM from the table */
static int print_su(struct lssu *u, uint64_t segnum, const struct nilfs_suinfo *si,
		    bool prot, uint64_t live, unsigned ratio)
{
	char line[160], *p = line;

	if (u->t.on) {
		struct su_row r = { segnum, si, u->latest, prot, live, ratio };

		return table_add(&u->t, &r);
	}
	/* nilfs-tools' lines: "%20llu  %s  %c%c%c  %10u\n", and with -l
	 * "%17llu  %s %c%c%c%c  %10u %10u (%3u%%)\n" */
	p = lf_u64(p, segnum, u->latest ? 17 : 20);
	p = lf_str(p, "  ");
	if (si->sui_lastmod)
		p = lf_time(&u->tc, si->sui_lastmod, p);
	else
		p = lf_str(p, "---------- --:--:--");
	p = lf_str(p, u->latest ? " " : "  ");
	*p++ = nilfs_suinfo_active(si) ? 'a' : '-';
	*p++ = nilfs_suinfo_dirty(si) ? 'd' : '-';
	*p++ = nilfs_suinfo_error(si) ? 'e' : '-';
	if (u->latest)
		*p++ = prot ? 'p' : '-';
	p = lf_str(p, "  ");
	p = lf_u64(p, si->sui_nblocks, 10);
	if (u->latest) {
		*p++ = ' ';
		p = lf_u64(p, (uint32_t)live, 10);
		p = lf_str(p, " (");
		p = lf_u64(p, ratio, 3);
		p = lf_str(p, "%)");
	}
	*p++ = '\n';
	lf_put(line, p);
	return 0;
}

/* one batch; returns how many were printed, or a negative error */
static long print_batch(struct lssu *u, uint64_t segnum, long nsi)
{
	long printed = 0;

	for (long i = 0; i < nsi; i++, segnum++) {
		const struct nilfs_suinfo *si = &u->buf[i];
		uint64_t live = 0;
		unsigned ratio = 0;
		bool prot = false;
		int rc;

		if (!u->all && nilfs_suinfo_clean(si))
			continue;
		if (u->latest) {
			int64_t t = (int64_t)si->sui_lastmod;

			prot = t >= u->prottime && t <= (int64_t)u->now;
			if (nilfs_suinfo_dirty(si) && !nilfs_suinfo_error(si)) {
				bool cleaner_keeps;

				rc = assess_segment(&u->a, segnum, &live, &cleaner_keeps);

				if (rc) {
					cli_warnx("failed to get usage: %s", vol_strerror(u->vol, rc));
					return rc;
				}
				if (cleaner_keeps) {
					live = si->sui_nblocks;
					ratio = 100;
					prot = true;
				} else {
					ratio = (unsigned)((live * 100 + 99) / u->bps);
				}
			}
		}
		rc = print_su(u, segnum, si, prot, live, ratio);
		if (rc)
			return rc;
		printed++;
	}
	return printed;
}

static int list(struct lssu *u)
{
	struct nilfs_sustat st;
	uint64_t segnum = u->index, rest;
	int rc;

	print_header(u);
	rc = u->vol->ops->sustat(u->vol, &st);
	if (rc) {
		cli_warnx("cannot get segment usage status: %s", vol_strerror(u->vol, rc));
		return rc;
	}
	u->a.protseq = st.ss_prot_seq;
	rest = u->lines && u->lines < st.ss_nsegs ? u->lines : st.ss_nsegs;
	while (rest > 0 && segnum < st.ss_nsegs) {
		long nsi = u->vol->ops->suinfo(u->vol, segnum, u->buf, rest < NSEGS ? rest : NSEGS);
		long n;

		if (nsi <= 0) {
			if (nsi < 0)
				cli_warnx("%s", vol_strerror(u->vol, (int)nsi));
			rc = (int)nsi;
			break;
		}
		n = print_batch(u, segnum, nsi);
		if (n < 0) {
			if (n == -ENOMEM)
				cli_warnx("%s", strerror(ENOMEM));
			rc = (int)n;
			break;
		}
		rest -= (uint64_t)n;
		segnum += (uint64_t)nsi;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "index", required_argument, NULL, 'i' },
		{ "latest-usage", no_argument, NULL, 'l' },
		{ "lines", required_argument, NULL, 'n' },
		{ "protection-period", required_argument, NULL, 'p' },
		TABLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* the buffer apart from the initialized state: zero pages, not a
	 * copy of the program file's */
	static struct nilfs_suinfo buf[NSEGS];
	static struct lssu u = { .t = { .cols = columns, .ncols = NCOLS, .cell = su_cell },
				 .buf = buf };
	const char *dev = NULL;
	char msg[512];
	int opt, rc;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "ai:ln:hp:V" TABLE_SHORTOPTS, longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': u.all = true; break;
		case 'l': u.latest = true; break;
		case 'i':
		case 'n':
			*(opt == 'i' ? &u.index : &u.lines) = cli_strtou64_or_err(
				optarg, UINT64_MAX, opt == 'i' ? "index" : "number of lines");
			break;
		case 'p':
			rc = cli_strtoperiod(optarg, &u.period);
			if (rc == -ERANGE)
				cli_errx("too large period: %s", optarg);
			if (rc)
				cli_errx("invalid protection period: %s", optarg);
			u.have_period = true;
			break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default:
			if (!table_option(&u.t, opt, optarg))
				cli_bad_option(argv);
		}
	}
	if (optind < argc - 1)
		cli_usage_error("too many arguments");
	if (optind == argc - 1)
		dev = argv[optind];
	static const int def[] = { COL_SEGNUM, COL_DATE, COL_TIME, COL_STAT, COL_NBLOCKS,
				   COL_NLIVEBLOCKS, COL_LIVE };

	if (!table_setup(&u.t, def, u.latest ? 7 : 5))
		return CLI_EXIT_FAILURE;
	/* the live counts are -l's work */
	u.latest |= u.t.on && (table_shows(&u.t, COL_NLIVEBLOCKS) || table_shows(&u.t, COL_LIVE));

	lf_buffer_stdout(1 << 16);
	rc = vol_open(dev, VOL_RDONLY, &u.vol, msg, sizeof(msg));
	if (rc)
		cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device", msg);
	if (u.latest) {
		struct nlfs_fs *fs;

		/* -l reads the segments themselves: the device must open */
		rc = u.vol->ops->segments(u.vol, &fs);
		if (rc)
			cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device",
				 vol_strerror(u.vol, rc));
		u.bps = nlfs_fs_geometry(fs)->blocks_per_segment;
		u.now = (uint64_t)time(NULL);
		u.a.vol = u.vol;
		u.a.protcno = NLFS_CNO_MAX;
		u.prottime = (int64_t)u.now;
		if (u.have_period) {
			u.prottime = (int64_t)u.now - (int64_t)u.period;
			rc = assess_protcno(u.vol, u.now, u.period, &u.a.protcno);
			if (rc) {
				cli_warnx("failed to get checkpoint number from protection period (%llu): %s",
					  (unsigned long long)u.period, vol_strerror(u.vol, rc));
				vol_close(u.vol);
				return CLI_EXIT_FAILURE;
			}
		}
	}
	if (u.t.on) {
		rc = table_begin(&u.t, "segments");
		if (rc)
			cli_errx("%s", strerror(-rc));
	}
	rc = list(&u);
	if (!rc && u.t.on)
		rc = table_end(&u.t);
	assess_free(&u.a);
	vol_close(u.vol);
	return rc ? CLI_EXIT_FAILURE : 0;
}
