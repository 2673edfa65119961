#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-tune refuses a mount that is not nilfs2 (tests/foreign/foreign.sh),
# whatever it is asked to change: never FS_IOC_SETFSLABEL on an ext4.
. "$(dirname "$0")/foreign.sh"
refuses 1 nilfs-tune -L x @
refuses 1 nilfs-tune -f -L x @
refuses 1 nilfs-tune -U random @
refuses 1 nilfs-tune -l @
finish
