/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timecmd.c - one timed run of a command, for the benches whose commands
 * take tens of milliseconds (GNU time's %e counts in 10 ms steps, so a
 * 20 ms command's ratio to a peer swung 2x from one run to the next).
 *
 *   timecmd [-c] TIMES LABEL OUTPUT CMD [ARG...]
 *
 * runs CMD with its standard output and error into OUTPUT and appends
 * "LABEL WALL CPU MAXRSS" to TIMES: the wall time from fork to wait4
 * (CLOCK_MONOTONIC, seconds with microseconds), the CPU time of CMD and
 * its children (user and system, from wait4's rusage), and the child's
 * peak resident set in KiB.  -c first drops the page cache (sync, then 3
 * into /proc/sys/vm/drop_caches; needs root), so the run starts cold.
 * Exits with CMD's status (128 + the signal if it was killed).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		perror("timecmd: /proc/sys/vm/drop_caches");
		exit(125);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status, argi = 1;
	FILE *times;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "-c")) {
		drop_caches();
		argi++;
	}
	if (argc - argi < 4) {
		fprintf(stderr, "usage: timecmd [-c] TIMES LABEL OUTPUT CMD [ARG...]\n");
		return 125;
	}
	times = fopen(argv[argi], "a");
	if (!times) {
		perror(argv[argi]);
		return 125;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("timecmd: fork");
		return 125;
	}
	if (pid == 0) {
		int fd = open(argv[argi + 2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(fd);
		execvp(argv[argi + 3], argv + argi + 3);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("timecmd: wait4");
		return 125;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(times, "%s %.6f %.6f %ld\n", argv[argi + 1],
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_maxrss);
	fclose(times);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
