#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A write to standard output that fails (here: /dev/full) is an error,
# never a success: each program says "write error" and exits with its
# failure status (fsck.nilfs2: 8, operational error).
set -u
top=$(cd "${top_builddir:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-write-errors.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/src"
echo small >"$tmp/src/small"
truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f -d "$tmp/src" "$tmp/img" || { echo "FAIL: mkfs"; exit 1; }

full() { # expected status, then the command
	want=$1
	shift
	"$@" >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || bad "exit status $rc, not $want: $* >/dev/full"
	grep -q "write error\|writing standard output" "$tmp/err" ||
		{ bad "no write error message from: $*"; cat "$tmp/err"; }
	# the same command with somewhere to write succeeds
	"$@" >/dev/null 2>&1 || bad "fails without /dev/full too: $*"
}

full 1 "$top/dump.nilfs2" "$tmp/img" cat /small
full 1 "$top/dump.nilfs2" "$tmp/img" super
full 1 "$top/dump.nilfs2" "$tmp/img" ls /
full 8 "$top/fsck.nilfs2" -fn "$tmp/img"
full 1 "$top/lscp" "$tmp/img"
full 1 "$top/lssu" "$tmp/img"
cp "$tmp/img" "$tmp/img2"
full 1 "$top/mkfs.nilfs2" -f "$tmp/img2"
exit $fail
