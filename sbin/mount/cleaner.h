/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cleaner.h - starting and stopping the nilfs_cleanerd of a mount, as
 * nilfs-tools' helpers do: the daemon runs as "nilfs_cleanerd [-p PP]
 * DEVICE DIR" and, once detached, writes "NILFS_CLEANERD_PID=<pid>" on
 * its standard output; it is stopped with SIGTERM.
 */
#ifndef NILFS_MOUNT_CLEANER_H
#define NILFS_MOUNT_CLEANER_H

#include <stdbool.h>
#include <sys/types.h>

#include "attrs.h"

#define CLEANERD_NAME "nilfs_cleanerd"
#define CLEANERD_PID_LINE "NILFS_CLEANERD_PID="

/* Where the daemon is: beside the running helper if it is there (an
 * installation keeps them together), else $(sbindir).  BUF gets the path. */
void cleaner_path(char *buf, size_t bufsz);

/*
 * Start the cleaner of DEVICE mounted on DIR with the protection period of
 * A (if any); *PID: the pid it reported, 0 if it reported none.  Returns 0
 * when it started, else -errno (-ECHILD: it exited with an error, and said
 * why on stderr).
 */
int cleaner_start(const char *device, const char *dir, const struct nilfs_attrs *a,
		  pid_t *pid);

/* Is PID a running nilfs_cleanerd?  (A recorded pid may have been reused.) */
bool cleaner_running(pid_t pid);

/*
 * SIGTERM to the cleaner PID of DEVICE, then wait for it to exit: polls
 * with a doubling pause for 2 s, then says it still waits and polls for up
 * to 8 s in all.  0 when it is gone (or PID is not a nilfs_cleanerd: not
 * signalled), -ETIMEDOUT or -errno otherwise.  Messages go out under the
 * program's name (cli.h).
 */
int cleaner_stop(const char *device, pid_t pid, bool verbose);

#endif /* NILFS_MOUNT_CLEANER_H */
