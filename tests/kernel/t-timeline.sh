#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-timeline.sh - nilfs-timeline against the real kernel with a moved
# clock.  In the guest the clock is set forward (date -s) between small
# writes and syncs, so the kernel's own checkpoints span more than a year:
# steps of 40 minutes, gaps of days and of weeks; two user snapshots (one a
# bucket keeps, one none does) are taken with nilfs-tools' mkcp -s.  Our
# nilfs-timeline then runs on the mounted volume (the kernel's ioctls),
# again with fewer buckets (demotions), and once more offline on the
# unmounted device.  After each run the set of snapshots must equal the
# bucket rule computed here on the host from nilfs-tools' lscp output
# (tests/image/timeline.sh, independent of the C code) plus the user's
# snapshots, and every snapshot must mount (-o ro,cp=N) and hold the
# contents written just before its checkpoint.  Last, our nilfs_cleanerd
# with timeline_* keys and the same state directory takes over on the
# mounted volume: it must reach the rule's set too (demoting the
# command's snapshots it no longer keeps), log each change, and its
# cleaning must then reclaim segments that only demoted checkpoints held
# (lssu before and after, the demoted checkpoints gone).  Last, the
# command on the mounted volume with a budget of nothing gives up every
# snapshot of the timeline's, after counting what they hold.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
ktest_require mkfs.nilfs2 nilfs-timeline nilfs_cleanerd nilfs-clean
. "$here/ours.sh"
. "${top_srcdir:-$here/../..}/tests/image/timeline.sh"
export LC_ALL=C
ktest_tmp t-timeline T_TIMELINE_KEEP
ktest_outs=out

t0=1735689600    # 2025-01-01 00:00 UTC
img=$tmp/img
truncate -s 128M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 256 -T $((t0 - 3600)) "$img" || fail "mkfs"
pack_ours "$tmp/ours.tar" "$top/nilfs-timeline" "$top/nilfs_cleanerd" "$top/nilfs-clean" ||
	fail "pack_ours"
# the steps (seconds): a day of 40-minute steps, then a few days, then a
# gap of five weeks, repeated across more than a year
steps=
i=1
while [ $i -le 110 ]; do
	if [ $((i % 13)) = 0 ]; then steps="$steps $((45 * 86400 + 100))"
	elif [ $((i % 5)) = 0 ]; then steps="$steps $((2 * 86400 + 50))"
	else steps="$steps $((2400 + i * 7))"; fi
	i=$((i + 1))
done
R1="-H 5 -d 4 -w 3 -m 6 -y 2" R2="-H 2 -d 2 -w 1 -m 3 -y 1" R3="-H 1 -d 1 -w 0 -m 2 -y 0"
R4="-H 0 -d 0 -w 0 -m 1 -y 1"

cat >"$tmp/g" <<GUEST
t=$t0 steps="$steps" R1="$R1" R2="$R2" R3="$R3" R4="$R4"
GUEST
cat >>"$tmp/g" <<'GUEST'
export TZ=UTC
mkdir -p /ours && tar -xf /dev/vdb -C /ours || { echo "NO TOOLS"; exit 1; }
export LD_LIBRARY_PATH=/ours/lib
TL=/ours/bin/nilfs-timeline
date -s "@$t" >/dev/null || { echo "DATE FAILED"; exit 1; }
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
i=0
for s in $steps; do
	t=$((t + s))
	date -s "@$t" >/dev/null
	echo "state $i" >/mnt/f
	sync
	cno=$(lscp | tail -n 1 | awk '{ print $1 }')
	echo "WROTE $cno $i"
	case $i in 30|71) mkcp -s /dev/vda && echo "USER $(lscp -s | tail -n 1 | awk '{ print $1 }')" ;; esac
	i=$((i + 1))
