#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fsck.sh: fsck.nilfs2 against e2fsck on the same tree, in one run.
#  1. bench/fsck-tree.c writes a deterministic tree of NFILES (default
#     1000000) names: directories 0 to 5 levels deep, mostly files of at
#     most 3000 bytes, some of up to 1 MiB, a few symbolic links.
#  2. Our `mkfs.nilfs2 -d TREE` and `mke2fs -t ext4 -d TREE` build one
#     sparse IMG_GIB (default 8) GiB image each from it.
#  3. Wall time and peak memory (max RSS, GNU time's %M) of
#     `fsck.nilfs2 -fn` against `e2fsck -fn`, as ratios.
#     Targets (issue 23): time <= 0.25, memory <= 0.5.  Also the time of
#     `fsck.nilfs2 -fn --check-data`, which verifies every log's data
#     checksum and so reads every block in use (e2fsck has nothing like it).
#  4. Two floors, read once in disk order by bench/fsck-floor.c (which
#     lists the blocks with the library): the NILFS image's metadata, every
#     block that is not regular-file data (superblocks, summaries, super
#     roots, DAT, cpfile, sufile, ifile, B-tree nodes, directories and
#     symbolic links); and every block of every log, which fsck.nilfs2
#     reads for the data checksums (ss_datasum covers a whole log; e2fsck
#     has nothing like it, and with a million files it is the bulk of what
#     fsck.nilfs2 reads).
# CASE=checkpoints checks a volume the kernel wrote instead (cp_volume
# below): in the qemu guest of tests/kernel/guest.sh it writes CP_FILES
# (default 100000) small files and then CP_COUNT (default 1000) checkpoints
# with a small change before each (tests/kernel/cpgen churn, seed CP_SEED,
# default 7: appends, renames, deletes, new files and directories).
# CASE=aged checks the volume bench/clean.sh's hot/cold overwrite workload
# leaves with our cost-benefit cleaner running (seed AGED_SEED, default 1).
# CASE=all runs the three in one go: checkpoints, aged, then the main case.
# Both print `fsck.nilfs2 -fn` (and for CASE=checkpoints, or with ALL=1,
# `--checkpoints=all`) against `e2fsck -fn` of an ext4 image of the
# latest tree (dump.nilfs2 extract, mke2fs -d), targets at most 1x in time
# and 2x in memory, and against the volume's metadata floor (fsck-floor
# list: every block the check reads, read once in disk order), at most
# 1.5x, all/latest at most 1.5x, and the separate reads each makes (read
# system calls of a cold run under strace -f -c).  Beside e2fsck of the
# mke2fs -d image (its best case: everything in order) is e2fsck of an ext4
# volume the kernel wrote with the same workload in the guest (cpgen churn,
# syncfs where nilfs2 takes a checkpoint; clean-workload's fill and
# overwrites, no cleaner), aged as the volume is.  The guest runs for
# minutes: the volume is kept in CP_CACHE (default $NILFS_KTEST_CACHE or
# /var/tmp) and made again only when missing.  FSCK_BEFORE=PATH times
# another build of fsck.nilfs2 in the same runs (before and after a change).
# Every timed run starts with a cold cache: caches are dropped (as root,
# sync; echo 3 >/proc/sys/vm/drop_caches) before each; the script refuses
# to run otherwise.  bench/timecmd.c times each run: wall time from
# CLOCK_MONOTONIC, CPU time (user and system) from wait4's rusage, peak
# RSS, so the kernel-written cases' 20-100 ms commands are measured to the
# microsecond, not in GNU time's 10 ms steps.  The timings run in turn, one
# run of each command a round, fsck.nilfs2 and its peers interleaved so
# that a busy moment of the machine falls on both sides alike, RUNS rounds
# (default 2 for the main case, 11 for the kernel-written ones); the best
# and the median wall time, the median CPU time and the largest RSS of each
# are kept.  The kernel-written cases also run each command once more warm
# right after its cold run (what is left without the disk: start-up and
# CPU).  CHECK_DATA=0 skips the --check-data runs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
mkfs=${MKFS:-$top/mkfs.nilfs2}
fsck=${FSCK:-$top/fsck.nilfs2}
NFILES=${NFILES:-1000000}
IMG_GIB=${IMG_GIB:-8}
CHECK_DATA=${CHECK_DATA:-1}
mke2fs=$(PATH=/usr/sbin:/sbin:$PATH command -v mke2fs)
e2fsck=$(PATH=/usr/sbin:/sbin:$PATH command -v e2fsck)
for t in "$mkfs" "$fsck" "$mke2fs" "$e2fsck" cc; do
	command -v "$t" >/dev/null || { echo "missing: $t" >&2; exit 1; }
