# SPDX-License-Identifier: GPL-2.0-or-later
# installed.sh - sourced by t-install.sh (make install) and t-deb.sh (the
# Debian package): the installed layout under the real kernel.
#
# check_installed ROOT TMPDIR boots a guest in which the tree ROOT (an
# installed system: make install DESTDIR=ROOT, dpkg --root=ROOT) takes
# nilfs-tools' place and the host's util-linux mount(8) and umount(8) are
# /bin/mount and /bin/umount, then, with a root shell's PATH:
#  - every program of ROOT is the one PATH finds;
#  - GParted's and libblockdev's command lines: mkfs.nilfs2 -L, nilfs-tune
#    -L, -U and -l on the unmounted volume;
#  - "mount -t nilfs2 DEV DIR" (no helper path) runs our mount.nilfs2, which
#    starts the installed nilfs_cleanerd (its /proc/PID/exe) and records
#    it in utab;
#  - nilfs-resize -v -y DEV SIZE shrinks and nilfs-resize -y DEV grows the
#    mounted volume, lscp lists it through the kernel;
#  - "umount DIR" runs our umount.nilfs2, which stops the cleaner (SIGTERM,
#    before the unmount); fsck.nilfs2 -fn finds the volume clean.
# It returns 0 if all of it holds (the guest's output in TMPDIR/out).

check_installed() {
	_root=$1 _tmp=$2
	_mount=$(command -v mount) && _umount=$(command -v umount) ||
		{ echo "FAIL: no mount(8) and umount(8) on the host"; return 1; }
	case $("$_mount" --version 2>&1) in
	*util-linux*) ;;
	*) echo "FAIL: $_mount is not util-linux' mount(8)"; return 1 ;;
	esac
	# the programs of the tree, as "NAME /PATH"
	(cd "$_root" && find . -type f -perm -u+x \( -path '*/bin/*' -o -path '*/sbin/*' \)) |
		sed 's|^\.||' | awk -F/ '{ print $NF, $0 }' | sort >"$_tmp/programs"
	[ -s "$_tmp/programs" ] || { echo "FAIL: no programs in $_root"; return 1; }
	truncate -s 192M "$_tmp/vol.img" || return 1

	{
		echo "programs='$(cat "$_tmp/programs")'"
		cat <<'GUEST'
# runs inside the guest under busybox sh, with a root shell's PATH
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TZ=UTC
check() {   # check NAME WANT GOT
	if [ "$2" = "$3" ]; then echo "OK $1: $3"; else echo "$1 FAILED: want '$2', got '$3'"; fi
}
field() {   # a field of nilfs-tune -l
	nilfs-tune -l /dev/vda | sed -n "s/^$1:[[:space:]]*//p"
}
is_mounted() {
	awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts
}
# util-linux' mount(8) and umount(8) where Debian has them, not busybox's;
# called by path, as busybox's sh runs its own applet for a bare "mount"
rm -f /bin/mount /bin/umount
cp /ktest/bin/mount /bin/mount && cp /ktest/bin/umount /bin/umount || echo "UTIL-LINUX FAILED"
mkdir -p /run/mount
syslogd -n -O /tmp/messages &
sleep 0.3

# every installed program is the one PATH finds
echo "$programs" | while read -r name path; do
	check "PATH finds $name" "$path" "$(command -v "$name")"
done
cleanerd=$(echo "$programs" | awk '$1 == "nilfs_cleanerd" { print $2 }')

# GParted's and libblockdev's command lines on the unmounted volume
mkfs.nilfs2 -L gparted /dev/vda >/tmp/mkfs.out 2>&1
check "mkfs.nilfs2 -L rc" 0 $?
check "label after mkfs" gparted "$(field 'Filesystem volume name')"
nilfs-tune -L relabeled /dev/vda
check "nilfs-tune -L rc" 0 $?
nilfs-tune -U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 /dev/vda
check "nilfs-tune -U rc" 0 $?
check "label" relabeled "$(field 'Filesystem volume name')"
check "uuid" 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "$(field 'Filesystem UUID')"

# mount(8) runs the helper from where it looks (/sbin, /sbin/fs.d, /sbin/fs)
/bin/mount -t nilfs2 /dev/vda /mnt
check "mount -t nilfs2 rc" 0 $?
is_mounted /mnt || echo "NOT MOUNTED FAILED"
attrs=$(sed -n 's|.* TARGET=/mnt .*ATTRS=\([^ ]*\).*|\1|p' /run/mount/utab 2>/dev/null)
echo "UTAB $attrs"
pid=$(echo "$attrs" | sed -n 's/.*gcpid=\([0-9]*\).*/\1/p')
[ -n "$pid" ] || echo "NO CLEANER IN UTAB (the helper did not run) FAILED"
check "cleaner program" "$cleanerd" "$(readlink "/proc/$pid/exe")"

# GParted's (shrink, then fill the partition) and libblockdev's resize of
# the mounted volume
echo data >/mnt/file && sync
nilfs-resize -v -y /dev/vda 163840K >/tmp/resize.out 2>&1
check "nilfs-resize -v -y shrink rc" 0 $?
check "size after shrink" 167772160 "$(field 'Device size')"
nilfs-resize -y /dev/vda >>/tmp/resize.out 2>&1
check "nilfs-resize -y grow rc" 0 $?
check "size after grow" 201326592 "$(field 'Device size')"
[ "$(lscp /dev/vda | awk 'NR > 1' | wc -l)" -ge 1 ] || echo "LSCP ONLINE FAILED"
check "file after resize" data "$(cat /mnt/file)"

# umount(8) runs our umount.nilfs2: the cleaner stops before the unmount
/bin/umount /mnt
check "umount rc" 0 $?
is_mounted /mnt && echo "STILL MOUNTED FAILED"
[ -n "$pid" ] && [ -d "/proc/$pid" ] && echo "CLEANER SURVIVED UMOUNT FAILED"
i=0
while ! grep -q "nilfs_cleanerd\[$pid\]: .*stopping" /tmp/messages && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q "nilfs_cleanerd\[$pid\]: .*Terminated: stopping" /tmp/messages ||
	echo "CLEANER NOT STOPPED BY UMOUNT.NILFS2 FAILED"
fsck.nilfs2 -fn /dev/vda >/tmp/fsck.out 2>&1
check "fsck.nilfs2 -fn rc" 0 $?
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|crit' | sed 's/^/KMSG /'
echo "ALL DONE"
GUEST
	} >"$_tmp/guest-script"

	NILFS_KTEST_ROOT=$_root NILFS_KTEST_EXTRA="$_mount $_umount" \
		"$here/guest.sh" run "$_tmp/guest-script" "$_tmp/vol.img" >"$_tmp/out" 2>&1
	_rc=$?
	[ -n "${VERBOSE:-}" ] && cat "$_tmp/out"
	if [ $_rc -ne 0 ] || ! grep -qx "ALL DONE" "$_tmp/out" || grep -q 'FAILED' "$_tmp/out" ||
		grep -q '^KMSG ' "$_tmp/out"; then
		echo "FAIL: the installed layout (guest exit $_rc):"
		grep 'FAILED\|^KMSG ' "$_tmp/out" | head -n 20
		echo "--- guest output (last 40 lines) ---"
		tail -n 40 "$_tmp/out"
		return 1
	fi
	echo "ok: installed layout: $(grep -c '^OK ' "$_tmp/out") checks in the guest"
	return 0
}
