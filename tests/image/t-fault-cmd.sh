#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fault-cmd.sh - the commands under NILFS_TEST_FAULT (common/io_open.c),
# no kernel needed.  A volume made by our mkfs.nilfs2 -d gets 60 checkpoints
# from offline chcp (every construction is one), a few snapshots, and an
# offline rmcp of most of them, so that whole cpfile blocks empty and old
# metadata blocks die.  Then each of: the offline cleaner (which deletes
# whole cpfile blocks of checkpoints and moves live blocks), mkcp -s,
# chcp ss, rmcp, runs once to count its writes and again with the power
# cut at every one of them, torn and lost.  Every cut volume must check
# clean (fsck.nilfs2 -fn --checkpoints=all), hold the same tree (dump.nilfs2
# extract), and list the checkpoints of the volume before the command or
# after it (the cleaner, which commits pass by pass: a set in between).
set -u
top=${top_builddir:-.}
for p in mkfs.nilfs2 fsck.nilfs2 lscp mkcp chcp rmcp dump.nilfs2 nilfs_cleanerd; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fault-cmd.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

. "${top_srcdir:-.}/tests/image/fault.sh"
img=$tmp/img
truncate -s 64M "$img"
fault_volume "$img" 600000 -b 1024 -B 128
"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: the base volume"; exit 1; }

printf 'protection_period 0\nmax_clean_segments 100%%\nmin_reclaimable_blocks 0%%\nnsegments_per_clean 2\n' >"$tmp/conf"
for job in "clean:$top/nilfs_cleanerd --offline -c $tmp/conf" "mkcp:$top/mkcp -s" \
	"chcp:$top/chcp ss IMG 51" "rmcp:$top/rmcp IMG 51..52"; do
	name=${job%%:*} cmd=${job#*:}
	case $cmd in *IMG*) ;; *) cmd="$cmd IMG" ;; esac
	whole_run "$img" || continue
	[ "$name" != clean ] || ! cmp -s "$tmp/a.cps" "$tmp/b.cps" || bad "clean: deleted no checkpoint"
	maxb=$(awk 'END { print $1 }' "$tmp/b.cps")
	seen=
	for mode in crash tear; do
		k=0
		while [ $k -lt "$n" ]; do
			cp --sparse=always "$img" "$tmp/cut"
			run "$mode:$k" "$tmp/cut"
			grep -q 'fault fired' "$tmp/run" || bad "$name $mode:$k: the fault did not fire"
			"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/cut" >"$tmp/fsck" 2>&1 ||
				{ bad "$name $mode:$k of $n: fsck.nilfs2 -fn is not clean:"; grep -v '^Pass' "$tmp/fsck" | head -n 8; }
			state "$tmp/cut" "$tmp/c"
			cmp -s "$tmp/c.tree" "$tmp/b.tree" || bad "$name $mode:$k of $n: the tree differs"
			if cmp -s "$tmp/c.cps" "$tmp/b.cps"; then
				seen="$seen before"
			elif cmp -s "$tmp/c.cps" "$tmp/a.cps"; then
				seen="$seen after"
			elif [ "$name" = clean ] &&
				! awk -v m="$maxb" '$1 <= m' "$tmp/c.cps" | grep -v -x -F -f "$tmp/b.cps" >/dev/null &&
				! awk -v m="$maxb" '$1 <= m' "$tmp/a.cps" | grep -v -x -F -f "$tmp/c.cps" >/dev/null; then
				seen="$seen between"
			else
				bad "$name $mode:$k of $n: checkpoints neither before nor after:"
				diff "$tmp/b.cps" "$tmp/c.cps" | head -n 6
			fi
			k=$((k + 1))
		done
	done
	summary states
done
[ $fail = 0 ] && echo "PASS: $0"
[ $fail = 0 ]
