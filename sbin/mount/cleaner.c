/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cleaner.c - the helpers' side of nilfs_cleanerd: start, find, stop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleaner.h"
#include "cli.h"
#include "strutils.h"

void cleaner_path(char *buf, size_t bufsz)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, bufsz, "%s/%s", self, CLEANERD_NAME);
			if (access(buf, X_OK) == 0)
				return;
		}
	}
	snprintf(buf, bufsz, "%s/%s", ROOT_SBINDIR, CLEANERD_NAME);
}

/* the pid from the daemon's "NILFS_CLEANERD_PID=" line; 0 if none came */
static pid_t read_pid_line(int fd)
{
	FILE *f = fdopen(fd, "r");
	char line[128];
	pid_t pid = 0;

	if (!f) {
		close(fd);
		return 0;
	}
	/* ends when the line comes or when every copy of the pipe is closed */
	while (!pid && fgets(line, sizeof(line), f)) {
		size_t plen = strlen(CLEANERD_PID_LINE);
		uint64_t v;

		if (strncmp(line, CLEANERD_PID_LINE, plen))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!cli_strtou64_max(line + plen, INT32_MAX, &v) && v > 0)
			pid = (pid_t)v;
	}
	fclose(f);
	return pid;
}

int cleaner_start(const char *device, const char *dir, const struct nilfs_attrs *a,
		  pid_t *pid)
{
	char path[PATH_MAX], ppbuf[32];
	const char *argv[6];
	int fds[2], status, n = 0;
	pid_t child;

	*pid = 0;
	cleaner_path(path, sizeof(path));
	argv[n++] = path;
	if (a->have_pp) {
		snprintf(ppbuf, sizeof(ppbuf), "%" PRIu64, a->pp);
		argv[n++] = "-p";
		argv[n++] = ppbuf;
	}
	argv[n++] = device;
	argv[n++] = dir;
	argv[n] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	child = fork();
	if (child < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (child == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		execv(path, (char *const *)argv);
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	*pid = read_pid_line(fds[0]);
	/* the daemon's first process exits when its detached copy runs */
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return *pid ? 0 : -errno;
	if (*pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* the state letter and command name of PID from /proc; false if gone */
static bool proc_stat(pid_t pid, char *comm, size_t commsz, char *state)
{
	char path[64], buf[512];
	char *open_paren, *close_paren;
	size_t len;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold spaces and parentheses */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return false;
	len = (size_t)(close_paren - open_paren - 1);
	snprintf(comm, commsz, "%.*s", (int)len, open_paren + 1);
	*state = close_paren[2];
	return true;
}

/* 1: a live nilfs_cleanerd; 0: gone (or a zombie nobody reaped yet);
 * -1: another program has the pid now */
static int identify(pid_t pid)
{
	char comm[64], state;

	if (pid <= 0 || !proc_stat(pid, comm, sizeof(comm), &state))
		return 0;
	if (state == 'Z' || state == 'X')
		return 0;
	return strcmp(comm, CLEANERD_NAME) ? -1 : 1;
}

bool cleaner_running(pid_t pid)
{
	return identify(pid) == 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cleaner_stop(const char *device, pid_t pid, bool verbose)
{
	uint64_t start;
	unsigned pause = 5;
	bool said = false;
	int who = identify(pid);

	if (who == 0)
		return 0;
	if (who < 0) {
		cli_warnx("%s: pid %ld recorded for the cleaner is not a %s now; not signalled",
			  device, (long)pid, CLEANERD_NAME);
		return 0;
	}
	if (kill(pid, SIGTERM))
		return errno == ESRCH ? 0 : -errno;
	start = now_ms();
	for (;;) {
		uint64_t waited;

		sleep_ms(pause);
		if (identify(pid) != 1)
			break;
		waited = now_ms() - start;
		if (waited >= 8000) {
			if (said)
				fputs(" gave up\n", stderr);
			cli_warnx("%s: %s (pid %ld) did not stop within 8 s", device,
				  CLEANERD_NAME, (long)pid);
			return -ETIMEDOUT;
		}
		if (waited >= 2000 && !said) {
			/* a line the dots and the outcome end (cli_warnx ends its own) */
			fprintf(stderr, "%s: %s: %s (pid %ld) is still running; waiting",
				cli_progname, device, CLEANERD_NAME, (long)pid);
			said = true;
		} else if (said) {
			fputc('.', stderr);
		}
		pause = waited >= 2000 ? 500 : pause * 2;
	}
	if (said)
		fputs(" stopped\n", stderr);
	if (verbose)
		printf("%s: %s: stopped %s (pid %ld)\n", cli_progname, device, CLEANERD_NAME,
		       (long)pid);
	return 0;
}
