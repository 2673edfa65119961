#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-timeline.sh - nilfs-timeline on an image, no kernel needed.  A volume
# gets 150 minor checkpoints dated over five months (gcfault dated: steps
# of 40 minutes, gaps of days and of weeks, across a new year) and two
# user snapshots.  Two runs with other buckets must leave exactly the
# snapshots the bucket rule (tests/image/timeline.sh, read independently of
# the C code) keeps plus the user's; a lost state file must demote
# nothing; and the second run, cut at each of its writes (NILFS_TEST_FAULT,
# crash and tear), must leave a volume that checks clean, holds the old
# snapshot set or the new one, a state file that names none of the user's
# snapshots, and a run after it that reaches the new set (a snapshot of
# the timeline's own may be left over, never one of the user's lost).
set -u
top=${top_builddir:-.}
for p in mkfs.nilfs2 fsck.nilfs2 lscp chcp dump.nilfs2 nilfs-timeline tests/gc/gcfault; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
export TZ=UTC0 LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-timeline.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
. "${top_srcdir:-.}/tests/image/timeline.sh"

img=$tmp/img
t0=1759276800          # 2025-10-01 00:00 UTC
truncate -s 64M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 128 -T $t0 "$img" || { echo "FAIL: mkfs"; exit 1; }
t=$t0 i=1 times=
while [ $i -le 150 ]; do
	if [ $((i % 41)) = 0 ]; then t=$((t + 40 * 86400 + 777))
	elif [ $((i % 17)) = 0 ]; then t=$((t + 3 * 86400 + 333))
	else t=$((t + 2400 + i % 7 * 60)); fi
	times="$times $t"
	i=$((i + 1))
done
last=$t
"$top/tests/gc/gcfault" dated "$img" $times || { echo "FAIL: gcfault dated"; exit 1; }
tl_cps "$img" >"$tmp/cps"
[ "$(wc -l <"$tmp/cps")" -ge 150 ] || { echo "FAIL: checkpoints"; exit 1; }

