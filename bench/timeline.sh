#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/timeline.sh: what one evaluation of the snapshot timeline costs on
# a volume with NCP (default 100000) checkpoints, against lscp reading them.
#
# The volume: IMAGE=path uses one kept before (this script's
# KEEP_IMAGE=path, or bench/lscp.sh's); otherwise it is made here, offline,
# with tests/gc/gcfault dated: NCP minor checkpoints STEP seconds apart
# (default 300: a year of checkpoints every five minutes, so that every
# bucket has periods to choose from), on 1 KiB blocks (about 10 ms per
# checkpoint).  Each measurement is the median of RUNS (default 5), warm
# cache, offline on the image:
#   lscp       our lscp -a: every checkpoint read once
#   plan       nilfs-timeline -n: the same listing, the state file, and the
#              bucket rule (local time of every checkpoint, a sort per bucket)
#   budget     nilfs-timeline -n -M 0 -p 0 after a run: the plan and the
#              space budget's exact count, one pass over the DAT
#   run        nilfs-timeline on a fresh copy with a fresh state directory:
#              the plan, the promotions written as one construction, the
#              state file written twice
# and prints plan / lscp, budget / lscp and run / lscp (target: 2 at
# most), and the peak memory of each (GNU time's maximum resident set
# size).  The offline writer's constructions grow with the number of
# checkpoints (about 16 blocks each at 2000, 59 at 6000), so the image of
# 100000 needs more room than its checkpoints suggest: SIZE_MIB sets it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
NCP=${NCP:-100000}
STEP=${STEP:-300}
RUNS=${RUNS:-5}
BUCKETS=${BUCKETS:--H 24 -d 7 -w 4 -m 12 -y 2}
for p in nilfs-timeline lscp mkfs.nilfs2 tests/gc/gcfault; do
	[ -x "$top/$p" ] || { echo "build first: $top/$p missing (make check builds tests/)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) is needed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-timeline.XXXXXX")
trap 'rm -rf "$work"' EXIT
t0=1735689600    # 2025-01-01 00:00 UTC
if [ -n "${IMAGE:-}" ]; then
	img=$IMAGE
else
	img=$work/tl.img
	truncate -s "${SIZE_MIB:-$((NCP / 8 + 256))}M" "$img"
	"$top/mkfs.nilfs2" -q -f -b 1024 -B 1024 -T $t0 "$img"
	i=0
	while [ $i -lt "$NCP" ]; do
		n=$((NCP - i < 2000 ? NCP - i : 2000))
		"$top/tests/gc/gcfault" dated "$img" $(seq $((t0 + (i + 1) * STEP)) "$STEP" $((t0 + (i + n) * STEP)))
		i=$((i + n))
	done
	if [ -n "${KEEP_IMAGE:-}" ]; then
		cp --sparse=always "$img" "$KEEP_IMAGE"
		echo "image kept as $KEEP_IMAGE"
	fi
fi
last=$(TZ=UTC0 "$top/lscp" -a -r -n 1 --raw --noheadings -o CREATE "$img")
now=$((last + 3600))
export TZ=UTC0

# median NAME CMD...: the median of RUNS elapsed times of CMD (the median
# CPU time, user and system, in $work/NAME.cpu, the largest peak memory,
# in KiB, in $work/NAME.kib); $work/run.img and $work/state are made fresh
# before each run
median() {
	name=$1
	shift
	: >"$work/$name.t"
	: >"$work/$name.c"
	: >"$work/$name.m"
	i=0
	while [ $i -lt "$RUNS" ]; do
		[ "$name" != run ] || cp --sparse=always "$img" "$work/run.img"
		[ "$name" = budget ] || rm -rf "$work/state"
		/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$@" >/dev/null
		awk '{ print $1 }' "$work/time" >>"$work/$name.t"
		awk '{ print $2 }' "$work/time" >>"$work/$name.m"
		awk '{ print $3 + $4 }' "$work/time" >>"$work/$name.c"
		i=$((i + 1))
	done
	sort -n "$work/$name.m" | tail -n 1 >"$work/$name.kib"
	sort -n "$work/$name.c" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' \
		>"$work/$name.cpu"
	sort -n "$work/$name.t" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

ncps=$("$top/lscp" -a --raw --noheadings -o CNO "$img" | wc -l)
t_lscp=$(median lscp "$top/lscp" -a "$img")
t_plan=$(median plan "$top/nilfs-timeline" -n -S "$work/state" --now=$now $BUCKETS "$img")
t_run=$(median run "$top/nilfs-timeline" -q -S "$work/state" --now=$now $BUCKETS "$work/run.img")
# the state of the last run names the snapshots of run.img
t_budget=$(median budget "$top/nilfs-timeline" -n -S "$work/state" -M 0 -p 0 --now=$now $BUCKETS \
	"$work/run.img")
held=$("$top/nilfs-timeline" -n -S "$work/state" -M 0 -p 0 --now=$now $BUCKETS "$work/run.img" |
	sed -n "s/^the timeline's snapshots alone hold \([0-9]*\) blocks.*/\1/p")
kept=$("$top/nilfs-timeline" -n -l -S "$work/state" --now=$now $BUCKETS "$img" | awk 'NR > 1' | wc -l)
printf '%d checkpoints, %d kept by %s; load %s\n' "$ncps" "$kept" "$BUCKETS" "$(cut -d' ' -f1-3 /proc/loadavg)"
line() { printf '%-19s %6.3f s  %6.3f s CPU  %7d KiB%s\n' "$1" "$2" "$(cat "$work/$3.cpu")" \
	"$(cat "$work/$3.kib")" "${4:-}"; }
line "lscp -a:" "$t_lscp" lscp
line "nilfs-timeline -n:" "$t_plan" plan
line "nilfs-timeline -M:" "$t_budget" budget "  ($held blocks held by the timeline alone)"
line "nilfs-timeline:" "$t_run" run
ratio() {
	printf 'ratio %s / lscp: %.2f (time), %.2f (CPU), %.2f (memory)\n' "$1" \
		"$(echo "$2 / $t_lscp" | bc -l)" \
		"$(echo "$(cat "$work/$1.cpu") / $(cat "$work/lscp.cpu")" | bc -l)" \
		"$(echo "$(cat "$work/$1.kib") / $(cat "$work/lscp.kib")" | bc -l)"
}
ratio plan "$t_plan"
ratio budget "$t_budget"
ratio run "$t_run"
