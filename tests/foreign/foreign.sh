# SPDX-License-Identifier: GPL-2.0-or-later
# foreign.sh - sourced by tests/foreign/t-*.sh, one a command: a mount of
# another file system is refused and left as it was.
#
# It mounts an ext4 (no journal, noatime: then its own mount and unmount
# rewrite only its superblock) through a loop device, a tmpfs, and a vfat
# where the kernel has one.  refuses CODE PROG ARGS... runs PROG once for
# each way to reach them, "@" in ARGS standing for it: the loop device, its
# backing image file and its mount point (the tmpfs: its mount point).
# Each run must exit CODE, print exactly one line naming what it was given
# and the file system type, and, where strace is installed, make no ioctl
# on a file system and no write but that line.  finish unmounts them and
# checks that each label and UUID is unchanged, and every byte of each
# image (the ext4's but its superblock, whose mount count and times the
# kernel's own mount rewrites), then exits with the verdict.
#
# Needs root and free loop devices: skipped (77) without them.
set -u
top=${top_builddir:-.}
top=$(cd "$top" && pwd)
PATH=$PATH:/sbin:/usr/sbin
ftmp=$(mktemp -d "${TMPDIR:-/tmp}/t-foreign.XXXXXX") || exit 1
floops=
fmounts=
foreign_cleanup() {
	for m in $fmounts; do umount "$m" 2>/dev/null; done
	for l in $floops; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$ftmp"
}
trap foreign_cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to mount"; exit 77; }
for t in losetup mkfs.ext4 blkid sha256sum; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# the image's checksum with bytes [SKIP_FROM, SKIP_TO) zeroed
foreign_sum() { # image skip_from skip_to
	cp --sparse=always "$1" "$ftmp/sum.img"
	[ "$2" -lt "$3" ] && dd if=/dev/zero of="$ftmp/sum.img" bs=1 seek="$2" \
		count=$(($3 - $2)) conv=notrunc status=none
	sha256sum <"$ftmp/sum.img" | cut -d' ' -f1
	rm -f "$ftmp/sum.img"
}

# one file system on a loop device: TYPE, the name the messages use, mkfs
# command, the range its own mount rewrites
targets=
foreign_loop() { # type skip_from skip_to mkfs...
	type=$1 from=$2 to=$3
	shift 3
	img=$ftmp/$type.img dir=$ftmp/$type
	truncate -s 64M "$img"
	"$@" "$img" >/dev/null 2>&1 || { echo "SKIP part: cannot make $type"; return 1; }
	blkid -p -o export -s LABEL -s UUID "$img" >"$img.id"
	foreign_sum "$img" "$from" "$to" >"$img.sum"
	loop=$(losetup -f --show "$img" 2>/dev/null) || { echo "SKIP: no loop device"; exit 77; }
	floops="$floops $loop"
	mkdir "$dir"
	mount -t "$type" -o noatime "$loop" "$dir" 2>/dev/null ||
		{ echo "SKIP part: cannot mount $type here"; return 1; }
	fmounts="$dir $fmounts"
	echo "$type $from $to $loop" >"$img.how"
	targets="$targets $type:$loop $type:$img $type:$dir"
}

foreign_loop ext4 1024 2048 mkfs.ext4 -q -F -O ^has_journal \
	-E lazy_itable_init=0,lazy_journal_init=0 -L otherfs ||
	{ echo "SKIP: no ext4 mount"; exit 77; }
if grep -qw vfat /proc/filesystems || modprobe vfat 2>/dev/null; then
	command -v mkfs.vfat >/dev/null && foreign_loop vfat 0 0 mkfs.vfat -n OTHERFS
fi
mkdir "$ftmp/tmpfs"
if mount -t tmpfs -o size=1M otherfs "$ftmp/tmpfs"; then
	fmounts="$ftmp/tmpfs $fmounts"
	echo kept >"$ftmp/tmpfs/file"
	targets="$targets tmpfs:$ftmp/tmpfs"
fi

# strace, where it is installed and may trace (a container may forbid it)
ftrace=no
command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null && ftrace=yes

refuses() { # code prog args ("@": each target)
	code=$1 prog=$2
	shift 2
	for t in $targets; do
		foreign_run "$code" "$prog" "${t%%:*}" "${t#*:}" "$@"
	done
}

foreign_run() { # code prog type target args
	code=$1 prog=$2 type=$3 target=$4
	shift 4
	n=$#
	while [ "$n" -gt 0 ]; do
		a=$1
		shift
		[ "$a" = @ ] && a=$target
		set -- "$@" "$a"
		n=$((n - 1))
	done
	trace=
	[ "$ftrace" = yes ] &&
		trace="strace -f -qq -o $ftmp/trace -e trace=ioctl,write,pwrite64,pwritev,pwritev2"
	$trace "$top/$prog" "$@" >"$ftmp/out" 2>&1 </dev/null
	rc=$?
	what="$prog $*"
	ok=0
	[ $rc -eq "$code" ] || { bad "$what: exit $rc, not $code"; ok=1; }
	[ "$(wc -l <"$ftmp/out")" -eq 1 ] || { bad "$what: not one line"; ok=1; }
	grep -q "^$prog: .*$target[:,]* .*$type.*not NILFS2" "$ftmp/out" ||
		{ bad "$what: the line names not both the object and $type"; ok=1; }
	[ $ok -eq 0 ] || sed 's/^/  | /' "$ftmp/out"
	# the terminal's own requests are harmless; the one write is the line
	[ -n "$trace" ] && grep -v -e TCGETS -e TIOCGWINSZ -e 'write(2, ' "$ftmp/trace" |
		grep -e 'ioctl(' -e 'write' >"$ftmp/calls" &&
		{ bad "$what: an ioctl or a write:"; sed 's/^/  | /' "$ftmp/calls"; }
	return 0
}

finish() {
	[ -f "$ftmp/tmpfs/file" ] && [ "$(cat "$ftmp/tmpfs/file")" = kept ] &&
		[ "$(ls -A "$ftmp/tmpfs")" = file ] || bad "the tmpfs changed"
	for m in $fmounts; do umount "$m" || bad "cannot unmount $m"; done
	fmounts=
	for l in $floops; do losetup -d "$l"; done
	floops=
	for how in "$ftmp"/*.img.how; do
		[ -f "$how" ] || continue
		read -r type from to loop <"$how"
		img=$ftmp/$type.img
		blkid -p -o export -s LABEL -s UUID "$img" | cmp -s - "$img.id" ||
			bad "the $type label or UUID changed"
		[ "$(foreign_sum "$img" "$from" "$to")" = "$(cat "$img.sum")" ] ||
			bad "the $type image changed"
	done
	exit $fail
}
