#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-resize refuses a mount that is not nilfs2, online or offline (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs-resize -y @ 32M
refuses 1 nilfs-resize -y @
finish
