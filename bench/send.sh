#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/send.sh: replication by nilfs-send | nilfs-receive against its peers.
#  1. bench/fsck-tree.c writes bench/fsck.sh's deterministic tree, NFILES
#     names (default 100000; the issue's size is 1000000); our
#     `mkfs.nilfs2 -d` makes checkpoint 1 of it.
#  2. The real kernel (tests/kernel/guest.sh) appends a line to NCHANGED
#     (default 1000) of its files and renames NMOVED/2 and removes NMOVED/2
#     others (default 1000 in all), spread over the tree, and takes
#     checkpoint A.
#  3. The image stays on disk, in the work directory.  Every tree (the
#     generated one, the trees of 1 and A, rsync's, receive's and cp's
#     targets) is on a tmpfs this script mounts at WORK/mem, sized for two
#     trees (about 7 KiB a name each; TMPFS_GIB overrides), and unmounts
#     at the end: removing a tree of a million files from a disk took over
#     half an hour (discard), from a tmpfs it takes seconds.  Targets are
#     links to the tree of 1 (cp -al), but for the files the stream names
#     (and their directories' times), which are real copies: nothing
#     written can reach the tree of 1, and two trees fit in memory.
#  4. Best of RUNS (default 2), in wall time and in CPU time (user and
#     system, of all the processes of the command), each printed:
#     - incremental, WARM: `nilfs-send -p 1 IMG A | nilfs-receive DIR`
#       onto a directory that received checkpoint 1, the image's blocks it
#       reads in the page cache (one untimed send first), against
#       `rsync -a --delete` from the tree of A onto the tree of 1, both
#       on the tmpfs (a tmpfs cannot be read cold: both sides are timed
#       warm), as a ratio (target: 0.05, 20 times faster).  The same
#       incremental with the image cold (caches dropped) is printed too,
#       against the same warm rsync: a stricter ratio;
#     - full, COLD: `nilfs-send IMG A | nilfs-receive DIR` into an empty
#       directory against `dump.nilfs2 extract` of A, both reading the
#       image after the caches are dropped, both writing to the tmpfs
#       (target: 1.2);
#     - receive alone: `nilfs-receive -f STREAM` of the incremental stream
#       (saved in a file) onto the received checkpoint 1, against `cp` of
#       the files it writes (from the tree of A, over the same files of
#       the tree of 1): what writing the changed bytes costs (target:
#       1.5).  The stream and cp's sources are read once after the cache
#       is dropped, so that both sides only write.  These take tens of
#       milliseconds: they run in turn, PAIR_RUNS (default 9) rounds of
#       one run each, each keeping its best, not RUNS runs in a row.  `cp -a` of the same
#       files, which sets their owners, modes and times as the receive
#       does (not its renames, removals and directories' times), is
#       printed beside it.
#     Every timed command is followed by a sync of the tmpfs (sync -f),
#     as nilfs-receive syncs its target before it records the checkpoint.
#     The received trees are checked against the extracted one (diff -r),
#     untimed.
# rsync and GNU time must be installed (apt-get install rsync time).  KEEP=1 keeps the work
# directory (the image and the lists, not the tmpfs) and prints its name;
# WORK=DIR runs again on such a kept directory, skipping steps 1 and 2.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
NFILES=${NFILES:-100000}
NCHANGED=${NCHANGED:-1000}
NMOVED=${NMOVED:-1000}
# the image: 4 GiB, or 8 GiB a million names (a 4 GiB one is full before
# the end of a tree of 1M)
IMG_GIB=${IMG_GIB:-$(( NFILES > 500000 ? (NFILES + 124999) / 125000 : 4 ))}
RUNS=${RUNS:-2}
PAIR_RUNS=${PAIR_RUNS:-9}
for p in "$top/mkfs.nilfs2" "$top/dump.nilfs2" "$top/nilfs-send" "$top/nilfs-receive"; do
	[ -x "$p" ] || { echo "build first: $p missing" >&2; exit 1; }
