#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-resize on image files (offline): nilfs-utils' size syntax and
# messages, the prompt, the image extended for a grow and cut after a
# shrink, contents and fsck intact, a shrink that does not fit refused
# with the smallest size that would, nothing written on any refusal; the
# sufile header right after a resize that changes nothing else; on a
# loop device (root only) a size past the device is refused and a shrink
# leaves the secondary superblock at both ends.
set -u
top="${top_builddir:-.}"
top=$(cd "$top" && pwd)
resize="$top/nilfs-resize"
tune="$top/nilfs-tune"
dump="$top/dump.nilfs2"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-resize.XXXXXX") || exit 1
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
PATH=$PATH:/sbin:/usr/sbin
fail=0
bad() { echo "FAIL: $*"; fail=1; }
img=$tmp/img
MiB=1048576

field() { "$tune" -l "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p"; }
fsck_ok() { "$top/fsck.nilfs2" -n --checkpoints=all "$1" >"$tmp/fsck" 2>&1 || { bad "fsck after $2"; cat "$tmp/fsck"; }; }
same_tree() {
	for f in a b c; do
		"$dump" "$img" cat /$f | cmp -s - "$tmp/tree/$f" || bad "/$f differs after $1"
	done
}
refused() { # pattern, then the command: exit 1, the message, nothing written
	pat=$1
	shift
	cp "$img" "$tmp/before"
	"$@" >"$tmp/out" 2>&1 </dev/null && { bad "succeeded: $*"; return; }
	grep -q "$pat" "$tmp/out" || { bad "no '$pat' from: $*"; cat "$tmp/out"; }
	cmp -s "$img" "$tmp/before" || bad "refused, yet wrote: $*"
}

mkdir -p "$tmp/tree"
head -c 3000000 /dev/urandom >"$tmp/tree/a"
head -c 500000 /dev/urandom >"$tmp/tree/b"
echo small >"$tmp/tree/c"
truncate -s 64M "$img"
"$top/mkfs.nilfs2" -q -f -B 256 -d "$tmp/tree" "$img" || exit 1

# grow: the image is extended
"$resize" -y "$img" 128M >"$tmp/out" 2>&1 || { bad "grow"; cat "$tmp/out"; }
grep -q "^Extend the filesystem size from 67108864 bytes to 134217728 bytes.$" "$tmp/out" ||
	bad "grow message"; grep -qx "Done." "$tmp/out" || bad "grow: no Done."
[ "$(stat -c %s "$img")" = 134217728 ] || bad "image not extended: $(stat -c %s "$img")"
[ "$(field "$img" 'Device size')" = 134217728 ] || bad "Device size after the grow"
[ "$(field "$img" 'Number of segments')" = 127 ] || bad "segments after the grow: $(field "$img" 'Number of segments')"
fsck_ok "$img" grow
same_tree grow

# the same size again; the size syntax
"$resize" -y "$img" 262144s >"$tmp/out" 2>&1 || bad "no-op resize failed"
grep -q "^No need to resize the filesystem on" "$tmp/out" || bad "no-op message"
refused "bad size argument: 12X" "$resize" -y "$img" 12X
refused "bad size argument: -5" "$resize" -y "$img" -- -5
refused "too many arguments" "$resize" -y "$img" 100M 200M
refused "nope: No such file or directory" "$resize" -y "$tmp/nope" 100M
# the prompt: anything but y aborts
echo n | "$resize" "$img" 96M >"$tmp/out" 2>&1 && bad "answered n, yet succeeded"
grep -q "Do you wish to proceed (y/N)? Aborted.$" "$tmp/out" ||
	{ bad "prompt or Aborted. missing"; cat "$tmp/out"; }
[ "$(field "$img" 'Device size')" = 134217728 ] || bad "answered n, yet resized"

# shrink: sector alignment, the image cut, contents kept
echo y | "$resize" -v "$img" 100000001 >"$tmp/out" 2>&1 || { bad "shrink"; cat "$tmp/out"; }
grep -q "^size 100000001 is not aligned to sector size. truncated to 99999744.$" "$tmp/out" ||
	bad "alignment message"
