#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lscp.sh: lscp on a volume with NCP (default 100000) checkpoints and
# lssu on NSEG (default about 100000) segments, against nilfs-tools.
#
# The real kernel makes the checkpoints in the qemu guest (tests/kernel), as
# fast as it can: one dirty block and one NILFS_IOCTL_SYNC each
# (tests/kernel/cpgen), on 1 KiB blocks (5 checkpoints a cpfile block).  The
# sparse image is cut into about NSEG small segments (mkfs -B), so that the
# sufile is as long as a big volume's and the logs of the checkpoints fill
# tens of thousands of them.
#
# Then, in the guest, each of these against nilfs-tools on the mounted
# volume: lscp (plain, -r, -s), lssu (the dirty segments) and lssu -a (every
# segment).  Each time is the median of RUNS runs (default 5), ours and
# theirs alternating, the metadata in the kernel's cache.  Also our lscp -J
# and --raw (libsmartcols), our lscp and lssu offline on the unmounted
# device (cold: the kernel drops a block device's cache at its last close;
# then warm, the device held open), and on the host (native CPU, where perf
# can look) our lscp and lssu on the image file.  Prints the times and the
# ratios to nilfs-tools, in one run.
#
# Not part of make check: making the checkpoints takes 10 to 20 minutes under
# TCG.  KEEP_IMAGE=path keeps the image; IMAGE=path measures an image kept
# before instead of making one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
guest=$here/../tests/kernel/guest.sh
NCP=${NCP:-100000}
NSEG=${NSEG:-100000}
RUNS=${RUNS:-5}
. "$here/../tests/kernel/ours.sh"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-lscp.XXXXXX")
trap 'rm -rf "$work"' EXIT

for p in lscp lssu tests/kernel/cpgen; do
	[ -x "$top/$p" ] || { echo "build first (make check builds tests/kernel/cpgen): $top/$p missing" >&2; exit 1; }
done
"$guest" check-deps >/dev/null || { echo "kernel harness dependencies missing" >&2; exit 1; }
mkfs=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2)

if [ -n "${IMAGE:-}" ]; then
	img=$IMAGE
	make=0
else
	# 18 to 27 KiB of log per checkpoint (27 on 32-block segments: 100k
	# checkpoints fill 83520 of 99999), and room to spare
	need_kib=$(( (NCP / 1000 * 25 + 512) * 1024 ))
	# segments of a power of two blocks (nilfs-tools' mkfs), at least 16
	# (the kernel's smallest), NSEG of them holding what is needed
	bps=16
	while [ $((NSEG * bps)) -lt $need_kib ]; do bps=$((bps * 2)); done
	img=$work/cp.img
	truncate -s $(( NSEG * bps ))K "$img"
	"$mkfs" -q -f -b 1024 -B $bps "$img"
	make=1
