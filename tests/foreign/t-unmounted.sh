#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every writer of the suite given an unmounted ext4, as an image file and
# (as root, with a free loop device) as a block device, stops at its
# superblock check: it fails and no byte of the ext4 changes.
set -u
top=${top_builddir:-.}
top=$(cd "$top" && pwd)
PATH=$PATH:/sbin:/usr/sbin
command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-unmounted.XXXXXX") || exit 1
loop=
trap '[ -n "$loop" ] && losetup -d "$loop"; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

truncate -s 64M "$tmp/e.img"
mkfs.ext4 -q -F -L otherfs "$tmp/e.img" >/dev/null 2>&1 || { echo "SKIP: mkfs.ext4 failed"; exit 77; }
cp "$tmp/e.img" "$tmp/orig"
: >"$tmp/undo"

untouched() { # code prog args
	code=$1 prog=$2
	shift 2
	"$top/$prog" "$@" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	[ $rc -eq "$code" ] || { bad "$prog $*: exit $rc, not $code"; cat "$tmp/out"; }
	cmp -s "$tmp/e.img" "$tmp/orig" || { bad "$prog $* wrote to the ext4"; cp "$tmp/orig" "$tmp/e.img"; }
}

writers() {
	untouched 1 nilfs-tune -L x "$target"
	untouched 1 nilfs-tune -f -L x "$target"
	untouched 1 nilfs-tune -U random "$target"
	untouched 1 nilfs-tune -O block_count "$target"
	untouched 1 nilfs-resize -y "$target" 32M
	untouched 1 mkcp "$target"
	untouched 1 mkcp -s "$target"
	untouched 1 chcp ss "$target" 1
	untouched 1 rmcp "$target" 1
	untouched 8 fsck.nilfs2 -fy "$target"
	untouched 8 fsck.nilfs2 -p "$target"
	untouched 8 fsck.nilfs2 -fy --rollback "$target"
	untouched 1 nilfs-clean --offline -p 0 "$target"
	untouched 1 nilfs_cleanerd --offline "$target"
	untouched 1 nilfs-undo "$tmp/undo" "$target"
}

target=$tmp/e.img
writers
if [ "$(id -u)" -eq 0 ] && loop=$(losetup -f --show "$tmp/e.img" 2>/dev/null); then
	target=$loop
	writers
	losetup -d "$loop"
	loop=
	cmp -s "$tmp/e.img" "$tmp/orig" || bad "the ext4 changed through its loop device"
else
	echo "SKIP part: the loop device (needs root and a free one)"
fi
exit $fail
