#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-recovery-fault.sh - fsck.nilfs2 -y doing the kernel's recovery on
# a crashed volume, cut by power loss at every write (NILFS_TEST_FAULT,
# see README.md), torn and lost.  Two volumes the real kernel left when
# the machine died: "replay", with checkpoints newer than the superblocks'
# cursor and data-sync logs after the last super root (recovered by one
# construction), and "cursor", with newer checkpoints only (recovered by
# pointing both superblocks at the latest super root); and "open", the
# replay volume with its last data-sync series left unended (as a crash
# in the middle of one leaves it: the kernel's roll-forward must not run
# on from it into a cut construction's logs).  For every cut:
#   - our check is clean (an unfinished recovery is a note) and our reader
#     shows the tree it showed of the crashed volume;
#   - a second fsck.nilfs2 -y finishes it: clean, marked cleanly unmounted,
#     the same tree;
#   - the kernel mounts the cut volume (recovering it itself) and reads the
#     tree it reads from the crashed volume; so it does the volume the
#     uncut run recovered, which it must not need to recover again.
# The uncut run must exit 0 (the recovery is not a correction) and leave
# the volume clean and marked cleanly unmounted.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=$(cd "${top_builddir:-$here/../..}" && pwd)
mkfs=$top/mkfs.nilfs2
fsck=$top/fsck.nilfs2
dump=$top/dump.nilfs2
corrupt=$top/tests/fsck/corrupt

"$guest" require || exit
for p in "$mkfs" "$fsck" "$dump" "$corrupt"; do [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-recovery-fault.XXXXXX") || exit 1
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
. "$here/manifest.sh"

# the files of a tree without mtimes: contents and paths
tree() { manifest "$1" | grep -v '^S '; (cd "$1" && find . | LC_ALL=C sort | sed 's|^|P |'); }
ours() {
	rm -rf "$tmp/x" && mkdir "$tmp/x" &&
		"$dump" "$1" extract / "$tmp/x" >/dev/null 2>&1 && tree "$tmp/x"
}
state() { "$dump" "$1" super | awk '/^[a-z]+ superblock/ { c = $1 } /s_state/ { printf "%s=%s ", c, $2 }'; }

for kind in replay cursor; do
	img=$tmp/$kind.img
	truncate -s 64M "$img"
	"$mkfs" -q -f -b 1024 -B 256 "$img" || exit 1
	{
		echo "KIND=$kind"
		cat <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
mkdir /mnt/d
i=1
while [ $i -le 20 ]; do
	dd if=/dev/urandom of=/mnt/d/f$i bs=1k count=$((i % 7 + 1)) 2>/dev/null
	i=$((i + 1))
done
sync
dd if=/dev/urandom of=/mnt/big bs=1k count=300 2>/dev/null
sync
for i in 1 2 3 4 5; do echo "more $i" >/mnt/d/g$i; sync; done
if [ "$KIND" = replay ]; then
	dd if=/dev/urandom of=/mnt/big bs=1k seek=10 count=40 conv=notrunc 2>/dev/null
	sync -d /mnt/big
	dd if=/dev/urandom of=/mnt/d/f3 bs=1k count=2 conv=notrunc 2>/dev/null
	sync -d /mnt/d/f3
fi
echo b >/proc/sysrq-trigger
GUEST
	} >"$tmp/crash"
	"$guest" run "$tmp/crash" "$img" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 125 ] || { tail -n 20 "$tmp/out"; echo "FAIL: $kind: the guest was to die, it exited $rc"; exit 1; }
done

cp --sparse=always "$tmp/replay.img" "$tmp/open.img"
"$corrupt" --open-dsync "$tmp/open.img" || exit 1

