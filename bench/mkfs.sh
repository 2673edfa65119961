#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/mkfs.sh: our mkfs.nilfs2 against the reference tools, in one run.
#  1. mkfs of a 1 TiB sparse image file: bytes written, fsyncs and time,
#     against nilfs-tools' mkfs.nilfs2: the median of RUNS_1T (default 11)
#     runs of each, taking turns (one run of a few milliseconds, nearly all
#     of them waiting on fsync, says little on a busy host).
#  2. mkfs -d of a generated tree (NFILES files, about TREE_MIB MiB), against
#     `mke2fs -t ext4 -d` of the same tree (target: ratio <= 0.5), beside
#     the floor: reading the tree once (tar of it into a pipe) plus writing
#     the image's bytes once (dd of as many bytes as our image holds, with
#     fdatasync).  Each is the median of RUNS runs (default 3), the three
#     taking turns; the tree is read before each so every run starts with
#     it cached as far as the page cache keeps it.
# TREE=dir makes the tree there and keeps it (or uses the one made before).
# CASES (default "1t tree") picks the cases to run; MKFS_BEFORE=PATH times
# another build of mkfs.nilfs2 in the 1 TiB case's runs as well.
# Bytes written are the sum of write(2)/pwrite(2) results under strace.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ours=${MKFS:-$top/mkfs.nilfs2}
NFILES=${NFILES:-100000}
RUNS=${RUNS:-3}
RUNS_1T=${RUNS_1T:-11}
CASES=${CASES:-1t tree}
TREE_MIB=${TREE_MIB:-1024}
theirs=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2)
mke2fs=$(PATH=/usr/sbin:/sbin:$PATH command -v mke2fs)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-mkfs-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
for t in "$ours" "$theirs" "$mke2fs" strace python3; do
	command -v "$t" >/dev/null || { echo "missing: $t" >&2; exit 1; }
done

now() { date +%s.%N; }
written() { # strace log -> bytes written by write-family calls
	awk '/^[0-9]+ +(write|pwrite64|pwritev|pwritev2)\(/ { n = $NF; if (n ~ /^[0-9]+$/) s += n }
	     END { printf "%d\n", s }' "$1"
}
timed() { # label, then a command; prints seconds
	t0=$(now)
	"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
	t1=$(now)
	echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{ v[++n] = $1 } END { printf "%.4f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
fsyncs() { # strace log -> fsync-family calls
	grep -cE '^[0-9]+ +(fsync|fdatasync|sync_file_range)\(' "$1" || true
}

case " $CASES " in *" 1t "*)
echo "== 1 TiB sparse image: mkfs only"
# MKFS_BEFORE=PATH: another build of ours timed in the same runs
who_all="ours theirs${MKFS_BEFORE:+ before}"
prog_of() { case $1 in ours) echo "$ours" ;; theirs) echo "$theirs" ;; *) echo "$MKFS_BEFORE" ;; esac; }
for who in $who_all; do
	img=$work/$who-1t.img
	rm -f "$img"
	truncate -s 1T "$img"
	strace -f -qq -o "$work/$who.strace" \
		-e trace=write,pwrite64,pwritev,pwritev2,fsync,fdatasync,sync_file_range \
		"$(prog_of $who)" -q -f "$img" >/dev/null
	eval "${who}_b=\$(written \"\$work/$who.strace\")"
	eval "${who}_s=\$(fsyncs \"\$work/$who.strace\")"
	: >"$work/$who.times"
done
i=0
while [ $i -lt "$RUNS_1T" ]; do
	for who in $who_all; do
		img=$work/$who-1t.img
		rm -f "$img"
		truncate -s 1T "$img"
		timed "$(prog_of $who)" -q -f "$img" >>"$work/$who.times"
	done
	i=$((i + 1))