snaps() { "$top/lscp" -s "$1" | awk 'NR > 1 { print $1 }'; }
# $1: the state directory; the numbers its file names
owned() { cat "$1"/* 2>/dev/null | awk '/^[0-9]/ { print $1 }' | sort -n; }

# user snapshots: one that a bucket will keep (the last checkpoint before
# the first gap of weeks, a month's last), one that none keeps
u1=$(awk -v g=$((t0 + 40 * 86400)) '$2 < g { c = $1 } END { print c }' "$tmp/cps")
"$top/chcp" ss "$img" "$u1" 7 || { echo "FAIL: chcp ss"; exit 1; }
user=$(printf '%s\n7\n' "$u1" | sort -n)

# $1 state dir, $2 now, $3.. buckets: run, then compare with the rule
R1="-H 6 -d 5 -w 3 -m 3 -y 1" N1=$((last + 60))
R2="-H 2 -d 3 -w 1 -m 4 -y 2" N2=$((last + 20 * 86400))
check_rule() {
	_img=$1 _now=$2 _what=$3
	shift 3
	{ tl_expect "$tmp/cps" "$_now" "$@"; echo "$user"; } | sort -nu >"$tmp/want"
	snaps "$_img" >"$tmp/have"
	cmp -s "$tmp/want" "$tmp/have" || { bad "$_what: snapshots differ from the rule (- rule, + volume)"; diff "$tmp/want" "$tmp/have" | head; }
}
opts() { echo "$1" | sed 's/-[HdwmyS] //g'; }

"$top/nilfs-timeline" -q -S "$tmp/s1" $R1 --now=$N1 "$img" >"$tmp/out" 2>&1 || { cat "$tmp/out"; bad "run 1: exit $?"; }
check_rule "$img" $N1 "run 1" $(opts "$R1")
tl1=$(owned "$tmp/s1")
[ -n "$tl1" ] || bad "run 1: the state file names nothing"
echo "$tl1" | grep -qx "$u1" && bad "run 1: the state file names the user's snapshot $u1"
"$top/nilfs-timeline" -n -l -S "$tmp/s1" $R1 --now=$N1 "$img" >"$tmp/out" 2>&1
grep -q " user .*[a-z]ly " "$tmp/out" || { cat "$tmp/out"; bad "--list: no user snapshot kept by a bucket"; }
grep -q " promote \| demote " "$tmp/out" && bad "run 1 again: not idempotent"
# lscp's TIMELINE column: a date for exactly the timeline's snapshots
NILFS_TIMELINE_STATE_DIR=$tmp/s1 "$top/lscp" -a --raw --noheadings -o CNO,TIMELINE "$img" >"$tmp/out" 2>&1 ||
	bad "lscp -o TIMELINE: exit $?"
awk 'NF == 2 { print $1 }' "$tmp/out" >"$tmp/lscp-tl"
[ "$(cat "$tmp/lscp-tl")" = "$tl1" ] || bad "lscp's TIMELINE column names $(tr '\n' ' ' <"$tmp/lscp-tl"), the state $tl1"
awk 'NF != 1 && NF != 2' "$tmp/out" | grep . && bad "lscp -o TIMELINE: odd lines"
cp --sparse=always "$img" "$tmp/base" && cp -r "$tmp/s1" "$tmp/s1.base"

# run 2 as a whole: demotes and promotes
NILFS_TEST_FAULT=count "$top/nilfs-timeline" -S "$tmp/s1" $R2 --now=$N2 "$img" >"$tmp/out" 2>&1 || { cat "$tmp/out"; bad "run 2: exit $?"; }
grep -q '^promoted' "$tmp/out" && grep -q '^demoted' "$tmp/out" || { cat "$tmp/out"; bad "run 2 should promote and demote"; }
n=$(sed -n 's/^nilfs-test-fault: \([0-9]*\) writes.*/\1/p' "$tmp/out")
[ "${n:-0}" -gt 0 ] || bad "run 2: no writes counted"
check_rule "$img" $N2 "run 2" $(opts "$R2")
snaps "$tmp/base" >"$tmp/before" && snaps "$img" >"$tmp/after"

# a lost state file: nothing is demoted, the user's and the old stay
rm -rf "$tmp/s1"
"$top/nilfs-timeline" -S "$tmp/s1" -H 1 -d 0 -w 0 -m 0 -y 0 --now=$N2 "$img" >"$tmp/out" 2>&1 || bad "lost state: exit $?"
grep -q '^demoted' "$tmp/out" && bad "lost state: demoted $(grep '^demoted' "$tmp/out")"
snaps "$img" | grep -vxF -f - "$tmp/after" && bad "lost state: a snapshot went"
# a state file of another volume is refused
uuid=$("$top/dump.nilfs2" "$img" super | awk '$1 == "s_uuid" { print $2; exit }')
mkdir -p "$tmp/s1" && printf '# x\nnilfs-timeline-state 1 other\n7 1\n' >"$tmp/s1/$uuid"
"$top/nilfs-timeline" -S "$tmp/s1" --now=$N2 "$img" >"$tmp/out" 2>&1 && bad "a foreign state file was accepted"
grep -q "line 2: the state of volume other" "$tmp/out" || { cat "$tmp/out"; bad "foreign state: message"; }

# run 2 cut at every write
seen=
for mode in crash tear; do
	k=0
	while [ $k -lt "${n:-0}" ]; do
		cp --sparse=always "$tmp/base" "$tmp/cut"
		rm -rf "$tmp/s" && cp -r "$tmp/s1.base" "$tmp/s"
		NILFS_TEST_FAULT=$mode:$k "$top/nilfs-timeline" -S "$tmp/s" $R2 --now=$N2 "$tmp/cut" >"$tmp/run" 2>&1
		grep -q 'fault fired' "$tmp/run" || bad "$mode:$k: the fault did not fire"
		"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/cut" >"$tmp/fsck" 2>&1 ||
			{ bad "$mode:$k of $n: fsck.nilfs2 -fn is not clean"; grep -v '^Pass' "$tmp/fsck" | head -n 5; }
		snaps "$tmp/cut" >"$tmp/c"
		if cmp -s "$tmp/c" "$tmp/before"; then seen="$seen before"
		elif cmp -s "$tmp/c" "$tmp/after"; then seen="$seen after"
		else bad "$mode:$k of $n: snapshots neither before nor after"; diff "$tmp/before" "$tmp/c" | head -n 5
		fi
		owned "$tmp/s" | grep -xF "$user" && bad "$mode:$k: the state names a user's snapshot"
		"$top/nilfs-timeline" -q -S "$tmp/s" $R2 --now=$N2 "$tmp/cut" >"$tmp/run" 2>&1 || { cat "$tmp/run"; bad "$mode:$k: the run after failed"; }
		snaps "$tmp/cut" >"$tmp/c"
		grep -vxF -f "$tmp/c" "$tmp/after" >/dev/null && bad "$mode:$k: after a rerun, snapshots missing: $(grep -vxF -f "$tmp/c" "$tmp/after" | tr '\n' ' ')"
		grep -vxF -f "$tmp/after" "$tmp/c" | grep -vxF "$tl1" && bad "$mode:$k: after a rerun, extra snapshots that were not the timeline's"
		k=$((k + 1))
	done
done
# the space budget: a 50-block file rewritten daily; each day's version is
# its 50 data blocks, its B-tree leaf and its ifile block, held by that
# day's snapshot alone, but the latest version, which the latest
# checkpoint holds: nine versions of 52 blocks
b=$tmp/budget
truncate -s 64M "$b"
mkdir -p "$tmp/bsrc" && head -c 1000 /dev/urandom >"$tmp/bsrc/big"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 128 -T $t0 -d "$tmp/bsrc" "$b" || bad "budget: mkfs"
i=1 times=
while [ $i -le 30 ]; do times="$times $((t0 + i * 86400))"; i=$((i + 1)); done
"$top/tests/gc/gcfault" dated-rewrite "$b" /big 50 $times || bad "budget: gcfault dated-rewrite"
BN=$((t0 + 31 * 86400 + 100)) BR="-H 0 -d 10 -w 0 -m 0 -p 0"
"$top/nilfs-timeline" -n -S "$tmp/sb" $BR -M 0 --now=$BN "$b" >"$tmp/out" 2>&1
grep -qx "the timeline's snapshots alone hold 468 blocks now, 0 after (budget 0)" "$tmp/out" ||
	{ cat "$tmp/out"; bad "budget: not the 9 x 52 blocks the snapshots alone hold"; }
# the free-space limit (-F, the cleaner's min_clean_segments): with all
# 511 segments asked for, nothing may be held; the volume's clean blocks,
# the blocks nothing holds and the reserved segments come from that line
"$top/nilfs-timeline" -n -S "$tmp/sb" $BR -F 511 --now=$BN "$b" >"$tmp/out" 2>&1
set -- $(sed -n "s/^free space: \([0-9]*\) blocks clean, \([0-9]*\) more that nothing holds, the cleaner's minimum \([0-9]*\): the timeline's snapshots may hold 0$/\1 \2 \3/p" "$tmp/out")
[ $# = 3 ] && grep -qx "the timeline's snapshots alone hold 468 blocks now, 0 after" "$tmp/out" ||
	{ cat "$tmp/out"; bad "free space: -F 511 should give up all"; set -- 0 0 0; }
clean=$1 dead=$2 rsv=$(($3 / 128 - 511))
# a minimum that leaves them 72 to 200 blocks: the oldest of the thinned
# go, and what they hold after is within it
F=$(( (clean + dead + 468 - 200 + 127) / 128 - rsv ))
allowed=$((clean + dead + 468 - (F + rsv) * 128))
"$top/nilfs-timeline" -n -S "$tmp/sb" $BR -F $F --now=$BN "$b" >"$tmp/out" 2>&1
grep -qx "free space: $clean blocks clean, $dead more that nothing holds, the cleaner's minimum $(((F + rsv) * 128)): the timeline's snapshots may hold $allowed" "$tmp/out" ||
	{ cat "$tmp/out"; bad "free space: -F $F: not the limit of $allowed blocks"; }
after=$(sed -n "s/^the timeline's snapshots alone hold 468 blocks now, \([0-9]*\) after$/\1/p" "$tmp/out")
[ -n "$after" ] && [ "$after" -le "$allowed" ] && [ $((after + 52)) -gt "$allowed" ] ||
	{ cat "$tmp/out"; bad "free space: -F $F: $after blocks after, the limit $allowed"; }
grep -q "^not promoting checkpoint .*free space under the cleaner's minimum: the daily ones thinned)$" "$tmp/out" ||
	{ cat "$tmp/out"; bad "free space: -F $F: no reason given"; }
# with room to spare the count is not even made
"$top/nilfs-timeline" -n -S "$tmp/sb" $BR -F 1 --now=$BN "$b" >"$tmp/out" 2>&1
grep -q "free space\|alone hold\|demote" "$tmp/out" && { cat "$tmp/out"; bad "free space: -F 1 counted or gave up"; }
# 300 blocks: the daily bucket is the only one, so it is thinned: every
# second of 22..31 counted from the newest (31 stays, 30 goes, ...), the
# oldest first: 22, 24, 26 and 28 (468 - 4 x 52 = 260)
"$top/nilfs-timeline" -S "$tmp/sb" $BR -M 300K --now=$BN "$b" >"$tmp/out" 2>&1 || bad "budget run: exit $?"
grep -qx "the timeline's snapshots alone hold 468 blocks, 260 after (budget 300)" "$tmp/out" ||
	{ cat "$tmp/out"; bad "budget: four should go"; }
[ "$(grep -c '^promoted checkpoint .*(daily [-0-9]*)$' "$tmp/out")" = 6 ] || { cat "$tmp/out"; bad "budget: six promoted"; }
[ "$(snaps "$b" | tr '\n' ' ')" = "23 25 27 29 30 31 " ] || bad "budget: snapshots $(snaps "$b" | tr '\n' ' ')"
[ "$(owned "$tmp/sb" | tr '\n' ' ')" = "23 25 27 29 30 31 " ] || bad "budget: state $(owned "$tmp/sb" | tr '\n' ' ')"
# held again, under budget: nothing changes; at 200 blocks the round ends
# with 30, and the next round (of 23 25 27 29 31) starts with 25, demoted
"$top/nilfs-timeline" -S "$tmp/sb" $BR -M 300K --now=$BN "$b" >"$tmp/out" 2>&1 || bad "budget rerun: exit $?"
grep -q '^promoted\|^demoted' "$tmp/out" && bad "budget rerun: changed $(cat "$tmp/out")"
"$top/nilfs-timeline" -S "$tmp/sb" $BR -M 200K --now=$BN "$b" >"$tmp/out" 2>&1 || bad "budget 200: exit $?"
[ "$(grep -c '^demoted snapshot \(25\|30\) to a checkpoint (daily [-0-9]*; over the space budget: the daily ones thinned)$' "$tmp/out")" = 2 ] ||
	{ cat "$tmp/out"; bad "budget 200: 25 and 30 should be demoted, thinned"; }
grep -qx "the timeline's snapshots alone hold 468 blocks, 156 after (budget 200)" "$tmp/out" ||
	{ cat "$tmp/out"; bad "budget 200: 156 blocks after"; }
"$top/fsck.nilfs2" -fn --checkpoints=all "$b" >"$tmp/fsck" 2>&1 || { bad "budget: fsck"; tail -n 5 "$tmp/fsck"; }

echo "ok: run 2 cut at each of $n writes, torn and lost:$(echo $seen | tr ' ' '\n' | sort | uniq -c | awk '{ printf " %s %s", $2, $1 }')"
[ $fail = 0 ] && echo "PASS: $0"
[ $fail = 0 ]
