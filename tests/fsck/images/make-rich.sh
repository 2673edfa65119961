#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make-rich.sh - regenerate kernel-rich.img.xz, the "rich" base of the fsck
# golden cases, and the manifests of its trees.  Not run by "make check":
# the image and its manifests are committed; run this only to change them
# (then regenerate every expect file of the rich cases and review them).
#
#   top_builddir=. tests/fsck/images/make-rich.sh      (after make check's
#   programs are built: tests/kernel/cpgen)
#
# nilfs-tools' mkfs.nilfs2 makes a 64 MiB volume with 1 KiB blocks and
# 256-block segments; the real kernel (qemu guest, tests/kernel/guest.sh)
# then writes, in three stages with snapshots between them:
#   - nested directories (8 deep), small files of many sizes, empty files;
#   - "big": 1.2 MiB, a B-tree of three levels (root in the inode, a level-2
#     node, level-1 nodes), partly overwritten and appended to later;
#   - "medium": a two-level B-tree; sparse files whose few far blocks sit in
#     a level-1 root (a B-tree without nodes) or in a two-level tree;
#   - hard links (three names of one file, in different directories),
#     symlinks (relative, absolute, dangling, a 300-byte target), a fifo
#     and a character device;
#   - deletes, renames, truncations between the stages; ~70 checkpoints
#     (tests/kernel/cpgen), three snapshots: two made by mkcp -s, one an
#     older plain checkpoint turned into a snapshot by chcp (so the
#     snapshot list is not in creation order).
# Output, beside this script:
#   kernel-rich.img.xz             the volume, cleanly unmounted
#   kernel-rich.manifest           manifest.sh of the latest tree
#   kernel-rich.snapCNO.manifest   manifest.sh of snapshot CNO, one each
#   kernel-rich.lscp               lscp in the guest (checkpoints, snapshots)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "${top_builddir:-$here/../../..}" && pwd)
kernel=$here/../../kernel
guest=$kernel/guest.sh
cpgen=$top/tests/kernel/cpgen
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)