done
[ -f "$top/.libs/libnlfs.a" ] || { echo "build first: $top/.libs/libnlfs.a missing" >&2; exit 1; }
[ -w /proc/sys/vm/drop_caches ] || { echo "must run as root: every timing starts with a cold cache" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-fsck-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

cflags="-O2 -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64"
cc $cflags -o "$work/timecmd" "$here/timecmd.c"
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
now() { date +%s.%N; }

# run LABEL CMD...: one cold run; appends "LABEL wall_s cpu_s maxrss_kib"
# to $work/times; warm LABEL CMD...: the same without dropping the cache
run() { timed -c "$@"; }
warm() { timed "$@"; }
timed() {
	c=
	[ "$1" != -c ] || { c=-c; shift; }
	label=$1; shift
	st=0
	"$work/timecmd" $c "$work/times" "$label" "$work/$label.out" "$@" || st=$?
	# both must find the images clean (exit status 0)
	[ $st -eq 0 ] || { echo "$* exited $st:" >&2; tail -5 "$work/$label.out" >&2; exit 1; }
}
# of LABEL's runs: the least wall time, the median wall time, the median
# CPU time, the largest RSS
col() { awk -v l="$1" '$1 == l { print $'"$2"' }' "$work/times" | sort -g; }
best() { col "$1" 2 | head -1; }
median() { col "$1" "$2" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { median "$1" 2; }
cpu() { median "$1" 3; }
peak() { col "$1" 4 | tail -1; }
ratio() { echo "$1 / $2" | bc -l; }

# the kernel-written volume of CASE=checkpoints, made once and kept: its path
cp_volume() {
	files=${CP_FILES:-100000} ncps=${CP_COUNT:-1000} seed=${CP_SEED:-7}
	img=$cache/nilfs-fsck-bench-cp-$files-$ncps-$seed.img
	vol_what="$files files then $ncps checkpoints of small changes (seed $seed), by the kernel"
	make -C "$top" tests/kernel/cpgen >/dev/null
	kernel_ext4 "cp-$files-$ncps-$seed" $((${CP_IMG_GIB:-2} * 1024)) \
		"/ktest/bin/cpgen churn /mnt $files $ncps $seed" "$top/tests/kernel/cpgen"
	[ -s "$img" ] && return
	echo "== the kernel writes $files files and $ncps checkpoints (qemu, TCG: minutes)" >&2
	make -C "$top" tests/kernel/cpgen >/dev/null
	truncate -s "${CP_IMG_GIB:-2}G" "$img.tmp"
	"$mkfs" -q -f "$img.tmp" >/dev/null
	cat >"$work/guest.sh" <<GUEST
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
/ktest/bin/cpgen churn /mnt $files $ncps $seed || echo "CPGEN FAILED"
umount /mnt || echo "UMOUNT FAILED"
echo GUEST DONE
GUEST
	NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-7200} \
	NILFS_KTEST_EXTRA=$top/tests/kernel/cpgen \
		"$top/tests/kernel/guest.sh" run "$work/guest.sh" "$img.tmp" >"$work/guest.out" 2>&1 || true
	grep -qx "GUEST DONE" "$work/guest.out" && ! grep -q FAILED "$work/guest.out" ||
		{ echo "the guest failed:" >&2; tail -20 "$work/guest.out" >&2; rm -f "$img.tmp"; exit 1; }
	mv "$img.tmp" "$img"
}

# the aged volume of CASE=aged: bench/clean.sh's hot/cold overwrite workload
# with our cost-benefit cleaner running, made once and kept: its path
aged_volume() {
	seed=${AGED_SEED:-1}
	img=$cache/nilfs-fsck-bench-aged-$seed.img
	vol_what="512 MiB aged by bench/clean.sh (hot/cold overwrites 3x its size, cost-benefit cleaner, seed $seed), by the kernel"
	# bench/clean.sh's workload at its defaults, without a cleaner
	cc -O2 -o "$work/clean-workload" "$here/clean-workload.c"
	kernel_ext4 "aged-$seed" 512 "clean-workload fill /mnt/data $((512 * 1048576 / 100 * 60 / 65536 * 65536)) >/dev/null \
&& clean-workload run /mnt/data $((512 * 1048576 * 3)) 65536 10 90 $seed" "$work/clean-workload"
	[ -s "$img" ] && return
	echo "== the kernel ages a volume (bench/clean.sh, qemu: minutes)" >&2
	CLEANERS=cost-benefit SEED=$seed KEEP_IMAGES=$work/aged BUILD=$top sh "$here/clean.sh" >&2 ||
		{ echo "bench/clean.sh failed" >&2; exit 1; }
	mv "$work/aged/cost-benefit-$seed.img" "$img"
}

# the ext4 peer the kernel wrote with the same workload as the volume
# (kernel_ext4 NAME MIB SCRIPT EXTRA): an empty ext4 of MIB MiB (mke2fs
# defaults), mounted in the guest, SCRIPT run on /mnt, kept in CP_CACHE
# like the volume: its path in k_img
kernel_ext4() {
	k_img=$cache/nilfs-fsck-bench-ext4-$1.img
	[ -s "$k_img" ] && return
	echo "== the kernel writes the same to ext4 (qemu, TCG: minutes)" >&2
	cat >"$work/guest-ext4.sh" <<GUEST
export PATH=/ktest/bin:\$PATH
mount -t ext4 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
$3 || echo "WORKLOAD FAILED"
umount /mnt || echo "UMOUNT FAILED"
echo GUEST DONE
GUEST
	# a guest that never reports (the emulated machine hangs now and then
	# on a loaded host) gets a second try on a fresh image
	for _ in 1 2; do
		rm -f "$k_img.tmp"
		truncate -s "$2M" "$k_img.tmp"
		"$mke2fs" -q -F -t ext4 "$k_img.tmp" >/dev/null
		NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-7200} NILFS_KTEST_EXTRA=$4 \
		NILFS_KTEST_MODULES="lib/crc16 fs/mbcache fs/jbd2/jbd2 crypto/crc32c_generic fs/ext4/ext4" \
			"$top/tests/kernel/guest.sh" run "$work/guest-ext4.sh" "$k_img.tmp" \
			>"$work/guest.out" 2>&1 && break
	done
	grep -qx "GUEST DONE" "$work/guest.out" && ! grep -q FAILED "$work/guest.out" ||
		{ echo "the guest failed:" >&2; tail -20 "$work/guest.out" >&2; rm -f "$k_img.tmp"; exit 1; }
	mv "$k_img.tmp" "$k_img"
}