fi
pack_ours "$work/ours.tar" "$top/lscp" "$top/lssu" "$top/tests/kernel/cpgen"
cat >"$work/script" <<GUEST
NCP=$NCP RUNS=$RUNS MAKE=$make
GUEST
cat >>"$work/script" <<'GUEST'
export TZ=UTC LD_LIBRARY_PATH=/ours/lib
mkdir -p /ours && tar -xf /dev/vdb -C /ours || exit 1
now() { read up idle </proc/uptime; echo "$up"; }
# run NAME CMD...: time one run into $t, output kept in /tmp/NAME; with
# REPEAT=n, the time of n runs in a row divided by n (a short command
# against /proc/uptime's 10 ms)
REPEAT=1
run() {
	name=$1
	shift
	s0=$(now)
	k=0
	while [ $k -lt $REPEAT ]; do
		"$@" >/tmp/$name || echo "FAILED: $*"
		k=$((k + 1))
	done
	s1=$(now)
	t=$(echo "$s0 $s1 $REPEAT" | awk '{ printf "%.3f", ($2 - $1) / $3 }')
}
median() { tr ' ' '\n' | sort -n | awk 'NF { v[++n] = $1 } END { printf "%.3f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
# pair TAG CMD -- CMD: nilfs-tools' command, then ours, RUNS times in turn;
# prints the medians as TIME theirsTAG / oursTAG and whether the outputs match
pair() {
	tag=$1
	shift
	tcmd=
	while [ "$1" != -- ]; do tcmd="$tcmd $1"; shift; done
	shift
	tt= to=
	i=0
	while [ $i -lt $RUNS ]; do
		run theirs$tag $tcmd; tt="$tt $t"
		run ours$tag "$@"; to="$to $t"
		i=$((i + 1))
	done
	echo "TIME theirs$tag $(echo $tt | median) $tt"
	echo "TIME ours$tag $(echo $to | median) $to"
	cmp -s /tmp/theirs$tag /tmp/ours$tag && echo "SAME $tcmd" || echo "DIFFERENT $tcmd"
}
# alone NAME CMD...: the median of RUNS runs of CMD
alone() {
	ta=
	i=0
	while [ $i -lt $RUNS ]; do run "$@"; ta="$ta $t"; i=$((i + 1)); done
	echo "TIME $1 $(echo $ta | median) $ta"
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
echo "VOLUME $(lscp -a /dev/vda | awk 'NR > 1' | wc -l) checkpoints, $(lscp -s /dev/vda | awk 'NR > 1' | wc -l) snapshots, $(lssu -a /dev/vda | awk 'NR > 1' | wc -l) segments, $(lssu /dev/vda | awk 'NR > 1' | wc -l) in use"
lscp /dev/vda >/dev/null        # the kernel reads the cpfile and sufile in
lssu -a /dev/vda >/dev/null
for o in "" -r -s; do
	# the 4 snapshots of -s take a few ms: 20 runs a timing
	[ "$o" = -s ] && REPEAT=20
	pair lscp$(echo "$o" | tr -d ' -') lscp $o /dev/vda -- /ours/bin/lscp $o /dev/vda
	REPEAT=1
done
for o in "" -a; do
	pair lssu$(echo "$o" | tr -d ' -') lssu $o /dev/vda -- /ours/bin/lssu $o /dev/vda
done
# util-linux's tables (libsmartcols), against nilfs-tools' plain lscp
alone ours_json /ours/bin/lscp -J /dev/vda
alone ours_raw /ours/bin/lscp --raw /dev/vda
[ "$(wc -l </tmp/ours_raw)" = "$(wc -l </tmp/theirslscp)" ] && echo "SAME lines lscp --raw" || echo "DIFFERENT lines lscp --raw"
umount /mnt || exit 1
run offline_cold /ours/bin/lscp /dev/vda
echo "TIME offline_cold $t"
run offline_su_cold /ours/bin/lssu -a /dev/vda
echo "TIME offline_su_cold $t"
exec 3</dev/vda                 # keeps the device's page cache
alone offline_warm /ours/bin/lscp /dev/vda
alone offline_su_warm /ours/bin/lssu -a /dev/vda
exec 3<&-
# umount wrote a last log (the block counts and times of the current
# segment changed), so the offline output is compared with nilfs-tools' on
# the same state: a read-only mount, which writes nothing
mount -t nilfs2 -o ro /dev/vda /mnt || exit 1
lscp /dev/vda >/tmp/theirs_ro_lscp
lssu -a /dev/vda >/tmp/theirs_ro_lssua
umount /mnt || exit 1
cmp -s /tmp/theirs_ro_lscp /tmp/offline_warm && echo "SAME offline lscp" || echo "DIFFERENT offline lscp"
cmp -s /tmp/theirs_ro_lssua /tmp/offline_su_warm && echo "SAME offline lssu -a" ||
	{ echo "DIFFERENT offline lssu -a"; diff /tmp/theirs_ro_lssua /tmp/offline_su_warm | head -n 20; }
GUEST

[ $make = 1 ] && echo "making $NCP checkpoints with the kernel in the guest..." >&2
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-5400} NILFS_KTEST_MEM=1024 \
	"$guest" run "$work/script" "$img" "$work/ours.tar" >"$work/out"
grep -E '^(MADE|VOLUME|TIME|SAME|DIFFERENT|FAILED|[<>-])' "$work/out"

# on the host: offline on the image file, warm cache, median of RUNS
host() {
	"$@" >/dev/null
	i=0
	while [ $i -lt $RUNS ]; do
		h0=$(date +%s.%N)
		"$@" >/dev/null
		h1=$(date +%s.%N)
		echo "$h0 $h1"
		i=$((i + 1))
	done | awk '{ v[++n] = $2 - $1 } END {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		printf "%.3f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
hcp=$(TZ=UTC host "$top/lscp" "$img")
hsu=$(TZ=UTC host "$top/lssu" -a "$img")
awk -v hcp="$hcp" -v hsu="$hsu" -v runs="$RUNS" '
	$1 == "TIME" { t[$2] = $3 }
	function ratio(a, b) { return t[b] > 0 ? sprintf("%.2f", t[a] / t[b]) : "n/a" }
	function vs(what, tag) {
		printf "guest, mounted, %-9s nilfs-tools %7.3f s, ours %7.3f s: ratio %s\n", what ":",
		       t["theirs" tag], t["ours" tag], ratio("ours" tag, "theirs" tag)
	}
	END {
		printf "medians of %d runs\n", runs
		vs("lscp", "lscp"); vs("lscp -r", "lscpr"); vs("lscp -s", "lscps")
		vs("lssu", "lssu"); vs("lssu -a", "lssua")
		printf "guest, mounted, our lscp -J: %.2f s, --raw: %.2f s: ratios %s, %s to nilfs-tools plain lscp\n", t["ours_json"], t["ours_raw"], ratio("ours_json", "theirslscp"), ratio("ours_raw", "theirslscp")
		printf "guest, offline on the unmounted device, lscp: cold %.2f s (ratio %s), warm %.2f s (ratio %s) to mounted nilfs-tools\n", t["offline_cold"], ratio("offline_cold", "theirslscp"), t["offline_warm"], ratio("offline_warm", "theirslscp")
		printf "guest, offline on the unmounted device, lssu -a: cold %.2f s (ratio %s), warm %.2f s (ratio %s) to mounted nilfs-tools\n", t["offline_su_cold"], ratio("offline_su_cold", "theirslssua"), t["offline_su_warm"], ratio("offline_su_warm", "theirslssua")
		printf "host, offline on the image file: lscp %.3f s, lssu -a %.3f s (native CPU: not comparable to the guest)\n", hcp, hsu
	}' "$work/out"
if [ $make = 1 ] && [ -n "${KEEP_IMAGE:-}" ]; then mv "$img" "$KEEP_IMAGE"; echo "image kept as $KEEP_IMAGE"; fi
