#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# guest.sh - run a shell script inside a throw-away qemu guest that runs
# a real Linux kernel with the nilfs2 module loaded.
#
# Usage:
#   guest.sh check-deps          exit 0 if everything needed is present,
#                                77 (automake "skip") otherwise
#   guest.sh require             as check-deps, but 99 (hard error) when CI=true
#   guest.sh build               build (or refresh) the cached initramfs
#   guest.sh run SCRIPT [IMG...] boot the guest with IMG... attached as
#                                /dev/vda, /dev/vdb, ... and run SCRIPT
#                                with /bin/sh (busybox) inside it
#   guest.sh oops LOG            print the first line of a kernel crash
#                                report (slub_debug's included) in a
#                                console or kernel log; exit 1 if none
#
# The guest script's stdout and stderr (merged) are written to our stdout
# and its exit status becomes our exit status.  If the guest does not
# report a status (crash, hang, timeout) we exit with 125.
#
# Environment:
#   NILFS_KTEST_CACHE    cache directory (default: tests/kernel/.cache)
#   NILFS_KTEST_KERNEL   kernel image (default: newest /boot/vmlinuz-*)
#   NILFS_KTEST_MODDIR   module tree (default: /lib/modules/<version>)
#   NILFS_KTEST_TIMEOUT  seconds before a guest is killed (default: 300)
#   NILFS_KTEST_MEM      guest memory in MiB (default: 512)
#   NILFS_KTEST_VERBOSE  if set to 1, copy the whole console log to stderr
#   NILFS_KTEST_CONSOLE  a file to which the whole console log (the kernel's
#                        boot messages, an oops in full) is appended, under
#                        a line naming the kernel and script, when a guest
#                        fails: its script exits non-zero, or it does not
#                        report (crash, hang, timeout) and did not reset
#                        itself on purpose (sysrq b); make check sets it to
#                        the test's log with .console for .log
#   NILFS_KTEST_APPEND   more words for the guest kernel's command line
#                        (slub_debug=FZPU, kfence.sample_interval=1, ...)
#   NILFS_KTEST_VIRTIO_BLK  the virtio-blk-pci device options instead of
#                        ioeventfd=off,event_idx=off (see below)
#   NILFS_KTEST_SKIP     if set (and not 0), "require" skips (77), even
#                        under CI=true: configure --disable-kernel-tests
#                        and make distcheck set it
#   NILFS_KTEST_EXTRA    space-separated host programs (e.g. our build's
#                        nilfs_cleanerd) to run in the guest: each lands in
#                        /ktest/bin/NAME, the shared libraries ldd lists
#                        for it in their usual place
#   NILFS_KTEST_ROOT     an installed tree (make install DESTDIR=DIR, dpkg
#                        --root=DIR) that takes nilfs-tools' place in the
#                        guest: the guest's nilfs-tools programs are removed,
#                        DIR's files laid over the guest's root, with the
#                        shared libraries its programs need, before SCRIPT
#   NILFS_KTEST_DMESG    a file to which the guest's kernel log is
#                        appended after each run, under a line naming the
#                        script (check-kernels.sh looks there for nilfs2's
#                        warnings on every kernel)
#   NILFS_KTEST_MODULES  more modules to load, after nilfs2's, as paths
#                        below kernel/ (bench/fsck.sh has the kernel write
#                        an ext4 volume: lib/crc16 fs/mbcache ... fs/ext4/ext4)
#   NILFS_KTEST_ORACLE   a second nilfs-tools, as fetch-kernels.sh oracle
#                        makes it (its programs with their own loader and
#                        libraries): lands in /ktest/oracle, its programs
#                        run as /ktest/oracle/bin/NAME

set -u

KTEST_DIR=$(cd "$(dirname "$0")" && pwd)
CACHE=${NILFS_KTEST_CACHE:-$KTEST_DIR/.cache}
TIMEOUT=${NILFS_KTEST_TIMEOUT:-300}
MEM=${NILFS_KTEST_MEM:-512}
QEMU=qemu-system-x86_64
# Under TCG, with other guests or load on the host, a virtio-blk completion
# was now and then never seen by the guest: the device had finished every
# request (inuse 0, used_idx = signalled_used) while the guest's tasks
# waited for request tags for ever (blk_mq_get_tag), which looked like a
# wedged cleaner (bench/clean.sh) or a slow test.  Queue notifications
# handled in the vCPU thread and an interrupt for every completion (no
# ioeventfd, no event index) made 14 such runs in a row finish, where 2 of
# 5 had hung.
VIRTIO_BLK_OPTS=${NILFS_KTEST_VIRTIO_BLK-ioeventfd=off,event_idx=off}

