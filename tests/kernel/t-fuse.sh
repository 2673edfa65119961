#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fuse.sh - nilfs-fuse against the real kernel: the kernel (qemu guest,
# see guest.sh) writes a tree through several checkpoints (renames, hard
# links, truncations up and down, deletions, symbolic links, a device node,
# a FIFO, a sparse file, a file with a B-tree map) and records the tree
# with manifest.sh after chosen syncs and at a snapshot.  On the host the
# image is mounted with nilfs-fuse and every recorded checkpoint's @CNO
# tree must give the same manifest (types, modes, owners, link counts,
# sizes, mtimes to the nanosecond, contents, link targets, device numbers).
# Besides: hard links share st_ino within a checkpoint and the versions of
# a file in two checkpoints do not; latest and snapshots/ point right; a
# checkpoint made while mounted appears; missing checkpoints and paths are
# ENOENT and damaged blocks EIO, the mount living on.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
fuse=$top/nilfs-fuse
dump=$top/dump.nilfs2
mkcp=$top/mkcp

. "$here/../image/fuse.sh"
fuse_require
"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
[ -n "$mkfs" ] || { echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fuse.XXXXXX") || exit 1
mnt=$tmp/mnt
mkdir "$mnt"
trap fuse_cleanup EXIT

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/out" ] && { echo "--- guest output (last 30 lines) ---"; tail -n 30 "$tmp/out"; }
	exit 1
}

img=$tmp/nilfs.img
truncate -s 512M "$img" || exit 1
"$mkfs" -f -q -L fusetree "$img" || fail "host mkfs.nilfs2"

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 -o noatime $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
echo "MOUNT OK"
# the checkpoint holding the tree as it is after a sync: the last one
rec() {
	sync
	cno=$(lscp $dev | awk 'END { print $1 }')
	echo "RECORD $1 $cno"
	manifest /mnt | sed "s/^/MANIFEST $cno /"
}
# stage 1: every kind of file
mkdir -p /mnt/a/b/c /mnt/d
i=0
while [ $i -lt 40 ]; do echo "small $i" >/mnt/a/f$i; i=$((i + 1)); done
echo "deep" >/mnt/a/b/c/deep
dd if=/dev/urandom of=/mnt/big bs=4096 count=1200 2>/dev/null || echo "DD FAILED"
dd if=/dev/urandom of=/mnt/sparse bs=4096 count=2 2>/dev/null
dd if=/dev/urandom of=/mnt/sparse bs=4096 seek=3000 count=1 conv=notrunc 2>/dev/null
printf 'end' >>/mnt/sparse
ln -s a/f1 /mnt/rel-link
ln -s /no/such/target /mnt/abs-link
ln /mnt/a/f2 /mnt/d/hard-f2
ln /mnt/a/f2 /mnt/hard-f2
mknod /mnt/d/null c 1 3
mknod /mnt/d/bigminor c 4 300
mknod /mnt/d/blk b 7 0
mkfifo /mnt/d/fifo
chmod 4755 /mnt/a/f3
chmod 600 /mnt/a/f4
chmod 1777 /mnt/d
chown 1000:1001 /mnt/a/f5
chown -h 1234:5678 /mnt/rel-link
: >/mnt/empty
rec one
# stage 2: renames, truncations, deletions, appends
mv /mnt/a/f10 /mnt/d/moved-f10
mv /mnt/a/b /mnt/d/b-renamed
truncate -s 5000 /mnt/big 2>/dev/null || dd if=/dev/null of=/mnt/big bs=1 seek=5000 2>/dev/null
rm /mnt/a/f2
rm /mnt/a/f20 /mnt/a/f21 /mnt/abs-link
echo appended >>/mnt/a/f6
ln -s d/moved-f10 /mnt/abs-link
rec two
echo "at the snapshot" >/mnt/snapfile
snap=$(mkcp -s -p $dev) || echo "MKCP FAILED"
echo "RECORD snap $snap"
manifest /mnt | sed "s/^/MANIFEST $snap /"
# stage 3: a truncation up (a hole at the end), an overwrite in the middle,
# a whole directory gone, a new hard link to a renamed file
truncate -s 20000000 /mnt/sparse 2>/dev/null || dd if=/dev/null of=/mnt/sparse bs=1 seek=20000000 2>/dev/null
dd if=/dev/urandom of=/mnt/sparse bs=4096 seek=1 count=1 conv=notrunc 2>/dev/null
rm -r /mnt/d/b-renamed
ln /mnt/d/moved-f10 /mnt/a/f10-again
rm /mnt/d/fifo
dd if=/dev/urandom of=/mnt/big2 bs=65536 count=40 2>/dev/null
rec three
cd /
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"

