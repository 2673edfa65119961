#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-crash-fsck-offline.sh - found by the torture test (seed 1): the kernel
# dies right after a sync, so the volume has nothing to roll forward but its
# superblock still says "not cleanly unmounted".  Our offline writers refuse
# such a volume and say "mount it once (or run fsck.nilfs2)"; after
# fsck.nilfs2 -y, which calls the volume clean, they must then accept it:
# mkcp -s makes a snapshot, the offline cleaner runs, and the kernel lists
# the snapshot.  A crash with a file unlinked but still open is left
# unclean by fsck (it would be an orphan on a clean volume), and refused.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
"$guest" require || exit
for p in mkfs.nilfs2 fsck.nilfs2 mkcp lscp nilfs_cleanerd nilfs-resize; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-crash-fsck-offline.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

img=$tmp/img
truncate -s 64M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 256 "$img" || fail "mkfs"
cat >"$tmp/crash" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || exit 1
echo a >/mnt/a
sync
echo b >/mnt/b
sync
echo b >/proc/sysrq-trigger
GUEST
"$guest" run "$tmp/crash" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 125 ] || { cat "$tmp/out"; fail "the guest was to die, it exited $rc"; }

# nothing after the last super root: the writers refuse the volume as it is
"$top/mkcp" -s "$img" >"$tmp/refused" 2>&1 && fail "mkcp -s wrote to a volume the kernel did not unmount"
grep -q 'not cleanly unmounted' "$tmp/refused" || { cat "$tmp/refused"; fail "mkcp -s: no reason given"; }
# and nilfs-resize refuses a grow before it extends the image file (it grew
# the file, then the writer refused and the file was cut back: one write
# before the refusal; torture seed 10 with TORTURE_HOST=all, step 4)
cp --sparse=always "$img" "$tmp/before"
NILFS_TEST_FAULT=count "$top/nilfs-resize" -y "$img" 80M >"$tmp/refused" 2>&1 &&
	fail "nilfs-resize grew a volume the kernel did not unmount"
grep -q 'not cleanly unmounted' "$tmp/refused" || { cat "$tmp/refused"; fail "nilfs-resize: no reason given"; }
grep 'nilfs-test-fault: [1-9]' "$tmp/refused" && fail "nilfs-resize wrote before it refused"
cmp "$tmp/before" "$img" || fail "nilfs-resize changed the volume it refused"
# the offline cleaner says why too (it said "the device is in use (opened
# exclusively by another program)": torture seeds 9009-9011)
printf 'protection_period 0\nmax_clean_segments 100%%\nmin_reclaimable_blocks 1\n' >"$tmp/conf"
"$top/nilfs_cleanerd" --offline -c "$tmp/conf" "$img" >"$tmp/refused" 2>&1 &&
	fail "the offline cleaner wrote to a volume the kernel did not unmount"
grep -q 'not cleanly unmounted' "$tmp/refused" || { cat "$tmp/refused"; fail "nilfs_cleanerd --offline: no reason given"; }
cmp "$tmp/before" "$img" || fail "the offline cleaner changed the volume it refused"

"$top/fsck.nilfs2" -y "$img" >"$tmp/fsck" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$tmp/fsck"; fail "fsck.nilfs2 -y exits $rc"; }
"$top/mkcp" -s "$img" >"$tmp/mkcp" 2>&1 ||
	{ cat "$tmp/mkcp"; fail "after fsck.nilfs2 -y (exit $rc: '$(tail -n 1 "$tmp/fsck")') mkcp -s still refuses the volume"; }
printf 'protection_period 0\nmax_clean_segments 100%%\n' >"$tmp/conf"
"$top/nilfs_cleanerd" --offline -c "$tmp/conf" "$img" >"$tmp/clean" 2>&1 ||
	{ cat "$tmp/clean"; fail "after fsck.nilfs2 -y the offline cleaner refuses the volume"; }
"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; fail "not clean after the offline writers"; }
nss=$("$top/lscp" -s "$img" | awk 'NR > 1' | wc -l)
[ "$nss" -eq 1 ] || fail "expected one snapshot, lscp -s lists $nss"

# a file unlinked while still open when the checkpoint was written: on a
# clean volume it would be an orphan, so fsck -y leaves the volume unclean
# (saying why) and the writers go on refusing it
img=$tmp/open
truncate -s 64M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 256 "$img" || fail "mkfs"
cat >"$tmp/crash" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || exit 1
echo a >/mnt/a
exec 3>/mnt/x
echo held >&3
rm /mnt/x
sync
echo b >/proc/sysrq-trigger
GUEST
"$guest" run "$tmp/crash" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 125 ] || { cat "$tmp/out"; fail "the guest was to die, it exited $rc"; }
"$top/fsck.nilfs2" -y "$img" >"$tmp/fsck" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/fsck"; fail "fsck.nilfs2 -y on the volume with an open unlinked file exits $rc"; }
grep -q 'not marked cleanly unmounted: 1 inode(s) of checkpoint [0-9]* were unlinked while still open' "$tmp/fsck" ||
	{ cat "$tmp/fsck"; fail "fsck.nilfs2 -y does not say why it leaves the volume unclean"; }
"$top/fsck.nilfs2" -fn "$img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; fail "not clean after fsck -y"; }
"$top/mkcp" -s "$img" >"$tmp/refused" 2>&1 && fail "mkcp -s wrote to a volume fsck left unclean"
grep -q 'not cleanly unmounted' "$tmp/refused" || { cat "$tmp/refused"; fail "mkcp -s: no reason given"; }
echo "PASS: $0"
