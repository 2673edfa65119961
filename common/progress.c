/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c - the progress bar of long operations (see progress.h). */
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define BAR_MIN 10
#define BAR_MAX 100

void progress_init(struct progress *p, FILE *out, const char *label)
{
	memset(p, 0, sizeof(*p));
	p->last_tenths = -1;
	p->last_tick = -1;
	if (out && isatty(fileno(out)))
		p->out = out;
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "");
}

void progress_init_unless(struct progress *p, FILE *out, const char *label, bool quiet)
{
	progress_init(p, quiet ? NULL : out, label);
}

bool progress_active(const struct progress *p)
{
	return p->out != NULL;
}

static int columns(FILE *out)
{
	struct winsize ws;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static long long now_tick(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 8 + ts.tv_nsec / 125000000;
}

void progress_clear(struct progress *p)
{
	if (!p->out || !p->drawn)
		return;
	fprintf(p->out, "\r%*s\r", columns(p->out) - 1, "");
	fflush(p->out);
	p->drawn = false;
	/* the next update draws again, whatever its share */
	p->last_tenths = -1;
}

static void draw(struct progress *p, int tenths)
{
	static const char spinner[] = "|/-\\";
	/* room for the label, ": |", the spinner, "| 100.0%" and a margin */
	int width = columns(p->out) - (int)strlen(p->label) - 16;
	int filled;

	if (width < BAR_MIN)
		width = BAR_MIN;
	if (width > BAR_MAX)
		width = BAR_MAX;
	filled = tenths * width / 1000;
	fprintf(p->out, "\r%s: |", p->label);
	for (int i = 0; i < width; i++)
		fputc(i < filled ? '=' : i == filled ? spinner[p->spin++ % 4] : ' ', p->out);
	fprintf(p->out, "| %3d.%d%%", tenths / 10, tenths % 10);
	fflush(p->out);
	p->drawn = true;
}

void progress_percent(struct progress *p, double percent)
{
	int tenths;
	long long tick;

	if (!p->out)
		return;
	if (percent < 0)
		percent = 0;
	tenths = percent >= 100 ? 1000 : (int)(percent * 10);
	if (tenths == p->last_tenths)
		return;
	tick = now_tick();
	/* a terminal needs no more than eight frames a second; the first and
	 * the last are always drawn */
	if (p->last_tenths >= 0 && tenths < 1000 && tick == p->last_tick)
		return;
	p->last_tenths = tenths;
	p->last_tick = tick;
	draw(p, tenths);
	if (tenths == 1000) {
		progress_clear(p);
		p->last_tenths = 1000;
	}
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	if (!p->out)
		return;
	if (!total || done >= total)
		progress_percent(p, 100);
	else
		progress_percent(p, (double)done * 100 / (double)total);
}

void progress_callback(void *arg, uint64_t done, uint64_t total)
{
	progress_update(arg, done, total);
}
