#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-mkfs.sh - images made by our mkfs.nilfs2 under the real kernel.
# For several block and segment sizes, mkfs -d copies a varied tree; the
# guest mounts each image, compares the tree with the host's manifest,
# then writes, overwrites part of a B-tree file, deletes, snapshots and
# unmounts; nilfs-tools' lscp and lssu run on it.  Back on the host,
# dump.nilfs2 must read the kernel's changes: the latest checkpoint and the
# snapshot extract to exactly what the guest saw.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2

"$guest" require || exit
[ -x "$mkfs" ] && [ -x "$dump" ] || { echo "FAIL: $mkfs or $dump not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-mkfs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 60 lines) ---"
	tail -n 60 "$tmp/out"
	exit 1
}

. "$here/manifest.sh"

# the tree: sizes around block and map boundaries, a 3-level B-tree file,
# holes, a directory of many blocks, links, special files, odd modes/times
src=$tmp/src
mkdir -p "$src/d/e/f" "$src/many" "$src/empty-dir" || exit 1
: >"$src/empty"
printf x >"$src/one-byte"
for n in 1023 1024 1025 4095 4096 4097 6144 24576 28672 65536; do
	head -c $n /dev/urandom >"$src/size-$n"
done
head -c 12582912 /dev/urandom >"$src/big.bin"
truncate -s 40M "$src/sparse.bin"
printf 'middle' | dd of="$src/sparse.bin" bs=1 seek=20000000 conv=notrunc 2>/dev/null
printf 'end' >>"$src/sparse.bin"
i=0
while [ $i -lt 600 ]; do
	echo "entry $i" >"$src/many/file-with-a-longish-name-$i"
	i=$((i + 1))
done
long=$(printf '%0255d' 0)
echo long >"$src/d/$long"
echo "in f" >"$src/d/e/f/deep.txt"
ln "$src/d/e/f/deep.txt" "$src/hard-a"
ln "$src/d/e/f/deep.txt" "$src/d/hard-b"
ln -s d/e/f/deep.txt "$src/link-rel"
ln -s "/$(printf 'x%.0s' $(seq 1 200))/target" "$src/link-long"
mkfifo "$src/fifo"
mknod "$src/null" c 1 3 2>/dev/null && mknod "$src/blk" b 7 300 2>/dev/null || true
chmod 4755 "$src/size-1024"
chmod 600 "$src/size-4096"
chmod 1777 "$src/empty-dir"
chown 1000:1001 "$src/size-4097" 2>/dev/null || true
chown -h 1234:5678 "$src/link-rel" 2>/dev/null || true
touch -d '2001-02-03 04:05:06.123456789' "$src/one-byte"
touch -d '2100-01-02 03:04:05.5' "$src/empty"
(TZ=UTC manifest "$src") >"$tmp/want.src"

# images: block size, blocks per segment, size; the last one empty
set -- "1024 256 160M" "2048 512 160M" "4096 2048 256M" "4096 64 160M" "4096 2048 160M"
n=0
for geo in "$@"; do
	set -- $geo
	img=$tmp/img$n
	truncate -s "$3" "$img" || exit 1
	if [ $n -eq 4 ]; then
		"$mkfs" -q -f -b "$1" -B "$2" -L empty "$img" || fail "mkfs $geo"
	else
		"$mkfs" -q -f -b "$1" -B "$2" -d "$src" "$img" || fail "mkfs -d $geo"
	fi
	"$top/fsck.nilfs2" -n "$img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; fail "fsck.nilfs2 on mkfs $geo"; }
	imgs="$imgs $img"
	n=$((n + 1))
done

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
for dev in vda vdb vdc vdd vde; do
	mount -t nilfs2 /dev/$dev /mnt || { echo "MOUNT FAILED $dev"; continue; }
	echo "MOUNT OK $dev"
	manifest /mnt | sed "s/^/MANIFEST $dev /"
	# the kernel changes our image: new files, a rewrite inside the
	# B-tree file, a deletion, a snapshot, more changes
	echo "new from the kernel" >/mnt/kernel-new.txt
	mkdir -p /mnt/kdir/sub
	dd if=/dev/urandom of=/mnt/kdir/sub/k.bin bs=4096 count=300 2>/dev/null
	if [ -f /mnt/big.bin ]; then
		dd if=/dev/urandom of=/mnt/big.bin bs=4096 seek=1000 count=8 conv=notrunc 2>/dev/null
		rm /mnt/size-6144 /mnt/many/file-with-a-longish-name-7
		echo appended >>/mnt/d/e/f/deep.txt
	fi
	sync
	cno=$(mkcp -s -p /dev/$dev) || echo "MKCP FAILED $dev"
	echo "SNAPSHOT $dev $cno"
	manifest /mnt | sed "s/^/SNAP $dev /"
	rm -r /mnt/kdir
	echo after >/mnt/after-snapshot.txt
	sync
	manifest /mnt | sed "s/^/FINAL $dev /"
	lscp /dev/$dev | sed "s/^/LSCP $dev /" || echo "LSCP FAILED $dev"
	lssu /dev/$dev | sed "s/^/LSSU $dev /" || echo "LSSU FAILED $dev"
	umount /mnt || echo "UMOUNT FAILED $dev"
	echo "DONE $dev"
