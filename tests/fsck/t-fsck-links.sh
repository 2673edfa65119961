#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Link counts past what fsck.nilfs2 keeps inline (four bits an inode; 15
# and more are kept aside): directories of 12, 13 and 40 subdirectories
# (14, 15 and 42 links) and a file of 30 hard links, copied in by
# mkfs.nilfs2 -d, check clean: each count kept aside equals its names.
# Then each inode's count is set wrong (tests/fsck/corrupt --links): -n
# names every one, -y puts back the count of names, and the volume then
# checks clean.
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

# wrong counts: inline ones that become counts aside and the other way
# round, on both sides of 15
links() { "$top/dump.nilfs2" "$tmp/img" inode "$1" | sed -n 's/.* links \([0-9]*\) .*/\1/p' | head -1; }
for w in /d12:20 /d13:40 /d40:5 /f:3; do
	"$top/tests/fsck/corrupt" --links "${w%:*}" "${w#*:}" "$tmp/img" || bad "corrupt --links $w"
done
"$top/fsck.nilfs2" -fn "$tmp/img" >"$tmp/out" 2>&1
rc=$?
[ $rc = 4 ] || bad "fsck -fn of wrong counts: exit $rc, not 4: $(cat "$tmp/out")"
for p in /d12 /d13 /d40 /f; do
	ino=$("$top/dump.nilfs2" "$tmp/img" inode "$p" | sed -n 's/^inode \([0-9]*\).*/\1/p' | head -1)
	grep -q "inode $ino\b.*link" "$tmp/out" || bad "fsck -fn does not name $p (inode $ino): $(cat "$tmp/out")"
done
"$top/fsck.nilfs2" -fy "$tmp/img" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || bad "fsck -fy: exit $rc, not 1: $(cat "$tmp/out")"
"$top/fsck.nilfs2" -fn "$tmp/img" >"$tmp/out" 2>&1 || bad "fsck -fn after -y: $(cat "$tmp/out")"
for w in /d12:14 /d13:15 /d40:42 /f:30; do
	[ "$(links "${w%:*}")" = "${w#*:}" ] || bad "${w%:*} has $(links "${w%:*}") links after -y, not ${w#*:}"
done
exit $fail
