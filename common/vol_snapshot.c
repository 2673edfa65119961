/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vol_snapshot.c - a checkpoint made a snapshot (vol_snapshot.h). */
#include <errno.h>
#include <signal.h>

#include "cli.h"
#include "vol_snapshot.h"

int vol_snapshot(struct vol *v, uint64_t cno)
{
	sigset_t block, old;
	int rc, status = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0) {
		cli_warnc(errno, "cannot block signals");
		return -1;
	}
	rc = v->ops->lock(v);
	if (rc) {
		cli_warnx("%s", vol_strerror(v, rc));
		status = -1;
	} else {
		rc = v->ops->change_cpmode(v, cno, NILFS_SNAPSHOT);
		if (rc) {
			cli_warnx("%s", vol_strerror(v, rc));
			status = -1;
		}
		rc = v->ops->unlock(v);
		if (rc) {
			cli_warnx("%s", vol_strerror(v, rc));
			status = -1;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}
