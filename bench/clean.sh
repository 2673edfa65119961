#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/clean.sh: write amplification of the cleaner, per selection policy,
# under the real kernel (qemu TCG guest, see tests/kernel/README.md).
#
# For each cleaner a fresh volume (VOL_MIB MiB, 2 MiB segments) gets one
# file of FILL_PCT % of its size; then ROUNDS times the volume size is
# overwritten in CHUNK pieces, HOT_WRITES % of them in the first HOT_SPACE %
# of the file (hot), the rest spread over the other part (cold), with an
# fdatasync every 4 MiB, while the cleaner runs (protection period 0,
# thresholds 10 % / 20 %, fast steps, min_reclaimable_blocks 10 % / 1 %).
# Cleaners (CLEANERS, default all four): ours with timestamp, greedy and
# cost-benefit, and nilfs-tools' nilfs_cleanerd (timestamp, its only
# policy) as the reference; all get the same configuration file.
# Each cleaner runs in a guest of its own (NILFS_KTEST_TIMEOUT seconds at
# most, default 900), so one that hangs loses only its own result; the
# script then names it and exits 1.  REPEAT=N does all of it N times
# (seeds SEED, SEED+1, ...; each run the same writes for every cleaner) and
# ends with the mean, min and max.
# CLEAN_BENCH_LOG=FILE keeps the guest's syslog, CLEAN_LOG_PRIORITY=debug
# makes the daemons say more there.  KEEP_IMAGES=DIR keeps each cleaner's
# aged volume as DIR/CLEANER-SEED.img (bench/fsck.sh CASE=aged checks one).
#
# Printed per cleaner:
#   user MiB     bytes the workload wrote
#   device MiB   bytes written to the device meanwhile (/sys/block/*/stat)
#   dev/user     device write amplification (log headers, metadata and
#                the cleaner's copies included; comparable for all four)
#   moved/user   blocks our cleaner copied (its "blocks moved" counter) per
#                block written by the workload: the cleaner's own write
#                amplification (ours only)
#   other/user   dev/user less the user's blocks and the copies: what the
#                kernel adds (summaries, DAT, B-tree nodes, super roots),
#                mostly for the user's own writes, which no victim choice
#                changes (ours only)
#   stall s      time the workload waited on ENOSPC
# Not run by make check.  One run of the four at the default 512 MiB took
# 28 minutes on a busy two-core host (7 per cleaner); VOL_MIB=256 takes
# about a third of that.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD:-$top}
guest=$top/tests/kernel/guest.sh
VOL_MIB=${VOL_MIB:-512}
FILL_PCT=${FILL_PCT:-60}
ROUNDS=${ROUNDS:-3}
CHUNK=${CHUNK:-65536}
HOT_SPACE=${HOT_SPACE:-10}
HOT_WRITES=${HOT_WRITES:-90}
SEED=${SEED:-1}
REPEAT=${REPEAT:-1}
ref=$(PATH=/usr/sbin:/sbin:$PATH command -v nilfs_cleanerd || true)

"$guest" check-deps || exit 1
for p in "$build/mkfs.nilfs2" "$build/nilfs_cleanerd" "$build/nilfs-clean"; do
	[ -x "$p" ] || { echo "not built: $p (set BUILD=)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-clean-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/clean-workload" "$here/clean-workload.c"
extra="$work/clean-workload $build/nilfs_cleanerd $build/nilfs-clean"
runs=${CLEANERS:-timestamp greedy cost-benefit nilfs-tools}
case " $runs " in *" nilfs-tools "*) want_ref=1 ;; *) want_ref= ;; esac
if [ -z "$want_ref" ]; then
	:
elif [ -n "$ref" ]; then
	# another name: ours is /ktest/bin/nilfs_cleanerd in the guest
	cp "$ref" "$work/nilfs_cleanerd_ref"
	extra="$extra $work/nilfs_cleanerd_ref"
else
	echo "nilfs-tools' nilfs_cleanerd not found: no reference run" >&2
	runs=$(echo "$runs" | sed 's/nilfs-tools//')
fi

fill=$((VOL_MIB * 1024 * 1024 / 100 * FILL_PCT / CHUNK * CHUNK))
total=$((VOL_MIB * 1024 * 1024 * ROUNDS))

