/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - nilfs_cleanerd's messages: syslog, prefixed with the device. */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "cleanerd.h"

/* the prefix of every message, as openlog() keeps its ident */
static const char *log_device = "-";

void cld_log_device(const char *device)
{
	log_device = device ? device : "-";
}

void say(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	syslog(prio, "%s: %s", log_device, msg);
}
