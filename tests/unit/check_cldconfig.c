/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nilfs_cleanerd.conf parser: every key, units, comments, and the messages
 * for invalid lines (file and line number, key left unchanged). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "check_main.h"
#include "../../sbin/cleanerd/cldconfig.h"

struct msgs {
	char text[16][256];
	unsigned line[16];
	int n;
};

static void collect(void *arg, const char *file, unsigned line, const char *msg)
{
	struct msgs *m = arg;

	if (m->n < 16) {
		snprintf(m->text[m->n], sizeof(m->text[0]), "%s:%u: %s", file, line, msg);
		m->line[m->n] = line;
		m->n++;
	}
}

static int parse(struct cld_config *c, const char *text, struct msgs *m)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	ck_assert_ptr_nonnull(f);
	memset(m, 0, sizeof(*m));
	rc = cld_parse_stream(c, f, "test.conf", collect, m);
	fclose(f);
	return rc;
}

START_TEST(test_defaults)
{
	struct cld_config c;

	cld_defaults(&c);
	ck_assert_uint_eq(c.protection_period, 3600 * NS_PER_SEC);
	ck_assert_uint_eq(c.min_clean_segments.num, 10);
	ck_assert_int_eq(c.min_clean_segments.unit, CLD_UNIT_PERCENT);
	ck_assert_uint_eq(c.max_clean_segments.num, 20);
	ck_assert_uint_eq(c.clean_check_interval, 10 * NS_PER_SEC);
	ck_assert_int_eq(c.selection_policy, NLFS_GC_TIMESTAMP);
	ck_assert_uint_eq(c.nsegments_per_clean, 2);
	ck_assert_uint_eq(c.mc_nsegments_per_clean, 4);
	ck_assert_uint_eq(c.cleaning_interval, 5 * NS_PER_SEC);
	ck_assert_uint_eq(c.mc_cleaning_interval, NS_PER_SEC);
	ck_assert_uint_eq(c.retry_interval, 60 * NS_PER_SEC);
	ck_assert(c.use_mmap);
	ck_assert(!c.use_set_suinfo);
	ck_assert_int_eq(c.log_priority, LOG_INFO);
	ck_assert_uint_eq(c.min_reclaimable_blocks.num, 10);
	ck_assert_uint_eq(c.mc_min_reclaimable_blocks.num, 1);
}
END_TEST

/* the file nilfs-utils ships, in its layout (tabs, trailing comments) */
static const char nilfs_utils_conf[] =
	"# nilfs_cleanerd.conf - configuration file of NILFS cleaner daemon.\n"
	"#\n"
	"protection_period\t3600\n"
	"min_clean_segments\t10%\n"
	"max_clean_segments\t20%\n"
	"clean_check_interval\t10\n"
	"selection_policy\ttimestamp\t# timestamp in ascend order\n"
	"nsegments_per_clean\t2\n"
	"mc_nsegments_per_clean\t4\n"
	"cleaning_interval\t5\n"
	"mc_cleaning_interval\t1\n"
	"retry_interval\t\t60\n"
	"min_reclaimable_blocks\t10%\n"
	"mc_min_reclaimable_blocks\t1%\n"
	"use_set_suinfo\n"
	"use_mmap\n"
	"log_priority\t\tinfo\n";

START_TEST(test_nilfs_utils_file)
{
	struct cld_config c;
	struct msgs m;

	cld_defaults(&c);
	ck_assert_int_eq(parse(&c, nilfs_utils_conf, &m), 0);
	ck_assert_int_eq(m.n, 0);
	ck_assert(c.use_set_suinfo);
	ck_assert_int_eq(c.selection_policy, NLFS_GC_TIMESTAMP);
	ck_assert_uint_eq(c.mc_min_reclaimable_blocks.num, 1);
	ck_assert_int_eq(c.mc_min_reclaimable_blocks.unit, CLD_UNIT_PERCENT);
}
END_TEST

START_TEST(test_shipped_file)
{
	/* our own default file parses without a complaint */
	char path[4096];
	const char *src = getenv("top_srcdir");
	struct cld_config c;
	struct msgs m = { 0 };

	snprintf(path, sizeof(path), "%s/sbin/cleanerd/nilfs_cleanerd.conf", src ? src : ".");
	cld_defaults(&c);
	ck_assert_int_eq(cld_parse_file(&c, path, collect, &m), 0);
	ck_assert_int_eq(m.n, 0);
	ck_assert(c.use_set_suinfo);
	ck_assert_uint_eq(c.protection_period, 3600 * NS_PER_SEC);
	ck_assert_int_eq(cld_parse_file(&c, "/nonexistent/x.conf", collect, &m), -ENOENT);
}
END_TEST

