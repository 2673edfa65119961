/* SPDX-License-Identifier: GPL-2.0-or-later */
/* args.c - options before, between or after the positional arguments. */
#include <stdbool.h>
#include <string.h>

#include "args.h"
#include "cli.h"

int args_walk(int argc, char **argv, const char *optstring, args_option_fn fn, void *ctx,
	      char **pos, size_t maxpos, size_t *npos, const char **badopt)
{
	bool options_end = false;

	*npos = 0;
	for (int i = 1; i < argc; i++) {
		char *w = argv[i];
		int rc = 0;

		if (!options_end && !strcmp(w, "--")) {
			options_end = true;
			continue;
		}
		if (options_end || w[0] != '-' || w[1] == '\0') {
			if (*npos == maxpos) {
				*badopt = w;
				return ARGS_ERR_TOO_MANY;
			}
			pos[(*npos)++] = w;
			continue;
		}
		if (w[1] == '-') {
			if (!strcmp(w, "--help"))
				rc = fn(ctx, 'h', NULL);
			else if (!strcmp(w, "--version"))
				rc = fn(ctx, 'V', NULL);
			else {
				*badopt = w;
				return ARGS_ERR_UNKNOWN;
			}
			if (rc)
				return rc;
			continue;
		}
		for (char *p = w + 1; *p; p++) {
			const char *spec = *p == ':' ? NULL : strchr(optstring, *p);

			if (!spec) {
				*badopt = w;
				return ARGS_ERR_UNKNOWN;
			}
			if (spec[1] == ':') {
				const char *arg = p[1] ? p + 1 : i + 1 < argc ? argv[++i] : NULL;

				if (!arg) {
					*badopt = w;
					return ARGS_ERR_MISSING;
				}
				rc = fn(ctx, *p, arg);
				if (rc)
					return rc;
				break;
			}
			rc = fn(ctx, *p, NULL);
			if (rc)
				return rc;
		}
	}
	return 0;
}

void args_usage_tail(FILE *f)
{
	fputs(" -v                say what is done\n", f);
	cli_usage_tail(f, 19);
}
