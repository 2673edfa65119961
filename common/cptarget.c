/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cptarget.c - open the volume a time-travel command reads (cptarget.h).  The
 * mount is found as the checkpoint tools find it (common/vol.c, through
 * common/mounts.c; a mount that is not nilfs2 is refused); snapshots are
 * changed with CHANGE_CPMODE under
 * the cleaner's lock, as chcp changes them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>

#include <nlfs/endian.h>
#include "cptarget.h"
#include "vol.h"
#include "cli.h"
#include "devtag.h"
#include "io_open.h"
#include "ioc.h"

/* for the signal handler: what to give back if the user interrupts */
static volatile sig_atomic_t hold_fd = -1;
static volatile uint64_t hold_cnos[TARGET_MAX_HOLDS];
static volatile sig_atomic_t hold_n;

static void give_back_and_die(int sig)
{
	for (sig_atomic_t i = 0; i < hold_n; i++)
		ioc_change_cpmode(hold_fd, hold_cnos[i], NILFS_CHECKPOINT);
	signal(sig, SIG_DFL);
	raise(sig);
}

int target_open(struct target *t, const char *arg)
{
	int mode = NLFS_IO_RDONLY;
	char msg[320];
	const char *dev;
	int rc;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->name = arg;
	rc = vol_open(arg, VOL_RDONLY | VOL_LOCK, &t->vol, msg, sizeof(msg));
	if (rc == -EACCES || rc == -EPERM)   /* the cleaner's lock: not needed to read */
		rc = vol_open(arg, VOL_RDONLY, &t->vol, msg, sizeof(msg));
	if (rc) {
		cli_warnx("%s: %s", arg, msg);
		return -1;
	}
	t->mounted = t->vol->mounted;
	if (t->mounted) {
		uint64_t cno;

		/* what the kernel holds in memory goes to the device first */
		t->fd = open(t->vol->mnt, O_RDONLY | O_CLOEXEC);
		if (t->fd < 0) {
			cli_warnc(errno, "%s", t->vol->mnt);
			target_close(t);
			return -1;
		}
		(void)ioc_sync(t->fd, &cno);
		dev = t->vol->dev;
		mode = NLFS_IO_RDONLY | NLFS_IO_UNCACHED;
	} else {
		dev = dev_resolve(arg);
		if (!dev) {
			target_close(t);
			return -1;
		}
		vol_close(t->vol);
		t->vol = NULL;
	}
	if (cmd_fs_open_warn(dev, mode, &t->fs)) {
		target_close(t);
		return -1;
	}
	return 0;
}

int target_latest(struct target *t, uint64_t *cno)
{
	struct nlfs_cpinfo cp;
	struct nlfs_err err;
	char msg[320];
	int rc = nlfs_cpfile_info(t->fs, 0, &cp, &err);

	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		cli_warnx("%s: %s", t->name, msg);
		return -1;
	}
	*cno = cp.cno;
	return 0;
}

/* does CNO exist, and is it a snapshot */
static int cp_state(struct target *t, uint64_t cno, bool *snapshot)
{
	if (t->mounted) {
		struct nilfs_cpinfo ci;
		long n = ioc_get_cpinfo(t->fd, cno, NILFS_CHECKPOINT, &ci, 1);

		if (n < 0)
			return (int)n;
		if (n == 0 || ci.ci_cno != cno)
			return -ENOENT;
		*snapshot = nilfs_cpinfo_snapshot(&ci);
		return 0;
	} else {
		struct nlfs_cpinfo cp;
		int rc = cno ? nlfs_cpfile_info(t->fs, cno, &cp, NULL) : -ENOENT;

		if (!rc)
			*snapshot = cp.flags & NLFS_CHECKPOINT_SNAPSHOT;
		return rc;
	}
}

int target_hold(struct target *t, uint64_t cno)
{
	struct nilfs_cpstat cs;
	bool snapshot = false, locked;
	sigset_t block, old;
	int rc = cp_state(t, cno, &snapshot);

	if (rc == -ENOENT) {
		cli_warnx("%s: checkpoint %llu does not exist", t->name, (unsigned long long)cno);
		return -1;
	}
	if (rc) {
		cli_warnc(rc, "%s: checkpoint %llu", t->name, (unsigned long long)cno);
		return -1;
	}
	if (!t->mounted || snapshot)
		return 0;
	/* the latest checkpoint is the tree the kernel has mounted: every block
	 * of it is in use, and the kernel refuses to turn it back into a plain
	 * checkpoint (EBUSY) while it is the latest, so it is not taken */
	if (!ioc_get_cpstat(t->fd, &cs) && cno + 1 >= cs.cs_cno)
		return 0;
	for (unsigned i = 0; i < t->nheld; i++)
		if (t->held[i] == cno)
			return 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* under the cleaner's lock, as chcp: a cleaner pass that chose its
	 * victims before the change must not free the checkpoint's blocks
	 * (no lock to take, without /dev/shm: the kernel's refusal to delete
	 * a snapshot still holds) */
	locked = t->vol->ops->lock && !t->vol->ops->lock(t->vol);
	rc = ioc_change_cpmode(t->fd, cno, NILFS_SNAPSHOT);
	if (locked)
		t->vol->ops->unlock(t->vol);
	if (!rc) {
		t->held[t->nheld++] = cno;
		hold_fd = t->fd;
		hold_cnos[hold_n] = cno;
		hold_n++;
		signal(SIGINT, give_back_and_die);
		signal(SIGTERM, give_back_and_die);
		signal(SIGHUP, give_back_and_die);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc == -EROFS)
		return 0;   /* a read-only mount runs no cleaner */
	if (rc == -EPERM || rc == -EACCES) {
		cli_warnx("%s: cannot hold checkpoint %llu against the cleaner: making it a "
			  "snapshot needs CAP_SYS_ADMIN; run as root, or make it a snapshot "
			  "first (chcp ss %llu)", t->name, (unsigned long long)cno,
			  (unsigned long long)cno);
		return -1;
	}
	if (rc == -ENOENT) {
		cli_warnx("%s: checkpoint %llu disappeared", t->name, (unsigned long long)cno);
		return -1;
	}
	if (rc) {
		cli_warnc(rc, "%s: cannot hold checkpoint %llu against the cleaner", t->name,
			  (unsigned long long)cno);
		return -1;
	}
	return 0;
}

uint64_t target_vanished(struct target *t, const uint64_t *cnos, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bool snapshot;

		if (cp_state(t, cnos[i], &snapshot) == -ENOENT)
			return cnos[i];
	}
	return 0;
}

void target_close(struct target *t)
{
	for (unsigned i = 0; i < t->nheld; i++) {
		int rc = ioc_change_cpmode(t->fd, t->held[i], NILFS_CHECKPOINT);

		if (rc)
			cli_warnc(rc, "%s: cannot give checkpoint %llu back (it stays a snapshot; "
				  "chcp cp %llu)", t->name, (unsigned long long)t->held[i],
				  (unsigned long long)t->held[i]);
	}
	hold_n = 0;
	t->nheld = 0;
	if (t->fs)
		nlfs_fs_close(t->fs);
	if (t->vol)
		vol_close(t->vol);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->fs = NULL;
	t->vol = NULL;
}
