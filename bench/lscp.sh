#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lscp.sh: lscp on a volume with NCP (default 100000) checkpoints.
#
# The real kernel makes them in the qemu guest (tests/kernel), as fast as it
# can: one dirty block and one NILFS_IOCTL_SYNC each (tests/kernel/cpgen),
# on 1 KiB blocks (5 checkpoints a cpfile block).  Then, in the guest, our
# lscp against nilfs-tools' on the mounted volume (plain, -r, -s; each the
# best of REPS runs, the cpfile in the kernel's cache), our lscp offline on
# the unmounted device (cold: the kernel drops a block device's cache at its
# last close; then warm, the device held open), and on the host our lscp on
# the image file; our lscp -J and --raw (libsmartcols) on the mounted volume.
# Prints the times and the ratios to nilfs-tools.
#
# Not part of make check: making the checkpoints takes about 10 minutes under
# TCG.  KEEP_IMAGE=path keeps the image; IMAGE=path measures an image kept
# before instead of making one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
guest=$here/../tests/kernel/guest.sh
NCP=${NCP:-100000}
REPS=${REPS:-3}
. "$here/../tests/kernel/ours.sh"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-lscp.XXXXXX")
trap 'rm -rf "$work"' EXIT

for p in lscp tests/kernel/cpgen; do
	[ -x "$top/$p" ] || { echo "build first (make check builds tests/kernel/cpgen): $top/$p missing" >&2; exit 1; }
done
"$guest" check-deps >/dev/null || { echo "kernel harness dependencies missing" >&2; exit 1; }
mkfs=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2)

if [ -n "${IMAGE:-}" ]; then
	img=$IMAGE
	make=0
else
	# about 18 KiB of log per checkpoint
	img=$work/cp.img
	truncate -s $((NCP / 1000 * 25 + 512))M "$img"
	"$mkfs" -q -f -b 1024 "$img"
	make=1
fi
pack_ours "$work/ours.tar" "$top/lscp" "$top/tests/kernel/cpgen"
cat >"$work/script" <<GUEST
NCP=$NCP REPS=$REPS MAKE=$make
GUEST
cat >>"$work/script" <<'GUEST'
export TZ=UTC LD_LIBRARY_PATH=/ours/lib
mkdir -p /ours && tar -xf /dev/vdb -C /ours || exit 1
now() { read up idle </proc/uptime; echo "$up"; }
# run NAME CMD...: time one run, output kept in /tmp/NAME
run() {
	name=$1
	shift
	s0=$(now)
	"$@" >/tmp/$name || echo "FAILED: $*"
	s1=$(now)
	t=$(echo "$s0 $s1" | awk '{ printf "%.2f", $2 - $1 }')
}
# best NAME CMD...: the shortest of REPS runs
best() {
	b=
	i=0
	while [ $i -lt $REPS ]; do
		run "$@"
		if [ -z "$b" ]; then b=$t; else b=$(echo "$b $t" | awk '{ print ($2 < $1) ? $2 : $1 }'); fi
		i=$((i + 1))
	done
	echo "TIME $1 $b"
}
mount -t nilfs2 /dev/vda /mnt || exit 1
if [ $MAKE = 1 ]; then
	t0=$(now)
	/ours/bin/cpgen sync /mnt $NCP >/dev/null || exit 1
	# a few snapshots for -s
	for c in 10 1000 50000 99000; do chcp ss /dev/vda $c 2>/dev/null; done
	mkcp /dev/vda
	t1=$(now)
	echo "MADE $NCP checkpoints in $(echo "$t0 $t1" | awk '{ printf "%.0f", $2 - $1 }') s"
fi
echo "VOLUME $(lscp -a /dev/vda | awk 'NR > 1' | wc -l) checkpoints, $(lscp -s /dev/vda | awk 'NR > 1' | wc -l) snapshots"
lscp /dev/vda >/dev/null        # the kernel reads the cpfile in
for o in "" -r -s; do
	tag=$(echo "x$o" | tr -d ' -')
	best theirs$tag lscp $o /dev/vda
	best ours$tag /ours/bin/lscp $o /dev/vda
	cmp -s /tmp/theirs$tag /tmp/ours$tag && echo "SAME lscp $o" || echo "DIFFERENT lscp $o"
done
# util-linux's tables (libsmartcols), against nilfs-tools' plain lscp
best ours_json /ours/bin/lscp -J /dev/vda
best ours_raw /ours/bin/lscp --raw /dev/vda
[ "$(wc -l </tmp/ours_raw)" = "$(wc -l </tmp/theirsx)" ] && echo "SAME lines lscp --raw" || echo "DIFFERENT lines lscp --raw"
umount /mnt || exit 1
run offline_cold /ours/bin/lscp /dev/vda
echo "TIME offline_cold $t"
exec 3</dev/vda                 # keeps the device's page cache
best offline_warm /ours/bin/lscp /dev/vda
exec 3<&-
cmp -s /tmp/theirsx /tmp/offline_warm && echo "SAME offline" || echo "DIFFERENT offline"
GUEST

[ $make = 1 ] && echo "making $NCP checkpoints with the kernel in the guest..." >&2
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-3600} NILFS_KTEST_MEM=1024 \
	"$guest" run "$work/script" "$img" "$work/ours.tar" >"$work/out"
grep -E '^(MADE|VOLUME|TIME|SAME|DIFFERENT|FAILED)' "$work/out"

# on the host: offline on the image file, warm cache
TZ=UTC "$top/lscp" "$img" >/dev/null
h0=$(date +%s.%N)
TZ=UTC "$top/lscp" "$img" >/dev/null
h1=$(date +%s.%N)
h=$(echo "$h0 $h1" | awk '{ printf "%.3f", $2 - $1 }')
awk -v host="$h" '
	$1 == "TIME" { t[$2] = $3 }
	function ratio(a, b) { return t[b] > 0 ? sprintf("%.2f", t[a] / t[b]) : "n/a" }
	END {
		printf "guest, mounted, lscp:    nilfs-tools %.2f s, ours %.2f s: ratio %s\n", t["theirsx"], t["oursx"], ratio("oursx", "theirsx")
		printf "guest, mounted, lscp -r: nilfs-tools %.2f s, ours %.2f s: ratio %s\n", t["theirsxr"], t["oursxr"], ratio("oursxr", "theirsxr")
		printf "guest, mounted, lscp -s: nilfs-tools %.2f s, ours %.2f s: ratio %s\n", t["theirsxs"], t["oursxs"], ratio("oursxs", "theirsxs")
		printf "guest, mounted, our lscp -J: %.2f s, --raw: %.2f s: ratios %s, %s to nilfs-tools plain lscp\n", t["ours_json"], t["ours_raw"], ratio("ours_json", "theirsx"), ratio("ours_raw", "theirsx")
		printf "guest, offline on the unmounted device: cold %.2f s (ratio %s), warm %.2f s (ratio %s) to mounted nilfs-tools\n", t["offline_cold"], ratio("offline_cold", "theirsx"), t["offline_warm"], ratio("offline_warm", "theirsx")
		printf "host, offline on the image file: %.3f s (native CPU: not comparable to the guest)\n", host
	}' "$work/out"
if [ $make = 1 ] && [ -n "${KEEP_IMAGE:-}" ]; then mv "$img" "$KEEP_IMAGE"; echo "image kept as $KEEP_IMAGE"; fi
