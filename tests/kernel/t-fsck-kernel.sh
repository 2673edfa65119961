#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-kernel.sh - fsck.nilfs2 on volumes the real kernel wrote (qemu
# guest, see guest.sh) must find nothing: no false positives.
#
#   vda  512 MiB, 4 KiB blocks: thousands of files, deep directories,
#        multi-level B-trees, sparse files, links, devices, snapshots,
#        deletes, renames, rmcp and chcp; fsck.nilfs2 also runs in the guest
#        on the mounted volume (read-only check allowed, repair refused)
#   vdb  64 MiB, 1 KiB blocks, 256-block segments: many segments, a B-tree
#        DAT, a cpfile of many blocks with holes left by rmcp
#   vdc  256 MiB: power cut while mounted, after overwrites synced with
#        fdatasync (busybox sync -d)
#   vde  64 MiB, 1 KiB blocks: rewritten many times while nilfs_cleanerd
#        runs with no protection period (moved blocks, freed DAT entries,
#        deleted checkpoints, segments reused); skipped without nilfs_cleanerd
# (vdd carries fsck.nilfs2 and nilfs_cleanerd into the guest)
#        (data-sync logs the kernel would roll forward)
# On the host, "fsck.nilfs2 -n --checkpoints=all" must exit 0 on each, and
# its checkpoint and snapshot counts must match lscp's in the guest; c.img
# must report the logs to roll forward, and check clean again after a
# second guest has mounted (recovered) and unmounted it.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
fsck=$(cd "${top_builddir:-$here/../..}" && pwd)/fsck.nilfs2

"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
if [ -z "$mkfs" ]; then
	echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"
	exit 77
fi
[ -x "$fsck" ] || { echo "FAIL: $fsck not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-kernel.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 60 lines) ---"
	tail -n 60 "$tmp/out"
	exit 1
}

truncate -s 512M "$tmp/a.img" && "$mkfs" -f -q -L fscka "$tmp/a.img" || exit 1
truncate -s 64M "$tmp/b.img" && "$mkfs" -f -q -b 1024 -B 256 -L fsckb "$tmp/b.img" || exit 1
truncate -s 256M "$tmp/c.img" && "$mkfs" -f -q -L fsckc "$tmp/c.img" || exit 1
truncate -s 64M "$tmp/d.img" && "$mkfs" -f -q -b 1024 -B 256 -L fsckd "$tmp/d.img" || exit 1
cleanerd=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v nilfs_cleanerd)

# fsck.nilfs2, nilfs_cleanerd and the libraries they need, unpacked over the guest's root
mkdir -p "$tmp/root/sbin" "$tmp/root/etc"
cp "$fsck" "$tmp/root/sbin/fsck.nilfs2"
[ -n "$cleanerd" ] && cp "$cleanerd" "$tmp/root/sbin/nilfs_cleanerd"
for bin in "$fsck" $cleanerd; do
	ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	mkdir -p "$tmp/root$(dirname "$lib")"
	cp -L "$lib" "$tmp/root$lib"
done
# clean as much and as soon as possible
cat >"$tmp/root/etc/gc.conf" <<'EOF'
protection_period	0
min_clean_segments	95%
max_clean_segments	99%
clean_check_interval	1
selection_policy	timestamp
nsegments_per_clean	4
mc_nsegments_per_clean	4
cleaning_interval	1
mc_cleaning_interval	1
retry_interval		1
min_reclaimable_blocks	1%
mc_min_reclaimable_blocks	1%
use_set_suinfo
log_priority		info
EOF
tar -cf "$tmp/tools.tar" --format=ustar -C "$tmp/root" . || exit 1
truncate -s 8M "$tmp/tools.tar"

