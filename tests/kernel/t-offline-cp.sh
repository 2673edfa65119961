#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-offline-cp.sh - chcp, rmcp and mkcp on an unmounted volume the kernel
# wrote: our offline commands write the change as a new log; the kernel then
# mounts the image and nilfs-tools' lscp must list exactly what our offline
# lscp listed, and the snapshots must mount and hold their files.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
"$guest" require || exit
for p in mkfs.nilfs2 lscp chcp rmcp mkcp; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-offline-cp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/out" ] && tail -n 30 "$tmp/out"; exit 1; }

img=$tmp/img
truncate -s 160M "$img"
"$top/mkfs.nilfs2" -q -f -B 256 "$img" || fail "mkfs"
cat >"$tmp/g1" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || exit 1
i=0
while [ $i -lt 12 ]; do
	echo "version $i" >/mnt/v
	echo "file $i" >/mnt/f$i
	sync
	[ $i = 3 ] || [ $i = 8 ] && mkcp -s /dev/vda
	i=$((i + 1))
done
umount /mnt
echo G1 DONE
GUEST
"$guest" run "$tmp/g1" "$img" >"$tmp/out" 2>&1 || fail "guest 1 exited $?"
grep -qx "G1 DONE" "$tmp/out" || fail "guest 1 did not finish"

L="$top/lscp"
before=$("$L" -s "$img" | awk 'NR > 1 { print $1 }' | tr '\n' ' ')
set -- $before
[ $# -eq 2 ] || fail "expected 2 snapshots from the kernel, got '$before'"
snap1=$1 snap2=$2
plain=$("$L" "$img" | awk 'NR > 1 && $4 == "cp" { print $1 }' | head -n 3 | tr '\n' ' ')
set -- $plain
[ $# -eq 3 ] || fail "expected plain checkpoints, got '$plain'"
"$top/chcp" ss "$img" "$1" || fail "offline chcp ss $1"
"$top/chcp" cp "$img" "$snap1" || fail "offline chcp cp $snap1"
"$top/rmcp" "$img" "$2..$3" || fail "offline rmcp $2..$3"
"$top/mkcp" -s "$img" || fail "offline mkcp -s"
newss=$1
"$L" -a "$img" >"$tmp/ours"
"$top/fsck.nilfs2" -n --checkpoints=all "$img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; fail "fsck.nilfs2 after offline changes"; }

cat >"$tmp/g2" <<GUEST
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
lscp -a /dev/vda | sed 's/^/THEIRS /'
mkdir -p /mnt2
for c in \$(lscp -s /dev/vda | awk 'NR > 1 { print \$1 }'); do
	mount -t nilfs2 -o ro,cp=\$c /dev/vda /mnt2 || { echo "SNAPMOUNT FAILED \$c"; continue; }
	echo "SNAP \$c \$(cat /mnt2/v 2>/dev/null || echo none)"
	umount /mnt2
done
echo new >/mnt/after
sync
umount /mnt || echo "UMOUNT FAILED"
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid' | sed 's/^/KMSG /'
echo G2 DONE
GUEST
"$guest" run "$tmp/g2" "$img" >"$tmp/out" 2>&1 || fail "guest 2 exited $?"
grep -qx "G2 DONE" "$tmp/out" || fail "guest 2 did not finish"
! grep -q 'FAILED\|^KMSG' "$tmp/out" || fail "$(grep 'FAILED\|^KMSG' "$tmp/out" | head -n 3)"
sed -n 's/^THEIRS //p' "$tmp/out" >"$tmp/theirs"
if ! cmp -s "$tmp/ours" "$tmp/theirs"; then
	diff -u "$tmp/ours" "$tmp/theirs"
	fail "nilfs-tools' lscp -a on the mounted volume differs from ours offline (- ours, + nilfs-tools)"
fi
# snapshots: the promoted plain checkpoint, the kernel's second, and mkcp -s's
latest=$(awk 'END { print $1 }' "$tmp/ours")
grep -q "^SNAP $((latest - 1)) version 11$" "$tmp/out" || fail "mkcp -s snapshot does not hold the latest files"
nss=$(grep -c '^SNAP ' "$tmp/out")
[ "$nss" -eq 3 ] || fail "expected 3 mountable snapshots, got $nss"
grep -q "^SNAP $newss " "$tmp/out" || fail "promoted checkpoint $newss does not mount"
grep -q "^SNAP $snap1 " "$tmp/out" && fail "snapshot $snap1 was turned back into a checkpoint but still mounts as one"
grep -q "^SNAP $snap2 version 8$" "$tmp/out" || fail "snapshot $snap2 lost its contents"
# the kernel went on writing after our logs
"$L" "$img" >/dev/null || fail "lscp after the kernel's writes"
echo "ours: offline chcp/rmcp/mkcp listed by nilfs-tools exactly as by us ($(wc -l <"$tmp/ours") lines); 3 snapshots mount"
echo "PASS: $0"
exit 0