cat >"$work/script" <<EOF
export PATH=/ktest/bin:\$PATH
syslogd -n -O /tmp/messages &
r=CLEANERV
dev=vda
keeplog=KEEPLOGV
fill=$fill
total=$total
EOF
cat >>"$work/script" <<'EOF'
cat >/tmp/base.conf <<'CONF'
min_clean_segments	10%
max_clean_segments	20%
clean_check_interval	1
nsegments_per_clean	4
mc_nsegments_per_clean	8
cleaning_interval	0.5
mc_cleaning_interval	0.1
retry_interval		5
use_set_suinfo
min_reclaimable_blocks	10%
mc_min_reclaimable_blocks	1%
log_priority		LOGPRIO
CONF
# a workload that writes nothing for a minute is wedged: say what the
# cleaner, the kernel and the processes are doing, then stop the guest
watchdog() {
	last= idle=0
	while sleep 10; do
		w=$(awk '{ print $7 }' /sys/block/$1/stat)
		if [ "$w" = "$last" ]; then idle=$((idle + 10)); else idle=0; fi
		last=$w
		[ $idle -ge 60 ] || continue
		echo "WEDGED $2: no write to /dev/$1 for $idle s"
		lssu /dev/$1 | awk 'NR > 1' | wc -l | sed 's/^/WEDGE segments in use: /'
		df -k /mnt | sed 's/^/WEDGE /'
		nilfs-clean -l -v /dev/$1 2>&1 | sed 's/^/WEDGE /'
		ps -o pid,stat,args | sed 's/^/WEDGE /'
		for p in $(pidof nilfs_cleanerd nilfs_cleanerd_ref clean-workload); do
			echo "WEDGE $p: $(cat /proc/$p/comm) in $(cat /proc/$p/wchan)"
			sed "s/^/WEDGE $p /" /proc/$p/stack 2>/dev/null
		done
		tail -n 40 /tmp/messages | sed 's/^/WEDGE /'
		echo "WEDGED FAILED $2"
		# unmounting may hang as well: end the guest, the host reports it
		poweroff -f
	done
}
# one cleaner on one volume: each gets a guest of its own
if ! mount -t nilfs2 /dev/$dev /mnt; then
	echo "MOUNT FAILED $dev"
	exit 1
fi
clean-workload fill /mnt/data $fill >/dev/null || echo "FILL FAILED $r"
sync
w0=$(awk '{ print $7 }' /sys/block/$dev/stat)
if [ $r = nilfs-tools ]; then
	{ cat /tmp/base.conf; echo "selection_policy timestamp"; } >/tmp/$r.conf
	nilfs_cleanerd_ref -p 0 -c /tmp/$r.conf /dev/$dev /mnt || echo "START FAILED $r"
else
	{ cat /tmp/base.conf; echo "selection_policy $r"; } >/tmp/$r.conf
	nilfs_cleanerd -p 0 -c /tmp/$r.conf /dev/$dev /mnt || echo "START FAILED $r"
fi
t0=$(date +%s)
watchdog $dev $r &
wd=$!
out=$(clean-workload run /mnt/data $total CHUNKSZ HOTSPACE HOTWRITES SEEDV)
kill $wd 2>/dev/null
sync
t1=$(date +%s)
w1=$(awk '{ print $7 }' /sys/block/$dev/stat)
moved=-
if [ $r = nilfs-tools ]; then
	pid=$(pidof nilfs_cleanerd_ref || true)
	[ -n "$pid" ] && kill $pid
	sleep 2
else
	moved=$(nilfs-clean -l -v /dev/$dev | sed -n 's/^blocks moved: //p')
	nilfs-clean -q /dev/$dev
	sleep 1
fi
clean=$(lssu /dev/$dev | awk 'NR > 1' | wc -l)
umount /mnt || echo "UMOUNT FAILED $r"
echo "RESULT $r $out sectors $((w1 - w0)) moved $moved seconds $((t1 - t0)) dirty $clean"
grep -E 'nilfs_cleanerd' /tmp/messages | grep -iE '\.(err|warn|crit)' | sed 's/^/LOGWARN /'
if [ -n "$keeplog" ]; then sed "s/^/LOG /" /tmp/messages; fi
EOF
sed -i -e "s/CHUNKSZ/$CHUNK/" -e "s/HOTSPACE/$HOT_SPACE/" -e "s/HOTWRITES/$HOT_WRITES/" \
	-e "s/KEEPLOGV/${CLEAN_BENCH_LOG:+1}/" -e "s/LOGPRIO/${CLEAN_LOG_PRIORITY:-info}/" "$work/script"

echo "volume ${VOL_MIB} MiB, file ${FILL_PCT}%, ${ROUNDS}x the volume overwritten in" \
	"$CHUNK-byte pieces, ${HOT_WRITES}% of them to ${HOT_SPACE}% of the file, $REPEAT run(s)"
