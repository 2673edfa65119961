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
#  4. Every timing is of PAIR_RUNS (default 9) rounds in which each case
#     and its peer run once in turn, so that a busy moment of the shared
#     machine falls on one round of both rather than on one side: each
#     ratio is printed as the best of one side against the best of the
#     other (wall time, and CPU time: user and system, of all the processes
#     of the command), and as the median over the rounds of the ratio
#     within each round.  FULL_PAIRS (default PAIR_RUNS) sets the rounds of
#     the full send, whose two sides read the whole image cold.  The cases:
#     - incremental, WARM: `nilfs-send -p 1 IMG A | nilfs-receive DIR`
#       onto a directory that received checkpoint 1, the image's blocks it
#       reads in the page cache (one untimed send first), against
#       `rsync -a --delete` from the tree of A onto the tree of 1, both
#       on the tmpfs (a tmpfs cannot be read cold: both sides are timed
#       warm), as a ratio (target: 0.05, 20 times faster).  The same
#       incremental with the image cold (caches dropped), in the same
#       rounds, is printed too, against the same warm rsync: a stricter
#       ratio;
#     - full, COLD: `nilfs-send IMG A | nilfs-receive DIR` into an empty
#       directory against `dump.nilfs2 extract` of A, both reading the
#       image after the caches are dropped, both writing to the tmpfs
#       (target: 1.2);
#     - receive alone: `nilfs-receive -f STREAM` of the incremental stream
#       (saved in a file) onto the received checkpoint 1, against `cp` of
#       the files it writes (from the tree of A, over the same files of
#       the tree of 1): what writing the changed bytes costs (target:
#       1.5).  The stream and cp's sources are read once after the cache
#       is dropped, so that both sides only write.  `cp -a` of the same
#       files, which sets their owners, modes and times as the receive
#       does (not its renames, removals and directories' times), runs in
#       the same rounds and is printed beside it.
#     Every timed command is followed by a sync of the tmpfs (sync -f),
#     as nilfs-receive syncs its target before it records the checkpoint.
#     The received trees are checked against the extracted one (diff -r),
#     untimed.
# CASES (default "incr recv full") runs some of the three: incr (with
# rsync), recv (with cp and cp -a), full (with dump.nilfs2 extract).
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
PAIR_RUNS=${PAIR_RUNS:-9}
FULL_PAIRS=${FULL_PAIRS:-$PAIR_RUNS}
CASES=${CASES:-incr recv full}
has() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
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

