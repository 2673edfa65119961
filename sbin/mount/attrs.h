/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attrs.h - the options of a nilfs2 mount that only userspace knows:
 * pp=SECONDS, nogc, and the gcpid=PID the helper records.  The kernel
 * refuses them, so the helpers take them out of the option string and keep
 * them as attributes of the mount's utab entry, under the names
 * nilfs-tools' helpers use, so that either suite's umount finds the
 * cleaner the other's mount started.
 */
#ifndef NILFS_MOUNT_ATTRS_H
#define NILFS_MOUNT_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ATTR_PP "pp"
#define ATTR_NOGC "nogc"
#define ATTR_GCPID "gcpid"
/* the attribute string of a mount that has none: utab keeps an entry's
 * old attributes when a remount writes an empty set */
#define ATTR_NONE "none"

/* the largest pp= that nilfs_cleanerd -p takes (seconds in a uint64 of ns) */
#define ATTR_PP_MAX (UINT64_MAX / 1000000000u)

struct nilfs_attrs {
	bool have_pp;
	uint64_t pp;      /* protection period in seconds, if have_pp */
	bool nogc;
	pid_t gcpid;      /* the cleaner the helper started; 0: none */
};

enum attrs_source {
	ATTRS_FROM_USER,  /* -o: gcpid= and none are refused */
	ATTRS_FROM_UTAB,  /* a utab entry: everything we (or nilfs-tools) record */
};

/*
 * Split the comma-separated options OPTS: the userspace ones go into *A
 * (fields not named keep their value), the others, in their order, into
 * *REST (NULL if none; the caller frees it).  Returns 0, -ENOMEM, or
 * -EINVAL with the offending option copied into BAD (BADSZ bytes).
 */
int attrs_split(const char *opts, enum attrs_source from, struct nilfs_attrs *a,
		char **rest, char *bad, size_t badsz);

/*
 * The utab attribute string of A into BUF: "gcpid=N[,pp=N]", "pp=N",
 * "nogc", or ATTR_NONE when there is nothing to record.  Returns the
 * length, or -ENOSPC.
 */
int attrs_format(const struct nilfs_attrs *a, char *buf, size_t bufsz);

#endif /* NILFS_MOUNT_ATTRS_H */
