#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dump.nilfs2 refuses a mount that is not nilfs2 (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 dump.nilfs2 @ super
refuses 1 dump.nilfs2 @ ls /
finish
