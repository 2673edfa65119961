#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rmcp refuses a mount that is not nilfs2 (tests/foreign/foreign.sh).
. "$(dirname "$0")/foreign.sh"
refuses 1 rmcp @ 1
refuses 1 rmcp -f @ 1..2
finish
