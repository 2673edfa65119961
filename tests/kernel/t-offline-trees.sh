#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-offline-trees.sh - our offline writers change the metadata files'
# B-trees in place, as the kernel does (only the nodes above the blocks
# that change are written), and the kernel takes the trees they leave.
#
# The kernel makes 8000 checkpoints (cpgen: one block and a sync each, 1
# KiB blocks), so that the DAT's and the cpfile's trees have two levels of
# nodes.  Offline: chcp here and there in the cpfile, a snapshot toggle
# that must write fewer blocks than the two trees have nodes, rmcp of a range that drops whole cpfile blocks and nodes,
# mkcp -s, and nilfs-clean --offline, which moves nodes out of the
# segments it frees; our fsck must find it all clean.  Then the kernel
# mounts it, nilfs-tools' lscp must list what ours listed, the latest
# tree and the snapshots must be as they were, and the kernel changes
# the same trees (more checkpoints, nilfs-tools' rmcp of a range, which
# takes nodes our writer left short of the minimum); our fsck again.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
ktest_require mkfs.nilfs2 dump.nilfs2 nilfs-clean fsck.nilfs2 lscp chcp rmcp mkcp tests/kernel/cpgen
ktest_tmp t-offline-trees T_KEEP
ktest_tail=30
# guest pass N (ktest_pass): $tmp/scriptN on the image, with cpgen
ktest_extra=$top/tests/kernel/cpgen
fsck_clean() {
	"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/fsck" 2>&1 ||
		{ grep -v '^Pass' "$tmp/fsck" | head -n 10; fail "fsck.nilfs2 $1"; }
}

img=$tmp/img
truncate -s 256M "$img" || exit 1
"$top/mkfs.nilfs2" -q -f -b 1024 -B 64 "$img" || fail "mkfs"
{
	cat "$here/manifest.sh"
	cat <<'GUEST'
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
i=0
while [ $i -lt 8 ]; do
	dd if=/dev/urandom of=/mnt/f$i bs=1024 count=40 2>/dev/null
	i=$((i + 1))
done
sync
mkcp -s $dev || echo "MKCP FAILED"
/ktest/bin/cpgen sync /mnt 8000 >/dev/null || echo "CPGEN FAILED"
manifest /mnt | sed "s/^/M latest /"
umount /mnt || echo "UMOUNT FAILED"
echo "PASS1 DONE"
GUEST
} >"$tmp/script1"
ktest_pass 1 "$img"
sed -n 's/^M //p' "$tmp/out1" >"$tmp/m1"

# two levels of nodes below the DAT's and the cpfile's roots
"$top/dump.nilfs2" "$img" sr >"$tmp/sr" || fail "dump.nilfs2 sr"
for f in dat cpfile; do
	# bmap word 0: flags, level, nchildren (little-endian); level 3 or more
	lvl=$(awk -v f=$f '$1 == f { print int($7 / 256) % 256 }' "$tmp/sr")
	[ -n "$lvl" ] && [ "$lvl" -ge 3 ] || fail "$f: B-tree root at level '$lvl', wanted 3 or more"
done

last=$("$top/lscp" "$img" | awk 'NR > 1 { c = $1 } END { print c }')
[ "$last" -ge 8000 ] || fail "the kernel made only $last checkpoints"
# at least this many nodes, 63 entries a node of 1 KiB (i_blocks counts
# 512-byte units, the nodes too: a bound that errs low)
nodes=$(awk '$1 == "dat" || $1 == "cpfile" { n += int(($5 / 2) / 63) } END { print n }' "$tmp/sr")
[ "$nodes" -ge 40 ] || fail "only $nodes nodes in the DAT's and the cpfile's trees"
for c in 40 2000 5500 7000; do
	"$top/chcp" ss "$img" $c || fail "chcp ss $c"
done
"$top/chcp" cp "$img" 2000 || fail "chcp cp 2000"
# a snapshot toggle: a few blocks and their paths, not the trees (the
# segments' block counts add up what the logs wrote)
used() { "$top/lssu" -a "$img" | awk 'NR > 1 { n += $5 } END { print n }'; }
b0=$(used)
"$top/chcp" ss "$img" 6500 || fail "chcp ss 6500"
b1=$(used)
[ $((b1 - b0)) -gt 0 ] && [ $((b1 - b0)) -lt "$nodes" ] ||
	fail "a snapshot toggle wrote $((b1 - b0)) blocks, the trees have $nodes nodes or more"
echo "a snapshot toggle wrote $((b1 - b0)) blocks; the DAT's and the cpfile's trees have $nodes nodes or more"
"$top/rmcp" "$img" 100..5000 >/dev/null 2>&1 || fail "rmcp 100..5000"
"$top/mkcp" -s "$img" || fail "mkcp -s"
fsck_clean "after chcp, rmcp and mkcp offline"
# no protection: the guest's clock may run ahead of ours
newest=$("$top/dump.nilfs2" "$img" segments | awk 'NR > 2 && $2 > m { m = $2 } END { print m + 0 }')
i=0; while [ "$(date +%s)" -le "$newest" ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
"$top/nilfs-clean" --offline -p 0 "$img" >"$tmp/gc" 2>&1 || { cat "$tmp/gc"; fail "nilfs-clean --offline"; }
fsck_clean "after nilfs-clean --offline"
TZ=UTC "$top/lscp" -a "$img" >"$tmp/ours" || fail "lscp"

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
lscp -a $dev | sed 's/^/THEIRS /'
manifest /mnt | sed "s/^/M latest /"
mkdir -p /mnt2
for c in $(lscp -s $dev | awk 'NR > 1 { print $1 }'); do
	mount -t nilfs2 -o ro,cp=$c $dev /mnt2 || { echo "SNAPMOUNT FAILED $c"; continue; }
	ls /mnt2/f0 >/dev/null || echo "SNAPREAD FAILED $c"
	umount /mnt2
done
# the kernel changes the same trees: appends, then drops a range
/ktest/bin/cpgen sync /mnt 500 >/dev/null || echo "CPGEN FAILED"
rmcp $dev 5001..6000 >/dev/null 2>&1
rmcp $dev 6601..8200 >/dev/null 2>&1
sync
umount /mnt || echo "UMOUNT FAILED"
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|bad' | sed 's/^/KMSG /'
echo "PASS2 DONE"
GUEST
} >"$tmp/script2"
ktest_pass 2 "$img"
sed -n 's/^THEIRS //p' "$tmp/out2" >"$tmp/theirs"
if ! cmp -s "$tmp/ours" "$tmp/theirs"; then
	diff -u "$tmp/ours" "$tmp/theirs" | head -n 30
	fail "nilfs-tools' lscp -a on the mounted volume differs from ours offline (- ours, + nilfs-tools)"
fi
sed -n 's/^M //p' "$tmp/out2" >"$tmp/m2"
cmp -s "$tmp/m1" "$tmp/m2" || { diff "$tmp/m1" "$tmp/m2" | head; fail "the latest tree changed offline"; }
fsck_clean "after the kernel wrote on the trees"
echo "PASS: $last checkpoints; offline chcp/rmcp/mkcp and a clean, then the kernel's writes"
exit 0
