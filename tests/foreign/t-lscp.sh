#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lscp refuses a mount that is not nilfs2 (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 lscp @
refuses 1 lscp -s @
refuses 1 lscp -J @
finish
