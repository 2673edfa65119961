#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# chcp refuses a mount that is not nilfs2 (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 chcp ss @ 1
refuses 1 chcp cp @ 1
finish