cat >"$tmp/guest-script" <<'GUEST'
# runs inside the guest under busybox sh
tar -xf /dev/vdd -C / || { echo "TOOLS FAILED"; exit 1; }
work() {	# $1 device, $2 number of directories, $3 big-file MiB
	dev=$1
	mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED $dev"; exit 1; }
	d=0
	while [ $d -lt $2 ]; do
		mkdir -p /mnt/d$d/a/b/c
		i=0
		while [ $i -lt 50 ]; do
			echo "file $d/$i" >/mnt/d$d/f$i
			i=$((i + 1))
		done
		echo deep >/mnt/d$d/a/b/c/deep
		[ $((d % 4)) -eq 0 ] && sync
		d=$((d + 1))
	done
	mkdir /mnt/wide
	i=0
	while [ $i -lt 600 ]; do : >/mnt/wide/entry-with-a-long-name-$i; i=$((i + 1)); done
	dd if=/dev/urandom of=/mnt/big bs=1M count=$3 2>/dev/null
	dd if=/dev/urandom of=/mnt/sparse bs=4096 count=2 2>/dev/null
	dd if=/dev/urandom of=/mnt/sparse bs=4096 seek=9000 count=3 conv=notrunc 2>/dev/null
	ln -s d0/f0 /mnt/rel; ln -s /no/such/target /mnt/abs
	ln /mnt/d1/f1 /mnt/hard; mkfifo /mnt/fifo; mknod /mnt/cdev c 1 3; mknod /mnt/bdev b 7 0
	sync
	s1=$(mkcp -s -p $dev) || echo "MKCP FAILED"
	rm -r /mnt/d2 /mnt/d3
	i=0; while [ $i -lt 600 ]; do rm /mnt/wide/entry-with-a-long-name-$i; i=$((i + 3)); done
	mv /mnt/d4 /mnt/d5/moved
	dd if=/dev/urandom of=/mnt/big bs=4096 seek=300 count=40 conv=notrunc 2>/dev/null
	sync
	s2=$(mkcp -s -p $dev) || echo "MKCP FAILED"
	i=0
	while [ $i -lt 12 ]; do
		echo "gen $i" >>/mnt/d1/f$i
		rm -f /mnt/d6/f$i
		sync
		i=$((i + 1))
	done
	truncate -s 5000 /mnt/big 2>/dev/null || dd if=/dev/null of=/mnt/big bs=1 seek=5000 2>/dev/null
	sync
	mkcp -s $dev
	# drop a range of plain checkpoints, and one snapshot back to a checkpoint
	rmcp $dev 3..8 >/dev/null 2>&1
	chcp cp $dev $s1 || echo "CHCP FAILED"
	rmcp $dev $s1 >/dev/null 2>&1
	echo final >/mnt/final
	sync
}
work /dev/vda 24 20
# a mounted volume: read-only check allowed, repair refused
fsck.nilfs2 -n /dev/vda >/tmp/f1 2>&1; echo "MOUNTED-N rc=$?"
grep -q 'is mounted read-write' /tmp/f1 && echo "MOUNTED-WARNING"
sed 's/^/F1 /' /tmp/f1
fsck.nilfs2 -y /dev/vda >/tmp/f2 2>&1; echo "MOUNTED-Y rc=$?"
sed 's/^/F2 /' /tmp/f2
mount -o remount,ro /mnt || echo "REMOUNT FAILED"
fsck.nilfs2 -n --checkpoints=snapshots /dev/vda >/tmp/f3 2>&1; echo "MOUNTED-RO rc=$?"
sed 's/^/F3 /' /tmp/f3
echo "A-NCP $(lscp -a /dev/vda | awk 'NR > 1' | wc -l) A-NSS $(lscp -s /dev/vda | awk 'NR > 1' | wc -l)"
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
work /dev/vdb 10 2
echo "B-NCP $(lscp -a /dev/vdb | awk 'NR > 1' | wc -l) B-NSS $(lscp -s /dev/vdb | awk 'NR > 1' | wc -l)"
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
# the cleaner at work
if [ -x /sbin/nilfs_cleanerd ]; then
	mount -t nilfs2 /dev/vde /mnt || { echo "MOUNT FAILED vde"; exit 1; }
	r=0
	while [ $r -lt 6 ]; do
		i=0
		while [ $i -lt 40 ]; do seq 1 $((i * 40 + r)) >/mnt/f$i; i=$((i + 1)); done
		dd if=/dev/zero of=/mnt/big bs=1024 count=2000 2>/dev/null
		sync
		[ $r -eq 2 ] && mkcp -s /dev/vde
		r=$((r + 1))
	done
	# it detaches and prints NILFS_CLEANERD_PID=<pid>
	pid=$(nilfs_cleanerd -c /etc/gc.conf /dev/vde /mnt | sed -n 's/^NILFS_CLEANERD_PID=//p')
	sleep 40
	kill $pid
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	echo "D-NCP $(lscp -a /dev/vde | awk 'NR > 1' | wc -l) D-NSS $(lscp -s /dev/vde | awk 'NR > 1' | wc -l)"
	umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