done
command -v rsync >/dev/null || { echo "rsync is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }
[ -w /proc/sys/vm/drop_caches ] || { echo "must run as root: every timing starts with a cold cache" >&2; exit 1; }
"$top/tests/kernel/guest.sh" require || exit 1
if [ -n "${WORK:-}" ]; then
	work=$WORK KEEP=1
	[ -s "$work/cpa" ] || { echo "$work: not a kept bench/send.sh directory" >&2; exit 1; }
	NFILES=$(awk '{ print $2 + $6 }' "$work/tree.txt")
else
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-send-bench.XXXXXX")
fi
mem=$work/mem
cleanup() {
	cd /
	if mountpoint -q "$mem"; then
		umount "$mem" && echo "tmpfs $mem unmounted" >&2
	fi
	rmdir "$mem" 2>/dev/null || :
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
now() { date +%s.%N; }

# the tmpfs, for two trees of NFILES names
gib=${TMPFS_GIB:-$(( (NFILES * 7 * 2 + 1048575) / 1048576 + 1 ))}
avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1048576) }' /proc/meminfo)
[ "$gib" -le $((avail - 2)) ] ||
	{ echo "a tmpfs of $gib GiB for the trees needs more memory than the $avail GiB available" >&2; exit 1; }
mkdir -p "$mem"
mount -t tmpfs -o "size=${gib}G,nr_inodes=$((NFILES * 8 + 100000)),mode=0700" nilfs-send-bench "$mem"
echo "== the trees are on a tmpfs of $gib GiB at $mem (unmounted at the end)" >&2
# (a hard link takes one of the tmpfs's inodes: room for eight per name)

img=$work/nilfs.img
if [ ! -s "$work/cpa" ]; then
cc -O2 -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -o "$work/fsck-tree" "$here/fsck-tree.c"
echo "== tree of $NFILES names" >&2
"$work/fsck-tree" "$mem/tree" "$NFILES" >"$work/tree.txt"
truncate -s "${IMG_GIB}G" "$img"
"$top/mkfs.nilfs2" -q -f -d "$mem/tree" "$img"
(cd "$mem/tree" && find . -type f | LC_ALL=C sort) >"$work/files"
rm -rf "$mem/tree"
nf=$(wc -l <"$work/files")
k=$((NCHANGED + NMOVED))
awk -v n="$nf" -v k="$k" 'NR % int(n / k) == 0 && c < k { c++; print }' "$work/files" >"$work/picked"
{
	echo 'mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }'
	echo 'cd /mnt'
	awk -v c="$NCHANGED" -v m="$NMOVED" '
		NR <= c { printf "echo changed >>\"%s\"\n", $0; next }
		(NR - c) % 2 { printf "mv \"%s\" \"%s.moved\"\n", $0, $0; next }
		{ printf "rm \"%s\"\n", $0 }' "$work/picked"
	echo 'cd /; sync; echo "CP A $(mkcp -p /dev/vda)"; umount /mnt'
} >"$work/g1"
echo "== the kernel changes $NCHANGED files, renames and removes $NMOVED" >&2
NILFS_KTEST_TIMEOUT=3600 "$top/tests/kernel/guest.sh" run "$work/g1" "$img" >"$work/out1"
cpa=$(sed -n 's/^CP A \([0-9][0-9]*\)$/\1/p' "$work/out1")
[ -n "$cpa" ] || { cat "$work/out1"; exit 1; }
echo "$cpa" >"$work/cpa"
fi
cpa=$(cat "$work/cpa")

