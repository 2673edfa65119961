#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-gc-crash.sh - the offline cleaner loses power at every write.
# On the volume of volume.sh one cleaning pass over everything reclaimable
# deletes whole cpfile blocks whose last copies sit in the victim segments.
# The pass then runs once for each write index K and each way of losing
# power at it (write torn, written, failed); what the disk keeps must pass
# fsck.nilfs2 -fn --checkpoints=all and be the old volume or the cleaned
# one: the same lscp -a, the same bytes in the latest tree and in every
# snapshot.
#
# Exit status follows automake conventions: 0 pass, 1 fail.

here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}
. "$here/volume.sh"
gc_test_init t-gc-crash mkfs.nilfs2 lscp fsck.nilfs2 dump.nilfs2
img=$tmp/img
gc_volume "$img" "$tmp/src"

state() {   # the checkpoints and trees of image $1
	"$top/lscp" -a "$1" && "$gf" digest "$1"
}
TZ=UTC state "$img" >"$tmp/old" || fail "the old state"
now=$(date +%s)
"$gf" clean "$img" "$tmp/new.img" "$now" 999999 fail >"$tmp/run" || fail "the clean pass"
read -r _ _ segs _ moved _ freed _ deleted _ nwrites <"$tmp/run"
echo "one pass: $segs segments, $moved blocks moved, $freed freed, $deleted checkpoints deleted, $nwrites writes"
"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/new.img" >"$tmp/fsck" 2>&1 ||
	{ grep -v '^Pass' "$tmp/fsck" | head -n 20; fail "fsck.nilfs2 after the clean pass"; }
TZ=UTC state "$tmp/new.img" >"$tmp/new" || fail "the new state"
cmp -s "$tmp/old" "$tmp/new" && fail "the pass changed nothing"
# at least two whole cpfile blocks went
[ "$deleted" -ge 10 ] || fail "only $deleted checkpoints deleted"

# the same victims walked the other way round (the live copies of the
# emptied cpfile blocks now come before the blocks whose death empties
# them) must come to the same result
dirty() { "$top/dump.nilfs2" "$1" segments | awk 'NR > 2 { print $1 }'; }
victims=$(dirty "$img" | grep -vxF "$(dirty "$tmp/new.img")" | sort -rn | tr '\n' ' ')
[ -n "$victims" ] || fail "no segment was cleaned"
cp "$img" "$tmp/rev.img"
"$gf" order "$tmp/rev.img" "$now" $victims >/dev/null || fail "cleaning segments $victims in that order"
"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/rev.img" >"$tmp/fsck" 2>&1 ||
	{ grep -v '^Pass' "$tmp/fsck" | head -n 20; fail "fsck.nilfs2 after cleaning $victims in that order"; }
TZ=UTC state "$tmp/rev.img" >"$tmp/rev" || fail "the state after cleaning $victims"
if ! cmp -s "$tmp/new" "$tmp/rev"; then
	diff "$tmp/new" "$tmp/rev" | head -n 20
	fail "cleaning $victims in that order differs from the pass"
fi

k=0
seen_old=0 seen_new=0
while [ $k -lt "$nwrites" ]; do
	for mode in torn whole fail; do
		out=$tmp/crash.img
		"$gf" clean "$img" "$out" "$now" $k $mode >"$tmp/run" ||
			fail "write $k ($mode): the pass"
		if ! "$top/fsck.nilfs2" -fn --checkpoints=all "$out" >"$tmp/fsck" 2>&1; then
			grep -v '^Pass' "$tmp/fsck" | head -n 20
			[ -n "${T_KEEP:-}" ] && cp "$out" "$tmp/bad-$k-$mode.img"
			fail "write $k ($mode): fsck.nilfs2 finds faults"
		fi
		TZ=UTC state "$out" >"$tmp/got" 2>&1
		if cmp -s "$tmp/got" "$tmp/old"; then
			seen_old=$((seen_old + 1))
		elif cmp -s "$tmp/got" "$tmp/new"; then
			seen_new=$((seen_new + 1))
		else
			diff "$tmp/new" "$tmp/got" | head -n 20
			fail "write $k ($mode): neither the old state nor the new"
		fi
	done
	k=$((k + 1))
done
[ $seen_old -gt 0 ] && [ $seen_new -gt 0 ] || fail "old $seen_old times, new $seen_new times"
echo "ours: power lost at each of $nwrites writes, 3 ways: old state $seen_old times, new $seen_new, fsck clean every time"
echo "PASS: $0"
exit 0
