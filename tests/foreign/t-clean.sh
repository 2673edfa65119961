#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-clean refuses a mount that is not nilfs2, online or offline (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs-clean @
refuses 1 nilfs-clean -l @
refuses 1 nilfs-clean --stop @
refuses 1 nilfs-clean --offline -p 0 @
finish
