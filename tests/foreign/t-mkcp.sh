#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkcp refuses a mount that is not nilfs2: no NILFS_IOCTL_SYNC on it (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 mkcp @
refuses 1 mkcp -s @
finish
