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
#  3. With a cold cache each (as root), best of RUNS (default 2):
#     - incremental: `nilfs-send -p 1 IMG A | nilfs-receive DIR` onto a
#       directory that received checkpoint 1, against `rsync -a --delete`
#       from the tree of A onto the tree of 1 (both extracted by
#       dump.nilfs2), as a ratio (target: 0.05, 20 times faster);
#     - full: `nilfs-send IMG A | nilfs-receive DIR` into an empty
#       directory against `dump.nilfs2 extract` of A (target: 1.2);
#     - receive alone: `nilfs-receive -f STREAM` of the incremental stream
#       (saved in a file) onto the received checkpoint 1, against `cp` of
#       the files it writes (from the tree of A, over the same files of a
#       copy of the tree of 1): what writing the changed bytes costs
#       (target: 1.5).  The stream and cp's sources are read once after
#       the cache is dropped, so that both sides only write.
#     Every command is followed by a sync, as nilfs-receive syncs before
#     it records the checkpoint.  The received trees are checked against
#     the extracted ones (diff -r), untimed.
# rsync must be installed (apt-get install rsync).  KEEP=1 keeps the work
# directory (the image, the trees) and prints its name; WORK=DIR runs again
# on such a kept directory, skipping steps 1 and 2 and the extractions.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
NFILES=${NFILES:-100000}
NCHANGED=${NCHANGED:-1000}
NMOVED=${NMOVED:-1000}
IMG_GIB=${IMG_GIB:-4}
RUNS=${RUNS:-2}
for p in "$top/mkfs.nilfs2" "$top/dump.nilfs2" "$top/nilfs-send" "$top/nilfs-receive"; do
	[ -x "$p" ] || { echo "build first: $p missing" >&2; exit 1; }
done
command -v rsync >/dev/null || { echo "rsync is not installed" >&2; exit 1; }
[ -w /proc/sys/vm/drop_caches ] || { echo "must run as root: every timing starts with a cold cache" >&2; exit 1; }
"$top/tests/kernel/guest.sh" require || exit 1
if [ -n "${WORK:-}" ]; then
	work=$WORK KEEP=1
	[ -s "$work/cpa" ] || { echo "$work: not a kept bench/send.sh directory" >&2; exit 1; }
else
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-send-bench.XXXXXX")
fi
if [ "${KEEP:-0}" = 1 ]; then
	trap 'echo "kept: $work" >&2' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
now() { date +%s.%N; }

img=$work/nilfs.img
if [ ! -s "$work/cpa" ]; then
cc -O2 -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -o "$work/fsck-tree" "$here/fsck-tree.c"
echo "== tree of $NFILES names" >&2
"$work/fsck-tree" "$work/tree" "$NFILES" >"$work/tree.txt"
truncate -s "${IMG_GIB}G" "$img"
"$top/mkfs.nilfs2" -q -f -d "$work/tree" "$img"
(cd "$work/tree" && find . -type f | LC_ALL=C sort) >"$work/files"
rm -rf "$work/tree"
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

echo "== trees of checkpoints 1 and $cpa" >&2
"$top/dump.nilfs2" -c 1 "$img" extract / "$work/t1"
"$top/dump.nilfs2" -c "$cpa" "$img" extract / "$work/tA"
mkdir "$work/r1"
"$top/nilfs-send" "$img" 1 | "$top/nilfs-receive" "$work/r1"
echo "$cpa" >"$work/cpa"
fi
cpa=$(cat "$work/cpa")

# best (wall) time of RUNS cold runs of PREPARE then the timed COMMAND (a
# shell string), followed by a sync; WARM (a shell string) runs after the
# cache is dropped, untimed
best() {
	prep=$1 cmd=$2 warm=${3:-} b=
	for r in $(seq "$RUNS"); do
		sh -c "$prep"
		drop
		[ -z "$warm" ] || sh -c "$warm"
		t0=$(now)
		sh -c "$cmd; sync" || { echo "failed: $cmd" >&2; exit 1; }
		t=$(echo "$(now) - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
S=$top/nilfs-send R=$top/nilfs-receive D=$top/dump.nilfs2 W=$work I=$img
export S R D W I cpa
t_incr=$(best 'rm -rf "$W/r"; cp -a "$W/r1" "$W/r"' \
	'"$S" -p 1 "$I" "$cpa" | "$R" "$W/r"')
diff -r --no-dereference -x .nilfs-receive "$work/tA" "$work/r" >/dev/null ||
	{ echo "the incremental receive differs from the tree of $cpa" >&2; exit 1; }
incr_bytes=$("$top/nilfs-send" -p 1 "$img" "$cpa" | wc -c)
t_rsync=$(best 'rm -rf "$W/s"; cp -a "$W/t1" "$W/s"' 'rsync -a --delete "$W/tA/" "$W/s/"')
t_full=$(best 'rm -rf "$W/f"; mkdir "$W/f"' '"$S" "$I" "$cpa" | "$R" "$W/f"')
diff -r --no-dereference -x .nilfs-receive "$work/tA" "$work/f" >/dev/null ||
	{ echo "the full receive differs from the tree of $cpa" >&2; exit 1; }
t_extract=$(best 'rm -rf "$W/e"' '"$D" -c "$cpa" "$I" extract / "$W/e"')

# the incremental stream in a file, and the files it writes (the paths of
# its create, truncate, write and hole commands; the tree's names are
# plain, so --dump prints them as they are)
"$top/nilfs-send" -p 1 "$img" "$cpa" >"$work/incr.stream"
"$top/nilfs-receive" --dump -f "$work/incr.stream" |
	awk '$1 == "create" || $1 == "write" || $1 == "truncate" || $1 == "hole" { print $2 }' |
	LC_ALL=C sort -u >"$work/written"
written_bytes=$(cd "$work/tA" && tr '\n' '\0' <"$work/written" | du -cb --files0-from=- | tail -1 | cut -f1)
t_recv=$(best 'rm -rf "$W/r"; cp -a "$W/r1" "$W/r"' '"$R" -f "$W/incr.stream" "$W/r"' \
	'cat "$W/incr.stream" >/dev/null')
diff -r --no-dereference -x .nilfs-receive "$work/tA" "$work/r" >/dev/null ||
	{ echo "the incremental receive from a file differs from the tree of $cpa" >&2; exit 1; }
t_cp=$(best 'rm -rf "$W/c"; cp -a "$W/t1" "$W/c"' \
	'cd "$W/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cp --parents -t "$W/c"' \
	'cd "$W/tA" && tr "\n" "\0" <"$W/written" | xargs -0 cat >/dev/null')

echo "tree: $(cat "$work/tree.txt"); $NCHANGED files changed, $NMOVED renamed or removed
load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "incremental nilfs-send -p | nilfs-receive ($incr_bytes bytes):  ${t_incr}s"
echo "rsync -a --delete between the extracted trees:  ${t_rsync}s"
echo "  ratio $(echo "scale=4; $t_incr / $t_rsync" | bc)  (target <= 0.05)"
echo "full nilfs-send | nilfs-receive:  ${t_full}s"
echo "dump.nilfs2 extract:  ${t_extract}s"
echo "  ratio $(echo "scale=4; $t_full / $t_extract" | bc)  (target <= 1.2)"
echo "nilfs-receive of the incremental stream alone:  ${t_recv}s"
echo "cp of the $(wc -l <"$work/written") files it writes ($written_bytes bytes):  ${t_cp}s"
echo "  ratio $(echo "scale=4; $t_recv / $t_cp" | bc)  (target <= 1.5)"
