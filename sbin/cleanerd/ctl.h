/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h - how nilfs-clean talks to nilfs_cleanerd.
 *
 * One Unix SOCK_SEQPACKET socket per volume, RUNDIR/MAJ:MIN.sock, where
 * MAJ:MIN is the device number of the volume; RUNDIR (default
 * /run/nilfs_cleanerd, or $NILFS_CLEANERD_RUNDIR) is mode 0700 and the
 * socket 0600, so only root can talk to the daemon.  RUNDIR/MAJ:MIN.lock
 * is held (flock) by the daemon of that volume and holds its pid.
 *
 * Each request and each reply is one datagram of text: a word followed by
 * "key=value" fields separated by spaces (values %-escaped).
 *   requests: status | run [protection_period=S] [nsegments=N]
 *             [interval_ns=NS] [min_reclaimable=N|N%] | stop | suspend |
 *             resume | reload [conf=PATH] | shutdown
 *   replies:  ok [fields...] | error errno=N msg=TEXT
 * "run" replies with job=ID; "status" with state=idle|running|suspended,
 * job= (last job started), done= (last job finished) and counters.
 */
#ifndef CLD_CTL_H
#define CLD_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CLD_RUNDIR_DEFAULT "/run/nilfs_cleanerd"
#define CLD_MSG_MAX 4096

const char *cld_rundir(void);
/* RUNDIR/MAJ:MIN.SUFFIX into BUF; -ENAMETOOLONG if it does not fit */
int cld_ctl_path(dev_t dev, const char *suffix, char *buf, size_t len);

/* Append " key=value" (value escaped) to the message in BUF. */
int cld_msg_add(char *buf, size_t len, const char *key, const char *value);
int cld_msg_addf(char *buf, size_t len, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* the first word of MSG */
bool cld_msg_is(const char *msg, const char *word);
/* Find KEY in MSG: true and the unescaped value in VAL, or false. */
bool cld_msg_get(const char *msg, const char *key, char *val, size_t len);
/* 0, -ENOENT if absent, -EINVAL if not a decimal number */
int cld_msg_get_u64(const char *msg, const char *key, uint64_t *v);

/* client side: connect to the daemon of DEV; -errno */
int cld_ctl_connect(dev_t dev, int *fd);
/* send REQ and wait for the reply (TIMEOUT_MS, -1 forever) */
int cld_ctl_call(int fd, const char *req, char *reply, size_t len, int timeout_ms);

#endif /* CLD_CTL_H */
