#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-timeline-budget.sh - the snapshot timeline's space limits against the
# real kernel, with a moved clock.  Every day (date -s in the guest) a
# large file (FILE_MIB, a sixth of the volume) is overwritten whole at
# 00:10, and a small one changed at 01:10 ... 05:10, each followed by a
# sync, on three volumes of the same history:
#   A  VOL_MIB, our nilfs_cleanerd with the timeline (hourly 4, daily 6,
#      weekly 2), timeline_max_space 30% and min_clean_segments 20%;
#   B  VOL_MIB, the same timeline without a budget, but
#      min_clean_segments 40%: the free-space limit alone;
#   C  four times as large, no cleaner: what the timeline would hold
#      there without a limit, counted at the end (nilfs-timeline -n -M).
# At 05:30 the daemon of A, then B's, is started (its first turn runs the
# timeline), two manual cleaning runs are waited for (nilfs-clean --wait)
# and the daemon stopped.  Each of the daily versions of the large file is held
# by that day's snapshot alone, so without a limit the timeline's
# snapshots would hold more than A's whole volume.  It must hold: no
# write ever fails and A and B always have free space (df), A's daemon
# says each day what its snapshots alone hold and that is within the
# budget after, the budget gives up the oldest first (the log says so),
# B's free-space limit gives snapshots up too (its log says why), the
# volumes check clean (our fsck.nilfs2 on the host), and C's count is more
# than A's volume.  The figures of all three are printed.
#
# DAYS (default 14, from a Monday), FILE_MIB (4) and VOL_MIB (24) make it
# longer or larger: bench/timeline-budget.sh runs it long.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
ktest_require mkfs.nilfs2 fsck.nilfs2 nilfs-timeline nilfs_cleanerd nilfs-clean
. "$here/ours.sh"
export LC_ALL=C
DAYS=${DAYS:-14} FILE_MIB=${FILE_MIB:-4} VOL_MIB=${VOL_MIB:-24}
ktest_tmp t-timeline-budget T_TIMELINE_KEEP
ktest_outs=out

t0=1735516800    # Monday 2024-12-30 00:00 UTC
# 4 KiB blocks, 128-block (512 KiB) segments
for v in a b; do
	truncate -s ${VOL_MIB}M "$tmp/$v"
	"$top/mkfs.nilfs2" -q -f -b 4096 -B 128 -T $((t0 - 3600)) "$tmp/$v" || fail "mkfs $v"
done
truncate -s $((VOL_MIB * 4))M "$tmp/c"
"$top/mkfs.nilfs2" -q -f -b 4096 -B 128 -T $((t0 - 3600)) "$tmp/c" || fail "mkfs c"
pack_ours "$tmp/ours.tar" "$top/nilfs-timeline" "$top/nilfs_cleanerd" "$top/nilfs-clean" ||
	fail "pack_ours"
BUCKETS="-H 4 -d 6 -w 2 -m 0 -y 0"

cat >"$tmp/g" <<GUEST
t0=$t0 days=$DAYS mib=$FILE_MIB buckets="$BUCKETS"
GUEST
cat >>"$tmp/g" <<'GUEST'
export TZ=UTC
mkdir -p /ours && tar -xf /dev/vdb -C /ours || { echo "NO TOOLS"; exit 1; }
export LD_LIBRARY_PATH=/ours/lib
date -s "@$t0" >/dev/null || { echo "DATE FAILED"; exit 1; }
mkdir -p /mnt/a /mnt/b /mnt/c
mount -t nilfs2 /dev/vda /mnt/a && mount -t nilfs2 /dev/vdc /mnt/b &&
	mount -t nilfs2 /dev/vdd /mnt/c || { echo "MOUNT FAILED"; exit 1; }
