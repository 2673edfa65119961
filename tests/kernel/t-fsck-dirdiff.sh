#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-dirdiff.sh - fsck.nilfs2 --checkpoints=all compares a changed
# directory block by block: a block the checkpoint before had (the same
# virtual block) is read only for its names, the blocks that changed are
# checked record by record.
#
# In the guest the real kernel writes a directory of 1,000 names (several
# 4 KiB blocks) and then, one checkpoint each, adds a name at its end,
# renames one in place, removes one, adds a subdirectory and links a file
# from elsewhere: each checkpoint changes one or two of its blocks.  On the
# host "fsck.nilfs2 -fnv --checkpoints=all" must be clean, with all but the
# first checkpoints (the latest, walked whole, and the one after) checked
# by difference.  Then tests/fsck/corrupt --dup-across renames a record of
# a block one checkpoint wrote to a name that a block it shares with the
# checkpoint before holds: fsck must name the second entry at that
# checkpoint, although the shared block did not change.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
ktest_outs=out
mkfs=$top/mkfs.nilfs2
fsck=$top/fsck.nilfs2
corrupt=$top/tests/fsck/corrupt

ktest_require mkfs.nilfs2 fsck.nilfs2 tests/fsck/corrupt
ktest_tmp t-fsck-dirdiff KEEP

img=$tmp/img
truncate -s 256M "$img" && "$mkfs" -q -f -L dirdiff "$img" || fail "mkfs"
cat >"$tmp/guest.sh" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
mkdir /mnt/big /mnt/small
i=0
while [ $i -lt 1000 ]; do : >/mnt/big/file-$i; i=$((i + 1)); done
sync
j=0
while [ $j -lt 12 ]; do
	: >/mnt/big/new-$j; sync
	mv /mnt/big/file-$((j * 70)) /mnt/big/moved-$((j * 70)); sync
	rm /mnt/big/file-$((j * 70 + 5)); sync
	mkdir /mnt/big/sub-$j; sync
	ln /mnt/big/file-$((j * 70 + 9)) /mnt/small/link-$j; sync
	j=$((j + 1))
done
umount /mnt || echo "UMOUNT FAILED"
echo "GUEST DONE"
GUEST
"$guest" run "$tmp/guest.sh" "$img" >"$tmp/out" 2>&1
grep -qx "GUEST DONE" "$tmp/out" && ! grep -q FAILED "$tmp/out" || fail "the guest"

"$fsck" -fnv --checkpoints=all "$img" >"$tmp/out" 2>&1 || fail "the volume does not check clean"
set -- $(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) checkpoints checked by difference.*/\1 \2/p' "$tmp/out")
[ $# = 2 ] && [ "$2" -ge 60 ] && [ "$1" -ge $(($2 - 2)) ] ||
	fail "checkpoints checked by difference: ${1:-none} of ${2:-?}"
echo "ok: clean, $1 of $2 checkpoints checked by difference"

cno=$("$corrupt" --dup-across /big "$img") || fail "corrupt --dup-across"
st=0
"$fsck" -n --checkpoints=all "$img" >"$tmp/out" 2>&1 || st=$?
[ $st = 4 ] || fail "fsck.nilfs2 exited $st with a name twice in /big at checkpoint $cno, not 4"
grep -q "checkpoint $cno: inode [0-9]* (/big): a second entry named " "$tmp/out" ||
	fail "the second entry of /big at checkpoint $cno is not named"
echo "ok: a name repeated across a shared and a new block of /big found at checkpoint $cno"
