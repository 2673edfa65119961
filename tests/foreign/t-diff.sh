#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-diff refuses a mount that is not nilfs2: no checkpoint held as a snapshot on it (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs-diff @ 1
refuses 1 nilfs-diff @ 1 2
finish