# what the crashes left: unclean, and what our reader shows
for kind in replay cursor open; do
	img=$tmp/$kind.img
	"$fsck" -fn "$img" >"$tmp/n" 2>&1 || { cat "$tmp/n"; bad "$kind: fsck -fn on the crashed volume exits $?"; }
	grep -q 'not cleanly unmounted' "$tmp/n" || { cat "$tmp/n"; bad "$kind: the crashed volume is not unclean"; }
	if [ $kind = replay ]; then
		grep -q 'roll-forward: at mount the kernel replays' "$tmp/n" || { cat "$tmp/n"; bad "replay: no data-sync log to replay"; }
	elif [ $kind = open ]; then
		grep -q 'roll-forward: .* not complete data-sync logs' "$tmp/n" || { cat "$tmp/n"; bad "open: no unended data-sync log"; }
	else
		grep -q 'roll-forward' "$tmp/n" && { cat "$tmp/n"; bad "cursor: logs after the super root"; }
	fi
	ours "$img" >"$tmp/$kind.ours" || bad "$kind: extract failed"
	cp --sparse=always "$img" "$tmp/$kind-whole.img"
	"$fsck" -y "$tmp/$kind-whole.img" >"$tmp/y" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat "$tmp/y"; bad "$kind: fsck -y exits $rc, not 0 (the recovery alone corrects nothing)"; }
	grep -q '^.*recovery: ' "$tmp/y" || { cat "$tmp/y"; bad "$kind: fsck -y does not say what it recovered"; }
	"$fsck" -fn "$tmp/$kind-whole.img" >"$tmp/n" 2>&1 || { cat "$tmp/n"; bad "$kind: not clean after fsck -y"; }
	grep -q 'not cleanly unmounted\|roll-forward' "$tmp/n" && { cat "$tmp/n"; bad "$kind: still to recover after fsck -y"; }
	case $(state "$tmp/$kind-whole.img") in
	*0x0000*) bad "$kind: a superblock copy still unclean after fsck -y: $(state "$tmp/$kind-whole.img")" ;;
	esac
	ours "$tmp/$kind-whole.img" | cmp -s - "$tmp/$kind.ours" || bad "$kind: fsck -y changed the tree our reader shows"
	echo "$kind: fsck -y: $(grep 'recovery: ' "$tmp/y" | sed 's/^[^:]*: [^:]*: //' | head -n 1)"
done

# every cut: ours now, the kernel's in the guests below
imgs=
for kind in replay cursor open; do
	img=$tmp/$kind.img
	cp --sparse=always "$img" "$tmp/count"
	NILFS_TEST_FAULT=count "$fsck" -y "$tmp/count" >"$tmp/run" 2>&1
	n=$(sed -n 's/^nilfs-test-fault: \([0-9]*\) writes.*/\1/p' "$tmp/run")
	[ "${n:-0}" -gt 0 ] || { cat "$tmp/run"; bad "$kind: no writes counted"; continue; }
	for mode in crash tear; do
		k=0
		while [ "$k" -lt "$n" ]; do
			cut=$tmp/$kind-$mode-$k.img
			cp --sparse=always "$img" "$cut"
			NILFS_TEST_FAULT=$mode:$k "$fsck" -y "$cut" >"$tmp/run" 2>&1
			"$fsck" -fn "$cut" >"$tmp/n" 2>&1 ||
				{ bad "$kind $mode:$k of $n: the cut volume does not check clean:"; grep -v '^Pass' "$tmp/n" | head -n 8; }
			ours "$cut" | cmp -s - "$tmp/$kind.ours" || bad "$kind $mode:$k of $n: our reader shows another tree"
			cp --sparse=always "$cut" "$tmp/again"
			"$fsck" -y "$tmp/again" >"$tmp/y" 2>&1
			rc=$?
			[ $rc -le 1 ] || { bad "$kind $mode:$k: a second fsck -y exits $rc"; cat "$tmp/y"; }
			"$fsck" -fn "$tmp/again" >"$tmp/n" 2>&1 || { bad "$kind $mode:$k: not clean after a second -y"; cat "$tmp/n"; }
			grep -q 'not cleanly unmounted\|roll-forward' "$tmp/n" && bad "$kind $mode:$k: still to recover after a second -y"
			ours "$tmp/again" | cmp -s - "$tmp/$kind.ours" || bad "$kind $mode:$k: another tree after a second -y"
			imgs="$imgs $cut"
			k=$((k + 1))
		done
	done
	echo "$kind: fsck -y cut at each of $n writes, torn and lost: checked by our tools"