# COMMAND's separate reads (read system calls of every thread: pread64,
# preadv2, read), one cold untimed run under strace -f -c; - without strace
cold_reads() {
	command -v strace >/dev/null || { echo -; return; }
	drop
	strace -f -c -o "$work/reads.strace" "$@" >/dev/null 2>&1 || true
	awk '$NF ~ /^(pread64|preadv2|preadv|read)$/ { n += $4 } END { print n + 0 }' "$work/reads.strace"
}

# the kernel-written volume $img, with --checkpoints=all too if ALL=1: cold
# runs against e2fsck of an ext4 image of its latest tree, the volume's
# metadata floor (bench/fsck-floor.c list: every block the latest check
# reads, read once in disk order) and the reads each makes
bench_kernel_volume() {
	cc $cflags -I"$top/include" -o "$work/fsck-floor" "$here/fsck-floor.c" "$top/.libs/libnlfs.a" -lz
	echo "== the latest tree into an ext4 image" >&2
	"$top/dump.nilfs2" "$img" extract / "$work/tree" >/dev/null
	e_img=$work/ext4.img
	truncate -s "${CP_IMG_GIB:-2}G" "$e_img"
	ninodes=$(($(find "$work/tree" | wc -l) * 11 / 10 + 1000))
	"$mke2fs" -q -F -t ext4 -N "$ninodes" -d "$work/tree" "$e_img" >/dev/null
	rm -rf "$work/tree"
	"$work/fsck-floor" list "$img" >"$work/meta.runs" 2>"$work/meta.txt"
	: >"$work/times"
	runs=${RUNS:-11}
	echo "== $runs rounds: each command cold, then warm" >&2
	i=0
	while [ $i -lt "$runs" ]; do
		for cmd in "latest $fsck -fn $img" "ext4 $e2fsck -fn $e_img" "kext4 $e2fsck -fn $k_img" \
			${FSCK_BEFORE:+"b_latest $FSCK_BEFORE -fn $img"}; do
			# shellcheck disable=SC2086 # the paths have no blanks
			set -- $cmd
			l=$1; shift
			run "$l" "$@"
			warm "w_$l" "$@"
		done
		if [ "${ALL:-1}" != 0 ]; then
			run all "$fsck" -fn --checkpoints=all "$img"
			warm w_all "$fsck" -fn --checkpoints=all "$img"
			[ -z "${FSCK_BEFORE:-}" ] || run b_all "$FSCK_BEFORE" -fn --checkpoints=all "$img"
		fi
		run meta "$work/fsck-floor" read "$img" "$work/meta.runs"
		i=$((i + 1))
	done
	n_reads=$(cold_reads "$fsck" -fn "$img") e_reads=$(cold_reads "$e2fsck" -fn "$e_img")
	printf 'volume: %s\n' "$vol_what"
	printf '%s rounds, cold: best and median wall time, median CPU time (user+system), max RSS; warm: best wall, median CPU\n' "$runs"
	line() {
		printf '%-36s %7.1f %7.1f ms  CPU %6.1f ms  %6d KiB   warm %6.1f ms  CPU %6.1f ms\n' "$1" \
			"$(ratio "$(best "$2")" 0.001)" "$(ratio "$(med "$2")" 0.001)" "$(ratio "$(cpu "$2")" 0.001)" \
			"$(peak "$2")" "$(ratio "$(best "w_$2")" 0.001)" "$(ratio "$(cpu "w_$2")" 0.001)"
	}
	line 'fsck.nilfs2 -fn (latest):' latest
	printf '    (%s)\n' "$(grep -E "[0-9] inodes," "$work/latest.out" | sed 's/^[^:]*: [^:]*: //')"
	if [ "${ALL:-1}" != 0 ]; then
		line 'fsck.nilfs2 -fn --checkpoints=all:' all
		printf '    (%s checked)\n' "$(sed -n 's/.* \([0-9]*\) checked$/\1/p' "$work/all.out")"
	fi
	line 'e2fsck -fn (mke2fs -d, latest tree):' ext4
	line 'e2fsck -fn (ext4 the kernel aged alike):' kext4
	printf 'floor, metadata (%s) read once in disk order: best %.1f ms, median %.1f ms\n' "$(cat "$work/meta.txt")" \
		"$(ratio "$(best meta)" 0.001)" "$(ratio "$(med meta)" 0.001)"
	printf 'separate reads (read system calls, cold): fsck.nilfs2 -fn %s (its read-ahead thread included), e2fsck -fn %s; the floor, %s runs\n' \
		"$n_reads" "$e_reads" "$(grep -c '^[0-9]' "$work/meta.runs")"
	# ratios of the best and of the median cold runs, of the median CPU
	# time of the warm runs and of the largest RSS
	ratios() {
		printf '%s: cold best %.2f median %.2f  warm CPU %.2f' "$1" "$(ratio "$(best "$2")" "$(best "$3")")" \
			"$(ratio "$(med "$2")" "$(med "$3")")" "$(ratio "$(cpu "w_$2")" "$(cpu "w_$3")")"
		[ -z "${4:-}" ] || printf '  memory %.2f' "$(ratio "$(peak "$2")" "$(peak "$3")")"
		printf '%s\n' "${5:-}"
	}
	ratios 'ratio latest / e2fsck' latest ext4 m ' (targets: time <= 1, memory <= 2)'
	ratios 'ratio latest / aged e2fsck' latest kext4 m
	printf 'ratio latest / floor: cold best %.2f median %.2f (target <= 1.5)\n' \
		"$(ratio "$(best latest)" "$(best meta)")" "$(ratio "$(med latest)" "$(med meta)")"
	if [ "${ALL:-1}" != 0 ]; then
		ratios 'ratio all / latest' all latest m ' (target: time <= 1.5)'
		ratios 'ratio all / e2fsck' all ext4 m
	fi
	if [ -n "${FSCK_BEFORE:-}" ]; then
		line "before ($FSCK_BEFORE):" b_latest
		ratios 'ratio before latest / e2fsck' b_latest ext4 m
		printf 'before: %s separate reads' "$(cold_reads "$FSCK_BEFORE" -fn "$img")"
		[ "${ALL:-1}" = 0 ] || printf '; all cold best %.1f median %.1f ms (%.2f x its latest)' \
			"$(ratio "$(best b_all)" 0.001)" "$(ratio "$(med b_all)" 0.001)" \
			"$(ratio "$(best b_all)" "$(best b_latest)")"
		printf '\n'
	fi
	printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}
