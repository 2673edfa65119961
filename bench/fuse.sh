#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fuse.sh: reading a big file through nilfs-fuse (cat of
# MNT/latest/big) against `dump.nilfs2 cat` of the same file, both from a
# warm page cache of the image, best of RUNS each, through the page cache
# of the FUSE file (the default) and with -o direct_io.  Prints two ratios
# for each (the target: within 1.5): of the elapsed times, and of the CPU
# time spent (for FUSE, cat's and the daemon's together), which a loaded
# machine disturbs less: FUSE's two processes hand every request over, and
# each hand-over waits for a free CPU.  Each FUSE run is a fresh mount, so that none is
# served from the previous run's page cache of the file.
#   SIZE_MIB  size of the file (default 1024)
#   RUNS      timings of each (default 5)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
dump=$top/dump.nilfs2
fuse=$top/nilfs-fuse
mkfs=$top/mkfs.nilfs2
SIZE_MIB=${SIZE_MIB:-1024}
RUNS=${RUNS:-5}
[ -x "$fuse" ] || { echo "nilfs-fuse not built (libfuse3-dev missing?)" >&2; exit 77; }
[ -c /dev/fuse ] || { echo "no /dev/fuse" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-fuse.XXXXXX")
mnt=$work/mnt
fpid=
cleanup() {
	fusermount3 -u "$mnt" 2>/dev/null || true
	[ -z "$fpid" ] || wait "$fpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/src" "$mnt"
dd if=/dev/urandom of="$work/src/big" bs=1M count="$SIZE_MIB" 2>/dev/null
truncate -s $((SIZE_MIB * 2 + 256))M "$work/img"
"$mkfs" -q -f -d "$work/src" "$work/img"
rm -rf "$work/src"

tck=$(getconf CLK_TCK)
# the CPU seconds process PID has used (utime + stime of /proc/PID/stat)
cpu_of() { awk -v t="$tck" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / t }' "/proc/$1/stat"; }
# "elapsed cpu" of a command, from GNU time's format or the shell's
timed() { /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | awk 'END { print $1, $2 + $3 }'; }
best() { sort -n | head -n 1; }

cat "$work/img" >/dev/null   # warm: both read from the page cache
: >"$work/dump.e"; : >"$work/dump.c"
for mode in cache direct; do : >"$work/$mode.e"; : >"$work/$mode.c"; done
i=0
while [ "$i" -lt "$RUNS" ]; do
	set -- $(timed "$dump" "$work/img" cat /big)
	echo "$1" >>"$work/dump.e"
	echo "$2" >>"$work/dump.c"
	for mode in cache direct; do
		if [ "$mode" = direct ]; then "$fuse" -f -o direct_io "$work/img" "$mnt" &
		else "$fuse" -f "$work/img" "$mnt" &
		fi
		fpid=$!
		n=0
		while ! mountpoint -q "$mnt" && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
		c0=$(cpu_of "$fpid")
		set -- $(timed cat "$mnt/latest/big")
		c1=$(cpu_of "$fpid")
		echo "$1" >>"$work/$mode.e"
		echo "$2 + $c1 - $c0" | bc >>"$work/$mode.c"
		fusermount3 -u "$mnt"
		wait "$fpid"
		fpid=
	done
	i=$((i + 1))
done
de=$(best <"$work/dump.e"); dc=$(best <"$work/dump.c")
echo "$SIZE_MIB MiB, best of $RUNS: dump.nilfs2 cat ${de} s elapsed, ${dc} s CPU"
for mode in cache direct; do
	fe=$(best <"$work/$mode.e"); fc=$(best <"$work/$mode.c")
	label="nilfs-fuse"
	[ "$mode" = direct ] && label="nilfs-fuse -o direct_io"
	echo "$label: ${fe} s elapsed, ${fc} s CPU (cat and daemon);" \
		"ratio elapsed: $(echo "scale=2; $fe / $de" | bc), ratio CPU: $(echo "scale=2; $fc / $dc" | bc)"
done
