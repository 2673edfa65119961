#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-send.sh - nilfs-send and nilfs-receive against the real kernel.  Our
# mkfs -d makes the first checkpoint (files up to a 3-level B-tree, a
# sparse file, hard links, a symlink, a FIFO); the guest's kernel then
# changes it over snapshots: blocks of the big file rewritten, renames of
# files and directories (over an existing name, a swap, a directory with
# what is below it, a file out of a renamed directory, a directory and
# its subdirectory trading places, one into a new directory), hard links made
# and removed across directories, a file replaced by a directory, holes
# grown and cut, deletions, chmod, chown, times, a device node.  On the
# host a full send of the first checkpoint and a chain of incremental
# sends are received into a directory; after each receive the tree equals
# dump.nilfs2 extract of that checkpoint (type, mode, owner, size, mtime,
# contents, link count and which names share a file, symlink targets,
# allocated blocks).  In the guest the same chain is sent from the mounted
# volume (live, checkpoints held) into a tmpfs directory, and into a
# directory of a second mounted nilfs2 volume with --snapshot, whose
# snapshots then hold the source's checkpoints one for one.  An incremental
# stream of a small change is much smaller than a full one; bad input
# (the wrong parent, an incremental stream cut at and in the middle of
# each command or damaged, a newer version) is refused with the target
# left as it was; a cut full stream leaves the
# directory marked unfinished, and nothing is received onto it.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
ktest_outs=out
ktest_tail=30
send=$top/nilfs-send
recv=$top/nilfs-receive
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2

ktest_require nilfs-send nilfs-receive mkfs.nilfs2 dump.nilfs2
ktest_tmp t-send
. "$here/manifest.sh"
. "$here/sendcheck.sh"

# the first checkpoint, by our mkfs -d
src=$tmp/src
send_source_tree "$src" || exit 1
img=$tmp/nilfs.img
truncate -s 512M "$img" || exit 1
"$mkfs" -q -f -b 4096 -d "$src" "$img" || fail "mkfs.nilfs2 -d"
# volume B, which receives with --snapshot in the guest
imgb=$tmp/b.img
truncate -s 512M "$imgb" || exit 1
"$mkfs" -q -f -b 4096 "$imgb" || fail "mkfs.nilfs2 of B"

