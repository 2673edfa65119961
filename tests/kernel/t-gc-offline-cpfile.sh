#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-gc-offline-cpfile.sh - the offline cleaner deletes whole cpfile blocks.
# The guest writes files whose old versions span runs of 50 checkpoints
# (cpgen: one block written and a checkpoint, in a loop) with two snapshots
# elsewhere, so that cleaning everything the policy finds reclaimable with
# no protection period deletes many whole cpfile blocks' worth of
# checkpoints (1 KiB blocks: 5 each) while the last copies of those very
# cpfile blocks sit in the victim segments.  Each policy cleans its own copy
# of the volume with nilfs_cleanerd --offline, and nilfs-clean --offline
# (one manual pass) another; then our fsck must find every checkpoint
# clean, and a second boot must mount every copy, list with nilfs-tools'
# lscp and lssu exactly what our offline lscp and lssu listed, and show the
# latest tree and both snapshots as they were before cleaning.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
POLICIES="timestamp greedy cost-benefit"

ktest_require mkfs.nilfs2 dump.nilfs2 nilfs_cleanerd nilfs-clean fsck.nilfs2 lscp lssu tests/kernel/cpgen
ktest_tmp t-gc-offline-cpfile T_KEEP

# a fault of one policy's copy is noted and the others still run (and the
# kernel still gets to read them all); the test fails at the end
failures=0
note() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

img=$tmp/img
truncate -s 160M "$img" || exit 1
"$top/mkfs.nilfs2" -q -f -b 1024 -B 512 "$img" || fail "mkfs"

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
checkpoints() { /ktest/bin/cpgen sync /mnt $1 >/dev/null || echo "CPGEN FAILED"; }
i=0
while [ $i -lt 16 ]; do
	dd if=/dev/urandom of=/mnt/f$i bs=4096 count=48 2>/dev/null
	i=$((i + 1))
done
mkdir -p /mnt/d
echo keep >/mnt/d/keep.txt
sync
mkcp -s $dev || echo "MKCP FAILED"
# g lives through 50 checkpoints, then is overwritten: its old blocks'
# period covers two whole cpfile blocks and no snapshot
dd if=/dev/urandom of=/mnt/g bs=4096 count=96 2>/dev/null
sync
checkpoints 50
dd if=/dev/urandom of=/mnt/g bs=4096 count=96 conv=notrunc 2>/dev/null
sync
i=0
while [ $i -lt 8 ]; do
	dd if=/dev/urandom of=/mnt/f$i bs=4096 count=24 conv=notrunc 2>/dev/null
	sync
	i=$((i + 1))
done
mkcp -s $dev || echo "MKCP FAILED"
# h the same way, then deleted
dd if=/dev/urandom of=/mnt/h bs=4096 count=64 2>/dev/null
sync
checkpoints 50
rm /mnt/h
sync
while [ $i -lt 14 ]; do
	dd if=/dev/urandom of=/mnt/f$i bs=4096 count=32 conv=notrunc 2>/dev/null
	sync
	i=$((i + 1))
done
manifest /mnt | sed "s/^/M latest /"
mkdir -p /mnt2
for c in $(lscp -s $dev | awk 'NR > 1 { print $1 }'); do
	mount -t nilfs2 -o ro,cp=$c $dev /mnt2 || { echo "SNAPMOUNT FAILED $c"; continue; }
	manifest /mnt2 | sed "s/^/M snap$c /"
	umount /mnt2
done
lscp $dev | awk 'NR > 1' | wc -l | sed 's/^/NCP /'
umount /mnt || echo "UMOUNT FAILED"
echo "PASS1 DONE"
GUEST
} >"$tmp/script1"

ktest_extra=$top/tests/kernel/cpgen
ktest_pass 1 "$img"
ktest_extra=
sed -n 's/^M //p' "$tmp/out1" >"$tmp/m1"
ncp=$(sed -n 's/^NCP //p' "$tmp/out1")
[ "$(grep -c '^snap[0-9]* S \.|' "$tmp/m1")" -eq 2 ] || fail "expected 2 snapshots"
[ "$ncp" -ge 120 ] || fail "expected at least 120 checkpoints, the kernel made $ncp"