done
# $1 run, $2 now, $3 the target, rest: options
run() {
	r=$1 now=$2 target=$3
	shift 3
	date -s "@$now" >/dev/null
	echo "NOW$r $now"
	$TL -S /tmp/state --now="$now" "$@" "$target" | sed "s/^/RUN$r /" || echo "RUN$r FAILED"
	echo "STATE$r $(cat /tmp/state/* | awk '/^[0-9]/ { print $1 }' | tr '\n' ' ')"
}
snaps() {
	lscp -a /dev/vda | awk -v r=$1 'NR > 1 { print "CP" r, $1, $2, $3 }'
	lscp -s /dev/vda | awk -v r=$1 'NR > 1 { print "SS" r, $1 }'
	mkdir -p /mnt2
	for c in $(lscp -s /dev/vda | awk 'NR > 1 { print $1 }'); do
		mount -t nilfs2 -o ro,cp=$c /dev/vda /mnt2 || { echo "SNAPMOUNT FAILED $c"; continue; }
		echo "SNAP$1 $c $(cat /mnt2/f 2>/dev/null | tr ' ' _)"
		umount /mnt2
	done
}
run 1 $((t + 600)) /mnt $R1
snaps 1
run 2 $((t + 40 * 86400)) /mnt $R2
snaps 2
umount /mnt || echo "UMOUNT FAILED"
run 3 $((t + 80 * 86400)) /dev/vda $R3
mount -t nilfs2 /dev/vda /mnt || echo "MOUNT FAILED after offline run"
snaps 3
# the daemon, 20 minutes into an hour, with R4 as configuration keys
now=$(( (t / 3600 + 120 * 24) * 3600 + 1200 ))
date -s "@$now" >/dev/null
echo "NOW4 $now"
lscp -a /dev/vda | awk 'NR > 1 { print "CP4", $1, $2, $3 }'
echo "DIRTY4A $(lssu /dev/vda | awk 'NR > 1' | wc -l)"
set -- $R4
{
	echo "protection_period 0"; echo "min_clean_segments 0"; echo "clean_check_interval 0.5"
	echo "cleaning_interval 0.1"; echo "nsegments_per_clean 8"; echo "log_priority info"
	echo "timeline_hourly $2"; echo "timeline_daily $4"; echo "timeline_weekly $6"
	echo "timeline_monthly $8"; echo "timeline_yearly ${10}"; echo "timeline_state_dir /tmp/state"
} >/tmp/c.conf
syslogd -n -O /tmp/messages &
sleep 0.3
/ours/bin/nilfs_cleanerd -c /tmp/c.conf /dev/vda /mnt || echo "CLEANERD FAILED"
i=0
while ! grep -q 'timeline: demoted' /tmp/messages && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
/ours/bin/nilfs-clean --wait -p 0 /dev/vda >/dev/null 2>&1 || echo "NILFS-CLEAN FAILED"
/ours/bin/nilfs-clean -q /dev/vda || echo "STOP FAILED"
sleep 1
grep 'nilfs_cleanerd' /tmp/messages | sed 's/^.*nilfs_cleanerd[^:]*: /LOG /'
echo "DIRTY4B $(lssu /dev/vda | awk 'NR > 1' | wc -l)"
lscp -a /dev/vda | awk 'NR > 1 { print "CPAFTER4", $1 }'
echo "STATE4 $(cat /tmp/state/* | awk '/^[0-9]/ { print $1 }' | tr '\n' ' ')"
snaps 4
# a budget of nothing on the mounted volume: the count read from the
# device, and every snapshot of the timeline's given up
run 5 $now /mnt $R4 -p 0 -M 0
snaps 5
umount /mnt || echo "UMOUNT FAILED"
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid' | sed 's/^/KMSG /'
echo GUEST DONE
GUEST
"$guest" run "$tmp/g" "$img" "$tmp/ours.tar" >"$tmp/out" 2>&1 || fail "guest exited $?"
grep -qx "GUEST DONE" "$tmp/out" || fail "guest did not finish"
! grep -q 'FAILED\|^KMSG\|NO TOOLS' "$tmp/out" || fail "$(grep 'FAILED\|^KMSG\|NO TOOLS' "$tmp/out" | head -n 3)"
user=$(sed -n 's/^USER //p' "$tmp/out" | sort -n)
[ "$(echo "$user" | wc -w)" = 2 ] || fail "no user snapshots"
first=$(sed -n 's/^CP1 \([0-9]*\) \([-0-9]*\) .*/\1 \2/p' "$tmp/out" | head -n 1)
last=$(sed -n 's/^CP1 \([0-9]*\) \([-0-9]*\) .*/\2/p' "$tmp/out" | tail -n 1)
span=$(( $(date -u -d "$last" +%s) - $(date -u -d "${first#* }" +%s) ))
[ $span -gt $((366 * 86400)) ] || fail "the checkpoints span only $span s"
for r in 1 2 3 4; do
	eval "opts=\$R$r"
	now=$(sed -n "s/^NOW$r //p" "$tmp/out")
	[ -n "$now" ] || fail "run $r: no time"
	sed -n "s/^CP$r //p" "$tmp/out" | awk '{ print $2, $3 }' | TZ=UTC0 date -f - +%s |
		paste -d' ' - /dev/null | sed 's/ $//' >"$tmp/t$r"
	sed -n "s/^CP$r \([0-9]*\) .*/\1/p" "$tmp/out" | paste -d' ' - "$tmp/t$r" >"$tmp/cps$r"
	{ tl_expect "$tmp/cps$r" "$now" $(echo "$opts" | sed 's/-[Hdwmy] //g'); echo "$user"; } |
		sort -nu >"$tmp/want$r"
	sed -n "s/^SS$r //p" "$tmp/out" | sort -n >"$tmp/have$r"
	cmp -s "$tmp/want$r" "$tmp/have$r" || { diff "$tmp/want$r" "$tmp/have$r"; fail "run $r: snapshots differ from the rule (- rule, + volume)"; }
	for u in $user; do
		grep -qx "$u" "$tmp/have$r" || fail "run $r: the user's snapshot $u is gone"
		sed -n "s/^STATE$r //p" "$tmp/out" | tr ' ' '\n' | grep -qx "$u" && fail "run $r: the state names the user's snapshot $u"
	done
	# each snapshot holds what was written just before its checkpoint
	sed -n "s/^SNAP$r //p" "$tmp/out" | while read -r c content; do
		want=$(sed -n 's/^WROTE \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$tmp/out" |
			awk -v c="$c" '$1 <= c { v = "state_" $2 } END { print v }')
		[ "$content" = "$want" ] || { echo "run $r: snapshot $c holds '$content', not '$want'"; exit 1; }
	done || fail "run $r: a snapshot's contents"
	n=$(wc -l <"$tmp/have$r")
	pre="^RUN$r" && [ $r = 4 ] && pre="^LOG .*timeline:"
	echo "ok: run $r: $n snapshots ($(grep -c "$pre promoted" "$tmp/out") promoted, $(grep -c "$pre demoted" "$tmp/out") demoted)"
	[ $r = 4 ] && [ "$n" -le 2 ] && fail "run 4 left only the user's snapshots"
