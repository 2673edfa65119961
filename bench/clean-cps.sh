#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/clean-cps.sh: what one offline cleaning pass costs on a volume with
# NCP (default 100000) checkpoints, on the host.
#
# The volume is bench/lscp.sh's (the kernel in the qemu guest makes the
# checkpoints, one small log each, on 1 KiB blocks; about 15 minutes under
# TCG): IMAGE=path uses one kept before (bench/lscp.sh KEEP_IMAGE=path, or
# this script's KEEP_IMAGE=path), otherwise it is made.  Each measurement
# runs on a fresh copy with a warm cache, the best of REPS (default 3):
#   protection   nilfs-clean --offline with a protection period that holds
#                every checkpoint: the pass loads the protection (snapshot
#                list, oldest protected checkpoint) and reads the segment
#                table, and finds no segment old enough to clean
#   lscp         our lscp of the image, which reads every checkpoint once:
#                what a protection set built by reading each one costs
#   half         a period that holds the newer half of the checkpoints: the
#                passes count every older segment's live blocks (each
#                log's summary read, each block's DAT entry looked up) and
#                clean them
# and prints protection / lscp (far below 1 if the protection does not
# read every checkpoint) and the cost of a pass per log and per checkpoint.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
NCP=${NCP:-100000}
REPS=${REPS:-3}
for p in nilfs-clean lscp; do
	[ -x "$top/$p" ] || { echo "build first: $top/$p missing" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-cps.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${IMAGE:-}" ]; then
	img=$IMAGE
else
	img=$work/cp.img
	NCP=$NCP REPS=1 KEEP_IMAGE=$img "$here/lscp.sh" >/dev/null
	if [ -n "${KEEP_IMAGE:-}" ]; then
		cp --sparse=always "$img" "$KEEP_IMAGE"
		echo "image kept as $KEEP_IMAGE"
	fi
fi

# best NAME CMD...: the shortest of REPS runs of CMD on a fresh copy ($work/run.img)
best() {
	name=$1
	shift
	b=
	i=0
	while [ $i -lt "$REPS" ]; do
		cp --sparse=always "$img" "$work/run.img"
		t0=$(date +%s.%N)
		"$@" >"$work/$name.out"
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
		i=$((i + 1))
	done
	echo "$b"
}

# the checkpoints' times, in seconds: the first and the middle one
TZ=UTC "$top/lscp" "$img" | awk 'NR > 1 { print $2 " " $3 }' >"$work/dates"
ncps=$(wc -l <"$work/dates")
first=$(date -u -d "$(sed -n 1p "$work/dates")" +%s)
mid=$(date -u -d "$(sed -n "$((ncps / 2))p" "$work/dates")" +%s)
now=$(date +%s)

t_prot=$(best prot "$top/nilfs-clean" --offline -p $((now - first + 3600)) "$work/run.img")
t_lscp=$(best lscp "$top/lscp" "$work/run.img")
t_half=$(best half "$top/nilfs-clean" --offline -p $((now - mid)) "$work/run.img")
sed "s|$work/run.img|image|" "$work/half.out"
printf '%d checkpoints\n' "$ncps"
printf 'protection load, no segment to clean: %.3f s\n' "$t_prot"
printf 'lscp, every checkpoint read once:     %.3f s\n' "$t_lscp"
printf 'ratio protection / lscp: %.3f\n' "$(echo "$t_prot / $t_lscp" | bc -l)"
printf 'passes with the newer half protected: %.3f s (%.2f us per checkpoint)\n' "$t_half" \
	"$(echo "$t_half * 1000000 / $ncps" | bc -l)"
