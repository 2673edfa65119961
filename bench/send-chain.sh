#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/send-chain.sh: tests/kernel/t-send.sh's long form (issue 36).  Our
# mkfs -d makes volume A's first checkpoint of t-send's tree
# (tests/kernel/sendcheck.sh); in the guest the real kernel then changes
# A over ROUNDS (default 30) rounds, a snapshot after each: blocks of the
# file of a 3-level B-tree rewritten; a file that goes from empty to one
# byte, a direct map, B-trees of two and three levels and back; a sparse
# file grown and cut with bytes written into its holes; hard links made
# across directories and names of them removed or renamed over other
# files; renames over existing names; a directory with all below it moved
# into a new one, a file moved out of it, the nest removed now and then;
# two directories trading places; a file and a directory replacing each
# other; symlinks, FIFOs, device nodes, empty files; modes, owners and
# times of files and directories.  The first checkpoint (made a snapshot)
# is sent in full from the mounted volume, then each round's snapshot
# incrementally from the one before (-p), every stream received in the
# guest into a directory of a mounted nilfs2 volume B with --snapshot,
# and into a tmpfs directory.  After every receive the guest compares
# both received trees with the source checkpoint mounted as a snapshot
# (tests/kernel/sendcheck.sh's manifest: type, mode, owner, size, mtime,
# contents, link count and which names share a file, symlink targets;
# allocated blocks are compared on the host, where the trees are on one
# kind of file system: nilfs2 counts its B-tree nodes in them).  On the
# host, B's snapshots must be A's snapshots one for one: each B snapshot
# extracted (dump.nilfs2) equals A's checkpoint extracted, allocated
# blocks too, and the chain sent again from the unmounted image is
# received into a host directory and compared the same way at each step.
# Exit status 0 when all is equal, 1 otherwise.  The default 30 rounds
# took 13 minutes at a load of 13 to 18 (10 in the guest).
set -u
here=$(cd "$(dirname "$0")/../tests/kernel" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
. "$here/ktest.sh"
ktest_outs=out
ROUNDS=${ROUNDS:-30}
send=$top/nilfs-send
recv=$top/nilfs-receive
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2

ktest_require nilfs-send nilfs-receive mkfs.nilfs2 dump.nilfs2
ktest_tmp send-chain KEEP
. "$here/manifest.sh"
. "$here/sendcheck.sh"
t0=$(date +%s)
echo "load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds"

send_source_tree "$tmp/src" || exit 1
img=$tmp/a.img imgb=$tmp/b.img
truncate -s 1G "$img" "$imgb" || exit 1
"$mkfs" -q -f -b 4096 -d "$tmp/src" "$img" || fail "mkfs.nilfs2 -d"
"$mkfs" -q -f -b 4096 "$imgb" || fail "mkfs.nilfs2 of B"
rm -rf "$tmp/src"

{
	cat "$here/manifest.sh" "$here/sendcheck.sh"
	echo "ROUNDS=$ROUNDS"
	cat <<'GUEST'
export TZ=UTC
dev=/dev/vda S=/ktest/bin/nilfs-send R=/ktest/bin/nilfs-receive
mount -t nilfs2 -o noatime $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
mkdir -p /mnt2 /snap /tmp/t
mount -t nilfs2 -o noatime /dev/vdb /mnt2 || { echo "MOUNT B FAILED"; exit 1; }
mkdir /mnt2/copy
pad() { printf %02d $(($1 % 60)); }
# round R's changes to A
round() {
	r=$1 p=$(($1 - 1)) q=$(($1 - 2))
	cd /mnt || return 1
	if [ $r -eq 1 ]; then mkdir h1 h2 sa sb && echo a >sa/in && echo b >sb/in && echo old >h1/over; fi
	# the file of a 3-level B-tree: a run of blocks and one more rewritten
	dd if=/dev/urandom of=big bs=4096 seek=$((r * 911 % 4090)) count=$((r % 4 + 1)) conv=notrunc 2>/dev/null
	dd if=/dev/urandom of=big bs=4096 seek=$(((r * 2477 + 13) % 4096)) count=1 conv=notrunc 2>/dev/null
	# empty, a byte, a direct map, B-trees of two and three levels, a
	# direct map again
	case $((r % 6)) in
	1) : >grow ;;
	2) printf x >>grow ;;
	3) dd if=/dev/urandom of=grow bs=4096 seek=1 count=5 conv=notrunc 2>/dev/null ;;
	4) dd if=/dev/urandom of=grow bs=4096 seek=6 count=40 conv=notrunc 2>/dev/null ;;
	5) dd if=/dev/urandom of=grow bs=4096 seek=46 count=800 conv=notrunc 2>/dev/null ;;
	0) truncate -s 20000 grow ;;
	esac
	# the sparse file grown or cut, a few bytes written into a hole
	size=$(((r % 5 + 1) * 3000000))
	truncate -s $size sparse
	printf "$r" | dd of=sparse bs=1 seek=$((r * 104729 % size)) conv=notrunc 2>/dev/null
	# hard links across directories: a name made, a third name in a
	# directory that moves, a name renamed over a file, one removed
	echo "f $r" >h1/f$r && ln h1/f$r h2/l$r
	if [ $p -ge 1 ]; then ln h2/l$p sa/k$p && mv h2/l$p h1/over2; fi
	[ $q -lt 1 ] || rm h1/f$q
	# renames over existing names
	echo "over $r" >h2/new$r && mv h2/new$r h1/over
	[ $((r % 4)) -ne 2 ] || mv h1/over h2/e$p
	[ -e h1/over ] || echo "over again $r" >h1/over
	# a directory with all below it moved into a new one, a file moved
	# out of it, the nest removed now and then
	mkdir -p dr$r/sub && echo "leaf $r" >dr$r/sub/leaf
	if [ -d dr$p ]; then mv dr$p dr$r/sub/old && mv dr$r/sub/old/sub/leaf h2/leaf$p; fi
	[ $((r % 7)) -ne 0 ] || rm -r dr$r/sub/old
	# two directories trade places
	[ $((r % 3)) -ne 0 ] || { mv sa st && mv sb sa && mv st sb; }
	# a file and a directory replace each other
	if [ $((r % 2)) -eq 1 ]; then rm -rf xf && echo "file $r" >xf; else rm -f xf && mkdir xf && echo in >xf/in; fi
	# symlinks, FIFOs, device nodes, empty files grown later
	rm -f sym && ln -s h1/f$r sym
	ln -s "target $r" h2/s$r
	[ $((r % 4)) -ne 0 ] || mkfifo h2/p$r
	[ ! -e h2/p$((r - 8)) ] || rm h2/p$((r - 8))
	[ $((r % 5)) -ne 0 ] || mknod h1/n$r c 1 $((r % 6 + 3))
	: >h2/e$r
	[ ! -f h2/e$p ] || echo grown >>h2/e$p
	# modes, owners and times, of files and directories
	chmod "6$((r % 8))$((r % 5))" h1/f$r
	chown "$r:$((r + 100))" h2/l$r
	touch -d "2001-02-03 04:05:$(pad $r)" h1/over
	chmod "7$((r % 6))5" sb
	[ $((r % 3)) -ne 1 ] || chown "$((r + 7)):$r" sa
	touch -d "2010-01-01 00:00:$(pad $((r * 7)))" h2
	cd /
}
# the source checkpoint CNO mounted as a snapshot against both received trees
check() {
	mount -t nilfs2 -o ro,cp=$1 $dev /snap || { echo "MOUNT CP $1 FAILED"; return; }
	send_manifest /snap noblocks >/tmp/want
	umount /snap || echo "UMOUNT CP $1 FAILED"
	for d in /mnt2/copy /tmp/t; do
		send_manifest $d noblocks >/tmp/got
		cmp -s /tmp/want /tmp/got ||
			{ echo "ROUND $r: $d differs from checkpoint $1 FAILED"; diff -u /tmp/want /tmp/got | head -n 30; }
	done
}
# send CNO (from PARENT if given); both receive it
step() {
	$S ${2:+-p $2} /mnt $1 >/tmp/stream || echo "SEND $2..$1 FAILED"
	cat /tmp/stream | $R -s /mnt2/copy || echo "RECEIVE B $2..$1 FAILED"
	$R -f /tmp/stream /tmp/t || echo "RECEIVE TMPFS $2..$1 FAILED"
	echo "STEP $r ${2:-full} $1 $(wc -c </tmp/stream) bytes"
	check $1
}
chcp ss $dev 1 || echo "CHCP FAILED"
r=0
step 1
prev=1
for r in $(seq 1 $ROUNDS); do
	round $r || echo "ROUND $r FAILED"
	sync
	mkcp -s $dev || echo "MKCP FAILED"
	c=$(lscp -s $dev | awk 'END { print $1 }')
	step $c $prev
	prev=$c
