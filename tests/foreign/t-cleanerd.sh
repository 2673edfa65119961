#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs_cleanerd refuses a mount that is not nilfs2, online or offline (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs_cleanerd @
refuses 1 nilfs_cleanerd -c /dev/null @
refuses 1 nilfs_cleanerd --offline @
finish
