#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# For the same options, our mkfs.nilfs2 writes the superblock nilfs-tools'
# mkfs.nilfs2 writes (UUID, CRC seed, checksum and times aside), the same
# first log (summary, files, blocks), and refuses the sizes it refuses.
set -u
top="${top_builddir:-.}"
dump="$top/dump.nilfs2"
ours="$top/mkfs.nilfs2"
theirs=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2)
if [ -z "$theirs" ] || [ "$theirs" = "$ours" ]; then
	echo "SKIP: nilfs-tools' mkfs.nilfs2 is not installed"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ncmp=0

# fields that differ by design: identity, seed, checksum, clock
normalise() {
	grep -vE '^ *(s_crc_seed|s_sum|s_uuid|s_ctime|s_wtime|s_lastcheck) ' |
		sed -E 's/(datasum|sumsum|sr_sum) [0-9a-fx]+/\1 -/g; s/create [0-9]+/create -/g'
}

compare() { # size, then mkfs options
	size=$1
	shift
	for who in ours theirs; do
		img=$tmp/$who.img
		rm -f "$img"
		truncate -s "$size" "$img"
		if [ $who = ours ]; then prog=$ours; else prog=$theirs; fi
		"$prog" -q -f "$@" "$img" >"$tmp/$who.out" 2>&1
		echo "rc=$?" >"$tmp/$who.rc"
		{ "$dump" "$img" super; "$dump" "$img" summaries; "$dump" "$img" checkpoints;
		  "$dump" "$img" segments | head -n 4; } 2>&1 | normalise >"$tmp/$who.dump"
	done
	if ! cmp -s "$tmp/ours.rc" "$tmp/theirs.rc"; then
		echo "FAIL: $size $*: exit status ours $(cat "$tmp/ours.rc"), theirs $(cat "$tmp/theirs.rc")"
		cat "$tmp/ours.out" "$tmp/theirs.out"
		fail=1
		return
	fi
	grep -q 'rc=0' "$tmp/ours.rc" || { ncmp=$((ncmp + 1)); return; }
	# nilfs-tools 2.2.9 also writes .nilfs (inode 11) and ACTIVE flags; compare the superblocks
	sed -n '/^primary/,/^secondary/p' "$tmp/ours.dump" >"$tmp/ours.sb"
	sed -n '/^primary/,/^secondary/p' "$tmp/theirs.dump" >"$tmp/theirs.sb"
	if ! cmp -s "$tmp/ours.sb" "$tmp/theirs.sb"; then
		echo "FAIL: $size $*: superblocks differ (- ours, + nilfs-tools)"
		diff -u "$tmp/ours.sb" "$tmp/theirs.sb" | head -n 30
		fail=1
		return
	fi
	ncmp=$((ncmp + 1))
}

compare 256M
compare 64M -b 1024 -B 256
compare 128M -b 2048 -B 512 -m 10
compare 1G -b 4096 -B 4096 -m 1 -L "a label"
compare 300M -B 16
compare 200M -b 1024 -B 16 -m 99
compare 64M            # too small for 8 MiB segments: both refuse
compare 1M -b 1024 -B 16
compare 3G -b 4096 -B 8192 -O block_count
[ $fail -eq 0 ] && echo "PASS: $ncmp option sets compared with nilfs-tools' mkfs.nilfs2"
exit $fail
