#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-verify.sh - the check after the repairs catches a repair that
# ends the DAT entry of a block a file of the latest checkpoint still maps
# (the bug of issue 17: the next cleaner pass would reclaim live data).
#
# Case bmap_rich_hidden_leak: /src/lib/one-block points to a virtual block
# the DAT does not have, so its true block looks like a live DAT entry no
# file uses.  -y rebuilds the map, which takes that block back.  Then:
#   - as built, -y repairs it (exit 1) and a second check is clean;
#   - with the leak repair's safeguard dropped (FSCK_NILFS2_TEST_BREAK=
#     end-leaks: the "leak" is ended although the new map uses it), the
#     check after the repairs must report PR_REPAIR_LIVE, run no further
#     round that could hide it, and exit with errors left (4 set).
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
fsck=$(cd "$top_builddir" && pwd)/fsck.nilfs2
corrupt=$(cd "$top_builddir" && pwd)/tests/fsck/corrupt
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-verify.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
xz -dc "$top_srcdir/tests/fsck/images/kernel-rich.img.xz" >"$tmp/base" || { echo "FAIL: xz"; exit 1; }
fail=0

cp --sparse=always "$tmp/base" "$tmp/a.img" && "$corrupt" bmap_rich_hidden_leak "$tmp/a.img" || exit 1
"$fsck" -y "$tmp/a.img" >"$tmp/a.out" 2>&1
rc=$?
if [ $rc -ne 1 ] || grep -q 'a repair left a live block' "$tmp/a.out"; then
	echo "FAIL: -y exited $rc:"; cat "$tmp/a.out"; fail=1
elif ! "$fsck" -fn "$tmp/a.img" >"$tmp/a2.out" 2>&1; then
	echo "FAIL: not clean after -y:"; cat "$tmp/a2.out"; fail=1
else
	echo "ok: -y repairs bmap_rich_hidden_leak and the volume checks clean"
fi

cp --sparse=always "$tmp/base" "$tmp/b.img" && "$corrupt" bmap_rich_hidden_leak "$tmp/b.img" || exit 1
FSCK_NILFS2_TEST_BREAK=end-leaks "$fsck" -y "$tmp/b.img" >"$tmp/b.out" 2>&1
rc=$?
if [ $((rc & 4)) -eq 0 ] ||
   ! grep -q 'virtual block 1043.*a repair left a live block unprotected' "$tmp/b.out" ||
   [ "$(grep -c 'checking again after the repairs' "$tmp/b.out")" -ne 1 ]; then
	echo "FAIL: the broken repair was not caught (exit $rc):"; cat "$tmp/b.out"; fail=1
else
	echo "ok: the check after the repairs reports the live block a broken repair ended"
fi
exit $fail
