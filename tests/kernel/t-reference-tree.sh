#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-reference-tree.sh - build a large, changing tree under a real kernel
# (qemu guest, see guest.sh) with snapshots along the way, then restore
# each snapshot and the latest checkpoint with "dump.nilfs2 extract" and
# compare a manifest of every path (type, mode, owner, size, mtime,
# sha256, symlink target, device number) with what the kernel showed.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
dump=${top_builddir:-$here/../..}/dump.nilfs2

"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
if [ -z "$mkfs" ]; then
	echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"
	exit 77
fi
[ -x "$dump" ] || { echo "FAIL: $dump not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-reference-tree.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 60 lines) ---"
	tail -n 60 "$tmp/out"
	exit 1
}

img=$tmp/nilfs.img
truncate -s 512M "$img" || exit 1
"$mkfs" -f -q -L reftree "$img" || { echo "FAIL: host mkfs.nilfs2"; exit 1; }

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
echo "MOUNT OK"
nsync=0
step() { sync; nsync=$((nsync + 1)); }
snap() {
	sync
	cno=$(mkcp -s -p $dev) || { echo "MKCP FAILED"; exit 1; }
	echo "SNAPSHOT $cno"
	manifest /mnt | sed "s/^/MANIFEST $cno /"
}
# stage 1: 20 directories of 100 small files, some nested 3 deep
d=0
while [ $d -lt 20 ]; do
	dir=/mnt/d$d
	mkdir $dir
	i=0
	while [ $i -lt 100 ]; do
		echo "file $d/$i" >$dir/f$i
		i=$((i + 1))
	done
	if [ $((d % 5)) -eq 0 ]; then
		mkdir -p $dir/a/b/c
		i=0
		while [ $i -lt 10 ]; do
			echo "deep $d/$i" >$dir/a/b/c/g$i
			echo "mid $d/$i" >$dir/a/m$i
			i=$((i + 1))
		done
	fi
	step
	d=$((d + 1))
done
dd if=/dev/urandom of=/mnt/big.bin bs=1M count=20 2>/dev/null || echo "DD FAILED"
step
# sparse: data at both ends, a partial last block
dd if=/dev/urandom of=/mnt/sparse.bin bs=4096 count=3 2>/dev/null
dd if=/dev/urandom of=/mnt/sparse.bin bs=4096 seek=6000 count=2 conv=notrunc 2>/dev/null
printf 'tail' >>/mnt/sparse.bin
step
ln -s d0/f0 /mnt/link-rel
ln -s /nonexistent/absolute/target /mnt/link-abs
ln -s d1/../d2/../d3/../d4/../d5/../d6/../d7/../d8/../d9/../d10/f10/long/target/path/xx /mnt/d1/link-long
step
ln /mnt/d1/f1 /mnt/hard1
ln /mnt/d1/f1 /mnt/d2/hard2
step
mkfifo /mnt/fifo
mknod /mnt/null c 1 3
mknod /mnt/bigminor c 4 300
mknod /mnt/blk b 7 0
step
chmod 4755 /mnt/d3/f3
chmod 600 /mnt/d4/f4
chmod 1777 /mnt/d6
chown 1000:1001 /mnt/d5/f5 /mnt/link-rel
chown -h 1000:1001 /mnt/link-rel
touch -d '2001-02-03 04:05:06' /mnt/d7/f7 || echo "TOUCH FAILED"
touch -d '2100-01-02 03:04:05' /mnt/d7/f8 || echo "TOUCH FAILED"
step
: >/mnt/empty
step
snap
# stage 2: renames, deletions, overwrites
mv /mnt/d3/f10 /mnt/d4/moved
step
rm -r /mnt/d5
step
mv /mnt/d6 /mnt/d0/a/renamed-d6
step
dd if=/dev/urandom of=/mnt/big.bin bs=4096 seek=2000 count=16 conv=notrunc 2>/dev/null
step
echo appended >>/mnt/d7/f1
step
rm /mnt/d1/f1
step
i=0
while [ $i -lt 10 ]; do
	echo "gen2 $i" >/mnt/d8/n$i
	rm /mnt/d9/f$i
	step
	i=$((i + 1))
done
snap
# stage 3
truncate -s 1000 /mnt/big.bin 2>/dev/null || dd if=/dev/null of=/mnt/big.bin bs=1 seek=1000 2>/dev/null
step
mv /mnt/d10 /mnt/d11/inner
step
rm /mnt/link-abs
ln -s d8/n1 /mnt/link-abs
step
rm /mnt/fifo
step
i=0
while [ $i -lt 10 ]; do
	echo "gen3 $i" >/mnt/d12/f$i
	mkdir /mnt/d13/sub$i
	step
	i=$((i + 1))
