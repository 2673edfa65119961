/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * progress.h - the progress bar of long operations (fsck -C 0, the
 * offline cleaner, offline resize, mkfs -d, dump extract), in e2fsck's
 * look: "LABEL: |=====     / 45.3%".  It is drawn only when its stream is
 * a terminal; on a file or pipe it writes nothing, so logs and scripts see
 * the same output as before.
 */
#ifndef NLFS_COMMON_PROGRESS_H
#define NLFS_COMMON_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	FILE *out;              /* NULL: quiet */
	char label[64];
	int last_tenths;        /* tenths of a percent last drawn, -1 before */
	long long last_tick;    /* eighth of a second of the last draw */
	unsigned spin;
	bool drawn;             /* the bar is on the terminal's current line */
};

/* Draw on OUT when it is a terminal, else stay quiet; LABEL leads the bar. */
void progress_init(struct progress *p, FILE *out, const char *label);
/* As progress_init, but QUIET (a -q option) keeps it silent anyway. */
void progress_init_unless(struct progress *p, FILE *out, const char *label, bool quiet);
bool progress_active(const struct progress *p);
/* DONE of TOTAL units: redrawn when the shown tenth of a percent changes,
 * at most eight times a second; at TOTAL the bar is erased. */
void progress_update(struct progress *p, uint64_t done, uint64_t total);
/* the same with the share given in percent */
void progress_percent(struct progress *p, double percent);
/* progress_update with ARG a struct progress: for the library's callbacks */
void progress_callback(void *arg, uint64_t done, uint64_t total);
/* Erase the bar, before a message is printed on the same terminal; the
 * next update draws it again. */
void progress_clear(struct progress *p);

#endif
