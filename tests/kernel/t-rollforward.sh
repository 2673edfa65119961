#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-rollforward.sh - data made durable by fdatasync after the last
# checkpoint.  The guest writes a file, syncs (a checkpoint), rewrites two
# blocks in place, fdatasyncs them (a data-sync log, no super root) and
# reboots without unmounting.  Our reader must show the file as the
# kernel's roll-forward will; a second boot mounts it (which replays the
# log) and prints the file for comparison.  A copy rolled forward offline
# by "fsck.nilfs2 -y" must check clean, read the same in our reader and
# under the kernel, and take the kernel's writes.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2
fsck=$top/fsck.nilfs2

"$guest" require || exit
[ -x "$mkfs" ] && [ -x "$dump" ] || { echo "FAIL: $mkfs or $dump not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-rollforward.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/out" ] && tail -n 30 "$tmp/out"; exit 1; }

img=$tmp/img
truncate -s 160M "$img"
"$mkfs" -q -f "$img" || fail "mkfs"
cat >"$tmp/crash" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || exit 1
yes AAAA | head -c 32768 >/mnt/f
yes other | head -c 9000 >/mnt/g
sync
yes BBBB | head -c 8192 | dd of=/mnt/f bs=4096 seek=3 conv=notrunc 2>/dev/null
sync -d /mnt/f
# power off now: no umount, no checkpoint after the data-sync log
echo b >/proc/sysrq-trigger
GUEST
"$guest" run "$tmp/crash" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 125 ] || fail "the guest was to reboot without finishing (exit $rc)"

"$dump" "$img" sr >"$tmp/sr" || fail "dump sr"
grep -q '^roll-forward: 1 data-sync logical segment(s), 2 file block(s)' "$tmp/sr" ||
	{ cat "$tmp/sr"; fail "no data-sync log found after the super root"; }
want=$( (yes AAAA | head -c 12288; yes BBBB | head -c 8192; yes AAAA | head -c 12288) | sha256sum | cut -d' ' -f1)
ours=$("$dump" "$img" cat /f | sha256sum | cut -d' ' -f1)
[ "$ours" = "$want" ] || fail "before mount: our reader shows f as $ours, the data synced was $want"

# the same roll-forward offline: fsck.nilfs2 -y writes it as a checkpoint
cp --sparse=always "$img" "$tmp/rf.img"
"$fsck" -y "$tmp/rf.img" >"$tmp/fsck-y" 2>&1
rc=$?
# the kernel's recovery is not a correction (as e2fsck's journal replay): 0
[ $rc -eq 0 ] || { cat "$tmp/fsck-y"; fail "fsck.nilfs2 -y exited $rc, not 0 (recovered, nothing corrected)"; }
grep -q 'recovery: replayed 1 log(s) after checkpoint .*: 2 block(s) of 1 file(s) rolled forward' "$tmp/fsck-y" ||
	{ cat "$tmp/fsck-y"; fail "fsck.nilfs2 -y did not roll forward"; }
"$fsck" -n -f "$tmp/rf.img" >"$tmp/fsck-n" 2>&1 || { cat "$tmp/fsck-n"; fail "not clean after fsck -y"; }
! grep -q 'roll-forward' "$tmp/fsck-n" || fail "logs left to roll forward after fsck -y"
[ "$("$dump" "$tmp/rf.img" cat /f | sha256sum | cut -d' ' -f1)" = "$want" ] ||
	fail "after fsck -y our reader shows another f"

cat >"$tmp/mount" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
echo "KERNEL $(sha256sum /mnt/f | cut -d' ' -f1) $(sha256sum /mnt/g | cut -d' ' -f1)"
umount /mnt || echo "UMOUNT FAILED"
mount -t nilfs2 /dev/vdb /mnt || { echo "MOUNT FAILED vdb"; exit 1; }
echo "REPAIRED $(sha256sum /mnt/f | cut -d' ' -f1) $(sha256sum /mnt/g | cut -d' ' -f1)"
echo more >/mnt/h
umount /mnt || echo "UMOUNT FAILED"
GUEST
"$guest" run "$tmp/mount" "$img" "$tmp/rf.img" >"$tmp/out" 2>&1 || fail "second boot exited $?"
kernel=$(sed -n 's/^KERNEL \([0-9a-f]*\) .*/\1/p' "$tmp/out")
[ "$kernel" = "$ours" ] || fail "the kernel's roll-forward gives $kernel, our reader gave $ours"
gk=$(sed -n 's/^KERNEL [0-9a-f]* \([0-9a-f]*\)$/\1/p' "$tmp/out")
[ "$gk" = "$("$dump" "$img" cat /g | sha256sum | cut -d' ' -f1)" ] || fail "g differs"
grep -q "^REPAIRED $kernel $gk\$" "$tmp/out" ||
	fail "the kernel reads the volume fsck -y rolled forward differently: $(grep ^REPAIRED "$tmp/out")"
"$fsck" -n -f "$tmp/rf.img" >"$tmp/fsck-n" 2>&1 ||
	{ cat "$tmp/fsck-n"; fail "the fsck -y volume is not clean after the kernel wrote to it"; }
after=$("$dump" "$img" cat /f | sha256sum | cut -d' ' -f1)
[ "$after" = "$ours" ] || fail "after the kernel's recovery our reader shows $after"
echo "ours: 2 blocks of a data-sync log shown before mount, as the kernel's roll-forward then gave"
echo "fsck.nilfs2 -y: the same roll-forward offline; the kernel reads it alike and writes on"
echo "PASS: $0"
exit 0
