#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One mount lookup per command: each command that acts on a mounted volume
# online and on an unmounted one offline (through common/vol.c, the offline
# cleaner, nilfs-tune, nilfs-resize, nilfs-clean, nilfs_cleanerd) and
# mkfs.nilfs2 scans the loop devices in /sys/block once for an image file,
# where each had looked the mount up twice or three times (a check, then
# the lookup, then the open's own).  As root, with the image behind a loop
# device that is not mounted, the mount table is read once too, and
# nilfs_cleanerd given the loop device reads it once to find the volume not
# mounted (it read it twice, and a third time to open a mounted one).  The messages and exit codes of
# the mounted cases are tests/foreign's (another file system) and the
# kernel tests' (t-lscp, t-tune-label-online, t-tune-resize, t-cleanerd).
set -u
top=${top_builddir:-.}
top=$(cd "$top" && pwd)
PATH=$PATH:/sbin:/usr/sbin
command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null ||
	{ echo "SKIP: strace is not installed or may not trace here"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-mount-lookups.XXXXXX") || exit 1
loop=
trap '[ -n "$loop" ] && losetup -d "$loop"; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

printf 'protection_period 0\n' >conf
truncate -s 256M n.img
"$top/mkfs.nilfs2" -q -f n.img || { echo "FAIL: mkfs"; exit 1; }

# once CODE TABLES COMMAND...: COMMAND exits CODE, opens /sys/block once
# and the mount table TABLES times
once() {
	code=$1 tables=$2
	shift 2
	strace -f -qq -o trace -e trace=openat,open "$top/$@" >out 2>&1 </dev/null
	rc=$?
	scans=$(grep -c '"/sys/block", ' trace)
	reads=$(grep -c 'mountinfo' trace)
	if [ "$rc" = "$code" ] && [ "$scans" = 1 ] && [ "$reads" = "$tables" ]; then
		echo "ok: $*: exit $rc, one scan of the loop devices, $reads mount table read(s)"
	else
		bad "$*: exit $rc (expected $code), /sys/block opened $scans times (expected once), the mount table $reads (expected $tables)"
		sed 's/^/  | /' out
	fi
}

commands() { # TABLES: how often the mount table is read
	once 0 "$1" lscp n.img
	once 1 "$1" rmcp n.img 1
	grep -q "checkpoint 1 is the latest of the unmounted volume" out || bad "rmcp's message: $(cat out)"
	once 0 "$1" mkcp -s n.img
	once 0 "$1" nilfs-tune -L lookups n.img
	once 0 "$1" nilfs-resize -y n.img 200M
	once 0 "$1" nilfs-clean --offline -p 0 n.img
	once 0 "$1" nilfs_cleanerd --offline -c "$tmp/conf" n.img
	once 1 "$1" nilfs_cleanerd -c "$tmp/conf" n.img
	grep -q 'n.img: not a block device' out || bad "nilfs_cleanerd's message: $(cat out)"
	once 1 "$1" nilfs-clean n.img
	grep -q 'n.img: not a mounted NILFS2 volume' out || bad "nilfs-clean's message: $(cat out)"
	once 0 "$1" mkfs.nilfs2 -q -f n.img
	once 0 "$1" mkfs.nilfs2 -n -f n.img
}

# an image file no loop device backs: the table is not needed
commands 0
if [ "$(id -u)" -eq 0 ] && loop=$(losetup -f --show n.img 2>/dev/null); then
	commands 1
	strace -f -qq -o trace -e trace=openat,open "$top/nilfs_cleanerd" -c "$tmp/conf" "$loop" \
		>out 2>&1 </dev/null
	rc=$? reads=$(grep -c 'mountinfo' trace)
	if [ $rc = 1 ] && [ "$reads" = 1 ] && grep -q "$loop: not mounted" out; then
		echo "ok: nilfs_cleanerd $loop: exit 1, not mounted, one mount table read"
	else
		bad "nilfs_cleanerd $loop: exit $rc, the mount table read $reads times (expected once)"
		sed 's/^/  | /' out
	fi
else
	echo "SKIP part: the loop device (needs root and a free one)"
fi
exit $fail
