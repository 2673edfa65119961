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
# contents written just before its checkpoint.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
"$guest" require || exit
for p in mkfs.nilfs2 nilfs-timeline; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
. "$here/ours.sh"
. "${top_srcdir:-$here/../..}/tests/image/timeline.sh"
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-timeline.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- guest output (last 40 lines) ---"; tail -n 40 "$tmp/out"; exit 1; }

t0=1735689600    # 2025-01-01 00:00 UTC
img=$tmp/img
truncate -s 128M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 256 -T $((t0 - 3600)) "$img" || fail "mkfs"
pack_ours "$tmp/ours.tar" "$top/nilfs-timeline" || fail "pack_ours"
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

cat >"$tmp/g" <<GUEST
t=$t0 steps="$steps" R1="$R1" R2="$R2" R3="$R3"
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
	echo "STATE$r $(cat /tmp/state/* | awk 'NR > 2 { print $1 }' | tr '\n' ' ')"
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
for r in 1 2 3; do
	eval "opts=\$R$r"
	now=$(sed -n "s/^NOW$r //p" "$tmp/out")
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
	echo "ok: run $r: $n snapshots ($(grep -c "^RUN$r promoted" "$tmp/out") promoted, $(grep -c "^RUN$r demoted" "$tmp/out") demoted)"
done
grep -q '^RUN2 demoted' "$tmp/out" && grep -q '^RUN3 demoted' "$tmp/out" || fail "runs 2 and 3 demoted nothing"
echo "PASS: $0"
