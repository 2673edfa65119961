#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkfs.nilfs2's promises at the command line: it refuses to overwrite an
# existing filesystem without -f and erases the old signatures with it,
# -n writes nothing, -U/-T/-d make identical images, bad input gets a
# message and exit status 1.
set -u
top="${top_builddir:-.}"
mkfs="$top/mkfs.nilfs2"
dump="$top/dump.nilfs2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
img=$tmp/img

expect_fail() { # pattern, then the command
	pat=$1
	shift
	"$@" >"$tmp/out" 2>&1 && { bad "succeeded: $*"; return; }
	[ $? -eq 1 ] || bad "exit status not 1: $*"
	grep -q "$pat" "$tmp/out" || { bad "no '$pat' in the message of: $*"; cat "$tmp/out"; }
}

truncate -s 300M "$img"
if command -v mke2fs >/dev/null 2>&1 || [ -x /sbin/mke2fs ]; then
	PATH=$PATH:/sbin:/usr/sbin mke2fs -q -F "$img"
	expect_fail "contains an existing ext" "$mkfs" -q "$img"
	"$mkfs" -q -f "$img" || bad "mkfs -f over ext4"
	if command -v blkid >/dev/null 2>&1 || [ -x /sbin/blkid ]; then
		types=$(PATH=$PATH:/sbin blkid -p -o value -s TYPE "$img" 2>&1)
		[ "$types" = nilfs2 ] || bad "after mkfs -f, blkid sees '$types'"
	fi
fi
expect_fail "contains an existing nilfs2" "$mkfs" -q "$img"
# a sparse image is probed unless it holds no data at all: the first
# 64 KiB of the nilfs2 volume (its primary superblock) in a new sparse file
truncate -s 300M "$tmp/sparse"
dd if="$img" of="$tmp/sparse" bs=4096 count=16 conv=notrunc,sparse 2>/dev/null
expect_fail "contains an existing nilfs2" "$mkfs" -q "$tmp/sparse"
# one without a byte of data is made without -f
rm -f "$tmp/sparse"
truncate -s 300M "$tmp/sparse"
"$mkfs" -q "$tmp/sparse" || bad "mkfs of a new sparse image without -f"
rm -f "$tmp/sparse"

# -n: nothing written
cp "$img" "$tmp/before"
"$mkfs" -n -f -L changed "$img" >/dev/null || bad "mkfs -n"
cmp -s "$img" "$tmp/before" || bad "mkfs -n changed the image"

# reproducible: same tree, UUID and time give the same bytes
mkdir -p "$tmp/tree/sub"
echo one >"$tmp/tree/a"
head -c 100000 /dev/urandom >"$tmp/tree/sub/b"
ln -s a "$tmp/tree/link"
for i in 1 2; do
	truncate -s 160M "$tmp/r$i"
	SOURCE_DATE_EPOCH=1700000000 "$mkfs" -q -f -U 0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5b \
		-d "$tmp/tree" "$tmp/r$i" || bad "mkfs -d run $i"
done
"$top/fsck.nilfs2" -n --checkpoints=all "$tmp/r1" >"$tmp/fsck" 2>&1 || { bad "fsck.nilfs2 on mkfs -d"; cat "$tmp/fsck"; }
cmp -s "$tmp/r1" "$tmp/r2" || bad "-U with SOURCE_DATE_EPOCH does not reproduce the image"
"$dump" "$tmp/r1" super | grep -q 's_ctime  *1700000000' || bad "SOURCE_DATE_EPOCH not used as ctime"
"$dump" "$tmp/r1" super | grep -q 's_uuid  *0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5b' || bad "-U ignored"
"$dump" "$tmp/r1" ls / | grep -q '^l  *[0-9]* link$' || bad "dump.nilfs2 ls: the symlink's type"
"$dump" "$tmp/r1" cat /sub/b | cmp -s - "$tmp/tree/sub/b" || bad "mkfs -d content"

# bad input
truncate -s 50M "$tmp/small"
expect_fail "device too small" "$mkfs" -q -f "$tmp/small"
expect_fail "invalid block size" "$mkfs" -q -f -b 3000 "$img"
expect_fail "invalid blocks per segment" "$mkfs" -q -f -B 8 "$img"
expect_fail "invalid reserved segments percentage" "$mkfs" -q -f -m 0 "$img"
expect_fail "unknown feature" "$mkfs" -q -f -O bogus "$img"
expect_fail "invalid UUID" "$mkfs" -q -f -U nonsense "$img"
expect_fail "not a directory" "$mkfs" -q -f -d "$tmp/missing" "$img"
expect_fail "cannot open $tmp/nope" "$mkfs" -q -f "$tmp/nope"
# a block size above the page size would not mount here: refused unless forced
page=$(getconf PAGESIZE 2>/dev/null || echo 4096)
if [ "$page" -lt 65536 ]; then
	big=$((page * 2))
	truncate -s 0 "$tmp/pg" && truncate -s 300M "$tmp/pg"
	expect_fail "larger than this kernel's page size" "$mkfs" -q -b "$big" "$tmp/pg"
	cmp -s -n 314572800 "$tmp/pg" /dev/zero || bad "a refused block size wrote to the device"
	# -f alone means "overwrite", not "make what this kernel cannot mount"
	expect_fail "use -f twice" "$mkfs" -q -f -b "$big" "$tmp/pg"
	cmp -s -n 314572800 "$tmp/pg" /dev/zero || bad "mkfs -f -b $big wrote to the device"
	"$mkfs" -q -f -f -b "$big" "$tmp/pg" 2>"$tmp/warn" || bad "mkfs -f -f -b $big"
	grep -q "^mkfs.nilfs2: warning: block size $big is larger than this kernel's page size" \
		"$tmp/warn" || bad "mkfs -f -f -b $big: no warning (even with -q)"
	"$dump" "$tmp/pg" super | grep -q "s_log_block_size  *$(( big == 8192 ? 3 : big == 16384 ? 4 : 5 ))\$" ||
		bad "mkfs -f -b $big: not that block size"
fi
# a tree larger than the volume
head -c 200M /dev/zero | tr '\0' 'x' >"$tmp/tree/huge" 2>/dev/null
truncate -s 160M "$tmp/v"
expect_fail "no space left" "$mkfs" -q -f -B 512 -d "$tmp/tree" "$tmp/v"

[ $fail -eq 0 ] && echo "PASS: $0"
exit $fail