done
# the last one in full, into an empty directory
mkdir /tmp/full && $S /mnt $prev | $R /tmp/full || echo "FULL $prev FAILED"
mount -t nilfs2 -o ro,cp=$prev $dev /snap && send_manifest /snap noblocks >/tmp/want && umount /snap
send_manifest /tmp/full noblocks | cmp -s /tmp/want - || echo "FULL $prev DIFFERS FAILED"
lscp -s $dev | awk 'NR > 1 { print "A-SNAPSHOT " $1 }'
lscp -s /dev/vdb | awk 'NR > 1 { print "B-SNAPSHOT " $1 }'
umount /mnt2 || echo "UMOUNT B FAILED"
umount /mnt || echo "UMOUNT FAILED"
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-$((600 + ROUNDS * 120))} NILFS_KTEST_EXTRA="$send $recv" \
	"$guest" run "$tmp/guest-script" "$img" "$imgb" >"$tmp/out" 2>&1 || fail "guest script exited $?"
grep -qx "ALL DONE" "$tmp/out" || fail "the guest did not finish"
! grep -q FAILED "$tmp/out" || fail "in the guest: $(grep FAILED "$tmp/out" | head -n 5)"
! grep -q '^KMSG ' "$tmp/out" || fail "kernel complained: $(grep '^KMSG ' "$tmp/out" | head -n 5)"
t1=$(date +%s)
nsteps=$(grep -c '^STEP ' "$tmp/out")
[ "$nsteps" -eq $((ROUNDS + 1)) ] || fail "$nsteps receives in the guest, not $((ROUNDS + 1))"

