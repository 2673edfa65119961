#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-dump-stats.sh - dump.nilfs2 stats counts live blocks by the cleaner's
# rule (nlfs_gc_segment_live: the library's segment walk and
# nlfs_gc_block_live) and takes the snapshots from the cpfile's snapshot
# list.  On the volume of volume.sh, before and after nilfs-clean --offline
# deleted checkpoints (it used to stop at the first deleted checkpoint):
# two snapshots, one live-ratio count per dirty segment, and after the
# cleaning no segment below what the cleaner leaves (it cleaned every
# reclaimable one).
#
# Exit status follows automake conventions: 0 pass, 1 fail.

here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}
. "$here/volume.sh"
gc_test_init t-dump-stats mkfs.nilfs2 dump.nilfs2 nilfs-clean lscp
img=$tmp/img
gc_volume "$img" "$tmp/src"

# ratio_counts FILE: the counts of the segment_live_ratio histogram, summed
check_stats() {
	"$top/dump.nilfs2" --json "$img" stats >"$tmp/stats" 2>"$tmp/err" ||
		fail "$1: dump.nilfs2 stats: $(cat "$tmp/err")"
	grep -q '"snapshots":2,' "$tmp/stats" || fail "$1: not 2 snapshots: $(cat "$tmp/stats")"
	dirty=$(sed -n 's/.*"dirty_segments":\([0-9]*\).*/\1/p' "$tmp/stats")
	ratios=$(sed -n 's/.*"segment_live_ratio":{\([^}]*\)}.*/\1/p' "$tmp/stats" |
		tr ',' '\n' | sed 's/.*://' | awk '{ s += $1 } END { print s + 0 }')
	[ -n "$dirty" ] && [ "$dirty" = "$ratios" ] ||
		fail "$1: $dirty dirty segments, $ratios in the live-ratio histogram: $(cat "$tmp/stats")"
}
check_stats "before cleaning"
"$top/nilfs-clean" --offline -p 0 "$img" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "nilfs-clean --offline"; }
ncp=$("$top/lscp" -a "$img" | tail -n +2 | wc -l)
latest=$("$top/lscp" -a -r -n 1 "$img" | awk 'NR == 2 { print $1 }')
[ "$ncp" -lt "$latest" ] || fail "the cleaning deleted no checkpoint ($ncp of $latest left)"
check_stats "after cleaning"
echo "PASS: $(sed -n 's/.*"segment_live_ratio":\({[^}]*}\).*/\1/p' "$tmp/stats")"
exit 0
