#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/clean-offline.sh: offline cleaning throughput.  The real kernel (in
# the qemu guest) fills a volume with a hot/cold overwrite workload and a
# snapshot; then the offline cleaner runs on the image, and its time is
# compared with reading the cleaned segments once and writing the bytes it
# moved once (dd, with a final fdatasync), measured in the same run: each
# RUNS times (default 3) in turn, on a fresh copy of the image with cold
# caches (as root), and the medians compared.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
guest=$top/tests/kernel/guest.sh
gc=$top/nilfs_cleanerd
mkfs=$top/mkfs.nilfs2
SIZE_MIB=${SIZE_MIB:-1024}
POLICY=${POLICY:-cost-benefit}
RUNS=${RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-clean-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$gc" ] && [ -x "$mkfs" ] || { echo "build first " >&2; exit 1; }
"$guest" check-deps >/dev/null || { echo "kernel harness dependencies missing" >&2; exit 1; }

img=$work/img
truncate -s ${SIZE_MIB}M "$img"
"$mkfs" -q -f -B 512 "$img"
nfiles=$((SIZE_MIB / 8))
cat >"$work/script" <<GUEST
mount -t nilfs2 /dev/vda /mnt || exit 1
i=0
while [ \$i -lt $nfiles ]; do
	dd if=/dev/urandom of=/mnt/f\$i bs=1M count=2 2>/dev/null
	i=\$((i + 1))
done
sync
mkcp -s /dev/vda
# hot files: the first eighth, rewritten four times
r=0
while [ \$r -lt 4 ]; do
	i=0
	while [ \$i -lt $((nfiles / 8)) ]; do
		dd if=/dev/urandom of=/mnt/f\$i bs=1M count=2 conv=notrunc 2>/dev/null
		i=\$((i + 1))
	done
	sync
	r=\$((r + 1))
done
umount /mnt
echo WORKLOAD DONE
GUEST
NILFS_KTEST_TIMEOUT=1800 "$guest" run "$work/script" "$img" | grep -q 'WORKLOAD DONE'

printf 'protection_period 0\nselection_policy %s\nmax_clean_segments 100%%\nnsegments_per_clean 4\nmin_reclaimable_blocks 1\n' \
	"$POLICY" >"$work/conf"
seg_bytes=$((512 * 4096))
cold() {
	sync
	[ "$(id -u)" = 0 ] && echo 3 >/proc/sys/vm/drop_caches || true
}
# the host is shared: each side RUNS times, in turn, and the medians compared
: >"$work/gc.t"
: >"$work/base.t"
run=1
while [ $run -le "$RUNS" ]; do
	cp --sparse=always "$img" "$work/run.img"
	cold
	t0=$(date +%s.%N)
	"$gc" --offline -c "$work/conf" "$work/run.img" >"$work/gc.out"
	t1=$(date +%s.%N)
	[ $run -gt 1 ] || sed "s|$work/run.img|image|" "$work/gc.out"
	segs=$(sed -n 's/.* \([0-9]*\) segments cleaned.*/\1/p' "$work/gc.out")
	moved=$(sed -n 's/.*cleaned, \([0-9]*\) blocks moved.*/\1/p' "$work/gc.out")
	rm -f "$work/out"
	cold
	t2=$(date +%s.%N)
	dd if="$img" of=/dev/null bs=$seg_bytes count="$segs" 2>/dev/null
	dd if=/dev/zero of="$work/out" bs=4096 count="$moved" conv=fdatasync 2>/dev/null
	t3=$(date +%s.%N)
	echo "$t1 - $t0" | bc >>"$work/gc.t"
	echo "$t3 - $t2" | bc >>"$work/base.t"
	run=$((run + 1))
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
gc_t=$(median "$work/gc.t")
base_t=$(median "$work/base.t")
read_bytes=$((segs * seg_bytes))
write_bytes=$((moved * 4096))
printf 'offline cleaner: %d segments (%d MiB read), %d blocks moved (%d MiB written): %.3f s\n' \
	"$segs" $((read_bytes >> 20)) "$moved" $((write_bytes >> 20)) "$gc_t"
printf 'read the same segments once and write the same bytes once: %.3f s\n' "$base_t"
printf 'median of %d runs each (cleaner: %s s; read+write: %s s)\n' "$RUNS" \
	"$(tr '\n' ' ' <"$work/gc.t" | sed 's/ $//')" "$(tr '\n' ' ' <"$work/base.t" | sed 's/ $//')"
printf 'ratio (offline cleaner / read+write once): %.2f\n' "$(echo "$gc_t / $base_t" | bc -l)"