cache=${CP_CACHE:-${NILFS_KTEST_CACHE:-/var/tmp}}
case ${CASE:-tree} in
checkpoints)
	cp_volume
	bench_kernel_volume
	exit 0 ;;
aged)
	aged_volume
	ALL=${ALL:-0} bench_kernel_volume
	exit 0 ;;
all)
	# every ratio of the three cases in one run, the main case last
	cp_volume
	bench_kernel_volume
	aged_volume
	[ -n "${ALL:-}" ] || ALL=0   # as CASE=aged: --checkpoints=all only with ALL=1
	bench_kernel_volume ;;
tree) ;;
*)
	echo "bench/fsck.sh: CASE must be tree, checkpoints, aged or all" >&2
	exit 1 ;;
esac
cc $cflags -o "$work/fsck-tree" "$here/fsck-tree.c"
cc $cflags -I"$top/include" -o "$work/fsck-floor" "$here/fsck-floor.c" "$top/.libs/libnlfs.a" -lz

echo "== tree of $NFILES names" >&2
"$work/fsck-tree" "$work/tree" "$NFILES" >"$work/tree.txt"
tar cf - -C "$work/tree" . | cat >/dev/null    # both mkfs runs start warm
n_img=$work/nilfs.img
e_img=$work/ext4.img
truncate -s "${IMG_GIB}G" "$n_img" "$e_img"
t0=$(now)
"$mkfs" -q -f -d "$work/tree" "$n_img" >/dev/null
t1=$(now)
# the default of one inode per 16 KiB would not hold the tree: its count and 10%
ninodes=$(awk '{ print int(($2 + $4 + $6) * 1.1) + 1000 }' "$work/tree.txt")
"$mke2fs" -q -F -t ext4 -N "$ninodes" -d "$work/tree" "$e_img" >/dev/null
t2=$(now)
rm -rf "$work/tree"

