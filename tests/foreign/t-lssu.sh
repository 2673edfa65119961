#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lssu refuses a mount that is not nilfs2 (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 lssu @
refuses 1 lssu -a @
finish