{
	cat "$here/manifest.sh" "$here/sendcheck.sh"
	cat <<'GUEST'
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 -o noatime $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
echo "MOUNT OK"
snap() { sync; c=$(mkcp -s $dev) || { echo "MKCP FAILED"; exit 1; }; echo "CP $1 $(lscp -s $dev | awk 'END { print $1 }')"; }
# stage A
for off in 100 2000 3000; do dd if=/dev/urandom of=/mnt/big bs=4096 seek=$off count=1 conv=notrunc 2>/dev/null; done
mv /mnt/a/b /mnt/c/bb
ln /mnt/a/f2 /mnt/c/f2link
rm /mnt/a/f3
echo new >/mnt/a/new
ln -s ../a/new /mnt/c/newsym
chmod 600 /mnt/a/f4
chown 1234:567 /mnt/a/f5
touch -d '2001-02-03 04:05:06' /mnt/c/h1
mv /mnt/c/h2 /mnt/c/h3
truncate -s 20971520 /mnt/sparse
printf y | dd of=/mnt/sparse bs=1 seek=18000000 conv=notrunc 2>/dev/null
mkfifo /mnt/c/pipe
mknod /mnt/c/null c 1 3
mv /mnt/deep/x /mnt/deepx
mkdir -p /mnt/pp/cc && echo x >/mnt/pp/cc/f
snap A
# stage B
mv /mnt/a/f1 /mnt/t && mv /mnt/a/f2 /mnt/a/f1 && mv /mnt/t /mnt/a/f2
rm -r /mnt/c/bb
truncate -s 1048576 /mnt/sparse
dd if=/dev/urandom of=/mnt/big bs=4096 seek=50 count=2 conv=notrunc 2>/dev/null
rm /mnt/a/f4 && mkdir /mnt/a/f4 && echo inner >/mnt/a/f4/inner
mv /mnt/deepx /mnt/deepy
mv /mnt/a/f5 /mnt/deepy/y/f5
mv /mnt/deepy/y /mnt/ytop
rm /mnt/c/f1link
: >/mnt/empty
rm /mnt/sym && ln -s c/h3 /mnt/sym
mv /mnt/pp/cc /mnt/cc && mv /mnt/pp /mnt/cc/pp
mkdir /mnt/newdir && mv /mnt/deep /mnt/newdir/deep
snap B
# stage C: a small change
echo more >>/mnt/a/new
touch /mnt/c/h1
# moved with its mode changed: its attributes go (one only moved does not)
mv /mnt/a/f2 /mnt/c/f2moved && chmod 640 /mnt/c/f2moved
snap C
# live: the chain sent from the mounted volume, received into tmpfs
A=$(lscp -s $dev | awk 'NR == 2 { print $1 }')
B=$(lscp -s $dev | awk 'NR == 3 { print $1 }')
mkdir -p /tmp/live
/ktest/bin/nilfs-send /mnt $A | /ktest/bin/nilfs-receive /tmp/live; echo "LIVE-FULL RC $?"
/ktest/bin/nilfs-send -p $A /mnt $B | /ktest/bin/nilfs-receive /tmp/live; echo "LIVE-INCR RC $?"
plain_manifest /tmp/live | sed 's/^/LIVE /'
# the whole chain into volume B with --snapshot: a snapshot per state
mkdir -p /mnt2 && mount -t nilfs2 -o noatime /dev/vdb /mnt2 || { echo "MOUNT B FAILED"; exit 1; }
mkdir /mnt2/copy
prev=
for c in 1 $(lscp -s $dev | awk 'NR > 1 { print $1 }'); do
	/ktest/bin/nilfs-send ${prev:+-p $prev} /mnt $c | /ktest/bin/nilfs-receive -s -v /mnt2/copy 2>&1 |
		sed 's/^/SNAP-B /'
	prev=$c
done
lscp -s /dev/vdb | awk 'NR > 1 { print "B-SNAPSHOT " $1 }'
umount /mnt2 || { echo "UMOUNT B FAILED"; exit 1; }
cd /
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"
NILFS_KTEST_EXTRA="$send $recv" "$guest" run "$tmp/guest-script" "$img" "$imgb" >"$tmp/out" 2>&1 ||
	fail "guest script exited $?"
grep -qx "ALL DONE" "$tmp/out" || fail "the guest did not finish"
! grep -q FAILED "$tmp/out" || fail "a guest step failed"
for s in A B C; do
	c=$(sed -n "s/^CP $s \([0-9][0-9]*\)$/\1/p" "$tmp/out")
	[ -n "$c" ] || fail "no checkpoint for stage $s"
	eval "cp$s=$c"
done
cp1=1

same_as_extract() {  # CNO: the received tree against dump.nilfs2 extract of CNO
	rm -rf "$tmp/ext"
	"$dump" -c "$1" "$img" extract / "$tmp/ext" 2>"$tmp/err" || { cat "$tmp/err"; fail "extract $1"; }
	send_manifest "$tmp/ext" >"$tmp/want"
	send_manifest "$tmp/rcv" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		{ diff -u "$tmp/want" "$tmp/got" | head -40; fail "$2: received tree differs from checkpoint $1 (- extract, + received)"; }
}

mkdir "$tmp/rcv"
"$send" -f "$tmp/full.$cp1" "$img" $cp1 || fail "nilfs-send $cp1"
"$recv" -f "$tmp/full.$cp1" "$tmp/rcv" || fail "nilfs-receive of the full stream"
same_as_extract $cp1 "full"
prev=$cp1
for c in $cpA $cpB $cpC; do
	"$send" -p $prev -f "$tmp/incr.$c" "$img" $c || fail "nilfs-send -p $prev $c"
	"$recv" -f "$tmp/incr.$c" "$tmp/rcv" || fail "nilfs-receive $prev..$c"
	same_as_extract $c "incremental $prev..$c"
	grep -qx "cno $c" "$tmp/rcv/.nilfs-receive/state" || fail "state after $c"
	prev=$c
done
# a renamed directory is one rename; nothing below it is named
"$recv" --dump -f "$tmp/incr.$cpA" >"$tmp/dumpA" || fail "nilfs-receive --dump"
grep -q '^rename  *a/b -> c/bb$' "$tmp/dumpA" || { cat "$tmp/dumpA"; fail "1..A: no rename of a/b to c/bb"; }
! grep -q 'bb/g' "$tmp/dumpA" || { cat "$tmp/dumpA"; fail "1..A: what is below the renamed directory is sent"; }
# only the rewritten blocks of the big file: three of 4096
[ "$(grep -c '^write  *big offset=' "$tmp/dumpA")" -eq 3 ] || { grep big "$tmp/dumpA"; fail "1..A: big's blocks"; }
# several streams in one input are applied in turn
rm -rf "$tmp/rcv" && mkdir "$tmp/rcv"
cat "$tmp/full.$cp1" "$tmp/incr.$cpA" "$tmp/incr.$cpB" | "$recv" "$tmp/rcv" || fail "a chain in one input"
"$dump" -c $cpB "$img" extract / "$tmp/extB" || fail "extract B"
same_as_extract $cpB "chain in one input"
# the chain the guest sent live equals it too
sed -n 's/^LIVE //p' "$tmp/out" >"$tmp/live"
plain_manifest "$tmp/extB" >"$tmp/wantB"
cmp -s "$tmp/wantB" "$tmp/live" || { diff -u "$tmp/wantB" "$tmp/live" | head -30; fail "live send from the mounted volume"; }
grep -qx "LIVE-FULL RC 0" "$tmp/out" && grep -qx "LIVE-INCR RC 0" "$tmp/out" || fail "live send or receive failed"

# B's snapshots hold A's checkpoints one for one
set -- $(sed -n 's/^B-SNAPSHOT \([0-9][0-9]*\)$/\1/p' "$tmp/out")
[ $# -eq 4 ] || fail "volume B has $# snapshots, not 4: $(grep -E 'SNAP-B|B-SNAP' "$tmp/out")"
for c in $cp1 $cpA $cpB $cpC; do
	rm -rf "$tmp/snapB" "$tmp/ext"
	"$dump" -c "$1" "$imgb" extract /copy "$tmp/snapB" 2>"$tmp/err" || { cat "$tmp/err"; fail "extract B@$1"; }
	"$dump" -c "$c" "$img" extract / "$tmp/ext" 2>"$tmp/err" || { cat "$tmp/err"; fail "extract $c"; }
	grep -q "^status complete$" "$tmp/snapB/.nilfs-receive/state" || fail "B@$1: state not complete"
	send_manifest "$tmp/ext" >"$tmp/want"
	send_manifest "$tmp/snapB" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		{ diff -u "$tmp/want" "$tmp/got" | head -30; fail "snapshot $1 of B differs from checkpoint $c of A"; }
	shift
done

# little change, little stream
"$send" -f "$tmp/fullC" "$img" $cpC || fail "full send of C"
full=$(wc -c <"$tmp/fullC") incr=$(wc -c <"$tmp/incr.$cpC")
[ $((incr * 100)) -lt "$full" ] || fail "incremental stream of a small change: $incr bytes, full $full"
ndata=$(wc -c <"$tmp/incr.$cpA")
[ $((ndata * 4)) -lt "$full" ] || fail "incremental stream 1..A: $ndata bytes of $full (blocks not changed sent?)"

# bad input: each refused with one line, the target as it was
state_of() { cat "$1/.nilfs-receive/state"; }
refused() {  # NAME STREAM DIR PATTERN: refused, DIR unchanged
	send_manifest "$3" >"$tmp/before"; state_of "$3" >"$tmp/sbefore"
	"$recv" -f "$2" "$3" 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] || { cat "$tmp/err"; fail "$1: exit $rc"; }
	grep -q "$4" "$tmp/err" || { cat "$tmp/err"; fail "$1: message"; }
	send_manifest "$3" >"$tmp/after"
	cmp -s "$tmp/before" "$tmp/after" || fail "$1: the target changed"
	state_of "$3" | cmp -s - "$tmp/sbefore" || fail "$1: the state changed"
}
refused "wrong parent" "$tmp/incr.$cpA" "$tmp/rcv" "applies onto checkpoint $cp1, this directory holds checkpoint $cpB"
refused "full into a received tree" "$tmp/full.$cp1" "$tmp/rcv" "a full stream goes into an empty directory"
cp "$tmp/incr.$cpC" "$tmp/v2" && printf '\002' | dd of="$tmp/v2" bs=1 seek=8 conv=notrunc 2>/dev/null
refused "newer version" "$tmp/v2" "$tmp/rcv" "stream version 2, this nilfs-receive reads version 1 only"
# a byte of the header's volume UUID inverted: a fixed value would be the
# byte already once in 256 volumes, and the stream undamaged
cp "$tmp/incr.$cpC" "$tmp/hdr" && b=$(od -An -tu1 -j20 -N1 "$tmp/hdr" | tr -d ' \n') &&
	printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$tmp/hdr" bs=1 seek=20 conv=notrunc 2>/dev/null
refused "damaged header" "$tmp/hdr" "$tmp/rcv" "damaged header"
# an incremental stream cut or damaged anywhere after its header is read
# whole before anything changes: refused, the target left at its state,
# and the good stream received afterwards
rm -rf "$tmp/atA" && mkdir "$tmp/atA" &&
	cat "$tmp/full.$cp1" "$tmp/incr.$cpA" | "$recv" "$tmp/atA" || fail "a tree at A"
size=$(wc -c <"$tmp/incr.$cpB")
ncut=0
for cut in 72 80 $((size / 3)) $((size / 2)) $((size - 30)) $((size - 1)); do
	head -c $cut "$tmp/incr.$cpB" >"$tmp/cutstream"
	refused "cut at $cut" "$tmp/cutstream" "$tmp/atA" "nothing was changed"
	ncut=$((ncut + 1))
done
for at in 100 $((size / 2)) $((size - 10)); do
	cp "$tmp/incr.$cpB" "$tmp/flipped"
	b=$(od -An -tu1 -j $at -N1 "$tmp/flipped" | tr -d ' ')
	printf "$(printf '\\%03o' $(( (b + 1) % 256 )))" | dd of="$tmp/flipped" bs=1 seek=$at conv=notrunc 2>/dev/null
	refused "byte $at changed" "$tmp/flipped" "$tmp/atA" "nothing was changed"
	ncut=$((ncut + 1))
done
# cut at the start and in the middle of each command (nilfs-stream(5): a
# 4-byte payload length, a 2-byte number, 2 reserved, the payload, a
# 4-byte CRC, after a 72-byte header), the end record's included: each
# refused; the target compared once after all of them
send_manifest "$tmp/atA" >"$tmp/before" && state_of "$tmp/atA" >"$tmp/sbefore"
off=72 nbound=0
while [ "$off" -lt "$size" ]; do
	len=$(od -An -tu4 --endian=little -j "$off" -N4 "$tmp/incr.$cpB" | tr -d ' ')
	for cut in $off $((off + 6 + len / 2)); do
		head -c $cut "$tmp/incr.$cpB" >"$tmp/cutstream"
		"$recv" -f "$tmp/cutstream" "$tmp/atA" 2>"$tmp/err"; rc=$?
		[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "nothing was changed" "$tmp/err" ||
			{ cat "$tmp/err"; fail "cut at $cut (the command at $off): exit $rc"; }
		nbound=$((nbound + 1))
	done
	off=$((off + 12 + len))
done
[ "$off" -eq "$size" ] || fail "the commands of 1..B end at byte $off of $size"
send_manifest "$tmp/atA" | cmp -s - "$tmp/before" || fail "a stream cut at a command changed the target"
state_of "$tmp/atA" | cmp -s - "$tmp/sbefore" || fail "a stream cut at a command changed the state"
ncut=$((ncut + nbound))
"$recv" -f "$tmp/incr.$cpB" "$tmp/atA" || fail "the good stream after the bad ones"
# a full stream cut: marked unfinished, never taken for complete
rm -rf "$tmp/cutfull" && mkdir "$tmp/cutfull"
head -c $(($(wc -c <"$tmp/full.$cp1") / 2)) "$tmp/full.$cp1" >"$tmp/cutstream"
"$recv" -f "$tmp/cutstream" "$tmp/cutfull" 2>"$tmp/err" && fail "a cut full stream was taken"
grep -q "status receiving" "$tmp/cutfull/.nilfs-receive/state" || fail "cut full stream: not marked unfinished"
"$recv" -f "$tmp/incr.$cpA" "$tmp/cutfull" 2>"$tmp/err" && fail "a stream was received onto an unfinished tree"
grep -q "did not finish" "$tmp/err" || { cat "$tmp/err"; fail "unfinished tree: message"; }
echo "ours: 1 full and 3 incremental receives equal to dump.nilfs2 extract; live chain equal; 4 snapshots of B equal; incremental $incr bytes against full $full; $ncut cut or damaged streams refused with the target unchanged"
echo "PASS: $0"
exit 0