done
rm -f "$work"/*-1t.img
for who in $who_all; do
	eval "${who}_t=\$(median <\"\$work/$who.times\")"
done
printf '  ours:        %12d bytes written  %2d fsyncs  %8.4f s\n' "$ours_b" "$ours_s" "$ours_t"
printf '  nilfs-tools: %12d bytes written  %2d fsyncs  %8.4f s\n' "$theirs_b" "$theirs_s" "$theirs_t"
[ -z "${MKFS_BEFORE:-}" ] ||
	printf '  before:      %12d bytes written  %2d fsyncs  %8.4f s  (ratio %.3f)\n' \
		"$before_b" "$before_s" "$before_t" "$(echo "$before_t / $theirs_t" | bc -l)"
printf '  ratio (ours / nilfs-tools): bytes %.3f  time %.3f (medians of %d runs; load %s)\n' \
	"$(echo "$ours_b / $theirs_b" | bc -l)" "$(echo "$ours_t / $theirs_t" | bc -l)" "$RUNS_1T" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
;; esac
case " $CASES " in *" tree "*) ;; *) exit 0 ;; esac

echo "== mkfs -d of a $NFILES-file, $TREE_MIB MiB tree"
# TREE=dir: the tree is made there once and kept for later runs
tree=${TREE:-$work/tree}
[ -d "$tree" ] || python3 - "$tree" "$NFILES" "$TREE_MIB" <<'PY'
import os, random, sys
root, n, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(42)
pool = os.urandom(1 << 20)
avg = mib * 1048576 // n
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 317), "e%02d" % (i % 23))
    if i < 317 * 23:
        os.makedirs(d, exist_ok=True)
    size = rnd.randint(0, 2 * avg)
    off = rnd.randint(0, len(pool) - 1)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        left = size
        while left:
            chunk = pool[off:off + left] or pool[:left]
            f.write(chunk)
            left -= len(chunk)
            off = 0
PY
size_kib=$(du -sk "$tree" | cut -f1)
imgsize=$((size_kib * 2 / 1024 + 512))M
img=$work/d.img
warm() { tar cf - -C "$tree" . | cat >/dev/null; }
: >"$work/ours"; : >"$work/ext4"; : >"$work/read"; : >"$work/write"
i=0
while [ $i -lt "$RUNS" ]; do
	warm
	rm -f "$img"; truncate -s "$imgsize" "$img"
	timed "$ours" -q -f -d "$tree" "$img" >>"$work/ours"
	# the floor writes as many bytes as our image holds
	img_mib=$(( ($(du -B1 "$img" | cut -f1) + 1048575) / 1048576 ))
	warm
	rm -f "$img"; truncate -s "$imgsize" "$img"
	timed "$mke2fs" -q -F -t ext4 -d "$tree" "$img" >>"$work/ext4"
	rm -f "$img"
	warm
	timed sh -c "tar cf - -C '$tree' . | cat >/dev/null" >>"$work/read"
	timed dd if=/dev/zero of="$img" bs=1M count="$img_mib" conv=fdatasync status=none >>"$work/write"
	rm -f "$img"
	i=$((i + 1))
done
ours_d=$(median <"$work/ours")
ext4_d=$(median <"$work/ext4")
read_d=$(median <"$work/read")
write_d=$(median <"$work/write")
floor=$(echo "$read_d + $write_d" | bc)
printf '  tree: %d files, %d KiB; our image %d MiB; medians of %d runs\n' "$NFILES" "$size_kib" "$img_mib" "$RUNS"
printf '  ours mkfs.nilfs2 -d: %8.3f s   (runs: %s)\n' "$ours_d" "$(tr '\n' ' ' <"$work/ours")"
printf '  mke2fs -t ext4 -d:   %8.3f s   (runs: %s)\n' "$ext4_d" "$(tr '\n' ' ' <"$work/ext4")"
printf '  floor:               %8.3f s   (read the tree %.3f s + write %d MiB %.3f s)\n' "$floor" "$read_d" "$img_mib" "$write_d"
printf '  ratio (ours / mke2fs -d): %.3f (target <= 0.5); ours / floor: %.3f; mke2fs -d / floor: %.3f\n' \
	"$(echo "$ours_d / $ext4_d" | bc -l)" "$(echo "$ours_d / $floor" | bc -l)" "$(echo "$ext4_d / $floor" | bc -l)"
