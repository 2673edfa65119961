#!/bin/sh
# bench/clean.sh: write amplification of the cleaner, per selection policy,
# under the real kernel (qemu TCG guest, see tests/kernel/README.md).
#
# For each cleaner a fresh volume (VOL_MIB MiB, 2 MiB segments) gets one
# file of FILL_PCT % of its size; then ROUNDS times the volume size is
# overwritten in CHUNK pieces, HOT_WRITES % of them in the first HOT_SPACE %
# of the file (hot), the rest spread over the other part (cold), with an
# fdatasync every 4 MiB, while the cleaner runs (protection period 0,
# thresholds 10 % / 20 %, fast steps, min_reclaimable_blocks 10 % / 1 %).
# Cleaners: ours with timestamp, greedy and cost-benefit, and nilfs-tools'
# nilfs_cleanerd (timestamp, its only policy) as the reference.
#
# Printed per cleaner:
#   user MiB     bytes the workload wrote
#   device MiB   bytes written to the device meanwhile (/sys/block/*/stat)
#   dev/user     device write amplification (log headers, metadata and
#                the cleaner's copies included; comparable for all four)
#   moved/user   blocks our cleaner copied (its "blocks moved" counter) per
#                block written by the workload: the cleaner's own write
#                amplification (ours only)
#   stall s      time the workload waited on ENOSPC
# Not run by make check.  Takes several minutes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD:-$top}
guest=$top/tests/kernel/guest.sh
VOL_MIB=${VOL_MIB:-256}
FILL_PCT=${FILL_PCT:-60}
ROUNDS=${ROUNDS:-3}
CHUNK=${CHUNK:-65536}
HOT_SPACE=${HOT_SPACE:-10}
HOT_WRITES=${HOT_WRITES:-90}
SEED=${SEED:-1}
ref=$(PATH=/usr/sbin:/sbin:$PATH command -v nilfs_cleanerd || true)

"$guest" check-deps || exit 1
for p in "$build/mkfs.nilfs2" "$build/nilfs_cleanerd" "$build/nilfs-clean"; do
	[ -x "$p" ] || { echo "not built: $p (set BUILD=)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-clean-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/clean-workload" "$here/clean-workload.c"
extra="$work/clean-workload $build/nilfs_cleanerd $build/nilfs-clean"
runs="timestamp greedy cost-benefit"
if [ -n "$ref" ]; then
	# another name: ours is /ktest/bin/nilfs_cleanerd in the guest
	cp "$ref" "$work/nilfs_cleanerd_ref"
	extra="$extra $work/nilfs_cleanerd_ref"
	runs="$runs nilfs-tools"
else
	echo "nilfs-tools' nilfs_cleanerd not found: no reference run" >&2
fi

imgs=
n=0
for r in $runs; do
	truncate -s "${VOL_MIB}M" "$work/img$n"
	"$build/mkfs.nilfs2" -q -f -b 4096 -B 512 "$work/img$n"
	imgs="$imgs $work/img$n"
	n=$((n + 1))
done
fill=$((VOL_MIB * 1024 * 1024 / 100 * FILL_PCT / CHUNK * CHUNK))
total=$((VOL_MIB * 1024 * 1024 * ROUNDS))

cat >"$work/script" <<EOF
export PATH=/ktest/bin:\$PATH
syslogd -n -O /tmp/messages &
runs="$runs"
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
log_priority		info
CONF
set -- vda vdb vdc vdd
for r in $runs; do
	dev=$1
	shift
	mount -t nilfs2 /dev/$dev /mnt || { echo "MOUNT FAILED $dev"; continue; }
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
	out=$(clean-workload run /mnt/data $total CHUNKSZ HOTSPACE HOTWRITES SEEDV)
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
done
grep -E 'nilfs_cleanerd' /tmp/messages | grep -iE '\.(err|warn|crit)' | sed 's/^/LOGWARN /'
EOF
sed -i -e "s/CHUNKSZ/$CHUNK/" -e "s/HOTSPACE/$HOT_SPACE/" -e "s/HOTWRITES/$HOT_WRITES/" \
	-e "s/SEEDV/$SEED/" "$work/script"

echo "volume ${VOL_MIB} MiB, file ${FILL_PCT}%, ${ROUNDS}x the volume overwritten in" \
	"$CHUNK-byte pieces, ${HOT_WRITES}% of them to ${HOT_SPACE}% of the file"
# shellcheck disable=SC2086
NILFS_KTEST_EXTRA="$extra" NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-5400} NILFS_KTEST_MEM=768 \
	"$guest" run "$work/script" $imgs >"$work/out" 2>&1 || { cat "$work/out"; exit 1; }
grep -E 'FAILED' "$work/out" && { cat "$work/out"; exit 1; }
printf '%-14s %9s %10s %9s %11s %8s %7s\n' cleaner "user MiB" "device MiB" dev/user \
	moved/user "stall s" "time s"
awk -v bs=4096 '$1 == "RESULT" {
	user = $4; stalled = $6 / 1000; dev = $8 * 512; moved = $10
	mu = moved == "-" ? "-" : sprintf("%.3f", moved * bs / user)
	printf "%-14s %9.1f %10.1f %9.3f %11s %8.1f %7d\n", $2, user / 1048576,
	       dev / 1048576, dev / user, mu, stalled, $12
}' "$work/out"
n=$(grep -c '^LOGWARN .*nearly full' "$work/out" || true)
echo "emergency phases logged: $n"
grep '^LOGWARN' "$work/out" | grep -v 'nearly full' | sed 's/^LOGWARN /syslog: /' | head -n 20