echo "== the tree of $cpa extracted, the tree of 1 received" >&2
"$top/dump.nilfs2" -c "$cpa" "$img" extract / "$mem/tA"
mkdir "$mem/r1"
"$top/nilfs-send" "$img" 1 | "$top/nilfs-receive" "$mem/r1"
# the incremental stream in a file; the files of the tree of 1 it names
# (the only ones a target may write to or change, so each target's copy
# of them is its own); the files it writes (the paths of its create,
# truncate, write and hole commands); the tree's names are plain, so
# --dump prints them as they are
"$top/nilfs-send" -p 1 "$img" "$cpa" >"$work/incr.stream"
incr_bytes=$(wc -c <"$work/incr.stream")
"$top/nilfs-receive" --dump -f "$work/incr.stream" >"$work/incr.dump"
awk '$1 != "stream" && $1 != "end" { print $2 } $1 == "rename" || $1 == "link" { print $4 }' \
	"$work/incr.dump" | LC_ALL=C sort -u >"$work/named"
awk '$1 == "create" || $1 == "write" || $1 == "truncate" || $1 == "hole" { print $2 }' \
	"$work/incr.dump" | LC_ALL=C sort -u >"$work/written"

# $M/$1: the tree of 1 (r1) as hard links, but for the files that the
# stream names, copied, with their directories' times put back
farm() {
	rm -rf "$M/$1"
	cp -al "$M/r1" "$M/$1"
	(cd "$M/r1" && while IFS= read -r p; do
		if [ -f "$p" ] && [ ! -L "$p" ]; then
			cp -a --remove-destination "$p" "$M/$1/$p"
			case $p in */*) echo "${p%/*}" ;; esac
		fi
	done <"$W/named") | LC_ALL=C sort -u | while IFS= read -r d; do
		touch -h -r "$M/r1/$d" "$M/$1/$d"
	done
}
# "WALL CPU": the best wall time, and the best CPU time (user and
# system, of every process of the command), of RUNS runs of PREPARE (run
# here, with farm) then the timed COMMAND (a shell string) and a sync of
# the tmpfs; CACHE: cold (the caches dropped after PREPARE) or warm; WARM
# (a shell string) runs after that, untimed.  (The CPU times are printed
# beside the wall times: at a load of 25 on two cores, a command of 50 ms
# of CPU waits hundreds of ms for one, and the peers' wall times are then
# more the scheduler's than their own.)
best() {
	prep=$1 cmd=$2 cache=$3 warm=${4:-} b= bc=
	for r in $(seq "$RUNS"); do
		(eval "$prep") || { echo "failed: $prep" >&2; exit 1; }
		[ "$cache" = warm ] || drop
		[ -z "$warm" ] || sh -c "$warm"
		t0=$(now)
		/usr/bin/time -f "%U %S" -o "$W/cpu" sh -c "$cmd; sync -f \"\$M\"" ||
			{ echo "failed: $cmd" >&2; exit 1; }
		t=$(echo "$(now) - $t0" | bc)
		u=$(awk '{ print $1 + $2 }' "$W/cpu")
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
		if [ -z "$bc" ] || [ "$(echo "$u < $bc" | bc)" = 1 ]; then bc=$u; fi
	done
	echo "$b $bc"
}
# "Ws wall, Cs CPU" of a best() result
times_of() {
	echo "${1% *}s wall, ${1#* }s CPU"
}
# the ratios of two best() results, wall and CPU
ratio() {
	echo "ratio $(echo "scale=4; ${1% *} / ${2% *}" | bc) (CPU $(echo "scale=4; ${1#* } / ${2#* }" | bc))"
}
# the lesser wall time and the lesser CPU time of two best() results
# (the first may be empty)
lesser() {
	if [ -z "$1" ]; then echo "$2"; return; fi
	echo "$(echo "if (${1% *} < ${2% *}) ${1% *} else ${2% *}" | bc) \
$(echo "if (${1#* } < ${2#* }) ${1#* } else ${2#* }" | bc)"
}
same() {
	diff -r --no-dereference -x .nilfs-receive "$mem/tA" "$mem/$1" >/dev/null ||
		{ echo "$2 differs from the tree of $cpa" >&2; exit 1; }
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
S=$top/nilfs-send R=$top/nilfs-receive D=$top/dump.nilfs2 W=$work M=$mem I=$img
export S R D W M I cpa
echo "== incremental send | receive against rsync" >&2
t_incr=$(best 'farm r' '"$S" -p 1 "$I" "$cpa" | "$R" "$M/r"' warm '"$S" -p 1 "$I" "$cpa" >/dev/null')
same r "the incremental receive"
t_incr_cold=$(best 'farm r' '"$S" -p 1 "$I" "$cpa" | "$R" "$M/r"' cold)
same r "the incremental receive (cold)"
rm -rf "$mem/r"
t_rsync=$(best 'farm s; rm -rf "$M/s/.nilfs-receive"' 'rsync -a --delete "$M/tA/" "$M/s/"' warm)
same s "rsync's copy"
rm -rf "$mem/s"

echo "== receive alone against cp" >&2
written_bytes=$(cd "$mem/tA" && tr '\n' '\0' <"$work/written" | du -cb --files0-from=- | tail -1 | cut -f1)
# each of these runs for tens of milliseconds, where one wait for a CPU
# under load is as long: the three take turns, PAIR_RUNS rounds of one
# run each, and each keeps its best, so that a busy moment costs both
# sides alike rather than the one that ran then
t_recv= t_cp= t_cpa=
for round in $(seq "$PAIR_RUNS"); do
	t_recv=$(lesser "$t_recv" "$(RUNS=1 best 'farm r' '"$R" -f "$W/incr.stream" "$M/r"' cold \
		'cat "$W/incr.stream" >/dev/null')")
	[ "$round" -gt 1 ] || same r "the incremental receive from a file"
	t_cp=$(lesser "$t_cp" "$(RUNS=1 best 'farm c' \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cp --parents -t "$M/c"' cold \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cat >/dev/null')")
	t_cpa=$(lesser "$t_cpa" "$(RUNS=1 best 'farm c' \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cp -a --parents -t "$M/c"' cold \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cat >/dev/null')")
done
rm -rf "$mem/r"
rm -rf "$mem/c" "$mem/r1"

echo "== full send | receive against dump.nilfs2 extract" >&2
t_full=$(best 'rm -rf "$M/f"; mkdir "$M/f"' '"$S" "$I" "$cpa" | "$R" "$M/f"' cold)
same f "the full receive"
rm -rf "$mem/f"
t_extract=$(best 'rm -rf "$M/e"' '"$D" -c "$cpa" "$I" extract / "$M/e"' cold)
rm -rf "$mem/e"

echo "tree: $(cat "$work/tree.txt"); $NCHANGED files changed, $NMOVED renamed or removed
image on disk, trees on a tmpfs; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "incremental nilfs-send -p | nilfs-receive ($incr_bytes bytes), warm:  $(times_of "$t_incr")"
echo "rsync -a --delete between the trees (tmpfs), warm:  $(times_of "$t_rsync")"
echo "  $(ratio "$t_incr" "$t_rsync")  (target <= 0.05)"
echo "the same incremental, the image cold:  $(times_of "$t_incr_cold")"
echo "  $(ratio "$t_incr_cold" "$t_rsync") against the warm rsync"
echo "full nilfs-send | nilfs-receive, cold:  $(times_of "$t_full")"
echo "dump.nilfs2 extract, cold:  $(times_of "$t_extract")"
echo "  $(ratio "$t_full" "$t_extract")  (target <= 1.2)"
echo "nilfs-receive of the incremental stream alone:  $(times_of "$t_recv")"
echo "cp of the $(wc -l <"$work/written") files it writes ($written_bytes bytes):  $(times_of "$t_cp")"
echo "  $(ratio "$t_recv" "$t_cp")  (target <= 1.5)"
echo "cp -a of them (their owners, modes and times too):  $(times_of "$t_cpa")"
echo "  $(ratio "$t_recv" "$t_cpa")"
