#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-tune-resize.sh - nilfs-tune and nilfs-resize under the real kernel, with
# the command lines partition editors run, and their readings of
# nilfs-tune -l reproduced (each run on our output and on nilfs-tools',
# which must read the same):
#   GParted (nilfs2.cc): nilfs-tune -l, read with sscanf("\nDevice size:
#               %lld"), "\nFree blocks count:", "\nBlock size:", the regexps
#               "^Filesystem volume name:[\t ]*(.*)$" ("(none)" is no
#               label) and "^Filesystem UUID:[[:blank:]]*(UUID)";
#               nilfs-tune -L LABEL DEV, nilfs-tune -U UUID DEV; a resize is
#               "mount -v -t nilfs2 DEV TMP; nilfs-resize -v -y DEV [SIZEK];
#               umount -v TMP" (util-linux mount, as GParted runs it)
#   libblockdev (plugins/fs/nilfs.c): nilfs-tune -l read by line prefix
#               "Block size:", "Device size", "Free blocks count" and
#               strtoull after the colon; nilfs-tune -L / -U;
#               nilfs-resize -y DEV BYTES on the mounted volume
#   KDE Partition Manager (kpmcore nilfs2.cpp): nilfs-tune -l read with
#               "Block size:\s+(\d+)", "Device size:\s+(\d+)", "Free blocks
#               count:\s+(\d+)"; a resize is "mount --verbose --types
#               nilfs2 DEV TMP; nilfs-resize --verbose --assume-yes DEV
#               LENGTH; umount TMP"; nilfs-tune -U {UUID} DEV (braces); its
#               label command, nilfs-tune -l LABEL DEV, is refused (nilfs-
#               tools lists DEV and exits 0, the label unchanged)
# nilfs-tune -l prints what nilfs-tools' prints, byte for byte but the
# version line, unmounted, mounted and after each resize (the three time
# lines normalised while mounted: the kernel may write in between).
# The kernel, blkid (util-linux, from the host) and FS_IOC_GETFSLABEL must
# see label and UUID changes; a mounted volume's label goes through the
# kernel or is refused without -f.  A volume with a tree, three snapshots
# and a few hundred checkpoints is grown online, has segments in use past
# the new end after a cleaner run, is shrunk online (segments moved), then
# offline on the unmounted device (segments moved by our writer), then
# grown offline back to the whole device.  After each step the kernel
# mounts it, nilfs-tools' lscp lists the same checkpoints as before the
# step, lssu shows the new segment count, every snapshot and the latest
# tree equal their manifests, and our fsck.nilfs2 finds it clean.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}

"$guest" require || exit
for p in mkfs.nilfs2 nilfs-tune nilfs-resize fsck.nilfs2 nilfs_cleanerd nilfs-clean \
	tests/kernel/cpgen; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
blkid=$(command -v blkid || ls /sbin/blkid /usr/sbin/blkid 2>/dev/null | head -1)
[ -n "$blkid" ] || { echo "SKIP: no blkid on the host"; exit 77; }
# util-linux mount and umount, as GParted and KDE run them
mount=$(ls /bin/mount /usr/bin/mount 2>/dev/null | head -1)
umount=$(ls /bin/umount /usr/bin/umount 2>/dev/null | head -1)
[ -n "$mount" ] && [ -n "$umount" ] || { echo "SKIP: no util-linux mount on the host"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-tune-resize.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 80 lines) ---"
	tail -n 80 "$tmp/out"
	exit 1
}

# 1 MiB segments; the volume is made for 128 MiB on a 256 MiB disk, so
# that GParted's grow has room
img=$tmp/img
truncate -s 128M "$img" || exit 1
"$top/mkfs.nilfs2" -q -f -b 4096 -B 256 -L made-here -U 01234567-89ab-cdef-0123-456789abcdef \
	"$img" || fail "mkfs"