[ -x "$cpgen" ] || { echo "make-rich: build tests/kernel/cpgen first (make tests/kernel/cpgen)" >&2; exit 1; }
[ -n "$mkfs" ] || { echo "make-rich: nilfs-tools' mkfs.nilfs2 not found" >&2; exit 1; }
"$guest" check-deps || { echo "make-rich: the kernel guest cannot run here" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-rich.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
truncate -s 64M "$tmp/rich.img" &&
	"$mkfs" -q -f -b 1024 -B 256 -L fsck-rich "$tmp/rich.img" || exit 1

{
	cat "$kernel/manifest.sh"
	cat <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
dev=/dev/vda
C=/ktest/bin/cpgen
die() { echo "MAKE-RICH FAILED: $*"; exit 1; }
# gen FILE BYTES TAG: text that xz packs well, different in every line
gen() {
	awk -v n="$2" -v t="$3" 'BEGIN {
		for (i = 0; i * 64 < n; i++)
			printf "%-20s line %08d .................................\n", t, i
	}' | head -c "$2" >"$1" || die "gen $1"
}
mount -t nilfs2 $dev /mnt || die "mount"
cd /mnt || die "cd"

# stage 1: the tree
mkdir -p deep/d1/d2/d3/d4/d5/d6/d7 docs/old docs/new src/lib src/bin empty-dir
gen deep/d1/d2/d3/d4/d5/d6/d7/leaf 700 leaf
gen deep/d1/mid 3000 mid
i=0
while [ $i -lt 40 ]; do
	gen docs/old/note$i $((i * 211 % 6000 + 1)) "note$i"
	i=$((i + 1))
done
i=0
while [ $i -lt 12 ]; do : >docs/new/empty$i; i=$((i + 1)); done
gen src/lib/one-block 1024 oneblock
gen src/lib/seven 7168 seven
gen src/bin/tool 9000 tool
sync
gen big 1258291 big
sync
gen medium 102400 medium
# sparse: blocks far apart (a B-tree root that holds the data blocks)
gen sparse-far 1024 far0
gen tmp.blk 1024 far1; dd if=tmp.blk of=sparse-far bs=1024 seek=5000 conv=notrunc 2>/dev/null
gen tmp.blk 1024 far2; dd if=tmp.blk of=sparse-far bs=1024 seek=30000 conv=notrunc 2>/dev/null
# sparse: holes between runs (two levels), and a file that is only a hole
for k in 3 40 41 42 300 301 2000 2001 2002 2003 9000; do
	gen tmp.blk 1024 "run$k"
	dd if=tmp.blk of=sparse-runs bs=1024 seek=$k conv=notrunc 2>/dev/null
done
rm tmp.blk
truncate -s 2097152 hole-only
# links
ln docs/old/note3 src/hard-a
ln docs/old/note3 deep/d1/hard-b
ln -s docs/old/note5 rel-link
ln -s /mnt/docs/old/note6 abs-link
ln -s no/such/target dangling
ln -s "$(printf 'long-target-%s/' a b c d e f g h i j k l m n o p q r s t u v w)end" long-link
mkfifo fifo
mknod cdev c 1 3
sync
$C sync /mnt/deep 5 >/dev/null || die "cpgen 1"
s1=$(mkcp -s -p $dev) || die "mkcp 1"
echo "SNAP $s1"

# stage 2: overwrite, append, delete, rename
gen tmp.blk 4096 over1; dd if=tmp.blk of=big bs=1024 seek=300 conv=notrunc 2>/dev/null
sync
gen tmp.blk 2048 over2; dd if=tmp.blk of=big bs=1024 seek=900 conv=notrunc 2>/dev/null
rm tmp.blk
gen tail.tmp 51200 bigtail; cat tail.tmp >>big; rm tail.tmp
sync
i=0
while [ $i -lt 40 ]; do rm docs/old/note$i; i=$((i + 5)); done
mv docs/new docs/renamed
mv src/bin/tool src/lib/tool-moved
ln src/lib/seven docs/seven-link
echo "appended in stage 2" >>deep/d1/mid
sync
$C sync /mnt/src 12 >/dev/null || die "cpgen 2"
mid=$(mkcp -p $dev) || die "mkcp plain"
echo "MIDCP $mid"
gen tmp.blk 1024 over3; dd if=tmp.blk of=medium bs=1024 seek=50 conv=notrunc 2>/dev/null
rm tmp.blk
rm -r docs/old/note1 src/hard-a
$C sync /mnt/src 13 >/dev/null || die "cpgen 3"
s2=$(mkcp -s -p $dev) || die "mkcp 2"
echo "SNAP $s2"

# stage 3: more history after the last snapshot
truncate -s 40000 medium
gen docs/renamed/empty3 5000 nowfull
mkdir -p deep/d1/d2/later
gen deep/d1/d2/later/new 2500 later
rm -r docs/old/note2 docs/old/note4
echo "stage 3" >>big
sync
$C sync /mnt/deep 20 >/dev/null || die "cpgen 4"
chcp ss $dev "$mid" || die "chcp ss $mid"
echo "SNAP $mid"
i=0
while [ $i -lt 6 ]; do
	echo "last $i" >>docs/renamed/empty$i
	sync
	i=$((i + 1))
done
cd /

echo "===LATEST==="
manifest /mnt
for s in $s1 $mid $s2; do
	mkdir -p /snap
	mount -t nilfs2 -o ro,cp=$s $dev /snap || die "mount snapshot $s"
	echo "===SNAPSHOT $s==="
	manifest /snap
	umount /snap || die "umount snapshot $s"
done
echo "===LSCP==="
lscp $dev || die "lscp"
umount /mnt || die "umount"
echo "===END==="
GUEST
} >"$tmp/script"

NILFS_KTEST_EXTRA=$cpgen NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900} \
	"$guest" run "$tmp/script" "$tmp/rich.img" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] || grep -q 'MAKE-RICH FAILED' "$tmp/out" || ! grep -q '^===END===' "$tmp/out"; then
	echo "make-rich: the guest failed (exit $rc):" >&2
	tail -n 40 "$tmp/out" "$tmp/err" >&2
	exit 1
fi

rm -f "$here"/kernel-rich.*
awk -v dir="$here" '
	/^===LATEST===$/ { f = dir "/kernel-rich.manifest"; next }
	/^===SNAPSHOT [0-9]+===$/ { n = $2; sub(/===$/, "", n); f = dir "/kernel-rich.snap" n ".manifest"; next }
	/^===LSCP===$/ { f = dir "/kernel-rich.lscp"; next }
	/^===END===$/ { f = ""; next }
	f != "" { print > f }
' "$tmp/out"
xz -9e -T1 -c "$tmp/rich.img" >"$here/kernel-rich.img.xz" || exit 1
ls -l "$here"/kernel-rich.*
