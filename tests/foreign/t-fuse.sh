#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-fuse refuses a mount that is not nilfs2 before it mounts anything (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
mkdir "$ftmp/fuse"
refuses 1 nilfs-fuse @ "$ftmp/fuse"
finish
