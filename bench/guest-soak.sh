#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/guest-soak.sh: boot one guest script many times on fresh copies of
# the same volumes, to tell a rare guest failure (a kernel oops, a hang)
# that our volumes cause from one of the emulator's under load.
#
# Usage: bench/guest-soak.sh SCRIPT [IMG...]
#
# Each boot runs tests/kernel/guest.sh run SCRIPT on copies of IMG... and
# is one line: the guest's exit status, what guest.sh said of a guest that
# did not report (a kernel crash with its first line, a machine that never
# ran the kernel, a starved guest), the first crash report in the kernel
# log of a guest that did report (slub_debug's reports of corrupted
# objects go on without a crash), how long it took and the host's load.
# At the end, the count of each outcome.  A guest that failed keeps its
# whole console log in DIR/console.N (guest.sh's NILFS_KTEST_CONSOLE),
# its kernel log in DIR/dmesg.N and its output in DIR/out.N.
#
# Environment:
#   SOAK_BOOTS=N        boots (default 20)
#   SOAK_SUITE=SUITE    the kernel: host (default), or a Debian suite
#                       fetch-kernels.sh can give (trixie: 6.12, sid)
#   SOAK_DIR=DIR        where failures are kept (default: a new directory
#                       in ${TMPDIR:-/tmp}, printed)
#   SOAK_EXPECT=reset   the script resets the guest on purpose (sysrq b, a
#                       torture crash step): that is the success, not exit 0
#   NILFS_KTEST_APPEND, NILFS_KTEST_VIRTIO_BLK, NILFS_KTEST_TIMEOUT,
#   NILFS_KTEST_EXTRA   as for guest.sh: e.g. NILFS_KTEST_APPEND=
#                       slub_debug=FZPU checks every slab object at
#                       allocation and free (several times slower),
#                       NILFS_KTEST_VIRTIO_BLK= (empty) boots with qemu's
#                       default virtio-blk options
#
# Exit status: 0 if every boot succeeded, 1 otherwise.
#
# The volumes of a kernel test: t-mkfs's are what its first part writes
# ($tmp/img0..4, the guest script in $tmp/guest-script); torture.sh keeps
# the volume before each boot in DIR/keep/boot.img and names the command
# that replays the boot in DIR/REPRO.

set -u
here=$(cd "$(dirname "$0")" && pwd)
ktest=$here/../tests/kernel
[ $# -ge 1 ] || { sed -n '5,6p' "$0" >&2; exit 2; }
script=$1
shift
[ -r "$script" ] || { echo "guest-soak.sh: cannot read $script" >&2; exit 2; }
boots=${SOAK_BOOTS:-20}
suite=${SOAK_SUITE:-host}
if [ "$suite" != host ]; then
	env=$("$ktest/fetch-kernels.sh" kernel "$suite") || exit
	# shellcheck disable=SC1090  # written by fetch-kernels.sh
	. "$env"
fi
"$ktest/guest.sh" check-deps || exit
dir=${SOAK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/guest-soak.XXXXXX")} || exit 1
mkdir -p "$dir/work" || exit 1
echo "guest-soak.sh: $boots boots of $script on ${NILFS_KTEST_KERNEL:-the host kernel}" \
	"(command line +${NILFS_KTEST_APPEND:-}, virtio-blk ${NILFS_KTEST_VIRTIO_BLK-harness default}); failures kept in $dir"
export NILFS_KTEST_DMESG=$dir/work/dmesg

bad=0
i=1
while [ "$i" -le "$boots" ]; do
	copies=()
	n=0
	for img in "$@"; do
		cp --sparse=always "$img" "$dir/work/img$n" || exit 1
		copies+=("$dir/work/img$n")
		n=$((n + 1))
	done
	: >"$NILFS_KTEST_DMESG"
	rm -f "$dir/work/console"
	start=$(date +%s)
	NILFS_KTEST_CONSOLE=$dir/work/console "$ktest/guest.sh" run "$script" "${copies[@]}" \
		>"$dir/work/out" 2>"$dir/work/err"
	rc=$?
	secs=$(($(date +%s) - start))
	said=$(grep '^guest.sh: ' "$dir/work/err" | tail -n 1 | cut -c 11-)
	if [ $rc = 125 ] && [ "${SOAK_EXPECT:-}" = reset ] && echo "$said" | grep -q '^reset by the guest script'; then
		outcome=ok
	elif [ $rc = 0 ] && [ "${SOAK_EXPECT:-}" != reset ]; then
		outcome=ok
	elif [ $rc = 125 ]; then
		outcome="no status: $said"
	else
		outcome="exit $rc"
	fi
	if report=$("$ktest/guest.sh" oops "$NILFS_KTEST_DMESG"); then
		outcome="$outcome; kernel log: $(echo "$report" | sed 's/^\[ *[0-9.]*\] //')"
	fi
	echo "boot $i: $outcome ($secs s, load $(cut -d' ' -f1 /proc/loadavg))"
	echo "$outcome" >>"$dir/outcomes"
	if [ "$outcome" != ok ]; then
		bad=$((bad + 1))
		cp "$dir/work/out" "$dir/out.$i"
		cp "$NILFS_KTEST_DMESG" "$dir/dmesg.$i"
		[ -f "$dir/work/console" ] && cp "$dir/work/console" "$dir/console.$i"
	fi
	i=$((i + 1))
done
rm -rf "$dir/work"
echo "guest-soak.sh: $boots boots, $bad failed; outcomes:"
sort "$dir/outcomes" | uniq -c | sed 's/^/  /'
[ $bad = 0 ]
