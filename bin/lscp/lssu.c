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
#include "json.h"
#include "vol.h"

#define NSEGS 512       /* entries per request */

struct lssu {
	bool all, latest, json, have_period;
	uint64_t index, lines, period;
	struct vol *vol;
	struct json_list j;
	struct assess a;
	uint64_t now;
	int64_t prottime;
	uint32_t bps;
	struct nilfs_suinfo buf[NSEGS];
};

enum { OPT_JSON = CHAR_MAX + 1 };

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
	       "                          <period> need (seconds, or with s, m, h, d, w, M, Y)\n"
	       "     --json               print JSON\n", cli_progname);
	cli_usage_tail(stdout, 26);
}

static void print_header(const struct lssu *u)
{
	if (u->json)
		return;
	puts(u->latest ?
	     "           SEGNUM        DATE     TIME STAT     NBLOCKS       NLIVEBLOCKS" :
	     "              SEGNUM        DATE     TIME STAT     NBLOCKS");
}

static void print_su(struct lssu *u, uint64_t segnum, const struct nilfs_suinfo *si,
		     bool prot, uint64_t live, unsigned ratio)
{
	char when[64];
	char a = nilfs_suinfo_active(si) ? 'a' : '-';
	char d = nilfs_suinfo_dirty(si) ? 'd' : '-';
	char e = nilfs_suinfo_error(si) ? 'e' : '-';

	if (si->sui_lastmod)
		cli_format_time(si->sui_lastmod, when, sizeof(when));
	else
		snprintf(when, sizeof(when), "---------- --:--:--");
	if (!u->json) {
		if (!u->latest)
			printf("%20llu  %s  %c%c%c  %10u\n", (unsigned long long)segnum, when, a, d, e,
			       si->sui_nblocks);
		else
			printf("%17llu  %s %c%c%c%c  %10u %10u (%3u%%)\n", (unsigned long long)segnum,
			       when, a, d, e, prot ? 'p' : '-', si->sui_nblocks, (unsigned)live, ratio);
		return;
	}
	json_record_begin(&u->j);
	json_field_u64(&u->j, "segnum", segnum);
	if (si->sui_lastmod && strlen(when) == 19) {
		when[10] = 0;
		json_field_str(&u->j, "date", when);
		json_field_str(&u->j, "time", when + 11);
	}
	json_field_u64(&u->j, "lastmod", si->sui_lastmod);
	json_field_bool(&u->j, "active", nilfs_suinfo_active(si));
	json_field_bool(&u->j, "dirty", nilfs_suinfo_dirty(si));
	json_field_bool(&u->j, "error", nilfs_suinfo_error(si));
	json_field_u64(&u->j, "nblocks", si->sui_nblocks);
	if (u->latest) {
		json_field_bool(&u->j, "protected", prot);
		json_field_u64(&u->j, "nliveblocks", live);
		json_field_u64(&u->j, "liveratio", ratio);
	}
	json_record_end(&u->j);
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

		if (!u->all && nilfs_suinfo_clean(si))
			continue;
		if (u->latest) {
			int64_t t = (int64_t)si->sui_lastmod;

			prot = t >= u->prottime && t <= (int64_t)u->now;
			if (nilfs_suinfo_dirty(si) && !nilfs_suinfo_error(si)) {
				bool cleaner_keeps;
				int rc = assess_segment(&u->a, segnum, &live, &cleaner_keeps);

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
		print_su(u, segnum, si, prot, live, ratio);
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
	if (u->json)
		json_list_begin(&u->j, stdout, "segments");
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
			rc = (int)n;
			break;
		}
		rest -= (uint64_t)n;
		segnum += (uint64_t)nsi;
	}
	if (u->json)
		json_list_end(&u->j);
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
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct lssu u;
	const char *dev = NULL;
	char msg[512];
	int opt, rc;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "ai:ln:hp:V", longopts, NULL)) != -1) {
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
		case OPT_JSON: u.json = true; break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (optind < argc - 1)
		cli_usage_error("too many arguments");
	if (optind == argc - 1)
		dev = argv[optind];

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
	rc = list(&u);
	assess_free(&u.a);
	vol_close(u.vol);
	return rc ? CLI_EXIT_FAILURE : 0;
}
