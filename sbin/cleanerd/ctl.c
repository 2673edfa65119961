/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.c - control socket paths and the text message format. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "strutils.h"

const char *cld_rundir(void)
{
	const char *d = getenv("NILFS_CLEANERD_RUNDIR");

	return d && *d ? d : CLD_RUNDIR_DEFAULT;
}

int cld_ctl_path(dev_t dev, const char *suffix, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%u:%u.%s", cld_rundir(), major(dev), minor(dev), suffix);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool plain(char c)
{
	return c > ' ' && c < 0x7f && c != '%' && c != '=';
}

int cld_msg_add(char *buf, size_t len, const char *key, const char *value)
{
	size_t n = strlen(buf);
	int w = snprintf(buf + n, len - n, " %s=", key);

	if (w < 0 || (size_t)w >= len - n)
		return -ENOSPC;
	n += (size_t)w;
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (n + 4 > len)
			return -ENOSPC;
		if (plain((char)*p))
			buf[n++] = (char)*p;
		else
			n += (size_t)snprintf(buf + n, 4, "%%%02X", *p);
	}
	buf[n] = '\0';
	return 0;
}

int cld_msg_addf(char *buf, size_t len, const char *key, const char *fmt, ...)
{
	char v[CLD_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return cld_msg_add(buf, len, key, v);
}

bool cld_msg_is(const char *msg, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(msg, word, n) && (msg[n] == ' ' || msg[n] == '\0' || msg[n] == '\n');
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool cld_msg_get(const char *msg, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = strchr(msg, ' ');

	while (p) {
		p++;
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = 0;

			for (p += klen + 1; *p && *p != ' ' && *p != '\n'; p++) {
				char c = *p;

				if (c == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
					c = (char)(hexval(p[1]) << 4 | hexval(p[2]));
					p += 2;
				}
				if (n + 1 < len)
					val[n++] = c;
			}
			if (len)
				val[n] = '\0';
			return true;
		}
		p = strchr(p, ' ');
	}
	return false;
}

int cld_msg_get_u64(const char *msg, const char *key, uint64_t *v)
{
	char buf[32];

	if (!cld_msg_get(msg, key, buf, sizeof(buf)))
		return -ENOENT;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	return cli_strtou64(buf, v) ? -EINVAL : 0;
}

int cld_ctl_connect(dev_t dev, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, rc;

	rc = cld_ctl_path(dev, "sock", sa.sun_path, sizeof(sa.sun_path));
	if (rc)
		return rc;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		rc = -errno;
		close(s);
		return rc;
	}
	*fd = s;
	return 0;
}

int cld_ctl_call(int fd, const char *req, char *reply, size_t len, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int rc;

	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
		return -errno;
	do
		rc = poll(&pfd, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	n = recv(fd, reply, len - 1, 0);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	reply[n] = '\0';
	return 0;
}