"$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "guest script exited $rc"
for l in "MOUNT OK" "ALL DONE"; do
	grep -qx "$l" "$tmp/out" || fail "missing line '$l'"
done
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed"
cno_of() { sed -n "s/^RECORD $1 \([0-9][0-9]*\)$/\1/p" "$tmp/out"; }
c1=$(cno_of one) c2=$(cno_of two) cs=$(cno_of snap) c3=$(cno_of three)
[ -n "$c1" ] && [ -n "$c2" ] && [ -n "$cs" ] && [ -n "$c3" ] || fail "checkpoints not recorded: '$c1' '$c2' '$cs' '$c3'"
[ "$c1" -lt "$c2" ] && [ "$c2" -lt "$cs" ] && [ "$cs" -lt "$c3" ] || fail "checkpoints out of order: $c1 $c2 $cs $c3"

"$fuse" "$img" "$mnt" || fail "nilfs-fuse $img $mnt"
. "$here/manifest.sh"
n=0
for c in $c1 $c2 $cs $c3; do
	sed -n "s/^MANIFEST $c //p" "$tmp/out" >"$tmp/want.$c"
	[ -s "$tmp/want.$c" ] || fail "no manifest for checkpoint $c"
	TZ=UTC manifest "$mnt/@$c" >"$tmp/got.$c" 2>"$tmp/err.$c" || { cat "$tmp/err.$c"; fail "manifest of @$c"; }
	if ! cmp -s "$tmp/want.$c" "$tmp/got.$c"; then
		diff -u "$tmp/want.$c" "$tmp/got.$c" | head -n 40
		fail "@$c through nilfs-fuse differs from the kernel's tree (- kernel, + nilfs-fuse)"
	fi
	n=$((n + $(grep -c '^S ' "$tmp/want.$c")))
done
echo "ok: $n paths of checkpoints $c1 $c2 $cs $c3 as the kernel showed them"
grep -q "|1000|1001|" "$tmp/want.$c1" && grep -q "\.[0-9]\{9\} +0000|" "$tmp/want.$c1" ||
	fail "the manifests hold no owner or no nanoseconds: the comparison would prove little"
ns=$(stat -c %y "$mnt/@$c1/a/f1" | sed -n 's/.*\.\([0-9]*\) .*/\1/p')
[ "$ns" != 000000000 ] || fail "mtime of a/f1 has no nanoseconds: $(stat -c %y "$mnt/@$c1/a/f1")"

# the mount's own entries
[ "$(readlink "$mnt/latest")" = "@$c3" ] || fail "latest -> $(readlink "$mnt/latest"), not @$c3"
[ "$(readlink "$mnt/snapshots/@$cs")" = "../@$cs" ] || fail "snapshots/@$cs missing"
[ "$(ls "$mnt/snapshots")" = "@$cs" ] || fail "snapshots/ holds $(ls "$mnt/snapshots"), not only @$cs"
TZ=UTC manifest "$mnt/snapshots/@$cs/" >"$tmp/got.snap" || fail "manifest through snapshots/@$cs"
cmp -s "$tmp/want.$cs" "$tmp/got.snap" || fail "snapshots/@$cs/ differs from @$cs"
TZ=UTC manifest "$mnt/latest/" >"$tmp/got.latest" || fail "manifest through latest"
cmp -s "$tmp/want.$c3" "$tmp/got.latest" || fail "latest/ differs from @$c3"
ls "$mnt" | grep -qx "@$c1" || fail "@$c1 not listed in the root"

# hard links: one st_ino within a checkpoint, another in the next
i1=$(stat -c %i "$mnt/@$c1/a/f2") i2=$(stat -c %i "$mnt/@$c1/d/hard-f2") i3=$(stat -c %i "$mnt/@$c1/hard-f2")
[ "$i1" = "$i2" ] && [ "$i2" = "$i3" ] || fail "hard links of a/f2 in @$c1: st_ino $i1 $i2 $i3"
[ "$(stat -c %h "$mnt/@$c1/a/f2")" = 3 ] || fail "a/f2 in @$c1 has $(stat -c %h "$mnt/@$c1/a/f2") links"
j=$(stat -c %i "$mnt/@$c2/hard-f2")
[ "$j" != "$i1" ] || fail "hard-f2 has st_ino $j in @$c1 and @$c2"
k1=$(stat -c %i "$mnt/@$c3/d/moved-f10") k2=$(stat -c %i "$mnt/@$c3/a/f10-again")
[ "$k1" = "$k2" ] || fail "moved-f10 and f10-again in @$c3: st_ino $k1 $k2"
echo "ok: hard links share st_ino $i1 in @$c1, $j in @$c2"