# with no protection period only what is older than now is reclaimable, and
# the guest's clock may run ahead of ours: wait until ours is past its writes
last=$("$top/dump.nilfs2" "$img" segments | awk 'NR > 2 && $2 > m { m = $2 } END { print m + 0 }')
i=0; while [ "$(date +%s)" -le "$last" ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done

# everything the policy finds reclaimable, nothing protected
n=0
disks=
for pol in $POLICIES manual; do
	cp "$img" "$tmp/$pol.img" || exit 1
	if [ $pol = manual ]; then
		# nilfs-clean's pass: every reclaimable segment, whatever the thresholds
		"$top/nilfs-clean" --offline -p 0 "$tmp/$pol.img" >"$tmp/$pol.gc" 2>&1 ||
			{ cat "$tmp/$pol.gc"; fail "nilfs-clean --offline"; }
	else
		cat >"$tmp/$pol.conf" <<CONF
protection_period	0
selection_policy	$pol
min_clean_segments	100%
max_clean_segments	100%
CONF
		"$top/nilfs_cleanerd" --offline -c "$tmp/$pol.conf" "$tmp/$pol.img" >"$tmp/$pol.gc" 2>&1 ||
			{ cat "$tmp/$pol.gc"; fail "$pol: nilfs_cleanerd --offline"; }
	fi
	cat "$tmp/$pol.gc"
	deleted=$(sed -n 's/.* \([0-9][0-9]*\) checkpoints deleted.*/\1/p' "$tmp/$pol.gc")
	# two runs of 50 checkpoints: many whole cpfile blocks (5 entries each)
	[ -n "$deleted" ] && [ "$deleted" -ge 84 ] ||
		fail "$pol: only '$deleted' checkpoints deleted, no whole cpfile blocks"
	"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/$pol.img" >"$tmp/$pol.fsck" 2>&1 || {
		grep -v '^Pass' "$tmp/$pol.fsck" | head -n 10
		note "$pol: fsck.nilfs2 after offline cleaning"
	}
	TZ=UTC "$top/lscp" -a "$tmp/$pol.img" >"$tmp/$pol.lscp" || note "$pol: lscp"
	"$top/lssu" -a "$tmp/$pol.img" >"$tmp/$pol.lssu" || note "$pol: lssu"
	! awk 'NR > 1 && $1 == 0' "$tmp/$pol.lscp" | grep -q . ||
		note "$pol: our lscp lists checkpoint 0"
	dev=$(printf "/dev/vd%s" "$(echo abcdefgh | cut -c $((n + 1)))")
	echo "$pol $dev" >>"$tmp/devs"
	disks="$disks $tmp/$pol.img"
	n=$((n + 1))
done

{
	cat "$here/manifest.sh"
	echo "devs='$(awk '{ print $1 ":" $2 }' "$tmp/devs" | tr '\n' ' ')'"
	cat <<'GUEST'
export TZ=UTC
mkdir -p /mnt2
for pd in $devs; do
	pol=${pd%%:*} dev=${pd#*:}
	mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED $pol"; continue; }
	lscp -a $dev | sed "s/^/LSCP $pol /"
	lssu -a $dev | sed "s/^/LSSU $pol /"
	manifest /mnt | sed "s/^/M $pol latest /"
	for c in $(lscp -s $dev | awk 'NR > 1 { print $1 }'); do
		mount -t nilfs2 -o ro,cp=$c $dev /mnt2 || { echo "SNAPMOUNT FAILED $pol $c"; continue; }
		manifest /mnt2 | sed "s/^/M $pol snap$c /"
		umount /mnt2
	done
	# and it takes the kernel's writes
	echo "after cleaning" >/mnt/new.txt
	sync
	umount /mnt || echo "UMOUNT FAILED $pol"
done
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|bad' | sed 's/^/KMSG /'
echo "PASS2 DONE"
GUEST
} >"$tmp/script2"

# shellcheck disable=SC2086
ktest_pass 2 $disks
for pol in $POLICIES manual; do
	sed -n "s/^LSCP $pol //p" "$tmp/out2" >"$tmp/$pol.lscp.k"
	sed -n "s/^LSSU $pol //p" "$tmp/out2" >"$tmp/$pol.lssu.k"
	sed -n "s/^M $pol //p" "$tmp/out2" >"$tmp/$pol.m2"
	if ! cmp -s "$tmp/$pol.lscp" "$tmp/$pol.lscp.k"; then
		diff -u "$tmp/$pol.lscp" "$tmp/$pol.lscp.k" | head -n 30
		note "$pol: nilfs-tools' lscp -a differs from ours offline (- ours, + nilfs-tools)"
	fi
	awk 'NR > 1 && $1 == 0' "$tmp/$pol.lscp.k" | grep -q . &&
		note "$pol: nilfs-tools' lscp lists checkpoint 0"
	if ! cmp -s "$tmp/$pol.lssu" "$tmp/$pol.lssu.k"; then
		diff -u "$tmp/$pol.lssu" "$tmp/$pol.lssu.k" | head -n 30
		note "$pol: nilfs-tools' lssu -a differs from ours offline (- ours, + nilfs-tools)"
	fi
	if ! cmp -s "$tmp/m1" "$tmp/$pol.m2"; then
		diff -u "$tmp/m1" "$tmp/$pol.m2" | head -n 30
		note "$pol: the latest tree or a snapshot changed across offline cleaning"
	fi
	"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/$pol.img" >"$tmp/$pol.fsck" 2>&1 || {
		grep -v '^Pass' "$tmp/$pol.fsck" | head -n 10
		note "$pol: fsck.nilfs2 after the kernel's writes"
	}
	echo "ours: $pol: $(($(wc -l <"$tmp/$pol.lscp") - 1)) of $ncp checkpoints left"
done
[ $failures -eq 0 ] || fail "$failures faults"
echo "PASS: $0"
exit 0