conf() {   # $1 volume, then extra keys
	v=$1
	shift
	{
		echo "protection_period 0"; echo "clean_check_interval 1"
		echo "cleaning_interval 0.1"; echo "mc_cleaning_interval 0.1"
		echo "nsegments_per_clean 16"; echo "mc_nsegments_per_clean 16"
		echo "log_priority info"; echo "timeline_hourly 4"; echo "timeline_daily 6"
		echo "timeline_weekly 2"; echo "timeline_state_dir /tmp/st$v"
		for k in "$@"; do echo "$k"; done
	} >/tmp/$v.conf
}
conf a "min_clean_segments 20%" "max_clean_segments 30%" "timeline_max_space 30%"
conf b "min_clean_segments 40%" "max_clean_segments 50%"
# the available KiB of a volume (df)
avail() { df -k "$1" | awk 'NR == 2 { print $4 }'; }
# one turn of a volume's daemon: its timeline, a cleaning pass, stopped
turn() {   # $1 volume, $2 device, $3 day
	/ours/bin/nilfs_cleanerd -n --stderr -c /tmp/$1.conf $2 /mnt/$1 2>>/tmp/log$1.$3 &
	pid=$!
	i=0
	until /ours/bin/nilfs-clean -l $2 >/dev/null 2>&1 || [ $i -ge 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	# two manual runs: one now and then ends having cleaned nothing (the
	# segments held for recovery until the daemon has the superblocks
	# written), and a turn a day must clean
	/ours/bin/nilfs-clean --wait -p 0 $2 >/dev/null 2>&1 || echo "CLEAN FAILED $1 $3"
	sleep 1
	/ours/bin/nilfs-clean --wait -p 0 $2 >/dev/null 2>&1 || echo "CLEAN FAILED $1 $3"
	/ours/bin/nilfs-clean -q $2 >/dev/null 2>&1 || echo "STOP FAILED $1 $3"
	wait $pid
	sed "s/^/LOG$1 $3 /" /tmp/log$1.$3
}
d=0
while [ $d -lt $days ]; do
	base=$((t0 + d * 86400))
	date -s "@$((base + 600))" >/dev/null
	for v in a b c; do
		dd if=/dev/urandom of=/mnt/$v/big bs=64k count=$((mib * 16)) conv=notrunc 2>/dev/null &&
			sync || echo "WRITE FAILED $v $d"
	done
	for h in 1 2 3 4 5; do
		date -s "@$((base + h * 3600 + 600))" >/dev/null
		for v in a b c; do
			echo "day $d hour $h" >/mnt/$v/small && sync || echo "WRITE FAILED $v $d $h"
		done
	done
	echo "LOW $d $(avail /mnt/a) $(avail /mnt/b)"
	date -s "@$((base + 5 * 3600 + 1800))" >/dev/null
	turn a /dev/vda $d
	turn b /dev/vdc $d
	echo "DAY $d $(avail /mnt/a) $(avail /mnt/b) $(lscp -s /dev/vda | awk 'NR > 1' | wc -l) $(lscp -s /dev/vdc | awk 'NR > 1' | wc -l)"
	d=$((d + 1))
done
# C: what the timeline would hold without a limit (its plan, counted)
/ours/bin/nilfs-timeline -n -S /tmp/stc $buckets -M 100% -p 0 /mnt/c | sed 's/^/RUNC /'
umount /mnt/a && umount /mnt/b && umount /mnt/c || echo "UMOUNT FAILED"
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid' | sed 's/^/KMSG /'
echo GUEST DONE
GUEST
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-$((300 + DAYS * FILE_MIB * 10))} \
	"$guest" run "$tmp/g" "$tmp/a" "$tmp/ours.tar" "$tmp/b" "$tmp/c" >"$tmp/out" 2>&1 ||
	fail "guest exited $?"
grep -qx "GUEST DONE" "$tmp/out" || fail "guest did not finish"
! grep -q 'FAILED\|^KMSG\|NO TOOLS' "$tmp/out" || fail "$(grep 'FAILED\|^KMSG\|NO TOOLS' "$tmp/out" | head -n 3)"
[ "$(grep -c '^DAY ' "$tmp/out")" = "$DAYS" ] || fail "not $DAYS days"
blocks=$((VOL_MIB * 256)) budget=$((VOL_MIB * 256 * 30 / 100))
# A: each day, what the timeline's snapshots alone hold, within the budget
# after; the maximum before and after
sed -n "s/^LOGa \([0-9]*\) .*timeline: its snapshots alone hold \([0-9]*\) blocks, \([0-9]*\) after the budget of \([0-9]*\)$/\1 \2 \3 \4/p" \
	"$tmp/out" >"$tmp/held-a"