# bad paths: ENOENT, not a crash
for p in "@999999" "@0" "@x" "@$c1/no/such" "@$c2/a/f2" "snapshots/@$c1"; do
	ls "$mnt/$p" >"$tmp/ls" 2>&1 && fail "ls $p succeeded"
	grep -q "No such file" "$tmp/ls" || { cat "$tmp/ls"; fail "ls $p: not ENOENT"; }
done
cat "$mnt/@$c1/a" >/dev/null 2>&1 && fail "cat of a directory succeeded"
touch "$mnt/@$c1/a/new" 2>"$tmp/touch" && fail "a file was created"
grep -q "Read-only file system" "$tmp/touch" || { cat "$tmp/touch"; fail "touch: not EROFS"; }
echo "ok: missing checkpoints and paths are ENOENT; nothing can be written"

# a checkpoint made meanwhile appears: offline, our mkcp -s makes the
# latest checkpoint a snapshot in a construction of its own, a new latest
snapped=$("$mkcp" -s -p "$img") || fail "mkcp -s on the image"
c4=$("$top/lscp" -a "$img" | awk 'END { print $1 }')
[ "$c4" -gt "$c3" ] || fail "mkcp -s made no checkpoint after $c3"
sleep 1.2
ls "$mnt" | grep -qx "@$c4" || fail "@$c4 made while mounted did not appear: $(ls "$mnt" | tr '\n' ' ')"
[ "$(readlink "$mnt/latest")" = "@$c4" ] || fail "latest -> $(readlink "$mnt/latest") after mkcp, not @$c4"
[ "$(ls "$mnt/snapshots" | tr '\n' ' ')" = "@$cs @$snapped " ] ||
	fail "snapshots/ after mkcp -s: $(ls "$mnt/snapshots" | tr '\n' ' '), not @$cs @$snapped"
TZ=UTC manifest "$mnt/@$c4" >"$tmp/got.c4" || fail "manifest of @$c4"
cmp -s "$tmp/want.$c3" "$tmp/got.c4" || fail "@$c4 (made by mkcp) differs from @$c3"
echo "ok: @$c4 and snapshot @$snapped, made while mounted, appeared"
fusermount3 -u "$mnt" || fail "fusermount3 -u"

# -o direct_io: every read answered straight into the reader's buffer
fuse_mount "$img" -o direct_io || fail "nilfs-fuse -o direct_io: $(cat "$tmp/fuse-err")"
grep -q "direct_io" /proc/self/mounts && fail "direct_io was passed on to FUSE's mount options"
TZ=UTC manifest "$mnt/@$c3" >"$tmp/got.direct" || fail "manifest of @$c3 with -o direct_io"
cmp -s "$tmp/want.$c3" "$tmp/got.direct" || fail "@$c3 read with -o direct_io differs from the kernel's tree"
fuse_umount "-o direct_io"
echo "ok: @$c3 read with -o direct_io as the kernel showed it"

# damage: a B-tree node of big2 and the block of a directory, in a copy
cp "$img" "$tmp/bad.img"
bs=$("$dump" --json "$img" super | sed -n 's/.*"s_log_block_size":\([0-9]*\).*/\1/p' | head -n 1)
bs=$((1024 << bs))
node=$("$dump" -c "$c3" "$img" bmap /big2 | awk '$1 == "node" { print $NF; exit }')
dirblk=$("$dump" -c "$c3" "$img" bmap /d | awk '$1 == "data" { print $NF; exit }')
[ -n "$node" ] && [ -n "$dirblk" ] || fail "no B-tree node of /big2 ('$node') or block of /d ('$dirblk')"
for b in $node $dirblk; do
	dd if=/dev/urandom of="$tmp/bad.img" bs="$bs" seek="$b" count=1 conv=notrunc 2>/dev/null
done
fuse_mount "$tmp/bad.img" || fail "nilfs-fuse refused the damaged copy: $(cat "$tmp/fuse-err")"
cat "$mnt/@$c3/big2" >/dev/null 2>"$tmp/cat" && fail "reading big2 through a damaged node succeeded"
grep -q "Input/output error" "$tmp/cat" || { cat "$tmp/cat"; fail "big2: not EIO"; }
ls "$mnt/@$c3/d" >/dev/null 2>"$tmp/ls" && fail "listing a damaged directory succeeded"
grep -q "Input/output error" "$tmp/ls" || { cat "$tmp/ls"; fail "d/: not EIO"; }
cmp -s "$mnt/@$c3/a/f1" "$mnt/@$c1/a/f1" || fail "an undamaged file unreadable after the errors"
fuse_umount "the damaged copy"
grep -q "big2\|inode\|block" "$tmp/fuse-err" || { cat "$tmp/fuse-err"; fail "no message on standard error"; }
echo "ok: damaged blocks read as EIO with a message: $(head -n 1 "$tmp/fuse-err")"