# Modules loaded in the guest, in this order (paths below kernel/).
MODULES="drivers/virtio/virtio_ring
drivers/virtio/virtio
drivers/virtio/virtio_pci_legacy_dev
drivers/virtio/virtio_pci_modern_dev
drivers/virtio/virtio_pci
drivers/block/virtio_blk
fs/nilfs2/nilfs2${NILFS_KTEST_MODULES:+
$NILFS_KTEST_MODULES}"

# nilfs-tools programs copied into the guest as an oracle.
NILFS_TOOLS="mkfs.nilfs2 lscp lssu mkcp chcp rmcp nilfs-tune dumpseg"

die() {
	echo "guest.sh: $*" >&2
	exit 1
}

find_kernel() {
	if [ -n "${NILFS_KTEST_KERNEL:-}" ]; then
		KERNEL=$NILFS_KTEST_KERNEL
	else
		# newest by version sort; empty if none
		KERNEL=$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null |
			sort -V | tail -n 1)
	fi
	KVER=${KERNEL##*/vmlinuz-}
	MODDIR=${NILFS_KTEST_MODDIR:-/lib/modules/$KVER}
	# a kernel image inside its module tree (Debian's 7.x packages:
	# /usr/lib/modules/KVER/vmlinuz.unsigned) is named by the tree
	case $KVER in */*) KVER=${MODDIR##*/} ;; esac
}

# Print the path of a module file (any compression), or nothing.
module_file() {
	for ext in ko ko.xz ko.zst ko.gz; do
		if [ -f "$MODDIR/kernel/$1.$ext" ]; then
			echo "$MODDIR/kernel/$1.$ext"
			return 0
		fi
	done
	return 1
}

# Whether a module is built into the kernel (newer Debian kernels have the
# virtio core built in).
module_builtin() {
	grep -qx "kernel/$1.ko" "$MODDIR/modules.builtin" 2>/dev/null
}

tool_path() {
	PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$1" 2>/dev/null
}

find_busybox() {
	for b in /bin/busybox /usr/bin/busybox; do
		# must be static: the initramfs has no libc for it
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
			BUSYBOX=$b
			return 0
		fi
	done
	BUSYBOX=
	return 1
}

check_deps() {
	missing=
	find_kernel
	for c in "$QEMU" cpio gzip tar timeout truncate ldd; do
		command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
	done
	[ -n "$KERNEL" ] && [ -r "$KERNEL" ] ||
		missing="$missing kernel-image(/boot/vmlinuz-*,linux-image-amd64)"
	if [ -n "$KERNEL" ] && [ -r "$KERNEL" ]; then
		for m in $MODULES; do
			module_file "$m" >/dev/null || module_builtin "$m" ||
				missing="$missing module:$m(in $MODDIR)"
		done
	fi
	find_busybox || missing="$missing busybox-static"
	for t in mkfs.nilfs2 lscp lssu mkcp; do
		tool_path "$t" >/dev/null || missing="$missing nilfs-tools:$t"
	done
	if [ -n "$missing" ]; then
		echo "guest.sh: missing:$missing" >&2
		echo "guest.sh: on Debian: apt-get install qemu-system-x86" \
			"linux-image-amd64 busybox-static nilfs-tools cpio" >&2
		return 77
	fi
	return 0
}

# Copy a file and its shared libraries into the tree rooted at $1,
# keeping the absolute paths.
copy_with_libs() {
	root=$1 file=$2
	mkdir -p "$root$(dirname "$file")"
	cp -L "$file" "$root$file"
	copy_libs "$root" "$file"
}