grep -q "segments will be truncated from segnum 95.$" "$tmp/out" || { bad "truncation message"; cat "$tmp/out"; }
[ "$(stat -c %s "$img")" = 99999744 ] || bad "image not cut: $(stat -c %s "$img")"
[ "$(field "$img" 'Number of segments')" = 95 ] || bad "segments after the shrink"
fsck_ok "$img" shrink
same_tree shrink

# a shrink that does not fit: refused with the smallest size that would do
refused "does not have enough free space" "$resize" -y "$img" 12M
min=$(sed -n 's/.*smallest size it can be shrunk to now is \([0-9]*\) bytes.*/\1/p' "$tmp/out")
[ -n "$min" ] || bad "no smallest size named"
[ "$(grep -c '^Aborted.$' "$tmp/out")" = 1 ] || bad "'Aborted.' not said once"
if [ -n "$min" ]; then
	"$resize" -y "$img" "$min" >"$tmp/out" 2>&1 || { bad "shrink to the size named ($min)"; cat "$tmp/out"; }
	fsck_ok "$img" "the smallest shrink"
	same_tree "the smallest shrink"
	"$resize" -y "$img" $((min - MiB)) >"$tmp/out" 2>&1 && bad "shrink below the size named succeeded"
fi

# A grow of a volume smaller than its file whose newest superblock is the
# secondary at the file's end (as a kernel leaves it when its last write
# went to that copy), a stale copy at the volume's end: the grow starts
# from the newest and keeps every checkpoint.  (Copying the stale copy to
# the file's end first rolled the volume back a checkpoint.)
truncate -s 0 "$img"
truncate -s 8M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 16 -d "$tmp/tree" "$img" || exit 1
truncate -s 12M "$img"
"$top/fsck.nilfs2" -fy "$img" >/dev/null 2>&1   # a copy at the file's end
dd if="$img" of="$tmp/primary" bs=1024 skip=1 count=1 2>/dev/null
"$top/chcp" ss "$img" 1 >/dev/null || bad "chcp ss"
dd if="$tmp/primary" of="$img" bs=1024 seek=1 conv=notrunc 2>/dev/null   # the primary one behind
"$top/lscp" -a "$img" | awk 'NR > 1 { print $1, $4 }' >"$tmp/cps.before"
"$tune" -l "$img" 2>&1 | grep -q "using the secondary superblock: secondary superblock has a newer checkpoint" ||
	bad "the setup: the secondary is not the newer"
"$resize" -y "$img" 12M >"$tmp/out" 2>&1 || { bad "grow from the newer secondary"; cat "$tmp/out"; }
"$top/lscp" -a "$img" | awk 'NR > 1 { print $1, $4 }' | grep -Fxvf - "$tmp/cps.before" | sed 's/^/lost checkpoint /' |
	grep . && bad "the grow lost checkpoints"
fsck_ok "$img" "the grow from the newer secondary"
same_tree "the grow from the newer secondary"

# Issue 39: 1 KiB blocks, 64-block segments and a 6 MiB file put the
# writer's segment entry past the sufile's first block; a shrink and a grow
# that move nothing change only the sufile header's counts, which must
# reach the disk (they did not: fsck found sh_ncleansegs wrong, and the
# kernel lost what it wrote into the free space it believed in).
mkdir -p "$tmp/tree39"
head -c 6291456 /dev/urandom >"$tmp/tree39/f"
for size in 48M 96M; do
	truncate -s 0 "$img"
	truncate -s 64M "$img"
	"$top/mkfs.nilfs2" -q -f -b 1024 -B 64 -d "$tmp/tree39" "$img" || exit 1
	"$resize" -y "$img" $size >"$tmp/out" 2>&1 || { bad "issue 39: resize to $size"; cat "$tmp/out"; }
	"$top/fsck.nilfs2" -fn "$img" >"$tmp/fsck" 2>&1 || { bad "issue 39: fsck -fn after the resize to $size"; cat "$tmp/fsck"; }
	"$dump" "$img" cat /f | cmp -s - "$tmp/tree39/f" || bad "issue 39: /f differs after the resize to $size"
