#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-history refuses a mount that is not nilfs2 (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs-history @ /file
refuses 1 nilfs-history --extract 1 /dev/null @ /file
finish