START_TEST(test_values)
{
	struct cld_config c;
	struct msgs m;

	cld_defaults(&c);
	ck_assert_int_eq(parse(&c,
			       "protection_period 0.25\n"
			       "  min_clean_segments   12  \n"
			       "max_clean_segments 1G\n"
			       "clean_check_interval 2.5\n"
			       "selection_policy cost-benefit\n"
			       "nsegments_per_clean 32\n"
			       "mc_nsegments_per_clean 1\n"
			       "cleaning_interval 0.1 # fast\n"
			       "mc_cleaning_interval 0\n"
			       "retry_interval 7\n"
			       "min_reclaimable_blocks 100\n"
			       "mc_min_reclaimable_blocks 4KiB\n"
			       "use_set_suinfo no\n"
			       "use_mmap off\n"
			       "log_priority debug\n", &m), 0);
	ck_assert_int_eq(m.n, 0);
	ck_assert_uint_eq(c.protection_period, NS_PER_SEC / 4);
	ck_assert_uint_eq(c.min_clean_segments.num, 12);
	ck_assert_int_eq(c.min_clean_segments.unit, CLD_UNIT_COUNT);
	ck_assert_uint_eq(c.max_clean_segments.num, 1ULL << 30);
	ck_assert_int_eq(c.max_clean_segments.unit, CLD_UNIT_BYTES);
	ck_assert_uint_eq(c.clean_check_interval, 2500000000ULL);
	ck_assert_int_eq(c.selection_policy, NLFS_GC_COST_BENEFIT);
	ck_assert_uint_eq(c.nsegments_per_clean, 32);
	ck_assert_uint_eq(c.mc_nsegments_per_clean, 1);
	ck_assert_uint_eq(c.cleaning_interval, NS_PER_SEC / 10);
	ck_assert_uint_eq(c.mc_cleaning_interval, 0);
	ck_assert_uint_eq(c.retry_interval, 7 * NS_PER_SEC);
	ck_assert_uint_eq(c.min_reclaimable_blocks.num, 100);
	ck_assert_uint_eq(c.mc_min_reclaimable_blocks.num, 4096);
	ck_assert(!c.use_set_suinfo);
	ck_assert(!c.use_mmap);
	ck_assert_int_eq(c.log_priority, LOG_DEBUG);
	/* greedy and the underscore spelling; the last line wins */
	ck_assert_int_eq(parse(&c, "selection_policy greedy\n", &m), 0);
	ck_assert_int_eq(c.selection_policy, NLFS_GC_GREEDY);
	ck_assert_int_eq(parse(&c, "selection_policy cost_benefit\nselection_policy timestamp\n",
			       &m), 0);
	ck_assert_int_eq(c.selection_policy, NLFS_GC_TIMESTAMP);
}
END_TEST

START_TEST(test_invalid_lines)
{
	struct cld_config c, before;
	struct msgs m;

	cld_defaults(&c);
	before = c;
	ck_assert_int_eq(parse(&c,
			       "# comment\n"
			       "\n"
			       "protection_period -5\n"                /* 3 */
			       "min_clean_segments 101%\n"              /* 4 */
			       "max_clean_segments 5X\n"                /* 5 */
			       "selection_policy lru\n"                 /* 6 */
			       "nsegments_per_clean 0\n"                /* 7 */
			       "cleaning_interval\n"                    /* 8 */
			       "retry_interval 1 2\n"                   /* 9 */
			       "log_priority loud\n"                    /* 10 */
			       "no_such_key 1\n"                        /* 11 */
			       "use_set_suinfo maybe\n"                 /* 12 */
			       "clean_check_interval 1.\n"              /* 13 */
			       "min_reclaimable_blocks 99999999999999999999999\n" /* 14 */
			       "mc_cleaning_interval 0x10\n",           /* 15 */
			       &m), 13);
	ck_assert_int_eq(m.n, 13);
	for (int i = 0; i < 13; i++)
		ck_assert_uint_eq(m.line[i], (unsigned)(i + 3));
	ck_assert_str_eq(m.text[0], "test.conf:3: protection_period: -5: not a time in seconds");
	ck_assert_str_eq(m.text[1], "test.conf:4: min_clean_segments: 101%: ratio above 100%");
	ck_assert_ptr_nonnull(strstr(m.text[3], "lru: unknown policy"));
	ck_assert_ptr_nonnull(strstr(m.text[4], "must be at least 1"));
	ck_assert_str_eq(m.text[5], "test.conf:8: cleaning_interval: missing argument");
	ck_assert_str_eq(m.text[6], "test.conf:9: retry_interval: too many arguments");
	ck_assert_str_eq(m.text[8], "test.conf:11: no_such_key: unknown keyword");
	ck_assert_ptr_nonnull(strstr(m.text[11], "number too large"));
	/* nothing changed */
	ck_assert_mem_eq(&c, &before, sizeof(c));
}
END_TEST