failed=
: >"$work/all"
rep=1
while [ $rep -le "$REPEAT" ]; do
	# each run its own seed: the same sequence of writes for every cleaner of the run
	: >"$work/out"
	for r in $runs; do
		# one boot per cleaner, so a cleaner that hangs or runs out of time
		# loses only its own result
		rm -f "$work/img"
		truncate -s "${VOL_MIB}M" "$work/img"
		"$build/mkfs.nilfs2" -q -f -b 4096 -B 512 "$work/img"
		sed -e "s/SEEDV/$((SEED + rep - 1))/" -e "s/CLEANERV/$r/" \
			"$work/script" >"$work/script.$rep"
		st=0
		# shellcheck disable=SC2086
		NILFS_KTEST_EXTRA="$extra" NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900} \
			NILFS_KTEST_MEM=768 "$guest" run "$work/script.$rep" "$work/img" \
			>"$work/out.$r" 2>&1 || st=$?
		cat "$work/out.$r" >>"$work/out"
		if [ -n "${KEEP_IMAGES:-}" ] && [ $st -eq 0 ]; then
			mkdir -p "$KEEP_IMAGES"
			mv "$work/img" "$KEEP_IMAGES/$r-$((SEED + rep - 1)).img"
		fi
		if [ $st -ne 0 ] || grep -q FAILED "$work/out.$r" ||
			! grep -q "^RESULT $r " "$work/out.$r"; then
			echo "run $rep, $r: guest exited $st, no result:" >&2
			grep '^WEDGE' "$work/out.$r" >&2 || tail -n 30 "$work/out.$r" >&2
			failed="$failed $r/$rep"
		fi
	done
	if [ -n "${CLEAN_BENCH_LOG:-}" ]; then
		grep '^LOG ' "$work/out" | cut -c5- >>"$CLEAN_BENCH_LOG" || true
	fi
	[ "$REPEAT" -gt 1 ] && echo "run $rep (seed $((SEED + rep - 1))):"
	printf '%-14s %9s %10s %9s %11s %11s %8s %7s\n' cleaner "user MiB" "device MiB" dev/user \
		moved/user other/user "stall s" "time s"
	awk -v bs=4096 '$1 == "RESULT" {
		user = $4; stalled = $6 / 1000; dev = $8 * 512; moved = $10
		mu = moved == "-" ? "-" : sprintf("%.3f", moved * bs / user)
		ou = moved == "-" ? "-" : sprintf("%.3f", (dev - user - moved * bs) / user)
		printf "%-14s %9.1f %10.1f %9.3f %11s %11s %8.1f %7d\n", $2, user / 1048576,
		       dev / 1048576, dev / user, mu, ou, stalled, $12
	}' "$work/out"
	grep '^RESULT' "$work/out" >>"$work/all" || true
	n=$(grep -c '^LOGWARN .*nearly full' "$work/out" || true)
	echo "emergency phases logged: $n"
	grep '^LOGWARN' "$work/out" | grep -v 'nearly full' | sed 's/^LOGWARN /syslog: /' |
		head -n 20
	rep=$((rep + 1))
done
[ -z "$failed" ] || echo "runs without a result:$failed" >&2
[ "$REPEAT" -gt 1 ] || { [ -z "$failed" ]; exit; }
echo "over $REPEAT runs, mean (min-max):"
printf '%-14s %-23s %-23s %s\n' cleaner dev/user moved/user "dev/user vs nilfs-tools"
awk -v bs=4096 -v order="$runs" '$1 == "RESULT" {
	c = $2; user = $4; du = $8 * 512 / user
	n[c]++; sd[c] += du
	if (n[c] == 1 || du < lo[c]) lo[c] = du
	if (n[c] == 1 || du > hi[c]) hi[c] = du
	if ($10 != "-") {
		mu = $10 * bs / user; sm[c] += mu
		if (n[c] == 1 || mu < mlo[c]) mlo[c] = mu
		if (n[c] == 1 || mu > mhi[c]) mhi[c] = mu
	}
}
END {
	ref = n["nilfs-tools"] ? sd["nilfs-tools"] / n["nilfs-tools"] : 0
	k = split(order, names, " ")
	for (i = 1; i <= k; i++) {
		c = names[i]
		if (!n[c]) continue
		d = sprintf("%.3f (%.3f-%.3f)", sd[c] / n[c], lo[c], hi[c])
		m = c == "nilfs-tools" ? "-" : sprintf("%.3f (%.3f-%.3f)", sm[c] / n[c], mlo[c], mhi[c])
		r = ref ? sprintf("%.2fx", sd[c] / n[c] / ref) : "-"
		printf "%-14s %-23s %-23s %s\n", c, d, m, r
	}
}' "$work/all"
[ -z "$failed" ]