done
snap
# stage 4: the final state
rm -r /mnt/d14 /mnt/d0/a/b
step
echo final >/mnt/final.txt
step
mv /mnt/d2/hard2 /mnt/hard2
step
sync
echo "FINAL"
manifest /mnt | sed "s/^/MANIFEST final /"
echo "NSYNC $nsync"
echo "NCP $(lscp $dev | awk 'NR > 1' | wc -l)"
lscp -s $dev | sed 's/^/LSCPS /'
cd /
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"

t0=$(date +%s)
"$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
t1=$(date +%s)
[ $rc -eq 0 ] || fail "guest script exited $rc"
for l in "MOUNT OK" "FINAL" "ALL DONE"; do
	grep -qx "$l" "$tmp/out" || fail "missing line '$l'"
done
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed"
snaps=$(sed -n 's/^SNAPSHOT \([0-9][0-9]*\)$/\1/p' "$tmp/out")
[ "$(echo "$snaps" | wc -w)" -eq 3 ] || fail "expected 3 snapshots, got '$snaps'"
ncp=$(sed -n 's/^NCP *\([0-9][0-9]*\)$/\1/p' "$tmp/out")
[ -n "$ncp" ] && [ "$ncp" -ge 55 ] || fail "only '$ncp' checkpoints"

. "$here/manifest.sh"
first=$(echo "$snaps" | head -n 1)
nfiles=0
ncps=0
for c in $snaps final; do
	want=$tmp/want.$c
	sed -n "s/^MANIFEST $c //p" "$tmp/out" >"$want"
	[ -s "$want" ] || fail "no manifest for checkpoint $c"
	dir=$tmp/x.$c
	if [ "$c" = final ]; then
		"$dump" "$img" extract / "$dir" >"$tmp/err" 2>&1 ||
			{ cat "$tmp/err"; fail "dump.nilfs2 extract (latest) failed"; }
	else
		"$dump" -c "$c" "$img" extract / "$dir" >"$tmp/err" 2>&1 ||
			{ cat "$tmp/err"; fail "dump.nilfs2 -c $c extract failed"; }
	fi
	TZ=UTC manifest "$dir" >"$tmp/got.$c"
	if ! cmp -s "$want" "$tmp/got.$c"; then
		diff -u "$want" "$tmp/got.$c" | head -n 40
		fail "checkpoint $c: extracted tree differs from the kernel's (- kernel, + ours)"
	fi
	# holes stay holes: sparse.bin is ~24 MiB long with 5 blocks of data
	alloc=$(( $(stat -c %b "$dir/sparse.bin") * $(stat -c %B "$dir/sparse.bin") ))
	[ "$alloc" -le 1048576 ] || fail "checkpoint $c: extracted sparse.bin has $alloc bytes allocated"
	nfiles=$((nfiles + $(grep -c '^S ' "$want")))
	ncps=$((ncps + 1))
	rm -rf "$dir"
done
# the 20 MiB file needs a B-tree of two or more levels below the inode's root
"$dump" -c "$first" "$img" bmap /big.bin >"$tmp/bmap" || fail "dump.nilfs2 bmap /big.bin"
grep -q '^    node key ' "$tmp/bmap" || fail "big.bin has no level-2 B-tree node"
# a single file, at a snapshot
"$dump" -c "$first" "$img" extract /d0/f5 "$tmp/one" || fail "extract of one file"
[ "$(cat "$tmp/one/f5")" = "file 0/5" ] || fail "extract of one file: wrong contents"
# stats: every snapshot counted, and the deeper B-tree shows in the depth histogram
"$dump" --json "$img" stats >"$tmp/stats" || fail "dump.nilfs2 stats"
nss=$(echo $snaps | wc -w)
grep -q "\"snapshots\":$nss," "$tmp/stats" || fail "stats: expected $nss snapshots: $(cat "$tmp/stats")"
grep -q '"bmap_depth":{[^}]*"3":[1-9]' "$tmp/stats" || fail "stats: no file with a 3-level map: $(cat "$tmp/stats")"
"$dump" "$img" stats | sed 's/^/stats: /'

echo "ours: $nfiles paths compared over $ncps checkpoints (snapshots $(echo $snaps), latest); $ncp checkpoints made; guest took $((t1 - t0)) s"
echo "PASS: $0"
exit 0
