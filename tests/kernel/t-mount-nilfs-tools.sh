#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-mount-nilfs-tools.sh - format an image with the host's mkfs.nilfs2,
# then mount it under a real kernel (qemu guest, see guest.sh) and
# exercise it with nilfs-tools.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh

"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
if [ -z "$mkfs" ]; then
	echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-mount-nilfs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output ---"
	cat "$tmp/out"
	exit 1
}

img=$tmp/nilfs.img
truncate -s 256M "$img" || exit 1
"$mkfs" -f -q -L ktest "$img" || { echo "FAIL: host mkfs.nilfs2"; exit 1; }

cat >"$tmp/guest-script" <<'GUEST'
# runs inside the guest under busybox sh
sums() {
	(cd /mnt && sha256sum small.txt dir/hello.txt big.bin) | sed "s/^/$1 /"
}
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
echo "MOUNT OK"
grep ' /mnt nilfs2 ' /proc/mounts
echo "some small content" >/mnt/small.txt
mkdir /mnt/dir
echo "hello nilfs" >/mnt/dir/hello.txt
dd if=/dev/urandom of=/mnt/big.bin bs=1M count=8 2>/dev/null
sync
mkcp -s /dev/vda || { echo "MKCP FAILED"; exit 1; }
echo "MKCP OK"
lscp /dev/vda || exit 1
lssu /dev/vda || exit 1
sums SUM1
sync
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
echo "UMOUNT OK"
# remount and compare: data must survive the umount
mount -t nilfs2 /dev/vda /mnt || { echo "REMOUNT FAILED"; exit 1; }
echo "REMOUNT OK"
sums SUM2
lscp -s /dev/vda
lscp /dev/vda | sed 's/^/LSCP2 /'
umount /mnt || exit 1
echo "ALL DONE"
GUEST

"$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "guest script exited $rc"

for l in "MOUNT OK" "MKCP OK" "UMOUNT OK" "REMOUNT OK" "ALL DONE"; do
	grep -qx "$l" "$tmp/out" || fail "missing line '$l'"
done
# lscp columns: CNO DATE TIME MODE FLG BLKCNT ICNT
awk '$4 == "ss"' "$tmp/out" | grep -q . || fail "lscp shows no snapshot"
grep -q '^ *SEGNUM ' "$tmp/out" || fail "no lssu header"
grep -q '^ *0 .* [a-z-]*d[a-z-]* ' "$tmp/out" ||
	fail "lssu shows no dirty segment"

sed -n 's/^SUM1 //p' "$tmp/out" >"$tmp/sum1"
sed -n 's/^SUM2 //p' "$tmp/out" >"$tmp/sum2"
[ "$(wc -l <"$tmp/sum1")" -eq 3 ] || fail "expected 3 checksums"
cmp -s "$tmp/sum1" "$tmp/sum2" || fail "checksums changed across remount"
expected=$(printf 'some small content\n' | sha256sum | cut -d' ' -f1)
grep -q "^$expected  small.txt\$" "$tmp/sum2" ||
	fail "small.txt content differs from what was written"

# our reader on what the kernel wrote: every log of the chain checks out,
# and the super root it finds is at least as new as the kernel's last checkpoint
dump=${top_builddir:-$here/../..}/dump.nilfs2
"$dump" "$img" logs >"$tmp/logs" 2>&1 || { cat "$tmp/logs"; fail "dump.nilfs2 logs failed"; }
! grep -q 'BAD-' "$tmp/logs" || { cat "$tmp/logs"; fail "dump.nilfs2 found bad checksums"; }
"$dump" --json "$img" sr >"$tmp/sr" 2>&1 || { cat "$tmp/sr"; fail "dump.nilfs2 sr failed"; }
our_cno=$(sed -n 's/.*"cno":\([0-9]*\).*/\1/p' "$tmp/sr")
kernel_cno=$(awk '$1 == "LSCP2" && $2 ~ /^[0-9]+$/ { c = $2 } END { print c }' "$tmp/out")
[ -n "$our_cno" ] && [ -n "$kernel_cno" ] && [ "$our_cno" -ge "$kernel_cno" ] ||
	fail "dump.nilfs2 super root checkpoint '$our_cno' older than lscp's '$kernel_cno'"
# the files were written before the cursor's log: look at the segments themselves
for seg in 0 1; do
	"$dump" "$img" segment $seg >>"$tmp/sums" 2>&1 || { cat "$tmp/sums"; fail "dump.nilfs2 segment $seg failed"; }
done
! grep -q 'BAD-' "$tmp/sums" || fail "bad checksums in segments 0-1"
grep -q 'finfo: ino 1[2-9] ' "$tmp/sums" || { cat "$tmp/sums"; fail "no user file (ino >= 12) in the kernel's summaries"; }
# 8 MiB of big.bin at 4 KiB blocks: its data binfos must cover offsets 0..2047
nbig=$(grep -c 'data vblocknr [0-9]* blkoff' "$tmp/sums")
[ "$nbig" -ge 2048 ] || fail "only $nbig data blocks described in segments 0-1"

# file contents through the ifile, directories, B-tree and DAT: latest checkpoint and the snapshot
snap=$(awk '$1 == "LSCP2" && $5 == "ss" { print $2 }' "$tmp/out" | tail -n 1)
for f in small.txt dir/hello.txt big.bin; do
	want=$(awk -v f="$f" '$1 == "SUM2" && $3 == f { print $2 }' "$tmp/out")
	for c in "" "$snap"; do
		got=$("$dump" ${c:+-c "$c"} "$img" cat "/$f" | sha256sum | cut -d' ' -f1)
		[ "$got" = "$want" ] || fail "dump.nilfs2 ${c:+-c $c }cat /$f: sha256 $got, kernel wrote $want"
	done
done
"$dump" "$img" bmap /big.bin >"$tmp/bmap" || fail "dump.nilfs2 bmap /big.bin"
grep -q '^  node key 0 ' "$tmp/bmap" || fail "big.bin has no B-tree node level (is it 8 MiB?)"
"$dump" "$img" ls / | grep -q ' big.bin$' || fail "dump.nilfs2 ls / lacks big.bin"

cat "$tmp/out"
echo "ours: $(wc -l <"$tmp/logs") logs in the chain, super root commits checkpoint $our_cno (kernel's lscp: $kernel_cno), $nbig data blocks in segments 0-1"
echo "PASS: $0"
exit 0