# Copy the shared libraries of program $2 (on the host) into the tree
# rooted at $1, at their host paths, unless the tree has them.
copy_libs() {
	root=$1 file=$2
	# ldd lines: "libx.so => /path (0x..)" or "/lib64/ld-linux... (0x..)"
	ldd "$file" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

write_init() {
	cat >"$1" <<'EOF'
#!/bin/sh
# PID 1 of the test guest (generated by tests/kernel/guest.sh)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# libnilfs uses POSIX named semaphores, which glibc keeps in /dev/shm
mkdir -p /dev/shm /run
mount -t tmpfs tmpfs /dev/shm
mkdir -p /tmp /mnt /ktest
dmesg -n 1

for m in $(cat /modules.order); do
	insmod "/lib/modules/$m.ko" || echo "ktest-init: insmod $m failed"
done

tag= disk=
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktest.tag=*) tag=${arg#ktest.tag=} ;;
	ktest.disk=*) disk=${arg#ktest.disk=} ;;
	esac
done

# virtio disks are probed asynchronously
i=0
while [ ! -b "/dev/$disk" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

rc=125
if tar -xf "/dev/$disk" -C /ktest 2>/dev/null && [ -f /ktest/script ]; then
	# an installed tree in nilfs-tools' place (NILFS_KTEST_ROOT)
	if [ -d /ktest/sysroot ]; then
		rm -f $(cat /nilfs-tools.list)
		cp -a /ktest/sysroot/. /
	fi
	# libraries of extra host programs (NILFS_KTEST_EXTRA)
	[ -d /ktest/root ] && cp -a /ktest/root/. /
	echo "===KTEST-BEGIN-$tag==="
	(cd /tmp && /bin/sh /ktest/script)
	rc=$?
	echo "===KTEST-END-$tag rc=$rc==="
else
	echo "ktest-init: cannot read script from /dev/$disk"
fi
echo "===KTEST-DMESG-$tag==="
dmesg
echo "===KTEST-DMESG-END-$tag==="
sync
poweroff -f
EOF
	chmod 755 "$1"
}

# Build the initramfs into $CACHE unless an up-to-date one exists.
build_initramfs() {
	find_kernel
	find_busybox || die "no static busybox"
	key=$(echo "$KERNEL $MODDIR${NILFS_KTEST_MODULES:+ $NILFS_KTEST_MODULES}" | cksum | cut -d' ' -f1)
	INITRD=$CACHE/initramfs-$KVER-$key.cpio.gz
	# reuse the cached image unless one of its inputs is newer
	fresh=yes
	for src in "$KTEST_DIR/guest.sh" "$KERNEL" "$BUSYBOX" \
		"$(tool_path lscp)" "$(tool_path mkfs.nilfs2)"; do
		[ -f "$INITRD" ] && [ "$INITRD" -nt "$src" ] || fresh=no
	done
	[ $fresh = yes ] && return 0
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	work=$(mktemp -d "$CACHE/build.XXXXXX") || die "mktemp failed"
	root=$work/root
	mkdir -p "$root/bin" "$root/sbin" "$root/dev" "$root/proc" \
		"$root/sys" "$root/tmp" "$root/mnt" "$root/etc" \
		"$root/lib/modules"

	cp "$BUSYBOX" "$root/bin/busybox"
	for a in $("$BUSYBOX" --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
	ln -s /proc/mounts "$root/etc/mtab"

	: >"$root/modules.order"
	for m in $MODULES; do
		module_file "$m" >/dev/null || ! module_builtin "$m" || continue
		f=$(module_file "$m") || die "module $m not found in $MODDIR"
		name=${m##*/}
		case $f in
		*.ko.xz) xz -dc "$f" >"$root/lib/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$root/lib/modules/$name.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$root/lib/modules/$name.ko" ;;
		*) cp "$f" "$root/lib/modules/$name.ko" ;;
		esac || die "cannot unpack $f"
		echo "$name" >>"$root/modules.order"
	done

	: >"$root/nilfs-tools.list"
	for t in $NILFS_TOOLS; do
		p=$(tool_path "$t") || continue
		copy_with_libs "$root" "$p"
		echo "$p" >>"$root/nilfs-tools.list"
	done

	write_init "$root/init"

	(cd "$root" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet | gzip -9) >"$work/initrd" ||
		die "cpio failed"
	mv -f "$work/initrd" "$INITRD"	# atomic for parallel test runs
	rm -rf "$work"
}

# The kernel's boot messages go to the console (a guest that stops while
# booting shows how far it got); /init turns them off (dmesg -n 1) before
# anything of the script's is printed.
BOOT_LOGLEVEL=6
# The IO-APIC timer check counts ticks during a busy wait calibrated
# earlier; under TCG on a loaded host the two clocks disagree and 6.12
# panicked at boot ("IO-APIC + timer doesn't work!", once in the first 20
# boots at a load of 13).  Linux skips the check itself on KVM, VMware and
# Hyper-V; a TCG guest it cannot recognise is told on the command line.
BOOT_OPTS="no_timer_check"

# The first line of a kernel crash report in console log $1, or nothing.
# Only the kernel's lines count (they carry its time stamp).  Two reports
# are the host's load, not the kernel's: a soft lockup (under TCG on a
# loaded host the guest's CPU is starved for tens of seconds now and then:
# 6.12 with slub_debug at a load of 14) and the crypto self-tests' warning
# when the DRBG cannot be seeded because the jitter entropy source, timed
# on that starved CPU, fails its health tests (6.12 at a load of 27).
oops_line() {
	grep -E '\[ *[0-9]+\.[0-9]+\] .*(BUG|Oops|general protection fault|Kernel panic|Unable to handle|WARNING: CPU:|stack-protector|double fault|Poison overwritten|Redzone overwritten|Object already free|Freepointer corrupt)' "$1" |
		grep -v -m 1 -E 'soft lockup|WARNING: CPU: [0-9]+ PID: [0-9]+ at crypto/testmgr\.c'
}

# Whether console log $1 shows the guest starved: soft lockups, RCU stalls.
starved() {
	grep -q -E 'soft lockup|self-detected stall|detected stalls on CPUs' "$1"
}

# The crash report in console log $1, in full: from its first line to the
# end of the log (a panic stops the machine there).
oops_text() {
	first=$(oops_line "$1") || return 0
	echo "guest.sh: --- the guest kernel's crash report ---"
	awk -v f="$first" 'index($0, f) == 1 { on = 1 } on' "$1" | head -n 300
}

# One sentence for a guest that did not report a status: what its console
# log $1 shows of where it stopped ($2: qemu's exit status).
console_verdict() {
	line=$(oops_line "$1" | sed 's/^\[ *[0-9.]*\] //')
	panic=$(grep -m 1 -E '\[ *[0-9]+\.[0-9]+\] Kernel panic - not syncing' "$1" | sed 's/^.*\[ *[0-9.]*\] //')
	if [ -n "$panic" ]; then
		# the first report, and the panic it led to if that is another line
		[ "$line" = "$panic" ] || line="$line; $panic"
		echo "the guest kernel crashed ($line)"
	elif grep -q "===KTEST-BEGIN-$tag===" "$1" && grep -q 'sysrq: Resetting' "$1"; then
		echo "reset by the guest script (sysrq b), as it asked${line:+; the kernel reported before: $line}"
	elif [ -n "$line" ]; then
		echo "the guest kernel crashed ($line)"
	elif grep -q "===KTEST-BEGIN-$tag===" "$1"; then
		if starved "$1"; then
			echo "the guest stopped in its script without a crash report, after reporting its CPU starved (soft lockup or RCU stall): TCG on a loaded host (qemu exit $2)"
		else
			echo "the guest stopped in its script without a crash report (qemu exit $2)"
		fi
	elif grep -q 'Linux version' "$1"; then
		echo "the guest kernel stopped before the script began, without a crash report$(starved "$1" &&
			echo ", after reporting its CPU starved: TCG on a loaded host") (last line: $(grep . "$1" | tail -n 1 | cut -c 1-100))"
	elif [ "$2" = 124 ] || [ "$2" = 137 ]; then
		echo "the emulated machine never ran the kernel (nothing but the firmware on the console): qemu stalled, as TCG now and then does on a loaded host; not a finding of the test"
	else
		echo "the machine reset before the kernel wrote anything (qemu exit $2): an early boot failure (too little memory for the kernel and initramfs?), not a hang"
	fi
}

# Append console log $1 to $NILFS_KTEST_CONSOLE under a line naming the
# kernel, the script and why ($2), and say where it went.
keep_console() {
	[ -n "${NILFS_KTEST_CONSOLE:-}" ] || return 0
	{
		echo "=== guest.sh: $(date -u +%FT%TZ) $KVER: $2"
		echo "=== guest.sh: script $script, ${MEM} MiB, virtio-blk ${VIRTIO_BLK_OPTS:-defaults}, kernel command line: $cmdline"
		cat "$1"
	} >>"$NILFS_KTEST_CONSOLE" &&
		echo "guest.sh: the whole console log is in $NILFS_KTEST_CONSOLE" >&2
}

run_guest() {
	[ $# -ge 1 ] || die "usage: guest.sh run SCRIPT [IMG...]"
	script=$1
	shift
	[ -r "$script" ] || die "cannot read $script"
	[ $# -le 25 ] || die "too many images"
	build_initramfs

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/nilfs-ktest.XXXXXX") ||
		die "mktemp failed"
	# shellcheck disable=SC2064  # expand $tmp now
	trap "rm -rf '$tmp'" EXIT

	drives=()
	n=0
	for img in "$@"; do
		[ -f "$img" ] || [ -b "$img" ] || die "no such image: $img"
		drives+=(-drive "file=$img,format=raw,if=none,id=disk$n"
			-device "virtio-blk-pci,drive=disk$n${VIRTIO_BLK_OPTS:+,$VIRTIO_BLK_OPTS}")
		n=$((n + 1))
	done
	# the script travels in a tar archive on one more virtio disk
	mkdir "$tmp/in"
	cp "$script" "$tmp/in/script"
	members=script
	if [ -n "${NILFS_KTEST_EXTRA:-}" ]; then
		mkdir -p "$tmp/in/bin" "$tmp/in/root"
		for prog in $NILFS_KTEST_EXTRA; do
			[ -f "$prog" ] && [ -x "$prog" ] || die "NILFS_KTEST_EXTRA: not a program: $prog"
			cp -L "$prog" "$tmp/in/bin/${prog##*/}" || die "cannot copy $prog"
			copy_with_libs "$tmp/in/root" "$(cd "$(dirname "$prog")" && pwd)/${prog##*/}"
		done
		# the program itself lives in /ktest/bin only
		find "$tmp/in/root" -type f ! -name '*.so*' -delete
		members="script bin root"
	fi
	if [ -n "${NILFS_KTEST_ROOT:-}" ]; then
		[ -d "$NILFS_KTEST_ROOT" ] || die "NILFS_KTEST_ROOT: not a directory: $NILFS_KTEST_ROOT"
		mkdir -p "$tmp/in/sysroot"
		cp -a "$NILFS_KTEST_ROOT/." "$tmp/in/sysroot/" || die "cannot copy $NILFS_KTEST_ROOT"
		# the libraries its programs need, from the host
		find "$tmp/in/sysroot" -type f -perm -u+x | while read -r prog; do
			copy_libs "$tmp/in/sysroot" "$prog"
		done
		members="$members sysroot"
	fi
	if [ -n "${NILFS_KTEST_ORACLE:-}" ]; then
		[ -x "$NILFS_KTEST_ORACLE/bin/lscp" ] || die "NILFS_KTEST_ORACLE: no bin/lscp in $NILFS_KTEST_ORACLE"
		cp -a "$NILFS_KTEST_ORACLE" "$tmp/in/oracle" || die "cannot copy $NILFS_KTEST_ORACLE"
		members="$members oracle"
	fi
	# shellcheck disable=SC2086  # word splitting wanted
	tar -cf "$tmp/script.tar" --format=ustar -C "$tmp/in" $members ||
		die "tar failed"
	# at least 1 MiB: avoids "beyond EOD" partition noise
	[ "$(stat -c %s "$tmp/script.tar")" -ge 1048576 ] || truncate -s 1M "$tmp/script.tar"
	drives+=(-drive "file=$tmp/script.tar,format=raw,if=none,id=script"
		-device "virtio-blk-pci,drive=script${VIRTIO_BLK_OPTS:+,$VIRTIO_BLK_OPTS}")
	letters=abcdefghijklmnopqrstuvwxyz
	disk=vd${letters:$#:1}

	tag=$$-$RANDOM$RANDOM
	log=$tmp/console.log
	cmdline="console=ttyS0 loglevel=$BOOT_LOGLEVEL $BOOT_OPTS panic=-1 rdinit=/init ktest.tag=$tag ktest.disk=$disk${NILFS_KTEST_APPEND:+ $NILFS_KTEST_APPEND}"
	timeout -k 10 "$TIMEOUT" "$QEMU" -accel tcg -m "$MEM" -nographic \
		-monitor none -serial "file:$log" -no-reboot -nic none \
		-kernel "$KERNEL" -initrd "$INITRD" \
		-append "$cmdline" \
		"${drives[@]}" </dev/null >"$tmp/qemu.out" 2>&1
	qrc=$?

	tr -d '\r' <"$log" >"$tmp/console.txt" 2>/dev/null
	if [ "${NILFS_KTEST_VERBOSE:-0}" = 1 ]; then
		cat "$tmp/console.txt" >&2
	fi

	# print everything between the markers; the begin marker may follow
	# terminal escapes from the firmware, the end marker may follow
	# output that lacks a final newline
	awk -v b="===KTEST-BEGIN-$tag===" -v e="===KTEST-END-$tag rc=" '
		!on && index($0, b) { on = 1; next }
		on && (i = index($0, e)) {
			if (i > 1) print substr($0, 1, i - 1)
			exit
		}
		on { print }' "$tmp/console.txt"

	rc=$(sed -n "s/.*===KTEST-END-$tag rc=\([0-9]*\)===.*/\1/p" \
		"$tmp/console.txt" | tail -n 1)
	if [ -z "$rc" ]; then
		if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
			echo "guest.sh: guest timed out after ${TIMEOUT}s" >&2
		else
			echo "guest.sh: guest did not report a status" \
				"(qemu exit $qrc)" >&2
		fi
		echo "guest.sh: --- qemu output ---" >&2
		tail -n 20 "$tmp/qemu.out" >&2
		echo "guest.sh: --- last console lines ---" >&2
		tail -n 40 "$tmp/console.txt" >&2
		oops_text "$tmp/console.txt" >&2
		verdict=$(console_verdict "$tmp/console.txt" $qrc)
		case $verdict in
		reset*reported*) keep_console "$tmp/console.txt" "no status: $verdict" ;;
		reset*) ;;	# the script's own sysrq b: nothing to keep
		*) keep_console "$tmp/console.txt" "no status: $verdict" ;;
		esac
		echo "guest.sh: $verdict" >&2
		return 125
	fi
	if [ -n "${NILFS_KTEST_DMESG:-}" ]; then
		{
			echo "=== guest.sh: $KVER: $script rc=$rc"
			sed -n "/===KTEST-DMESG-$tag===/,/===KTEST-DMESG-END-$tag===/p" \
				"$tmp/console.txt" | sed '1d;$d'
		} >>"$NILFS_KTEST_DMESG"
	fi
	if [ "$rc" -ne 0 ] && [ "${NILFS_KTEST_VERBOSE:-0}" != 1 ]; then
		echo "guest.sh: guest script exited $rc; guest kernel log tail:" >&2
		sed -n "/===KTEST-DMESG-$tag===/,/===KTEST-DMESG-END-$tag===/p" \
			"$tmp/console.txt" | sed '1d;$d' | tail -n 20 >&2
	fi
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || keep_console "$tmp/console.txt" "script exited $rc"
	return "$rc"
}

case ${1:-} in
check-deps)
	check_deps
	exit
	;;