# on the host: B's snapshots against A's, one for one, blocks too; the
# chain sent again from the image into a host directory
sa=$(sed -n 's/^A-SNAPSHOT //p' "$tmp/out") sb=$(sed -n 's/^B-SNAPSHOT //p' "$tmp/out")
[ "$(echo "$sa" | wc -l)" -eq $((ROUNDS + 1)) ] || fail "A has $(echo "$sa" | wc -l) snapshots"
[ "$(echo "$sb" | wc -l)" -eq $((ROUNDS + 1)) ] || fail "B has $(echo "$sb" | wc -l) snapshots, not $((ROUNDS + 1))"
mkdir "$tmp/rcv"
prev= i=0
for c in $sa; do
	i=$((i + 1))
	b=$(echo "$sb" | sed -n "${i}p")
	rm -rf "$tmp/ext" "$tmp/snapB"
	"$dump" -c "$c" "$img" extract / "$tmp/ext" 2>"$tmp/err" || { cat "$tmp/err"; fail "extract A@$c"; }
	"$dump" -c "$b" "$imgb" extract /copy "$tmp/snapB" 2>"$tmp/err" || { cat "$tmp/err"; fail "extract B@$b"; }
	grep -qx "cno $c" "$tmp/snapB/.nilfs-receive/state" && grep -qx "status complete" "$tmp/snapB/.nilfs-receive/state" ||
		{ cat "$tmp/snapB/.nilfs-receive/state"; fail "B@$b: not the complete state of checkpoint $c"; }
	send_manifest "$tmp/ext" >"$tmp/want"
	send_manifest "$tmp/snapB" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		{ diff -u "$tmp/want" "$tmp/got" | head -n 30; fail "snapshot $b of B differs from checkpoint $c of A"; }
	"$send" ${prev:+-p $prev} -f "$tmp/stream" "$img" "$c" || fail "nilfs-send ${prev:+-p $prev} $c"
	"$recv" -f "$tmp/stream" "$tmp/rcv" || fail "nilfs-receive ${prev:-full}..$c"
	send_manifest "$tmp/rcv" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		{ diff -u "$tmp/want" "$tmp/got" | head -n 30; fail "${prev:-full}..$c received on the host differs from checkpoint $c"; }
	prev=$c
done
incr=$(awk '$1 == "STEP" && $3 != "full" { n++; s += $5 } END { printf "%d", n ? s / n : 0 }' "$tmp/out")
full=$(awk '$1 == "STEP" && $3 == "full" { print $5 }' "$tmp/out")
echo "$ROUNDS rounds: 1 full and $ROUNDS incremental receives, each equal to the source checkpoint in the guest (B with --snapshot, tmpfs) and on the host (B's $i snapshots and a host directory, allocated blocks too)"
echo "streams: full $full bytes, incremental $incr bytes on average; guest $((t1 - t0)) s, host checks $(($(date +%s) - t1)) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "PASS: $0"
