#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-orphans.sh - what a crash leaves of files and directories removed while
# open.  The guest unlinks a file of 600 KiB that it holds open, removes an
# empty directory that it holds open, renames a directory over another
# empty one that it holds open, syncs and crashes; a second boot mounts
# (the kernel's recovery) and unmounts cleanly, and the kernel never frees
# the three inodes (NILFS2 keeps no orphan list).  On the host fsck -fn
# calls the volume clean with one orphan warning each, -p releases them,
# a second -fn is clean with no warning at all (the file's blocks ended in
# the DAT, none leaked), and a third boot mounts the result: the other
# files read back identical and the snapshot taken before still holds the
# file.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
ktest_outs="out1 out2 out3 fsck"

ktest_require mkfs.nilfs2 fsck.nilfs2
ktest_tmp t-orphans

img=$tmp/img
truncate -s 96M "$img" || exit 1
"$top/mkfs.nilfs2" -q -f -b 1024 -B 256 "$img" || fail "mkfs"

cat >"$tmp/script1" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
mkdir /mnt/kept
i=0
while [ $i -lt 8 ]; do
	dd if=/dev/urandom of=/mnt/kept/f$i bs=1024 count=$((i * 37 + 1)) 2>/dev/null
	i=$((i + 1))
done
dd if=/dev/urandom of=/mnt/held bs=1024 count=600 2>/dev/null
mkdir /mnt/gone /mnt/over /mnt/moved
echo inside >/mnt/moved/file
sync
mkcp -s /dev/vda || echo "MKCP FAILED"
(cd /mnt/kept && sha256sum f*)
exec 3</mnt/held
exec 4</mnt/gone
exec 5</mnt/over
rm /mnt/held || echo "RM FAILED"
rmdir /mnt/gone || echo "RMDIR FAILED"
mv -T /mnt/moved /mnt/over || echo "MV FAILED"
sync
echo "CRASHING"
echo b >/proc/sysrq-trigger
GUEST

cat >"$tmp/script2" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
ls /mnt | sed 's/^/LS2 /'
umount /mnt || echo "UMOUNT FAILED"
echo "PASS2 DONE"
GUEST

cat >"$tmp/script3" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
ls /mnt | sed 's/^/LS3 /'
cat /mnt/over/file | sed 's/^/OVER3 /'
(cd /mnt/kept && sha256sum f*) | sed 's/^/SUM3 /'
cno=$(lscp -s /dev/vda | awk 'NR == 2 { print $1 }')
mkdir -p /mnt2
mount -t nilfs2 -o ro,cp="$cno" /dev/vda /mnt2 || echo "SNAPMOUNT FAILED"
wc -c </mnt2/held | sed 's/^/HELD3 /'
umount /mnt2 || echo "UMOUNT FAILED"
echo more >/mnt/kept/after
sync
umount /mnt || echo "UMOUNT FAILED"
echo "PASS3 DONE"
GUEST

"$guest" run "$tmp/script1" "$img" >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 125 ] || fail "the guest was to die, it exited $rc"
grep -q '^CRASHING' "$tmp/out1" || fail "the guest did not reach the crash"
! grep -q 'FAILED' "$tmp/out1" || fail "guest pass 1: $(grep FAILED "$tmp/out1" | head -n 3)"
grep -E '^[0-9a-f]{64}  f[0-9]$' "$tmp/out1" | sort -u >"$tmp/sums1"
[ "$(wc -l <"$tmp/sums1")" -eq 8 ] || fail "pass 1 printed $(wc -l <"$tmp/sums1") checksums, not 8"

ktest_pass 2 "$img"
grep -q '^LS2 kept$' "$tmp/out2" || fail "the recovered volume has no /kept"
grep -q '^LS2 over$' "$tmp/out2" || fail "the recovered volume has no /over"
! grep -q '^LS2 \(held\|gone\)$' "$tmp/out2" || fail "the recovered volume names what was removed"

# after a clean unmount the two inodes are orphans: warnings, exit 0
"$top/fsck.nilfs2" -fn "$img" >"$tmp/fsck" 2>&1 || fail "fsck -fn of the orphans exits $?"
[ "$(grep -c 'warning: .* has no links but is still in use (orphan, mode 0100644, 614400 bytes)' "$tmp/fsck")" -eq 1 ] ||
	fail "fsck -fn: no orphan warning for the unlinked file"
[ "$(grep -c 'warning: .* has no links but is still in use (orphan, mode 040755, 0 bytes)' "$tmp/fsck")" -eq 1 ] ||
	fail "fsck -fn: no orphan warning for the removed directory"
[ "$(grep -c 'warning: .* has no links but is still in use (orphan, mode 040755, 1024 bytes)' "$tmp/fsck")" -eq 1 ] ||
	fail "fsck -fn: no orphan warning for the directory renamed over"
! grep -q 'not reachable\|directory entries name it' "$tmp/fsck" ||
	fail "fsck -fn calls the removed directory an error"

"$top/fsck.nilfs2" -p "$img" >"$tmp/fsck" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "fsck -p exits $rc, not 1"
[ "$(grep -c 'has no links but is still in use' "$tmp/fsck")" -eq 3 ] && grep -q ': repaired, ' "$tmp/fsck" ||
	fail "fsck -p does not name the three orphans and say it repaired"
"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/fsck" 2>&1 || fail "fsck -fn after -p exits $?"
! grep -q 'warning\|DAT:' "$tmp/fsck" || fail "fsck -fn after -p still warns"

ktest_pass 3 "$img"
sed -n 's/^SUM3 //p' "$tmp/out3" | sort -u | cmp -s - "$tmp/sums1" ||
	fail "the kept files do not read back identical"
grep -q '^HELD3 614400$' "$tmp/out3" || fail "the snapshot lost the unlinked file"
grep -q '^OVER3 inside$' "$tmp/out3" || fail "the directory renamed over lost its file"
! grep -q '^LS3 \(held\|gone\)$' "$tmp/out3" || fail "the released orphans have names"
"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/fsck" 2>&1 || fail "fsck -fn after the kernel wrote exits $?"
echo "PASS: $0"