# a volume the kernel has mounted and writes, read live: nilfs-fuse runs in
# the guest (fuse.ko loaded from the guest kernel's module tree, as
# guest.sh finds that kernel) and each checkpoint the kernel makes
# appears, its tree the kernel's
kernel=${NILFS_KTEST_KERNEL:-$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n 1)}
moddir=${NILFS_KTEST_MODDIR:-/lib/modules/${kernel##*/vmlinuz-}}
ko=
for ext in ko ko.xz ko.zst ko.gz; do
	[ -f "$moddir/kernel/fs/fuse/fuse.$ext" ] && ko=$moddir/kernel/fs/fuse/fuse.$ext && break
done
if [ -z "$ko" ]; then
	echo "no fuse module in $moddir: the live read is not tested"
else
	case $ko in
	*.xz) xz -dc "$ko" >"$tmp/fuse.ko" ;;
	*.zst) zstd -qdc "$ko" >"$tmp/fuse.ko" ;;
	*.gz) gzip -dc "$ko" >"$tmp/fuse.ko" ;;
	*) cp "$ko" "$tmp/fuse.ko" ;;
	esac || fail "cannot unpack $ko"
	chmod +x "$tmp/fuse.ko"   # guest.sh carries programs
	truncate -s 256M "$tmp/live.img"
	"$mkfs" -f -q "$tmp/live.img" || fail "host mkfs.nilfs2 (live)"
	{
		cat "$here/manifest.sh"
		cat <<'GUEST'
export TZ=UTC
dev=/dev/vda
insmod /ktest/bin/fuse.ko || echo "INSMOD FAILED"
mkdir -p /fm
mount -t nilfs2 -o noatime $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
/ktest/bin/nilfs-fuse $dev /fm || { echo "NILFS-FUSE FAILED"; exit 1; }
echo "LIVE MOUNTED"
i=0
while [ $i -lt 4 ]; do
	mkdir -p /mnt/r$i
	dd if=/dev/urandom of=/mnt/r$i/data bs=4096 count=$((30 + i * 200)) 2>/dev/null
	echo "round $i" >/mnt/r$i/note
	[ $i -gt 0 ] && mv /mnt/r$((i - 1))/note /mnt/r$i/note-before
	[ $i -gt 1 ] && rm -r /mnt/r$((i - 2))
	sync
	cno=$(lscp $dev | awk 'END { print $1 }')
	sleep 2
	ls /fm | grep -qx "@$cno" || echo "LIVE MISSING @$cno: $(ls /fm | tr '\n' ' ')"
	[ "$(readlink /fm/latest)" = "@$cno" ] || echo "LIVE LATEST $(readlink /fm/latest) not @$cno"
	manifest /mnt >/tmp/want
	manifest /fm/@$cno >/tmp/got
	if cmp -s /tmp/want /tmp/got; then
		echo "LIVE OK @$cno $(grep -c '^S ' /tmp/want) paths"
	else
		echo "LIVE DIFF @$cno"
		diff /tmp/want /tmp/got | head -n 20
	fi
	[ $i -eq 0 ] && first=$cno && manifest /mnt >/tmp/first
	i=$((i + 1))
done
manifest /fm/@$first >/tmp/got
cmp -s /tmp/first /tmp/got && echo "LIVE FIRST OK" || echo "LIVE DIFF first @$first"
umount /fm || echo "UMOUNT FUSE FAILED"
umount /mnt || echo "UMOUNT FAILED"
echo "LIVE DONE"
GUEST
	} >"$tmp/live-script"
	NILFS_KTEST_EXTRA="$tmp/fuse.ko $fuse" "$guest" run "$tmp/live-script" "$tmp/live.img" >"$tmp/out" 2>&1 ||
		fail "live guest script exited $?"
	grep -q "^LIVE DONE" "$tmp/out" && grep -q "^LIVE FIRST OK" "$tmp/out" ||
		fail "live read: no end"
	! grep -q "FAILED\|^LIVE MISSING\|^LIVE LATEST\|^LIVE DIFF" "$tmp/out" || fail "live read"
	[ "$(grep -c '^LIVE OK' "$tmp/out")" = 4 ] || fail "live read: not 4 checkpoints compared"
	echo "ok: read live under the kernel: $(grep '^LIVE OK' "$tmp/out" | sed 's/^LIVE OK //' | tr '\n' ',')"
fi

# a volume that is not one
truncate -s 64M "$tmp/zero.img"
"$fuse" "$tmp/zero.img" "$mnt" 2>"$tmp/err" && fail "nilfs-fuse mounted a zeroed file"
grep -q "nilfs-fuse: " "$tmp/err" || fail "no message for a zeroed file"
echo "PASS: $0"
exit 0