fi
# power cut: fdatasync'd overwrites after the last checkpoint, no unmount
mount -t nilfs2 /dev/vdc /mnt || exit 1
i=0; while [ $i -lt 30 ]; do echo "c $i" >/mnt/c$i; i=$((i + 1)); done
dd if=/dev/urandom of=/mnt/data bs=4096 count=64 2>/dev/null
sync
dd if=/dev/urandom of=/mnt/data bs=4096 seek=8 count=4 conv=notrunc 2>/dev/null; sync -d /mnt/data || echo "SYNC-D FAILED"
dd if=/dev/urandom of=/mnt/data bs=4096 seek=30 count=2 conv=notrunc 2>/dev/null; sync -d /mnt/data || echo "SYNC-D FAILED"
echo "ALL DONE"
# cut the power now: init's sync and poweroff would write a checkpoint;
# end the output as init would, then reset the machine at once
for arg in $(cat /proc/cmdline); do
	case $arg in ktest.tag=*) tag=${arg#ktest.tag=} ;; esac
done
echo "===KTEST-END-$tag rc=0==="
echo b >/proc/sysrq-trigger
GUEST

"$guest" run "$tmp/guest-script" "$tmp/a.img" "$tmp/b.img" "$tmp/c.img" "$tmp/tools.tar" "$tmp/d.img" \
	>"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "guest script exited $rc"
grep -qx "ALL DONE" "$tmp/out" || fail "guest did not finish"
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed"
grep -qx "MOUNTED-N rc=0" "$tmp/out" || fail "fsck -n on the mounted volume did not exit 0"
grep -qx "MOUNTED-WARNING" "$tmp/out" || fail "fsck -n on the mounted volume did not warn"
grep -qx "MOUNTED-Y rc=8" "$tmp/out" || fail "fsck -y on the mounted volume did not refuse with 8"
grep -qx "MOUNTED-RO rc=0" "$tmp/out" || fail "fsck -n on the read-only mounted volume did not exit 0"

vols="a b c"
grep -q '^D-NCP ' "$tmp/out" && vols="$vols d"
for v in $vols; do
	"$fsck" -n --checkpoints=all "$tmp/$v.img" >"$tmp/fsck.$v" 2>&1
	frc=$?
	sed "s/^/host $v: /" "$tmp/fsck.$v" | grep -v ': Pass '
	[ $frc -eq 0 ] || fail "fsck.nilfs2 -n --checkpoints=all found problems in the kernel-written $v.img (exit $frc)"
	"$fsck" -n --json "$tmp/$v.img" >"$tmp/json.$v" 2>/dev/null || fail "fsck --json on $v.img"
done
for v in $vols; do
	[ $v = c ] && continue
	V=$(echo $v | tr abd ABD)
	ncp=$(sed -n "s/.*$V-NCP \([0-9]*\) .*/\1/p" "$tmp/out")
	nss=$(sed -n "s/.*$V-NSS \([0-9]*\).*/\1/p" "$tmp/out")
	# lscp ran while b and d were still mounted read-write: the unmount
	# may add one more checkpoint (a was read-only by then)
	if ! grep -q "\"checkpoints\":$ncp,\"snapshots\":$nss," "$tmp/json.$v" &&
		{ [ $v = a ] ||
		  ! grep -q "\"checkpoints\":$((ncp + 1)),\"snapshots\":$nss," "$tmp/json.$v"; }; then
		fail "$v.img: lscp shows $ncp checkpoints, $nss snapshots; fsck: $(cat "$tmp/json.$v")"
	fi
done
grep -q 'roll-forward: at mount the kernel replays' "$tmp/fsck.c" ||
	fail "c.img: no data-sync logs to roll forward reported: $(cat "$tmp/fsck.c")"

# let the kernel recover c.img (roll-forward, a recovery log in a new
# segment, the orphan logs scrapped), then check what it left
cat >"$tmp/guest-script2" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
ls /mnt | wc -l
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
echo "RECOVERED"
GUEST
"$guest" run "$tmp/guest-script2" "$tmp/c.img" >"$tmp/out" 2>&1 || fail "recovery mount of c.img"
grep -qx RECOVERED "$tmp/out" || fail "recovery mount of c.img did not finish"
"$fsck" -n --checkpoints=all "$tmp/c.img" >"$tmp/fsck.c2" 2>&1 ||
	{ cat "$tmp/fsck.c2"; fail "fsck.nilfs2 found problems in c.img after the kernel's recovery"; }
grep -v '^Pass ' "$tmp/fsck.c2" | sed 's/^/host c, recovered: /'
! grep -q 'roll-forward' "$tmp/fsck.c2" || fail "c.img: logs still to roll forward after recovery"
echo "PASS: $0"
exit 0