echo "== the tree of $cpa extracted" >&2
"$top/dump.nilfs2" -c "$cpa" "$img" extract / "$mem/tA"
if has incr || has recv; then
echo "== the tree of 1 received" >&2
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
fi

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
# one run of PREPARE (run here, with farm) then the timed COMMAND (a
# shell string) and a sync of the tmpfs, its "WALL CPU" (seconds; CPU:
# user and system of every process of the command) appended to the file
# $W/t.NAME; CACHE: cold (the caches dropped after PREPARE) or warm; WARM
# (a shell string) runs after that, untimed.  (CPU times are printed
# beside wall times: at a load of 25 on two cores, a command of 50 ms of
# CPU waits hundreds of ms for one, and the peers' wall times are then
# more the scheduler's than their own.)
run1() {
	name=$1 prep=$2 cmd=$3 cache=$4 warm=${5:-}
	(eval "$prep") || { echo "failed: $prep" >&2; exit 1; }
	[ "$cache" = warm ] || drop
	[ -z "$warm" ] || sh -c "$warm"
	t0=$(now)
	/usr/bin/time -f "%U %S" -o "$W/cpu" sh -c "$cmd; sync -f \"\$M\"" ||
		{ echo "failed: $cmd" >&2; exit 1; }
	t=$(echo "$(now) - $t0" | bc)
	echo "$t $(awk '{ print $1 + $2 }' "$W/cpu")" >>"$W/t.$name"
}
# "Ws wall, Cs CPU": the best of each over NAME's runs
times_of() {
	awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 }
		END { printf "%.3fs wall, %.3fs CPU (best of %d)", w, c, NR }' "$W/t.$1"
}
# the ratios of NAME's runs to PEER's: of the best of each, and the
# median of the rounds' own ratios (the runs of a round took turns), in
# wall and in CPU time ("-" where a CPU time is below GNU time's 10 ms)
ratio() {
	paste -d' ' "$W/t.$1" "$W/t.$2" | awk '
		function med(v, n,   i, j, x) {
			for (i = 2; i <= n; i++) {
				x = v[i]
				for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
				v[j + 1] = x
			}
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		function q(a, b) { return b > 0 ? sprintf("%.4f", a / b) : "-" }
		NR == 1 || $1 < w1 { w1 = $1 } NR == 1 || $2 < c1 { c1 = $2 }
		NR == 1 || $3 < w2 { w2 = $3 } NR == 1 || $4 < c2 { c2 = $4 }
		{ rw[NR] = $1 / $3; if ($4 > 0) rc[++nc] = $2 / $4 }
		END {
			printf "ratio %s (CPU %s) best of %d against best; ", q(w1, w2), q(c1, c2), NR
			printf "median of the rounds %.4f (CPU %s)\n", med(rw, NR), nc ? sprintf("%.4f", med(rc, nc)) : "-"
		}'
}
same() {
	diff -r --no-dereference -x .nilfs-receive "$mem/tA" "$mem/$1" >/dev/null ||
		{ echo "$2 differs from the tree of $cpa" >&2; exit 1; }
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
S=$top/nilfs-send R=$top/nilfs-receive D=$top/dump.nilfs2 W=$work M=$mem I=$img
export S R D W M I cpa
rm -f "$work"/t.*
has incr || PAIRS_INCR=0
echo "== incremental send | receive against rsync, ${PAIRS_INCR:-$PAIR_RUNS} rounds" >&2
for round in $(seq "${PAIRS_INCR:-$PAIR_RUNS}"); do
	run1 incr 'farm r' '"$S" -p 1 "$I" "$cpa" | "$R" "$M/r"' warm '"$S" -p 1 "$I" "$cpa" >/dev/null'
	[ "$round" -gt 1 ] || same r "the incremental receive"
	run1 rsync 'farm s; rm -rf "$M/s/.nilfs-receive"' 'rsync -a --delete "$M/tA/" "$M/s/"' warm
	[ "$round" -gt 1 ] || same s "rsync's copy"
	run1 incr_cold 'farm r' '"$S" -p 1 "$I" "$cpa" | "$R" "$M/r"' cold
	[ "$round" -gt 1 ] || same r "the incremental receive (cold)"
	# the cold run's ratio is taken against this round's rsync too
	tail -n 1 "$W/t.rsync" >>"$W/t.rsync2"
done
rm -rf "$mem/r" "$mem/s"

has recv || PAIRS_RECV=0
echo "== receive alone against cp, ${PAIRS_RECV:-$PAIR_RUNS} rounds" >&2
has recv && written_bytes=$(cd "$mem/tA" && tr '\n' '\0' <"$work/written" | du -cb --files0-from=- | tail -1 | cut -f1)
for round in $(seq "${PAIRS_RECV:-$PAIR_RUNS}"); do
	run1 recv 'farm r' '"$R" -f "$W/incr.stream" "$M/r"' cold 'cat "$W/incr.stream" >/dev/null'
	[ "$round" -gt 1 ] || same r "the incremental receive from a file"
	run1 cp 'farm c' \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cp --parents -t "$M/c"' cold \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cat >/dev/null'
	run1 cpa 'farm c' \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cp -a --parents -t "$M/c"' cold \
		'cd "$M/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cat >/dev/null'
done
rm -rf "$mem/r" "$mem/c" "$mem/r1"

has full || FULL_PAIRS=0
echo "== full send | receive against dump.nilfs2 extract, $FULL_PAIRS rounds" >&2
for round in $(seq "$FULL_PAIRS"); do
	run1 full 'rm -rf "$M/f"; mkdir "$M/f"' '"$S" "$I" "$cpa" | "$R" "$M/f"' cold
	[ "$round" -gt 1 ] || same f "the full receive"
	rm -rf "$mem/f"
	run1 extract 'rm -rf "$M/e"' '"$D" -c "$cpa" "$I" extract / "$M/e"' cold
	rm -rf "$mem/e"
done

echo "tree: $(cat "$work/tree.txt"); $NCHANGED files changed, $NMOVED renamed or removed
image on disk, trees on a tmpfs; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
if has incr; then
echo "incremental nilfs-send -p | nilfs-receive ($incr_bytes bytes), warm:  $(times_of incr)"
echo "rsync -a --delete between the trees (tmpfs), warm:  $(times_of rsync)"
echo "  $(ratio incr rsync)  (target <= 0.05)"
echo "the same incremental, the image cold:  $(times_of incr_cold)"
echo "  $(ratio incr_cold rsync2) against the warm rsync"
fi
if has full; then
echo "full nilfs-send | nilfs-receive, cold:  $(times_of full)"
echo "dump.nilfs2 extract, cold:  $(times_of extract)"
echo "  $(ratio full extract)  (target <= 1.2)"
fi
if has recv; then
echo "nilfs-receive of the incremental stream alone:  $(times_of recv)"
echo "cp of the $(wc -l <"$work/written") files it writes ($written_bytes bytes):  $(times_of cp)"
echo "  $(ratio recv cp)  (target <= 1.5)"
echo "cp -a of them (their owners, modes and times too):  $(times_of cpa)"
echo "  $(ratio recv cpa)"
fi