done
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid' | sed 's/^/KMSG /'
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"

t0=$(date +%s)
# shellcheck disable=SC2086
"$guest" run "$tmp/guest-script" $imgs >"$tmp/out" 2>&1
rc=$?
t1=$(date +%s)
[ $rc -eq 0 ] || fail "guest script exited $rc"
grep -qx "ALL DONE" "$tmp/out" || fail "missing ALL DONE"
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed: $(grep FAILED "$tmp/out" | head -n 3)"
! grep -q '^KMSG ' "$tmp/out" || fail "kernel complained: $(grep '^KMSG ' "$tmp/out" | head -n 5)"

n=0
npaths=0
for dev in vda vdb vdc vdd vde; do
	img=$tmp/img$n
	grep -qx "DONE $dev" "$tmp/out" || fail "$dev not finished"
	if [ $n -lt 4 ]; then
		sed -n "s/^MANIFEST $dev //p" "$tmp/out" >"$tmp/got.$dev"
		if ! cmp -s "$tmp/want.src" "$tmp/got.$dev"; then
			diff -u "$tmp/want.src" "$tmp/got.$dev" | head -n 30
			fail "$dev: the kernel sees a tree other than the one mkfs -d copied (- source, + kernel)"
		fi
		npaths=$((npaths + $(grep -c '^S ' "$tmp/got.$dev")))
	fi
	# nilfs-tools' lscp sees the snapshot, lssu the segments
	snap=$(sed -n "s/^SNAPSHOT $dev //p" "$tmp/out")
	awk -v d="$dev" -v c="$snap" '$1 == "LSCP" && $2 == d && $3 == c && $6 == "ss"' "$tmp/out" |
		grep -q . || fail "$dev: lscp does not list snapshot $snap"
	grep -q "^LSSU $dev  *SEGNUM" "$tmp/out" || fail "$dev: no lssu output"
	# our reader on the kernel's changes: snapshot and latest checkpoint
	"$dump" "$img" logs >"$tmp/logs" 2>&1 || { cat "$tmp/logs"; fail "$dev: dump.nilfs2 logs"; }
	"$top/fsck.nilfs2" -n --checkpoints=snapshots "$img" >"$tmp/fsck" 2>&1 ||
		{ cat "$tmp/fsck"; fail "$dev: fsck.nilfs2 after the kernel wrote"; }
	! grep -q 'BAD-' "$tmp/logs" || fail "$dev: bad checksums after the kernel wrote"
	for which in SNAP FINAL; do
		sed -n "s/^$which $dev //p" "$tmp/out" >"$tmp/want"
		x=$tmp/x.$dev.$which
		if [ $which = SNAP ]; then
			"$dump" -c "$snap" "$img" extract / "$x" >"$tmp/err" 2>&1
		else
			"$dump" "$img" extract / "$x" >"$tmp/err" 2>&1
		fi || { cat "$tmp/err"; fail "$dev: dump.nilfs2 extract ($which)"; }
		TZ=UTC manifest "$x" >"$tmp/got"
		if ! cmp -s "$tmp/want" "$tmp/got"; then
			diff -u "$tmp/want" "$tmp/got" | head -n 30
			fail "$dev: $which: dump.nilfs2 reads something other than the kernel wrote"
		fi
		npaths=$((npaths + $(grep -c '^S ' "$tmp/want")))
		rm -rf "$x"
	done
	n=$((n + 1))
done

# mkfs -d keeps holes: 40 MiB sparse.bin holds 2 data blocks
"$dump" "$tmp/img2" bmap /big.bin >"$tmp/bmap" || fail "dump.nilfs2 bmap /big.bin"
grep -q '^    node key ' "$tmp/bmap" || fail "big.bin (4 KiB blocks) has no level-2 node"
echo "ours: $npaths paths compared over 5 images (4 populated: -b 1024/2048/4096, -B 256/512/2048/64); guest took $((t1 - t0)) s"
echo "PASS: $0"
exit 0