"$work/fsck-floor" list "$n_img" >"$work/meta.runs" 2>"$work/meta.txt"
"$work/fsck-floor" list-logs "$n_img" >"$work/logs.runs" 2>"$work/logs.txt"
: >"$work/times"
# interleaved, so a busy machine slows all of them alike
runs=${RUNS:-2}
echo "== cold runs, best of $runs each" >&2
i=0
while [ $i -lt "$runs" ]; do
	run nilfs "$fsck" -fn "$n_img"
	[ -z "${FSCK_BEFORE:-}" ] || run nilfs_before "$FSCK_BEFORE" -fn "$n_img"
	[ "$CHECK_DATA" = 0 ] || run nilfs_data "$fsck" -fn --check-data "$n_img"
	run ext4 "$e2fsck" -fn "$e_img"
	run meta "$work/fsck-floor" read "$n_img" "$work/meta.runs"
	run logs "$work/fsck-floor" read "$n_img" "$work/logs.runs"
	i=$((i + 1))
done
n_t=$(best nilfs) n_m=$(peak nilfs) e_t=$(best ext4) e_m=$(peak ext4)
m_t=$(best meta) l_t=$(best logs)

printf 'tree: %s\n' "$(cat "$work/tree.txt")"
printf 'images (%s GiB sparse): nilfs2 %d MiB allocated, ext4 %d MiB allocated\n' "$IMG_GIB" \
	$(($(stat -c '%b*%B' "$n_img") / 1048576)) $(($(stat -c '%b*%B' "$e_img") / 1048576))
