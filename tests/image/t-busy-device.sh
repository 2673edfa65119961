#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every writer opens a block device exclusively: a device that is active
# swap space, or that carries a mounted filesystem, is refused with a
# message that names the holder, and nothing is written to it.  Needs root
# and a free loop device (skipped otherwise).
set -u
top="${top_builddir:-.}"
top=$(cd "$top" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-busy-device.XXXXXX") || exit 1
loop= holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "$loop" ] && {
		swapoff "$loop" 2>/dev/null
		umount "$tmp/mnt" 2>/dev/null
		losetup -d "$loop"
	}
	rm -rf "$tmp"
}
trap cleanup EXIT
PATH=$PATH:/sbin:/usr/sbin
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a loop device"; exit 77; }
for t in losetup mkswap swapon swapoff; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }

truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f "$tmp/img" || { echo "FAIL: mkfs on the image file"; exit 1; }
loop=$(losetup -f --show "$tmp/img" 2>/dev/null) || { echo "SKIP: no loop device"; exit 77; }

# each writer in turn: refused, a message naming the holder, nothing written
refused() { # holder pattern, then the command
	pat=$1
	shift
	cp --sparse=always "$tmp/img" "$tmp/before"
	"$@" >"$tmp/out" 2>&1 && bad "not refused: $*"
	grep -q "in use ($pat" "$tmp/out" || { bad "no 'in use ($pat' from: $*"; cat "$tmp/out"; }
	cmp -s "$tmp/img" "$tmp/before" || bad "$* wrote to the busy device"
}

untouched() { # the command fails and writes nothing
	cp --sparse=always "$tmp/img" "$tmp/before"
	"$@" >"$tmp/out" 2>&1 && bad "not refused: $*"
	cmp -s "$tmp/img" "$tmp/before" || bad "$* wrote to the busy device"
}

# swap on the device (mkswap erases the nilfs2 superblock at 1 KiB; those
# that open the device for writing first must name the swap)
if mkswap "$loop" >/dev/null 2>&1 && swapon "$loop"; then
	refused "active swap space" "$top/mkfs.nilfs2" -q -f "$loop"
	refused "active swap space" "$top/nilfs-undo" "$tmp/no-such-undo" "$loop"
	# mkswap erased the superblock: these stop before opening for writing
	untouched "$top/fsck.nilfs2" -fy "$loop"
	untouched "$top/nilfs_cleanerd" --offline "$loop"
	refused "active swap space" "$top/rmcp" "$loop" 1
	swapoff "$loop"
else
	echo "SKIP part: swapon refused here"
fi

# a mounted filesystem (ext2 through the host kernel; nilfs2 may be absent)
if command -v mke2fs >/dev/null && mke2fs -q -F "$loop" 2>/dev/null &&
	mkdir -p "$tmp/mnt" && mount "$loop" "$tmp/mnt" 2>/dev/null; then
	refused "mounted on $tmp/mnt" "$top/mkfs.nilfs2" -q -f "$loop"
	umount "$tmp/mnt"
else
	echo "SKIP part: cannot mount ext2 here"
fi

# released: the same device is writable again
"$top/mkfs.nilfs2" -q -f "$loop" || bad "mkfs on the released device"
"$top/fsck.nilfs2" -fy "$loop" >"$tmp/out" 2>&1 || { bad "fsck -fy on the released device"; cat "$tmp/out"; }

# a volume fsck -y would repair, held open exclusively by another program:
# the refusal to write is fsck's last word (not "repairing"), exit 8, and
# nothing is written
if command -v perl >/dev/null && [ -x "$top/tests/fsck/corrupt" ] &&
	"$top/tests/fsck/corrupt" sb_secondary_crc "$loop" >/dev/null; then
	perl -MFcntl -e 'sysopen(my $f, $ARGV[0], O_RDONLY | O_EXCL) or die "$!\n"; sleep 60' \
		"$loop" &
	holder=$!
	sleep 1
	cp --sparse=always "$tmp/img" "$tmp/before"
	"$top/fsck.nilfs2" -fy "$loop" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 8 ] || bad "fsck -fy on a held device: exit $rc, not 8"
	tail -n 1 "$tmp/out" | grep -q "cannot open it to repair: the device is in use" ||
		{ bad "fsck -fy on a held device: the refusal is not the last line"; cat "$tmp/out"; }
	grep -q repairing "$tmp/out" && bad "fsck -fy on a held device said 'repairing'"
	kill "$holder"
	wait "$holder" 2>/dev/null
	holder=
	cmp -s "$tmp/img" "$tmp/before" || bad "fsck -fy wrote to the held device"
else
	echo "SKIP part: a held device (perl, tests/fsck/corrupt)"
fi
exit $fail
