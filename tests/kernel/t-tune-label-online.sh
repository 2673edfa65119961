#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-tune-label-online.sh - nilfs-tune -L on a mounted volume, through the
# kernel's FS_IOC_SETFSLABEL, which nilfs2 has from Linux 6.12.
#
# On a kernel that has it (by its version: 6.12 or later, so that a kernel
# which lost it fails here) each label is set while mounted and then read
# back by the kernel (FS_IOC_GETFSLABEL and sysfs volume_name), by blkid on
# the device, and after the unmount by our nilfs-tune -l (the offline
# reader) and nilfs-tools' one; the longest label (80 bytes) and the empty
# one included; a label over 80 bytes is refused before the kernel is
# asked; the volume stays clean for our fsck, and a remount keeps the
# label.  On an older kernel the mounted -L is refused with the reason
# (no FS_IOC_SETFSLABEL) and changes nothing on the disk, and -f writes the
# superblocks with a warning (t-tune-resize.sh has the rest of that path).
# The kernel's log must not complain about nilfs2 either way.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}

"$guest" require || exit
for p in mkfs.nilfs2 nilfs-tune fsck.nilfs2 tests/kernel/cpgen; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
blkid=$(command -v blkid || ls /sbin/blkid /usr/sbin/blkid 2>/dev/null | head -1)
[ -n "$blkid" ] || { echo "SKIP: no blkid on the host"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-tune-label-online.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 60 lines) ---"
	tail -n 60 "$tmp/out"
	exit 1
}

img=$tmp/img
truncate -s 128M "$img" || exit 1
"$top/mkfs.nilfs2" -q -f -B 256 -L made-offline "$img" || fail "mkfs"

cat >"$tmp/guest-script" <<'GUEST'
# runs inside the guest under busybox sh
export PATH=/ktest/bin:$PATH
D=/dev/vda
bad() { echo "CHECK FAILED: $*"; }
THEIRS=/usr/sbin/nilfs-tune
[ -x $THEIRS ] || THEIRS=/sbin/nilfs-tune
field() { $1 -l $D 2>/dev/null | sed -n 's/^Filesystem volume name:[[:space:]]*//p'; }
sysfs_label() { cat /sys/fs/nilfs2/vda/volume_name 2>/dev/null; }

kver=$(uname -r)
major=${kver%%.*} rest=${kver#*.}
minor=${rest%%[!0-9]*}
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 12 ]; }; then
	online=yes
else
	online=no
fi
echo "KERNEL $kver: FS_IOC_SETFSLABEL expected: $online"

mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
if got=$(cpgen fslabel /mnt 2>&1); then
	[ $online = yes ] || echo "NOTE: FS_IOC_GETFSLABEL answers on $kver"
	[ "$got" = made-offline ] || bad "FS_IOC_GETFSLABEL of mkfs's label: '$got'"
else
	[ $online = no ] || bad "FS_IOC_GETFSLABEL fails on $kver: $got"
fi

if [ $online = yes ]; then
	long=$(printf '%080d' 0 | tr 0 L)
	# one with spaces and UTF-8, the longest, the empty one, a last one
	for label in 'set while mounted' 'é ü 標籤' "$long" '' online-final; do
		nilfs-tune -L "$label" $D >/tmp/o 2>&1 || { bad "nilfs-tune -L '$label' on the mounted volume"; cat /tmp/o; continue; }
		grep -q 'set through the kernel' /tmp/o || { bad "-L '$label' mounted: no word of the kernel"; cat /tmp/o; }
		[ "$(cpgen fslabel /mnt)" = "$label" ] || bad "FS_IOC_GETFSLABEL after -L '$label': '$(cpgen fslabel /mnt)'"
		# (sysfs formats the name with its newline into 80 bytes: an
		# 80-byte label shows its first 79 there, on 6.12 as on 7.2)
		s=$(sysfs_label)
		[ "$s" = "$label" ] || { [ ${#label} = 80 ] && [ "$s" = "${label%?}" ]; } ||
			bad "sysfs volume_name after -L '$label': '$s'"
		# both superblocks are on the disk already (blkid reads the device)
		[ "$(blkid -p -o value -s LABEL $D)" = "$label" ] ||
			bad "blkid after -L '$label' while mounted: '$(blkid -p -o value -s LABEL $D)'"
	done
	nilfs-tune -L "${long}X" $D >/tmp/o 2>&1 && bad "an 81-byte label was taken"
	grep -q 'too long' /tmp/o || { bad "81-byte label refused without the reason"; cat /tmp/o; }
	[ "$(cpgen fslabel /mnt)" = online-final ] || bad "the refused label changed it: '$(cpgen fslabel /mnt)'"
	echo data >/mnt/f && sync
	umount /mnt || bad "umount"
	[ "$(field nilfs-tune)" = online-final ] || bad "our nilfs-tune -l after the unmount: '$(field nilfs-tune)'"
	[ "$(field $THEIRS)" = online-final ] || bad "nilfs-tools' nilfs-tune -l after the unmount: '$(field $THEIRS)'"
	fsck.nilfs2 -fn $D >/tmp/o 2>&1 || { bad "fsck after the online label changes"; cat /tmp/o; }
	mount -t nilfs2 $D /mnt || { echo "REMOUNT FAILED"; exit 1; }
	[ "$(sysfs_label)" = online-final ] || bad "sysfs volume_name after the remount: '$(sysfs_label)'"
	[ "$(cat /mnt/f)" = data ] || bad "the file written after the label changes"
	umount /mnt
else
	nilfs-tune -L refused $D >/tmp/o 2>&1 && bad "-L on a mounted volume succeeded on $kver"
	grep -q 'FS_IOC_SETFSLABEL' /tmp/o || { bad "mounted -L refused without the reason"; cat /tmp/o; }
	umount /mnt || bad "umount"
	[ "$(field nilfs-tune)" = made-offline ] || bad "the refused -L changed the label: '$(field nilfs-tune)'"
	mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
	nilfs-tune -f -L forced $D >/tmp/o 2>&1 || { bad "nilfs-tune -f -L mounted"; cat /tmp/o; }
	grep -q "warning: .* is mounted" /tmp/o || { bad "-f on a mounted volume without the warning"; cat /tmp/o; }
	umount /mnt || bad "umount"
	[ "$(field nilfs-tune)" = forced ] || bad "-f -L: '$(field nilfs-tune)'"
	[ "$(field $THEIRS)" = forced ] || bad "-f -L, nilfs-tools' reading: '$(field $THEIRS)'"
fi
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|crit|unable' | sed 's/^/KMSG /'
echo "GUEST DONE"
GUEST

NILFS_KTEST_EXTRA="$top/nilfs-tune $top/fsck.nilfs2 $top/tests/kernel/cpgen $blkid" \
	"$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: guest"; exit 77; }
cat "$tmp/out"
grep -qx "GUEST DONE" "$tmp/out" || fail "the guest did not finish (rc $rc)"
grep -q "CHECK FAILED\|^KMSG\|FAILED" "$tmp/out" && fail "$(grep "CHECK FAILED\|^KMSG\|FAILED" "$tmp/out" | head -n 5)"
# and on the host, from the image: our offline reader
label=$("$top/nilfs-tune" -l "$img" | sed -n 's/^Filesystem volume name:[[:space:]]*//p')
case $(sed -n 's/^KERNEL .*expected: //p' "$tmp/out") in
yes) [ "$label" = online-final ] || fail "the host reads label '$label'" ;;
*) [ "$label" = forced ] || fail "the host reads label '$label'" ;;
esac
echo "PASS: $0"
