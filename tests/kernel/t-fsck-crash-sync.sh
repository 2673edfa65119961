#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-crash-sync.sh - crash images from the real kernel (qemu guest, see
# guest.sh).  For each crash point, a guest mounts a fresh image made by our
# mkfs.nilfs2, runs a counted workload of creates, overwrites in place,
# appends, fdatasync (busybox sync -d), fsync (sync FILE), renames, unlinks,
# mkdir, links, truncating rewrites, checkpoints and one snapshot, and
# resets the machine (sysrq b, no unmount) right after operation N; at some
# points a background writer keeps overwriting a file in place, each write
# made durable by fdatasync, so the reset lands in the middle of its
# writing, and at two the reset comes while sync writes out 6 MiB.  Then,
# for each image:
#
#  1. fsck.nilfs2 -n -f finds no corruption (the roll-forward note is INFO);
#  2. a guest mounts an unrepaired copy (the kernel rolls forward) and
#     records its tree (manifest.sh); dump.nilfs2 extract of the crash
#     image (our reader applies the roll-forward too) must give the same;
#  3. fsck.nilfs2 -y on another copy (exit 0 or 1), then fsck.nilfs2 -n -f
#     exits 0 with no logs left to roll forward, our extract equals the
#     kernel's tree, and a guest mounting the repaired copy (if fsck -y
#     changed it) shows that tree too.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

set -u

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2
fsck=$top/fsck.nilfs2

"$guest" require || exit
for p in "$mkfs" "$dump" "$fsck"; do
	[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-crash-sync.XXXXXX") || exit 1
if [ "${NILFS_KTEST_KEEP:-0}" = 1 ]; then
	echo "keeping the images in $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

fail() {
	echo "FAIL: $*"
	if [ -f "$tmp/out" ]; then
		echo "--- last guest output (last 40 lines) ---"
		tail -n 40 "$tmp/out"
		echo "--- guest.sh's messages (last 40 lines) ---"
		tail -n 40 "$tmp/gerr"
	fi
	exit 1
}

. "$here/manifest.sh"

# crash points: NAME:OPS:STREAM:TORN - reset after OPS operations of the
# workload, with the background writer running if STREAM is 1, and in
# the middle of a sync of 6 MiB more, once TORN KiB of it are written,
# unless TORN is 0.  The operation kinds repeat
# every 12 (see op below): 13 ends on an fdatasync of an overwrite in
# place, 27 on an fdatasync of a new file, 44 on an unlink, 57 just after
# a checkpoint, 70 on a truncating rewrite and its fdatasync; 44 and 70
# then go on to the sync of 6 MiB.
# NILFS_KTEST_CRASH_POINTS replaces the list (to reproduce one point), and
# NILFS_KTEST_KEEP=1 keeps the images.
POINTS=${NILFS_KTEST_CRASH_POINTS:-"p13:13:0:0 p27:27:1:0 p44:44:1:2048 p57:57:0:0 p70:70:1:1024"}

# the workload, run in the guest; N= and STREAM= are put in front of it
cat >"$tmp/workload" <<'GUEST'
pat() { yes "$1" | head -c "$2"; }
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
cd /mnt || exit 1
mkdir d0 d1 d2 d3
pat big 1048576 >big
pat stream 1048576 >stream
sync
if [ "$STREAM" = 1 ]; then
	# overwrites in place of 16 KiB, each made durable by fdatasync (data-sync
	# logs), until the reset
	(j=0; while :; do
		pat "stream $j" 16384 | dd of=stream bs=4096 seek=$(( (j * 4) % 256 )) conv=notrunc 2>/dev/null
		sync -d stream
		j=$((j + 1))
	done) &
fi
op() {
	i=$1 k=$(($1 % 12)) c=$(($1 - $1 % 12))
	cyc=$((c / 12))
	d=d$((cyc % 4))
	case $k in
	0) pat "create $i" 60000 >f$c ;;
	1) pat "ovw $i" 8192 | dd of=big bs=4096 seek=$(( (i * 7) % 250 )) conv=notrunc 2>/dev/null
	   sync -d big || echo "SYNC-D FAILED" ;;
	2) pat "app $i" 10000 >>log$((cyc % 3)); sync log$((cyc % 3)) || echo "FSYNC FAILED" ;;
	3) pat "in place $i" 4096 | dd of=f$c bs=4096 seek=2 conv=notrunc 2>/dev/null
	   sync -d f$c || echo "SYNC-D FAILED" ;;
	4) mkdir $d/s$c && for e in 1 2 3; do echo "$i $e" >$d/s$c/e$e; done ;;
	5) [ -f f$((c - 12)) ] && mv f$((c - 12)) $d/r$c ;;
	6) pat "dirty $i" 32768 | dd of=big bs=4096 seek=$(( (i * 13) % 240 )) conv=notrunc 2>/dev/null ;;
	7) pat "tail $i" 5000 >>f$c; sync -d f$c || echo "SYNC-D FAILED" ;;
	8) rm -f d$(((cyc + 2) % 4))/s$((c - 24))/e2 d$(((cyc + 1) % 4))/r$((c - 36)) ;;
	9) if [ $cyc -eq 2 ]; then mkcp -s /dev/vda >/dev/null || echo "MKCP FAILED"
	   elif [ $((cyc % 2)) -eq 0 ]; then sync
	   else mkcp /dev/vda >/dev/null || echo "MKCP FAILED"; fi ;;
	10) pat "rewrite $i" 12000 >log$((cyc % 3)); sync -d log$((cyc % 3)) || echo "SYNC-D FAILED" ;;
	11) ln $d/s$c/e3 hl$c; ln -s f$c sl$c ;;
	esac
}
i=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	op $i
done
written() { awk '{ print int($7 / 2) }' /sys/block/vda/stat; }	# KiB
if [ "$TORN" != 0 ]; then
	# reset while sync writes out 6 MiB, once TORN KiB have reached the
	# disk: the logical segment is cut short there
	dd if=/dev/urandom of=torn bs=1M count=6 2>/dev/null
	w0=$(written)
	sync &
	spid=$!
	while [ $(($(written) - w0)) -lt "$TORN" ] && kill -0 $spid 2>/dev/null; do
		sleep 0.01
	done
	kill -0 $spid 2>/dev/null && echo "TORN $(($(written) - w0)) KiB" || echo "SYNC ENDED FIRST"
