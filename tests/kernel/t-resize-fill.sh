#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-resize-fill.sh - issue 39's reproducers under the real kernel: a volume
# of 1 KiB blocks and 64-block segments holding a 6 MiB file (the writer's
# segment entry past the sufile's first block), shrunk offline from 64 to
# 48 MiB, and another grown to 96 MiB.  The kernel mounts each, reads the
# file, fills the free space it reports to about 80 %, and after a
# remount every byte must be there (with a stale clean-segment count it
# wrote past the real free space, and the files were gone at the next
# mount); fsck.nilfs2 -fn finds both clean before and after.  The same for
# a kernel-written volume whose newer superblock is the secondary, grown
# offline.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
"$guest" require || exit
for p in mkfs.nilfs2 nilfs-resize fsck.nilfs2 dump.nilfs2; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
FILL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/t-resize-fill.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$FILL_TMP"' EXIT
. "$here/fill.sh"
fail() { echo "FAIL: $*"; exit 1; }

tmp=$FILL_TMP
mkdir "$tmp/tree"
head -c 6291456 /dev/urandom >"$tmp/tree/f"
for size in 48M 96M; do
	img=$tmp/to-$size.img
	truncate -s 64M "$img"
	"$top/mkfs.nilfs2" -q -f -b 1024 -B 64 -d "$tmp/tree" "$img" || fail "mkfs"
	"$top/nilfs-resize" -y "$img" $size >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "resize to $size"; }
	"$top/fsck.nilfs2" -fn "$img" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "fsck -fn after the resize to $size"; }
	fill_expect "$img" "$tmp/tree"
done
# A kernel-unmounted volume whose newer superblock is the secondary, as the
# kernel left it (kernel-1k), grown offline by half (t-resize checks the
# same on a volume whose two copies were swapped, and bench/writers-layouts.sh
# has the kernel fill that one too).
img=$tmp/kernel-1k.img
xz -dc "$here/../fsck/images/kernel-1k.img.xz" >"$img" || fail "kernel-1k: no image"
"$top/dump.nilfs2" "$img" extract / "$tmp/kernel-1k.tree" || fail "kernel-1k: extract"
fill_expect "$img" "$tmp/kernel-1k.tree"
"$top/nilfs-resize" -y "$img" 24M >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "kernel-1k: the grow from the newer secondary"; }
fill_run "$tmp/guest.out" "$tmp/to-48M.img" "$tmp/to-96M.img" "$tmp/kernel-1k.img" ||
	fail "the kernel's fill (above)"
echo "PASS: $0"
