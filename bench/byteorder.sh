#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/byteorder.sh [IMAGE.xz...]: the library on a big-endian CPU.
#
# bench/byteorder-dump.c is built twice from lib/'s sources, for this host
# and for s390x (big-endian), and run on each image (by default the
# kernel-written ones of tests/fsck/images), the s390x one under
# qemu-user: what it reads (superblocks, cpfile, sufile, every checkpoint,
# segment, inode, directory entry, each pair of checkpoints' difference,
# every file's versions) must print the same, and the checkpoint the
# writer adds and the offline cleaner's pass must leave the same bytes in
# the image.  A volume made as mkfs -d makes one (500 files, two
# directories, fixed time and UUID) must come out the same, byte for
# byte, and read the same.  Needs qemu-user, gcc-s390x-linux-gnu and
# libc6-dev-s390x-cross (Debian); without them it says so and exits 77.
set -u
src=$(cd "$(dirname "$0")/.." && pwd) || exit 1
CC_BE=${CC_BE:-s390x-linux-gnu-gcc}
QEMU_BE=${QEMU_BE:-qemu-s390x}
for tool in "$CC_BE" "$QEMU_BE" "${CC:-cc}" xz cmp; do
	command -v "$tool" >/dev/null || {
		echo "skip: no $tool (apt-get install qemu-user gcc-s390x-linux-gnu libc6-dev-s390x-cross)"
		exit 77
	}
done
[ $# -gt 0 ] || set -- "$src"/tests/fsck/images/kernel-rich.img.xz "$src"/tests/fsck/images/kernel-1k.img.xz
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
flags="-std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -O2 -Wall -Wextra -I$src/include"
# shellcheck disable=SC2086
"${CC:-cc}" $flags -o "$tmp/dump-host" "$src"/bench/byteorder-dump.c "$src"/lib/*.c "$src"/lib/*/*.c ||
	exit 1
# shellcheck disable=SC2086
"$CC_BE" $flags -static -o "$tmp/dump-be" "$src"/bench/byteorder-dump.c "$src"/lib/*.c "$src"/lib/*/*.c ||
	exit 1
fail=0
# run NAME ARGS...: the dump on both CPUs, the host's writing into
# $tmp/NAME.host and the big-endian one's into $tmp/NAME.be (ARGS name
# them by @); then their outputs and those two images compared
run() {
	name=$1
	shift
	"$tmp/dump-host" $(echo "$@" | sed "s|@|$tmp/$name.host|") >"$tmp/host.out" 2>&1
	hrc=$?
	"$QEMU_BE" "$tmp/dump-be" $(echo "$@" | sed "s|@|$tmp/$name.be|") >"$tmp/be.out" 2>&1
	brc=$?
	if [ $hrc -ne 0 ]; then
		echo "FAIL: $name: the host's run failed (exit $hrc):"
		grep '^!' "$tmp/host.out" | head -5
		fail=1
	elif [ $brc -ne 0 ] || ! cmp -s "$tmp/host.out" "$tmp/be.out"; then
		echo "FAIL: $name: big-endian reads differ (exit $brc); first differences:"
		diff "$tmp/host.out" "$tmp/be.out" | head -10
		fail=1
	elif ! cmp -s "$tmp/$name.host" "$tmp/$name.be"; then
		echo "FAIL: $name: the big-endian writer wrote other bytes:"
		cmp "$tmp/$name.host" "$tmp/$name.be" | head -3
		fail=1
	else
		echo "ok: $name: $(wc -l <"$tmp/host.out") lines read alike on s390x" \
		     "($("$QEMU_BE" -version | head -1 | cut -d' ' -f1-3)), written images identical"
	fi
}
for img in "$@"; do
	name=$(basename "$img" .xz)
	xz -dc "$img" >"$tmp/$name" || exit 1
	cp "$tmp/$name" "$tmp/$name.host"
	cp "$tmp/$name" "$tmp/$name.be"
	run "$name" "$tmp/$name" @
done
# a new volume, made on both
truncate -s 64M "$tmp/new-volume.host" "$tmp/new-volume.be"
run new-volume --new @
exit $fail
