/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vol_snapshot.h - turn a checkpoint of a volume opened with VOL_LOCK into
 * a snapshot as mkcp -s does: under the cleaner's lock (a pass that chose
 * its victims before cannot free the checkpoint's blocks), with SIGINT and
 * SIGTERM held off so that an interruption cannot leave the lock taken.
 */
#ifndef LSCP_VOL_SNAPSHOT_H
#define LSCP_VOL_SNAPSHOT_H

#include <stdint.h>

#include "vol.h"

/* 0, or -1 after a message */
int vol_snapshot(struct vol *v, uint64_t cno);

#endif
