#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The one systemd unit the suite installs, nilfs_cleanerd-mount@.service,
# is sandboxed: systemd-analyze's overall exposure stays below 2.0 (it is
# 1.8; the old device-keyed unit was 9.6), and it is the only unit built.
# Skipped without systemd-analyze (package systemd).
set -u
top=${top_builddir:-.}
src=${top_srcdir:-.}
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not found"; exit 77; }
unit=$top/sbin/mount/nilfs_cleanerd-mount@.service
[ -f "$unit" ] || { echo "FAIL: $unit not built"; exit 1; }
fail=0
units=$(find "$src/sbin" "$top/sbin" -name '*.service.in' | sed 's|.*/||' | sort -u)
[ "$units" = "nilfs_cleanerd-mount@.service.in" ] || { echo "FAIL: units: $units"; fail=1; }
out=$(systemd-analyze security --offline=yes "$unit" 2>&1)
level=$(echo "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
[ -n "$level" ] || { echo "SKIP: no exposure level from systemd-analyze:"; echo "$out" | tail -3; exit 77; }
echo "exposure $level"
awk -v l="$level" 'BEGIN { exit !(l < 2.0) }' || { echo "FAIL: exposure $level, not below 2.0"; fail=1; }
exit $fail