truncate -s 256M "$img" || exit 1

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC PATH=/ktest/bin:$PATH
D=/dev/vda
bad() { echo "CHECK FAILED: $*"; }
sysfs() { cat /sys/fs/nilfs2/vda/$1 2>/dev/null; }
# util-linux mount and umount, as the partition editors run them; busybox's
# stay first in PATH
mkdir -p /tmp/ul && mv /ktest/bin/mount /ktest/bin/umount /tmp/ul/
field() { nilfs-tune -l $D 2>/dev/null | sed -n "s/^$1:[[:space:]]*//p"; }
THEIRS=/usr/sbin/nilfs-tune
[ -x $THEIRS ] || THEIRS=/sbin/nilfs-tune
# The partition editors' readings of "nilfs-tune -l" (stdout in $1), one
# line each: GParted's (size, free blocks, block size, label, UUID),
# libblockdev's (block size, size, free blocks), KDE's (used bytes).
gparted_read() {
	awk '
	function num(name,   v) {
		v = out; if (!sub("^.*\n" name ":", "", v)) return -1
		sub(/^[ \t\n]*/, "", v); if (!match(v, /^[+-]?[0-9]+/)) return -1
		return substr(v, 1, RLENGTH)
	}
	{ out = out "\n" $0 }
	/^Filesystem volume name:/ && !lbl { l = $0; sub(/^Filesystem volume name:[\t ]*/, "", l); lbl = 1 }
	/^Filesystem UUID:/ && !uu { u = $0; sub(/^Filesystem UUID:[\t ]*/, "", u)
		if (u ~ /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/ &&
		    u !~ /^00000000-0000-0000-0000-000000000000/) u = substr(u, 1, 36); else u = ""; uu = 1 }
	END { if (l == "(none)") l = ""
		printf "gparted size=%s free=%s bs=%s label=%s uuid=%s\n", num("Device size"),
			num("Free blocks count"), num("Block size"), l, u }' "$1"
}
libblockdev_read() {
	awk '
	function val(line,   v) { v = line; sub(/^[^:]*:[ \t]*/, "", v); match(v, /^[0-9]+/); return substr(v, 1, RLENGTH) }
	index($0, "Block size:") == 1 && bs == "" { bs = val($0) }
	index($0, "Device size") == 1 && sz == "" { sz = val($0) }
	index($0, "Free blocks count") == 1 && fb == "" { fb = val($0) }
	END { if (bs == "" || sz == "" || fb == "") print "libblockdev: Failed to parse"
		else printf "libblockdev bs=%s size=%s free=%s\n", bs, sz, fb }' "$1"
}
kde_read() {
	awk '
	function cap(re,   v) { if (!match(all, re)) return ""; v = substr(all, RSTART, RLENGTH); sub(/^[^0-9]*/, "", v); return v }
	{ all = all $0 "\n" }
	END { bs = cap("Block size:[ \t\n]+[0-9]+"); sz = cap("Device size:[ \t\n]+[0-9]+")
		fb = cap("Free blocks count:[ \t\n]+[0-9]+")
		if (bs == "" || sz == "" || fb == "") print "kde: -1"; else printf "kde used=%.0f\n", sz - bs * fb }' "$1"
}
# ours and nilfs-tools' -l, each read by the three, equal; ours byte for
# byte (but the version line, and with $1 = mounted the time lines)
read_all() {
	nilfs-tune -l $D >/tmp/l.ours 2>/dev/null || bad "$1: nilfs-tune -l exits non-zero"
	$THEIRS -l $D >/tmp/l.theirs 2>/dev/null || bad "$1: nilfs-tools' nilfs-tune -l exits non-zero"
	for f in ours theirs; do
		{ gparted_read /tmp/l.$f; libblockdev_read /tmp/l.$f; kde_read /tmp/l.$f; } >/tmp/r.$f
	done
	cmp -s /tmp/r.ours /tmp/r.theirs || { bad "$1: the editors read ours and nilfs-tools' differently"; diff /tmp/r.ours /tmp/r.theirs; }
	sed 's/^/READ /' /tmp/r.ours
	norm='1d'
	[ "${2:-}" = mounted ] && norm='1d;s/^\(Filesystem created\|Last mount time\|Last write time\):.*/\1: T/'
	sed "$norm" /tmp/l.ours >/tmp/l.o; sed "$norm" /tmp/l.theirs >/tmp/l.t
	cmp -s /tmp/l.o /tmp/l.t || { bad "$1: -l differs from nilfs-tools'"; diff /tmp/l.o /tmp/l.t; }
}
gp() { gparted_read /tmp/l.ours | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
nsegs() { lssu -a $D | awk 'NR > 1' | wc -l; }
# segments in use, and the highest of them
inuse() { lssu $D | awk 'NR > 1' | wc -l; }
highest() { lssu $D | awk 'NR > 1 { s = $1 } END { print s }'; }
checkpoints() { lscp $D | awk 'NR > 1 { print $1, $4 }'; }
fsck_clean() { # unmounted
	fsck.nilfs2 -n $D >/tmp/fsck 2>&1 || { bad "fsck after $1"; sed 's/^/FSCK /' /tmp/fsck; }
}
# snapshots and the latest tree against the manifests taken when written
verify() {
	mkdir -p /snap
	for s in $SNAPS; do
		mount -t nilfs2 -o ro,cp=$s $D /snap || { bad "$1: snapshot $s does not mount"; continue; }
		manifest /snap/tree >/tmp/m
		cmp -s /tmp/m /tmp/snap.$s || bad "$1: snapshot $s differs"
		umount /snap
	done
	manifest /mnt/tree >/tmp/m
	cmp -s /tmp/m /tmp/latest || bad "$1: the latest tree differs"
}

# $1 MiB written, deleted and cleaned away (our cleaner, protection 0)
garbage() {
	dd if=/dev/urandom of=/mnt/scratch bs=1M count=$1 2>/dev/null
	sync
	rm /mnt/scratch
	sync
	printf 'protection_period 0\nmin_clean_segments 0\nclean_check_interval 0.5\n' >/tmp/c.conf
	printf 'cleaning_interval 0.1\nnsegments_per_clean 16\nselection_policy greedy\n' >>/tmp/c.conf
	printf 'min_reclaimable_blocks 1\n' >>/tmp/c.conf
	nilfs_cleanerd -p 0 -c /tmp/c.conf $D 2>/dev/null || bad "cleanerd start"
	nilfs-clean -v --wait -p 0 $D >/dev/null 2>&1 || bad "nilfs-clean --wait"
	nilfs-clean -q $D
	sleep 1
	echo "AFTER CLEANING $(inuse) in use, highest $(highest)"
}

echo "== tune, unmounted"
read_all "made by our mkfs"
[ "$(gp bs)" = 4096 ] || bad "GParted's block size: $(gp bs)"
[ "$(gp size)" = 134217728 ] || bad "GParted's device size: $(gp size)"
[ "$(gp label)" = made-here ] || bad "GParted's label: $(gp label)"
[ "$(gp uuid)" = 01234567-89ab-cdef-0123-456789abcdef ] || bad "GParted's UUID: $(gp uuid)"
fb=$(gp free)
[ -n "$fb" ] && [ "$fb" -gt 0 ] || bad "GParted's free blocks: '$fb'"
# GParted's and libblockdev's label and UUID commands
nilfs-tune -L 'gparted-label' $D >/dev/null || bad "nilfs-tune -L"
nilfs-tune -U 89abcdef-0123-4567-89ab-cdef01234567 $D >/dev/null || bad "nilfs-tune -U"
[ "$(blkid -p -o value -s LABEL $D)" = gparted-label ] || bad "blkid LABEL: $(blkid -p -o value -s LABEL $D)"
[ "$(blkid -p -o value -s UUID $D)" = 89abcdef-0123-4567-89ab-cdef01234567 ] || bad "blkid UUID"
# KDE's: a UUID in braces works; its label command fails as with nilfs-tools
nilfs-tune -U '{0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9}' $D >/dev/null || bad "KDE's nilfs-tune -U {UUID}"
[ "$(blkid -p -o value -s UUID $D)" = 0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9 ] || bad "blkid UUID after KDE's -U"
# (nilfs-tools takes its last argument as the device and lists it, exit 0,
# the label unchanged: KDE reports a label it did not set; ours refuses)
nilfs-tune -l kde-label $D >/dev/null 2>&1 && bad "KDE's nilfs-tune -l LABEL DEV succeeded"
$THEIRS -l kde-label $D >/dev/null 2>&1 && echo "NOTE: nilfs-tools' nilfs-tune -l LABEL DEV exits 0"
[ "$(blkid -p -o value -s LABEL $D)" = gparted-label ] || bad "KDE's label command changed the label"
nilfs-tune -U 89abcdef-0123-4567-89ab-cdef01234567 $D >/dev/null || bad "nilfs-tune -U"
read_all "after the label and UUID changes"
# (the volume ends before the disk: no secondary until the grow, fsck would say so)
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
[ "$(sysfs volume_name)" = gparted-label ] || bad "sysfs volume_name: $(sysfs volume_name)"
[ "$(sysfs uuid)" = 89abcdef-0123-4567-89ab-cdef01234567 ] || bad "sysfs uuid: $(sysfs uuid)"
if lbl=$(cpgen fslabel /mnt 2>/dev/null); then
	[ "$lbl" = gparted-label ] || bad "FS_IOC_GETFSLABEL: $lbl"
	have_fslabel=1
else
	echo "NOTE: this kernel has no FS_IOC_GETFSLABEL for nilfs2"
	have_fslabel=0
fi

echo "== tune, mounted"
if nilfs-tune -L online $D >/tmp/o 2>&1; then
	[ $have_fslabel = 1 ] || bad "-L on a mounted volume claimed success without the ioctl"
	[ "$(cpgen fslabel /mnt)" = online ] || bad "label set online not seen by the kernel"
else
	grep -q "FS_IOC_SETFSLABEL" /tmp/o || { bad "mounted -L refused without the reason"; cat /tmp/o; }
	nilfs-tune -f -L online $D >/tmp/o 2>&1 || { bad "nilfs-tune -f -L mounted"; cat /tmp/o; }
	grep -q "warning: .* is mounted" /tmp/o || bad "-f on a mounted volume without the warning"
fi
nilfs-tune -U random $D >/tmp/o 2>&1 && bad "-U on a mounted volume without -f succeeded"
grep -q "SEVERE damage" /tmp/o || { bad "mounted -U refusal"; cat /tmp/o; }
umount /mnt
[ "$(field 'Filesystem volume name')" = online ] || bad "label after the mounted change: $(field 'Filesystem volume name')"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
[ "$(sysfs volume_name)" = online ] || bad "sysfs volume_name after remount: $(sysfs volume_name)"

read_all "mounted" mounted

echo "== GParted's grow: mount -v -t nilfs2; nilfs-resize -v -y DEV SIZEK; umount -v"
umount /mnt
mkdir -p /tmp/gparted
/tmp/ul/mount -v -t nilfs2 $D /tmp/gparted || bad "GParted's mount"
nilfs-resize -v -y $D 262144K >/tmp/o 2>&1 || bad "GParted's nilfs-resize"
sed 's/^/RESIZE1 /' /tmp/o
grep -q "^Extend the filesystem size from 134217728 bytes to 268435456 bytes.$" /tmp/o || bad "grow message"
[ "$(sysfs device_size)" = 268435456 ] || bad "device_size after the grow: $(sysfs device_size)"
/tmp/ul/umount -v /tmp/gparted || bad "GParted's umount"
read_all "after GParted's grow"
[ "$(gp size)" = 268435456 ] || bad "GParted's device size after its grow: $(gp size)"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
[ "$(nsegs)" = 255 ] || bad "lssu after the grow: $(nsegs) segments"

echo "== a tree, snapshots, checkpoints"
# garbage first, freed by the cleaner: what follows lands past it, and
# the low segments are free to take what the shrinks move
garbage 100
mkdir -p /mnt/tree/a /mnt/tree/b
i=0
while [ $i -lt 60 ]; do
	head -c $((i * 1777 % 30000 + 1)) /dev/urandom >/mnt/tree/a/f$i
	i=$((i + 1))
done
dd if=/dev/urandom of=/mnt/tree/big bs=1M count=12 2>/dev/null
sync
s=$(mkcp -s -p $D); SNAPS="$s"; manifest /mnt/tree >/tmp/snap.$s
dd if=/dev/urandom of=/mnt/tree/late bs=1M count=40 2>/dev/null
dd if=/dev/urandom of=/mnt/tree/big bs=1M count=2 seek=3 conv=notrunc 2>/dev/null
sync
s=$(mkcp -s -p $D); SNAPS="$SNAPS $s"; manifest /mnt/tree >/tmp/snap.$s
cpgen sync /mnt/tree/b 300 >/dev/null || bad "cpgen"
dd if=/dev/urandom of=/mnt/tree/late bs=1M count=4 seek=10 conv=notrunc 2>/dev/null
sync
s=$(mkcp -s -p $D); SNAPS="$SNAPS $s"; manifest /mnt/tree >/tmp/snap.$s
echo tail >/mnt/tree/b/tail; sync
manifest /mnt/tree >/tmp/latest
echo "SNAPS $SNAPS"
echo "CHECKPOINTS $(lscp $D | awk 'NR > 1' | wc -l)"
lssu $D | awk 'NR > 1 { print $1 }' | tr '\n' ' ' | sed 's/^/DIRTY /'; echo

# a size (in segments) the free space surely allows, past which
# segments are in use
target() {
	n=$(( $(inuse) + 16 ))
	[ "$(highest)" -ge $n ] || bad "no segment in use past $n (highest $(highest))"
	echo $n
}
echo "== libblockdev's shrink: nilfs-resize -y DEV BYTES, mounted"
checkpoints >/tmp/cp.before
high=$(highest)
n=$(target)
bytes=$((n * 1048576 + 4096))
echo "SHRINK1 to $n segments ($bytes bytes); highest in use $high, $(inuse) in use"
nilfs-resize -y $D $bytes >/tmp/o 2>&1 || bad "online shrink failed"
sed 's/^/RESIZE2 /' /tmp/o
grep -q "^Warning: the filesystem now ends $((268435456 - bytes)) bytes before the end of $D" /tmp/o ||
	bad "no warning that the volume ends before the device"
read_all "mounted, after libblockdev's shrink" mounted
[ "$(gp size)" = $bytes ] || bad "GParted's device size after the shrink: $(gp size)"
[ $high -ge $n ] && { grep -q "^Moving [0-9]* in-use segment" /tmp/o || bad "online shrink moved nothing"; }
[ "$(sysfs device_size)" = $bytes ] || bad "device_size after the online shrink: $(sysfs device_size)"
[ "$(nsegs)" = $n ] || bad "lssu after the online shrink: $(nsegs) segments"
checkpoints | grep -Fxvf - /tmp/cp.before | sed 's/^/LOST /'
checkpoints | grep -Fxvf - /tmp/cp.before | grep -q . && bad "checkpoints lost by the online shrink"
verify "online shrink"
umount /mnt
fsck_clean "online shrink"
[ "$(field 'Device size')" = $bytes ] || bad "Device size after the online shrink: $(field 'Device size')"

echo "== offline shrink (KDE's options): nilfs-resize --verbose --assume-yes DEV SIZE"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
nilfs-resize -y $D >/dev/null 2>&1 || bad "online grow back"
# garbage among the moved segments, freed; new data past it, snapshots
# and a few hundred checkpoints again (the cleaner took the old ones)
dd if=/dev/urandom of=/mnt/scratch0 bs=1M count=40 2>/dev/null
dd if=/dev/urandom of=/mnt/tree/late2 bs=1M count=20 2>/dev/null
sync
rm /mnt/scratch0
garbage 1
s=$(mkcp -s -p $D); SNAPS="$SNAPS $s"; manifest /mnt/tree >/tmp/snap.$s
cpgen sync /mnt/tree/b 200 >/dev/null || bad "cpgen"
manifest /mnt/tree >/tmp/latest
echo "SNAPS $SNAPS"
echo "CHECKPOINTS $(lscp $D | awk 'NR > 1' | wc -l)"
checkpoints >/tmp/cp.before
high=$(highest)
n=$(target)
bytes=$((n * 1048576 + 4096))
echo "SHRINK2 to $n segments ($bytes bytes); highest in use $high, $(inuse) in use"
umount /mnt
fsck_clean "the online writes and cleaning"
nilfs-resize --verbose --assume-yes $D $bytes >/tmp/o 2>&1 || bad "offline shrink failed"
sed 's/^/RESIZE3 /' /tmp/o
[ $high -ge $n ] && { grep -q "^Moving [0-9]* in-use segment" /tmp/o || bad "offline shrink moved nothing"; }
fsck_clean "offline shrink"
[ "$(field 'Device size')" = $bytes ] || bad "Device size after the offline shrink: $(field 'Device size')"
[ "$(field 'Number of segments')" = $n ] || bad "segments after the offline shrink: $(field 'Number of segments')"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED after offline shrink"; exit 1; }
[ "$(sysfs device_size)" = $bytes ] || bad "kernel's device_size after the offline shrink"
[ "$(nsegs)" = $n ] || bad "lssu after the offline shrink: $(nsegs) segments"
checkpoints | grep -Fxvf - /tmp/cp.before | grep -q . && bad "checkpoints lost by the offline shrink"
verify "offline shrink"
echo new >/mnt/tree/after-offline; sync
manifest /mnt/tree >/tmp/latest
umount /mnt

echo "== offline grow to the whole device"
nilfs-resize -y $D >/tmp/o 2>&1 || bad "offline grow failed"
sed 's/^/RESIZE4 /' /tmp/o
fsck_clean "offline grow"
read_all "after the offline grow"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED after offline grow"; exit 1; }
[ "$(sysfs device_size)" = 268435456 ] || bad "kernel's device_size after the offline grow"
[ "$(nsegs)" = 255 ] || bad "lssu after the offline grow: $(nsegs) segments"
verify "offline grow"
dd if=/dev/urandom of=/mnt/fill bs=1M count=150 2>/dev/null; sync
[ "$(highest)" -ge $n ] || bad "the grown segments are not used"
rm /mnt/fill; sync
umount /mnt
fsck_clean "use after the offline grow"

echo "== KDE's resize: mount --verbose --types nilfs2; nilfs-resize --verbose --assume-yes DEV LENGTH; umount"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
garbage 1   # the filler's segments cleaned
checkpoints >/tmp/cp.before
manifest /mnt/tree >/tmp/latest
n=$(( $(inuse) + 20 ))
length=$((n * 1048576 + 4096))
umount /mnt
mkdir -p /tmp/kde
/tmp/ul/mount --verbose --types nilfs2 $D /tmp/kde || bad "KDE's mount"
nilfs-resize --verbose --assume-yes $D $length >/tmp/o 2>&1 || bad "KDE's nilfs-resize"
sed 's/^/RESIZE5 /' /tmp/o
[ "$(sysfs device_size)" = $length ] || bad "device_size after KDE's shrink: $(sysfs device_size)"
/tmp/ul/umount /tmp/kde || bad "KDE's umount"
fsck_clean "KDE's shrink"
read_all "after KDE's shrink"
[ "$(gp size)" = $length ] || bad "GParted's device size after KDE's shrink: $(gp size)"
mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED after KDE's shrink"; exit 1; }
[ "$(nsegs)" = $n ] || bad "lssu after KDE's shrink: $(nsegs) segments"
checkpoints | grep -Fxvf - /tmp/cp.before | grep -q . && bad "checkpoints lost by KDE's shrink"
verify "KDE's shrink"
umount /mnt
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid' | sed 's/^/KMSG /'
echo "GUEST DONE"
GUEST
} >"$tmp/guest-script"

NILFS_KTEST_EXTRA="$top/nilfs-tune $top/nilfs-resize $top/fsck.nilfs2 $top/nilfs_cleanerd \
$top/nilfs-clean $top/tests/kernel/cpgen $blkid $mount $umount" NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900} \
	"$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: guest"; exit 77; }
grep -qx "GUEST DONE" "$tmp/out" || fail "the guest did not finish (rc $rc)"
grep -q "CHECK FAILED\|^KMSG\|FAILED" "$tmp/out" && fail "$(grep "CHECK FAILED\|^KMSG\|FAILED" "$tmp/out" | head -n 5)"
echo "PASS: $0"