require)
	# for tests: automake's skip (77) when dependencies are missing, but a
	# hard error (99) under CI, whose .ci/run installs them; NILFS_KTEST_SKIP
	# (configure --disable-kernel-tests, make distcheck) skips even under CI
	if [ -n "${NILFS_KTEST_SKIP:-}" ] && [ "$NILFS_KTEST_SKIP" != 0 ]; then
		echo "SKIP: real-kernel tests turned off (NILFS_KTEST_SKIP=$NILFS_KTEST_SKIP)"
		exit 77
	fi
	check_deps && exit 0
	if [ "${CI:-}" = true ]; then
		echo "ERROR: CI must run the real-kernel tests; .ci/run installs their packages"
		exit 99
	fi
	echo "SKIP: kernel test dependencies missing (see above)"
	exit 77
	;;
oops)
	# the first line of a crash report in a console or kernel log
	[ $# = 2 ] && [ -r "$2" ] || die "usage: guest.sh oops LOG"
	oops_line "$2"
	exit
	;;
build)
	check_deps || exit
	build_initramfs
	echo "$INITRD"
	;;
run)
	shift
	check_deps || exit
	run_guest "$@"
	exit
	;;
*)
	echo "usage: guest.sh check-deps | build | run SCRIPT [IMG...] | oops LOG" >&2
	exit 2
	;;
esac