fi
echo "CRASH AFTER $i"
echo b >/proc/sysrq-trigger
sleep 30
echo "STILL RUNNING"
GUEST

# 1. the crash images
t0=$(date +%s)
for pt in $POINTS; do
	name=${pt%%:*} rest=${pt#*:}
	n=${rest%%:*} rest=${rest#*:}
	stream=${rest%%:*} torn=${rest#*:}
	img=$tmp/$name.img
	truncate -s 64M "$img" || exit 1
	"$mkfs" -q -f -B 512 -L "$name" "$img" || fail "$name: mkfs.nilfs2 $img"
	{ echo "N=$n STREAM=$stream TORN=$torn"; cat "$tmp/workload"; } >"$tmp/crash.$name"
	"$guest" run "$tmp/crash.$name" "$img" >"$tmp/out" 2>"$tmp/gerr"
	rc=$?
	[ $rc -eq 125 ] || fail "crash point $name ($n operations): the guest was to be reset, guest.sh exited $rc"
	grep -qx "CRASH AFTER $n" "$tmp/out" || fail "crash point $name: the workload did not reach operation $n"
	! grep -q 'FAILED' "$tmp/out" || fail "crash point $name: a guest step failed"
	sed -n 's/^TORN \(.*\)/'"$name"': reset in the middle of a sync, \1 written/p; s/^SYNC ENDED FIRST/'"$name"': note: the sync ended before the reset/p' "$tmp/out"
done
t1=$(date +%s)

# fsck on each crash image: no corruption; note the logs to roll forward
nrf=0
for pt in $POINTS; do
	name=${pt%%:*}
	img=$tmp/$name.img
	"$fsck" -n -f "$img" >"$tmp/fsck.$name" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$tmp/fsck.$name"
		fail "crash point $name: fsck.nilfs2 -n -f $img exited $rc on a kernel crash image (false positive, or a kernel bug)"
	fi
	rf=$(sed -n 's/.*roll-forward: at mount the kernel replays \([0-9]*\) data-sync log(s).*(\([0-9]*\) data blocks).*/\1 logs, \2 blocks/p' "$tmp/fsck.$name")
	drop=$(sed -n 's/.*roll-forward: \([0-9]*\) log(s) after checkpoint .* the kernel discards them.*/\1/p' "$tmp/fsck.$name")
	echo "$name: fsck -n -f exit 0; roll-forward: ${rf:-none}; incomplete logs discarded: ${drop:-0}"
	[ -n "$rf" ] && nrf=$((nrf + 1))
	cp "$img" "$tmp/$name.kmount" && cp "$img" "$tmp/$name.fixed" || exit 1
done

# p13 ends on an fdatasync of blocks overwritten in place and so leaves a
# data-sync log unless a timed construction happened to come first; with
# none anywhere, what follows would not test the roll-forward at all
[ $nrf -gt 0 ] || fail "no crash image has data-sync logs to roll forward"

# 2. the kernel's view: mount each unrepaired copy (roll-forward), record
# the tree, unmount; then our reader's view of the crash image itself
mount_script() {	# $1: output file, $2...: names (vda, vdb, ... in order)
	_out=$1
	shift
	{
		cat "$here/manifest.sh"
		echo 'export TZ=UTC'
		_l=a
		for _n in "$@"; do
			cat <<EOF
mount -t nilfs2 /dev/vd$_l /mnt || { echo "MOUNT FAILED $_n"; exit 1; }
manifest /mnt | sed "s/^/MANIFEST $_n /"
umount /mnt || { echo "UMOUNT FAILED $_n"; exit 1; }
echo "MOUNTED $_n"
EOF
			_l=$(echo "$_l" | tr a-x b-y)
		done
	} >"$_out"
}
names="" disks=""
for pt in $POINTS; do
	names="$names ${pt%%:*}"
	disks="$disks $tmp/${pt%%:*}.kmount"
done
# shellcheck disable=SC2086  # word splitting wanted
mount_script "$tmp/kmount" $names
# shellcheck disable=SC2086
"$guest" run "$tmp/kmount" $disks >"$tmp/out" 2>"$tmp/gerr" || fail "the guest mounting the unrepaired copies exited $?"

ours() {	# $1: image, $2: output manifest
	rm -rf "$tmp/x"
	"$dump" "$1" extract / "$tmp/x" >"$tmp/err" 2>&1 ||
		{ cat "$tmp/err"; return 1; }
	TZ=UTC manifest "$tmp/x" >"$2"
}

for n in $names; do
	grep -qx "MOUNTED $n" "$tmp/out" || fail "crash point $n: the kernel did not mount the copy $tmp/$n.kmount"
	sed -n "s/^MANIFEST $n //p" "$tmp/out" >"$tmp/want.$n"
	[ -s "$tmp/want.$n" ] || fail "crash point $n: no manifest from the kernel"
	ours "$tmp/$n.img" "$tmp/got.$n" || fail "crash point $n: dump.nilfs2 extract of $tmp/$n.img failed"
	if ! cmp -s "$tmp/want.$n" "$tmp/got.$n"; then
		diff -u "$tmp/want.$n" "$tmp/got.$n" | head -n 40
		fail "crash point $n: our reader's tree of the crash image differs from the kernel's after its roll-forward (- kernel, + ours)"
	fi
	echo "$n: our reader matches the kernel's mount: $(grep -c '^S ' "$tmp/want.$n") paths, $(grep -c '^H ' "$tmp/want.$n") files hashed"
done

# 3. the offline roll-forward by fsck -y
fixed="" fixdisks=""
for n in $names; do
	copy=$tmp/$n.fixed
	"$fsck" -y "$copy" >"$tmp/fsy.$n" 2>&1
	rc=$?
	yrc=$rc
	[ $rc -eq 0 ] || [ $rc -eq 1 ] ||
		{ cat "$tmp/fsy.$n"; fail "crash point $n: fsck.nilfs2 -y $copy exited $rc"; }
	"$fsck" -n -f "$copy" >"$tmp/fsn.$n" 2>&1
	rc=$?
	[ $rc -eq 0 ] ||
		{ cat "$tmp/fsy.$n" "$tmp/fsn.$n"; fail "crash point $n: fsck.nilfs2 -n -f exited $rc after fsck -y on $copy"; }
	if grep -q 'roll-forward' "$tmp/fsn.$n"; then
		cat "$tmp/fsy.$n" "$tmp/fsn.$n"
		fail "crash point $n: logs still to roll forward after fsck.nilfs2 -y on $copy"
	fi
	ours "$copy" "$tmp/fix.$n" || fail "crash point $n: dump.nilfs2 extract of the repaired $copy failed"
	if ! cmp -s "$tmp/want.$n" "$tmp/fix.$n"; then
		diff -u "$tmp/want.$n" "$tmp/fix.$n" | head -n 40
		fail "crash point $n: after fsck -y our tree of $copy differs from the kernel's (- kernel, + ours)"
	fi
	if cmp -s "$tmp/$n.img" "$copy"; then
		# nothing to do: step 2's boot mounted the same bytes
		echo "$n: fsck -y had nothing to repair (exit $yrc); checks clean, our tree matches the kernel's"
	else
		echo "$n: fsck -y repaired (exit $yrc); checks clean, no logs left, our tree matches the kernel's"
		fixed="$fixed $n"
		fixdisks="$fixdisks $copy"
	fi
done
if [ -n "$fixed" ]; then
	# shellcheck disable=SC2086
	mount_script "$tmp/fmount" $fixed
	# shellcheck disable=SC2086
	"$guest" run "$tmp/fmount" $fixdisks >"$tmp/out" 2>"$tmp/gerr" || fail "the guest mounting the repaired copies exited $?"
	for n in $fixed; do
		grep -qx "MOUNTED $n" "$tmp/out" || fail "crash point $n: the kernel did not mount the repaired copy"
		sed -n "s/^MANIFEST $n //p" "$tmp/out" >"$tmp/fk.$n"
		if ! cmp -s "$tmp/want.$n" "$tmp/fk.$n"; then
			diff -u "$tmp/want.$n" "$tmp/fk.$n" | head -n 40
			fail "crash point $n: the kernel's tree of the repaired copy differs from its roll-forward of the crash image (- crash image, + repaired)"
		fi
		echo "$n: the kernel mounts the repaired copy with the same tree"
	done
fi
t2=$(date +%s)
echo "ours: $(echo "$names" | wc -w) crash points; crash boots $((t1 - t0)) s, all $((t2 - t0)) s"
echo "PASS: $0"
exit 0
