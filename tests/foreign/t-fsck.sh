#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck.nilfs2 refuses a mount that is not nilfs2 (exit 8, fsck(8)'s operational error: 1 would say it corrected errors) (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 8 fsck.nilfs2 -n @
refuses 8 fsck.nilfs2 -fy @
refuses 8 fsck.nilfs2 -p @
finish
