/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Feature names for -O and the listing.  The names and the FEATURE_<C|R|I><bit>
 * spelling of a bit without one are nilfs-utils'.  Of the features the
 * format knows, only compat_ro block_count may be set or cleared (the
 * checkpoints' block counts are kept by the kernel and by this suite's
 * writer whether the bit is set or not; tune.c recounts them before
 * setting it).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tune.h"
#include "strutils.h"

static const struct {
	int type;
	uint64_t mask;
	const char *name;
} known[] = {
	{ TUNE_COMPAT_RO, NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT, "block_count" },
};

/* what -O may set and clear, per feature word */
static const uint64_t changeable[3] = { 0, NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT, 0 };

const char *tune_feature_name(int type, uint64_t mask, char *buf, size_t len)
{
	static const char tchar[3] = { 'C', 'R', 'I' };
	int bit = 0;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].type == type && known[i].mask == mask)
			return known[i].name;
	while (mask >>= 1)
		bit++;
	snprintf(buf, len, "FEATURE_%c%d", type >= 0 && type < 3 ? tchar[type] : '?', bit);
	return buf;
}

static int feature_of_name(const char *s, int *type, uint64_t *mask)
{
	const char *tchars = "CRI", *t;
	uint64_t bit;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcasecmp(s, known[i].name)) {
			*type = known[i].type;
			*mask = known[i].mask;
			return 0;
		}
	if (strncasecmp(s, "FEATURE_", 8) || !s[8] || !(t = strchr(tchars, toupper((unsigned char)s[8]))))
		return -1;
	if (!isdigit((unsigned char)s[9]))
		return -1;
	if (cli_strtou64_max(s + 9, 63, &bit))
		return -1;
	*type = (int)(t - tchars);
	*mask = 1ull << bit;
	return 0;
}

int tune_edit_features(const char *list, uint64_t f[3], char *why, size_t len)
{
	uint64_t out[3] = { f[0], f[1], f[2] };
	char *copy = strdup(list), *save = NULL, nb[32];

	if (!copy) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		bool clear = *t == '^';
		uint64_t mask;
		int type;

		if (!strcasecmp(t, "none")) {
			/* what this tool may not change stays (an unknown bit may
			 * be what keeps an older kernel from writing the volume) */
			for (int i = 0; i < 3; i++)
				out[i] &= ~changeable[i];
			continue;
		}
		if (clear)
			t++;
		if (feature_of_name(t, &type, &mask)) {
			snprintf(why, len, "unknown feature: %s", t);
			free(copy);
			return -1;
		}
		if (!(changeable[type] & mask)) {
			snprintf(why, len, "feature %s is not allowed to be %s",
				 tune_feature_name(type, mask, nb, sizeof(nb)), clear ? "cleared" : "set");
			free(copy);
			return -1;
		}
		if (clear)
			out[type] &= ~mask;
		else
			out[type] |= mask;
	}
	free(copy);
	memcpy(f, out, sizeof(out));
	return 0;
}