done

# the kernel: each crashed volume and every cut one, 20 disks a boot
# shellcheck disable=SC2086
set -- $tmp/replay.img $tmp/cursor.img $tmp/open.img $tmp/replay-whole.img $tmp/cursor-whole.img \
	$tmp/open-whole.img $imgs
nboot=0
while [ $# -gt 0 ]; do
	batch=
	j=0
	while [ $# -gt 0 ] && [ $j -lt 20 ]; do batch="$batch $1"; shift; j=$((j + 1)); done
	script=$tmp/mount
	{
		cat "$here/manifest.sh"
		echo "nimg=$j"
		cat <<'GUEST'
for dev in /dev/vd?; do
	[ $nimg -gt 0 ] || break
	nimg=$((nimg - 1))
	mount -t nilfs2 $dev /mnt 2>/dev/null || { echo "MOUNT FAILED $dev"; continue; }
	{ manifest /mnt | grep -v '^S '; (cd /mnt && find . | sort | sed 's|^|P |'); } | sed "s|^|T$dev |"
	dmesg | grep -q "($(basename $dev)): mounting unchecked" && echo "UNCHECKED $dev"
	umount /mnt
done
GUEST
	} >"$script"
	# shellcheck disable=SC2086
	"$guest" run "$script" $batch >"$tmp/out" 2>&1 || { tail -n 30 "$tmp/out"; bad "a mount guest exited $?"; continue; }
	nboot=$((nboot + 1))
	grep "MOUNT FAILED" "$tmp/out" && bad "the kernel refused a volume"
	j=0
	for f in $batch; do
		dev=/dev/vd$(printf "\\$(printf %o $((97 + j)))")
		j=$((j + 1))
		sed -n "s|^T$dev ||p" "$tmp/out" >"$f.kernel"
		[ -s "$f.kernel" ] || bad "$(basename "$f"): no tree from the kernel"
		case $f in
		*-whole.img) grep -q "^UNCHECKED $dev\$" "$tmp/out" && bad "$(basename "$f"): the kernel still recovers it" ;;
		*/replay.img | */cursor.img | */open.img) grep -q "^UNCHECKED $dev\$" "$tmp/out" ||
			bad "$(basename "$f"): the kernel did not say it mounts it unchecked" ;;
		*) grep -q "^UNCHECKED $dev\$" "$tmp/out" || echo "note: $(basename "$f"): the kernel mounted it as clean" ;;
		esac
	done
done
for kind in replay cursor open; do
	# our reader's tree of the crashed volume is the kernel's after its recovery
	(cd "$tmp" && LC_ALL=C sort "$kind.ours") >"$tmp/a"
	LC_ALL=C sort "$tmp/$kind.img.kernel" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { bad "$kind: our reader and the kernel differ on the crashed volume:"; diff "$tmp/a" "$tmp/b" | head; }
	ncut=0
	for f in "$tmp/$kind"-*.img; do
		[ -f "$f" ] || continue
		ncut=$((ncut + 1))
		cmp -s "$f.kernel" "$tmp/$kind.img.kernel" ||
			{ bad "$(basename "$f"): the kernel reads the cut volume differently from the crashed one:"; diff "$tmp/$kind.img.kernel" "$f.kernel" | head; }
	done
	echo "$kind: the kernel reads the recovered volume and all $((ncut - 1)) cut ones as the crashed one ($(grep -c '^H ' "$tmp/$kind.img.kernel") files)"
done
echo "$nboot mount boot(s); $fail failure(s)"
[ "$fail" -eq 0 ]