done
# run 5: a budget of nothing gives up every snapshot of the timeline's
# that holds anything alone (one holding nothing costs nothing), the
# user's stay
for u in $user; do
	grep -qx "SS5 $u" "$tmp/out" || fail "run 5 (-M 0): the user's snapshot $u is gone"
done
grep -q '^RUN5 demoted snapshot .*over the space budget' "$tmp/out" || fail "run 5 (-M 0): nothing demoted"
held=$(sed -n "s/^RUN5 the timeline's snapshots alone hold \([0-9]*\) blocks, 0 after (budget 0)$/\1/p" "$tmp/out")
[ -n "$held" ] && [ "$held" -gt 0 ] || fail "run 5: no count of what the timeline's snapshots hold"
for c in $(sed -n 's/^STATE5 //p' "$tmp/out"); do
	grep -qx "SS5 $c" "$tmp/out" || fail "run 5: the state names $c, not a snapshot"
done
echo "ok: run 5: a budget of 0 gave up the timeline's snapshots that alone held $held blocks"
# the daemon's cleaning reclaimed what the demoted checkpoints held
grep -q '^LOG .*timeline: demoted' "$tmp/out" || fail "the daemon demoted nothing"
grep -q '^LOG .*timeline: promoted' "$tmp/out" || fail "the daemon promoted nothing"
a=$(sed -n 's/^DIRTY4A //p' "$tmp/out") b=$(sed -n 's/^DIRTY4B //p' "$tmp/out")
[ "$b" -lt "$a" ] || fail "the cleaner reclaimed no segment ($a in use before, $b after)"
gone=0
for c in $(sed -n -e 's/^LOG .*timeline: demoted snapshot to a checkpoint: \([0-9]*\) .*/\1/p' \
	-e 's/^RUN[23] demoted snapshot \([0-9]*\) .*/\1/p' "$tmp/out"); do
	grep -qx "CPAFTER4 $c" "$tmp/out" || gone=$((gone + 1))
done
[ $gone -gt 0 ] || fail "no demoted checkpoint was reclaimed"
for c in $(sed -n 's/^SS4 //p' "$tmp/out"); do
	grep -qx "CPAFTER4 $c" "$tmp/out" || fail "snapshot $c is gone after cleaning"
done
echo "ok: the daemon: $a segments in use before cleaning, $b after; $gone demoted checkpoints reclaimed"
grep -q '^RUN2 demoted' "$tmp/out" && grep -q '^RUN3 demoted' "$tmp/out" || fail "runs 2 and 3 demoted nothing"
echo "PASS: $0"
