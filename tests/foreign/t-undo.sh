#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-undo refuses a mount that is not nilfs2 before it reads its undo file (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs-undo "$ftmp/undo" @
refuses 1 nilfs-undo -f "$ftmp/undo" @
finish
