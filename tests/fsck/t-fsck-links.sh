#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Link counts past what fsck.nilfs2 keeps inline (four bits an inode; 15
# and more are kept aside): directories of 12, 13 and 40 subdirectories
# (14, 15 and 42 links) and a file of 30 hard links, copied in by
# mkfs.nilfs2 -d, check clean: each count kept aside equals its names.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-links.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/src/d12" "$tmp/src/d13" "$tmp/src/d40"
for n in 12 13 40; do
	i=0
	while [ $i -lt $n ]; do mkdir "$tmp/src/d$n/s$i"; i=$((i + 1)); done
done
echo data >"$tmp/src/f"
i=0
while [ $i -lt 29 ]; do ln "$tmp/src/f" "$tmp/src/d40/s$i/link"; i=$((i + 1)); done
[ "$(stat -c %h "$tmp/src/f")" = 30 ] || { echo "SKIP: no hard links here"; exit 77; }
truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f -d "$tmp/src" "$tmp/img" || { echo "FAIL: mkfs -d"; exit 1; }
for d in d12 d13 d40; do
	n=${d#d}
	"$top/dump.nilfs2" "$tmp/img" inode "/$d" | grep -q " links $((n + 2)) " ||
		bad "/$d has not $((n + 2)) links: $("$top/dump.nilfs2" "$tmp/img" inode "/$d" | head -1)"
done
"$top/dump.nilfs2" "$tmp/img" inode /f | grep -q " links 30 " || bad "/f has not 30 links"
"$top/fsck.nilfs2" -fn "$tmp/img" >"$tmp/out" 2>&1 || bad "fsck -fn: $(cat "$tmp/out")"
grep -q ": clean$" "$tmp/out" || bad "not clean: $(cat "$tmp/out")"
exit $fail