printf 'mkfs.nilfs2 -d: %.1f s   mke2fs -t ext4 -d: %.1f s\n' \
	"$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
printf 'fsck.nilfs2 -fn: %6.2f s  %7d KiB max RSS   (%s)\n' "$n_t" "$n_m" \
	"$(grep -E "[0-9] inodes," "$work/nilfs.out" | sed 's/^[^:]*: [^:]*: //')"
printf 'e2fsck -fn:      %6.2f s  %7d KiB max RSS   (%s)\n' "$e_t" "$e_m" \
	"$(grep files "$work/ext4.out" | sed 's/^[^:]*: //')"
printf 'ratio fsck.nilfs2 / e2fsck: time %.3f (target <= 0.25)  memory %.3f (target <= 0.5)\n' \
	"$(echo "$n_t / $e_t" | bc -l)" "$(echo "$n_m / $e_m" | bc -l)"
if [ "$CHECK_DATA" != 0 ]; then
	d_t=$(best nilfs_data) d_m=$(peak nilfs_data)
	printf 'fsck.nilfs2 -fn --check-data: %6.2f s  %7d KiB max RSS   (ratio to e2fsck: time %.3f)\n' \
		"$d_t" "$d_m" "$(echo "$d_t / $e_t" | bc -l)"
fi
if [ -n "${FSCK_BEFORE:-}" ]; then
	printf 'before (%s): %6.2f s  %7d KiB max RSS   (ratio to e2fsck: time %.3f)\n' "$FSCK_BEFORE" \
		"$(best nilfs_before)" "$(peak nilfs_before)" "$(echo "$(best nilfs_before) / $e_t" | bc -l)"
fi
printf 'floor, metadata (%s) read once in disk order: %.2f s\n' "$(cat "$work/meta.txt")" "$m_t"
printf 'floor, whole logs (%s, what the data checksums need): %.2f s\n' "$(cat "$work/logs.txt")" "$l_t"
printf 'ratio fsck.nilfs2 / floor: metadata %.2f (target <= 1.5)  whole logs %.2f\n' \
	"$(echo "$n_t / $m_t" | bc -l)" "$(echo "$n_t / $l_t" | bc -l)"
printf 'ratio floor / e2fsck: metadata %.3f (the least fsck.nilfs2 / e2fsck can be: the check reads the metadata)\n' \
	"$(echo "$m_t / $e_t" | bc -l)"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