START_TEST(test_clamp_warning)
{
	struct cld_config c;
	struct msgs m;

	cld_defaults(&c);
	/* a warning, but the line counts (as nilfs-utils: use the maximum) */
	ck_assert_int_eq(parse(&c, "nsegments_per_clean 100\n", &m), 0);
	ck_assert_int_eq(m.n, 1);
	ck_assert_ptr_nonnull(strstr(m.text[0], "test.conf:1: nsegments_per_clean: 100: too large"));
	ck_assert_uint_eq(c.nsegments_per_clean, CLD_NSEGMENTS_PER_CLEAN_MAX);
}
END_TEST

START_TEST(test_parsers)
{
	struct cld_size s;
	uint64_t v;
	int prio;

	ck_assert_int_eq(cld_parse_size("0", &s), 0);
	ck_assert_int_eq(cld_parse_size("100%", &s), 0);
	ck_assert_int_eq(s.unit, CLD_UNIT_PERCENT);
	ck_assert_int_eq(cld_parse_size("2kB", &s), 0);
	ck_assert_uint_eq(s.num, 2000);
	ck_assert_int_eq(cld_parse_size("2K", &s), 0);
	ck_assert_uint_eq(s.num, 2048);
	ck_assert_int_eq(cld_parse_size("2KB", &s), 0);
	ck_assert_uint_eq(s.num, 2000);
	ck_assert_int_eq(cld_parse_size("3MiB", &s), 0);
	ck_assert_uint_eq(s.num, 3ULL << 20);
	ck_assert_int_eq(cld_parse_size("1EB", &s), 0);
	ck_assert_uint_eq(s.num, 1000000000000000000ULL);
	ck_assert_int_eq(cld_parse_size("16E", &s), -ERANGE);
	ck_assert_int_eq(cld_parse_size("1kb", &s), -EINVAL);
	ck_assert_int_eq(cld_parse_size("1k", &s), -EINVAL);
	ck_assert_int_eq(cld_parse_size("", &s), -EINVAL);
	ck_assert_int_eq(cld_parse_size("%", &s), -EINVAL);
	ck_assert_int_eq(cld_parse_size("1 %", &s), -EINVAL);

	ck_assert_int_eq(cld_parse_time("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(cld_parse_time("1.000000001999", &v), 0);
	ck_assert_uint_eq(v, 1000000001);
	ck_assert_int_eq(cld_parse_time("18446744074", &v), -ERANGE);
	ck_assert_int_eq(cld_parse_time(".5", &v), -EINVAL);
	ck_assert_int_eq(cld_parse_time("5s", &v), -EINVAL);

	ck_assert_int_eq(cld_parse_priority("warning", &prio), 0);
	ck_assert_int_eq(prio, LOG_WARNING);
	ck_assert_int_eq(cld_parse_priority("warn", &prio), -EINVAL);
	ck_assert_str_eq(cld_priority_name(LOG_ERR), "err");
}
END_TEST

START_TEST(test_resolve)
{
	struct cld_config c;
	struct cld_limits l;
	struct cld_size s;
	bool clamped;

	cld_defaults(&c);
	/* 10% of 95 segments rounds up to 10, 20% to 19 */
	cld_resolve(&c, 95, 2048, 4096, &l);
	ck_assert_uint_eq(l.min_clean_segments, 10);
	ck_assert_uint_eq(l.max_clean_segments, 19);
	/* 10% of 2048 blocks = 204.8 -> 205; 1% -> 21 */
	ck_assert_uint_eq(l.min_reclaimable_blocks, 205);
	ck_assert_uint_eq(l.mc_min_reclaimable_blocks, 21);
	ck_assert(!l.min_reclaimable_clamped);
	/* sizes: 1 GiB of 8 MiB segments is 128; 9 MiB rounds up to 2 */
	s = (struct cld_size){ 1ULL << 30, CLD_UNIT_BYTES };
	ck_assert_uint_eq(cld_size_to_segments(&s, 1000, 8 << 20), 128);
	s = (struct cld_size){ 9ULL << 20, CLD_UNIT_BYTES };
	ck_assert_uint_eq(cld_size_to_segments(&s, 1000, 8 << 20), 2);
	s = (struct cld_size){ 7, CLD_UNIT_COUNT };
	ck_assert_uint_eq(cld_size_to_segments(&s, 1000, 8 << 20), 7);
	/* blocks: 6000 bytes of 4 KiB blocks -> 2; more than a segment clamps */
	s = (struct cld_size){ 6000, CLD_UNIT_BYTES };
	ck_assert_uint_eq(cld_size_to_blocks(&s, 2048, 4096, &clamped), 2);
	ck_assert(!clamped);
	s = (struct cld_size){ 5000, CLD_UNIT_COUNT };
	ck_assert_uint_eq(cld_size_to_blocks(&s, 2048, 4096, &clamped), 2048);
	ck_assert(clamped);
	s = (struct cld_size){ 100, CLD_UNIT_PERCENT };
	ck_assert_uint_eq(cld_size_to_blocks(&s, 2048, 4096, &clamped), 2048);
	ck_assert(!clamped);
}
END_TEST

/* the snapshot timeline's keys: off by default, counts, an absolute path */
START_TEST(test_timeline_keys)
{
	struct cld_config c;
	struct msgs m;

	cld_defaults(&c);
	ck_assert_uint_eq(c.timeline_hourly + c.timeline_daily + c.timeline_weekly +
			  c.timeline_monthly + c.timeline_yearly, 0);
	ck_assert_str_eq(c.timeline_state_dir, "");
	ck_assert_uint_eq(c.timeline_max_space.num, 0);
	ck_assert_int_eq(parse(&c, "timeline_hourly 24\ntimeline_daily\t7\ntimeline_weekly 4\n"
			       "timeline_monthly 12 # a year\ntimeline_yearly 0\n"
			       "timeline_state_dir /srv/tl\ntimeline_max_space 30%\n", &m), 0);
	ck_assert_int_eq(m.n, 0);
	ck_assert_uint_eq(c.timeline_hourly, 24);
	ck_assert_uint_eq(c.timeline_daily, 7);
	ck_assert_uint_eq(c.timeline_weekly, 4);
	ck_assert_uint_eq(c.timeline_monthly, 12);
	ck_assert_uint_eq(c.timeline_yearly, 0);
	ck_assert_str_eq(c.timeline_state_dir, "/srv/tl");
	ck_assert_uint_eq(c.timeline_max_space.num, 30);
	ck_assert_int_eq(c.timeline_max_space.unit, CLD_UNIT_PERCENT);
	ck_assert_int_eq(parse(&c, "timeline_hourly -1\ntimeline_daily 2000000\n"
			       "timeline_state_dir relative\ntimeline_weekly\n", &m), 4);
	ck_assert_str_eq(m.text[0], "test.conf:1: timeline_hourly: -1: invalid value");
	ck_assert_str_eq(m.text[1], "test.conf:2: timeline_daily: 2000000: number too large");
	ck_assert_uint_eq(m.line[2], 3);
	ck_assert_str_eq(m.text[3], "test.conf:4: timeline_weekly: missing argument");
	/* left as they were */
	ck_assert_uint_eq(c.timeline_hourly, 24);
	ck_assert_uint_eq(c.timeline_daily, 7);
	ck_assert_str_eq(c.timeline_state_dir, "/srv/tl");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cldconfig");
	TCase *tc = tcase_create("parser");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_nilfs_utils_file);
	tcase_add_test(tc, test_shipped_file);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_invalid_lines);
	tcase_add_test(tc, test_clamp_warning);
	tcase_add_test(tc, test_parsers);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_timeline_keys);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