# (or the free-space limit's line, on a day that limit is the lower)
[ $(($(wc -l <"$tmp/held-a") + $(grep -c "^LOGa .*timeline: free space under" "$tmp/out"))) -ge $((DAYS - 1)) ] ||
	fail "A: the daemon did not say what its snapshots hold each day"
# (30% of the segments' blocks: the volume less its superblock's segment)
awk -v b=$budget '$4 > b || $4 < b * 0.9 || $3 > $4 { exit 1 }' "$tmp/held-a" ||
	fail "A: over a budget of 30% after a run (day, before, after, budget): $(awk -v b=$budget '$4 > b || $4 < b * 0.9 || $3 > $4' "$tmp/held-a" | head -n 1)"
budget=$(awk '{ print $4; exit }' "$tmp/held-a")
grep -q "^LOGa .*timeline: demoted snapshot to a checkpoint: .*over the space budget: the oldest go first" "$tmp/out" ||
	grep -q "^LOGa .*timeline: not promoted: .*over the space budget: the oldest go first" "$tmp/out" ||
	fail "A: the budget gave up nothing, or did not say why"
# B: the free-space limit gave up snapshots, and said why
grep -q "^LOGb .*timeline: free space under the cleaner's minimum: .* after$" "$tmp/out" ||
	fail "B: the free-space limit never counted"
grep -q "^LOGb .*timeline: demoted snapshot to a checkpoint: .*free space under the cleaner's minimum: " "$tmp/out" ||
	fail "B: the free-space limit gave up no snapshot"
! grep -q "^LOGb .*over the space budget" "$tmp/out" || fail "B has no budget"
# never full: free space every day, at the low point and after the turn
set -- $(sed -n 's/^LOW [0-9]* //p; s/^DAY [0-9]* \([0-9]*\) \([0-9]*\) .*/\1 \2/p' "$tmp/out" |
	awk 'NR == 1 || $1 < a { a = $1 } NR == 1 || $2 < b { b = $2 } END { print a, b }')
mina=$1 minb=$2
[ "$mina" -gt 0 ] && [ "$minb" -gt 0 ] || fail "a volume filled: A $mina KiB, B $minb KiB available at the lowest"
# C: without a limit
held_c=$(sed -n "s/^RUNC the timeline's snapshots alone hold \([0-9]*\) blocks now, .*/\1/p" "$tmp/out")
[ -n "$held_c" ] || fail "C: no count"
[ "$held_c" -gt "$blocks" ] || fail "C: without a limit the timeline's snapshots hold $held_c blocks, not more than A's $blocks"
for v in a b; do
	"$top/fsck.nilfs2" -fn "$tmp/$v" >"$tmp/fsck" 2>&1 || { tail -n 5 "$tmp/fsck"; fail "$v: fsck.nilfs2 -fn"; }
done
maxa=$(awk 'NR == 1 || $2 > m { m = $2 } END { print m }' "$tmp/held-a")
maxa2=$(awk 'NR == 1 || $3 > m { m = $3 } END { print m }' "$tmp/held-a")
snaps=$(sed -n 's/^DAY [0-9]* [0-9]* [0-9]* \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$tmp/out" | tail -n 1)
mib() { echo "$(($1 * 4 / 1024)) MiB"; }
echo "ok: $DAYS days of a $FILE_MIB MiB file overwritten daily on $VOL_MIB MiB volumes"
echo "ok: A, budget 30% ($(mib $budget)): the timeline's snapshots held at most $(mib $maxa) alone before a run, $(mib $maxa2) after; at least $mina KiB available; ${snaps% *} snapshots at the end"
echo "ok: B, min_clean_segments 40%: at least $minb KiB available; ${snaps#* } snapshots at the end; $(grep -c "^LOGb .*timeline: demoted.*free space" "$tmp/out") given up for free space"
echo "ok: without a limit (C): the timeline's snapshots would hold $(mib $held_c) alone, $((held_c * 100 / blocks))% of A's volume"
echo "PASS: $0"