done

# A kernel-unmounted volume whose newer superblock is the secondary (the
# kernel's last write went there; the primary, a checkpoint behind, still
# says mounted): the grow, which first puts a copy where the grown image
# will end, copies the newer one (it copied the stale primary, and the
# grow was refused as not cleanly unmounted).  kernel-1k is such a volume
# as the kernel left it; kernel-rich, whose primary is the newer, is made
# one by swapping its two copies.
images=${top_srcdir:-.}/tests/fsck/images
swap_superblocks() {
	sb2=$(($(stat -c %s "$1") / 4096 * 4096 - 4096))
	dd if="$1" of="$tmp/sb1" bs=1024 skip=1 count=1 2>/dev/null
	dd if="$1" of="$tmp/sb2" bs=1 skip=$sb2 count=1024 2>/dev/null
	dd if="$tmp/sb2" of="$1" bs=1024 seek=1 conv=notrunc 2>/dev/null
	dd if="$tmp/sb1" of="$1" bs=1 seek=$sb2 conv=notrunc 2>/dev/null
}
for base in kernel-1k kernel-rich; do
	xz -dc "$images/$base.img.xz" >"$img" || { bad "$base: no image"; continue; }
	[ $base = kernel-rich ] && swap_superblocks "$img"
	"$tune" -l "$img" 2>&1 | grep -q "using the secondary superblock: secondary superblock has a newer checkpoint" ||
		bad "$base: the setup: the secondary is not the newer copy"
	"$top/lscp" -a "$img" >"$tmp/cps.before" 2>&1
	size=$(($(stat -c %s "$img") * 3 / 2))
	"$resize" -y "$img" $size >"$tmp/out" 2>&1 || { bad "$base: grow from the newer secondary"; cat "$tmp/out"; }
	"$top/lscp" -a "$img" | grep -Fxvf - "$tmp/cps.before" | sed "s/^/$base: checkpoint lost or changed: /" |
		grep . && bad "$base: the grow changed the checkpoints"
	fsck_ok "$img" "$base's grow from the newer secondary"
	[ "$(field "$img" 'Device size')" = $size ] || bad "$base: Device size after the grow"
	"$dump" "$img" super >"$tmp/super"
	[ "$(grep -c 's_state  *0x0001' "$tmp/super")" = 2 ] || { bad "$base: both copies should say clean"; cat "$tmp/super"; }
done

# a loop device: the size cannot pass the device; the secondary lands at
# the new end and at the device's
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null; then
	truncate -s 128M "$img"
	"$top/mkfs.nilfs2" -q -f -B 256 -d "$tmp/tree" "$img" || exit 1
	if loop=$(losetup -f --show "$img" 2>/dev/null); then
		refused "size larger than partition size (134217728 bytes)" "$resize" -y "$loop" 200M
		"$resize" -y "$loop" 80M >"$tmp/out" 2>&1 || { bad "loop shrink"; cat "$tmp/out"; }
		grep -q "^Warning: the filesystem now ends 50331648 bytes before the end of" "$tmp/out" ||
			bad "no warning that the volume ends before the device"
		"$dump" "$loop" super | grep -q "secondary superblock at byte 134213632: valid" ||
			bad "no valid secondary at the device's end"
		dd if="$loop" bs=4096 skip=$((80 * 256 - 1)) count=1 2>/dev/null | od -An -tx1 -j 6 -N 2 |
			grep -q "34 34" || bad "no secondary at the new end"
		fsck_ok "$loop" "loop shrink"
		"$resize" -y "$loop" >"$tmp/out" 2>&1 || { bad "loop grow to the device"; cat "$tmp/out"; }
		[ "$(field "$loop" 'Device size')" = 134217728 ] || bad "loop grow"
		fsck_ok "$loop" "loop grow"
	fi
fi
[ $fail -eq 0 ] && echo "PASS: $0"
exit $fail
